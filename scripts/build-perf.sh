#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build perf from the patched tree into build/BASE/perf (or $PERF_OUT) with
# what Debian's linux-perf is built with: libelf, libdw, slang, zlib, zstd,
# lzma, libnuma, libunwind, libcap (6.1; 6.12 has no such option), libperl,
# libpython (perf script -s, the python binding), libbabeltrace (6.12 and
# 6.1) or babeltrace2's CTF writer (7.3) for perf data convert --to-ctf,
# and libopencsd (CoreSight decoding). Beside those, what
# upstream's perf tests need: libbpf with the BPF skeletons (--off-cpu,
# --bpf-counters), libpfm4, libbfd (PE files) and the JVMTI agent (Test
# java symbol). Not libcrypto nor libaudit, as Debian. Not the builtin
# clang (LIBCLANGLLVM=1): linked to libLLVM, every start of perf takes 0.4 s
# more under TCG, and perf test twice as long; for the same reason not
# 6.12's libLLVM disassembler and symbolizer (NO_LIBLLVM=1). 6.12 builds
# libbfd only when asked (BUILD_NONDISTRO=1); 6.1 ignores both. "dlfilter C
# API" loads dlfilters/ next to perf. Python is Debian's /usr/bin/python3,
# whatever else the PATH holds (pyenv), since the guest runs the host's
# Debian root. The build check reads `perf version --build-options`, and
# the build's own list (.config-detected) for what that does not print.
# PERF_SAN=1 builds with ASan and UBSan into build/BASE/perf-san; PERF_FUZZ=1
# with AFL++'s instrumentation too (afl-clang-fast) into build/BASE/perf-fuzz.
# PERF_COV=1 builds with gcov's counters (--coverage) into
# build/BASE/perf-cov, for make coverage.
# PERF_STOCK=1 builds the base's perf as it ships, without the series, into
# build/BASE/perf-stock, for the tests of what an older perf makes of the
# files ours writes: from the base's files that perf's MANIFEST names, with
# what reading perf.data needs (libelf, libdw).
. "$(dirname "$0")/lib.sh"

OUT=${PERF_OUT:-$OBJ/perf}
cc="ccache gcc"
extra=()
variant=
features=(NO_LIBAUDIT=1 NO_LIBCRYPTO=1 CORESIGHT=1 BUILD_BPF_SKEL=1 LIBPFM4=1
	  PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config
	  BUILD_NONDISTRO=1 NO_LIBLLVM=1)
needed="libelf dwarf libslang zlib zstd lzma libnuma libunwind libperl libpython
	bpf libpfm4 libbfd"
detected="CONFIG_LIBBABELTRACE CONFIG_LIBOPENCSD"
[ "$BASE" = 6.1 ] && detected="$detected CONFIG_LIBCAP"
# EXTRA_CFLAGS, of the variants below and of the base.
cflags=
# 7.3, as Debian's linux-perf 7.3 (its Depends): no libperl nor libunwind,
# which 7.3 builds only when asked (LIBPERL=1, LIBUNWIND=1, deprecated);
# and no libbfd, which 7.3 links only from binutils 2.42 on (bookworm has
# 2.40): it reads PE files with libLLVM or not at all. 7.3 writes CTF
# with babeltrace2's CTF writer, whose headers bookworm's package lacks
# (deps.sh's fetch_ctf_writer); a 7.3 tree whose feature test never links
# the library (before "perf build: Link the babeltrace2-ctf-writer feature
# test with its library": make baseline's, and series-check's before that
# patch) builds without it.
case $BASE in
6.*) ;;
*)
	mapfile -t features < <(printf '%s\n' "${features[@]}" | grep -vx BUILD_NONDISTRO=1)
	needed="libelf dwarf libslang zlib zstd lzma libnuma libpython bpf libpfm4"
	detected="CONFIG_LIBOPENCSD"
	cflags="-isystem $B/debs/ctf-writer/usr/include"
	grep -q 'FEATURE_CHECK_LDFLAGS-babeltrace2-ctf-writer' "$SRC/tools/perf/Makefile.config" 2>/dev/null &&
		detected="$detected CONFIG_BABELTRACE2_CTF_WRITER"
	;;
esac
products="perf dlfilters/dlfilter-test-api-v0.so libperf-jvmti.so"
if [ "${PERF_SAN:-0}" = 1 ]; then
	OUT=$OBJ/perf-san variant=" (ASan+UBSan)"
	cflags="$cflags -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
	extra=(LDFLAGS="-fsanitize=address,undefined"
	       # gcc 12 gives false -Wstringop-overflow errors under ASan
	       WERROR=0)
