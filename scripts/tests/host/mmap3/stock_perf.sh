#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A perf without PERF_RECORD_MMAP3 support (mainline's perf 7.3) reads a file
# converted by 'perf inject --convert-mmap3' with the same symbols our
# perf gives for the unconverted file, and can't read the unconverted one.
#
# The MMAP3 file is made up with perf_data_mmap3.py, as this kernel can't
# record one. With MMAP3_TEST_OUTDIR pointing to what the in-guest
# inject_mmap3.sh left there (perf.data.mmap3, perf.data.mmap2, cache/,
# symbols.txt), the guest's files are checked too, both perfs here, with
# the same build id cache, the guest's, and the same vmlinux,
# MMAP3_TEST_VMLINUX, for the guest's kernel samples.
. "$(dirname "$0")"/lib.sh

# Both perfs see the same environment: no ~/.perfconfig, /etc/perfconfig
export HOME="${tmpdir}/home" PERF_CONFIG_NOSYSTEM=1 PERF_CONFIG_NOGLOBAL=1
mkdir -p "${HOME}"
skip=

if [ -z "${STOCK_PERF}" ] ; then
	echo "Skip: no stock perf, set STOCK_PERF (or MAINLINE_PERF)"
	exit 2
fi
if [ ! -x "${STOCK_PERF}" ] ; then
	fail "no stock perf at ${STOCK_PERF}"
	exit 1
fi
echo "stock perf: ${STOCK_PERF} ($(${STOCK_PERF} version))"

# symbols perf cache-dir perf.data [perf report options]
# Not demangled: perf 7.3 prints C++ names with their parameters and
# return types, which sorts them otherwise too.
symbols() {
	_perf=$1 _cache=$2 _data=$3
	shift 3
	"${_perf}" --buildid-dir "${_cache}" report -i "${_data}" --stdio --sort dso,sym --no-demangle "$@" \
		2>/dev/null | grep -v '^#' | grep -v '^$'
}

# addresses perf cache-dir perf.data [perf report options]: each line's
# overhead, dso and symbol address, without the symbol's name, sorted:
# perf report orders lines of the same overhead by the symbol's name.
addresses() {
	symbols "$@" -v | awk '{ print $1, $2, $3 }' | sort
}

# compare name cache-dir mmap3-file mmap2-file our-symbols-of-the-mmap3-file
compare() {
	if ! grep -q "prog  *\[\.\] " "$5" ; then
		fail "$1: our perf resolves no symbol in prog"
		cat "$5"
	fi
	symbols "${STOCK_PERF}" "$2" "$4" ${vmlinux:+--vmlinux "${vmlinux}"} > "${tmpdir}/stock.txt"
	if cmp -s "$5" "${tmpdir}/stock.txt" ; then
		echo "$1: ${STOCK_PERF} reads the converted file with the same symbols:"
		cat "${tmpdir}/stock.txt"
	elif [ "$(addresses "${PERF}" "$2" "$3" ${vmlinux:+--vmlinux "${vmlinux}"})" = \
	       "$(addresses "${STOCK_PERF}" "$2" "$4" ${vmlinux:+--vmlinux "${vmlinux}"})" ] ; then
		# Where symbols share an address, perfs of other versions may
		# keep other names (6.1 __sched_text_start, 7.3 __schedule).
		echo "$1: ${STOCK_PERF} reads the converted file with the same symbols, some named as other symbols at their addresses:"
		diff -u "$5" "${tmpdir}/stock.txt"
	else
		fail "$1: ${STOCK_PERF} gives other symbols for the converted file"
		diff -u "$5" "${tmpdir}/stock.txt"
	fi

	# What it does with the unconverted one
	"${STOCK_PERF}" --buildid-dir "$2" report -i "$3" --stdio > "${tmpdir}/unconv.out" 2>&1
	rc=$?
	echo "$1: ${STOCK_PERF} report on the unconverted file exits with ${rc}, says:"
	grep -v '^#' "${tmpdir}/unconv.out" | grep -v '^$' | head -8 | sed 's/^/    /'
	if grep -q "prog  *\[\.\] " "${tmpdir}/unconv.out" ; then
		fail "$1: ${STOCK_PERF} reads the unconverted file?"
	fi
	"${STOCK_PERF}" script -i "$3" > /dev/null 2>&1
	echo "$1: ${STOCK_PERF} script on the unconverted file exits with $?"
}

