#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# timed.sh NAME COMMAND...: run COMMAND and, when it did work, append a
# line to build/BASE/times/NAME.tsv: the date, the project's commit, the
# seconds it took, and ccache's hits and misses during it, by which make
# figures tells a cold build from a warm one. A step that was up to date
# (no compile, under 30 s) is not recorded; a failed one neither.
. "$(dirname "$0")/lib.sh"

name=$1
shift
stats() { ccache --print-stats 2>/dev/null |
	awk '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 == "cache_miss" { m = $2 }
	END { print h + 0, m + 0 }'; }
read -r h0 m0 < <(stats)
t0=$(date +%s)
"$@"
t=$(( $(date +%s) - t0 ))
read -r h1 m1 < <(stats)
hits=$((h1 - h0)) misses=$((m1 - m0))
[ $((hits + misses)) -gt 0 ] || [ "$t" -ge 30 ] || exit 0
mkdir -p "$BOBJ/times"
printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" \
	"$(git -C "$TOP" describe --always --dirty 2>/dev/null)" "$t" "$hits" "$misses" \
	>>"$BOBJ/times/$name.tsv"
