// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_MMAP3: byte swapping, the checks on records read from files
 * and what the session code makes of them: maps and DSO identity, also
 * for records with fields of a later kernel before the filename, next to
 * a record of a type that perf does not know.
 */
#include <byteswap.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <perf/event.h>
#include "build-id.h"
#include "debug.h"
#include "dso.h"
#include "dsos.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "header.h"
#include "machine.h"
#include "map.h"
#include "maps.h"
#include "session.h"
#include "symbol.h"
#include "thread.h"
#include "time-utils.h"
#include "tool.h"
#include "util/data.h"
#include "tests.h"

#define TEST_PID	4321
#define TEST_TID	4322

/* The sample_id_all trailer for PERF_SAMPLE_TID | PERF_SAMPLE_TIME */
#define TEST_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define ID_HDR_SIZE	(2 * sizeof(u64))

struct mmap3_desc {
	u64		start, len, pgoff;
	u32		maj, min;
	u64		ino, ino_generation;
	u32		prot, flags;
	s64		mtime;
	u8		file_flags;
	u8		build_id_size;
	u8		build_id_seed;
	u16		filename_offset;	/* 0 for PERF_MMAP3_SIZE_VER0 */
	const char	*filename;
};

static const struct mmap3_desc mmap3_a = {
	.start = 0x7f0000001000, .len = 0x3000, .pgoff = 0x1000,
	.maj = 8, .min = 1, .ino = 123456, .ino_generation = 7,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
	.mtime = 1700000000123456789LL, .file_flags = PERF_MMAP3_FILE_MTIME,
	.build_id_size = BUILD_ID_SIZE, .build_id_seed = 0xa0,
	.filename = "/usr/lib/perf-test-mmap3.so",
};

/* Same path, rewritten in place: same inode, another mtime and build id */
static const struct mmap3_desc mmap3_b = {
	.start = 0x7f0000011000, .len = 0x2000, .pgoff = 0,
	.maj = 8, .min = 1, .ino = 123456, .ino_generation = 7,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
	.mtime = 1700000999000000001LL, .file_flags = PERF_MMAP3_FILE_MTIME,
	.build_id_size = BUILD_ID_SIZE, .build_id_seed = 0xb0,
	.filename = "/usr/lib/perf-test-mmap3.so",
};

/* The same file as mmap3_a, mapped again */
static const struct mmap3_desc mmap3_c = {
	.start = 0x7f0000021000, .len = 0x3000, .pgoff = 0x1000,
	.maj = 8, .min = 1, .ino = 123456, .ino_generation = 7,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
	.mtime = 1700000000123456789LL, .file_flags = PERF_MMAP3_FILE_MTIME,
	.build_id_size = BUILD_ID_SIZE, .build_id_seed = 0xa0,
	.filename = "/usr/lib/perf-test-mmap3.so",
};

/*
 * No build id, a filename that is exactly 8 bytes with its NUL, an mtime
 * of 1 ns, as package stores give their files.
 */
static const struct mmap3_desc mmap3_d = {
	.start = 0x7f0000031000, .len = 0x1000, .pgoff = 0x4000,
	.maj = 259, .min = 3, .ino = 99, .ino_generation = 0,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_SHARED,
	.mtime = 1, .file_flags = PERF_MMAP3_FILE_MTIME,
	.filename = "/bin/ab",
};

/*
 * As a later kernel would write it: 16 bytes of fields we don't know
 * before the filename, a mapping of a file whose mtime is before the epoch.
 */
#define MMAP3_LATER_FIELDS	0xee
static const struct mmap3_desc mmap3_e = {
	.start = 0x7f0000041000, .len = 0x2000, .pgoff = 0x2000,
	.maj = 8, .min = 2, .ino = 4242, .ino_generation = 1,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
	.mtime = -86400123456789LL, .file_flags = PERF_MMAP3_FILE_MTIME,
	.build_id_size = BUILD_ID_SIZE, .build_id_seed = 0xe0,
	.filename_offset = PERF_MMAP3_SIZE_VER0 + 16,
	.filename = "/usr/lib/perf-test-mmap3-later.so",
};

/*
 * The file of mmap3_d, rewritten in place with an mtime of 0, as
 * reproducible images give their files: a time, not the lack of one.
 */
static const struct mmap3_desc mmap3_f = {
	.start = 0x7f0000051000, .len = 0x1000, .pgoff = 0x4000,
	.maj = 259, .min = 3, .ino = 99, .ino_generation = 0,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_SHARED,
	.mtime = 0, .file_flags = PERF_MMAP3_FILE_MTIME,
	.filename = "/bin/ab",
};

static size_t mmap3__filename_offset(const struct mmap3_desc *d)
{
	return d->filename_offset ?: PERF_MMAP3_SIZE_VER0;
}

static size_t mmap3__size(const struct mmap3_desc *d)
{
	return mmap3__filename_offset(d) + PERF_ALIGN(strlen(d->filename) + 1, sizeof(u64)) +
	       ID_HDR_SIZE;
}

static void mmap3__fill(union perf_event *event, const struct mmap3_desc *d, u64 time)
{
	size_t size = mmap3__size(d);
	size_t offset = mmap3__filename_offset(d);
	struct perf_record_mmap3 *mmap3 = &event->mmap3;
	u32 *tid;
	int i;

	memset(event, 0, size);
	mmap3->header.type = PERF_RECORD_MMAP3;
	mmap3->header.misc = PERF_RECORD_MISC_USER;
	mmap3->header.size = size;
	mmap3->filename_offset = offset;
	mmap3->pid   = TEST_PID;
	mmap3->tid   = TEST_TID;
	mmap3->start = d->start;
	mmap3->len   = d->len;
	mmap3->pgoff = d->pgoff;
	mmap3->maj   = d->maj;
	mmap3->min   = d->min;
	mmap3->ino   = d->ino;
	mmap3->ino_generation = d->ino_generation;
	mmap3->prot  = d->prot;
	mmap3->flags = d->flags;
	mmap3->mtime = d->mtime;
	mmap3->file_flags = d->file_flags;
	mmap3->build_id_size = d->build_id_size;
	for (i = 0; i < d->build_id_size; i++)
		mmap3->build_id[i] = d->build_id_seed + i;
	memset((char *)event + PERF_MMAP3_SIZE_VER0, MMAP3_LATER_FIELDS,
	       offset - PERF_MMAP3_SIZE_VER0);
	memcpy((char *)event + offset, d->filename, strlen(d->filename) + 1);

	/* sample_id: pid, tid, time */
	tid = (void *)event + size - ID_HDR_SIZE;
	tid[0] = TEST_PID;
	tid[1] = TEST_TID;
	*(u64 *)(tid + 2) = time;
}

