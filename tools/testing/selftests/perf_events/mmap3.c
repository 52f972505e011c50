// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for PERF_RECORD_MMAP3 and for mmap records emitted on mremap().
 *
 * Every check compares a value taken from a record the kernel wrote with a
 * value the test obtained on its own: from statx(), from its own mmap() and
 * mremap() calls, or from the ELF notes it parsed out of the file.
 */

#define _GNU_SOURCE

#include <assert.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "mmap3.h"

#ifndef FS_IOC_GETVERSION
#define FS_IOC_GETVERSION	_IOR('v', 1, long)
#endif

#define FILE_PAGES	4

/* PERF_RECORD_MMAP2 without a build-id (PERF_RECORD_MISC_MMAP_BUILD_ID clear). */
struct mmap2_record {
	struct mmap_common		c;
	__u32				maj;
	__u32				min;
	__u64				ino;
	__u64				ino_generation;
	__u32				prot, flags;
	char				filename[];
};

/* sample_id for sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME. */
struct sample_id {
	__u32				pid, tid;
	__u64				time;
};

static __s64 statx_mtime_ns(const struct statx *st)
{
	return st->stx_mtime.tv_sec * 1000000000LL + st->stx_mtime.tv_nsec;
}

static int count_type(const struct records *rec, __u32 type)
{
	const struct perf_event_header *h;
	int n = 0;

	for (h = next_record(rec, NULL); h; h = next_record(rec, h))
		n += h->type == type;
	return n;
}

/* The first MMAP3 record of @pid for a file named @name, or NULL. */
static const struct mmap3_record *find_mmap3_name(const struct records *rec,
						  pid_t pid, const char *name)
{
	const struct perf_event_header *h;
	size_t len = strlen(name) + 1;

	for (h = next_record(rec, NULL); h; h = next_record(rec, h)) {
		const struct mmap3_record *m = (const void *)h;

		if (h->type == PERF_RECORD_MMAP3 && h->size >= sizeof(*m) + len &&
		    m->pid == (__u32)pid && !memcmp(m->filename, name, len))
			return m;
	}
	return NULL;
}

static const struct sample_id *record_sample_id(const struct perf_event_header *h)
{
	return (const void *)((const char *)h + h->size - sizeof(struct sample_id));
}

/*
 * Check the framing of an MMAP3 record: the name is at PERF_MMAP3_SIZE_VER0,
 * as this kernel writes the first version's fields only; the size is those
 * fields, the NUL-terminated name padded to 8 bytes, and the sample_id
 * trailer. Then what holds for the fields of any record: file_flags has no
 * bits but the two defined, and without PERF_MMAP3_FILE_MTIME neither it nor
 * mtime has any; the build-id fits. Returns false (after logging) when
 * anything does not add up.
 */
static bool mmap3_well_formed(struct __test_metadata *_metadata,
			      const struct mmap3_record *m)
{
	size_t room = m->header.size - sizeof(*m) - sizeof(struct sample_id);
	size_t len;

	if (m->header.size % 8 ||
	    m->header.size < sizeof(*m) + 8 + sizeof(struct sample_id)) {
		TH_LOG("bad MMAP3 size %u", m->header.size);
		return false;
	}
	if (m->filename_offset != PERF_MMAP3_SIZE_VER0) {
		TH_LOG("MMAP3 filename_offset %u, not PERF_MMAP3_SIZE_VER0 (%d)",
		       m->filename_offset, PERF_MMAP3_SIZE_VER0);
		return false;
	}
	len = strnlen(m->filename, room);
	if (len == room) {
		TH_LOG("MMAP3 filename is not NUL-terminated");
		return false;
	}
	if (m->header.size != sizeof(*m) + align8(len + 1) + sizeof(struct sample_id)) {
		TH_LOG("MMAP3 size %u does not match name length %zu",
		       m->header.size, len);
		return false;
	}
	for (size_t i = len; i < align8(len + 1); i++) {
		if (m->filename[i]) {
			TH_LOG("MMAP3 filename padding is not zero");
			return false;
		}
	}
	if (m->file_flags & ~(PERF_MMAP3_FILE_MTIME |
			      PERF_MMAP3_FILE_MTIME_SATURATED)) {
		TH_LOG("MMAP3 file_flags %#x has unknown bits", m->file_flags);
		return false;
	}
	if (!(m->file_flags & PERF_MMAP3_FILE_MTIME) &&
	    (m->file_flags || m->mtime)) {
		TH_LOG("MMAP3 file_flags %#x and mtime %lld without PERF_MMAP3_FILE_MTIME",
		       m->file_flags, (long long)m->mtime);
		return false;
	}
	if (m->build_id_size > BUILD_ID_MAX) {
		TH_LOG("MMAP3 build_id_size %u", m->build_id_size);
		return false;
	}
	for (int i = m->build_id_size; i < BUILD_ID_MAX; i++) {
		if (m->build_id[i]) {
			TH_LOG("MMAP3 build_id bytes past the size are not zero");
			return false;
		}
	}
	return true;
}

FIXTURE(mmap3)
{
	char		dir[PATH_MAX];	/* canonical path of the scratch dir */
	struct ring	ring[3];
	struct records	rec;
};

FIXTURE_SETUP(mmap3)
{
	for (int i = 0; i < 3; i++)
		self->ring[i].fd = -1;
	if (!mmap3_supported())
		SKIP(return, "attr.mmap3 is EINVAL: this kernel has no PERF_RECORD_MMAP3");
	ASSERT_TRUE(make_scratch_dir("mmap3", self->dir)) {
		TH_LOG("no directory that allows PROT_EXEC file mappings");
	}
}

FIXTURE_TEARDOWN(mmap3)
{
	for (int i = 0; i < 3; i++)
		ring_close(&self->ring[i]);
	free(self->rec.buf);
	if (self->dir[0])
		rm_rf_at(AT_FDCWD, self->dir);
}

/* statx() of @fd, with what the tests compare records against. */
static void __fstatx(struct __test_metadata *_metadata, int fd,
		     struct statx *st)
{
	const unsigned int mask = STATX_INO | STATX_SIZE | STATX_MTIME;

	ASSERT_EQ(0, statx(fd, "", AT_EMPTY_PATH, mask, st)) {
		TH_LOG("statx: %s", strerror(errno));
	}
	ASSERT_EQ(mask, st->stx_mask & mask);
}

#define fstatx(fd, st)	__fstatx(_metadata, fd, st)

