/*
 * The simulator on its own: lifecycle timing, exact billing, metrics consistency,
 * concurrency between two connections to one database, the market it keeps between
 * two asks equal to one made afresh, and the market's stamp changing with its answer.
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

#include "gpurent/costs.h"
#include "gpurent/sim.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "../../src/sim/sim_int.h"

/* The group's scratch directory, under $TMPDIR. */
static char dir[256];
static char db[sizeof(dir) + 16];

static int
setup(void **state)
{
	(void)state;
	if (test_tmpdir_make(dir, sizeof(dir), "sim") != 0)
		return -1;
	snprintf(db, sizeof(db), "%s/state.db", dir);
	setenv("GPURENT_SIM_TIME", "1790000000", 1);
	setenv("GPURENT_SIM_SEED", "3", 1);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return test_tmpdir_remove(dir);
}

static const struct offer *
first_of(const struct offer_list *l, enum offer_type type)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].type == type)
			return &l->v[i];
	return NULL;
}

static void
lifecycle_and_billing(void **state)
{
	struct state *st, *st2;
	struct sim *s, *s2;
	struct gr_error err = { 0 };
	struct offer_list l;
	struct launch_req req;
	struct instance in;
	struct sample_list a, b;
	struct cost_summary sum;
	struct cost_clock clk;
	const struct offer *o;
	int64_t t_run, secs;

	(void)state;
	assert_int_equal(state_open(&st, db, &err), GR_OK);
	assert_int_equal(sim_open(&s, st, &err), GR_OK);
	offer_list_init(&l);
	assert_int_equal(sim_offers(s, &l, &err), GR_OK);
	assert_true(l.n >= 300);
	o = first_of(&l, OFFER_ON_DEMAND);
	assert_non_null(o);
	memset(&req, 0, sizeof(req));
	req.offer_id = o->id;
	req.label = "unit";
	req.client_token = "tok-1";
	assert_int_equal(sim_launch(s, &req, &in, &err), GR_OK);
	assert_int_equal(in.state, ST_PROVISIONING);
	/* The same token is the same launch: no double rental. */
	{
		struct instance again;

		assert_int_equal(sim_launch(s, &req, &again, &err), GR_OK);
		assert_string_equal(again.id, in.id);
	}
	/* A second process (connection) sees the same world and moves its clock. */
	assert_int_equal(state_open(&st2, db, &err), GR_OK);
	assert_int_equal(sim_open(&s2, st2, &err), GR_OK);
	assert_int_equal(sim_advance(s2, 120, &err), GR_OK);
	assert_int_equal(sim_get(s, in.id, &in, &err), GR_OK);
	assert_int_equal(in.state, ST_RUNNING);
	t_run = in.state_since;
	assert_true(t_run > 1790000000 && t_run <= 1790000000 + 120);

	/* Metrics are a function of time: two calls at one moment agree. */
	sample_list_init(&a);
	sample_list_init(&b);
	assert_int_equal(sim_metrics(s, in.id, &a, &err), GR_OK);
	assert_int_equal(sim_metrics(s2, in.id, &b, &err), GR_OK);
	assert_int_equal(a.n, (size_t)in.gpu_count);
	assert_memory_equal(a.v, b.v, a.n * sizeof(*a.v));
	sample_list_release(&a);
	sample_list_release(&b);

	assert_int_equal(sim_advance(s, 3600, &err), GR_OK);
	clk.wall = 1;	/* no real provider here: the wall clock must not matter */
	clk.sim = sim_now(s);
	clk.sim_shown = true;
	assert_int_equal(costs_compute(st, &clk, 0, CG_NONE, &sum, &err), GR_OK);
	/* Worked out here, not with money_accrue (the code under test): micro-dollars per hour
	 * times seconds run, over 3600, rounded half up. */
	secs = sim_now(s) - t_run;
	assert_true(secs >= 3600 && secs <= 3720);
	assert_int_equal(sum.spent, (o->price_hour * secs + 1800) / 3600);
	assert_int_equal(sum.burn_hour, o->price_hour);
	cost_summary_release(&sum);

	assert_int_equal(sim_stop(s, in.id, &err), GR_OK);
	assert_int_equal(sim_advance(s, 60, &err), GR_OK);
	assert_int_equal(sim_get(s, in.id, &in, &err), GR_OK);
	assert_int_equal(in.state, ST_STOPPED);
	assert_int_equal(sim_destroy(s, in.id, &err), GR_OK);
	assert_int_equal(sim_advance(s, 60, &err), GR_OK);
	assert_int_equal(sim_get(s, in.id, &in, &err), GR_OK);
	assert_int_equal(in.state, ST_DESTROYED);
	assert_int_equal(sim_stop(s, in.id, &err), GR_ENOTFOUND);
	gr_error_clear(&err);
	assert_int_equal(sim_get(s, "sim:i-424242", &in, &err), GR_ENOTFOUND);

	offer_list_release(&l);
	sim_close(s2);
	state_close(st2);
	sim_close(s);
	state_close(st);
}

