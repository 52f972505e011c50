# SPDX-License-Identifier: GPL-2.0
# Helpers for the PERF_RECORD_MMAP3 tests, written for a busybox userland too.

# The perf binary under test, to copy and run as a workload. It has to be
# an ELF file, not a wrapper script. MMAP3_TEST_PROG overrides it.
mmap3_prog() {
	if [ -n "${MMAP3_TEST_PROG}" ] ; then
		echo "${MMAP3_TEST_PROG}"
		return
	fi
	readlink -f "$(command -v perf)"
}

mmap3_is_elf() {
	[ "$(head -c 4 "$1" 2>/dev/null | tail -c 3)" = "ELF" ]
}

# Another executable, with another build id than $1, to replace it with.
# MMAP3_TEST_OTHER_PROG overrides it.
mmap3_other_prog() {
	if [ -n "${MMAP3_TEST_OTHER_PROG}" ] ; then
		echo "${MMAP3_TEST_OTHER_PROG}"
		return
	fi
	bid=$(perf buildid-list -i "$1" 2>/dev/null)
	for f in /bin/sh /bin/ls /bin/busybox /usr/bin/env /bin/true ; do
		f=$(readlink -f "$f" 2>/dev/null)
		if [ -n "$f" ] && mmap3_is_elf "$f" &&
		   [ "$(perf buildid-list -i "$f" 2>/dev/null)" != "${bid}" ] ; then
			echo "$f"
			return
		fi
	done
}

# Can the kernel record PERF_RECORD_MMAP3 events? Returns 0 if it can, 2
# (a skip) if perf record --mmap3 says that the kernel does not support
# them, the one answer that means no, and 1 (a failure) if perf record
# fails for any other reason. Prints why not. $1 is a scratch perf.data.
mmap3_check_support() {
	if out=$(perf record --mmap3 -e cpu-clock -o "$1" -- true 2>&1) ; then
		rm -f "$1"
		return 0
	fi
	rm -f "$1"
	case "$out" in
	*"the running kernel does not support PERF_RECORD_MMAP3"*)
		echo "Skip: the kernel has no PERF_RECORD_MMAP3 support (perf record --mmap3 fails)"
		return 2
		;;
	esac
	echo "FAIL: perf record --mmap3 fails, not for want of kernel support: $out"
	return 1
}

# The MMAP3 lines of perf script --show-mmap-events for file $2 in $1
mmap3_lines() {
	perf script -i "$1" --show-mmap-events 2>/dev/null | \
		grep "PERF_RECORD_MMAP3 .*: r-xp $2\$"
}

# Fields of an MMAP3 line from perf script --show-mmap-events:
# ... [0xstart(0xlen) @ 0xpgoff maj:min ino ino_gen mtime NS (date) <build-id>]: r-xp file
mmap3_field_mtime() {
	sed -n 's/.* mtime \([0-9]*\)[] ].*/\1/p'
}

mmap3_field_dev() {
	sed -n 's/.* @ [0-9a-fx]* \([0-9a-f]*:[0-9a-f]*\) [0-9]* [0-9]* mtime .*/\1/p'
}

# The device of file $1 as the records have it: st_dev's major:minor in hex
mmap3_stat_dev() {
	d=$(stat -c %d "$1")
	printf '%02x:%02x\n' $(( ((d >> 8) & 0xfff) | ((d >> 32) & ~0xfff) )) \
		$(( (d & 0xff) | ((d >> 12) & ~0xff) ))
}

mmap3_field_ino() {
	sed -n 's/.* [0-9a-f]*:[0-9a-f]* \([0-9]*\) [0-9]* mtime .*/\1/p'
}

mmap3_field_build_id() {
	sed -n 's/.*<\([0-9a-f]*\)>\]: .*/\1/p'
}

# The build id of the running kernel, parsing the ELF notes in
# /sys/kernel/notes (little endian), not with perf's code.
kernel_build_id() {
	od -An -v -tx1 /sys/kernel/notes 2>/dev/null | awk '
	{ for (i = 1; i <= NF; i++) b[n++] = $i }
	function hex(s) {
		return index("0123456789abcdef", substr(s, 1, 1)) * 16 - 16 + \
		       index("0123456789abcdef", substr(s, 2, 1)) - 1
	}
	END {
		o = 0
		while (o + 12 <= n) {
			namesz = hex(b[o]) + 256 * hex(b[o + 1])
			descsz = hex(b[o + 4]) + 256 * hex(b[o + 5])
			type = hex(b[o + 8]) + 256 * hex(b[o + 9])
			name = o + 12
			desc = name + int((namesz + 3) / 4) * 4
			if (type == 3 && namesz == 4 && b[name] == "47" && \
			    b[name + 1] == "4e" && b[name + 2] == "55") {
				s = ""
				for (i = 0; i < descsz; i++)
					s = s b[desc + i]
				print s
				exit
			}
			o = desc + int((descsz + 3) / 4) * 4
		}
	}'
}
