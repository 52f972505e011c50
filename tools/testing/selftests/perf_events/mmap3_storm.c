// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_MMAP3 under load: an mmap storm with full accounting.
 *
 * NR_THREADS threads each map their own file PROT_EXEC NR_ITERS times, each
 * recorded by a tracking-only event of its own, opened on that thread
 * (pid = its tid, any CPU). The test proves that every one of those mappings
 * is accounted for: it is either in the thread's ring buffer as a
 * PERF_RECORD_MMAP3, or it is counted by a PERF_RECORD_LOST there. With a
 * ring buffer of one page the sum must still come out exact; with one big
 * enough for everything nothing may be lost and every thread must see
 * exactly NR_ITERS records.
 *
 * Exactness needs care on both sides of the count:
 *
 * - The events are tracking-only: a dummy software event with only
 *   attr.mmap3 set, no samples, no comm/task/mmap/mmap2 records. The only
 *   records that can appear are MMAP3 and LOST, so a loss reported by LOST
 *   can only be a lost MMAP3, not some other record that happened to meet a
 *   full buffer.
 *
 * - Each event follows one thread and nothing else: no other task, and
 *   not even another thread of this process, can add a record or a loss to
 *   its buffer. So the sum is exact on a busy machine, and the test needs
 *   no privilege: the events exclude the kernel, as perf_event_paranoid 2
 *   asks of a user, which does not concern side-band records. A record of
 *   any other task in a buffer is an error.
 *
 * - The threads are created before their events are opened and leave only
 *   after the events are disabled, and between the two they do nothing but
 *   the storm and the flush below. Thread creation and exit, and whatever
 *   the C library maps for them (stacks, or the unwinder some C libraries
 *   load executable at thread exit), thus happen outside the window.
 *
 * - The kernel writes a PERF_RECORD_LOST only in front of the next record
 *   that fits after a loss; a loss still pending when output stops is never
 *   written out. So the main thread drains the buffers during the storm,
 *   and when every thread has done its mappings and every buffer has been
 *   drained, each thread maps a "flush" file once, whose record carries any
 *   pending loss of its buffer out in a LOST record ahead of it. The event's
 *   lost counter, read with PERF_FORMAT_LOST, must then equal what the LOST
 *   records reported.
 *
 * - That records are lost from the small buffers must not depend on how
 *   fast the kernel is: a buffer is drained only once its thread has made
 *   more mappings since the last drain than the buffer holds records, not
 *   on a timer. On a slow kernel (KASAN and lockdep under emulation) a
 *   thread made fewer mappings in 50 ms than one page holds.
 */

#define _GNU_SOURCE

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
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

#define NR_THREADS		4
#define NR_ITERS		2000
#define NR_MAPS			((__u64)NR_THREADS * NR_ITERS)
#define OTHERS_LOGGED		8
/* How often the main thread looks at the buffers during the storm. */
#define DRAIN_POLL_US		1000
#define STORM_TIMEOUT		60

/* sample_id for sample_type = PERF_SAMPLE_TID. */
struct sample_id {
	__u32				pid, tid;
};

/* PERF_RECORD_LOST with sample_id_all. */
struct lost_record {
	struct perf_event_header	header;
	__u64				id;
	__u64				lost;
	struct sample_id		sample_id;
};

/* read() of an event with read_format = PERF_FORMAT_LOST. */
struct read_lost {
	__u64				value;
	__u64				lost;
};

/* One per thread: the event, its ring buffer and what was read out of it. */
struct storm_ring {
	int				thread;	/* index in storm_state.thread */
	pid_t				tid;
	int				fd;
	__u64				id;
	struct perf_event_mmap_page	*meta;
	char				*data;
	size_t				data_size;
	size_t				map_size;
	__u64				drain_every;	/* mappings between drains */
	__u64				drained_at;	/* mapped at the last drain */
	__u64				storm;		/* storm MMAP3 records */
	__u64				flush;		/* flush MMAP3 records */
	__u64				lost;		/* sum of LOST.lost */
	__u64				lost_records;	/* LOST records */
	__u64				others;		/* anything else: an error */
};

