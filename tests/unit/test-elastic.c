/*
 * The elastic groups' decision (src/guard/group.c, elastic_decide), case by case against
 * hand-computed answers: the thresholds at exactly 1.2 and 0.8 x the target, min and max,
 * the cooldown, the floor and preemption replacement (not held by the cooldown), which
 * member is least useful, and how many of a launch are on-demand with a base; and
 * --predict: Holt-Winters on a synthetic daily series, and the decisions it changes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>

#include "gpurent/elastic.h"
#include "gpurent/util.h"

#define NOW 1767261600

static struct group
grp(int min, int max, int target, int base)
{
	struct group g;

	memset(&g, 0, sizeof(g));
	strlcpy_(g.name, "web", sizeof(g.name));
	strlcpy_(g.gpu, "A100", sizeof(g.gpu));
	g.gpus = 1;
	g.min = min;
	g.max = max;
	g.target_util = target;
	g.cooldown = 600;
	g.window = 600;
	g.base = base;
	g.max_price = -1;
	return g;
}

static struct elastic_member
mem(const char *id, enum inst_state st, bool interruptible, int util, double price,
    int64_t created)
{
	struct elastic_member m;

	memset(&m, 0, sizeof(m));
	strlcpy_(m.id, id, sizeof(m.id));
	strlcpy_(m.label, "group:web", sizeof(m.label));
	m.state = st;
	m.interruptible = interruptible;
	m.util = util;
	m.price_hour = (int64_t)(price * 1e6);
	m.created_at = created;
	return m;
}

static void
decide(const struct group *g, const struct elastic_member *m, size_t n, double mean,
    int records, struct elastic_decision *d, size_t *retire)
{
	struct elastic_load load = { .mean = mean, .records = records };

	elastic_decide(g, m, n, &load, NOW, d, retire);
}

static void
test_thresholds(void **state)
{
	struct group g = grp(1, 4, 70, -1);
	struct elastic_member m[2] = {
		mem("sim:i-1", ST_RUNNING, false, 80, 1, 1),
		mem("sim:i-2", ST_RUNNING, false, 90, 1, 2),
	};
	struct elastic_decision d;
	size_t r[2];

	(void)state;
	decide(&g, m, 2, 84.0, 3, &d, r);		/* exactly 1.2 x 70: not above */
	assert_int_equal(d.verb, EL_HOLD);
	assert_string_equal(d.reason, "steady");
	decide(&g, m, 2, 84.1, 3, &d, r);
	assert_int_equal(d.verb, EL_OUT);
	assert_string_equal(d.reason, "load-high");
	assert_int_equal(d.launch, 1);
	assert_int_equal(d.launch_on_demand, 1);
	assert_non_null(strstr(d.why, "mean GPU utilisation 84.1% over 600s (3 readings), "
	    "target 70% (out above 84.0%, in below 56.0%); 2 live (min 1, max 4)"));
	decide(&g, m, 2, 56.0, 3, &d, r);		/* exactly 0.8 x 70: not below */
	assert_string_equal(d.reason, "steady");
	decide(&g, m, 2, 55.9, 3, &d, r);
	assert_int_equal(d.verb, EL_IN);
	assert_int_equal(d.n_retire, 1);
	assert_int_equal(r[0], 0);			/* 80 % is the less used */
	decide(&g, m, 2, 99.0, 0, &d, r);		/* no reading: nothing */
	assert_int_equal(d.verb, EL_HOLD);
	assert_string_equal(d.reason, "unobserved");
}

