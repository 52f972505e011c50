#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh MODE [RUNDIR [TIMEOUT]]: boot build/BASE/kbuild/$KERNEL on the host's own
# root file system (read-only over virtio 9p; scripts/guest/init lays a
# tmpfs overlay on it), run MODE in the guest (check, upstream, demo, bench,
# shell), and collect its results in RUNDIR over a second 9p share. The
# console goes to RUNDIR/console.log. Fails with a clear message on a
# panic, a hang or a missing result, and on any kernel splat in the
# guest's dmesg. RIG_INIT replaces the guest's init (scripts/tests/host/
# rig-badinput.sh).
. "$(dirname "$0")/lib.sh"

mode=$1 run=${2:-$OBJ/runs/$1} limit=${3:-1800}
[ -n "${2:-}" ] || rm -rf "$run"
bz=$KBUILD/arch/x86/boot/bzImage
init=${RIG_INIT:-$TOP/scripts/guest/init}
[ -f "$bz" ] || die "no kernel; run make build"
mkdir -p "$run"
# The guest sees the host's paths: the root is shared whole.
root="root=hostroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose ro"
rig="rig.mode=MODE rig.top=$TOP rig.obj=$OBJ rig.kernel=$KERNEL rig.kselftest_fs=$(echo $KSELFTEST_FS | tr ' ' ,)"

# Two CPUs, as two sockets: the kernel has no ACPI and finds its CPUs in
# SeaBIOS's MP table, which lists one CPU per socket; QEMU's "-smp 2" is
# one socket of two cores, and the guest would run on one CPU. VCPUS=4
# gives the tests that ask for four CPUs theirs (TCG runs them on the
# host's two cores), for a run by hand.
cpus=${VCPUS:-2}
# The guest's writes (the overlay, /tmp, /root with perf's ~/.debug) live
# in its RAM, as tmpfs, each limited to half of it. With 1 GiB, "Test java
# symbol" ran out of space in ~/.debug late in perf test: perf inject -j
# writes a small DSO per jitted method. Untouched guest RAM costs the host
# nothing.
mem=2G
# The console (console.log) gets warnings and messages of the default
# level too (loglevel=5): an RCU stall prints its stacks at those. A hung
# task prints its stack as information, below: the guest writes its whole
# log, dmesg.txt, once a minute (scripts/guest/init), so that a guest that
# hangs leaves it too. A log buffer of 4 MiB keeps a whole make check's
# messages for dmesg.txt.
qemu() {
	local accel=$1 m=$2 dir=$3 t=$4 cpu=max
	shift 4
	[ "$accel" = kvm ] && cpu=host
	timeout --foreground -k 10 "$t" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" \
		-smp "$cpus,sockets=$cpus" -m $mem -nographic -no-reboot -nodefaults \
		-kernel "$bz" \
		-append "console=ttyS0 panic=-1 quiet loglevel=5 log_buf_len=4M $root init=$init ${rig/MODE/$m} ${EXTRA_CMDLINE:-}" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$dir,mount_tag=results,security_model=none,multidevs=remap" \
		"$@"
}

# KVM when it works, TCG otherwise: decided by booting once with KVM, and
# remembered per host kernel in build/accel (delete it to probe again).
accel() {
	local host p
	host=$(uname -r)
	if [ "$(sed -n 1p "$B/accel" 2>/dev/null)" = "$host" ]; then
		sed -n 2p "$B/accel"
		return
	fi
	p=$(mktemp -d "$B/probe.XXXXXX")
	if [ -w /dev/kvm ] &&
	   qemu kvm probe "$p" 30 -serial "file:$p/console.log" >/dev/null 2>&1 &&
	   [ -f "$p/probe" ]; then
		printf '%s\nkvm\n' "$host" >"$B/accel"
	else
		printf '%s\ntcg\n' "$host" >"$B/accel"
	fi
	rm -rf "$p"
	sed -n 2p "$B/accel"
}

ACCEL=${ACCEL:-$(accel)}
mkdir -p "$run"
if [ "$mode" = shell ]; then
	stage "booting a shell ($ACCEL); the guest powers off when the shell exits"
	qemu "$ACCEL" shell "$run" 86400 -serial mon:stdio
	exit 0
fi

# The benchmark counts instructions as time (TCG only): without a usable
# TSC the guest clock ticks in 4 ms steps, too coarse for 2% differences.
# QEMU 7.2 hangs bringing up a second CPU under -icount, so the benchmark
# runs on one.
extra=()
if [ "$mode" = bench ] && [ "$ACCEL" = tcg ]; then
	extra=(-icount shift=0,sleep=off)
	cpus=1
fi
stage "booting the kernel in QEMU ($ACCEL, $cpus vCPUs, $mem, mode $mode, limit ${limit}s)"
start=$(date +%s)
# Once a minute, the step the guest is running (scripts/guest/run.sh) and,
# in perf test, how many of its suites have ended.
guest_now() {
	local step n
	step=$(sed -n 's/^running //p' "$run/run.log" 2>/dev/null | tail -1)
	case $step in
	"perf test"*) n=$(ls "$run/perftest.d" 2>/dev/null | grep -c '\.rc$') || true
		step="$step: ${n:-0} of $(wc -l <"$run/perftest-list" 2>/dev/null) suites ended" ;;
	esac
	echo "  guest, $(( $(date +%s) - start ))s: ${step:-booting}"
}
every_minute guest_now
rc=0
qemu "$ACCEL" "$mode" "$run" "$limit" -serial "file:$run/console.log" "${extra[@]}" </dev/null || rc=$?
stop_progress
echo "$ACCEL $(( $(date +%s) - start ))" >"$run/vm-time"
echo "guest ran for $(( $(date +%s) - start ))s"

if [ ! -f "$run/done" ]; then
	tail -40 "$run/console.log" >&2
	if grep -q 'Kernel panic' "$run/console.log"; then
		die "the guest kernel panicked (console: ${run#$TOP/}/console.log)"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		die "the guest did not power off within ${limit}s (console: ${run#$TOP/}/console.log; its log of the last minute: dmesg.txt)"
	else
		die "the guest stopped without a result, qemu exit $rc (console: ${run#$TOP/}/console.log)"
	fi
fi

# Tests of a multiprocessor kernel that ran on one CPU prove less than
# they say.
seen=$(sed -n 's/^cpus: //p' "$run/info.txt" 2>/dev/null)
[ -z "$seen" ] || [ "$seen" = "$cpus" ] ||
	die "the guest brought up $seen of its $cpus CPUs (console: ${run#$TOP/}/console.log)"

# Kernel splats fail the run whatever the tests said. Lockdep's reports
# are matched by their text, not by the word: a lockdep kernel says "RCU
# lockdep checking is enabled" at every boot.
splat='BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN|possible recursive locking|circular locking|inconsistent lock state|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|lock held when returning|detected stalls|rcu_.*stall|general protection fault|INFO: task .* blocked'
# "traps: prog[pid] general protection fault ip:..." is a user program's
# fault that the kernel logs (show_signal), not the kernel's own: 6.12's
# perf test has one now and then.
if grep -En "$splat" "$run/dmesg.txt" | grep -Ev 'traps: .*\[[0-9]+\] general protection fault ip:' >"$run/splats.txt"; then
	cat "$run/splats.txt" >&2
	die "kernel splat in the guest's dmesg (${run#$TOP/}/dmesg.txt)"
else
	rm -f "$run/splats.txt"
fi
