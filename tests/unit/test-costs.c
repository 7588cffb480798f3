/*
 * The ledger's arithmetic against figures worked out by hand: each provider on its own
 * clock, provisioning reservations, instances gone from a listing, budgets, and the
 * launch policy's bid and checks, and two processes writing one ledger at once.
 */
#include <pthread.h>
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

#include "gpurent/costs.h"
#include "gpurent/launch.h"
#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

#define USD(d) ((int64_t)((d) * 1000000.0 + 0.5))

/* 2026-12-01T10:00:00Z: 14 h (50400 s) to midnight, 734 h (2642400 s) to 2027-01-01. */
#define WALL INT64_C(1796119200)
/* 2026-09-21T14:13:20Z: 35200 s to midnight, 812800 s to 2026-10-01. */
#define SIM INT64_C(1790000000)

/* The group's scratch directory, under $TMPDIR. */
static char dir[256];

static int
setup(void **state)
{
	(void)state;
	return test_tmpdir_make(dir, sizeof(dir), "costs");
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

static void
add_seg(struct state *st, const char *id, const char *provider, enum ledger_kind kind,
    int64_t rate, int64_t start, int64_t end)
{
	struct ledger_seg g;
	struct gr_error err = { 0 };

	memset(&g, 0, sizeof(g));
	strlcpy_(g.instance_id, id, sizeof(g.instance_id));
	strlcpy_(g.provider, provider, sizeof(g.provider));
	g.kind = kind;
	g.rate_hour = rate;
	g.start = start;
	assert_int_equal(ledger_begin(st, &g, &err), GR_OK);
	if (end != 0)
		assert_int_equal(ledger_end(st, id, end, &err), GR_OK);
}

static const struct cost_line *
line(const struct cost_summary *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->n_lines; i++)
		if (strcmp(s->lines[i].key, key) == 0)
			return &s->lines[i];
	fail_msg("no line '%s'", key);
	return NULL;
}

static void
clocks_provisioning_and_gone(void **state)
{
	struct state *st = open_db("clocks");
	struct cost_clock clk = { WALL, SIM, false, 1 };
	struct cost_summary s;
	struct gr_error err = { 0 };
	const char *listed[] = { "vast:1", "vast:2" };

	(void)state;
	add_seg(st, "sim:i-000001", "sim", LEDGER_COMPUTE, USD(3.6), SIM - 7200, 0);
	add_seg(st, "vast:1", "vast", LEDGER_COMPUTE, USD(1.8), WALL - 3600, 0);
	add_seg(st, "vast:2", "vast", LEDGER_PROVISIONING, USD(1.0), WALL - 60, 0);
	add_seg(st, "vast:9", "vast", LEDGER_COMPUTE, USD(0.72), WALL - 7200, 0);
	/* vast answers a list without vast:9: it stops at the moment that is known. */
	assert_int_equal(ledger_close_unlisted(st, "vast", listed, 2, WALL - 3600, WALL - 3600,
	    &err), GR_OK);

	assert_int_equal(costs_compute(st, &clk, 0, CG_NONE, &s, &err), GR_OK);
	/* sim 2 h at 3.60, vast 1 h at 1.80, vast:9 1 h at 0.72; provisioning bills nothing. */
	assert_int_equal(s.spent, USD(9.72));
	assert_int_equal(s.spent_today, USD(9.72));
	assert_int_equal(s.burn_hour, USD(5.4));
	assert_int_equal(s.provisioning_hour, USD(1.0));
	/* sim: 7.20 + 3.60 x 35200 s; vast: 1.80 + 1.80 x 14 h; provisioning 1.00 x 14 h; 0.72. */
	assert_int_equal(s.projected_day, USD(42.4 + 27.0 + 14.0 + 0.72));
	/* sim: 7.20 + 3.60 x 812800 s; vast: 1.80 + 1.80 x 734 h; 1.00 x 734 h; 0.72. */
	assert_int_equal(s.projected_month, USD(820.0 + 1323.0 + 734.0 + 0.72));
	assert_int_equal(s.now, WALL);
	cost_summary_release(&s);

	/* Budgets: a launch of 2.00/h on vast adds 28.00 to the day, 1468.00 to the month. */
	assert_int_equal(costs_compute(st, &clk, 0, CG_NONE, &s, &err), GR_OK);
	assert_int_equal(costs_check_budget(&s, WALL, USD(2.0), 0, USD(112.12), -1, &err), GR_OK);
	assert_int_equal(costs_check_budget(&s, WALL, USD(2.0), 0, USD(112.12) - 1, -1, &err),
	    GR_EBUDGET);
	assert_non_null(strstr(err.msg, "budget.day"));
	assert_non_null(strstr(err.msg, "$112.12"));
	gr_error_clear(&err);
	assert_int_equal(costs_check_budget(&s, WALL, USD(2.0), 0, -1, USD(4345.72), &err), GR_OK);
	assert_int_equal(costs_check_budget(&s, WALL, USD(2.0), 0, -1, USD(4345.72) - 1, &err),
	    GR_EBUDGET);
	assert_non_null(strstr(err.msg, "budget.month"));
	gr_error_clear(&err);
	cost_summary_release(&s);

	/* `sim advance 1h` moves the simulator's rows only. */
	clk.sim += 3600;
	assert_int_equal(costs_compute(st, &clk, 0, CG_PROVIDER, &s, &err), GR_OK);
	assert_int_equal(line(&s, "sim")->spent, USD(10.8));
	assert_int_equal(line(&s, "vast")->spent, USD(2.52));
	assert_int_equal(line(&s, "vast")->burn_hour, USD(1.8));
	cost_summary_release(&s);

	/* Showing the simulator's clock changes what is shown, not what is counted. */
	clk.sim_shown = true;
	assert_int_equal(costs_compute(st, &clk, 0, CG_INSTANCE, &s, &err), GR_OK);
	assert_int_equal(s.now, SIM + 3600);
	assert_int_equal(s.spent, USD(10.8 + 2.52));
	assert_true(line(&s, "vast:9")->gone);
	assert_int_equal(line(&s, "vast:9")->burn_hour, 0);
	assert_false(line(&s, "vast:1")->gone);
	assert_int_equal(line(&s, "vast:2")->spent, 0);
	cost_summary_release(&s);
	state_close(st);
}

