// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_MMAP3 carries the build-id of a file whose NT_GNU_BUILD_ID
 * note, or whose program headers, lie beyond the first page of the file.
 *
 * The kernel reads the build-id without faulting: only from pages of the
 * file that are in the page cache and uptodate, but from any of them, not
 * just the first one. The test crafts a minimal ELF file with its note
 * where a variant puts it, reads the whole file so that its pages are
 * cached, maps it executable and compares the build-id of the MMAP3
 * record, and of an MMAP2 record with attr.build_id taken from the same
 * mapping, with the one it wrote.
 */

#define _GNU_SOURCE

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <sys/mman.h>

#include "../kselftest_harness.h"
#include "mmap3.h"

#define FILE_PAGES	3

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ELFDATA_NATIVE	ELFDATA2LSB
#else
#define ELFDATA_NATIVE	ELFDATA2MSB
#endif

/* "GNU\0" and a 20 byte build-id, as the GNU toolchain writes it. */
#define NOTE_SIZE	(sizeof(Elf64_Nhdr) + 4 + BUILD_ID_MAX)

/* PERF_RECORD_MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID set. */
struct mmap2_build_id_record {
	struct perf_event_header	header;
	__u32				pid, tid;
	__u64				addr;
	__u64				len;
	__u64				pgoff;
	__u8				build_id_size;
	__u8				__reserved_1;
	__u16				__reserved_2;
	__u8				build_id[BUILD_ID_MAX];
	__u32				prot, flags;
	char				filename[];
};

FIXTURE(build_id)
{
	char		dir[PATH_MAX];	/* canonical path of the scratch dir */
	char		path[PATH_MAX];	/* the crafted ELF file */
	struct ring	ring[2];	/* MMAP3 and MMAP2 */
	struct records	rec[2];
	__u8		want[BUILD_ID_MAX];
};

/*
 * Where the program headers and the note go: at page * page_size() + off
 * from the start of the file. A negative off counts back from that page.
 */
FIXTURE_VARIANT(build_id)
{
	int	phdr_page;
	int	phdr_off;
	int	note_page;
	int	note_off;
};

/* The usual layout, everything in page 0: what any kernel could read. */
FIXTURE_VARIANT_ADD(build_id, first_page)
{
	.phdr_page	= 0,
	.phdr_off	= sizeof(Elf64_Ehdr),
	.note_page	= 0,
	.note_off	= 256,
};

/* The note two pages in, its program header in page 0. */
FIXTURE_VARIANT_ADD(build_id, third_page)
{
	.phdr_page	= 0,
	.phdr_off	= sizeof(Elf64_Ehdr),
	.note_page	= 2,
	.note_off	= 64,
};

/* The program headers in page 1 and the note in page 2. */
FIXTURE_VARIANT_ADD(build_id, phdrs_beyond_first_page)
{
	.phdr_page	= 1,
	.phdr_off	= 128,
	.note_page	= 2,
	.note_off	= 64,
};

/* The build-id itself straddles pages 1 and 2: 8 bytes in 1, 12 in 2. */
FIXTURE_VARIANT_ADD(build_id, straddling_pages)
{
	.phdr_page	= 0,
	.phdr_off	= sizeof(Elf64_Ehdr),
	.note_page	= 2,
	.note_off	= -(int)(sizeof(Elf64_Nhdr) + 4 + 8),
};

FIXTURE_SETUP(build_id)
{
	for (int i = 0; i < 2; i++)
		self->ring[i].fd = -1;
	if (!mmap3_supported())
		SKIP(return, "attr.mmap3 is EINVAL: this kernel has no PERF_RECORD_MMAP3");
	ASSERT_TRUE(make_scratch_dir("mmap3_build_id", self->dir)) {
		TH_LOG("no directory that allows PROT_EXEC file mappings");
	}
}

FIXTURE_TEARDOWN(build_id)
{
	for (int i = 0; i < 2; i++) {
		ring_close(&self->ring[i]);
		free(self->rec[i].buf);
	}
	if (self->dir[0])
		rm_rf_at(AT_FDCWD, self->dir);
}

/*
 * Write into @img (FILE_PAGES pages) an ELF64 shared object that has
 * nothing but an ELF header, one PT_NOTE program header at @phoff and a
 * GNU build-id note @id at @note_off. Returns false if they overlap or do
 * not fit.
 */
static bool craft_elf(char *img, size_t phoff, size_t note_off,
		      const __u8 *id)
{
	size_t size = FILE_PAGES * page_size();
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + phoff);
	Elf64_Nhdr *nh = (Elf64_Nhdr *)(img + note_off);

	if (phoff < sizeof(*eh) || phoff + sizeof(*ph) > size ||
	    note_off < sizeof(*eh) || note_off + NOTE_SIZE > size ||
	    (phoff < note_off + NOTE_SIZE && note_off < phoff + sizeof(*ph)) ||
	    phoff % 8 || note_off % 4)
		return false;

	memset(img, 0, size);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA_NATIVE;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_NONE;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = phoff;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;

	ph->p_type = PT_NOTE;
	ph->p_flags = PF_R;
	ph->p_offset = note_off;
	ph->p_filesz = NOTE_SIZE;
	ph->p_memsz = NOTE_SIZE;
	ph->p_align = 4;

	nh->n_namesz = 4;
	nh->n_descsz = BUILD_ID_MAX;
	nh->n_type = NT_GNU_BUILD_ID;
	memcpy(nh + 1, "GNU", 4);
	memcpy((char *)(nh + 1) + 4, id, BUILD_ID_MAX);
	return true;
}

