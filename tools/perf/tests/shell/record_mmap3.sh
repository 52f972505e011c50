#!/bin/sh
# perf record PERF_RECORD_MMAP3 mtime, inode and build id
# SPDX-License-Identifier: GPL-2.0
#
# Run a copy of perf whose mtime was set with touch -d to a known instant,
# ns included, and check its MMAP3 record: mtime, device and inode from
# stat and build id, read from the ELF file by 'perf buildid-list -i', by
# default and with --buildid-mmap, none with --no-buildid-mmap. An event that fails for another reason
# must get its own error. Needs a kernel with PERF_RECORD_MMAP3.
#
# MMAP3_TEST_PROG: the ELF executable to copy and run (default: perf), it
# is run with --version.
# MMAP3_TEST_TOUCH: a touch that can set ns, like GNU touch (default: the
# first touch in PATH that can; busybox' can't, and busybox sh runs it for
# a plain "touch" whatever PATH says). Without one the other checks are done
# with whole seconds, and the test skips when they pass.

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

# 2001-02-03 04:05:06.123456789 UTC
date="2001-02-03 04:05:06"
expected_mtime=981173106123456789
no_ns=
if [ -n "${MMAP3_TEST_TOUCH}" ] ; then
	touches=${MMAP3_TEST_TOUCH}
else
	touches=$(IFS=: ; for d in ${PATH} ; do [ -x "${d}/touch" ] && echo "${d}/touch" ; done)
fi
touch_cmd=
for t in ${touches} ; do
	if TZ=UTC "${t}" -d "${date}.123456789" "${prog}" 2> /dev/null ; then
		touch_cmd=${t}
		break
	fi
done
if [ -n "${touch_cmd}" ] ; then
	echo "mtime set with ${touch_cmd}"
	now=$(TZ=UTC stat -c %y "${prog}" | cut -c1-29)
	if [ "${now}" != "${date}.123456789" ] ; then
		echo "FAIL: ${touch_cmd} -d set the mtime to ${now}"
		err=1
	fi
else
	no_ns="no touch can set ns, checked whole seconds only, see MMAP3_TEST_TOUCH"
	echo "${no_ns}, tried:" ${touches}
	TZ=UTC touch -d "${date}" "${prog}"
	expected_mtime=981173106000000000
fi
expected_ino=$(stat -c %i "${prog}")
expected_dev=$(mmap3_stat_dev "${prog}")
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

	dev=$(echo "${line}" | mmap3_field_dev)
	if [ "${dev}" != "${expected_dev}" ] ; then
		echo "FAIL: device ${dev} instead of ${expected_dev}, stat's st_dev ($1)"
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

# record_check "options" "expected build id"
record_check() {
	if ! perf record $1 -e cpu-clock -o "${data}" -- "${prog}" --version > /dev/null 2>&1 ; then
		echo "FAIL: perf record $1"
		err=1
	else
		check "$1" "$2"
	fi
}

# Build ids in the mmap events are the default
record_check "--mmap3" "${expected_build_id}"
record_check "--mmap3 --buildid-mmap" "${expected_build_id}"
record_check "--mmap3 --no-buildid-mmap" ""

# MMAP3 is probed for on its own: an event that the kernel rejects for
# another reason, here a sample period with bit 63 set, gets its own error,
# with or without --mmap3, and MMAP3 is not blamed nor turned off.
for opt in "" "--mmap3" ; do
	if perf record -v ${opt} -e cpu-clock -c 9223372036854775808 -o "${data}.bad" \
			-- true > "${tmpdir}/bad.err" 2>&1 ; then
		echo "FAIL: perf record ${opt} with an invalid period didn't fail"
		err=1
	elif grep -q MMAP3 "${tmpdir}/bad.err" ||
	     ! sed -n '/^Error:/,$p' "${tmpdir}/bad.err" | grep -q "(cpu-clock)" ; then
		echo "FAIL: perf record ${opt} with an invalid period: MMAP3 blamed, or not its own error"
		cat "${tmpdir}/bad.err"
		err=1
	fi
done

# perf report --stats counts them
if ! perf report -i "${data}" --stats 2>/dev/null | grep -q "MMAP3 events: *[1-9]" ; then
	echo "FAIL: perf report --stats doesn't count MMAP3 events"
	err=1
fi

cleanup
if [ ${err} -eq 0 ] && [ -n "${no_ns}" ] ; then
	echo "Skip: ${no_ns}"
	exit 2
fi
exit ${err}
