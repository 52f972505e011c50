#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run upstream's own tests (the perf_events kselftests and perf test) on the
# unpatched base with our config, and record which pass in
# scripts/upstream-baseline-BASE.txt. Reasons already written there for tests
# that fail or skip are kept; a new one gets a placeholder to fill in.
. "$(dirname "$0")/lib.sh"

out=$TOP/scripts/upstream-baseline-$BASE.txt
export OBJ=$BOBJ/series
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
	echo "# written by make baseline. Columns: suite, test, result on the base, why it fails or skips there."
	echo "# The reasons are ours, from each test's source and log; make baseline keeps them."
	awk -F'\t' -v OFS='\t' '
	FILENAME == ARGV[1] { if ($0 !~ /^#/) why[$1 "\t" $2] = $4; next }
	$2 !~ /^(kselftest|perf-test)/ { next }
	{
		# A failure or a skip needs a reason: one written here before, or a
		# placeholder that shows in make check until someone writes it.
		k = $2 "\t" $3
		r = ""
		if ($1 != "pass") r = ((k in why) && why[k] != "" && why[k] !~ /^TODO/) ? why[k] : "TODO: say why (" $4 ")"
		# A test that passes but not always keeps its "flaky: why".
		else if (why[k] ~ /^flaky:/) r = why[k]
		print $2, $3, $1, r
	}' "$prev" "$res"
} >"$out.new"
mv "$out.new" "$out"
echo "wrote ${out#$TOP/}: $(grep -vc '^#' "$out") tests, $(grep -c '	pass	' "$out") pass on the base"
