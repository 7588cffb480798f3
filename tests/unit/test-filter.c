#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpurent/filter.h"
#include "gpurent/money.h"
#include "gpurent/util.h"

static struct offer
make(const char *id, const char *gpu, int n, int64_t price, const char *region, int rel_bp,
    enum interconnect ic, enum offer_type type)
{
	struct offer o;

	memset(&o, 0, sizeof(o));
	strlcpy_(o.id, id, sizeof(o.id));
	strlcpy_(o.provider, "sim", sizeof(o.provider));
	o.gpu = catalogue_by_id(gpu);
	o.gpu_count = n;
	o.vram_gb = o.gpu ? o.gpu->vram_gb : 0;
	o.price_hour = price;
	strlcpy_(o.region, region, sizeof(o.region));
	strlcpy_(o.location, "Frankfurt, DE", sizeof(o.location));
	o.reliability_bp = rel_bp;
	o.interconnect = ic;
	o.type = type;
	o.valid = OV_PRICE | OV_RELIABILITY | OV_VRAM;
	return o;
}

static bool
matches(const char *text, const struct offer *o)
{
	struct filter f;
	struct gr_error err = { 0 };

	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_parse_str(&f, text, &err), GR_OK);
	return filter_match(&f, o);
}

/*
 * A term offer (type=reserved) matches only a filter that asks for terms, by its type or
 * its months; the months parse as 1mo, 3, 1y; its discount is against the whole term on
 * demand: $92.16 for 720 h of $0.16 is 20 % off.
 */
static void
term_offers(void **state)
{
	struct offer t = make("sim:o-1t1", "RTX3090-24GB", 1, 128000, "eu-west", 9500, IC_PCIE,
	    OFFER_RESERVED);
	struct offer od = make("sim:o-1", "RTX3090-24GB", 1, 160000, "eu-west", 9500, IC_PCIE,
	    OFFER_ON_DEMAND);
	struct filter f;
	struct gr_error err = { 0 };
	int months;

	(void)state;
	t.term_months = 1;
	t.term_price = 92160000;
	t.ondemand_hour = 160000;
	t.valid |= OV_ONDEMAND;
	assert_false(matches("gpu=rtx3090", &t));
	assert_false(matches("type!=interruptible", &t));
	assert_true(matches("type=reserved", &t));
	assert_true(matches("type=term gpu=rtx3090", &t));
	assert_true(matches("type=on-demand,reserved", &t));
	assert_true(matches("term=1mo", &t));
	assert_true(matches("term<3mo", &t));
	assert_false(matches("term>=3", &t));
	assert_false(matches("term=1mo", &od));
	assert_true(matches("gpu=rtx3090", &od));
	assert_int_equal(offer_term_discount_bp(&t), 2000);
	assert_int_equal(offer_term_discount_bp(&od), -1);
	assert_true(term_parse("1y", &months));
	assert_int_equal(months, 12);
	assert_true(term_parse("3", &months));
	assert_int_equal(months, 3);
	assert_false(term_parse("0mo", &months));
	assert_false(term_parse("2w", &months));
	assert_false(term_parse("11y", &months));
	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_parse_str(&f, "term=2w", &err), GR_EUSAGE);
	assert_non_null(strstr(err.msg, "1mo"));
}

static void
terms(void **state)
{
	struct offer h = make("sim:o-1", "H100-SXM-80GB", 8, 20000000, "eu-central", 9900,
	    IC_NVLINK, OFFER_ON_DEMAND);

	(void)state;
	assert_true(matches("gpu=h100", &h));
	assert_true(matches("gpu=H100-SXM", &h));
	assert_true(matches("gpu=h100_sxm_80gb", &h));
	assert_false(matches("gpu=h100-pcie", &h));
	assert_true(matches("gpu=h200,h100", &h));
	assert_false(matches("gpu!=h200,h100", &h));
	assert_true(matches("gpus>=8 gpus<=8 gpus=8", &h));
	assert_false(matches("gpus>8", &h));
	assert_true(matches("vram>=80 total_vram=640", &h));
	assert_true(matches("price<=20 price>19.999999", &h));
	assert_false(matches("price<20", &h));
	assert_true(matches("gpu_price=2.5", &h));
	assert_true(matches("region=eu region=eu-central region=de", &h));
	assert_false(matches("region=eu-west", &h));
	assert_false(matches("region=e", &h));
	assert_true(matches("reliability>=0.99", &h));
	assert_false(matches("reliability>0.99", &h));
	assert_true(matches("interconnect=nvlink type=on-demand", &h));
	assert_false(matches("type=interruptible", &h));
	assert_true(matches("provider=sim", &h));
	assert_true(matches("  gpu = h100   gpus >= 8 ", &h));
	assert_true(matches("gpu=\"H100 SXM\"", &h));
	assert_true(matches("", &h));
}

