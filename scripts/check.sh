#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh MODE: boot the built kernel, run MODE in the guest (check,
# upstream, demo, bench), run the host-side tests on what came back, and
# print the results. The run's files stay in build/runs/<time>-MODE, and
# build/runs/last points at it.
. "$(dirname "$0")/lib.sh"

mode=${1:-check}
run=$OBJ/runs/$(date +%Y%m%d-%H%M%S)-$mode
mkdir -p "$run/host"
ln -sfn "${run##*/}" "$OBJ/runs/last"

hosttest() {	# name, command...: record a host-side result
	local n=$1 rc=0
	shift
	"$@" >"$run/host/$n.log" 2>&1 || rc=$?
	echo "$rc" >"$run/host/$n.rc"
	[ "$rc" = 0 ] || [ "$rc" = 2 ] || sed 's/^/  /' "$run/host/$n.log" | tail -20
}

rc=0
"$TOP/scripts/vm.sh" "$mode" "$run" "${VM_TIMEOUT:-2400}" 2>"$run/host/boot.log" || rc=$?
cat "$run/host/boot.log" >&2
echo "$rc" >"$run/host/boot.rc"

case $mode in
demo)
	cat "$run/demo.log" 2>/dev/null
	exit "$rc"
	;;
bench)
	cat "$run/bench.log" 2>/dev/null
	# The cover letter (make mbox) quotes the last table.
	[ "$rc" = 0 ] && { echo "(QEMU $(cut -d' ' -f1 "$run/vm-time"))"; cat "$run/bench.log"; } >"$OBJ/runs/bench.txt"
	exit "$rc"
	;;
esac

# Tests that need a second boot, where KASLR chose another offset.
if [ "$rc" = 0 ] && ls "$TOP"/scripts/tests/guest2/*.sh >/dev/null 2>&1; then
	"$TOP/scripts/vm.sh" second "$run/boot2" "${VM_TIMEOUT:-2400}" 2>"$run/host/boot2.log" || rc=$?
	cat "$run/host/boot2.log" >&2
	echo "$rc" >"$run/host/boot2.rc"
fi

if [ "$rc" = 0 ]; then
	stage "running the host-side tests"
	for t in "$TOP"/scripts/tests/host/*.sh; do
		[ -e "$t" ] || continue
		n=$(basename "$t" .sh)
		echo "  $n"
		hosttest "$n" env RUN="$run" RUN2="$run/boot2" OBJ="$OBJ" KBUILD="$KBUILD" \
			PERF="$OBJ/perf/perf" bash "$t"
	done
fi

stage "guest: $(head -1 "$run/info.txt" 2>/dev/null)"
grep -E '^ +(libelf|dwarf|libslang|zlib):' "$run/info.txt" 2>/dev/null | sed 's/^ */  perf /'

stage "results (${run#$TOP/})"
"$TOP/scripts/report.sh" "$run"
