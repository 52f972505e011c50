#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf buildid-cache --kcore /proc/kcore, with the test module loaded:
# - the copy is ~/.debug/[kernel.kcore]/<build-id>/<YYYYmmddHHMMSShh>/ with
#   kcore, kallsyms and modules; the build-id is the running kernel's
#   (from /sys/kernel/notes);
# - kallsyms and modules are byte-identical to /proc's;
# - kcore is an ELF core file with one PT_LOAD for the kernel text and one
#   for the modules, which cover _stext.._etext and the test module's
#   functions by the cached kallsyms, and whose bytes equal /proc/kcore's at
#   the same addresses;
# - a second run with the same modules makes no copy and says so with -v;
# - loading a second module, or unloading one, makes a new timestamped copy.
# Copies of the cached files are left in $ARTIFACTS for host-side checks.

W=/tmp/kcore-cache
rm -rf $W && mkdir -p $W/home && cd $W || exit 1
export HOME=$W/home
KC="$HOME/.debug/[kernel.kcore]"

fail() { echo "FAIL: $*"; exit 1; }
hex() { printf '%x' "$1"; }

# The running kernel's build-id, from the GNU note in /sys/kernel/notes.
kernel_build_id() {
	od -A n -v -t x1 /sys/kernel/notes | awk '
	{ for (i = 1; i <= NF; i++) b[n++] = $i }
	function hexval(s,  i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	END {
		o = 0
		while (o + 12 <= n) {
			nsz = hexval(b[o+3] b[o+2] b[o+1] b[o])
			dsz = hexval(b[o+7] b[o+6] b[o+5] b[o+4])
			type = hexval(b[o+11] b[o+10] b[o+9] b[o+8])
			name = ""
			for (i = 0; i < nsz - 1; i++)
				name = name sprintf("%c", hexval(b[o+12+i]))
			d = o + 12 + int((nsz + 3) / 4) * 4
			if (type == 3 && name == "GNU") {
				s = ""
				for (i = 0; i < dsz; i++)
					s = s b[d+i]
				print s
				exit
			}
			o = d + int((dsz + 3) / 4) * 4
		}
	}'
}

# ELF64 little-endian readers: u FILE OFFSET BYTES prints the value as a
# (wrapping) 64-bit shell number.
u() {
	_v=$(od -A n -t x"$3" -j "$2" -N "$3" "$1" | tr -d ' \n')
	[ -n "$_v" ] || return 1
	echo $((0x$_v))
}

# phdrs FILE: one line per program header: type offset vaddr filesz memsz
phdrs() {
	[ "$(od -A n -t x1 -N 4 "$1" | tr -d ' ')" = 7f454c46 ] ||
		{ echo "$1 is not an ELF file" >&2; return 1; }
	[ "$(u "$1" 4 1)" = 2 ] || { echo "$1 is not ELFCLASS64" >&2; return 1; }
	_phoff=$(u "$1" 32 8) _phentsize=$(u "$1" 54 2) _phnum=$(u "$1" 56 2)
	[ "$_phentsize" = 56 ] || { echo "$1: e_phentsize $_phentsize" >&2; return 1; }
	_i=0
	while [ $_i -lt "$_phnum" ]; do
		_o=$((_phoff + _i * 56))
		echo "$(u "$1" $_o 4) $(u "$1" $((_o + 8)) 8) $(u "$1" $((_o + 16)) 8)" \
		     "$(u "$1" $((_o + 32)) 8) $(u "$1" $((_o + 40)) 8)"
		_i=$((_i + 1))
	done
}

# Kernel addresses are negative as signed 64-bit numbers, but all in the
# same half, so signed comparisons order them correctly.
in_range() {	# addr end start len: [addr, end) inside [start, start + len)
	[ "$1" -ge "$3" ] && [ "$2" -le $(($3 + $4)) ] && [ "$1" -lt "$2" ]
}

ksym() {	# kallsyms-file name [module]: the address of a text symbol
	awk -v n="$2" -v m="${3:+[$3]}" '
	$3 == n && ($2 ~ /^[tTwW]$/) && ((m == "" && NF == 3) || $4 == m) { print $1; exit }' "$1"
}

copies() { ls -d "$KC"/*/* 2>/dev/null; }

lsmod | grep -q '^perf_testmod ' || insmod "$MODULES/perf_testmod.ko" ||
	fail "cannot load perf_testmod"
rmmod perf_testmod2 2>/dev/null
kptr=$(cat /proc/sys/kernel/kptr_restrict)
echo 0 >/proc/sys/kernel/kptr_restrict
trap 'echo $kptr >/proc/sys/kernel/kptr_restrict' EXIT

bid=$(kernel_build_id)
echo "running kernel build-id (/sys/kernel/notes): $bid"
[ ${#bid} = 40 ] || fail "could not read the build-id from /sys/kernel/notes"

echo "== first copy"
before=$(date +%Y%m%d%H%M%S)
perf buildid-cache -v --kcore /proc/kcore >out1 2>&1
rc=$?
after=$(date +%Y%m%d%H%M%S)
cat out1
[ $rc = 0 ] || fail "perf buildid-cache --kcore /proc/kcore exited $rc"
ls -l "$KC"/*/* 2>&1
n=$(copies | wc -l)
[ "$n" = 1 ] || fail "expected one copy under $KC, found $n"
dir=$(copies)
b=$(basename "$(dirname "$dir")") ts=$(basename "$dir")
[ "$b" = "$bid" ] || fail "the cache directory's build-id $b is not the running kernel's $bid"
echo "$ts" | grep -Eq '^[0-9]{16}$' || fail "$ts is not YYYYmmddHHMMSShh"
awk -v t="${ts%??}" -v a="$before" -v b="$after" 'BEGIN { exit !(a <= t && t <= b) }' ||
	fail "timestamp $ts is not between $before and $after"
[ "$(ls "$dir" | sort | tr '\n' ' ')" = "kallsyms kcore modules " ] ||
	fail "$dir holds $(ls "$dir" | tr '\n' ' '), not kallsyms kcore modules"
grep -qF "$dir" out1 || fail "-v did not name the new directory $dir"

echo "== kallsyms and modules are /proc's"
cmp "$dir/kallsyms" /proc/kallsyms || fail "cached kallsyms differs from /proc/kallsyms"
cmp "$dir/modules" /proc/modules || fail "cached modules differs from /proc/modules"
grep -q '^perf_testmod ' "$dir/modules" || fail "cached modules lacks perf_testmod"

echo "== the cached kcore's ELF layout"
k=$dir/kcore
[ "$(u "$k" 16 2)" = 4 ] || fail "kcore's e_type is $(u "$k" 16 2), not ET_CORE (4)"
phdrs "$k" >cached.phdrs || fail "cannot parse $k"
phdrs /proc/kcore >proc.phdrs || fail "cannot parse /proc/kcore"
while read -r t o v f m; do
	echo "  type $t offset 0x$(hex $o) vaddr 0x$(hex $v) filesz 0x$(hex $f) memsz 0x$(hex $m)"
done <cached.phdrs
nload=$(awk '$1 == 1' cached.phdrs | wc -l)
nall=$(wc -l <cached.phdrs)
[ "$nload" = 2 ] || fail "the cached kcore has $nload PT_LOAD segments, expected 2 (kernel text, modules)"
[ "$nall" = 2 ] || fail "the cached kcore has $nall program headers, expected 2 PT_LOADs only"

stext=$(($(printf '0x%s' "$(ksym "$dir/kallsyms" _stext)")))
etext=$(($(printf '0x%s' "$(ksym "$dir/kallsyms" _etext)")))
[ "$stext" != 0 ] && [ "$etext" != 0 ] || fail "no _stext/_etext in the cached kallsyms"
kseg= mseg=
while read -r t o v f m; do
	[ "$t" = 1 ] || continue
	[ "$f" = "$m" ] || fail "segment at 0x$(hex $v): filesz 0x$(hex $f) != memsz 0x$(hex $m)"
	if in_range $stext $etext $v $f; then
		kseg="$o $v $f"
	else
		mseg="$o $v $f"
	fi
done <cached.phdrs
[ -n "$kseg" ] || fail "no segment covers _stext..._etext (0x$(hex $stext)..0x$(hex $etext))"
echo "kernel text segment covers _stext..._etext: 0x$(hex $stext)..0x$(hex $etext)"
[ -n "$mseg" ] || fail "no second segment for the modules"
set -- $mseg
mo=$1 mv=$2 mf=$3
modfuncs=$(awk '$4 == "[perf_testmod]" && $2 ~ /^[tT]$/ { print $3 }' "$dir/kallsyms")
[ -n "$modfuncs" ] || fail "no perf_testmod functions in the cached kallsyms"
for fn in $modfuncs; do
	a=$(($(printf '0x%s' "$(ksym "$dir/kallsyms" "$fn" perf_testmod)")))
	in_range $a $((a + 16)) $mv $mf ||
		fail "module segment 0x$(hex $mv)+0x$(hex $mf) does not cover $fn at 0x$(hex $a)"
	echo "module segment covers $fn at 0x$(hex $a)"
done
for fn in perf_testmod_spin perf_testmod_work; do
	echo "$modfuncs" | grep -qx $fn || fail "$fn is not in the cached kallsyms"
done

# Bytes at the same addresses in /proc/kcore: the whole of both segments,
# and explicitly the test module's hot functions and a few kernel ones.
srcoff() {	# vaddr len: /proc/kcore file offset holding [vaddr, vaddr + len)
	while read -r t o v f m; do
		[ "$t" = 1 ] && in_range $1 $(($1 + $2)) $v $f && { echo $((o + $1 - v)); return 0; }
	done <proc.phdrs
	return 1
}
extract() {	# file offset len out
	dd if="$1" of="$4" bs=65536 iflag=skip_bytes,count_bytes skip="$2" count="$3" 2>/dev/null
	[ "$(wc -c <"$4")" = "$3" ]
}
compare() {	# label vaddr len (vaddr inside a cached segment)
	_co=
	for s in "$kseg" "$mseg"; do
		set -- $s
		if in_range "$cv" $((cv + cl)) $2 $3; then _co=$(($1 + cv - $2)); break; fi
	done
	[ -n "$_co" ] || fail "$cl bytes at 0x$(hex $cv) ($clabel) are not in a cached segment"
	_so=$(srcoff $cv $cl) || fail "0x$(hex $cv) ($clabel) is not in /proc/kcore"
	extract "$k" $_co $cl cached.bin || fail "short read of $k for $clabel"
	extract /proc/kcore $_so $cl proc.bin || fail "short read of /proc/kcore for $clabel"
	if ! cmp -s cached.bin proc.bin; then
		cmp -l cached.bin proc.bin | head -5
		fail "$clabel: $cl bytes at 0x$(hex $cv) differ from /proc/kcore ($(cmp -l cached.bin proc.bin | wc -l) bytes)"
	fi
	echo "$clabel: $cl bytes at 0x$(hex $cv) equal /proc/kcore's"
}
set -- $mseg; clabel="module segment" cv=$2 cl=$3; compare
set -- $kseg; clabel="kernel text segment" cv=$2 cl=$3; compare
for fn in perf_testmod_work perf_testmod_spin; do
	clabel=$fn cv=$(($(printf '0x%s' "$(ksym "$dir/kallsyms" $fn perf_testmod)"))) cl=64
	compare
done
# Kernel functions at a quarter, half and three quarters of the text.
awk -v s="$(ksym "$dir/kallsyms" _stext)" -v e="$(ksym "$dir/kallsyms" _etext)" '
	NF == 3 && $2 ~ /^[tT]$/ && $1 > s && $1 < e { n[c++] = $3 }
	END { print n[int(c / 4)], n[int(c / 2)], n[int(3 * c / 4)] }' "$dir/kallsyms" >kfuncs
for fn in $(cat kfuncs); do
	clabel=$fn cv=$(($(printf '0x%s' "$(ksym "$dir/kallsyms" $fn)"))) cl=64
	compare
done
cp "$dir/kcore" "$dir/kallsyms" "$dir/modules" "$ARTIFACTS/" 2>/dev/null
echo "$bid" >"$ARTIFACTS/build-id"

echo "== a second run with the same modules makes no copy"
perf buildid-cache -v --kcore /proc/kcore >out2 2>&1
rc=$?
cat out2
[ $rc = 0 ] || fail "second run exited $rc"
[ "$(copies | wc -l)" = 1 ] || fail "second run made another copy: $(copies)"
grep -F "$dir" out2 | grep -qi same || fail "-v did not say that the same kcore is in $dir"

echo "== loading perf_testmod2 makes a new copy"
insmod "$MODULES/perf_testmod2.ko" || fail "cannot load perf_testmod2"
sleep 1
perf buildid-cache -v --kcore /proc/kcore >out3 2>&1
rc=$?
cat out3
[ $rc = 0 ] || fail "run after loading perf_testmod2 exited $rc"
[ "$(copies | wc -l)" = 2 ] || fail "expected 2 copies after loading perf_testmod2: $(copies)"
dir2=$(copies | grep -vxF "$dir")
grep -qF "$dir2" out3 || fail "-v did not name the new copy $dir2"
cmp "$dir2/modules" /proc/modules || fail "new copy's modules differs from /proc/modules"
grep -q '^perf_testmod2 ' "$dir2/modules" || fail "new copy's modules lacks perf_testmod2"
awk -v a="$(basename "$dir")" -v b="$(basename "$dir2")" 'BEGIN { exit !(b > a) }' || fail "new copy $dir2 is not later than $dir"
phdrs "$dir2/kcore" >cached2.phdrs && [ "$(awk '$1 == 1' cached2.phdrs | wc -l)" = 2 ] ||
	fail "new copy's kcore does not have 2 PT_LOADs"

echo "== unloading perf_testmod makes a new copy"
rmmod perf_testmod || fail "cannot unload perf_testmod"
sleep 1
perf buildid-cache -v --kcore /proc/kcore >out4 2>&1
rc=$?
cat out4
[ $rc = 0 ] || fail "run after unloading perf_testmod exited $rc"
[ "$(copies | wc -l)" = 3 ] || fail "expected 3 copies after unloading perf_testmod: $(copies)"
dir3=$(copies | grep -vxF "$dir" | grep -vxF "$dir2")
cmp "$dir3/modules" /proc/modules || fail "third copy's modules differs from /proc/modules"
grep -q '^perf_testmod ' "$dir3/modules" && fail "third copy's modules still lists perf_testmod"

echo "== and the same set again is found, not copied"
perf buildid-cache -v --kcore /proc/kcore >out5 2>&1 || fail "run 5 exited $?"
cat out5
[ "$(copies | wc -l)" = 3 ] || fail "an unchanged module set made a fourth copy"
grep -F "$dir3" out5 | grep -qi same || fail "-v did not say that the same kcore is in $dir3"

rmmod perf_testmod2
insmod "$MODULES/perf_testmod.ko"
echo "kcore cache: layout, contents, dedup and new copies all as expected"
