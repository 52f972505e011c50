#!/bin/sh
# perf report warns about profiled files that changed
# SPDX-License-Identifier: GPL-2.0
#
# Profile a copy of perf running its noploop workload, then:
#  - untouched, perf report resolves its symbols and doesn't warn;
#  - replaced by another executable, with no copy in the build id cache
#    (recorded with --no-buildid-cache), perf report warns on stderr and
#    in the --stdio header, and doesn't resolve against it;
#  - replaced, with the copy in the build id cache, perf report resolves
#    from the copy and doesn't warn;
#  - with PERF_RECORD_MMAP3 and no build ids (-B --no-buildid-mmap):
#    untouched, no warning;
#    touched only, or replaced: warns, and doesn't resolve against it,
#    as nothing tells which build it is.
# The warnings, one line a file and one hint after them, must say what
# differs: the build id of the replaced file, the mtime of the touched one
# (in UTC at -v), and its device only when the recorded one is not
# stat()'s st_dev (btrfs, overlayfs). That a device that differs alone is
# no change is checked by perf test "PERF_RECORD_MMAP3".
# Works with PERF_RECORD_MMAP2 too, but for the last check.
#
# MMAP3_TEST_PROG: the perf binary to copy and run (default: perf's)
# MMAP3_TEST_OTHER_PROG: another build to replace it with (default: sh or ls)
# MMAP3_TEST_DIR: where to put the copy (default: /tmp), for a file system
# whose stat() device is not the superblock's, like btrfs and overlayfs

. "$(dirname "$0")"/lib/mmap3.sh

err=0
tmpdir=$(mktemp -d "${MMAP3_TEST_DIR:-/tmp}/__perf_test_mmap3.XXXXXX")
prog="${tmpdir}/prog"
warning="WARNING: ${prog} changed after it was profiled"
# Where nothing changed, no file at all is warned about
any_warning="changed after it was profiled"

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
if ! mmap3_is_elf "${src}" ; then
	echo "Skip: ${src} is not an ELF file, set MMAP3_TEST_PROG"
	cleanup
	exit 2
fi
other=$(mmap3_other_prog "${src}")
if [ -z "${other}" ] || ! mmap3_is_elf "${other}" ||
   [ "$(perf buildid-list -i "${src}")" = "$(perf buildid-list -i "${other}")" ] ; then
	echo "Skip: no other executable to replace ${src} with, set MMAP3_TEST_OTHER_PROG"
	cleanup
	exit 2
fi
cp "${src}" "${prog}"

# perf_record name cache-dir [options]
perf_record() {
	if ! perf --buildid-dir "${tmpdir}/$2" record -e cpu-clock -o "${tmpdir}/$1.data" \
		$3 -- "${prog}" test -w noploop 1 > "${tmpdir}/$1.record" 2>&1 ; then
		echo "FAIL: perf record $3 fails"
		cat "${tmpdir}/$1.record"
		cleanup
		exit 1
	fi
}

# perf_report name cache-dir: report on stdout, warnings in name.err
perf_report() {
	perf --buildid-dir "${tmpdir}/$2" report -i "${tmpdir}/$1.data" --stdio \
		--sort dso,sym 2> "${tmpdir}/$1.err"
}

resolved() {
	grep -q "prog  *\[\.\] noploop" "$1"
}

# What the warning in $1 says differs
differs() {
	sed -n 's/^WARNING: .* changed after it was profiled (differs: \(.*\)): .*/\1/p' "$1" | head -1
}

perf_record nocache nocache -N
perf_record cache cache

perf_report nocache nocache > "${tmpdir}/out"
if ! resolved "${tmpdir}/out" || grep -q "${any_warning}" "${tmpdir}/out" "${tmpdir}/nocache.err" ; then
	echo "FAIL: untouched files: not resolved, or warned about"
	cat "${tmpdir}/out" "${tmpdir}/nocache.err"
	err=1
fi

# A different build at the same path, as compilers and installers do it
cp "${other}" "${prog}.new"
mv "${prog}.new" "${prog}"

perf_report nocache nocache > "${tmpdir}/out"
if ! grep -q "${warning}" "${tmpdir}/nocache.err" ; then
	echo "FAIL: no warning on stderr for a replaced file"
	err=1
fi
if ! grep -q "^# ${warning}" "${tmpdir}/out" ; then
	echo "FAIL: no warning in the report header for a replaced file"
	err=1
fi
if resolved "${tmpdir}/out" ; then
	echo "FAIL: resolved symbols against a replaced file"
	err=1
