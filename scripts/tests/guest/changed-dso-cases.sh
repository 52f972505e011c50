#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What perf report concludes about a profiled file after each of the ways
# in which files get replaced, or only touched, on a real system: the
# table behind MMAP3's choice of the mtime, and not the ctime, as its
# cheap check (Documentation/userspace-api/perf_mmap3.rst, "When to use
# it"). Each case profiles a small program, with its build id in the
# record (--buildid-mmap) and without (-B --no-buildid-mmap), does one
# thing to the file, and asks perf report whether the file changed. A
# line per case and record says what happened to the inode, the mtime and
# the ctime, and whether perf warned:
#   warn   the contents changed: perf must warn;
#   quiet  the contents did not: perf must not warn;
#   -      the contents changed, but inode and mtime are the recorded
#          ones, and only a build id can tell (cp -p of another build
#          with the same mtime): not judged without one.
# The table is made on each file system of scripts/guest/scratch-fs.sh,
# the profiled file and its replacements on it, and says the same on each.
# On each, a program that writes code into a file through a shared
# mapping and then runs it (mprotect() to PROT_EXEC, as a JIT does) is not
# called changed: the record carries the mtime of that write, the one
# stat() gives, on overlayfs and FUSE passthrough too, where the stacked
# inode's own copy of the times is older.
#
# timeout: 1800

. "$(dirname "$0")/../../guest/scratch-fs.sh"
W=/tmp/changed-dso-cases
bad=0
cleanup() {
	umount "$W/ovl" 2>/dev/null
	scratch_umount "$W/fs"
	dpkg --purge perf-mmap3-case >/dev/null 2>&1
	rm -rf "$W"
}
trap cleanup EXIT
cleanup
mkdir -p "$W" && cd "$W" || exit 1

# Two builds of one program: the same source, another constant, so
# another build id. The loop is where the samples land.
for v in 1 2; do
	cat >prog$v.c <<-EOF
	volatile unsigned long n;
	int main(void) { for (unsigned long i = 0; i < 50000000UL; i++) n += i * $v; return 0; }
	EOF
	gcc -O1 -Wl,--build-id -o build$v prog$v.c || { echo "FAIL: gcc"; exit 1; }
done
cmp -s build1 build2 && { echo "FAIL: the two builds are the same"; exit 1; }

# A package of each build, the same version string but for the build.
for v in 1 2; do
	mkdir -p pkg$v/DEBIAN pkg$v/opt/perf-mmap3-case
	cp build$v pkg$v/opt/perf-mmap3-case/prog
	printf 'Package: perf-mmap3-case\nVersion: 1.0-%s\nArchitecture: %s\nMaintainer: rig <rig@localhost>\nDescription: perf MMAP3 test\n' \
		"$v" "$(dpkg --print-architecture)" >pkg$v/DEBIAN/control
	dpkg-deb -b -Zgzip pkg$v pkg$v.deb >/dev/null || { echo "FAIL: dpkg-deb"; exit 1; }
done

ident() { stat -c '%i %.9Y %.9Z' "$1"; }
changed() {	# changed FIELD BEFORE AFTER: "same" or "new"
	[ "$(echo "$2" | cut -d' ' -f"$1")" = "$(echo "$3" | cut -d' ' -f"$1")" ] &&
		echo same || echo new
}

