#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build what runs in the guest besides perf: the perf_events kselftests
# (upstream's and ours) and the test modules.
. "$(dirname "$0")/lib.sh"

OUT=$OBJ/tests/$KERNEL
mkdir -p "$OUT/selftests" "$OUT/testmod"

stage "building the perf_events selftests"
# Their make knows nothing of the uapi headers they are built against: when
# those change (a number of the series), all are built again, or a test
# that did not change keeps the old numbers.
hdr=$(find "$KBUILD/hdr/include" -name '*.h' | sort | xargs cat | sha256sum | cut -d' ' -f1)
[ "$(cat "$OUT/selftests.hdr" 2>/dev/null)" = "$hdr" ] || rm -f "$OUT"/selftests/*
make -s -C "$SRC/tools/testing/selftests/perf_events" OUTPUT="$OUT/selftests" \
	KHDR_INCLUDES="-isystem $KBUILD/hdr/include" CC="ccache gcc" \
	>"$OUT/selftests.log" 2>&1 ||
	{ cat "$OUT/selftests.log" >&2; die "selftest build failed"; }
echo "$hdr" >"$OUT/selftests.hdr"
# The programs the guest runs (scripts/guest/run.sh), one a line.
make -s -C "$SRC/tools/testing/selftests/perf_events" OUTPUT="$OUT/selftests" emit_tests |
	sed 's/^.*://' >"$OUT/selftests.list"

stage "building the test modules"
rsync -a --delete --exclude '*.o' --exclude '*.ko' "$TOP/scripts/testmod/" "$OUT/testmod.src/"
make -s -C "$KBUILD" M="$OUT/testmod.src" modules >"$OUT/testmod.log" 2>&1 ||
	{ cat "$OUT/testmod.log" >&2; die "test module build failed"; }
cp "$OUT"/testmod.src/*.ko "$OUT/testmod/"
