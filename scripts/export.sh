#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the commits of build/src (base..HEAD) back into the project:
# patches/*.patch and patches/series for edits to files of the base, the
# files new to the tree at their in-tree paths, and patches/new-files naming
# the patch that creates each. The output has no dates or hashes that churn:
# exporting an unchanged tree gives byte-identical files.
. "$(dirname "$0")/lib.sh"

P=$TOP/patches
cd "$SRC" || die "no build/src; run make tree"
[ -z "$(git status --porcelain -uno)" ] ||
	die "build/src has uncommitted edits; commit them there first"

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
git format-patch -q -N --zero-commit --no-signature --no-encode-email-headers \
	-o "$tmp" base..HEAD -- . "${excludes[@]}"

# A patch made of new files only would vanish from patches/: refuse it.
n=0
for c in $commits; do
	n=$((n + 1))
	ls "$tmp"/"$(printf '%04d' $n)"-*.patch >/dev/null 2>&1 ||
		die "commit $(git log -1 --format='"%s"' "$c") only adds new files;
  a patch must also wire them into a file of the base (Makefile, Build, index)"
done
[ "$(ls "$tmp" | wc -l)" = "$n" ] || die "format-patch gave an unexpected number of patches"

# Write the result: series, new-files, patches, new files.
(cd "$tmp" && ls -- *.patch) >"$tmp/series"
: >"$tmp/new-files"
for f in $newfiles; do
	idx=$(git rev-list --count "base..${creator[$f]}")
	printf '%s %s\n' "$f" "$(sed -n "${idx}p" "$tmp/series")" >>"$tmp/new-files"
done
sort -o "$tmp/new-files" "$tmp/new-files"

# Remove new files the series no longer creates.
if [ -f "$P/new-files" ]; then
	for f in $(awk '!/^#/ { print $1 }' "$P/new-files"); do
		grep -qxF "$f" <<<"$newfiles" || rm -f "$TOP/$f"
	done
fi
for f in $newfiles; do
	mkdir -p "$(dirname "$TOP/$f")"
	git show "HEAD:$f" >"$TOP/$f"
	[ "$(git ls-tree HEAD -- "$f" | cut -c1-6)" = 100755 ] && chmod +x "$TOP/$f" || chmod -x "$TOP/$f"
done
rm -rf "$P" && mkdir -p "$P"
cp "$tmp"/*.patch "$tmp/series" "$tmp/new-files" "$P/" 2>/dev/null || cp "$tmp/series" "$tmp/new-files" "$P/"

# The tree is now what patches/ describes: record that, so make does not
# rebuild it.
"$TOP/scripts/tree.sh" --stamp-only
printf 'exported %d patches and %d new files to patches/\n' "$n" "$(echo $newfiles | wc -w)"
