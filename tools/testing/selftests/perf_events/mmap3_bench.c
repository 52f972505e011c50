// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of mmap records: time exec mmap()+munmap() pairs of a file while a
 * software event on the current task asks for no record, MMAP, MMAP2,
 * MMAP2 with build-id, MMAP3, or MMAP3 with build-id.
 *
 * The configurations run interleaved, one batch each per round in an order
 * that rotates from round to round, so that drift in the machine's speed
 * spreads over all of them. The median over the rounds of the ns per pair
 * is reported along with its ratio to MMAP2, and the interquartile range
 * over the rounds shows how noisy the measurement was. Only the ratios mean
 * something across machines; under emulation (QEMU TCG) the absolute times
 * certainly do not, and on a loaded host they are noisy: there, running the
 * guest with "-icount shift=0" makes guest time count instructions, which
 * gives stable ratios.
 *
 * Usage: mmap3_bench [-n pairs per batch] [-r rounds] [file]
 * The file defaults to this program, which has a build-id to parse.
 */

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
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
#include <sys/syscall.h>

#include "../kselftest.h"

#define RB_PAGES	8

static const struct config {
	const char	*name;
	bool		event, mmap, mmap2, mmap3, build_id;
} configs[] = {
	{ .name = "no event" },
	{ .name = "mmap", .event = true, .mmap = true },
	/* mmap2 goes with mmap, as perf record sets them. */
	{ .name = "mmap2", .event = true, .mmap = true, .mmap2 = true },
	{ .name = "mmap2+build_id", .event = true, .mmap = true, .mmap2 = true,
	  .build_id = true },
	{ .name = "mmap3", .event = true, .mmap3 = true },
	{ .name = "mmap3+build_id", .event = true, .mmap3 = true,
	  .build_id = true },
};

#define NR_CFG			((int)ARRAY_SIZE(configs))
#define CFG_MMAP2		2
#define CFG_MMAP2_BUILD_ID	3
#define CFG_MMAP3		4
#define CFG_MMAP3_BUILD_ID	5

struct event {
	int	fd;
	void	*rb;
	size_t	rb_size;
};

static int open_event(const struct config *cfg, struct event *ev)
{
	struct perf_event_attr attr = {
		.size		= sizeof(attr),
		.type		= PERF_TYPE_SOFTWARE,
		.config		= PERF_COUNT_SW_DUMMY,
		.sample_type	= PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all	= 1,
		.exclude_kernel	= 1,
		.exclude_hv	= 1,
		.mmap		= cfg->mmap,
		.mmap2		= cfg->mmap2,
		.mmap3		= cfg->mmap3,
		.build_id	= cfg->build_id,
	};

	ev->fd = -1;
	ev->rb = NULL;
	ev->rb_size = (RB_PAGES + 1) * sysconf(_SC_PAGESIZE);
	if (!cfg->event) {
		/*
		 * Stand in for the ring buffer with a mapping of the same
		 * size, so that the mappings under test land where they do
		 * with an event: the layout of the address space shows in
		 * the cost of mmap() itself.
		 */
		ev->rb = mmap(NULL, ev->rb_size, PROT_READ,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (ev->rb == MAP_FAILED) {
			ev->rb = NULL;
			return -errno;
		}
		return 0;
	}

	ev->fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1,
			 PERF_FLAG_FD_CLOEXEC);
	if (ev->fd < 0)
		return -errno;

	/*
	 * A read-only mapping puts the buffer in overwrite mode: records are
	 * always written, none is lost for want of a reader.
	 */
	ev->rb = mmap(NULL, ev->rb_size, PROT_READ, MAP_SHARED, ev->fd, 0);
	if (ev->rb == MAP_FAILED) {
		int err = -errno;

		close(ev->fd);
		ev->fd = -1;
		ev->rb = NULL;
		return err;
	}
	return 0;
}