static void
unlisted_only_when_confirmed(void **state)
{
	struct state *st = open_db("unlisted");
	struct gr_error err = { 0 };
	struct ledger_seg *v;
	size_t n, i;
	const char *listed[] = { "vast:1" };
	int closed = 0;

	(void)state;
	add_seg(st, "vast:1", "vast", LEDGER_COMPUTE, USD(1), WALL - 100, 0);
	add_seg(st, "vast:2", "vast", LEDGER_COMPUTE, USD(1), WALL - 100, 0);
	add_seg(st, "vast:3", "vast", LEDGER_PROVISIONING, USD(1), WALL, 0);	/* after asking */
	add_seg(st, "runpod:x", "runpod", LEDGER_COMPUTE, USD(1), WALL - 100, 0);
	assert_int_equal(ledger_close_unlisted(st, "vast", listed, 1, WALL, WALL + 10, &err),
	    GR_OK);
	assert_int_equal(ledger_load(st, 0, 0, &v, &n, &err), GR_OK);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].instance_id, "vast:2") == 0) {
			assert_int_equal(v[i].end, WALL + 10);
			assert_true(v[i].gone);
			closed++;
		} else {
			assert_int_equal(v[i].end, 0);
			assert_false(v[i].gone);
		}
	}
	assert_int_equal(closed, 1);
	free(v);
	state_close(st);
}

