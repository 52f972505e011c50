#!/bin/sh
# perf data convert --to-ctf --all keeps PERF_RECORD_MMAP3 events
# SPDX-License-Identifier: GPL-2.0
#
# perf data convert --all --to-ctf writes each PERF_RECORD_MMAP3 as a
# perf_mmap3 event with the mapping's build id, and drops no mmap record
# of the file: babeltrace reads the trace back.
#
# MMAP3_TEST_PROG: the ELF executable to copy and run (default: perf), it
# is run with --version.

. "$(dirname "$0")"/lib/mmap3.sh

err=0
tmpdir=$(mktemp -d /tmp/__perf_test_ctf_mmap3.XXXXXX)
data="${tmpdir}/perf.data"
ctf="${tmpdir}/ctf"
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

skip() {
	echo "Skip: $1"
	cleanup
	exit 2
}

command -v babeltrace > /dev/null || skip "no babeltrace to read the CTF trace back"
mmap3_check_support "${data}" || { rc=$?; cleanup; exit ${rc}; }
src=$(mmap3_prog)
mmap3_is_elf "${src}" || skip "${src} is not an ELF file, set MMAP3_TEST_PROG"
cp "${src}" "${prog}"
expected_build_id=$(perf buildid-list -i "${prog}")

if ! perf record --mmap3 -e cpu-clock -o "${data}" -- "${prog}" --version > /dev/null 2>&1 ; then
	echo "FAIL: perf record --mmap3"
	cleanup
	exit 1
fi

if ! out=$(perf data convert --all --to-ctf "${ctf}" -i "${data}" 2>&1) ; then
	case "${out}" in
	*"libbabeltrace support is not compiled in"*)
		skip "perf is built without libbabeltrace"
		;;
	esac
	echo "FAIL: perf data convert --all --to-ctf: ${out}"
	cleanup
	exit 1
fi

if ! babeltrace "${ctf}" > "${tmpdir}/ctf.txt" 2> "${tmpdir}/babeltrace.err" ; then
	echo "FAIL: babeltrace cannot read the trace:"
	cat "${tmpdir}/babeltrace.err"
	cleanup
	exit 1
fi

line=$(grep " perf_mmap3: .* filename = \"${prog}\"" "${tmpdir}/ctf.txt" | head -1)
build_id=$(echo "${line}" | sed -n 's/.* build_id = "\([0-9a-f]*\)".*/\1/p')
if [ -z "${line}" ] ; then
	echo "FAIL: no perf_mmap3 event for ${prog}"
	err=1
elif [ "${build_id}" != "${expected_build_id}" ] ; then
	echo "FAIL: perf_mmap3 build id '${build_id}' instead of '${expected_build_id}'"
	err=1
fi

# Each mmap record of the file, of whichever kind, is an event of the trace.
for kind in MMAP MMAP2 MMAP3 ; do
	name=$(echo "${kind}" | tr 'A-Z' 'a-z')
	recorded=$(perf script -i "${data}" --show-mmap-events 2>/dev/null | grep -c "PERF_RECORD_${kind} ")
	converted=$(grep -c " perf_${name}: " "${tmpdir}/ctf.txt")
	echo "PERF_RECORD_${kind}: ${recorded} recorded, ${converted} in the trace"
	if [ "${recorded}" != "${converted}" ] ; then
		echo "FAIL: ${recorded} PERF_RECORD_${kind} records, ${converted} perf_${name} events"
		err=1
	fi
done

[ ${err} -ne 0 ] && grep " perf_mmap" "${tmpdir}/ctf.txt" | head -20
cleanup
exit ${err}
