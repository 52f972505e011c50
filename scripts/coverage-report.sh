#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# coverage-report.sh OUTDIR INFO...: which of the lines that the series adds
# ran, from lcov tracefiles INFO (the kernel's gcov counters, perf's from the
# guest and from the host). git blame gives each line of a .c or .h file of
# build/BASE/src to the patch of base..HEAD that added it, or to none. An
# added line ran (a count above 0 in some tracefile), did not run (it has a
# counter, 0 in every tracefile), has no counter (a declaration, a brace, a
# comment: not counted), or is in a .c file of which no tracefile has a
# counter: not built with counters (an architecture we do not boot, a file
# built without them, code that the configuration leaves out).
#
# OUTDIR gets patches.txt, a row per patch: lines with a counter, ran, not
# run, not run without a reason, not built with counters, then a total and a
# summary line; not-run.txt, each line not run by patch, as
# "PATH:LINE<TAB>reason or ?<TAB>text"; not-built.txt, each line not built
# with counters by file, as "PATH:LINE<TAB>text". patches.txt is printed too.
#
# A line's reason for not running is in scripts/coverage-reasons-BASE.txt,
# "PATH<TAB>TEXT<TAB>REASON" lines: the first entry whose PATH is the line's
# file and whose TEXT (a fixed string) is in the line gives it. An entry that
# matches no line is stale, and warned of.
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 OUTDIR INFO..."
out=$1
shift
for f in "$@"; do
	[[ -f $f && -r $f ]] || die "$f: no such tracefile, or not readable"
done
[ -d "$SRC" ] || die "no ${SRC#"$TOP"/}: run make tree"
git -C "$SRC" rev-parse -q --verify 'base^{commit}' >/dev/null 2>&1 ||
	die "${SRC#"$TOP"/} has no ref base (the unpatched kernel): run make tree"
reasons=$TOP/scripts/coverage-reasons-$BASE.txt
[ -f "$reasons" ] || reasons=/dev/null

