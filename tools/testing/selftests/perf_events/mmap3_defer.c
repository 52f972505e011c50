// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_MMAP3 and PERF_RECORD_CALLCHAIN_DEFERRED from one event.
 *
 * An event may ask for MMAP3 records and for deferred user callchains at
 * once. This test does, on a sampling event, and checks that both kinds of
 * record come out side by side in one ring buffer, each framed as its type
 * says: the MMAP3 records of the mappings the test makes, with what statx()
 * says of their files, and the PERF_RECORD_CALLCHAIN_DEFERRED records of the
 * samples taken meanwhile. What a deferred callchain holds is left to the
 * deferred callchain tests.
 *
 * The event is the task-clock software event, which needs no PMU, opened on
 * the test itself with exclude_kernel and exclude_callchain_kernel, so that
 * perf_event_paranoid 2 allows it. A kernel that cannot unwind user stacks
 * on the way back to user space (no CONFIG_UNWIND_USER) takes
 * defer_callchain and gives ordinary callchains: the test skips there.
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

/* A file's statx() and the device of its superblock, which records carry. */
struct file_id {
	struct statx			st;
	__u32				maj, min;
};

/*
 * Check the framing and the fields of an MMAP3 record of a file mapping made
 * by this test from the file @id, mapped at @addr for @len.
 */
static bool mmap3_ok(struct __test_metadata *_metadata,
		     const struct mmap3_record *m, const struct file_id *id,
		     const char *path, size_t len)
{
	const struct statx *st = &id->st;
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
	    m->ino != st->stx_ino || m->maj != id->maj || m->min != id->min) {
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
	struct file_id id[NR_MAPS];
	char path[NR_MAPS][PATH_MAX];
	void *addr[NR_MAPS] = {};
	int mapped = 0, nr_deferred = 0, nr_announced = 0, nr_mmap3 = 0;
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
				   &id[i].st));
		ASSERT_TRUE(sb_dev(f, &id[i].maj, &id[i].min));
		close(f);
	}

	/*
	 * Map the files one by one while the samples are taken, until every
	 * one is mapped and a deferred callchain came, or for RUN_SECONDS at
	 * most, draining the ring as it goes so that it never fills.
	 */
	ASSERT_EQ(0, ring_enable(&self->ring));
	start = now();
	while (mapped < NR_MAPS ||
	       (!nr_deferred && now() - start < RUN_SECONDS)) {
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

		rec.buf = self->log.buf;
		rec.len = self->log.len;
		for (h = next_record(&rec, NULL); h; h = next_record(&rec, h))
			nr_deferred += h->type == PERF_RECORD_CALLCHAIN_DEFERRED;
	}
	ASSERT_EQ(0, ring_disable(&self->ring));
	drain(&self->ring, &self->log);

	/*
	 * Every record is framed as its type says, and the MMAP3 records are
	 * those of the test's mappings. How the samples announce the deferred
	 * callchains, and what those hold, is the deferral's business.
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
			for (__u64 i = 0; i < s->nr; i++)
				nr_announced += s->ips[i] == (__u64)PERF_CONTEXT_USER_DEFERRED;
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
			sid = (const void *)&d->ips[d->nr];
			ASSERT_EQ(getpid(), sid->pid);
			ASSERT_EQ(sys_gettid(), sid->tid);
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
			ASSERT_TRUE(mmap3_ok(_metadata, m, &id[i], path[i],
					     (i + 1) * page_size()));
			addr[i] = NULL;
			nr_mmap3++;
			break;
		}
		case PERF_RECORD_LOST:
			ASSERT_TRUE(false) {
				TH_LOG("records were lost: the ring is drained before it fills");
			}
		}
	}
	ASSERT_EQ(NR_MAPS, nr_mmap3);
	if (!nr_deferred && !nr_announced)
		SKIP(return, "no user callchain was deferred: %s",
		     "this kernel cannot (CONFIG_UNWIND_USER)");
	ASSERT_LT(0, nr_deferred) {
		TH_LOG("%d samples announced a deferred callchain, none came in %d s",
		       nr_announced, RUN_SECONDS);
	}
}

TEST_HARNESS_MAIN
