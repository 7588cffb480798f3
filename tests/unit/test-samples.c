/*
 * The sample history: every field stored and read back (unknown stays unknown), raw
 * retention folding into minute aggregates on the caller's clock, the month limit, buckets
 * that span both tables, and the summary that audit reads (idle time, p95, energy), from
 * the hourly roll-up for whole hours and minute rows at the range's cut hours; the roll-up
 * kept by compaction and retention and filled once on a database made before it; the
 * probe vendor kept with each GPU's series.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../state_under_test.h"
#include "../tmpdir.h"
#include <sqlite3.h>

#include "gpurent/history.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "../../src/store/store_int.h"	/* the tests read the tables themselves */

/* 2026-12-01T10:00:00Z, a whole hour */
#define T0 INT64_C(1796119200)

/* A call that must succeed, failing the test with its message. */
#define OK(call) do { \
	if ((call) != GR_OK) \
		fail_msg("%s", err.msg); \
} while (0)

/* The group's scratch directory, under $TMPDIR. */
static char dir[256];

static int
setup(void **state)
{
	(void)state;
	return test_tmpdir_make(dir, sizeof(dir), "samples");
}

static int
teardown(void **state)
{
	(void)state;
	return test_tmpdir_remove(dir);
}

static struct state *
open_db(const char *name)
{
	struct state *st;
	struct gr_error err = { 0 };
	char path[sizeof(dir) + 64];

	snprintf(path, sizeof(path), "%s/%s.db", dir, name);
	assert_int_equal(test_state_open(&st, path, &err), GR_OK);
	return st;
}

/* Filled through a pointer after a memset, so that padding compares equal too. */
static void
full_sample(struct gpu_sample *out, const char *id, int gpu, int64_t at)
{
	struct gpu_sample g;

	memset(&g, 0, sizeof(g));
	strlcpy_(g.instance_id, id, sizeof(g.instance_id));
	g.index = gpu;
	g.at = at;
	g.source = SAMPLE_SSH;
	g.util_pct = 87;
	g.mem_used_mib = 40000;
	g.mem_total_mib = 81559;
	g.temp_c = 71;
	g.power_w = 612;
	g.power_limit_w = 700;
	strlcpy_(g.uuid, "GPU-6f1c0b5e-1d2e-4c8a-9b1f-000000000001", sizeof(g.uuid));
	strlcpy_(g.name, "NVIDIA H100 80GB HBM3", sizeof(g.name));
	strlcpy_(g.driver, "550.54.15", sizeof(g.driver));
	strlcpy_(g.vendor, "nvidia", sizeof(g.vendor));
	g.mem_util_pct = 45;
	g.mem_free_mib = 41559;
	g.temp_mem_c = 80;
	g.power_enforced_w = 690;
	g.clk_sm_mhz = 1980;
	g.clk_mem_mhz = 2619;
	g.clk_sm_max_mhz = 1980;
	g.fan_pct = 33;
	g.pstate = 0;
	g.pcie_gen = 5;
	g.pcie_width = 16;
	g.enc_pct = 3;
	g.dec_pct = 4;
	g.ecc_uncorrected = INT64_C(5000000000);
	g.throttle = UINT64_C(0x4);
	g.compute_mode = 3;
	g.mig = 1;
	g.xid = 79;
	g.valid = (MV_XID << 1) - 1;	/* every bit up to MV_XID */
	memset(out, 0, sizeof(*out));
	memcpy(out, &g, sizeof(g));
}

static void
every_field_round_trips(void **state)
{
	struct state *st = open_db("fields");
	struct gr_error err = { 0 };
	struct gpu_sample in[2], want;
	struct sample_rows rows;
	struct sample_list latest;

	(void)state;
	full_sample(&in[0], "sim:i-000001", 0, T0);
	full_sample(&in[1], "sim:i-000001", 1, T0);
	/* GPU 1 knows only utilisation: the rest must come back unknown, not zero. */
	in[1].valid = MV_UTIL;
	in[1].source = SAMPLE_API;
	in[1].uuid[0] = in[1].name[0] = in[1].driver[0] = in[1].vendor[0] = '\0';
	OK(samples_store(st, in, 2, &err));

	sample_rows_init(&rows);
	OK(samples_history(st, "sim:i-000001", T0 - 60, 0, 0, &rows, &err));
	assert_int_equal(rows.n, 2);
	memcpy(&want, &in[0], sizeof(want));
	assert_int_equal(rows.v[0].step, 0);
	assert_memory_equal(&rows.v[0].s, &want, sizeof(want));
	assert_int_equal(rows.v[1].s.valid, MV_UTIL);
	assert_int_equal(rows.v[1].s.util_pct, 87);
	assert_int_equal(rows.v[1].s.source, SAMPLE_API);
	assert_string_equal(rows.v[1].s.uuid, "");
	assert_string_equal(rows.v[1].s.vendor, "");
	assert_true(rows.v[0].mean[SS_POWER] == 612 && rows.v[0].max[SS_TEMP] == 71);
	sample_rows_release(&rows);
	/* Buckets carry the vendor of their series too. */
	OK(samples_history(st, "sim:i-000001", T0 - 60, 0, 60, &rows, &err));
	assert_int_equal(rows.n, 2);
	assert_string_equal(rows.v[0].s.vendor, "nvidia");
	assert_string_equal(rows.v[1].s.vendor, "");
	sample_rows_release(&rows);

	/* A later sample replaces nothing but is the latest; another instance is apart. */
	in[0].at = T0 + 10;
	in[0].util_pct = 12;
	OK(samples_store(st, in, 1, &err));
	full_sample(&in[0], "sim:i-000002", 0, T0 + 5);
	OK(samples_store(st, in, 1, &err));
	sample_list_init(&latest);
	OK(samples_latest(st, "sim:i-000001", &latest, &err));
	assert_int_equal(latest.n, 2);
	assert_int_equal(latest.v[0].at, T0 + 10);
	assert_int_equal(latest.v[0].util_pct, 12);
	assert_string_equal(latest.v[0].uuid, "GPU-6f1c0b5e-1d2e-4c8a-9b1f-000000000001");
	assert_string_equal(latest.v[0].vendor, "nvidia");
	assert_int_equal(latest.v[1].at, T0);
	sample_list_release(&latest);
	sample_list_init(&latest);
	OK(samples_latest(st, NULL, &latest, &err));
	assert_int_equal(latest.n, 3);
	assert_string_equal(latest.v[2].instance_id, "sim:i-000002");
	sample_list_release(&latest);
	state_close(st);
}