/*
 * What the storm threads share with the main thread. The threads wait at
 * each barrier in turn: start (the events are enabled), flush (the storm is
 * over and every buffer drained), flushed (each has mapped the flush file),
 * stop (the events are disabled: the threads may exit).
 */
struct storm_sync {
	pthread_barrier_t		start;
	pthread_barrier_t		flush;
	pthread_barrier_t		flushed;
	pthread_barrier_t		stop;
	int				ready;	/* threads that set their tid, atomic */
	int				done;	/* threads finished, atomic */
	bool				abort;	/* set before start: do nothing */
	size_t				file_len;
	int				flush_fd;
};

struct storm_thread {
	struct storm_sync		*sync;
	pthread_t			thread;
	char				path[PATH_MAX];
	ino_t				ino;
	int				fd;
	pid_t				tid;	/* set before sync.ready counts it */
	int				err;	/* errno of a failed mmap/munmap */
	int				flush_err;	/* errno of the flush mmap */
	__u64				mapped;	/* successful mmap() calls, atomic */
	__u64				seen;	/* MMAP3 records with its name */
};

/* A record that was neither ours nor LOST, kept to be logged later. */
struct other_record {
	int				thread;
	__u32				type;
	__u16				misc;
	__u16				size;
	__u32				pid;
	char				name[64];
};

/* Size of the MMAP3 record for a mapping of @path, with sample_id. */
static size_t mmap3_record_size(const char *path)
{
	return sizeof(struct mmap3_record) + align8(strlen(path) + 1) +
	       sizeof(struct sample_id);
}

/* A dummy software event whose only records are MMAP3 (and LOST). */
static void storm_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->sample_type = PERF_SAMPLE_TID;
	attr->sample_id_all = 1;
	attr->read_format = PERF_FORMAT_LOST;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->mmap3 = 1;
}

/* Everything one test uses, in a struct of its own that helpers can take. */
struct storm_state {
	char			dir[PATH_MAX];	/* canonical path of the scratch dir */
	char			flush_path[PATH_MAX];
	ino_t			flush_ino;
	size_t			max_record;	/* largest MMAP3 record we cause */
	pid_t			pid;
	struct storm_ring	*rings;
	int			nr_rings;
	char			*scratch;	/* records copied out of a ring */
	struct storm_sync	sync;
	bool			barriers;	/* the sync barriers initialised */
	int			nr_started;
	int			nr_joined;
	struct storm_thread	thread[NR_THREADS];
	int			nr_errors;
	char			error[256];	/* the first error */
	int			nr_others;
	struct other_record	others[OTHERS_LOGGED];
};

FIXTURE(storm)
{
	struct storm_state	st;
};

/* Create @name in the scratch dir, one page long. */
static int make_file(struct storm_state *st, const char *name, char *path,
		     ino_t *ino)
{
	struct stat sb;
	int fd;

	if (snprintf(path, PATH_MAX, "%s/%s", st->dir, name) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, st->sync.file_len) || fstat(fd, &sb)) {
		close(fd);
		return -1;
	}
	*ino = sb.st_ino;
	return fd;
}

FIXTURE_SETUP(storm)
{
	struct storm_state *st = &self->st;
	char name[32];

	st->sync.flush_fd = -1;
	for (int t = 0; t < NR_THREADS; t++)
		st->thread[t].fd = -1;
	if (!mmap3_supported())
		SKIP(return, "attr.mmap3 is EINVAL: this kernel has no PERF_RECORD_MMAP3");

	ASSERT_TRUE(make_scratch_dir("mmap3_storm", st->dir)) {
		TH_LOG("no directory that allows PROT_EXEC file mappings");
	}

	st->pid = getpid();
	st->sync.file_len = page_size();
	for (int t = 0; t < NR_THREADS; t++) {
		struct storm_thread *th = &st->thread[t];

		th->sync = &st->sync;
		snprintf(name, sizeof(name), "storm-%d", t);
		th->fd = make_file(st, name, th->path, &th->ino);
		ASSERT_LE(0, th->fd) {
			TH_LOG("creating %s: %s", th->path, strerror(errno));
		}
		if (mmap3_record_size(th->path) > st->max_record)
			st->max_record = mmap3_record_size(th->path);
	}
	st->sync.flush_fd = make_file(st, "flush", st->flush_path,
				      &st->flush_ino);
	ASSERT_LE(0, st->sync.flush_fd) {
		TH_LOG("creating %s: %s", st->flush_path, strerror(errno));
	}
	if (mmap3_record_size(st->flush_path) > st->max_record)
		st->max_record = mmap3_record_size(st->flush_path);
}

