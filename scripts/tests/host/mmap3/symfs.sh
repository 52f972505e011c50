#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# perf report --symfs: the files there are copies, with other inodes and
# mtimes than the recorded ones, so only their build id can tell that one
# is not the profiled file. A made up MMAP3 of /opt/mmap3-test/prog, a copy
# of perf, is reported with --symfs on:
# - a tree with a copy of that perf: no warning, its samples resolve;
# - a tree with another build there: one warning that names it and says
#   the build id differs, and its samples don't resolve;
# - the first tree, the record without a build id: nothing to compare, no
#   warning.
. "$(dirname "$0")"/lib.sh

path=/opt/mmap3-test/prog
other=
for f in /bin/ls /bin/sh /usr/bin/env; do
	f=$(readlink -f "$f")
	[ "$("${PERF}" buildid-list -i "$f")" != "$("${PERF}" buildid-list -i "${prog}")" ] &&
		{ other=$f; break; }
done
[ -n "${other}" ] || { echo "Skip: no other executable to put in place of perf"; exit 2; }

mkdir -p "${tmpdir}/same/opt/mmap3-test" "${tmpdir}/other/opt/mmap3-test"
cp "${prog}" "${tmpdir}/same${path}"
cp "${other}" "${tmpdir}/other${path}"
python3 "${GEN}" -o "${tmpdir}/bid.data" --path "${prog}" --filename "${path}" ||
	fail "perf_data_mmap3.py"
python3 "${GEN}" -o "${tmpdir}/nobid.data" --path "${prog}" --filename "${path}" \
	--build-id none || fail "perf_data_mmap3.py --build-id none"

# report DATA SYMFS NAME: stdout in NAME.out, stderr in NAME.err
report() {
	"${PERF}" --no-pager report -i "${tmpdir}/$1.data" --symfs "${tmpdir}/$2" --stdio \
		--sort dso,sym > "${tmpdir}/$3.out" 2> "${tmpdir}/$3.err"
	rc=$?
	crashed ${rc} "${tmpdir}/$3.err" && fail "$3: crashed"
	[ ${rc} -eq 0 ] || fail "$3: perf report exit ${rc}"
}
warned() {
	grep -q "WARNING: .* changed after it was profiled" "${tmpdir}/$1.err" "${tmpdir}/$1.out"
}
resolved() {	# the samples at the entry point, _start
	grep -q "prog  *\[\.\] _start" "${tmpdir}/$1.out"
}

report bid same same
warned same && fail "a copy with the recorded build id: warned about"
resolved same || fail "a copy with the recorded build id: samples not resolved"

report bid other other
if [ "$(grep -c "WARNING: ${path} changed after it was profiled (differs: build id): " \
	"${tmpdir}/other.err")" != 1 ] ; then
	fail "another build: not one warning that names ${path} and its build id"
fi
resolved other && fail "another build: samples resolved against it"

report nobid same nobid
warned nobid && fail "no build id recorded: warned, with nothing to compare"

[ ${err} -eq 0 ] || cat "${tmpdir}"/*.err
[ ${err} -eq 0 ] && echo "PASS: --symfs compares build ids only"
exit ${err}
