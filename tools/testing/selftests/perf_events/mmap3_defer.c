// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_MMAP3 and PERF_RECORD_CALLCHAIN_DEFERRED from one event.
 *
 * attr.mmap3 is bit 63 of the attr flags, taken from the top so as not to
 * collide with the bits mainline assigns from the low end, and this kernel
 * has given bits 38 and 39 to defer_callchain and defer_output, and record
 * type 22 to PERF_RECORD_CALLCHAIN_DEFERRED. This test asks for both
 * features on a single sampling event and checks that the two kinds of
 * records come out side by side, each well-formed, in one ring buffer: the
 * MMAP3 records of the mappings the test makes, and the deferred user
 * callchains that the samples taken meanwhile announce.
 *
 * The event is the task-clock software event, which needs no PMU, opened on
 * the test itself with exclude_kernel and exclude_callchain_kernel, so that
 * perf_event_paranoid 2 allows it. Its samples are taken in user mode only;
 * with defer_callchain, each one's callchain is PERF_CONTEXT_USER_DEFERRED
 * and a cookie, and the user stack follows, on the way back to user space,
 * in a PERF_RECORD_CALLCHAIN_DEFERRED record that carries the same cookie
 * (defer_output makes the event write those records).
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "../kselftest_harness.h"
#include "mmap3.h"

#define NR_MAPS		8
#define MIN_DEFERRED	16
#define SAMPLE_PERIOD	200000		/* ns of task-clock */
#define RUN_SECONDS	10		/* at most, of wall time */
/* Room for some 1400 samples and their callchains between two drains. */
#define DEFER_RB_PAGES	64

/* sample_id for sample_type IP | TID | TIME | CALLCHAIN: TID and TIME only. */
struct defer_sample_id {
	__u32				pid, tid;
	__u64				time;
};

/* PERF_RECORD_SAMPLE for that sample_type. */
struct defer_sample {
	struct perf_event_header	header;
	__u64				ip;
	__u32				pid, tid;
	__u64				time;
	__u64				nr;
	__u64				ips[];
};

/* PERF_RECORD_CALLCHAIN_DEFERRED, as include/uapi/linux/perf_event.h has it. */
struct deferred_callchain {
	struct perf_event_header	header;
	__u64				cookie;
	__u64				nr;
	__u64				ips[];
	/* struct defer_sample_id follows ips[nr] */
};

/* The records of the whole run, appended as they are drained. */
struct log {
	char				*buf;
	size_t				len;
};

/* Move what the ring holds to the end of @log. */
static void __drain(struct __test_metadata *_metadata, struct ring *r,
		    struct log *log)
{
	__u64 head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = r->meta->data_tail;
	size_t len = head - tail;

	ASSERT_LE(len, r->data_size);
	log->buf = realloc(log->buf, log->len + len + 1);
	ASSERT_NE(NULL, log->buf);
	ring_copy(log->buf + log->len, r->data, r->data_size, tail, len);
	log->len += len;
	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
}

#define drain(r, log)	__drain(_metadata, r, log)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Burn user time, where the samples are taken. */
static void spin(unsigned long loops)
{
	for (unsigned long i = 0; i < loops; i++)
		asm volatile("" : : : "memory");
}

/*
 * Check the framing and the fields of an MMAP3 record of a file mapping made
 * by this test from a file whose statx() is @st, mapped at @addr for @len.
 */
