#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PERF_RECORD_MMAP3 on the host (no MMAP3 in its kernel): see mmap3/README.
# A made-up MMAP3 file, converted by perf inject, read by mainline's perf
# 7.3 built unpatched (make perf-mainline).
export PERF_SRC="$OBJ/src/tools/perf"
unset MMAP3_TEST_OUTDIR
exec sh "$(dirname "$0")/mmap3/stock_perf.sh"
