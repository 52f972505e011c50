#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness's own bad input: each case must stop with a clear message and
# a non-zero exit, and leave nothing half-built that a later run would
# trust. Runs the harness's scripts from a scratch copy (its own TOP and
# build/), with fake inputs:
# - a missing package (a dpkg-query that lacks one; as non-root, and as root
#   with an apt-get that fails);
# - a base tarball of the wrong version;
# - a patch that does not apply;
# - a kernel that does not boot, one that panics (no root), a guest that
#   never powers off (the real bzImage with an init that never returns);
# - a test binary that crashes (its TAP stops early).
set -u

# The scratch copy must not touch the real tree: make check passes OBJ
# (build/), which the scratch scripts would take for theirs.
bz=${KBUILD:-}/arch/x86/boot/bzImage
unset OBJ SRC KBUILD KERNEL RUN RUN2 PERF TESTS EXTRA_CMDLINE BASE_TARBALL
# The fake bases below are of 6.1.
export BASE=6.1

fail() { echo "FAIL: $*"; rc=1; }
rc=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
top=$(cd "$(dirname "$0")/../../.." && pwd)

# A scratch project: the harness scripts, an empty series, its own build/.
scratch() {
	rm -rf "$tmp/p" && mkdir -p "$tmp/p/patches/$BASE"
	cp -a "$top/scripts" "$tmp/p/scripts"
	: >"$tmp/p/patches/$BASE/series"
	: >"$tmp/p/patches/$BASE/new-files"
}

# expect NAME PATTERN... -- COMMAND...: COMMAND fails, and its output
# matches each PATTERN (extended regexps).
expect() {
	local name=$1 pats=() out st
	shift
	while [ "$1" != -- ]; do pats+=("$1"); shift; done
	shift
	out=$("$@" 2>&1)
	st=$?
	if [ $st = 0 ]; then
		fail "$name: exited 0"
	else
		for p in "${pats[@]}"; do
			grep -Eq "$p" <<<"$out" || fail "$name: no /$p/ in its output"
		done
	fi
	echo "== $name: exit $st"
	tail -3 <<<"$out" | sed 's/^/   /'
}

# A fake base tarball whose Makefile says VERSION.
fake_tarball() {
	local v=$1 d=$tmp/tar/linux
	rm -rf "$tmp/tar" && mkdir -p "$d"
	printf 'kernelversion:\n\t@echo %s\n' "$v" >"$d/Makefile"
	printf 'int x;\n' >"$d/file.c"
	tar -C "$tmp/tar" -cJf "$tmp/linux.tar.xz" linux
}

# 1. Missing packages.
mkdir -p "$tmp/bin"
# The base's version of linux-source-6.1, which deps.sh wants.
base_deb=$(bash -c '. "$1/scripts/lib.sh" && echo "$BASE_DEB"' _ "$top")
cat >"$tmp/bin/dpkg-query" <<EOF
#!/bin/sh
# Everything is installed but qemu-system-x86, at version SEEN_VERSION or
# the base's.
for a; do last=\$a; done
[ "\$last" = qemu-system-x86 ] && exit 1
echo "install ok installed \${SEEN_VERSION:-$base_deb}"
EOF
cat >"$tmp/bin/apt-get" <<'EOF'
#!/bin/sh
[ "$1" = update ] && exit 0
echo "E: Unable to locate package $*" >&2
exit 100
EOF
chmod +x "$tmp/bin/"*
scratch
if command -v setpriv >/dev/null; then
	chmod -R a+rwX "$tmp"
	expect "missing package, not root" 'missing packages: qemu-system-x86' 'apt-get install' -- \
		setpriv --reuid=65534 --regid=65534 --clear-groups env PATH="$tmp/bin:$PATH" \
		bash "$tmp/p/scripts/deps.sh"
fi
if [ "$(id -u)" = 0 ]; then
	expect "missing package, apt-get fails" 'apt-get install failed for: qemu-system-x86' -- \
		env PATH="$tmp/bin:$PATH" bash "$tmp/p/scripts/deps.sh"
	# Another version of the base's package is not the base.
	expect "base package at another version" "apt-get install failed for: linux-source-6\\.1=$base_deb qemu" -- \
		env PATH="$tmp/bin:$PATH" SEEN_VERSION=6.1.191-1 bash "$tmp/p/scripts/deps.sh"
