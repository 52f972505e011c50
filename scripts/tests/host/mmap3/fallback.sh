#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# On a kernel without PERF_RECORD_MMAP3: perf record falls back to MMAP2,
# says so at -v, and --no-mmap3 and record.mmap3=false don't even try.
. "$(dirname "$0")"/lib.sh

if "${PERF}" record --mmap3 -e cpu-clock -o "${tmpdir}/probe.data" -- true > /dev/null 2>&1 ; then
	echo "Skip: this kernel supports PERF_RECORD_MMAP3"
	exit 2
fi

data="${tmpdir}/perf.data"
if ! "${PERF}" record -v -e cpu-clock -o "${data}" -- true > "${tmpdir}/out" 2>&1 ; then
	fail "perf record -- true"
	cat "${tmpdir}/out"
fi
grep -q "Kernel has no PERF_RECORD_MMAP3 support, falling back to PERF_RECORD_MMAP2" "${tmpdir}/out" ||
	fail "no fallback message at -v"
"${PERF}" report -i "${data}" --stats | grep -q "MMAP2 events: *[1-9]" || fail "no MMAP2 events"
"${PERF}" report -i "${data}" --stats | grep -q "MMAP3 events" && fail "MMAP3 events"
"${PERF}" evlist -v -i "${data}" | grep -q "mmap3: 1" && fail "attr.mmap3 set in the file"

# Without -v, nothing is said
"${PERF}" record -e cpu-clock -o "${data}" -- true 2>&1 | grep -qi mmap3 && fail "fallback message without -v"

# --no-mmap3 and the config don't try
"${PERF}" record -vv --no-mmap3 -e cpu-clock -o "${data}" -- true 2>&1 | grep -qi mmap3 &&
	fail "--no-mmap3 still tries mmap3"
printf '[record]\n\tmmap3 = false\n' > "${tmpdir}/config"
PERF_CONFIG="${tmpdir}/config" "${PERF}" record -vv -e cpu-clock -o "${data}" -- true 2>&1 | grep -qi mmap3 &&
	fail "record.mmap3=false still tries mmap3"

[ ${err} -eq 0 ] && echo "PASS: fallback to MMAP2"
exit ${err}
