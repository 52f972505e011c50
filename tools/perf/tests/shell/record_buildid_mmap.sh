#!/bin/sh
# perf record puts build ids in the mmap records, or in the header
# SPDX-License-Identifier: GPL-2.0
#
# As mainline does since 6.17, perf record records the build id of each
# mapped file in its mmap record by default, and adds those of the files
# that were hit to the build-id cache. --no-buildid-mmap, or
# record.build-id=no-mmap in the config, records them in the header's
# build-id table instead. record.build-id=mmap is the default.

err=0
tmpdir=$(mktemp -d /tmp/__perf_test_buildid_mmap.XXXXXX)
data="${tmpdir}/perf.data"
prog="${tmpdir}/perf"

cleanup() {
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

# A copy of perf, so that its build id, path and cache entry are ours;
# its noploop workload gets the samples, so that it is a DSO that was hit.
cp "$(command -v perf)" "${prog}"
bid=$(perf buildid-list -i "${prog}")
if [ -z "${bid}" ] ; then
	echo "Skip: perf has no build id"
	cleanup
	exit 2
fi

# check NAME WHERE [RECORD-OPTION...]: records the workload with the
# options (and PERF_CONFIG as set), and checks that the build id of the
# program is WHERE says: "mmap", in its mmap record and the build-id
# cache, or "header", in the header's build-id table only
check() {
	name=$1
	where=$2
	shift 2
	rm -rf "${tmpdir}/cache"
	if ! perf --buildid-dir "${tmpdir}/cache" record -e cpu-clock -o "${data}" "$@" \
		-- "${prog}" test -w noploop > /dev/null 2> "${tmpdir}/record.err" ; then
		echo "FAIL: ${name}: perf record failed"
		cat "${tmpdir}/record.err"
		err=1
		return
	fi
	line=$(perf script -i "${data}" --show-mmap-events 2> /dev/null |
	       grep "PERF_RECORD_MMAP.* ${prog}\$" | head -1)
	if [ -z "${line}" ] ; then
		echo "FAIL: ${name}: no mmap record of ${prog}"
		err=1
		return
	fi
	if perf report --header-only -i "${data}" | grep -q "^# missing features:.* BUILD_ID" ; then
		table=no
	else
		table=yes
	fi
	case "${where}" in
	mmap)
		if ! echo "${line}" | grep -q "<${bid}>" ; then
			echo "FAIL: ${name}: no build id in the mmap record: ${line}"
			err=1
		fi
		if [ "${table}" = yes ] ; then
			echo "FAIL: ${name}: a build-id table in the header"
			err=1
		fi
		if ! perf --buildid-dir "${tmpdir}/cache" buildid-cache -l 2> /dev/null |
		     grep -q "^${bid} " ; then
			echo "FAIL: ${name}: ${bid} not in the build-id cache"
			err=1
		fi
		;;
	header)
		if echo "${line}" | grep -q "<" ; then
			echo "FAIL: ${name}: a build id in the mmap record: ${line}"
			err=1
		fi
		if [ "${table}" = no ] || ! perf buildid-list -i "${data}" | grep -q "^${bid} ${prog}\$" ; then
			echo "FAIL: ${name}: ${bid} not in the header's build-id table"
			err=1
		fi
		;;
	esac
}

check "default" mmap
check "--no-buildid-mmap" header --no-buildid-mmap
printf '[record]\n\tbuild-id = no-mmap\n' > "${tmpdir}/config"
PERF_CONFIG="${tmpdir}/config" check "record.build-id=no-mmap" header
printf '[record]\n\tbuild-id = mmap\n' > "${tmpdir}/config"
PERF_CONFIG="${tmpdir}/config" check "record.build-id=mmap" mmap

cleanup
exit ${err}
