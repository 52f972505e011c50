#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest. Writes raw results under /results; the host parses them
# (scripts/report.sh), so nothing here decides pass or fail on its own.
#   kselftest/NAME.tap, .rc   each perf_events kselftest binary
#   perftest.log              upstream perf test, suite by suite in order
#   perftest.d/N.log, .rc     perf test N: its result lines; exit status,
#                             seconds
#   perftest.d/N.vlog         the whole output (perf test -v N) of a suite
#                             that failed, ran out of time or printed no
#                             result
#   perftest-list, -times     the suites run, and the seconds each took
#   perftest-timeouts         the suites that ran out of time
#   perftest-noresult         the suites that ended without a result line
#   perftest-rerun/N.log      perf test -v N, once more for each that failed,
#                             and -vv for each skip of a test of ours
#   perftest-space.txt        the guest's free space and memory after it
#   guest/NAME.log, .rc       our guest tests (scripts/tests/guest, and
#                             scripts/tests/guest2 in a second boot)
#   artifacts/NAME/           files a guest test leaves for the host tests
#   gcov/kernel/, gcov/perf/  make coverage: gcov's counters of the kernel
#                             and of perf-cov, at their objects' paths
# It runs on the host's userspace (scripts/guest/init), with perf, the
# selftests and the test modules from build/, at the host's paths.
mode=$1
R=/results
TOP=${RIG_TOP:?} OBJ=${RIG_OBJ:?} KERNEL=${RIG_KERNEL:?}
T=$OBJ/tests/$KERNEL
# rig.perf=perf-san (make check PERF=san): the ASan+UBSan perf. Its reports
# go to $R/san/, whatever a test does with perf's stderr.
P=$OBJ/perf
for arg in $(cat /proc/cmdline); do
	case $arg in rig.perf=*) P=$OBJ/${arg#rig.perf=} ;; esac
done
if [ "$P" = "$OBJ/perf-san" ]; then
	mkdir -p $R/san
	export ASAN_OPTIONS=log_path=$R/san/asan UBSAN_OPTIONS=log_path=$R/san/ubsan:print_stacktrace=1
fi
# rig.perf=perf-cov (make coverage): perf with gcov's counters, which each
# perf process adds up in .gcda files beside the objects when it exits.
# build/ is read-only here: they go under GCOV_PREFIX, on the tmpfs, and
# to $R/gcov/perf at the end (gcov_collect).
if [ "$P" = "$OBJ/perf-cov" ]; then
	export GCOV_PREFIX=/run/rig-gcov
fi
export PATH=$P:$PATH
# perf test finds its shell tests in ./tests/shell, and "Setup struct
# perf_event_attr" runs ./tests/attr.py against ./perf, and "Test java
# symbol" loads ./libperf-jvmti.so, and perf script -s finds its Python and
# Perl modules in ./scripts: a directory that looks like tools/perf of a
# built tree, where perf test runs and which is perf's exec path.
PT=/tmp/perf-tree
mkdir -p $PT && ln -sfn "$OBJ/src/tools/perf/tests" $PT/tests &&
	ln -sfn "$OBJ/src/tools/perf/scripts" $PT/scripts &&
	ln -sfn "$P/perf" $PT/perf &&
	ln -sfn "$P/libperf-jvmti.so" $PT/libperf-jvmti.so
export PERF_EXEC_PATH=$PT
cd /tmp || exit 1
. $TOP/scripts/guest/scratch-fs.sh

info() {
	{
		uname -a
		echo "cmdline: $(cat /proc/cmdline)"
		echo "cpus: $(grep -c ^processor /proc/cpuinfo)"
		perf version --build-options
	} >$R/info.txt 2>&1
}

# now: a time stamp in ns
now() {
	date +%s%N
}

# The cost of perf record after its workload exits, system wide, with the
# default of upstream's perf until 6.17 (MMAP2, then a pass over the
# samples for the build ids), MMAP2 with build ids (its default since
# 6.17) and MMAP3 with build ids, which needs no pass either; and the cost of perf
# report on the same samples as MMAP3 and as MMAP2 (perf inject
# --convert-mmap3). Rounds are interleaved; the host prints the median of
# each and its spread. The workload notes how much of perf.data perf had
# written when it ended: what perf writes after that is the drain of the
# ring buffers, which varies from round to round.
record_cost() {
	local w=/tmp/cost i o t0 t1 sz
	mkdir -p $w && cd $w || return 1
	# Page faults on fresh memory (dd's 256 MB buffer, filled by read())
	# next to kernel work, each fault a sample with its call chain: tens
	# of MB of perf.data. (cpu-clock would do, but without high
	# resolution timers in this kernel it samples at HZ at most. perf
	# bench mem memset did it until 7.3, whose bench maps its buffers
	# with MAP_POPULATE: no faults, and a perf.data under 1 MB.)
	cat >work.sh <<-'EOS'
		date +%s%N >start
		timeout 2 dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null &
		for i in 1 2; do
			dd if=/dev/zero of=/dev/null bs=256M count=1 2>/dev/null
		done
		wait
		date +%s%N >end
		stat -c %s "$DATA" >endsize
	EOS
	# No throttling of a fault per sample (the rate first: with the CPU
	# time limit off, the kernel refuses to change it).
	echo 1000000 >/proc/sys/kernel/perf_event_max_sample_rate
	echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
	echo "# round case exit_to_exit_ns size_bytes workload_ns size_at_exit_bytes"
	for i in 1 2 3 4 5; do
		for o in upstream mmap2-buildid mmap3 ${nokeep:+mmap3-nokeep}; do
			case $o in
			upstream) set -- --no-mmap3 --no-buildid-mmap $nokeep ;;
			mmap2-buildid) set -- --no-mmap3 --buildid-mmap ;;
			mmap3) set -- --buildid-mmap ;;
			mmap3-nokeep) set -- --buildid-mmap $nokeep ;;
			esac
			# Each from an empty build-id cache, that perf record fills
			rm -rf start end endsize $o.data $w/.debug
			DATA=$o.data HOME=$w perf record -q -a -g -e page-faults -c 1 "$@" -o $o.data -- sh work.sh 2>>record.err
			t1=$(now)
			sz=$(wc -c <$o.data)
			echo "$i $o $((t1 - $(cat end))) $sz $(($(cat end) - $(cat start))) $(cat endsize)"
		done
	done
	perf inject --convert-mmap3 -i mmap3.data -o mmap2.data || return 1
	# One round: under TCG a report of this file takes half a minute.
	# The first report reads vmlinux and the libraries through the cold
	# 9p cache: on 6.1, MMAP3 reported first took 1.40 times MMAP2, and
	# reported second 0.97 times. An untimed report warms it for both.
	HOME=$w perf report -i mmap2.data --stdio >/dev/null 2>&1
	echo "# round case report_ns"
	for o in mmap3 mmap2; do
		t0=$(now)
		HOME=$w perf report -i $o.data --stdio >/dev/null 2>>report.err
		t1=$(now)
		echo "1 report-$o $((t1 - t0))"
	done
	perf report -i mmap3.data --stats 2>>report.err | grep -E 'MMAP|SAMPLE|LOST|THROTTLE'
	tail -n 3 record.err report.err
}

