#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Malformed PERF_RECORD_MMAP3 records and truncated files: perf report,
# script, inject and the dump must skip them and count them in --stats,
# or fail with a clear error, never crash. Meant to run with PERF set to
# an ASAN+UBSAN build, as sanitizer reports count as crashes.
. "$(dirname "$0")"/lib.sh

if ! command -v python3 > /dev/null ; then
	echo "Skip: needs python3 for ${GEN}"
	exit 2
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# run name command...: output in name.out, fails on crashes
run() {
	run_name=$1
	shift
	"$@" > "${tmpdir}/${run_name}.out" 2>&1
	rc=$?
	if crashed ${rc} "${tmpdir}/${run_name}.out" ; then
		fail "${run_name}: crashed (exit ${rc})"
		grep -A20 "AddressSanitizer\|runtime error:" "${tmpdir}/${run_name}.out" | head -40
	fi
	return ${rc}
}

# perf 7 refuses a file whose feature sections it cannot read, as its own
# data_validation.sh test asks, and takes a big endian file without
# HEADER_HOSTNAME for one of a perf older than features, with a
# HEADER_BUILD_ID section that a cut file does not have: it must refuse
# truncate-be, cleanly. Older perf reads what is there.
perf_major=$("${PERF}" version | sed -n 's/^perf version \([0-9]*\)\..*/\1/p')

check_file() {
	name=$1
	data="${tmpdir}/${name}.data"

	if [ "${name}" = truncate-be ] && [ "${perf_major:-0}" -ge 7 ] ; then
		run "${name}-stats" "${PERF}" report -i "${data}" --stats &&
			fail "${name}: perf ${perf_major} read a file whose feature sections are cut off"
		grep -q "incompatible file format" "${tmpdir}/${name}-stats.out" ||
			fail "${name}: refused without saying why"
		cat "${tmpdir}/${name}-stats.out"
		return
	fi
	run "${name}-stats" "${PERF}" report -i "${data}" --stats
	if ! grep -q "MALFORMED events: *1\$" "${tmpdir}/${name}-stats.out" ; then
		fail "${name}: no MALFORMED count of 1 in --stats"
		cat "${tmpdir}/${name}-stats.out"
	fi
	run "${name}-report" "${PERF}" report -i "${data}" --stdio
	if ! grep -q "prog  *\[\.\] _start" "${tmpdir}/${name}-report.out" ; then
		fail "${name}: the good records were not used"
		cat "${tmpdir}/${name}-report.out"
	fi
	run "${name}-dump" "${PERF}" report -D -i "${data}"
	if [ "${name#truncate}" = "${name}" ] &&
	   ! grep -q "PERF_RECORD_MMAP3 malformed: .*, skipping it" "${tmpdir}/${name}-dump.out" ; then
		fail "${name}: no reason in perf report -D"
	fi
	run "${name}-script" "${PERF}" script -i "${data}" --show-mmap-events
	run "${name}-inject" "${PERF}" inject --convert-mmap3 -i "${data}" -o "${tmpdir}/${name}.mmap2"
	[ -f "${tmpdir}/${name}.mmap2" ] && run "${name}-inject-report" "${PERF}" report -i "${tmpdir}/${name}.mmap2" --stats
	grep -h "malformed\|truncated\|MALFORMED" "${tmpdir}/${name}-stats.out" "${tmpdir}/${name}-dump.out" | sort -u | head -3
}

for endian in "" "--big-endian" ; do
	for bad in short bidsize nonul offsetsmall offsetbig truncate ; do
		name="${bad}${endian:+-be}"
		echo "== ${name}"
		python3 "${GEN}" -o "${tmpdir}/${name}.data" --path "${prog}" --bad ${bad} ${endian} || fail "${GEN}"
		check_file "${name}"
	done
done