static void
provisioning_until_billing(void **state)
{
	struct state *st = open_db("observe");
	struct gr_error err = { 0 };
	struct instance in;
	struct ledger_seg g, *v;
	size_t n;

	(void)state;
	memset(&g, 0, sizeof(g));
	strlcpy_(g.instance_id, "vast:5", sizeof(g.instance_id));
	strlcpy_(g.provider, "vast", sizeof(g.provider));
	g.kind = LEDGER_PROVISIONING;
	g.rate_hour = USD(2);
	g.start = WALL;
	assert_int_equal(ledger_reserve(st, &g, &err), GR_OK);
	memset(&in, 0, sizeof(in));
	strlcpy_(in.id, "vast:5", sizeof(in.id));
	strlcpy_(in.provider, "vast", sizeof(in.provider));
	in.state = ST_PROVISIONING;
	in.price_hour = USD(2);
	in.valid = IV_PRICE;
	/* Seen still provisioning: the reservation stands. */
	assert_int_equal(ledger_observe(st, &in, WALL + 30, &err), GR_OK);
	assert_int_equal(ledger_load(st, 0, 0, &v, &n, &err), GR_OK);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].end, 0);
	free(v);
	/* Running: the reservation ends where billing begins. */
	in.state = ST_RUNNING;
	assert_int_equal(ledger_observe(st, &in, WALL + 60, &err), GR_OK);
	/* A late reservation for an instance that already bills changes nothing. */
	assert_int_equal(ledger_reserve(st, &g, &err), GR_OK);
	assert_int_equal(ledger_load(st, 0, 0, &v, &n, &err), GR_OK);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].kind, LEDGER_PROVISIONING);
	assert_int_equal(v[0].end, WALL + 60);
	assert_int_equal(v[1].kind, LEDGER_COMPUTE);
	assert_int_equal(v[1].end, 0);
	free(v);
	/* Launched elsewhere and seen provisioning: reserved from when it is seen. */
	strlcpy_(in.id, "vast:6", sizeof(in.id));
	in.state = ST_PROVISIONING;
	assert_int_equal(ledger_observe(st, &in, WALL + 70, &err), GR_OK);
	assert_int_equal(ledger_load(st, 0, 0, &v, &n, &err), GR_OK);
	assert_int_equal(n, 3);
	assert_string_equal(v[2].instance_id, "vast:6");
	assert_int_equal(v[2].kind, LEDGER_PROVISIONING);
	assert_int_equal(v[2].start, WALL + 70);
	assert_int_equal(v[2].rate_hour, USD(2));
	free(v);
	strlcpy_(in.id, "vast:5", sizeof(in.id));
	/* Back to provisioning (a restart): billing stops as before, nothing is reserved. */
	in.state = ST_PROVISIONING;
	assert_int_equal(ledger_observe(st, &in, WALL + 90, &err), GR_OK);
	assert_int_equal(ledger_load(st, 0, 0, &v, &n, &err), GR_OK);
	assert_int_equal(n, 3);
	assert_int_equal(v[1].end, WALL + 90);
	free(v);
	state_close(st);
}

/* An instance as a provider's listing shows it at one moment, for ledger_observe. */
static void
listed(struct instance *in, const char *id, enum inst_state state, int64_t price,
    int64_t storage)
{
	memset(in, 0, sizeof(*in));
	strlcpy_(in->id, id, sizeof(in->id));
	strlcpy_(in->provider, "vast", sizeof(in->provider));
	in->state = state;
	in->price_hour = price;
	in->storage_hour = storage;
	in->valid = IV_PRICE | IV_STORAGE;
}

static void
seen(struct state *st, const char *id, enum inst_state state, int64_t price, int64_t storage,
    int64_t at)
{
	struct instance in;
	struct gr_error err = { 0 };

	listed(&in, id, state, price, storage);
	assert_int_equal(ledger_observe(st, &in, at, &err), GR_OK);
}

/*
 * Issue 33: what a provider's instance bills as the ledger sees it run, stop and run again,
 * and one stopped since yesterday (the 8 x H100 with a large disk that people forget), on
 * the wall clock at now = 2026-12-10T10:00:00Z (14 h to midnight, 518 h to the month's
 * end):
 *   vast:7  $2.00/h running 07:00-08:00, stopped 08:00-09:00 at $0.05/h of storage,
 *           running again from 09:00: 2.00 + 0.05 + 2.00 = 4.05, all of it today.
 *   vast:8  stopped since 2026-12-09T08:00 at $0.40/h: 26 h = 10.40 this month, of which
 *           10 h = 4.00 today.
 *   spent (from the month's start)  4.05 + 10.40                  = 14.45
 *   spent today                     4.05 + 4.00                   = 8.05
 *   burn                            2.00 + 0.40                   = 2.40
 *   projected day                   8.05 + 2.40 x 14 h            = 41.65
 *   projected month                 14.45 + 2.40 x 518 h          = 1257.65
 *   spent since 08:00               0.05 + 2.00 + 0.40 x 2 h      = 2.85
 */
