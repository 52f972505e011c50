#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run upstream's own tests (the perf_events kselftests and perf test) on the
# unpatched base with our config, and record which pass in
# scripts/upstream-baseline.txt. Reasons already written there for tests
# that fail are kept; a new failure gets a placeholder to fill in.
. "$(dirname "$0")/lib.sh"

out=$TOP/scripts/upstream-baseline.txt
export OBJ=$B/series
series_tree_at_base
"$TOP/scripts/build-kernel.sh"
"$TOP/scripts/build-perf.sh"
"$TOP/scripts/build-tests.sh"
BASELINE=/dev/null "$TOP/scripts/check.sh" upstream || true

res=$OBJ/runs/last/results.tsv
prev=$out
[ -f "$prev" ] || prev=/dev/null
[ -s "$res" ] || die "the baseline run gave no results (${OBJ#$TOP/}/runs/last)"
{
	echo "# Upstream's tests on the unpatched Linux $BASE_VERSION with kernel/configs/perf_test.config,"
	echo "# written by make baseline. Columns: suite, test, result on the base, why it fails there."
	echo "# The reasons are ours, from each test's source and log; make baseline keeps them."
	awk -F'\t' -v OFS='\t' '
	FILENAME == ARGV[1] { if ($0 !~ /^#/) why[$1 "\t" $2] = $4; next }
	$2 !~ /^(kselftest|perf-test)/ { next }
	{
		# A failure needs a reason; a skip has perf test'"'"'s own, if any.
		r = $4
		if ($1 == "fail") r = ((($2 "\t" $3) in why) && why[$2 "\t" $3] != "") ? why[$2 "\t" $3] : "TODO: say why (" $4 ")"
		else if ($1 == "pass") r = ""
		print $2, $3, $1, r
	}' "$prev" "$res"
} >"$out.new"
mv "$out.new" "$out"
echo "wrote ${out#$TOP/}: $(grep -vc '^#' "$out") tests, $(grep -c '	pass	' "$out") pass on the base"
