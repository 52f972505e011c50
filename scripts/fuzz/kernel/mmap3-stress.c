// SPDX-License-Identifier: GPL-2.0
/*
 * mmap3-stress: the kernel's mmap records under concurrent mm system calls,
 * each record checked against the uapi. make fuzz-kernel runs it in the
 * guest, beside trinity, on the debug kernel.
 *
 *   mmap3-stress [-t SECONDS] [-s SEED] [-c] DIR...
 *
 * In each DIR (a tmpfs, an overlayfs, a btrfs: the guest's fuzz-kernel.sh
 * mounts them) it makes three files: "plain", with no ELF header, so no
 * build id; "elf", an ELF file whose build id note is in its first page;
 * and "late", one whose note is in its third page. Then, for SECONDS:
 *
 * - NR_MAPPERS threads map those files (executable or not, private or
 *   shared, at an offset) and anonymous memory, and move (MREMAP_FIXED),
 *   grow in place, shrink, split, unmap, mprotect and madvise what they
 *   mapped.
 * - One thread truncates the files and grows them back, rewrites them in
 *   place (the build id note too), copies new contents over them (the same
 *   inode) and replaces them by rename (a new inode).
 * - The main thread opens events with random attrs: mmap3 or mmap2 or
 *   mmap, build_id, mmap_data, inherit, comm, task, sample_id_all with a
 *   random sample_type, watermarks or wakeup_events, ring buffers of 1 to
 *   16 pages; one per mapper thread (pid = its tid) and with -c one per
 *   CPU too. It reads every buffer and checks every record: framing (size,
 *   8-byte alignment, within what the kernel published), and for the mmap
 *   records the layout that include/uapi/linux/perf_event.h gives them:
 *   filename_offset, a NUL-terminated name before the sample_id, the
 *   build id size, the flags and the validity bits, which record types the
 *   event asked for, and the sample_id's pid and tid. Every so often it
 *   closes an event and opens another, while the mappers go on.
 *
 * Exit status 0 if every record was well formed, 1 if one was not (each is
 * printed, up to MAX_REPORTS), 2 if the run could not be set up.
 */
#define _GNU_SOURCE

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
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

#ifndef PERF_MMAP3_SIZE_VER0
#error "needs the uapi headers of a kernel with PERF_RECORD_MMAP3"
#endif

#define NR_MAPPERS	4
#define NR_SLOTS	16	/* mappings a mapper holds at a time */
#define MAX_DIRS	4
#define MAX_EVENTS	(NR_MAPPERS + 64)
#define MAX_PAGES	16
#define FILE_PAGES	4
#define NOTE_LATE	2	/* the page of "late"'s build id note */
#define BUILD_ID_SIZE	20
#define MAX_REPORTS	20

static const char * const file_names[] = { "plain", "elf", "late" };
#define NR_FILES	(sizeof(file_names) / sizeof(file_names[0]))

static size_t page;
static volatile bool stop;
static char paths[MAX_DIRS * NR_FILES][PATH_MAX];
static int nr_paths;

/* Figures, updated with atomics by the threads that make them. */
static struct {
	uint64_t	mmap, mremap, munmap, mprotect, madvise, failed;
	uint64_t	truncate, rewrite, copy, replace;
	uint64_t	opened, open_failed, closed;
	uint64_t	records, mmap3, mmap2, mmap1, lost, others, bad;
	uint64_t	refused[140];	/* perf_event_open's errno */
} fig;

#define count(f)	__atomic_fetch_add(&fig.f, 1, __ATOMIC_RELAXED)

/* A PRNG per thread, seeded from the run's seed: runs repeat their choices. */
static uint64_t next_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned int rnd(uint64_t *s, unsigned int n)
{
	return next_rnd(s) % n;
}

static void report(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&fig.bad, 1, __ATOMIC_RELAXED) >= MAX_REPORTS)
		return;
	va_start(ap, fmt);
	fputs("BAD: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
}

