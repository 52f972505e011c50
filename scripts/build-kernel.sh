#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel (bzImage and modules) out of tree in build/BASE/kbuild/$KERNEL
# from tinyconfig plus our fragments, and install its UAPI headers for the
# selftests. KERNEL=debug adds the debug fragment; KERNEL=coverage the
# coverage fragment, and gcov's counters in each object built from a C file
# that the series changes (make coverage).
. "$(dirname "$0")/lib.sh"

FRAGS="$SRC/kernel/configs/kvm_guest.config $TOP/kernel/configs/perf_test.config"
case $KERNEL in
default) ;;
debug) FRAGS="$FRAGS $TOP/kernel/configs/perf_test_debug.config" ;;
coverage) FRAGS="$FRAGS $TOP/kernel/configs/perf_test_coverage.config" ;;
*) die "KERNEL=$KERNEL: the variants are default, debug and coverage" ;;
esac

# KERNEL=coverage: kbuild's GCOV_PROFILE_<object>=y for each C file of the
# series outside tools/. The name is the object's file name without its
# directory, so a kernel/sched/core.o gets counters with kernel/events/
# core.o: more counters than needed, none missing.
gcov=()
if [ "$KERNEL" = coverage ]; then
	mapfile -t gcov < <(git -C "$SRC" diff --name-only base..HEAD -- '*.c' ':!tools' ':!samples' |
		sed 's|.*/||; s|\.c$|.o|; s|^|GCOV_PROFILE_|; s|$|=y|' | sort -u)
	[ ${#gcov[@]} -gt 0 ] || die "KERNEL=coverage: the series changes no C file of the kernel"
fi

mkdir -p "$KBUILD"
kmake() { make -C "$SRC" O="$KBUILD" -j"$JOBS" CC="ccache gcc" "${gcov[@]}" "$@"; }

# Regenerate .config only when a fragment changed.
sum=$(cat $FRAGS | sha1sum | cut -d' ' -f1)
if [ "$(cat "$KBUILD/.config.frags" 2>/dev/null)" != "$sum" ] || [ ! -f "$KBUILD/.config" ]; then
	stage "configuring the kernel: tinyconfig +$(for f in $FRAGS; do printf ' %s' "${f##*/}"; done)"
	rm -f "$KBUILD/.config.frags"
	kmake -s tinyconfig >/dev/null
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$KBUILD" "$KBUILD/.config" $FRAGS >"$KBUILD/merge.log" 2>&1
	kmake -s olddefconfig >/dev/null
	# merge_config.sh only warns; an option of ours that did not stick is
	# an error, one we leave out that another selects too.
	for f in $FRAGS; do
		[ "${f##*/}" = kvm_guest.config ] && continue
		grep -E '^CONFIG_[A-Z0-9_]+=' "$f" | while read -r l; do
			grep -qxF "$l" "$KBUILD/.config" ||
				die "${f##*/}: $l did not stick (a dependency is missing; see ${KBUILD#$TOP/}/merge.log)"
		done
		sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1/p' "$f" | while read -r o; do
			! grep -q "^$o=" "$KBUILD/.config" ||
				die "${f##*/}: $o is set all the same (something selects it; see ${KBUILD#$TOP/}/.config)"
		done
	done
	echo "$sum" >"$KBUILD/.config.frags"
fi

# Everything in the tree but tools/ goes into the kernel.
stamp=$KBUILD/.rig-built
srcs=()
for f in "$SRC"/*; do
	[ "$f" = "$SRC/tools" ] || srcs+=("$f")
done
if [ -f "$KBUILD/arch/x86/boot/bzImage" ] &&
   up_to_date "$stamp" "${srcs[@]}" "$KBUILD/.config" "${BASH_SOURCE[0]}" "$TOP/scripts/lib.sh"; then
	stage "the kernel ($KERNEL): up to date"
	exit 0
fi
rm -f "$stamp"
touch "$stamp.new"

stage "building the kernel ($KERNEL)"
built() { echo "  $(find "$KBUILD" -name '*.o' -newer "$stamp.new" | wc -l) objects built"; }
every_minute built
kmake -s bzImage modules 2>&1 | tee "$KBUILD/build.log" | grep -v '^$' || true
[ "${PIPESTATUS[0]}" = 0 ] || { stop_progress; die "kernel build failed (log: ${KBUILD#$TOP/}/build.log)"; }
stop_progress
if grep -q 'warning:' "$KBUILD/build.log"; then
	echo "note: the kernel build printed warnings (build/kbuild/$KERNEL/build.log)"
fi
kmake -s headers_install INSTALL_HDR_PATH="$KBUILD/hdr" >/dev/null
mv "$stamp.new" "$stamp"