FIXTURE_TEARDOWN(storm)
{
	struct storm_state *st = &self->st;

	/*
	 * Threads that were not joined can only be blocked on the start
	 * barrier (pthread_create() failed for a later one, or their events
	 * could not be set up); they never run the storm and go away when the
	 * test process exits. Leave their barriers alone.
	 */
	if (st->barriers && st->nr_joined == st->nr_started) {
		pthread_barrier_destroy(&st->sync.start);
		pthread_barrier_destroy(&st->sync.flush);
		pthread_barrier_destroy(&st->sync.flushed);
		pthread_barrier_destroy(&st->sync.stop);
	}
	for (int i = 0; i < st->nr_rings; i++) {
		struct storm_ring *r = &st->rings[i];

		if (r->meta && r->meta != MAP_FAILED)
			munmap(r->meta, r->map_size);
		if (r->fd >= 0)
			close(r->fd);
	}
	free(st->rings);
	free(st->scratch);
	for (int t = 0; t < NR_THREADS; t++)
		if (st->thread[t].fd >= 0)
			close(st->thread[t].fd);
	if (st->sync.flush_fd >= 0)
		close(st->sync.flush_fd);
	if (st->dir[0])
		rm_rf_at(AT_FDCWD, st->dir);
}

/*
 * Note an error found while the events are enabled, where the test must
 * neither print nor bail out; only the first one is kept.
 */
static void storm_error(struct storm_state *st, const char *fmt, ...)
{
	va_list ap;

	if (!st->nr_errors++) {
		va_start(ap, fmt);
		vsnprintf(st->error, sizeof(st->error), fmt, ap);
		va_end(ap);
	}
}

static void note_other(struct storm_state *st, struct storm_ring *r,
		       const struct perf_event_header *h)
{
	const struct mmap3_record *m = (const void *)h;
	struct other_record *o;
	size_t room;

	r->others++;
	if (st->nr_others++ >= OTHERS_LOGGED)
		return;
	o = &st->others[st->nr_others - 1];
	o->thread = r->thread;
	o->type = h->type;
	o->misc = h->misc;
	o->size = h->size;
	if (h->type == PERF_RECORD_MMAP3 && h->size > sizeof(*m)) {
		room = h->size - sizeof(*m);
		if (room > sizeof(o->name) - 1)
			room = sizeof(o->name) - 1;
		o->pid = m->pid;
		memcpy(o->name, m->filename, room);
		o->name[room] = '\0';
	}
}

