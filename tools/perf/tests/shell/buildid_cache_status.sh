#!/bin/sh
# perf buildid-cache exit status
# SPDX-License-Identifier: GPL-2.0

# Each command of perf buildid-cache exits non-zero when it fails and
# zero when it succeeds, or finds nothing to do: a file already in the
# cache for --add, one no longer there for --remove and --purge. --remove
# reads the file's build id, so a missing file is an error there; --purge
# goes by the path, and one that was never cached is nothing to do.

tmp=$(mktemp -d /tmp/perf-test-buildid-cache.XXXXXX)
cache=$tmp/debug
cleanup() {
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'cleanup; exit 1' TERM INT

err=0

# expect ok|fail ARGS...: perf buildid-cache ARGS on our own cache
expect() {
	want=$1
	shift
	perf --buildid-dir "$cache" buildid-cache "$@" >"$tmp/out" 2>&1
	rc=$?
	if { [ "$want" = ok ] && [ $rc -ne 0 ]; } ||
	   { [ "$want" = fail ] && [ $rc -eq 0 ]; }; then
		echo "FAIL: perf buildid-cache $*: exit status $rc, expected $want"
		cat "$tmp/out"
		err=1
	fi
}

elf=$tmp/elf
cp /usr/bin/true "$elf" || exit 1
if ! perf buildid-list -i "$elf" 2>/dev/null | grep -q '^[0-9a-f]\{40\}'; then
	echo "skip: /usr/bin/true has no build id"
	exit 2
fi
echo "no build id in here" >"$tmp/text"

expect ok --add "$elf"
expect ok --add "$elf"
expect fail --add "$tmp/text"
expect fail --add "$tmp/missing"
expect ok --update "$elf"
expect fail --update "$tmp/text"
expect fail --update "$tmp/missing"
expect ok --remove "$elf"
expect ok --remove "$elf"
expect fail --remove "$tmp/text"
expect fail --remove "$tmp/missing"
expect ok --add "$elf"
expect ok --purge "$elf"
expect ok --purge "$elf"
expect ok --purge "$tmp/missing"
expect ok --purge-all

# A cache that is a file, not a directory: nothing can be added, listed
# or removed
rm -rf "$cache"
echo >"$cache"
expect fail --add "$elf"
expect fail --purge "$elf"
expect fail --purge-all

exit $err
