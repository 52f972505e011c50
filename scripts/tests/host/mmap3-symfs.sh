#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PERF_RECORD_MMAP3 on the host (no MMAP3 in its kernel): see mmap3/README.
export PERF_SRC="$OBJ/src/tools/perf"
exec sh "$(dirname "$0")/mmap3/symfs.sh"