/* Check and count one MMAP3 record of @r. */
static void parse_mmap3(struct storm_state *st, struct storm_ring *r,
			const struct mmap3_record *m)
{
	size_t room, len;
	const struct sample_id *sid;

	if (m->header.size < sizeof(*m) + 8 + sizeof(*sid)) {
		storm_error(st, "thread %d: MMAP3 of %u bytes", r->thread, m->header.size);
		return;
	}
	if (m->filename_offset != PERF_MMAP3_SIZE_VER0) {
		storm_error(st, "thread %d: MMAP3 filename_offset %u", r->thread,
			    m->filename_offset);
		return;
	}
	room = m->header.size - sizeof(*m) - sizeof(*sid);
	len = strnlen(m->filename, room);
	if (len == room ||
	    m->header.size != sizeof(*m) + align8(len + 1) + sizeof(*sid)) {
		storm_error(st, "thread %d: MMAP3 size %u does not fit its name",
			    r->thread, m->header.size);
		return;
	}
	sid = (const void *)((const char *)m + m->header.size - sizeof(*sid));
	if (sid->pid != m->pid || sid->tid != m->tid) {
		storm_error(st, "thread %d: MMAP3 of %u/%u has sample_id %u/%u",
			    r->thread, m->pid, m->tid, sid->pid, sid->tid);
		return;
	}
	/* The event follows this thread alone. */
	if (m->pid != (__u32)st->pid || m->tid != (__u32)r->tid) {
		note_other(st, r, &m->header);
		return;
	}

	if (!strcmp(m->filename, st->flush_path)) {
		if (m->ino != st->flush_ino)
			storm_error(st, "thread %d: flush MMAP3 of ino %llu",
				    r->thread, (unsigned long long)m->ino);
		r->flush++;
		return;
	}
	for (int t = 0; t < NR_THREADS; t++) {
		struct storm_thread *th = &st->thread[t];

		if (strcmp(m->filename, th->path))
			continue;
		if (t != r->thread)
			storm_error(st, "MMAP3 of %s in the buffer of thread %d",
				    th->path, r->thread);
		else if (m->len != st->sync.file_len || m->pgoff ||
			 m->prot != (PROT_READ | PROT_EXEC) ||
			 m->flags != MAP_PRIVATE || m->ino != th->ino ||
			 m->file_flags != PERF_MMAP3_FILE_MTIME)
			storm_error(st,
				    "MMAP3 of %s: len %llu pgoff %llu prot %#x flags %#x ino %llu file_flags %#x",
				    th->path, (unsigned long long)m->len,
				    (unsigned long long)m->pgoff, m->prot,
				    m->flags, (unsigned long long)m->ino,
				    m->file_flags);
		th->seen++;
		r->storm++;
		return;
	}
	note_other(st, r, &m->header);
}

static void parse_lost(struct storm_state *st, struct storm_ring *r,
		       const struct lost_record *l)
{
	if (l->header.size != sizeof(*l)) {
		storm_error(st, "thread %d: LOST of %u bytes, not %zu", r->thread,
			    l->header.size, sizeof(*l));
		return;
	}
	if (l->id != r->id)
		storm_error(st, "thread %d: LOST for id %llu, the event is %llu",
			    r->thread, (unsigned long long)l->id,
			    (unsigned long long)r->id);
	if (!l->lost)
		storm_error(st, "thread %d: LOST of nothing", r->thread);
	r->lost += l->lost;
	r->lost_records++;
}

/* Walk @len bytes of records copied out of @r. */
static void parse_records(struct storm_state *st, struct storm_ring *r,
			  const char *buf, size_t len)
{
	const struct perf_event_header *h;

	for (size_t off = 0; off < len; off += h->size) {
		h = (const void *)(buf + off);
		if (len - off < sizeof(*h) || h->size < sizeof(*h) ||
		    h->size % 8 || h->size > len - off) {
			storm_error(st, "thread %d: bad record framing at %zu of %zu",
				    r->thread, off, len);
			return;
		}
		switch (h->type) {
		case PERF_RECORD_MMAP3:
			parse_mmap3(st, r, (const void *)h);
			break;
		case PERF_RECORD_LOST:
			parse_lost(st, r, (const void *)h);
			break;
		default:
			note_other(st, r, h);
			break;
		}
	}
}

/*
 * Copy out everything between data_tail and data_head, give the space back
 * and parse it. The head is only ever published at a record boundary.
 */
static void ring_drain(struct storm_state *st, struct storm_ring *r)
{
	__u64 head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = r->meta->data_tail;
	size_t len = head - tail;

	if (head - tail > r->data_size) {
		storm_error(st, "thread %d: head %llu tail %llu, buffer %zu",
			    r->thread, (unsigned long long)head,
			    (unsigned long long)tail, r->data_size);
		__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
		return;
	}
	ring_copy(st->scratch, r->data, r->data_size, tail, len);
	/* The copy is complete before the kernel may overwrite it. */
	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
	parse_records(st, r, st->scratch, len);
}

