/*
 * The kept daily totals (issue 17 part 5): costs_compute_in, which reads the whole days of
 * its window from ledger_day, gives exactly what costs_compute_by_rows gives from every row,
 * field by field and line by line, over a ledger that crosses midnights, the month's start
 * and the window's start, on two clocks (the simulator's and the wall's), with open rows,
 * reservations, rows that start after now, zero-length rows, odd rates (rounding halves) and
 * three currencies (counted apart, converted only with rates). The table itself must stay the
 * fold of the rows when rows are closed, edited, reopened or deleted behind gpurent's back,
 * and a database from before it gets it filled when opened.
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

static char dir[4096];

static int
setup(void **state)
{
	(void)state;
	return test_tmpdir_make(dir, sizeof(dir), "ledger-days");
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
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s.db", dir, name);
	assert_int_equal(test_state_open(&st, path, &err), GR_OK);
	return st;
}

static void
exec(struct state *st, const char *sql)
{
	char *msg = NULL;

	if (db_exec(state_db(st), sql, NULL, NULL, &msg) != DB_OK)
		fail_msg("%s: %s", sql, msg);
}

static int64_t
count(struct state *st, const char *sql)
{
	struct db_stmt *q;
	int64_t n;

	assert_int_equal(db_prepare_v2(state_db(st), sql, -1, &q, NULL), DB_OK);
	assert_int_equal(db_step(q), DB_ROW);
	n = db_column_int64(q, 0);
	db_finalize(q);
	return n;
}

/* 2026-10-01T00:00:00Z: the month's start the clocks below straddle. */
#define MONTH INT64_C(1790812800)
#define DAY INT64_C(86400)

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int64_t
pick(const int64_t *v, size_t n)
{
	return v[next() % n];
}

static const char *const providers[] = { "sim", "vast", "runpod" };
static const char *const labels[] = { "", "team-a", "team-b", "x" };
static const char *const gpus[] = { "", "H100-SXM-80GB", "A100-80GB" };
static const char *const currencies[] = { "USD", "CNY", "EUR" };

/*
 * Instances with a run of segments each, some opened by ledger_begin (which closes the one
 * before), some inserted closed, some closed by ledger_end; the last left open for some.
 */
static void
make_ledger(struct state *st, int instances)
{
	static const int64_t rates[] = { 0, 1, 1800, 5400, 3599, 1234567, 2990000, 7200001 };
	static const int64_t lens[] = { 0, 1, 59, 3600, 43200, DAY - 1, DAY, DAY + 1, 3 * DAY,
		40 * DAY };
	static const int64_t gaps[] = { 0, 0, 0, 1, 600, 36000, 2 * DAY };
	struct gr_error err = { 0 };
	int i, k, segs;

	for (i = 0; i < instances; i++) {
		struct ledger_seg g;
		int64_t t = MONTH - 45 * DAY + (int64_t)(next() % (30 * DAY));
		const char *prov = providers[next() % 3];
		const char *cur = currencies[next() % 4 % 3];	/* USD half the time */

		memset(&g, 0, sizeof(g));
		snprintf(g.instance_id, sizeof(g.instance_id), "%s:%d", prov, i);
		strlcpy_(g.provider, prov, sizeof(g.provider));
		money_currency_set(g.currency, cur);
		segs = 3 + (int)(next() % 12);
		for (k = 0; k < segs; k++) {
			int how = (int)(next() % 4);

			strlcpy_(g.label, labels[next() % 4], sizeof(g.label));
			strlcpy_(g.gpu, gpus[next() % 3], sizeof(g.gpu));
			g.kind = next() % 6 == 0 ? LEDGER_PROVISIONING : next() % 5 == 0 ?
			    LEDGER_STORAGE : LEDGER_COMPUTE;
			g.rate_hour = pick(rates, sizeof(rates) / sizeof(rates[0]));
			g.start = t;
			g.end = 0;
			t += pick(lens, sizeof(lens) / sizeof(lens[0]));
			if (how == 0 || k == segs - 1) {
				/* Opened now, closed by the next begin (or left open). */
				assert_int_equal(ledger_begin(st, &g, &err), GR_OK);
				if (k == segs - 1 && next() % 3 == 0)
					assert_int_equal(ledger_end(st, g.instance_id, t, &err), GR_OK);
			} else if (how == 1) {
				assert_int_equal(ledger_begin(st, &g, &err), GR_OK);
				assert_int_equal(ledger_end(st, g.instance_id, t, &err), GR_OK);
			} else {
				g.end = t;	/* inserted closed */
				assert_int_equal(ledger_begin(st, &g, &err), GR_OK);
			}
			t += pick(gaps, sizeof(gaps) / sizeof(gaps[0]));
		}
	}
}