/* A copy of exactly the event's size, so that ASAN sees reads past its end */
static union perf_event *event__dup(union perf_event *event, size_t size)
{
	return memdup(event, size);
}

static union perf_event *mmap3__new(const struct mmap3_desc *d, u64 time)
{
	union perf_event event;

	mmap3__fill(&event, d, time);
	return event__dup(&event, event.header.size);
}

/*
 * A record as a perf that knows a field added after the first version
 * would read it: the fields of struct perf_record_mmap3, then that one.
 */
struct mmap3_future {
	struct perf_event_header header;
	u32	pid, tid;
	u64	start;
	u64	len;
	u64	pgoff;
	u32	maj;
	u32	min;
	u64	ino;
	u64	ino_generation;
	u32	prot;
	u32	flags;
	s64	mtime;
	u8	build_id_size;
	u8	file_flags;
	u16	filename_offset;
	u8	build_id[BUILD_ID_SIZE];
	u64	future;
	char	filename[];
};

/*
 * The record of d, in the byte order of this machine, has the fields of
 * the first version, and a field of a later version only if its
 * filename_offset is past that field: for a reader that knows it, as
 * for one that doesn't, the filename is at filename_offset.
 */
static int check_fields(union perf_event *event, const struct mmap3_desc *d)
{
	const struct mmap3_future *later = (void *)event;
	bool has_future = mmap3__filename_offset(d) >= PERF_MMAP3_SIZE_VER0 + sizeof(u64);

	BUILD_BUG_ON(offsetof(struct mmap3_future, filename_offset) !=
		     offsetof(struct perf_record_mmap3, filename_offset));
	BUILD_BUG_ON(offsetof(struct mmap3_future, future) != PERF_MMAP3_SIZE_VER0);

	TEST_ASSERT_VAL("no build_id", mmap3_contains(event->mmap3, build_id));
	TEST_ASSERT_VAL("no build_id for a later version", mmap3_contains(*later, build_id));
	TEST_ASSERT_EQUAL("field of a later version", mmap3_contains(*later, future), has_future);
	if (has_future) {
		TEST_ASSERT_VAL("field of a later version, value",
				later->future == 0x0101010101010101ULL * MMAP3_LATER_FIELDS);
	}
	TEST_ASSERT_VAL("filename",
			!strcmp(perf_record_mmap3__filename(&event->mmap3), d->filename));
	return TEST_OK;
}

static int __check_map(struct map *map, const struct mmap3_desc *d, struct dso **dsop)
{
	const struct dso_id *id;
	struct dso *dso;
	int i;

	TEST_ASSERT_VAL("map start", map__start(map) == d->start);
	TEST_ASSERT_VAL("map end", map__end(map) == d->start + d->len);
	TEST_ASSERT_VAL("map pgoff", map__pgoff(map) == d->pgoff);
	TEST_ASSERT_EQUAL("map prot", map__prot(map), d->prot);
	TEST_ASSERT_EQUAL("map flags", map__flags(map), d->flags);

	dso = map__dso(map);
	id = dso__id_const(dso);
	TEST_ASSERT_VAL("dso name", !strcmp(dso__long_name(dso), d->filename));
	TEST_ASSERT_EQUAL("dso maj", id->maj, d->maj);
	TEST_ASSERT_EQUAL("dso min", id->min, d->min);
	TEST_ASSERT_VAL("dso ino", id->ino == d->ino);
	TEST_ASSERT_VAL("dso ino_generation", id->ino_generation == d->ino_generation);
	TEST_ASSERT_VAL("dso mtime", id->mtime == d->mtime);
	TEST_ASSERT_EQUAL("dso mtime valid", id->mtime_valid,
			  !!(d->file_flags & PERF_MMAP3_FILE_MTIME));
	TEST_ASSERT_EQUAL("dso id build id size", (int)id->build_id.size, d->build_id_size);
	TEST_ASSERT_EQUAL("dso has build id", dso__has_build_id(dso), !!d->build_id_size);
	if (d->build_id_size) {
		TEST_ASSERT_EQUAL("dso build id size", (int)dso__bid(dso)->size, d->build_id_size);
		for (i = 0; i < d->build_id_size; i++) {
			TEST_ASSERT_EQUAL("dso build id", dso__bid(dso)->data[i], d->build_id_seed + i);
			TEST_ASSERT_EQUAL("dso id build id", id->build_id.data[i], d->build_id_seed + i);
		}
	}
	/* The thread's maps keep a reference */
	*dsop = dso;
	return TEST_OK;
}

static int check_map(struct thread *thread, const struct mmap3_desc *d, struct dso **dsop)
{
	struct map *map = maps__find(thread__maps(thread), d->start + 0x10);
	int err;

	pr_debug("checking the map of %s at %#" PRIx64 "\n", d->filename, d->start);
	TEST_ASSERT_VAL("no map", map);
	err = __check_map(map, d, dsop);
	map__put(map);
	return err;
}

/*
 * The record as written on a machine of the other endianness, but for its
 * header that the reader swaps: the fields that aren't bytes swapped, the
 * sample_id trailer as u64s, like for all records.
 */
static union perf_event *mmap3__new_swapped(const struct mmap3_desc *d, u64 time)
{
	union perf_event *event = mmap3__new(d, time);
	struct perf_record_mmap3 *e;
	u64 *id;

	if (!event)
		return NULL;
	e = &event->mmap3;
	e->pid	 = bswap_32(e->pid);
	e->tid	 = bswap_32(e->tid);
	e->start = bswap_64(e->start);
	e->len	 = bswap_64(e->len);
	e->pgoff = bswap_64(e->pgoff);
	e->maj	 = bswap_32(e->maj);
	e->min	 = bswap_32(e->min);
	e->ino	 = bswap_64(e->ino);
	e->ino_generation = bswap_64(e->ino_generation);
	e->prot	 = bswap_32(e->prot);
	e->flags = bswap_32(e->flags);
	e->mtime = bswap_64(e->mtime);
	e->filename_offset = bswap_16(e->filename_offset);
	id = (void *)event + event->header.size - ID_HDR_SIZE;
	id[0] = bswap_64(id[0]);
	id[1] = bswap_64(id[1]);
	return event;
}

/*
 * What the session code does with a record from a file of the other
 * endianness: check it, swap it and process it.
 */
