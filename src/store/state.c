#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpurent/paths.h"
#include "gpurent/i18n.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "store_int.h"

struct state {
	sqlite3 *db;
	char *path;
	int depth;	/* nested state_begin calls; only the outermost starts a transaction */
};

static const char schema[] =
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

/*
 * Columns added after a table was first created: a database made by an older gpurent gets
 * them here. Two processes may race to add one; the loser finds it there.
 */
static bool
add_column(sqlite3 *db, const char *probe, const char *alter, char **msg)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(db, probe, -1, &s, NULL) == SQLITE_OK) {
		sqlite3_finalize(s);
		return true;
	}
	if (sqlite3_exec(db, alter, NULL, NULL, msg) == SQLITE_OK)
		return true;
	if (sqlite3_prepare_v2(db, probe, -1, &s, NULL) == SQLITE_OK) {
		sqlite3_finalize(s);
		sqlite3_free(*msg);
		*msg = NULL;
		return true;
	}
	return false;
}

static bool
add_missing_columns(sqlite3 *db, char **msg)
{
	/* Rows written before currencies were all in dollars. */
	return add_column(db, "SELECT gone FROM ledger LIMIT 0",
	    "ALTER TABLE ledger ADD COLUMN gone INTEGER NOT NULL DEFAULT 0", msg) &&
	    add_column(db, "SELECT currency FROM ledger LIMIT 0",
	    "ALTER TABLE ledger ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD'", msg);
}

enum gr_err
state_fail(struct state *st, struct gr_error *err, const char *what)
{
	int code = sqlite3_errcode(st->db);

	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return gr_fail(err, GR_ESTATE, "%s: the database '%s' is busy (another gpurent "
		    "is writing); try again", _(what), st->path);
	return gr_fail(err, GR_ESTATE, "%s: %s (%s)", _(what), sqlite3_errmsg(st->db), st->path);
}

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
#define SEG_COST(r) \
	"(" r ".rate_hour / 3600) * (" r ".end_ts - " r ".start_ts) + ((" r ".rate_hour % 3600) * " \
	"(" r ".end_ts - " r ".start_ts) + CASE WHEN " r ".rate_hour < 0 THEN -1800 ELSE 1800 " \
	"END) / 3600"
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
#define DAY_OF(x) "(" x " - ((" x " % 86400) + 86400) % 86400)"
#define WHOLE_COST(r) "(CASE WHEN " r ".end_ts > " r ".start_ts THEN " SEG_COST(r) " ELSE 0 END)"
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

static bool
has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *s;
	bool found = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
	    -1, &s, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return found;
}

static bool
add_kept_table(sqlite3 *db, const char *name, const char *sql, char **msg)
{
	if (has_table(db, name))
		return true;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, msg) != SQLITE_OK)
		return false;
	/* Another process may have made it while this one waited for the lock. */
	if (!has_table(db, name) && sqlite3_exec(db, sql, NULL, NULL, msg) != SQLITE_OK) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return false;
	}
	return sqlite3_exec(db, "COMMIT", NULL, NULL, msg) == SQLITE_OK;
}

