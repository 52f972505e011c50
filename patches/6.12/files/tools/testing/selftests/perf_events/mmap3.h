/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the PERF_RECORD_MMAP3 tests share: the record's layout, the probe for
 * a kernel that has it, a scratch directory to map files from, and an event
 * with its ring buffer to read the records back.
 *
 * Include it after ../kselftest_harness.h, whose ASSERT_*() and TH_LOG() the
 * helpers that take a struct __test_metadata use. All functions here are
 * static inline, as not every test uses all of them.
 */
#ifndef __SELFTESTS_PERF_EVENTS_MMAP3_H
#define __SELFTESTS_PERF_EVENTS_MMAP3_H

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "../kselftest.h"

#define BUILD_ID_MAX	20
#define RB_PAGES	16

/* The part all of MMAP, MMAP2 and MMAP3 share. */
struct mmap_common {
	struct perf_event_header	header;
	__u32				pid, tid;
	__u64				addr;
	__u64				len;
	__u64				pgoff;
};

/*
 * PERF_RECORD_MMAP3 as documented in include/uapi/linux/perf_event.h: the
 * PERF_MMAP3_SIZE_VER0 bytes of the first version's fields, then the name.
 */
struct mmap3_record {
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
	__s64				mtime;
	__u8				build_id_size;
	__u8				file_flags;
	__u16				filename_offset;
	__u8				build_id[BUILD_ID_MAX];
	char				filename[];
};

static_assert(offsetof(struct mmap3_record, filename) == PERF_MMAP3_SIZE_VER0,
	      "struct mmap3_record is not the first version's layout");
static_assert(PERF_MMAP3_SIZE_VER0 % 8 == 0,
	      "PERF_MMAP3_SIZE_VER0 is not a multiple of 8");

static inline size_t page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

static inline size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static inline pid_t sys_gettid(void)
{
	return syscall(__NR_gettid);
}

/*
 * Whether this kernel knows attr.mmap3: 1 if it does, 0 if the attr is
 * EINVAL with it and opens without it, the one answer that means no (an
 * unknown attr bit is EINVAL), and -errno when the event does not open
 * without it either: EACCES, say, which a test must fail on, not skip.
 */
static inline int have_mmap3(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	/* As the tests' events, which perf_event_paranoid 2 allows */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);

	attr.mmap3 = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == EINVAL ? 0 : -errno;
}

/*
 * For a fixture's setup, which skips when it is false: whether this kernel
 * has PERF_RECORD_MMAP3. The test fails if the probe itself does.
 */
static inline bool __mmap3_supported(struct __test_metadata *_metadata)
{
	int have = have_mmap3();

	ASSERT_LE(0, have) {
		TH_LOG("perf_event_open of a dummy event: %s", strerror(-have));
	}
	return have;
}

#define mmap3_supported()	__mmap3_supported(_metadata)

/* Remove @name under @at, recursing into directories of any depth. */
static inline void rm_rf_at(int at, const char *name)
{
	struct dirent *de;
	DIR *d;
	int fd;

	if (!unlinkat(at, name, 0))
		return;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		rm_rf_at(dirfd(d), de->d_name);
	}
	closedir(d);
	unlinkat(at, name, AT_REMOVEDIR);
}

/*
 * Create a directory @parent/@name.XXXXXX in which files can be mapped
 * PROT_EXEC, and put its canonical path in @out.
 */
static inline bool __make_scratch_dir(const char *parent, const char *name,
				      char *out)
{
	char tmpl[PATH_MAX], probe[PATH_MAX + 8];
	bool ok = false;
	void *p;
	int fd;

	if (snprintf(tmpl, sizeof(tmpl), "%s/%s.XXXXXX", parent, name) >= PATH_MAX)
		return false;
	if (!mkdtemp(tmpl))
		return false;
	snprintf(probe, sizeof(probe), "%s/probe", tmpl);
	fd = open(probe, O_RDWR | O_CREAT | O_EXCL, 0700);
	if (fd >= 0 && !ftruncate(fd, page_size())) {
		p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			munmap(p, page_size());
			ok = true;
		}
	}
	if (fd >= 0)
		close(fd);
	unlink(probe);
	if (ok && realpath(tmpl, out))
		return true;
	rmdir(tmpl);
	return false;
}

/* The same in $TMPDIR, /tmp, /dev/shm or ., the first that allows it. */
static inline bool make_scratch_dir(const char *name, char *out)
{
	static const char * const parents[] = { "/tmp", "/dev/shm", "." };
	const char *tmpdir = getenv("TMPDIR");

	if (tmpdir && __make_scratch_dir(tmpdir, name, out))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(parents); i++) {
		if (__make_scratch_dir(parents[i], name, out))
			return true;
	}
	return false;
}

