/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KEEP_MAPPED_H
#define __PERF_KEEP_MAPPED_H

#include <stdbool.h>
#include <linux/types.h>

struct evlist;
struct strlist;

/*
 * What perf record's keep-mapped side band thread did with the files it
 * saw mapped executable: each is copied into the build-id cache as its
 * mmap record arrives, while the mapping, and with it the file that ran,
 * can still be opened.
 */
struct keep_mapped {
	struct evlist	*evlist;	/* the side band events */
	struct strlist	*seen;		/* build ids and keys already looked at */
	u64		max_size;	/* larger files are not copied */
	u64		kept;		/* copied into the cache */
	u64		cached;		/* the cache had them already */
	u64		no_key;		/* no build id, nor the identity of MMAP3 */
	u64		too_large;	/* larger than max_size */
	u64		changed;	/* gone or replaced before they were read */
	u64		failed;		/* could not be copied */
	u64		lost;		/* mmap records the thread lost */
};

int keep_mapped__start(struct keep_mapped *km, struct evlist *evlist, bool inherit);
void keep_mapped__stop(struct keep_mapped *km);
void keep_mapped__fprintf_summary(const struct keep_mapped *km, FILE *fp);

#endif /* __PERF_KEEP_MAPPED_H */
