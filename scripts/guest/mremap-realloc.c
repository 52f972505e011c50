// SPDX-License-Identifier: GPL-2.0
/*
 * make bench's mremap-heavy workload: realloc() a buffer from 1 to 64 MB and
 * back, argv[1] times (20000), touching its last page each time; print the
 * time that took in ns. glibc serves these sizes with mmap(), and resizes
 * them with mremap(), moving them when they cannot grow in place.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 20000;
	struct timespec a, b;
	char *p = NULL, *q;
	size_t mb;

	/* sizes from 128 KB up are mmap()ed chunks, which realloc() mremap()s */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		mb = 1 + (i % 128 < 64 ? i % 64 : 127 - i % 128);
		q = realloc(p, mb << 20);
		if (!q)
			return 1;
		p = q;
		p[(mb << 20) - 1] = 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	free(p);
	printf("%lld\n", (b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec);
	return 0;
}
