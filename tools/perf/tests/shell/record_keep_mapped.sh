#!/bin/sh
# perf record keeps a program replaced while it runs
# SPDX-License-Identifier: GPL-2.0
#
# A program runs while perf record records it; in the middle of the
# recording another build is put at its path, and a second process runs
# from the new file. With --keep-mapped (the default) perf record copied
# the build that ran into the build id cache as it was mapped: perf report
# resolves the first process's samples to its own symbols, from the copy,
# and does not warn. With --no-keep-mapped the cache gets the file at the
# path at the end, the other build: the first process's samples stay
# unresolved, with the warning. The replacement is done by the workload
# itself, so that both processes run during the recording.
#
# The program is a copy of perf running its noploop workload, with its
# build id and, recorded with PERF_RECORD_MMAP3 where the kernel has it,
# without one: kept under its identity, and never given the build id of
# the file that replaced it. It is replaced as installers do it: mv of a
# new build over it, install(1), and dpkg -i of a second version of a
# package built here. Then a shared library, built here with and without
# a build id, replaced under a program that runs. Anonymous executable
# memory, a JIT's code, is no file to keep, nor one said not kept. A
# recording on a list of CPUs (-C) keeps the program as well. One
# without a build id that ran before perf record -p started is kept at its
# end. Last, perf buildid-cache on the copies of a file without a build
# id: --list shows them by their keys, --remove removes the copy of the
# file at the path, --purge all.
#
# MMAP3_TEST_PROG: the perf binary to copy and run (default: perf's)
# MMAP3_TEST_OTHER_PROG: another build to replace it with (default: sh or ls)
# MMAP3_TEST_DIR: where to put the copy (default: /tmp)

. "$(dirname "$0")"/lib/mmap3.sh

err=0
tmpdir=$(mktemp -d "${MMAP3_TEST_DIR:-/tmp}/__perf_test_keep_mapped.XXXXXX")
prog="${tmpdir}/prog"
lib="${tmpdir}/libkeep.so"

cleanup() {
	rm -rf "${tmpdir}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

src=$(mmap3_prog)
if ! mmap3_is_elf "${src}" || [ -z "$(perf buildid-list -i "${src}" 2>/dev/null)" ] ; then
	echo "Skip: ${src} is not an ELF file with a build id, set MMAP3_TEST_PROG"
	cleanup
	exit 2
fi
other=$(mmap3_other_prog "${src}")
if [ -z "${other}" ] || ! mmap3_is_elf "${other}" ; then
	echo "Skip: no other executable to replace ${src} with, set MMAP3_TEST_OTHER_PROG"
	cleanup
	exit 2
fi

mmap3_check_support "${tmpdir}/probe.data" > "${tmpdir}/support"
case $? in
0)	mmap3=--mmap3 ;;
2)	mmap3= ; echo "No PERF_RECORD_MMAP3 support, not checking files without a build id" ;;
*)	cat "${tmpdir}/support" ; cleanup ; exit 1 ;;
esac

# Without a build id, the copy of perf and its replacement
if [ -n "${mmap3}" ] ; then
	if ! objcopy --remove-section=.note.gnu.build-id "${src}" "${tmpdir}/nobid" ||
	   ! objcopy --remove-section=.note.gnu.build-id "${other}" "${tmpdir}/nobid.other" ||
	   [ -n "$(perf buildid-list -i "${tmpdir}/nobid" 2>/dev/null)" ] ; then
		echo "FAIL: objcopy could not remove the build id of ${src} or ${other}"
		cleanup
		exit 1
	fi
fi

# dpkg: a database of our own, and the package of each version
dpkg_install="dpkg --force-not-root --force-bad-path --log=${tmpdir}/dpkg/log --instdir=${tmpdir} --admindir=${tmpdir}/dpkg -i"

