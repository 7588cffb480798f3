/*
 * audit (src/guard/audit.c) against a fixture computed by hand: ledger segments and GPU
 * samples written to a real state database, on the simulator's clock.
 *
 * The hour [T0, T0 + 1 h), audited at now = T0 + 1 h:
 *   sim:i-1  label train, H100-SXM-80GB, $2.00/h the whole hour; one GPU sampled every
 *            minute: util 0 % at 100 W for 30 minutes, then 80 % at 500 W for 30.
 *            -> billed 1 h, spend $2.00, idle 1800 s = 50 %, waste $1.00, util mean 40 %,
 *            p95 80 %, 1 GPU-hour, $5.00 per utilised GPU-hour, energy (30 min x 100 W +
 *            30 min x 500 W) = 0.3 kWh measured; region eu-north 40 g/kWh -> 0.012 kg.
 *   sim:i-2  label train, A100-SXM-80GB, $1.00/h from T0 + 30 min, still open; no samples;
 *            listed now with 2 GPUs -> billed 0.5 h, spend $0.50, 1 GPU-hour, util and
 *            energy unknown.
 *   sim:i-3  no label, storage only at $0.10/h the whole hour -> spend $0.10, billed 0.
 *   sim:i-4  no label, H100-SXM-80GB, $3.00/h the whole hour; util 50 % every minute and
 *            no power -> energy estimated: 700 W TDP x 1 GPU x 1 h x 50 % = 0.35 kWh.
 *   total    billed 2.5 h, spend $5.60, idle 1800 s, waste $1.00.
 * A segment before the window (T0 - 2 h to T0 - 1 h) must count for nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../tmpdir.h"

#include "gpurent/audit.h"
#include "gpurent/catalogue.h"
#include "gpurent/samples.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

#define USD(d) ((int64_t)((d) * 1000000.0 + 0.5))
#define T0 INT64_C(1789999200)	/* a whole minute */
#define HOUR 3600

/* The group's scratch directory, under $TMPDIR. */
static char dir[256];
static struct state *st;

static void
seg(const char *id, const char *label, const char *gpu, enum ledger_kind k, double rate,
    int64_t start, int64_t end)
{
	struct ledger_seg g;
	struct gr_error err = { 0 };

	memset(&g, 0, sizeof(g));
	strlcpy_(g.instance_id, id, sizeof(g.instance_id));
	strlcpy_(g.provider, "sim", sizeof(g.provider));
	strlcpy_(g.label, label, sizeof(g.label));
	strlcpy_(g.gpu, gpu, sizeof(g.gpu));
	g.kind = k;
	g.rate_hour = USD(rate);
	g.start = start;
	assert_int_equal(ledger_begin(st, &g, &err), GR_OK);
	if (end != 0)
		assert_int_equal(ledger_end(st, id, end, &err), GR_OK);
}

/* One sample a minute of GPU 0 over the hour: util(minute), power(minute) (< 0: unknown). */
static void
samples(const char *id, int (*util)(int), int (*power)(int))
{
	struct gpu_sample v[60];
	struct gr_error err = { 0 };
	int m;

	memset(v, 0, sizeof(v));
	for (m = 0; m < 60; m++) {
		strlcpy_(v[m].instance_id, id, sizeof(v[m].instance_id));
		v[m].at = T0 + m * 60;
		v[m].source = SAMPLE_API;
		v[m].util_pct = util(m);
		v[m].valid = MV_UTIL;
		if (power(m) >= 0) {
			v[m].power_w = power(m);
			v[m].valid |= MV_POWER;
		}
	}
	assert_int_equal(samples_store(st, v, 60, &err), GR_OK);
}

static int half_idle_util(int m) { return m < 30 ? 0 : 80; }
static int half_idle_power(int m) { return m < 30 ? 100 : 500; }
static int steady_util(int m) { (void)m; return 50; }
static int no_power(int m) { (void)m; return -1; }

