#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A kernel module whose .ko file is replaced on disk after it was loaded,
# as a package upgrade does without a reboot. perf record -a then finds
# the new file at the module's path, but the code that runs is the loaded
# module's:
# - the module's PERF_RECORD_MMAP3 carries the build id of the loaded
#   module (/sys/module/NAME/notes), and no inode nor mtime: those of the
#   file on disk are not the loaded module's (mtime "(none)", inode 0);
# - perf report tells by the build id that the file on disk is another
#   one: it warns, and resolves no sample to the new file's symbols
#   (perf_testmod2, built from the same source, has the same ones).
# Needs a kernel with PERF_RECORD_MMAP3 (perf records MMAP3 by default).

W=/tmp/module-replaced
rm -rf $W && mkdir -p $W/home && cd $W || exit 1
export HOME=$W/home

fail() { echo "FAIL: $*"; exit 1; }

ko=/lib/modules/$(uname -r)/extra/perf_testmod.ko
[ -e "$ko" ] || fail "no $ko"
kptr=$(cat /proc/sys/kernel/kptr_restrict)
restore() {
	[ -e $W/ko.orig ] && rm -f "$ko" && mv $W/ko.orig "$ko"
	echo "$kptr" >/proc/sys/kernel/kptr_restrict
}
trap restore EXIT
echo 0 >/proc/sys/kernel/kptr_restrict
rmmod perf_testmod2 2>/dev/null
lsmod | grep -q '^perf_testmod ' || insmod "$MODULES/perf_testmod.ko" ||
	fail "cannot load perf_testmod"

loaded=$(perf buildid-list -i "$MODULES/perf_testmod.ko")
other=$(perf buildid-list -i "$MODULES/perf_testmod2.ko")
[ -n "$loaded" ] && [ -n "$other" ] && [ "$loaded" != "$other" ] ||
	fail "the two test modules have no build ids, or the same: '$loaded' '$other'"

# The upgrade: another build at the module's path, a new file
mv "$ko" $W/ko.orig && cp "$MODULES/perf_testmod2.ko" "$ko" || fail "cannot replace $ko"

perf record -N -a -e cpu-clock -o perf.data -- sh -c 'echo 500 >/proc/perf_testmod' \
	>record.log 2>&1 || { cat record.log; fail "perf record failed"; }

perf script -i perf.data --show-mmap-events 2>/dev/null | grep "PERF_RECORD_MMAP.*: ---p $ko\$" >mmap.txt
cat mmap.txt
[ "$(wc -l <mmap.txt)" = 1 ] || fail "not one mmap record for $ko"
grep -q "PERF_RECORD_MMAP3 " mmap.txt || fail "the record of $ko is not a PERF_RECORD_MMAP3"
grep -q " 00:00 0 0 mtime 0 (none) <$loaded>\]" mmap.txt ||
	fail "the record of $ko does not have the loaded module's build id, and no inode nor mtime"

perf report -i perf.data --stdio --sort dso,sym >report.txt 2>report.err ||
	{ cat report.txt report.err; fail "perf report failed"; }
grep perf_testmod report.txt | head -5
cat report.err
grep -q "WARNING: $ko changed after it was profiled (differs: build id)" report.err ||
	fail "perf report does not warn that $ko is another build"
# perf_testmod2 is built from the same source: a sample resolved to a
# perf_testmod_* function came from the replaced file.
grep -q "perf_testmod" report.txt || fail "no samples in perf_testmod"
! grep -q "\] perf_testmod_" report.txt || fail "samples resolved to the symbols of the replaced file"
echo "the replaced module is told by the loaded module's build id"
