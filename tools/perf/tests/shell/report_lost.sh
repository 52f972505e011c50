#!/bin/bash
# perf report counts the events the kernel lost
# SPDX-License-Identifier: GPL-2.0
#
# The workload stops perf record and then starts programs, so that the ring
# buffer fills and the kernel drops their records. It lets perf go on, and
# a last program makes the kernel write PERF_RECORD_LOST with the count of
# what it dropped. perf report must give that count, next to the number of
# PERF_RECORD_LOST records, as perf report -D shows them.

set -e

err=0
perfdata=$(mktemp /tmp/__perf_test.perf.data.XXXXX)
report=$(mktemp /tmp/__perf_test.report.XXXXX)

cleanup() {
	rm -f "${perfdata}" "${report}"
	trap - EXIT TERM INT
}

trap_cleanup() {
	cleanup
	exit 1
}
trap trap_cleanup EXIT TERM INT

# sh is perf record's child: $PPID is perf. 4 KiB of ring buffer hold a few
# dozen records; each true adds half a dozen (fork, comm, mmaps, exit).
if ! perf record -q -e dummy -m 1 -o "${perfdata}" -- sh -c '
	kill -STOP $PPID
	for i in $(seq 100); do /bin/true; done
	kill -CONT $PPID
	sleep 1
	/bin/true' 2>"${report}"; then
	echo "perf record failed:"
	cat "${report}"
	cleanup
	exit 1
fi

# "PERF_RECORD_LOST: id:ID: lost:N" in the dump, one a record
lost=$(perf report -D -i "${perfdata}" 2>/dev/null |
	awk '/PERF_RECORD_LOST: / { n++; sub(/.*lost:/, ""); s += $1 }
	     END { printf "%d %d\n", s, n }')
read -r events chunks <<<"${lost}"
echo "PERF_RECORD_LOST records: ${chunks}, events lost: ${events}"
if [ "${chunks}" -eq 0 ]; then
	echo "no PERF_RECORD_LOST: the ring buffer did not overflow"
	err=1
fi

perf report -i "${perfdata}" --stdio >/dev/null 2>"${report}" || true
if ! grep -q "lost ${events} events in ${chunks} chunks" "${report}"; then
	echo "perf report does not say 'lost ${events} events in ${chunks} chunks':"
	cat "${report}"
	err=1
fi

cleanup
exit ${err}