static int mmap3_swap_check(const struct mmap3_desc *d, struct machine *machine)
{
	union perf_event *orig = mmap3__new(d, 0x0102030405060708ULL);
	union perf_event *event = mmap3__new_swapped(d, 0x0102030405060708ULL);
	struct perf_sample sample = { .cpumode = PERF_RECORD_MISC_USER, };
	struct perf_record_mmap3 *o, *e;
	struct thread *thread;
	struct dso *dso;
	char msg[128];
	int err;

	pr_debug("swapping the MMAP3 of %s, filename_offset %zu\n",
		 d->filename, mmap3__filename_offset(d));
	TEST_ASSERT_VAL("can't allocate event", orig && event);

	err = perf_event__check_mmap3(event, ID_HDR_SIZE, true, msg, sizeof(msg));
	if (err)
		pr_debug("rejected: %s\n", msg);
	TEST_ASSERT_VAL("swapped record rejected", !err);

	perf_event__swap(event, true);
	o = &orig->mmap3;
	e = &event->mmap3;
	TEST_ASSERT_VAL("header", !memcmp(&e->header, &o->header, sizeof(o->header)));
	TEST_ASSERT_EQUAL("pid", e->pid, o->pid);
	TEST_ASSERT_EQUAL("tid", e->tid, o->tid);
	TEST_ASSERT_VAL("start", e->start == o->start);
	TEST_ASSERT_VAL("len", e->len == o->len);
	TEST_ASSERT_VAL("pgoff", e->pgoff == o->pgoff);
	TEST_ASSERT_EQUAL("maj", e->maj, o->maj);
	TEST_ASSERT_EQUAL("min", e->min, o->min);
	TEST_ASSERT_VAL("ino", e->ino == o->ino);
	TEST_ASSERT_VAL("ino_generation", e->ino_generation == o->ino_generation);
	TEST_ASSERT_EQUAL("prot", e->prot, o->prot);
	TEST_ASSERT_EQUAL("flags", e->flags, o->flags);
	TEST_ASSERT_VAL("mtime", e->mtime == o->mtime);
	TEST_ASSERT_EQUAL("file_flags", e->file_flags, o->file_flags);
	TEST_ASSERT_EQUAL("filename_offset", e->filename_offset, o->filename_offset);
	/* The bytes, the fields we don't know, the filename and the sample_id */
	TEST_ASSERT_VAL("record", !memcmp(event, orig, orig->header.size));
	TEST_ASSERT_VAL("fields", !check_fields(event, d));

	machine__process_mmap3_event(machine, event, &sample);
	free(event);
	free(orig);

	thread = machine__find_thread(machine, TEST_PID, TEST_TID);
	TEST_ASSERT_VAL("no thread for the MMAP3 event", thread);
	err = check_map(thread, d, &dso);
	thread__put(thread);
	return err;
}

static int test__mmap3_swap(struct test_suite *test __maybe_unused,
			    int subtest __maybe_unused)
{
	struct machines machines;
	int err;

	machines__init(&machines);
	err = mmap3_swap_check(&mmap3_a, &machines.host);
	if (!err)
		err = mmap3_swap_check(&mmap3_e, &machines.host);
	machine__delete_threads(&machines.host);
	machines__exit(&machines);
	return err;
}

/*
 * An MMAP2 record with PERF_RECORD_MISC_MMAP_BUILD_ID has the build id
 * where the device and inode numbers are otherwise: its DSO gets the build
 * id, in its id too, and no device or inode numbers made of build id bytes.
 */
static int test__mmap2_build_id(struct test_suite *test __maybe_unused,
				int subtest __maybe_unused)
{
	const char *filename = "/usr/lib/libmmap2bid.so";
	struct perf_sample sample = { .cpumode = PERF_RECORD_MISC_USER, };
	size_t size = PERF_ALIGN(offsetof(struct perf_record_mmap2, filename) +
				 strlen(filename) + 1, sizeof(u64));
	union perf_event *event = zalloc(size);
	struct machines machines;
	struct thread *thread;
	const struct dso_id *id;
	struct map *map = NULL;
	struct dso *dso;
	int err = TEST_FAIL, i;

	TEST_ASSERT_VAL("can't allocate event", event);
	event->header.type = PERF_RECORD_MMAP2;
	event->header.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
	event->header.size = size;
	event->mmap2.pid   = TEST_PID;
	event->mmap2.tid   = TEST_TID;
	event->mmap2.start = 0x7f0000100000;
	event->mmap2.len   = 0x2000;
	event->mmap2.prot  = PROT_READ | PROT_EXEC;
	event->mmap2.flags = MAP_PRIVATE;
	event->mmap2.build_id_size = BUILD_ID_SIZE;
	for (i = 0; i < BUILD_ID_SIZE; i++)
		event->mmap2.build_id[i] = 0xa0 + i;
	memcpy(event->mmap2.filename, filename, strlen(filename) + 1);

	machines__init(&machines);
	machine__process_mmap2_event(&machines.host, event, &sample);
	thread = machine__find_thread(&machines.host, TEST_PID, TEST_TID);
	map = thread ? maps__find(thread__maps(thread), event->mmap2.start + 0x10) : NULL;
	if (!map) {
		pr_debug("no map for the MMAP2 event\n");
		goto out;
	}
	dso = map__dso(map);
	id = dso__id_const(dso);
	pr_debug("%s: %x:%x %" PRIu64 " generation %" PRIu64 ", build id size %d\n",
		 dso__long_name(dso), id->maj, id->min, id->ino,
		 id->ino_generation, dso__bid(dso)->size);
	if (id->maj || id->min || id->ino || id->ino_generation) {
		pr_debug("FAILED: build id bytes taken for the device and inode numbers\n");
		goto out;
	}
	if (!dso__has_build_id(dso) || dso__bid(dso)->size != BUILD_ID_SIZE ||
	    memcmp(dso__bid(dso)->data, event->mmap2.build_id, BUILD_ID_SIZE) ||
	    id->build_id.size != BUILD_ID_SIZE ||
	    memcmp(id->build_id.data, event->mmap2.build_id, BUILD_ID_SIZE)) {
		pr_debug("FAILED: the DSO doesn't have the recorded build id\n");
		goto out;
	}
	err = TEST_OK;
out:
	map__put(map);
	thread__put(thread);
	machine__delete_threads(&machines.host);
	machines__exit(&machines);
	free(event);
	return err;
}

