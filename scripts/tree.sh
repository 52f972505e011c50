#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make build/BASE/src: Debian's linux-source-BASE as a git repository with
# one commit for the base (tag "base"), then the series of patches/BASE/ on
# top of it, one commit per patch. Files that are new to the tree are laid
# over it in the commit of the patch that creates them (new-files). A patch
# that only creates new files is a commit message without a diff.
#
# The tree is rebuilt only when the series changed. If the tree then holds
# work that was not exported (commits or edits), stop rather than lose it.
. "$(dirname "$0")/lib.sh"

STAMP=$SRC/.git/rig-series

series_fingerprint() {
	{
		cat "$P/series" "$P/new-files" 2>/dev/null
		# shellcheck disable=SC2013
		for f in $(grep -v '^#' "$P/series" 2>/dev/null); do cat "$P/$f"; done
		# shellcheck disable=SC2013
		for f in $(awk '!/^#/ { print $1 }' "$P/new-files" 2>/dev/null); do
			cat "$(new_file "$f")"
		done
	} | sha1sum | cut -d' ' -f1
}

make_base() {
	local tmp=$SRC.tmp v

	[ -r "$BASE_TARBALL" ] || die "$BASE_TARBALL not found (apt-get install $BASE_PKG)"
	stage "unpacking $BASE_TARBALL"
	rm -rf "$tmp" && mkdir -p "$tmp"
	tar -C "$tmp" --strip-components=1 -xf "$BASE_TARBALL"
	v=$(make -s -C "$tmp" kernelversion)
	[ "$v" = "$BASE_VERSION" ] ||
		{ rm -rf "$tmp"; die "base is Linux $v, but this series is for $BASE_VERSION ($BASE_TARBALL)"; }

	stage "committing the base tree"
	# Debian's top-level .gitignore ignores everything, so add with -f.
	# Fixed identity and dates make the base commit the same everywhere.
	(cd "$tmp" && git init -q -b work && git add -f -A &&
	 GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
	 git -c user.name=base -c user.email=base@localhost \
		commit -q -m "Linux $BASE_VERSION (Debian $BASE_PKG)" &&
	 git tag base)
	rm -rf "$SRC" && mv "$tmp" "$SRC"
}

unexported_work() {
	[ -f "$STAMP" ] || return 1
	[ "$(git -C "$SRC" rev-parse HEAD)" != "$(sed -n 2p "$STAMP")" ] && return 0
	[ -n "$(git -C "$SRC" status --porcelain -uno)" ]
}

apply_series() {
	local patch n=0 f

	stage "applying patches/$BASE/series"
	git -C "$SRC" checkout -q -f -B work base
	git -C "$SRC" clean -q -fdx
	[ -f "$P/series" ] || return 0
	for patch in $(grep -v '^#' "$P/series"); do
		n=$((n + 1))
		[ -f "$P/$patch" ] || die "patches/$BASE/series names $patch, which does not exist"
		if ! git -C "$SRC" am -q --empty=keep --whitespace=nowarn "$P/$patch" >"$OBJ/am.log" 2>&1; then
			git -C "$SRC" am --abort 2>/dev/null || true
			sed 's/^/  /' "$OBJ/am.log" >&2
			rm -f "$STAMP"
			die "patch $n ($patch) does not apply to the base; the failing file and hunk are above"
		fi
		for f in $(awk -v p="$patch" '!/^#/ && $2 == p { print $1 }' "$P/new-files" 2>/dev/null); do
			[ -f "$(new_file "$f")" ] || die "patches/$BASE/new-files: $f does not exist"
			[ -e "$SRC/$f" ] && die "patches/$BASE/new-files: $f already exists in the tree at $patch"
			mkdir -p "$(dirname "$SRC/$f")"
			cp -p "$(new_file "$f")" "$SRC/$f"
			git -C "$SRC" add -f "$f"
		done
		git -C "$SRC" diff --cached --quiet ||
			git -C "$SRC" commit -q --amend --no-edit
		printf '  %s\n' "$patch"
	done
	# Every new file must belong to a patch.
	for f in $(awk '!/^#/ { print $2 }' "$P/new-files" 2>/dev/null | sort -u); do
		grep -qx "$f" <(grep -v '^#' "$P/series") ||
			die "patches/$BASE/new-files names patch $f, which is not in its series"
	done
}

[ -e "$SRC/.git" ] && git -C "$SRC" rev-parse -q --verify base >/dev/null || make_base

want=$(series_fingerprint)
if [ "${1:-}" = --stamp-only ]; then
	printf '%s\n%s\n' "$want" "$(git -C "$SRC" rev-parse HEAD)" >"$STAMP"
	exit 0
fi
if [ "${1:-}" = --reset ]; then
	rm -f "$STAMP"
elif [ "$(sed -n 1p "$STAMP" 2>/dev/null)" = "$want" ]; then
	exit 0
fi
if unexported_work; then
	die "${SRC#$TOP/} has commits or edits that are not in patches/$BASE/, and patches/$BASE/ changed too.
  Take the change to patches/$BASE/ into the tree by hand (git am, or an edit
  there) and make export, or discard the tree's work (make reset-tree)."
fi
apply_series
printf '%s\n%s\n' "$want" "$(git -C "$SRC" rev-parse HEAD)" >"$STAMP"
