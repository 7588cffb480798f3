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
 *
 * Two currencies, the hour [T0 + 2 h, T0 + 3 h) audited at now = T0 + 3 h:
 *   sim:i-2  still open, $1.00/h -> billed 1 h, $1.00, 2 GPU-hours (listed), util unknown.
 *   sim:u-1  label train, H100-SXM-80GB, $2.00/h; util 50 % every minute -> $2.00, no
 *            waste.
 *   sim:c-1  label train, H100-SXM-80GB, billed in yuan at 12.60/h; util 0 % for 30 min,
 *            then 80 % -> billed 1 h, CNY 12.60, idle 1800 s, waste CNY 6.30, util mean
 *            40 %, 1 GPU-hour, CNY 31.50 per utilised GPU-hour.
 *   totals   USD: 2 instances, 2 h, $3.00, waste $0.00; CNY: 1 instance, 1 h, CNY 12.60,
 *            waste CNY 6.30; over all three 3 h and no amount, unless fx.CNY = 0.14:
 *            $3.00 + 12.60 x 0.14 = $4.764 spent, 6.30 x 0.14 = $0.882 wasted, converted.
 *
 * One instance in two currencies (its provider's currency changed), the hour
 * [T0 + 8 h, T0 + 9 h) audited at now = T0 + 9 h:
 *   sim:x-1  $2.00/h for the first half hour, then CNY 12.60/h; util 0 % at 100 W for 30
 *            minutes, then 80 % at 500 W -> a USD row and a CNY row, each billed 1800 s
 *            and given half of the instance's idle time (900 s) and energy (0.15 kWh);
 *            one instance in the total (with sim:i-2, still open: 2), not two.
 */
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

#include "gpurent/audit.h"
#include "gpurent/catalogue.h"
#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/history.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

#define USD(d) ((int64_t)((d) * 1000000.0 + 0.5))
#define T0 INT64_C(1789999200)	/* a whole minute */
#define HOUR 3600

/* The group's scratch directory, under $TMPDIR. */
static char dir[256];
static struct state *st;

static void
seg_in(const char *id, const char *label, const char *gpu, enum ledger_kind k, double rate,
    int64_t start, int64_t end, const char *currency)
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
	money_currency_set(g.currency, currency);
	assert_int_equal(ledger_begin(st, &g, &err), GR_OK);
	if (end != 0)
		assert_int_equal(ledger_end(st, id, end, &err), GR_OK);
}

static void
seg(const char *id, const char *label, const char *gpu, enum ledger_kind k, double rate,
    int64_t start, int64_t end)
{
	seg_in(id, label, gpu, k, rate, start, end, "USD");
}

/* One sample a minute of GPU 0 over the hour from t0: util(minute), power(minute) (< 0:
   unknown). */
