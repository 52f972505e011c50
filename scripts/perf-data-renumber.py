#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# perf-data-renumber.py FILE...: rewrite perf.data files recorded with the
# series' first MMAP3 numbers (attr bit 63, record type 63) to mainline's
# next free ones (attr bit 40, type 23), in place, without moving a byte:
# file mode (attrs section, data section) and pipe mode (HEADER_ATTR
# records), either byte order. perf now refuses attr bit 63 as reserved
# and skips type 63 as unknown, so files of the old numbers need this.
# Best effort on malformed (fuzzed) files: records are walked while their
# sizes make sense. Used on scripts/fuzz/seeds and scripts/fuzz/regress.
import struct, sys

E = '<'

def fix_flags(b, o):
    # uapi bit N is bit N of the u64 little-endian, bit 63 - N big-endian.
    old, new = (63, 40) if E == '<' else (0, 23)
    f = struct.unpack_from(E + 'Q', b, o)[0]
    if f >> old & 1:
        f = (f & ~(1 << old)) | (1 << new)
        struct.pack_into(E + 'Q', b, o, f)
        return 1
    return 0

def walk(b, o, end, stats):
    while o + 8 <= end:
        t, misc, sz = struct.unpack_from(E + 'IHH', b, o)
        if t == 63:
            struct.pack_into(E + 'I', b, o, 23); stats['types'] += 1
        elif t == 64 and o + 8 + 48 <= end:       # PERF_RECORD_HEADER_ATTR
            stats['bits'] += fix_flags(b, o + 8 + 40)
        if sz < 8:
            break
        o += sz

for path in sys.argv[1:]:
    b = bytearray(open(path, 'rb').read())
    stats = {'bits': 0, 'types': 0}
    if b[:8] not in (b'PERFILE2', b'2ELIFREP'):
        print(f'{path}: not a perf.data, left as is'); continue
    E = '<' if b[:8] == b'PERFILE2' else '>'
    size = struct.unpack_from(E + 'Q', b, 8)[0]
    if size == 16:
        walk(b, 16, len(b), stats)
    else:
        attr_size = struct.unpack_from(E + 'Q', b, 16)[0]
        a_off, a_sz, d_off, d_sz = struct.unpack_from(E + 'QQQQ', b, 24)
        if 48 <= attr_size < 4096:
            for o in range(a_off, min(a_off + a_sz, len(b)), attr_size):
                if o + 48 > len(b):
                    break
                stats['bits'] += fix_flags(b, o + 40)
        walk(b, d_off, min(d_off + d_sz, len(b)), stats)
    open(path, 'wb').write(b)
    print(f'{path}: {stats["bits"]} attrs, {stats["types"]} records')