# in_order ROUND CASE...: the cases in their order, turned round in every
# other round, so that each goes first as often as last.
in_order() {
	local i=$1
	shift
	if [ $((i % 2)) = 0 ]; then
		printf '%s\n' "$@" | tac
	else
		printf '%s\n' "$@"
	fi
}

# The cost of perf record -a's start on a machine with many processes,
# which is the synthesis of their mmap records: MMAP3 (a stat() of each
# mapped file more, for its mtime) against MMAP2, both with build ids read
# from the files. 500 sleeping processes, each with its program, libc and
# the dynamic loader mapped, beside the guest's own. The workload "synth"
# is true: perf's start, the synthesis and its exit. The workload "storm"
# is an mmap storm on top of that: mmap3_bench's 12000 mmap()+munmap()
# pairs of one executable file, each a record that the side band of
# --keep-mapped reads and skips once the file is kept.
synth_cost() {
	local w=/tmp/synth i o t0 t1 n pids= wl cmd nokeep_case=${nokeep:+mmap3-nokeep}
	local storm="$T/selftests/mmap3_bench -n 2000 -r 1"
	mkdir -p $w && cd $w || return 1
	for i in $(seq 500); do
		sleep 3600 &
		pids="$pids $!"
	done
	# An untimed round first: the first perf record of a boot reads perf,
	# its libraries and the build ids through the cold 9p cache.
	HOME=$w perf record -q -a -e cpu-clock -o warm.data -- true 2>>synth.err
	echo "# round case start_to_exit_ns mmap_records [lost_records mmap_record_bytes]"
	for i in 1 2 3 4 5 6 7; do
		for o in $(in_order $i mmap2-buildid mmap3 $nokeep_case); do
			case $o in
			mmap2-buildid) set -- --no-mmap3 --buildid-mmap ;;
			mmap3) set -- --mmap3 --buildid-mmap ;;
			mmap3-nokeep) set -- --mmap3 --buildid-mmap $nokeep ;;
			esac
			for wl in synth storm; do
				cmd=true
				if [ $wl = storm ]; then
					[ -x "${storm%% *}" ] || continue
					cmd=$storm
				fi
				rm -rf $w/.debug
				t0=$(now)
				HOME=$w perf record -q -a -e cpu-clock "$@" -o $o.data -- $cmd >/dev/null 2>>synth.err
				t1=$(now)
				n=$(perf script -i $o.data --show-mmap-events 2>/dev/null | grep -c 'PERF_RECORD_MMAP')
				# The storm's: records lost, and the mean size of its mmap records
				[ $wl = synth ] ||
					n="$n $(perf report -i $o.data --stats 2>/dev/null | awk '$1 == "LOST" { l = $3 } END { print l + 0 }')" \
					n="$n $(perf report -D -i $o.data 2>/dev/null | awk '/ \[0x[0-9a-f]+\]: PERF_RECORD_MMAP[23]? .*mmap3_bench$/ {
						h = $0; sub(/\]: PERF_RECORD_MMAP.*/, "", h); sub(/.*\[0x/, "", h)
						for (v = 0; h != ""; h = substr(h, 2)) v = v * 16 + index("0123456789abcdef", substr(h, 1, 1)) - 1
						s += v; c++
					} END { print c ? int(s / c) : 0 }')"
				echo "$i $wl-$o $((t1 - t0)) $n"
			done
		done
	done
	kill $pids
	wait $pids 2>/dev/null
	tail -n 3 synth.err
}

