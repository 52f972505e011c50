#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mainline's perf records on this kernel with its own defaults, and our
# perf reads the file. MAINLINE_PERF is perf 7.3 built unpatched from
# Debian's linux-source-7.3 (make perf-mainline). Its perf_event_attr is
# 144 bytes (config4), larger than ours on 6.12 and 6.1: our perf reads
# the attr because its extra bytes are zero, and must give the same top
# symbols as perf 7.3 gives for its own file. The other way round (perf
# 7.3 on a file of ours) is the host test mmap3-stock-perf-guest.

M=${MAINLINE_PERF:?}
W=/tmp/mainline-perf-record
bad=0
fail() { echo "FAIL: $*"; bad=1; }
trap 'rm -rf "$W"' EXIT
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
export HOME=$W

if [ ! -x "$M" ]; then
	echo "no perf 7.3 at $M: run make perf-mainline"
	exit 1
fi
echo "mainline: $("$M" version), ours: $(perf version)"

# perf's own noploop workload, of perf 7.3's binary, for 2 seconds.
if ! "$M" record -q -e cpu-clock -o m.data -- "$M" test -w noploop 2 2>record.err; then
	cat record.err
	fail "perf 7.3 record"
	exit 1
fi
attr_size=$("$M" evlist -v -i m.data 2>/dev/null | sed -n 's/.* size: \([0-9]*\),.*/\1/p' | head -1)
echo "perf 7.3's perf_event_attr in its file: ${attr_size} bytes"
[ "$attr_size" = 144 ] || fail "perf 7.3 wrote an attr of ${attr_size} bytes, not 144: not the case this test is for"

top() {	# perf: the five top dso,sym lines of m.data
	"$1" report -i m.data --stdio --no-children --sort dso,sym --no-demangle -q 2>"$W/$2.err" |
		sed 's/^ *//' | sed '/^$/d' | head -5
}
top "$M" theirs >theirs.txt
if ! top perf ours >ours.txt || [ ! -s ours.txt ]; then
	fail "our perf reads nothing of perf 7.3's file:"
	cat ours.err
fi
echo "perf 7.3's report of its file:"
sed 's/^/    /' theirs.txt
grep -q 'noploop' theirs.txt || fail "perf 7.3 does not find its own noploop"
if cmp -s theirs.txt ours.txt; then
	echo "our perf gives the same top symbols"
else
	fail "our perf gives other top symbols:"
	diff -u theirs.txt ours.txt
fi
if grep -q 'unsupported ABI\|not zero' ours.err; then
	fail "our perf says:"
	cat ours.err
fi
exit $bad