static void close_event(struct event *ev)
{
	if (ev->rb)
		munmap(ev->rb, ev->rb_size);
	if (ev->fd >= 0)
		close(ev->fd);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ns per exec mmap()+munmap() pair, or a negative error. */
static double run_batch(int fd, size_t len, long pairs)
{
	uint64_t t0, t1;

	t0 = now_ns();
	for (long i = 0; i < pairs; i++) {
		void *p = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED)
			return -errno;
		munmap(p, len);
	}
	t1 = now_ns();
	return (double)(t1 - t0) / pairs;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *file = "/proc/self/exe";
	long pairs = 2000, rounds = 11;
	double *ns[NR_CFG], median[NR_CFG], iqr[NR_CFG];
	int err[NR_CFG] = { 0 };
	size_t len = sysconf(_SC_PAGESIZE);
	int opt, fd;

	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		switch (opt) {
		case 'n':
			pairs = strtol(optarg, NULL, 0);
			break;
		case 'r':
			rounds = strtol(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-n pairs] [-r rounds] [file]\n", argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		file = argv[optind];
	if (pairs < 1 || rounds < 1) {
		fprintf(stderr, "pairs and rounds must be positive\n");
		return 2;
	}

	fd = open(file, O_RDONLY);
	if (fd < 0) {
		perror(file);
		return 1;
	}

	for (int c = 0; c < NR_CFG; c++) {
		ns[c] = calloc(rounds, sizeof(double));
		if (!ns[c])
			return 1;
	}

	/* Warm up the page cache and the code paths once. */
	run_batch(fd, len, pairs / 10 + 1);

	for (long r = 0; r < rounds; r++) {
		/* Rotate the order so that no configuration always goes first. */
		for (int k = 0; k < NR_CFG; k++) {
			int c = (r + k) % NR_CFG;
			struct event ev;
			double t;
			int ret;

			if (err[c])
				continue;
			ret = open_event(&configs[c], &ev);
			if (ret) {
				err[c] = ret;
				continue;
			}
			t = run_batch(fd, len, pairs);
			close_event(&ev);
			if (t < 0) {
				fprintf(stderr, "mmap: %s\n", strerror((int)-t));
				return 1;
			}
			ns[c][r] = t;
		}
	}

	for (int c = 0; c < NR_CFG; c++) {
		if (err[c])
			continue;
		qsort(ns[c], rounds, sizeof(double), cmp_double);
		median[c] = rounds % 2 ? ns[c][rounds / 2] :
			    (ns[c][rounds / 2 - 1] + ns[c][rounds / 2]) / 2;
		/* Spread of the middle half of the rounds, as a fraction. */
		iqr[c] = (ns[c][rounds * 3 / 4] - ns[c][rounds / 4]) / median[c];
	}

	printf("# %s: %ld rounds of %ld exec mmap+munmap pairs of %s\n",
	       argv[0], rounds, pairs, file);
	printf("%-16s %12s %8s %10s\n", "config", "ns/pair", "IQR", "vs mmap2");
	for (int c = 0; c < NR_CFG; c++) {
		if (err[c]) {
			printf("%-16s %12s %8s %10s  (%s)\n", configs[c].name,
			       "-", "-", "-", strerror(-err[c]));
			continue;
		}
		printf("%-16s %12.0f %7.1f%%", configs[c].name, median[c],
		       100 * iqr[c]);
		if (err[CFG_MMAP2])
			printf(" %10s\n", "-");
		else
			printf(" %10.3f\n", median[c] / median[CFG_MMAP2]);
	}
	if (!err[CFG_MMAP3] && !err[CFG_MMAP2])
		printf("%-37s %10.3f\n", "mmap3 / mmap2",
		       median[CFG_MMAP3] / median[CFG_MMAP2]);
	if (!err[CFG_MMAP3_BUILD_ID] && !err[CFG_MMAP2_BUILD_ID])
		printf("%-37s %10.3f\n", "mmap3+build_id / mmap2+build_id",
		       median[CFG_MMAP3_BUILD_ID] / median[CFG_MMAP2_BUILD_ID]);

	close(fd);
	return 0;
}