/* Create @name in the scratch dir with FILE_PAGES pages of data. */
static int __make_file(struct __test_metadata *_metadata, const char *dir,
		       const char *name, char *path, struct statx *st)
{
	char *buf = calloc(1, FILE_PAGES * page_size());
	int fd;

	ASSERT_NE(NULL, buf);
	snprintf(path, PATH_MAX, "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0700);
	ASSERT_LE(0, fd) {
		TH_LOG("open %s: %s", path, strerror(errno));
	}
	memset(buf, 0xc3, FILE_PAGES * page_size());
	ASSERT_EQ((ssize_t)(FILE_PAGES * page_size()),
		  write(fd, buf, FILE_PAGES * page_size()));
	free(buf);
	__fstatx(_metadata, fd, st);
	return fd;
}

#define make_file(name, path, st)	__make_file(_metadata, self->dir, name, path, st)

/*
 * Compare an MMAP3 record's inode identity and mtime with those of @fd's
 * file: statx()'s inode number and mtime, and the device of its superblock.
 */
static void __assert_inode(struct __test_metadata *_metadata,
			   const struct mmap3_record *m, int fd,
			   const struct statx *st)
{
	__u32 maj, min;

	ASSERT_TRUE(sb_dev(fd, &maj, &min)) {
		TH_LOG("no mount of fd %d in /proc/self/mountinfo", fd);
	}
	ASSERT_EQ(maj, m->maj);
	ASSERT_EQ(min, m->min);
	ASSERT_EQ(st->stx_ino, m->ino);
	ASSERT_EQ(PERF_MMAP3_FILE_MTIME, m->file_flags);
	ASSERT_EQ(statx_mtime_ns(st), m->mtime);
}

#define ASSERT_INODE(m, fd, st)	__assert_inode(_metadata, m, fd, st)

/* 1. A file mapping gives MMAP3 with what statx() and mmap() said. */
TEST_F(mmap3, file_mapping)
{
	struct perf_event_attr attr;
	const struct mmap3_record *m;
	char path[PATH_MAX];
	struct statx st;
	long gen;
	void *p;
	int fd;

	fd = make_file("exec-file", path, &st);
	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	p = mmap(NULL, 2 * page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE,
		 fd, page_size());
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);

	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m) {
		TH_LOG("no PERF_RECORD_MMAP3 at %p", p);
	}
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	ASSERT_EQ(getpid(), m->pid);
	ASSERT_EQ(sys_gettid(), m->tid);
	ASSERT_EQ(2 * page_size(), m->len);
	ASSERT_EQ(page_size(), m->pgoff);
	ASSERT_EQ(PROT_READ | PROT_EXEC, m->prot);
	ASSERT_EQ(MAP_PRIVATE, m->flags);
	ASSERT_INODE(m, fd, &st);
	/* Only where the file system lets user space see i_generation. */
	if (!ioctl(fd, FS_IOC_GETVERSION, &gen))
		ASSERT_EQ((__u32)gen, (__u32)m->ino_generation);
	ASSERT_STREQ(path, m->filename);
	ASSERT_EQ(0, m->build_id_size);
	ASSERT_EQ(0, m->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
	ASSERT_EQ(0, m->header.misc & PERF_RECORD_MISC_MMAP_DATA);
	ASSERT_EQ(PERF_RECORD_MISC_USER, m->header.misc & PERF_RECORD_MISC_CPUMODE_MASK);

	/* A shared mapping reports MAP_SHARED. */
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);
	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m);
	ASSERT_EQ(MAP_SHARED, m->flags);
	ASSERT_EQ(0, m->pgoff);
	ASSERT_EQ(page_size(), m->len);
	close(fd);
}

/* 2. mtime set with utimensat() comes back to the nanosecond. */
TEST_F(mmap3, mtime)
{
	const struct timespec ts[2] = {
		{ .tv_sec = 1000000000, .tv_nsec = 1 },
		{ .tv_sec = 1234567890, .tv_nsec = 123456789 },
	};
	const __s64 want = 1234567890LL * 1000000000LL + 123456789LL;
	/* 1.5 s before the epoch: tv_sec -2, tv_nsec 500000000. */
	const struct timespec old[2] = {
		{ .tv_sec = 1000000000, .tv_nsec = 1 },
		{ .tv_sec = -2, .tv_nsec = 500000000 },
	};
	struct perf_event_attr attr;
	const struct mmap3_record *m;
	char path[PATH_MAX];
	struct statx st;
	void *p;
	int fd;

	fd = make_file("mtime", path, &st);
	ASSERT_EQ(0, utimensat(AT_FDCWD, path, ts, 0));
	fstatx(fd, &st);
	if (statx_mtime_ns(&st) != want)
		SKIP(return, "file system in %.200s does not keep ns mtimes", self->dir);

	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);

	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m);
	ASSERT_EQ(want, m->mtime);

	/* mtime is signed: a time before the epoch is negative. */
	ASSERT_EQ(0, utimensat(AT_FDCWD, path, old, 0));
	fstatx(fd, &st);
	if (statx_mtime_ns(&st) != -1500000000LL)
		SKIP(return, "file system in %.200s does not keep times before 1970", self->dir);
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);
	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m);
	ASSERT_EQ(-1500000000LL, m->mtime);
	/* Valid, and not out of range. */
	ASSERT_EQ(PERF_MMAP3_FILE_MTIME, m->file_flags);
	close(fd);
}

/*
 * Find the NT_GNU_BUILD_ID note of an ELF image in memory, through the
 * section headers (the kernel goes through the program headers).
 */
static int elf_build_id(const char *img, size_t size, __u8 *id)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	if (!eh->e_shoff || eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) > size)
		return -1;
	sh = (const void *)(img + eh->e_shoff);

	for (int i = 0; i < eh->e_shnum; i++) {
		size_t off = sh[i].sh_offset, end = off + sh[i].sh_size;

		if (sh[i].sh_type != SHT_NOTE || end > size)
			continue;
		while (off + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const void *)(img + off);
			const char *name = (const char *)(nh + 1);
			const char *desc = name + ((nh->n_namesz + 3) & ~3U);

			if (desc + nh->n_descsz > img + end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh->n_descsz <= BUILD_ID_MAX) {
				memcpy(id, desc, nh->n_descsz);
				return nh->n_descsz;
			}
			off = desc + ((nh->n_descsz + 3) & ~3U) - img;
		}
	}
	return -1;
}