/* Every offer of c's build at now is the one market_offer makes afresh, byte for byte. */
static void
assert_market_fresh(const struct offer *v, int64_t n, int64_t now)
{
	struct offer fresh;
	int64_t i;

	for (i = 0; i < n; i++) {
		market_offer(3, i, now, &fresh);
		assert_memory_equal(&v[i], &fresh, sizeof(fresh));
	}
}

/* The kept market: from the second ask, reused inside one availability period, built
 * again past it. */
static void
market_kept_within_period(void **state)
{
	struct market_cache c = { 0 };
	const struct offer *v;
	int64_t period_start = 1790000000 / MARKET_AVAIL_PERIOD * MARKET_AVAIL_PERIOD;

	(void)state;
	/* The first ask is left to the caller: one ask alone is not worth keeping. */
	assert_null(market_kept(&c, 3, 500, period_start));
	assert_int_equal(c.builds, 0);
	v = market_kept(&c, 3, 500, period_start);
	assert_int_equal(c.builds, 1);
	assert_market_fresh(v, 500, period_start);
	v = market_kept(&c, 3, 500, period_start);
	assert_int_equal(c.builds, 1);
	assert_market_fresh(v, 500, period_start);
	/* The last second of the period: the same build serves it exactly. */
	v = market_kept(&c, 3, 500, period_start + MARKET_AVAIL_PERIOD - 1);
	assert_int_equal(c.builds, 1);
	assert_market_fresh(v, 500, period_start + MARKET_AVAIL_PERIOD - 1);
	/* The next period (machines come and go), the next hour (prices move), another
	 * count: each built again. */
	v = market_kept(&c, 3, 500, period_start + MARKET_AVAIL_PERIOD);
	assert_int_equal(c.builds, 2);
	assert_market_fresh(v, 500, period_start + MARKET_AVAIL_PERIOD);
	v = market_kept(&c, 3, 500, period_start + MARKET_PRICE_PERIOD);
	assert_int_equal(c.builds, 3);
	assert_market_fresh(v, 500, period_start + MARKET_PRICE_PERIOD);
	v = market_kept(&c, 3, 400, period_start + MARKET_PRICE_PERIOD);
	assert_int_equal(c.builds, 4);
	assert_market_fresh(v, 400, period_start + MARKET_PRICE_PERIOD);
	market_cache_release(&c);
}

/* sim_offers from a world that kept its market equals one from a world opened afresh. */
static void
assert_offers_fresh(struct sim *kept, struct state *st)
{
	struct gr_error err = { 0 };
	struct offer_list a, b;
	struct sim *fresh;
	size_t i;

	offer_list_init(&a);
	offer_list_init(&b);
	assert_int_equal(sim_offers(kept, &a, &err), GR_OK);
	assert_int_equal(sim_open(&fresh, st, &err), GR_OK);
	assert_int_equal(sim_offers(fresh, &b, &err), GR_OK);
	assert_int_equal(a.n, b.n);
	for (i = 0; i < a.n; i++)
		assert_memory_equal(&a.v[i], &b.v[i], sizeof(a.v[i]));
	sim_close(fresh);
	offer_list_release(&a);
	offer_list_release(&b);
}

