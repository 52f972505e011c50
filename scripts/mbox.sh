#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write build/BASE/mbox/: the series as the topic series it is posted in
# (patches/BASE/topics), each as git format-patch output in NN-TOPIC/ with a
# generated cover letter, and as NN-TOPIC.mbox. New files are in the patch
# that creates them, so git am of the mboxes in order on a clean base gives
# the tree make check builds.
#
# The mboxes are written from the sender's identity (MBOX_FROM, or git
# config user.name and user.email of this repository): From: and the
# Signed-off-by: of the patches' neutral author become the sender's, and
# there is no mbox without one. A topic whose name starts with '!' in the
# topics file is kept in our tree and not posted: it is left out.
#
# MBOX=DIR writes the series as it is checked instead (make series-check):
# every topic, with the patches' own author, into DIR. MBOX_POST=DIR
# writes the posted mboxes into DIR rather than build/BASE/mbox/.
. "$(dirname "$0")/lib.sh"

out=${MBOX:-${MBOX_POST:-$OBJ/mbox}}
post=1
[ -z "${MBOX:-}" ] || post=0
topics=$P/topics
cd "$SRC" || die "no ${SRC#$TOP/}; run make tree"
[ -z "$(git status --porcelain -uno)" ] ||
	echo "warning: ${SRC#$TOP/} has uncommitted edits; they are not in the mbox" >&2
mapfile -t commits < <(git rev-list --reverse base..HEAD)
[ "${#commits[@]}" -gt 0 ] || die "the series is empty"
[ -f "$topics" ] || die "no ${topics#$TOP/}"
neutral=$(git log -1 --format='%an <%ae>' "${commits[0]}")
fromopt=() sender=
if [ "$post" = 1 ]; then
	sender=${MBOX_FROM:-}
	if [ -z "$sender" ]; then
		uname=$(git -C "$TOP" config user.name || true)
		email=$(git -C "$TOP" config user.email || true)
		[ -z "$uname" ] || [ -z "$email" ] || sender="$uname <$email>"
	fi
	[[ $sender =~ ^[^\<\>]+\ \<[^@\<\>\ ]+@[^@\<\>\ ]+\>$ ]] ||
		die "no sender: set git config user.name and user.email, or MBOX_FROM='Name <address>'"
	case ${sender,,} in
	"${neutral,,}" | *.example\> | *@localhost\> | *.invalid\>)
		die "$sender is a placeholder, not someone who can sign off: set git config user.name and user.email, or MBOX_FROM" ;;
	esac
	# The cover letters and the Message-Ids are the committer's.
	semail=${sender##*<}
	fromopt=(-c user.name="${sender% <*}" -c user.email="${semail%>}")
fi

last=$(last_whole_check)
tested="not yet tested: run make check BASE=$BASE"
if [ -n "$last" ]; then
	tested="make check on $(head -1 "$last/info.txt" 2>/dev/null | awk '{print $3}') under QEMU ($(cut -d' ' -f1 "$last/vm-time" 2>/dev/null)): $(cat "$last/summary")"
fi
bench=$BOBJ/runs/bench.txt

# The cover letter's text: @BASE@, @TESTED@, @BENCH@, @CENSUS@ and
# @IDENTITY@ filled in, the last two with what make bench left in
# build/BASE/runs/ (census.txt, identity.txt), indented as the line is.
# Without them, the line stays for the sender to see.
cover_text() {
	local line key file
	while IFS= read -r line; do
		case $line in
		*@CENSUS@ | *@IDENTITY@)
			key=${line#"${line%@*@}"} file=${key//@/}
			file=$BOBJ/runs/${file,,}.txt
			if [ -f "$file" ]; then
				sed "s/^/${line%"$key"}/" "$file"
			else
				echo "warning: ${1#$TOP/} has $key, and no make bench BASE=$BASE measured it" >&2
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
	kept=0
	[[ $name != !* ]] || name=${name#!} kept=1
	i=$((i + 1))
	nn=$(printf '%02d' $i)
	num[$name]=$nn subj[$name]=$subject
	to=$((10#$upto))
	[ "$to" -ge "$from" ] && [ "$to" -le "${#commits[@]}" ] ||
		die "${topics#$TOP/}: $name ends at patch $upto, not after $((from - 1)) and within ${#commits[@]}"
	# What is posted cannot need what is not: the kept topics come last.
	[ "$kept" = 1 ] || [ -z "${kept_name:-}" ] ||
		die "${topics#$TOP/}: $name comes after $kept_name, which is not posted"
	[ "$kept" = 0 ] || kept_name=$name
	if [ "$kept" = 1 ] && [ "$post" = 1 ]; then
		printf 'left out %s: patches %s-%s are kept in our tree, not posted\n' "$nn-$name" "$from" "$to"
		from=$((to + 1))
		continue
	fi
	text=$P/cover/$name.txt
	[ -f "$text" ] || [ "$kept" = 1 ] || die "no cover text ${text#$TOP/} for topic $name"
	[ -f "$text" ] || text=/dev/null
	d=$out/$nn-$name
	git "${fromopt[@]}" format-patch -q --zero-commit --no-signature --cover-letter --thread=shallow \
		--subject-prefix=PATCH ${sender:+--from="$sender"} -o "$d" "${commits[from - 1]}^..${commits[to - 1]}"
	# The sender's sign-off replaces the neutral author's, and the in-body
	# From: that git format-patch --from gives a patch of another author
	# goes: the sender is the author of what is posted.
	if [ "$post" = 1 ]; then
		for f in "$d"/0*.patch; do
			awk -v neutral="From: $neutral" -v nsob="Signed-off-by: $neutral" -v sob="Signed-off-by: $sender" '
				!body && $0 == "" { body = 1; print; getline; if ($0 == neutral) { getline; next } }
				$0 == nsob { $0 = sob } { print }' "$f" >"$f.new"
			mv "$f.new" "$f"
		done
	fi
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
