/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the PERF_RECORD_MMAP3 tests share: the record's layout, the probe for
 * a kernel that has it, and a scratch directory to map files from.
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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "../kselftest.h"

#define BUILD_ID_MAX	20

/* PERF_RECORD_MMAP3 as documented in include/uapi/linux/perf_event.h. */
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
	__u8				__reserved_1;
	__u16				filename_offset;
	__u8				build_id[BUILD_ID_MAX];
	char				filename[];
};

static_assert(offsetof(struct mmap3_record, filename) == 104,
	      "MMAP3 fixed part is 104 bytes");

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

/* Whether this kernel knows attr.mmap3; an unknown attr bit is EINVAL. */
static inline bool have_mmap3(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	attr.mmap3 = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd >= 0 || errno != EINVAL;
}

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

#endif /* __SELFTESTS_PERF_EVENTS_MMAP3_H */
