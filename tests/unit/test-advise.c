/*
 * advise's pure computations (src/guard/advise.c): the percentile of GPUs at once, a term's
 * break-even, and a plan's costs and saving, each against a figure worked out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpurent/advise.h"

/* dur[L]: seconds with L GPUs running. */
static void
percentile(void **state)
{
	/* 0 GPUs for 5 s, 1 for 5 s, 4 for 40 s, 12 for 50 s (of 100 s) */
	int64_t dur[13] = { [0] = 5, [1] = 5, [4] = 40, [12] = 50 };
	int64_t none[3] = { 0 };
	int64_t flat[5] = { [4] = 7 };

	(void)state;
	/* at or below 0: 5 % of the time; at or below 1: 10 %, which the 10th reaches */
	assert_int_equal(advise_percentile(dur, 13, 10), 1);
	assert_int_equal(advise_percentile(dur, 13, 5), 0);
	assert_int_equal(advise_percentile(dur, 13, 11), 4);
	assert_int_equal(advise_percentile(dur, 13, 50), 4);	/* 50 s at or below 4 */
	assert_int_equal(advise_percentile(dur, 13, 51), 12);
	assert_int_equal(advise_percentile(dur, 13, 100), 12);
	assert_int_equal(advise_percentile(none, 3, 10), -1);	/* no time: unknown */
	assert_int_equal(advise_percentile(flat, 5, 10), 4);
}

static void
break_even(void **state)
{
	(void)state;
	/* a term at d % off pays from 730 h x (1 - d) a month */
	assert_true(advise_break_even_hours(20) == 584.0);
	assert_true(advise_break_even_hours(30) == 511.0);
	assert_true(advise_break_even_hours(25) == 547.5);
	assert_true(advise_break_even_hours(0) == 730.0);
}

static void
plan(void **state)
{
	struct advise_plan p;

	(void)state;
	/*
	 * 5760 GPU-hours paid 11520.00 (2.00 each) over 720 h, base 4 covering 2880 of them:
	 * 30 % off: the term 4 x 720 x 2.00 x 0.70 = 4032.00, the rest 2880 x 2.00 = 5760.00,
	 * saving 11520.00 - 4032.00 - 5760.00 = 1728.00.
	 */
	p = advise_plan(11520000000, 5760 * 3600LL, 2880 * 3600LL, 4, 720 * 3600LL, 30);
	assert_int_equal(p.term_cost, 4032000000);
	assert_int_equal(p.demand_cost, 5760000000);
	assert_int_equal(p.saving, 1728000000);
	/*
	 * A term that costs more than it saves: 1 GPU running 100 of 720 h, paid 100 x 3.00
	 * = 300.00; on a term at 20 % off 720 x 3.00 x 0.80 = 1728.00, nothing on demand:
	 * saving 300.00 - 1728.00 = -1428.00.
	 */
	p = advise_plan(300000000, 100 * 3600LL, 100 * 3600LL, 1, 720 * 3600LL, 20);
	assert_int_equal(p.term_cost, 1728000000);
	assert_int_equal(p.demand_cost, 0);
	assert_int_equal(p.saving, -1428000000);
	/*
	 * Prices that do not divide: 3 GPU-hours paid 1.000001 (all above a base of 0):
	 * nothing on the term, the rest is what was paid, to the micro-unit.
	 */
	p = advise_plan(1000001, 3 * 3600, 0, 0, 3600, 20);
	assert_int_equal(p.term_cost, 0);
	assert_int_equal(p.demand_cost, 1000001);
	assert_int_equal(p.saving, 0);
	/* nothing observed: nothing to pay or save */
	p = advise_plan(0, 0, 0, 0, 0, 20);
	assert_int_equal(p.saving, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(percentile),
		cmocka_unit_test(break_even),
		cmocka_unit_test(plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
