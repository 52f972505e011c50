#!/bin/sh
# perf buildid-cache --kcore
# SPDX-License-Identifier: GPL-2.0

# Add /proc/kcore to a build-id cache of our own: the copy goes to
# [kernel.kcore]/<build-id>/<YYYYmmddHHMMSShh>/ with kcore, kallsyms and
# modules, and a second run finds it rather than making another. Then bad
# input: each case must fail with a non-zero exit status and a reason, and
# leave the cache as it was.

if [ "$(id -u)" != 0 ] || ! head -c 1 /proc/kcore >/dev/null 2>&1; then
	echo "skip: /proc/kcore is not readable"
	exit 2
fi

tmp=$(mktemp -d /tmp/perf-test-kcore.XXXXXX)
cache=$tmp/debug
cleanup() {
	rm -rf "$tmp"
}
trap cleanup EXIT TERM INT

err=0
fail() {
	echo "FAIL: $*"
	err=1
}

kc() {
	perf --buildid-dir "$cache" buildid-cache "$@"
}

copies() {
	ls -d "$cache/[kernel.kcore]"/*/* 2>/dev/null
}

if ! kc -v --kcore /proc/kcore >"$tmp/out" 2>&1; then
	cat "$tmp/out"
	echo "FAIL: perf buildid-cache --kcore /proc/kcore failed"
	exit 1
fi
dir=$(copies)
if [ "$(echo "$dir" | wc -l)" != 1 ] || [ ! -d "$dir" ]; then
	echo "FAIL: expected one copy, found: $dir"
	exit 1
fi
echo "$dir" | grep -Eq '/\[kernel\.kcore\]/[0-9a-f]{40}/[0-9]{16}$' ||
	fail "unexpected directory $dir"
# modules is empty when no module is loaded
for f in kcore kallsyms modules; do
	[ -f "$dir/$f" ] || fail "no $f in $dir"
done
[ -s "$dir/kcore" ] && [ -s "$dir/kallsyms" ] || fail "empty kcore or kallsyms in $dir"
grep -qF "$dir" "$tmp/out" || fail "-v did not name $dir"

kc -v --kcore /proc/kcore >"$tmp/out" 2>&1 || fail "second run failed"
[ "$(copies)" = "$dir" ] || fail "second run made another copy: $(copies)"
grep -qF "same kcore found in $dir" "$tmp/out" ||
	fail "-v did not say that the same kcore is in $dir"

# A copy of /proc laid out for --kcore: kcore, kallsyms and modules, and
# the kernel's build-id in ../sys/kernel/notes.
mkroot() {
	mkdir -p "$1/proc" "$1/sys/kernel"
	ln -s /proc/kcore "$1/proc/kcore"
	cp /proc/kallsyms /proc/modules "$1/proc/"
	cp /sys/kernel/notes "$1/sys/kernel/notes"
}

# bad NAME KCORE REASON: fails, says REASON, and leaves the cache as it was
bad() {
	find "$cache" | sort >"$tmp/before"
	if kc --kcore "$2" >"$tmp/out" 2>&1; then
		fail "$1: exit status 0"
	fi
	grep -qi "$3" "$tmp/out" || {
		cat "$tmp/out"
		fail "$1: no reason given (expected \"$3\")"
	}
	find "$cache" | sort >"$tmp/after"
	cmp -s "$tmp/before" "$tmp/after" || fail "$1: the cache changed"
}

bad "not named kcore" /proc/kallsyms "file named kcore"

mkroot "$tmp/notelf"
rm "$tmp/notelf/proc/kcore"
echo "not a kcore" >"$tmp/notelf/proc/kcore"
bad "not an ELF file" "$tmp/notelf/proc/kcore" "not a kcore"

mkroot "$tmp/nokallsyms"
rm "$tmp/nokallsyms/proc/kallsyms"
bad "no kallsyms" "$tmp/nokallsyms/proc/kcore" "kallsyms: No such file"

mkroot "$tmp/nomodules"
rm "$tmp/nomodules/proc/modules"
bad "no modules" "$tmp/nomodules/proc/kcore" "modules: No such file"

mkroot "$tmp/nonotes"
rm "$tmp/nonotes/sys/kernel/notes"
bad "no build-id" "$tmp/nonotes/proc/kcore" "build-id"

exit $err
