/*
 * probe_parse.c - time one accelerator probe vendor's parser on a recorded 8-device sample
 * (bench/probes.sh builds and runs it). For each VENDOR:FILE argument prints a Markdown row:
 * the median over RUNS runs of ITER parses each, per parse, against a floor measured in the
 * same run: reading every byte of the same text once (a newline count by memchr, and a sum so
 * that nothing is optimised away), the least any parser of it must do.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/probe.h"

#define RUNS 9
#define ITER 2000

static volatile uint64_t sink;

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
floor_scan(const char *p, size_t n)
{
	const char *e = p + n, *q;
	uint64_t lines = 0, sum = 0;
	size_t i;

	for (q = p; (q = memchr(q, '\n', (size_t)(e - q))) != NULL; q++)
		lines++;
	for (i = 0; i < n; i++)
		sum += (unsigned char)p[i];
	sink += lines + sum;
}

int
main(int argc, char **argv)
{
	int a;

	printf("| vendor | recording | devices | bytes | floor (read every byte) | parse | ratio |\n");
	printf("|---|---|---:|---:|---:|---:|---:|\n");
	for (a = 1; a < argc; a++) {
		char *colon = strchr(argv[a], ':'), *buf;
		const struct probe_vendor *v;
		double tf[RUNS], tp[RUNS];
		struct sample_list l;
		struct gr_error err = { 0 };
		size_t len, devices = 0;
		FILE *f;
		int r, k;

		if (colon == NULL)
			return 2;
		*colon = '\0';
		if ((v = probe_vendor_find(argv[a])) == NULL || (f = fopen(colon + 1, "rb")) == NULL)
			return 2;
		fseek(f, 0, SEEK_END);
		len = (size_t)ftell(f);
		rewind(f);
		buf = malloc(len);
		if (fread(buf, 1, len, f) != len)
			return 2;
		fclose(f);
		for (r = 0; r < RUNS; r++) {
			double t0 = now_ns();

			for (k = 0; k < ITER; k++)
				floor_scan(buf, len);
			tf[r] = (now_ns() - t0) / ITER;
			t0 = now_ns();
			for (k = 0; k < ITER; k++) {
				sample_list_init(&l);
				if (v->parse(buf, len, &l, &err) != GR_OK)
					return 1;
				devices = l.n;
				sample_list_release(&l);
			}
			tp[r] = (now_ns() - t0) / ITER;
		}
		qsort(tf, RUNS, sizeof(tf[0]), cmp);
		qsort(tp, RUNS, sizeof(tp[0]), cmp);
		printf("| %s | %s | %zu | %zu | %.1f µs | %.1f µs | %.0f |\n", argv[a],
		    strrchr(colon + 1, '/') ? strrchr(colon + 1, '/') + 1 : colon + 1, devices, len,
		    tf[RUNS / 2] / 1e3, tp[RUNS / 2] / 1e3, tp[RUNS / 2] / tf[RUNS / 2]);
		free(buf);
	}
	return 0;
}
