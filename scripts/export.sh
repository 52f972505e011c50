#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the commits of build/BASE/src (base..HEAD) back into the project:
# patches/BASE/*.patch and series for edits to files of the base, the files
# new to the tree, and patches/BASE/new-files naming the patch that creates
# each. A commit that only creates new files becomes a patch without a diff,
# its message. The output has no dates or hashes that churn: exporting an
# unchanged tree gives byte-identical files.
#
# A new file that is the same on every base that has it is kept once, at its
# in-tree path, which the default base (the first of BASES) owns. A base whose
# copy differs keeps it in patches/BASE/files/ (lib.sh's new_file); where two
# bases' own copies are the same, one is a symbolic link to the other's.
. "$(dirname "$0")/lib.sh"

cd "$SRC" || die "no ${SRC#$TOP/}; run make tree"
# An edit to patches/BASE/ made after the tree (a pull, or by hand) would
# be overwritten by the tree's version: tree.sh takes it into the tree
# first, or stops when the tree has work of its own too.
"$TOP/scripts/tree.sh" || exit 1
[ -z "$(git status --porcelain -uno)" ] ||
	die "${SRC#$TOP/} has uncommitted edits; commit them there first"

commits=$(git rev-list --reverse --no-merges base..HEAD)
[ "$(git rev-list --count --merges base..HEAD)" = 0 ] || die "base..HEAD has merges; rebase them away"

# Files new to the tree, and the commit that creates each.
declare -A creator
newfiles=$(git diff --name-only --diff-filter=A base HEAD)
for c in $commits; do
	for f in $(git diff-tree -r --no-commit-id --name-only --diff-filter=A "$c"); do
		grep -qxF "$f" <<<"$newfiles" && creator[$f]=$c
	done
done
for f in $newfiles; do
	later=$(git rev-list "${creator[$f]}..HEAD" -- "$f")
	[ -z "$later" ] || die "$f is new to the tree, created by $(git log -1 --format='"%s"' "${creator[$f]}")
  and changed again by $(git log -1 --format='"%s"' "$later").
  A new file is created whole by one patch: fold the change into that commit."
done

tmp=$(mktemp -d "$B/export.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
excludes=()
for f in $newfiles; do excludes+=(":(exclude)$f"); done
# Index lines of 9 digits, as a repository of the base alone gives.
fp() { git -c core.abbrev=9 format-patch -q -N --zero-commit --no-signature --no-encode-email-headers -o "$tmp" "$@"; }
n=0
for c in $commits; do
	n=$((n + 1))
	fp --start-number=$n "$c^..$c" -- . "${excludes[@]}"
	ls "$tmp"/"$(printf '%04d' $n)"-*.patch >/dev/null 2>&1 && continue
	# Only new files: keep the message, cut before the diffstat.
	fp --start-number=$n "$c^..$c"
	f=$(ls "$tmp"/"$(printf '%04d' $n)"-*.patch)
	sed -i '/^---$/,$d' "$f"
done
[ "$(ls "$tmp" | wc -l)" = "$n" ] || die "format-patch gave an unexpected number of patches"

(cd "$tmp" && ls -- *.patch 2>/dev/null) >"$tmp/series" || true
: >"$tmp/new-files"
for f in $newfiles; do
	idx=$(git rev-list --count "base..${creator[$f]}")
	printf '%s %s\n' "$f" "$(sed -n "${idx}p" "$tmp/series")" >>"$tmp/new-files"
done
sort -o "$tmp/new-files" "$tmp/new-files"

# used_by F: the other bases whose series take F from its in-tree path.
used_by() {
	local b
	for b in $BASES; do
		[ "$b" != "$BASE" ] && [ ! -e "$TOP/patches/$b/files/$1" ] &&
			awk -v f="$1" '!/^#/ && $1 == f { n++ } END { exit !n }' \
				"$TOP/patches/$b/new-files" 2>/dev/null &&
			echo "$b"
	done
	return 0
}
default=${BASES%% *}

# same A B: the same content and the same executable bit.
same() {
	cmp -s "$1" "$2" || return 1
	if [ -x "$1" ]; then [ -x "$2" ]; else [ ! -x "$2" ]; fi
}
# drop_own B F: base B no longer keeps its own copy of F. A base whose copy
# is a link to it gets the content as its own.
drop_own() {
	local d=$TOP/patches/$1/files/$2 o l
	[ -e "$d" ] || [ -L "$d" ] || return 0
	for o in $BASES; do
		l=$TOP/patches/$o/files/$2
		if [ "$o" != "$1" ] && [ -L "$l" ] && [ "$(realpath "$l")" = "$(realpath "$d")" ]; then
			cp -p --remove-destination "$d" "$l"
		fi
	done
	rm -f "$d"
}
# put_own B F FILE: base B keeps FILE as its own copy of F, as a link to
# another base's own copy when that is the same.
put_own() {
	local d=$TOP/patches/$1/files/$2 o c
	[ -e "$d" ] && same "$d" "$3" && return
	drop_own "$1" "$2"
	mkdir -p "$(dirname "$d")"
	for o in $BASES; do
		c=$TOP/patches/$o/files/$2
		if [ "$o" != "$1" ] && [ -f "$c" ] && [ ! -L "$c" ] && same "$c" "$3"; then
			ln -s "$(realpath --relative-to="$(dirname "$d")" "$c")" "$d"
			return
		fi
	done
	cp -p "$3" "$d"
}

# Remove new files the series no longer creates.
for f in $(awk '!/^#/ { print $1 }' "$P/new-files" 2>/dev/null); do
	grep -qxF "$f" <<<"$newfiles" && continue
	drop_own "$BASE" "$f"
	[ -n "$(used_by "$f")" ] || rm -f "$TOP/$f"
done
for f in $newfiles; do
	git show "HEAD:$f" >"$tmp/new"
	[ "$(git ls-tree HEAD -- "$f" | cut -c1-6)" = 100755 ] && chmod +x "$tmp/new" || chmod -x "$tmp/new"
	top=$TOP/$f
	if [ "$BASE" = "$default" ] || [ ! -e "$top" ] || [ -z "$(used_by "$f")" ]; then
		# This base owns the in-tree copy. Another base that took the
		# old one from there and differs now keeps its own.
		if [ -e "$top" ] && ! same "$top" "$tmp/new"; then
			for b in $(used_by "$f"); do
				put_own "$b" "$f" "$top"
			done
		fi
		mkdir -p "$(dirname "$top")"
		cp -p "$tmp/new" "$top"
		drop_own "$BASE" "$f"
		# A base whose own copy is now the same shares this one.
		for b in $BASES; do
			if [ -e "$TOP/patches/$b/files/$f" ] && same "$TOP/patches/$b/files/$f" "$top"; then
				drop_own "$b" "$f"
			fi
		done
	elif same "$top" "$tmp/new"; then
		drop_own "$BASE" "$f"
	else
		put_own "$BASE" "$f" "$tmp/new"
	fi
done
find "$TOP/patches" -depth -type d -path '*/files*' -empty -delete

mkdir -p "$P"
rm -f "$P"/*.patch "$P/series" "$P/new-files"
cp "$tmp"/*.patch "$P/" 2>/dev/null || true
cp "$tmp/series" "$tmp/new-files" "$P/"

# The tree is now what patches/BASE/ describes: record that, so make does
# not rebuild it.
"$TOP/scripts/tree.sh" --stamp-only
printf 'exported %d patches and %d new files to patches/%s/\n' "$n" "$(echo $newfiles | wc -w)" "$BASE"