/* 3. build_id=1 gives the file's NT_GNU_BUILD_ID; build_id=0 gives none. */
TEST_F(mmap3, build_id)
{
	const struct mmap3_record *with, *without;
	const struct perf_event_header *h2;
	struct perf_event_attr attr;
	__u8 want[BUILD_ID_MAX];
	struct records rec2 = {};
	char exe[PATH_MAX];
	struct statx st;
	int fd, want_size;
	char *img;
	void *p;

	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	fd = open(exe, O_RDONLY);
	ASSERT_LE(0, fd);
	fstatx(fd, &st);
	img = malloc(st.stx_size);
	ASSERT_NE(NULL, img);
	ASSERT_EQ(st.stx_size, pread(fd, img, st.stx_size, 0));
	want_size = elf_build_id(img, st.stx_size, want);
	free(img);
	if (want_size <= 0)
		SKIP(return, "%.200s has no NT_GNU_BUILD_ID note", exe);

	/*
	 * An MMAP2 consumer with build_id goes first: the flag it gets in
	 * header.misc must not leak into the MMAP3 records that follow.
	 */
	base_attr(&attr);
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.build_id = 1;
	ring_open(&self->ring[0], &attr);
	mmap3_attr(&attr);
	ring_open(&self->ring[1], &attr);
	attr.build_id = 1;
	ring_open(&self->ring[2], &attr);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, ring_enable(&self->ring[i]));
	p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, ring_disable(&self->ring[i]));

	ring_read(&self->ring[0], &rec2);
	h2 = find_mmap(&rec2, PERF_RECORD_MMAP2, (unsigned long)p);
	ASSERT_NE(NULL, h2);
	ASSERT_NE(0, h2->misc & PERF_RECORD_MISC_MMAP_BUILD_ID);

	ring_read(&self->ring[1], &self->rec);
	without = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, without);
	ASSERT_TRUE(mmap3_well_formed(_metadata, without));
	ASSERT_EQ(0, without->build_id_size);
	ASSERT_EQ(0, without->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
	/* The inode identity is there whether or not the build-id is. */
	ASSERT_INODE(without, fd, &st);

	ring_read(&self->ring[2], &rec2);
	with = find_mmap(&rec2, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, with);
	ASSERT_TRUE(mmap3_well_formed(_metadata, with));
	ASSERT_EQ(want_size, with->build_id_size);
	ASSERT_EQ(0, memcmp(want, with->build_id, want_size));
	ASSERT_EQ(0, with->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
	ASSERT_INODE(with, fd, &st);
	ASSERT_STREQ(exe, with->filename);
	free(rec2.buf);
	close(fd);
}

/* 4. Data mappings need mmap_data and carry PERF_RECORD_MISC_MMAP_DATA. */
TEST_F(mmap3, data_mapping)
{
	const struct mmap3_record *m;
	struct perf_event_attr attr;
	struct records rec2 = {};
	char path[PATH_MAX];
	struct statx st;
	void *data, *text;
	int fd;

	fd = make_file("data", path, &st);
	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	attr.mmap_data = 1;
	ring_open(&self->ring[1], &attr);
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	ASSERT_EQ(0, ring_enable(&self->ring[1]));
	data = mmap(NULL, page_size(), PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, data);
	text = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, text);
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ASSERT_EQ(0, ring_disable(&self->ring[1]));

	/* Without mmap_data: the exec mapping only. */
	ring_read(&self->ring[0], &self->rec);
	ASSERT_EQ(NULL, find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)data));
	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)text);
	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, m->header.misc & PERF_RECORD_MISC_MMAP_DATA);

	/* With it: both, and the data one is marked as such. */
	ring_read(&self->ring[1], &rec2);
	m = find_mmap(&rec2, PERF_RECORD_MMAP3, (unsigned long)data);
	ASSERT_NE(NULL, m);
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	ASSERT_NE(0, m->header.misc & PERF_RECORD_MISC_MMAP_DATA);
	ASSERT_EQ(PROT_READ, m->prot);
	ASSERT_INODE(m, fd, &st);
	ASSERT_STREQ(path, m->filename);
	m = find_mmap(&rec2, PERF_RECORD_MMAP3, (unsigned long)text);
	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, m->header.misc & PERF_RECORD_MISC_MMAP_DATA);
	free(rec2.buf);
	close(fd);
}

/* 5. Anonymous exec memory: no inode, no valid mtime, an anon name. */
TEST_F(mmap3, anon_mapping)
{
	struct perf_event_attr attr;
	const struct mmap3_record *m;
	void *p;

	mmap3_attr(&attr);
	attr.build_id = 1;
	ring_open(&self->ring[0], &attr);
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	p = mmap(NULL, 2 * page_size(), PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);

	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m);
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	ASSERT_EQ(2 * page_size(), m->len);
	ASSERT_EQ(PROT_READ | PROT_EXEC, m->prot);
	ASSERT_EQ(MAP_PRIVATE, m->flags);
	ASSERT_EQ(0, m->file_flags);
	ASSERT_EQ(0, m->mtime);
	ASSERT_EQ(0, m->ino);
	ASSERT_EQ(0, m->ino_generation);
	ASSERT_EQ(0, m->maj);
	ASSERT_EQ(0, m->min);
	ASSERT_EQ(0, m->build_id_size);
	ASSERT_STREQ("//anon", m->filename);
}

/* 6. mprotect() adding PROT_EXEC reports the mapping. */
TEST_F(mmap3, mprotect_exec)
{
	struct perf_event_attr attr;
	const struct mmap3_record *m;
	char path[PATH_MAX];
	struct statx st;
	void *p;
	int fd;

	fd = make_file("mprotect", path, &st);
	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	p = mmap(NULL, 2 * page_size(), PROT_READ, MAP_PRIVATE, fd, 2 * page_size());
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);
	ASSERT_EQ(NULL, find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p));

	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	ASSERT_EQ(0, mprotect(p, 2 * page_size(), PROT_READ | PROT_EXEC));
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);
	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m);
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	ASSERT_EQ(2 * page_size(), m->len);
	ASSERT_EQ(2 * page_size(), m->pgoff);
	ASSERT_EQ(PROT_READ | PROT_EXEC, m->prot);
	ASSERT_INODE(m, fd, &st);
	ASSERT_STREQ(path, m->filename);
	close(fd);
}