mkdir -p "$out"
tmp=$(mktemp -d "$B/coverage.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The patches in order: "HASH<TAB>NNNN subject", as format-patch numbers them.
git -C "$SRC" log --reverse --format=%H%x09%s base..HEAD |
	awk -F'\t' '{ printf "%s\t%04d %s\n", $1, NR, substr($0, length($1) + 2) }' >"$tmp/patches"

# The added lines, "N<TAB>PATH<TAB>LINE<TAB>text": one blame of each .c and
# .h file that the series changes, each after a line "\001PATH". Plain
# blame, not -w: a patch that only reindents a line owns it. The boundary
# (base) and any commit not in base..HEAD own the lines of the base.
git -C "$SRC" diff -z --name-only --diff-filter=d base..HEAD -- '*.c' '*.h' |
while IFS= read -r -d '' f; do
	printf '\001%s\n' "$f"
	git -C "$SRC" blame --line-porcelain base..HEAD -- "$f" </dev/null
done | awk -F'\t' -v OFS='\t' -v pl="$tmp/patches" '
FILENAME == pl { num[$1] = FNR; next }
/^\001/ { file = substr($0, 2); hdr = 1; next }
# The line itself, after its header (HASH ORIG-LINE LINE) and keys.
/^\t/ {
	if (c in num) {
		t = substr($0, 2)
		sub(/^[ \t]+/, "", t)
		sub(/[ \t]+$/, "", t)
		print num[c], file, ln, t
	}
	hdr = 1
	next
}
hdr { split($0, h, " "); c = h[1]; ln = h[3]; hdr = 0; next }
$0 == "boundary" { c = "" }
' "$tmp/patches" - >"$tmp/added"

# The tracefiles' source files under SRC: "SF<TAB>PATH" with PATH relative to
# SRC. An SF path may have ".." in it (an O= build) and SRC or the file may
# be reached through a symbolic link, so both the path made plain and the
# path with links resolved are tried, each against SRC's own.
{ grep -h '^SF:.' -- "$@" || true; } | cut -c4- | sort -u >"$tmp/sf"
[ -s "$tmp/sf" ] || die "no SF: record in $*: not lcov tracefiles?"
xargs -d '\n' realpath -m -s -- <"$tmp/sf" >"$tmp/sf.plain"
xargs -d '\n' realpath -m -- <"$tmp/sf" >"$tmp/sf.real"
paste "$tmp/sf" "$tmp/sf.plain" "$tmp/sf.real" |
	awk -F'\t' -v OFS='\t' -v p="$(realpath -m -s -- "$SRC")/" -v r="$(realpath -- "$SRC")/" '
	{
		a = index($2, p) == 1 ? substr($2, length(p) + 1) : ""
		b = index($3, r) == 1 ? substr($3, length(r) + 1) : ""
		if (a != "")
			print $1, a
		if (b != "" && b != a)
			print $1, b
	}' >"$tmp/map"
[ -s "$tmp/map" ] ||
	die "none of the tracefiles has a file of $SRC: were they made from another tree, or moved? One of their paths: $(head -n 1 "$tmp/sf")"

# One pass over the tracefiles, keeping the counters of the files that have
# added lines: which files have any (built), which lines have one (has) and
# which of those ran.
awk -F'\t' -v pl="$tmp/patches" -v rf="$reasons" -v al="$tmp/added" \
	-v map="$tmp/map" -v o="$out" -v rname="${reasons#"$TOP"/}" '
FILENAME == pl { name[FNR] = $2; np = FNR; next }
FILENAME == rf {
	if (/^#/ || /^[ \t]*$/)
		next
	if (NF < 3 || $1 == "" || $2 == "" || $3 == "") {
		printf "error: %s:%d: not PATH<TAB>TEXT<TAB>REASON\n", rname, FNR >"/dev/stderr"
		bad = 1
		exit 1
	}
	nr++; rpath[nr] = $1; rtext[nr] = $2; rwhy[nr] = $3; rline[nr] = FNR
	next
}
FILENAME == al {
	n++; ap[n] = $1; af[n] = $2; an[n] = $3; want[$2] = 1
	at[n] = substr($0, length($1 $2 $3) + 4)
	next
}
FILENAME == map { if ($2 in want) rels[$1] = rels[$1] "\t" $2; next }
/^SF:/ {
	sf = substr($0, 4)
	ncr = (sf in rels) ? split(substr(rels[sf], 2), cr, "\t") : 0
	next
}
!ncr { next }
/^DA:/ {
	split(substr($0, 4), d, ",")
	for (i = 1; i <= ncr; i++) {
		k = cr[i] SUBSEP d[1]
		built[cr[i]] = 1
		has[k] = 1
		if (d[2] + 0 > 0)
			ran[k] = 1
	}
	next
}
/^end_of_record/ { ncr = 0 }
END {
	if (bad)
		exit 1
	for (i = 1; i <= n; i++) {
		p = ap[i]; f = af[i]; k = f SUBSEP an[i]
		if (k in ran) {
			cnt[p]++; nran[p]++
		} else if (k in has) {
			cnt[p]++; nnot[p]++
			why = ""
			for (r = 1; r <= nr && why == ""; r++) {
				if (rpath[r] == f && index(at[i], rtext[r])) {
					why = rwhy[r]; used[r] = 1
				}
			}
			if (why == "") {
				why = "?"; nwhy[p]++
			}
			notrun[p] = notrun[p] f ":" an[i] "\t" why "\t" at[i] "\n"
		} else if (f in built || f ~ /\.h$/ || at[i] == "") {
			# No counter in a file built with them. A header of
			# which no tracefile has a counter is not counted at
			# all: no file built with counters uses a function
			# of it, so its lines are declarations, structures
			# and macros, whose code is counted where they are
			# expanded. Nor is a blank line, no code anywhere.
			continue
		} else {
			nb[p]++
			if (!(f in nbl))
				files[++nf] = f
			nbl[f] = nbl[f] f ":" an[i] "\t" at[i] "\n"
		}
	}

	pt = o "/patches.txt"
	fmt = "%-60s %7s %6s %7s %9s %9s\n"
	printf fmt, "PATCH", "COUNTED", "RAN", "NOT RUN", "NO REASON", "NOT BUILT" >pt
	for (p = 1; p <= np; p++) {
		if (!cnt[p] && !nb[p])
			continue
		printf fmt, substr(name[p], 1, 60), cnt[p] + 0, nran[p] + 0, nnot[p] + 0, nwhy[p] + 0, nb[p] + 0 >pt
		tc += cnt[p]; tr += nran[p]; tn += nnot[p]; tw += nwhy[p]; tb += nb[p]
	}
	printf fmt, "total", tc + 0, tr + 0, tn + 0, tw + 0, tb + 0 >pt
	# Rounded down, so that 100.0% means all of them.
	pct = tc ? sprintf(" (%.1f%%)", int(1000 * tr / tc) / 10) : ""
	printf "\nran %d of %d lines with a counter%s; %d not run, %d of them without a reason; %d lines in files built without counters\n", tr, tc, pct, tn, tw, tb >pt

	nt = o "/not-run.txt"
	printf "" >nt
	for (p = 1; p <= np; p++)
		if (p in notrun)
			printf "%s%s\n%s", (s++ ? "\n" : ""), name[p], notrun[p] >nt
	bt = o "/not-built.txt"
	printf "" >bt
	for (i = 1; i <= nf; i++)
		printf "%s%s\n%s", (i > 1 ? "\n" : ""), files[i], nbl[files[i]] >bt

	for (r = 1; r <= nr; r++)
		if (!used[r])
			printf "warning: %s:%d: no line of %s that did not run has \"%s\": a stale entry?\n", rname, rline[r], rpath[r], rtext[r] >"/dev/stderr"
}' "$tmp/patches" "$reasons" "$tmp/added" "$tmp/map" "$@"

cat "$out/patches.txt"
