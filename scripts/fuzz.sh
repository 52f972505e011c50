#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz: fuzz perf's perf.data reader with Debian's AFL++. perf is
# built with AFL++'s instrumentation, ASan and UBSan into build/perf-fuzz;
# one afl-fuzz runs perf script -D and another perf report --stdio, one a
# CPU, each for FUZZ_SECONDS (default 600), from the recordings in
# scripts/fuzz/seeds/ (make fuzz-seeds). Their state stays in build/fuzz/
# and a later run goes on from it. Then each crash and hang found is
# replayed with the ASan+UBSan perf (build/perf-san) and printed with its
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

# An empty --symfs: perf finds none of the files that an input names, on
# any machine, so what an input does depends on the input alone, and an
# exec takes a sixth of the time it takes to load the host's libc symbols.
mkdir -p "$F/symfs"
declare -A cmd=(
	[script]="script -D --symfs=$F/symfs -i @@"
	[report]="report --stdio --symfs=$F/symfs -i @@"
)

stage "fuzzing perf's perf.data reader for ${secs}s: ${!cmd[*]}"
pids=()
for t in "${!cmd[@]}"; do
	# shellcheck disable=SC2086
	afl-fuzz -i "$TOP/scripts/fuzz/seeds" -o "$F/$t" -t 2000 -m none -V "$secs" \
		-- "$PF" ${cmd[$t]} >"$F/$t.log" 2>&1 &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=$?
done
[ "$rc" = 0 ] || { tail -n 20 "$F"/*.log >&2; die "afl-fuzz failed (logs: build/fuzz/*.log)"; }

# stat FILE KEY: a value from afl-fuzz's fuzzer_stats
stat() { sed -n "s/^$2 *: //p" "$1"; }

stage "results"
unset ASAN_OPTIONS UBSAN_OPTIONS
for t in "${!cmd[@]}"; do
	s=$F/$t/default/fuzzer_stats
	[ -f "$s" ] || die "no $s"
	printf '  perf %s: %s execs in %ss (%s/s), %s paths, %s crashes, %s hangs\n' \
		"${cmd[$t]}" "$(stat "$s" execs_done)" "$(stat "$s" run_time)" \
		"$(stat "$s" execs_per_sec)" "$(stat "$s" corpus_count)" \
		"$(stat "$s" saved_crashes)" "$(stat "$s" saved_hangs)"
	for f in "$F/$t"/default/crashes/id:* "$F/$t"/default/hangs/id:*; do
		[ -f "$f" ] || continue
		# shellcheck disable=SC2086
		out=$(timeout 30 "$PS" ${cmd[$t]/@@/$f} 2>&1 >/dev/null) && r=0 || r=$?
		why=$(grep -m1 -E 'ERROR: AddressSanitizer|runtime error' <<<"$out" ||
		      tail -1 <<<"$out")
		printf '    %s: exit %s: %s\n' "${f#"$F"/}" "$r" "$why"
	done
done