/* 7. mremap() moving exec memory reports it at the new address. */
TEST_F(mmap3, mremap_move)
{
	const struct mmap_common *mm;
	const struct mmap2_record *m2;
	const struct mmap3_record *m3;
	struct perf_event_attr attr;
	struct records rec[3] = {};
	char path[PATH_MAX];
	void *p, *q, *guard;
	struct statx st;
	int fd;

	fd = make_file("mremap", path, &st);
	/* MMAP3, MMAP2 and plain MMAP consumers. */
	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	base_attr(&attr);
	attr.mmap = 1;
	attr.mmap2 = 1;
	ring_open(&self->ring[1], &attr);
	attr.mmap2 = 0;
	ring_open(&self->ring[2], &attr);

	p = mmap(NULL, 2 * page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE,
		 fd, page_size());
	ASSERT_NE(MAP_FAILED, p);
	/* A target that is not where the mapping is. */
	q = mmap(NULL, 2 * page_size(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, q);

	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, ring_enable(&self->ring[i]));
	ASSERT_EQ(q, mremap(p, 2 * page_size(), 2 * page_size(),
			    MREMAP_MAYMOVE | MREMAP_FIXED, q));
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, ring_disable(&self->ring[i]));
		ring_read(&self->ring[i], &rec[i]);
	}

	m3 = find_mmap(&rec[0], PERF_RECORD_MMAP3, (unsigned long)q);
	ASSERT_NE(NULL, m3) {
		TH_LOG("no PERF_RECORD_MMAP3 at the mremap() target %p", q);
	}
	ASSERT_TRUE(mmap3_well_formed(_metadata, m3));
	ASSERT_EQ(2 * page_size(), m3->len);
	ASSERT_EQ(page_size(), m3->pgoff);
	ASSERT_EQ(PROT_READ | PROT_EXEC, m3->prot);
	ASSERT_INODE(m3, fd, &st);
	ASSERT_STREQ(path, m3->filename);

	m2 = find_mmap(&rec[1], PERF_RECORD_MMAP2, (unsigned long)q);
	ASSERT_NE(NULL, m2) {
		TH_LOG("no PERF_RECORD_MMAP2 at the mremap() target %p", q);
	}
	ASSERT_EQ(2 * page_size(), m2->c.len);
	ASSERT_EQ(page_size(), m2->c.pgoff);
	ASSERT_EQ(st.stx_ino, m2->ino);
	ASSERT_STREQ(path, m2->filename);

	mm = find_mmap(&rec[2], PERF_RECORD_MMAP, (unsigned long)q);
	ASSERT_NE(NULL, mm) {
		TH_LOG("no PERF_RECORD_MMAP at the mremap() target %p", q);
	}
	ASSERT_EQ(2 * page_size(), mm->len);
	ASSERT_STREQ(path, (const char *)(mm + 1));

	/* Growing with MREMAP_MAYMOVE where the mapping cannot grow in place. */
	p = mmap(NULL, 2 * page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	guard = (char *)p + page_size();
	ASSERT_EQ(0, munmap(guard, page_size()));
	ASSERT_EQ(guard, mmap(guard, page_size(), PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	q = mremap(p, page_size(), 3 * page_size(), MREMAP_MAYMOVE);
	ASSERT_NE(MAP_FAILED, q);
	ASSERT_NE(p, q);
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &rec[0]);
	m3 = find_mmap(&rec[0], PERF_RECORD_MMAP3, (unsigned long)q);
	ASSERT_NE(NULL, m3);
	ASSERT_EQ(3 * page_size(), m3->len);
	ASSERT_EQ(0, m3->pgoff);
	ASSERT_INODE(m3, fd, &st);

	for (int i = 0; i < 3; i++)
		free(rec[i].buf);
	close(fd);
}

/* 8. mmap3 replaces MMAP and MMAP2 whatever else is set. */
TEST_F(mmap3, replaces_mmap_mmap2)
{
	struct perf_event_attr attr;
	char path[PATH_MAX];
	struct statx st;
	void *p, *d;
	int fd;

	fd = make_file("replace", path, &st);
	mmap3_attr(&attr);
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.mmap_data = 1;
	attr.build_id = 1;
	ring_open(&self->ring[0], &attr);
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	d = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, d);
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);

	ASSERT_NE(NULL, find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p));
	ASSERT_NE(NULL, find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)d));
	ASSERT_EQ(0, count_type(&self->rec, PERF_RECORD_MMAP));
	ASSERT_EQ(0, count_type(&self->rec, PERF_RECORD_MMAP2));
	close(fd);
}

/* 9. Sizes and the sample_id trailer, over names of every length mod 8. */
TEST_F(mmap3, framing)
{
	const struct perf_event_header *h;
	struct perf_event_attr attr;
	struct timespec t0, t1;
	static char path[16][PATH_MAX];
	char name[32];
	void *addr[16];
	int fd[16], n = 0;
	struct statx st;

	mmap3_attr(&attr);
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	ring_open(&self->ring[0], &attr);

	for (int i = 0; i < 16; i++) {
		/* Names of 1..16 characters cover every padding amount. */
		memset(name, 'a' + i, i + 1);
		name[i + 1] = '\0';
		fd[i] = make_file(name, path[i], &st);
	}
	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &t0));
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	for (int i = 0; i < 16; i++) {
		addr[i] = mmap(NULL, page_size(), PROT_READ | PROT_EXEC,
			       MAP_PRIVATE, fd[i], 0);
		ASSERT_NE(MAP_FAILED, addr[i]);
	}
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &t1));
	ring_read(&self->ring[0], &self->rec);

	/* Walking by header.size must consume the buffer exactly. */
	{
		size_t walked = 0;

		for (h = next_record(&self->rec, NULL); h;
		     h = next_record(&self->rec, h)) {
			ASSERT_EQ(0, h->size % 8);
			walked += h->size;
		}
		ASSERT_EQ(self->rec.len, walked);
	}

	for (int i = 0; i < 16; i++) {
		const struct mmap3_record *m;
		const struct sample_id *sid;
		__u64 lo = t0.tv_sec * 1000000000ULL + t0.tv_nsec;
		__u64 hi = t1.tv_sec * 1000000000ULL + t1.tv_nsec;

		m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)addr[i]);
		ASSERT_NE(NULL, m);
		n++;
		ASSERT_STREQ(path[i], m->filename);
		ASSERT_EQ(sizeof(*m) + align8(strlen(path[i]) + 1) + sizeof(*sid),
			  m->header.size);
		ASSERT_TRUE(mmap3_well_formed(_metadata, m));

		sid = record_sample_id(&m->header);
		ASSERT_EQ(getpid(), sid->pid);
		ASSERT_EQ(sys_gettid(), sid->tid);
		ASSERT_LE(lo, sid->time);
		ASSERT_GE(hi, sid->time);
		close(fd[i]);
	}
	ASSERT_EQ(16, n);
}

/*
 * Extend the directory chain that @fd (an open directory whose path is @path)
 * ends in with directories of up to 200 characters until the path is about
 * @target - 40 bytes long. Returns an fd of the innermost directory and
 * appends the components to @path. @fd is consumed.
 */