/*
 * The contents of file @f: "plain" is bytes without an ELF header; "elf"
 * and "late" are an ELF header, one PT_NOTE program header and a GNU build
 * id note, in the first page or in page NOTE_LATE.
 */
static void file_contents(unsigned int f, uint64_t *s, unsigned char *buf,
			  size_t len)
{
	struct {
		Elf64_Nhdr	nhdr;
		char		name[4];
		unsigned char	desc[BUILD_ID_SIZE];
	} note;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
	size_t off = f == 2 ? NOTE_LATE * page : 512;

	for (size_t i = 0; i < len; i++)
		buf[i] = next_rnd(s);
	if (f == 0)
		return;

	memset(eh, 0, sizeof(*eh) + sizeof(*ph));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	ph->p_type = PT_NOTE;
	ph->p_offset = off;
	ph->p_filesz = sizeof(note);
	ph->p_memsz = sizeof(note);
	ph->p_align = 4;

	note.nhdr.n_namesz = 4;
	note.nhdr.n_descsz = BUILD_ID_SIZE;
	note.nhdr.n_type = NT_GNU_BUILD_ID;
	memcpy(note.name, "GNU", 4);
	for (size_t i = 0; i < BUILD_ID_SIZE; i++)
		note.desc[i] = next_rnd(s);
	if (off + sizeof(note) <= len)
		memcpy(buf + off, &note, sizeof(note));
}

static int write_file(const char *path, int flags, unsigned int f, uint64_t *s)
{
	size_t len = FILE_PAGES * page;
	unsigned char *buf = malloc(len);
	int fd, ret = -1;

	if (!buf)
		return -1;
	file_contents(f, s, buf, len);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0755);
	if (fd >= 0) {
		if (pwrite(fd, buf, len, 0) == (ssize_t)len)
			ret = 0;
		close(fd);
	}
	free(buf);
	return ret;
}

/* The mutator: change the files under the mappers. */
static void *mutator(void *arg)
{
	uint64_t s = *(uint64_t *)arg;
	char tmp[PATH_MAX + 8];
	unsigned char junk[64];
	int fd;

	while (!stop) {
		int i = rnd(&s, nr_paths);
		unsigned int f = i % NR_FILES;

		switch (rnd(&s, 4)) {
		case 0:	/* truncate, then grow back: pages go away under maps */
			count(truncate);
			if (truncate(paths[i], rnd(&s, FILE_PAGES * page)) ||
			    truncate(paths[i], FILE_PAGES * page))
				count(failed);
			break;
		case 1:	/* rewrite some bytes in place, the note's among them */
			count(rewrite);
			fd = open(paths[i], O_WRONLY | O_CLOEXEC);
			if (fd < 0)
				break;
			for (size_t k = 0; k < sizeof(junk); k++)
				junk[k] = next_rnd(&s);
			if (pwrite(fd, junk, 1 + rnd(&s, sizeof(junk)),
				   rnd(&s, FILE_PAGES * page)) < 0)
				count(failed);
			close(fd);
			break;
		case 2:	/* cp over it: same inode, new contents */
			count(copy);
			write_file(paths[i], O_TRUNC, f, &s);
			break;
		case 3:	/* replace it: a new inode under the same name */
			count(replace);
			snprintf(tmp, sizeof(tmp), "%s.new", paths[i]);
			if (write_file(tmp, O_TRUNC, f, &s) == 0)
				rename(tmp, paths[i]);
			break;
		}
		usleep(rnd(&s, 2000));
	}
	return NULL;
}

struct slot {
	char	*addr;
	size_t	len;
};

struct mapper {
	pthread_t	thread;
	pid_t		tid;		/* set before mapper_ready counts it */
	uint64_t	seed;
	struct slot	slot[NR_SLOTS];
};

static struct mapper mappers[NR_MAPPERS];
static int mappers_ready;