static void
unknown_never_matches(void **state)
{
	struct offer o = make("x:1", "L4-24GB", 1, 0, "na-east", 0, IC_UNKNOWN, OFFER_ON_DEMAND);

	(void)state;
	o.valid = 0;
	o.gpu = NULL;
	assert_false(matches("price<=100", &o));
	assert_false(matches("reliability>=0", &o));
	assert_false(matches("gpu=l4", &o));
	assert_true(matches("gpu!=l4", &o));
	assert_false(matches("interconnect=pcie", &o));
}

/* What the session hands down in the program: here only "sim" is a provider. */
static bool
only_sim(const char *name)
{
	return strcmp(name, "sim") == 0;
}

static void
errors(void **state)
{
	const char *bad[] = { "foo=1", "gpu", "gpu=", "gpu=h100x", "gpus~8", "gpus>=eight",
		"price<=1.0000001", "reliability>=1.5", "region<eu", "gpus>=1,2",
		"interconnect=usb", "type=cheap", "provider=nowhere", "=5", "gpu=\"H100",
		"gpus>=99999999999999999999999" };
	struct filter f;
	struct gr_error err;
	size_t i;

	(void)state;
	filter_set_provider_known(only_sim);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&f, 0, sizeof(f));
		gr_error_clear(&err);
		assert_int_equal(filter_parse_str(&f, bad[i], &err), GR_EUSAGE);
		assert_true(err.msg[0] != '\0');
	}
	memset(&f, 0, sizeof(f));
	gr_error_clear(&err);
	filter_parse_str(&f, "foo=1", &err);
	assert_non_null(strstr(err.msg, "reliability"));
}

static void
argv_form(void **state)
{
	char *argv[] = { "gpu", "=", "h100", "gpus>=8" };
	struct filter f;
	struct gr_error err = { 0 };

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_parse(&f, 4, argv, &err), GR_OK);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.t[1].op, FOP_GE);
	assert_int_equal(f.t[1].num[0], 8);
}

static void
sorting(void **state)
{
	struct offer_list l;
	struct sort_spec s;
	struct gr_error err = { 0 };

	(void)state;
	offer_list_init(&l);
	*offer_list_add(&l) = make("a", "H100-SXM-80GB", 8, 20000000, "eu", 9900, IC_NVLINK, 0);
	*offer_list_add(&l) = make("b", "RTX4090-24GB", 1, 400000, "na", 9500, IC_PCIE, 0);
	*offer_list_add(&l) = make("c", "L4-24GB", 2, 400000, "eu", 9990, IC_PCIE, 0);
	l.v[2].valid &= ~OV_RELIABILITY;
	assert_int_equal(sort_parse(&s, "price,reliability-", &err), GR_OK);
	sort_offers(&l, &s);
	assert_string_equal(l.v[0].id, "b");	/* equal price: known reliability first */
	assert_string_equal(l.v[1].id, "c");
	assert_string_equal(l.v[2].id, "a");
	assert_int_equal(sort_parse(&s, "gpu_price-", &err), GR_OK);
	sort_offers(&l, &s);
	assert_string_equal(l.v[0].id, "a");
	assert_int_equal(sort_parse(&s, "speed", &err), GR_EUSAGE);
	assert_int_equal(sort_parse(&s, "", &err), GR_EUSAGE);
	offer_list_release(&l);
}

/*
 * Prices in several currencies sort by one order over the whole list, whatever order they
 * come in (qsort needs a strict weak ordering): those convertible at a rate first, by
 * dollars, a tie in dollars one currency before the other; a currency without a rate after
 * them, by its own numbers. EUR 1.00 at $1.00, JPY 150 at $0.0067 ($1.005, as much as USD 1.005),
 * CNY without a rate, USD 1.005 and 3.00.
 */
