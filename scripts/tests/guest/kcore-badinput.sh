#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf buildid-cache --kcore with bad input. Each case must fail with a
# non-zero exit status and a message that says what is wrong, and leave no
# partial [kernel.kcore]/... directory behind (the cache is as before):
# - --kcore pointing at something that is not a kcore: a file not named
#   kcore, a missing file, a non-ELF file and a non-core ELF file named
#   kcore (with and without a matching copy already in the cache);
# - a directory without kallsyms, without modules, without the build-id,
#   or with a kallsyms that does not go with the kcore;
# - unreadable files (as a non-root user): /proc/kcore, a kallsyms;
# - a read-only cache (with and without [kernel.kcore]/<build-id> in it);
# - a full cache: a tmpfs too small for kallsyms, one too small for kcore,
#   and one without inodes left for the timestamp directory or the files.
# A good directory is added first and last, so that the failures are the
# bad input's, not a broken setup's.

W=/tmp/bad-input
umount $W/mnt 2>/dev/null
rm -rf $W && mkdir -p $W/home $W/mnt && cd $W || exit 1
export HOME=$W/home
KC="[kernel.kcore]"

failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
die() { echo "FAIL: $*"; exit 1; }

kptr=$(cat /proc/sys/kernel/kptr_restrict)
echo 0 >/proc/sys/kernel/kptr_restrict
trap 'echo $kptr >/proc/sys/kernel/kptr_restrict; umount $W/mnt 2>/dev/null' EXIT
rmmod perf_testmod2 2>/dev/null
lsmod | grep -q '^perf_testmod ' || insmod "$MODULES/perf_testmod.ko" ||
	die "cannot load perf_testmod"

# mkroot DIR [skip...]: DIR/proc/{kcore,kallsyms,modules} and
# DIR/sys/kernel/notes of the running kernel, leaving out the files named.
mkroot() {
	_d=$1
	shift
	mkdir -p "$_d/proc" "$_d/sys/kernel"
	case " $* " in *" kcore "*) ;; *) ln -sf /proc/kcore "$_d/proc/kcore" ;; esac
	case " $* " in *" kallsyms "*) ;; *) cp /proc/kallsyms "$_d/proc/kallsyms" ;; esac
	case " $* " in *" modules "*) ;; *) cp /proc/modules "$_d/proc/modules" ;; esac
	case " $* " in *" notes "*) ;; *) cp /sys/kernel/notes "$_d/sys/kernel/notes" ;; esac
}

snap() { find "$1/.debug/$KC" 2>/dev/null | sort; }

# expect_fail NAME HOME AS_USER KCORE REASON-REGEX
expect_fail() {
	name=$1 home=$2 as=$3 kcore=$4 why=$5
	snap "$home" >before.$name
	echo "== $name: perf buildid-cache --kcore $kcore${as:+ (as $as)}"
	if [ -n "$as" ]; then
		# uid 1000, "user"; setpriv keeps PATH (our perf) and needs no account.
		HOME=$home setpriv --reuid=1000 --regid=1000 --clear-groups \
			perf buildid-cache --kcore "$kcore" >out.$name 2>&1
	else
		HOME=$home perf buildid-cache --kcore "$kcore" >out.$name 2>&1
	fi
	rc=$?
	sed 's/^/  | /' out.$name
	echo "  exit status $rc"
	[ $rc != 0 ] || fail "$name: exit status 0"
	# The reason, not just the name of the file we passed.
	grep -vx 'DEBUGINFOD_URLS=' out.$name | sed "s|$kcore||g" | grep -Eqi "$why" ||
		fail "$name: the message does not say why (expected /$why/)"
	snap "$home" >after.$name
	if ! cmp -s before.$name after.$name; then
		diff before.$name after.$name | grep '^[-+]/' | sed 's/^/  /'
		fail "$name: the cache changed: partial directories left behind"
	fi
	find "$home/.debug" -name '.*.??????' 2>/dev/null | grep . &&
		fail "$name: temporary files left in the cache"
}

expect_ok() {	# NAME KCORE
	echo "== $1: perf buildid-cache --kcore $2 (good)"
	perf buildid-cache -v --kcore "$2" >out.$1 2>&1
	rc=$?
	sed 's/^/  | /' out.$1
	[ $rc = 0 ] || die "$1: a good kcore failed with $rc: the setup is broken"
}

