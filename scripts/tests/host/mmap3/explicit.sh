#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# On a kernel without PERF_RECORD_MMAP3, an explicit --mmap3 fails clearly.
. "$(dirname "$0")"/lib.sh

if "${PERF}" record --mmap3 -e cpu-clock -o "${tmpdir}/perf.data" -- true > "${tmpdir}/out" 2>&1 ; then
	echo "Skip: this kernel supports PERF_RECORD_MMAP3"
	exit 2
fi
cat "${tmpdir}/out"
grep -q "^--mmap3: the running kernel does not support PERF_RECORD_MMAP3" "${tmpdir}/out" ||
	fail "no clear message"
# Not the workload's output nor a crash
crashed 0 "${tmpdir}/out" && fail "sanitizer report"

[ ${err} -eq 0 ] && echo "PASS: explicit --mmap3 fails clearly"
exit ${err}
