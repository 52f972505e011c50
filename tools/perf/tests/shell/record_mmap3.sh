#!/bin/sh
# perf record PERF_RECORD_MMAP3 mtime, inode and build id
# SPDX-License-Identifier: GPL-2.0
#
# Run a copy of perf whose mtime was set with touch -d to a known instant,
# ns included, and check its MMAP3 record: mtime, inode from stat and build
# id, read from the ELF file by 'perf buildid-list -i', with --buildid-mmap,
# none without. Needs a kernel with PERF_RECORD_MMAP3.
#
# MMAP3_TEST_PROG: the ELF executable to copy and run (default: perf), it
# is run with --version.
# MMAP3_TEST_TOUCH: a touch that can set ns (busybox' can't, then the test
# uses whole seconds).

. "$(dirname "$0")"/lib/mmap3.sh

err=0
tmpdir=$(mktemp -d /tmp/__perf_test_mmap3.XXXXXX)
data="${tmpdir}/perf.data"
prog="${tmpdir}/prog"
touch_cmd=${MMAP3_TEST_TOUCH:-touch}

cleanup() {
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

mmap3_skip_if_unsupported "${data}" || { cleanup; exit 2; }

src=$(mmap3_prog)
if ! mmap3_is_elf "${src}" ; then
	echo "Skip: ${src} is not an ELF file, set MMAP3_TEST_PROG"
	cleanup
	exit 2
fi
cp "${src}" "${prog}"

# 2001-02-03 04:05:06.123456789 UTC
date="2001-02-03 04:05:06"
expected_mtime=981173106123456789
if TZ=UTC ${touch_cmd} -d "${date}.123456789" "${prog}" 2> /dev/null ; then
	now=$(TZ=UTC stat -c %y "${prog}" | cut -c1-29)
	if [ "${now}" != "${date}.123456789" ] ; then
		echo "FAIL: touch -d set the mtime to ${now}"
		err=1
	fi
else
	echo "${touch_cmd} can't set ns, using ${date}.000000000, see MMAP3_TEST_TOUCH"
	TZ=UTC ${touch_cmd} -d "${date}" "${prog}"
	expected_mtime=981173106000000000
fi
expected_ino=$(stat -c %i "${prog}")
expected_build_id=$(perf buildid-list -i "${prog}")

check() {
	line=$(mmap3_lines "${data}" "${prog}" | head -1)
	if [ -z "${line}" ] ; then
		echo "FAIL: no PERF_RECORD_MMAP3 for ${prog} ($1)"
		perf script -i "${data}" --show-mmap-events 2>&1 | grep MMAP | head -20
		err=1
		return
	fi
	echo "${line}"

	mtime=$(echo "${line}" | mmap3_field_mtime)
	if [ "${mtime}" != "${expected_mtime}" ] ; then
		echo "FAIL: mtime ${mtime} instead of ${expected_mtime} ($1)"
		err=1
	fi

	ino=$(echo "${line}" | mmap3_field_ino)
	if [ "${ino}" != "${expected_ino}" ] ; then
		echo "FAIL: inode ${ino} instead of ${expected_ino} ($1)"
		err=1
	fi

	build_id=$(echo "${line}" | mmap3_field_build_id)
	if [ "${build_id}" != "$2" ] ; then
		echo "FAIL: build id '${build_id}' instead of '$2' ($1)"
		err=1
	fi
}

if ! perf record --mmap3 --buildid-mmap -e cpu-clock -o "${data}" -- "${prog}" --version > /dev/null 2>&1 ; then
	echo "FAIL: perf record --mmap3 --buildid-mmap"
	err=1
else
	check "with --buildid-mmap" "${expected_build_id}"
fi

if ! perf record --mmap3 -e cpu-clock -o "${data}" -- "${prog}" --version > /dev/null 2>&1 ; then
	echo "FAIL: perf record --mmap3"
	err=1
else
	check "without --buildid-mmap" ""
fi

# perf report --stats counts them
if ! perf report -i "${data}" --stats 2>/dev/null | grep -q "MMAP3 events: *[1-9]" ; then
	echo "FAIL: perf report --stats doesn't count MMAP3 events"
	err=1
fi

cleanup
exit ${err}
