#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A third-party reader of perf.data, KDAB's perfparser (the engine of
# hotspot), on the file that tests/shell/inject_mmap3.sh recorded with
# MMAP3 in the guest (MMAP3_TEST_OUTDIR): as recorded, it skips the MMAP3
# records and knows no mapping; after 'perf inject --convert-mmap3', the
# one step perf-record.txt gives, it has the mappings and resolves the
# samples in libc to the symbols that our perf report found there. The
# guest ran on this host's root, so the libc is the same file.
. "$(dirname "$0")"/lib.sh

pp=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
[ -x "${pp}" ] || { echo "Skip: no ${pp} (Debian package hotspot)"; exit 2; }
dir=${MMAP3_TEST_OUTDIR:?the guest files of tests/shell/inject_mmap3.sh}
[ -f "${dir}/perf.data.mmap3" ] || { echo "Skip: no ${dir}/perf.data.mmap3"; exit 2; }

# The libc symbols of our perf report on the MMAP3 file, in the guest:
# libc's own functions need its debug symbols (libc6-dbg), or perf shows
# addresses.
syms=$(sed -n 's/.* libc\.so\.6 *\[\.\] \([A-Za-z_][A-Za-z0-9_.]*\)$/\1/p' "${dir}/symbols.txt")
[ -n "${syms}" ] || { echo "Skip: no sample in a libc symbol in ${dir}/symbols.txt"; exit 2; }

mmaps() {
	timeout 120 "${pp}" --input "$1" --print-stats 2>/dev/null | sed -n 's/^mmaps: //p'
}

"${PERF}" inject --convert-mmap3 -i "${dir}/perf.data.mmap3" -o "${tmpdir}/converted.data" ||
	fail "perf inject --convert-mmap3"
echo "perfparser $("${pp}" --version 2>&1 | tail -1)"
echo "mappings perfparser finds: $(mmaps "${dir}/perf.data.mmap3") as recorded (MMAP3)," \
	"$(mmaps "${tmpdir}/converted.data") converted"
[ "$(mmaps "${tmpdir}/converted.data")" -gt 0 ] 2>/dev/null ||
	fail "perfparser finds no mapping in the converted file"

timeout 120 "${pp}" --input "${tmpdir}/converted.data" --output "${tmpdir}/converted.pp" \
	2>"${tmpdir}/pp.err" || fail "perfparser fails on the converted file"
found=
for s in ${syms}; do
	grep -aq "${s}" "${tmpdir}/converted.pp" && found="${found} ${s}"
done
echo "libc symbols of perf report:" ${syms} "; perfparser resolved:${found:- none}"
[ -n "${found}" ] || fail "perfparser resolves none of the libc symbols in the converted file"

[ ${err} -eq 0 ] && echo "PASS: perfparser reads the converted file"
exit ${err}
