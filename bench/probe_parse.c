/*
 * probe_parse.c - how long the nvidia-smi parser takes on one 8-GPU sample
 * (tests/data/probes/nvidia/h100x8.txt), against a floor measured in the same run: one
 * pass over the same bytes that splits them into lines and columns and does nothing else,
 * the least any parser of this text must do. Prints the medians of RUNS batches, in
 * microseconds per sample.
 *
 *	probe_parse FILE [RUNS [BATCH]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/probe.h"

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Split into lines and ", "-separated columns; returns the column count (kept live). */
static size_t
floor_split(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t cols = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		for (const char *q = p; q + 1 < e; q++)
			if (q[0] == ',' && q[1] == ' ')
				cols++;
		p = e + 1;
	}
	return cols;
}

int
main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 21, batch = argc > 3 ? atoi(argv[3]) : 2000, r, i;
	double *parse = calloc((size_t)runs, sizeof(double)), *floor = calloc((size_t)runs,
	    sizeof(double)), t;
	struct sample_list l;
	struct gr_error err = { 0 };
	volatile size_t sink = 0;
	char *buf;
	long n;
	FILE *f;

	if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL || parse == NULL || floor == NULL)
		return 2;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n)
		return 2;
	fclose(f);
	sample_list_init(&l);
	for (r = 0; r < runs; r++) {
		t = now_us();
		for (i = 0; i < batch; i++) {
			l.n = 0;
			if (probe_vendor_nvidia.parse(buf, (size_t)n, &l, &err) != GR_OK)
				return 1;
			sink += l.n;
		}
		parse[r] = (now_us() - t) / batch;
		t = now_us();
		for (i = 0; i < batch; i++)
			sink += floor_split(buf, (size_t)n);
		floor[r] = (now_us() - t) / batch;
	}
	qsort(parse, (size_t)runs, sizeof(double), cmp);
	qsort(floor, (size_t)runs, sizeof(double), cmp);
	printf("%zu GPUs, %ld bytes: parse %.2f us, floor %.2f us (median of %d x %d)\n",
	    l.n, n, parse[runs / 2], floor[runs / 2], runs, batch);
	sample_list_release(&l);
	free(buf);
	free(parse);
	free(floor);
	return (int)(sink == 0);
}