static void
same_summary(const struct cost_summary *a, const struct cost_summary *b, const char *what)
{
	size_t i;

#define SAME(f) do { if (a->f != b->f) fail_msg("%s: " #f " %lld, by rows %lld", what, \
	(long long)a->f, (long long)b->f); } while (0)
	SAME(now);
	SAME(since);
	SAME(burn_hour);
	SAME(provisioning_hour);
	SAME(spent);
	SAME(spent_today);
	SAME(spent_month);
	SAME(projected_day);
	SAME(projected_month);
	SAME(converted);
	SAME(unconverted);
	SAME(n_lines);
	for (i = 0; i < a->n_lines; i++) {
		if (strcmp(a->lines[i].key, b->lines[i].key) != 0)
			fail_msg("%s: line %zu '%s', by rows '%s'", what, i, a->lines[i].key,
			    b->lines[i].key);
		SAME(lines[i].spent);
		SAME(lines[i].burn_hour);
		SAME(lines[i].gone);
	}
	assert_string_equal(a->currency, b->currency);
#undef SAME
}

/*
 * Every grouping, currency, rate set, window and pair of clocks: the same figures. `clocks`
 * of the wall clocks below (the first ones cross most edges).
 */
static void
check_costs(struct state *st, size_t clocks)
{
	static const int64_t walls[] = { MONTH + 15 * DAY + 9 * 3600, MONTH + 15 * DAY, MONTH,
		MONTH + DAY - 1, MONTH - 3 * DAY + 7 };
	static const int64_t sims[] = { MONTH + 3 * DAY + 3600, MONTH - 1 };
	/* By instance and by day, costs_compute_in reads the rows too. */
	static const enum cost_group bys[] = { CG_NONE, CG_LABEL, CG_PROVIDER, CG_GPU };
	struct fx_rates fx;
	struct gr_error err = { 0 };
	size_t w, m, s, b, c, f;
	int compared = 0;

	memset(&fx, 0, sizeof(fx));
	assert_true(fx_set(&fx, "CNY", 138889));
	assert_true(fx_set(&fx, "EUR", 1083333));
	assert_true(clocks <= sizeof(walls) / sizeof(walls[0]));
	exec(st, "BEGIN");	/* one read lock for the lot */
	for (w = 0; w < clocks; w++)
	for (m = 0; m < sizeof(sims) / sizeof(sims[0]); m++) {
		struct cost_clock clk = { walls[w], sims[m], m == 1, 1 };
		const int64_t sinces[] = { 0, MONTH - 10 * DAY, MONTH + 2 * DAY + 5000,
			MONTH - 35 * DAY + 123, walls[w] - DAY, MONTH };

		for (s = 0; s < sizeof(sinces) / sizeof(sinces[0]); s++)
		for (b = 0; b < sizeof(bys) / sizeof(bys[0]); b++)
		for (c = 0; c < 3; c++)
		for (f = 0; f < 2; f++) {
			struct cost_summary kept, rows;
			char what[160];

			snprintf(what, sizeof(what), "wall %lld sim %lld since %lld by %d in %s%s",
			    (long long)walls[w], (long long)sims[m], (long long)sinces[s],
			    (int)bys[b], currencies[c], f ? " with rates" : "");
			assert_int_equal(costs_compute_in(st, &clk, sinces[s], bys[b],
			    currencies[c], f ? &fx : NULL, &kept, &err), GR_OK);
			assert_int_equal(costs_compute_by_rows(st, &clk, sinces[s], bys[b],
			    currencies[c], f ? &fx : NULL, &rows, &err), GR_OK);
			same_summary(&kept, &rows, what);
			compared += rows.n_lines > 0 || rows.spent != 0;
			cost_summary_release(&kept);
			cost_summary_release(&rows);
		}
	}
	exec(st, "COMMIT");
	/* The fixture is not empty: most windows had something to compare. */
	assert_true(compared > (int)clocks * 100);
}

/*
 * The table against the fold of the rows, written here again from the definition: whole
 * cost money_accrue(rate, end - start) of each closed row, grouped by its start's UTC day.
 */
