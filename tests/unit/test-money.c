#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpurent/money.h"

static void
parse_ok(void **state)
{
	int64_t v;

	(void)state;
	assert_true(money_parse("2.49", &v));
	assert_int_equal(v, 2490000);
	assert_true(money_parse("$0.000001", &v));
	assert_int_equal(v, 1);
	assert_true(money_parse("12", &v));
	assert_int_equal(v, 12000000);
	assert_true(money_parse(".5", &v));
	assert_int_equal(v, 500000);
	assert_true(money_parse("3.", &v));
	assert_int_equal(v, 3000000);
}

static void
parse_bad(void **state)
{
	int64_t v;
	const char *bad[] = { "", "$", ".", "-1", "1e3", "1.0000001", "abc", "1,5", " 1",
		"1 ", "99999999999999999999", "9223372036854.775807" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(money_parse(bad[i], &v));
}

static void
format(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(money_format(b, sizeof(b), 2490000, 2, true), "$2.49");
	assert_string_equal(money_format(b, sizeof(b), 2495000, 2, true), "$2.50");
	assert_string_equal(money_format(b, sizeof(b), -2495000, 2, true), "-$2.50");
	/* What rounds to zero has no sign: "$0.00", never "-$0.00". */
	assert_string_equal(money_format(b, sizeof(b), -4999, 2, true), "$0.00");
	assert_string_equal(money_format(b, sizeof(b), -1, 3, false), "0.000");
	assert_string_equal(money_format(b, sizeof(b), 1, 6, false), "0.000001");
	assert_string_equal(money_format(b, sizeof(b), 1500000, 0, false), "2");
	assert_string_equal(money_format(b, sizeof(b), INT64_MIN, 2, false),
	    "-9223372036854.78");
}

static void
accrue(void **state)
{
	(void)state;
	/* $3.60/h for one second is exactly $0.001. */
	assert_int_equal(money_accrue(3600000, 1), 1000);
	assert_int_equal(money_accrue(2490000, 3600), 2490000);
	assert_int_equal(money_accrue(2490000, 0), 0);
	assert_int_equal(money_accrue(2490000, -5), 0);
	/* Rounds to the nearest micro-dollar: $1/h for 1 s is 277.78 micro-dollars. */
	assert_int_equal(money_accrue(1000000, 1), 278);
	/* Summing per-second accruals never drifts by more than a micro-dollar per term. */
	{
		int64_t sum = 0;
		int i;

		for (i = 0; i < 3600; i++)
			sum += money_accrue(1000000, 1);
		assert_true(sum - 1000000 <= 3600 && sum - 1000000 >= 0);
	}
	/* No overflow on huge amounts. */
	assert_int_equal(money_scale(INT64_MAX, 2, 1), INT64_MAX);
}

/* Issue 18: amounts carry their currency; signs, user input, and conversion only at a rate. */
static void
currencies(void **state)
{
	char buf[64], code[CURRENCY_MAX];
	struct fx_rates fx = { 0 };
	int64_t m;

	(void)state;
	assert_string_equal(money_format_in(buf, sizeof(buf), 1850000, 2, "USD"), "$1.85");
	assert_string_equal(money_format_in(buf, sizeof(buf), 1850000, 2, ""), "$1.85");
	assert_string_equal(money_format_in(buf, sizeof(buf), 12600000, 2, "CNY"),
	    "\xc2\xa5" "12.60");
	assert_string_equal(money_format_in(buf, sizeof(buf), -12600000, 2, "CNY"),
	    "-\xc2\xa5" "12.60");
	assert_string_equal(money_format_in(buf, sizeof(buf), 300000000, 0, "JPY"),
	    "JP\xc2\xa5" "300");
	assert_string_equal(money_format_in(buf, sizeof(buf), 1200000, 2, "CHF"), "CHF 1.20");
	assert_string_equal(money_format_in(buf, sizeof(buf), 1200000, 2, "c\x1b["), "XXX 1.20");
	/* Parsing: a bare amount is dollars; a sign or a code names another currency. */
	assert_true(money_parse_in("300", &m, code));
	assert_int_equal(m, 300000000);
	assert_string_equal(code, "USD");
	assert_true(money_parse_in("300 CNY", &m, code));
	assert_string_equal(code, "CNY");
	assert_true(money_parse_in("CNY 2.5", &m, code));
	assert_int_equal(m, 2500000);
	assert_true(money_parse_in("\xc2\xa5" "12.60", &m, code));
	assert_int_equal(m, 12600000);
	assert_string_equal(code, "CNY");
	assert_true(money_parse_in("$2.49", &m, code));
	assert_string_equal(code, "USD");
	/* An ISO 4217 code in any case, kept in capitals; three letters that are none, or the
	 * codes for testing and for no currency, are refused. */
	assert_true(money_parse_in("300 cny", &m, code));
	assert_string_equal(code, "CNY");
	assert_true(money_parse_in("usd 300", &m, code));
	assert_string_equal(code, "USD");
	assert_true(money_parse_in("300Eur", &m, code));
	assert_string_equal(code, "EUR");
	assert_false(money_parse_in("300 XYZ", &m, code));
	assert_false(money_parse_in("300 abc", &m, code));
	assert_false(money_parse_in("300 XXX", &m, code));
	assert_false(money_parse_in("300 XTS", &m, code));
	assert_false(money_parse_in("300 HRK", &m, code));	/* withdrawn in 2023 */
	assert_true(money_parse_in("300 ZWG", &m, code));	/* added in 2024 */
	assert_true(money_currency_parse("jpy", 3, code));
	assert_string_equal(code, "JPY");
	assert_false(money_currency_parse("JPYX", 4, code));
	assert_false(money_currency_parse("J1Y", 3, code));
	assert_true(money_currency_valid("AED"));	/* the table's ends */
	assert_true(money_currency_valid("ZWG"));
	assert_false(money_currency_valid("jpy"));	/* kept in capitals */
	assert_false(money_currency_valid("XYZ"));
	assert_false(money_parse_in("300 CNYY", &m, code));
	assert_false(money_parse_in("$300 CNY", &m, code));
	assert_false(money_parse_in("CNY", &m, code));
	assert_false(money_parse_in("-3 CNY", &m, code));
	/* Conversion: the same currency as is; another only at a configured rate. */
	assert_true(money_convert(NULL, 5, "", "USD", &m));
	assert_int_equal(m, 5);
	assert_false(money_convert(NULL, 100000000, "CNY", "USD", &m));
	assert_false(money_convert(&fx, 100000000, "CNY", "USD", &m));
	assert_true(fx_set(&fx, "CNY", 140000));	/* fx.CNY = 0.14 */
	assert_false(fx_set(&fx, "EUR", 0));
	assert_true(money_convert(&fx, 100000000, "CNY", "USD", &m));
	assert_int_equal(m, 14000000);			/* 100 CNY = 14 USD */
	assert_true(money_convert(&fx, 14000000, "USD", "CNY", &m));
	assert_int_equal(m, 100000000);
	assert_false(money_convert(&fx, 1, "CNY", "EUR", &m));
	assert_true(money_same_currency("", "USD"));
	assert_false(money_same_currency("CNY", "USD"));
}

/* money_accrue_days: the parts of a run cut at each UTC midnight. */
struct day_parts {
	int64_t day[4], amount[4];
	int n;
};

static void
take_day(int64_t day, int64_t amount, void *ctx)
{
	struct day_parts *p = ctx;

	assert_true(p->n < 4);
	p->day[p->n] = day;
	p->amount[p->n++] = amount;
}

static void
accrue_days(void **state)
{
	struct day_parts p = { { 0 }, { 0 }, 0 };
	const int64_t mid = 1796083200;	/* 2026-12-01T00:00:00Z */

	(void)state;
	/* $1/h from 23:00 to 01:00 two days later: 1 h, 24 h, 1 h. */
	money_accrue_days(1000000, mid - 3600, mid + 86400 + 3600, take_day, &p);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.day[0], mid - 86400);
	assert_int_equal(p.amount[0], 1000000);
	assert_int_equal(p.day[1], mid);
	assert_int_equal(p.amount[1], 24000000);
	assert_int_equal(p.day[2], mid + 86400);
	assert_int_equal(p.amount[2], 1000000);
	/* Ends exactly at a midnight: no part of the next day. */
	p.n = 0;
	money_accrue_days(1000000, mid - 60, mid, take_day, &p);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.amount[0], 16667);
	/* $0.000001/h over 1 s either side of midnight: the parts add up to the whole's
	   rounding (0), never 0 + 1 or 1 + 1 from rounding each alone. */
	p.n = 0;
	money_accrue_days(1800, mid - 1, mid + 1, take_day, &p);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.amount[0] + p.amount[1], money_accrue(1800, 2));
	/* Nothing when it does not run. */
	p.n = 0;
	money_accrue_days(1000000, mid, mid, take_day, &p);
	assert_int_equal(p.n, 0);
	/* money_add saturates. */
	assert_int_equal(money_add(INT64_MAX, 1), INT64_MAX);
	assert_int_equal(money_add(INT64_MIN, -1), INT64_MIN);
	assert_int_equal(money_add(-5, 7), 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(currencies),
		cmocka_unit_test(parse_ok),
		cmocka_unit_test(parse_bad),
		cmocka_unit_test(format),
		cmocka_unit_test(accrue),
		cmocka_unit_test(accrue_days),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