static const int prots[] = {
	PROT_READ | PROT_EXEC, PROT_READ, PROT_READ | PROT_WRITE,
	PROT_READ | PROT_WRITE | PROT_EXEC, PROT_NONE,
};

/* One random mm operation on the mapper's slots. */
static void mm_op(struct mapper *m, uint64_t *s)
{
	struct slot *sl = &m->slot[rnd(s, NR_SLOTS)];
	size_t len, off;
	void *p;
	int fd;

	if (!sl->addr) {
		int prot = prots[rnd(s, sizeof(prots) / sizeof(prots[0]))];
		int flags = rnd(s, 2) ? MAP_PRIVATE : MAP_SHARED;

		len = (1 + rnd(s, FILE_PAGES)) * page;
		count(mmap);
		if (rnd(s, 5) == 0) {
			p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS,
				 -1, 0);
		} else {
			fd = open(paths[rnd(s, nr_paths)],
				  (flags == MAP_SHARED && (prot & PROT_WRITE)) ?
				  O_RDWR | O_CLOEXEC : O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				count(failed);
				return;
			}
			off = rnd(s, FILE_PAGES) * page;
			p = mmap(NULL, len, prot, flags, fd, off);
			close(fd);
		}
		if (p == MAP_FAILED) {
			count(failed);
			return;
		}
		sl->addr = p;
		sl->len = len;
		return;
	}

	switch (rnd(s, 6)) {
	case 0:	/* grow in place, or move if it must */
		len = sl->len + (1 + rnd(s, 4)) * page;
		count(mremap);
		p = mremap(sl->addr, sl->len, len, rnd(s, 2) ? MREMAP_MAYMOVE : 0);
		if (p == MAP_FAILED) {
			count(failed);
			break;
		}
		sl->addr = p;
		sl->len = len;
		break;
	case 1:	/* move to a place of our choosing */
		p = mmap(NULL, sl->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		if (p == MAP_FAILED)
			break;
		count(mremap);
		if (mremap(sl->addr, sl->len, sl->len,
			   MREMAP_MAYMOVE | MREMAP_FIXED, p) == MAP_FAILED) {
			count(failed);
			munmap(p, sl->len);
			break;
		}
		sl->addr = p;
		break;
	case 2:	/* shrink */
		if (sl->len <= page)
			break;
		len = sl->len - page;
		count(mremap);
		p = mremap(sl->addr, sl->len, len, 0);
		if (p == MAP_FAILED) {
			count(failed);
			break;
		}
		sl->len = len;
		break;
	case 3:	/* mprotect a part: splits the mapping */
		off = rnd(s, sl->len / page) * page;
		count(mprotect);
		if (mprotect(sl->addr + off, sl->len - off,
			     prots[rnd(s, sizeof(prots) / sizeof(prots[0]))]))
			count(failed);
		break;
	case 4:
		off = rnd(s, sl->len / page) * page;
		count(madvise);
		if (madvise(sl->addr + off, page,
			    rnd(s, 2) ? MADV_DONTNEED : MADV_WILLNEED))
			count(failed);
		break;
	case 5:	/* unmap, whole or the tail */
		off = rnd(s, 2) ? 0 : rnd(s, sl->len / page) * page;
		count(munmap);
		if (munmap(sl->addr + off, sl->len - off)) {
			count(failed);
			break;
		}
		sl->len = off;
		if (!off)
			sl->addr = NULL;
		break;
	}
}

static void *mapper_fn(void *arg)
{
	struct mapper *m = arg;
	uint64_t s = m->seed;

	m->tid = syscall(SYS_gettid);
	__atomic_fetch_add(&mappers_ready, 1, __ATOMIC_RELEASE);
	while (!stop)
		mm_op(m, &s);
	for (int i = 0; i < NR_SLOTS; i++)
		if (m->slot[i].addr)
			munmap(m->slot[i].addr, m->slot[i].len);
	return NULL;
}