/* The DSO of the map at addr of thread tid of pid, with a reference */
static struct dso *dso_at(struct machine *machine, pid_t pid, pid_t tid, u64 addr)
{
	struct thread *thread = machine__find_thread(machine, pid, tid);
	struct map *map = thread ? maps__find(thread__maps(thread), addr) : NULL;
	struct dso *dso = map ? dso__get(map__dso(map)) : NULL;

	map__put(map);
	thread__put(thread);
	return dso;
}

/*
 * perf record synthesizes the mmap events of the processes that run when
 * it starts from /proc/PID/maps, with an ino_generation of 0, as there is
 * none there; the kernel's events for the same file have the inode's. A
 * file without a build id mapped by a process that ran before the
 * recording and by one started during it is one DSO, from MMAP2 events as
 * from MMAP3 ones.
 */
static int test__mmap_no_generation(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	static const char * const filename[] = {
		"/opt/perf-test-mmap2-nobid.so", "/opt/perf-test-mmap3-nobid.so",
	};
	struct perf_sample sample = { .cpumode = PERF_RECORD_MISC_USER, };
	const u64 start = 0x7f0000200000;
	struct machines machines;
	int err = TEST_OK;

	machines__init(&machines);
	for (int mmap3 = 0; mmap3 <= 1 && err == TEST_OK; mmap3++) {
		struct dso *dso[2];

		/*
		 * Process TEST_PID + gen, thread TEST_TID + gen: the synthesized
		 * record first, then the kernel's.
		 */
		for (int gen = 0; gen <= 1; gen++) {
			union perf_event event;

			if (mmap3) {
				struct mmap3_desc d = {
					.start = start, .len = 0x1000,
					.maj = 8, .min = 3, .ino = 5150,
					.ino_generation = gen ? 0x5eed : 0,
					.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
					.mtime = 1700000000LL, .file_flags = PERF_MMAP3_FILE_MTIME,
					.filename = filename[1],
				};

				mmap3__fill(&event, &d, 0);
				event.mmap3.pid = TEST_PID + gen;
				event.mmap3.tid = TEST_TID + gen;
				machine__process_mmap3_event(&machines.host, &event, &sample);
			} else {
				memset(&event, 0, sizeof(event.mmap2));
				event.header.type = PERF_RECORD_MMAP2;
				event.header.misc = PERF_RECORD_MISC_USER;
				event.header.size = PERF_ALIGN(offsetof(struct perf_record_mmap2, filename) +
							       strlen(filename[0]) + 1, sizeof(u64));
				event.mmap2.pid = TEST_PID + gen;
				event.mmap2.tid = TEST_TID + gen;
				event.mmap2.start = start;
				event.mmap2.len = 0x1000;
				event.mmap2.maj = 8;
				event.mmap2.min = 3;
				event.mmap2.ino = 5150;
				event.mmap2.ino_generation = gen ? 0x5eed : 0;
				event.mmap2.prot = PROT_READ | PROT_EXEC;
				event.mmap2.flags = MAP_PRIVATE;
				strcpy(event.mmap2.filename, filename[0]);
				machine__process_mmap2_event(&machines.host, &event, &sample);
			}
			dso[gen] = dso_at(&machines.host, TEST_PID + gen, TEST_TID + gen, start);
		}
		if (!dso[0] || !dso[1]) {
			pr_debug("no map for the MMAP%d events\n", mmap3 ? 3 : 2);
			err = TEST_FAIL;
		} else if (!RC_CHK_EQUAL(dso[0], dso[1])) {
			pr_debug("MMAP%d: two DSOs for %s, one per generation\n",
				 mmap3 ? 3 : 2, filename[mmap3]);
			err = TEST_FAIL;
		}
		dso__put(dso[0]);
		dso__put(dso[1]);
	}
	machine__delete_threads(&machines.host);
	machines__exit(&machines);
	return err;
}

/* The kinds of malformed records perf_event__check_mmap3() catches */
enum mmap3_bad {
	MMAP3_BAD_SHORT,		/* header.size doesn't even cover the fixed part */
	MMAP3_BAD_BUILD_ID_SIZE,
	MMAP3_BAD_NO_NUL,		/* no NUL up to the end, the sample_id included */
	MMAP3_BAD_OFFSET_SMALL,		/* filename_offset in the fields of the first version */
	MMAP3_BAD_OFFSET_SMALL_ALIGNED,	/* same, but a multiple of 8 */
	MMAP3_BAD_OFFSET_UNALIGNED,	/* filename_offset not a multiple of 8 */
	MMAP3_BAD_OFFSET_SAMPLE_ID,	/* filename_offset in the sample_id */
	MMAP3_BAD_OFFSET_PAST_END,	/* filename_offset past the end of the record */
	MMAP3_BAD_NR,
};

/* What perf_event__check_mmap3() finds wrong with them */
static const char * const mmap3_bad_reasons[MMAP3_BAD_NR] = {
	[MMAP3_BAD_SHORT]		 = "header.size 96 is smaller than",
	[MMAP3_BAD_BUILD_ID_SIZE]	 = "build_id_size 21 is larger than 20",
	[MMAP3_BAD_NO_NUL]		 = "not NUL terminated",
	[MMAP3_BAD_OFFSET_SMALL]	 = "filename_offset 100 is smaller than the 104 bytes",
	[MMAP3_BAD_OFFSET_SMALL_ALIGNED] = "filename_offset 96 is smaller than the 104 bytes",
	[MMAP3_BAD_OFFSET_UNALIGNED]	 = "filename_offset 108 is not a multiple of 8",
	[MMAP3_BAD_OFFSET_SAMPLE_ID]	 = "leaves no room",
	[MMAP3_BAD_OFFSET_PAST_END]	 = "leaves no room",
};

/* A malformed version of mmap3_d, mapping what it maps at this address */
static u64 mmap3__bad_start(enum mmap3_bad kind)
{
	return mmap3_d.start + (kind + 1) * 0x100000;
}

static union perf_event *mmap3__new_bad(enum mmap3_bad kind)
{
	union perf_event event;
	size_t size;

	mmap3__fill(&event, &mmap3_d, 1);
	event.mmap3.start = mmap3__bad_start(kind);
	size = event.header.size;

