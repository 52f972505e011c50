#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The perf.data files that scripts/tests/guest/kaslr-restrict.sh recorded
# while kptr_restrict hid kernel addresses carry no kernel map, and say in
# their header that the kernel's address is unknown. Reported on this host:
# - by our perf without --vmlinux: no wrong kernel symbols (each kernel
#   sample is either unresolved or the symbol the guest's unrestricted
#   kallsyms has there), and perf report says why;
# - by our perf with --vmlinux: the vmlinux is used as is, unrelocated,
#   with a warning that it can't be relocated;
# - by the base's perf without the series (make perf-stock), on the copy
#   converted by perf inject --convert-mmap3, with and without --vmlinux:
#   no wrong kernel symbols. It skips the header feature it doesn't know,
#   and finds no kernel map.
#
# The guest's KASLR offset puts most runtime addresses past the end of the
# vmlinux's text, where an unrelocated lookup finds nothing, right or wrong.
# So each recording is also reported with the vmlinux moved (objcopy
# --change-addresses, same build-id) to 2 MiB below where the guest's kernel
# ran, as if KASLR had moved it by 2 MiB only: a perf that resolved runtime
# addresses with link-time ones would print wrong symbols there.
#
# perf runs in a mount namespace where /proc/kallsyms is a plausible but
# wrong one (the guest's moved by 2 MiB, as another KASLR offset would put
# it), so that using this host's running kernel for the recorded one shows.
set -u

fail() { echo "FAIL: $*"; exit 1; }

VMLINUX=$KBUILD/vmlinux
A=$RUN/artifacts/kaslr-restrict
[ -f "$VMLINUX" ] || fail "no $VMLINUX"
[ -f "$A/kallsyms" ] || fail "no artifacts from the guest's kaslr-restrict"
STOCK=$OBJ/perf-stock/perf
[ -x "$STOCK" ] || fail "no $STOCK: make perf-stock"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home"

python3 - "$A/kallsyms" >"$tmp/kallsyms.wrong" <<'EOF'
import sys
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) == 3:
        a = int(f[0], 16)
        if a:
            a = (a + (2 << 20)) % (1 << 64)
        print('%016x %s %s' % (a, f[1], f[2]))
EOF
poison=0
unshare -m true 2>/dev/null && poison=1
# host_perf PERF ARGS...
host_perf() {
	if [ $poison = 1 ]; then
		unshare -m bash -c 'mount --bind "$0" /proc/kallsyms &&
			{ [ ! -e /proc/modules ] || mount --bind /dev/null /proc/modules; } &&
			exec "$@"' "$tmp/kallsyms.wrong" env HOME="$tmp/home" "$@"
	else
		env HOME="$tmp/home" "$@"
	fi
}
[ $poison = 1 ] || echo "note: cannot bind a wrong /proc/kallsyms (no unshare -m); using the host's"

# The vmlinux linked 2 MiB below the guest's runtime _text.
rt_text=$(cat "$A/text")
vm_text=$(nm "$VMLINUX" | awk '$3 == "_text" { print $1 }')
[ -n "$rt_text" ] && [ -n "$vm_text" ] || fail "cannot read the runtime or the vmlinux _text"
delta=$(python3 -c "print(hex((int('$rt_text', 16) - int('$vm_text', 16) - (2 << 20)) % (1 << 64)))")
echo "runtime _text 0x$rt_text, vmlinux _text 0x$vm_text: the near vmlinux is moved by $delta"
objcopy --change-addresses="$delta" "$VMLINUX" "$tmp/vmlinux.near" 2>"$tmp/objcopy.err" ||
	{ cat "$tmp/objcopy.err"; fail "objcopy --change-addresses failed"; }
near_text=$(nm "$tmp/vmlinux.near" | awk '$3 == "_text" { print $1 }')
[ "$(python3 -c "print(int('$rt_text', 16) - int('$near_text', 16))")" = $((2 << 20)) ] ||
	fail "the near vmlinux has _text at 0x$near_text, not 2 MiB below 0x$rt_text"
[ "$(readelf -n "$tmp/vmlinux.near" | awk '/Build ID:/ { print $3; exit }')" = \
  "$(readelf -n "$VMLINUX" | awk '/Build ID:/ { print $3; exit }')" ] ||
	fail "objcopy changed the build-id"