# The cost of data mmap records to a program that moves its memory about:
# scripts/guest/mremap-realloc.c, 5000 realloc()s of a buffer between 1
# and 64 MB, each an mremap() that moves or grows it half the time, timed
# by the program itself: alone, under perf record -a without data mmap
# records, and with them (-d) as MMAP2 and as MMAP3 (with build ids both),
# where each move or growth is a record. Rounds are interleaved, the
# order turned each round.
mremap_cost() {
	local w=/tmp/mremap i o t n
	mkdir -p $w && cd $w || return 1
	cc -O2 -o realloc $TOP/scripts/guest/mremap-realloc.c || return 1
	echo "# round case workload_ns mmap_records"
	for i in 1 2 3 4 5 6 7; do
		for o in $(in_order $i alone nodata data-mmap2 data-mmap3); do
			case $o in
			alone) set -- ;;
			nodata) set -- --no-mmap3 --buildid-mmap ;;
			data-mmap2) set -- -d --no-mmap3 --buildid-mmap ;;
			data-mmap3) set -- -d --mmap3 --buildid-mmap ;;
			esac
			n=0
			if [ $o = alone ]; then
				t=$(./realloc 5000) || return 1
			else
				t=$(HOME=$w perf record -q -a -e cpu-clock "$@" -o $o.data -- ./realloc 5000 2>>mremap.err) ||
					return 1
				n=$(perf script -i $o.data --show-mmap-events 2>/dev/null | grep -c 'PERF_RECORD_MMAP')
			fi
			echo "$i mremap-$o $t $n"
		done
	done
	tail -n 3 mremap.err
}

# What changes a file's identity, for each key a profiler could keep (the
# MMAP3 cover letter's table): on each scratch file system a program file
# goes through what users and installers do to one, and each case prints
# which keys changed: I the inode (device and number, which MMAP2
# carries), M the mtime (which MMAP3 adds), C the kernel's change cookie
# (i_version: no record carries it and statx() does not give it to user
# space; the test module perf_cookie reads it; "c" where the file system
# keeps none) and B the GNU build id. Each case starts from build 1 of a
# program at the path, with an mtime of 2001; build 2 is another build.
identity() {
	local w=/tmp/identity fs d f c v a b
	mkdir -p $w && cd $w || return 1
	lsmod | grep -q '^perf_cookie ' || insmod $T/testmod/perf_cookie.ko || return 1
	for v in 1 2; do
		printf 'int main(void) { return %d; }\n' $v >v$v.c
		mkdir -p pkg$v/DEBIAN &&
			cc -O1 -o v$v v$v.c && touch -d "2001-02-03 04:05:0$v" v$v &&
			cp -p v$v pkg$v/prog &&
			printf 'Package: perf-identity\nVersion: %s\nArchitecture: all\nMaintainer: perf <linux-perf-users@vger.kernel.org>\nDescription: a file whose identity changes\n' \
				$v >pkg$v/DEBIAN/control &&
			dpkg-deb -Znone --build pkg$v v$v.deb >/dev/null || return 1
	done
	echo "# fs case keys_changed"
	for fs in $SCRATCH_FS; do
		d=$(scratch_mount $fs $w/$fs) || { echo "$fs: could not be mounted"; continue; }
		f=$d/prog
		dpkg="dpkg --force-not-root --force-bad-path --log=$w/$fs/dpkg.log --instdir=$d --admindir=$w/$fs/dpkg -i"
		mkdir -p $w/$fs/dpkg/updates $w/$fs/dpkg/info
		touch $w/$fs/dpkg/status $w/$fs/dpkg/available
		for c in touch cp-p rsync-t rewrite-mtime-kept mv-new-build mv-same-build dpkg-upgrade dpkg-reinstall; do
			rm -f $f
			case $c in
			dpkg-*) $dpkg $w/v1.deb >/dev/null ;;
			*) cp -p v1 $f ;;
			esac || { echo "$fs $c could not install build 1"; continue; }
			a=$(identity_keys $f)
			case $c in
			touch) touch $f ;;
			cp-p) cp -p v2 $f ;;
			rsync-t) rsync -t v2 $f ;;
			rewrite-mtime-kept) cat v2 >$f && touch -r v1 $f ;;
			mv-new-build) cp -p v2 $f.new && mv $f.new $f ;;
			mv-same-build) cp -p v1 $f.new && mv $f.new $f ;;
			dpkg-upgrade) $dpkg $w/v2.deb >/dev/null ;;
			dpkg-reinstall) $dpkg $w/v1.deb >/dev/null ;;
			esac || { echo "$fs $c failed"; continue; }
			b=$(identity_keys $f)
			echo "$fs $c $(echo "$a $b" | awk '{
				for (i = 1; i <= 4; i++) {
					k = substr("IMCB", i, 1)
					if (i == 3 && ($i == "-" || $(i + 4) == "-")) k = "c"
					else if ($i == $(i + 4)) k = "."
					printf "%s", k
				}
			}')"
		done
		scratch_umount $w/$fs
	done
	rmmod perf_cookie
}

# identity_keys FILE: its device:inode, mtime, change cookie and build id
identity_keys() {
	echo "$1" >/proc/perf_cookie &&
		echo "$(stat -c %d:%i "$1") $(stat -c %.9Y "$1") $(cat /proc/perf_cookie)" \
			"$(readelf -n "$1" | awk '/Build ID/ { b = $3 } END { print b == "" ? "-" : b }')"
}