# run NAME EXPECT_BID EXPECT_NOBID SETUP ACTION: $p is the file profiled,
# in $D, the directory on the file system under test, which is the
# current directory too; the builds are in $W.
run() {
	local name=$1 want_bid=$2 want_nobid=$3 setup=$4 action=$5 rec want got before after
	for rec in bid nobid; do
		p=$D/prog
		rm -rf "$D"/* "$W/bid"
		cp $W/build1 "$p"
		eval "$setup" || { echo "FAIL: $name: setup"; bad=1; return; }
		if [ $rec = bid ]; then opt=--buildid-mmap want=$want_bid; else opt="-B --no-buildid-mmap" want=$want_nobid; fi
		perf --buildid-dir "$W/bid" record -q -N $opt -e cpu-clock -o "$W/perf.data" -- "$p" \
			>/dev/null 2>"$W/record.err" || { echo "FAIL: $name: perf record $opt"; cat "$W/record.err"; bad=1; return; }
		before=$(ident "$p")
		sleep 0.02	# so that a time set to now differs
		eval "$action" >/dev/null 2>&1 || { echo "FAIL: $name: $action"; bad=1; return; }
		after=$(ident "$p")
		perf --buildid-dir "$W/bid" report -i "$W/perf.data" --stdio --sort dso \
			>"$W/report.out" 2>"$W/report.err"
		if grep -q "$p changed after it was profiled" "$W/report.err"; then got=warn; else got=quiet; fi
		printf '%-9s %-15s %-8s inode %-4s mtime %-4s ctime %-4s perf: %-5s want: %-5s' "$fs" "$name" \
			"$([ $rec = bid ] && echo build-id || echo none)" "$(changed 1 "$before" "$after")" \
			"$(changed 2 "$before" "$after")" "$(changed 3 "$before" "$after")" $got "$want"
		if [ "$want" != - ] && [ "$got" != "$want" ]; then
			echo " FAIL"
			sed 's/^/    /' "$W/report.err"
			bad=1
		else
			echo
		fi
	done
}

# jit NAME: a program that writes a loop into $p through a shared
# mapping, some time after the file was made, mprotect()s it to PROT_EXEC
# and runs it, profiled: perf report must not call $p changed.
jit() {
	local name=$1
	p=$D/code
	rm -rf "$D"/* "$W/bid"
	head -c 4096 /dev/zero >"$p"
	sleep 0.02	# so that the write's mtime differs
	perf --buildid-dir "$W/bid" record -q -N -e cpu-clock -o "$W/perf.data" -- python3 -c '
import ctypes, mmap, sys
f = open(sys.argv[1], "r+b")
m = mmap.mmap(f.fileno(), 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
# mov $0x8000000, %ecx; 1: dec %ecx; jnz 1b; ret
m[0:10] = bytes([0xb9, 0, 0, 0, 0x08, 0xff, 0xc9, 0x75, 0xfc, 0xc3])
addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
if libc.mprotect(addr, 4096, mmap.PROT_READ | mmap.PROT_EXEC):
	sys.exit("mprotect: " + str(ctypes.get_errno()))
ctypes.CFUNCTYPE(None)(addr)()
' "$p" >/dev/null 2>"$W/record.err" || { echo "FAIL: $name: perf record"; cat "$W/record.err"; bad=1; return; }
	perf --buildid-dir "$W/bid" report -i "$W/perf.data" --stdio --sort dso \
		>"$W/report.out" 2>"$W/report.err"
	if ! grep -q " code *$" "$W/report.out"; then
		echo "FAIL: $fs $name: no samples in $p"
		sed 's/^/    /' "$W/report.out" | grep -v '^ *#' | head -5
		bad=1
	elif grep -q "$p changed after it was profiled" "$W/report.err"; then
		echo "FAIL: $fs $name: perf report calls $p changed:"
		sed 's/^/    /' "$W/report.err"
		bad=1
	else
		printf '%-9s %-15s %-8s written through a shared mapping, run   perf: quiet want: quiet\n' \
			"$fs" "$name" none
	fi
}

echo "fs        case            build id  what changed               perf   want"
for fs in $SCRATCH_FS; do
	D=$(scratch_mount $fs "$W/fs") || { echo "FAIL: cannot make or mount $fs"; bad=1; continue; }
	cd "$D" || exit 1
	# 1. A package upgrade: dpkg writes the new file beside the old one
	# and renames it over: a new inode, with the package's mtime. In
	# /opt, on the guest's root: once.
	[ $fs != tmpfs ] || run dpkg-upgrade warn warn \
		'dpkg -i $W/pkg1.deb >/dev/null 2>&1 && p=/opt/perf-mmap3-case/prog' \
		'dpkg -i $W/pkg2.deb'
	# 2. cp over the path: the same inode, truncated and rewritten.
	run cp warn warn '' 'cp $W/build2 "$p"'
	# 3. Another build that keeps the old file's mtime: cp -p writes in
	# place, rsync -t writes a new file and renames it. (rsync -t alone
	# skips a file whose size and mtime match, as the two builds' do: -I.)
	run cp-p-same-mtime warn - 'cp $W/build2 new && touch -r "$p" new' 'cp -p new "$p"'
	run rsync-t warn warn 'cp $W/build2 new && touch -r "$p" new' 'rsync -tI new "$p"'
	# 4. install(1) and mv: a new inode.
	run install warn warn '' 'install -m 755 $W/build2 "$p"'
	run mv warn warn '' 'cp $W/build2 new && mv new "$p"'
	# 5. Files whose mtime is 0 (reproducible images) or 1 (Nix-like
	# stores), replaced by another build with the same mtime, or
	# rewritten.
	run mtime0-mv warn warn 'touch -d @0 "$p"' 'cp $W/build2 new && touch -d @0 new && mv new "$p"'
	run mtime0-cp warn warn 'touch -d @0 "$p"' 'cp $W/build2 "$p"'
	run mtime1-cp-p warn - 'touch -d @1 "$p"' 'cp $W/build2 new && touch -d @1 new && cp -p new "$p"'
	# 6. Only the inode's status changed, not the contents.
	run chmod quiet quiet '' 'chmod 700 "$p"'
	run hard-link quiet quiet '' 'ln "$p" "$p.link"'
	# 7. overlayfs copies an unchanged lower file up when it is opened
	# for writing: the lower layer on the file system under test.
	run ovl-copy-up quiet quiet \
		'mkdir -p $D/l $W/ovl && mv "$p" $D/l/prog && umount $W/ovl 2>/dev/null; rm -rf $W/u $W/w; mkdir $W/u $W/w && mount -t overlay -o lowerdir=$D/l,upperdir=$W/u,workdir=$W/w ovl $W/ovl && p=$W/ovl/prog' \
		': >>"$p" && [ -e $W/u/prog ]'
	umount $W/ovl 2>/dev/null
	jit mmap-write-exec
	cd "$W" && scratch_umount "$W/fs"
done

[ $bad = 0 ] && echo "PASS: perf warned where the contents changed and it could tell, and only there"
exit $bad
