/*
 * Launch by requirement (src/guard/requirement.c): the ranking, and the failover against a
 * scripted provider: which failures move on to the next candidate, which stop the request,
 * and that one request never launches twice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpurent/requirement.h"
#include "gpurent/util.h"

#define USD(d) ((int64_t)((d) * 1000000.0 + 0.5))

static struct offer
mk(const char *id, double price, int rel_bp, enum offer_type t)
{
	struct offer o;

	memset(&o, 0, sizeof(o));
	strlcpy_(o.id, id, sizeof(o.id));
	o.price_hour = USD(price);
	o.reliability_bp = rel_bp;
	o.type = t;
	o.gpu_count = 1;
	o.available = 1;
	o.disk_gb = 200;
	o.storage_gb_month = USD(0.073);	/* 100 GB: $0.01/h */
	o.valid = OV_PRICE | OV_RELIABILITY | OV_AVAILABLE | OV_DISK | OV_STORAGE;
	return o;
}

static const struct req_pricing plain = { .disk_gb = 100, .margin_pct = 20, .max_all_in = -1 };

static void
ranks_by_all_in_then_reliability(void **state)
{
	struct offer_list l;
	struct req_candidate *c;
	struct req_pricing p = plain;
	size_t n, skipped;

	(void)state;
	offer_list_init(&l);
	*offer_list_add(&l) = mk("t:a", 2.00, 9800, OFFER_ON_DEMAND);
	*offer_list_add(&l) = mk("t:b", 1.50, 9900, OFFER_ON_DEMAND);
	*offer_list_add(&l) = mk("t:c", 2.00, 9950, OFFER_ON_DEMAND);
	/* $1.40 bid 20 % over: $1.68, dearer than b all in. */
	*offer_list_add(&l) = mk("t:d", 1.40, 9990, OFFER_INTERRUPTIBLE);
	*offer_list_add(&l) = mk("t:e", 9.00, 9990, OFFER_ON_DEMAND);
	l.v[4].available = 0;	/* no machine free: left out */
	p.max_all_in = USD(2.01);
	requirement_rank(&l, &p, &c, &n, &skipped);
	assert_int_equal(n, 4);
	assert_int_equal(skipped, 1);
	assert_string_equal(c[0].offer.id, "t:b");
	assert_string_equal(c[1].offer.id, "t:d");
	assert_int_equal(c[1].plan.bid_hour, USD(1.68));
	assert_int_equal(c[1].all_in_hour, USD(1.69));
	/* a and c cost the same: the more reliable first. */
	assert_string_equal(c[2].offer.id, "t:c");
	assert_string_equal(c[3].offer.id, "t:a");
	assert_int_equal(c[3].storage_hour, USD(0.01));
	assert_int_equal(c[3].all_in_hour, USD(2.01));
	free(c);
	/* Over --max-price all in, though the offer's own price is under it. */
	p.max_all_in = USD(2.005);
	requirement_rank(&l, &p, &c, &n, &skipped);
	assert_int_equal(n, 2);
	free(c);
	offer_list_release(&l);
}

/*
 * Offers in dollars and yuan: without a rate the check refuses, naming fx.CNY; with
 * fx.CNY = 0.14 they are ranked in dollars, and a --max-price in yuan holds the dollar
 * offers at the rate. The cells keep each offer's own currency.
 */
