/*
 * schema.c - the state database's schema: one numbered list of steps (PRAGMA user_version
 * says how many a database has had), run by state_open in one write transaction. A
 * PostgreSQL database has a list of its own (schema_pg.c), run the same way.
 *
 * gpurent kept no schema version before this list (user_version 0), and each of its
 * releases made its tables on first use, so a database from one may hold any subset of the
 * tables and columns below. Steps 1 to STEPS_UNVERSIONED are therefore each written to
 * make only what is missing (IF NOT EXISTS, a column when absent, a kept table filled from
 * the rows once); a step after them runs exactly once, in order, and may be plain DDL.
 * A database with a higher user_version than this list knows was written by a newer
 * gpurent: it is refused, untouched.
 *
 * A change to the schema is a new step at the end, never an edit of one above.
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/util.h"
#include "ledger_sql.h"
#include "store_int.h"

static const char state_tables[] =
	"CREATE TABLE IF NOT EXISTS meta("
	"  key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS ledger("
	"  id INTEGER PRIMARY KEY,"
	"  instance_id TEXT NOT NULL, provider TEXT NOT NULL, label TEXT NOT NULL DEFAULT '',"
	"  gpu TEXT NOT NULL DEFAULT '', kind INTEGER NOT NULL, rate_hour INTEGER NOT NULL,"
	"  start_ts INTEGER NOT NULL, end_ts INTEGER NOT NULL DEFAULT 0,"
	"  gone INTEGER NOT NULL DEFAULT 0, currency TEXT NOT NULL DEFAULT 'USD');"
	"CREATE INDEX IF NOT EXISTS ledger_open ON ledger(instance_id, end_ts);"
	"CREATE INDEX IF NOT EXISTS ledger_time ON ledger(start_ts);"
	/* The rows still billing in a window (ledger_load): end_ts = 0 OR end_ts > since. */
	"CREATE INDEX IF NOT EXISTS ledger_end ON ledger(end_ts);"
	"CREATE TABLE IF NOT EXISTS launch_journal("
	"  id INTEGER PRIMARY KEY, provider TEXT NOT NULL, price_hour INTEGER NOT NULL,"
	"  asked_ts INTEGER NOT NULL, instance_id TEXT NOT NULL DEFAULT '',"
	"  settled INTEGER NOT NULL DEFAULT 0);";

/* Columns that came after the ledger: rows written before currencies were all dollars. */
static const struct store_column ledger_columns[] = {
	{ "ledger", "gone", "INTEGER NOT NULL DEFAULT 0" },
	{ "ledger", "currency", "TEXT NOT NULL DEFAULT 'USD'" },
	{ NULL, NULL, NULL },
};

/*
 * The spend of every closed billing segment, summed per instance and kind (ledger_closed),
 * kept by triggers as segments close, so that an instance's cost and an account's total
 * read a few rows instead of the whole history: with 1,000 instances and a year of
 * segments, the simulator's `ls` and `costs` read 730,000 ledger rows for them (issue 17
 * part 5). A closed segment never changes, so the sum is exact; a segment's cost is
 * money_accrue(rate_hour, end_ts - start_ts) written in SQL integer arithmetic (round half
 * away from zero, the product split so that it cannot overflow). Made, and filled from the
 * rows already there, once: inside one transaction, so that no segment closing meanwhile
 * is counted twice or missed.
 */
static const char ledger_totals[] =
	"CREATE TABLE ledger_closed("
	"  instance_id TEXT NOT NULL, kind INTEGER NOT NULL, provider TEXT NOT NULL,"
	"  spent INTEGER NOT NULL, PRIMARY KEY(instance_id, kind));"
	"INSERT INTO ledger_closed SELECT instance_id, kind, max(provider), sum(" SEG_COST("ledger")
	"  ) FROM ledger WHERE end_ts > start_ts GROUP BY instance_id, kind;"
	"CREATE INDEX ledger_closed_provider ON ledger_closed(provider);"
	"CREATE TRIGGER ledger_closed_insert AFTER INSERT ON ledger"
	"  WHEN new.end_ts > new.start_ts BEGIN"
	"  INSERT INTO ledger_closed VALUES(new.instance_id, new.kind, new.provider, "
	SEG_COST("new") ") ON CONFLICT(instance_id, kind) DO UPDATE SET spent = spent + excluded.spent;"
	"  END;"
	"CREATE TRIGGER ledger_closed_update AFTER UPDATE OF end_ts ON ledger"
	"  WHEN old.end_ts = 0 AND new.end_ts > new.start_ts BEGIN"
	"  INSERT INTO ledger_closed VALUES(new.instance_id, new.kind, new.provider, "
	SEG_COST("new") ") ON CONFLICT(instance_id, kind) DO UPDATE SET spent = spent + excluded.spent;"
	"  END;";