# The race between a program's start and a stat() of its path from user
# space, which a profiler that learns a file's mtime after the fact
# depends on: perf record -a --mmap3, whose keep-mapped side band opens
# each mapped file as its record arrives (through /proc/PID/map_files
# while the process lives, else its path), over 100 starts of a short
# program without a build id that an upgrade replaces as it starts. perf
# record -v says of each start whose file it found replaced that it "is
# not the mapped file anymore" (or gone): a stat() of the path then would
# have given the other build's mtime to the samples of the one that ran.
race() {
	local w=/tmp/race v n
	mkdir -p $w && cd $w || return 1
	for v in 1 2; do
		printf 'int main(void) { return %d; }\n' $v >v$v.c
		cc -O1 -Wl,--build-id=none -o v$v v$v.c || return 1
	done
	cat >work.sh <<-'EOS'
		for i in $(seq 100); do
			cp v1 prog.new && mv prog.new prog
			./prog &
			cp v2 prog.new && mv prog.new prog
			wait
		done
	EOS
	HOME=$w perf record -v -a --mmap3 --buildid-mmap -e cpu-clock -o race.data -- sh work.sh \
		>/dev/null 2>race.err || { tail -n 5 race.err; return 1; }
	n=$(perf script -i race.data --show-mmap-events 2>/dev/null | grep -c "PERF_RECORD_MMAP3 .* r-xp $w/prog$")
	echo "race: $n starts of $w/prog recorded," \
		"$(grep -c "keep-mapped: $w/prog is not the mapped file anymore" race.err) found replaced," \
		"$(grep -c "keep-mapped: $w/prog is gone" race.err) gone"
	grep '^\[ perf record: .*not kept' race.err
}

# How often the kernel has no build id to give for an executable file
# mapping (the MMAP3 cover letter quotes it): perf record -a with no
# synthesized records, so that every mmap record is the kernel's, while
# programs start with the page cache dropped: those of the guest's root
# (the host's, over 9p), then copies of them and of their libraries on an
# ext4 file system, run through the copied dynamic loader. For each
# mapping without a build id: whether its file has a GNU build-id note
# that the kernel could not read, or none, and on what.
census() {
	local w=/tmp/census d p f
	local progs="gcc python3 perl git make tar xz gzip readelf objdump gdb ls"
	mkdir -p $w && cd $w || return 1
	census_on "the guest's root" / "$(printf '%s\n' $progs)" || return 1
	d=$(scratch_mount ext4 $w/ext4) || { echo "ext4: could not be mounted"; return 1; }
	mkdir -p $d/bin $d/lib
	for p in $progs; do
		f=$(command -v $p) || continue
		cp -L $f $d/bin/ &&
			ldd $f | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' |
			xargs -r cp -L -t $d/lib/ || return 1
	done
	census_on "copies on ext4" $d/ "$(for p in $progs; do
		[ -e $d/bin/$p ] && echo "$d/lib/ld-linux-x86-64.so.2 --library-path $d/lib $d/bin/$p"
	done)"
	p=$?
	scratch_umount $w/ext4
	return $p
}

# census_on LABEL ROOT COMMANDS: the census of the mappings under ROOT of
# COMMANDS (a line each, each run with --version), cold. Prints "census
# RECORDS WITHOUT LABEL", then a line per file without.
census_on() {
	local n m
	printf '%s\n' "$3" >commands
	sync
	echo 3 >/proc/sys/vm/drop_caches
	HOME=$w perf record -q -a --synth=no --mmap3 --buildid-mmap -e cpu-clock -o census.data -- sh -c '
		while read -r c; do
			timeout 20 $c --version </dev/null >/dev/null 2>&1
		done <commands' 2>census.err || { cat census.err; return 1; }
	perf script -i census.data --show-mmap-events 2>/dev/null |
		awk -v root="$2" '/PERF_RECORD_MMAP3/ && $(NF - 1) ~ /^r.x/ && index($NF, root) == 1 && $NF !~ /^\/\/anon/ {
			print ($0 ~ / <[0-9a-f]+>\]:/ ? "bid" : "none"), $NF
		}' >maps
	n=$(wc -l <maps)
	m=$(grep -c '^none' maps)
	[ "$n" -gt 0 ] || { echo "no executable file mapping recorded under $2"; return 1; }
	echo "census $n $m $1"
	grep '^none' maps | sort | uniq -c | while read -r c _ f; do
		if readelf -n "$f" 2>/dev/null | grep -q 'Build ID'; then
			echo "  $c x $f ($(stat -f -c %T "$f")): has a GNU build-id note"
		else
			echo "  $c x $f ($(stat -f -c %T "$f")): no GNU build-id note"
		fi
	done
}

# rig.tests=WORD[,WORD...] on the kernel command line (make check
# TESTS=...) runs only the tests whose name holds one of the words: the
# kselftest programs and our scripts by file name, perf test by its
# description (perf test's own substring match).
tests=
for arg in $(cat /proc/cmdline); do
	case $arg in rig.tests=*) tests=$(echo "${arg#rig.tests=}" | tr , ' ') ;; esac
done
wanted() {
	[ -z "$tests" ] && return 0
	for w in $tests; do
		case $1 in *"$w"*) return 0 ;; esac
	done
	return 1
}

# timed NAME OUT COMMAND...: run it with its output in OUT, note its time
# in $R/times, and return its exit status.
timed() {
	local n=$1 out=$2 t0 rc
	shift 2
	echo "running $n"
	t0=$(date +%s)
	"$@" >"$out" 2>&1
	rc=$?
	echo "$n $(($(date +%s) - t0))" >>$R/times
	return $rc
}