# check_used name file type pattern: perf report resolves the samples in
# file through its mmap record, and perf report -D shows that record (of
# type MMAP3 or MMAP2) as pattern says
check_used() {
	run "$1-report" "${PERF}" report -i "$2" --stdio
	grep -q "prog  *\[\.\] _start" "${tmpdir}/$1-report.out" ||
		fail "$1: the PERF_RECORD_$3 was not used"
	run "$1-dump" "${PERF}" report -D -i "$2"
	grep -q "PERF_RECORD_$3 $4\]: r-xp ${prog}\$" "${tmpdir}/$1-dump.out" ||
		fail "$1: wrong PERF_RECORD_$3 in perf report -D"
}

# well_formed name endian gen-args...: a file that the generator makes with
# gen-args, of either endianness, and that is not malformed: --stats counts
# nothing as MALFORMED, and perf report resolves the samples through the
# MMAP3
well_formed() {
	name="$1${2:+-be}"
	endian=$2
	shift 2
	echo "== ${name}"
	data="${tmpdir}/${name}.data"
	python3 "${GEN}" -o "${data}" --path "${prog}" "$@" ${endian} || fail "${GEN}"
	run "${name}-stats" "${PERF}" report -i "${data}" --stats
	grep -q "MALFORMED" "${tmpdir}/${name}-stats.out" && fail "${name}: counted as MALFORMED"
	check_used "${name}" "${data}" MMAP3 ".* mtime [0-9]* (.*).*"
}

for endian in "" "--big-endian" ; do
	# An MMAP3 with fields of a later kernel before its filename, at
	# filename_offset, that perf must skip
	well_formed later "${endian}" --filename-offset 120
	grep -q "MMAP3 events: *1 " "${tmpdir}/${name}-stats.out" || fail "${name}: no MMAP3 in --stats"
	# perf inject fails on files of the other endianness, converting or not
	if [ -z "${endian}" ] ; then
		run "${name}-inject" "${PERF}" inject --convert-mmap3 -i "${data}" -o "${tmpdir}/${name}.mmap2"
		check_used "${name}-inject" "${tmpdir}/${name}.mmap2" MMAP2 ".*"
	fi

	# A record of a type that perf does not know, as a newer kernel may
	# write one: skipped by its size and counted, not MALFORMED, and the
	# records after it used
	well_formed unknown "${endian}" --unknown-type 62
	grep -q "^1 records of unknown types were skipped" "${tmpdir}/${name}-report.out" ||
		fail "${name}: perf report does not say that it skipped the record"
	run "${name}-script" "${PERF}" script -i "${data}" ||
		fail "${name}: perf script failed"
done

# A file cut at a page boundary, past the mmapped end of the file
echo "== truncate-page"
python3 "${GEN}" -o "${tmpdir}/big.data" --path "${prog}" --samples 2000 || fail "${GEN}"
head -c 16384 "${tmpdir}/big.data" > "${tmpdir}/truncate-page.data"
check_file truncate-page

# Fuzz a bit: flip bytes in the MMAP3 record of a good file
echo "== fuzz"
python3 "${GEN}" -o "${tmpdir}/good.data" --path "${prog}" --samples 10 || fail "${GEN}"
python3 - "${tmpdir}/good.data" "${tmpdir}/fuzz" <<'PY'
import random, sys
data = open(sys.argv[1], 'rb').read()
off = data.find(b'\x3f\x00\x00\x00\x02\x00')  # PERF_RECORD_MMAP3 header
random.seed(42)
for i in range(100):
    d = bytearray(data)
    for _ in range(4):
        d[off + random.randrange(8, 136)] = random.randrange(256)
    if i % 4 == 0:                             # and its size, kept 8 bytes
        d[off + 6] = random.randrange(32) * 8  # aligned, see the README
    open(f'{sys.argv[2]}{i}.data', 'wb').write(bytes(d))
PY
i=0
while [ ${i} -lt 100 ] ; do
	run "fuzz${i}-stats" "${PERF}" report -i "${tmpdir}/fuzz${i}.data" --stats
	run "fuzz${i}-script" "${PERF}" script -i "${tmpdir}/fuzz${i}.data" --show-mmap-events
	i=$((i + 1))
done

[ ${err} -eq 0 ] && echo "PASS: malformed MMAP3 records and truncated files"
exit ${err}
