// SPDX-License-Identifier: GPL-2.0
/*
 * mremap() of executable memory tells perf where the mapping went: a
 * PERF_RECORD_MMAP2 for the mapping as it is after a move, an
 * MREMAP_DONTUNMAP move or growth in place, and nothing for a move that
 * failed. Each check compares a record with what the test's own mmap() and
 * mremap() calls, and fstat() of the mapped file, said. Where mm merges the
 * result with a neighbour, the test asks only that a record covers the
 * range mremap() returned, with the file offset that range maps: how far mm
 * merges is its own business.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "../kselftest_harness.h"

#define RB_PAGES	8
#define FILE_PAGES	4

/* PERF_RECORD_MMAP2 without a build id, as the uapi header lays it out. */
struct mmap2_record {
	struct perf_event_header	header;
	__u32				pid, tid;
	__u64				addr;
	__u64				len;
	__u64				pgoff;
	__u32				maj;
	__u32				min;
	__u64				ino;
	__u64				ino_generation;
	__u32				prot, flags;
	char				filename[];
};

static size_t page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

FIXTURE(mremap_mmap)
{
	int				fd;	/* the event */
	struct perf_event_mmap_page	*meta;
	size_t				map_size;
	int				file;	/* a memfd of FILE_PAGES pages */
	struct stat			st;
};

FIXTURE_SETUP(mremap_mmap)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	self->fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
			   PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, self->fd) {
		TH_LOG("perf_event_open of a dummy event with mmap2: %s",
		       strerror(errno));
	}
	self->map_size = (RB_PAGES + 1) * page_size();
	self->meta = mmap(NULL, self->map_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->meta);

	self->file = memfd_create("mremap_mmap", MFD_CLOEXEC);
	ASSERT_LE(0, self->file);
	ASSERT_EQ(0, ftruncate(self->file, FILE_PAGES * page_size()));
	ASSERT_EQ(0, fstat(self->file, &self->st));
}

FIXTURE_TEARDOWN(mremap_mmap)
{
	if (self->meta && self->meta != MAP_FAILED)
		munmap(self->meta, self->map_size);
	if (self->fd >= 0)
		close(self->fd);
	if (self->file >= 0)
		close(self->file);
}

/*
 * Enable the event, run @call, disable it: the records the ring then holds
 * are those of @call. The few records a test makes fit in the ring, so
 * they never wrap: a test that made more fails.
 */
#define RECORDED(call) ({						\
	typeof(call) __ret;						\
	self->meta->data_tail = self->meta->data_head;			\
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0));	\
	__ret = (call);							\
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0));	\
	ASSERT_GE(RB_PAGES * page_size(),				\
		  self->meta->data_head - self->meta->data_tail +	\
		  self->meta->data_tail % (RB_PAGES * page_size()));	\
	__ret;								\
})

/*
 * The @n-th (from 0) PERF_RECORD_MMAP2 of the records RECORDED() left, or
 * NULL. A record whose size does not fit ends the walk.
 */
static const struct mmap2_record *
nth_mmap2(FIXTURE_DATA(mremap_mmap) *self, int n)
{
	__u64 head = __atomic_load_n(&self->meta->data_head, __ATOMIC_ACQUIRE);
	__u64 off = self->meta->data_tail;
	const char *data = (const char *)self->meta + page_size();
	const size_t size = RB_PAGES * page_size();

	while (off + sizeof(struct perf_event_header) <= head) {
		const struct perf_event_header *h = (const void *)(data + off % size);

		if (h->size < sizeof(*h) || off + h->size > head)
			return NULL;
		if (h->type == PERF_RECORD_MMAP2 &&
		    h->size >= sizeof(struct mmap2_record) && !n--)
			return (const void *)h;
		off += h->size;
	}
	return NULL;
}

/*
 * That the records hold a PERF_RECORD_MMAP2 of this process which covers
 * [@addr, @addr + @len), mapped @prot from page @pgoff of @st's file (an
 * anonymous mapping for a NULL @st).
 */
static void __assert_covered(struct __test_metadata *_metadata,
			     FIXTURE_DATA(mremap_mmap) *self, void *addr,
			     size_t len, size_t pgoff, const struct stat *st)
{
	const __u64 a = (unsigned long)addr;
	const struct mmap2_record *m;

	for (int i = 0; (m = nth_mmap2(self, i)); i++) {
		if (m->addr <= a && a + len <= m->addr + m->len)
			break;
	}
	ASSERT_NE(NULL, m) {
		TH_LOG("no PERF_RECORD_MMAP2 covers [%p, %p)", addr,
		       (char *)addr + len);
	}
	ASSERT_EQ(getpid(), m->pid);
	ASSERT_EQ(PROT_READ | PROT_EXEC, m->prot);
	if (!st) {
		ASSERT_EQ(0, m->ino);
		ASSERT_STREQ("//anon", m->filename);
		return;
	}
	ASSERT_EQ(st->st_ino, m->ino);
	ASSERT_EQ(pgoff * page_size(), m->pgoff + (a - m->addr));
}

