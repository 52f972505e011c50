#!/bin/bash
# perf.data with a perf_event_attr larger than perf's
# SPDX-License-Identifier: GPL-2.0
#
# A newer perf writes a larger perf_event_attr. As the kernel does with
# perf_event_open(), perf must read it when the bytes it doesn't know are
# zero, and refuse it, saying which bytes, when they are not. Grow the
# attrs of a recording by 8 bytes, in a perf.data file and in a pipe, and
# read them back, and write the pipe's into a file with perf inject.
# Smaller attrs: one that says it is smaller than the first ABI's 64 bytes
# is refused, and a pipe's attr of the first ABI (size 0, its 64 bytes) is
# read with its ids where they are, after those 64 bytes.

set -e

if ! command -v python3 >/dev/null; then
	echo "skip: no python3"
	exit 2
fi

err=0
tmpdir=$(mktemp -d /tmp/__perf_test.attr_size.XXXXX)

cleanup() {
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

# grow.py IN OUT file|pipe FILL: copy IN with each attr 8 bytes larger,
# its new bytes all FILL, and print the size of the attr that IN has,
# perf's, where the bytes that it doesn't know begin.
cat > "${tmpdir}/grow.py" <<'EOF'
import struct, sys

src, dst, mode, fill = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
data = bytearray(open(src, 'rb').read())
extra = bytes([fill]) * 8

def grow(attr):
    global our_size
    size = our_size = struct.unpack_from('<I', attr, 4)[0]
    attr = bytearray(attr)
    struct.pack_into('<I', attr, 4, size + 8)
    return attr[:size] + extra + attr[size:]

if mode == 'file':
    attr_size, = struct.unpack_from('<Q', data, 16)
    offset, size = struct.unpack_from('<QQ', data, 24)
    new = b''.join(grow(data[offset + i:offset + i + attr_size])
                   for i in range(0, size, attr_size))
    # The grown attrs go to the end, and the header says so.
    struct.pack_into('<QQQ', data, 16, attr_size + 8, len(data), len(new))
    data += new
else:
    out, pos = bytearray(data[:16]), 16
    while pos < len(data):
        typ, misc, size = struct.unpack_from('<IHH', data, pos)
        ev = bytearray(data[pos:pos + size])
        if typ == 64:  # PERF_RECORD_HEADER_ATTR
            ev = ev[:8] + grow(ev[8:])
            struct.pack_into('<H', ev, 6, size + 8)
        out += ev
        pos += size
    data = out
open(dst, 'wb').write(data)
print(our_size)
EOF

if ! perf record -q -e task-clock -e cpu-clock -c 10000 -o "${tmpdir}/perf.data" -- true 2>/dev/null ||
   ! perf record -q -e task-clock -e cpu-clock -c 10000 -o - -- true > "${tmpdir}/pipe.data" 2>/dev/null; then
	echo "FAIL: perf record -e task-clock -e cpu-clock failed"
	cleanup
	exit 1
fi

for mode in file pipe; do
	our_size=$(python3 "${tmpdir}/grow.py" "${tmpdir}/${mode/file/perf}.data" \
		   "${tmpdir}/${mode}.zero" "${mode}" 0)
	python3 "${tmpdir}/grow.py" "${tmpdir}/${mode/file/perf}.data" \
		"${tmpdir}/${mode}.ones" "${mode}" 255 > /dev/null

	if ! perf evlist -i "${tmpdir}/${mode}.zero" > "${tmpdir}/out" 2>&1 ||
	   ! grep -q task-clock "${tmpdir}/out"; then
		echo "FAIL: ${mode}: an attr 8 bytes larger, all zero, is not read:"
		cat "${tmpdir}/out"
		err=1
	fi

	# perf evlist and perf report exit 0 when a pipe's events fail
	if perf script -i "${tmpdir}/${mode}.ones" > "${tmpdir}/out" 2>&1; then
		echo "FAIL: ${mode}: an attr with bytes perf doesn't know is read:"
		head -20 "${tmpdir}/out"
		err=1
	elif ! grep -q "bytes ${our_size}-$((our_size + 7)) of it are not zero" "${tmpdir}/out"; then
		echo "FAIL: ${mode}: no word of the bytes ${our_size}-$((our_size + 7)):"
		cat "${tmpdir}/out"
		err=1
	fi
done

# attr.size 8 in the file: perf once read the rest of the file over the
# stack, past the attr's 64 bytes.
python3 - "${tmpdir}/perf.data" "${tmpdir}/small.data" <<'EOF'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
offset, = struct.unpack_from('<Q', data, 24)
struct.pack_into('<I', data, offset + 4, 8)
open(sys.argv[2], 'wb').write(data)
EOF
# The reason is a debug message, as for the other refused attrs ("rerun
# with -v to learn more"). perf exits 255 when it fails, 129-192 is a signal.
rc=0
perf --debug verbose=1 evlist -i "${tmpdir}/small.data" > "${tmpdir}/out" 2>&1 || rc=$?
if [ ${rc} = 0 ] || { [ ${rc} -gt 128 ] && [ ${rc} -lt 255 ]; } ||
   ! grep -q "bad attr size 8" "${tmpdir}/out"; then
	echo "FAIL: an attr of size 8 in a file: exit ${rc}, not refused as a bad attr size:"
	cat "${tmpdir}/out"
	err=1
fi

# The pipe's attrs cut to the first ABI's PERF_ATTR_SIZE_VER0 bytes, with
# size 64 and with size 0 as that ABI wrote them: perf reads the same
# attrs (the fields that they don't have are zero, not the ids that
# follow) and the same samples.
cat > "${tmpdir}/shrink.py" <<'EOF'
import struct, sys
data = open(sys.argv[1], 'rb').read()
out, pos = bytearray(data[:16]), 16
while pos < len(data):
    typ, misc, size = struct.unpack_from('<IHH', data, pos)
    ev = bytearray(data[pos:pos + size])
    if typ == 64:  # PERF_RECORD_HEADER_ATTR
        attr_size, = struct.unpack_from('<I', ev, 12)
        ev = ev[:8 + 64] + ev[8 + attr_size:]
        struct.pack_into('<I', ev, 12, int(sys.argv[3]))
        struct.pack_into('<H', ev, 6, len(ev))
    out += ev
    pos += size
open(sys.argv[2], 'wb').write(out)
EOF
perf evlist -v -i "${tmpdir}/pipe.data" 2>&1 | sed 's/ size: [0-9]*,//' > "${tmpdir}/evlist.want"
perf script -F event,ip,period -i "${tmpdir}/pipe.data" > "${tmpdir}/script.want" 2>&1 || true
for size in 64 0; do
	python3 "${tmpdir}/shrink.py" "${tmpdir}/pipe.data" "${tmpdir}/pipe.${size}" ${size}
	perf evlist -v -i "${tmpdir}/pipe.${size}" 2>&1 | sed 's/ size: [0-9]*,//' > "${tmpdir}/evlist.out"
	if ! grep -q task-clock "${tmpdir}/evlist.want" ||
	   ! cmp -s "${tmpdir}/evlist.want" "${tmpdir}/evlist.out"; then
		echo "FAIL: a pipe whose attrs are 64 bytes, size ${size}, has other attrs:"
		diff -u "${tmpdir}/evlist.want" "${tmpdir}/evlist.out" | head -20
		err=1
	fi
	if ! perf script -F event,ip,period -i "${tmpdir}/pipe.${size}" > "${tmpdir}/script.out" 2>&1 ||
	   ! grep -q task-clock "${tmpdir}/script.want" ||
	   ! cmp -s "${tmpdir}/script.want" "${tmpdir}/script.out"; then
		echo "FAIL: a pipe whose attrs are 64 bytes, size ${size}, has other samples:"
		diff -u "${tmpdir}/script.want" "${tmpdir}/script.out" | head -20
		err=1
	fi
done

# perf inject writes the attr it read from the pipe, which is perf's.
if ! perf inject -i "${tmpdir}/pipe.zero" -o "${tmpdir}/inject.data" 2> "${tmpdir}/out" ||
   ! perf evlist -i "${tmpdir}/inject.data" > "${tmpdir}/out" 2>&1 ||
   ! grep -q task-clock "${tmpdir}/out"; then
	echo "FAIL: perf inject of a pipe with larger attrs into a file:"
	cat "${tmpdir}/out"
	err=1
fi

cleanup
exit ${err}