static void
storage_while_stopped(void **state)
{
	const int64_t now = WALL + 9 * 86400;	/* 2026-12-10T10:00:00Z */
	struct state *st = open_db("stopped");
	struct cost_clock clk = { now, SIM, false, 1 };
	struct cost_summary s;
	struct gr_error err = { 0 };

	(void)state;
	seen(st, "vast:8", ST_STOPPED, USD(16.00), USD(0.40), now - 26 * 3600);
	seen(st, "vast:7", ST_RUNNING, USD(2.00), USD(0.05), now - 3 * 3600);
	seen(st, "vast:7", ST_STOPPED, USD(2.00), USD(0.05), now - 2 * 3600);
	/* stopped, then its storage alone: figure: storage-while-stopped */
	assert_int_equal(costs_compute(st, &clk, 0, CG_INSTANCE, &s, &err), GR_OK);
	assert_int_equal(line(&s, "vast:7")->burn_hour, USD(0.05));
	cost_summary_release(&s);
	seen(st, "vast:7", ST_RUNNING, USD(2.00), USD(0.05), now - 3600);

	assert_int_equal(costs_compute(st, &clk, 0, CG_INSTANCE, &s, &err), GR_OK);
	assert_int_equal(line(&s, "vast:7")->spent, USD(4.05));
	assert_int_equal(line(&s, "vast:8")->spent, USD(10.40));
	assert_int_equal(s.spent, USD(14.45));
	assert_int_equal(s.spent_today, USD(8.05));	/* figure: spent-today */
	assert_int_equal(s.spent_month, USD(14.45));	/* figure: spent-month */
	assert_int_equal(s.burn_hour, USD(2.40));	/* figure: burn */
	assert_int_equal(s.projected_day, USD(41.65));	/* figure: projected-day */
	assert_int_equal(s.projected_month, USD(1257.65));	/* figure: projected-month */
	cost_summary_release(&s);
	/* The same from the kept daily totals (no grouping) as from the rows. */
	assert_int_equal(costs_compute(st, &clk, 0, CG_NONE, &s, &err), GR_OK);
	assert_int_equal(s.spent, USD(14.45));
	assert_int_equal(s.spent_today, USD(8.05));
	assert_int_equal(s.projected_month, USD(1257.65));
	cost_summary_release(&s);
	/* figure: spent-since */
	assert_int_equal(costs_compute(st, &clk, now - 2 * 3600, CG_NONE, &s, &err), GR_OK);
	assert_int_equal(s.spent, USD(2.85));
	assert_int_equal(s.spent_month, USD(14.45));
	cost_summary_release(&s);
	state_close(st);
}

static void
bids_and_offer_checks(void **state)
{
	struct offer o;
	struct launch_plan p;
	struct gr_error err = { 0 };

	(void)state;
	memset(&o, 0, sizeof(o));
	strlcpy_(o.id, "sim:o-000001i", sizeof(o.id));
	o.type = OFFER_INTERRUPTIBLE;
	o.price_hour = USD(0.167);
	o.disk_gb = 100;
	o.available = 1;
	o.valid = OV_PRICE | OV_DISK | OV_AVAILABLE;
	/* 0.167 x 1.2 = 0.2004, up to the next tenth of a cent. */
	assert_int_equal(launch_plan_make(&o, false, 0, 0, 20, &p, &err), GR_OK);
	assert_int_equal(p.bid_hour, USD(0.201));
	assert_int_equal(p.price_hour, USD(0.201));
	assert_false(p.bid_given);
	o.price_hour = USD(0.25);	/* 0.30 exactly: not rounded further */
	assert_int_equal(launch_plan_make(&o, false, 0, 0, 20, &p, &err), GR_OK);
	assert_int_equal(p.bid_hour, USD(0.3));
	assert_int_equal(launch_plan_make(&o, true, USD(0.299), 0, 20, &p, &err), GR_OK);
	assert_true(p.thin_bid);
	assert_int_equal(p.bid_hour, USD(0.299));
	assert_int_equal(launch_plan_make(&o, true, USD(0.3), 0, 20, &p, &err), GR_OK);
	assert_false(p.thin_bid);
	assert_int_equal(launch_plan_make(&o, false, 0, 0, 0, &p, &err), GR_OK);
	assert_int_equal(p.bid_hour, USD(0.25));
	assert_int_equal(launch_plan_make(&o, true, USD(0.249), 0, 20, &p, &err), GR_EUSAGE);
	assert_non_null(strstr(err.msg, "below the current price"));
	assert_int_equal(launch_plan_make(&o, false, 0, 101, 20, &p, &err), GR_EUSAGE);
	o.available = 0;
	assert_int_equal(launch_plan_make(&o, false, 0, 0, 20, &p, &err), GR_ECAPACITY);
	o.available = 1;
	o.type = OFFER_ON_DEMAND;
	assert_int_equal(launch_plan_make(&o, true, USD(1), 0, 20, &p, &err), GR_EUSAGE);
	assert_int_equal(launch_plan_make(&o, false, 0, 0, 20, &p, &err), GR_OK);
	assert_int_equal(p.bid_hour, 0);
	assert_int_equal(p.price_hour, USD(0.25));
}

