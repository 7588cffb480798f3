/*
 * The ledger's kept totals (issue 17 part 5): ledger_spent (and ledger_spent_all for every
 * instance at once), read from the per-instance sums
 * of closed segments that triggers keep, equals money_accrue summed over every row, for
 * segments closed by every path (insert closed, ledger_end, a later begin), odd rates
 * (rounding halves, large values) and a database made before the totals existed (filled
 * once when it is opened).
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

#include <sqlite3.h>

#include "gpurent/costs.h"
#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "../../src/store/store_int.h"	/* the tests read the tables themselves */

/* The group's scratch directory, under $TMPDIR. */
static char dir[256];

static int
setup(void **state)
{
	(void)state;
	return test_tmpdir_make(dir, sizeof(dir), "ledger-totals");
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

/* What the rows say, one money_accrue each: the sum the totals must equal. */
static int64_t
by_rows(struct state *st, const char *provider, const char *id, int64_t now)
{
	struct db_stmt *q;
	int64_t total = 0;

	assert_int_equal(db_prepare_v2(state_db(st), "SELECT rate_hour, start_ts, end_ts, "
	    "provider, instance_id FROM ledger WHERE kind != ?", -1, &q, NULL), DB_OK);
	db_bind_int(q, 1, LEDGER_PROVISIONING);
	while (db_step(q) == DB_ROW) {
		int64_t end = db_column_int64(q, 2);

		if (id != NULL ? strcmp((const char *)db_column_text(q, 4), id) != 0 :
		    strcmp((const char *)db_column_text(q, 3), provider) != 0)
			continue;
		total += money_accrue(db_column_int64(q, 0),
		    (end ? end : now) - db_column_int64(q, 1));
	}
	db_finalize(q);
	return total;
}

static void
begin(struct state *st, const char *id, const char *provider, enum ledger_kind kind,
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
	g.end = end;
	assert_int_equal(ledger_begin(st, &g, &err), GR_OK);
}

/* A history of segments over three instances and two providers, closed every way. */
static void
make_history(struct state *st)
{
	static const int64_t rates[] = { 1, 1799, 1800, 3599, 3600, 1234567, 2990000,
		INT64_C(98765432101), 0 };
	struct gr_error err = { 0 };
	int64_t t = 1790000000;
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		/* A later begin closes the open one (ledger_begin's ledger_end). */
		begin(st, "sim:i-1", "sim", LEDGER_COMPUTE, rates[i], t + (int64_t)i * 997, 0);
		/* Inserted already closed. */
		begin(st, "vast:2", "vast", LEDGER_STORAGE, rates[i], t, t + 1 + (int64_t)i * 3331);
		/* Provisioning is never counted. */
		begin(st, "sim:i-3", "sim", LEDGER_PROVISIONING, rates[i], t, t + 500);
	}
	begin(st, "sim:i-3", "sim", LEDGER_COMPUTE, 2500000, t + 600, 0);
	assert_int_equal(ledger_end(st, "sim:i-3", t + 600 + 12345, &err), GR_OK);
	/* Closed before it began: costs nothing. */
	begin(st, "sim:i-4", "sim", LEDGER_COMPUTE, 3000000, t + 100, 0);
	assert_int_equal(ledger_end(st, "sim:i-4", t + 50, &err), GR_OK);
}

static void
check_all(struct state *st, int64_t now)
{
	static const char *const ids[] = { "sim:i-1", "vast:2", "sim:i-3", "sim:i-4", "none" };
	struct ledger_spent_all *all = ledger_spent_all(st, now);
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		assert_int_equal(ledger_spent(st, NULL, ids[i], now, NULL),
		    by_rows(st, NULL, ids[i], now));
		/* The same read for every instance at once (a listing). */
		assert_int_equal(ledger_spent_of(all, ids[i]), by_rows(st, NULL, ids[i], now));
	}
	ledger_spent_all_free(all);
	assert_int_equal(ledger_spent(st, "sim", NULL, now, NULL), by_rows(st, "sim", NULL, now));
	assert_int_equal(ledger_spent(st, "vast", NULL, now, NULL),
	    by_rows(st, "vast", NULL, now));
}

