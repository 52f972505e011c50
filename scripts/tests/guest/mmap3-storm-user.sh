#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kselftest mmap3_storm, 20 times in a row as a user (nobody), with
# perf_event_paranoid at 2, upstream's default: its events are per thread,
# on its own threads, so every run must account exactly for each mapping
# (seen + lost == made) whatever else the machine does, and without
# privilege. A run that skips fails here: this kernel has MMAP3.

S=${SELFTESTS:?}/mmap3_storm
RUNS=20
W=/tmp/mmap3-storm-user
trap 'echo $paranoid >/proc/sys/kernel/perf_event_paranoid; rm -rf "$W"' EXIT
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 2 >/proc/sys/kernel/perf_event_paranoid
rm -rf "$W" && mkdir -p "$W" && chown 65534:65534 "$W" && cd "$W" || exit 1

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
# The last run's figures, for the log.
grep -E 'threads x|thread [0-9]+ \(tid' run-$RUNS.tap
echo "$passed of $RUNS runs passed as uid $(setpriv --reuid=65534 -- id -u)"
[ $passed = $RUNS ]
