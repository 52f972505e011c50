#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf record -a while kptr_restrict hides kernel addresses: as root with
# kptr_restrict=2, and as a non-root user with kptr_restrict=1. In both:
# - perf record succeeds and warns that the kernel address maps are
#   restricted;
# - no kernel mmap record is made, as there is no address to put in it;
#   the header says instead that the kernel's address is unknown
#   (HEADER_KERNEL_ADDR_UNKNOWN), in a file and in a pipe, in a feature
#   that older perf skips;
# - perf report says why kernel symbols cannot be resolved (kptr_restrict)
#   and that they cannot be relocated;
# - no kernel sample resolves to a wrong symbol: each is either unresolved
#   or the symbol that /proc/kallsyms (read unrestricted, before) has there.
# Each perf.data is left in $ARTIFACTS/<case>/ for
# scripts/tests/host/kaslr-restrict.sh, which reports it with the vmlinux,
# with a copy converted by perf inject --convert-mmap3 for the base's perf.

W=/tmp/kaslr-restrict
rm -rf $W && mkdir -p $W && cd $W || exit 1

fail() { echo "FAIL: $*"; exit 1; }

kptr=$(cat /proc/sys/kernel/kptr_restrict)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
restore() {
	echo "$kptr" >/proc/sys/kernel/kptr_restrict
	echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
}
trap restore EXIT
lsmod | grep -q '^perf_testmod ' || insmod "$MODULES/perf_testmod.ko" ||
	fail "cannot load perf_testmod"

# The truth, read before anything is restricted.
echo 0 >/proc/sys/kernel/kptr_restrict
cp /proc/kallsyms $W/kallsyms.true
text=$(awk '$3 == "_text" { print $1; exit }' $W/kallsyms.true)
etext=$(awk '$3 == "_etext" { print $1; exit }' $W/kallsyms.true)
[ -n "$text" ] && [ "$text" != 0000000000000000 ] || fail "cannot read _text"

# check_samples SAMPLES: every kernel sample (ip in [_text, _etext)) is
# [unknown] or one of the names kallsyms.true has at the start of the
# symbol that contains ip. 16-digit hex strings sort like their values.
check_samples() {
	awk -v t="$text" -v e="$etext" '
	FILENAME == ARGV[1] {
		if (NF == 3 && $2 ~ /^[tTwW]$/ && $1 >= t && $1 < e) print $1, "S", $3
		next
	}
	{
		ip = sprintf("%16s", $1); gsub(/ /, "0", ip)
		if (ip >= t && ip < e) print ip, "X", $2
	}' $W/kallsyms.true "$1" | LC_ALL=C sort -k1,1 -k2,2 -s | awk '
	$2 == "S" {
		if ($1 != addr) { addr = $1; names = " " }
		names = names $3 " "
		next
	}
	{
		n++
		if ($3 == "[unknown]") { unk++; next }
		if (index(names, " " $3 " ")) { good++; next }
		bad++
		if (bad <= 5) printf "wrong symbol: %s resolved to %s, kallsyms has%sthere\n", $1, $3, names
	}
	END {
		printf "%d kernel samples: %d unresolved, %d right, %d wrong\n", n, unk, good, bad
		if (n < 20) { print "too few kernel samples"; exit 1 }
		exit bad > 0
	}'
}

# as_user COMMAND...: run it as uid 1000 ("user"), with our environment
# (PATH: our perf). setpriv, not su: no account and no PAM needed.
as_user() { setpriv --reuid=1000 --regid=1000 --clear-groups "$@"; }