static int
setup(void **state)
{
	char path[sizeof(dir) + 16];
	struct gr_error err = { 0 };

	(void)state;
	if (test_tmpdir_make(dir, sizeof(dir), "audit") != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/state.db", dir);
	if (state_open(&st, path, &err) != GR_OK)
		return -1;
	seg("sim:i-1", "train", "H100-SXM-80GB", LEDGER_COMPUTE, 2.00, T0, T0 + HOUR);
	seg("sim:i-2", "train", "A100-SXM-80GB", LEDGER_COMPUTE, 1.00, T0 + HOUR / 2, 0);
	seg("sim:i-3", "", "H100-SXM-80GB", LEDGER_STORAGE, 0.10, T0, T0 + HOUR);
	seg("sim:i-4", "", "H100-SXM-80GB", LEDGER_COMPUTE, 3.00, T0, T0 + HOUR);
	seg("sim:i-9", "old", "H100-SXM-80GB", LEDGER_COMPUTE, 9.00, T0 - 2 * HOUR, T0 - HOUR);
	samples("sim:i-1", half_idle_util, half_idle_power);
	samples("sim:i-4", steady_util, no_power);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	state_close(st);
	return test_tmpdir_remove(dir);
}

static const struct audit_live live[] = {
	{ "sim:i-1", "eu-north", 1 },
	{ "sim:i-2", "na-east", 2 },
};

static void
run_at(enum audit_group by, const char *grid, int idle_pct, struct audit_report *rep)
{
	struct cost_clock clk = { T0 + HOUR, T0 + HOUR, true };
	struct audit_opts o;
	struct gr_error err = { 0 };

	memset(&o, 0, sizeof(o));
	o.span_s = HOUR;
	o.clock = &clk;
	o.idle_pct = idle_pct;
	o.target_pct = 85;
	o.grid = grid;
	o.by = by;
	o.live = live;
	o.n_live = ARRAY_LEN(live);
	assert_int_equal(audit_compute(st, &o, rep, &err), GR_OK);
}

static void
run(enum audit_group by, const char *grid, struct audit_report *rep)
{
	run_at(by, grid, 5, rep);
}

static const struct audit_row *
find(const struct audit_report *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->rows[i].key, key) == 0)
			return &r->rows[i];
	fail_msg("no row '%s'", key);
	return NULL;
}

static void
per_instance(void **state)
{
	struct audit_report r;
	const struct audit_row *w;

	(void)state;
	run(AG_INSTANCE, NULL, &r);
	assert_int_equal(r.n, 4);	/* sim:i-9 lies before the window */
	assert_string_equal(r.rows[0].key, "sim:i-4");	/* largest spend first */

	w = find(&r, "sim:i-1");
	assert_int_equal(w->billed_s, HOUR);
	assert_int_equal(w->spend, USD(2.00));
	assert_int_equal(w->idle_s, 1800);
	assert_true(audit_idle_share(w) == 0.5);
	assert_int_equal(w->waste, USD(1.00));
	assert_true(w->util_known);
	assert_true(w->util_mean > 39.99 && w->util_mean < 40.01);
	assert_true(w->util_p95 > 79.99 && w->util_p95 < 80.01);
	assert_true(w->gpu_hours > 0.999 && w->gpu_hours < 1.001);
	assert_int_equal(audit_eff_gpu_hour(w), USD(5.00));
	assert_true(w->energy_known && !w->energy_estimated);
	assert_true(w->energy_kwh > 0.2999 && w->energy_kwh < 0.3001);
	assert_true(w->co2_known && w->co2_kg > 0.01199 && w->co2_kg < 0.01201);

	w = find(&r, "sim:i-2");
	assert_int_equal(w->billed_s, HOUR / 2);
	assert_int_equal(w->spend, USD(0.50));
	assert_false(w->util_known);
	assert_true(w->gpus_known && w->gpu_hours > 0.999 && w->gpu_hours < 1.001);
	assert_int_equal(audit_eff_gpu_hour(w), -1);
	assert_false(w->energy_known);
	assert_false(w->co2_known);

	w = find(&r, "sim:i-3");
	assert_int_equal(w->billed_s, 0);
	assert_int_equal(w->spend, USD(0.10));
	assert_true(audit_idle_share(w) < 0);

	w = find(&r, "sim:i-4");
	assert_int_equal(w->idle_s, 0);
	assert_int_equal(w->waste, 0);
	assert_true(w->energy_known && w->energy_estimated);
	assert_true(w->energy_kwh > 0.3499 && w->energy_kwh < 0.3501);
	assert_false(w->co2_known);	/* not listed: no region */

	assert_int_equal(r.total.billed_s, 2 * HOUR + HOUR / 2);
	assert_int_equal(r.total.spend, USD(5.60));
	assert_int_equal(r.total.idle_s, 1800);
	assert_int_equal(r.total.waste, USD(1.00));
	assert_int_equal(r.total.instances, 4);
	assert_true(r.total.energy_estimated);
	assert_true(r.total.energy_kwh > 0.6499 && r.total.energy_kwh < 0.6501);
	audit_report_release(&r);
}

/*
 * idle.threshold counts a GPU at the threshold as idle ("at or below", as watch does): a GPU
 * at exactly the threshold is idle, one a percent above it is not.
 */
static void
idle_at_the_threshold(void **state)
{
	struct audit_report r;

	(void)state;
	run_at(AG_INSTANCE, NULL, 50, &r);	/* sim:i-4 is at 50 % all hour */
	assert_int_equal(find(&r, "sim:i-4")->idle_s, HOUR);
	assert_int_equal(find(&r, "sim:i-4")->waste, USD(3.00));
	audit_report_release(&r);
	run_at(AG_INSTANCE, NULL, 49, &r);
	assert_int_equal(find(&r, "sim:i-4")->idle_s, 0);
	audit_report_release(&r);
	run_at(AG_INSTANCE, NULL, 0, &r);	/* sim:i-1: 0 % for 30 min, then 80 % */
	assert_int_equal(find(&r, "sim:i-1")->idle_s, 1800);
	audit_report_release(&r);
	run_at(AG_INSTANCE, NULL, 80, &r);
	assert_int_equal(find(&r, "sim:i-1")->idle_s, HOUR);
	audit_report_release(&r);
	run_at(AG_INSTANCE, NULL, 79, &r);
	assert_int_equal(find(&r, "sim:i-1")->idle_s, 1800);
	audit_report_release(&r);
}

