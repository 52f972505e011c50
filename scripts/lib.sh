# SPDX-License-Identifier: GPL-2.0
# Common settings for the build, VM and test harness. Sourced, not run.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$TOP/build

# The bases the series is carried on, the default first. Each has its
# series in patches/BASE/ and builds in build/BASE/. 7.3 is mainline's
# current release, which the series is posted from; 6.12 and 6.1 are the
# maintained backports.
BASES="7.3 6.12 6.1"
BASE=${BASE:-${BASES%% *}}
# BASE_DEB: the version of Debian's linux-source-BASE that is the base.
# Debian uploads a new stable release into the same package (6.12.118 went
# into bookworm-security), and that would be another base: deps.sh installs
# this version, and tree.sh checks the Linux version in it.
# BASE_SUITE: the Debian suite that has linux-source-BASE when this
# machine's (bookworm) does not. deps.sh fetches that one package from
# it, without adding the suite to the machine's sources.
BASE_SUITE=
case $BASE in
6.1) BASE_VERSION=6.1.192 BASE_DEB=6.1.192-3 ;;
6.12) BASE_VERSION=6.12.117 BASE_DEB=6.12.117-1~deb12u1 ;;
7.3) BASE_VERSION=7.3.4 BASE_DEB=7.3.4-1~bpo13+1 BASE_SUITE=trixie-backports ;;
*) echo "error: BASE=$BASE: the bases are $BASES" >&2; exit 1 ;;
esac
# KSELFTEST_FS: the file systems of scripts/guest/scratch-fs.sh on which
# the guest runs the MMAP3 kselftests again, besides its /tmp (a tmpfs).
KSELFTEST_FS="btrfs ext4 xfs overlayfs"
BASE_PKG=linux-source-$BASE
if [ -n "$BASE_SUITE" ]; then
	BASE_TARBALL=${BASE_TARBALL:-$B/debs/$BASE_PKG.tar.xz}
else
	BASE_TARBALL=${BASE_TARBALL:-/usr/src/$BASE_PKG.tar.xz}
fi
P=$TOP/patches/$BASE
# OBJ is the root of one tree and its builds: build/BASE/ for the series
# under test, build/BASE/series/ for make series-check and make baseline.
BOBJ=$B/$BASE
OBJ=${OBJ:-$BOBJ}
SRC=$OBJ/src
KERNEL=${KERNEL:-default}
KBUILD=$OBJ/kbuild/$KERNEL
JOBS=${JOBS:-$(nproc)}
mkdir -p "$B"

# ccache: paths under build/ are hashed relative to the build directory,
# so the main tree and the series-check tree share cache entries.
export PATH=/usr/lib/ccache:$PATH
export CCACHE_BASEDIR=$B CCACHE_NOHASHDIR=1

# git am and commit need a committer; a fresh machine may have none.
if ! git config user.email >/dev/null 2>&1; then
	export GIT_COMMITTER_NAME=rig GIT_COMMITTER_EMAIL=rig@localhost
fi

stage() { printf '\n==> %s\n' "$*"; }

# up_to_date STAMP PATH...: STAMP exists and no file in the PATHs (but a
# .git) is newer. A build takes its stamp before it starts, so that a file
# saved while it runs is newer, and keeps it only when it succeeds. This
# saves make's walk of an unchanged tree: 6 s for the kernel, 5 for perf.
up_to_date() {
	local s=$1
	shift
	[ -f "$s" ] && [ -z "$(find "$@" -name .git -prune -o -newer "$s" -print -quit 2>&1)" ]
}
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# every_minute CMD...: while a long step runs, print what CMD prints once
# a minute (how far the step has got), so that it does not look hung.
# stop_progress ends it; it ends on its own when the script that started
# it has exited. Its sleep outlives it by up to a minute, so the sleep
# holds no output open: out=$(vm.sh ...) would wait for it.
every_minute() {
	(while sleep 60 </dev/null >/dev/null 2>&1 && kill -0 $$ 2>/dev/null; do "$@" || true; done) &
	progress_pid=$!
}
stop_progress() {
	kill "${progress_pid:-}" 2>/dev/null || true
	wait "${progress_pid:-}" 2>/dev/null || true
}

# new_file F: the copy of F, a file new to the tree, that this base's series
# adds. A file that is the same on every base is kept once, at its in-tree
# path; a base whose copy differs keeps its own in patches/BASE/files/.
new_file() {
	if [ -e "$P/files/$1" ]; then
		echo "$P/files/$1"
	else
		echo "$TOP/$1"
	fi
}

# last_whole_check [BASE]: the run directory of BASE's last whole make check
# (one that ended with a summary and ran every test, not some TESTS), or
# nothing.
last_whole_check() {
	local d run=
	for d in "$B/${1:-$BASE}"/runs/*-check; do
		[ -s "$d/summary" ] && ! grep -q " rig\.tests=" "$d/info.txt" 2>/dev/null && run=$d
	done
	[ -z "$run" ] || echo "$run"
}

# The second tree, build/BASE/series/src: a worktree of build/BASE/src reset
# to the base, for make series-check and make baseline.
series_tree_at_base() {
	local s=$BOBJ/series/src
	if [ ! -e "$s/.git" ]; then
		stage "making the second tree, ${s#$TOP/}"
		git -C "$BOBJ/src" worktree prune
		git -C "$BOBJ/src" worktree add -q --detach "$s" base
	fi
	git -C "$s" am --abort >/dev/null 2>&1 || true
	git -C "$s" checkout -q -f --detach base
	git -C "$s" clean -q -fdx
}