static void drain_all(struct storm_state *st)
{
	for (int i = 0; i < st->nr_rings; i++)
		ring_drain(st, &st->rings[i]);
}

/*
 * Drain each ring whose thread has made drain_every mappings since its last
 * drain. The count is read before the drain, so at most one of those
 * mappings (the one in flight) can have its record in what is drained.
 */
static void drain_due(struct storm_state *st)
{
	for (int i = 0; i < st->nr_rings; i++) {
		struct storm_ring *r = &st->rings[i];
		__u64 mapped = __atomic_load_n(&st->thread[r->thread].mapped,
					       __ATOMIC_ACQUIRE);

		if (mapped - r->drained_at < r->drain_every)
			continue;
		r->drained_at = mapped;
		ring_drain(st, r);
	}
}

/*
 * Open an event and a ring of @pages data pages on each storm thread. With
 * @lossy, a ring is drained only after its thread has made two more
 * mappings than the ring holds records: after a drain, at least one more
 * record than fits is written, and one must be lost. Otherwise a ring is
 * drained whenever the main thread looks.
 */
static void open_rings(struct __test_metadata *_metadata,
		       struct storm_state *st, size_t pages, bool lossy)
{
	struct perf_event_attr attr;

	st->rings = calloc(NR_THREADS, sizeof(*st->rings));
	ASSERT_NE(NULL, st->rings);
	st->scratch = malloc(pages * page_size());
	ASSERT_NE(NULL, st->scratch);

	storm_attr(&attr);
	for (int t = 0; t < NR_THREADS; t++) {
		struct storm_ring *r = &st->rings[t];
		int err;

		r->thread = t;
		r->tid = st->thread[t].tid;
		r->fd = syscall(__NR_perf_event_open, &attr, r->tid, -1, -1,
				PERF_FLAG_FD_CLOEXEC);
		err = errno;
		st->nr_rings++;
		ASSERT_LE(0, r->fd) {
			TH_LOG("perf_event_open on thread %d (tid %d): %s", t,
			       r->tid, strerror(err));
		}
		ASSERT_EQ(0, ioctl(r->fd, PERF_EVENT_IOC_ID, &r->id));

		r->data_size = pages * page_size();
		r->map_size = r->data_size + page_size();
		if (lossy)
			r->drain_every = r->data_size /
					 mmap3_record_size(st->thread[t].path) + 2;
		r->meta = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE,
			       MAP_SHARED, r->fd, 0);
		ASSERT_NE(MAP_FAILED, r->meta) {
			TH_LOG("mmap of %zu ring pages for thread %d: %s",
			       pages, t, strerror(errno));
		}
		r->data = (char *)r->meta + page_size();
	}
}

static void *storm_thread_fn(void *arg)
{
	struct storm_thread *th = arg;
	struct storm_sync *sync = th->sync;
	void *p;

	th->tid = sys_gettid();
	__atomic_fetch_add(&sync->ready, 1, __ATOMIC_RELEASE);
	pthread_barrier_wait(&sync->start);
	for (int i = 0; i < NR_ITERS && !sync->abort; i++) {
		p = mmap(NULL, sync->file_len, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE, th->fd, 0);
		if (p == MAP_FAILED) {
			th->err = errno;
			break;
		}
		__atomic_fetch_add(&th->mapped, 1, __ATOMIC_RELEASE);
		if (munmap(p, sync->file_len)) {
			th->err = errno;
			break;
		}
	}
	__atomic_fetch_add(&sync->done, 1, __ATOMIC_RELEASE);

	/* Once the buffer is drained: write out any pending loss. */
	pthread_barrier_wait(&sync->flush);
	p = mmap(NULL, sync->file_len, PROT_READ | PROT_EXEC, MAP_PRIVATE,
		 sync->flush_fd, 0);
	if (p == MAP_FAILED)
		th->flush_err = errno;
	else
		munmap(p, sync->file_len);
	pthread_barrier_wait(&sync->flushed);

	/* Do not exit while the event is enabled. */
	pthread_barrier_wait(&sync->stop);
	return NULL;
}