/*
 * The spend of closed segments per UTC day of their start (ledger_day), for `costs` (issue
 * 17 part 5): one row per day, provider, label, GPU, kind and currency with how many
 * segments, the sum of their whole costs (SEG_COST, the figure costs_compute gives a
 * segment that lies inside its window) and the earliest and latest end among them, so that
 * costs can tell which days' rows lie wholly inside its window and its "this month" (read
 * from here) and which cross one of its edges (read row by row; costs.c). Closing a segment
 * (an insert of a closed row, or end_ts set on an open one) adds it; any other change to a
 * closed row, or its deletion, makes the days it touches again from their rows, so the
 * table is always the fold of the rows, whoever edits them. Made and filled once, like
 * ledger_closed, for a database from before it.
 */
#define DAY_KEY "day, provider, label, gpu, kind, currency"
#define DAY_ADD(r) \
	"INSERT INTO ledger_day VALUES(" DAY_OF(r ".start_ts") ", " r ".provider, " r ".label, " \
	r ".gpu, " r ".kind, " r ".currency, 1, " WHOLE_COST(r) ", " r ".end_ts, " r ".end_ts) " \
	"ON CONFLICT(" DAY_KEY ") DO UPDATE SET n = n + 1, spent = spent + excluded.spent, " \
	"min_end = min(min_end, excluded.min_end), max_end = max(max_end, excluded.max_end);"
#define DAY_FOLD "SELECT " DAY_OF("start_ts") ", provider, label, gpu, kind, currency, " \
	"count(*), sum(" WHOLE_COST("ledger") "), min(end_ts), max(end_ts) FROM ledger "
/* The day of row r made again from the rows (the '+' keeps it on ledger_time's range). */
#define DAY_REDO(r) \
	"DELETE FROM ledger_day WHERE day = " DAY_OF(r ".start_ts") " AND provider = " r \
	".provider AND label = " r ".label AND gpu = " r ".gpu AND kind = " r ".kind AND " \
	"currency = " r ".currency;" \
	"INSERT INTO ledger_day " DAY_FOLD "WHERE start_ts >= " DAY_OF(r ".start_ts") " AND " \
	"start_ts < " DAY_OF(r ".start_ts") " + 86400 AND +end_ts != 0 AND +provider = " r \
	".provider AND label = " r ".label AND gpu = " r ".gpu AND kind = " r ".kind AND " \
	"currency = " r ".currency GROUP BY provider, label, gpu, kind, currency;"
static const char ledger_days[] =
	"CREATE TABLE ledger_day("
	"  day INTEGER NOT NULL, provider TEXT NOT NULL, label TEXT NOT NULL, gpu TEXT NOT NULL,"
	"  kind INTEGER NOT NULL, currency TEXT NOT NULL, n INTEGER NOT NULL,"
	"  spent INTEGER NOT NULL, min_end INTEGER NOT NULL, max_end INTEGER NOT NULL,"
	"  PRIMARY KEY(" DAY_KEY "));"
	"INSERT INTO ledger_day " DAY_FOLD "WHERE end_ts != 0 GROUP BY 1, provider, label, gpu, "
	"  kind, currency;"
	/* costs reads the days whose segments end inside its window: max_end > since. */
	"CREATE INDEX ledger_day_end ON ledger_day(max_end);"
	"CREATE TRIGGER ledger_day_insert AFTER INSERT ON ledger WHEN new.end_ts != 0 BEGIN "
	DAY_ADD("new") " END;"
	"CREATE TRIGGER ledger_day_close AFTER UPDATE ON ledger"
	"  WHEN old.end_ts = 0 AND new.end_ts != 0 BEGIN " DAY_ADD("new") " END;"
	"CREATE TRIGGER ledger_day_edit AFTER UPDATE ON ledger WHEN old.end_ts != 0 BEGIN "
	DAY_REDO("old") DAY_REDO("new") " END;"
	"CREATE TRIGGER ledger_day_delete AFTER DELETE ON ledger WHEN old.end_ts != 0 BEGIN "
	DAY_REDO("old") " END;";

