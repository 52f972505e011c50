#!/bin/sh
# perf inject --convert-mmap3
# SPDX-License-Identifier: GPL-2.0
#
# Convert a perf.data file with PERF_RECORD_MMAP3 events to MMAP2 ones and
# check that the result has no MMAP3 left, the attributes say mmap2, the
# build ids are kept and perf report gives the same symbols for both. In
# each of the four ways: from a file or a pipe, to a file or a pipe.
#
# The MMAP3 file is recorded when the kernel can, else made up with
# lib/perf_data_mmap3.py when python3 is there.
#
# STOCK_PERF: an older perf, e.g. /usr/bin/perf_6.1, to check that it reads
# the converted file with the same symbols, and that it can't read the
# unconverted one.
# MMAP3_TEST_OUTDIR: where to leave the unconverted and the converted file,
# their build id cache and, for reference, the symbols our perf gives for
# the unconverted one here, to check them with an older perf elsewhere (see
# STOCK_PERF). Compare there with what our perf gives there: the symbols
# depend on the kallsyms, vmlinux and debug info found.

. "$(dirname "$0")"/lib/mmap3.sh

err=0
tmpdir=$(mktemp -d /tmp/__perf_test_mmap3.XXXXXX)
data="${tmpdir}/perf.data"
conv="${tmpdir}/perf.data.mmap2"
prog="${tmpdir}/prog"
cache="${tmpdir}/cache"

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
cp "${src}" "${prog}"

mmap3_check_support "${data}" > "${tmpdir}/support"
support=$?
if [ ${support} = 1 ] ; then
	cat "${tmpdir}/support"
	cleanup
	exit 1
elif [ ${support} = 0 ] ; then
	# Build ids in the records and in the cache. sqrtloop spends its
	# time in libc's rand() too: a reader elsewhere that has the same
	# libc (see MMAP3_TEST_OUTDIR) has samples there to resolve.
	if ! perf --buildid-dir "${cache}" record --mmap3 --buildid-mmap -e cpu-clock \
		-o "${data}" -- "${prog}" test -w sqrtloop 1 > /dev/null 2>&1 ||
	   ! perf --buildid-dir "${cache}" buildid-cache -a "${prog}" ; then
		echo "FAIL: perf record --mmap3"
		cleanup
		exit 1
	fi
elif command -v python3 > /dev/null ; then
	echo "No PERF_RECORD_MMAP3 support, making up a perf.data file"
	if ! python3 "$(dirname "$0")"/lib/perf_data_mmap3.py -o "${data}" --path "${prog}" ; then
		echo "FAIL: lib/perf_data_mmap3.py"
		cleanup
		exit 1
	fi
	perf --buildid-dir "${cache}" buildid-cache -a "${prog}"
else
	echo "Skip: no PERF_RECORD_MMAP3 support and no python3 to make up a perf.data"
	cleanup
	exit 2
fi

expected_build_id=$(perf buildid-list -i "${prog}")

symbols() {
	$1 --buildid-dir "${cache}" report -i "$2" --stdio --sort dso,sym 2>/dev/null | \
		grep -v '^#' | grep -v '^$'
}

symbols perf "${data}" > "${tmpdir}/mmap3.txt"
if ! grep -q "prog  *\[\.\] " "${tmpdir}/mmap3.txt" ; then
	echo "FAIL: no symbols resolved in prog"
	cat "${tmpdir}/mmap3.txt"
	err=1
fi

# The unconverted file as a pipe gives it, attrs in attr records
if ! perf inject -i "${data}" -o - > "${tmpdir}/in.pipe" ; then
	echo "FAIL: perf inject -i perf.data -o -"
	cleanup
	exit 1
fi

# is_pipe_format file: a pipe's header, 16 bytes, not a file's (older perf
# inject writes one to a file from a pipe too)
is_pipe_format() {
	[ "$(od -An -t u8 -j 8 -N 8 "$1" | tr -d ' ')" = 16 ]
}