/*
 * The window in which the events are enabled. Nothing in here may print or
 * give up early: errors are noted with storm_error() and reported after the
 * threads have been joined.
 */
static void storm_window(struct storm_state *st)
{
	for (int i = 0; i < st->nr_rings; i++) {
		if (ioctl(st->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0)) {
			storm_error(st, "enabling for thread %d: %s",
				    st->rings[i].thread, strerror(errno));
			st->sync.abort = true;
		}
	}
	pthread_barrier_wait(&st->sync.start);

	while (__atomic_load_n(&st->sync.done, __ATOMIC_ACQUIRE) < NR_THREADS) {
		drain_due(st);
		usleep(DRAIN_POLL_US);
	}
	/* All storm records are written; make room for the flush records. */
	drain_all(st);
	pthread_barrier_wait(&st->sync.flush);
	pthread_barrier_wait(&st->sync.flushed);

	for (int i = 0; i < st->nr_rings; i++)
		if (ioctl(st->rings[i].fd, PERF_EVENT_IOC_DISABLE, 0))
			storm_error(st, "disabling for thread %d: %s",
				    st->rings[i].thread, strerror(errno));
	drain_all(st);
}

/*
 * Run the storm with @pages data pages per thread, drained as open_rings()
 * says for @lossy, and check what is common to every buffer size: the records are well
 * formed and all of the thread they were recorded for, every thread did all
 * its mappings, each buffer has exactly one flush record, and each buffer's
 * LOST records add up to its event's lost counter. Returns the number of
 * storm records seen and the sum of LOST.lost.
 */
static void run_storm(struct __test_metadata *_metadata,
		      struct storm_state *st, size_t pages, bool lossy,
		      __u64 *seen, __u64 *lost)
{
	struct timespec t0, t1;
	int err;

	ASSERT_EQ(0, pthread_barrier_init(&st->sync.start, NULL, NR_THREADS + 1));
	ASSERT_EQ(0, pthread_barrier_init(&st->sync.flush, NULL, NR_THREADS + 1));
	ASSERT_EQ(0, pthread_barrier_init(&st->sync.flushed, NULL, NR_THREADS + 1));
	ASSERT_EQ(0, pthread_barrier_init(&st->sync.stop, NULL, NR_THREADS + 1));
	st->barriers = true;
	for (int t = 0; t < NR_THREADS; t++) {
		err = pthread_create(&st->thread[t].thread, NULL,
				     storm_thread_fn, &st->thread[t]);
		ASSERT_EQ(0, err) {
			TH_LOG("pthread_create: %s", strerror(err));
		}
		st->nr_started++;
	}
	/* Each event is opened on its thread, which must exist first. */
	while (__atomic_load_n(&st->sync.ready, __ATOMIC_ACQUIRE) < NR_THREADS)
		sched_yield();
	open_rings(_metadata, st, pages, lossy);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	storm_window(st);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	/* Outside the window: let the threads exit. */
	pthread_barrier_wait(&st->sync.stop);
	for (int t = 0; t < NR_THREADS; t++) {
		ASSERT_EQ(0, pthread_join(st->thread[t].thread, NULL));
		st->nr_joined++;
	}

	TH_LOG("%d threads x %d exec mmaps, %zu data pages for each, %ld ms",
	       NR_THREADS, NR_ITERS, pages,
	       (long)((t1.tv_sec - t0.tv_sec) * 1000 +
		      (t1.tv_nsec - t0.tv_nsec) / 1000000));
	*seen = 0;
	*lost = 0;
	for (int i = 0; i < st->nr_rings; i++) {
		struct storm_ring *r = &st->rings[i];

		TH_LOG("thread %d (tid %d): %llu mmaps, %llu storm, %llu lost in %llu LOST, %llu flush, %llu other",
		       r->thread, r->tid,
		       (unsigned long long)st->thread[r->thread].mapped,
		       (unsigned long long)r->storm,
		       (unsigned long long)r->lost,
		       (unsigned long long)r->lost_records,
		       (unsigned long long)r->flush,
		       (unsigned long long)r->others);
		*seen += r->storm;
		*lost += r->lost;
	}
	for (int i = 0; i < st->nr_others && i < OTHERS_LOGGED; i++) {
		const struct other_record *o = &st->others[i];

		TH_LOG("other record for thread %d: type %u misc %#x size %u pid %u %s",
		       o->thread, o->type, o->misc, o->size, o->pid, o->name);
	}

	ASSERT_EQ(0, st->nr_errors) {
		TH_LOG("%d errors, the first: %s", st->nr_errors, st->error);
	}
	ASSERT_EQ(0, st->nr_others) {
		TH_LOG("%d records that are not this thread's storm, flush or LOST",
		       st->nr_others);
	}
	for (int t = 0; t < NR_THREADS; t++) {
		const struct storm_thread *th = &st->thread[t];

		ASSERT_EQ(0, th->err) {
			TH_LOG("thread %d: %s", t, strerror(th->err));
		}
		ASSERT_EQ(0, th->flush_err) {
			TH_LOG("thread %d: flush mmap: %s", t,
			       strerror(th->flush_err));
		}
		ASSERT_EQ((__u64)NR_ITERS, th->mapped);
	}
	for (int i = 0; i < st->nr_rings; i++) {
		struct storm_ring *r = &st->rings[i];
		struct read_lost rl;

		ASSERT_EQ(1ULL, r->flush) {
			TH_LOG("thread %d: %llu flush records, expected one",
			       r->thread, (unsigned long long)r->flush);
		}
		/* Every failed output was reported by a LOST record. */
		ASSERT_EQ((ssize_t)sizeof(rl), read(r->fd, &rl, sizeof(rl)));
		ASSERT_EQ(rl.lost, r->lost) {
			TH_LOG("thread %d: the event lost %llu, LOST records say %llu",
			       r->thread, (unsigned long long)rl.lost,
			       (unsigned long long)r->lost);
		}
	}
}