static void
test_bounds_and_cooldown(void **state)
{
	struct group g = grp(2, 2, 50, -1);
	struct elastic_member m[3] = {
		mem("sim:i-1", ST_RUNNING, false, 10, 1, 1),
		mem("sim:i-2", ST_PROVISIONING, false, -1, 1, 2),
		mem("sim:i-3", ST_RUNNING, false, 5, 1, 3),
	};
	struct elastic_decision d;
	size_t r[3];

	(void)state;
	m[2].in_flight = true;			/* being destroyed: not live */
	decide(&g, m, 3, 95, 1, &d, r);
	assert_string_equal(d.reason, "at-max");
	assert_int_equal(d.live, 2);
	decide(&g, m, 3, 5, 1, &d, r);
	assert_string_equal(d.reason, "at-min");
	g.max = 5;
	g.min = 1;
	g.last_scale_at = NOW - 599;
	decide(&g, m, 3, 95, 1, &d, r);
	assert_int_equal(d.verb, EL_HOLD);
	assert_string_equal(d.reason, "cooldown");
	assert_non_null(strstr(d.why, "last scaled 599s ago, cooldown 600s"));
	g.last_scale_at = NOW - 600;
	decide(&g, m, 3, 95, 1, &d, r);
	assert_int_equal(d.verb, EL_OUT);
	/* Scale in: the provisioning member has no reading and is never the one. */
	decide(&g, m, 3, 5, 1, &d, r);
	assert_int_equal(d.verb, EL_IN);
	assert_int_equal(r[0], 0);
}

static void
test_floor_and_replacement(void **state)
{
	struct group g = grp(3, 4, 50, 1);
	struct elastic_member m[3] = {
		mem("sim:i-1", ST_RUNNING, false, 50, 1, 1),
		mem("sim:i-2", ST_STOPPED, true, -1, 0.4, 2),	/* taken back */
		mem("sim:i-3", ST_RUNNING, true, 50, 0.4, 3),
	};
	struct elastic_decision d;
	size_t r[3];

	(void)state;
	g.last_scale_at = NOW - 1;			/* the cooldown holds neither */
	decide(&g, m, 3, 50, 1, &d, r);
	assert_int_equal(d.verb, EL_OUT);
	assert_string_equal(d.reason, "replace");
	assert_int_equal(d.live, 2);
	assert_int_equal(d.lost, 1);
	assert_int_equal(d.launch, 1);			/* max(min 3, 2 + 1) - 2 */
	assert_int_equal(d.launch_on_demand, 0);	/* the base of 1 is there */
	assert_int_equal(d.n_retire, 1);
	assert_int_equal(r[0], 1);
	/* Below min with nothing lost: the shortfall, on-demand up to the base. */
	m[1].state = ST_DESTROYED;
	m[0].state = ST_DESTROYED;
	decide(&g, m, 3, 50, 1, &d, r);
	assert_string_equal(d.reason, "below-min");
	assert_int_equal(d.launch, 2);
	assert_int_equal(d.launch_on_demand, 1);
	assert_int_equal(d.n_retire, 0);
	/* A stopped on-demand member is not lost to preemption. */
	m[0].state = ST_STOPPED;
	g.min = 1;
	decide(&g, m, 3, 50, 1, &d, r);
	assert_int_equal(d.lost, 0);
	assert_string_equal(d.reason, "steady");
}

static void
test_least_useful(void **state)
{
	struct group g = grp(0, 9, 50, 1);
	struct elastic_member m[5] = {
		mem("sim:i-1", ST_RUNNING, false, 10, 2, 1),	/* the base: kept */
		mem("sim:i-2", ST_RUNNING, true, 20, 0.5, 2),
		mem("sim:i-3", ST_RUNNING, true, 20, 0.7, 3),	/* dearer */
		mem("sim:i-4", ST_RUNNING, true, 20, 0.7, 4),	/* and newer */
		mem("sim:i-5", ST_RUNNING, true, 30, 0.9, 5),
	};
	struct elastic_decision d;
	size_t r[5];

	(void)state;
	decide(&g, m, 5, 20, 1, &d, r);
	assert_int_equal(d.verb, EL_IN);
	assert_int_equal(r[0], 3);
	/* Without a base to keep, the least used of all. */
	g.base = -1;
	decide(&g, m, 5, 20, 1, &d, r);
	assert_int_equal(r[0], 0);
	/* A base already exceeded: on-demand members may go too. */
	g.base = 0;
	decide(&g, m, 5, 20, 1, &d, r);
	assert_int_equal(r[0], 0);
}

/* A synthetic day: 50 % +- 40 % on a cosine, busiest at bucket 56 (14:00), plus a trend. */
static double
day_load(size_t t, double trend)
{
	return 50.0 + 40.0 * cos(2.0 * M_PI * ((double)t - 56.0) / 96.0) + trend * (double)t;
}