/* The caches: ids for completion, providers' offer answers, the GPU names seen. */
static const char cache_tables[] =
	"CREATE TABLE IF NOT EXISTS idcache("
	"  id TEXT PRIMARY KEY, kind INTEGER NOT NULL, provider TEXT NOT NULL,"
	"  descr TEXT NOT NULL);"
	/* layout: the writing build's schema identity (offer_cache.c). */
	"CREATE TABLE IF NOT EXISTS offer_cache("
	"  provider TEXT NOT NULL, query TEXT NOT NULL, config TEXT NOT NULL,"
	"  layout INTEGER NOT NULL, fetched_at INTEGER NOT NULL, n INTEGER NOT NULL,"
	"  offers BLOB NOT NULL, PRIMARY KEY(provider, query));"
	"CREATE TABLE IF NOT EXISTS gpu_names_seen("
	"  provider TEXT NOT NULL, name TEXT NOT NULL, vram_gb INTEGER NOT NULL,"
	"  first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,"
	"  PRIMARY KEY(provider, name));";

/* What runs and what was done: jobs, forwards, the event journal, the watcher's state. */
static const char record_tables[] =
	"CREATE TABLE IF NOT EXISTS jobs("
	"  id TEXT PRIMARY KEY, instance_id TEXT NOT NULL, seq INTEGER NOT NULL,"
	"  dir TEXT NOT NULL, name TEXT NOT NULL, command TEXT NOT NULL, started_at INTEGER NOT NULL,"
	"  state INTEGER NOT NULL, exit_code INTEGER NOT NULL, then_action TEXT NOT NULL,"
	"  after INTEGER NOT NULL, fetch BLOB, account TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS forwards("
	"  local_port INTEGER PRIMARY KEY, instance_id TEXT NOT NULL,"
	"  remote_port INTEGER NOT NULL, pid INTEGER NOT NULL, started_at INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS events("
	"  seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, level INTEGER NOT NULL,"
	"  kind TEXT NOT NULL, policy TEXT NOT NULL, instance_id TEXT NOT NULL,"
	"  label TEXT NOT NULL, util INTEGER NOT NULL, message TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS events_at ON events(at);"
	"CREATE TABLE IF NOT EXISTS watch_state("
	"  instance_id TEXT PRIMARY KEY, label TEXT NOT NULL, last_state INTEGER NOT NULL,"
	"  util INTEGER NOT NULL, sample_at INTEGER NOT NULL, idle_since INTEGER NOT NULL,"
	"  unobserved INTEGER NOT NULL, notified INTEGER NOT NULL, action INTEGER NOT NULL,"
	"  policy TEXT NOT NULL, phase INTEGER NOT NULL, ordered_at INTEGER NOT NULL,"
	"  tries INTEGER NOT NULL, pid INTEGER NOT NULL);";

/* Elastic groups and their load. */
static const char group_tables[] =
	"CREATE TABLE IF NOT EXISTS groups("
	"  name TEXT PRIMARY KEY, gpu TEXT NOT NULL, gpus INTEGER NOT NULL, min INTEGER NOT NULL,"
	"  max INTEGER NOT NULL, target_util INTEGER NOT NULL, cooldown INTEGER NOT NULL,"
	"  window INTEGER NOT NULL, base INTEGER NOT NULL, max_price INTEGER NOT NULL,"
	"  env TEXT NOT NULL, predict INTEGER NOT NULL, created_at INTEGER NOT NULL,"
	"  last_scale_at INTEGER NOT NULL, max_currency TEXT NOT NULL DEFAULT 'USD',"
	"  providers TEXT NOT NULL DEFAULT '');"
	"CREATE TABLE IF NOT EXISTS group_load("
	"  name TEXT NOT NULL, at INTEGER NOT NULL, util REAL NOT NULL, members INTEGER NOT NULL,"
	"  PRIMARY KEY (name, at)) WITHOUT ROWID;";