# report NAME PERF DATA [--vmlinux FILE]: perf report's output in
# $tmp/report.txt; n, unk, good and bad: how many kernel samples perf
# script shows, unresolved, right and wrong.
report() {
	local name=$1 perf=$2 data=$3
	shift 3
	[ -f "$data" ] || fail "$name: no ${data#$A/}"
	host_perf "$perf" report -i "$data" "$@" --stdio --sort sym >"$tmp/report.txt" 2>&1 ||
		{ cat "$tmp/report.txt"; fail "$name: perf report failed"; }
	sed -n '1,/^#/p' "$tmp/report.txt" | grep -v '^#'
	grep -v '^#' "$tmp/report.txt" | grep -v '^$' | grep '\[k\]' | head -3
	host_perf "$perf" script -i "$data" "$@" -F ip,sym >"$tmp/host.txt" 2>/dev/null ||
		fail "$name: perf script failed"
	python3 - "$A/kallsyms" "$tmp/host.txt" >"$tmp/counts" <<'EOF' || fail "$name: cannot count the kernel samples"
import bisect, sys
syms = {}
text = etext = None
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) != 3:
        continue
    a = int(f[0], 16)
    if f[2] == '_text': text = a
    if f[2] == '_etext': etext = a
    if f[1] in 'tTwW':
        syms.setdefault(a, set()).add(f[2])
addrs = sorted(syms)
n = unk = good = bad = 0
for l in open(sys.argv[2]):
    f = l.split()
    ip = int(f[0], 16)
    if not text <= ip < etext:
        continue
    n += 1
    s = f[1] if len(f) > 1 else '[unknown]'
    if s == '[unknown]':
        unk += 1
        continue
    a = addrs[bisect.bisect_right(addrs, ip) - 1]
    if s in syms[a]:
        good += 1
    else:
        bad += 1
        if bad <= 3:
            print('  wrong: %x resolved to %s; kallsyms has %s there' % (ip, s, ' '.join(syms[a])), file=sys.stderr)
print(n, unk, good, bad)
EOF
	read -r n unk good bad <"$tmp/counts"
	echo "$n kernel samples: $unk unresolved, $good right, $bad wrong"
	[ "$n" -ge 20 ] || fail "$name: too few kernel samples ($n)"
}

rc=0
for c in root-kptr2 user-kptr1; do
	d=$A/$c
	echo "== $c, our perf, no --vmlinux"
	report "$c" "$PERF" "$d/perf.data"
	[ "$bad" = 0 ] || { echo "FAIL: $c: our perf: wrong kernel symbols"; rc=1; }
	grep -qiE 'restricted|kptr_restrict' "$tmp/report.txt" && grep -qi 'relocat' "$tmp/report.txt" ||
		{ echo "FAIL: $c: perf report does not say why the kernel cannot be relocated"; rc=1; }
	for v in vmlinux vmlinux.near; do
		vml=$VMLINUX
		[ $v = vmlinux ] || vml=$tmp/$v
		echo "== $c, our perf, --vmlinux $v: used as is, with a warning"
		report "$c" "$PERF" "$d/perf.data" --vmlinux "$vml"
		grep -q "can't be relocated" "$tmp/report.txt" ||
			{ echo "FAIL: $c: --vmlinux $v: no warning that it can't be relocated"; rc=1; }
		# The near vmlinux covers the runtime addresses: used, it resolves them.
		[ $v = vmlinux ] || [ "$((good + bad))" -gt 0 ] ||
			{ echo "FAIL: $c: --vmlinux $v was not used"; rc=1; }
	done
	for v in none vmlinux vmlinux.near; do
		case $v in
		none) vml=() ;;
		vmlinux) vml=(--vmlinux "$VMLINUX") ;;
		*) vml=(--vmlinux "$tmp/$v") ;;
		esac
		echo "== $c, the base's perf on the converted file, --vmlinux $v"
		report "$c" "$STOCK" "$d/perf.data.mmap2" "${vml[@]}"
		[ "$bad" = 0 ] || { echo "FAIL: $c: the base's perf, --vmlinux $v: wrong kernel symbols"; rc=1; }
	done
done
[ $rc = 0 ] && echo "no wrong kernel symbols from the restricted recordings, but with an explicit --vmlinux, which is warned about"
exit $rc
