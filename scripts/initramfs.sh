#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack the guest's initramfs: busybox, GNU touch, perf with its shared
# libraries and loader, the selftests, the test modules, and our guest-side
# scripts.
. "$(dirname "$0")/lib.sh"

T=$OBJ/tests/$KERNEL
OUT=$OBJ/initramfs-$KERNEL.cpio.gz
R=$OBJ/initramfs-$KERNEL.root

# Copy a binary with the shared libraries and loader it needs.
copy_elf() {
	local bin=$1 dst=$2 lib
	install -D -m 0755 "$bin" "$R$dst"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$R$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$R$lib"
	done
}

stage "packing the initramfs"
rm -rf "$R" && mkdir -p "$R"/{bin,sbin,etc,proc,sys,dev,tmp,root,results,home/user}
cp /bin/busybox "$R/bin/busybox"
for a in $("$R/bin/busybox" --list); do
	[ -e "$R/bin/$a" ] || ln -s busybox "$R/bin/$a"
done
copy_elf "$OBJ/perf/perf" /usr/bin/perf
# GNU touch: busybox touch -d can't set the ns of an mtime, that
# tests/shell/record_mmap3.sh checks. busybox sh runs its own applet for a
# plain "touch" whatever PATH says, so that test runs the first touch in
# PATH that can by its path: this one.
copy_elf "$(command -v touch)" /usr/bin/touch
"$R/usr/bin/touch" --version | grep -q GNU || die "$(command -v touch) is not GNU touch"
# GNU date, for make bench's time stamps in ns (busybox date has no %N);
# run as /usr/bin/date, for the same reason.
copy_elf /usr/bin/date /usr/bin/date
mkdir -p "$R/tests"
cp -a "$T/selftests" "$R/tests/selftests"
for f in "$T"/selftests/*; do
	[ -x "$f" ] && copy_elf "$f" "/tests/selftests/${f##*/}"
done
make -s -C "$SRC/tools/testing/selftests/perf_events" OUTPUT="$T/selftests" emit_tests |
	sed 's/^.*://' >"$R/tests/selftests.list"
cp -a "$T/testmod" "$R/tests/modules"
cp -a "$TOP/scripts/tests/guest" "$R/tests/guest"
cp -a "$TOP/scripts/tests/guest2" "$R/tests/guest2"
mkdir -p "$R/usr/libexec/perf-core/tests"
cp -a "$SRC/tools/perf/tests/shell" "$R/usr/libexec/perf-core/tests/shell"
cp "$TOP/scripts/guest/init" "$R/init"
cp "$TOP/scripts/guest/run.sh" "$R/tests/run.sh"
chmod +x "$R/init" "$R/tests/run.sh"
printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/home/user:/bin/sh\n' >"$R/etc/passwd"
printf 'root:x:0:\nuser:x:1000:\n' >"$R/etc/group"
chown 1000:1000 "$R/home/user"
(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible) | gzip -1 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
