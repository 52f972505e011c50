#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The cached kcore in use: cache kcore with the test module loaded, record
# while its functions are hot, unload it; then
# - perf report --kallsyms <cache>/kallsyms resolves the module's samples
#   to perf_testmod_* functions, each the one the cached kallsyms has there;
# - perf report with no symbol option finds that cache by itself (-v says
#   "Using .../[kernel.kcore]/<build-id>/<ts>/kallsyms") and does the same;
# - and, as a control, --kallsyms /proc/kallsyms (the module gone) does not.

W=/tmp/kcore-report
rm -rf $W && mkdir -p $W/home && cd $W || exit 1
export HOME=$W/home

fail() { echo "FAIL: $*"; exit 1; }

kptr=$(cat /proc/sys/kernel/kptr_restrict)
echo 0 >/proc/sys/kernel/kptr_restrict
trap 'echo $kptr >/proc/sys/kernel/kptr_restrict' EXIT
# The cache must be perf's only source: perf takes a vmlinux, and module
# files, from /lib/modules/$(uname -r) before it (scripts/guest/init links
# them there). Hidden while this test runs.
lm=/lib/modules/$(uname -r)
if [ -e "$lm" ]; then
	mv "$lm" "$lm.hidden" &&
		trap 'mv "$lm.hidden" "$lm"; echo $kptr >/proc/sys/kernel/kptr_restrict' EXIT
fi
rmmod perf_testmod2 2>/dev/null
lsmod | grep -q '^perf_testmod ' || insmod "$MODULES/perf_testmod.ko" ||
	fail "cannot load perf_testmod"

perf buildid-cache -v --kcore /proc/kcore || fail "perf buildid-cache --kcore failed"
cache=$(ls -d "$HOME/.debug/[kernel.kcore]"/*/* | head -1)
[ -f "$cache/kallsyms" ] || fail "no cached kallsyms"
echo "cache: $cache"

perf record -a -e cpu-clock -o perf.data -- sh -c 'echo 800 >/proc/perf_testmod' ||
	fail "perf record failed"
mbase=$(awk '$1 == "perf_testmod" { print $6 }' /proc/modules)
msize=$(awk '$1 == "perf_testmod" { print $2 }' /proc/modules)
rmmod perf_testmod || fail "cannot unload perf_testmod"
grep -q perf_testmod /proc/kallsyms && fail "perf_testmod symbols still in /proc/kallsyms"
echo "perf_testmod was at $mbase, size $msize; now unloaded"

# check LABEL SAMPLES: every sample in the module's range resolves to the
# perf_testmod function that the cached kallsyms has at that address.
check() {
	awk -v b="$mbase" -v s="$msize" '
	function hexval(x,  i, v) {
		x = tolower(x); sub(/^0x/, "", x); v = 0
		for (i = 1; i <= length(x); i++)
			v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
		return v
	}
	# Kernel addresses differ from the module base only in the low bits:
	# offsets from the base are small enough for awk numbers.
	function pad(x) { x = sprintf("%16s", tolower(x)); gsub(/ /, "0", x); return x }
	function off(x) {
		x = pad(x)
		return substr(x, 1, 8) == hi ? hexval(substr(x, 9)) - base : -1
	}
	BEGIN { b = pad(substr(b, 3)); hi = substr(b, 1, 8); base = hexval(substr(b, 9)) }
	FILENAME == ARGV[1] {
		if ($4 == "[perf_testmod]" && $2 ~ /^[tT]$/) { a[++ns] = off($1); nm[ns] = $3 }
		next
	}
	{
		o = off($1)
		if (o < 0 || o >= s) next
		n++
		want = ""; best = -1
		for (i = 1; i <= ns; i++) if (a[i] <= o && a[i] > best) { best = a[i]; want = nm[i] }
		if ($2 == want) good++
		else if (bad++ < 5) printf "  %s resolved to %s, the cached kallsyms has %s\n", $1, $2, want
		hit[$2]++
	}
	END {
		for (f in hit) printf "  %s: %d\n", f, hit[f]
		printf "%d module samples, %d right\n", n, good
		exit !(n >= 5 && good == n)
	}' "$cache/kallsyms" "$1"
}

echo "== perf report --kallsyms $cache/kallsyms"
perf report -i perf.data --stdio --sort dso,sym --kallsyms "$cache/kallsyms" 2>&1 |
	grep -v '^#' | grep -v '^$' | head -8
perf report -i perf.data --stdio --sort sym --kallsyms "$cache/kallsyms" 2>/dev/null |
	grep -q 'perf_testmod_work' || fail "perf report --kallsyms <cache> does not show perf_testmod_work"
perf script -i perf.data -F ip,sym --kallsyms "$cache/kallsyms" >samples1.txt 2>err1 ||
	{ cat err1; fail "perf script --kallsyms <cache> failed"; }
check samples1.txt || fail "--kallsyms <cache>: module samples not resolved to their functions"

echo "== perf report finds the cache by itself"
perf report -i perf.data --stdio --sort sym -v >report2.txt 2>&1 || fail "perf report failed"
grep 'Using .* for symbols' report2.txt
grep -F "Using $cache/kallsyms for symbols" report2.txt >/dev/null ||
	fail "perf report did not use the cached kallsyms $cache/kallsyms"
grep -q 'perf_testmod_work' report2.txt || fail "perf report does not show perf_testmod_work"
perf script -i perf.data -F ip,sym >samples2.txt 2>err2 || { cat err2; fail "perf script failed"; }
check samples2.txt || fail "cache found by perf: module samples not resolved to their functions"

echo "== control: --kallsyms /proc/kallsyms, the module unloaded"
perf script -i perf.data -F ip,sym --kallsyms /proc/kallsyms >samples3.txt 2>/dev/null
if check samples3.txt >check3.txt; then
	cat check3.txt
	fail "the control resolved the unloaded module's samples: the check proves nothing"
fi
echo "(as expected, /proc/kallsyms no longer resolves them)"

insmod "$MODULES/perf_testmod.ko"
echo "samples in the unloaded module resolve through the cached kcore"