elif [ "${PERF_FUZZ:-0}" = 1 ]; then
	# afl-clang-fast adds the sanitizers itself, with UBSan trapping.
	OUT=$OBJ/perf-fuzz variant=" (AFL++, ASan+UBSan)" cc=afl-clang-fast
	export AFL_USE_ASAN=1 AFL_USE_UBSAN=1 AFL_QUIET=1
	# The targets read perf.data; no interpreter to instrument, and no
	# BPF skeleton to build: 7.3 compiles a clang CC's objects with
	# $(CLANG), which builds the skeletons too.
	mapfile -t features < <(printf '%s\n' "${features[@]}" | grep -vx BUILD_BPF_SKEL=1)
	extra=(WERROR=0 NO_LIBPYTHON=1 NO_LIBPERL=1 CLANG=$cc)
	needed=$(printf '%s\n' $needed | grep -vxE 'libpython|libperl' | xargs)
elif [ "${PERF_COV:-0}" = 1 ]; then
	# Each process adds its counts to the .gcda files beside the objects
	# when it exits (GCOV_PREFIX moves them, scripts/guest/run.sh).
	OUT=$OBJ/perf-cov variant=" (gcov)"
	cflags="$cflags --coverage"
	extra=(LDFLAGS=--coverage)
elif [ "${PERF_STOCK:-0}" = 1 ]; then
	OUT=$OBJ/perf-stock variant=" (unpatched $BASE_VERSION)"
	SRC=$OBJ/perf-stock-src
	features=(NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBBABELTRACE=1 NO_LIBNUMA=1
		  NO_LIBAUDIT=1 NO_LIBUNWIND=1 NO_LIBCRYPTO=1 NO_LIBCAP=1 NO_LIBBPF=1
		  NO_LIBTRACEEVENT=1 NO_SLANG=1 NO_LIBLLVM=1 NO_JVMTI=1 NO_LIBPFM4=1)
	needed="libelf dwarf" detected= products=perf cflags=
	if [ ! -e "$SRC/tools/perf/MANIFEST" ]; then
		rm -rf "$SRC" && mkdir -p "$SRC"
		if git -C "$OBJ/src" rev-parse -q --verify base >/dev/null 2>&1; then
			git -C "$OBJ/src" show base:tools/perf/MANIFEST | sed 's/^/:(glob)/' |
				xargs git -C "$OBJ/src" archive base | tar -x -C "$SRC"
		else
			# No tree of this base (7.3's perf, for the other bases'
			# tests): the same files from Debian's tarball.
			"$TOP/scripts/deps.sh"
			tar -xJOf "$BASE_TARBALL" "$BASE_PKG/tools/perf/MANIFEST" |
				sed "s|^|$BASE_PKG/|" >"$SRC/.manifest" &&
				tar -xJf "$BASE_TARBALL" -C "$SRC" --strip-components=1 \
					--wildcards -T "$SRC/.manifest"
		fi || die "cannot extract the base's perf sources into ${SRC#$TOP/}"
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
# perf's objects don't follow a change of its options (libpython, say, adds
# -fPIC to every object for the binding): other options start clean.
# 7.3 builds its Rust test workloads when it finds a rustc on the PATH:
# rustup's here, none on a fresh machine. The choice is made here instead.
case $BASE in 6.*) ;; *) features+=(NO_RUST=1) ;; esac
[ -z "$cflags" ] || extra+=(EXTRA_CFLAGS="${cflags# }")
flags="${features[*]} ${extra[*]}"
if [ "$(cat "$OUT/.rig-flags" 2>/dev/null)" != "$flags" ]; then
	rm -rf "$OUT" && mkdir -p "$OUT" && echo "$flags" >"$OUT/.rig-flags"
fi
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
# afl-fuzz refuses a binary without AFL++'s instrumentation, only later.
[ "${PERF_FUZZ:-0}" = 1 ] && ! nm "$OUT/perf" | grep __afl_area_ptr >/dev/null &&
	die "${OUT#$TOP/}/perf has no AFL++ instrumentation: was it compiled with $cc?"
for f in $detected; do
	grep -qx "$f=y" "$OUT/.config-detected" ||
		die "perf was built without ${f#CONFIG_} (${OUT#$TOP/}/.config-detected)"
done
mv "$stamp.new" "$stamp"