static size_t variant_off(int page, int off)
{
	return (size_t)((long)page * (long)page_size() + off);
}

/*
 * Create @dir/crafted.so with its program header at @phoff and a build-id
 * note @want at @note_off, put its path in @path, and read it all back, so
 * that it is cached.
 */
static int __make_elf(struct __test_metadata *_metadata, const char *dir,
		      char *path, size_t phoff, size_t note_off, __u8 *want)
{
	size_t size = FILE_PAGES * page_size();
	char *img = malloc(size), *back = malloc(size);
	int fd, n;

	ASSERT_NE(NULL, img);
	ASSERT_NE(NULL, back);
	/* Different from any build-id this test may have seen before. */
	for (int i = 0; i < BUILD_ID_MAX; i++)
		want[i] = (__u8)(getpid() * 31 + i * 7 + note_off);
	ASSERT_TRUE(craft_elf(img, phoff, note_off, want)) {
		TH_LOG("program header at %zu and note at %zu do not fit",
		       phoff, note_off);
	}
	n = snprintf(path, PATH_MAX, "%s/crafted.so", dir);
	ASSERT_GT(PATH_MAX, n);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0700);
	ASSERT_LE(0, fd) {
		TH_LOG("open %s: %s", path, strerror(errno));
	}
	ASSERT_EQ((ssize_t)size, pwrite(fd, img, size, 0));
	/* The kernel only reads pages that are cached and uptodate. */
	ASSERT_EQ((ssize_t)size, pread(fd, back, size, 0));
	ASSERT_EQ(0, memcmp(img, back, size));
	free(back);
	free(img);
	return fd;
}

TEST_F(build_id, cached_pages)
{
	const struct mmap2_build_id_record *m2;
	const struct mmap3_record *m3;
	struct perf_event_attr attr;
	void *p;
	int fd;

	fd = __make_elf(_metadata, self->dir, self->path,
			variant_off(variant->phdr_page, variant->phdr_off),
			variant_off(variant->note_page, variant->note_off),
			self->want);

	mmap3_attr(&attr);
	attr.build_id = 1;
	ring_open(&self->ring[0], &attr);
	base_attr(&attr);
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.build_id = 1;
	ring_open(&self->ring[1], &attr);
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, ring_enable(&self->ring[i]));
	p = mmap(NULL, FILE_PAGES * page_size(), PROT_READ | PROT_EXEC,
		 MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p) {
		TH_LOG("mmap of %s: %s", self->path, strerror(errno));
	}
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, ring_disable(&self->ring[i]));
		ring_read(&self->ring[i], &self->rec[i]);
	}

	m3 = find_mmap(&self->rec[0], PERF_RECORD_MMAP3, (unsigned long)p);
	ASSERT_NE(NULL, m3) {
		TH_LOG("no PERF_RECORD_MMAP3 at %p", p);
	}
	ASSERT_GE(m3->header.size, sizeof(*m3) + 8);
	ASSERT_EQ(PERF_MMAP3_SIZE_VER0, m3->filename_offset);
	/*
	 * The inode identity is there next to the build-id. mmap3.c compares
	 * it with statx(); on overlayfs the two need not agree, and this test
	 * is about the build-id, so it only checks that there is one.
	 */
	ASSERT_NE(0, m3->ino);
	ASSERT_STREQ(self->path, m3->filename);
	ASSERT_EQ(0, m3->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
	ASSERT_EQ(BUILD_ID_MAX, m3->build_id_size) {
		TH_LOG("note at %zu, program header at %zu: no build-id",
		       variant_off(variant->note_page, variant->note_off),
		       variant_off(variant->phdr_page, variant->phdr_off));
	}
	ASSERT_EQ(0, memcmp(self->want, m3->build_id, BUILD_ID_MAX));

	/* MMAP2 gets the same build-id, from the same single read. */
	m2 = find_mmap(&self->rec[1], PERF_RECORD_MMAP2, (unsigned long)p);
	ASSERT_NE(NULL, m2) {
		TH_LOG("no PERF_RECORD_MMAP2 at %p", p);
	}
	ASSERT_GE(m2->header.size, sizeof(*m2) + 8);
	ASSERT_NE(0, m2->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
	ASSERT_EQ(BUILD_ID_MAX, m2->build_id_size);
	ASSERT_EQ(0, memcmp(self->want, m2->build_id, BUILD_ID_MAX));

	munmap(p, FILE_PAGES * page_size());
	close(fd);
}

TEST_HARNESS_MAIN