struct fake {
	int launches;
};

static void
fake_clock(void *ctx, struct cost_clock *out)
{
	(void)ctx;
	out->wall = WALL;
	out->sim = SIM;
	out->sim_shown = false;
}

static enum gr_err
fake_launch(void *ctx, struct instance *out, struct gr_error *err)
{
	struct fake *f = ctx;

	(void)err;
	f->launches++;
	memset(out, 0, sizeof(*out));
	snprintf(out->id, sizeof(out->id), "vast:%d", 100 + f->launches);
	strlcpy_(out->provider, "vast", sizeof(out->provider));
	out->state = ST_PROVISIONING;
	out->price_hour = USD(2);
	out->valid = IV_PRICE;
	return GR_OK;
}

static void
admit_counts_provisioning(void **state)
{
	struct state *st = open_db("admit");
	const struct launch_ops real = { fake_clock, fake_launch, NULL, NULL };
	const struct launch_ops dry = { fake_clock, NULL, NULL, NULL };
	struct launch_budget b = { .day = -1, .month = -1, .force = false };
	struct fake f = { 0 };
	struct instance in;
	struct cost_summary s;
	struct cost_clock clk = { WALL, SIM, false, 1 };
	struct gr_error err = { 0 };

	(void)state;
	/* 2.00/h until midnight is 28.00: a cent less refuses, before launching anything. */
	b.day = USD(27.99);
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &real, &f, &in, &err), GR_EBUDGET);
	assert_int_equal(f.launches, 0);
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &dry, &f, &in, &err), GR_EBUDGET);
	b.day = USD(28);
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &dry, &f, &in, &err), GR_OK);
	assert_int_equal(f.launches, 0);
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &real, &f, &in, &err), GR_OK);
	assert_int_equal(f.launches, 1);
	assert_string_equal(in.id, "vast:101");
	/* The first still provisions: a second is refused by the day ... */
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &real, &f, &in, &err), GR_EBUDGET);
	assert_int_equal(f.launches, 1);
	/* ... and by the month: 2 x 2.00 x 734 h = 2936.00. */
	b.day = -1;
	b.month = USD(2935.99);
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &real, &f, &in, &err), GR_EBUDGET);
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &dry, &f, &in, &err), GR_EBUDGET);
	b.month = USD(2936);
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &real, &f, &in, &err), GR_OK);
	assert_int_equal(f.launches, 2);
	/* --force launches and is still recorded. */
	b.month = 0;
	b.force = true;
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &real, &f, &in, &err), GR_OK);
	assert_int_equal(f.launches, 3);
	assert_int_equal(costs_compute(st, &clk, 0, CG_NONE, &s, &err), GR_OK);
	assert_int_equal(s.provisioning_hour, USD(6));
	assert_int_equal(s.burn_hour, 0);
	assert_int_equal(s.spent, 0);
	cost_summary_release(&s);
	state_close(st);
}

/*
 * Issue 30: a launch admitted and journaled is in flight while its provider answers, and
 * the launch lock is let go before it asks: a second launch admitted meanwhile counts it.
 * Room for one at 2.00/h until midnight (28.00): the second, made from inside the first's
 * create, is refused, where it used to wait for the lock behind it (two minutes, then
 * GR_ESTATE). One that failed is in flight no more.
 */
