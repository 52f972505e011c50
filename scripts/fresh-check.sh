#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fresh-check: prove that the README's two commands work on a fresh
# machine. In a minimal Debian bookworm root (debootstrap --variant=minbase,
# plus make and git, the README's prerequisites), made from the archive that
# apt uses here, clone the committed HEAD and run "make demo" and then
# "make check" in a chroot that has only /proc, /sys and /dev of the host,
# and the host's ccache, on BASE (the default base unless given).
#
# The debootstrapped root is kept pristine in build/fresh/bookworm.tar, and
# each run starts from a new copy of it: nothing an earlier run installed can
# hide a missing step. Fails if either command fails, if a log shows a
# program or a module that was not there, or if a test that passed in the
# host's last full make check did not pass in the fresh root.
. "$(dirname "$0")/lib.sh"

F=$B/fresh
R=$F/root
TAR=$F/bookworm.tar
PROJ=/work/project
mkdir -p "$F"

"$TOP/scripts/deps.sh" debootstrap

mounted() { grep -q " $R/" /proc/mounts; }
umount_all() {
	local m
	# Innermost first.
	for m in $(awk -v r="$R/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null || true
	done
}
trap umount_all EXIT

# The archive and suites apt uses here (Debian's only, not third parties').
sources=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT) $(ORIGIN)' \
	'Identifier: Packages' | awk '$4 == "Debian" && $2 ~ /^bookworm/' | sort -u)
mirror=$(awk '$2 == "bookworm" { print $1; exit }' <<<"$sources")
[ -n "$mirror" ] || die "apt here has no Debian bookworm archive to debootstrap from"

if [ ! -f "$TAR" ]; then
	stage "debootstrap: a minimal bookworm root from $mirror (kept as ${TAR#$TOP/})"
	umount_all
	mounted && die "$R still has mounts; not removing it"
	rm -rf "$R" "$F/root.tmp"
	debootstrap --variant=minbase --include=make,git bookworm "$F/root.tmp" "$mirror" \
		>"$F/debootstrap.log" 2>&1 ||
		{ tail -20 "$F/debootstrap.log" >&2; die "debootstrap failed (log: ${F#$TOP/}/debootstrap.log)"; }
	awk '{ print "deb " $1 " " $2 " " $3 }' <<<"$sources" >"$F/root.tmp/etc/apt/sources.list"
	rm -rf "$F/root.tmp/var/cache/apt/archives/"*.deb "$F/root.tmp/var/lib/apt/lists/"*_*
	tar -C "$F/root.tmp" -cf "$TAR.tmp" .
	mv "$TAR.tmp" "$TAR"
	rm -rf "$F/root.tmp"
fi

stage "a new root from ${TAR#$TOP/}, with the project's HEAD ($(git -C "$TOP" rev-parse --short HEAD))"
umount_all
mounted && die "$R still has mounts; not removing it"
rm -rf "$R"
mkdir -p "$R"
tar -C "$R" -xf "$TAR"
cp /etc/resolv.conf "$R/etc/resolv.conf"
git clone -q --no-local "$TOP" "$R$PROJ"
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount --rbind /dev "$R/dev"
mount --make-rslave "$R/dev"
# The host's ccache, the compilers' output only. It hides no missing
# package: ccache hashes each file that a compile included and falls back
# to the preprocessor when one is gone, and it does not cache links, nor
# perf's feature tests, which compile and link in one command. It saves the
# half hour of a cold kernel and perf build on two cores.
cache=$(ccache -k cache_dir 2>/dev/null) || true
if [ -d "$cache" ]; then
	mkdir -p "$R/root/.cache/ccache"
	mount --bind "$cache" "$R/root/.cache/ccache"
fi

