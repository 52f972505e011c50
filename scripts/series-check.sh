#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# For every patch of the series in order, on a second tree
# (build/BASE/series/src), topic by topic as make mbox writes them:
# apply it, build the kernel (and perf when the patch touches tools/, the
# selftests when it touches them), and run checkpatch.pl --strict on it.
# One line per patch; exit non-zero if any step of any patch failed.
# Each step reuses the previous patch's objects, and ccache.
#
# A patch that passed is recorded in $RECORD, kept across runs and
# sessions as ccache's cache is, under a key of everything its check
# reads: the commit as checkpatch sees it (author, message, the trees
# before and after), the harness that builds and checks it, the ignored
# checkpatch types and the compilers. A patch whose key is recorded is
# applied but not rebuilt or re-checked. Only passes are recorded, so the
# record can skip work but never turn a failure into a pass; a cold run
# (no record, or SERIES_RECORD=0) checks every patch.
. "$(dirname "$0")/lib.sh"

MBOX=$BOBJ/series/mbox "$TOP/scripts/mbox.sh" >/dev/null
export OBJ=$BOBJ/series
S=$OBJ/src
series_tree_at_base

# Checks that are ignored, each with its reason, one type per line; a type
# followed by [BASE] is ignored on that base only.
ignore=$(awk -v b="[$BASE]" '!/^#/ && ($2 !~ /^\[/ || $2 == b) { print $1 }' \
	"$TOP/scripts/checkpatch.ignore" | paste -sd, -)

RECORD=${SERIES_RECORD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/perf-mmap3/series-check}
mkdir -p "$RECORD"
harness=$( (cd "$TOP" && cat scripts/series-check.sh scripts/lib.sh scripts/deps.sh \
	scripts/build-kernel.sh scripts/build-perf.sh scripts/build-tests.sh kernel/configs/*) |
	sha256sum | cut -d' ' -f1)
tools="$(gcc --version | sed -n 1p); $(clang --version | sed -n 1p)"
# record_key: the key of the patch at HEAD of the second tree.
record_key() {
	{
		echo "$BASE $KERNEL $harness $tools ignore=$ignore"
		git -C "$S" rev-parse HEAD^^{tree} HEAD^{tree}
		git -C "$S" log -1 --format='%an <%ae>%n%B' HEAD
	} | sha256sum | cut -d' ' -f1
}

log=$OBJ/series-check.log
# progress NAME: the last step of NAME's check that the log shows.
progress() { echo "  ... $1: $(grep -E '^(==>|  [0-9]+ objects built)' "$log" | tail -1 | sed 's/^ *//')"; }
: >"$log"
fail=0 reused=0 total=0
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
	total=$((total + 1))
	key=$(record_key)
	if [ "${SERIES_RECORD:-1}" != 0 ] && [ -f "$RECORD/$key" ]; then
		printf '%-4s %-62s %s\n' ok "$(cut -c1-62 <<<"$name")" "reused: $(cat "$RECORD/$key")"
		reused=$((reused + 1))
		continue
	fi
	files=$(git -C "$S" diff-tree -r --no-commit-id --name-only HEAD)
	echo "== $name" >>"$log"
	every_minute progress "$name"
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
	stop_progress
	if [ "$bad" = 0 ]; then
		st=ok
		echo "$steps, $(date -u +%F)" >"$RECORD/$key"
	else
		st=FAIL fail=1
	fi
	printf '%-4s %-62s %s (%ss)\n' "$st" "$(cut -c1-62 <<<"$name")" "$steps" "$(( $(date +%s) - t0 ))"
done
echo "$reused of $total patches reused from the record (${RECORD/#$HOME/~})"
[ "$fail" = 0 ] || die "series-check failed (details: ${log#$TOP/})"
echo "$BASE: every patch applies, builds and passes checkpatch --strict"
