// SPDX-License-Identifier: GPL-2.0
/*
 * Keep the files a recording maps executable in the build-id cache while
 * the build that ran can still be read.
 *
 * perf record adds the files it profiled to the build-id cache when it
 * ends, from their paths. By then a package upgrade may have replaced a
 * file that a process ran: the path holds another build, and the one that
 * ran is gone. A side band thread sees each mmap record as the kernel
 * writes it, while the process that mapped the file is still running, and
 * copies the file then: from /proc/PID/map_files/START-END, which opens
 * the mapped file itself even after it was replaced or deleted, where perf
 * may open it (CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), or else from its
 * path, when the file opened has the build id of the record.
 *
 * A file without a build id is kept under the identity of its
 * PERF_RECORD_MMAP3, see dso_id__cache_key(), when the file opened has the
 * recorded inode and mtime. MMAP2 records have no mtime: a recording
 * without MMAP3 doesn't keep such a file, and says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/perf_event.h>
#include <linux/zalloc.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/threadmap.h>

#include "build-id.h"
#include "debug.h"
#include "dso.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "keep-mapped.h"
#include "map.h"
#include "perf_api_probe.h"
#include "strlist.h"

/*
 * Copy the file of the record of id, mapped by pid at start, if the file
 * opened is still the one recorded: with a build id, it has it; without
 * one, it has the recorded inode number and mtime. That is checked on the
 * file opened, even through map_files, whose range may hold another file by
 * now: the process may have execed the new build of itself, at the same
 * address when it is not position independent.
 */
static void keep_mapped__copy(struct keep_mapped *km, u32 pid, u64 start, u64 len,
			      const char *filename, const char *key, const struct dso_id *id)
{
	char path[PATH_MAX], src[64], found[SBUILD_ID_SIZE];
	bool has_build_id = build_id__is_defined(&id->build_id);
	struct stat st;
	int fd, err;

	/* The mapped file itself, if it may be opened and is still mapped */
	snprintf(path, sizeof(path), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64,
		 pid, start, start + len);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(filename, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pr_debug("keep-mapped: %s is gone: %m\n", filename);
		km->changed++;
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		km->failed++;
		goto out_close;
	}
	if ((u64)st.st_size > km->max_size) {
		pr_debug("keep-mapped: %s has %" PRIu64 " bytes, more than record.keep-mapped-max-size\n",
			 filename, (u64)st.st_size);
		km->too_large++;
		goto out_close;
	}

	snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
	if (has_build_id ? filename__snprintf_build_id(src, found, sizeof(found)) <= 0 ||
			   strcmp(found, key) :
			   !build_id_cache__is_id(id, &st)) {
		pr_debug("keep-mapped: %s is not the mapped file anymore\n", filename);
		km->changed++;
		goto out_close;
	}

	if (has_build_id)
		err = build_id_cache__add(key, src, src, /*nsi=*/NULL, /*is_kallsyms=*/false,
					  /*is_vdso=*/false, /*proper_name=*/filename,
					  /*root_dir=*/NULL);
	else
		err = build_id_cache__add_fd(key, fd, filename);
	if (err) {
		pr_debug("keep-mapped: could not add %s to the build-id cache\n", filename);
		km->failed++;
	} else {
		pr_debug2("keep-mapped: kept %s as %s\n", filename, key);
		km->kept++;
	}
out_close:
	close(fd);
}