static int deep_dir(int fd, char *path, size_t target)
{
	char comp[NAME_MAX + 1];

	while (fd >= 0 && strlen(path) + 1 + 40 < target) {
		size_t len = target - 40 - strlen(path) - 1;
		int next;

		if (len > 200)
			len = 200;
		memset(comp, 'd', len);
		comp[len] = '\0';
		if (mkdirat(fd, comp, 0700) && errno != EEXIST) {
			close(fd);
			return -1;
		}
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = next;
		strcat(path, "/");
		strcat(path, comp);
	}
	return fd;
}

/* 10. Long paths, too-long paths and deleted files give sane records. */
TEST_F(mmap3, long_and_deleted_paths)
{
	static char dir[2 * PATH_MAX], path[2 * PATH_MAX + 32];
	const struct mmap3_record *m;
	struct perf_event_attr attr;
	struct statx st;
	int dfd, fd;
	void *p;

	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);

	/* Near PATH_MAX: the whole path still fits. */
	strcpy(dir, self->dir);
	dfd = deep_dir(open(self->dir, O_RDONLY | O_DIRECTORY), dir, PATH_MAX - 64);
	ASSERT_LE(0, dfd);
	fd = openat(dfd, "near-path-max", O_RDWR | O_CREAT, 0700);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, page_size()));
	fstatx(fd, &st);
	snprintf(path, sizeof(path), "%s/near-path-max", dir);
	ASSERT_LT(PATH_MAX - 100, strlen(path));
	ASSERT_GT(PATH_MAX - 8, strlen(path));

	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);
	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m);
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	ASSERT_STREQ(path, m->filename);
	ASSERT_INODE(m, fd, &st);
	close(fd);

	/* Longer than PATH_MAX: no name, but still the inode identity. */
	dfd = deep_dir(dfd, dir, PATH_MAX + 300);
	ASSERT_LE(0, dfd);
	fd = openat(dfd, "beyond-path-max", O_RDWR | O_CREAT, 0700);
	ASSERT_LE(0, fd);
	ASSERT_LT(PATH_MAX, strlen(dir));
	ASSERT_EQ(0, ftruncate(fd, page_size()));
	fstatx(fd, &st);
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);
	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m);
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	ASSERT_STREQ("//toolong", m->filename);
	ASSERT_INODE(m, fd, &st);
	close(fd);
	close(dfd);

	/* Deleted after mapping: the next record names it "(deleted)". */
	fd = make_file("deleted", path, &st);
	p = mmap(NULL, page_size(), PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	ASSERT_EQ(0, mprotect(p, page_size(), PROT_READ | PROT_EXEC));
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);
	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m);
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	strcat(path, " (deleted)");
	ASSERT_STREQ(path, m->filename);
	ASSERT_INODE(m, fd, &st);
	close(fd);
}

/* 11. A per-CPU event sees another process's exec mmap as MMAP3. */
TEST_F(mmap3, cpu_wide)
{
	const struct mmap3_record *m;
	struct perf_event_attr attr;
	char path[PATH_MAX];
	cpu_set_t cpus;
	unsigned long addr = 0;
	int fd, cpu = -1, pipefd[2], status;
	struct statx st;
	pid_t child;

	if (geteuid() != 0)
		SKIP(return, "a per-CPU event on other processes needs root");

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(cpus), &cpus));
	for (int i = 0; i < CPU_SETSIZE && cpu < 0; i++)
		if (CPU_ISSET(i, &cpus))
			cpu = i;
	ASSERT_LE(0, cpu);

	fd = make_file("other-process", path, &st);
	mmap3_attr(&attr);
	ring_open_cpu(&self->ring[0], &attr, cpu);
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, ring_enable(&self->ring[0]));

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		void *p;

		CPU_ZERO(&cpus);
		CPU_SET(cpu, &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus))
			_exit(1);
		p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			_exit(2);
		addr = (unsigned long)p;
		if (write(pipefd[1], &addr, sizeof(addr)) != sizeof(addr))
			_exit(3);
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(sizeof(addr), read(pipefd[0], &addr, sizeof(addr)));
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);

	m = NULL;
	{
		const struct perf_event_header *h;

		for (h = next_record(&self->rec, NULL); h;
		     h = next_record(&self->rec, h)) {
			const struct mmap3_record *r = (const void *)h;

			if (h->type == PERF_RECORD_MMAP3 && r->pid == (__u32)child &&
			    r->addr == addr)
				m = r;
		}
	}
	ASSERT_NE(NULL, m) {
		TH_LOG("no MMAP3 from pid %d at %#lx on CPU %d", child, addr, cpu);
	}
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	ASSERT_EQ((__u32)child, m->tid);
	ASSERT_EQ((__u32)child, record_sample_id(&m->header)->pid);
	ASSERT_EQ(page_size(), m->len);
	ASSERT_INODE(m, fd, &st);
	ASSERT_STREQ(path, m->filename);
	close(fd);
}

/*
 * Reserve @pages pages of address space and map the first @mapped of them
 * from @fd at file page @fpage, leaving the rest free for the mapping to grow
 * into or for mremap() to move next to.
 */
static void *__map_with_room(struct __test_metadata *_metadata, int fd,
			     int prot, size_t fpage, size_t mapped, size_t pages)
{
	char *r = mmap(NULL, pages * page_size(), PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, r);
	ASSERT_EQ(r, mmap(r, mapped * page_size(), prot, MAP_PRIVATE | MAP_FIXED,
			  fd, fpage * page_size()));
	ASSERT_EQ(0, munmap(r + mapped * page_size(), (pages - mapped) * page_size()));
	return r;
}

#define map_with_room(fd, prot, fpage, mapped, pages) \
	__map_with_room(_metadata, fd, prot, fpage, mapped, pages)