	switch (kind) {
	case MMAP3_BAD_SHORT:
		event.header.size = PERF_MMAP3_SIZE_VER0 - 8;
		size = event.header.size;
		break;
	case MMAP3_BAD_BUILD_ID_SIZE:
		event.mmap3.build_id_size = BUILD_ID_SIZE + 1;
		break;
	case MMAP3_BAD_NO_NUL:
		memset((char *)&event + PERF_MMAP3_SIZE_VER0, 'A',
		       event.header.size - PERF_MMAP3_SIZE_VER0);
		break;
	case MMAP3_BAD_OFFSET_SMALL:
		/* In the build id, all zeros: "" if it was taken */
		event.mmap3.filename_offset = PERF_MMAP3_SIZE_VER0 - 4;
		break;
	case MMAP3_BAD_OFFSET_SMALL_ALIGNED:
		event.mmap3.filename_offset = PERF_MMAP3_SIZE_VER0 - 8;
		break;
	case MMAP3_BAD_OFFSET_UNALIGNED:
		/* In the filename, "/ab" if it was taken */
		event.mmap3.filename_offset = PERF_MMAP3_SIZE_VER0 + 4;
		break;
	case MMAP3_BAD_OFFSET_SAMPLE_ID:
		/* Whose pid has a zero byte */
		event.mmap3.filename_offset = event.header.size - ID_HDR_SIZE;
		break;
	case MMAP3_BAD_OFFSET_PAST_END:
		event.mmap3.filename_offset = event.header.size + 8;
		break;
	case MMAP3_BAD_NR:
	default:
		break;
	}
	return event__dup(&event, size);
}

static int test__mmap3_check(struct test_suite *test __maybe_unused,
			     int subtest __maybe_unused)
{
	const struct mmap3_desc *good[] = { &mmap3_a, &mmap3_d, &mmap3_e, };
	union perf_event *event;
	enum mmap3_bad kind;
	char msg[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		event = mmap3__new(good[i], 1);
		TEST_ASSERT_VAL("can't allocate event", event);
		TEST_ASSERT_VAL("good record rejected",
				!perf_event__check_mmap3(event, ID_HDR_SIZE, false, msg, sizeof(msg)));
		TEST_ASSERT_VAL("fields", !check_fields(event, good[i]));
		free(event);
	}

	event = mmap3__new(&mmap3_d, 1);
	TEST_ASSERT_VAL("can't allocate event", event);
	/* Without room for the trailer, the NUL is in what would be the trailer */
	TEST_ASSERT_VAL("record with a larger sample_id accepted",
			perf_event__check_mmap3(event, ID_HDR_SIZE + 8, false, msg, sizeof(msg)));
	free(event);

	for (kind = 0; kind < MMAP3_BAD_NR; kind++) {
		event = mmap3__new_bad(kind);
		TEST_ASSERT_VAL("can't allocate event", event);
		TEST_ASSERT_VAL("malformed record accepted",
				perf_event__check_mmap3(event, ID_HDR_SIZE, false,
							msg, sizeof(msg)) == -EINVAL);
		pr_debug("malformed %d: %s\n", kind, msg);
		TEST_ASSERT_VAL("malformed record, not for what is wrong with it",
				strstr(msg, mmap3_bad_reasons[kind]));
		/*
		 * Whatever the record, swapping it stays in it, and the check
		 * of the swapped one, as if from a file of the other
		 * endianness, finds what is wrong with it.
		 */
		if (event->header.size >= PERF_MMAP3_SIZE_VER0)
			perf_event__swap(event, true);
		TEST_ASSERT_VAL("swapped malformed record accepted",
				perf_event__check_mmap3(event, ID_HDR_SIZE, true,
							msg, sizeof(msg)) == -EINVAL);
		pr_debug("swapped malformed %d: %s\n", kind, msg);
		TEST_ASSERT_VAL("swapped malformed record, not for what is wrong with it",
				strstr(msg, mmap3_bad_reasons[kind]));
		free(event);
	}
	return TEST_OK;
}

static int write_event(int fd, union perf_event *event, u64 *size)
{
	ssize_t ret;

	if (!event)
		return -1;

	ret = write(fd, event, event->header.size);
	if (ret < 0) {
		free(event);
		return -1;
	}
	*size += ret;
	free(event);
	return 0;
}

/*
 * A record of a type that no kernel has yet, as a newer kernel would
 * write one: perf skips it by its size and counts it.
 */
#define TEST_RECORD_UNKNOWN	62

static union perf_event *unknown__new(u64 time)
{
	struct {
		struct perf_event_header header;
		u64	payload[3];
		u32	pid, tid;
		u64	time;
	} rec = {
		.header = {
			.type = TEST_RECORD_UNKNOWN,
			.misc = PERF_RECORD_MISC_USER,
			.size = sizeof(rec),
		},
		.payload = { 1, 2, 3, },
		.pid = TEST_PID,
		.tid = TEST_TID,
		.time = time,
	};

	return memdup(&rec, sizeof(rec));
}

static int session_write(const char *path)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_SOFTWARE,
		.config		= PERF_COUNT_SW_CPU_CLOCK,
		.size		= sizeof(attr),
		.sample_period	= 1,
		.sample_type	= TEST_SAMPLE_TYPE,
		.sample_id_all	= 1,
		.mmap		= 1,
		.mmap3		= 1,
	};
	struct perf_data data = {
		.path = path,
		.mode = PERF_DATA_MODE_WRITE,
	};
	struct perf_session *session;
	struct evsel *evsel;
	enum mmap3_bad kind;
	u64 size = 0;
	int fd, err = -1;

	session = perf_session__new(&data, NULL);
	TEST_ASSERT_VAL("can't get session", !IS_ERR(session));

	session->evlist = evlist__new();
	evsel = evsel__new(&attr);
	if (!session->evlist || !evsel)
		goto out;
	evlist__add(session->evlist, evsel);

	fd = perf_data__fd(&data);
	if (perf_session__write_header(session, session->evlist, fd, false))
		goto out;

	if (write_event(fd, unknown__new(5), &size) ||
	    write_event(fd, mmap3__new(&mmap3_a, 10), &size) ||
	    write_event(fd, mmap3__new(&mmap3_b, 20), &size) ||
	    write_event(fd, mmap3__new(&mmap3_c, 30), &size) ||
	    write_event(fd, mmap3__new(&mmap3_d, 40), &size) ||
	    write_event(fd, mmap3__new(&mmap3_e, 50), &size) ||
	    write_event(fd, mmap3__new(&mmap3_f, 60), &size))
		goto out;

	for (kind = 0; kind < MMAP3_BAD_NR; kind++) {
		if (write_event(fd, mmap3__new_bad(kind), &size))
			goto out;
	}

	session->header.data_size = size;
	err = perf_session__write_header(session, session->evlist, fd, true);