static void
test_forecast_synthetic(void **state)
{
	double y[96 * 5], f;
	size_t t, n;

	(void)state;
	/* Four days of a clean pattern: the next buckets are forecast almost exactly. */
	for (t = 0; t < 96 * 4; t++)
		y[t] = day_load(t, 0);
	assert_true(elastic_forecast(y, 96 * 4, 96, ELASTIC_ALPHA, ELASTIC_BETA, ELASTIC_GAMMA,
	    1, &f));
	assert_true(fabs(f - day_load(96 * 4, 0)) < 0.5);
	/* From 02:00 (bucket 8), the peak 12 h on is seen coming. */
	assert_true(elastic_forecast(y, 96 * 3 + 9, 96, ELASTIC_ALPHA, ELASTIC_BETA,
	    ELASTIC_GAMMA, 48, &f));
	assert_true(fabs(f - 90.0) < 1.0);
	/* With a rising trend (0.01 % a bucket) and noise of +-2 %, within 3 %. */
	for (t = 0; t < 96 * 5; t++)
		y[t] = day_load(t, 0.01) + ((t * 7919) % 5 == 0 ? 2.0 : (t % 3 == 0 ? -2.0 : 0.0));
	for (n = 96 * 2; n < 96 * 5; n += 13) {
		assert_true(elastic_forecast(y, n, 96, ELASTIC_ALPHA, ELASTIC_BETA, ELASTIC_GAMMA,
		    1, &f));
		assert_true(fabs(f - day_load(n, 0.01)) < 3.0);
	}
	/* Under two seasons: no forecast. */
	assert_false(elastic_forecast(y, 96 * 2 - 1, 96, ELASTIC_ALPHA, ELASTIC_BETA,
	    ELASTIC_GAMMA, 1, &f));
}

static void
test_predicted_decisions(void **state)
{
	struct group g = grp(1, 3, 50, -1);
	struct elastic_member m[2] = {
		mem("sim:i-1", ST_RUNNING, false, 45, 1, 1),
		mem("sim:i-2", ST_RUNNING, false, 30, 1, 2),
	};
	struct elastic_load load = { .mean = 50, .records = 2, .forecast_known = true,
		.forecast = 61 };
	struct elastic_decision d;
	size_t r[2];

	(void)state;
	g.predict = true;
	/* Steady now, a peak above 60 % forecast: out ahead of it, and says so. */
	elastic_decide(&g, m, 2, &load, NOW, &d, r);
	assert_int_equal(d.verb, EL_OUT);
	assert_string_equal(d.reason, "predicted-high");
	assert_non_null(strstr(d.why, "forecast 61.0% in 900s"));
	/* Forecast at exactly 1.2 x: nothing. */
	load.forecast = 60;
	elastic_decide(&g, m, 2, &load, NOW, &d, r);
	assert_string_equal(d.reason, "steady");
	/* Low now but not in 15 minutes: not scaled in. */
	load.mean = 30;
	load.forecast = 45;
	elastic_decide(&g, m, 2, &load, NOW, &d, r);
	assert_int_equal(d.verb, EL_HOLD);
	assert_string_equal(d.reason, "predicted");
	assert_int_equal(d.n_retire, 0);
	/* Low now and then: scaled in as without --predict. */
	load.forecast = 35;
	elastic_decide(&g, m, 2, &load, NOW, &d, r);
	assert_int_equal(d.verb, EL_IN);
	/* The cooldown and max hold a predicted peak too. */
	load.mean = 50;
	load.forecast = 80;
	g.last_scale_at = NOW - 10;
	elastic_decide(&g, m, 2, &load, NOW, &d, r);
	assert_int_equal(d.verb, EL_HOLD);
	g.last_scale_at = 0;
	g.max = 2;
	elastic_decide(&g, m, 2, &load, NOW, &d, r);
	assert_int_equal(d.verb, EL_HOLD);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_bounds_and_cooldown),
		cmocka_unit_test(test_floor_and_replacement),
		cmocka_unit_test(test_least_useful),
		cmocka_unit_test(test_forecast_synthetic),
		cmocka_unit_test(test_predicted_decisions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