# kselftest NAME PROGRAM [TMPDIR]: run a kselftest program, its TAP in
# kselftest/NAME.tap, its exit status in NAME.rc; with its scratch files in
# TMPDIR when one is given.
kselftest() {
	(cd $T/selftests || exit
	 [ -z "${3:-}" ] || export TMPDIR=$3
	 timed "kselftest $1" $R/kselftest/$1.tap timeout 600 ./"$2")
	echo $? >$R/kselftest/$1.rc
}

# The kselftests, with their files on the guest's /tmp, a tmpfs; the MMAP3
# ones, which map files from a scratch directory in $TMPDIR, again on each
# file system of rig.kselftest_fs (lib.sh's KSELFTEST_FS), as NAME@FS.
kselftests() {
	local t fs d dir fslist=
	for arg in $(cat /proc/cmdline); do
		case $arg in rig.kselftest_fs=*) fslist=$(echo "${arg#*=}" | tr , ' ') ;; esac
	done
	mkdir -p $R/kselftest
	for t in $(cat $T/selftests.list); do
		wanted "$t" || continue
		kselftest $t $t
		case $t in mmap3*) ;; *) continue ;; esac
		for fs in $fslist; do
			d=/tmp/kselftest-fs
			if dir=$(scratch_mount $fs $d 2>$R/kselftest/$t@$fs.tap); then
				kselftest $t@$fs $t $dir
			else
				printf '1..1\nnot ok 1 %s # cannot make or mount %s\n' $fs $fs \
					>>$R/kselftest/$t@$fs.tap
				echo 1 >$R/kselftest/$t@$fs.rc
			fi
			scratch_umount $d
		done
	done
}

# An awk program: the result lines of suite n in perf test's output,
# "NUM[.SUB]: desc : result", as 7.3 and 6.12 print them. The longest
# description of a run has no space before its colon. 6.1's -v prints
# "NUM: desc :" before the suite's output and the result after it, on the
# line after "---- end ----", as "desc: Ok" ("desc subtest SUB: Ok"):
# joined into one line here.
# shellcheck disable=SC2016,SC2089
perftest_results='
	$0 ~ "^ *" n "(\\.[0-9]+)?: .*:( (Ok|FAILED!|Skip.*))?$" {
		if (head != "") print head
		head = ""
		if ($0 ~ /:$/) head = $0; else print
	}
	end && head != "" && match($0, /: (Ok|FAILED!|Skip.*)$/) {
		print head " " substr($0, RSTART + 2)
		head = ""
	}
	{ end = ($0 == "---- end ----") }
	END { if (head != "") print head }'

# perftests JOBS NUM...: perf test NUM for each NUM, JOBS at a time, each
# in a perf test $perftest_v of its own, within its limit (perftest-limits):
# its result lines in perftest.d/NUM.log, its whole output, kept only when
# it failed, ran out of time or printed no result, in perftest.d/NUM.vlog
# (a failure that a rerun does not repeat leaves its evidence), its exit
# status and seconds in perftest.d/NUM.rc. At the niceness $nice. For a suite that runs out of
# time, the guest's processes, with where each waits, 10 s before its end
# in perftest.d/NUM.ps: what it hung in.
perftests() {
	local jobs=$1
	shift
	printf '%s\n' "$@" | xargs -r -P "$jobs" -n 1 nice -n "${nice:-0}" sh -c '
		t0=$(date +%s)
		lim=$(awk -v n="$1" "\$1 == n { print \$2 }" "$0/../perftest-limits")
		(sleep $((lim - 10)) && ps -eH -o pid,stat,wchan:24,etime,time,args >"$0/$1.ps") \
			</dev/null >/dev/null 2>&1 &
		w=$!
		timeout "$lim" perf test $perftest_v "$1" >"$0/$1.vlog" 2>&1
		rc=$?
		pkill -P $w; kill $w 2>/dev/null
		awk -v n="$1" "$perftest_results" "$0/$1.vlog" >"$0/$1.log"
		grep -qE ": (Ok|Skip.*)\$" "$0/$1.log" && ! grep -qE ": FAILED!\$" "$0/$1.log" &&
			[ "$rc" != 124 ] && rm -f "$0/$1.vlog"
		echo "$rc $(($(date +%s) - t0))" >"$0/$1.rc"' $R/perftest.d
}

# perftests_lead JOBS NUM...: the first NUM at the default priority, the
# others JOBS - 1 at a time beside it under nice 10. The longest suite
# is CPU-bound: 6.12's BPF filter test loads its program ten times, and
# each load spends 55 s in the verifier under TCG (btf_find_by_name_kind()
# scans the kernel's BTF for each trusted pointer it walks). Sharing two
# vCPUs evenly with three others, it ran out of its 600 s, long after
# they had ended; ahead of them it took 437 s (make check, 6.12).
perftests_lead() {
	local jobs=$1 lead=$2
	shift 2
	perftests 1 "$lead" &
	nice=10 perftests $((jobs - 1)) "$@"
	wait
}

