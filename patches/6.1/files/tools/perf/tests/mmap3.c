// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_MMAP3: byte swapping, the checks on records read from files
 * and what the session code makes of them: maps and DSO identity, also
 * for records with fields of a later kernel before the filename.
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
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/zalloc.h>
#include <perf/event.h>
#include "build-id.h"
#include "debug.h"
#include "dso.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "header.h"
#include "machine.h"
#include "map.h"
#include "maps.h"
#include "session.h"
#include "thread.h"
#include "tool.h"
#include "util/data.h"
#include "tests.h"

#define TEST_PID	4321
#define TEST_TID	4322

/* The sample_id_all trailer for PERF_SAMPLE_TID | PERF_SAMPLE_TIME */
#define TEST_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define ID_HDR_SIZE	(2 * sizeof(u64))

#define MMAP3_FIXED	offsetof(struct perf_record_mmap3, filename)

struct mmap3_desc {
	u64		start, len, pgoff;
	u32		maj, min;
	u64		ino, ino_generation;
	u32		prot, flags;
	s64		mtime;
	u8		build_id_size;
	u8		build_id_seed;
	u16		filename_offset;	/* 0 for MMAP3_FIXED */
	const char	*filename;
};

static const struct mmap3_desc mmap3_a = {
	.start = 0x7f0000001000, .len = 0x3000, .pgoff = 0x1000,
	.maj = 8, .min = 1, .ino = 123456, .ino_generation = 7,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
	.mtime = 1700000000123456789LL,
	.build_id_size = BUILD_ID_SIZE, .build_id_seed = 0xa0,
	.filename = "/usr/lib/perf-test-mmap3.so",
};

/* Same path, rewritten in place: same inode, another mtime and build id */
static const struct mmap3_desc mmap3_b = {
	.start = 0x7f0000011000, .len = 0x2000, .pgoff = 0,
	.maj = 8, .min = 1, .ino = 123456, .ino_generation = 7,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
	.mtime = 1700000999000000001LL,
	.build_id_size = BUILD_ID_SIZE, .build_id_seed = 0xb0,
	.filename = "/usr/lib/perf-test-mmap3.so",
};

/* The same file as mmap3_a, mapped again */
static const struct mmap3_desc mmap3_c = {
	.start = 0x7f0000021000, .len = 0x3000, .pgoff = 0x1000,
	.maj = 8, .min = 1, .ino = 123456, .ino_generation = 7,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
	.mtime = 1700000000123456789LL,
	.build_id_size = BUILD_ID_SIZE, .build_id_seed = 0xa0,
	.filename = "/usr/lib/perf-test-mmap3.so",
};

/* No build id, a filename that is exactly 8 bytes with its NUL */
static const struct mmap3_desc mmap3_d = {
	.start = 0x7f0000031000, .len = 0x1000, .pgoff = 0x4000,
	.maj = 259, .min = 3, .ino = 99, .ino_generation = 0,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_SHARED,
	.mtime = 1,
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
	.mtime = -86400123456789LL,
	.build_id_size = BUILD_ID_SIZE, .build_id_seed = 0xe0,
	.filename_offset = MMAP3_FIXED + 16,
	.filename = "/usr/lib/perf-test-mmap3-later.so",
};

