#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# figures.sh: write FIGURES.md, the latest measured runs of each base,
# from what they left under build/: the last make check's summary line,
# its time and the guest's (build/BASE/runs/), the last cold and warm
# builds of the kernel and perf (build/BASE/times/, scripts/timed.sh),
# make bench's table with its spread (build/BASE/runs/bench.txt), and the
# commit, the date and the machine. A base with no runs on this machine
# keeps its row and its bench table from the FIGURES.md before.
. "$(dirname "$0")/lib.sh"

out=$TOP/FIGURES.md
old=$(cat "$out" 2>/dev/null || true)
machine="$(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"

# build NAME: "COLD / WARM" seconds of the last cold and warm build. A
# whole build compiles at least half as many objects as the largest one
# on record (an incremental one, of a file or two, is neither); it is
# cold when ccache missed more than it hit.
build() {
	awk -F'\t' 'NR == FNR { if ($4 + $5 > n) n = $4 + $5; next }
		2 * ($4 + $5) < n { next }
		$5 > $4 { c = $3 } $5 <= $4 { w = $3 } END {
		printf "%s / %s", c == "" ? "-" : c " s", w == "" ? "-" : w " s" }' \
		"$B/$1/times/$2.tsv" "$B/$1/times/$2.tsv" 2>/dev/null || echo "- / -"
}

# row BASE: the table row of BASE's last whole make check (not one of
# some TESTS), or nothing.
row() {
	local base=$1 run sum start end t guest
	run=$(last_whole_check "$base")
	[ -n "$run" ] || return 0
	sum=$(cat "$run/summary")
	# check.sh's own time, after the builds: from the run's start (its
	# name) to its summary.
	start=$(basename "$run" | sed -E 's/^([0-9]{8})-([0-9]{2})([0-9]{2})([0-9]{2}).*/\1 \2:\3:\4/')
	end=$(stat -c %Y "$run/summary")
	t=$(( end - $(date -d "$start" +%s) ))
	guest=$(awk '{ printf "%s s (%s)", $2, $1 }' "$run/vm-time" 2>/dev/null)
	printf '| %s | %s | %s s | %s | %s | %s | %s | %s | %s |\n' "$base" "$sum" "$t" "$guest" \
		"$(build "$base" kernel-default)" "$(build "$base" perf)" \
		"$(cat "$run/project" 2>/dev/null)" "$(date -u -d @"$end" +%F)" "$machine"
}

{
	echo "# Figures"
	echo
	echo "Written by \`make figures\` from the latest runs under build/ (scripts/figures.sh);"
	echo "a base with no runs on the machine that wrote it keeps its earlier row."
	echo "\"check\" is make check's time after its builds, the guest's is QEMU's;"
	echo "builds are the last cold (empty ccache) and warm one."
	echo "Compare ratios measured in one run: machines of one kind differ up to 2.5x."
	echo
	echo "| base | make check | check | guest | kernel cold / warm | perf cold / warm | commit | date | machine |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for base in $BASES; do
		r=$(row "$base")
		[ -n "$r" ] || r=$(grep -F "| $base | " <<<"$old" | head -1 || true)
		[ -z "$r" ] || echo "$r"
	done
	for base in $BASES; do
		echo
		echo "<!-- bench $base -->"
		if [ -s "$B/$base/runs/bench.txt" ]; then
			echo "## make bench, $base ($(date -u -r "$B/$base/runs/bench.txt" +%F), $machine)"
			echo
			echo '```'
			cat "$B/$base/runs/bench.txt"
			echo '```'
		else
			awk -v b="$base" '$0 == "<!-- bench " b " -->" { on = 1; next }
				/^<!-- end / { on = 0 } on' <<<"$old"
		fi
		echo "<!-- end $base -->"
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