/* Two days of 10 s samples of two GPUs: util = minute of the hour, GPU 1 unknown power. */
static void
store_two_days(struct state *st, const char *id)
{
	struct gr_error err = { 0 };
	struct gpu_sample *v = xcalloc(2 * 360, sizeof(*v));
	int64_t t, hour;
	size_t n;

	for (hour = 0; hour < 48; hour++) {
		n = 0;
		for (t = T0 + hour * 3600; t < T0 + (hour + 1) * 3600; t += 10) {
			int g;

			for (g = 0; g < 2; g++) {
				struct gpu_sample *s = &v[n++];

				memset(s, 0, sizeof(*s));
				strlcpy_(s->instance_id, id, sizeof(s->instance_id));
				s->index = g;
				s->at = t;
				s->util_pct = (int)((t - T0) / 60 % 60) + (int)((t - T0) % 60 / 10);
				s->temp_c = 50 + g;
				s->power_w = 300;
				s->throttle = (t / 10) % 2 ? 1 : 4;
				s->valid = MV_UTIL | MV_TEMP | MV_THROTTLE | (g == 0 ? MV_POWER : 0);
			}
		}
		OK(samples_store(st, v, n, &err));
	}
	free(v);
}

static int64_t
count(struct state *st, const char *sql)
{
	struct db_stmt *s;
	int64_t n = -1;

	assert_int_equal(db_prepare_v2(state_db(st), sql, -1, &s, NULL), DB_OK);
	if (db_step(s) == DB_ROW)
		n = db_column_int64(s, 0);
	db_finalize(s);
	return n;
}

