#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Replay the fuzzers' seeds and the inputs kept from what they found
# (scripts/fuzz/seeds/, scripts/fuzz/regress/) through every command of
# scripts/fuzz/targets (perf script -D, perf report --stdio, perf inject
# with and without --convert-mmap3, to a file and to a pipe), with the
# ASan+UBSan perf. A seed must read cleanly.
# A kept input must read cleanly or fail with a message and an exit status.
# A sanitizer report, a signal or a hang (60 s) is a failure.
# Leaks are not looked for: perf leaves memory to exit on its error paths.
# Under make coverage (PERF is perf-cov's) it replays them with that perf,
# and with FUZZ_REPLAY_QUEUES=1 each input of make fuzz's queues too
# (build/BASE/fuzz/TARGET/default/queue/), which is judged as a kept one.
set -u
perf=$OBJ/perf-san/perf
queues=()
case ${PERF:-} in
*/perf-cov/perf)
	perf=$PERF
	[ -z "${FUZZ_REPLAY_QUEUES:-}" ] || queues=("$OBJ"/fuzz/*/default/queue/*)
	;;
esac
dir=$(dirname "$0")/../../fuzz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp PAGER=cat ASAN_OPTIONS=detect_leaks=0
# As make fuzz runs them: with an empty --symfs, so that an input reads the
# same on any machine.
mkdir "$tmp/symfs"
mapfile -t cmds < <(grep -v '^#' "$dir/targets" | cut -f2 |
		    sed "s|SYMFS|$tmp/symfs|; s|OUT|$tmp/out|")

fail=0 n=0
for f in "$dir"/seeds/* "$dir"/regress/* "${queues[@]}"; do
	[ -f "$f" ] || continue
	kind=${f%/*} kind=${kind##*/}
	for cmd in "${cmds[@]}"; do
		cmd=${cmd/@@/$f}
		n=$((n + 1))
		# shellcheck disable=SC2086
		timeout 60 "$perf" $cmd >/dev/null 2>"$tmp/err"
		rc=$?
		why=
		if grep -q -E 'Sanitizer|runtime error' "$tmp/err"; then
			why=$(grep -m1 -E 'ERROR|runtime error' "$tmp/err")
		elif [ "$rc" = 124 ]; then
			why="no result in 60 s"
		elif [ "$rc" -gt 128 ] && [ "$rc" -le $((128 + 64)) ]; then
			# 129 to 192 is a signal; perf's own failures exit with
			# 256 - errno, 234 for EINVAL.
			why="killed by signal $((rc - 128))"
		elif [ "$rc" != 0 ] && [ "$kind" = seeds ]; then
			why="a seed does not read: $(tail -1 "$tmp/err")"
		elif [ "$rc" != 0 ] && [ ! -s "$tmp/err" ]; then
			why="exit $rc without a message"
		fi
		show=${cmd//$dir\//} show=${show//$tmp\//}
		if [ -n "$why" ]; then
			echo "FAIL perf $show: $why"
			fail=1
		else
			[ "$rc" = 0 ] && why= || why=" ($(tail -1 "$tmp/err"))"
			echo "ok   perf $show: exit $rc$why"
		fi
	done
done
[ "$n" -gt 0 ] || { echo "no seeds recorded yet (make fuzz-seeds)"; exit 2; }
exit $fail