struct nested {
	struct fake f;
	struct state *st;
	const struct launch_budget *b;
	const char *inner_who;		/* who makes the inner launch; NULL: the same person */
	enum gr_err inner;		/* what the launch made during the first's create got */
	enum gr_err outcome;		/* what the first's create answers */
};

static enum gr_err
nested_launch(void *ctx, struct instance *out, struct gr_error *err)
{
	struct nested *n = ctx;
	const struct launch_ops real = { fake_clock, fake_launch, NULL, NULL };
	struct instance in;
	struct gr_error e = { 0 };

	if (n->f.launches == 0) {
		if (n->inner_who != NULL)
			state_set_actor(n->st, n->inner_who, "ml");
		n->inner = launch_admit(n->st, n->b, "vast", USD(2), &real, &n->f, &in, &e);
	}
	if (n->outcome != GR_OK)
		return gr_fail(err, n->outcome, "refused by the provider");
	return fake_launch(&n->f, out, err);
}

static void
admit_counts_in_flight(void **state)
{
	struct state *st = open_db("in-flight");
	const struct launch_ops outer = { fake_clock, nested_launch, "first", NULL };
	const struct launch_ops real = { fake_clock, fake_launch, NULL, NULL };
	struct launch_budget b = { .day = USD(28), .month = -1, .force = false };
	struct nested n = { .st = st, .b = &b, .outcome = GR_EFAIL };
	struct instance in;
	struct gr_error err = { 0 };

	(void)state;
	/* The first fails at its provider: the second, made meanwhile, was refused ... */
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &outer, &n, &in, &err), GR_EFAIL);
	assert_int_equal(n.inner, GR_EBUDGET);
	assert_int_equal(n.f.launches, 0);
	/* ... and now has the room the failed one left. */
	gr_error_clear(&err);
	n.outcome = GR_OK;
	n.inner = GR_EFAIL;
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &outer, &n, &in, &err), GR_OK);
	assert_int_equal(n.inner, GR_EBUDGET);
	assert_int_equal(n.f.launches, 1);
	/* Once answered it is the ledger's to count: still no room. */
	assert_int_equal(launch_admit(st, &b, "vast", USD(2), &real, &n.f, &in, &err),
	    GR_EBUDGET);
	assert_int_equal(n.f.launches, 1);
	state_close(st);
}

/*
 * In a team, a person's own limit counts their own launches in flight, and the team's
 * limit everyone's: ann's $28 day fits her $2/h beside bob's launch still at its provider,
 * until the team's $28 day counts both.
 */
static void
admit_in_flight_per_person(void **state)
{
	struct state *st = open_db("in-flight-team");
	const struct launch_ops outer = { fake_clock, nested_launch, "bobs", NULL };
	struct launch_budget bob = { .day = -1, .month = -1, .team = true, .who = "bob" };
	struct launch_budget ann = { .day = USD(28), .month = -1, .team = true, .who = "ann" };
	struct nested n = { .st = st, .b = &ann, .inner_who = "ann", .outcome = GR_OK };
	struct instance in;
	struct gr_error err = { 0 };

	(void)state;
	state_set_actor(st, "bob", "ml");
	n.inner = GR_EFAIL;
	assert_int_equal(launch_admit(st, &bob, "vast", USD(2), &outer, &n, &in, &err), GR_OK);
	assert_int_equal(n.inner, GR_OK);
	assert_int_equal(n.f.launches, 2);
	state_close(st);
	/* Again, under the team's $28 a day: bob's in flight counts for it. */
	st = open_db("in-flight-team-limit");
	memset(&n.f, 0, sizeof(n.f));
	n.st = st;
	n.inner = GR_EFAIL;
	assert_int_equal(launch_team_budget_set(st, true, "28", &err), GR_OK);
	state_set_actor(st, "bob", "ml");
	assert_int_equal(launch_admit(st, &bob, "vast", USD(2), &outer, &n, &in, &err), GR_OK);
	assert_int_equal(n.inner, GR_EBUDGET);
	assert_int_equal(n.f.launches, 1);
	state_close(st);
}

/*
 * Issue 18: a ledger in two currencies. Each summary counts its own; another currency is
 * added only at a configured rate, and flagged; a budget in CNY refuses a USD launch
 * without a rate, and counts it with one.
 */
