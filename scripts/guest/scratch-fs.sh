# SPDX-License-Identifier: GPL-2.0
# Sourced in the guest: fresh file systems for the tests that put files on
# one, so that each runs on the file systems people run, not only on the
# guest's tmpfs. The images are sparse files under /tmp (a tmpfs), on loop
# devices; each goes away with scratch_umount.
#
# SCRATCH_FS: the file systems, in the order the tests run on them.
#   tmpfs      a tmpfs of its own
#   btrfs      a subvolume, whose stat() st_dev is an anonymous device of
#              its own, not the superblock's that mmap records carry
#   ext4, xfs  the whole file system
#   overlayfs  an overlay whose upper layer is an ext4 (stat() gives its
#              st_dev, and its page_mkwrite updates the upper file's mtime)
#              and whose lower layer is the guest's /tmp
#   fuse       where the kernel has FUSE passthrough (6.9 and later): a
#              tmpfs directory served by fuse-passthrough.c, which opens
#              every file in passthrough mode, so that its mapped pages
#              are the backing file's, as on overlayfs
SCRATCH_FS="tmpfs btrfs ext4 xfs overlayfs"
if grep -qw fuse /proc/filesystems &&
	printf '6.9\n%s\n' "$(uname -r | cut -d- -f1)" | sort -V -C; then
	SCRATCH_FS="$SCRATCH_FS fuse"
fi
SCRATCH_FUSE_SRC=${BASH_SOURCE[0]%/*}/fuse-passthrough.c

# scratch_mount FS DIR: mount a fresh FS under DIR (which must not exist)
# and print the directory in which the files go. Fails, saying why, when
# FS cannot be made or mounted.
scratch_mount() {
	local fs=$1 d=$2

	mkdir -p "$d/mnt" || return 1
	case $fs in
	tmpfs)
		mount -t tmpfs scratch "$d/mnt" || return 1
		echo "$d/mnt"
		;;
	btrfs)
		truncate -s 1G "$d/img" && mkfs.btrfs -q "$d/img" >/dev/null &&
			mount -o loop "$d/img" "$d/mnt" &&
			btrfs -q subvolume create "$d/mnt/sub" >/dev/null || return 1
		echo "$d/mnt/sub"
		;;
	ext4 | xfs)
		# xfs wants 300 MB at least
		truncate -s 512M "$d/img" || return 1
		if [ $fs = ext4 ]; then
			mkfs.ext4 -q -F "$d/img"
		else
			mkfs.xfs -q -f "$d/img"
		fi && mount -o loop "$d/img" "$d/mnt" || return 1
		echo "$d/mnt"
		;;
	overlayfs)
		mkdir -p "$d/upperfs" "$d/lower" &&
			truncate -s 256M "$d/img" && mkfs.ext4 -q -F "$d/img" &&
			mount -o loop "$d/img" "$d/upperfs" &&
			mkdir "$d/upperfs/upper" "$d/upperfs/work" &&
			mount -t overlay -o "lowerdir=$d/lower,upperdir=$d/upperfs/upper,workdir=$d/upperfs/work" \
				scratch "$d/mnt" || return 1
		echo "$d/mnt"
		;;
	fuse)
		# fuse-passthrough.c is built once per boot, into /tmp
		[ -x /tmp/fuse-passthrough ] ||
			gcc -O2 -Wall -o /tmp/fuse-passthrough "$SCRATCH_FUSE_SRC" ||
			return 1
		mkdir -p "$d/back" && /tmp/fuse-passthrough "$d/back" "$d/mnt" ||
			return 1
		echo "$d/mnt"
		;;
	*)
		echo "scratch_mount: no file system $fs" >&2
		return 1
		;;
	esac
}

# scratch_umount DIR: unmount what scratch_mount mounted under DIR, and
# remove DIR with the image.
scratch_umount() {
	umount "$1/mnt" 2>/dev/null
	umount "$1/upperfs" 2>/dev/null
	rm -rf "$1"
}
