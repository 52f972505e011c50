#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report.sh RUNDIR: parse what the guest and the host tests left in RUNDIR
# into RUNDIR/results.tsv (status, suite, test, detail), print one table and
# the line "N passed, N failed, N skipped", and exit non-zero on a failure.
#
# Upstream's own tests are judged against scripts/upstream-baseline-BASE.txt:
# one that passed on the unpatched base must pass (a skip is a failure);
# one that failed or skipped there is reported as skipped, with the reason
# recorded in the baseline. One that the baseline calls "flaky: why" may
# fail once if its verbose rerun (perftest-rerun/N.log) passes.
. "$(dirname "$0")/lib.sh"

run=$1
baseline=${BASELINE:-$TOP/scripts/upstream-baseline-$BASE.txt}
out=$run/results.tsv
: >"$out"

emit() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" >>"$out"; }

# TAP from a kselftest_harness binary; a crash or a short run is a failure.
parse_tap() {
	local t=$1 tap=$run/kselftest/$1.tap rc
	rc=$(cat "$run/kselftest/$t.rc" 2>/dev/null || echo missing)
	awk -v t="$t" -v rc="$rc" '
	/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0 }
	# Older harnesses print a skip as "ok N # SKIP reason", without
	# the name, which only the "#  RUN" line before it has.
	/^#  RUN / { run = $3 }
	/^(not )?ok [0-9]+ / {
		st = ($1 == "ok") ? "pass" : "fail"
		line = $0; sub(/^(not )?ok [0-9]+ /, "", line)
		name = line; reason = ""
		if (match(line, /(^| )# (SKIP|skip)/)) {
			name = substr(line, 1, RSTART - 1)
			if (name == "")
				name = run
			reason = substr(line, RSTART + RLENGTH); sub(/^ /, "", reason)
			st = "skip"
		}
		if (st == "fail" && reason == "") reason = "see kselftest/" t ".tap"
		printf "%s\tkselftest:%s\t%s\t%s\n", st, t, name, reason
		seen++
	}
	END {
		if (rc == "missing")
			printf "fail\tkselftest:%s\t(binary)\tdid not run\n", t
		else if (rc == 124)
			printf "fail\tkselftest:%s\t(binary)\ttimed out\n", t
		else if (plan == 0 || seen < plan)
			printf "fail\tkselftest:%s\t(binary)\tcrashed or stopped early: exit %s after %d of %d results\n", t, rc, seen, plan
	}' "$tap" >>"$out" 2>/dev/null ||
		emit fail "kselftest:$t" "(binary)" "no output"
}

# perf test's one-line-per-test output.
parse_perftest() {
	local log=$run/perftest.log
	[ -f "$log" ] || return 0
	sed -nE 's/^ *([0-9]+(\.[0-9]+)?): (.*[^ ]) *: (Ok|FAILED!|Skip.*)$/\1\t\3\t\4/p' "$log" |
	while IFS=$'\t' read -r num name res; do
		case $res in
		Ok) st=pass why= ;;
		FAILED!)
			st=fail why="see perftest.d/$num.vlog, perftest-rerun/$num.log"
			# The verbose rerun: report.sh's baseline step lets it
			# count only for a test that the baseline calls flaky.
			# Passed: the suite's lines (or its subtests') say Ok, none
			# FAILED!; 7.3 ends the log with a summary of its own. Its
			# result lines are in NUM.res (6.1's -v prints them apart).
			rr=$run/perftest-rerun/$num.res
			[ -f "$rr" ] || rr=${rr%.res}.log
			if grep -qE "^ *$num(\.[0-9]+)?: .*: Ok\$" "$rr" 2>/dev/null &&
			   ! grep -qE "^ *$num(\.[0-9]+)?: .*: FAILED!\$" "$rr"; then
				why="passed on rerun; $why"
			fi ;;
		*) st=skip why=${res#Skip}; why=${why# }
			# A shell test's own reason, from its verbose rerun
			# (scripts/guest/run.sh); perf test prints none.
			rr=$run/perftest-rerun/$num.log
			[ -n "$why" ] || [ ! -f "$rr" ] ||
				why=$(sed -n 's/^Skip: //p' "$rr" | tail -1)
			[ -n "$why" ] || why="no reason given (perftest-rerun/$num.log)" ;;
		esac
		emit "$st" perf-test "$name" "$why"
	done
	# A suite that ran out of time printed no result, and one that ended
	# without a result is no pass either (scripts/guest/run.sh).
	local f why
	for f in timeouts noresult; do
		[ -f "$run/perftest-$f" ] || continue
		why="timed out"
		[ "$f" = timeouts ] || why="ended without a result line"
		while IFS=$'\t' read -r num name; do
			emit fail perf-test "$name" "$why (perftest.d/$num.vlog)"
		done <"$run/perftest-$f"
	done
	return 0
}