out:
	evlist__put(session->evlist);
	perf_session__delete(session);
	return err;
}

static int session_check(const char *path)
{
	struct perf_tool tool;
	struct perf_data data = {
		.path = path,
		.mode = PERF_DATA_MODE_READ,
	};
	struct dso *dso_a, *dso_b, *dso_c, *dso_d, *dso_e, *dso_f;
	struct perf_session *session;
	struct events_stats *stats;
	struct thread *thread;
	enum mmap3_bad kind;
	int err = TEST_FAIL;

	perf_tool__init(&tool, /*ordered_events=*/false);
	tool.mmap3 = perf_event__process_mmap3;

	session = perf_session__new(&data, &tool);
	TEST_ASSERT_VAL("can't get session", !IS_ERR(session));
	if (perf_session__process_events(session))
		goto out;

	stats = evlist__stats(session->evlist);
	pr_debug("MMAP3 events: %u, malformed: %u, of unknown types: %u\n",
		 stats->nr_events[PERF_RECORD_MMAP3], stats->nr_malformed_events,
		 stats->nr_unknown_events);
	if (stats->nr_unknown_events != 1) {
		pr_debug("expected 1 record of an unknown type, skipped\n");
		goto out;
	}
	if (stats->nr_events[PERF_RECORD_MMAP3] != 6 + MMAP3_BAD_NR ||
	    stats->nr_malformed_events != MMAP3_BAD_NR) {
		pr_debug("expected %d MMAP3 events, %d malformed\n", 6 + MMAP3_BAD_NR,
			 MMAP3_BAD_NR);
		goto out;
	}

	thread = machine__find_thread(&session->machines.host, TEST_PID, TEST_TID);
	if (!thread) {
		pr_debug("no thread for the MMAP3 events\n");
		goto out;
	}

	if (check_map(thread, &mmap3_a, &dso_a) ||
	    check_map(thread, &mmap3_b, &dso_b) ||
	    check_map(thread, &mmap3_c, &dso_c) ||
	    check_map(thread, &mmap3_d, &dso_d) ||
	    check_map(thread, &mmap3_e, &dso_e) ||
	    check_map(thread, &mmap3_f, &dso_f))
		goto out_put;

	if (RC_CHK_EQUAL(dso_a, dso_b)) {
		pr_debug("a file rewritten in place is a new DSO\n");
		goto out_put;
	}
	if (!RC_CHK_EQUAL(dso_a, dso_c)) {
		pr_debug("the same file mapped twice is one DSO\n");
		goto out_put;
	}

	if (RC_CHK_EQUAL(dso_e, dso_a) || RC_CHK_EQUAL(dso_e, dso_d)) {
		pr_debug("the file of the MMAP3 with later fields has its own DSO\n");
		goto out_put;
	}

	if (RC_CHK_EQUAL(dso_f, dso_d)) {
		pr_debug("a file rewritten in place with an mtime of 0 is a new DSO\n");
		goto out_put;
	}

	/* The malformed ones were skipped */
	for (kind = 0; kind < MMAP3_BAD_NR; kind++) {
		struct map *map = maps__find(thread__maps(thread), mmap3__bad_start(kind) + 0x10);

		if (map) {
			pr_debug("the malformed MMAP3 %d made a map\n", kind);
			map__put(map);
			goto out_put;
		}
	}
	err = TEST_OK;
out_put:
	thread__put(thread);
out:
	perf_session__delete(session);
	return err;
}

static int test__mmap3_session(struct test_suite *test __maybe_unused,
			       int subtest __maybe_unused)
{
	char path[] = "/tmp/perf-test-mmap3-XXXXXX";
	int fd, err;

	fd = mkstemp(path);
	if (fd < 0) {
		pr_debug("mkstemp failed: %m\n");
		return TEST_FAIL;
	}
	close(fd);

	err = session_write(path);
	if (!err)
		err = session_check(path);
	else
		pr_debug("can't write %s\n", path);

	unlink(path);
	return err;
}

/* What dso__fprintf_changed() says at verbosity level v */
static char *fprintf_changed(struct dso *dso, int v, size_t *size)
{
	int saved_verbose = verbose;
	char *buf = NULL;
	FILE *fp;

	fp = open_memstream(&buf, size);
	if (!fp)
		return NULL;
	verbose = v;
	dso__fprintf_changed(dso, fp, "");
	verbose = saved_verbose;
	fclose(fp);
	return buf;
}

/* For file_changed_check(): recorded without an mtime, as MMAP2 records are */
#define RECORDED_NO_MTIME	BIT(7)

/*
 * A DSO whose recorded identity is the one of the file at path, but for
 * what is in differs, checked against that file: dso__file_changed() must
 * find exactly that, and its warning must name it. A device that differs
 * alone is not a change: on btrfs and overlayfs stat() gives another one
 * than the recorded superblock's. Nor is an mtime that differs when none
 * was recorded. The file's mtime is 1 ns after the epoch, one that differs
 * is 0: a time like any other.
 */