dpkg_build() {
	rm -rf "${tmpdir}/pkg"
	mkdir -p "${tmpdir}/pkg/DEBIAN"
	cp "$1" "${tmpdir}/pkg/prog"
	printf 'Package: perf-test-keep-mapped\nVersion: %s\nArchitecture: all\nMaintainer: perf <linux-perf-users@vger.kernel.org>\nDescription: a program replaced while it is recorded\n' \
		"$3" > "${tmpdir}/pkg/DEBIAN/control"
	dpkg-deb -Znone --build "${tmpdir}/pkg" "$2" > /dev/null
}

if command -v dpkg > /dev/null && command -v dpkg-deb > /dev/null ; then
	dpkg=dpkg
	mkdir -p "${tmpdir}/dpkg/updates" "${tmpdir}/dpkg/info"
	touch "${tmpdir}/dpkg/status" "${tmpdir}/dpkg/available"
else
	dpkg=
	echo "No dpkg, not checking dpkg -i"
fi

# The shared library: keep_spin() runs old_spin() in version 1 and
# new_spin() in version 2, whose code differs too: the build id is a hash
# of the loaded sections, not of the symbol table. The program runs
# keep_spin() for $1 seconds.
cat > "${tmpdir}/lib1.c" <<EOF
#include <time.h>
static volatile unsigned long count;
static __attribute__((noinline)) void old_spin(time_t end) { while (time(NULL) < end) count++; }
void keep_spin(int s) { old_spin(time(NULL) + s); }
EOF
sed -e 's/old_spin/new_spin/g' -e 's/count++/count += 2/' "${tmpdir}/lib1.c" > "${tmpdir}/lib2.c"
cat > "${tmpdir}/main.c" <<EOF
#include <stdlib.h>
void keep_spin(int s);
int main(int argc, char **argv) { keep_spin(argc > 1 ? atoi(argv[1]) : 0); return 0; }
EOF
cc=${CC:-cc}
libs=
if command -v "${cc}" > /dev/null ; then
	for v in 1 2 ; do
		so="${cc} -O1 -shared -fPIC -Wl,-soname,libkeep.so"
		${so} -o "${tmpdir}/lib$v.so" "${tmpdir}/lib$v.c" &&
		${so} -Wl,--build-id=none -o "${tmpdir}/lib$v.nobid.so" "${tmpdir}/lib$v.c" || break
	done && cp "${tmpdir}/lib1.so" "${lib}" &&
	${cc} -o "${tmpdir}/main" "${tmpdir}/main.c" -L"${tmpdir}" -lkeep -Wl,-rpath,"${tmpdir}" &&
	libs=lib
fi
[ -z "${libs}" ] && echo "Could not build a program and a shared library with ${cc}, not checking a replaced library"

# record name file new how [options]: put file at its path (${prog}, or
# ${lib} for how=lib), run it, replace it with new as how says, run the
# new one, in a recording with a build id cache of its own. The old
# process's pid is written to name.pid. The workload runs under ${pin}.
pin=
record() {
	name=$1 file=$2 new=$3 how=$4
	shift 4
	path=${prog} run="${prog} test -w noploop 2" rerun="${prog} --version"
	case ${how} in
	mv)	cp "${file}" "${prog}"
		replace="cp ${new} ${prog}.new && mv ${prog}.new ${prog}"
		;;
	install)
		cp "${file}" "${prog}"
		replace="install -m 755 ${new} ${prog}"
		;;
	dpkg)	if ! dpkg_build "${file}" "${tmpdir}/v1.deb" 1 ||
		   ! dpkg_build "${new}" "${tmpdir}/v2.deb" 2 ||
		   ! ${dpkg_install} "${tmpdir}/v1.deb" > "${tmpdir}/dpkg.log" 2>&1 ; then
			echo "FAIL: ${name}: dpkg-deb --build or dpkg -i fails"
			cat "${tmpdir}/dpkg.log"
			err=1
			return 1
		fi
		replace="${dpkg_install} ${tmpdir}/v2.deb"
		;;
	lib)	path=${lib}
		cp "${file}" "${lib}"
		run="${tmpdir}/main 2" rerun="${tmpdir}/main 0"
		replace="cp ${new} ${lib}.new && mv ${lib}.new ${lib}"
		;;
	esac
	# With --keep-mapped, the replacement waits (up to 30 s) for the copy
	# in the cache: on a loaded machine the side band thread can be more
	# than the old process's 2 seconds behind, and a file that is gone
	# before it is read is said not kept, rightly.
	settle=
	case " $* " in
	*" --no-keep-mapped "*) ;;
	*)	settle="i=0; while [ -z \"\$(ls \"${tmpdir}/${name}.cache${path}\" 2>/dev/null)\" ] && [ \$i -lt 150 ]; do sleep 0.2; i=\$((i + 1)); done" ;;
	esac
	# The replacement waits (up to 30 s) for the old process to map the
	# file, too: on a loaded machine its exec can take more than a second.
	cat > "${tmpdir}/workload" <<EOF