static void
two_currencies(void **state)
{
	struct state *st = open_db("currencies");
	const struct launch_ops dry = { fake_clock, NULL, NULL, NULL };
	struct launch_budget b;
	struct fake f = { 0 };
	struct instance in;
	struct ledger_seg g;
	struct cost_summary s;
	struct cost_clock clk = { WALL, SIM, false, 1 };
	struct gr_error err = { 0 };
	struct fx_rates fx = { 0 };
	char codes[4][CURRENCY_MAX];

	(void)state;
	/* 1.00 USD/h and 10.00 CNY/h, each for the last hour. */
	add_seg(st, "vast:1", "vast", LEDGER_COMPUTE, USD(1), WALL - 3600, 0);
	memset(&g, 0, sizeof(g));
	strlcpy_(g.instance_id, "ppio:a", sizeof(g.instance_id));
	strlcpy_(g.provider, "ppio", sizeof(g.provider));
	g.kind = LEDGER_COMPUTE;
	g.rate_hour = USD(10);
	g.start = WALL - 3600;
	money_currency_set(g.currency, "CNY");
	assert_int_equal(ledger_begin(st, &g, &err), GR_OK);
	assert_int_equal(ledger_currencies(st, &clk, 0, codes, 4), 2);
	assert_string_equal(codes[0], "USD");
	assert_string_equal(codes[1], "CNY");
	/* costs_compute is dollars only, as it always was: the yuan are not added. */
	assert_int_equal(costs_compute(st, &clk, 0, CG_NONE, &s, &err), GR_OK);
	assert_int_equal(s.spent, USD(1));
	assert_int_equal(s.unconverted, 1);
	assert_false(s.converted);
	cost_summary_release(&s);
	assert_int_equal(costs_compute_in(st, &clk, 0, CG_NONE, "CNY", NULL, &s, &err), GR_OK);
	assert_int_equal(s.spent, USD(10));
	assert_string_equal(s.currency, "CNY");
	cost_summary_release(&s);
	/* fx.CNY = 0.14: 10 CNY is 1.40 USD, and the summary says it converted. */
	assert_true(fx_set(&fx, "CNY", 140000));
	assert_int_equal(costs_compute_in(st, &clk, 0, CG_NONE, "USD", &fx, &s, &err), GR_OK);
	assert_int_equal(s.spent, USD(2.40));
	assert_int_equal(s.burn_hour, USD(2.40));
	assert_true(s.converted);
	assert_int_equal(s.unconverted, 0);
	cost_summary_release(&s);
	/* budget.day = 300 CNY; a 1.00 USD/h launch cannot be counted without a rate. */
	memset(&b, 0, sizeof(b));
	b.month = -1;
	b.day = USD(300);
	money_currency_set(b.day_currency, "CNY");
	money_currency_set(b.price_currency, "USD");
	assert_int_equal(launch_admit(st, &b, "vast", USD(1), &dry, &f, &in, &err), GR_EBUDGET);
	assert_non_null(strstr(err.msg, "fx.CNY"));
	/* With the rate: today 10 + 7.14 (1 USD) so far, and until midnight (14 h) 10 CNY/h,
	   7.142857 CNY/h and the launch's 7.142857 CNY/h: 355.14 CNY, over 300. */
	gr_error_clear(&err);
	b.fx = fx;
	assert_int_equal(launch_admit(st, &b, "vast", USD(1), &dry, &f, &in, &err), GR_EBUDGET);
	assert_non_null(strstr(err.msg, "converted at your configured rate"));
	assert_non_null(strstr(err.msg, "\xc2\xa5" "300.00"));
	gr_error_clear(&err);
	b.day = USD(400);
	assert_int_equal(launch_admit(st, &b, "vast", USD(1), &dry, &f, &in, &err), GR_OK);
	state_close(st);
}

/*
 * Two observers of the same instances at once (two gpurent processes listing a provider,
 * each with its own connection): each instance keeps one open segment and one term, as
 * the provider bills it once. Released together before each write, the two looked, found
 * nothing and both inserted (the chaos run's vast:60, counted twice). Two begins of one
 * segment leave one open (the first closed where it started). Per round, one hour after
 * WALL: compute 2.00 + storage 0.10 + a day's term at 1.00/h paid whole 24.00 + the begun
 * segment at 1.00/h 1.00 = 27.10.
 */
#define RACE_ROUNDS 100