fi
case "$(differs "${tmpdir}/nocache.err")" in
*"build id") ;;
*)	echo "FAIL: a replaced file: the warning doesn't say its build id differs"
	err=1
	;;
esac
# One line for the file, and the hint once, after the warnings
if [ "$(grep -c "${warning}" "${tmpdir}/nocache.err")" != 1 ] ||
   [ "$(grep -c "^To keep the profiled files" "${tmpdir}/nocache.err")" != 1 ] ||
   ! tail -3 "${tmpdir}/nocache.err" | grep -q "^To keep the profiled files" ; then
	echo "FAIL: a replaced file: not one line of warning, then one hint, on stderr"
	err=1
fi
[ ${err} -ne 0 ] && cat "${tmpdir}/out" "${tmpdir}/nocache.err"

perf_report cache cache > "${tmpdir}/out"
if ! resolved "${tmpdir}/out" || grep -q "${any_warning}" "${tmpdir}/out" "${tmpdir}/cache.err" ; then
	echo "FAIL: replaced file with a build id cache copy: not resolved from the copy, or warned about"
	cat "${tmpdir}/out" "${tmpdir}/cache.err"
	err=1
fi

# Same contents, but touched: with MMAP3 and no build id to tell it is the
# same, the mtime says it is not the recorded file.
mmap3_check_support "${tmpdir}/probe.data" > "${tmpdir}/support"
support=$?
if [ ${support} = 1 ] ; then
	cat "${tmpdir}/support"
	err=1
elif [ ${support} = 0 ] ; then
	cp "${src}" "${prog}"
	perf_record nobuildid nocache "--mmap3 -B --no-buildid-mmap"
	perf_report nobuildid nocache > "${tmpdir}/out"
	if ! resolved "${tmpdir}/out" || grep -q "${any_warning}" "${tmpdir}/nobuildid.err" ; then
		echo "FAIL: MMAP3, untouched files: not resolved, or warned about"
		cat "${tmpdir}/out" "${tmpdir}/nobuildid.err"
		err=1
	fi
	TZ=UTC touch -d "2001-02-03 04:05:06" "${prog}"
	expected="mtime"
	recorded_dev=$(mmap3_lines "${tmpdir}/nobuildid.data" "${prog}" | head -1 | mmap3_field_dev)
	[ "${recorded_dev}" != "$(mmap3_stat_dev "${prog}")" ] && expected="device, mtime"
	perf_report nobuildid nocache > "${tmpdir}/out"
	if ! grep -q "${warning}" "${tmpdir}/nobuildid.err" ; then
		echo "FAIL: MMAP3, no warning for a touched file"
		cat "${tmpdir}/out" "${tmpdir}/nobuildid.err"
		err=1
	elif [ "$(differs "${tmpdir}/nobuildid.err")" != "${expected}" ] ; then
		echo "FAIL: MMAP3, touched file: warned, but not that only its ${expected} differ"
		cat "${tmpdir}/nobuildid.err"
		err=1
	fi
	if resolved "${tmpdir}/out" ; then
		echo "FAIL: MMAP3, touched file: resolved symbols against it without a build id"
		err=1
	fi
	# -v says the mtime in UTC, whatever TZ says
	if ! TZ=JST-9 perf --buildid-dir "${tmpdir}/nocache" report -v -i "${tmpdir}/nobuildid.data" \
			--stdio 2>&1 > /dev/null |
	     grep -q "^  now: *mtime 2001-02-03 04:05:06.000000000 UTC," ; then
		echo "FAIL: MMAP3, touched file: perf report -v doesn't say its mtime in UTC"
		err=1
	fi
	# Replaced: without a build id, its inode says it is another file
	cp "${other}" "${prog}.new"
	mv "${prog}.new" "${prog}"
	perf_report nobuildid nocache > "${tmpdir}/out"
	if [ "$(grep -c "${any_warning}" "${tmpdir}/nobuildid.err")" != 1 ] ||
	   ! grep -q "${warning} (differs: [a-z, ]*inode" "${tmpdir}/nobuildid.err" ; then
		echo "FAIL: MMAP3, replaced file: not one warning, that names it and its inode"
		cat "${tmpdir}/nobuildid.err"
		err=1
	fi
	if resolved "${tmpdir}/out" ; then
		echo "FAIL: MMAP3, replaced file: resolved symbols against another build"
		err=1
	fi
else
	echo "No PERF_RECORD_MMAP3 support, not checking a touched file"
fi

cleanup
exit ${err}