enum gr_err
state_open(struct state **out, const char *path, struct gr_error *err)
{
	struct state *st;
	char dir[4096], *slash, *msg = NULL;
	int rc;

	strlcpy_(dir, path, sizeof(dir));
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (paths_mkdir(dir, err) != GR_OK)
			return err->code;
		if (access(dir, W_OK) != 0)
			return gr_fail(err, GR_ESTATE, "state directory '%s' is not writable: %s",
			    dir, strerror(errno));
	}
	st = xcalloc(1, sizeof(*st));
	st->path = xstrdup(path);
	rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		gr_fail(err, GR_ESTATE, "cannot open database '%s': %s", path,
		    st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		state_close(st);
		return GR_ESTATE;
	}
	chmod(path, 0600);
	sqlite3_busy_timeout(st->db, 10000);
	/*
	 * No checkpoint when a connection closes: that checkpoint is what synced the disk
	 * (WAL, directory, database) at the end of every command, reads included. With
	 * synchronous=NORMAL a commit only appends to the WAL; SQLite's automatic checkpoint
	 * (every 1000 pages of WAL) copies it into the database, so the WAL stays bounded and
	 * a sync happens once per about 4 MB written, not once per command. Records that must
	 * survive a power cut are committed with state_commit_durable.
	 */
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	if (sqlite3_exec(st->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
	    "PRAGMA foreign_keys=ON;", NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(st->db, schema, NULL, NULL, &msg) != SQLITE_OK ||
	    !add_missing_columns(st->db, &msg) ||
	    !add_kept_table(st->db, "ledger_closed", ledger_totals, &msg) ||
	    !add_kept_table(st->db, "ledger_day", ledger_days, &msg)) {
		gr_fail(err, GR_ESTATE, "cannot use database '%s': %s", path,
		    msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		state_close(st);
		return GR_ESTATE;
	}
	*out = st;
	return GR_OK;
}

void
state_close(struct state *st)
{
	if (st == NULL)
		return;
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

sqlite3 *
state_db(struct state *st)
{
	return st->db;
}

void
store_col_text(sqlite3_stmt *q, int c, char *dst, size_t n)
{
	const unsigned char *t = sqlite3_column_text(q, c);

	strlcpy_(dst, t ? (const char *)t : "", n);
}

void
store_each_text(struct state *st, const char *sql, const int64_t *arg, size_t max,
    void (*fn)(const char *text, void *ctx), void *ctx)
{
	sqlite3_stmt *q;
	size_t rows = 0;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return;
	if (arg != NULL)
		sqlite3_bind_int64(q, 1, *arg);
	while (rows++ < max && sqlite3_step(q) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(q, 0);

		if (t != NULL)
			fn((const char *)t, ctx);
	}
	sqlite3_finalize(q);
}

const char *
state_path(const struct state *st)
{
	return st->path;
}

enum gr_err
state_begin(struct state *st, struct gr_error *err)
{
	if (st->depth++ > 0)
		return GR_OK;
	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		st->depth = 0;
		return state_fail(st, err, "cannot start a transaction");
	}
	return GR_OK;
}

enum gr_err
state_commit(struct state *st, struct gr_error *err)
{
	if (st->depth == 0 || --st->depth > 0)
		return GR_OK;
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		enum gr_err rc = state_fail(st, err, "cannot commit");

		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return GR_OK;
}

enum gr_err
state_snapshot_begin(struct state *st, bool *started, struct gr_error *err)
{
	*started = false;
	if (st->depth > 0 || !sqlite3_get_autocommit(st->db))
		return GR_OK;
	if (sqlite3_exec(st->db, "BEGIN DEFERRED", NULL, NULL, NULL) != SQLITE_OK)
		return state_fail(st, err, "cannot start a read");
	*started = true;
	return GR_OK;
}

void
state_snapshot_end(struct state *st, bool started)
{
	/* A read commits nothing: ending it cannot lose anything, only release the snapshot. */
	if (started && sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

void
state_rollback(struct state *st)
{
	if (st->depth == 0)
		return;
	st->depth = 0;
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

bool
state_meta_get(struct state *st, const char *key, char *buf, size_t n)
{
	sqlite3_stmt *s;
	bool found = false;

	if (sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key = ?", -1, &s, NULL) !=
	    SQLITE_OK)
		return false;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW) {
		strlcpy_(buf, (const char *)sqlite3_column_text(s, 0), n);
		found = true;
	}
	sqlite3_finalize(s);
	return found;
}

enum gr_err
state_meta_set(struct state *st, const char *key, const char *value, struct gr_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "INSERT INTO meta(key, value) VALUES(?, ?) "
	    "ON CONFLICT(key) DO UPDATE SET value = excluded.value", -1, &s, NULL) != SQLITE_OK)
		return state_fail(st, err, "cannot write meta");
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return state_fail(st, err, "cannot write meta");
	return GR_OK;
}

enum gr_err
state_journal_launch(struct state *st, const char *provider, int64_t price_hour, int64_t now,
    int64_t *row, struct gr_error *err)
{
	sqlite3_stmt *s;
	int rc;

	/* Inside a transaction the record would be committed (and synced) only later. */
	if (st->depth > 0)
		return gr_fail(err, GR_ESTATE, "cannot journal a launch inside a transaction");
	if (sqlite3_prepare_v2(st->db, "INSERT INTO launch_journal(provider, price_hour, asked_ts) "
	    "VALUES(?, ?, ?)", -1, &s, NULL) != SQLITE_OK)
		return state_fail(st, err, "cannot journal the launch");
	sqlite3_bind_text(s, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, price_hour);
	sqlite3_bind_int64(s, 3, now);
	/* FULL: this commit syncs the WAL (and its directory when new) before it returns. */
	sqlite3_exec(st->db, "PRAGMA synchronous=FULL", NULL, NULL, NULL);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	sqlite3_exec(st->db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
	if (rc != SQLITE_DONE)
		return state_fail(st, err, "cannot journal the launch");
	*row = sqlite3_last_insert_rowid(st->db);
	return GR_OK;
}

enum gr_err
state_journal_settle(struct state *st, int64_t row, const char *instance_id,
    struct gr_error *err)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "UPDATE launch_journal SET settled = 1, instance_id = ? "
	    "WHERE id = ?", -1, &s, NULL) != SQLITE_OK)
		return state_fail(st, err, "cannot settle the launch journal");
	sqlite3_bind_text(s, 1, instance_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, row);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return state_fail(st, err, "cannot settle the launch journal");
	return GR_OK;
}
