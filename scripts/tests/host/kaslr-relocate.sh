#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Relocation in report, away from the recording kernel. For the perf.data
# that scripts/tests/guest/kaslr-mmap.sh recorded in each boot:
# - the vmlinux is the kernel that ran (same build-id as the guest's
#   /sys/kernel/notes), and KASLR moved _text away from the vmlinux's;
# - the project's perf, on this host, with --vmlinux $KBUILD/vmlinux,
#   resolves every kernel sample (ip in _text.._etext) to the same
#   symbol+offset as the guest did through its /proc/kallsyms, or to
#   another name of the same address (the guest's kallsyms has the
#   guest's name there, the vmlinux the host's; e.g. native_safe_halt
#   starts where __sched_text_end and __cpuidle_text_start are);
# - perf.data's build-id table has the test module, perf_testmod, with the
#   build-id of the .ko that was built for it; given that .ko through the
#   build-id cache (as perf archive would carry it), the host resolves
#   every sample in the module to the same symbol+offset as the guest;
# - the host's own kernel is not used: perf runs in a mount namespace where
#   /proc/kallsyms is a plausible but wrong one (the guest's moved by 2 MiB)
#   and /proc/modules (if the host has one) is empty, and must not be affected by them;
# - KASLR moved the kernel in at least one boot, and the two boots used
#   different offsets, so that the relocation is not a no-op by luck. x86's
#   KASLR picks one of about 480 2 MiB slots for _text, and slot 0 is
#   vmlinux's own address: one boot in a few hundred is not moved, and that
#   boot is still checked (relocation by 0). Neither boot moved fails
#   (KASLR is off); the same non-zero offset twice is a skip.
set -u

fail() { echo "FAIL: $*"; exit 1; }

VMLINUX=$KBUILD/vmlinux
[ -f "$VMLINUX" ] || fail "no $VMLINUX"
[ -x "$PERF" ] || fail "no perf at $PERF"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

KO=$OBJ/tests/$(basename "$KBUILD")/testmod/perf_testmod.ko
[ -f "$KO" ] || fail "no $KO"
ko_bid=$(readelf -n "$KO" | awk '/Build ID:/ { print $3; exit }')
[ -n "$ko_bid" ] || fail "cannot read the build-id of $KO"
echo "perf_testmod.ko: build-id $ko_bid"
mkdir -p "$tmp/home"
HOME="$tmp/home" "$PERF" buildid-cache -a "$KO" || fail "perf buildid-cache -a $KO failed"

vm_text=$(nm "$VMLINUX" | awk '$3 == "_text" { print $1 }')
vm_bid=$(readelf -n "$VMLINUX" | awk '/Build ID:/ { print $3; exit }')
[ -n "$vm_text" ] && [ -n "$vm_bid" ] || fail "cannot read _text or the build-id of $VMLINUX"
echo "vmlinux: _text 0x$vm_text, build-id $vm_bid"

# The GNU build-id note in a hex dump of /sys/kernel/notes.
notes_build_id() {
	python3 - "$1" <<'EOF'
import struct, sys
b = bytes.fromhex(open(sys.argv[1]).read().strip())
o = 0
while o + 12 <= len(b):
    nsz, dsz, typ = struct.unpack_from('<III', b, o)
    name = b[o + 12:o + 12 + nsz].rstrip(b'\0')
    d = o + 12 + (nsz + 3) // 4 * 4
    if typ == 3 and name == b'GNU':
        print(b[d:d + dsz].hex())
        break
    o = d + (dsz + 3) // 4 * 4
EOF
}

# perf on this host, with a wrong /proc/kallsyms and an empty /proc/modules.
host_perf() {	# args...
	if [ "$poison" = 1 ]; then
		unshare -m bash -c 'mount --bind "$0" /proc/kallsyms &&
			{ [ ! -e /proc/modules ] || mount --bind /dev/null /proc/modules; } &&
			exec "$@"' "$tmp/kallsyms.wrong" env HOME="$tmp/home" "$PERF" "$@"
	else
		env HOME="$tmp/home" "$PERF" "$@"
	fi
}