static void
offers_after_changes(void **state)
{
	struct state *st;
	struct sim *s;
	struct gr_error err = { 0 };
	struct offer_list l;
	struct launch_req req;
	struct instance in;
	const struct offer *o;
	char id[sizeof(o->id)];
	int avail;
	size_t i;

	(void)state;
	assert_int_equal(state_open(&st, db, &err), GR_OK);
	assert_int_equal(sim_open(&s, st, &err), GR_OK);
	assert_offers_fresh(s, st);
	assert_offers_fresh(s, st);	/* the second ask, from the kept market */
	/* A launch takes a machine of an offer: the kept market shows it at once. */
	offer_list_init(&l);
	assert_int_equal(sim_offers(s, &l, &err), GR_OK);
	o = first_of(&l, OFFER_ON_DEMAND);
	assert_non_null(o);
	strlcpy_(id, o->id, sizeof(id));
	avail = o->available;
	memset(&req, 0, sizeof(req));
	req.offer_id = id;
	req.label = "cache";
	req.client_token = "tok-cache";
	assert_int_equal(sim_launch(s, &req, &in, &err), GR_OK);
	offer_list_release(&l);
	offer_list_init(&l);
	assert_int_equal(sim_offers(s, &l, &err), GR_OK);
	for (i = 0; i < l.n && strcmp(l.v[i].id, id) != 0; i++)
		;
	if (avail == 1)
		assert_true(i == l.n);
	else {
		assert_true(i < l.n);
		assert_int_equal(l.v[i].available, avail - 1);
	}
	offer_list_release(&l);
	assert_offers_fresh(s, st);
	/* The clock: a minute (same period), ten minutes, six hours. */
	assert_int_equal(sim_advance(s, 60, &err), GR_OK);
	assert_offers_fresh(s, st);
	assert_int_equal(sim_advance(s, MARKET_AVAIL_PERIOD, &err), GR_OK);
	assert_offers_fresh(s, st);
	assert_int_equal(sim_advance(s, 6 * 3600, &err), GR_OK);
	assert_offers_fresh(s, st);
	sim_close(s);
	state_close(st);
}

/* What sim_offers answered, and the stamp read just before it. */
struct seen {
	uint64_t stamp;
	struct offer_list l;
};

static void
look(struct sim *s, struct seen *out)
{
	struct gr_error err = { 0 };

	assert_int_equal(sim_offers_stamp(s, &out->stamp, &err), GR_OK);
	offer_list_init(&out->l);
	assert_int_equal(sim_offers(s, &out->l, &err), GR_OK);
}

static bool
same_answer(const struct offer_list *a, const struct offer_list *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (memcmp(&a->v[i], &b->v[i], offsetof(struct offer, fetched_at)) != 0)
			return false;
	return true;
}

/* Look again: whether the answer and the stamp changed since *prev, as expected; an equal
 * stamp must always mean an equal answer. */
static void
step(struct sim *s, struct seen *prev, bool answer_changed, bool stamp_changed)
{
	struct seen now;

	look(s, &now);
	assert_true(now.stamp != prev->stamp || same_answer(&prev->l, &now.l));
	assert_int_equal(!same_answer(&prev->l, &now.l), answer_changed);
	assert_int_equal(now.stamp != prev->stamp, stamp_changed);
	offer_list_release(&prev->l);
	*prev = now;
}

/* The clock moved by seconds, as real time moves it: nobody has ticked the world since. */
static void
time_passes(struct state *st, int64_t seconds)
{
	struct gr_error err = { 0 };
	char buf[32];
	long long off = 0;

	if (state_meta_get(st, "sim.offset", buf, sizeof(buf)))
		off = atoll(buf);
	snprintf(buf, sizeof(buf), "%lld", off + (long long)seconds);
	assert_int_equal(state_meta_set(st, "sim.offset", buf, &err), GR_OK);
}