static bool mmap3_ok(struct __test_metadata *_metadata,
		     const struct mmap3_record *m, const struct statx *st,
		     const char *path, size_t len)
{
	size_t room, nlen;

	if (m->header.size % 8 ||
	    m->header.size < sizeof(*m) + 8 + sizeof(struct defer_sample_id)) {
		TH_LOG("MMAP3 record of bad size %u", m->header.size);
		return false;
	}
	if (m->filename_offset != PERF_MMAP3_SIZE_VER0) {
		TH_LOG("MMAP3 filename_offset %u, not %d", m->filename_offset,
		       PERF_MMAP3_SIZE_VER0);
		return false;
	}
	room = m->header.size - sizeof(*m) - sizeof(struct defer_sample_id);
	nlen = strnlen(m->filename, room);
	if (nlen == room) {
		TH_LOG("MMAP3 filename is not NUL-terminated");
		return false;
	}
	if (align8(nlen + 1) != room) {
		TH_LOG("MMAP3 size %u does not fit a name of %zu bytes",
		       m->header.size, nlen);
		return false;
	}
	for (size_t i = nlen; i < room; i++) {
		if (m->filename[i]) {
			TH_LOG("MMAP3 filename padding is not zero");
			return false;
		}
	}
	if (strcmp(path, m->filename)) {
		TH_LOG("MMAP3 filename %s, not %s", m->filename, path);
		return false;
	}
	if (m->file_flags != PERF_MMAP3_FILE_MTIME) {
		TH_LOG("MMAP3 file_flags %#x, not PERF_MMAP3_FILE_MTIME",
		       m->file_flags);
		return false;
	}
	if (m->mtime != st->stx_mtime.tv_sec * 1000000000LL + st->stx_mtime.tv_nsec ||
	    m->ino != st->stx_ino || m->maj != st->stx_dev_major ||
	    m->min != st->stx_dev_minor) {
		TH_LOG("MMAP3 inode or mtime differ from statx()");
		return false;
	}
	if (m->len != len || m->prot != (PROT_READ | PROT_EXEC) ||
	    m->flags != MAP_PRIVATE) {
		TH_LOG("MMAP3 len %llu, prot %#x, flags %#x",
		       (unsigned long long)m->len, m->prot, m->flags);
		return false;
	}
	if (m->build_id_size ||
	    (m->header.misc & (PERF_RECORD_MISC_MMAP_BUILD_ID |
			       PERF_RECORD_MISC_MMAP_DATA))) {
		TH_LOG("MMAP3 build_id_size %u, misc %#x", m->build_id_size,
		       m->header.misc);
		return false;
	}
	if (m->pid != (__u32)getpid() || m->tid != (__u32)sys_gettid()) {
		TH_LOG("MMAP3 of pid %u tid %u", m->pid, m->tid);
		return false;
	}
	return true;
}

FIXTURE(mmap3_defer)
{
	char		dir[PATH_MAX];
	struct ring	ring;
	struct log	log;
};

FIXTURE_SETUP(mmap3_defer)
{
	self->ring.fd = -1;
	ASSERT_TRUE(make_scratch_dir("mmap3_defer", self->dir)) {
		TH_LOG("no directory that allows PROT_EXEC file mappings");
	}
}

FIXTURE_TEARDOWN(mmap3_defer)
{
	ring_close(&self->ring);
	free(self->log.buf);
	if (self->dir[0])
		rm_rf_at(AT_FDCWD, self->dir);
}