fi

# 2. A base of the wrong version: both versions named, no tree left.
fake_tarball 6.1.191
scratch
expect "wrong base version" '6\.1\.191' '6\.1\.192' -- \
	env BASE_TARBALL="$tmp/linux.tar.xz" bash "$tmp/p/scripts/tree.sh"
[ ! -e "$tmp/p/build/$BASE/src" ] && [ ! -e "$tmp/p/build/$BASE/src.tmp" ] ||
	fail "wrong base version: a tree was left in build/"

# 3. A patch that does not apply: the patch and the hunk are named, and the
# tree is not stamped, so the next run applies the series again.
fake_tarball 6.1.192
scratch
cat >"$tmp/p/patches/$BASE/0001-bad.patch" <<'EOF'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: A U Thor <author@example.org>
Date: Sat, 1 Jan 2000 00:00:00 +0000
Subject: [PATCH] Change a line that is not there

---
 file.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/file.c b/file.c
--- a/file.c
+++ b/file.c
@@ -1 +1 @@
-int y;
+int z;
EOF
echo 0001-bad.patch >"$tmp/p/patches/$BASE/series"
expect "patch does not apply" '0001-bad\.patch' 'file\.c' 'does not apply' -- \
	env BASE_TARBALL="$tmp/linux.tar.xz" bash "$tmp/p/scripts/tree.sh"
[ ! -e "$tmp/p/build/$BASE/src/.git/rig-series" ] || fail "patch does not apply: the tree was stamped"

# 4. Kernels that do not boot, and a guest that never powers off.
if [ -f "$bz" ] && command -v qemu-system-x86_64 >/dev/null; then
	scratch
	o=$tmp/p/build
	mkdir -p "$o/kbuild/default/arch/x86/boot"
	head -c 1M /dev/zero >"$o/kbuild/default/arch/x86/boot/bzImage"
	expect "kernel that does not boot" 'stopped without a result|did not power off' -- \
		env OBJ="$o" ACCEL=tcg bash "$tmp/p/scripts/vm.sh" check "$o/run1" 30
	cp "$bz" "$o/kbuild/default/arch/x86/boot/bzImage"
	# The last rootfstype= wins: a root that cannot be mounted.
	expect "kernel that panics (no root)" 'panicked' -- \
		env OBJ="$o" ACCEL=tcg EXTRA_CMDLINE=rootfstype=nosuchfs \
		bash "$tmp/p/scripts/vm.sh" check "$o/run2" 60
	# The guest sees the host's root: an init of ours, from $tmp.
	printf '#!/bin/sh\nmount -t devtmpfs dev /dev\necho rig-init-sleeps >/dev/ttyS0\nexec sleep 100000\n' >"$tmp/init"
	chmod +x "$tmp/init"
	expect "guest that never powers off" 'did not power off within 30s' -- \
		env OBJ="$o" ACCEL=tcg RIG_INIT="$tmp/init" bash "$tmp/p/scripts/vm.sh" check "$o/run3" 30
	grep -q rig-init-sleeps "$o/run3/console.log" ||
		fail "guest that never powers off: its /init did not run (a slow boot, not a hang)"
else
	echo "== no built kernel ($bz) or no QEMU: the boot cases did not run"
	[ $rc = 0 ] && rc=2
fi

# 5. A test binary that crashes half-way: a failure, not the passes so far.
r=$tmp/run
mkdir -p "$r/kselftest"
printf 'TAP version 13\n1..3\nok 1 a.one\n' >"$r/kselftest/crash.tap"
echo 139 >"$r/kselftest/crash.rc"
expect "test binary that crashes" 'FAIL +kselftest:crash +\(binary\) +crashed or stopped early: exit 139 after 1 of 3' \
	'1 passed, 1 failed' -- env BASELINE=/dev/null bash "$top/scripts/report.sh" "$r"

[ $rc = 0 ] && echo "each bad input stopped with a clear message and a non-zero exit"
[ $rc = 2 ] && echo "the boot cases need a built kernel and QEMU"
exit $rc