${run} &
echo \$! > "${tmpdir}/${name}.pid"
sleep 1
i=0; while ! grep -qF "${path}" /proc/\$!/maps 2>/dev/null && [ \$i -lt 150 ]; do sleep 0.2; i=\$((i + 1)); done
${settle}
${replace} > /dev/null 2>&1
${rerun} > /dev/null 2>&1
wait
EOF
	if ! perf --buildid-dir "${tmpdir}/${name}.cache" record -e cpu-clock \
		-o "${tmpdir}/${name}.data" "$@" -- ${pin} sh "${tmpdir}/workload" \
		> "${tmpdir}/${name}.record" 2>&1 ; then
		echo "FAIL: ${name}: perf record $* fails"
		cat "${tmpdir}/${name}.record"
		err=1
		return 1
	fi
	if cmp -s "${path}" "${file}" ; then
		echo "FAIL: ${name}: ${how} did not replace ${path}"
		err=1
		return 1
	fi
}

# report name: the old process's lines of perf report, in name.old, and
# the warnings in name.err
report() {
	perf --buildid-dir "${tmpdir}/$1.cache" report -i "${tmpdir}/$1.data" --stdio \
		--sort pid,dso,sym 2> "${tmpdir}/$1.err" > "${tmpdir}/$1.report"
	grep "^ .* $(cat "${tmpdir}/$1.pid"):" "${tmpdir}/$1.report" > "${tmpdir}/$1.old"
}

# resolved name how: the old process's samples got the old build's symbols
resolved() {
	case $2 in
	lib)	grep -q "libkeep.so  *\[\.\] old_spin" "${tmpdir}/$1.old" ;;
	*)	grep -q "prog  *\[\.\] noploop" "${tmpdir}/$1.old" ;;
	esac
}

# kept name file new how [options]: recorded with --keep-mapped, resolved
# from the copy, no warning, and nothing that was not kept
kept() {
	name=$1 how=$4
	record "$@" || return
	report "${name}"
	if ! resolved "${name}" "${how}" ||
	   grep -q "changed after it was profiled" "${tmpdir}/${name}.err" ||
	   grep -q "not kept in the build-id cache" "${tmpdir}/${name}.record" ; then
		echo "FAIL: ${name}: replaced with ${how}: the old process's samples are not resolved to its own symbols, or warned about, or a file was not kept"
		cat "${tmpdir}/${name}.record" "${tmpdir}/${name}.report" "${tmpdir}/${name}.err"
		err=1
	fi
}

# lost name file new how [options]: recorded with --no-keep-mapped, not
# resolved, and the warning says what changed
lost() {
	name=$1 how=$4
	record "$@" --no-keep-mapped || return
	report "${name}"
	if resolved "${name}" "${how}" || grep -q "new_spin" "${tmpdir}/${name}.old" ||
	   ! grep -q "WARNING: .* changed after it was profiled" "${tmpdir}/${name}.err" ; then
		echo "FAIL: ${name}: replaced with ${how}, --no-keep-mapped: resolved symbols against a build that did not run, or no warning"
		cat "${tmpdir}/${name}.report" "${tmpdir}/${name}.err"
		err=1
	fi
}