# run_case NAME USER KPTR_RESTRICT
run_case() {
	name=$1 user=$2
	d=$W/$name
	mkdir -p $d && chmod 777 $d
	echo "== $name: kptr_restrict=$3, perf record -a as $user"
	echo "$3" >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	cmd="cd $d && HOME=$d perf record -a -e cpu-clock -o $d/perf.data -- \
		sh -c 'dd if=/dev/zero of=/dev/null bs=64k count=3000 2>/dev/null' >$d/record.log 2>&1"
	if [ "$user" = root ]; then sh -c "$cmd"; else as_user sh -c "$cmd"; fi
	rc=$?
	cat $d/record.log
	[ $rc = 0 ] || fail "$name: perf record exited $rc"
	[ "$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)" = 0000000000000000 ] ||
		[ "$user" != root ] || fail "$name: /proc/kallsyms still shows _text"
	grep -q 'restricted' $d/record.log && grep -q 'kptr_restrict' $d/record.log ||
		fail "$name: perf record did not warn that kernel addresses are restricted"

	cmd="cd $d && HOME=$d perf script -i $d/perf.data --show-mmap-events >$d/mmap.txt 2>&1 &&
	     HOME=$d perf report -i $d/perf.data --header-only >$d/header.txt 2>&1 &&
	     HOME=$d perf report -i $d/perf.data --stdio --sort sym >$d/report.txt 2>&1 &&
	     HOME=$d perf script -i $d/perf.data -F ip,sym >$d/samples.txt 2>$d/samples.err &&
	     HOME=$d perf inject --convert-mmap3 -i $d/perf.data -o $d/perf.data.mmap2 &&
	     HOME=$d perf report -i $d/perf.data.mmap2 --header-only >$d/header.mmap2.txt 2>&1"
	if [ "$user" = root ]; then sh -c "$cmd"; else as_user sh -c "$cmd"; fi
	rc=$?
	[ $rc = 0 ] || { cat $d/*.txt $d/samples.err; fail "$name: perf script/report/inject exited $rc"; }
	if grep -E 'PERF_RECORD_MMAP.*\[kernel\.kallsyms\]' $d/mmap.txt ; then
		fail "$name: a kernel mmap record was made without the kernel's address"
	fi
	for h in header header.mmap2; do
		grep -q '^# kernel address: unknown' $d/$h.txt ||
			{ cat $d/$h.txt; fail "$name: the $h does not say that the kernel's address is unknown"; }
	done
	echo "no kernel mmap record; the header says that the kernel's address is unknown"
	# The same in a pipe, where the feature comes as a record of its own.
	cmd="cd $d && HOME=$d perf record -a -e cpu-clock -o - -- sleep 0.2 2>$d/record.pipe.log |
	     HOME=$d perf report -i - --header-only >$d/header.pipe.txt 2>&1"
	if [ "$user" = root ]; then sh -c "$cmd"; else as_user sh -c "$cmd"; fi
	rc=$?
	grep -q '^# kernel address: unknown' $d/header.pipe.txt ||
		{ cat $d/record.pipe.log $d/header.pipe.txt; fail "$name: a pipe does not say that the kernel's address is unknown (rc $rc)"; }
	echo "the same in a pipe"
	sed -n '1,/^#/p' $d/report.txt | grep -v '^#'
	grep -q 'restricted' $d/report.txt && grep -q 'kptr_restrict' $d/report.txt ||
		fail "$name: perf report did not say why kernel symbols cannot be resolved"
	grep -q 'relocat' $d/report.txt ||
		fail "$name: perf report did not say that kernel symbols cannot be relocated"
	check_samples $d/samples.txt || fail "$name: kernel samples resolved to wrong symbols"
	echo 0 >/proc/sys/kernel/kptr_restrict
	mkdir -p "$ARTIFACTS/$name"
	cp $d/perf.data $d/perf.data.mmap2 $d/samples.txt "$ARTIFACTS/$name/"
}

run_case root-kptr2 root 2
run_case user-kptr1 user 1
cp $W/kallsyms.true "$ARTIFACTS/kallsyms"
echo "$text" >"$ARTIFACTS/text"
echo "restricted recordings have no kernel map, and say why; report says why; no wrong symbols"
