#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# git am of the topic mboxes, in order, onto a clean base gives exactly
# the tree that make check built: those that make series-check checks
# (MBOX=), every topic; and those that make mbox posts, all but the
# topics kept in our tree ('!' in patches/BASE/topics), which come last,
# from and signed off by the sender, never by the patches' neutral
# author, and none without a sender.
. "$(dirname "$0")/../../lib.sh"

[ -z "$(git -C "$SRC" status --porcelain -uno)" ] ||
	{ echo "${SRC#$TOP/} has uncommitted edits: the mbox cannot match what was built"; exit 2; }
[ "$(git -C "$SRC" rev-list --count base..HEAD)" -gt 0 ] ||
	{ echo "the series is empty"; exit 2; }

tmp=$(mktemp -d "$B/mbox-check.XXXXXX")
trap 'git -C "$SRC" worktree remove --force "$tmp/tree" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
MBOX=$tmp/mbox "$TOP/scripts/mbox.sh"

# A sparse worktree at the base with only the files the mboxes touch, so
# that git am runs for real without checking out 80,000 files.
git -C "$SRC" worktree add -q --no-checkout --detach "$tmp/tree" base
grep -h '^diff --git a/' "$tmp"/mbox/*.mbox | awk '{ print "/" substr($3, 3) }' | sort -u >"$tmp/paths"
git -C "$tmp/tree" sparse-checkout set --no-cone --stdin <"$tmp/paths"

# am_tree DIR: git am of DIR's mboxes in order on the base; prints the
# tree. Each mbox starts with its cover letter, which has no diff: dropped.
am_tree() {
	git -C "$tmp/tree" checkout -q --detach base
	for m in "$1"/*.mbox; do
		git -C "$tmp/tree" -c user.name=check -c user.email=check@localhost am -q --empty=drop "$m"
	done
	git -C "$tmp/tree" rev-parse 'HEAD^{tree}'
}

rc=0
want=$(git -C "$SRC" rev-parse 'HEAD^{tree}')
got=$(am_tree "$tmp/mbox")
n=$(git -C "$tmp/tree" rev-list --count base..HEAD)
echo "tree built by make check: $want"
echo "tree from git am of the checked mboxes: $got"
if [ "$want" = "$got" ]; then
	echo "git am of the $(ls "$tmp"/mbox/*.mbox | wc -l) mbox(es), $n patches, gives the tree make check built"
else
	git -C "$SRC" diff --stat "$got" HEAD
	echo "FAIL: the trees differ"
	rc=1
fi

# The posted mboxes. The neutral author is the one of the patches.
neutral=$(git -C "$SRC" log -1 --format='%an <%ae>' HEAD)
sender='Test Sender <sender@kernel.org>'
if MBOX_POST=$tmp/refused MBOX_FROM=$neutral "$TOP/scripts/mbox.sh" >"$tmp/refused.log" 2>&1; then
	echo "FAIL: make mbox wrote mboxes from the neutral author $neutral"
	rc=1
else
	echo "make mbox with the neutral author refused: $(tail -1 "$tmp/refused.log")"
fi
MBOX_POST=$tmp/post MBOX_FROM=$sender "$TOP/scripts/mbox.sh" >"$tmp/post.log"
kept=$(awk '$1 ~ /^!/' "$P/topics" | wc -l)
k=0
[ "$kept" = 0 ] || k=$(( $(git -C "$SRC" rev-list --count base..HEAD) -
	10#$(awk '!/^#/ && $1 !~ /^!/ { upto = $2 } END { print upto }' "$P/topics") ))
want=$(git -C "$SRC" rev-parse "HEAD~$k^{tree}")
got=$(am_tree "$tmp/post")
echo "$kept topic(s), the last $k patch(es), kept in our tree: $(grep -c '^left out' "$tmp/post.log") left out"
if [ "$want" != "$got" ]; then
	echo "FAIL: git am of the posted mboxes does not give the tree of HEAD~$k"
	rc=1
fi
bad=$(grep -l -F "$(sed 's/.*<//; s/>$//' <<<"$neutral")" "$tmp"/post/*/*.patch || true)
if [ -n "$bad" ]; then
	echo "FAIL: the neutral author's address is in posted patches:" $bad
	rc=1
fi
for f in "$tmp"/post/*/0*.patch; do
	grep -qxF "From: $sender" "$f" || { echo "FAIL: ${f##*/post/} is not from $sender"; rc=1; }
	case $f in */0000-cover-letter.patch) continue ;; esac
	grep -qxF "Signed-off-by: $sender" "$f" || { echo "FAIL: ${f##*/post/} has no Signed-off-by: $sender"; rc=1; }
done
[ "$rc" = 1 ] || echo "the posted mboxes are from and signed off by $sender, and give the tree of HEAD~$k"
exit "$rc"
