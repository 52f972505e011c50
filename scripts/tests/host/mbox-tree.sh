#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# git am of the topic mboxes (make mbox), in order, onto a clean base gives
# exactly the tree that make check built.
. "$(dirname "$0")/../../lib.sh"

[ -z "$(git -C "$SRC" status --porcelain -uno)" ] ||
	{ echo "${SRC#$TOP/} has uncommitted edits: the mbox cannot match what was built"; exit 2; }
[ "$(git -C "$SRC" rev-list --count base..HEAD)" -gt 0 ] ||
	{ echo "the series is empty"; exit 2; }

tmp=$(mktemp -d "$B/mbox-check.XXXXXX")
trap 'git -C "$SRC" worktree remove --force "$tmp/tree" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
MBOX=$tmp/mbox "$TOP/scripts/mbox.sh"

# A sparse worktree at the base with only the files the mbox touches, so
# that git am runs for real without checking out 80,000 files.
git -C "$SRC" worktree add -q --no-checkout --detach "$tmp/tree" base
grep -h '^diff --git a/' "$tmp"/mbox/*.mbox | awk '{ print "/" substr($3, 3) }' | sort -u >"$tmp/paths"
git -C "$tmp/tree" sparse-checkout set --no-cone --stdin <"$tmp/paths"
git -C "$tmp/tree" checkout -q --detach base
ls "$tmp"/mbox/*.mbox >"$tmp/list"
# Each mbox starts with its cover letter, which has no diff: drop it.
while read -r m; do
	git -C "$tmp/tree" -c user.name=check -c user.email=check@localhost am -q --empty=drop "$m"
done <"$tmp/list"
want=$(git -C "$SRC" rev-parse 'HEAD^{tree}')
got=$(git -C "$tmp/tree" rev-parse 'HEAD^{tree}')
echo "tree built by make check: $want"
echo "tree from git am of mbox: $got"
n=$(git -C "$tmp/tree" rev-list --count base..HEAD)
[ "$want" = "$got" ] || { git -C "$SRC" diff --stat "$got" HEAD; echo "the trees differ"; exit 1; }
echo "git am of the $(wc -l <"$tmp/list") mbox(es), $n patches, gives the tree make check built"