static void
ranks_across_currencies_only_at_a_rate(void **state)
{
	struct offer_list l;
	struct req_candidate *c;
	struct req_pricing p = plain;
	struct req_money m;
	struct gr_error err = { 0 };
	struct fx_rates fx;
	size_t n, skipped;

	(void)state;
	offer_list_init(&l);
	*offer_list_add(&l) = mk("t:a", 2.00, 9800, OFFER_ON_DEMAND);	/* $2.01 all in */
	*offer_list_add(&l) = mk("t:b", 12.00, 9900, OFFER_ON_DEMAND);	/* ¥12.01: $1.6814 */
	*offer_list_add(&l) = mk("t:c", 16.00, 9900, OFFER_ON_DEMAND);	/* ¥16.01: $2.2414 */
	strlcpy_(l.v[1].currency, "CNY", sizeof(l.v[1].currency));
	strlcpy_(l.v[2].currency, "CNY", sizeof(l.v[2].currency));
	memset(&fx, 0, sizeof(fx));
	p.fx = &fx;
	assert_int_equal(requirement_money_check(&l, &p, &m, &err), GR_EUSAGE);
	assert_non_null(strstr(err.msg, "fx.CNY"));
	/* Unconvertible candidates are never compared with the others' numbers. */
	requirement_rank(&l, &p, &c, &n, &skipped);
	assert_int_equal(n, 3);
	assert_string_equal(c[0].offer.id, "t:a");
	assert_int_equal(c[1].rank_hour, -1);
	free(c);

	assert_true(fx_set(&fx, "CNY", USD(0.14)));
	assert_int_equal(requirement_money_check(&l, &p, &m, &err), GR_OK);
	assert_true(m.converted);
	assert_string_equal(m.rated, "CNY");
	requirement_rank(&l, &p, &c, &n, &skipped);
	assert_int_equal(n, 3);
	assert_string_equal(c[0].offer.id, "t:b");
	assert_string_equal(c[0].offer.currency, "CNY");
	assert_int_equal(c[0].all_in_hour, USD(12.01));
	assert_int_equal(c[0].rank_hour, USD(1.6814));
	assert_string_equal(c[1].offer.id, "t:a");
	assert_string_equal(c[2].offer.id, "t:c");
	free(c);

	/* --max-price 15 CNY: ¥16.01 is over; $2.01 is ¥14.357 at the rate, under. */
	p.max_all_in = USD(15);
	strlcpy_(p.max_currency, "CNY", sizeof(p.max_currency));
	requirement_rank(&l, &p, &c, &n, &skipped);
	assert_int_equal(n, 2);
	assert_int_equal(skipped, 1);
	assert_string_equal(c[1].offer.id, "t:a");
	free(c);
	/* ... and without the rate the dollar offer cannot be held to it. */
	memset(&fx, 0, sizeof(fx));
	memset(&err, 0, sizeof(err));
	assert_int_equal(requirement_money_check(&l, &p, &m, &err), GR_EUSAGE);
	assert_non_null(strstr(err.msg, "--max-price is in CNY"));
	offer_list_release(&l);
}

/* A scripted provider: per candidate, what the re-read and the create answer. */
struct script {
	enum gr_err reread[8];
	double now_price[8];	/* the price the re-read lists; 0: as ranked */
	enum gr_err launch[8];
	int launches;
};

static int
index_of(const struct req_candidate *c)
{
	return c->offer.id[2] - 'a';
}

static enum gr_err
fake_reread(void *ctx, const struct req_candidate *c, struct offer *now, struct gr_error *err)
{
	struct script *s = ctx;
	int i = index_of(c);

	*now = c->offer;
	if (s->now_price[i] > 0)
		now->price_hour = USD(s->now_price[i]);
	return s->reread[i] == GR_OK ? GR_OK : gr_fail(err, s->reread[i], "reread %d", i);
}

static enum gr_err
fake_launch(void *ctx, const struct req_candidate *c, struct instance *out,
    struct gr_error *err)
{
	struct script *s = ctx;
	int i = index_of(c);

	s->launches++;
	if (s->launch[i] != GR_OK)
		return gr_fail(err, s->launch[i], "launch %d", i);
	memset(out, 0, sizeof(*out));
	snprintf(out->id, sizeof(out->id), "t:i-%d", i);
	return GR_OK;
}

static void
ranked(struct req_candidate **c, size_t *n)
{
	struct offer_list l;
	size_t skipped;
	int i;

	offer_list_init(&l);
	for (i = 0; i < 6; i++) {
		char id[8];

		snprintf(id, sizeof(id), "t:%c", 'a' + i);
		*offer_list_add(&l) = mk(id, 1.0 + i, 9900, OFFER_ON_DEMAND);
	}
	requirement_rank(&l, &plain, c, n, &skipped);
	offer_list_release(&l);
}

