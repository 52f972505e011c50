#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf's check of profiled files that changed, on the file systems where
# stat()'s st_dev is not the device that the kernel records (the
# superblock's): a btrfs subvolume, with its anonymous device, and
# overlayfs. perf test "perf report warns about profiled files that
# changed" runs with its files on each: recorded with build ids and
# without (-B --no-buildid-mmap), untouched, then replaced. Untouched, no file at all may be
# warned about; replaced, the file warns, in one line that names it. Where
# the kernel records the device that stat() gives too (overlayfs on 6.12
# reports the overlay's inode), the test runs all the same; but one of the
# file systems must show the difference, or nothing was tested.

W=/tmp/changed-dso-fs
fail() { echo "FAIL: $*"; exit 1; }
cleanup() {
	umount "$W/ovl" "$W/btrfs" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
differs=
rm -rf $W && mkdir -p $W/btrfs $W/ovl $W/lower $W/upper $W/work || exit 1

# btrfs on a loop device of a sparse file on tmpfs, the files in a subvolume.
# Room for the copies of perf that the probe below and the perf test make,
# 70 MB each when perf is built with ASan: btrfs gives a removed file's
# space back only when the transaction that removed it commits.
truncate -s 1G $W/btrfs.img
mkfs.btrfs -q $W/btrfs.img || fail "mkfs.btrfs"
mount -o loop $W/btrfs.img $W/btrfs || fail "cannot mount btrfs"
btrfs -q subvolume create $W/btrfs/sub || fail "btrfs subvolume create"
mount -t overlay -o lowerdir=$W/lower,upperdir=$W/upper,workdir=$W/work ovl $W/ovl ||
	fail "cannot mount overlayfs"

for d in $W/btrfs/sub $W/ovl; do
	fs=$(stat -f -c %T $d)
	# The case under test: a file there stat()s with another device than
	# the one its mapping is recorded with.
	cp "$(command -v perf)" $d/prog
	perf record -q -e cpu-clock -B --no-buildid-mmap -o $W/probe.data -- $d/prog --version >/dev/null 2>&1 ||
		fail "$fs: perf record"
	rec=$(perf script -i $W/probe.data --show-mmap-events 2>/dev/null |
		sed -n "s|.* @ [0-9a-fx]* \([0-9a-f]*:[0-9a-f]*\) .*: r-xp $d/prog\$|\1|p" | head -1)
	dev=$(stat -c %d $d/prog)
	now=$(printf '%02x:%02x' $(( ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfff) )) \
		$(( (dev & 0xff) | ((dev >> 12) & ~0xff) )))
	echo "$fs: $d/prog recorded on $rec, stat() says $now"
	[ -n "$rec" ] || fail "$fs: no mmap record of $d/prog"
	[ "$rec" = "$now" ] || differs="$differs $fs"
	rm -f $d/prog $W/probe.data

	# perf test's shell tests are in the tree run.sh made.
	(cd "$PERF_EXEC_PATH" && MMAP3_TEST_DIR=$d perf test -v "profiled files that changed") >$W/$fs.log 2>&1
	cat $W/$fs.log
	grep -q "profiled files that changed *: Ok" $W/$fs.log || fail "on $fs"
done
[ -n "$differs" ] || fail "on no file system does stat() give another device than the recorded one: nothing was tested"
echo "stat() differs from the record on:$differs"
echo "PASS: no false warning, and the replaced file named, on btrfs and overlayfs"
