#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The numbers the series takes (attr.mmap3's bit, PERF_RECORD_MMAP3's type,
# perf's HEADER_KERNEL_ADDR_UNKNOWN) against mainline's: they are the next
# free ones in the newest mainline uapi Debian ships (linux-libc-dev, the
# newest of trixie-backports, sid and experimental), the same on every base,
# and mainline has given none of them to anything else. Fails, naming the
# number, on a collision, on a number that is not the next free one, and on
# bases that disagree. perf's header features are not in the uapi: they are
# compared with the default base's tools/perf/util/header.h, the newest
# perf source the harness has. The bases' headers are their tarballs' with
# the hunks of their series applied (deps.sh installs a missing tarball).
. "$(dirname "$0")/lib.sh"

d=$B/debs/abi
mkdir -p "$d/lists/partial" "$d/archives/partial"
cat >"$d/sources.list" <<EOF
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian experimental main
EOF
apt=(-o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists="$d/lists" -o Dir::Cache="$d" -o Dir::Cache::archives="$d/archives"
     -o Dir::State::Status=/dev/null -o APT::Sandbox::User=root)

# The mainline uapi header: the newest linux-libc-dev, or, when Debian can't
# be reached, the default base's own (and say so).
mainline=$d/perf_event.h
if apt-get "${apt[@]}" update -qq >"$d/apt.log" 2>&1 &&
	ver=$(apt-cache "${apt[@]}" madison linux-libc-dev | awk '{ print $3 }' |
		sort -V | tail -1) && [ -n "$ver" ] &&
	(cd "$d" && rm -f linux-libc-dev_*.deb &&
	 apt-get "${apt[@]}" download "linux-libc-dev=$ver" >>"$d/apt.log" 2>&1); then
	dpkg-deb --fsys-tarfile "$d"/linux-libc-dev_*.deb |
		tar -xO ./usr/include/linux/perf_event.h >"$mainline"
	echo "mainline: linux-libc-dev $ver"
else
	ver=
	echo "mainline: Debian not reached (build/debs/abi/apt.log): the uapi of ${BASES%% *}'s base"
fi