/*
 * Columns that came after the groups table: a group was of one-GPU instances with no
 * environment and no prediction (before ed7000e, which added them without adding them to
 * an older table, so that gpurent could not read such a database), max prices were
 * dollars, groups used every provider.
 */
static const struct store_column group_columns[] = {
	{ "groups", "gpus", "INTEGER NOT NULL DEFAULT 1" },
	{ "groups", "env", "TEXT NOT NULL DEFAULT ''" },
	{ "groups", "predict", "INTEGER NOT NULL DEFAULT 0" },
	{ "groups", "max_currency", "TEXT NOT NULL DEFAULT 'USD'" },
	{ "groups", "providers", "TEXT NOT NULL DEFAULT ''" },
	{ NULL, NULL, NULL },
};

/*
 * What `gpurent reconcile` keeps (reconcile.c): the instances adopted, and which findings the
 * watcher has reported of each; the look-ups it makes of the launch journal and of the
 * ledger's instances closed as gone. Made only where missing, as the unversioned steps are:
 * a database set back to version 0 (as the upgrade tests make one) may have them.
 */
static const char reconcile_tables[] =
	"CREATE TABLE IF NOT EXISTS reconcile_marks("
	"  instance_id TEXT PRIMARY KEY, provider TEXT NOT NULL,"
	"  adopted_at INTEGER NOT NULL DEFAULT 0, reported INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX IF NOT EXISTS launch_journal_instance ON launch_journal(instance_id);"
	"CREATE INDEX IF NOT EXISTS ledger_gone ON ledger(instance_id) WHERE gone = 1;";

/*
 * Managed jobs (managed.c): each job's request and where it is, each machine it ran on (an
 * attempt, recorded with its launch's client token before the launch leaves), and the
 * lease that lets one controller at a time act on a job.
 */
static const char managed_tables[] =
	"CREATE TABLE IF NOT EXISTS managed_jobs("
	"  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, spec TEXT NOT NULL,"
	"  state INTEGER NOT NULL, attempt INTEGER NOT NULL, recoveries INTEGER NOT NULL,"
	"  ckpt_seq INTEGER NOT NULL, ckpt_at INTEGER NOT NULL, created_at INTEGER NOT NULL,"
	"  ended_at INTEGER NOT NULL, exit_code INTEGER NOT NULL, why TEXT NOT NULL);"
	"CREATE INDEX IF NOT EXISTS managed_jobs_id ON managed_jobs(id);"
	"CREATE TABLE IF NOT EXISTS managed_attempts("
	"  job_id TEXT NOT NULL, n INTEGER NOT NULL, token TEXT NOT NULL,"
	"  instance_id TEXT NOT NULL, gpu TEXT NOT NULL, price_hour INTEGER NOT NULL,"
	"  currency TEXT NOT NULL, remote_job TEXT NOT NULL, started_at INTEGER NOT NULL,"
	"  ended_at INTEGER NOT NULL, ssh_failing_since INTEGER NOT NULL,"
	"  lost_s INTEGER NOT NULL, cost INTEGER NOT NULL, end_reason TEXT NOT NULL,"
	"  run_at INTEGER NOT NULL, PRIMARY KEY(job_id, n)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS managed_lease("
	"  job_id TEXT PRIMARY KEY, holder TEXT NOT NULL, until INTEGER NOT NULL);";

/* After the managed jobs: the launch journal keeps each launch's name (state_journal_claim). */
static const struct store_column journal_columns[] = {
	{ "launch_journal", "name", "TEXT NOT NULL DEFAULT ''" },
	{ NULL, NULL, NULL },
};

/*
 * Who caused each row and for which team (issue 31; team.h): NULL where unknown, as in every
 * row written before this step. The ledger's rows take them from their instance's launch.
 */