# Our script tests: exit 0 pass, 2 skip (last line says why), else fail.
parse_scripts() {
	local suite=$1 dir=$2 f n rc last
	for f in "$dir"/*.rc; do
		[ -e "$f" ] || continue
		n=$(basename "$f" .rc)
		rc=$(cat "$f")
		last=$(sed '/^$/d' "${f%.rc}.log" 2>/dev/null | tail -1 | cut -c1-100)
		case $rc in
		0) emit pass "$suite" "$n" ;;
		2) emit skip "$suite" "$n" "$last" ;;
		124) emit fail "$suite" "$n" "timed out" ;;
		*) emit fail "$suite" "$n" "exit $rc: $last" ;;
		esac
	done
}

if [ -f "$run/kselftest/../done" ] || [ -d "$run/kselftest" ]; then
	for t in $(ls "$run/kselftest" 2>/dev/null | sed -n 's/\.rc$//p'); do
		parse_tap "$t"
	done
fi
parse_perftest
parse_scripts guest "$run/guest"
parse_scripts guest-boot2 "$run/boot2/guest"
parse_scripts host "$run/host"
# make check PERF=san: each report of ASan or UBSan, in its log_path file
# (scripts/guest/run.sh) or, as UBSan's in the combined runtime, in a log
for f in "$run"/san/* "$run"/boot2/san/*; do
	[ -f "$f" ] && emit fail sanitizer "${f#"$run"/}" "$(grep -m1 -E 'ERROR|runtime error' "$f")"
done
if [ -d "$run/san" ]; then
	san='runtime error:|ERROR: [A-Za-z]+Sanitizer'
	for f in "$run"/guest/*.log "$run"/boot2/guest/*.log "$run"/host/*.log "$run"/perftest.log; do
		[ -f "$f" ] && grep -q -E "$san" "$f" &&
			emit fail sanitizer "${f#"$run"/}" "$(grep -m1 -E "$san" "$f")"
	done
	if ! grep -q '^fail	sanitizer' "$out"; then
		emit pass sanitizer "(reports)" "no sanitizer report"
	fi
fi

# Judge upstream's tests against the base.
if [ -f "$baseline" ]; then
	awk -F'\t' -v OFS='\t' '
	NR == FNR { if ($0 !~ /^#/) { base[$1 "\t" $2] = $3; why[$1 "\t" $2] = $4 }; next }
	{
		k = $2 "\t" $3
		if (k in base && base[k] == "pass" && $1 == "fail" && why[k] ~ /^flaky:/ && $4 ~ /^passed on rerun/) {
			$1 = "pass"; $4 = "failed once, " $4 " (" why[k] ")"
		} else if (k in base && base[k] == "pass" && $1 != "pass") {
			# A skip where the base passed is lost coverage, not a reason.
			$4 = "regression: passed on the base; " $4; $1 = "fail"
		} else if (k in base && base[k] == "fail" && $1 == "fail") {
			$1 = "skip"; $4 = "fails on the base too: " why[k]
		} else if (k in base && $1 == "skip") {
			$4 = why[k]
		}
		print
	}' "$baseline" "$out" >"$out.tmp" && mv "$out.tmp" "$out"
	# In a full run (not TESTS=...), each test that passed on the base
	# must have run: one that vanished (a crash of perf test, a test
	# renamed by the series) is not a pass by silence.
	if [ -z "${TESTS:-}" ] && [ -d "$run/kselftest" ] && [ -f "$run/perftest.log" ]; then
		awk -F'\t' -v OFS='\t' '
		NR == FNR { ran[$2 "\t" $3] = 1; next }
		/^#/ || $3 != "pass" { next }
		!(($1 "\t" $2) in ran) { print "fail", $1, $2, "passed on the base and did not run" }
		' "$out" "$baseline" >>"$out"
	fi
fi

printf '\n%-5s %-28s %-52s %s\n' RESULT SUITE TEST DETAIL
awk -F'\t' '{ printf "%-5s %-28s %-52s %s\n", toupper($1), substr($2, 1, 28), substr($3, 1, 52), $4 }' "$out"
# The evidence of each failure on the terminal too: CI keeps what make
# check prints, not the run directory. The last lines of each file the
# failure names, and of a failing script test's own log.
awk -F'\t' '$1 == "fail"' "$out" | while IFS=$'\t' read -r _ suite name why; do
	files=$(grep -oE '[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+\.(vlog|log|tap)' <<<"$why" || true)
	case $suite in
	guest | host) files="$suite/$name.log $files" ;;
	guest-boot2) files="boot2/guest/$name.log $files" ;;
	esac
	for f in $files; do
		[ -f "$run/$f" ] || continue
		printf '\n==> %s: %s: the last 80 lines of %s <==\n' "$suite" "$name" "$f"
		tail -n 80 "$run/$f"
	done
done

p=$(grep -c '^pass' "$out" || true)
f=$(grep -c '^fail' "$out" || true)
s=$(grep -c '^skip' "$out" || true)
echo "$p passed, $f failed, $s skipped" >"$run/summary"
[ "$((p + f + s))" -gt 0 ] || { echo "no test ran" >&2; f=1; }
echo
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
