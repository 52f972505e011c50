#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build perf from the patched tree into build/perf (or $PERF_OUT), with
# libelf, libdw, slang, zlib and zstd; the rest is off to keep the build
# short. perf test's "dlfilter C API" loads dlfilters/ next to perf.
# Without libpython perf test would run tests/attr.py without an interpreter
# ("Setup struct perf_event_attr"): PYTHON_WORD names the guest's python3.
# PERF_SAN=1 builds with ASan and UBSan into build/perf-san.
. "$(dirname "$0")/lib.sh"

OUT=${PERF_OUT:-$OBJ/perf}
extra=()
if [ "${PERF_SAN:-0}" = 1 ]; then
	OUT=$OBJ/perf-san
	extra=(EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
	       LDFLAGS="-fsanitize=address,undefined"
	       # gcc 12 gives false -Wstringop-overflow errors under ASan
	       WERROR=0)
fi
mkdir -p "$OUT"

# perf is built from tools/ alone; a package that deps.sh adds may turn
# on a feature.
stamp=$OUT/.rig-built
if [ -x "$OUT/perf" ] && up_to_date "$stamp" "$SRC/tools" "${BASH_SOURCE[0]}" "$TOP/scripts/lib.sh" "$TOP/scripts/deps.sh"; then
	stage "perf${PERF_SAN:+ (ASan+UBSan)}: up to date"
	exit 0
fi
rm -f "$stamp"
touch "$stamp.new"

stage "building perf${PERF_SAN:+ (ASan+UBSan)}"
make -s -C "$SRC/tools/perf" O="$OUT" -j"$JOBS" CC="ccache gcc" \
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_JVMTI=1 NO_LIBBABELTRACE=1 NO_LIBNUMA=1 \
	NO_LIBAUDIT=1 NO_LIBUNWIND=1 NO_LIBBPF=1 NO_LIBCRYPTO=1 NO_LIBCAP=1 \
	PYTHON_WORD=python3 \
	WERROR=1 "${extra[@]}" perf "$OUT/dlfilters/dlfilter-test-api-v0.so" >"$OUT/build.log" 2>&1 ||
	{ tail -30 "$OUT/build.log" >&2; die "perf build failed (log: ${OUT#$TOP/}/build.log)"; }
opts=$("$OUT/perf" version --build-options)
# libdw shows as dwarf and libdw-dwarf-unwind.
for f in libelf dwarf libslang zlib zstd; do
	grep -Eq "^ +$f: \[ on" <<<"$opts" ||
		die "perf was built without $f:
$opts"
done
mv "$stamp.new" "$stamp"