static int keep_mapped__sb_cb(union perf_event *event, void *data)
{
	struct keep_mapped *km = data;
	struct dso_id id = dso_id_empty;
	char key[SBUILD_ID_SIZE], msg[128];
	const char *filename;
	u64 start, len;
	u32 pid, prot;

	/* The thread was too slow: the mappings of those records are not seen */
	if (event->header.type == PERF_RECORD_LOST) {
		km->lost += event->lost.lost;
		return 0;
	}
	if ((event->header.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
		return 0;

	switch (event->header.type) {
	case PERF_RECORD_MMAP2:
		filename = event->mmap2.filename;
		pid = event->mmap2.pid;
		start = event->mmap2.start;
		len = event->mmap2.len;
		prot = event->mmap2.prot;
		/* Without a build id, the inode identity has no mtime */
		if (event->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
			build_id__init(&id.build_id, event->mmap2.build_id,
				       event->mmap2.build_id_size);
		break;
	case PERF_RECORD_MMAP3:
		if (perf_event__check_mmap3(event, evlist__id_hdr_size(km->evlist),
					    /*needs_swap=*/false, msg, sizeof(msg))) {
			pr_debug("keep-mapped: a malformed PERF_RECORD_MMAP3: %s\n", msg);
			return 0;
		}
		filename = perf_record_mmap3__filename(&event->mmap3);
		pid = event->mmap3.pid;
		start = event->mmap3.start;
		len = event->mmap3.len;
		prot = event->mmap3.prot;
		dso_id__init_mmap3(&id, &event->mmap3);
		break;
	default:
		return 0;
	}

	/*
	 * Anonymous memory, a JIT's code among it, has no file to keep, nor
	 * has a memfd, that a JIT may map its code from too.
	 */
	if (!(prot & PROT_EXEC) || filename[0] != '/' || !strncmp(filename, "/memfd:", 7) ||
	    is_anon_memory(filename) || is_no_dso_memory(filename))
		return 0;

	/* The build id or, for a file without one, the identity it is kept by */
	if (build_id__is_defined(&id.build_id)) {
		build_id__snprintf(&id.build_id, key, sizeof(key));
	} else if (!dso_id__cache_key(&id, key, sizeof(key))) {
		/* Once a path: seen has keys in hex and paths from the root */
		if (!strlist__has_entry(km->seen, filename)) {
			strlist__add(km->seen, filename);
			km->no_key++;
		}
		return 0;
	}

	if (strlist__has_entry(km->seen, key))
		return 0;
	strlist__add(km->seen, key);

	if (build_id_cache__cached(key)) {
		km->cached++;
		return 0;
	}
	keep_mapped__copy(km, pid, start, len, filename, key, &id);
	return 0;
}

/*
 * Follow the mappings of what evlist records, on its CPUs and threads, with
 * inherit as it has it, in a side band thread of their own: copying a file
 * takes time that the BPF side band thread's events should not wait for.
 */
int keep_mapped__start(struct keep_mapped *km, struct evlist *evlist, bool inherit)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_SOFTWARE,
		.config		= PERF_COUNT_SW_DUMMY,
		.size		= sizeof(attr),
		.sample_id_all	= 1,
		.watermark	= 1,
		.exclude_kernel	= 1,
		.exclude_hv	= 1,
		.mmap		= 1,
		.mmap2		= 1,
		.inherit	= inherit,
	};
	struct evsel *evsel;

	attr.wakeup_watermark = 1;
	if (!perf_can_record_build_id()) {
		pr_debug("keep-mapped: the kernel can't put build ids in mmap records\n");
		return -1;
	}
	attr.build_id = 1;
	/*
	 * MMAP3 for the identity next to the build id, when the recording has
	 * it: a file without a build id is found by the identity of its record.
	 */
	evlist__for_each_entry(evlist, evsel) {
		if (evsel->core.attr.mmap3)
			attr.mmap3 = 1;
	}

	km->seen = strlist__new(NULL, NULL);
	km->evlist = evlist__new();
	if (!km->seen || !km->evlist)
		goto out_err;
	if (evlist__add_sb_event(km->evlist, &attr, keep_mapped__sb_cb, km))
		goto out_err;
	/*
	 * A CPU list (-C) is the user's, as evlist__create_maps() says: the
	 * events are opened on those CPUs, and mapped on those, not on all.
	 */
	evlist__core(km->evlist)->has_user_cpus = evlist__core(evlist)->has_user_cpus;
	perf_evlist__set_maps(evlist__core(km->evlist), evlist__core(evlist)->user_requested_cpus,
			      evlist__core(evlist)->threads);
	if (evlist__start_sb_thread_maps(km->evlist)) {
		/* That put the evlist */
		km->evlist = NULL;
		goto out_err;
	}
	return 0;

out_err:
	pr_warning("Couldn't start the keep-mapped side band thread: files replaced during the recording may not be in the build-id cache\n");
	evlist__put(km->evlist);
	km->evlist = NULL;
	strlist__delete(km->seen);
	km->seen = NULL;
	return -1;
}

void keep_mapped__stop(struct keep_mapped *km)
{
	if (!km->evlist)
		return;
	/* What is in the buffers is read, and no more comes */
	evlist__disable(km->evlist);
	evlist__stop_sb_thread(km->evlist);
	km->evlist = NULL;
	strlist__delete(km->seen);
	km->seen = NULL;
}

void keep_mapped__fprintf_summary(const struct keep_mapped *km, FILE *fp)
{
	u64 missed = km->no_key + km->too_large + km->changed + km->failed;
	const char *sep = "";

	if (km->lost)
		fprintf(fp, "[ perf record: the keep-mapped thread lost %" PRIu64
			" mmap records: the files they mapped may not be in the build-id cache ]\n",
			km->lost);

	pr_debug("keep-mapped: %" PRIu64 " files copied into the build-id cache, %" PRIu64
		 " there already\n", km->kept, km->cached);
	if (!missed)
		return;
	fprintf(fp, "[ perf record: %" PRIu64 " mapped file%s not kept in the build-id cache: ",
		missed, missed > 1 ? "s" : "");
	if (km->no_key) {
		fprintf(fp, "%" PRIu64 " without a build id, nor the mtime of PERF_RECORD_MMAP3 to tell them by",
			km->no_key);
		sep = ", ";
	}
	if (km->changed) {
		fprintf(fp, "%s%" PRIu64 " gone or replaced before being read", sep, km->changed);
		sep = ", ";
	}
	if (km->too_large) {
		fprintf(fp, "%s%" PRIu64 " larger than record.keep-mapped-max-size", sep, km->too_large);
		sep = ", ";
	}
	if (km->failed)
		fprintf(fp, "%s%" PRIu64 " could not be copied (-v says why)", sep, km->failed);
	fprintf(fp, " ]\n");
}
