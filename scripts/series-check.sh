#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# For every patch of the series in order, on a second tree
# (build/BASE/series/src), topic by topic as make mbox writes them:
# apply it, build the kernel (and perf when the patch touches tools/, the
# selftests when it touches them), and run checkpatch.pl --strict on it.
# One line per patch; exit non-zero if any step of any patch failed.
# Each step reuses the previous patch's objects, and ccache.
. "$(dirname "$0")/lib.sh"

MBOX=$BOBJ/series/mbox "$TOP/scripts/mbox.sh" >/dev/null
export OBJ=$BOBJ/series
S=$OBJ/src
series_tree_at_base

# Checks that are ignored, each with its reason, one type per line; a type
# followed by [BASE] is ignored on that base only.
ignore=$(awk -v b="[$BASE]" '!/^#/ && ($2 !~ /^\[/ || $2 == b) { print $1 }' \
	"$TOP/scripts/checkpatch.ignore" | paste -sd, -)

log=$OBJ/series-check.log
: >"$log"
fail=0
stage "checking each patch: apply, build, checkpatch --strict (log: ${log#$TOP/})"
for p in "$OBJ"/mbox/[0-9]*-*/0*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	name=$(basename "$p" .patch)
	steps= bad=0 t0=$(date +%s)
	if ! git -C "$S" am -q "$p" >>"$log" 2>&1; then
		git -C "$S" am --abort >/dev/null 2>&1
		printf 'FAIL %s: does not apply\n' "$name"
		fail=1
		break
	fi
	files=$(git -C "$S" diff-tree -r --no-commit-id --name-only HEAD)
	echo "== $name" >>"$log"
	if "$TOP/scripts/build-kernel.sh" >>"$log" 2>&1; then steps="kernel ok"
	else steps="kernel FAILED"; bad=1; fi
	if grep -qE '^tools/(perf|lib|include|build|arch|scripts)/' <<<"$files"; then
		if "$TOP/scripts/build-perf.sh" >>"$log" 2>&1; then steps="$steps, perf ok"
		else steps="$steps, perf FAILED"; bad=1; fi
	fi
	if grep -q '^tools/testing/selftests/perf_events/' <<<"$files"; then
		if "$TOP/scripts/build-tests.sh" >>"$log" 2>&1; then steps="$steps, selftests ok"
		else steps="$steps, selftests FAILED"; bad=1; fi
	fi
	# checkpatch passes over a helper that fails (spdxcheck.py without
	# its Python modules, say) with only a traceback on stderr: any
	# stderr is a failure.
	if (cd "$S" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict -q --ignore "$ignore" "$p") >>"$log" 2>"$OBJ/checkpatch.err"
	then
		if [ -s "$OBJ/checkpatch.err" ]; then
			steps="$steps, checkpatch FAILED: a helper failed: $(grep -v '^ ' "$OBJ/checkpatch.err" | tail -1 | cut -c1-80)"
			bad=1
		else
			steps="$steps, checkpatch ok"
		fi
	else steps="$steps, checkpatch FAILED"; bad=1; fi
	cat "$OBJ/checkpatch.err" >>"$log"
	[ "$bad" = 0 ] && st=ok || { st=FAIL; fail=1; }
	printf '%-4s %-62s %s (%ss)\n' "$st" "$(cut -c1-62 <<<"$name")" "$steps" "$(( $(date +%s) - t0 ))"
done
[ "$fail" = 0 ] || die "series-check failed (details: ${log#$TOP/})"
echo "$BASE: every patch applies, builds and passes checkpatch --strict"