mkroot $W/good
expect_ok good-first $W/good/proc/kcore
good=$(ls -d "$HOME/.debug/$KC"/*/*)
[ -f "$good/kcore" ] || die "good-first made no copy"

# Not a kcore.
perf record -q -o $W/perf.data -e cpu-clock -- true 2>/dev/null
expect_fail not-named-kcore "$W/h1" "" $W/perf.data 'kcore'
expect_fail missing "$W/h1" "" $W/nonexistent/proc/kcore 'no such file'
mkroot $W/notelf kcore
echo "this is not a kcore" >$W/notelf/proc/kcore
expect_fail not-elf "$W/h1" "" $W/notelf/proc/kcore 'not an ELF|not a kcore'
expect_fail not-elf-cached "$HOME" "" $W/notelf/proc/kcore 'not an ELF|not a kcore'
mkroot $W/notcore kcore
cp "$(command -v perf)" $W/notcore/proc/kcore
expect_fail not-core "$W/h1" "" $W/notcore/proc/kcore 'not a kcore|ET_CORE'
expect_fail not-core-cached "$HOME" "" $W/notcore/proc/kcore 'not a kcore|ET_CORE'

# Missing parts.
mkroot $W/nokallsyms kallsyms
expect_fail no-kallsyms "$W/h1" "" $W/nokallsyms/proc/kcore 'kallsyms.*(no such file|missing)'
mkroot $W/nomodules modules
expect_fail no-modules "$W/h1" "" $W/nomodules/proc/kcore 'modules.*(no such file|missing)'
mkroot $W/nonotes notes
expect_fail no-build-id "$W/h1" "" $W/nonotes/proc/kcore 'build-id'

# A kallsyms that does not belong to the kcore (as from another boot):
# the kernel's addresses moved to where kcore maps nothing.
mkroot $W/mismatch kallsyms
awk 'NF == 3 && $1 ~ /^ffffffff[89ab]/ { $1 = "ffffffff0" substr($1, 10) } { print }' \
	/proc/kallsyms >$W/mismatch/proc/kallsyms
expect_fail kallsyms-mismatch "$W/h1" "" $W/mismatch/proc/kcore 'no segment|same boot'

# Unreadable, as a user: /proc/kcore itself, and a kallsyms.
mkdir -p $W/uhome && chown 1000:1000 $W/uhome
expect_fail unreadable-kcore $W/uhome user /proc/kcore 'permission denied'
mkroot $W/unreadable kcore
cp "$good/kcore" $W/unreadable/proc/kcore
chmod 0644 $W/unreadable/proc/kcore $W/unreadable/proc/modules
chmod 0000 $W/unreadable/proc/kallsyms
expect_fail unreadable-kallsyms $W/uhome user $W/unreadable/proc/kcore 'kallsyms.*permission denied'

# A read-only cache, empty and with [kernel.kcore]/<build-id> in it.
mount -t tmpfs -o size=1m ro $W/mnt && mount -o remount,ro $W/mnt ||
	die "cannot mount a read-only tmpfs"
expect_fail read-only $W/mnt "" $W/good/proc/kcore 'read-only'
umount $W/mnt
mount -t tmpfs -o size=1m ro $W/mnt &&
	mkdir -p "$W/mnt/.debug/$KC/$(basename "$(dirname "$good")")" &&
	mount -o remount,ro $W/mnt || die "cannot mount a read-only tmpfs"
expect_fail read-only-existing $W/mnt "" $W/good/proc/kcore 'read-only'
umount $W/mnt

# A full cache: no room for kallsyms; room for kallsyms and modules but
# not kcore; no inode for the timestamp directory; none for the files.
mount -t tmpfs -o size=4k full $W/mnt || die "cannot mount a tmpfs"
expect_fail full-kallsyms $W/mnt "" $W/good/proc/kcore 'no space'
umount $W/mnt
ks=$(wc -c </proc/kallsyms)
mount -t tmpfs -o size=$((ks + 131072)) full $W/mnt || die "cannot mount a tmpfs"
expect_fail full-kcore $W/mnt "" $W/good/proc/kcore 'no space'
umount $W/mnt
# The root, .debug, [kernel.kcore] and <build-id> take 4 inodes.
mount -t tmpfs -o size=16m,nr_inodes=4 full $W/mnt || die "cannot mount a tmpfs"
expect_fail full-inodes-dir $W/mnt "" $W/good/proc/kcore 'no space'
umount $W/mnt
mount -t tmpfs -o size=16m,nr_inodes=6 full $W/mnt || die "cannot mount a tmpfs"
expect_fail full-inodes-file $W/mnt "" $W/good/proc/kcore 'no space'
umount $W/mnt

# Everything still works, and the good copy was not touched.
cmp "$good/kallsyms" /proc/kallsyms || fail "the good copy's kallsyms changed"
insmod "$MODULES/perf_testmod2.ko" || die "cannot load perf_testmod2"
expect_ok good-last /proc/kcore
rmmod perf_testmod2
[ "$(ls -d "$HOME/.debug/$KC"/*/* | wc -l)" = 2 ] || fail "good-last did not make a second copy"

[ $failed = 0 ] || { echo "$failed checks failed"; exit 1; }
echo "every bad input failed cleanly with a reason"