static void
grouped_and_overridden(void **state)
{
	struct audit_report r;
	const struct audit_row *w;

	(void)state;
	run(AG_LABEL, "eu=500,eu-north=100", &r);
	assert_int_equal(r.n, 2);
	w = find(&r, "train");
	assert_int_equal(w->instances, 2);
	assert_int_equal(w->spend, USD(2.50));
	assert_int_equal(w->billed_s, HOUR + HOUR / 2);
	assert_int_equal(w->waste, USD(1.00));
	/* util known for sim:i-1 only: its mean, its p95 */
	assert_true(w->util_mean > 39.99 && w->util_mean < 40.01);
	/* the longest matching override: eu-north at 100 g/kWh */
	assert_true(w->co2_kg > 0.02999 && w->co2_kg < 0.03001);
	w = find(&r, "");
	assert_int_equal(w->spend, USD(3.10));
	audit_report_release(&r);
	run(AG_GPU, NULL, &r);
	assert_int_equal(find(&r, "H100-SXM-80GB")->spend, USD(5.10));
	assert_int_equal(find(&r, "A100-SXM-80GB")->spend, USD(0.50));
	audit_report_release(&r);
}

static void
grid_table(void **state)
{
	int g;
	const char *src;

	(void)state;
	assert_true(audit_grid("eu-north-1", NULL, &g, &src));
	assert_int_equal(g, 40);
	assert_true(audit_grid("eu", NULL, &g, &src));
	assert_int_equal(g, 240);
	assert_false(audit_grid("europa", NULL, &g, &src));	/* a prefix is a whole part */
	assert_false(audit_grid("", NULL, &g, &src));
	assert_true(audit_grid("mars-1", "mars=0,bad,=3,x=y", &g, &src));
	assert_int_equal(g, 0);
	assert_string_equal(src, "audit.grid");
}

static void
cheaper_now(void **state)
{
	struct instance_list l;
	struct offer_list o;
	struct audit_cheaper *c;
	struct instance *in;
	struct offer *f;
	size_t n;

	(void)state;
	instance_list_init(&l);
	offer_list_init(&o);
	in = instance_list_add(&l);
	strlcpy_(in->id, "sim:i-1", sizeof(in->id));
	in->gpu = catalogue_by_id("H100-PCIE-80GB");
	in->gpu_count = 1;
	in->state = ST_RUNNING;
	in->price_hour = USD(2.50);
	in->valid = IV_PRICE;
	f = offer_list_add(&o);		/* same family, as much memory: equivalent */
	strlcpy_(f->id, "vast:1", sizeof(f->id));
	f->gpu = catalogue_by_id("H100-SXM-80GB");
	f->gpu_count = 1;
	f->price_hour = USD(2.00);
	f->valid = OV_PRICE;
	f = offer_list_add(&o);		/* cheaper, but two GPUs */
	*f = o.v[0];
	strlcpy_(f->id, "vast:2", sizeof(f->id));
	f->gpu_count = 2;
	f->price_hour = USD(1.00);
	f = offer_list_add(&o);		/* cheaper, but interruptible */
	*f = o.v[0];
	strlcpy_(f->id, "vast:3", sizeof(f->id));
	f->type = OFFER_INTERRUPTIBLE;
	f->price_hour = USD(1.00);
	f = offer_list_add(&o);		/* cheaper, but another family */
	*f = o.v[0];
	strlcpy_(f->id, "vast:4", sizeof(f->id));
	f->gpu = catalogue_by_id("A100-SXM-80GB");
	f->price_hour = USD(1.00);
	audit_cheaper_now(&l, &o, &c, &n);
	assert_int_equal(n, 1);
	assert_string_equal(c[0].offer.id, "vast:1");
	assert_int_equal(c[0].saving_hour, USD(0.50));
	assert_int_equal(c[0].saving_month, USD(365.00));
	free(c);
	l.v[0].state = ST_STOPPED;	/* only running instances */
	audit_cheaper_now(&l, &o, &c, &n);
	assert_int_equal(n, 0);
	free(c);
	instance_list_release(&l);
	offer_list_release(&o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(per_instance),
		cmocka_unit_test(idle_at_the_threshold),
		cmocka_unit_test(grouped_and_overridden),
		cmocka_unit_test(grid_table),
		cmocka_unit_test(cheaper_now),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
