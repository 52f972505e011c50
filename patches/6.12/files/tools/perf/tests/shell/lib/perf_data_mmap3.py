#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a small perf.data file with PERF_RECORD_MMAP3 records in it.

Used by the MMAP3 tests to get such files on a kernel that can't record
them, and to get malformed ones: a COMM, an MMAP3 of a given ELF file and
samples at its entry point, for one cpu-clock event with
sample_id_all. The mtime, inode and build id in the record come from the
file unless given. With --filename-offset, the record has fields of a
later kernel, that perf must skip, before the filename. With
--unknown-type, a record of a type that perf does not know comes first.

  perf_data_mmap3.py -o perf.data --path /usr/bin/true
  perf_data_mmap3.py -o bad.data --path /usr/bin/true --bad nonul
  perf_data_mmap3.py -o future.data --path /usr/bin/true --filename-offset 120
"""

import argparse
import os
import struct
import sys

PERF_RECORD_COMM = 3
PERF_RECORD_SAMPLE = 9
PERF_RECORD_MMAP3 = 23
PERF_RECORD_MISC_USER = 2

PERF_SAMPLE_IP = 1 << 0
PERF_SAMPLE_TID = 1 << 1
PERF_SAMPLE_TIME = 1 << 2
PERF_SAMPLE_PERIOD = 1 << 8

# perf_event_attr bitfield bits
ATTR_DISABLED = 0
ATTR_MMAP = 8
ATTR_COMM = 9
ATTR_TASK = 13
ATTR_SAMPLE_ID_ALL = 18
ATTR_MMAP3 = 40

ATTR_SIZE = 128
# The fields of the first version, what filename_offset is at least
PERF_MMAP3_SIZE_VER0 = 104
PERF_MMAP3_FILE_MTIME = 1 << 0
FILE_HEADER_SIZE = 104
PROT_READ, PROT_EXEC = 1, 4
MAP_PRIVATE = 2
NT_GNU_BUILD_ID = 3


def elf_info(path):
    """Return (entry, exec PT_LOAD (vaddr, offset, filesz), build id)."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF' or data[4] != 2:
        raise SystemExit(f'{path}: not a 64-bit ELF file')
    e = '<' if data[5] == 1 else '>'
    entry, phoff = struct.unpack_from(e + 'QQ', data, 24)
    phentsize, phnum = struct.unpack_from(e + 'HH', data, 54)
    text = None
    build_id = b''
    for i in range(phnum):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz = \
            struct.unpack_from(e + 'IIQQQQ', data, phoff + i * phentsize)
        if p_type == 1 and p_flags & 1 and text is None:        # PT_LOAD, PF_X
            text = (p_vaddr, p_offset, p_filesz)
        elif p_type == 4:                                      # PT_NOTE
            off, end = p_offset, p_offset + p_filesz
            while off + 12 <= end:
                namesz, descsz, ntype = struct.unpack_from(e + 'III', data, off)
                name_off = off + 12
                desc_off = name_off + ((namesz + 3) & ~3)
                if ntype == NT_GNU_BUILD_ID and \
                   data[name_off:name_off + namesz] == b'GNU\0':
                    build_id = data[desc_off:desc_off + descsz]
                off = desc_off + ((descsz + 3) & ~3)
    if text is None:
        raise SystemExit(f'{path}: no executable segment')
    return entry, text, build_id