# check_converted how file: what perf --convert-mmap3 wrote, in a file or,
# as a pipe gives it, in a file to read from stdin
check_converted() {
	if is_pipe_format "$2" ; then
		in="-i -"
	else
		in="-i $2"
	fi
	perf evlist -v ${in} < "$2" | tr ',' '\n' > "${tmpdir}/$1.attrs"
	perf script ${in} --show-mmap-events < "$2" > "${tmpdir}/$1.script" 2>/dev/null

	nr_mmap3=$(grep -c PERF_RECORD_MMAP3 "${tmpdir}/$1.script")
	if [ "${nr_mmap3}" != "0" ] ; then
		echo "FAIL: $1: ${nr_mmap3} PERF_RECORD_MMAP3 left"
		err=1
	fi

	line=$(grep "PERF_RECORD_MMAP2 .*: r-xp ${prog}\$" "${tmpdir}/$1.script" | head -1)
	echo "$1: ${line}"
	case "${line}" in
	*"<${expected_build_id}>]"*) ;;
	*)	echo "FAIL: $1: no MMAP2 with the build id ${expected_build_id} of ${prog}"
		err=1
		;;
	esac

	if grep -q "mmap3" "${tmpdir}/$1.attrs" ||
	   ! grep -q "mmap2" "${tmpdir}/$1.attrs" ; then
		echo "FAIL: $1: the converted attributes don't say mmap2"
		cat "${tmpdir}/$1.attrs"
		err=1
	fi

	perf --buildid-dir "${cache}" report ${in} --stdio --sort dso,sym < "$2" 2>/dev/null | \
		grep -v '^#' | grep -v '^$' > "${tmpdir}/$1.txt"
	if ! cmp -s "${tmpdir}/mmap3.txt" "${tmpdir}/$1.txt" ; then
		echo "FAIL: $1: the converted file gives other symbols"
		diff -u "${tmpdir}/mmap3.txt" "${tmpdir}/$1.txt"
		err=1
	fi
}

for how in file-to-file file-to-pipe pipe-to-file pipe-to-pipe ; do
	case ${how} in
	file-*)	in="${data}" ;;
	pipe-*)	in="${tmpdir}/in.pipe" ;;
	esac
	case ${how} in
	file-*-file)	perf inject --convert-mmap3 -i "${in}" -o "${tmpdir}/${how}" ;;
	file-*-pipe)	perf inject --convert-mmap3 -i "${in}" -o - > "${tmpdir}/${how}" ;;
	pipe-*-file)	perf inject --convert-mmap3 -i - -o "${tmpdir}/${how}" < "${in}" ;;
	pipe-*-pipe)	perf inject --convert-mmap3 -i - -o - < "${in}" > "${tmpdir}/${how}" ;;
	esac || { echo "FAIL: ${how}: perf inject --convert-mmap3"; err=1; continue; }
	check_converted ${how} "${tmpdir}/${how}"
done
cp "${tmpdir}/file-to-file" "${conv}"

if [ -n "${STOCK_PERF}" ] ; then
	symbols "${STOCK_PERF}" "${conv}" > "${tmpdir}/stock.txt"
	if ! cmp -s "${tmpdir}/mmap3.txt" "${tmpdir}/stock.txt" ; then
		echo "FAIL: ${STOCK_PERF} gives other symbols for the converted file"
		diff -u "${tmpdir}/mmap3.txt" "${tmpdir}/stock.txt"
		err=1
	fi
	if ${STOCK_PERF} report -i "${data}" --stdio 2>&1 | grep -q "prog  *\[\.\] " ; then
		echo "${STOCK_PERF} reads unconverted MMAP3 files?"
	else
		echo "${STOCK_PERF} can't read the unconverted file, as expected"
	fi
fi

if [ -n "${MMAP3_TEST_OUTDIR}" ] ; then
	mkdir -p "${MMAP3_TEST_OUTDIR}"
	cp "${conv}" "${MMAP3_TEST_OUTDIR}/perf.data.mmap2"
	cp "${data}" "${MMAP3_TEST_OUTDIR}/perf.data.mmap3"
	cp "${tmpdir}/mmap3.txt" "${MMAP3_TEST_OUTDIR}/symbols.txt"
	rm -rf "${MMAP3_TEST_OUTDIR}/cache"
	cp -a "${cache}" "${MMAP3_TEST_OUTDIR}/cache"
	echo "Left the converted file in ${MMAP3_TEST_OUTDIR}"
fi

cleanup
exit ${err}