# attr_bits FILE: "NAME BIT" for each bit-field of the flags word of struct
# perf_event_attr, the one that starts with disabled.
attr_bits() {
	awk '/__u64[ \t]+disabled[ \t]*:/ { on = 1 }
	on {
		sub(/\/\*.*\*\//, "")
		if (match($0, /[A-Za-z_0-9]+[ \t]*:[ \t]*[0-9]+/)) {
			split(substr($0, RSTART, RLENGTH), f, /[ \t]*:[ \t]*/)
			sub(/^.*[ \t]/, "", f[1])
			for (i = 0; i < f[2]; i++)
				print f[1], bit++
		}
		if (/;/) exit
	}' "$1"
}
# record_types FILE: "NAME TYPE" for each record type of enum perf_event_type.
record_types() {
	awk '/^enum perf_event_type/ { on = 1 } on && /^};/ { exit }
	on && match($0, /PERF_RECORD_[A-Z0-9_]+[ \t]*=[ \t]*[0-9]+/) {
		split(substr($0, RSTART, RLENGTH), f, /[ \t]*=[ \t]*/); print f[1], f[2]
	}' "$1"
}
# features FILE: "NAME NUMBER" for each feature of perf's header.h, those
# after HEADER_LAST_FEATURE (a later perf's numbers) included.
features() {
	awk '/HEADER_FIRST_FEATURE/ { on = 1; n = 1; next } on && /^};/ { exit }
	on && match($0, /HEADER_[A-Z0-9_]+/) {
		name = substr($0, RSTART, RLENGTH)
		if (match($0, /=[ \t]*[0-9]+/)) n = substr($0, RSTART + 1) + 0
		if (name != "HEADER_LAST_FEATURE" && name != "HEADER_FEAT_BITS") print name, n
		n++
	}' "$1"
}

fail=0
bad() { echo "FAIL: $*"; fail=1; }
# check WHAT OURS MAINLINE NAME: NAME's number in OURS is the next free one
# in MAINLINE and names nothing else there.
check() {
	local what=$1 ours=$2 main=$3 name=$4 n other top
	n=$(awk -v x="$name" '$1 == x { print $2; exit }' "$ours")
	[ -n "$n" ] || { bad "$what: no $name"; return; }
	other=$(awk -v n="$n" -v x="$name" '$2 == n && $1 != x && $1 !~ /^__reserved/ { print $1; exit }' "$main")
	[ -z "$other" ] || bad "$what: $name is $n, which mainline gives to $other"
	if ! grep -q "^$name " "$main"; then
		top=$(awk '$1 !~ /^__reserved/ && $2 + 0 > m { m = $2 + 0 } END { print m + 1 }' "$main")
		[ "$n" = "$top" ] || bad "$what: $name is $n, and mainline's next free one is $top"
	fi
	echo "$what: $name $n"
}

# base_files BASE DIR: the base's uapi header and perf's header.h, from its
# tarball, as DIR/base/ and, with the hunks of its series for them applied,
# as DIR/. git apply works outside a repository, in a directory of mktemp's.
base_files() {
	local tarball p tmp
	tarball=$(BASE=$1 bash -c ". '$TOP/scripts/lib.sh' && echo \$BASE_TARBALL")
	[ -r "$tarball" ] || BASE=$1 "$TOP/scripts/deps.sh" >/dev/null ||
		die "no $tarball for BASE=$1"
	tmp=$(mktemp -d)
	tar -xJf "$tarball" -C "$tmp" --strip-components=1 --wildcards \
		'*/include/uapi/linux/perf_event.h' '*/tools/perf/util/header.h'
	rm -rf "$2" && mkdir -p "$2" && cp -r "$tmp" "$2/base"
	for p in $(grep -v '^#' "$TOP/patches/$1/series"); do
		grep -qE '^diff --git a/(include/uapi/linux/perf_event|tools/perf/util/header)\.h ' \
			"$TOP/patches/$1/$p" || continue
		(cd "$tmp" && git apply -p1 --include=include/uapi/linux/perf_event.h \
			--include=tools/perf/util/header.h "$TOP/patches/$1/$p") ||
			die "patches/$1/$p does not apply to the base's headers"
	done
	cp -r "$tmp"/. "$2/" && rm -rf "$tmp"
}

for base in $BASES; do
	base_files "$base" "$d/$base"
done
# Mainline's features: the default base's perf, unpatched.
features "$d/${BASES%% *}/base/tools/perf/util/header.h" >"$d/main.feats"
[ -n "$ver" ] || cp "$d/${BASES%% *}/base/include/uapi/linux/perf_event.h" "$mainline"
attr_bits "$mainline" >"$d/main.bits"
record_types "$mainline" >"$d/main.types"
for base in $BASES; do
	attr_bits "$d/$base/include/uapi/linux/perf_event.h" >"$d/$base.bits"
	record_types "$d/$base/include/uapi/linux/perf_event.h" >"$d/$base.types"
	features "$d/$base/tools/perf/util/header.h" >"$d/$base.feats"
	check "$base attr bit" "$d/$base.bits" "$d/main.bits" mmap3
	check "$base record type" "$d/$base.types" "$d/main.types" PERF_RECORD_MMAP3
	check "$base header feature" "$d/$base.feats" "$d/main.feats" HEADER_KERNEL_ADDR_UNKNOWN
done | tee "$d/numbers"
grep -q '^FAIL' "$d/numbers" && fail=1
# The same numbers on every base.
for what in "attr bit" "record type" "header feature"; do
	n=$(grep "^[0-9.]* $what: " "$d/numbers" | awk '{ print $NF }' | sort -u | wc -l)
	[ "$n" -le 1 ] || { echo "FAIL: the bases differ in the $what"; fail=1; }
done
[ "$fail" = 0 ] || die "the ABI numbers collide with mainline's or disagree (build/debs/abi/)"
echo "ABI numbers: the next free ones in mainline${ver:+ $ver}, the same on every base"
