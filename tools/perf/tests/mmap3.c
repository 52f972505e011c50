// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_RECORD_MMAP3: byte swapping, the checks on records read from files
 * and what the session code makes of them: maps and DSO identity.
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
	u64		mtime;
	u8		build_id_size;
	u8		build_id_seed;
	const char	*filename;
};

static const struct mmap3_desc mmap3_a = {
	.start = 0x7f0000001000, .len = 0x3000, .pgoff = 0x1000,
	.maj = 8, .min = 1, .ino = 123456, .ino_generation = 7,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
	.mtime = 1700000000123456789ULL,
	.build_id_size = BUILD_ID_SIZE, .build_id_seed = 0xa0,
	.filename = "/usr/lib/perf-test-mmap3.so",
};

/* Same path, rewritten in place: same inode, another mtime and build id */
static const struct mmap3_desc mmap3_b = {
	.start = 0x7f0000011000, .len = 0x2000, .pgoff = 0,
	.maj = 8, .min = 1, .ino = 123456, .ino_generation = 7,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
	.mtime = 1700000999000000001ULL,
	.build_id_size = BUILD_ID_SIZE, .build_id_seed = 0xb0,
	.filename = "/usr/lib/perf-test-mmap3.so",
};

/* The same file as mmap3_a, mapped again */
static const struct mmap3_desc mmap3_c = {
	.start = 0x7f0000021000, .len = 0x3000, .pgoff = 0x1000,
	.maj = 8, .min = 1, .ino = 123456, .ino_generation = 7,
	.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
	.mtime = 1700000000123456789ULL,
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

static size_t mmap3__size(const struct mmap3_desc *d)
{
	return MMAP3_FIXED + PERF_ALIGN(strlen(d->filename) + 1, sizeof(u64)) + ID_HDR_SIZE;
}

static void mmap3__fill(union perf_event *event, const struct mmap3_desc *d, u64 time)
{
	size_t size = mmap3__size(d);
	struct perf_record_mmap3 *mmap3 = &event->mmap3;
	u32 *tid;
	int i;

	memset(event, 0, size);
	mmap3->header.type = PERF_RECORD_MMAP3;
	mmap3->header.misc = PERF_RECORD_MISC_USER;
	mmap3->header.size = size;
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
	strcpy(mmap3->filename, d->filename);

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

static int test__mmap3_swap(struct test_suite *test __maybe_unused,
			    int subtest __maybe_unused)
{
	union perf_event *orig = mmap3__new(&mmap3_a, 0x0102030405060708ULL);
	union perf_event *event;
	struct perf_record_mmap3 *o, *e;
	size_t size, name_size;
	u64 *o_id, *e_id;

	TEST_ASSERT_VAL("can't allocate event", orig);
	size = orig->header.size;
	event = memdup(orig, size);
	TEST_ASSERT_VAL("can't allocate event", event);

	perf_event__swap(event, true);
	perf_event__swap(event, true);
	TEST_ASSERT_VAL("swapping twice doesn't give the original", !memcmp(event, orig, size));

	perf_event__swap(event, true);
	o = &orig->mmap3;
	e = &event->mmap3;
	/* The header is swapped by the reader, before this */
	TEST_ASSERT_VAL("header", !memcmp(&e->header, &o->header, sizeof(o->header)));
	TEST_ASSERT_EQUAL("pid", e->pid, bswap_32(o->pid));
	TEST_ASSERT_EQUAL("tid", e->tid, bswap_32(o->tid));
	TEST_ASSERT_VAL("start", e->start == bswap_64(o->start));
	TEST_ASSERT_VAL("len", e->len == bswap_64(o->len));
	TEST_ASSERT_VAL("pgoff", e->pgoff == bswap_64(o->pgoff));
	TEST_ASSERT_EQUAL("maj", e->maj, bswap_32(o->maj));
	TEST_ASSERT_EQUAL("min", e->min, bswap_32(o->min));
	TEST_ASSERT_VAL("ino", e->ino == bswap_64(o->ino));
	TEST_ASSERT_VAL("ino_generation", e->ino_generation == bswap_64(o->ino_generation));
	TEST_ASSERT_EQUAL("prot", e->prot, bswap_32(o->prot));
	TEST_ASSERT_EQUAL("flags", e->flags, bswap_32(o->flags));
	TEST_ASSERT_VAL("mtime", e->mtime == bswap_64(o->mtime));
	/* Bytes */
	TEST_ASSERT_EQUAL("build_id_size", e->build_id_size, o->build_id_size);
	TEST_ASSERT_EQUAL("__reserved_1", e->__reserved_1, o->__reserved_1);
	TEST_ASSERT_EQUAL("__reserved_2", e->__reserved_2, o->__reserved_2);
	TEST_ASSERT_VAL("build_id", !memcmp(e->build_id, o->build_id, sizeof(o->build_id)));
	name_size = PERF_ALIGN(strlen(o->filename) + 1, sizeof(u64));
	TEST_ASSERT_VAL("filename", !memcmp(e->filename, o->filename, name_size));
	/* The sample_id trailer is swapped as u64s, like for all records */
	o_id = (void *)o->filename + name_size;
	e_id = (void *)e->filename + name_size;
	TEST_ASSERT_VAL("sample_id pid/tid", e_id[0] == bswap_64(o_id[0]));
	TEST_ASSERT_VAL("sample_id time", e_id[1] == bswap_64(o_id[1]));

	free(event);
	free(orig);
	return TEST_OK;
}

/* The three kinds of malformed records perf_event__check_mmap3() catches */
static union perf_event *mmap3__new_bad(int kind)
{
	union perf_event event;
	size_t size;

	mmap3__fill(&event, &mmap3_d, 1);
	size = event.header.size;

	switch (kind) {
	case 0:	/* header.size doesn't even cover the fixed part */
		event.header.size = MMAP3_FIXED - 8;
		size = event.header.size;
		break;
	case 1:
		event.mmap3.build_id_size = BUILD_ID_SIZE + 1;
		event.mmap3.start += 0x100000;
		break;
	case 2:	/* no NUL up to the end, the sample_id included */
		memset(event.mmap3.filename, 'A', event.header.size - MMAP3_FIXED);
		event.mmap3.start += 0x200000;
		break;
	default:
		break;
	}
	return event__dup(&event, size);
}

static int test__mmap3_check(struct test_suite *test __maybe_unused,
			     int subtest __maybe_unused)
{
	union perf_event *event = mmap3__new(&mmap3_d, 1);
	char msg[128];
	int kind;

	TEST_ASSERT_VAL("can't allocate event", event);
	TEST_ASSERT_VAL("good record rejected",
			!perf_event__check_mmap3(event, ID_HDR_SIZE, msg, sizeof(msg)));
	/* Without room for the trailer, the NUL is in what would be the trailer */
	TEST_ASSERT_VAL("record with a larger sample_id accepted",
			perf_event__check_mmap3(event, ID_HDR_SIZE + 8, msg, sizeof(msg)));
	free(event);

	for (kind = 0; kind < 3; kind++) {
		event = mmap3__new_bad(kind);
		TEST_ASSERT_VAL("can't allocate event", event);
		TEST_ASSERT_VAL("malformed record accepted",
				perf_event__check_mmap3(event, ID_HDR_SIZE, msg, sizeof(msg)) == -EINVAL);
		pr_debug("malformed %d: %s\n", kind, msg);
		/* Whatever the record, swapping it stays in it */
		if (event->header.size >= MMAP3_FIXED)
			perf_event__swap(event, true);
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
	u64 size = 0;
	int fd, err = -1, kind;

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
	    write_event(fd, mmap3__new(&mmap3_d, 40), &size))
		goto out;

	for (kind = 0; kind < 3; kind++) {
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

static int session_check(const char *path)
{
	struct perf_tool tool = {
		.mmap3 = perf_event__process_mmap3,
	};
	struct perf_data data = {
		.path = path,
		.mode = PERF_DATA_MODE_READ,
	};
	struct dso *dso_a, *dso_b, *dso_c, *dso_d;
	struct perf_session *session;
	struct events_stats *stats;
	struct thread *thread;
	int err = TEST_FAIL;

	session = perf_session__new(&data, &tool);
	TEST_ASSERT_VAL("can't get session", !IS_ERR(session));
	if (perf_session__process_events(session))
		goto out;

	stats = &session->evlist->stats;
	pr_debug("MMAP3 events: %u, malformed: %u\n",
		 stats->nr_events[PERF_RECORD_MMAP3], stats->nr_malformed_events);
	if (stats->nr_events[PERF_RECORD_MMAP3] != 7 || stats->nr_malformed_events != 3) {
		pr_debug("expected 7 MMAP3 events, 3 malformed\n");
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
	    check_map(thread, &mmap3_d, &dso_d))
		goto out_put;

	if (dso_a == dso_b) {
		pr_debug("a file rewritten in place is a new DSO\n");
		goto out_put;
	}
	if (dso_a != dso_c) {
		pr_debug("the same file mapped twice is one DSO\n");
		goto out_put;
	}

	/* The malformed ones were skipped */
	if (maps__find(thread->maps, mmap3_d.start + 0x100000 + 0x10) ||
	    maps__find(thread->maps, mmap3_d.start + 0x200000 + 0x10)) {
		pr_debug("a malformed MMAP3 made a map\n");
		goto out_put;
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

/*
 * A DSO whose recorded identity is the one of the file at path, but for
 * what is in differs, checked against that file: dso__file_changed() must
 * find exactly that, and its warning must name it.
 */
static int file_changed_check(const char *path, const struct stat *st, u8 differs,
			      const char *names)
{
	struct dso *dso = dso__new(path);
	char *buf = NULL, *line;
	size_t size = 0;
	int err = TEST_FAIL;
	bool changed;
	FILE *fp;

	TEST_ASSERT_VAL("dso__new", dso);
	dso->id.maj   = major(st->st_dev);
	dso->id.min   = minor(st->st_dev);
	dso->id.ino   = st->st_ino;
	dso->id.mtime = (u64)st->st_mtim.tv_sec * NSEC_PER_SEC + st->st_mtim.tv_nsec;
	if (differs & DSO_DIFFERS__DEV)
		dso->id.min ^= 1;
	if (differs & DSO_DIFFERS__INO)
		dso->id.ino++;
	if (differs & DSO_DIFFERS__MTIME)
		dso->id.mtime++;

	changed = dso__file_changed(dso, path);
	pr_debug("recorded %x:%x %" PRIu64 " mtime %" PRIu64 ", differs %#x: %s, %#x\n",
		 dso->id.maj, dso->id.min, dso->id.ino, dso->id.mtime, differs,
		 changed ? "changed" : "not changed", dso->disk_differs);
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

	fp = open_memstream(&buf, &size);
	if (!fp)
		goto out;
	dso__fprintf_changed(dso, fp, "");
	fclose(fp);
	pr_debug("%s", buf ?: "");
	line = buf ? strstr(buf, "\n  differs:  ") : NULL;
	if (!line || strncmp(line + 13, names, strlen(names)) || line[13 + strlen(names)] != '\n') {
		pr_debug("FAILED: the warning doesn't say that %s differ\n", names);
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
	    file_changed_check(path, &st, DSO_DIFFERS__DEV, "device") ||
	    file_changed_check(path, &st, DSO_DIFFERS__INO, "inode") ||
	    file_changed_check(path, &st, DSO_DIFFERS__MTIME, "mtime") ||
	    file_changed_check(path, &st, DSO_DIFFERS__DEV | DSO_DIFFERS__INO | DSO_DIFFERS__MTIME,
			       "device, inode, mtime"))
		goto out;
	err = TEST_OK;
out:
	unlink(path);
	return err;
}

static struct test_case tests__mmap3[] = {
	TEST_CASE("MMAP3 swapped twice, then once", mmap3_swap),
	TEST_CASE("MMAP3 malformed records", mmap3_check),
	TEST_CASE("MMAP3 maps and DSO identity from a file", mmap3_session),
	TEST_CASE("MMAP3 DSO identity against the file on disk", mmap3_file_changed),
	{ .name = NULL, }
};

struct test_suite suite__mmap3 = {
	.desc = "PERF_RECORD_MMAP3",
	.test_cases = tests__mmap3,
};
