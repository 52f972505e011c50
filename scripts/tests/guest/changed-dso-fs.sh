#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf's check of profiled files that changed, on each file system of
# scripts/guest/scratch-fs.sh: tmpfs, ext4, xfs, and those where stat()'s
# st_dev is not the device that the kernel records (the superblock's): a
# btrfs subvolume, with its anonymous device, and overlayfs. perf test
# "perf report warns about profiled files that changed" runs with its
# files on each: recorded with build ids and without (-B
# --no-buildid-mmap), untouched, then replaced. Untouched, no file at all
# may be warned about; replaced, the file warns, in one line that names
# it. One of the file systems must show a device that differs, or the
# case was not tested.
#
# timeout: 1200

. "$(dirname "$0")/../../guest/scratch-fs.sh"
W=/tmp/changed-dso-fs
fail() { echo "FAIL: $*"; exit 1; }
trap 'scratch_umount $W' EXIT
differs=

# Each file system of scratch-fs.sh in turn: tmpfs, a btrfs subvolume,
# ext4, xfs, overlayfs and, where the kernel has it, FUSE passthrough. btrfs has room for the copies of perf that the
# probe below and the perf test make, 70 MB each when perf is built with
# ASan: it gives a removed file's space back only when the transaction
# that removed it commits.
for fs in $SCRATCH_FS; do
	d=$(scratch_mount $fs $W) || fail "cannot make or mount $fs"
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
	(cd "$PERF_EXEC_PATH" && MMAP3_TEST_DIR=$d perf test -v "profiled files that changed") >/tmp/changed-dso-$fs.log 2>&1
	cat /tmp/changed-dso-$fs.log
	grep -q "profiled files that changed *: Ok" /tmp/changed-dso-$fs.log || fail "on $fs"
	rm -f /tmp/changed-dso-$fs.log
	scratch_umount $W
done
[ -n "$differs" ] || fail "on no file system does stat() give another device than the recorded one: nothing was tested"
echo "stat() differs from the record on:$differs"
echo "PASS: no false warning, and the replaced file named, on: $SCRATCH_FS"
