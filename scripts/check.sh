#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh MODE: boot the built kernel, run MODE in the guest (check,
# upstream, demo, bench), run the host-side tests on what came back, and
# print the results. The run's files stay in build/BASE/runs/<time>-MODE,
# and build/BASE/runs/last points at it.
. "$(dirname "$0")/lib.sh"

mode=${1:-check}
run=$OBJ/runs/$(date +%Y%m%d-%H%M%S)-$mode
mkdir -p "$run/host"
ln -sfn "${run##*/}" "$OBJ/runs/last"
# The project's commit, for make fresh-check to compare with.
git -C "$TOP" describe --always --dirty >"$run/project" 2>/dev/null || true

hosttest() {	# name, command...: record a host-side result and its time
	local n=$1 rc=0 t0
	shift
	t0=$(date +%s)
	"$@" >"$run/host/$n.log" 2>&1 || rc=$?
	echo "$rc" >"$run/host/$n.rc"
	echo "host $n $(( $(date +%s) - t0 ))" >>"$run/host-times"
	[ "$rc" = 0 ] || [ "$rc" = 2 ] || sed 's/^/  /' "$run/host/$n.log" | tail -20
}

# PERF=san runs our own tests (MMAP3 record, report and inject, kcore,
# KASLR) with the ASan+UBSan perf, in the guest and on the host; every
# sanitizer report is a failure (scripts/guest/run.sh collects them).
# PERF=cov runs them all with perf-cov, whose counters make coverage reads.
case ${PERF:-} in
"") perfdir=perf ;;
san) perfdir=perf-san TESTS=${TESTS:-mmap3,kcore,changed,kaslr} ;;
cov) perfdir=perf-cov ;;
*) die "PERF=$PERF: the variants are PERF=san, the ASan+UBSan perf, and PERF=cov, perf with gcov's counters" ;;
esac
export EXTRA_CMDLINE="${EXTRA_CMDLINE:-} rig.perf=$perfdir"

