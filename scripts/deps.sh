#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the harness needs, or with arguments only
# those packages. Idempotent: only what is missing is installed.
#
# What each step runs, and the package it comes from. A minimal bookworm
# root (debootstrap --variant=minbase, plus git and make, which the README
# asks for) has bash, dash, coreutils, diffutils, findutils, grep, sed,
# mawk, gzip, tar, util-linux (unshare, setpriv), libc-bin (ldd) and perl;
# everything else is listed here. make fresh-check proves the list.
#
#   tree.sh        tar -xJ of the base's tarball            linux-source-BASE xz-utils
#                  a base from another suite (BASE_SUITE):  apt (essential), dpkg
#                  apt-get download of its linux-source
#                  with a private apt configuration
#                  git init/am/worktree/format-patch        git
#   kernel build   gcc, ld, as, nm, objcopy, make            build-essential
#                  kconfig's lexer and parser                bison flex
#                  timeconst.h                               bc
#                  objtool, relocs                           libelf-dev
#                  bzImage compression (tiny.config: XZ)     xz-utils
#                  BTF of vmlinux (DEBUG_INFO_BTF)           dwarves
#                  headers_install                           rsync
#                  ccache gcc                                ccache
#   perf build     flex, bison, gcc; libelf, libdw, slang,   libelf-dev libdw-dev
#                  zlib (build-perf.sh fails without one)    libslang2-dev zlib1g-dev
#                  zstd: perf record -z (the Zstd test)      libzstd-dev
#                  sys/sdt.h: "Probe SDT events"             systemtap-sdt-dev
#                  BPF skeletons (BUILD_BPF_SKEL=1)          clang
#                  libpfm4: the --pfm-events tests           libpfm4-dev
#                  libbfd: "PE file support"                 binutils-dev
#                  6.12: perf builds only with the system's  libtraceevent-dev
#                  libtraceevent (6.1 has its own in tools/)
#                  6.12: Makefile.config finds libtraceevent pkg-config
#                  with pkg-config, and stops without it
#                  JVMTI agent: "Test java symbol"           default-jdk-headless
#                  what Debian's linux-perf has: lzma,       liblzma-dev libnuma-dev
#                  libnuma, libunwind, libperl, libpython    libunwind-dev libperl-dev
#                  (its binding's setup.py), CoreSight       python3-dev python3-setuptools
#                  decoding, 6.1's libcap                    libopencsd-dev libcap-dev
#                  perf data convert --to-ctf (6.12, 6.1)    libbabeltrace-dev
#                  7.3's --to-ctf: babeltrace2's CTF writer  libbabeltrace2-dev, and
#                  (fetch_ctf_writer)                        sid's headers of it
#   make fuzz      afl-clang-fast, afl-fuzz                  afl++
#                  python3-config: without it perf quietly   python3-dev
#                  builds with NO_JEVENTS=1, no JSON events
#                  ASan and UBSan runtimes (make perf-san)   build-essential (gcc-12)
#   make fuzz-kernel  trinity, in the guest (installed when  trinity
#                  the target runs, not by make check)
#   selftests      gcc against headers_install's headers     build-essential rsync
#   test modules   Kbuild M=; rsync of the sources           build-essential rsync
#   vm.sh          qemu-system-x86_64, SeaBIOS, -virtfs      qemu-system-x86
#   host tests     readelf, nm, objcopy                      build-essential (binutils)
#                  python3 (struct, argparse, bisect:        python3
#                  the standard library only)
#                  perf of Debian's 6.1 (stock_perf tests)   linux-perf
#                  hotspot-perfparser (perfparser.sh)        hotspot
#                  babeltrace: reads perf's CTF output back  babeltrace
#                  libc's symbols, for perf and perfparser   libc6-dbg
#   series-check   checkpatch.pl (Term::ANSIColor, Encode)   perl
#                  spdxcheck.py: modules ply and git         python3-ply python3-git
#   in the guest   the host's own root, read-only (vm.sh): its bash, mount,
#                  chroot, setpriv (minbase), perl (init's reboot(2)),
#                  insmod, lsmod, rmmod                      kmod
#                  perf test: cc, readelf, objdump           build-essential (binutils)
#                  perf test: attr.py, the stat linters      python3
#                  perf test: attr.py's workload, kill       procps
#                  perf test: ping ::1 (probe inet_pton),    iputils-ping
#                  perf test: BPF events from C (clang, llc) clang llvm
#                  perf test: buildid.sh's PE build id       bsdextrautils (hexdump)
#                  perf test: Test java symbol (jshell)      default-jdk-headless
#                  init: ip link set lo up                   iproute2
#                  changed-dso-fs: mkfs.btrfs, btrfs         btrfs-progs
#                  the MMAP3 kselftests on each file         btrfs-progs e2fsprogs
#                  system: mkfs.btrfs, mkfs.ext4, mkfs.xfs   xfsprogs
#                  changed-dso-cases: gcc, dpkg-deb, rsync   build-essential rsync (dpkg
#                                                            is essential)
#
# No step calls elfutils or libssl-dev today. They stay for the kernel and
# perf tests that may use them: eu-readelf, perf's libcrypto.
. "$(dirname "$0")/lib.sh"