static void
check_table(struct state *st)
{
	static const char fold[] =
		"SELECT start_ts - ((start_ts % 86400) + 86400) % 86400, provider, label, gpu, "
		"kind, currency, count(*), sum(CASE WHEN end_ts > start_ts THEN "
		"(rate_hour * (end_ts - start_ts) + 1800) / 3600 ELSE 0 END), min(end_ts), "
		"max(end_ts) FROM ledger WHERE end_ts != 0 GROUP BY 1, 2, 3, 4, 5, 6";
	char sql[1024];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM (SELECT * FROM ledger_day EXCEPT %s) "
	    "AS d", fold);
	assert_int_equal(count(st, sql), 0);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM (%s EXCEPT SELECT * FROM ledger_day) "
	    "AS d", fold);
	assert_int_equal(count(st, sql), 0);
	assert_true(count(st, "SELECT count(*) FROM ledger_day") > 0);
}

static void
test_same_as_the_rows(void **state)
{
	struct state *st = open_db("same");

	(void)state;
	make_ledger(st, 40);
	assert_true(count(st, "SELECT count(*) FROM ledger WHERE end_ts = 0") > 0);
	check_table(st);
	/* On PostgreSQL one wall clock: each statement is a round trip to the server. */
	check_costs(st, test_state_pg() ? 1 : 5);
	state_close(st);
}

/* Rows changed after their day's total was made: closed, edited, reopened, deleted. */
static void
test_edits_keep_the_totals(void **state)
{
	struct state *st = open_db("edits");
	struct gr_error err = { 0 };

	(void)state;
	make_ledger(st, 30);
	/* An open row closed by hand, in the window's days. */
	exec(st, "UPDATE ledger SET end_ts = start_ts + 90000 WHERE id = (SELECT min(id) FROM "
	    "ledger WHERE end_ts = 0)");
	/* A closed row repriced, one moved to another day, one to another label and provider. */
	exec(st, "UPDATE ledger SET rate_hour = rate_hour + 1801 WHERE id = (SELECT min(id) FROM "
	    "ledger WHERE end_ts != 0 AND end_ts > start_ts)");
	exec(st, "UPDATE ledger SET start_ts = start_ts - 2 * 86400 WHERE id = (SELECT max(id) "
	    "FROM ledger WHERE end_ts != 0)");
	exec(st, "UPDATE ledger SET label = 'moved', provider = 'vast' WHERE id = (SELECT "
	    "min(id) + 7 FROM ledger WHERE end_ts != 0)");
	/* One closed row ended later, one reopened, some deleted. */
	exec(st, "UPDATE ledger SET end_ts = end_ts + 86400 WHERE id = (SELECT min(id) + 3 FROM "
	    "ledger WHERE end_ts != 0)");
	exec(st, "UPDATE ledger SET end_ts = 0 WHERE id = (SELECT max(id) - 5 FROM ledger WHERE "
	    "end_ts != 0)");
	exec(st, "DELETE FROM ledger WHERE id % 11 = 3 AND end_ts != 0");
	check_table(st);
	check_costs(st, test_state_pg() ? 1 : 2);
	/* And gpurent's own writes on top. */
	assert_int_equal(ledger_end(st, "sim:1", MONTH + 5 * DAY, &err), GR_OK);
	check_table(st);
	check_costs(st, test_state_pg() ? 1 : 2);
	state_close(st);
}

/* A database from before the table: filled, from every row, the first time it is opened. */
static void
test_filled_for_an_older_database(void **state)
{
	struct state *st;

	(void)state;
	/* SQLite's upgrade of a database from before the table: a PostgreSQL one never was. */
	if (test_state_pg())
		skip();
	st = open_db("older");
	exec(st, "DROP TRIGGER ledger_day_insert; DROP TRIGGER ledger_day_close; "
	    "DROP TRIGGER ledger_day_edit; DROP TRIGGER ledger_day_delete; DROP TABLE ledger_day; "
	    "PRAGMA user_version = 0");
	make_ledger(st, 25);
	assert_int_equal(count(st, "SELECT count(*) FROM sqlite_master WHERE name = "
	    "'ledger_day'"), 0);
	state_close(st);
	st = open_db("older");
	check_table(st);
	check_costs(st, 2);
	state_close(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_the_rows),
		cmocka_unit_test(test_edits_keep_the_totals),
		cmocka_unit_test(test_filled_for_an_older_database),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