/* 12. mremap() growing exec memory in place reports the new length. */
TEST_F(mmap3, mremap_grow_in_place)
{
	const struct mmap2_record *m2;
	const struct mmap3_record *m3;
	struct perf_event_attr attr;
	struct records rec2 = {};
	char path[PATH_MAX];
	struct statx st;
	char *p;
	int fd;

	fd = make_file("grow", path, &st);
	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	base_attr(&attr);
	attr.mmap = 1;
	attr.mmap2 = 1;
	ring_open(&self->ring[1], &attr);
	p = map_with_room(fd, PROT_READ | PROT_EXEC, 1, 1, FILE_PAGES);

	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	ASSERT_EQ(0, ring_enable(&self->ring[1]));
	/* No MREMAP_MAYMOVE: it grows where it is or fails. */
	ASSERT_EQ(p, mremap(p, page_size(), 3 * page_size(), 0));
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ASSERT_EQ(0, ring_disable(&self->ring[1]));
	ring_read(&self->ring[0], &self->rec);
	ring_read(&self->ring[1], &rec2);

	m3 = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m3) {
		TH_LOG("no PERF_RECORD_MMAP3 for the mapping grown at %p", p);
	}
	ASSERT_TRUE(mmap3_well_formed(_metadata, m3));
	ASSERT_EQ(3 * page_size(), m3->len);
	ASSERT_EQ(page_size(), m3->pgoff);
	ASSERT_EQ(PROT_READ | PROT_EXEC, m3->prot);
	ASSERT_INODE(m3, fd, &st);
	ASSERT_STREQ(path, m3->filename);

	m2 = find_mmap(&rec2, PERF_RECORD_MMAP2, (unsigned long)p);
	ASSERT_NE(NULL, m2) {
		TH_LOG("no PERF_RECORD_MMAP2 for the mapping grown at %p", p);
	}
	ASSERT_EQ(3 * page_size(), m2->c.len);
	ASSERT_EQ(st.stx_ino, m2->ino);
	free(rec2.buf);
	close(fd);
}

/*
 * 13. mremap() moving exec memory next to a mapping of the file pages before
 * it: mm may merge the two, and the record then covers both. Either way,
 * one record covers the target, with the file offset the target maps.
 */
TEST_F(mmap3, mremap_merge)
{
	const struct perf_event_header *h;
	const struct mmap3_record *m;
	struct perf_event_attr attr;
	char path[PATH_MAX];
	struct statx st;
	char *lo, *hi, *t;
	int fd;

	fd = make_file("merge", path, &st);
	/* File pages 2-3 somewhere, before the room below could take them. */
	hi = mmap(NULL, 2 * page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE,
		  fd, 2 * page_size());
	ASSERT_NE(MAP_FAILED, hi);
	/* File pages 0-1 at lo, with room for two more after them. */
	lo = map_with_room(fd, PROT_READ | PROT_EXEC, 0, 2, 4);
	t = lo + 2 * page_size();

	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	ASSERT_EQ(t, mremap(hi, 2 * page_size(), 2 * page_size(),
			    MREMAP_MAYMOVE | MREMAP_FIXED, t));
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);

	for (h = next_record(&self->rec, NULL); h; h = next_record(&self->rec, h)) {
		m = (const void *)h;
		if (h->type == PERF_RECORD_MMAP3 && m->addr <= (unsigned long)t &&
		    (unsigned long)t + 2 * page_size() <= m->addr + m->len)
			break;
	}
	ASSERT_NE(NULL, h) {
		TH_LOG("no PERF_RECORD_MMAP3 covers the target %p", t);
	}
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	ASSERT_EQ(2 * page_size(), m->pgoff + ((unsigned long)t - m->addr));
	ASSERT_INODE(m, fd, &st);
	ASSERT_STREQ(path, m->filename);
	close(fd);
}

/* 14. mremap() moving a data mapping reports it to mmap_data consumers. */
TEST_F(mmap3, mremap_data)
{
	const struct mmap3_record *m;
	struct perf_event_attr attr;
	char path[PATH_MAX];
	struct statx st;
	void *p, *q;
	int fd;

	fd = make_file("data-move", path, &st);
	p = mmap(NULL, 2 * page_size(), PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	q = mmap(NULL, 2 * page_size(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, q);

	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	attr.mmap_data = 1;
	ring_open(&self->ring[1], &attr);
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	ASSERT_EQ(0, ring_enable(&self->ring[1]));
	ASSERT_EQ(q, mremap(p, 2 * page_size(), 2 * page_size(),
			    MREMAP_MAYMOVE | MREMAP_FIXED, q));
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ASSERT_EQ(0, ring_disable(&self->ring[1]));

	/* Not to those that asked for exec mappings only. */
	ring_read(&self->ring[0], &self->rec);
	ASSERT_EQ(0, count_type(&self->rec, PERF_RECORD_MMAP3));

	ring_read(&self->ring[1], &self->rec);
	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)q);
	ASSERT_NE(NULL, m) {
		TH_LOG("no PERF_RECORD_MMAP3 for the data mapping moved to %p", q);
	}
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	ASSERT_NE(0, m->header.misc & PERF_RECORD_MISC_MMAP_DATA);
	ASSERT_EQ(2 * page_size(), m->len);
	ASSERT_EQ(PROT_READ, m->prot);
	ASSERT_INODE(m, fd, &st);
	ASSERT_STREQ(path, m->filename);
	close(fd);
}

/*
 * 15. mremap() moving an unfaulted anonymous exec mapping right after itself:
 * copy_vma() merges the new range into the source VMA, which for a moment
 * spans both ranges, until the source range is unmapped. The record is the
 * mapping as it then is at the new address, not the VMA of that moment.
 */