static void
samples_from(const char *id, int64_t t0, int (*util)(int), int (*power)(int))
{
	struct gpu_sample v[60];
	struct gr_error err = { 0 };
	int m;

	memset(v, 0, sizeof(v));
	for (m = 0; m < 60; m++) {
		strlcpy_(v[m].instance_id, id, sizeof(v[m].instance_id));
		v[m].at = t0 + m * 60;
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

static void
samples(const char *id, int (*util)(int), int (*power)(int))
{
	samples_from(id, T0, util, power);
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
	if (test_state_open(&st, path, &err) != GR_OK)
		return -1;
	seg("sim:i-1", "train", "H100-SXM-80GB", LEDGER_COMPUTE, 2.00, T0, T0 + HOUR);
	seg("sim:i-2", "train", "A100-SXM-80GB", LEDGER_COMPUTE, 1.00, T0 + HOUR / 2, 0);
	seg("sim:i-3", "", "H100-SXM-80GB", LEDGER_STORAGE, 0.10, T0, T0 + HOUR);
	seg("sim:i-4", "", "H100-SXM-80GB", LEDGER_COMPUTE, 3.00, T0, T0 + HOUR);
	seg("sim:i-9", "old", "H100-SXM-80GB", LEDGER_COMPUTE, 9.00, T0 - 2 * HOUR, T0 - HOUR);
	samples("sim:i-1", half_idle_util, half_idle_power);
	samples("sim:i-4", steady_util, no_power);
	seg("sim:u-1", "train", "H100-SXM-80GB", LEDGER_COMPUTE, 2.00, T0 + 2 * HOUR,
	    T0 + 3 * HOUR);
	seg_in("sim:c-1", "train", "H100-SXM-80GB", LEDGER_COMPUTE, 12.60, T0 + 2 * HOUR,
	    T0 + 3 * HOUR, "CNY");
	samples_from("sim:u-1", T0 + 2 * HOUR, steady_util, no_power);
	samples_from("sim:c-1", T0 + 2 * HOUR, half_idle_util, no_power);
	seg("sim:x-1", "", "H100-SXM-80GB", LEDGER_COMPUTE, 2.00, T0 + 8 * HOUR,
	    T0 + 8 * HOUR + HOUR / 2);
	seg_in("sim:x-1", "", "H100-SXM-80GB", LEDGER_COMPUTE, 12.60, T0 + 8 * HOUR + HOUR / 2,
	    T0 + 9 * HOUR, "CNY");
	samples_from("sim:x-1", T0 + 8 * HOUR, half_idle_util, half_idle_power);
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
run_when(int64_t now, enum audit_group by, const char *grid, int idle_pct,
    const struct fx_rates *fx, struct audit_report *rep)
{
	struct cost_clock clk = { now, now, true, 1 };
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
	o.fx = fx;
	assert_int_equal(audit_compute(st, &o, rep, &err), GR_OK);
}

static void
run_at(enum audit_group by, const char *grid, int idle_pct, struct audit_report *rep)
{
	run_when(T0 + HOUR, by, grid, idle_pct, NULL, rep);
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

static const struct audit_row *
find_in(const struct audit_report *r, const char *key, const char *currency)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->rows[i].key, key) == 0 && strcmp(r->rows[i].currency, currency) == 0)
			return &r->rows[i];
	fail_msg("no row '%s' in %s", key, currency);
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
	assert_string_equal(r.total.currency, "USD");	/* one currency: its own total */
	assert_false(r.total.converted || r.total.unpriced);
	assert_int_equal(r.n_totals, 1);
	assert_int_equal(r.totals[0].spend, USD(5.60));
	audit_report_release(&r);
}

/* Yuan and dollars are never added as one: a row and a total per currency (see the top). */
static void
currencies_apart(void **state)
{
	struct audit_report r;
	const struct audit_row *w;
	struct fx_rates fx;

	(void)state;
	run_when(T0 + 3 * HOUR, AG_INSTANCE, NULL, 5, NULL, &r);
	assert_int_equal(r.n, 3);
	/* dollars first, each currency by spend */
	assert_string_equal(r.rows[0].key, "sim:u-1");
	assert_string_equal(r.rows[1].key, "sim:i-2");
	assert_string_equal(r.rows[2].key, "sim:c-1");
	assert_string_equal(r.rows[1].currency, "USD");
	assert_int_equal(r.rows[1].spend, USD(1.00));
	w = find(&r, "sim:c-1");
	assert_string_equal(w->currency, "CNY");
	assert_int_equal(w->billed_s, HOUR);
	assert_int_equal(w->spend, USD(12.60));		/* micro-yuan */
	assert_int_equal(w->idle_s, 1800);
	assert_int_equal(w->waste, USD(6.30));
	assert_int_equal(audit_eff_gpu_hour(w), USD(31.50));
	assert_int_equal(r.n_totals, 2);
	assert_string_equal(r.totals[0].currency, "USD");
	assert_int_equal(r.totals[0].instances, 2);
	assert_int_equal(r.totals[0].billed_s, 2 * HOUR);
	assert_int_equal(r.totals[0].spend, USD(3.00));
	assert_int_equal(r.totals[0].waste, 0);
	assert_string_equal(r.totals[1].currency, "CNY");
	assert_int_equal(r.totals[1].instances, 1);
	assert_int_equal(r.totals[1].spend, USD(12.60));
	assert_int_equal(r.totals[1].waste, USD(6.30));
	/* over all three: hours, but no amount without a rate */
	assert_int_equal(r.total.instances, 3);
	assert_int_equal(r.total.billed_s, 3 * HOUR);
	assert_true(r.total.unpriced && !r.total.converted);
	assert_string_equal(r.total.currency, "");
	assert_int_equal(audit_eff_gpu_hour(&r.total), -1);
	audit_report_release(&r);

	/* a group of both currencies is a row per currency */
	run_when(T0 + 3 * HOUR, AG_LABEL, NULL, 5, NULL, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(find_in(&r, "train", "USD")->spend, USD(3.00));
	assert_int_equal(find_in(&r, "train", "USD")->instances, 2);
	assert_int_equal(find_in(&r, "train", "CNY")->spend, USD(12.60));
	assert_int_equal(find_in(&r, "train", "CNY")->waste, USD(6.30));
	audit_report_release(&r);

	/* with fx.CNY = 0.14 the total adds them, in dollars, and says it converted */
	memset(&fx, 0, sizeof(fx));
	assert_true(fx_set(&fx, "CNY", 140000));
	run_when(T0 + 3 * HOUR, AG_INSTANCE, NULL, 5, &fx, &r);
	assert_true(r.total.converted && !r.total.unpriced);
	assert_string_equal(r.total.currency, "USD");
	assert_int_equal(r.total.spend, USD(4.764));
	assert_int_equal(r.total.waste, USD(0.882));
	assert_int_equal(r.totals[1].spend, USD(12.60));	/* the rows stay in yuan */
	assert_int_equal(find(&r, "sim:c-1")->spend, USD(12.60));
	audit_report_release(&r);
}

/* An instance billed in two currencies is a row in each and one instance; its samples are
   shared between the rows by billed time, not counted in both. */
static void
one_instance_two_currencies(void **state)
{
	struct audit_report r;
	const struct audit_row *usd, *cny;

	(void)state;
	run_when(T0 + 9 * HOUR, AG_INSTANCE, NULL, 5, NULL, &r);
	usd = find_in(&r, "sim:x-1", "USD");
	cny = find_in(&r, "sim:x-1", "CNY");
	assert_non_null(usd);
	assert_non_null(cny);
	assert_int_equal(usd->billed_s, HOUR / 2);
	assert_int_equal(cny->billed_s, HOUR / 2);
	assert_int_equal(usd->idle_s + cny->idle_s, 1800);
	assert_int_equal(usd->idle_s, 900);
	assert_true(usd->energy_known && cny->energy_known);
	assert_true(usd->energy_kwh + cny->energy_kwh > 0.2999 &&
	    usd->energy_kwh + cny->energy_kwh < 0.3001);
	assert_int_equal(r.total.instances, 2);		/* sim:x-1 once, and sim:i-2 */
	assert_true(r.total.energy_kwh > 0.2999 && r.total.energy_kwh < 0.3001);
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
	audit_cheaper_now(&l, &o, NULL, &c, &n);
	assert_int_equal(n, 1);
	assert_string_equal(c[0].offer.id, "vast:1");
	assert_int_equal(c[0].saving_hour, USD(0.50));
	assert_int_equal(c[0].saving_month, USD(365.00));
	free(c);
	l.v[0].state = ST_STOPPED;	/* only running instances */
	audit_cheaper_now(&l, &o, NULL, &c, &n);
	assert_int_equal(n, 0);
	free(c);
	instance_list_release(&l);
	offer_list_release(&o);
}

/* A yuan price is compared with dollar offers only at the user's rate, never as numbers. */
static void
cheaper_across_currencies(void **state)
{
	struct instance_list l;
	struct offer_list o;
	struct audit_cheaper *c;
	struct instance *in;
	struct offer *f;
	struct fx_rates fx;
	size_t n;

	(void)state;
	instance_list_init(&l);
	offer_list_init(&o);
	in = instance_list_add(&l);
	strlcpy_(in->id, "ppio:i-1", sizeof(in->id));
	in->gpu = catalogue_by_id("H100-PCIE-80GB");
	in->gpu_count = 1;
	in->state = ST_RUNNING;
	in->price_hour = USD(12.60);	/* micro-yuan */
	money_currency_set(in->currency, "CNY");
	in->valid = IV_PRICE;
	f = offer_list_add(&o);		/* $2.00: fewer units than 12.60, but dearer at 0.14 */
	strlcpy_(f->id, "vast:1", sizeof(f->id));
	f->gpu = catalogue_by_id("H100-SXM-80GB");
	f->gpu_count = 1;
	f->price_hour = USD(2.00);
	f->valid = OV_PRICE;
	audit_cheaper_now(&l, &o, NULL, &c, &n);
	assert_int_equal(n, 0);		/* no rate: not compared */
	free(c);
	memset(&fx, 0, sizeof(fx));
	assert_true(fx_set(&fx, "CNY", 140000));
	audit_cheaper_now(&l, &o, &fx, &c, &n);
	assert_int_equal(n, 0);		/* 12.60 x 0.14 = $1.764 < $2.00 */
	free(c);
	f = offer_list_add(&o);		/* $1.40 = CNY 10.00 at the rate */
	*f = o.v[0];
	strlcpy_(f->id, "vast:2", sizeof(f->id));
	f->price_hour = USD(1.40);
	f = offer_list_add(&o);		/* CNY 11.00: cheaper, but not the cheapest */
	*f = o.v[0];
	strlcpy_(f->id, "ppio:2", sizeof(f->id));
	f->price_hour = USD(11.00);
	money_currency_set(f->currency, "CNY");
	audit_cheaper_now(&l, &o, &fx, &c, &n);
	assert_int_equal(n, 1);
	assert_string_equal(c[0].offer.id, "vast:2");
	assert_string_equal(c[0].currency, "CNY");
	assert_true(c[0].converted);
	assert_int_equal(c[0].saving_hour, USD(2.60));	/* in yuan */
	free(c);
	audit_cheaper_now(&l, &o, NULL, &c, &n);	/* without the rate: yuan offers only */
	assert_int_equal(n, 1);
	assert_string_equal(c[0].offer.id, "ppio:2");
	assert_false(c[0].converted);
	assert_int_equal(c[0].saving_hour, USD(1.60));
	free(c);
	instance_list_release(&l);
	offer_list_release(&o);
}

static int quarter_idle_util(int m) { return m < 15 ? 0 : 60; }
static int flat_power(int m) { (void)m; return 100; }

/*
 * A two-node job (each node's GPUs kept as ID/NODE, session.h: session_record) is one instance to audit:
 * sim:j-5 at $4.00/h over [T0 + 5 h, T0 + 6 h), GPU 0 on n1 as sim:i-1's (0 % for 30 min,
 * then 80 %; 100 W, then 500 W), GPU 0 on n2 at 0 % for 15 min, then 60 % (100 W). Idle
 * only while both nodes are: 900 s, a quarter, $1.00 wasted; 2 GPU-hours, utilisation
 * (40 + 45) / 2 = 42.5 %, 0.3 + 0.1 kWh.
 */
static void
multi_node_job(void **state)
{
	struct audit_report r;
	const struct audit_row *w;

	(void)state;
	seg("sim:j-5", "", "H100-SXM-80GB", LEDGER_COMPUTE, 4.00, T0 + 5 * HOUR, T0 + 6 * HOUR);
	samples_from("sim:j-5/n1", T0 + 5 * HOUR, half_idle_util, half_idle_power);
	samples_from("sim:j-5/n2", T0 + 5 * HOUR, quarter_idle_util, flat_power);
	run_when(T0 + 6 * HOUR, AG_INSTANCE, NULL, 5, NULL, &r);
	assert_int_equal(r.n, 2);	/* and sim:i-2, still open */
	w = find(&r, "sim:j-5");
	assert_int_equal(w->billed_s, HOUR);
	assert_int_equal(w->spend, USD(4.00));
	assert_true(w->util_known);
	assert_int_equal(w->idle_s, 900);
	assert_int_equal(w->waste, USD(1.00));
	assert_true(w->util_mean > 42.49 && w->util_mean < 42.51);
	assert_true(w->gpus_known && w->gpu_hours > 1.999 && w->gpu_hours < 2.001);
	assert_true(w->energy_known && !w->energy_estimated);
	assert_true(w->energy_kwh > 0.3999 && w->energy_kwh < 0.4001);
	audit_report_release(&r);
}

static int fifth_idle_util(int m) { return m < 20 ? 0 : 90; }
static int fifth_idle_power(int m) { return m < 20 ? 150 : 600; }

/*
 * Issue 33: an instance that ran, stopped and ran again, sampled for part of its billed time
 * only, so that idle, covered and billed time all differ, and so do its spend and its
 * compute spend. sim:r-1, label fig, H100-SXM-80GB, listed in na-east (370 g/kWh), over
 * [T0 + 10 h, T0 + 15 h) audited at now = T0 + 15 h:
 *   compute  $2.40/h  T0 + 10 h .. 11 h        3600 s   $2.40
 *   storage  $0.12/h  T0 + 11 h .. 13 h        (stopped) $0.24, no billed time
 *   compute  $2.40/h  T0 + 13 h .. 14 h 30 m   5400 s   $3.60
 *   samples  one a minute from T0 + 13 h for an hour: 0 % at 150 W for 20 minutes, then
 *            90 % at 600 W for 40.
 *   billed 9000 s (2.5 h), covered 3600 s, idle 1200 s; spend $6.24, compute spend $6.00
 *   idle share   1200 / 9000                          = 13.33 %
 *   waste        6.00 x 1200 / 9000                   = $0.80 (not 6.24 x ..., 0.832;
 *                                                       not 6.00 x 1200 / 3600, 2.00)
 *   GPU-hours    9000 s x 1 GPU                       = 2.5
 *   util mean    (20 x 0 + 40 x 90) / 60              = 60 %
 *   $/util GPU-h 6.24 / (2.5 x 60 %)                  = $4.16
 *   energy       (1200 s x 150 W + 2400 s x 600 W) / 3.6e6 = 0.45 kWh (measured)
 *   CO2e         0.45 kWh x 370 g/kWh                 = 0.1665 kg
 */
static void
ran_stopped_ran_again(void **state)
{
	static const struct audit_live here[] = { { "sim:r-1", "na-east", 1 } };
	const int64_t t = T0 + 10 * HOUR;
	struct cost_clock clk = { t + 5 * HOUR, t + 5 * HOUR, true, 1 };
	struct audit_opts o;
	struct audit_report r;
	struct gr_error err = { 0 };
	const struct audit_row *w;

	(void)state;
	seg("sim:r-1", "fig", "H100-SXM-80GB", LEDGER_COMPUTE, 2.40, t, t + HOUR);
	seg("sim:r-1", "fig", "H100-SXM-80GB", LEDGER_STORAGE, 0.12, t + HOUR, t + 3 * HOUR);
	seg("sim:r-1", "fig", "H100-SXM-80GB", LEDGER_COMPUTE, 2.40, t + 3 * HOUR,
	    t + 4 * HOUR + HOUR / 2);
	samples_from("sim:r-1", t + 3 * HOUR, fifth_idle_util, fifth_idle_power);
	memset(&o, 0, sizeof(o));
	o.span_s = 5 * HOUR;
	o.clock = &clk;
	o.idle_pct = 5;
	o.target_pct = 85;
	o.by = AG_INSTANCE;
	o.live = here;
	o.n_live = ARRAY_LEN(here);
	assert_int_equal(audit_compute(st, &o, &r, &err), GR_OK);
	w = find(&r, "sim:r-1");
	assert_int_equal(w->billed_s, 9000);		/* figure: audit-billed-hours */
	assert_int_equal(w->spend, USD(6.24));		/* figure: audit-spend */
	assert_int_equal(w->compute_spend, USD(6.00));
	assert_int_equal(w->covered_s, 3600);
	assert_int_equal(w->idle_s, 1200);
	/* figure: audit-idle-share */
	assert_true(audit_idle_share(w) > 0.13333 && audit_idle_share(w) < 0.13334);
	assert_int_equal(w->waste, USD(0.80));		/* figure: audit-waste */
	assert_true(w->gpu_hours > 2.4999 && w->gpu_hours < 2.5001);	/* figure: audit-gpu-hours */
	assert_true(w->util_mean > 59.99 && w->util_mean < 60.01);
	assert_int_equal(audit_eff_gpu_hour(w), USD(4.16));	/* figure: audit-per-util-gpu-hour */
	assert_true(w->energy_known && !w->energy_estimated);
	/* figure: audit-kwh */
	assert_true(w->energy_kwh > 0.44999 && w->energy_kwh < 0.45001);
	/* figure: audit-co2 */
	assert_true(w->co2_known && w->co2_kg > 0.16649 && w->co2_kg < 0.16651);
	audit_report_release(&r);
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
		cmocka_unit_test(currencies_apart),
		cmocka_unit_test(cheaper_across_currencies),
		cmocka_unit_test(one_instance_two_currencies),
		cmocka_unit_test(multi_node_job),
		cmocka_unit_test(ran_stopped_ran_again),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
