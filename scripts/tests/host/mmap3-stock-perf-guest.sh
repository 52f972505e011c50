#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The same with the files perf test's inject_mmap3.sh recorded in the guest,
# both perfs reading them here, with the guest's build id cache and vmlinux.
export PERF_SRC="$OBJ/src/tools/perf"
[ -d "$RUN/artifacts/inject_mmap3" ] ||
	{ echo "no files from the guest's inject_mmap3.sh"; exit 2; }
export MMAP3_TEST_OUTDIR="$RUN/artifacts/inject_mmap3"
export MMAP3_TEST_VMLINUX="$KBUILD/vmlinux"
exec sh "$(dirname "$0")/mmap3/stock_perf.sh"