struct event {
	int				fd;
	uint64_t			id;
	struct perf_event_attr		attr;
	pid_t				pid;	/* the thread it follows, or -1 */
	int				cpu;	/* its CPU, or -1 */
	struct perf_event_mmap_page	*meta;
	char				*data;
	size_t				data_size;
	uint64_t			last_head;
	size_t				id_len;	/* sample_id's length */
};

static struct event events[MAX_EVENTS];
static int nr_events;
static int nr_cpus;

/* The length of the sample_id that sample_id_all appends. */
static size_t sample_id_len(const struct perf_event_attr *a)
{
	static const uint64_t bits[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};
	size_t n = 0;

	if (!a->sample_id_all)
		return 0;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (a->sample_type & bits[i])
			n += 8;
	return n;
}

static void random_attr(struct perf_event_attr *a, uint64_t *s, bool per_cpu)
{
	static const uint64_t sample_bits[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	switch (rnd(s, 5)) {
	case 0:
		a->mmap2 = 1;
		break;
	case 1:
		a->mmap = 1;
		break;
	default:
		a->mmap3 = 1;
		break;
	}
	a->build_id = rnd(s, 2);
	a->mmap_data = rnd(s, 2);
	/* perf_mmap() refuses the buffer of an inherited per-task event. */
	a->inherit = per_cpu && rnd(s, 3) == 0;
	a->comm = rnd(s, 3) == 0;
	a->task = rnd(s, 3) == 0;
	a->sample_id_all = rnd(s, 4) != 0;
	for (size_t i = 0; i < sizeof(sample_bits) / sizeof(sample_bits[0]); i++)
		if (rnd(s, 2))
			a->sample_type |= sample_bits[i];
	if (rnd(s, 3) == 0) {
		a->watermark = 1;
		a->wakeup_watermark = 1 + rnd(s, 4096);
	} else {
		a->wakeup_events = rnd(s, 4);
	}
	a->exclude_kernel = !per_cpu;
	a->exclude_hv = 1;
}

static void close_event(struct event *e)
{
	if (e->meta)
		munmap(e->meta, e->data_size + page);
	close(e->fd);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	count(closed);
}

/* Open an event on thread @pid or CPU @cpu with random attrs, into @e. */
static void open_event(struct event *e, pid_t pid, int cpu, uint64_t *s)
{
	size_t pages = 1u << rnd(s, 5);

	memset(e, 0, sizeof(*e));
	random_attr(&e->attr, s, cpu >= 0);
	e->pid = pid;
	e->cpu = cpu;
	e->fd = syscall(SYS_perf_event_open, &e->attr, pid, cpu, -1,
			PERF_FLAG_FD_CLOEXEC);
	if (e->fd < 0) {
		count(open_failed);
		if (errno < (int)(sizeof(fig.refused) / sizeof(fig.refused[0])))
			__atomic_fetch_add(&fig.refused[errno], 1, __ATOMIC_RELAXED);
		e->fd = -1;
		return;
	}
	count(opened);
	ioctl(e->fd, PERF_EVENT_IOC_ID, &e->id);
	e->data_size = pages * page;
	e->meta = mmap(NULL, e->data_size + page, PROT_READ | PROT_WRITE,
		       MAP_SHARED, e->fd, 0);
	if (e->meta == MAP_FAILED) {
		report("mmap of %zu pages of ring buffer: %s", pages,
		       strerror(errno));
		e->meta = NULL;
		close_event(e);
		return;
	}
	e->data = (char *)e->meta + page;
	e->id_len = sample_id_len(&e->attr);
}

/* Where sample_id puts pid/tid and cpu, if it has them. */
static void sample_id_tid_cpu(const struct event *e, const char *end,
			      const uint32_t **tid, const uint32_t **cpu)
{
	const char *p = end - e->id_len;
	uint64_t st = e->attr.sample_type;

	*tid = NULL;
	*cpu = NULL;
	if (!e->attr.sample_id_all)
		return;
	if (st & PERF_SAMPLE_TID) {
		*tid = (const uint32_t *)p;
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME)
		p += 8;
	if (st & PERF_SAMPLE_ID)
		p += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		p += 8;
	if (st & PERF_SAMPLE_CPU)
		*cpu = (const uint32_t *)p;
}

/* The name at @name, up to @end: must end in a NUL before @end. */
static bool name_ok(const char *name, const char *end)
{
	return name < end && memchr(name, 0, end - name);
}

static void check_mmap_common(const struct event *e,
			      const struct perf_event_header *h,
			      const char *what)
{
	const uint32_t *ids = (const uint32_t *)(h + 1);
	const char *end = (const char *)h + h->size;
	const uint32_t *tid, *cpu;

	sample_id_tid_cpu(e, end, &tid, &cpu);
	if (tid && (tid[0] != ids[0] || tid[1] != ids[1]))
		report("%s of %u/%u has sample_id %u/%u", what, ids[0], ids[1],
		       tid[0], tid[1]);
	/* Without inherit, an event on a thread sees that thread alone. */
	if (e->pid > 0 && !e->attr.inherit && ids[1] != (uint32_t)e->pid)
		report("%s of tid %u on the event of tid %d", what, ids[1],
		       e->pid);
	if (cpu && *cpu >= (uint32_t)nr_cpus)
		report("%s on CPU %u of %d", what, *cpu, nr_cpus);
	if (cpu && e->cpu >= 0 && *cpu != (uint32_t)e->cpu)
		report("%s on CPU %u in the buffer of CPU %d", what, *cpu,
		       e->cpu);
	if ((h->misc & PERF_RECORD_MISC_MMAP_DATA) && !e->attr.mmap_data)
		report("%s of data without attr.mmap_data", what);
}

static void check_mmap3(const struct event *e, const struct perf_event_header *h)
{
	const struct {
		struct perf_event_header	header;
		uint32_t			pid, tid;
		uint64_t			addr, len, pgoff;
		uint32_t			maj, min;
		uint64_t			ino, ino_generation;
		uint32_t			prot, flags;
		int64_t				mtime;
		uint8_t				build_id_size;
		uint8_t				file_flags;
		uint16_t			filename_offset;
		uint8_t				build_id[BUILD_ID_SIZE];
	} *m = (const void *)h;
	const char *end = (const char *)h + h->size - e->id_len;
	static const uint8_t zero[BUILD_ID_SIZE];

	count(mmap3);
	if (!e->attr.mmap3) {
		report("MMAP3 on an event without attr.mmap3");
		return;
	}
	if (h->size < PERF_MMAP3_SIZE_VER0 + 8 + e->id_len) {
		report("MMAP3 of %u bytes", h->size);
		return;
	}
	if (m->filename_offset % 8 || m->filename_offset < PERF_MMAP3_SIZE_VER0 ||
	    !name_ok((const char *)h + m->filename_offset, end)) {
		report("MMAP3 of %u bytes, filename_offset %u, no name that ends before its sample_id",
		       h->size, m->filename_offset);
		return;
	}
	if (m->build_id_size > BUILD_ID_SIZE)
		report("MMAP3 build_id_size %u", m->build_id_size);
	else if (m->build_id_size && !e->attr.build_id)
		report("MMAP3 with a build id on an event without attr.build_id");
	else if (memcmp(m->build_id + m->build_id_size, zero,
			BUILD_ID_SIZE - m->build_id_size))
		report("MMAP3 build id of %u bytes is not zero after them",
		       m->build_id_size);
	if (m->file_flags & ~(PERF_MMAP3_FILE_MTIME | PERF_MMAP3_FILE_MTIME_SATURATED))
		report("MMAP3 file_flags %#x", m->file_flags);
	if ((m->file_flags & PERF_MMAP3_FILE_MTIME_SATURATED) &&
	    !(m->file_flags & PERF_MMAP3_FILE_MTIME))
		report("MMAP3 mtime saturated but not valid");
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
		report("MMAP3 with PERF_RECORD_MISC_MMAP_BUILD_ID");
	if (!m->maj && !m->min && !m->ino &&
	    (m->mtime || m->file_flags || m->ino_generation))
		report("MMAP3 without an inode has mtime %" PRId64 ", file_flags %#x",
		       m->mtime, m->file_flags);
	if (m->len == 0 || m->addr % page)
		report("MMAP3 at %#" PRIx64 " of %" PRIu64 " bytes", m->addr, m->len);
	check_mmap_common(e, h, "MMAP3");
}

static void check_mmap2(const struct event *e, const struct perf_event_header *h)
{
	const struct perf_record_mmap2 {
		struct perf_event_header	header;
		uint32_t			pid, tid;
		uint64_t			addr, len, pgoff;
		union {
			struct {
				uint32_t	maj, min;
				uint64_t	ino, ino_generation;
			};
			struct {
				uint8_t		build_id_size;
				uint8_t		reserved_1;
				uint16_t	reserved_2;
				uint8_t		build_id[BUILD_ID_SIZE];
			};
		};
		uint32_t			prot, flags;
		char				filename[];
	} *m = (const void *)h;
	const char *end = (const char *)h + h->size - e->id_len;

	count(mmap2);
	if (e->attr.mmap3 || !e->attr.mmap2) {
		report("MMAP2 on an event with mmap3 %u, mmap2 %u",
		       e->attr.mmap3, e->attr.mmap2);
		return;
	}
	if (h->size < sizeof(*m) + 8 + e->id_len || !name_ok(m->filename, end)) {
		report("MMAP2 of %u bytes, no name that ends before its sample_id",
		       h->size);
		return;
	}
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		if (!e->attr.build_id)
			report("MMAP2 with a build id on an event without attr.build_id");
		if (m->build_id_size > BUILD_ID_SIZE || m->reserved_1 || m->reserved_2)
			report("MMAP2 build_id_size %u, reserved %u %u",
			       m->build_id_size, m->reserved_1, m->reserved_2);
	}
	check_mmap_common(e, h, "MMAP2");
}