TEST_F(mmap3, mremap_next_to_itself)
{
	const struct mmap2_record *m2;
	const struct mmap3_record *m3;
	struct perf_event_attr attr;
	struct records rec2 = {};
	char *p, *q;

	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	base_attr(&attr);
	attr.mmap = 1;
	attr.mmap2 = 1;
	ring_open(&self->ring[1], &attr);

	/*
	 * Two pages of exec memory, never touched so that the VMA has no
	 * anon_vma and its page offset follows its address, then two free
	 * pages, then a PROT_NONE page that nothing merges with.
	 */
	p = mmap(NULL, 5 * page_size(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(p, mmap(p, 2 * page_size(), PROT_READ | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	ASSERT_EQ(0, munmap(p + 2 * page_size(), 2 * page_size()));
	q = p + 2 * page_size();

	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	ASSERT_EQ(0, ring_enable(&self->ring[1]));
	ASSERT_EQ(q, mremap(p, 2 * page_size(), 2 * page_size(),
			    MREMAP_MAYMOVE | MREMAP_FIXED, q));
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ASSERT_EQ(0, ring_disable(&self->ring[1]));
	ring_read(&self->ring[0], &self->rec);
	ring_read(&self->ring[1], &rec2);

	ASSERT_EQ(1, count_type(&self->rec, PERF_RECORD_MMAP3));
	ASSERT_EQ(NULL, find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p)) {
		TH_LOG("an MMAP3 record still covers the unmapped range at %p", p);
	}
	m3 = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)q);
	ASSERT_NE(NULL, m3) {
		TH_LOG("no PERF_RECORD_MMAP3 at the mremap() target %p", q);
	}
	ASSERT_TRUE(mmap3_well_formed(_metadata, m3));
	ASSERT_EQ(2 * page_size(), m3->len);
	ASSERT_EQ(PROT_READ | PROT_EXEC, m3->prot);
	ASSERT_EQ(MAP_PRIVATE, m3->flags);
	ASSERT_EQ(0, m3->file_flags);
	ASSERT_EQ(0, m3->ino);
	ASSERT_STREQ("//anon", m3->filename);

	ASSERT_EQ(1, count_type(&rec2, PERF_RECORD_MMAP2));
	m2 = find_mmap(&rec2, PERF_RECORD_MMAP2, (unsigned long)q);
	ASSERT_NE(NULL, m2) {
		TH_LOG("no PERF_RECORD_MMAP2 at the mremap() target %p", q);
	}
	ASSERT_EQ(2 * page_size(), m2->c.len);
	ASSERT_STREQ("//anon", m2->filename);
	free(rec2.buf);
}

/*
 * Give a new file in @dir an mtime of @sec seconds since the epoch, map it
 * with @r enabled and return its MMAP3 record, with the file's statx in
 * @st: its mtime is @sec, or what the file system clamped @sec to when it
 * is out of its range.
 */
static const struct mmap3_record *
__map_with_mtime(struct __test_metadata *_metadata, const char *dir,
		 struct ring *r, struct records *rec, __s64 sec,
		 struct statx *st)
{
	const struct timespec ts[2] = {
		{ .tv_nsec = UTIME_OMIT },
		{ .tv_sec = sec },
	};
	const struct mmap3_record *m;
	char path[PATH_MAX], name[32];
	void *p;
	int fd;

	snprintf(name, sizeof(name), "mtime%lld", (long long)sec);
	fd = __make_file(_metadata, dir, name, path, st);
	ASSERT_EQ(0, utimensat(AT_FDCWD, path, ts, 0)) {
		TH_LOG("utimensat %s: %s", path, strerror(errno));
	}
	__fstatx(_metadata, fd, st);
	ASSERT_EQ(0, ring_enable(r));
	p = mmap(NULL, page_size(), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, ring_disable(r));
	close(fd);
	ring_read(r, rec);
	m = find_mmap(rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m) {
		TH_LOG("no PERF_RECORD_MMAP3 at %p", p);
	}
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	return m;
}

#define map_with_mtime(sec, st) \
	__map_with_mtime(_metadata, self->dir, &self->ring[0], &self->rec, sec, st)

/*
 * 16. An mtime of 0, as reproducible images give their files, or of 1 s, as
 * package stores do, is a real time: PERF_MMAP3_FILE_MTIME tells it from the
 * 0 of a mapping without a file.
 */
TEST_F(mmap3, mtime_zero_and_one)
{
	struct perf_event_attr attr;
	const struct mmap3_record *m;
	struct statx st;

	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	for (__s64 sec = 0; sec <= 1; sec++) {
		/* As kept: FAT, say, clamps it to 1980. */
		m = map_with_mtime(sec, &st);
		ASSERT_EQ(PERF_MMAP3_FILE_MTIME, m->file_flags);
		ASSERT_EQ(statx_mtime_ns(&st), m->mtime);
	}
}

/*
 * An mtime after 2262 or before 1678 has more nanoseconds than an s64 holds:
 * it is saturated to @ns, and PERF_MMAP3_FILE_MTIME_SATURATED says so. A
 * file system whose range of times ends before (ext4 and xfs: 1901) clamps
 * @sec to its end, and the record has that mtime, as statx() gives it.
 */
static void __mtime_saturated(struct __test_metadata *_metadata,
			      FIXTURE_DATA(mmap3) *self, __s64 sec, __s64 ns)
{
	const __s64 s64_sec = INT64_MAX / 1000000000LL;
	struct perf_event_attr attr;
	const struct mmap3_record *m;
	struct statx st;

	if (sizeof(time_t) < sizeof(sec))
		SKIP(return, "time_t has %zu bytes, too few for %lld s",
		     sizeof(time_t), (long long)sec);
	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	m = map_with_mtime(sec, &st);
	if (st.stx_mtime.tv_sec != sec && st.stx_mtime.tv_sec < s64_sec &&
	    st.stx_mtime.tv_sec > -s64_sec) {
		TH_LOG("the file system in %.200s clamped %lld s to %lld s",
		       self->dir, (long long)sec, (long long)st.stx_mtime.tv_sec);
		ASSERT_EQ(PERF_MMAP3_FILE_MTIME, m->file_flags);
		ASSERT_EQ(statx_mtime_ns(&st), m->mtime);
		return;
	}
	ASSERT_EQ(PERF_MMAP3_FILE_MTIME | PERF_MMAP3_FILE_MTIME_SATURATED,
		  m->file_flags);
	ASSERT_EQ(ns, m->mtime);
}

/* 17. An mtime in 2286 is saturated to INT64_MAX. */
TEST_F(mmap3, mtime_after_2262)
{
	__mtime_saturated(_metadata, self, 10000000000LL, INT64_MAX);
}

/* 18. An mtime in 1653 is saturated to INT64_MIN. */
TEST_F(mmap3, mtime_before_1678)
{
	__mtime_saturated(_metadata, self, -10000000000LL, INT64_MIN);
}

/*
 * vdso_mapping's child execs this program only to be seen doing it: with
 * MMAP3_EXEC_PROBE set it exits before the harness's main() runs a test,
 * whatever options the harness of this kernel version takes.
 */
static void __attribute__((constructor)) exec_probe_exit(void)
{
	if (getenv("MMAP3_EXEC_PROBE"))
		_exit(0);
}

/*
 * 19. A special mapping has no file and no valid mtime either: the [vdso]
 * that exec() installs, next to the executable's file mappings, which have
 * one. The event is opened on a child and enabled by its exec(), which runs
 * this program again, to exit at once (exec_probe_exit()).
 */
TEST_F(mmap3, vdso_mapping)
{
	const struct mmap3_record *prog, *vdso;
	struct perf_event_attr attr;
	int fd, go[2], status;
	char exe[PATH_MAX];
	struct statx st;
	pid_t child;

	if (!getauxval(AT_SYSINFO_EHDR))
		SKIP(return, "no vDSO: the auxiliary vector has no AT_SYSINFO_EHDR");
	ASSERT_NE(NULL, realpath("/proc/self/exe", exe));
	fd = open(exe, O_RDONLY);
	ASSERT_LE(0, fd);
	fstatx(fd, &st);
	close(fd);

	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		char *const envp[] = { "MMAP3_EXEC_PROBE=1", NULL };
		int null = open("/dev/null", O_WRONLY);
		char c;

		/* Exec once the event is open; EOF means the test failed. */
		close(go[1]);
		if (read(go[0], &c, 1) != 1 || null < 0 ||
		    dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(126);
		execle(exe, exe, (char *)NULL, envp);
		_exit(127);
	}
	close(go[0]);
	mmap3_attr(&attr);
	attr.enable_on_exec = 1;
	ring_open_pid(&self->ring[0], &attr, child);
	ASSERT_EQ(1, write(go[1], "", 1));
	close(go[1]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) >= 126) {
		TH_LOG("exit status %d: the child did not exec %s",
		       WEXITSTATUS(status), exe);
	}
	ring_read(&self->ring[0], &self->rec);

	prog = find_mmap3_name(&self->rec, child, exe);
	ASSERT_NE(NULL, prog) {
		TH_LOG("no PERF_RECORD_MMAP3 of %s from pid %d", exe, child);
	}
	ASSERT_TRUE(mmap3_well_formed(_metadata, prog));
	ASSERT_EQ(PERF_MMAP3_FILE_MTIME, prog->file_flags);
	ASSERT_EQ(statx_mtime_ns(&st), prog->mtime);

	vdso = find_mmap3_name(&self->rec, child, "[vdso]");
	ASSERT_NE(NULL, vdso) {
		TH_LOG("no PERF_RECORD_MMAP3 of [vdso] from pid %d", child);
	}
	ASSERT_TRUE(mmap3_well_formed(_metadata, vdso));
	ASSERT_EQ(0, vdso->file_flags);
	ASSERT_EQ(0, vdso->mtime);
	ASSERT_EQ(0, vdso->ino);
}