static size_t mmap3__filename_offset(const struct mmap3_desc *d)
{
	return d->filename_offset ?: MMAP3_FIXED;
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
	mmap3->build_id_size = d->build_id_size;
	for (i = 0; i < d->build_id_size; i++)
		mmap3->build_id[i] = d->build_id_seed + i;
	memset(mmap3->filename, MMAP3_LATER_FIELDS, offset - MMAP3_FIXED);
	strcpy((char *)event + offset, d->filename);

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

static int check_map(struct thread *thread, const struct mmap3_desc *d, struct dso **dsop)
{
	struct map *map = maps__find(thread->maps, d->start + 0x10);
	struct dso *dso;
	int i;

	pr_debug("checking the map of %s at %#" PRIx64 "\n", d->filename, d->start);
	TEST_ASSERT_VAL("no map", map);
	TEST_ASSERT_VAL("map start", map->start == d->start);
	TEST_ASSERT_VAL("map end", map->end == d->start + d->len);
	TEST_ASSERT_VAL("map pgoff", map->pgoff == d->pgoff);
	TEST_ASSERT_EQUAL("map prot", map->prot, d->prot);
	TEST_ASSERT_EQUAL("map flags", map->flags, d->flags);

	dso = map->dso;
	TEST_ASSERT_VAL("dso name", !strcmp(dso->long_name, d->filename));
	TEST_ASSERT_EQUAL("dso maj", dso->id.maj, d->maj);
	TEST_ASSERT_EQUAL("dso min", dso->id.min, d->min);
	TEST_ASSERT_VAL("dso ino", dso->id.ino == d->ino);
	TEST_ASSERT_VAL("dso ino_generation", dso->id.ino_generation == d->ino_generation);
	TEST_ASSERT_VAL("dso mtime", dso->id.mtime == d->mtime);
	TEST_ASSERT_EQUAL("dso id build id size", (int)dso->id.bid.size, d->build_id_size);
	TEST_ASSERT_EQUAL("dso has build id", dso->has_build_id, !!d->build_id_size);
	if (d->build_id_size) {
		TEST_ASSERT_EQUAL("dso build id size", (int)dso->bid.size, d->build_id_size);
		for (i = 0; i < d->build_id_size; i++) {
			TEST_ASSERT_EQUAL("dso build id", dso->bid.data[i], d->build_id_seed + i);
			TEST_ASSERT_EQUAL("dso id build id", dso->id.bid.data[i], d->build_id_seed + i);
		}
	}
	*dsop = dso;
	return TEST_OK;
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
	TEST_ASSERT_EQUAL("filename_offset", e->filename_offset, o->filename_offset);
	/* The bytes, the fields we don't know, the filename and the sample_id */
	TEST_ASSERT_VAL("record", !memcmp(event, orig, orig->header.size));
	TEST_ASSERT_VAL("filename",
			!strcmp(perf_record_mmap3__filename(&event->mmap3), d->filename));

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
	struct map *map;
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
	strcpy(event->mmap2.filename, filename);

	machines__init(&machines);
	machine__process_mmap2_event(&machines.host, event, &sample);
	thread = machine__find_thread(&machines.host, TEST_PID, TEST_TID);
	map = thread ? maps__find(thread->maps, event->mmap2.start + 0x10) : NULL;
	if (!map) {
		pr_debug("no map for the MMAP2 event\n");
		goto out;
	}
	dso = map->dso;
	pr_debug("%s: %x:%x %" PRIu64 " generation %" PRIu64 ", build id size %zu\n",
		 dso->long_name, dso->id.maj, dso->id.min, dso->id.ino,
		 dso->id.ino_generation, dso->bid.size);
	if (dso->id.maj || dso->id.min || dso->id.ino || dso->id.ino_generation) {
		pr_debug("FAILED: build id bytes taken for the device and inode numbers\n");
		goto out;
	}
	if (!dso->has_build_id || dso->bid.size != BUILD_ID_SIZE ||
	    memcmp(dso->bid.data, event->mmap2.build_id, BUILD_ID_SIZE) ||
	    dso->id.bid.size != BUILD_ID_SIZE ||
	    memcmp(dso->id.bid.data, event->mmap2.build_id, BUILD_ID_SIZE)) {
		pr_debug("FAILED: the DSO doesn't have the recorded build id\n");
		goto out;
	}
	err = TEST_OK;
out:
	thread__put(thread);
	machine__delete_threads(&machines.host);
	machines__exit(&machines);
	free(event);
	return err;
}

/* The kinds of malformed records perf_event__check_mmap3() catches */
enum mmap3_bad {
	MMAP3_BAD_SHORT,		/* header.size doesn't even cover the fixed part */
	MMAP3_BAD_BUILD_ID_SIZE,
	MMAP3_BAD_NO_NUL,		/* no NUL up to the end, the sample_id included */
	MMAP3_BAD_OFFSET_SMALL,		/* filename_offset before the end of the fixed part */
	MMAP3_BAD_OFFSET_SAMPLE_ID,	/* filename_offset in the sample_id */
	MMAP3_BAD_OFFSET_PAST_END,	/* filename_offset past the end of the record */
	MMAP3_BAD_NR,
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
		event.header.size = MMAP3_FIXED - 8;
		size = event.header.size;
		break;
	case MMAP3_BAD_BUILD_ID_SIZE:
		event.mmap3.build_id_size = BUILD_ID_SIZE + 1;
		break;
	case MMAP3_BAD_NO_NUL:
		memset(event.mmap3.filename, 'A', event.header.size - MMAP3_FIXED);
		break;
	case MMAP3_BAD_OFFSET_SMALL:
		/* In the build id, all zeros: "" if it was taken */
		event.mmap3.filename_offset = MMAP3_FIXED - 8;
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
		/*
		 * Whatever the record, swapping it stays in it, and the check
		 * of the swapped one, as if from a file of the other
		 * endianness, finds what is wrong with it.
		 */
		if (event->header.size >= MMAP3_FIXED)
			perf_event__swap(event, true);
		TEST_ASSERT_VAL("swapped malformed record accepted",
				perf_event__check_mmap3(event, ID_HDR_SIZE, true,
							msg, sizeof(msg)) == -EINVAL);
		pr_debug("swapped malformed %d: %s\n", kind, msg);
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

	if (write_event(fd, mmap3__new(&mmap3_a, 10), &size) ||
	    write_event(fd, mmap3__new(&mmap3_b, 20), &size) ||
	    write_event(fd, mmap3__new(&mmap3_c, 30), &size) ||
	    write_event(fd, mmap3__new(&mmap3_d, 40), &size) ||
	    write_event(fd, mmap3__new(&mmap3_e, 50), &size))
		goto out;

	for (kind = 0; kind < MMAP3_BAD_NR; kind++) {
		if (write_event(fd, mmap3__new_bad(kind), &size))
			goto out;
	}

	session->header.data_size = size;
	err = perf_session__write_header(session, session->evlist, fd, true);
out:
	evlist__delete(session->evlist);
	perf_session__delete(session);
	return err;
}

static int session_check(const char *path)
{
	struct perf_tool tool = {
		.mmap3 = perf_event__process_mmap3,
	};
	struct perf_data data = {
		.path = path,
		.mode = PERF_DATA_MODE_READ,
	};
	struct dso *dso_a, *dso_b, *dso_c, *dso_d, *dso_e;
	struct perf_session *session;
	struct events_stats *stats;
	struct thread *thread;
	enum mmap3_bad kind;
	int err = TEST_FAIL;

	session = perf_session__new(&data, &tool);
	TEST_ASSERT_VAL("can't get session", !IS_ERR(session));
	if (perf_session__process_events(session))
		goto out;

	stats = &session->evlist->stats;
	pr_debug("MMAP3 events: %u, malformed: %u\n",
		 stats->nr_events[PERF_RECORD_MMAP3], stats->nr_malformed_events);
	if (stats->nr_events[PERF_RECORD_MMAP3] != 5 + MMAP3_BAD_NR ||
	    stats->nr_malformed_events != MMAP3_BAD_NR) {
		pr_debug("expected %d MMAP3 events, %d malformed\n", 5 + MMAP3_BAD_NR,
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
	    check_map(thread, &mmap3_e, &dso_e))
		goto out_put;

	if (dso_a == dso_b) {
		pr_debug("a file rewritten in place is a new DSO\n");
		goto out_put;
	}
	if (dso_a != dso_c) {
		pr_debug("the same file mapped twice is one DSO\n");
		goto out_put;
	}

	if (dso_e == dso_a || dso_e == dso_d) {
		pr_debug("the file of the MMAP3 with later fields has its own DSO\n");
		goto out_put;
	}

	/* The malformed ones were skipped */
	for (kind = 0; kind < MMAP3_BAD_NR; kind++) {
		if (maps__find(thread->maps, mmap3__bad_start(kind) + 0x10)) {
			pr_debug("the malformed MMAP3 %d made a map\n", kind);
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

/*
 * A DSO whose recorded identity is the one of the file at path, but for
 * what is in differs, checked against that file: dso__file_changed() must
 * find exactly that, and its warning must name it. A device that differs
 * alone is not a change: on btrfs and overlayfs stat() gives another one
 * than the recorded superblock's.
 */
static int file_changed_check(const char *path, const struct stat *st, u8 differs,
			      const char *names)
{
	struct dso *dso = dso__new(path);
	char *buf = NULL, expected[128];
	size_t size = 0;
	int err = TEST_FAIL;
	bool changed;

	TEST_ASSERT_VAL("dso__new", dso);
	dso->id.maj   = major(st->st_dev);
	dso->id.min   = minor(st->st_dev);
	dso->id.ino   = st->st_ino;
	dso->id.mtime = (s64)st->st_mtim.tv_sec * NSEC_PER_SEC + st->st_mtim.tv_nsec;
	if (differs & DSO_DIFFERS__DEV)
		dso->id.min ^= 1;
	if (differs & DSO_DIFFERS__INO)
		dso->id.ino++;
	if (differs & DSO_DIFFERS__MTIME)
		dso->id.mtime++;

	changed = dso__file_changed(dso, path);
	pr_debug("recorded %x:%x %" PRIu64 " mtime %" PRId64 ", differs %#x: %s, %#x\n",
		 dso->id.maj, dso->id.min, dso->id.ino, dso->id.mtime, differs,
		 changed ? "changed" : "not changed", dso->disk_differs);
	if (!(differs & (DSO_DIFFERS__INO | DSO_DIFFERS__MTIME)))
		differs = 0;
	if (changed != !!differs || dso->disk_differs != differs) {
		pr_debug("FAILED: expected %#x to be found to differ\n", differs);
		goto out;
	}
	if (!changed) {
		err = TEST_OK;
		goto out;
	}

	/* What is on disk, in the encoding of the records */
	if (dso->disk_id->maj != major(st->st_dev) || dso->disk_id->min != minor(st->st_dev) ||
	    dso->disk_id->ino != st->st_ino) {
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

	/* With -v, the mtimes follow, in UTC */
	free(buf);
	buf = fprintf_changed(dso, 1, &size);
	pr_debug("%s", buf ?: "");
	if (!buf || !strstr(buf, "\n  recorded: mtime ") || !strstr(buf, "\n  now:      mtime ") ||
	    !strstr(buf, " UTC, inode ")) {
		pr_debug("FAILED: -v doesn't say the recorded and the current mtime, in UTC\n");
		goto out;
	}
	err = TEST_OK;
out:
	free(buf);
	dso__put(dso);
	return err;
}

static int test__mmap3_file_changed(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	char path[] = "/tmp/perf-test-mmap3-XXXXXX";
	struct stat st;
	int fd, err = TEST_FAIL;

	fd = mkstemp(path);
	if (fd < 0) {
		pr_debug("mkstemp failed: %m\n");
		return TEST_FAIL;
	}
	close(fd);
	if (stat(path, &st) < 0) {
		pr_debug("stat %s failed: %m\n", path);
		goto out;
	}

	if (file_changed_check(path, &st, 0, "") ||
	    file_changed_check(path, &st, DSO_DIFFERS__DEV, "") ||
	    file_changed_check(path, &st, DSO_DIFFERS__INO, "inode") ||
	    file_changed_check(path, &st, DSO_DIFFERS__MTIME, "mtime") ||
	    file_changed_check(path, &st, DSO_DIFFERS__DEV | DSO_DIFFERS__MTIME,
			       "device, mtime") ||
	    file_changed_check(path, &st, DSO_DIFFERS__DEV | DSO_DIFFERS__INO | DSO_DIFFERS__MTIME,
			       "device, inode, mtime"))
		goto out;
	err = TEST_OK;
out:
	unlink(path);
	return err;
}

static struct test_case tests__mmap3[] = {
	TEST_CASE("MMAP3 from a file of the other endianness", mmap3_swap),
	TEST_CASE("MMAP3 malformed records", mmap3_check),
	TEST_CASE("MMAP3 maps and DSO identity from a file", mmap3_session),
	TEST_CASE("MMAP3 DSO identity against the file on disk", mmap3_file_changed),
	TEST_CASE("MMAP2 with a build id: no inode identity", mmap2_build_id),
	{ .name = NULL, }
};

struct test_suite suite__mmap3 = {
	.desc = "PERF_RECORD_MMAP3",
	.test_cases = tests__mmap3,
};