for how in mv install ${dpkg} ; do
	kept "${how}" "${src}" "${other}" "${how}"
	[ -n "${mmap3}" ] && kept "${how}.nobid" "${tmpdir}/nobid" "${tmpdir}/nobid.other" "${how}" ${mmap3}
done
lost nokeep "${src}" "${other}" mv
if [ -n "${mmap3}" ] ; then
	# Not given the build id of ${other} at the end either
	lost nokeep.nobid "${tmpdir}/nobid" "${other}" mv ${mmap3}
	grep -q "WARNING: ${prog} changed .*no build id recorded" "${tmpdir}/nokeep.nobid.err" || {
		echo "FAIL: nokeep.nobid: the warning doesn't say that no build id was recorded"
		err=1
	}
fi
# On a list of CPUs (-C), the side band's events are opened and mapped on
# those CPUs: the program, run on the first CPU perf test may use, is kept.
# Other processes run there too, and a file of theirs may be gone before
# it is read: what was not kept is not checked here.
cpu=$(awk '/^Cpus_allowed_list:/ { print $2 + 0 }' /proc/self/status)
if command -v taskset > /dev/null && [ -n "${cpu}" ] ; then
	pin="taskset -c ${cpu}"
	if record cpus "${src}" "${other}" mv -C "${cpu}" ; then
		report cpus
		if ! resolved cpus mv || grep -q "${prog} changed after it was profiled" "${tmpdir}/cpus.err" ; then
			echo "FAIL: cpus: perf record -C ${cpu}: the samples of the old process are not resolved to its own symbols, or warned about"
			cat "${tmpdir}/cpus.record" "${tmpdir}/cpus.report" "${tmpdir}/cpus.err"
			err=1
		fi
	fi
	pin=
else
	echo "No taskset(1) or CPU list in /proc/self/status: perf record -C is not tried"
fi
if [ -n "${libs}" ] ; then
	kept lib "${tmpdir}/lib1.so" "${tmpdir}/lib2.so" lib
	[ -n "${mmap3}" ] && kept lib.nobid "${tmpdir}/lib1.nobid.so" "${tmpdir}/lib2.nobid.so" lib ${mmap3}
	lost lib.nokeep "${tmpdir}/lib1.so" "${tmpdir}/lib2.so" lib
fi

# A JIT's code, anonymous executable memory, is no file: none is said to
# be not kept
if command -v python3 > /dev/null ; then
	if ! perf --buildid-dir "${tmpdir}/anon.cache" record -e cpu-clock -o "${tmpdir}/anon.data" \
		-- python3 -c 'import mmap; mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC)' \
		> "${tmpdir}/anon.record" 2>&1 ||
	   grep -q "not kept in the build-id cache" "${tmpdir}/anon.record" ; then
		echo "FAIL: perf record of anonymous executable memory fails, or says a file was not kept"
		cat "${tmpdir}/anon.record"
		err=1
	fi
else
	echo "No python3, not checking anonymous executable memory"
fi

[ -z "${mmap3}" ] && { cleanup; exit ${err}; }

# key name: the inode and mtime digits of the key that the first mapping
# of ${prog} in name.data is kept under, from its record
key() {
	mmap3_lines "${tmpdir}/$1.data" "${prog}" | head -1 > "${tmpdir}/$1.mmap3"
	printf '%016x%016x\n' "$(mmap3_field_ino < "${tmpdir}/$1.mmap3")" \
		"$(mmap3_field_mtime < "${tmpdir}/$1.mmap3")"
}