/*
 * One data page per thread and a reader that falls behind: records must be
 * lost, and
 * the records seen plus the losses reported must still be every mapping
 * made, for each thread and so in all.
 */
TEST_F_TIMEOUT(storm, small_buffer, STORM_TIMEOUT)
{
	struct storm_state *st = &self->st;
	__u64 seen, lost;

	run_storm(_metadata, st, 1, true, &seen, &lost);

	ASSERT_LT(0ULL, lost) {
		TH_LOG("nothing was lost: the test proves nothing without loss");
	}
	ASSERT_LT(0ULL, seen) {
		TH_LOG("not one storm record made it into a buffer");
	}
	ASSERT_GT(NR_MAPS, seen);
	for (int i = 0; i < st->nr_rings; i++) {
		const struct storm_ring *r = &st->rings[i];

		ASSERT_EQ((__u64)NR_ITERS, r->storm + r->lost) {
			TH_LOG("thread %d: %llu seen + %llu lost != %d mappings",
			       r->thread, (unsigned long long)r->storm,
			       (unsigned long long)r->lost, NR_ITERS);
		}
	}
	ASSERT_EQ(NR_MAPS, seen + lost);
}

/*
 * Buffers that could each hold every record of their thread's storm:
 * nothing is lost, and each thread's NR_ITERS mappings are all there.
 */
TEST_F_TIMEOUT(storm, large_buffer, STORM_TIMEOUT)
{
	struct storm_state *st = &self->st;
	size_t need = (size_t)(NR_ITERS + 1) * st->max_record +
		      sizeof(struct lost_record);
	size_t pages = 1;
	__u64 seen, lost;

	while (pages * page_size() < need)
		pages <<= 1;
	run_storm(_metadata, st, pages, false, &seen, &lost);

	ASSERT_EQ(0ULL, lost);
	ASSERT_EQ(NR_MAPS, seen);
	for (int t = 0; t < NR_THREADS; t++) {
		ASSERT_EQ((__u64)NR_ITERS, st->thread[t].seen) {
			TH_LOG("thread %d (tid %d) has %llu records", t,
			       st->thread[t].tid,
			       (unsigned long long)st->thread[t].seen);
		}
	}
}

TEST_HARNESS_MAIN