struct racer {
	struct state *st;
	pthread_barrier_t *together;
	int failed;
};

static void
race_seen(struct racer *r, const char *id, enum inst_state state)
{
	struct instance in;
	struct gr_error err = { 0 };

	listed(&in, id, state, USD(2.00), USD(0.10));
	pthread_barrier_wait(r->together);
	r->failed += ledger_observe(r->st, &in, WALL, &err) != GR_OK;
}

static void *
race(void *arg)
{
	struct racer *r = arg;
	struct gr_error err = { 0 };
	struct ledger_seg g;
	int i;

	for (i = 0; i < RACE_ROUNDS; i++) {
		memset(&g, 0, sizeof(g));
		snprintf(g.instance_id, sizeof(g.instance_id), "vast:c%d", i);
		race_seen(r, g.instance_id, ST_RUNNING);
		snprintf(g.instance_id, sizeof(g.instance_id), "vast:s%d", i);
		race_seen(r, g.instance_id, ST_STOPPED);
		snprintf(g.instance_id, sizeof(g.instance_id), "vast:t%d", i);
		strlcpy_(g.provider, "vast", sizeof(g.provider));
		g.kind = LEDGER_TERM;
		g.rate_hour = USD(1.00);
		g.start = WALL;
		g.end = WALL + 86400;
		pthread_barrier_wait(r->together);
		r->failed += ledger_add_term(r->st, &g, &err) != GR_OK;
		snprintf(g.instance_id, sizeof(g.instance_id), "vast:b%d", i);
		g.kind = LEDGER_COMPUTE;
		g.end = 0;
		pthread_barrier_wait(r->together);
		r->failed += ledger_begin(r->st, &g, &err) != GR_OK;
	}
	return NULL;
}

static void
observers_at_once(void **state)
{
	struct racer r[2];
	pthread_barrier_t together;
	pthread_t other;
	struct gr_error err = { 0 };
	struct ledger_seg *v;
	int rows[4][RACE_ROUNDS] = { { 0 } }, open_b[RACE_ROUNDS] = { 0 };
	size_t n, k;
	char what;
	int i;

	(void)state;
	r[0].st = open_db("at-once");
	r[1].st = open_db("at-once");
	pthread_barrier_init(&together, NULL, 2);
	for (k = 0; k < 2; k++) {
		r[k].together = &together;
		r[k].failed = 0;
	}
	assert_int_equal(pthread_create(&other, NULL, race, &r[1]), 0);
	race(&r[0]);
	pthread_join(other, NULL);
	pthread_barrier_destroy(&together);
	assert_int_equal(r[0].failed + r[1].failed, 0);
	assert_int_equal(ledger_load(r[0].st, 0, 0, &v, &n, &err), GR_OK);
	for (k = 0; k < n; k++) {
		assert_int_equal(sscanf(v[k].instance_id, "vast:%c%d", &what, &i), 2);
		rows[what == 'c' ? 0 : what == 's' ? 1 : what == 't' ? 2 : 3][i]++;
		if (what == 'b')
			open_b[i] += v[k].end == 0;
		else
			assert_int_equal(v[k].end, what == 't' ? WALL + 86400 : 0);
	}
	free(v);
	for (i = 0; i < RACE_ROUNDS; i++) {
		for (k = 0; k < 3; k++)
			assert_int_equal(rows[k][i], 1);
		assert_int_equal(rows[3][i], 2);
		assert_int_equal(open_b[i], 1);
	}
	assert_int_equal(n, 5 * RACE_ROUNDS);
	assert_int_equal(ledger_spent(r[0].st, "vast", NULL, WALL + 3600, NULL),
	    RACE_ROUNDS * USD(27.10));
	state_close(r[0].st);
	state_close(r[1].st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clocks_provisioning_and_gone),
		cmocka_unit_test(unlisted_only_when_confirmed),
		cmocka_unit_test(provisioning_until_billing),
		cmocka_unit_test(storage_while_stopped),
		cmocka_unit_test(bids_and_offer_checks),
		cmocka_unit_test(admit_counts_provisioning),
		cmocka_unit_test(admit_counts_in_flight),
		cmocka_unit_test(admit_in_flight_per_person),
		cmocka_unit_test(two_currencies),
		cmocka_unit_test(observers_at_once),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