/* An event and its ring buffer of RB_PAGES data pages. */
struct ring {
	int				fd;
	struct perf_event_mmap_page	*meta;
	char				*data;
	size_t				data_size;
	size_t				map_size;
};

/* Records read out of a ring, unwrapped into one linear buffer. */
struct records {
	char				*buf;
	size_t				len;
};

/* A dummy software event on which only side-band records are enabled. */
static inline void base_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

static inline void mmap3_attr(struct perf_event_attr *attr)
{
	base_attr(attr);
	attr->mmap3 = 1;
}

static inline void __ring_open(struct __test_metadata *_metadata,
			       struct ring *r, struct perf_event_attr *attr,
			       pid_t pid, int cpu)
{
	int err;

	r->fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1,
			PERF_FLAG_FD_CLOEXEC);
	err = errno;
	if (r->fd < 0 && err == EINVAL && attr->mmap3)
		TH_LOG("EINVAL for attr.mmap3: kernel lacks PERF_RECORD_MMAP3");
	ASSERT_LE(0, r->fd) {
		TH_LOG("perf_event_open: %s", strerror(err));
	}

	r->data_size = RB_PAGES * page_size();
	r->map_size = r->data_size + page_size();
	r->meta = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->fd, 0);
	ASSERT_NE(MAP_FAILED, r->meta) {
		TH_LOG("mmap of the ring buffer: %s", strerror(errno));
	}
	r->data = (char *)r->meta + page_size();
}

#define ring_open(r, attr)		__ring_open(_metadata, r, attr, 0, -1)
#define ring_open_cpu(r, attr, cpu)	__ring_open(_metadata, r, attr, -1, cpu)
#define ring_open_pid(r, attr, pid)	__ring_open(_metadata, r, attr, pid, -1)

static inline void ring_close(struct ring *r)
{
	if (r->meta && r->meta != MAP_FAILED)
		munmap(r->meta, r->map_size);
	if (r->fd >= 0)
		close(r->fd);
	r->meta = NULL;
	r->fd = -1;
}

static inline int ring_enable(struct ring *r)
{
	return ioctl(r->fd, PERF_EVENT_IOC_ENABLE, 0);
}

static inline int ring_disable(struct ring *r)
{
	return ioctl(r->fd, PERF_EVENT_IOC_DISABLE, 0);
}

/*
 * Copy the @len bytes at @tail out of the @data_size bytes of ring buffer
 * data at @data into @dst, unwrapping them.
 */
static inline void ring_copy(char *dst, const char *data, size_t data_size,
			     __u64 tail, size_t len)
{
	for (size_t n = 0; n < len; ) {
		size_t off = (tail + n) % data_size;
		size_t chunk = data_size - off;

		if (chunk > len - n)
			chunk = len - n;
		memcpy(dst + n, data + off, chunk);
		n += chunk;
	}
}

/* Copy everything between data_tail and data_head out of the ring. */
static inline void __ring_read(struct __test_metadata *_metadata,
			       struct ring *r, struct records *rec)
{
	__u64 head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = r->meta->data_tail;

	ASSERT_LE(head - tail, r->data_size);
	free(rec->buf);
	rec->len = head - tail;
	rec->buf = malloc(rec->len + 1);
	ASSERT_NE(NULL, rec->buf);
	ring_copy(rec->buf, r->data, r->data_size, tail, rec->len);
	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
}

#define ring_read(r, rec)	__ring_read(_metadata, r, rec)

/*
 * The record after @h, or the first one for NULL. Returns NULL at the end,
 * and on a malformed size rather than looping.
 */
static inline const struct perf_event_header *
next_record(const struct records *rec, const struct perf_event_header *h)
{
	const char *p = h ? (const char *)h + h->size : rec->buf;
	const struct perf_event_header *n = (const void *)p;

	if (h && h->size < sizeof(*h))
		return NULL;
	if (p + sizeof(*n) > rec->buf + rec->len)
		return NULL;
	if (n->size < sizeof(*n) || p + n->size > rec->buf + rec->len)
		return NULL;
	return n;
}

/* The first record of @type for a mapping at @addr, or NULL. */
static inline const void *find_mmap(const struct records *rec, __u32 type,
				    __u64 addr)
{
	const struct perf_event_header *h;

	for (h = next_record(rec, NULL); h; h = next_record(rec, h)) {
		const struct mmap_common *m = (const void *)h;

		if (h->type == type && h->size >= sizeof(*m) && m->addr == addr)
			return h;
	}
	return NULL;
}

#endif /* __SELFTESTS_PERF_EVENTS_MMAP3_H */