static void
retention_folds_raw_into_minutes(void **state)
{
	struct state *st = open_db("retention");
	struct gr_error err = { 0 };
	int64_t now = T0 + 48 * 3600;	/* the end of the second day */
	struct sample_rows rows;
	size_t i;

	(void)state;
	store_two_days(st, "sim:i-000007");
	assert_int_equal(count(st, "SELECT count(*) FROM samples"), 2 * 48 * 360);
	OK(samples_compact(st, now, &err));
	/* The first day is minutes now, the second still raw. */
	assert_int_equal(count(st, "SELECT count(*) FROM samples"), 2 * 24 * 360);
	assert_int_equal(count(st, "SELECT min(at) FROM samples"), T0 + 24 * 3600);
	assert_int_equal(count(st, "SELECT count(*) FROM samples_minute"), 2 * 24 * 60);
	/* Compacting again at the same time changes nothing. */
	OK(samples_compact(st, now, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples_minute"), 2 * 24 * 60);

	/* Raw history of the first day is gone; minute history spans both days. */
	sample_rows_init(&rows);
	OK(samples_history(st, "sim:i-000007", T0, 0, 0, &rows, &err));
	assert_int_equal(rows.n, 2 * 24 * 360);
	sample_rows_release(&rows);
	OK(samples_history(st, "sim:i-000007", T0, 0, 60, &rows, &err));
	assert_int_equal(rows.n, 2 * 48 * 60);
	for (i = 0; i < rows.n; i++) {
		struct sample_row *r = &rows.v[i];
		int minute = (int)((r->s.at - T0) / 60 % 60);

		assert_int_equal(r->step, 60);
		assert_int_equal(r->n, 6);
		assert_int_equal(r->secs, 60);
		/* util is minute + 0..5 within the minute: min, mean 2.5 above, max 5 above */
		assert_true(r->min[SS_UTIL] == minute && r->max[SS_UTIL] == minute + 5);
		assert_true(r->mean[SS_UTIL] == minute + 2.5);
		assert_int_equal(r->s.throttle, 5);
		assert_int_equal(r->s.temp_c, 50 + r->s.index);
		/* GPU 1 never knew its power: unknown in its aggregates too */
		assert_int_equal(!!(r->s.valid & MV_POWER), r->s.index == 0);
	}
	sample_rows_release(&rows);

	/* Hourly buckets: 48 per GPU, each the mean of its minutes (29.5 + 2.5). */
	OK(samples_history(st, "sim:i-000007", T0, T0 + 48 * 3600, 3600, &rows,
	    &err));
	assert_int_equal(rows.n, 96);
	for (i = 0; i < rows.n; i++) {
		assert_int_equal(rows.v[i].n, 360);
		assert_true(rows.v[i].mean[SS_UTIL] == 32.0);
		assert_true(rows.v[i].min[SS_UTIL] == 0 && rows.v[i].max[SS_UTIL] == 64);
	}
	sample_rows_release(&rows);

	/* A bad step is refused. */
	assert_int_equal(samples_history(st, NULL, T0, 0, 90, &rows, &err), GR_EUSAGE);

	/* A month after the last sample everything is gone, the series too. */
	OK(samples_compact(st, now + 30 * 86400 + 86400, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples"), 0);
	assert_int_equal(count(st, "SELECT count(*) FROM samples_minute"), 0);
	assert_int_equal(count(st, "SELECT count(*) FROM sample_series"), 0);
	state_close(st);
}

static void
summary_counts_idle_energy_and_gaps(void **state)
{
	struct state *st = open_db("summary");
	struct gr_error err = { 0 };
	struct gpu_sample v[2];
	struct sample_summary *sum;
	size_t n;
	int64_t t;
	int g;

	(void)state;
	/*
	 * One hour at 10 s: the first half busy (GPU 0 at 90 %), the second idle (both 1 %),
	 * then a 10-minute gap and one more minute idle. Both GPUs draw 100 W.
	 */
	for (t = T0; t < T0 + 3600 + 60; t += 10) {
		for (g = 0; g < 2; g++) {
			memset(&v[g], 0, sizeof(v[g]));
			strlcpy_(v[g].instance_id, "sim:i-000009", sizeof(v[g].instance_id));
			v[g].index = g;
			v[g].at = t < T0 + 3600 ? t : t + 600;
			v[g].util_pct = t < T0 + 1800 && g == 0 ? 90 : 1;
			v[g].power_w = 100;
			v[g].valid = MV_UTIL | MV_POWER;
		}
		OK(samples_store(st, v, 2, &err));
	}
	OK(samples_summary(st, NULL, T0, 0, 5, &sum, &n, &err));
	assert_int_equal(n, 1);
	assert_string_equal(sum[0].instance_id, "sim:i-000009");
	assert_int_equal(sum[0].gpus, 2);
	assert_int_equal(sum[0].samples, 2 * 366);
	/*
	 * Covered: 3600 s less the last sample before the gap (capped at 120 s, not the
	 * 610 s gap) plus the minute after, whose last sample covers its gap before (10 s).
	 */
	assert_int_equal(sum[0].covered_s, 3590 + 120 + 60);
	assert_int_equal(sum[0].idle_s, 1790 + 120 + 60);
	assert_true(sum[0].util_known && sum[0].energy_known);
	/* p95 of the GPU-seconds: 1/4 of them at 90 % */
	assert_true(sum[0].util_p95 == 90);
	/* 2 GPUs x 100 W x covered seconds */
	assert_true(sum[0].energy_wh > 2 * 100 * 3769 / 3600.0 - 0.01 &&
	    sum[0].energy_wh < 2 * 100 * 3771 / 3600.0);
	free(sum);

	/* The same figures once the samples are minute aggregates. */
	OK(samples_compact(st, T0 + 4 * 86400, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples"), 0);
	OK(samples_summary(st, "sim:i-000009", T0, 0, 5, &sum, &n, &err));
	assert_int_equal(n, 1);
	assert_int_equal(sum[0].samples, 2 * 366);
	assert_int_equal(sum[0].covered_s, 3590 + 120 + 60);
	assert_int_equal(sum[0].idle_s, 1790 + 120 + 60);
	free(sum);

	/* An instance with no samples has no summary. */
	OK(samples_summary(st, "sim:i-404", T0, 0, 5, &sum, &n, &err));
	assert_int_equal(n, 0);
	free(sum);
	state_close(st);
}

/* One sample of GPU 0 of sim:i-000011 at t: utilisation util, 100 W. */
static void
store_one(struct state *st, int64_t t, int util)
{
	struct gr_error err = { 0 };
	struct gpu_sample v;

	memset(&v, 0, sizeof(v));
	strlcpy_(v.instance_id, "sim:i-000011", sizeof(v.instance_id));
	v.at = t;
	v.util_pct = util;
	v.power_w = 100;
	v.valid = MV_UTIL | MV_POWER;
	OK(samples_store(st, &v, 1, &err));
}

/*
 * The summary's p95 and idle time, hand-computed, on both sides of the raw/minute boundary:
 * 100 samples 10 s apart at utilisation 7i mod 100 (each value 0..99 once), one at 0 %
 * before a gap of 490 s, then two at 3 %.
 */
static void
summary_p95_and_idle_across_the_boundary(void **state)
{
	struct state *st = open_db("p95");
	struct gr_error err = { 0 };
	struct sample_summary *sum;
	size_t n;
	int i;

	(void)state;
	for (i = 0; i < 100; i++)
		store_one(st, T0 + 10 * i, 7 * i % 100);
	store_one(st, T0 + 1000, 0);
	store_one(st, T0 + 1490, 3);
	store_one(st, T0 + 1500, 3);
	OK(samples_summary(st, "sim:i-000011", T0, 0, 5, &sum, &n, &err));
	assert_int_equal(n, 1);
	assert_int_equal(sum[0].samples, 103);
	/* 100 x 10 s, the sample before the gap 120 s (not 490), the last two 10 s each */
	assert_int_equal(sum[0].covered_s, 1000 + 120 + 20);
	/* idle (below 5 %): values 0..4 (50 s), the 0 % before the gap (120 s), 2 x 3 % */
	assert_int_equal(sum[0].idle_s, 50 + 120 + 20);
	/*
	 * p95 of 1,140 GPU-seconds, want 1,083: up to 93 % there are 94 x 10 + 120 (the 0 %)
	 * + 20 (the 3 %) = 1,080 s, with 94 % 1,090 s.
	 */
	assert_true(sum[0].util_p95 == 94);
	assert_true(sum[0].util_mean > 49560 / 1140.0 - 1e-9 &&
	    sum[0].util_mean < 49560 / 1140.0 + 1e-9);
	free(sum);
	/* A threshold of 95 %: everything but the samples at 95..99 % is idle. */
	OK(samples_summary(st, "sim:i-000011", T0, 0, 95, &sum, &n, &err));
	assert_int_equal(sum[0].idle_s, 1140 - 50);
	free(sum);

	/*
	 * A day and ten minutes later the first ten minutes are minute rows. No minute is
	 * idle (each holds a sample of 35 % or more); of the raw samples left (i >= 60) 4 %
	 * (i = 72) and 2 % (i = 86) are, with the 0 % and the 3 %s. Seconds stay the same:
	 * the compaction saw the sample after each minute.
	 */
	OK(samples_compact(st, T0 + 86400 + 600, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples_minute"), 10);
	OK(samples_summary(st, NULL, T0, 0, 5, &sum, &n, &err));
	assert_int_equal(n, 1);
	assert_int_equal(sum[0].samples, 103);
	assert_int_equal(sum[0].covered_s, 1140);
	assert_int_equal(sum[0].idle_s, 20 + 120 + 20);
	free(sum);
	state_close(st);
}

/*
 * A bucket that spans the raw/minute boundary: an hour at 10 s, utilisation minute of the
 * hour + 0..5, compacted at half past so that its first half is minutes, the rest raw.
 */
static void
bucket_across_the_boundary(void **state)
{
	struct state *st = open_db("straddle");
	struct gr_error err = { 0 };
	struct sample_rows rows;
	int64_t t;

	(void)state;
	for (t = T0; t < T0 + 3600; t += 10)
		store_one(st, t, (int)((t - T0) / 60 + (t - T0) % 60 / 10));
	OK(samples_compact(st, T0 + 86400 + 1800, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples_minute"), 30);
	assert_int_equal(count(st, "SELECT count(*) FROM samples"), 180);
	sample_rows_init(&rows);
	/* Half-hours: minutes 0..29 (mean 14.5 + 2.5), then raw 30..59 (44.5 + 2.5). */
	OK(samples_history(st, "sim:i-000011", T0, 0, 1800, &rows, &err));
	assert_int_equal(rows.n, 2);
	assert_true(rows.v[0].mean[SS_UTIL] == 17 && rows.v[1].mean[SS_UTIL] == 47);
	assert_true(rows.v[0].min[SS_UTIL] == 0 && rows.v[0].max[SS_UTIL] == 34);
	assert_true(rows.v[1].min[SS_UTIL] == 30 && rows.v[1].max[SS_UTIL] == 64);
	assert_int_equal(rows.v[0].secs, 1800);
	assert_int_equal(rows.v[1].secs, 1800);
	sample_rows_release(&rows);
	/* One hour: both parts, weighted by their samples (180 each). */
	OK(samples_history(st, "sim:i-000011", T0, 0, 3600, &rows, &err));
	assert_int_equal(rows.n, 1);
	assert_int_equal(rows.v[0].n, 360);
	assert_int_equal(rows.v[0].secs, 3600);
	assert_true(rows.v[0].mean[SS_UTIL] == 32);
	assert_int_equal(rows.v[0].s.util_pct, 32);
	assert_true(rows.v[0].min[SS_UTIL] == 0 && rows.v[0].max[SS_UTIL] == 64);
	assert_true(rows.v[0].mean[SS_POWER] == 100);
	sample_rows_release(&rows);
	state_close(st);
}


/*
 * Three hours at 10 s of two GPUs from T0, compacted into minutes: in minute m (0..179)
 * GPU 0 reads m % 60 and m % 60 + 1 by turns (mean m % 60 + 0.5, highest m % 60 + 1) at
 * 200 W, GPU 1 reads 2 % at 100 W. Each minute row: 6 samples covering 60 s.
 */
static void
store_three_hours(struct state *st)
{
	struct gr_error err = { 0 };
	struct gpu_sample v[2];
	int64_t t;
	int g;

	for (t = T0; t < T0 + 3 * 3600; t += 10) {
		for (g = 0; g < 2; g++) {
			memset(&v[g], 0, sizeof(v[g]));
			strlcpy_(v[g].instance_id, "sim:i-000013", sizeof(v[g].instance_id));
			v[g].index = g;
			v[g].at = t;
			v[g].util_pct = g == 1 ? 2 : (int)((t - T0) / 60 % 60 + (t - T0) / 10 % 2);
			v[g].power_w = g == 1 ? 100 : 200;
			v[g].valid = MV_UTIL | MV_POWER;
		}
		OK(samples_store(st, v, 2, &err));
	}
}

/* store_three_hours, all of it compacted into minutes (and so into samples_hour). */
static void
store_three_hours_compacted(struct state *st)
{
	struct gr_error err = { 0 };

	store_three_hours(st);
	OK(samples_compact(st, T0 + 86400 + 3 * 3600, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples"), 0);
	assert_int_equal(count(st, "SELECT count(*) FROM samples_minute"), 2 * 180);
}

/*
 * The summary from the hourly roll-up for the whole hour inside the range and from minute
 * rows where the range cuts an hour, hand-computed. Range T0+30m .. T0+2h15m: minutes
 * 30..59 (cut hour), 60..119 (the whole hour, one samples_hour row), 120..134 (cut hour).
 */
static void
rollup_summary_across_whole_and_cut_hours(void **state)
{
	struct state *st = open_db("rollup");
	struct gr_error err = { 0 };
	struct sample_summary *sum;
	size_t n;

	(void)state;
	store_three_hours_compacted(st);
	assert_int_equal(count(st, "SELECT count(*) FROM samples_hour"), 3);
	assert_int_equal(count(st, "SELECT samples FROM samples_hour WHERE hour = 1796122800"),
	    2 * 60 * 6);
	OK(samples_summary(st, NULL, T0 + 1800, T0 + 2 * 3600 + 900, 5, &sum, &n, &err));
	assert_int_equal(n, 1);
	assert_int_equal(sum[0].gpus, 2);
	assert_int_equal(sum[0].first, T0 + 1800);
	assert_int_equal(sum[0].last, T0 + 2 * 3600 + 14 * 60);
	/* 105 minutes of 2 GPUs x 6 samples; 105 instants of 60 s */
	assert_int_equal(sum[0].samples, 1260);
	assert_int_equal(sum[0].covered_s, 6300);
	/*
	 * Idle below 5 %: a minute whose GPU 0 peaks under 5 (m % 60 < 4) and GPU 1 at 2:
	 * minutes 60..63 and 120..123, 8 x 60 s. Below 3 %: m % 60 < 2, 4 minutes. Below 2 %:
	 * never, GPU 1 is at 2 %, although GPU 0 alone would be idle in 4 minutes.
	 */
	assert_int_equal(sum[0].idle_s, 480);
	free(sum);
	OK(samples_summary(st, NULL, T0 + 1800, T0 + 2 * 3600 + 900, 3, &sum, &n, &err));
	assert_int_equal(sum[0].idle_s, 240);
	free(sum);
	OK(samples_summary(st, NULL, T0 + 1800, T0 + 2 * 3600 + 900, 2, &sum, &n, &err));
	assert_int_equal(sum[0].idle_s, 0);
	free(sum);
	OK(samples_summary(st, NULL, T0 + 1800, T0 + 2 * 3600 + 900, 100, &sum, &n, &err));
	assert_int_equal(sum[0].idle_s, 6300);
	/*
	 * 210 GPU-minutes: GPU 0 means 30.5..59.5, 0.5..59.5, 0.5..14.5 (sum 3262.5), GPU 1 105
	 * x 2: mean 3472.5 / 210. p95: 199.5 of 210 minutes; the top ten are 59.5, 58.5, 57.5,
	 * 56.5, 55.5 twice each, so the exact percentile is 54.5 and the summary says 54.
	 * Energy: 300 W x 6300 s.
	 */
	assert_true(sum[0].util_known);
	assert_true(sum[0].util_mean > 3472.5 / 210 - 1e-9 && sum[0].util_mean < 3472.5 / 210 + 1e-9);
	assert_true(sum[0].util_p95 == 54);
	assert_true(sum[0].energy_known && sum[0].energy_wh > 525 - 1e-9 &&
	    sum[0].energy_wh < 525 + 1e-9);
	free(sum);

	/*
	 * A range that starts 20 s into minute 30 leaves that minute out (a row is in a range
	 * when its minute starts in it), as before the roll-up.
	 */
	OK(samples_summary(st, NULL, T0 + 1820, T0 + 2 * 3600 + 900, 5, &sum, &n, &err));
	assert_int_equal(sum[0].samples, 1248);
	assert_int_equal(sum[0].covered_s, 6240);
	assert_int_equal(sum[0].first, T0 + 1860);
	free(sum);
	/* Whole hours only (T0+1h .. T0+3h): minutes 60..179, idle 4 + 4 minutes. */
	OK(samples_summary(st, NULL, T0 + 3600, T0 + 3 * 3600, 5, &sum, &n, &err));
	assert_int_equal(sum[0].samples, 2 * 120 * 6);
	assert_int_equal(sum[0].covered_s, 7200);
	assert_int_equal(sum[0].idle_s, 480);
	/* 240 GPU-minutes, want 228: the top 12 are 59.5..54.5 twice; the 13th is 53.5 */
	assert_true(sum[0].util_p95 == 53);
	free(sum);
	/* No whole hour inside (T0+10m .. T0+50m): minute rows only, minutes 10..49. */
	OK(samples_summary(st, NULL, T0 + 600, T0 + 3000, 5, &sum, &n, &err));
	assert_int_equal(sum[0].samples, 2 * 40 * 6);
	assert_int_equal(sum[0].idle_s, 0);
	/* 80 GPU-minutes, want 76: above 45.5 are 46.5..49.5, four */
	assert_true(sum[0].util_p95 == 45);
	free(sum);
	state_close(st);
}

/*
 * samples_hour follows the minutes: an hour that compaction fills in two steps is made
 * again each time, and retention cutting an hour leaves the row of what is left of it.
 */
static void
rollup_follows_compaction_and_retention(void **state)
{
	struct state *st = open_db("rollup-keep");
	struct gr_error err = { 0 };
	struct sample_summary *sum;
	size_t n;

	(void)state;
	store_three_hours(st);
	/* Raw samples before T0+1h30m become minutes: hour T0+1h has its first 30. */
	OK(samples_compact(st, T0 + 86400 + 5400, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples_hour"), 2);
	assert_int_equal(count(st, "SELECT samples FROM samples_hour WHERE hour = 1796122800"),
	    2 * 30 * 6);
	OK(samples_compact(st, T0 + 86400 + 3 * 3600, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples_hour"), 3);
	assert_int_equal(count(st, "SELECT samples FROM samples_hour WHERE hour = 1796122800"),
	    2 * 60 * 6);
	/* The whole hour T0+1h: minutes 60..119, idle below 5 % in 60..63. */
	OK(samples_summary(st, NULL, T0 + 3600, T0 + 7200, 5, &sum, &n, &err));
	assert_int_equal(n, 1);
	assert_int_equal(sum[0].samples, 720);
	assert_int_equal(sum[0].covered_s, 3600);
	assert_int_equal(sum[0].idle_s, 240);
	free(sum);

	/* Thirty days after T0+1h30m: hour T0 is gone, hour T0+1h keeps minutes 90..119. */
	OK(samples_compact(st, T0 + 30 * 86400 + 5400, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples_hour"), 2);
	assert_int_equal(count(st, "SELECT min(hour) FROM samples_hour"), T0 + 3600);
	assert_int_equal(count(st, "SELECT samples FROM samples_hour WHERE hour = 1796122800"),
	    2 * 30 * 6);
	OK(samples_summary(st, NULL, T0, T0 + 3 * 3600, 5, &sum, &n, &err));
	assert_int_equal(n, 1);
	assert_int_equal(sum[0].samples, 2 * 90 * 6);
	assert_int_equal(sum[0].first, T0 + 5400);
	/* idle: minutes 120..123 only (90..119 peak at 31 % and more) */
	assert_int_equal(sum[0].idle_s, 240);
	free(sum);
	state_close(st);
}

/*
 * A database made before samples_hour (the table dropped, as the old schema had none) gets
 * it filled from its minute rows when it is next used, with the same figures.
 */
static void
rollup_filled_once_on_upgrade(void **state)
{
	struct state *st;
	struct gr_error err = { 0 };
	struct sample_summary *sum;
	size_t n;

	(void)state;
	/* SQLite's upgrade of a database from before the table: a PostgreSQL one never was. */
	if (test_state_pg())
		skip();
	st = open_db("rollup-upgrade");
	store_three_hours_compacted(st);
	/* As a gpurent before samples_hour left it (it numbered no schema). */
	assert_int_equal(db_exec(state_db(st), "DROP TABLE samples_hour; "
	    "PRAGMA user_version = 0", NULL, NULL, NULL), DB_OK);
	state_close(st);
	st = open_db("rollup-upgrade");
	OK(samples_summary(st, NULL, T0 + 3600, T0 + 3 * 3600, 5, &sum, &n, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples_hour"), 3);
	assert_int_equal(n, 1);
	assert_int_equal(sum[0].samples, 2 * 120 * 6);
	assert_int_equal(sum[0].covered_s, 7200);
	assert_int_equal(sum[0].idle_s, 480);
	assert_true(sum[0].util_p95 == 53);
	free(sum);
	state_close(st);
}

/*
 * One GPU of sim:i-000021 at 10 s, hand-made with gaps and unknown figures:
 *   hour 0: minutes 0..19 utilisation m and m + 1 by turns (mean m + 0.5), 100 W, 60 C;
 *           no samples in minutes 20..39 (a gap); minutes 40..59 utilisation unknown;
 *   hour 1: utilisation unknown throughout, 200 W, 60 C;
 *   hour 2: nothing;
 *   hour 3: minutes 0..9 at 50 %, power unknown, 60 C.
 */
static void
store_gappy_hours(struct state *st)
{
	struct gr_error err = { 0 };
	struct gpu_sample v;
	int64_t t;

	for (t = T0; t < T0 + 3 * 3600 + 600; t += 10) {
		int64_t m = (t - T0) / 60;

		if ((m >= 20 && m < 40) || (m >= 120 && m < 180))
			continue;
		memset(&v, 0, sizeof(v));
		strlcpy_(v.instance_id, "sim:i-000021", sizeof(v.instance_id));
		v.at = t;
		v.temp_c = 60;
		v.valid = MV_TEMP;
		if (m < 20) {
			v.util_pct = (int)(m + (t - T0) / 10 % 2);
			v.valid |= MV_UTIL;
		}
		if (m < 120) {
			v.power_w = m < 60 ? 100 : 200;
			v.valid |= MV_POWER;
		} else {
			v.util_pct = 50;
			v.valid |= MV_UTIL;
		}
		OK(samples_store(st, &v, 1, &err));
	}
}

/*
 * The bucket [from, to) as the one-minute rows of the minute table make it: samples and
 * seconds added, the lowest minimum, the highest maximum, the mean of the minutes' means
 * weighted by their samples, each over the minutes that knew the figure.
 */
static bool
bucket_from_minutes(const struct sample_rows *m, int64_t from, int64_t to,
    struct sample_row *out)
{
	double num[SS__COUNT] = { 0 }, den[SS__COUNT] = { 0 };
	bool any = false;
	size_t i;
	int k;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < m->n; i++) {
		const struct sample_row *r = &m->v[i];

		if (r->s.at < from || r->s.at >= to)
			continue;
		assert_int_equal(r->step, 60);
		any = true;
		out->n += r->n;
		out->secs += r->secs;
		for (k = 0; k < SS__COUNT; k++) {
			uint32_t bit = sample_stat_bit((enum sample_stat)k);

			if (!(r->s.valid & bit))
				continue;
			if (!(out->s.valid & bit) || r->min[k] < out->min[k])
				out->min[k] = r->min[k];
			if (!(out->s.valid & bit) || r->max[k] > out->max[k])
				out->max[k] = r->max[k];
			out->s.valid |= bit;
			num[k] += r->mean[k] * r->n;
			den[k] += r->n;
		}
	}
	for (k = 0; k < SS__COUNT; k++)
		if (den[k] > 0)
			out->mean[k] = num[k] / den[k];
	return any;
}

/* Each row of a history of whole-hour steps against the same hours of the minute rows. */
static void
assert_hours_match_minutes(const struct sample_rows *h, const struct sample_rows *m,
    int64_t since, int64_t until)
{
	size_t i;
	int k;

	for (i = 0; i < h->n; i++) {
		const struct sample_row *r = &h->v[i];
		int64_t from = r->s.at > since ? r->s.at : since;
		int64_t to = r->s.at + r->step < until ? r->s.at + r->step : until;
		struct sample_row want;

		assert_true(bucket_from_minutes(m, from, to, &want));
		assert_int_equal(r->n, want.n);
		assert_int_equal(r->secs, want.secs);
		for (k = 0; k < SS__COUNT; k++) {
			uint32_t bit = sample_stat_bit((enum sample_stat)k);

			assert_int_equal(r->s.valid & bit, want.s.valid & bit);
			if (!(want.s.valid & bit))
				continue;
			assert_true(r->min[k] == want.min[k]);
			assert_true(r->max[k] == want.max[k]);
			assert_true(r->mean[k] == want.mean[k]);
		}
	}
}

/*
 * History in steps of whole hours reads samples_gpu_hour for the whole hours of the range
 * and minute rows where the range cuts an hour, and says what the minute rows say: the
 * figures hand-computed, each row equal to its minutes' (gaps and unknown figures included:
 * an hour whose utilisation no sample knew has it unknown, not 0), the roll-up made by
 * compactions in two steps, and made again from the minute rows on a database without it.
 */
static void
gpu_hours_answer_as_the_minutes_do(void **state)
{
	struct state *st = open_db("gpu-hours");
	struct gr_error err = { 0 };
	struct sample_rows m, h, again;

	(void)state;
	store_gappy_hours(st);
	/* Half of hour 1 first, then the rest: the hour is made again from all its minutes. */
	OK(samples_compact(st, T0 + 86400 + 5400, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples_gpu_hour"), 2);
	assert_int_equal(count(st, "SELECT n FROM samples_gpu_hour WHERE hour = 1796122800"),
	    180);
	OK(samples_compact(st, T0 + 86400 + 4 * 3600, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples"), 0);
	assert_int_equal(count(st, "SELECT count(*) FROM samples_gpu_hour"), 3);
	assert_int_equal(count(st, "SELECT n FROM samples_gpu_hour WHERE hour = 1796122800"),
	    360);

	sample_rows_init(&m);
	sample_rows_init(&h);
	sample_rows_init(&again);
	OK(samples_history(st, "sim:i-000021", T0, 0, 60, &m, &err));
	assert_int_equal(m.n, 20 + 20 + 60 + 10);
	OK(samples_history(st, "sim:i-000021", T0, 0, 3600, &h, &err));
	assert_int_equal(h.n, 3);
	/*
	 * Hour 0: 240 samples; 119 x 10 s, the one before the gap 120 s (not 1210), 120 x 10 s.
	 * Utilisation over minutes 0..19 only: mean 10 (0.5..19.5), 0..20; 100 W; 60 C.
	 */
	assert_int_equal(h.v[0].s.at, T0);
	assert_int_equal(h.v[0].n, 240);
	assert_int_equal(h.v[0].secs, 1190 + 120 + 1200);
	assert_true(h.v[0].s.valid & MV_UTIL);
	assert_true(h.v[0].mean[SS_UTIL] == 10 && h.v[0].min[SS_UTIL] == 0 &&
	    h.v[0].max[SS_UTIL] == 20);
	assert_true(h.v[0].mean[SS_POWER] == 100 && h.v[0].mean[SS_TEMP] == 60);
	/* Hour 1: utilisation unknown, never 0; the last sample covers 120 s of the gap. */
	assert_int_equal(h.v[1].s.at, T0 + 3600);
	assert_int_equal(h.v[1].n, 360);
	assert_int_equal(h.v[1].secs, 3590 + 120);
	assert_false(h.v[1].s.valid & MV_UTIL);
	assert_true(h.v[1].mean[SS_POWER] == 200 && h.v[1].max[SS_POWER] == 200);
	/* Hour 2 has no row; hour 3: 60 samples at 50 %, power unknown. */
	assert_int_equal(h.v[2].s.at, T0 + 3 * 3600);
	assert_int_equal(h.v[2].n, 60);
	assert_int_equal(h.v[2].secs, 600);
	assert_true(h.v[2].mean[SS_UTIL] == 50);
	assert_false(h.v[2].s.valid & MV_POWER);
	assert_hours_match_minutes(&h, &m, T0, INT64_MAX);
	sample_rows_release(&h);

	/* Two-hour steps, and a range that cuts hours 0 and 3 (their minutes are read). */
	OK(samples_history(st, "sim:i-000021", T0, 0, 7200, &h, &err));
	assert_int_equal(h.n, 2);
	assert_hours_match_minutes(&h, &m, T0, INT64_MAX);
	sample_rows_release(&h);
	OK(samples_history(st, "sim:i-000021", T0 + 610, T0 + 3 * 3600 + 300, 3600, &h, &err));
	assert_int_equal(h.n, 3);
	assert_int_equal(h.v[0].n, 9 * 6 + 120);
	assert_int_equal(h.v[2].n, 30);
	assert_hours_match_minutes(&h, &m, T0 + 610, T0 + 3 * 3600 + 300);

	/* A database made before samples_gpu_hour: filled on first use, the same answers
	 * (SQLite's upgrade: a PostgreSQL database never was without it). */
	if (!test_state_pg()) {
		assert_int_equal(db_exec(state_db(st), "DROP TABLE samples_gpu_hour; "
		    "PRAGMA user_version = 0", NULL, NULL, NULL), DB_OK);
		state_close(st);
		st = open_db("gpu-hours");
		OK(samples_history(st, "sim:i-000021", T0 + 610, T0 + 3 * 3600 + 300, 3600,
		    &again, &err));
		assert_int_equal(count(st, "SELECT count(*) FROM samples_gpu_hour"), 3);
		assert_int_equal(again.n, h.n);
		assert_memory_equal(again.v, h.v, h.n * sizeof(*h.v));
		sample_rows_release(&again);
	}
	sample_rows_release(&h);
	sample_rows_release(&m);

	/* Retention drops the hours with their minutes, and makes the cut hour again. */
	OK(samples_compact(st, T0 + 30 * 86400 + 1800, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples_gpu_hour"), 3);
	assert_int_equal(count(st, "SELECT n FROM samples_gpu_hour WHERE hour = 1796119200"),
	    120);
	state_close(st);
}

/*
 * Two hours at 10 s of a two-node Slurm job (session.h, session_record: each node's GPUs kept as ID/NODE),
 * GPU 0 on each node, and a job whose id sorts between the job's and its nodes' ("-" is
 * before "/"). By ten-minute blocks b = 0..11: n1 at 2 % (200 W) in blocks 0..5, 80 %
 * after; n2 at 1 % (100 W) in blocks 0..2 and 6..8, 60 % in the others; the neighbour at
 * 90 % (50 W) throughout.
 */
static void
store_two_nodes(struct state *st)
{
	static const char *const ids[] = { "slurm:77/n1", "slurm:77/n2", "slurm:77-b" };
	struct gr_error err = { 0 };
	struct gpu_sample v[3];
	int64_t t;
	int k, b;

	for (t = T0; t < T0 + 7200; t += 10) {
		b = (int)((t - T0) / 600);
		for (k = 0; k < 3; k++) {
			memset(&v[k], 0, sizeof(v[k]));
			strlcpy_(v[k].instance_id, ids[k], sizeof(v[k].instance_id));
			v[k].at = t;
			v[k].util_pct = k == 0 ? (b < 6 ? 2 : 80) :
			    k == 1 ? (b % 6 < 3 ? 1 : 60) : 90;
			v[k].power_w = k == 0 ? 200 : k == 1 ? 100 : 50;
			v[k].valid = MV_UTIL | MV_POWER;
		}
		OK(samples_store(st, v, 3, &err));
	}
}

/* The summary of store_two_nodes' job over [T0, T0 + 2 h): both nodes, hand-computed. */
static void
assert_two_nodes(const struct sample_summary *sum, size_t n)
{
	assert_int_equal(n, 2);
	assert_string_equal(sum[0].instance_id, "slurm:77");
	assert_string_equal(sum[1].instance_id, "slurm:77-b");
	/* GPU 0 of n1 and GPU 0 of n2: two GPUs, not one index */
	assert_int_equal(sum[0].gpus, 2);
	assert_int_equal(sum[0].samples, 2 * 720);
	assert_int_equal(sum[0].covered_s, 7200);
	/* idle below 5 % only while both nodes are: blocks 0..2 (n2 idles in 6..8 alone) */
	assert_int_equal(sum[0].idle_s, 1800);
	/* n1: (3600 x 2 + 3600 x 80) / 7200 = 41, n2: (3600 x 1 + 3600 x 60) / 7200 = 30.5 */
	assert_true(sum[0].util_known && fabs(sum[0].util_mean - 35.75) < 1e-9);
	assert_true(sum[0].util_p95 == 80);
	/* (200 W + 100 W) x 2 h */
	assert_true(sum[0].energy_known && fabs(sum[0].energy_wh - 600) < 1e-9);
	assert_int_equal(sum[1].gpus, 1);
	assert_int_equal(sum[1].idle_s, 0);
	assert_true(fabs(sum[1].energy_wh - 100) < 1e-9);
}

/*
 * A multi-node job is one instance to a summary (audit) and to its history (the
 * dashboard): every node's GPUs, each GPU its own, an instant idle only when every GPU
 * of every node is. From raw samples, then from the hourly roll-up and cut hours' minutes.
 */
static void
summary_and_history_span_every_node(void **state)
{
	struct state *st = open_db("nodes");
	struct gr_error err = { 0 };
	struct sample_summary *sum;
	struct sample_rows rows;
	size_t n, i, n1 = 0, n2 = 0;

	(void)state;
	store_two_nodes(st);
	OK(samples_summary(st, NULL, T0, T0 + 7200, 5, &sum, &n, &err));
	assert_two_nodes(sum, n);
	free(sum);
	OK(samples_summary(st, "slurm:77", T0, T0 + 7200, 5, &sum, &n, &err));
	assert_int_equal(n, 1);
	assert_int_equal(sum[0].idle_s, 1800);
	assert_int_equal(sum[0].gpus, 2);
	free(sum);

	/* The job's history: each node's rows under its ID/NODE, the neighbour's not. */
	sample_rows_init(&rows);
	OK(samples_history(st, "slurm:77", T0, 0, 0, &rows, &err));
	for (i = 0; i < rows.n; i++) {
		n1 += strcmp(rows.v[i].s.instance_id, "slurm:77/n1") == 0;
		n2 += strcmp(rows.v[i].s.instance_id, "slurm:77/n2") == 0;
	}
	assert_int_equal(rows.n, 2 * 720);
	assert_int_equal(n1, 720);
	assert_int_equal(n2, 720);
	sample_rows_release(&rows);

	/* Compacted: the job's hours are rolled up as one instance's. */
	OK(samples_compact(st, T0 + 86400 + 7200, &err));
	assert_int_equal(count(st, "SELECT count(*) FROM samples"), 0);
	assert_int_equal(count(st, "SELECT count(*) FROM samples_hour WHERE instance_id = "
	    "'slurm:77'"), 2);
	assert_int_equal(count(st, "SELECT count(*) FROM samples_hour WHERE instance_id LIKE "
	    "'%/%'"), 0);
	OK(samples_summary(st, NULL, T0, T0 + 7200, 5, &sum, &n, &err));
	assert_two_nodes(sum, n);
	free(sum);
	/* The first hour's last half from minute rows, the second hour whole: no instant idle. */
	OK(samples_summary(st, NULL, T0 + 1800, T0 + 7200, 5, &sum, &n, &err));
	assert_int_equal(n, 2);
	assert_int_equal(sum[0].gpus, 2);
	assert_int_equal(sum[0].covered_s, 5400);
	assert_int_equal(sum[0].idle_s, 0);
	free(sum);
	/* Only the whole second hour: both GPUs are still counted. */
	OK(samples_summary(st, "slurm:77", T0 + 3600, T0 + 7200, 5, &sum, &n, &err));
	assert_int_equal(n, 1);
	assert_int_equal(sum[0].gpus, 2);
	assert_int_equal(sum[0].idle_s, 0);
	free(sum);
	state_close(st);
}

/*
 * The summary of every instance reads their series in batches (history.c,
 * SAMPLES_SUMMARY_BATCH): more instances of 1 or 2 GPUs than a batch has series, and a
 * two-node job, each with
 * minute rows in the range's cut hour, whole hours from the roll-up and raw samples, give
 * for each instance exactly what its own summary gives.
 */
static void
summary_of_all_as_each_alone(void **state)
{
	struct state *st = open_db("batches");
	struct gr_error err = { 0 };
	struct sample_summary *all, *one;
	/* The last is the two-node job. */
	const size_t n_inst = SAMPLES_SUMMARY_BATCH + 12, job = n_inst - 1;
	struct gpu_sample *v = xcalloc(2 * n_inst, sizeof(*v));
	int64_t t, base;
	size_t n, n1, i, k, series = 0;
	int g, pass;

	(void)state;
	/* Three hours every 20 minutes, kept a day and then folded; then an hour raw. */
	for (pass = 0; pass < 2; pass++) {
		base = pass == 0 ? T0 : T0 + 86400 + 3 * 3600;
		for (t = base; t < base + (pass == 0 ? 3 : 1) * 3600; t += 1200) {
			for (i = 0, k = 0; i < n_inst; i++)
				for (g = 0; g < (i == job || i % 10 == 0 ? 2 : 1); g++, k++) {
					memset(&v[k], 0, sizeof(v[k]));
					if (i == job)
						snprintf(v[k].instance_id, sizeof(v[k].instance_id),
						    "slurm:9/n%d", g);
					else
						snprintf(v[k].instance_id, sizeof(v[k].instance_id),
						    "sim:i-%06zu", i);
					v[k].index = i == job ? 0 : g;
					v[k].at = t;
					v[k].util_pct = (int)((i * 7 + (size_t)g * 3 +
					    (size_t)((t - T0) / 600)) % 100);
					v[k].power_w = 100 + (int)i;
					v[k].valid = MV_UTIL | MV_POWER;
				}
			series = k;
			OK(samples_store(st, v, k, &err));
		}
		if (pass == 0)
			OK(samples_compact(st, T0 + 86400 + 3 * 3600, &err));
	}
	assert_true(series > SAMPLES_SUMMARY_BATCH);
	assert_int_equal(count(st, "SELECT count(*) FROM samples_minute") > 0 &&
	    count(st, "SELECT count(*) FROM samples_hour") > 0 &&
	    count(st, "SELECT count(*) FROM samples") > 0, 1);
	OK(samples_summary(st, NULL, T0 + 1800, T0 + 86400 + 4 * 3600, 30, &all, &n, &err));
	assert_int_equal(n, n_inst);
	for (i = 0, k = 0; i < n; i++) {
		k += (size_t)all[i].gpus;
		OK(samples_summary(st, all[i].instance_id, T0 + 1800, T0 + 86400 + 4 * 3600, 30,
		    &one, &n1, &err));
		assert_int_equal(n1, 1);
		assert_string_equal(one[0].instance_id, all[i].instance_id);
		assert_int_equal(one[0].gpus, all[i].gpus);
		assert_int_equal(one[0].first, all[i].first);
		assert_int_equal(one[0].last, all[i].last);
		assert_int_equal(one[0].samples, all[i].samples);
		assert_int_equal(one[0].covered_s, all[i].covered_s);
		assert_int_equal(one[0].idle_s, all[i].idle_s);
		assert_true(one[0].util_known == all[i].util_known &&
		    one[0].util_mean == all[i].util_mean && one[0].util_p95 == all[i].util_p95);
		assert_true(one[0].energy_known == all[i].energy_known &&
		    one[0].energy_wh == all[i].energy_wh);
		free(one);
	}
	/* Every GPU seen, each node's its own; the job's two nodes are one instance. */
	assert_int_equal(k, series);
	assert_string_equal(all[job].instance_id, "slurm:9");
	assert_int_equal(all[job].gpus, 2);
	/* A GPU's samples from 10:30 to 12:40 (7, folded: 1 in the cut hour's minutes, 6 in
	 * whole hours) and the raw hour's 3. */
	assert_int_equal(all[1].samples, 10);
	free(all);
	free(v);
	state_close(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_field_round_trips),
		cmocka_unit_test(retention_folds_raw_into_minutes),
		cmocka_unit_test(summary_counts_idle_energy_and_gaps),
		cmocka_unit_test(summary_p95_and_idle_across_the_boundary),
		cmocka_unit_test(bucket_across_the_boundary),
		cmocka_unit_test(rollup_summary_across_whole_and_cut_hours),
		cmocka_unit_test(rollup_follows_compaction_and_retention),
		cmocka_unit_test(rollup_filled_once_on_upgrade),
		cmocka_unit_test(gpu_hours_answer_as_the_minutes_do),
		cmocka_unit_test(summary_and_history_span_every_node),
		cmocka_unit_test(summary_of_all_as_each_alone),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