# In mv.nobid's build id cache: listed, the keys of the copies of ${prog}
# that perf buildid-cache --list shows, those of the file at the path;
# cached KEY, is there a copy under a key that ends with KEY?
cache="${tmpdir}/mv.nobid.cache"
listed() {
	perf --buildid-dir "${cache}" buildid-cache --list | sed -n "s|^\([0-9a-f]*\) ${prog}\$|\1|p"
}
cached() {
	for d in "${cache}${prog}"/????????"$1" ; do
		[ -d "${d}" ] && return 0
	done
	return 1
}

old=$(key mv.nobid)
if ! cached "${old}" ; then
	echo "FAIL: the copy of a program without a build id is not kept under its device, inode and mtime (${old})"
	ls -R "${cache}${prog}"
	err=1
fi

# A program without a build id that ran before the recording started: its
# synthesized record is not seen as it is written, the file is kept at the
# end of the recording, as it is still the one mapped.
# perf record -p ends when the process does, 6 s after it started: time
# for perf to start on a loaded machine.
cp "${tmpdir}/nobid" "${prog}"
"${prog}" test -w noploop 6 &
pid=$!
# It has execed before perf record starts, so that its record is synthesized
i=0
while ! grep -qF "${prog}" /proc/${pid}/maps 2>/dev/null && [ $i -lt 150 ] ; do
	sleep 0.2
	i=$((i + 1))
done
if ! perf --buildid-dir "${cache}" record ${mmap3} -e cpu-clock -o "${tmpdir}/before.data" \
	-p ${pid} > "${tmpdir}/before.record" 2>&1 ; then
	echo "FAIL: perf record ${mmap3} -p of ${prog} fails"
	cat "${tmpdir}/before.record"
	err=1
fi
wait ${pid}
before=$(key before)
if ! cached "${before}" ; then
	echo "FAIL: a program without a build id that ran before perf record -p is not kept"
	err=1
fi
# A copy, not a link to the file, which is on the same file system: a
# rewrite in place would change it, and it is kept under the old mtime
for f in "${cache}${prog}"/????????"${before}"/elf ; do
	if [ -f "${f}" ] && [ "$(stat -c %h "${f}")" != 1 ] ; then
		echo "FAIL: the copy of a program without a build id is a link to the file"
		err=1
	fi
done

# A program without a build id that stays: kept, listed as the file at the
# path while the replaced builds are not, then removed by its path
cp "${tmpdir}/nobid" "${prog}"
if ! perf --buildid-dir "${cache}" record ${mmap3} -e cpu-clock -o "${tmpdir}/stays.data" \
	-- "${prog}" --version > /dev/null 2>&1 ; then
	echo "FAIL: perf record ${mmap3} of ${prog} --version fails"
	err=1
fi
stays=$(key stays)
if ! cached "${stays}" ; then
	echo "FAIL: a program without a build id that stays is not kept"
	err=1
elif ! listed | grep -q "^[0-9a-f]\{8\}${stays}\$" || listed | grep -q "${old}\$" ; then
	echo "FAIL: perf buildid-cache --list doesn't show the copy of the file at the path, or shows one of a replaced file"
	perf --buildid-dir "${cache}" buildid-cache --list
	err=1
elif ! perf --buildid-dir "${cache}" buildid-cache --remove "${prog}" ||
     cached "${stays}" || ! cached "${old}" || ! cached "${before}" ; then
	echo "FAIL: perf buildid-cache --remove of a file without a build id: not its copy removed, or another"
	ls -R "${cache}${prog}"
	err=1
elif perf --buildid-dir "${cache}" buildid-cache --remove "${prog}" 2> /dev/null ; then
	echo "FAIL: perf buildid-cache --remove of a file without a build id and without a copy succeeds"
	err=1
fi
if ! perf --buildid-dir "${cache}" buildid-cache --purge "${prog}" ||
   [ -n "$(ls "${cache}${prog}" 2>/dev/null)" ] ; then
	echo "FAIL: perf buildid-cache --purge leaves copies of ${prog}"
	ls -R "${cache}${prog}"
	err=1
fi

cleanup
exit ${err}