# TESTS=WORD[,WORD...] runs only the tests whose name holds one of the
# words (see scripts/guest/run.sh), here and in the guest.
TESTS=${TESTS:-}
[[ "$TESTS" =~ ^[A-Za-z0-9_.,-]*$ ]] || die "TESTS=$TESTS: only words of [A-Za-z0-9_.-], separated by commas"
export TESTS
[ -z "$TESTS" ] || export EXTRA_CMDLINE="${EXTRA_CMDLINE:-} rig.tests=$TESTS"
wanted() {
	local w
	[ -z "$TESTS" ] && return 0
	for w in ${TESTS//,/ }; do
		[[ $1 == *"$w"* ]] && return 0
	done
	return 1
}

# The guest starts the longest perf tests first: each suite's time in the
# latest run where it ended (a run of some TESTS has only theirs), over the
# times the tree ships for a fresh clone, which has no runs. A suite that
# ran out of time says nothing of its time: counted as 600 s, it once tied
# with two others, and the BPF filter test, which needs to lead (run.sh),
# lost the lead and timed out again, run after run.
{
	cat "$TOP/scripts/guest/perftest-times/$BASE"
	for d in "$OBJ"/runs/*/; do
		[ -f "$d/perftest-times" ] || continue
		awk -v timeouts="$d/perftest-timeouts" '
			BEGIN { while ((getline l < timeouts) > 0) out[substr(l, index(l, "\t") + 1)] = 1 }
			!(substr($0, index($0, ": ") + 2) in out)' "$d/perftest-times"
	done
} 2>/dev/null |
	awk '!/^#/ { t[substr($0, index($0, ": ") + 2)] = $0 } END { for (d in t) print t[d] }' \
	>"$run/perftest-times.prev" || true

# make fuzz-kernel: trinity from Debian, and mmap3-stress built against the
# uapi headers of the kernel under test, for FUZZ_SECONDS (600) in the guest.
if [ "$mode" = fuzz-kernel ]; then
	secs=${FUZZ_SECONDS:-600}
	[[ $secs =~ ^[1-9][0-9]*$ ]] || die "FUZZ_SECONDS=$secs: give a number of seconds"
	"$TOP/scripts/deps.sh" trinity
	gcc -O2 -Wall -Wextra -Werror -isystem "$KBUILD/usr/include" \
		-o "$OBJ/tests/$KERNEL/mmap3-stress" "$TOP/scripts/fuzz/kernel/mmap3-stress.c" -lpthread ||
		die "cannot build scripts/fuzz/kernel/mmap3-stress.c"
	export EXTRA_CMDLINE="${EXTRA_CMDLINE:-} rig.fuzz_seconds=$secs"
	VM_TIMEOUT=${VM_TIMEOUT:-$((secs + 1800))}
fi

# The debug kernel's guest takes about 2.5 times as long (run.sh). 6.12's guest
# took 3133 s at ae88cb2 on this slower machine: the limit leaves room.
limit=5400
[ "$KERNEL" = debug ] && limit=12000
rc=0
"$TOP/scripts/vm.sh" "$mode" "$run" "${VM_TIMEOUT:-$limit}" 2>"$run/host/boot.log" || rc=$?
cat "$run/host/boot.log" >&2
echo "$rc" >"$run/host/boot.rc"

case $mode in
seeds)
	cat "$run/seeds.log"
	[ "$rc" = 0 ] && [ -s "$run/seeds/mmap3.data" ] || die "no seeds recorded"
	rm -rf "$TOP/scripts/fuzz/seeds"
	mkdir -p "$TOP/scripts/fuzz/seeds"
	cp "$run"/seeds/*.data "$TOP/scripts/fuzz/seeds/"
	exit 0
	;;
demo)
	cat "$run/demo.log" 2>/dev/null
	exit "$rc"
	;;
fuzz-kernel)
	# vm.sh failed the run (rc) on a splat in the guest's dmesg.
	cat "$run/fuzz-kernel.log" 2>/dev/null
	sed -n 's/^\[main\] \(Ran .*\)/  trinity: \1/p; s/^\(perf_event_open: .*\)/  trinity: \1/p' \
		"$run/trinity.log" 2>/dev/null
	sed -n 's/^/  /p' "$run/mmap3-stress.log" 2>/dev/null
	read -r trc <"$run/trinity.rc" 2>/dev/null || trc=none
	read -r src <"$run/mmap3-stress.rc" 2>/dev/null || src=none
	echo "trinity exit $trc, mmap3-stress exit $src, guest $rc"
	[ "$rc" = 0 ] && [ "$trc" = 0 ] && [ "$src" = 0 ] ||
		die "make fuzz-kernel failed (${run#$TOP/}: trinity.log, mmap3-stress.log, dmesg.txt)"
	exit 0
	;;
bench)
	# The files themselves, on this machine, whose root the guest's is:
	# how many ELF executables and shared objects have no GNU build id,
	# under /usr, and under /usr/local, /opt and the toolchains in home
	# directories, which are replaced in place most often.
	if wanted census; then
		home=
		for d in /root /home/*; do
			for t in .rustup .cargo .pyenv .local go .nvm .sdkman .dotnet .bun .deno; do
				[ -d "$d/$t" ] && home="$home $d/$t"
			done
		done
		for dirs in /usr "/usr/local /opt$home"; do
			find $dirs -xdev -path /usr/local -prune -o -type f \
				\( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) -print0 2>/dev/null |
				{ xargs -0 -r readelf -h -n 2>/dev/null || true; } | # it fails on files not ELF
				awk -v dirs="$dirs" '
				/^File: / { f = substr($0, 7) }
				/^ *Type: *(EXEC|DYN)/ { elf[f] = 1 }
				/^ *Build ID: / { bid[f] = 1 }
				END {
					for (f in elf) { n++; if (!(f in bid)) { m++; split(f, p, "/"); no[p[length(p)]] = 1 } }
					printf "%d of %d ELF executables and shared objects under %s have no GNU build id", m, n, dirs
					k = 0; for (x in no) if (k++ < 8) l = l (k > 1 ? ", " : ": ") x
					print l (m > 8 ? ", ..." : "")
				}'
		done >"$run/census-files.txt"
	fi
	# The median of the interleaved rounds of record_cost and synth_cost
	# (scripts/guest/run.sh), with the spread of each case as the range
	# of its middle half (IQR) against its median: a round's exit-to-exit
	# time varies up to threefold, and the best of them picked outliers.
	awk '
	$1 !~ /^[0-9]+$/ || NF < 3 { next }
	{ v[$2] = v[$2] " " $3 }
	$2 ~ /^storm-/ && NF >= 6 { lost[$2] = lost[$2] " " $5; bytes[$2] = bytes[$2] " " $6 }
	$2 ~ /^(upstream|mmap2-buildid|mmap3)$/ {
		s = $4 / 1048576; if (mb == "" || s < mb) mb = s
		# ms of the exit-to-exit time per MB written after the workload ended
		if (NF > 5 && $4 > $6 && $2 != "upstream") perm = perm " " ($3 / 1e6) / (($4 - $6) / 1048576)
		if (NF > 5) after[$2] = after[$2] " " ($4 - $6) / 1048576
	}
	function q(s, p,   a, n, i, j, t, k) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		k = 1 + p * (n - 1)
		return a[int(k)] + (k - int(k)) * (a[int(k) + 1] - a[int(k)])
	}
	function med(s) { return q(s, 0.5) }
	function iqr(s) { return med(s) ? 100 * (q(s, 0.75) - q(s, 0.25)) / med(s) : 0 }
	function row(name, c) {
		printf "  %-48s %8.1f ms  IQR %3.0f%%", name, med(v[c]) / 1e6, iqr(v[c])
	}
	END {
		if ("upstream" in v) {
			u = med(v["upstream"]); b = med(v["mmap2-buildid"]); m = med(v["mmap3"])
			printf "perf record -a -g, workload exit to perf exit (median of %d; perf.data >= %.0f MB):\n", split(v["upstream"], x, " "), mb
			row("MMAP2, then a build-id pass (default to 6.16)", "upstream"); printf "\n"
			row("MMAP2 with build ids (default since 6.17)", "mmap2-buildid"); printf "\n"
			row("MMAP3 with build ids (ours)", "mmap3")
			printf "   %.1fx shorter than the build-id pass, %.2fx MMAP2 with build ids\n", m ? u / m : 0, b ? m / b : 0
			if ("mmap3-nokeep" in v) {
				k = med(v["mmap3-nokeep"])
				row("MMAP3 with build ids, --no-keep-mapped", "mmap3-nokeep")
				printf "   --keep-mapped: %.3fx --no-keep-mapped\n", k ? m / k : 0
			}
			if (perm != "")
				printf "  written after the workload ended (median MB): MMAP2 %.1f, MMAP3 %.1f; %.1f ms per MB (IQR %.0f%%)\n", med(after["mmap2-buildid"]), med(after["mmap3"]), med(perm), iqr(perm)
			r3 = med(v["report-mmap3"]); r2 = med(v["report-mmap2"])
			printf "perf report --stdio on the same samples (%d round):\n", split(v["report-mmap3"], x, " ")
			printf "  MMAP2 %8.1f ms\n  MMAP3 %8.1f ms   MMAP3/MMAP2 %.3f\n", r2 / 1e6, r3 / 1e6, r2 ? r3 / r2 : 0
		}
		start("synth", "perf record -a -- true with 500 more processes, start to exit")
		start("storm", "perf record -a over an mmap storm (12000 mmaps of one file), 500 more processes")
		if ("mremap-alone" in v) {
			printf "5000 realloc()s of 1 to 64 MB, each an mremap(), timed by the program (median of %d):\n", split(v["mremap-alone"], x, " ")
			row("alone", "mremap-alone"); printf "\n"
			row("perf record -a, no data mmap records", "mremap-nodata")
			printf "   %.3fx alone\n", ratio("mremap-nodata", "mremap-alone")
			row("perf record -a -d, MMAP2 with build ids", "mremap-data-mmap2")
			printf "   %.3fx alone\n", ratio("mremap-data-mmap2", "mremap-alone")
			row("perf record -a -d, MMAP3 with build ids", "mremap-data-mmap3")
			printf "   %.3fx alone, %.3fx MMAP2\n", ratio("mremap-data-mmap3", "mremap-alone"),
				ratio("mremap-data-mmap3", "mremap-data-mmap2")
		}
	}
	function ratio(c, d) { return med(v[d]) ? med(v[c]) / med(v[d]) : 0 }
	function start(p, title) {
		if (!((p "-mmap3") in v))
			return
		b = med(v[p "-mmap2-buildid"]); m = med(v[p "-mmap3"])
		printf "%s (median of %d):\n", title, split(v[p "-mmap3"], x, " ")
		row("MMAP2 with build ids (--no-mmap3 --buildid-mmap)", p "-mmap2-buildid"); printf "\n"
		row("MMAP3 with build ids (--mmap3 --buildid-mmap)", p "-mmap3")
		printf "   %.3fx MMAP2 with build ids\n", b ? m / b : 0
		if ((p "-mmap3-nokeep") in v) {
			k = med(v[p "-mmap3-nokeep"])
			row("MMAP3 with build ids, --no-keep-mapped", p "-mmap3-nokeep")
			printf "   --keep-mapped: %.3fx --no-keep-mapped\n", k ? m / k : 0
		}
		if ((p "-mmap3") in bytes)
			printf "  bytes per mmap record: MMAP2 %d, MMAP3 %d; records lost (median): MMAP2 %d, MMAP3 %d\n",
				med(bytes[p "-mmap2-buildid"]), med(bytes[p "-mmap3"]),
				med(lost[p "-mmap2-buildid"]), med(lost[p "-mmap3"])
	}' "$run/record-cost.log" "$run/synth-cost.log" "$run/mremap-cost.log" >"$run/record-cost.txt" 2>/dev/null || true
	# The census of build ids: a line "census RECORDS WITHOUT WHERE" for
	# each place, then the files without.
	awk '$1 == "census" {
		printf "%d of %d executable file mappings that the kernel recorded had no build id", $3, $2
		where = $0; sub(/^census [0-9]+ [0-9]+ /, "", where)
		printf " (%s)%s\n", where, ($3 ? ":" : ".")
		next
	} { print }' "$run/census.log" >"$run/census.txt" 2>/dev/null || true
	# The identity table: a row per case, a column per file system, each
	# cell the keys that the case changed (scripts/guest/run.sh, identity).
	awk '/^#/ { next } NF == 3 {
		if (!($1 in fsn)) { fsn[$1] = ++nf; fs[nf] = $1 }
		if (!($2 in cn)) { cn[$2] = ++nc; c[nc] = $2 }
		k[$1, $2] = $3; next
	} { other = other $0 "\n" }
	END {
		if (!nc) { printf "%s", other; exit }
		print "Keys that changed (I inode, M mtime, C change cookie, c: the file system has none, B build id; . same):"
		printf "  %-20s", "case"; for (j = 1; j <= nf; j++) printf " %-9s", fs[j]; print ""
		for (i = 1; i <= nc; i++) {
			printf "  %-20s", c[i]
			for (j = 1; j <= nf; j++) printf " %-9s", ((fs[j], c[i]) in k) ? k[fs[j], c[i]] : "?"
			print ""
		}
		printf "%s", other
	}' "$run/identity.log" >"$run/identity.txt" 2>/dev/null || true
	# A run of some TESTS has only their files.
	cat "$run/bench.log" "$run/record-cost.txt" "$run/census.txt" "$run/census-files.txt" \
		"$run/identity.txt" "$run/race.log" 2>/dev/null || true
	# The cover letters (make mbox) quote the last full table and census.
	if [ "$rc" = 0 ] && [ -z "$TESTS" ]; then
		{ echo "(QEMU $(cut -d' ' -f1 "$run/vm-time"))"; cat "$run/bench.log" "$run/record-cost.txt"; } >"$OBJ/runs/bench.txt"
	fi
	if [ "$rc" = 0 ] && grep -q '^census ' "$run/census.log" 2>/dev/null; then
		cat "$run/census.txt" "$run/census-files.txt" >"$OBJ/runs/census.txt" 2>/dev/null
	fi
	if [ "$rc" = 0 ] && grep -q '^Keys that changed' "$run/identity.txt" 2>/dev/null; then
		grep -E '^(Keys|  )' "$run/identity.txt" | sed 's/ *$//' >"$OBJ/runs/identity.txt"
	fi
	exit "$rc"
	;;
esac

# Tests that need a second boot, where KASLR chose another offset.
boot2=
for t in "$TOP"/scripts/tests/guest2/*.sh; do
	[ -e "$t" ] && wanted "$(basename "$t" .sh)" && boot2=1
done
# make baseline's upstream mode runs upstream's tests only.
[ "$mode" = check ] || boot2=
if [ "$rc" = 0 ] && [ -n "$boot2" ]; then
	"$TOP/scripts/vm.sh" second "$run/boot2" "${VM_TIMEOUT:-$limit}" 2>"$run/host/boot2.log" || rc=$?
	cat "$run/host/boot2.log" >&2
	echo "$rc" >"$run/host/boot2.rc"
fi

if [ "$rc" = 0 ] && [ "$mode" = check ]; then
	stage "running the host-side tests"
	for t in "$TOP"/scripts/tests/host/*.sh; do
		[ -e "$t" ] || continue
		n=$(basename "$t" .sh)
		wanted "$n" || continue
		echo "  $n"
		hosttest "$n" env RUN="$run" RUN2="$run/boot2" OBJ="$OBJ" KBUILD="$KBUILD" \
			PERF="$OBJ/$perfdir/perf" MAINLINE_PERF="$B/7.3/perf-stock/perf" bash "$t"
	done
fi

stage "guest: $(head -1 "$run/info.txt" 2>/dev/null)"
if [ -s "$run/times" ]; then
	echo "  slowest steps in the guest and on the host (s):"
	# A run of TESTS=... that picks no host test has no host-times.
	cat "$run/times" $([ -f "$run/host-times" ] && echo "$run/host-times") |
		awk '{ t = $NF; sub(/ [0-9]+$/, ""); printf "    %5d  %s\n", t, $0 }' | sort -nr | sed -n 1,8p
fi
if [ -s "$run/perftest-times" ]; then
	echo "  slowest perf tests (s):"
	sort -nr "$run/perftest-times" | sed -n 1,10p | sed -E 's/^([0-9]+) +/\1\t/' |
		awk -F'\t' '{ printf "    %5d  %s\n", $1, $2 }'
fi
grep -E '^ +(libelf|dwarf|libslang|zlib|zstd):' "$run/info.txt" 2>/dev/null | sed 's/^ */  perf /'

stage "results (${run#$TOP/})"
"$TOP/scripts/report.sh" "$run"
