#!/bin/sh
# perf record keeps a program replaced while it runs
# SPDX-License-Identifier: GPL-2.0
#
# A copy of perf runs its noploop workload while perf record records it;
# in the middle of the recording another build is moved over its path, as
# dpkg and install(1) do, and a second process runs from the new file.
# With --keep-mapped (the default) perf record copied the build that ran
# into the build id cache as it was mapped: perf report resolves the first
# process's samples to noploop, from the copy, and does not warn. With
# --no-keep-mapped the cache gets the file at the path at the end, the
# other build: the first process's samples stay unresolved, with the
# warning. The replacement is done by the workload itself, so that both
# processes run during the recording.
#
# MMAP3_TEST_PROG: the perf binary to copy and run (default: perf's)
# MMAP3_TEST_OTHER_PROG: another build to replace it with (default: sh or ls)
# MMAP3_TEST_DIR: where to put the copy (default: /tmp)

. "$(dirname "$0")"/lib/mmap3.sh

err=0
tmpdir=$(mktemp -d "${MMAP3_TEST_DIR:-/tmp}/__perf_test_keep_mapped.XXXXXX")
prog="${tmpdir}/prog"
warning="WARNING: ${prog} changed after it was profiled"

cleanup() {
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

src=$(mmap3_prog)
if ! mmap3_is_elf "${src}" || [ -z "$(perf buildid-list -i "${src}" 2>/dev/null)" ] ; then
	echo "Skip: ${src} is not an ELF file with a build id, set MMAP3_TEST_PROG"
	cleanup
	exit 2
fi
other=$(mmap3_other_prog "${src}")
if [ -z "${other}" ] || ! mmap3_is_elf "${other}" ; then
	echo "Skip: no other executable to replace ${src} with, set MMAP3_TEST_OTHER_PROG"
	cleanup
	exit 2
fi

# The workload: the old build runs, is replaced, the new one runs. The
# old one's pid is written to NAME.pid. "${other}" is run with --version,
# which sh, ls and env know; its samples are not looked at.
cat > "${tmpdir}/workload" <<EOF
"${prog}" test -w noploop 2 &
echo \$! > "\$1"
sleep 1
cp "${other}" "${prog}.new"
mv "${prog}.new" "${prog}"
"${prog}" --version > /dev/null 2>&1
wait
EOF

# perf_record name [options]: each with a build id cache of its own
perf_record() {
	cp "${src}" "${prog}"
	if ! perf --buildid-dir "${tmpdir}/$1.cache" record -e cpu-clock \
		-o "${tmpdir}/$1.data" $2 -- sh "${tmpdir}/workload" "${tmpdir}/$1.pid" \
		> "${tmpdir}/$1.record" 2>&1 ; then
		echo "FAIL: perf record $2 fails"
		cat "${tmpdir}/$1.record"
		cleanup
		exit 1
	fi
}

# perf_report name: the old process's lines of perf report on stdout,
# warnings in name.err
perf_report() {
	perf --buildid-dir "${tmpdir}/$1.cache" report -i "${tmpdir}/$1.data" --stdio \
		--sort pid,dso,sym 2> "${tmpdir}/$1.err" > "${tmpdir}/$1.report"
	grep "^ .* $(cat "${tmpdir}/$1.pid"):" "${tmpdir}/$1.report"
}

resolved() {
	grep -q "prog  *\[\.\] noploop" "$1"
}

perf_record keep
perf_report keep > "${tmpdir}/out"
if ! resolved "${tmpdir}/out" ; then
	echo "FAIL: --keep-mapped: the replaced program's samples are not resolved to its own symbols"
	err=1
fi
if grep -q "${warning}" "${tmpdir}/keep.err" ; then
	echo "FAIL: --keep-mapped: warned about the replaced program although its build was kept"
	err=1
fi
if grep -q "not kept in the build-id cache" "${tmpdir}/keep.record" ; then
	echo "FAIL: --keep-mapped: perf record could not keep a file"
	err=1
fi
[ ${err} -ne 0 ] && cat "${tmpdir}/keep.record" "${tmpdir}/keep.report" "${tmpdir}/keep.err"

perf_record nokeep --no-keep-mapped
perf_report nokeep > "${tmpdir}/out"
if resolved "${tmpdir}/out" ; then
	echo "FAIL: --no-keep-mapped: resolved symbols against a build that did not run"
	err=1
fi
if ! grep -q "${warning}" "${tmpdir}/nokeep.err" ; then
	echo "FAIL: --no-keep-mapped: no warning about the replaced program"
	err=1
fi
[ ${err} -ne 0 ] && cat "${tmpdir}/nokeep.report" "${tmpdir}/nokeep.err"

cleanup
exit ${err}