static int open_self(struct perf_event_attr *attr)
{
	return syscall(__NR_perf_event_open, attr, 0, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/*
 * Open @attr with mmap3, defer_callchain and defer_output set. Their absence
 * is the one reason to skip: a kernel refuses attr bits it does not know with
 * EINVAL (EOPNOTSUPP is what a kernel would give that knows a bit but cannot
 * honour it here), and the same attr opens without them. Any other failure
 * fails the test.
 */
static int __open_mmap3_defer(struct __test_metadata *_metadata,
			      struct perf_event_attr *attr)
{
	static const char * const names[] = {
		"mmap3", "defer_callchain", "defer_output",
	};
	int fd, err;

	fd = open_self(attr);
	ASSERT_LE(0, fd) {
		TH_LOG("perf_event_open of task-clock without mmap3 and deferred callchains: %s",
		       strerror(errno));
	}
	close(fd);

	attr->mmap3 = 1;
	attr->defer_callchain = 1;
	attr->defer_output = 1;
	fd = open_self(attr);
	err = errno;
	if (fd >= 0)
		return fd;
	ASSERT_TRUE(err == EINVAL || err == EOPNOTSUPP) {
		TH_LOG("perf_event_open with mmap3 and deferred callchains: %s",
		       strerror(err));
	}
	/* Say which bit the kernel does not take. */
	for (int i = 0; i < 3; i++) {
		attr->mmap3 = i == 0;
		attr->defer_callchain = i >= 1;
		attr->defer_output = i == 2;
		fd = open_self(attr);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (errno == EINVAL || errno == EOPNOTSUPP)
			SKIP(return -1, "attr.%s is %s: this kernel lacks %s", names[i],
			     strerror(errno),
			     i ? "deferred callchains" : "PERF_RECORD_MMAP3");
	}
	SKIP(return -1, "%s with mmap3, defer_callchain and defer_output together",
	     strerror(err));
}

#define open_mmap3_defer(attr)	__open_mmap3_defer(_metadata, attr)

TEST_F_TIMEOUT(mmap3_defer, records_side_by_side, 60)
{
	const __u64 user_max = (__u64)-4096;	/* below the PERF_CONTEXT_* */
	struct statx st[NR_MAPS];
	char path[NR_MAPS][PATH_MAX];
	void *addr[NR_MAPS] = {};
	int mapped = 0, nr_deferred = 0, nr_samples = 0, nr_mmap3 = 0;
	__u64 pending_cookie = 0, pending_ip = 0;
	const struct perf_event_header *h;
	struct perf_event_attr attr;
	struct records rec;
	double start;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = SAMPLE_PERIOD;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CALLCHAIN;
	attr.sample_id_all = 1;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.exclude_callchain_kernel = 1;

	fd = open_mmap3_defer(&attr);
	if (fd < 0)
		return;
	self->ring.fd = fd;
	self->ring.data_size = DEFER_RB_PAGES * page_size();
	self->ring.map_size = self->ring.data_size + page_size();
	self->ring.meta = mmap(NULL, self->ring.map_size, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, self->ring.meta) {
		TH_LOG("mmap of the ring buffer: %s", strerror(errno));
	}
	self->ring.data = (char *)self->ring.meta + page_size();

	for (int i = 0; i < NR_MAPS; i++) {
		int f;

		ASSERT_GT(PATH_MAX, snprintf(path[i], PATH_MAX, "%s/text%d",
					     self->dir, i));
		f = open(path[i], O_RDWR | O_CREAT | O_TRUNC, 0700);
		ASSERT_LE(0, f);
		ASSERT_EQ(0, ftruncate(f, (i + 1) * page_size()));
		ASSERT_EQ(0, statx(f, "", AT_EMPTY_PATH, STATX_INO | STATX_MTIME,
				   &st[i]));
		close(f);
	}

	/*
	 * Map the files one by one while the samples are taken, until every
	 * one is mapped and enough deferred callchains came, draining the ring
	 * as it goes so that it never fills.
	 */
	ASSERT_EQ(0, ring_enable(&self->ring));
	start = now();
	while (mapped < NR_MAPS || nr_deferred < MIN_DEFERRED) {
		if (mapped < NR_MAPS) {
			int f = open(path[mapped], O_RDONLY);

			ASSERT_LE(0, f);
			addr[mapped] = mmap(NULL, (mapped + 1) * page_size(),
					    PROT_READ | PROT_EXEC, MAP_PRIVATE, f, 0);
			ASSERT_NE(MAP_FAILED, addr[mapped]);
			close(f);
			mapped++;
		}
		spin(200000);
		drain(&self->ring, &self->log);

		nr_deferred = 0;
		rec.buf = self->log.buf;
		rec.len = self->log.len;
		for (h = next_record(&rec, NULL); h; h = next_record(&rec, h))
			nr_deferred += h->type == PERF_RECORD_CALLCHAIN_DEFERRED;
		ASSERT_TRUE(now() - start < RUN_SECONDS) {
			TH_LOG("%d deferred callchains in %d s, %d wanted",
			       nr_deferred, RUN_SECONDS, MIN_DEFERRED);
		}
	}
	ASSERT_EQ(0, ring_disable(&self->ring));
	drain(&self->ring, &self->log);

	/*
	 * Walk the records in order. A sample announces its user callchain
	 * with PERF_CONTEXT_USER_DEFERRED and a cookie; the deferred record
	 * that carries that cookie comes before the next sample, since both
	 * were taken in user mode and the unwind runs on the way back there.
	 */
	rec.buf = self->log.buf;
	rec.len = self->log.len;
	{
		size_t walked = 0;

		for (h = next_record(&rec, NULL); h; h = next_record(&rec, h))
			walked += h->size;
		ASSERT_EQ(rec.len, walked) {
			TH_LOG("the records do not add up to what was read");
		}
	}
	nr_deferred = 0;
	for (h = next_record(&rec, NULL); h; h = next_record(&rec, h)) {
		ASSERT_EQ(0, h->size % 8) {
			TH_LOG("record of type %u and size %u", h->type, h->size);
		}
		switch (h->type) {
		case PERF_RECORD_SAMPLE: {
			const struct defer_sample *s = (const void *)h;

			ASSERT_LE(sizeof(*s), h->size);
			ASSERT_EQ(sizeof(*s) + s->nr * sizeof(__u64), h->size);
			ASSERT_EQ(PERF_RECORD_MISC_USER,
				  h->misc & PERF_RECORD_MISC_CPUMODE_MASK);
			ASSERT_EQ(getpid(), s->pid);
			ASSERT_EQ(sys_gettid(), s->tid);
			ASSERT_GT(user_max, s->ip);
			/* No kernel callchain, and the user one deferred. */
			ASSERT_EQ(2, s->nr) {
				TH_LOG("sample callchain of %llu entries, first %#llx",
				       (unsigned long long)s->nr,
				       s->nr ? (unsigned long long)s->ips[0] : 0ULL);
			}
			ASSERT_EQ((__u64)PERF_CONTEXT_USER_DEFERRED, s->ips[0]);
			ASSERT_NE(0, s->ips[1]);
			/* A sample whose callchain was not delivered yet. */
			ASSERT_TRUE(!pending_cookie || pending_cookie == s->ips[1]) {
				TH_LOG("cookie %#llx announced, never delivered",
				       (unsigned long long)pending_cookie);
			}
			pending_cookie = s->ips[1];
			pending_ip = s->ip;
			nr_samples++;
			break;
		}
		case PERF_RECORD_CALLCHAIN_DEFERRED: {
			const struct deferred_callchain *d = (const void *)h;
			const struct defer_sample_id *sid;

			ASSERT_LE(sizeof(*d) + sizeof(*sid), h->size);
			ASSERT_EQ(sizeof(*d) + d->nr * sizeof(__u64) + sizeof(*sid),
				  h->size) {
				TH_LOG("deferred callchain of %llu entries in %u bytes",
				       (unsigned long long)d->nr, h->size);
			}
			ASSERT_EQ(PERF_RECORD_MISC_USER, h->misc);
			ASSERT_NE(0, pending_cookie) {
				TH_LOG("deferred callchain %#llx that no sample announced",
				       (unsigned long long)d->cookie);
			}
			ASSERT_EQ(pending_cookie, d->cookie);
			/* The unwind starts where the sample was taken. */
			ASSERT_LE(1, d->nr);
			ASSERT_EQ(pending_ip, d->ips[0]);
			for (__u64 i = 0; i < d->nr; i++) {
				ASSERT_NE(0, d->ips[i]);
				ASSERT_GT(user_max, d->ips[i]) {
					TH_LOG("entry %llu of a deferred callchain is %#llx",
					       (unsigned long long)i,
					       (unsigned long long)d->ips[i]);
				}
			}
			sid = (const void *)&d->ips[d->nr];
			ASSERT_EQ(getpid(), sid->pid);
			ASSERT_EQ(sys_gettid(), sid->tid);
			pending_cookie = 0;
			nr_deferred++;
			break;
		}
		case PERF_RECORD_MMAP3: {
			const struct mmap3_record *m = (const void *)h;
			int i;

			for (i = 0; i < NR_MAPS; i++) {
				if (m->addr == (unsigned long)addr[i])
					break;
			}
			ASSERT_GT(NR_MAPS, i) {
				TH_LOG("MMAP3 at %#llx, not a mapping of the test",
				       (unsigned long long)m->addr);
			}
			ASSERT_TRUE(mmap3_ok(_metadata, m, &st[i], path[i],
					     (i + 1) * page_size()));
			addr[i] = NULL;
			nr_mmap3++;
			break;
		}
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			break;
		default:
			/* PERF_RECORD_LOST too: the ring is drained before it fills. */
			ASSERT_TRUE(false) {
				TH_LOG("unexpected record of type %u", h->type);
			}
		}
	}
	ASSERT_EQ(0, pending_cookie) {
		TH_LOG("the last sample's callchain %#llx was not delivered",
		       (unsigned long long)pending_cookie);
	}
	ASSERT_EQ(NR_MAPS, nr_mmap3);
	ASSERT_LE(MIN_DEFERRED, nr_deferred);
	ASSERT_LE(nr_deferred, nr_samples);
}

TEST_HARNESS_MAIN