static void
fails_over_to_the_first_that_can_be_had(void **state)
{
	struct script s = { 0 };
	struct req_ops ops = { fake_reread, fake_launch };
	struct req_attempt at[10];
	struct req_candidate *c;
	struct instance in;
	struct gr_error err = { 0 };
	size_t n, nat;

	(void)state;
	ranked(&c, &n);
	s.reread[0] = GR_ECAPACITY;		/* no longer listed */
	s.now_price[1] = 2.50;			/* $2 when ranked: risen */
	s.now_price[2] = 2.50;			/* $3 when ranked: fell, fine... */
	s.launch[2] = GR_ECAPACITY;		/* ...but the create finds it full */
	s.reread[3] = GR_EUNAVAIL;		/* a search failed: nothing was sent */
	assert_int_equal(requirement_launch(c, n, &plain, 10, &ops, &s, &in, at, &nat, &err),
	    GR_OK);
	assert_string_equal(in.id, "t:i-4");
	assert_int_equal(nat, 5);
	assert_int_equal(s.launches, 2);
	assert_int_equal(at[0].outcome, REQ_GONE);
	assert_int_equal(at[1].outcome, REQ_PRICE_CHANGED);
	assert_int_equal(at[1].now_hour, USD(2.51));
	assert_non_null(strstr(at[1].why, "rose from $2.010/h to $2.510/h"));
	assert_int_equal(at[2].outcome, REQ_NO_CAPACITY);
	assert_int_equal(at[3].outcome, REQ_UNREADABLE);
	assert_int_equal(at[4].outcome, REQ_RENTED);
	assert_string_equal(req_outcome_name(at[2].outcome), "unavailable");
	free(c);
}

static void
stops_where_a_second_instance_could_follow(void **state)
{
	static const enum gr_err stoppers[] = { GR_EUNAVAIL, GR_EBUDGET, GR_EFUNDS, GR_EAUTH,
		GR_EINTERRUPTED, GR_EFAIL };
	struct req_ops ops = { fake_reread, fake_launch };
	struct req_attempt at[10];
	struct req_candidate *c;
	struct instance in;
	size_t n, nat, k;

	(void)state;
	ranked(&c, &n);
	for (k = 0; k < ARRAY_LEN(stoppers); k++) {
		struct script s = { 0 };
		struct gr_error err = { 0 };

		s.launch[0] = GR_ECAPACITY;
		s.launch[1] = stoppers[k];	/* e.g. an unclear outcome: it may exist */
		assert_int_equal(requirement_launch(c, n, &plain, 10, &ops, &s, &in, at, &nat,
		    &err), stoppers[k]);
		assert_int_equal(s.launches, 2);
		assert_int_equal(nat, 2);
		assert_int_equal(at[1].outcome, REQ_FAILED);
		assert_int_equal(at[1].code, stoppers[k]);
	}
	free(c);
}

static void
attempts_are_bounded(void **state)
{
	struct script s = { 0 };
	struct req_ops ops = { fake_reread, fake_launch };
	struct req_attempt at[10];
	struct req_candidate *c;
	struct instance in;
	struct gr_error err = { 0 };
	size_t n, nat, i;

	(void)state;
	ranked(&c, &n);
	for (i = 0; i < 6; i++)
		s.launch[i] = GR_ECAPACITY;
	assert_int_equal(requirement_launch(c, n, &plain, 3, &ops, &s, &in, at, &nat, &err),
	    GR_ECAPACITY);
	assert_int_equal(nat, 3);
	assert_int_equal(s.launches, 3);
	assert_non_null(strstr(err.msg, "attempts ran out"));
	gr_error_clear(&err);
	s.launches = 0;
	assert_int_equal(requirement_launch(c, n, &plain, 10, &ops, &s, &in, at, &nat, &err),
	    GR_ECAPACITY);
	assert_int_equal(nat, 6);
	assert_null(strstr(err.msg, "attempts ran out"));
	free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ranks_by_all_in_then_reliability),
		cmocka_unit_test(ranks_across_currencies_only_at_a_rate),
		cmocka_unit_test(fails_over_to_the_first_that_can_be_had),
		cmocka_unit_test(stops_where_a_second_instance_could_follow),
		cmocka_unit_test(attempts_are_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
