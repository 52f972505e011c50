#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The synthesized kernel mmap under KASLR: perf record -a over a workload
# that is hot in the kernel, in the test module and in user space; then
# perf script --show-mmap-events and perf report -D must both show the
# kernel record [kernel.kallsyms]_text with pgoff equal to the runtime
# address of _text in /proc/kallsyms.
#
# The header's build-id table must have the test module (hit by samples)
# with the build-id of the loaded module.
#
# Leaves perf.data and what the guest resolved (perf script -F ip,sym,symoff
# through /proc/kallsyms) in $ARTIFACTS; scripts/tests/host/kaslr-relocate.sh
# checks that KASLR moved _text away from the vmlinux ELF's, and resolves
# perf.data on the host with the unrelocated vmlinux. The second boot runs
# this script again (scripts/tests/guest2/kaslr-mmap.sh).

W=/tmp/kaslr-mmap
rm -rf $W && mkdir -p $W && cd $W || exit 1
export HOME=$W

fail() { echo "FAIL: $*"; exit 1; }
norm() { echo "$1" | tr 'A-F' 'a-f' | sed 's/^0x//; s/^0*//; s/^$/0/'; }

kptr=$(cat /proc/sys/kernel/kptr_restrict)
echo 0 >/proc/sys/kernel/kptr_restrict
trap 'echo $kptr >/proc/sys/kernel/kptr_restrict' EXIT
lsmod | grep -q '^perf_testmod ' || insmod "$MODULES/perf_testmod.ko" ||
	fail "cannot load perf_testmod"

text=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
[ -n "$text" ] || fail "no _text in /proc/kallsyms"
[ "$(norm "$text")" != 0 ] || fail "/proc/kallsyms shows _text as 0 although kptr_restrict is 0"
echo "runtime _text (/proc/kallsyms): 0x$text"

# Many kernel functions: copying, page faults, sysfs, kallsyms, exec.
perf record -a -e cpu-clock -o perf.data -- sh -c \
	'echo 600 >/proc/perf_testmod &
	 dd if=/dev/zero of=/dev/null bs=64k count=3000 2>/dev/null
	 ls -lR /sys >/dev/null 2>&1; cat /proc/kallsyms >/dev/null
	 for i in 1 2 3 4 5 6 7 8; do sh -c :; done; wait' \
	>record.log 2>&1 || { cat record.log; fail "perf record failed"; }
cat record.log

echo "== perf script --show-mmap-events"
perf script -i perf.data --show-mmap-events >script-mmap.txt 2>script-mmap.err ||
	{ cat script-mmap.err; fail "perf script --show-mmap-events failed"; }
