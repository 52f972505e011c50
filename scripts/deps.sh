#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the harness needs. Idempotent: only what is
# missing is installed.
. "$(dirname "$0")/lib.sh"

PKGS="linux-source-6.1 build-essential bc bison flex cpio kmod xz-utils git
      libelf-dev libdw-dev libslang2-dev zlib1g-dev libssl-dev libcap-dev
      ccache qemu-system-x86 busybox-static linux-perf elfutils python3 python3-ply"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

stage "installing Debian packages:$missing"
[ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root, or: sudo apt-get install$missing)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || die "apt-get update failed; cannot install:$missing"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >"$B/apt.log" 2>&1 ||
	{ tail -20 "$B/apt.log" >&2; die "apt-get install failed for:$missing (log: build/apt.log)"; }
