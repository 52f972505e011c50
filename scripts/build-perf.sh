#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build perf from the patched tree into build/BASE/perf (or $PERF_OUT), with
# what upstream's perf tests need: libelf, libdw, slang, zlib and zstd,
# libbpf with the BPF skeletons (--off-cpu, --bpf-counters), libpfm4,
# libbfd (PE files) and the JVMTI agent (Test java symbol). Not the builtin
# clang (LIBCLANGLLVM=1): linked to libLLVM, every start of perf takes 0.4 s
# more under TCG, and perf test twice as long; for the same reason not
# 6.12's libLLVM disassembler and symbolizer (NO_LIBLLVM=1). 6.12 builds
# libbfd only when asked (BUILD_NONDISTRO=1); 6.1 ignores both. The rest is
# off to keep the build short. "dlfilter C API" loads dlfilters/ next to perf.
# Without libpython perf test would run tests/attr.py without an interpreter
# ("Setup struct perf_event_attr"): PYTHON_WORD names the guest's python3.
# PERF_SAN=1 builds with ASan and UBSan into build/BASE/perf-san; PERF_FUZZ=1
# with AFL++'s instrumentation too (afl-clang-fast) into build/BASE/perf-fuzz.
# PERF_STOCK=1 builds the base's perf as it ships, without the series, into
# build/BASE/perf-stock, for the tests of what an older perf makes of the
# files ours writes: from the base's files that perf's MANIFEST names, with
# what reading perf.data needs (libelf, libdw).
. "$(dirname "$0")/lib.sh"

OUT=${PERF_OUT:-$OBJ/perf}
cc="ccache gcc"
extra=()
variant=
features=(NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBBABELTRACE=1 NO_LIBNUMA=1
	  NO_LIBAUDIT=1 NO_LIBUNWIND=1 NO_LIBCRYPTO=1 NO_LIBCAP=1
	  BUILD_BPF_SKEL=1 LIBPFM4=1 PYTHON_WORD=python3 BUILD_NONDISTRO=1 NO_LIBLLVM=1)
needed="libelf dwarf libslang zlib zstd bpf libpfm4 libbfd"
products="perf dlfilters/dlfilter-test-api-v0.so libperf-jvmti.so"
if [ "${PERF_SAN:-0}" = 1 ]; then
	OUT=$OBJ/perf-san variant=" (ASan+UBSan)"
	extra=(EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
	       LDFLAGS="-fsanitize=address,undefined"
	       # gcc 12 gives false -Wstringop-overflow errors under ASan
	       WERROR=0)
elif [ "${PERF_FUZZ:-0}" = 1 ]; then
	# afl-clang-fast adds the sanitizers itself, with UBSan trapping.
	OUT=$OBJ/perf-fuzz variant=" (AFL++, ASan+UBSan)" cc=afl-clang-fast
	export AFL_USE_ASAN=1 AFL_USE_UBSAN=1 AFL_QUIET=1
	extra=(WERROR=0)
elif [ "${PERF_STOCK:-0}" = 1 ]; then
	OUT=$OBJ/perf-stock variant=" (unpatched $BASE_VERSION)"
	SRC=$OBJ/perf-stock-src
	features=(NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBBABELTRACE=1 NO_LIBNUMA=1
		  NO_LIBAUDIT=1 NO_LIBUNWIND=1 NO_LIBCRYPTO=1 NO_LIBCAP=1 NO_LIBBPF=1
		  NO_LIBTRACEEVENT=1 NO_SLANG=1 NO_LIBLLVM=1 NO_JVMTI=1 NO_LIBPFM4=1)
	needed="libelf dwarf" products=perf
	if [ ! -e "$SRC/tools/perf/MANIFEST" ]; then
		rm -rf "$SRC" && mkdir -p "$SRC"
		git -C "$OBJ/src" show base:tools/perf/MANIFEST | sed 's/^/:(glob)/' |
			xargs git -C "$OBJ/src" archive base | tar -x -C "$SRC" ||
			die "cannot extract the base's perf sources into ${SRC#$TOP/}"
		# What perf's tarball has for its version (PERF-VERSION-GEN)
		echo "#define PERF_VERSION \"$BASE_VERSION\"" >"$SRC/PERF-VERSION-FILE"
	fi
fi
mkdir -p "$OUT"

# perf is built from tools/ alone; a package that deps.sh adds may turn
# on a feature.
stamp=$OUT/.rig-built
if [ -x "$OUT/perf" ] && up_to_date "$stamp" "$SRC/tools" "${BASH_SOURCE[0]}" "$TOP/scripts/lib.sh" "$TOP/scripts/deps.sh"; then
	stage "perf$variant: up to date"
	exit 0
fi
rm -f "$stamp"
touch "$stamp.new"

stage "building perf$variant"
built() { echo "  $(find "$OUT" -name '*.o' -newer "$stamp.new" | wc -l) objects built"; }
every_minute built
make -s -C "$SRC/tools/perf" O="$OUT" -j"$JOBS" CC="$cc" "${features[@]}" \
	WERROR=1 "${extra[@]}" >"$OUT/build.log" 2>&1 ||
	{ stop_progress; tail -30 "$OUT/build.log" >&2; die "perf build failed (log: ${OUT#$TOP/}/build.log)"; }
stop_progress
# Upstream's default target, all: one sub-make. Goals named on the command
# line would each get their own, in parallel, over the same O=.
for f in $products; do
	[ -e "$OUT/$f" ] || die "the perf build made no ${OUT#$TOP/}/$f"
done
opts=$("$OUT/perf" version --build-options)
# libdw shows as dwarf and libdw-dwarf-unwind.
for f in $needed; do
	grep -Eq "^ +$f: \[ on" <<<"$opts" ||
		die "perf was built without $f:
$opts"
done
mv "$stamp.new" "$stamp"