/*
 * The market's stamp (sim_offers_stamp) against sim_offers itself, in a world of its own:
 * launches and state changes made through a second connection (another process), the clock
 * within and across ten minutes, and another seed or market size.
 */
static void
offers_stamp_follows_market(void **state)
{
	struct state *st, *st2;
	struct sim *s, *s2, *other;
	struct gr_error err = { 0 };
	struct launch_req req;
	struct instance in;
	struct seen a;
	const struct offer *o;
	char path[sizeof(dir) + 16], id[sizeof(o->id)];
	uint64_t stamp;

	(void)state;
	snprintf(path, sizeof(path), "%s/stamp.db", dir);
	assert_int_equal(state_open(&st, path, &err), GR_OK);
	assert_int_equal(state_open(&st2, path, &err), GR_OK);
	assert_int_equal(sim_open(&s, st, &err), GR_OK);
	assert_int_equal(sim_open(&s2, st2, &err), GR_OK);
	/* GPURENT_SIM_TIME is 200 s into a ten-minute period. */
	assert_int_equal(1790000000 % MARKET_AVAIL_PERIOD, 200);
	look(s, &a);
	step(s, &a, false, false);	/* the kept market, from the second ask */
	assert_int_equal(sim_offers_stamp(s2, &stamp, &err), GR_OK);
	assert_true(stamp == a.stamp);	/* another process reads the same stamp */
	assert_int_equal(sim_advance(s2, 60, &err), GR_OK);
	step(s, &a, false, false);	/* a minute on, the same ten minutes */

	/* Another process rents a machine: the answer changes, so does the stamp. */
	o = first_of(&a.l, OFFER_ON_DEMAND);
	assert_non_null(o);
	strlcpy_(id, o->id, sizeof(id));
	memset(&req, 0, sizeof(req));
	req.offer_id = id;
	req.client_token = "tok-stamp";
	assert_int_equal(sim_launch(s2, &req, &in, &err), GR_OK);
	step(s, &a, true, true);
	/* It boots (a state change, the same machines rented); then it is destroyed: it
	 * holds its machine until the destruction ends, seconds later, which nobody asks
	 * for: the stamp's own look at the world sees the machine come back. */
	time_passes(st2, 100);
	step(s, &a, false, true);
	assert_int_equal(sim_destroy(s2, in.id, &err), GR_OK);
	step(s, &a, false, true);
	time_passes(st2, 10);
	step(s, &a, true, true);
	step(s, &a, false, false);
	/* Past the ten minutes (360 + 10 + 300 s): machines come and go. */
	assert_int_equal(sim_advance(s2, 300, &err), GR_OK);
	step(s, &a, true, true);

	/* Another market size, another seed: another stamp. */
	setenv("GPURENT_SIM_OFFERS", "401", 1);
	assert_int_equal(sim_open(&other, st, &err), GR_OK);
	assert_int_equal(sim_offers_stamp(other, &stamp, &err), GR_OK);
	assert_true(stamp != a.stamp);
	sim_close(other);
	unsetenv("GPURENT_SIM_OFFERS");
	setenv("GPURENT_SIM_SEED", "4", 1);
	assert_int_equal(sim_open(&other, st, &err), GR_OK);
	assert_int_equal(sim_offers_stamp(other, &stamp, &err), GR_OK);
	assert_true(stamp != a.stamp);
	sim_close(other);
	setenv("GPURENT_SIM_SEED", "3", 1);
	step(s, &a, false, false);
	offer_list_release(&a.l);
	sim_close(s);
	sim_close(s2);
	state_close(st);
	state_close(st2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lifecycle_and_billing),
		cmocka_unit_test(market_kept_within_period),
		cmocka_unit_test(offers_after_changes),
		cmocka_unit_test(offers_stamp_follows_market),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
