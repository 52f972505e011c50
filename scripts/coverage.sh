#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make coverage: which of the lines that the series adds ran. The kernel
# is built with gcov's counters in the objects of the C files the series
# changes (KERNEL=coverage, build-kernel.sh) and perf with them
# (build/BASE/perf-cov); make check runs with both (PERF=cov). With
# FUZZ_SECONDS, make fuzz runs first, and the check's fuzz-replay replays
# its queues with perf-cov; make fuzz-kernel runs after, on the coverage
# kernel. lcov reads the counters that each run left: the kernel's from
# the guest's /sys/kernel/debug/gcov, perf's from the guest and the host.
# scripts/coverage-report.sh gives per patch the lines that ran and those
# that did not, with the reasons of scripts/coverage-reasons-BASE.txt, and
# genhtml lcov's pages, in build/BASE/runs/<check>/coverage/.
#
# coverage.sh RUNDIR...: the report only, of those runs.
. "$(dirname "$0")/lib.sh"

export KERNEL=coverage
"$TOP/scripts/deps.sh" lcov
runs=("$@")
rc=0
if [ ${#runs[@]} = 0 ]; then
	"$TOP/scripts/build-kernel.sh"
	"$TOP/scripts/build-tests.sh"
	PERF_COV=1 "$TOP/scripts/build-perf.sh"
	# Counts of an earlier run on the host are not this one's.
	find "$OBJ/perf-cov" -name '*.gcda' -delete
	if [ -n "${FUZZ_SECONDS:-}" ]; then
		"$TOP/scripts/fuzz.sh" || rc=1
		export FUZZ_REPLAY_QUEUES=1
	fi
	# A failed test still leaves its counters: the report is made anyway.
	PERF=cov "$TOP/scripts/check.sh" check || rc=1
	run=$(readlink -f "$OBJ/runs/last")
	# The host's counters, at their objects' paths like the guest's.
	mkdir -p "$run/gcov/host"
	(cd / && find "${OBJ#/}/perf-cov" -name '*.gcda' -exec cp --parents -t "$run/gcov/host" {} +)
	runs+=("$run")
	if [ -n "${FUZZ_SECONDS:-}" ]; then
		"$TOP/scripts/check.sh" fuzz-kernel || rc=1
		runs+=("$(readlink -f "$OBJ/runs/last")")
	fi
fi

# Each directory of counters, one tracefile: lcov wants each .gcno beside
# its .gcda, and the copies have none.
out=${runs[0]}/coverage
rm -rf "$out" && mkdir -p "$out"
infos=()
n=0
for d in $(find "${runs[@]}" -type d -path '*/gcov/*' -prune 2>/dev/null); do
	[ -n "$(find "$d" -name '*.gcda' -print -quit)" ] || continue
	find "$d" -name '*.gcda' | while read -r f; do
		g=${f%.gcda}.gcno
		ln -sfn "/${g#"$d"/}" "$g"
	done
	n=$((n + 1))
	stage "lcov: ${d#$TOP/}"
	lcov -q -c -d "$d" -o "$out/$n.info" --rc lcov_branch_coverage=0 2>"$out/$n.log" ||
		{ tail -5 "$out/$n.log" >&2; die "lcov could not read the counters in ${d#$TOP/} (log: ${out#$TOP/}/$n.log)"; }
	infos+=("$out/$n.info")
done
[ ${#infos[@]} -gt 0 ] || die "no counters in ${runs[*]#$TOP/}: was it a run of make coverage?"

"$TOP/scripts/coverage-report.sh" "$out" "${infos[@]}"
lcov -q $(printf -- '-a %s ' "${infos[@]}") -o "$out/all.info" 2>/dev/null &&
	genhtml -q --prefix "$SRC" -o "$out/html" "$out/all.info" >"$out/genhtml.log" 2>&1 ||
	echo "note: genhtml failed (${out#$TOP/}/genhtml.log)"
echo "per patch: ${out#$TOP/}/patches.txt; lines not run: not-run.txt; lcov's pages: html/index.html"
exit $rc