grep -E 'PERF_RECORD_MMAP' script-mmap.txt | grep -E '\[kernel\.kallsyms\]|\[perf_testmod\]'
grep -E 'PERF_RECORD_MMAP[0-9]* .*\[kernel\.kallsyms\]_text$' script-mmap.txt >kmmap.txt
n=$(wc -l <kmmap.txt)
[ "$n" = 1 ] || fail "expected one [kernel.kallsyms]_text mmap record, perf script shows $n"
rec=$(sed -n 's/.*\[\(0x[0-9a-f]*\)(\(0x[0-9a-f]*\)) @ \(0x[0-9a-f]*\).*/\1 \2 \3/p' kmmap.txt)
set -- $rec
[ $# = 3 ] || fail "cannot parse the kernel mmap record: $(cat kmmap.txt)"
start=$1 len=$2 pgoff=$3
echo "kernel mmap: start $start len $len pgoff $pgoff"
[ "$(norm "$pgoff")" = "$(norm "$text")" ] ||
	fail "the kernel mmap's pgoff $pgoff is not the runtime _text 0x$text"
s=$(($start)) e=$(($start + $len)) p=$(($pgoff))
[ $p -ge $s ] && [ $p -lt $e ] || fail "pgoff $pgoff is outside the kernel map $start+$len"

echo "== perf report -D"
perf report -i perf.data -D 2>&1 | grep -E 'PERF_RECORD_MMAP[0-9]* .*\[kernel\.kallsyms\]_text$' >kmmap-D.txt
cat kmmap-D.txt
[ "$(wc -l <kmmap-D.txt)" = 1 ] || fail "perf report -D shows $(wc -l <kmmap-D.txt) kernel mmap records, expected 1"
pd=$(sed -n 's/.*) @ \(0x[0-9a-f]*\).*/\1/p' kmmap-D.txt)
[ "$(norm "$pd")" = "$(norm "$text")" ] || fail "perf report -D: pgoff $pd is not 0x$text"

# The module's record too: its start is where /proc/modules has it.
mbase=$(awk '$1 == "perf_testmod" { print $6 }' /proc/modules)
# Named by its file when perf finds it under /lib/modules/$(uname -r).
mrec=$(grep -E 'PERF_RECORD_MMAP[0-9]* .*(\[perf_testmod\]|/perf_testmod\.ko)$' script-mmap.txt | sed -n 's/.*\[\(0x[0-9a-f]*\)(.*/\1/p')
[ -n "$mrec" ] && [ "$(norm "$mrec")" = "$(norm "$mbase")" ] ||
	fail "the [perf_testmod] mmap record starts at '$mrec', /proc/modules says $mbase"

echo "== what the guest resolves through /proc/kallsyms"
perf script -i perf.data -F ip,sym,symoff >samples.txt 2>samples.err ||
	{ cat samples.err; fail "perf script -F ip,sym,symoff failed"; }
etext=$(awk '$3 == "_etext" { print $1; exit }' /proc/kallsyms)
# Kernel samples: ip in [_text, _etext); module samples: in perf_testmod.
nk=0 nm=0 nu=0
msize=$(awk '$1 == "perf_testmod" { print $2 }' /proc/modules)
while read -r ip sym rest; do
	a=$((0x$ip))
	if [ $a -ge $((0x$text)) ] && [ $a -lt $((0x$etext)) ]; then
		nk=$((nk + 1))
		[ "$sym" = "[unknown]" ] && nu=$((nu + 1))
	elif [ $a -ge $(($mbase)) ] && [ $a -lt $(($mbase + msize)) ]; then
		nm=$((nm + 1))
		case $sym in perf_testmod_*) ;; *) fail "module sample $ip resolved to '$sym'" ;; esac
	fi
done <samples.txt
echo "$nk kernel samples ($nu unresolved), $nm perf_testmod samples"
[ $nk -ge 20 ] || fail "only $nk kernel samples"
[ $nu = 0 ] || fail "$nu kernel samples did not resolve through /proc/kallsyms"
[ $nm -ge 5 ] || fail "only $nm samples in perf_testmod"

echo "== build-ids in perf.data (for reporting elsewhere)"
perf buildid-list -i perf.data >buildids.txt 2>&1
cat buildids.txt
# The header's build-id table must name the module that was hit, with the
# build-id of the loaded module (the GNU note in /sys/module/*/notes).
nh=$(od -A n -v -t x1 /sys/module/perf_testmod/notes/.note.gnu.build-id | tr -d ' \n')
nsz=$((0x$(echo "$nh" | cut -c1-2))) dsz=$((0x$(echo "$nh" | cut -c9-10)))
o=$((2 * (12 + (nsz + 3) / 4 * 4)))
mbid=$(echo "$nh" | cut -c$((o + 1))-$((o + 2 * dsz)))
[ -n "$mbid" ] || fail "cannot read the build-id of perf_testmod from /sys/module/perf_testmod/notes"
hbid=$(awk '$2 == "[perf_testmod]" || $2 ~ /\/perf_testmod\.ko$/ { print $1 }' buildids.txt)
[ "$hbid" = "$mbid" ] ||
	fail "perf.data's build-id table has '$hbid' for perf_testmod, the loaded module is $mbid"
echo "perf_testmod: build-id $mbid in the header"

cp perf.data samples.txt script-mmap.txt "$ARTIFACTS/"
cp /proc/kallsyms "$ARTIFACTS/kallsyms"
cp /proc/modules "$ARTIFACTS/modules"
echo "$text" >"$ARTIFACTS/text"
cat /proc/cmdline >"$ARTIFACTS/cmdline"
od -A n -v -t x1 /sys/kernel/notes | tr -d ' \n' >"$ARTIFACTS/notes.hex"
echo "kernel mmap pgoff == runtime _text 0x$text; artifacts for the host left"