# perf test, suite by suite, JOBS at a time; the suites that 7.3 marks
# "exclusive" (perftest-exclusive) after them, one at a time. 6.12's own
# perf test -p starts every test at once: on two vCPUs under TCG that is
# a hundred perf processes in 2 GiB.
perftest() {
	# A suite's limit is there to end a hang, not a slow run: 1800 s, or
	# twice what the suite took when it last ended, if that is more. On
	# this kind of machine in November 2026 (TCG about 2.3 times slower
	# than before) 6.12's BPF filter test, as the lead, ran out of 600 s
	# and of 1200 s, where it had taken 437 s; then it took 1565 s in one
	# make check and ran out of 1800 s in the next. KASAN and lockdep
	# (KERNEL=debug) make perf test 2.5 times slower: twice that.
	limit=1800 slower=2
	[ "$KERNEL" = debug ] && limit=4500 slower=5
	jobs=4
	mkdir -p $R/perftest.d
	# The first pass is verbose, so that a failing suite's output is kept
	# even when its rerun passes: 7.3's perf test -v prints it whole when
	# asked (ten picked lines otherwise), 6.12's prints it whole, 6.1's
	# prints every suite's (perftests drops a passing suite's).
	perftest_v=-v
	perf test -h 2>&1 | grep -q -- --failure-snippet-lines &&
		perftest_v="-v --failure-snippet-lines=1000000"
	# shellcheck disable=SC2090
	export perftest_v perftest_results
	# The suites by number (perf test list takes the same words as perf
	# test), each with its description.
	# shellcheck disable=SC2086
	(cd $PT && perf test list $tests) 2>&1 |
		sed -n 's/^ *\([0-9][0-9]*\): \(.*\)$/\1\t\2/p' >$R/perftest-list
	# Exclusive or not, and the longest first, by the times of the last
	# run that had them (perftest-times.prev, from the host; a new suite
	# counts as long): the one suite of 400 s, started late, would end
	# long after the others.
	[ -f $R/perftest-times.prev ] || : >$R/perftest-times.prev
	awk -F'\t' 'FILENAME == ARGV[1] { d = $0; t[substr(d, index(d, ": ") + 2)] = d + 0; next }
		FILENAME == ARGV[2] { if (!/^#/ && NF) x[$0] = 1; next }
		{ print (($2 in x) ? "x" : "p"), (($2 in t) ? t[$2] : 99999), $1 }' \
		$R/perftest-times.prev $TOP/scripts/guest/perftest-exclusive $R/perftest-list |
		sort -s -k2,2nr >$R/perftest-order
	awk -v l=$limit -v k=$slower '{ t = ($2 == 99999) ? 0 : $2 * k
		print $3, (t > l) ? t : l }' $R/perftest-order >$R/perftest-limits
	# inject_mmap3.sh leaves its files for the host-side stock perf check.
	# "Test java symbol" runs jshell. Under TCG, the JVM with its JIT
	# crashed in 2 of 18 runs, once without perf at all: SIGSEGV at the
	# verified entry of a C1-compiled method, an instruction that the JVM
	# patches while other threads may run it (most likely TCG translated
	# it half patched). With -Xint it did not crash in 10 runs, and the
	# test still resolves the samples in the interpreter's code through
	# the jitdump.
	# shellcheck disable=SC2046
	(
		cd $PT || exit
		export MMAP3_TEST_OUTDIR=$R/artifacts/inject_mmap3 JAVA_TOOL_OPTIONS=-Xint
		timed "perf test${tests:+ $tests}, $jobs at a time" /dev/null \
			perftests_lead $jobs $(sed -n 's/^p [0-9]* //p' $R/perftest-order)
		timed "perf test${tests:+ $tests}, exclusive" /dev/null \
			perftests 1 $(sed -n 's/^x [0-9]* //p' $R/perftest-order)
	)
	# One log in perf test's order; each suite's time; the suites that
	# ran out of time, which printed no result.
	: >$R/perftest-times
	: >$R/perftest-timeouts
	: >$R/perftest-noresult
	while IFS='	' read -r n desc; do
		cat $R/perftest.d/$n.log
		read -r rc secs <$R/perftest.d/$n.rc
		printf '%s %3d: %s\n' "$secs" "$n" "$desc" >>$R/perftest-times
		if [ "$rc" = 124 ]; then
			printf '%s\t%s\n' "$n" "$desc" >>$R/perftest-timeouts
		elif ! grep -qE ': (Ok|FAILED!|Skip.*)$' $R/perftest.d/$n.log; then
			printf '%s\t%s\n' "$n" "$desc" >>$R/perftest-noresult
		fi
	done <$R/perftest-list >$R/perftest.log
	# What perf test left in the guest's RAM (tmpfs), for a test that
	# fails with ENOSPC.
	{ df -k / /tmp /root; free -m; } >$R/perftest-space.txt 2>&1
	# Each failed test once more, verbose, for its log: a test the
	# baseline calls flaky may pass there (scripts/report.sh). Not the
	# tests that fail on the base too: report.sh does not look at their
	# rerun, and daemon operations' takes 100 s. And each skip of a test
	# of ours (one the baseline does not list), with -vv: perf test
	# prints no reason for a shell test's skip and shows its output only
	# at -vv (7.3); report.sh takes the test's own "Skip: why" from it.
	mkdir -p $R/perftest-rerun
	base=$TOP/scripts/upstream-baseline-${OBJ##*/}.txt
	sed -n 's/^ *\([0-9]*\):.*: \(FAILED!\|Skip\)$/\1 \2/p' $R/perftest.log | while read -r n res; do
		desc=$(awk -F'\t' -v n="$n" '$1 == n { print $2 }' $R/perftest-list)
		if [ "$res" = Skip ]; then
			v=-vv known=any
		else
			v=${perftest_v:--v} known=fail
			[ "$mode" = check ] || known=
		fi
		[ -n "$known" ] && [ -f "$base" ] &&
			awk -F'\t' -v d="$desc" -v k="$known" '$1 == "perf-test" && $2 == d && (k == "any" || $3 == k) { f = 1 } END { exit !f }' "$base" &&
			continue
		(cd $PT && JAVA_TOOL_OPTIONS=-Xint timeout 300 perf test $v "$n") </dev/null >$R/perftest-rerun/$n.log 2>&1
		awk -v n="$n" "$perftest_results" $R/perftest-rerun/$n.log >$R/perftest-rerun/$n.res
	done
}

# Our scripts run under bash, whose arithmetic wraps at 64 bits: dash
# saturates 0xffffffff81000000 to INT64_MAX.
# Each script has 600 s, or what a "# timeout: SECONDS" line of its own says.
guesttests() {	# directory of scripts
	local tmo
	mkdir -p $R/guest $R/artifacts
	for t in $1/*.sh; do
		[ -e "$t" ] || continue
		n=$(basename "$t" .sh)
		wanted "$n" || continue
		tmo=$(sed -n 's/^# timeout: \([0-9][0-9]*\)$/\1/p' "$t")
		mkdir -p $R/artifacts/$n
		ARTIFACTS=$R/artifacts/$n MODULES=$T/testmod SELFTESTS=$T/selftests \
			MAINLINE_PERF=$TOP/build/7.3/perf-stock/perf timed "$n" $R/guest/$n.log \
			timeout ${tmo:-600} bash "$t"
		echo $? >$R/guest/$n.rc
	done
}

demo() {
	w=/tmp/demo && mkdir -p $w && cd $w || return 1
	insmod $T/testmod/perf_testmod.ko
	echo "\$ perf record -a -g -e cpu-clock -- <workload: the test module, perf bench mem memset, dd>"
	perf record -q -a -g -e cpu-clock -o perf.data -- sh -c \
		'echo 1500 >/proc/perf_testmod &
		 perf bench mem memset -s 4MB -l 200 >/dev/null &
		 dd if=/dev/zero of=/dev/null bs=64k count=20000 2>/dev/null; wait'
	echo
	echo "\$ perf report --stdio --no-children -g none --sort dso,sym (top 30)"
	perf report -i perf.data --stdio --no-children -g none --sort dso,sym 2>&1 |
		grep -v '^$' | grep -v '^#' | head -30
	echo
	echo "\$ perf script --show-mmap-events (mmap records, first 15)"
	perf script -i perf.data --show-mmap-events 2>/dev/null | grep -E 'PERF_RECORD_MMAP' | head -15
	echo
	echo "\$ perf buildid-cache --kcore /proc/kcore; ls ~/.debug/[kernel.kcore]/*/*"
	perf buildid-cache -v --kcore /proc/kcore 2>&1
	ls -l ~/.debug/\[kernel.kcore\]/*/* 2>&1
	rmmod perf_testmod
	demo_replaced
}

# A program upgraded while it is recorded, as an installer does it: build
# 1 runs old_spin(), build 2 is moved over its path while it runs, and a
# second process runs new_spin() from the new file. With --keep-mapped
# (perf record's default) the first process's samples get build 1's
# symbols, from the copy perf record made as it was mapped; without, the
# file at the path at the end is build 2, and its samples are not
# resolved, with a warning. With and without a GNU build id; the builds'
# code differs, as their build ids do (a hash of what is loaded, not of
# the symbol table).
demo_replaced() {
	local w=/tmp/demo/replaced v inc k o
	mkdir -p $w && cd $w || return 1
	for v in old new; do
		inc=1
		[ $v = old ] || inc=2
		cat >$v.c <<-EOF
			#include <time.h>
			static volatile unsigned long n;
			static __attribute__((noinline)) void ${v}_spin(time_t end) { while (time(NULL) < end) n += $inc; }
			int main(void) { ${v}_spin(time(NULL) + 2); return 0; }
		EOF
		cc -O1 -o $v-bid $v.c && cc -O1 -Wl,--build-id=none -o $v-nobid $v.c || return 1
	done
	for k in bid nobid; do
		for o in --keep-mapped --no-keep-mapped; do
			echo
			echo "\$ perf record -a -e cpu-clock $o -- <prog ($k): build 1 runs; build 2 is moved over it; build 2 runs>"
			echo "\$ perf report --stdio --sort pid,sym (prog's lines)"
			rm -rf prog $w/.debug
			cp old-$k prog
			HOME=$w perf record -q -a -e cpu-clock $o -o $k$o.data -- sh -c \
				"./prog & sleep 1; cp new-$k prog.new && mv prog.new prog; ./prog; wait" 2>&1
			HOME=$w perf report -i $k$o.data --stdio --sort pid,sym 2>&1 |
				grep -E ':prog |changed after' | sed 's/^  *//' | head -8
		done
	done
}

# make fuzz-seeds: small recordings of each kind that perf reads, the
# fuzzers' starting points (scripts/fuzz.sh). They are made on the tmpfs
# and copied to the results: 7.3 maps the ring buffer as VM_PFNMAP (6.12
# faults its pages in), and 9p's zero-copy write() from it fails with
# EFAULT ("failed to write perf data, error: Bad address"). None is
# copied unless all were made; the log's last command is the one that
# failed (perf record -q prints no error).
seeds() (
	set -ex
	w=/tmp/seeds
	mkdir -p $w && cd $w
	export HOME=/tmp
	set -- -q -e cpu-clock -c 200000 -- dd if=/dev/zero of=/dev/null bs=4k count=3000
	perf record -o mmap3.data "$@"
	perf record --buildid-mmap -o mmap3-buildid.data "$@"
	perf record -B -o mmap3-no-buildid.data "$@"
	perf record --no-mmap3 -o mmap2.data "$@"
	perf record --no-mmap3 --buildid-mmap -o mmap2-buildid.data "$@"
	perf record -g -o mmap3-callchain.data "$@"
	perf record -o - "$@" >mmap3-pipe.data
	perf inject --convert-mmap3 -i mmap3-buildid.data -o converted.data
	# No big-endian machine at hand: made up, of the same dd.
	python3 $OBJ/src/tools/perf/tests/shell/lib/perf_data_mmap3.py --big-endian \
		--path /usr/bin/dd --samples 20 -o mmap3-big-endian.data
	ls -l
	mkdir -p $R/seeds && cp *.data $R/seeds/
)

# make fuzz-kernel: trinity as nobody, on perf_event_open and the mm
# calls, beside mmap3-stress as root, with per-CPU events too, on a tmpfs,
# an overlayfs and a btrfs, for rig.fuzz_seconds. The host judges the
# kernel's log (vm.sh fails the run on any splat) and the figures.
# trinity runs at perf_event_paranoid -1, so that no attr of its fails
# for want of privilege alone. Few open an event all the same (127 of
# 38959 in 120 s, 84% EINVAL): its attrs are random; mmap3-stress makes
# valid ones.
fuzz_kernel() {
	local w=/tmp/fuzz-kernel secs=600 paranoid f
	for arg in $(cat /proc/cmdline); do
		case $arg in rig.fuzz_seconds=*) secs=${arg#rig.fuzz_seconds=} ;; esac
	done
	mkdir -p $w/tmpfs $w/lower $w/upper $w/work $w/ovl $w/btrfs $w/trinity/victims
	mount -t overlay -o lowerdir=$w/lower,upperdir=$w/upper,workdir=$w/work ovl $w/ovl ||
		{ echo "cannot mount overlayfs"; return 1; }
	truncate -s 512M $w/btrfs.img && mkfs.btrfs -q $w/btrfs.img >/dev/null 2>&1 &&
		mount -o loop $w/btrfs.img $w/btrfs || { echo "cannot mount btrfs"; return 1; }
	# trinity's files (-V replaces its walk of /dev, /proc and /sys): a
	# few that nobody may map, truncate and write, an ELF among them.
	for f in a b c; do head -c 65536 /dev/urandom >$w/trinity/victims/$f; done
	cp /bin/true $w/trinity/victims/true
	chown -R 65534:65534 $w/trinity
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	echo "trinity and mmap3-stress, $secs s each, side by side"
	# SIGINT ends trinity with its summary; it does not handle SIGTERM.
	(cd $w/trinity && timeout --preserve-status -s INT -k 30 "$secs" \
		setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		trinity -q -l off -a 64 -C 4 --stats -V $w/trinity/victims \
		--enable-fds=perf,memfd,testfile,pseudo -c perf_event_open \
		-c mmap -c mremap -c munmap -c mprotect -c madvise \
		</dev/null >$R/trinity.log 2>&1
	 echo $? >$R/trinity.rc) &
	$T/mmap3-stress -t "$secs" -c $w/tmpfs $w/ovl $w/btrfs >$R/mmap3-stress.log 2>&1
	echo $? >$R/mmap3-stress.rc
	wait
	echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
	umount $w/ovl $w/btrfs
}

# gcov_collect: the counters of a kernel built with them (make coverage),
# read with cat (debugfs gives their size as 0), and perf-cov's.
gcov_collect() {
	local d=/sys/kernel/debug/gcov f
	if [ -d $d ]; then
		(cd $d && find . -name '*.gcda') | while read -r f; do
			mkdir -p "$R/gcov/kernel/${f%/*}" && cat "$d/$f" >"$R/gcov/kernel/$f"
		done
	fi
	if [ -n "${GCOV_PREFIX:-}" ] && [ -d "$GCOV_PREFIX" ]; then
		mkdir -p $R/gcov/perf && cp -R "$GCOV_PREFIX"/. $R/gcov/perf/
	fi
}

case $mode in
seeds) info; seeds >$R/seeds.log 2>&1 ;;
fuzz-kernel) info; fuzz_kernel >$R/fuzz-kernel.log 2>&1 ;;
check)
	info
	kselftests
	perftest
	guesttests $TOP/scripts/tests/guest
	;;
second) info; guesttests $TOP/scripts/tests/guest2 ;;
upstream) info; kselftests; perftest ;;
demo) info; demo >$R/demo.log 2>&1 ;;
bench)
	info
	# perf record's option that turns off keeping each mapped file in the
	# build-id cache as it is mapped, where perf has it: the cases without
	# it are upstream's behaviour.
	nokeep=
	perf record -h 2>&1 | grep -q keep-mapped && nokeep=--no-keep-mapped
	wanted mmap3_bench && timed mmap3_bench $R/bench.log $T/selftests/mmap3_bench
	wanted record_cost && timed record_cost $R/record-cost.log record_cost
	wanted synth_cost && timed synth_cost $R/synth-cost.log synth_cost
	wanted mremap_cost && timed mremap_cost $R/mremap-cost.log mremap_cost
	wanted census && timed census $R/census.log census
	wanted identity && timed identity $R/identity.log identity
	wanted race && timed race $R/race.log race
	;;
*) echo "unknown mode $mode" ;;
esac
gcov_collect
