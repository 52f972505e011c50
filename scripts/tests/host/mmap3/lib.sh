# SPDX-License-Identifier: GPL-2.0
# Common bits of the host side PERF_RECORD_MMAP3 tests.
#
# PERF:       the perf under test (default: perf in PATH)
# STOCK_PERF: a perf without MMAP3 support (default: MAINLINE_PERF, the
#             harness's perf 7.3 built unpatched, else /usr/bin/perf_6.1,
#             else /usr/bin/perf if it is 6.1)
# PERF_SRC:   the tools/perf source directory, for the test scripts and
#             tests/shell/lib/perf_data_mmap3.py (default: next to this
#             directory, in ../src/tools/perf)

here=$(cd "$(dirname "$0")" && pwd)
PERF=${PERF:-$(command -v perf)}
PERF_SRC=${PERF_SRC:-${here}/../src/tools/perf}
GEN="${PERF_SRC}/tests/shell/lib/perf_data_mmap3.py"

if [ -z "${STOCK_PERF}" ] ; then
	if [ -n "${MAINLINE_PERF}" ] ; then
		STOCK_PERF=${MAINLINE_PERF}
	elif [ -x /usr/bin/perf_6.1 ] ; then
		STOCK_PERF=/usr/bin/perf_6.1
	elif /usr/bin/perf version 2>/dev/null | grep -q "^perf version 6\.1\." ; then
		STOCK_PERF=/usr/bin/perf
	fi
fi

err=0
tmpdir=$(mktemp -d /tmp/__perf_host_test.XXXXXX)
trap 'rm -rf "${tmpdir}"' EXIT

fail() {
	echo "FAIL: $*"
	err=1
}

# A run that crashed: killed by SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE
# or SIGSEGV, or with a sanitizer report. perf exits with 255 or 234 (-1,
# -EINVAL) on errors.
crashed() {
	case "$1" in
	132|133|134|135|136|139) return 0 ;;
	esac
	grep -q "AddressSanitizer\|runtime error:\|LeakSanitizer" "$2"
}

# The copy of perf that the made up perf.data files map and sample in
prog="${tmpdir}/prog"
cp "$(readlink -f "${PERF}")" "${prog}"