static int open_on_self(struct perf_event_attr *attr)
{
	return syscall(__NR_perf_event_open, attr, 0, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/*
 * Bit @n of the attr flags word, numbered as the uapi header numbers them:
 * from the low end of the __u64 where bit-fields are allocated from its low
 * end (little-endian), from the high end where they are allocated from there.
 */
static __u64 flag_bit(int n)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return 1ULL << (63 - n);
#else
	return 1ULL << n;
#endif
}

/* The attr flags word, the __u64 after read_format. */
static __u64 attr_flags(const struct perf_event_attr *attr)
{
	__u64 flags;

	memcpy(&flags, (const char *)&attr->read_format + sizeof(attr->read_format),
	       sizeof(flags));
	return flags;
}

/*
 * 20. The mtime is the one stat() gives after a write through a shared
 * mapping, which updates it where the file system's page_mkwrite does, on
 * the inode whose pages are mapped: on overlayfs the upper file's, which
 * stat() of the overlay file reports, not the overlay inode's copy.
 * mprotect() adding PROT_EXEC then reports the mapping.
 */
TEST_F(mmap3, mtime_after_shared_write)
{
	struct perf_event_attr attr;
	const struct mmap3_record *m;
	char path[PATH_MAX];
	struct statx st;
	char *p;
	int fd;

	fd = make_file("shared-write", path, &st);
	p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	/* Past the granularity of the file system's clock. */
	usleep(50000);
	p[0] = 0x3c;
	fstatx(fd, &st);

	mmap3_attr(&attr);
	ring_open(&self->ring[0], &attr);
	ASSERT_EQ(0, ring_enable(&self->ring[0]));
	ASSERT_EQ(0, mprotect(p, page_size(), PROT_READ | PROT_EXEC));
	ASSERT_EQ(0, ring_disable(&self->ring[0]));
	ring_read(&self->ring[0], &self->rec);
	m = find_mmap(&self->rec, PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m) {
		TH_LOG("no PERF_RECORD_MMAP3 for the mprotect() at %p", p);
	}
	ASSERT_TRUE(mmap3_well_formed(_metadata, m));
	ASSERT_EQ(MAP_SHARED, m->flags);
	ASSERT_INODE(m, fd, &st);
	ASSERT_STREQ(path, m->filename);
	munmap(p, page_size());
	close(fd);
}

/*
 * 21. attr.mmap3 is bit 40 of the attr flags word, as the ABI says, and
 * none of the bits attr.__reserved_1 holds, however many those are.
 */
TEST(attr_bit_layout)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.mmap3 = 1;
	ASSERT_EQ(flag_bit(40), attr_flags(&attr));
	attr.mmap3 = 0;
	/* -1 sets all the bits of an unsigned bit-field, whatever its width. */
	attr.__reserved_1 = -1;
	ASSERT_NE(0, attr_flags(&attr));
	ASSERT_EQ(0, attr_flags(&attr) & flag_bit(40));
}

/*
 * 22. Every attr flag bit that this kernel reserves is refused with EINVAL,
 * so that a newer tool's feature probe falls back. They are the bits of
 * attr.__reserved_1 in the uapi header the test is built against, the tested
 * kernel's, and are set through that bit-field, wherever and however wide it
 * is. The controls: the attr opens without them, and with attr.mmap3 set the
 * same way, which shows that such a bit reaches the kernel.
 */
TEST(attr_unknown_bits)
{
	struct perf_event_attr attr;
	int width = 0, fd, err;

	base_attr(&attr);
	fd = open_on_self(&attr);
	ASSERT_LE(0, fd) {
		TH_LOG("perf_event_open without reserved bits: %s", strerror(errno));
	}
	close(fd);

	attr.mmap3 = 1;
	fd = open_on_self(&attr);
	if (fd < 0 && errno == EINVAL)
		SKIP(return,
		     "attr.mmap3 is EINVAL: not the kernel whose uapi the test was built with");
	ASSERT_LE(0, fd) {
		TH_LOG("perf_event_open with attr.mmap3: %s", strerror(errno));
	}
	close(fd);
	attr.mmap3 = 0;

	attr.__reserved_1 = -1;
	for (__u64 bits = attr.__reserved_1; bits; bits >>= 1)
		width++;

	for (int i = 0; i < width; i++) {
		attr.__reserved_1 = 1ULL << i;
		fd = open_on_self(&attr);
		err = errno;
		EXPECT_EQ(-1, fd) {
			TH_LOG("attr.__reserved_1 bit %d (of %d) was accepted",
			       i, width);
		}
		if (fd >= 0) {
			close(fd);
			continue;
		}
		EXPECT_EQ(EINVAL, err) {
			TH_LOG("attr.__reserved_1 bit %d (of %d): %s, not EINVAL",
			       i, width, strerror(err));
		}
	}
}

TEST_HARNESS_MAIN