offsets=()
for boot in 1 2; do
	if [ $boot = 1 ]; then a=$RUN/artifacts/kaslr-mmap; else a=$RUN2/artifacts/kaslr-mmap; fi
	echo "== boot $boot (${a#$RUN/})"
	[ -f "$a/perf.data" ] && [ -f "$a/samples.txt" ] ||
		fail "boot $boot left no perf.data (see the guest's kaslr-mmap log)"
	bid=$(notes_build_id "$a/notes.hex")
	[ "$bid" = "$vm_bid" ] || fail "boot $boot ran build-id $bid, $VMLINUX is $vm_bid"
	rt_text=$(cat "$a/text")
	rt_etext=$(awk '$3 == "_etext" { print $1; exit }' "$a/kallsyms")
	off=$(python3 -c "print(hex((int('$rt_text', 16) - int('$vm_text', 16)) % (1 << 64)))")
	echo "runtime _text 0x$rt_text, vmlinux _text 0x$vm_text: KASLR offset $off"
	[ "$off" != 0x0 ] ||
		echo "note: KASLR chose vmlinux's own address in this boot (cmdline: $(cat "$a/cmdline"))"
	offsets+=("$off")

	# A wrong kallsyms: the guest's, with every kernel address 2 MiB up.
	python3 - "$a/kallsyms" >"$tmp/kallsyms.wrong" <<'EOF'
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
	if unshare -m true 2>/dev/null; then
		poison=1
		host_perf version >/dev/null 2>&1 || poison=0
	fi
	[ $poison = 1 ] && echo "perf runs with a wrong /proc/kallsyms bound over the host's" ||
		echo "note: cannot bind a wrong /proc/kallsyms (no unshare -m); using the host's"

	# The build-id table in the header, not the mmap records.
	host_perf buildid-list -i "$a/perf.data" >"$tmp/buildids.txt" 2>&1
	hbid=$(awk '$2 == "[perf_testmod]" || $2 ~ /\/perf_testmod\.ko$/ { print $1 }' "$tmp/buildids.txt")
	[ "$hbid" = "$ko_bid" ] || { cat "$tmp/buildids.txt"; fail "boot $boot: perf.data's build-id table has '$hbid' for perf_testmod, $KO is $ko_bid"; }
	read -r mbase msize < <(awk '$1 == "perf_testmod" { print $6, $2 }' "$a/modules")
	[ -n "$mbase" ] || fail "boot $boot: perf_testmod is not in the guest's /proc/modules"

	host_perf script -i "$a/perf.data" --vmlinux "$VMLINUX" -F ip,sym,symoff \
		>"$tmp/host.txt" 2>"$tmp/host.err" || { cat "$tmp/host.err"; fail "perf script on the host failed"; }
	host_perf script -v -i "$a/perf.data" --vmlinux "$VMLINUX" -F ip 2>&1 >/dev/null |
		grep -E 'kallsyms|vmlinux' | sort -u | head -5
	nm "$VMLINUX" >"$tmp/vmlinux.nm"
	python3 - "$a/samples.txt" "$tmp/host.txt" "$rt_text" "$rt_etext" "$mbase" "$msize" \
		"$a/kallsyms" "$tmp/vmlinux.nm" "$off" <<'EOF' || fail "boot $boot: the host resolved kernel or module samples differently"
import sys
g = [l.split() for l in open(sys.argv[1])]
h = [l.split() for l in open(sys.argv[2])]
lo, hi = int(sys.argv[3], 16), int(sys.argv[4], 16)
mlo = int(sys.argv[5], 16)
mhi = mlo + int(sys.argv[6])
# The names at each address: the guest's kallsyms (runtime addresses) and
# the vmlinux's symbols moved by the KASLR offset.
def names(path, delta):
    at = {}
    for l in open(path):
        f = l.split()
        if len(f) >= 3:
            at.setdefault((int(f[0], 16) + delta) % (1 << 64), set()).add(f[2])
    return at
gat = names(sys.argv[7], 0)
hat = names(sys.argv[8], int(sys.argv[9], 16))
# guest sym+off and host sym+off name one symbol under two of its names
def alias(ip, gs, hs):
    try:
        gn, go = gs.rsplit('+', 1)
        hn, ho = hs.rsplit('+', 1)
        start = ip - int(go, 16)
    except ValueError:
        return False
    return go == ho and gn in gat.get(start, ()) and hn in hat.get(start, ())
aliases = {}
if len(g) != len(h):
    sys.exit('%d samples in the guest, %d on the host' % (len(g), len(h)))
# Per region (kernel text, perf_testmod): samples, resolved differently,
# functions the guest saw.
tally = {r: [0, 0, {}] for r in ('kernel', 'perf_testmod')}
nmod = hmod = 0
for x, y in zip(g, h):
    if x[0] != y[0]:
        sys.exit('sample order differs: %s / %s' % (x[0], y[0]))
    ip = int(x[0], 16)
    if mlo <= ip < mhi:
        r = 'perf_testmod'
    elif lo <= ip < hi:
        r = 'kernel'
    else:
        if ip >= 0xffff800000000000:
            nmod += 1
            hmod += y[1:] != ['[unknown]']
        continue
    t = tally[r]
    gs, hs = ' '.join(x[1:]), ' '.join(y[1:])
    t[0] += 1
    t[2][gs.split('+')[0]] = 1
    if gs != hs and r == 'kernel' and alias(ip, gs, hs):
        k = '%s = %s' % (gs.split('+')[0], hs.split('+')[0])
        aliases[k] = aliases.get(k, 0) + 1
    elif gs != hs:
        t[1] += 1
        if t[1] <= 10:
            print('  %s %s: guest %s, host %s' % (r, x[0], gs, hs))
n, bad, syms = tally['kernel']
ntm, badtm, tmsyms = tally['perf_testmod']
print('%d kernel samples in %d functions, %d resolved differently' % (n, len(syms), bad))
for k, c in sorted(aliases.items()):
    print('  %d resolved to another name of the same address: guest %s host' % (c, k))
print('%d perf_testmod samples in %s, %d resolved differently' % (ntm, ' '.join(sorted(tmsyms)), badtm))
print('(%d samples outside the kernel text and perf_testmod; the host resolved %d of them)' % (nmod, hmod))
if n < 20:
    sys.exit('too few kernel samples')
if ntm < 5:
    sys.exit('too few perf_testmod samples')
if bad or '[unknown]' in syms:
    sys.exit(1)
if badtm or '[unknown]' in tmsyms:
    sys.exit(1)
EOF
	paste -d' ' "$a/samples.txt" "$tmp/host.txt" | awk -v lo="$rt_text" '$1 >= lo' | sort | uniq -c |
		sort -rn | head -5 | sed 's/^/  guest|host: /'
done

echo "== KASLR offsets: boot 1 ${offsets[0]}, boot 2 ${offsets[1]}"
[ "${offsets[0]}${offsets[1]}" != 0x00x0 ] || fail "KASLR did not move the kernel in either boot"
if [ "${offsets[0]}" = "${offsets[1]}" ]; then
	echo "both boots resolved, but KASLR chose the same offset ${offsets[0]} twice: a second offset is not proven"
	exit 2
fi
echo "the unrelocated vmlinux and perf_testmod.ko resolve both boots' samples as the guest did"