static void
sorting_across_currencies(void **state)
{
	static const struct { const char *id, *cur; int64_t price; } in[] = {
		{ "eur", "EUR", 1000000 }, { "cny", "CNY", 500000 }, { "usd", "USD", 3000000 },
		{ "jpy", "JPY", 150000000 }, { "usd1", "USD", 1005000 }, { "cny2", "CNY", 100000 },
	};
	static const char *const want[] = { "eur", "usd1", "jpy", "usd", "cny2", "cny" };
	struct fx_rates fx;
	struct sort_spec s;
	struct gr_error err = { 0 };
	size_t perm, i, n = sizeof(in) / sizeof(in[0]);

	(void)state;
	memset(&fx, 0, sizeof(fx));
	assert_true(fx_set(&fx, "EUR", 1000000));
	assert_true(fx_set(&fx, "JPY", 6700));
	assert_int_equal(sort_parse(&s, "price", &err), GR_OK);
	for (perm = 0; perm < n; perm++) {
		struct offer_list l;

		offer_list_init(&l);
		for (i = 0; i < n; i++) {
			size_t j = (i * 5 + perm) % n;	/* each rotation, every other order */
			struct offer *o = offer_list_add(&l);

			*o = make(in[j].id, "L4-24GB", 1, in[j].price, "eu", 9900, IC_PCIE, 0);
			money_currency_set(o->currency, in[j].cur);
		}
		sort_offers_fx(&l, &s, &fx);
		for (i = 0; i < n; i++)
			if (strcmp(l.v[i].id, want[i]) != 0)
				fail_msg("order %zu: %zu is %s, not %s", perm, i, l.v[i].id, want[i]);
		offer_list_release(&l);
	}
}

/* The names seen selling (the state database's, above core/): one here. */
static bool
seen(void *ctx, const char *name)
{
	(void)ctx;
	return catalogue_raw_matches("NVIDIA GeForce RTX 3060", name);
}

/* A GPU the catalogue lacks: matched by its provider's name, never by vendor. */
static void
provider_names_and_vendors(void **state)
{
	struct offer unknown = make("x:1", "none", 1, 100000, "eu-west", 9900, IC_PCIE,
	    OFFER_ON_DEMAND);
	struct offer mi = make("x:2", "MI300X-192GB", 8, 20000000, "eu-west", 9900, IC_PCIE,
	    OFFER_ON_DEMAND);
	struct offer metax = make("x:3", "METAX-C500", 1, 1000000, "as-east", 9900, IC_PCIE,
	    OFFER_ON_DEMAND);
	struct filter f;
	struct gr_error err = { 0 };

	(void)state;
	strlcpy_(unknown.gpu_raw, "NVIDIA GeForce RTX 3060", sizeof(unknown.gpu_raw));
	/* Before anything is seen, a name no model answers to is a typo. */
	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_parse_str(&f, "gpu=rtx3060", &err), GR_EUSAGE);
	filter_set_gpu_seen(seen, NULL);
	assert_true(matches("gpu=rtx3060", &unknown));
	assert_true(matches("gpu=3060", &unknown));
	assert_false(matches("gpu=rtx3060", &mi));
	assert_true(matches("gpu!=rtx3060", &mi));
	assert_false(matches("gpu!=rtx3060", &unknown));
	assert_false(matches("gpu=h100", &unknown));
	assert_true(matches("vendor=amd", &mi));
	assert_true(matches("vendor=AMD,nvidia", &mi));
	assert_false(matches("vendor=nvidia", &mi));
	assert_true(matches("vendor=metax", &metax));
	assert_false(matches("vendor=nvidia", &unknown));
	assert_true(matches("vendor!=nvidia", &unknown));
	/* The last model of the catalogue, past the first word of the set. */
	assert_true(matches("gpu=c500", &metax));
	assert_false(matches("gpu=c500", &mi));
	/* No TFLOPS figure: no price per TFLOP, never a division by zero. */
	assert_false(matches("tflop_price<1000", &metax));
	assert_false(matches("tflops>=0", &metax));
	assert_true(offer_price_per_tflop(&metax) < 0);
	err.code = GR_OK;
	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_parse_str(&f, "vendor=nvidai", &err), GR_EUSAGE);
	err.code = GR_OK;
	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_parse_str(&f, "gpu=rtx9999", &err), GR_EUSAGE);
	filter_set_gpu_seen(NULL, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(terms),
		cmocka_unit_test(term_offers),
		cmocka_unit_test(unknown_never_matches),
		cmocka_unit_test(errors),
		cmocka_unit_test(argv_form),
		cmocka_unit_test(sorting),
		cmocka_unit_test(sorting_across_currencies),
		cmocka_unit_test(provider_names_and_vendors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
