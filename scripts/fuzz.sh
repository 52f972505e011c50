#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz: fuzz perf's perf.data readers with Debian's AFL++. perf is
# built with AFL++'s instrumentation, ASan and UBSan into
# build/BASE/perf-fuzz; one afl-fuzz runs each target of
# scripts/fuzz/targets (perf script -D, perf report --stdio, perf inject),
# all of them or those FUZZ_TARGETS names, for FUZZ_SECONDS (default 600),
# from the recordings in scripts/fuzz/seeds/ (make fuzz-seeds). Their
# state stays in build/BASE/fuzz/ and a later run goes on from it. Then
# each crash and hang found is replayed with the ASan+UBSan perf
# (build/BASE/perf-san) through its target's commands and printed with its
# first report line, with each fuzzer's figures. An input worth keeping
# goes to scripts/fuzz/regress/, which make check replays.
. "$(dirname "$0")/lib.sh"

secs=${FUZZ_SECONDS:-600}
[[ $secs =~ ^[1-9][0-9]*$ ]] || die "FUZZ_SECONDS=$secs: give a number of seconds"
F=$OBJ/fuzz
PF=$OBJ/perf-fuzz/perf
PS=$OBJ/perf-san/perf
mkdir -p "$F/home"

# afl-fuzz's own checks of the host: no CPU frequency governor here, and a
# core_pattern that a container cannot change.
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1
export AFL_AUTORESUME=1 HOME=$F/home PAGER=cat
export ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:symbolize=0

# The targets and their commands, a "name<TAB>arguments" line each.
targets=$(grep -v '^#' "$TOP/scripts/fuzz/targets")
names=${FUZZ_TARGETS:-$(cut -f1 <<<"$targets" | uniq | xargs)}
mkdir -p "$F/symfs"
# afl-fuzz binds itself to a free CPU and fails when there is none.
[ "$(wc -w <<<"$names")" -le "$(nproc)" ] || export AFL_NO_AFFINITY=1

# cmds T: target T's commands, a line each, as perf's arguments for
# this run's files.
cmds() {
	awk -F'\t' -v t="$1" '$1 == t { print $2 }' <<<"$targets" |
		sed "s|SYMFS|$F/symfs|; s|OUT|$F/$1.out|"
}

# fuzz T: target T's afl-fuzz, which runs its commands in turn, each for
# its share of the time, on one queue.
fuzz() {
	local t=$1 n s a
	n=$(cmds "$t" | wc -l)
	[ "$n" -gt 0 ] || { echo "no target $t in scripts/fuzz/targets"; return 1; }
	# afl-fuzz -V 0 would not stop.
	s=$((secs / n)) && [ "$s" -gt 0 ] || s=1
	while read -r a; do
		# shellcheck disable=SC2086
		afl-fuzz -i "$TOP/scripts/fuzz/seeds" -o "$F/$t" -t 2000 -m none \
			-V "$s" -- "$PF" $a </dev/null || return
	done < <(cmds "$t")
}

stage "fuzzing perf's perf.data readers for ${secs}s: $names"
pids=()
for t in $names; do
	fuzz "$t" >"$F/$t.log" 2>&1 &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=$?
done
[ "$rc" = 0 ] || { tail -n 20 "$F"/*.log >&2; die "afl-fuzz failed (logs: ${F#"$TOP"/}/*.log)"; }

# stat FILE KEY: a value from afl-fuzz's fuzzer_stats
stat() { sed -n "s/^$2 *: //p" "$1"; }

stage "results"
unset ASAN_OPTIONS UBSAN_OPTIONS
for t in $names; do
	s=$F/$t/default/fuzzer_stats
	[ -f "$s" ] || die "no $s"
	printf '  %s: %s execs in %ss (%s/s), %s paths, %s crashes, %s hangs\n' \
		"$t" "$(stat "$s" execs_done)" "$(stat "$s" run_time)" \
		"$(stat "$s" execs_per_sec)" "$(stat "$s" corpus_count)" \
		"$(stat "$s" saved_crashes)" "$(stat "$s" saved_hangs)"
	# A target of several commands restarts afl-fuzz for each, which
	# moves the crashes and hangs of the one before to crashes.<time>/.
	for f in "$F/$t"/default/crashes*/id:* "$F/$t"/default/hangs*/id:*; do
		[ -f "$f" ] || continue
		while read -r a; do
			# shellcheck disable=SC2086
			out=$(timeout 30 "$PS" ${a/@@/$f} 2>&1 >/dev/null) && r=0 || r=$?
			why=$(grep -m1 -E 'ERROR: AddressSanitizer|runtime error' <<<"$out" ||
			      tail -1 <<<"$out")
			printf '    %s: perf %s: exit %s: %s\n' "${f#"$F"/}" "${a//$F\//}" "$r" "$why"
		done < <(cmds "$t")
	done
done