static int file_changed_check(const char *path, const struct stat *st, u8 differs,
			      const char *names)
{
	struct dso *dso = dso__new(path);
	const struct dso_id *disk_id;
	struct dso_id *id;
	char *buf = NULL, expected[128];
	size_t size = 0;
	int err = TEST_FAIL;
	bool changed;

	TEST_ASSERT_VAL("dso__new", dso);
	id = dso__id(dso);
	id->maj   = major(st->st_dev);
	id->min   = minor(st->st_dev);
	id->ino   = st->st_ino;
	id->mmap2_valid = true;
	id->mtime = timespec__to_ns(&st->st_mtim, NULL);
	id->mtime_valid = !(differs & RECORDED_NO_MTIME);
	if (differs & DSO_DIFFERS__DEV)
		id->min ^= 1;
	if (differs & DSO_DIFFERS__INO)
		id->ino++;
	if (differs & DSO_DIFFERS__MTIME)
		id->mtime--;

	changed = dso__file_changed(dso, path);
	pr_debug("recorded %x:%x %" PRIu64 " mtime %" PRId64 "%s, differs %#x: %s, %#x\n",
		 id->maj, id->min, id->ino, id->mtime, id->mtime_valid ? "" : " (none)",
		 differs, changed ? "changed" : "not changed", dso__disk_differs(dso));
	if (!id->mtime_valid)
		differs &= ~DSO_DIFFERS__MTIME;
	differs &= ~RECORDED_NO_MTIME;
	if (!(differs & (DSO_DIFFERS__INO | DSO_DIFFERS__MTIME)))
		differs = 0;
	if (changed != !!differs || dso__disk_differs(dso) != differs) {
		pr_debug("FAILED: expected %#x to be found to differ\n", differs);
		goto out;
	}
	if (!changed) {
		err = TEST_OK;
		goto out;
	}

	/* What is on disk, in the encoding of the records */
	disk_id = dso__disk_id(dso);
	if (disk_id->maj != major(st->st_dev) || disk_id->min != minor(st->st_dev) ||
	    disk_id->ino != st->st_ino) {
		pr_debug("FAILED: the device or inode numbers of the file on disk are wrong\n");
		goto out;
	}

	/* One line, that names the file and what differs */
	buf = fprintf_changed(dso, 0, &size);
	pr_debug("%s", buf ?: "");
	snprintf(expected, sizeof(expected), "WARNING: %s changed after it was profiled (differs: %s): ",
		 path, names);
	if (!buf || strncmp(buf, expected, strlen(expected)) || strchr(buf, '\n') != buf + size - 1) {
		pr_debug("FAILED: the warning isn't one line that says that %s differ\n", names);
		goto out;
	}

	/* With -v, the mtimes follow, in UTC, 0 being one */
	free(buf);
	buf = fprintf_changed(dso, 1, &size);
	pr_debug("%s", buf ?: "");
	snprintf(expected, sizeof(expected), "\n  recorded: mtime %s, inode ",
		 !id->mtime_valid ? "unknown" :
		 differs & DSO_DIFFERS__MTIME ? "1970-01-01 00:00:00.000000000 UTC" :
						"1970-01-01 00:00:00.000000001 UTC");
	if (!buf || !strstr(buf, expected) ||
	    !strstr(buf, "\n  now:      mtime 1970-01-01 00:00:00.000000001 UTC, inode ")) {
		pr_debug("FAILED: -v doesn't say the recorded and the current mtime, in UTC\n");
		goto out;
	}
	err = TEST_OK;
out:
	free(buf);
	dso__put(dso);
	return err;
}

/*
 * The file at path, an ELF file with a build id, recorded with its inode
 * and mtime and bid: with another build id than its own, as after a
 * 'cp -p' of another build over the profiled file, it is another file.
 */
static int file_changed_build_id_check(const char *path, const struct stat *st,
				       struct build_id *bid, bool differs)
{
	struct dso *dso = dso__new(path);
	struct dso_id *id;
	bool changed;
	u8 expected = differs ? DSO_DIFFERS__BUILD_ID : 0;

	TEST_ASSERT_VAL("dso__new", dso);
	id = dso__id(dso);
	id->maj = major(st->st_dev);
	id->min = minor(st->st_dev);
	id->ino = st->st_ino;
	id->mmap2_valid = true;
	id->mtime = timespec__to_ns(&st->st_mtim, NULL);
	id->mtime_valid = true;
	dso__set_build_id(dso, bid);

	changed = dso__file_changed(dso, path);
	pr_debug("%s, with %s build id: %s, %#x\n", path, differs ? "another" : "its",
		 changed ? "changed" : "not changed", dso__disk_differs(dso));
	if (changed != differs || dso__disk_differs(dso) != expected) {
		pr_debug("FAILED: the build id doesn't have the last word\n");
		dso__put(dso);
		return TEST_FAIL;
	}
	dso__put(dso);
	return TEST_OK;
}

static int test__mmap3_file_changed(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	char path[] = "/tmp/perf-test-mmap3-XXXXXX";
	/* 1 ns after the epoch, as package stores have it */
	const struct timespec mtime[2] = { { .tv_nsec = 1, }, { .tv_nsec = 1, }, };
	char exe[PATH_MAX];
	struct build_id bid;
	struct stat st;
	int fd, err = TEST_FAIL;
	ssize_t len;

	fd = mkstemp(path);
	if (fd < 0) {
		pr_debug("mkstemp failed: %m\n");
		return TEST_FAIL;
	}
	if (futimens(fd, mtime) < 0 || fstat(fd, &st) < 0) {
		pr_debug("setting the mtime of %s failed: %m\n", path);
		close(fd);
		goto out;
	}
	close(fd);

	if (file_changed_check(path, &st, 0, "") ||
	    file_changed_check(path, &st, DSO_DIFFERS__DEV, "") ||
	    file_changed_check(path, &st, DSO_DIFFERS__INO, "inode") ||
	    file_changed_check(path, &st, DSO_DIFFERS__MTIME, "mtime") ||
	    file_changed_check(path, &st, DSO_DIFFERS__DEV | DSO_DIFFERS__MTIME,
			       "device, mtime") ||
	    file_changed_check(path, &st, DSO_DIFFERS__DEV | DSO_DIFFERS__INO | DSO_DIFFERS__MTIME,
			       "device, inode, mtime") ||
	    file_changed_check(path, &st, RECORDED_NO_MTIME | DSO_DIFFERS__MTIME, "") ||
	    file_changed_check(path, &st, RECORDED_NO_MTIME | DSO_DIFFERS__INO, "inode"))
		goto out;

	/* perf, that has a build id, as the file whose inode and mtime were recorded */
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0) {
		pr_debug("readlink /proc/self/exe failed: %m\n");
		goto out;
	}
	exe[len] = '\0';
	if (stat(exe, &st) < 0 || filename__read_build_id(exe, &bid) <= 0) {
		pr_debug("no build id in %s, not checking a file copied with 'cp -p'\n", exe);
	} else {
		if (file_changed_build_id_check(exe, &st, &bid, false))
			goto out;
		bid.data[0] ^= 0xff;
		if (file_changed_build_id_check(exe, &st, &bid, true))
			goto out;
	}
	err = TEST_OK;
out:
	unlink(path);
	return err;
}

/* How perf_event__fprintf_mmap3(), for -D and perf script, shows the mtime of d */
static int mtime_print_check(const struct mmap3_desc *d, const char *expected)
{
	union perf_event *event = mmap3__new(d, 1);
	char *buf = NULL;
	size_t size = 0;
	bool found;
	FILE *fp;

	TEST_ASSERT_VAL("can't allocate event", event);
	fp = open_memstream(&buf, &size);
	if (fp) {
		perf_event__fprintf_mmap3(event, fp);
		fclose(fp);
	}
	free(event);
	pr_debug("%s", buf ?: "");
	found = buf && strstr(buf, expected);
	free(buf);
	TEST_ASSERT_VAL("mtime not shown as expected", found);
	return TEST_OK;
}