class Writer:
    def __init__(self, big_endian):
        self.e = '>' if big_endian else '<'
        self.big_endian = big_endian
        self.events = []
        self.time = 1000

    def pack(self, fmt, *args):
        return struct.pack(self.e + fmt, *args)

    def sample_id(self, pid, tid):
        # PERF_SAMPLE_TID | PERF_SAMPLE_TIME, as sample_id_all asks for
        self.time += 1000
        return self.pack('IIQ', pid, tid, self.time)

    def add(self, etype, misc, body, size=None):
        if size is None:
            size = 8 + len(body)
        self.events.append(self.pack('IHH', etype, misc, size) + body)

    def comm(self, pid, comm):
        name = comm.encode()[:15].ljust(16, b'\0')
        self.add(PERF_RECORD_COMM, 0,
                 self.pack('II', pid, pid) + name + self.sample_id(pid, pid))

    def mmap3(self, pid, start, length, pgoff, st, mtime, build_id,
              filename, bad=None, filename_offset=PERF_MMAP3_SIZE_VER0):
        bid = build_id[:20]
        bid_size = len(build_id)
        if bad == 'bidsize':
            bid_size = 21 + len(build_id) % 200
        # What a later kernel would add before the filename
        later = b'\xee' * (filename_offset - PERF_MMAP3_SIZE_VER0)
        name = filename.encode() + b'\0'
        name = name.ljust(len(name) + (-(filename_offset + len(name)) % 8),
                          b'\0')
        size = filename_offset + len(name) + 16
        if bad == 'offsetsmall':
            # In build_id, that perf must not take for the filename
            filename_offset = PERF_MMAP3_SIZE_VER0 - 8
        elif bad == 'offsetbig':
            # At the end of the record
            filename_offset = size
        fixed = self.pack('IIQQQIIQQIIqBBH', pid, pid, start, length, pgoff,
                          os.major(st.st_dev), os.minor(st.st_dev),
                          st.st_ino, 0, PROT_READ | PROT_EXEC, MAP_PRIVATE,
                          mtime, bid_size, PERF_MMAP3_FILE_MTIME,
                          filename_offset) + \
            bid.ljust(20, b'\0')
        assert len(fixed) == PERF_MMAP3_SIZE_VER0 - 8
        if bad == 'nonul':
            # No NUL up to the sample_id trailer, nor in it
            name = name.replace(b'\0', b'A')
            body = fixed + later + name + \
                self.pack('IIQ', 0x41414141, 0x41414141, 0x4141414141414141)
        else:
            body = fixed + later + name + self.sample_id(pid, pid)
        assert len(body) + 8 == size
        if bad == 'short':
            # header.size says less than the fixed part
            self.add(PERF_RECORD_MMAP3, PERF_RECORD_MISC_USER, body[:32])
            return
        self.add(PERF_RECORD_MMAP3, PERF_RECORD_MISC_USER, body)

    def unknown(self, etype, pid):
        # What a newer kernel might write: 24 bytes, then the sample_id
        self.add(etype, PERF_RECORD_MISC_USER,
                 self.pack('QQQ', 1, 2, 3) + self.sample_id(pid, pid))

    def sample(self, pid, ip):
        self.time += 1000
        self.add(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
                 self.pack('QIIQQ', ip, pid, pid, self.time, 1))

    def attr(self):
        flags = 0
        for bit in (ATTR_DISABLED, ATTR_MMAP, ATTR_COMM, ATTR_TASK,
                    ATTR_SAMPLE_ID_ALL, ATTR_MMAP3):
            flags |= 1 << bit
        flags_bytes = struct.pack('<Q', flags)
        if self.big_endian:
            # What a big endian compiler does with the bitfields, see
            # perf_event__attr_swap()
            flags_bytes = bytes(int(f'{b:08b}'[::-1], 2) for b in flags_bytes)
        sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
            PERF_SAMPLE_PERIOD
        a = self.pack('IIQQQQ', 1, ATTR_SIZE, 0, 1, sample_type, 0) + \
            flags_bytes
        return a.ljust(ATTR_SIZE, b'\0')

    def write(self, path, truncate=False):
        data = b''.join(self.events)
        attr = self.attr() + self.pack('QQ', 0, 0)      # no ids
        attr_off = FILE_HEADER_SIZE
        data_off = attr_off + len(attr)
        hdr = self.pack('Q', 0x32454c4946524550)          # "PERFILE2"
        hdr += self.pack('QQ', FILE_HEADER_SIZE, len(attr))
        hdr += self.pack('QQ', attr_off, len(attr))
        hdr += self.pack('QQ', data_off, len(data))
        hdr += self.pack('QQ', 0, 0)                      # event_types
        hdr += bytes(32)                                  # no features
        assert len(hdr) == FILE_HEADER_SIZE
        out = hdr + attr + data
        if truncate:
            # Cut in the middle of the last record, the header still
            # says the data is all there
            out = out[:len(out) - len(self.events[-1]) // 2]
        with open(path, 'wb') as f:
            f.write(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('-o', '--output', required=True)
    ap.add_argument('--path', required=True, help='ELF file to map')
    ap.add_argument('--filename', help='filename in the record (default: --path)')
    ap.add_argument('--mtime', type=int, help='mtime in ns (default: from the file)')
    ap.add_argument('--build-id', help='hex, "none" for none (default: from the file)')
    ap.add_argument('--pid', type=int, default=4242)
    ap.add_argument('--comm', default='mmap3-test')
    ap.add_argument('--base', type=lambda x: int(x, 0), default=0x555555554000)
    ap.add_argument('--samples', type=int, default=100)
    ap.add_argument('--big-endian', action='store_true')
    ap.add_argument('--bad', choices=['short', 'bidsize', 'nonul', 'offsetsmall',
                                      'offsetbig', 'truncate'],
                    help='add a malformed MMAP3 record, or truncate the file')
    ap.add_argument('--filename-offset', type=int, default=PERF_MMAP3_SIZE_VER0,
                    help='filename_offset of the good MMAP3 record, the bytes '
                    f'from {PERF_MMAP3_SIZE_VER0} to it are made up fields of a later kernel')
    ap.add_argument('--unknown-type', type=int,
                    help='add a record of this type, which perf does not know')
    args = ap.parse_args()
    if not PERF_MMAP3_SIZE_VER0 <= args.filename_offset <= 4096 or \
       args.filename_offset % 8:
        ap.error('--filename-offset must be a multiple of 8 in '
                 f'[{PERF_MMAP3_SIZE_VER0}, 4096]')

    st = os.stat(args.path)
    entry, (vaddr, offset, filesz), file_bid = elf_info(args.path)
    mtime = st.st_mtime_ns if args.mtime is None else args.mtime
    if args.build_id is None:
        bid = file_bid
    elif args.build_id == 'none':
        bid = b''
    else:
        bid = bytes.fromhex(args.build_id)

    page = 4096
    start = args.base + (vaddr & ~(page - 1))
    pgoff = offset & ~(page - 1)
    length = ((vaddr + filesz + page - 1) & ~(page - 1)) - (vaddr & ~(page - 1))

    w = Writer(args.big_endian)
    w.comm(args.pid, args.comm)
    if args.unknown_type is not None:
        w.unknown(args.unknown_type, args.pid)
    w.mmap3(args.pid, start, length, pgoff, st, mtime, bid,
            args.filename or args.path, filename_offset=args.filename_offset)
    if args.bad in ('short', 'bidsize', 'nonul', 'offsetsmall', 'offsetbig'):
        w.mmap3(args.pid, start + 0x10000000, length, pgoff, st, mtime, bid,
                '/bad/' + os.path.basename(args.path), bad=args.bad)
    for _ in range(args.samples):
        w.sample(args.pid, args.base + entry)
    w.write(args.output, truncate=args.bad == 'truncate')
    return 0


if __name__ == '__main__':
    sys.exit(main())
