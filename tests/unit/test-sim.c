/*
 * The simulator on its own: lifecycle timing, exact billing, metrics consistency and
 * concurrency between two connections to one database.
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lifecycle_and_billing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
