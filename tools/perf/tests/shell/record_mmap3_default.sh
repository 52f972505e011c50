#!/bin/sh
# perf record defaults to PERF_RECORD_MMAP3 with build ids
# SPDX-License-Identifier: GPL-2.0
#
# On a kernel with PERF_RECORD_MMAP3, a plain perf record maps the program
# it runs with an MMAP3 record that has the program's build id, and writes
# no PERF_RECORD_MMAP2 for it; --no-mmap3 writes MMAP2 instead.
#
# MMAP3_TEST_PROG: the ELF executable to copy and run (default: perf), it
# is run with --version.

. "$(dirname "$0")"/lib/mmap3.sh

err=0
tmpdir=$(mktemp -d /tmp/__perf_test_mmap3.XXXXXX)
data="${tmpdir}/perf.data"
prog="${tmpdir}/prog"

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

src=$(mmap3_prog)
if ! mmap3_is_elf "${src}" ; then
	echo "Skip: ${src} is not an ELF file, set MMAP3_TEST_PROG"
	cleanup
	exit 2
fi
cp "${src}" "${prog}"
expected_build_id=$(perf buildid-list -i "${prog}")

if ! perf record -e cpu-clock -o "${data}" -- "${prog}" --version > /dev/null 2>&1 ; then
	echo "FAIL: perf record"
	err=1
else
	line=$(mmap3_lines "${data}" "${prog}" | head -1)
	build_id=$(echo "${line}" | mmap3_field_build_id)
	if [ -z "${line}" ] ; then
		echo "FAIL: perf record: no PERF_RECORD_MMAP3 for ${prog}"
		err=1
	elif [ "${build_id}" != "${expected_build_id}" ] ; then
		echo "FAIL: perf record: build id '${build_id}' instead of '${expected_build_id}'"
		err=1
	fi
	if perf script -i "${data}" --show-mmap-events 2>/dev/null | grep -q "PERF_RECORD_MMAP2 .* ${prog}\$" ; then
		echo "FAIL: perf record: PERF_RECORD_MMAP2 for ${prog}"
		err=1
	fi
fi

if ! perf record --no-mmap3 -e cpu-clock -o "${data}" -- "${prog}" --version > /dev/null 2>&1 ; then
	echo "FAIL: perf record --no-mmap3"
	err=1
elif [ -n "$(mmap3_lines "${data}" "${prog}")" ] ||
     ! perf script -i "${data}" --show-mmap-events 2>/dev/null | grep -q "PERF_RECORD_MMAP2 .* ${prog}\$" ; then
	echo "FAIL: perf record --no-mmap3: PERF_RECORD_MMAP3, or no MMAP2, for ${prog}"
	err=1
fi

[ ${err} -ne 0 ] && perf script -i "${data}" --show-mmap-events 2>&1 | grep "PERF_RECORD_MMAP" | head -20
cleanup
exit ${err}