/*
 * An mtime, 0 too, is valid with PERF_MMAP3_FILE_MTIME, and one beyond
 * what 64 bits of ns hold is saturated, as the kernel does, for the
 * records perf synthesizes and for the files found on disk, and flagged.
 */
static int test__mmap3_mtime(struct test_suite *test __maybe_unused,
			     int subtest __maybe_unused)
{
	static const struct {
		s64	sec;
		long	nsec;
		s64	ns;
		bool	saturated;
	} times[] = {
		{ 0, 0, 0, false, },
		{ 0, 1, 1, false, },
		{ -1, 999999999, -1, false, },
		/* The kernel's KTIME_SEC_MAX and KTIME_SEC_MIN saturate */
		{ 9223372035, 999999999, 9223372035999999999LL, false, },
		{ 9223372036, 0, INT64_MAX, true, },
		{ -9223372035, 0, -9223372035000000000LL, false, },
		{ -9223372036, 0, INT64_MIN, true, },
		/* 9999-12-31 */
		{ 253402300799, 0, INT64_MAX, true, },
	};
	struct mmap3_desc none = mmap3_d, saturated = mmap3_d;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(times); i++) {
		struct timespec ts = {
			.tv_sec = (time_t)times[i].sec,
			.tv_nsec = times[i].nsec,
		};
		bool sat;
		s64 ns;

		/* Beyond a 32-bit time_t */
		if (ts.tv_sec != times[i].sec)
			continue;
		ns = timespec__to_ns(&ts, &sat);
		pr_debug("%" PRId64 " s %ld ns: %" PRId64 " ns%s\n", times[i].sec, times[i].nsec,
			 ns, sat ? ", saturated" : "");
		TEST_ASSERT_VAL("mtime in ns", ns == times[i].ns);
		TEST_ASSERT_EQUAL("mtime saturated", sat, times[i].saturated);
	}

	none.mtime = 0;
	none.file_flags = 0;
	saturated.mtime = INT64_MAX;
	saturated.file_flags = PERF_MMAP3_FILE_MTIME | PERF_MMAP3_FILE_MTIME_SATURATED;
	if (mtime_print_check(&mmap3_d, " mtime 1 (1970-01-01 00:00:00.000000001 UTC)]") ||
	    mtime_print_check(&mmap3_f, " mtime 0 (1970-01-01 00:00:00.000000000 UTC)]") ||
	    mtime_print_check(&none, " mtime 0 (none)]") ||
	    mtime_print_check(&saturated,
			      " mtime 9223372036854775807 (2262-04-11 23:47:16.854775807 UTC, saturated)]"))
		return TEST_FAIL;
	return TEST_OK;
}

/*
 * One file, by name, device and inode, as three DSOs: A and C with two
 * different mtimes, B with none. B's id matches both, which don't match
 * each other, so matching is no order that DSOs could be sorted and
 * searched by. In whatever order they were added, each is found by its own
 * id, and no fourth DSO is made.
 */
static int test__dso_id_order(struct test_suite *test __maybe_unused,
			      int subtest __maybe_unused)
{
	static const char name[] = "/usr/lib/perf-test-dso-id.so";
	static const int orders[][3] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 },
	};
	struct dso_id ids[3] = {
		{ .maj = 8, .min = 1, .ino = 42, .mmap2_valid = true,
		  .mtime = 1000, .mtime_valid = true, },
		{ .maj = 8, .min = 1, .ino = 42, .mmap2_valid = true, },
		{ .maj = 8, .min = 1, .ino = 42, .mmap2_valid = true,
		  .mtime = 2000, .mtime_valid = true, },
	};
	int err = TEST_OK;
	size_t o;
	int i;

	TEST_ASSERT_VAL("B does not match A", dso_id__match(&ids[1], &ids[0]));
	TEST_ASSERT_VAL("B does not match C", dso_id__match(&ids[1], &ids[2]));
	TEST_ASSERT_VAL("A matches C", !dso_id__match(&ids[0], &ids[2]));
	TEST_ASSERT_VAL("A and C not ordered", dso_id__cmp(&ids[0], &ids[2]) ==
			-dso_id__cmp(&ids[2], &ids[0]) && dso_id__cmp(&ids[0], &ids[2]));

	for (o = 0; o < ARRAY_SIZE(orders) && err == TEST_OK; o++) {
		struct dso *dso[3] = { NULL, };
		struct dsos dsos;

		dsos__init(&dsos);
		for (i = 0; i < 3 && err == TEST_OK; i++) {
			int k = orders[o][i];

			dso[k] = dso__new_id(name, &ids[k]);
			if (!dso[k] || dsos__add(&dsos, dso[k]))
				err = TEST_FAIL;
		}
		for (i = 0; i < 3 && err == TEST_OK; i++) {
			struct dso *found = dsos__findnew_id(&dsos, name, &ids[i]);

			if (!RC_CHK_EQUAL(found, dso[i])) {
				pr_debug("added %c%c%c: %c not found by its id\n",
					 'A' + orders[o][0], 'A' + orders[o][1],
					 'A' + orders[o][2], 'A' + i);
				err = TEST_FAIL;
			}
			dso__put(found);
		}
		if (err == TEST_OK && dsos.cnt != 3) {
			pr_debug("%u DSOs instead of 3\n", dsos.cnt);
			err = TEST_FAIL;
		}
		dsos__exit(&dsos);
		for (i = 0; i < 3; i++)
			dso__put(dso[i]);
	}
	return err;
}

static struct test_case tests__mmap3[] = {
	TEST_CASE("MMAP3 from a file of the other endianness", mmap3_swap),
	TEST_CASE("MMAP3 malformed records", mmap3_check),
	TEST_CASE("MMAP3 maps and DSO identity from a file", mmap3_session),
	TEST_CASE("MMAP3 DSO identity against the file on disk", mmap3_file_changed),
	TEST_CASE("MMAP3 mtime validity and saturation", mmap3_mtime),
	TEST_CASE("MMAP2 with a build id: no inode identity", mmap2_build_id),
	TEST_CASE("DSO identity: a synthesized record's generation of 0 is none",
		  mmap_no_generation),
	TEST_CASE("DSO identity: sorted in a total order, each DSO found", dso_id_order),
	{ .name = NULL, }
};

struct test_suite suite__mmap3 = {
	.desc = "PERF_RECORD_MMAP3",
	.test_cases = tests__mmap3,
};