PKGS="libtraceevent-dev pkg-config build-essential bc bison flex kmod xz-utils git
      libelf-dev libdw-dev libslang2-dev zlib1g-dev libzstd-dev libssl-dev libcap-dev
      ccache qemu-system-x86 linux-perf elfutils python3 python3-ply
      rsync python3-dev python3-git perl systemtap-sdt-dev iproute2 iputils-ping
      btrfs-progs e2fsprogs xfsprogs hotspot libc6-dbg procps dwarves clang llvm libpfm4-dev
      binutils-dev default-jdk-headless afl++ bsdextrautils liblzma-dev libnuma-dev
      libunwind-dev libperl-dev python3-setuptools libopencsd-dev libbabeltrace-dev
      babeltrace libbabeltrace2-dev"
# A base from another suite is fetched apart (fetch_base), not installed.
[ -n "$BASE_SUITE" ] || PKGS="$BASE_PKG=$BASE_DEB $PKGS"
[ $# = 0 ] || PKGS="$*"

# private_apt SUITE: apt's options for a private configuration under
# build/debs/apt-SUITE/ with Debian's SUITE as its only source, for one
# download: the machine's sources, preferences and installed packages are
# left alone. Sets the array apt.
private_apt() {
	local a=$B/debs/apt-$1
	apt=(-o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/dev/null
	     -o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache"
	     -o Dir::State::Status=/dev/null -o APT::Sandbox::User=root)
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
		"http://deb.debian.org/debian $1 main" >"$a/sources.list"
	apt-get "${apt[@]}" update -qq >"$B/debs/apt.log" 2>&1 ||
		{ tail -5 "$B/debs/apt.log" >&2; die "apt-get update of Debian's $1 failed (log: build/debs/apt.log)"; }
}

# fetch_base: the tarball of a base that this machine's suite does not
# have, from Debian's BASE_SUITE.
fetch_base() {
	local d=$B/debs
	local -a apt

	[ -r "$BASE_TARBALL" ] && return 0
	stage "fetching $BASE_PKG from Debian's $BASE_SUITE"
	mkdir -p "$d"
	private_apt "$BASE_SUITE"
	(cd "$d" && apt-get "${apt[@]}" download "$BASE_PKG=$BASE_DEB" >>"$d/apt.log" 2>&1) ||
		{ tail -5 "$d/apt.log" >&2; die "could not fetch $BASE_PKG $BASE_DEB from $BASE_SUITE (log: build/debs/apt.log)"; }
	dpkg-deb --fsys-tarfile "$d/${BASE_PKG}_"*.deb |
		tar -xOf - "./usr/src/$BASE_PKG.tar.xz" >"$BASE_TARBALL.tmp" ||
		die "no usr/src/$BASE_PKG.tar.xz in $(echo "$d/${BASE_PKG}_"*.deb)"
	mv "$BASE_TARBALL.tmp" "$BASE_TARBALL"
	rm -f "$d/${BASE_PKG}_"*.deb
}

# fetch_ctf_writer: the headers of babeltrace2's CTF writer, which 7.3's
# perf data convert --to-ctf is written against. bookworm's
# libbabeltrace2-dev (2.0.4) installs the library, libbabeltrace2-ctf-writer,
# and its pkg-config file, but not its headers, which babeltrace2 installs
# from 2.1 on. The API is babeltrace 1's CTF writer, unchanged since: the
# headers come from sid's libbabeltrace2-dev, unpacked into
# build/debs/ctf-writer/ (build-perf.sh adds them with -isystem), and only
# when sid's library exports what bookworm's does, no more and no less.
fetch_ctf_writer() {
	local d=$B/debs/ctf-writer
	local -a apt
	local so=/usr/lib/x86_64-linux-gnu/libbabeltrace2-ctf-writer.so.0

	[ -r "$d/usr/include/babeltrace2-ctf-writer/writer.h" ] && return 0
	stage "fetching babeltrace2's CTF writer headers from Debian's sid"
	private_apt sid
	rm -rf "$d" && mkdir -p "$d"
	(cd "$d" && apt-get "${apt[@]}" download libbabeltrace2-dev libbabeltrace2-0 >>"$B/debs/apt.log" 2>&1) ||
		{ tail -5 "$B/debs/apt.log" >&2; die "could not fetch libbabeltrace2-dev from sid (log: build/debs/apt.log)"; }
	for f in "$d"/*.deb; do
		dpkg-deb -x "$f" "$d" || die "cannot unpack $f"
	done
	syms() { nm -D --defined-only "$1" | awk '$2 == "T" { print $3 }' | sort; }
	[ -n "$(syms "$so")" ] && cmp -s <(syms "$so") <(syms "$d$so") ||
		die "sid's libbabeltrace2-ctf-writer exports other functions than $so: its headers may not fit"
	rm -f "$d"/*.deb
}

# A package given as NAME=VERSION (the base) is missing unless it is
# installed at that version; apt-get then installs that one, older or not.
missing=
for p in $PKGS; do
	v=$(dpkg-query -W -f='${Status} ${Version}' "${p%%=*}" 2>/dev/null) || true
	case $p in
	*=*) [[ $v == *" ok installed ${p#*=}" ]] || missing="$missing $p" ;;
	*) [[ $v == *" ok installed"* ]] || missing="$missing $p" ;;
	esac
done
if [ -n "$missing" ]; then
	stage "installing Debian packages:$missing"
	[ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root, or: sudo apt-get install$missing)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || die "apt-get update failed; cannot install:$missing"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends --allow-downgrades $missing >"$B/apt.log" 2>&1 ||
		{ tail -20 "$B/apt.log" >&2; die "apt-get install failed for:$missing (log: build/apt.log)"; }
fi
[ $# != 0 ] || [ -z "$BASE_SUITE" ] || fetch_base
[ $# != 0 ] || [ "$BASE" != 7.3 ] || fetch_ctf_writer
