#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write build/BASE/mbox/: the series as the topic series it is posted in
# (patches/BASE/topics), each as git format-patch output in NN-TOPIC/ with a
# generated cover letter, and as NN-TOPIC.mbox. New files are in the patch
# that creates them, so git am of the mboxes in order on a clean base gives
# the tree make check builds.
. "$(dirname "$0")/lib.sh"

out=${MBOX:-$OBJ/mbox}
topics=$P/topics
cd "$SRC" || die "no ${SRC#$TOP/}; run make tree"
[ -z "$(git status --porcelain -uno)" ] ||
	echo "warning: ${SRC#$TOP/} has uncommitted edits; they are not in the mbox" >&2
mapfile -t commits < <(git rev-list --reverse base..HEAD)
[ "${#commits[@]}" -gt 0 ] || die "the series is empty"
[ -f "$topics" ] || die "no ${topics#$TOP/}"

last=$BOBJ/runs/last
tested="not yet tested: run make check BASE=$BASE"
if [ -f "$last/summary" ]; then
	tested="make check on $(head -1 "$last/info.txt" 2>/dev/null | awk '{print $3}') under QEMU ($(cut -d' ' -f1 "$last/vm-time" 2>/dev/null)): $(cat "$last/summary")"
fi
bench=$BOBJ/runs/bench.txt
census=$BOBJ/runs/census.txt

# The cover letter's text: @BASE@, @TESTED@, @BENCH@ and @CENSUS@
# filled in. Without a census (make bench), its line stays for the sender
# to see.
cover_text() {
	local line
	while IFS= read -r line; do
		case $line in
		*@CENSUS@)
			if [ -f "$census" ]; then
				sed "s/^/${line%@CENSUS@}/" "$census"
			else
				echo "warning: ${1#$TOP/} has @CENSUS@, and no make bench BASE=$BASE measured it" >&2
				printf '%s\n' "$line"
			fi
			;;
		@BENCH@)
			[ -f "$bench" ] || continue
			echo "Cost of the mmap hook (make bench, ratios in one boot):"
			echo
			sed 's/^/  /' "$bench"
			;;
		*)
			line=${line//@BASE@/Linux $BASE_VERSION, as Debian\'s $BASE_PKG ships it}
			printf '%s\n' "${line//@TESTED@/$tested}"
			;;
		esac
	done <"$1"
}

rm -rf "$out" && mkdir -p "$out"
declare -A num subj
i=0 from=1
while read -r name upto needs subject; do
	i=$((i + 1))
	nn=$(printf '%02d' $i)
	num[$name]=$nn subj[$name]=$subject
	to=$((10#$upto))
	[ "$to" -ge "$from" ] && [ "$to" -le "${#commits[@]}" ] ||
		die "${topics#$TOP/}: $name ends at patch $upto, not after $((from - 1)) and within ${#commits[@]}"
	text=$P/cover/$name.txt
	[ -f "$text" ] || die "no cover text ${text#$TOP/} for topic $name"
	d=$out/$nn-$name
	git format-patch -q --zero-commit --no-signature --cover-letter --thread=shallow \
		--subject-prefix=PATCH -o "$d" "${commits[from - 1]}^..${commits[to - 1]}"
	cover=$d/0000-cover-letter.patch
	{
		sed -n '1,/^$/p' "$cover" | sed "s|\*\*\* SUBJECT HERE \*\*\*|$subject|"
		if [ "$needs" != - ]; then
			echo "This series applies on top of:"
			for t in ${needs//,/ }; do
				[ -n "${num[$t]:-}" ] || die "${topics#$TOP/}: $name needs $t, which does not come before it"
				echo "  ${num[$t]}-$t: ${subj[$t]}"
			done
			echo
		fi
		cover_text "$text"
		sed '1,/\*\*\* BLURB HERE \*\*\*/d' "$cover"
	} >"$cover.new"
	mv "$cover.new" "$cover"
	cat "$d"/*.patch >"$d.mbox"
	if [ "$to" = "$from" ]; then
		printf 'wrote %s: patch %s\n' "${d#$TOP/}.mbox" "$from"
	else
		printf 'wrote %s: %s patches %s-%s\n' "${d#$TOP/}.mbox" $((to - from + 1)) "$from" "$to"
	fi
	from=$((to + 1))
done < <(grep -v '^#' "$topics")
[ "$from" = $((${#commits[@]} + 1)) ] ||
	die "${topics#$TOP/}: the topics end at patch $((from - 1)), the series at ${#commits[@]}"