static void check_mmap1(const struct event *e, const struct perf_event_header *h)
{
	const char *name = (const char *)h + sizeof(*h) + 8 + 24;
	const char *end = (const char *)h + h->size - e->id_len;

	count(mmap1);
	if (e->attr.mmap3 || e->attr.mmap2 || !e->attr.mmap) {
		report("MMAP on an event with mmap3 %u, mmap2 %u, mmap %u",
		       e->attr.mmap3, e->attr.mmap2, e->attr.mmap);
		return;
	}
	if (!name_ok(name, end)) {
		report("MMAP of %u bytes, no name that ends before its sample_id",
		       h->size);
		return;
	}
	check_mmap_common(e, h, "MMAP");
}

static void check_lost(const struct event *e, const struct perf_event_header *h)
{
	const uint64_t *l = (const uint64_t *)(h + 1);

	count(lost);
	if (h->size != sizeof(*h) + 16 + e->id_len)
		report("LOST of %u bytes", h->size);
	else if (l[0] != e->id || !l[1])
		report("LOST of %" PRIu64 " for id %" PRIu64 ", the event is %" PRIu64,
		       l[1], l[0], e->id);
}

/* Copy out and check what the kernel published in @e's buffer since last. */
static void drain(struct event *e, char *buf)
{
	uint64_t head = __atomic_load_n(&e->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = e->meta->data_tail;
	size_t len = head - tail;

	if (head < e->last_head || len > e->data_size) {
		report("data_head %" PRIu64 " after %" PRIu64 ", tail %" PRIu64 ", buffer %zu",
		       head, e->last_head, tail, e->data_size);
		__atomic_store_n(&e->meta->data_tail, head, __ATOMIC_RELEASE);
		e->last_head = head;
		return;
	}
	e->last_head = head;
	for (size_t i = 0; i < len; i++)
		buf[i] = e->data[(tail + i) % e->data_size];
	__atomic_store_n(&e->meta->data_tail, head, __ATOMIC_RELEASE);

	for (size_t off = 0; off < len;) {
		const struct perf_event_header *h = (const void *)(buf + off);

		if (len - off < sizeof(*h) || h->size < sizeof(*h) ||
		    h->size % 8 || h->size > len - off) {
			report("record framing at %zu of %zu: size %u",
			       off, len, len - off < sizeof(*h) ? 0 : h->size);
			return;
		}
		count(records);
		switch (h->type) {
		case PERF_RECORD_MMAP3:
			check_mmap3(e, h);
			break;
		case PERF_RECORD_MMAP2:
			check_mmap2(e, h);
			break;
		case PERF_RECORD_MMAP:
			check_mmap1(e, h);
			break;
		case PERF_RECORD_LOST:
			check_lost(e, h);
			break;
		case PERF_RECORD_COMM:
			count(others);
			if (!e->attr.comm)
				report("COMM on an event without attr.comm");
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
			/* As perf_event_task_match() has it. */
			count(others);
			if (!e->attr.task && !e->attr.comm && !e->attr.mmap &&
			    !e->attr.mmap2 && !e->attr.mmap3 && !e->attr.mmap_data)
				report("FORK or EXIT on an event that asked for no task records");
			break;
		default:
			/* A dummy event with these attrs makes no other. */
			count(others);
			report("record of type %u", h->type);
			break;
		}
		off += h->size;
	}
}

static void make_files(int nr_dirs, char **dirs, uint64_t *s)
{
	for (int d = 0; d < nr_dirs; d++) {
		for (unsigned int f = 0; f < NR_FILES; f++) {
			char *p = paths[nr_paths];

			if (snprintf(p, PATH_MAX, "%s/%s", dirs[d],
				     file_names[f]) >= PATH_MAX) {
				fprintf(stderr, "mmap3-stress: %s: name too long\n", dirs[d]);
				exit(2);
			}
			if (write_file(p, O_TRUNC, f, s)) {
				fprintf(stderr, "mmap3-stress: %s: %s\n", p, strerror(errno));
				exit(2);
			}
			nr_paths++;
		}
	}
}

int main(int argc, char **argv)
{
	struct perf_event_attr probe;
	uint64_t seed = time(NULL), s, mseed;
	unsigned int secs = 60;
	bool per_cpu = false;
	struct timespec t0, now;
	pthread_t mut;
	char *buf;
	int opt;

	while ((opt = getopt(argc, argv, "t:s:c")) != -1) {
		switch (opt) {
		case 't':
			secs = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			per_cpu = true;
			break;
		default:
			goto usage;
		}
	}
	if (optind == argc || argc - optind > MAX_DIRS || !secs || !seed)
		goto usage;

	page = sysconf(_SC_PAGESIZE);
	nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	s = seed;
	printf("mmap3-stress: seed %" PRIu64 ", %u s, %d dirs%s\n", seed, secs,
	       argc - optind, per_cpu ? ", per-CPU events too" : "");

	/* A kernel without MMAP3 says so, and the run is not made. */
	memset(&probe, 0, sizeof(probe));
	probe.size = sizeof(probe);
	probe.type = PERF_TYPE_SOFTWARE;
	probe.config = PERF_COUNT_SW_DUMMY;
	probe.mmap3 = 1;
	probe.exclude_kernel = 1;
	opt = syscall(SYS_perf_event_open, &probe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (opt < 0) {
		fprintf(stderr, "mmap3-stress: perf_event_open with attr.mmap3: %s%s\n",
			strerror(errno),
			errno == EINVAL ? " (a kernel without PERF_RECORD_MMAP3)" : "");
		return 2;
	}
	close(opt);

	make_files(argc - optind, argv + optind, &s);
	buf = malloc(MAX_PAGES * page);
	if (!buf)
		return 2;
	for (int i = 0; i < MAX_EVENTS; i++)
		events[i].fd = -1;

	for (int i = 0; i < NR_MAPPERS; i++) {
		mappers[i].seed = next_rnd(&s) | 1;
		if (pthread_create(&mappers[i].thread, NULL, mapper_fn, &mappers[i]))
			return 2;
	}
	mseed = next_rnd(&s) | 1;
	if (pthread_create(&mut, NULL, mutator, &mseed))
		return 2;
	while (__atomic_load_n(&mappers_ready, __ATOMIC_ACQUIRE) < NR_MAPPERS)
		sched_yield();

	nr_events = NR_MAPPERS + (per_cpu ? nr_cpus : 0);
	for (int i = 0; i < nr_events; i++)
		open_event(&events[i], i < NR_MAPPERS ? mappers[i].tid : -1,
			   i < NR_MAPPERS ? -1 : i - NR_MAPPERS, &s);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long round = 0;; round++) {
		struct pollfd pfd[MAX_EVENTS];

		for (int i = 0; i < nr_events; i++) {
			pfd[i].fd = events[i].fd;
			pfd[i].events = POLLIN;
		}
		poll(pfd, nr_events, rnd(&s, 20));
		for (int i = 0; i < nr_events; i++)
			if (events[i].meta)
				drain(&events[i], buf);
		/* Now and then, one event makes way for another. */
		if (rnd(&s, 16) == 0) {
			int i = rnd(&s, nr_events);
			struct event *e = &events[i];

			if (e->fd >= 0) {
				if (e->meta)
					drain(e, buf);
				close_event(e);
			}
			open_event(e, i < NR_MAPPERS ? mappers[i].tid : -1,
				   i < NR_MAPPERS ? -1 : i - NR_MAPPERS, &s);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= (time_t)secs)
			break;
	}
	stop = true;
	for (int i = 0; i < NR_MAPPERS; i++)
		pthread_join(mappers[i].thread, NULL);
	pthread_join(mut, NULL);
	for (int i = 0; i < nr_events; i++) {
		if (events[i].fd < 0)
			continue;
		if (events[i].meta)
			drain(&events[i], buf);
		close_event(&events[i]);
	}

	printf("mmap3-stress: %" PRIu64 " mm calls (mmap %" PRIu64 ", mremap %" PRIu64
	       ", munmap %" PRIu64 ", mprotect %" PRIu64 ", madvise %" PRIu64
	       "; %" PRIu64 " failed), %" PRIu64 " file changes (truncate %" PRIu64
	       ", rewrite %" PRIu64 ", copy %" PRIu64 ", replace %" PRIu64 ")\n",
	       fig.mmap + fig.mremap + fig.munmap + fig.mprotect + fig.madvise,
	       fig.mmap, fig.mremap, fig.munmap, fig.mprotect, fig.madvise,
	       fig.failed, fig.truncate + fig.rewrite + fig.copy + fig.replace,
	       fig.truncate, fig.rewrite, fig.copy, fig.replace);
	printf("mmap3-stress: %" PRIu64 " events opened (%" PRIu64 " refused), %" PRIu64
	       " records checked (MMAP3 %" PRIu64 ", MMAP2 %" PRIu64 ", MMAP %" PRIu64
	       ", LOST %" PRIu64 ", other %" PRIu64 "), %" PRIu64 " bad\n",
	       fig.opened, fig.open_failed, fig.records, fig.mmap3, fig.mmap2,
	       fig.mmap1, fig.lost, fig.others, fig.bad);
	for (int i = 0; i < (int)(sizeof(fig.refused) / sizeof(fig.refused[0])); i++)
		if (fig.refused[i])
			printf("mmap3-stress: perf_event_open refused %" PRIu64 " with %s\n",
			       fig.refused[i], strerror(i));
	free(buf);
	return fig.bad ? 1 : 0;

usage:
	fprintf(stderr, "usage: mmap3-stress [-t SECONDS] [-s SEED] [-c] DIR... (at most %d)\n",
		MAX_DIRS);
	return 2;
}
