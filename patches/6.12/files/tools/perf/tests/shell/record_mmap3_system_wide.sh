#!/bin/sh
# perf record -a PERF_RECORD_MMAP3 kernel and process records
# SPDX-License-Identifier: GPL-2.0
#
# perf record -a with MMAP3: the kernel reference relocation record is an
# MMAP3 with the build id of the running kernel, read here from
# /sys/kernel/notes, the records for the running processes are MMAP3 with
# an mtime, and perf report works on the result. Needs a kernel with
# PERF_RECORD_MMAP3 and the rights to record system wide.

. "$(dirname "$0")"/lib/mmap3.sh

err=0
tmpdir=$(mktemp -d /tmp/__perf_test_mmap3.XXXXXX)
data="${tmpdir}/perf.data"

cleanup() {
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

mmap3_check_support "${data}" || { rc=$?; cleanup; exit ${rc}; }

# System wide takes root, CAP_PERFMON or perf_event_paranoid below 1
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
if [ "$(id -u)" != 0 ] && [ "${paranoid}" -ge 1 ] ; then
	echo "Skip: perf record -a needs root, or perf_event_paranoid below 1 (it is ${paranoid})"
	cleanup
	exit 2
fi

if ! out=$(perf record -a --mmap3 -e cpu-clock -o "${data}" -- sleep 0.1 2>&1) ; then
	echo "FAIL: perf record -a fails: ${out}"
	cleanup
	exit 1
fi

line=$(perf script -i "${data}" --show-mmap-events 2>/dev/null | \
	grep 'PERF_RECORD_MMAP3 .*\[kernel.kallsyms\]_text$' | head -1)
if [ -z "${line}" ] ; then
	echo "FAIL: no PERF_RECORD_MMAP3 for [kernel.kallsyms]_text"
	perf script -i "${data}" --show-mmap-events 2>&1 | grep kallsyms | head
	err=1
else
	echo "${line}"
	build_id=$(echo "${line}" | mmap3_field_build_id)
	expected=$(kernel_build_id)
	if [ -z "${expected}" ] ; then
		expected=$(perf buildid-list -k 2>/dev/null)
	fi
	if [ -z "${expected}" ] ; then
		echo "Can't read the kernel build id from /sys/kernel/notes, not checking it"
	elif [ "${build_id}" != "${expected}" ] ; then
		echo "FAIL: kernel build id '${build_id}' instead of '${expected}'"
		err=1
	fi
fi

# The running processes' mappings, synthesized, and sleep's, from the kernel
if ! perf script -i "${data}" --show-mmap-events 2>/dev/null | \
	grep -q 'PERF_RECORD_MMAP3 .* mtime [1-9][0-9]* (.*: r-xp /' ; then
	echo "FAIL: no PERF_RECORD_MMAP3 of a file with an mtime"
	err=1
fi

if perf script -i "${data}" --show-mmap-events 2>/dev/null | grep -q 'PERF_RECORD_MMAP2 ' ; then
	echo "FAIL: PERF_RECORD_MMAP2 events with --mmap3"
	err=1
fi

if ! perf report -i "${data}" --stdio > /dev/null 2>&1 ; then
	echo "FAIL: perf report"
	err=1
fi

cleanup
exit ${err}
