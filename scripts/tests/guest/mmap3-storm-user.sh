#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kselftest mmap3_storm, 20 times in a row as a user (nobody), with
# perf_event_paranoid at 2, upstream's default, while two shells start
# programs in a loop beside it: its events are per thread, on its own
# threads, so every run must account exactly for each mapping (seen +
# lost == made) on a busy machine, and without privilege. A run that
# skips fails here: this kernel has MMAP3.

S=${SELFTESTS:?}/mmap3_storm
RUNS=20
W=/tmp/mmap3-storm-user
busy=
trap 'kill $busy 2>/dev/null; echo $paranoid >/proc/sys/kernel/perf_event_paranoid; rm -rf "$W"' EXIT
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 2 >/proc/sys/kernel/perf_event_paranoid
rm -rf "$W" && mkdir -p "$W" && chown 65534:65534 "$W" && cd "$W" || exit 1

# Others mapping executables all along: each exec maps the program and
# its libraries.
for j in 1 2; do
	(while :; do /bin/true; done) &
	busy="$busy $!"
done

passed=0
for i in $(seq $RUNS); do
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$S" >run-$i.tap 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q '^# Totals: pass:2 fail:0' run-$i.tap; then
		passed=$((passed + 1))
	else
		echo "run $i: exit $rc"
		cat run-$i.tap
	fi
done
kill $busy
busy=
# The last run's figures, for the log.
grep -E 'threads x|thread [0-9]+ \(tid' run-$RUNS.tap
echo "$passed of $RUNS runs passed as uid $(setpriv --reuid=65534 -- id -u)"
[ $passed = $RUNS ]
