#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write build/mbox/: the series as git format-patch output with a generated
# cover letter, one file per patch plus series.mbox with all of them. New
# files are in the patch that creates them, so "git am build/mbox/*.patch"
# on a clean 6.1.192 tree gives the tree make check builds.
. "$(dirname "$0")/lib.sh"

out=${MBOX:-$B/mbox}
cd "$SRC" || die "no build/src; run make tree"
[ -z "$(git status --porcelain -uno)" ] ||
	echo "warning: build/src has uncommitted edits; they are not in the mbox" >&2
n=$(git rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "the series is empty"

rm -rf "$out" && mkdir -p "$out"
git format-patch -q --zero-commit --no-signature --cover-letter --thread=shallow \
	--subject-prefix=PATCH -o "$out" base..HEAD

# The cover letter: our text, then what format-patch generated (shortlog and
# diffstat), with the base and the numbers of the last test run.
cover=$(ls "$out"/0000-cover-letter.patch)
last=$B/runs/last
tested="not yet tested: run make check"
if [ -f "$last/summary" ]; then
	tested="make check on $(cat "$last/info.txt" 2>/dev/null | head -1 | awk '{print $3}') under QEMU ($(cut -d' ' -f1 "$last/vm-time" 2>/dev/null)): $(cat "$last/summary")"
fi
bench=$B/runs/bench.txt
{
	# The headers, with our subject; then our text where the blurb was.
	sed -n '1,/^$/p' "$cover" |
		sed 's/\*\*\* SUBJECT HERE \*\*\*/perf: PERF_RECORD_MMAP3, with inode identity, mtime and build-id/'
	sed -e "s|@BASE@|Linux $BASE_VERSION, as Debian's linux-source-6.1 ships it|" \
	    -e "s|@TESTED@|$tested|" "$TOP/scripts/cover-letter.txt"
	if [ -f "$bench" ]; then
		echo
		echo "Cost of the mmap hook (make bench, ratios in one boot):"
		echo
		sed 's/^/  /' "$bench"
	fi
	sed '1,/\*\*\* BLURB HERE \*\*\*/d' "$cover"
} >"$cover.new"
mv "$cover.new" "$cover"
cat "$out"/*.patch >"$out/series.mbox"
echo "wrote ${out#$TOP/}: cover letter and $n patches, series.mbox"