# run NAME: the README's "make NAME" in the root, as a new user's shell would.
fail=0
run() {
	local log=$F/$1.log t0 rc=0
	stage "make $1 in the fresh root (log: ${log#$TOP/})"
	t0=$(date +%s)
	chroot "$R" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash -c "cd $PROJ && make $1 BASE=$BASE" </dev/null >"$log" 2>&1 || rc=$?
	t=$(( $(date +%s) - t0 ))
	grep -E '^==> ' "$log" | sed 's/^/  /'
	if [ "$rc" = 0 ]; then
		printf 'make %s: ok in %dm%02ds\n' "$1" $((t / 60)) $((t % 60))
	else
		tail -30 "$log" | sed 's/^/  /'
		printf 'make %s: FAILED (exit %d) after %dm%02ds\n' "$1" "$rc" $((t / 60)) $((t % 60))
		fail=1
	fi
	printf 'make %s\t%s\t%d\n' "$1" "$rc" "$t" >>"$F/times"
}
: >"$F/times"
run demo
[ "$fail" = 0 ] && run check

umount_all
mounted && die "could not unmount everything under $R"

# Anything the root lacked shows in a log as a program, a Python module or a
# Perl module that was not found, or as perf's Makefile.config naming what
# it needs ("pkg-config needed by libtraceevent is missing on this system").
stage "looking for what the fresh root lacked"
# The guest runs on this root's userspace too, so our guest tests' logs
# count. perf test's log does not: upstream's tests probe for optional
# tools (wine, clang) and say so; the comparison below judges them.
missing=': (command )?not found$| is missing on this system|^/usr/bin/env: .*: No such file or directory$|Error 127$|No module named|ModuleNotFoundError|Can.t locate .* in @INC'
runs=$R$PROJ/build/$BASE/runs
logs=$(find "$F"/demo.log "$F"/check.log "$runs"/*/host "$runs"/*/guest "$runs"/*/run.log \
	"$R$PROJ/build" -path "$runs" -prune -o -name '*.log' -type f -print 2>/dev/null || true)
# shellcheck disable=SC2086
if grep -EHn "$missing" $logs 2>/dev/null | sed "s|$R||" >"$F/missing.txt"; then
	sed -n '1,30s/^/  /p' "$F/missing.txt"
	echo "the fresh root needed something that scripts/deps.sh did not install (${F#$TOP/}/missing.txt)"
	fail=1
else
	echo "  nothing"
fi

# Each test must end here as in the host's last full make check: a skip
# here ("no readelf", say) is a dependency that deps.sh missed, and so is a
# pass where the host's skips (attr.py's workload, kill, once passed every
# case as unsupported).
ref=$(last_whole_check)
new=$(ls -d "$runs"/*-check 2>/dev/null | tail -1) || true
if [ -f "$ref/results.tsv" ] && [ -f "$new/results.tsv" ]; then
	stage "comparing with the host's ${ref#$TOP/}"
	was=$(cat "$ref/project" 2>/dev/null || echo "an unrecorded commit")
	[ "$was" = "$(git -C "$TOP" describe --always)" ] ||
		echo "  note: the host's run tested $was, not HEAD: a difference can come from the commits between; run make check on the host first"
	if awk -F'\t' 'NR == FNR { was[$2 "\t" $3] = $1; next }
		($2 "\t" $3) in was && $1 != was[$2 "\t" $3] {
			print "  " $1 " (host: " was[$2 "\t" $3] ") " $2 ": " $3 ": " $4; bad = 1
		}
		END { exit bad }' "$ref/results.tsv" "$new/results.tsv"; then
		echo "  every test ended in the fresh root as on the host"
	else
		echo "tests ended otherwise in the fresh root than on the host"
		fail=1
	fi
	cp "$new/results.tsv" "$F/results.tsv"
elif [ -f "$new/results.tsv" ]; then
	echo "note: no full make check of the host's to compare with"
fi

stage "fresh-check"
awk -F'\t' '{ printf "  %-11s %s in %dm%02ds\n", $1, ($2 == 0 ? "ok" : "FAILED"), $3 / 60, $3 % 60 }' "$F/times"
[ "$fail" = 0 ] || die "make fresh-check failed"
echo "the README's commands work on a fresh bookworm root"