if command -v python3 > /dev/null ; then
	cache="${tmpdir}/cache"
	python3 "${GEN}" -o "${tmpdir}/mmap3.data" --path "${prog}" || fail "${GEN}"
	"${PERF}" --buildid-dir "${cache}" buildid-cache -a "${prog}" || fail "buildid-cache -a"
	"${PERF}" inject --convert-mmap3 -i "${tmpdir}/mmap3.data" -o "${tmpdir}/mmap2.data" ||
		fail "perf inject --convert-mmap3"
	# perf 6.12 writes a larger perf_event_attr than perf 6.1 knows, and
	# perf 6.1 reads no file with one, MMAP3 or not.
	if "${STOCK_PERF}" report -v -i "${tmpdir}/mmap2.data" --stdio 2>&1 |
	   grep -m1 'more recent and unsupported ABI' > "${tmpdir}/abi.txt" ; then
		echo "Skip: ${STOCK_PERF} reads no perf.data of this perf, converted or not: $(cat "${tmpdir}/abi.txt")"
		exit 2
	fi
	symbols "${PERF}" "${cache}" "${tmpdir}/mmap3.data" > "${tmpdir}/ours.txt"
	compare "made up" "${cache}" "${tmpdir}/mmap3.data" "${tmpdir}/mmap2.data" "${tmpdir}/ours.txt"

	# Pipe mode, the attributes are events there
	"${PERF}" inject -i "${tmpdir}/mmap3.data" -o - | "${PERF}" inject --convert-mmap3 > "${tmpdir}/pipe.data"
	if ! "${STOCK_PERF}" evlist -v -i "${tmpdir}/pipe.data" | grep -q "mmap2: 1" ; then
		fail "pipe mode: the attributes don't say mmap2"
	fi
	symbols "${STOCK_PERF}" "${cache}" "${tmpdir}/pipe.data" > "${tmpdir}/pipe.txt"
	cmp -s "${tmpdir}/ours.txt" "${tmpdir}/pipe.txt" || fail "pipe mode: other symbols"
else
	echo "No python3, not making up an MMAP3 file"
fi

if [ -n "${MMAP3_TEST_OUTDIR}" ] ; then
	# Not the symbols.txt our perf printed in the guest: there the kernel
	# is resolved with its /proc/kallsyms and the libraries without their
	# debug info, here with the vmlinux and /usr/lib/debug. Our perf reads
	# the unconverted file here too, with what the stock perf gets.
	g="${MMAP3_TEST_OUTDIR}"
	vmlinux=${MMAP3_TEST_VMLINUX}
	kernel_bid=$("${PERF}" buildid-list -i "${g}/perf.data.mmap3" 2>/dev/null |
		sed -n 's/^\([0-9a-f]*\) \[kernel\.kallsyms\]$/\1/p')
	if [ -z "${vmlinux}" ] ; then
		echo "guest: no MMAP3_TEST_VMLINUX, the kernel samples are not resolved"
	elif [ -z "${kernel_bid}" ] ||
	     [ "$("${PERF}" buildid-list -i "${vmlinux}" 2>/dev/null)" != "${kernel_bid}" ] ; then
		# Still the same for both perfs, but the kernel samples are not checked
		skip="guest: ${vmlinux} is not the kernel that ran (build id '${kernel_bid}')"
		echo "${skip}, not using it"
		vmlinux=
	fi
	symbols "${PERF}" "${g}/cache" "${g}/perf.data.mmap3" ${vmlinux:+--vmlinux "${vmlinux}"} \
		> "${tmpdir}/guest.txt"
	if [ -n "${vmlinux}" ] && grep -q "\[k\] " "${tmpdir}/guest.txt" &&
	   ! grep -q "\[k\] [^0]" "${tmpdir}/guest.txt" ; then
		fail "guest: our perf resolves no kernel symbol with ${vmlinux}"
	fi
	compare "guest" "${g}/cache" "${g}/perf.data.mmap3" "${g}/perf.data.mmap2" "${tmpdir}/guest.txt"
	vmlinux=
fi

# And the in-tree test, which checks the conversion itself too
if PATH="$(dirname "$(readlink -f "${PERF}")"):${PATH}" STOCK_PERF="${STOCK_PERF}" MMAP3_TEST_OUTDIR= \
	sh "${PERF_SRC}/tests/shell/inject_mmap3.sh" ; then
	echo "tests/shell/inject_mmap3.sh: PASS"
else
	fail "tests/shell/inject_mmap3.sh"
fi

if [ ${err} -eq 0 ] && [ -n "${skip}" ] ; then
	echo "Skip: ${skip}"
	exit 2
fi
[ ${err} -eq 0 ] && echo "PASS: a stock perf reads converted files"
exit ${err}
