#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hotspot's perfparser on the guest's MMAP3 file, converted: see mmap3/README.
export PERF_SRC="$OBJ/src/tools/perf"
[ -d "$RUN/artifacts/inject_mmap3" ] ||
	{ echo "no files from the guest's inject_mmap3.sh"; exit 2; }
export MMAP3_TEST_OUTDIR="$RUN/artifacts/inject_mmap3"
exec sh "$(dirname "$0")/mmap3/perfparser.sh"
