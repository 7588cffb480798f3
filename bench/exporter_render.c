/*
 * exporter_render.c - the exporter's scrape path in one process, without HTTP: what a scrape
 * costs the exporter's thread, before and after the page is rendered at publish time.
 *
 *   exporter_render MODE N     MODE: render (the old scrape: the whole exposition formatted
 *                              from the snapshot), page (the scrape now: the page rendered
 *                              at publish, copied, the sample ages added), floor (a fresh
 *                              buffer of the same size, one memcpy: any answer from memory)
 *
 * The snapshot is the one bench/exporter.sh scrapes: 64 running simulated instances with 89
 * GPUs (1 to 8 each), the five figures a provider's API reports, prices, spend. Prints the
 * median and the fastest of N calls in microseconds and the body's size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/exporter.h"

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
snapshot(struct exporter_snapshot *s)
{
	static const int gpus[] = { 1, 1, 2, 1, 4, 1, 1, 8 };	/* 89 GPUs over 64 */
	size_t i;
	int k, g = 0;

	exporter_snapshot_init(s);
	s->taken = 1796119200;
	s->spent = xcalloc(64, sizeof(*s->spent));
	for (i = 0; i < 64; i++) {
		struct instance *in = instance_list_add(&s->instances);
		int n = i < 56 ? (i % 8 == 4 ? 2 : 1) : gpus[i - 56] > 1 ? 3 : 1;

		memset(in, 0, sizeof(*in));
		snprintf(in->id, sizeof(in->id), "sim:i-%06zu", i + 1);
		snprintf(in->provider, sizeof(in->provider), "sim");
		snprintf(in->gpu_raw, sizeof(in->gpu_raw), "RTX4090-24GB");
		snprintf(in->label, sizeof(in->label), "bench");
		in->state = ST_RUNNING;
		in->price_hour = 420000 + (int64_t)i * 1000;
		in->valid = IV_PRICE;
		s->spent[i] = 1234567 + (int64_t)i;
		for (k = 0; k < n && g < 89; k++, g++) {
			struct gpu_sample *x = sample_list_add(&s->samples);

			memset(x, 0, sizeof(*x));
			snprintf(x->instance_id, sizeof(x->instance_id), "%s", in->id);
			x->index = k;
			x->at = s->taken - 5;
			x->util_pct = 40 + g % 60;
			x->mem_used_mib = 12000 + g;
			x->mem_total_mib = 24564;
			x->temp_c = 50 + g % 30;
			x->power_w = 200 + g;
			x->power_limit_w = 450;
			x->valid = MV_UTIL | MV_MEM | MV_TEMP | MV_POWER | MV_POWER_LIMIT;
		}
	}
	s->burn_known = true;
	s->burn_hour = 64 * 420000;
}

int
main(int argc, char **argv)
{
	struct exporter_snapshot s;
	struct exporter_page page;
	struct sb body;
	double *t;
	int n, i;
	size_t len;

	if (argc != 3 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: exporter_render render|page|floor N\n");
		return 2;
	}
	snapshot(&s);
	exporter_page_init(&page);
	exporter_page_build(&s, &page);
	sb_init(&body);
	exporter_render(&s, s.taken + 10, &body);
	len = body.len;
	t = xcalloc((size_t)n, sizeof(*t));
	for (i = 0; i < n; i++) {
		struct sb out;
		double t0 = now_us();

		sb_init(&out);
		if (strcmp(argv[1], "render") == 0)
			exporter_render(&s, s.taken + 10, &out);
		else if (strcmp(argv[1], "page") == 0)
			exporter_page_render(&page, s.taken + 10, &out);
		else
			sb_add(&out, body.buf, body.len);
		if (out.len != len)
			return 1;	/* every mode answers the same bytes */
		sb_release(&out);
		t[i] = now_us() - t0;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%s: median %.1f us, fastest %.1f us, %zu bytes\n", argv[1], t[n / 2], t[0], len);
	free(t);
	sb_release(&body);
	exporter_page_release(&page);
	exporter_snapshot_release(&s);
	return 0;
}
