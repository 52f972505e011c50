#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A second opinion on the kcore that perf buildid-cache --kcore made in the
# guest (scripts/tests/guest/kcore-cache.sh parses it with od): binutils'
# readelf must see an ELF64 core file with exactly two PT_LOAD segments, one
# covering _stext.._etext and one covering every perf_testmod function of
# the cached kallsyms; and the kallsyms and modules copies must list the
# test module.
set -u

fail() { echo "FAIL: $*"; exit 1; }

A=$RUN/artifacts/kcore-cache
[ -f "$A/kcore" ] || fail "the guest's kcore-cache left no kcore"
readelf -h "$A/kcore" | grep -E 'Class|Type'
readelf -h "$A/kcore" | grep -q 'Type: *CORE' || fail "readelf: not a core file"
readelf -h "$A/kcore" | grep -q 'Class: *ELF64' || fail "readelf: not ELF64"
readelf -lW "$A/kcore" | sed -n '/Program Headers/,$p'
grep -q '^perf_testmod ' "$A/modules" || fail "the cached modules lacks perf_testmod"

python3 - "$A/kcore" "$A/kallsyms" <<'EOF'
import struct, sys
f = open(sys.argv[1], 'rb').read()
phoff, = struct.unpack_from('<Q', f, 32)
phentsize, phnum = struct.unpack_from('<HH', f, 54)
segs = []
for i in range(phnum):
    t, fl, off, va, pa, fsz, msz, al = struct.unpack_from('<IIQQQQQQ', f, phoff + i * phentsize)
    if t != 1:
        sys.exit('program header %d has type %d, not PT_LOAD' % (i, t))
    if off + fsz > len(f):
        sys.exit('segment at %#x runs past the end of the file' % va)
    segs.append((va, va + fsz))
if len(segs) != 2:
    sys.exit('%d PT_LOAD segments, expected 2' % len(segs))
syms = {}
mod = []
for l in open(sys.argv[2]):
    x = l.split()
    if len(x) == 3:
        syms[x[2]] = int(x[0], 16)
    elif len(x) == 4 and x[3] == '[perf_testmod]' and x[1] in 'tT':
        mod.append((x[2], int(x[0], 16)))
def seg(a, b):
    return [s for s in segs if s[0] <= a and b <= s[1]]
k = seg(syms['_stext'], syms['_etext'])
if not k:
    sys.exit('no segment covers _stext.._etext %#x..%#x' % (syms['_stext'], syms['_etext']))
print('kernel text %#x..%#x in segment %#x..%#x' % (syms['_stext'], syms['_etext'], *k[0]))
if not mod:
    sys.exit('no perf_testmod functions in the cached kallsyms')
for name, a in mod:
    m = seg(a, a + 16)
    if not m or m == k:
        sys.exit('%s at %#x is not in the modules segment' % (name, a))
    print('%s at %#x in segment %#x..%#x' % (name, a, *m[0]))
EOF
[ $? = 0 ] || fail "the cached kcore's segments are wrong"
echo "readelf agrees: a core file with one segment for the kernel text and one for the modules"