#define ASSERT_COVERED(addr, len, pgoff, st) \
	__assert_covered(_metadata, self, addr, len, pgoff, st)

/* @pages pages of address space that nothing else maps, PROT_NONE. */
static void *reserve(struct __test_metadata *_metadata, size_t pages)
{
	void *p = mmap(NULL, pages * page_size(), PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	return p;
}

/* A move to another address is recorded there. */
TEST_F(mremap_mmap, move)
{
	void *p, *q, *r;

	p = mmap(NULL, 2 * page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE,
		 self->file, page_size());
	ASSERT_NE(MAP_FAILED, p);
	q = reserve(_metadata, 2);

	r = RECORDED(mremap(p, 2 * page_size(), 2 * page_size(),
			    MREMAP_MAYMOVE | MREMAP_FIXED, q));
	ASSERT_EQ(q, r) {
		TH_LOG("mremap: %s", strerror(errno));
	}
	ASSERT_COVERED(q, 2 * page_size(), 1, &self->st);
	munmap(q, 2 * page_size());
}

/* MREMAP_DONTUNMAP moves the pages and leaves the old range mapped. */
TEST_F(mremap_mmap, move_dontunmap)
{
	void *p, *q, *r;

	p = mmap(NULL, 2 * page_size(), PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	q = reserve(_metadata, 2);

	r = RECORDED(mremap(p, 2 * page_size(), 2 * page_size(),
			    MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, q));
	ASSERT_EQ(q, r) {
		TH_LOG("mremap: %s", strerror(errno));
	}
	ASSERT_COVERED(q, 2 * page_size(), 0, NULL);
	munmap(p, 2 * page_size());
	munmap(q, 2 * page_size());
}

/* A mapping grown in place is recorded with its new length. */
TEST_F(mremap_mmap, grow_in_place)
{
	char *p, *r;

	/* File page 1, with two free pages after it. */
	p = reserve(_metadata, 3);
	ASSERT_EQ(p, mmap(p, page_size(), PROT_READ | PROT_EXEC,
			  MAP_PRIVATE | MAP_FIXED, self->file, page_size()));
	ASSERT_EQ(0, munmap(p + page_size(), 2 * page_size()));

	/* Without MREMAP_MAYMOVE it grows in place or fails. */
	r = RECORDED(mremap(p, page_size(), 3 * page_size(), 0));
	ASSERT_EQ(p, r) {
		TH_LOG("mremap: %s", strerror(errno));
	}
	ASSERT_COVERED(p, 3 * page_size(), 1, &self->st);
	munmap(p, 3 * page_size());
}

/*
 * A move next to the mapping of the file pages before it: mm may merge the
 * two, and the record then covers both. Either way one covers the target.
 */
TEST_F(mremap_mmap, move_next_to_neighbour)
{
	char *lo, *hi, *r;

	hi = mmap(NULL, 2 * page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE,
		  self->file, 2 * page_size());
	ASSERT_NE(MAP_FAILED, hi);
	lo = reserve(_metadata, 4);
	ASSERT_EQ(lo, mmap(lo, 2 * page_size(), PROT_READ | PROT_EXEC,
			   MAP_PRIVATE | MAP_FIXED, self->file, 0));

	r = RECORDED(mremap(hi, 2 * page_size(), 2 * page_size(),
			    MREMAP_MAYMOVE | MREMAP_FIXED, lo + 2 * page_size()));
	ASSERT_EQ(lo + 2 * page_size(), r) {
		TH_LOG("mremap: %s", strerror(errno));
	}
	ASSERT_COVERED(r, 2 * page_size(), 2, &self->st);
	munmap(lo, 4 * page_size());
}

/* A move that fails moves nothing, and nothing is recorded. */
TEST_F(mremap_mmap, failed_move)
{
	char *p, *r;

	p = mmap(NULL, 2 * page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE,
		 self->file, 0);
	ASSERT_NE(MAP_FAILED, p);

	/* A target that overlaps the source is EINVAL. */
	r = RECORDED(mremap(p, 2 * page_size(), 2 * page_size(),
			    MREMAP_MAYMOVE | MREMAP_FIXED, p + page_size()));
	ASSERT_EQ(MAP_FAILED, r);
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(NULL, nth_mmap2(self, 0));

	/* Growing in place into a mapped page is ENOMEM. */
	r = RECORDED(mremap(p, page_size(), 2 * page_size(), 0));
	ASSERT_EQ(MAP_FAILED, r);
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(NULL, nth_mmap2(self, 0));
	munmap(p, 2 * page_size());
}

TEST_HARNESS_MAIN
