/*
 * parse_when: the one parser of the options that take a point in time (--since, --until).
 * Expected values are seconds since the epoch worked out by hand: 2026-12-01T00:00:00Z is
 * 20,788 days after 1970-01-01, 20,788 x 86,400 = 1,796,083,200.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpurent/util.h"

#define DEC1 INT64_C(1796083200)	/* 2026-12-01T00:00:00Z */

static void
durations(void **state)
{
	int64_t t;

	(void)state;
	assert_true(parse_when("7d", DEC1, &t));
	assert_int_equal(t, DEC1 - 7 * 86400);
	assert_true(parse_when("36h", DEC1, &t));
	assert_int_equal(t, DEC1 - 36 * 3600);
	assert_true(parse_when("90", DEC1, &t));
	assert_int_equal(t, DEC1 - 90);
}

static void
dates_and_times(void **state)
{
	int64_t t;

	(void)state;
	assert_true(parse_when("2026-12-01", 0, &t));
	assert_int_equal(t, DEC1);
	assert_true(parse_when("2026-12-01Z", 0, &t));
	assert_int_equal(t, DEC1);
	assert_true(parse_when("2026-12-01T10:00", 0, &t));
	assert_int_equal(t, DEC1 + 36000);
	assert_true(parse_when("2026-12-01 10:00:30", 0, &t));
	assert_int_equal(t, DEC1 + 36030);
	/* RFC 3339: Z, an offset east (10:00 in Beijing is 02:00Z) or west, a fraction. */
	assert_true(parse_when("2026-12-01T10:00:00Z", 0, &t));
	assert_int_equal(t, DEC1 + 36000);
	assert_true(parse_when("2026-12-01t10:00:00z", 0, &t));
	assert_int_equal(t, DEC1 + 36000);
	assert_true(parse_when("2026-12-01T10:00:00+08:00", 0, &t));
	assert_int_equal(t, DEC1 + 7200);
	assert_true(parse_when("2026-11-30T21:30:00-03:30", 0, &t));
	assert_int_equal(t, DEC1 + 3600);
	assert_true(parse_when("2026-12-01T00:00:01.999Z", 0, &t));
	assert_int_equal(t, DEC1 + 1);
	assert_true(parse_when("2024-02-29", 0, &t));	/* a leap day */
}

static void
refused(void **state)
{
	static const char *const bad[] = {
		"", "yesterday", "-1d", "2026-02-30", "2025-02-29", "2026-04-31", "2026-13-01",
		"2026-12-01T24:00", "2026-12-01T10:60", "2026-12-01T10:00:60", "2026-12-01junk",
		"2026-12-1", "26-12-01", "2026-12-01T10", "2026-12-01T10:00+0800",
		"2026-12-01T10:00+24:00", "2026-12-01T10:00:00.Z", "2026-12-01T10:00+08:00Z",
		"2026-12-01T10:00ZZ",
	};
	size_t i;
	int64_t t = 42;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_when(bad[i], DEC1, &t))
			fail_msg("'%s' was taken", bad[i]);
		assert_int_equal(t, 42);
	}
	assert_false(parse_when(NULL, DEC1, &t));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations),
		cmocka_unit_test(dates_and_times),
		cmocka_unit_test(refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
