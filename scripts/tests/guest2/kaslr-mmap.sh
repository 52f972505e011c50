#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The same as scripts/tests/guest/kaslr-mmap.sh, in the second boot, where
# KASLR chose another offset: scripts/tests/host/kaslr-relocate.sh checks
# the relocation for both boots.
exec bash "$(dirname "$0")/../guest/kaslr-mmap.sh" "$@"