static const struct store_column team_columns[] = {
	{ "ledger", "who", "TEXT" },
	{ "ledger", "team", "TEXT" },
	{ "launch_journal", "who", "TEXT" },
	{ "launch_journal", "team", "TEXT" },
	{ "events", "who", "TEXT" },
	{ "events", "team", "TEXT" },
	{ "jobs", "who", "TEXT" },
	{ "jobs", "team", "TEXT" },
	{ "groups", "who", "TEXT" },
	{ "groups", "team", "TEXT" },
	{ "managed_jobs", "who", "TEXT" },
	{ "managed_jobs", "team", "TEXT" },
	{ NULL, NULL, NULL },
};

/* One step: its SQL, then the columns to add where missing, then a kept table (made and
 * filled from the rows where missing), then a function for what SQL text cannot say. */
struct step {
	const char *sql;
	const struct store_column *columns;
	const char *kept_table, *kept_sql;
	bool (*run)(struct state *st);
};

static const struct step steps[] = {
	/* 1 */ { .sql = state_tables, .columns = ledger_columns },
	/* 2 */ { .kept_table = "ledger_closed", .kept_sql = ledger_totals },
	/* 3 */ { .kept_table = "ledger_day", .kept_sql = ledger_days },
	/* 4 */ { .sql = cache_tables },
	/* 5 */ { .sql = record_tables },
	/* 6 */ { .sql = group_tables, .columns = group_columns },
	/* 7: generated from the fields of a sample, with its roll-ups (history.c). */
	{ .run = history_schema },
	/* 8 */ { .sql = reconcile_tables },
	/* 9 */ { .sql = managed_tables },
	/* 10: the name a launch's instance is listed by, for an unsettled one (state.h). */
	{ .columns = journal_columns },
	/* 11: who and which team (team_columns). */
	{ .columns = team_columns },
	/* 12: one table of leases, the watcher's with the managed jobs' (lease.c). */
	{ .sql = lease_tables },
	/* 13: team watchers' public keys and the team keys sealed to them (team_keys.h). */
	{ .sql = "CREATE TABLE IF NOT EXISTS team_watchers(team TEXT NOT NULL, public_key TEXT "
	    "NOT NULL, host TEXT NOT NULL, added_by TEXT NOT NULL, added_at INTEGER NOT NULL, "
	    "PRIMARY KEY(team, public_key));"
	    "CREATE TABLE IF NOT EXISTS team_keys(team TEXT NOT NULL, provider TEXT NOT NULL, "
	    "public_key TEXT NOT NULL, sealed BLOB NOT NULL, stored_by TEXT NOT NULL, "
	    "stored_at INTEGER NOT NULL, PRIMARY KEY(team, provider, public_key));" },
	/* 14: the id cache per person on a team's state (idcache.c): a cache, made anew. */
	{ .sql = "DROP TABLE IF EXISTS idcache;"
	    "CREATE TABLE idcache(who TEXT NOT NULL DEFAULT '', id TEXT NOT NULL, kind INTEGER "
	    "NOT NULL, provider TEXT NOT NULL, descr TEXT NOT NULL, PRIMARY KEY(who, id));" },
};
#define STEPS_UNVERSIONED 7
_Static_assert(ARRAY_LEN(steps) >= STEPS_UNVERSIONED, "the steps before numbering");

/* How many steps st's driver has: SQLite's list above, PostgreSQL's (schema_pg.c). */
static size_t
steps_of(struct state *st)
{
	return state_is_postgresql(st) ? pg_steps_n : ARRAY_LEN(steps);
}

/* How many steps the database has had: SQLite's user_version, PostgreSQL's schema_version
 * table (none yet: 0). */
static int
user_version(struct state *st)
{
	struct db *db = state_db(st);
	bool pg = state_is_postgresql(st), open = !db_get_autocommit(db);
	struct db_stmt *s;
	int v = -1, rc;

	/* On PostgreSQL the table is looked for first only inside a transaction, which a
	 * failed read would abort: otherwise only when the read fails (a new database), as
	 * the catalogue's views cost a fresh connection more than the read itself. */
	if (pg && open && !store_has_table(db, "schema_version"))
		return 0;
	if (db_prepare_v2(db, pg ? "SELECT max(version) FROM schema_version" :
	    "PRAGMA user_version", -1, &s, NULL) != DB_OK)
		return -1;
	rc = db_step(s);
	if (rc == DB_ROW)
		v = db_column_int(s, 0);
	db_finalize(s);
	if (pg && !open && rc != DB_ROW && !store_has_table(db, "schema_version"))
		return 0;
	return v;
}

