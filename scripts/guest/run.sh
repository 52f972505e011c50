#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest. Writes raw results under /results; the host parses them
# (scripts/report.sh), so nothing here decides pass or fail on its own.
#   kselftest/NAME.tap, .rc   each perf_events kselftest binary
#   perftest.log              upstream perf test
#   guest/NAME.log, .rc       our guest tests (scripts/tests/guest)
mode=$1
R=/results
export PERF_EXEC_PATH=/usr/libexec/perf-core
cd /tmp || exit 1

info() {
	{
		uname -a
		echo "cmdline: $(cat /proc/cmdline)"
		echo "cpus: $(grep -c ^processor /proc/cpuinfo)"
		perf version --build-options
	} >$R/info.txt 2>&1
}

kselftests() {
	mkdir -p $R/kselftest
	for t in $(cat /tests/selftests.list); do
		echo "running kselftest $t"
		(cd /tests/selftests && timeout 600 ./"$t" >$R/kselftest/$t.tap 2>&1)
		echo $? >$R/kselftest/$t.rc
	done
}

perftest() {
	echo "running perf test"
	timeout 1500 perf test $PERF_TEST_ARGS >$R/perftest.log 2>&1
	echo $? >$R/perftest.rc
}

guesttests() {
	mkdir -p $R/guest $R/artifacts
	for t in /tests/guest/*.sh; do
		[ -e "$t" ] || continue
		n=$(basename "$t" .sh)
		echo "running $n"
		mkdir -p $R/artifacts/$n
		ARTIFACTS=$R/artifacts/$n MODULES=/tests/modules \
			timeout 600 sh "$t" >$R/guest/$n.log 2>&1
		echo $? >$R/guest/$n.rc
	done
}

demo() {
	w=/tmp/demo && mkdir -p $w && cd $w || return 1
	insmod /tests/modules/perf_testmod.ko
	echo "\$ perf record -a -g -e cpu-clock -- <workload: tar+gzip of /usr, the test module spinning>"
	perf record -q -a -g -e cpu-clock -o perf.data -- sh -c \
		'echo 1500 >/proc/perf_testmod & tar cf - /usr /tests 2>/dev/null | gzip -1 >/dev/null; wait'
	echo
	echo "\$ perf report --stdio --sort dso,sym (top 40 lines)"
	perf report -i perf.data --stdio --no-children --sort dso,sym 2>&1 | grep -v '^$' | head -40
	echo
	echo "\$ perf script --show-mmap-events (mmap records, first 15)"
	perf script -i perf.data --show-mmap-events 2>/dev/null | grep -E 'PERF_RECORD_MMAP' | head -15
	echo
	echo "\$ perf buildid-cache --kcore /proc/kcore; ls ~/.debug/[kernel.kcore]/*/*"
	perf buildid-cache -v --kcore /proc/kcore 2>&1
	ls -l ~/.debug/\[kernel.kcore\]/*/* 2>&1
	rmmod perf_testmod
}

case $mode in
check) info; kselftests; perftest; guesttests ;;
upstream) info; kselftests; perftest ;;
demo) info; demo >$R/demo.log 2>&1 ;;
bench) info; /tests/selftests/mmap3_bench >$R/bench.log 2>&1 ;;
*) echo "unknown mode $mode" ;;
esac
