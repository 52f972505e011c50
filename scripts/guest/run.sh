#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest. Writes raw results under /results; the host parses them
# (scripts/report.sh), so nothing here decides pass or fail on its own.
#   kselftest/NAME.tap, .rc   each perf_events kselftest binary
#   perftest.log              upstream perf test
#   guest/NAME.log, .rc       our guest tests (scripts/tests/guest, and
#                             scripts/tests/guest2 in a second boot)
#   artifacts/NAME/           files a guest test leaves for the host tests
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
	# inject_mmap3.sh leaves its files for the host-side stock perf check.
	MMAP3_TEST_OUTDIR=$R/artifacts/inject_mmap3 \
		timeout 1500 perf test >$R/perftest.log 2>&1
	echo $? >$R/perftest.rc
}

guesttests() {	# directory of scripts
	mkdir -p $R/guest $R/artifacts
	for t in $1/*.sh; do
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
	echo "\$ perf record -a -g -e cpu-clock -- <workload: the test module, perf bench mem memset, dd>"
	perf record -q -a -g -e cpu-clock -o perf.data -- sh -c \
		'echo 1500 >/proc/perf_testmod &
		 perf bench mem memset -s 4MB -l 200 >/dev/null &
		 dd if=/dev/zero of=/dev/null bs=64k count=20000 2>/dev/null; wait'
	echo
	echo "\$ perf report --stdio --no-children -g none --sort dso,sym (top 30)"
	perf report -i perf.data --stdio --no-children -g none --sort dso,sym 2>&1 |
		grep -v '^$' | grep -v '^#' | head -30
	echo
	echo "\$ perf script --show-mmap-events (mmap records, first 15)"
	perf script -i perf.data --show-mmap-events 2>/dev/null | grep -E 'PERF_RECORD_MMAP' | head -15
	echo
	echo "\$ perf buildid-cache --kcore /proc/kcore; ls ~/.debug/[kernel.kcore]/*/*"
	perf buildid-cache -v --kcore /proc/kcore 2>&1
	ls -l ~/.debug/\[kernel.kcore\]/*/* 2>&1
	rmmod perf_testmod
}

# rig.only=guest on the kernel command line (EXTRA_CMDLINE) runs only our
# guest scripts: a quick loop while writing one.
only=
for arg in $(cat /proc/cmdline); do
	case $arg in rig.only=*) only=${arg#rig.only=} ;; esac
done

case $mode in
check)
	info
	if [ "$only" != guest ]; then kselftests; perftest; fi
	guesttests /tests/guest
	;;
second) info; guesttests /tests/guest2 ;;
upstream) info; kselftests; perftest ;;
demo) info; demo >$R/demo.log 2>&1 ;;
bench) info; /tests/selftests/mmap3_bench >$R/bench.log 2>&1 ;;
*) echo "unknown mode $mode" ;;
esac