/* The version v (-1: unreadable) is one this gpurent can open: not a newer gpurent's. */
static enum gr_err
known(struct state *st, int v, struct gr_error *err)
{
	if (v < 0)
		return state_fail(st, err, "cannot read the schema version");
	if (v > (int)steps_of(st))
		return gr_fail(err, GR_ESTATE, "the database '%s' has schema version %d, newer than "
		    "this gpurent's %d: a newer gpurent wrote it; use that one (it is left as it is)",
		    state_path(st), v, (int)steps_of(st));
	return GR_OK;
}

/* Step i of st's driver run; false on an SQL error. */
static bool
run_step(struct state *st, size_t i)
{
	struct db *db = state_db(st);
	const struct step *s = &steps[i];

	if (state_is_postgresql(st))
		return pg_steps[i].sql != NULL ? db_exec(db, pg_steps[i].sql, NULL, NULL, NULL) == DB_OK :
		    pg_steps[i].run(st);
	return (s->sql == NULL || db_exec(db, s->sql, NULL, NULL, NULL) == DB_OK) &&
	    store_add_columns(db, s->columns) &&
	    (s->kept_table == NULL || store_has_table(db, s->kept_table) ||
	    db_exec(db, s->kept_sql, NULL, NULL, NULL) == DB_OK) &&
	    (s->run == NULL || s->run(st));
}

/* The steps after v (user_version's, read before) run. */
static enum gr_err
migrate(struct state *st, int v, struct gr_error *err)
{
	struct db *db = state_db(st);
	char sql[160];
	size_t i, n = steps_of(st);

	if (v == (int)n)
		return GR_OK;
	if (state_begin(st, err) != GR_OK)
		return err->code;
	/* Another process may have migrated it while this one waited for the lock. */
	v = user_version(st);
	if (known(st, v, err) != GR_OK) {
		state_rollback(st);
		return err->code;
	}
	for (i = (size_t)v; i < n; i++)
		if (!run_step(st, i))
			goto fail;
	if (state_is_postgresql(st))
		snprintf(sql, sizeof(sql), "CREATE TABLE IF NOT EXISTS schema_version(version BIGINT "
		    "NOT NULL); DELETE FROM schema_version; INSERT INTO schema_version VALUES(%zu)", n);
	else
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %zu", n);
	if (db_exec(db, sql, NULL, NULL, NULL) != DB_OK)
		goto fail;
	return state_commit(st, err);
fail:
	state_fail(st, err, "cannot upgrade the database");
	state_rollback(st);
	return err->code;
}

/* The connection's settings: SQLite's journal and the history's SQL function (a PostgreSQL
 * connection bounds its lock waits from the start, pg.c). */
static bool
configure(struct state *st, char **msg)
{
	struct db *db = state_db(st);

	if (state_is_postgresql(st))
		return true;
	return db_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
	    "PRAGMA foreign_keys=ON;", NULL, NULL, msg) == DB_OK && history_functions(db);
}

enum gr_err
state_open(struct state **out, const char *path, struct gr_error *err)
{
	struct state *st;
	char *msg = NULL;
	int v;

	if (state_connect(&st, path, err) != GR_OK)
		return err->code;
	/* A newer gpurent's database is refused before anything is written to it. */
	v = user_version(st);
	if (known(st, v, err) != GR_OK) {
		state_close(st);
		return err->code;
	}
	if (!configure(st, &msg)) {
		gr_fail(err, GR_ESTATE, "cannot use database '%s': %s", path,
		    msg ? msg : db_errmsg(state_db(st)));
		db_free(msg);
		state_close(st);
		return GR_ESTATE;
	}
	if (migrate(st, v, err) != GR_OK) {
		state_close(st);
		return err->code;
	}
	*out = st;
	return GR_OK;
}

enum gr_err
state_open_begin(struct state **out, const char *path, struct gr_error *err)
{
	/* A file opens in about a millisecond: only a server's connection is worth a thread. */
	if (!state_is_url(path))
		return state_open(out, path, err);
	return store_open_async(out, path, state_open, err);
}