static void
test_kept_as_segments_close(void **state)
{
	struct state *st = open_db("live");
	int64_t burn = -1;

	(void)state;
	make_history(st);
	check_all(st, 1790000000 + 86400);
	/* The one open compute segment of sim bills now, at its rate. */
	ledger_spent(st, "sim", NULL, 1790000000 + 86400, &burn);
	assert_int_equal(burn, 0);	/* the last rate of sim:i-1 is 0 */
	state_close(st);
}

static void
test_filled_for_an_older_database(void **state)
{
	struct state *st;

	(void)state;
	/* SQLite's upgrade of a database from before the table: a PostgreSQL one never was. */
	if (test_state_pg())
		skip();
	st = open_db("old");
	make_history(st);
	/* As a gpurent before the totals left it: no table, no triggers, no schema version. */
	assert_int_equal(db_exec(state_db(st), "DROP TRIGGER ledger_closed_insert; "
	    "DROP TRIGGER ledger_closed_update; DROP TABLE ledger_closed; "
	    "PRAGMA user_version = 0;", NULL, NULL, NULL), DB_OK);
	state_close(st);
	st = open_db("old");
	check_all(st, 1790000000 + 86400);
	/* And kept from then on. */
	begin(st, "sim:i-1", "sim", LEDGER_COMPUTE, 4000000, 1790000000 + 20000, 0);
	check_all(st, 1790000000 + 86400);
	state_close(st);
}

/*
 * The account check's burn from the open rows alone (ledger_burn) is the provider line's
 * burn of costs_compute, which reads the month: open compute and storage rows in dollars
 * that started by now; not provisioning, not another currency, not a later start, not a
 * closed row, not another provider.
 */
static void
test_burn_from_open_rows(void **state)
{
	struct state *st = open_db("burn");
	struct cost_clock clk = { 0 };
	struct cost_summary s;
	struct gr_error err = { 0 };
	struct ledger_seg g;
	int64_t now = 1790000000, want = -1;
	size_t i;

	(void)state;
	begin(st, "sim:i-1", "sim", LEDGER_COMPUTE, 1200000, now - 7200, 0);
	begin(st, "sim:i-2", "sim", LEDGER_STORAGE, 34567, now - 100, 0);
	begin(st, "sim:i-3", "sim", LEDGER_PROVISIONING, 5000000, now - 50, 0);
	begin(st, "sim:i-4", "sim", LEDGER_COMPUTE, 7000000, now + 60, 0);
	begin(st, "sim:i-5", "sim", LEDGER_COMPUTE, 9000000, now - 9000, now - 10);
	begin(st, "vast:6", "vast", LEDGER_COMPUTE, 2000000, now - 300, 0);
	memset(&g, 0, sizeof(g));
	strlcpy_(g.instance_id, "sim:i-7", sizeof(g.instance_id));
	strlcpy_(g.provider, "sim", sizeof(g.provider));
	g.rate_hour = 3000000;
	g.start = now - 400;
	money_currency_set(g.currency, "EUR");
	assert_int_equal(ledger_begin(st, &g, &err), GR_OK);

	/* By hand: sim:i-1 and sim:i-2. */
	assert_int_equal(ledger_burn(st, "sim", now, "USD"), 1200000 + 34567);
	assert_int_equal(ledger_burn(st, "sim", now, "EUR"), 3000000);
	assert_int_equal(ledger_burn(st, "vast", now, "USD"), 2000000);
	assert_int_equal(ledger_burn(st, "none", now, "USD"), 0);
	clk.wall = clk.sim = now;
	assert_int_equal(costs_compute(st, &clk, 0, CG_PROVIDER, &s, &err), GR_OK);
	for (i = 0; i < s.n_lines; i++)
		if (strcmp(s.lines[i].key, "sim") == 0)
			want = s.lines[i].burn_hour;
	assert_int_equal(want, ledger_burn(st, "sim", now, "USD"));
	cost_summary_release(&s);
	state_close(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept_as_segments_close),
		cmocka_unit_test(test_filled_for_an_older_database),
		cmocka_unit_test(test_burn_from_open_rows),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
