/*
 * state.c - the state database's connection (state.h): the file and its handle,
 * transactions and snapshots, the helpers the store's files share (store_int.h), the meta
 * table and the launch journal. state_open, which adds the schema, is schema.c's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/paths.h"
#include "gpurent/i18n.h"
#include "gpurent/model.h"
#include "gpurent/money.h"
#include "gpurent/state.h"
#include "gpurent/team.h"
#include "gpurent/util.h"
#include "store_int.h"

struct state {
	struct db *db;	/* NULL while state_open_begin's thread opens it: read through db_of */
	char *path;
	int depth;	/* nested state_begin calls; only the outermost starts a transaction */
	char who[TEAM_NAME_MAX + 1], team[TEAM_NAME_MAX + 1];	/* state_set_actor; "": unknown */
	pthread_t opener;	/* state_open_begin's thread, while opening */
	bool opening;
	struct gr_error open_err;	/* what it found */
	store_open_fn *open;	/* what that thread runs, again after state_open_retry */
	bool retry;		/* state_open_retry: a failed open is tried again at next use */
};

/* The database, once state_open_begin's thread has opened it (or found why not). */
static struct db *
db_of(struct state *st)
{
	if (st->opening || st->retry)
		(void)state_open_wait(st, NULL);
	return st->db;
}

void
state_set_actor(struct state *st, const char *who, const char *team)
{
	strlcpy_(st->who, who != NULL ? who : "", sizeof(st->who));
	strlcpy_(st->team, team != NULL ? team : "", sizeof(st->team));
}

const char *
state_who(const struct state *st)
{
	return st->who[0] != '\0' ? st->who : NULL;
}

const char *
state_team(const struct state *st)
{
	return st->team[0] != '\0' ? st->team : NULL;
}

enum gr_err
state_fail(struct state *st, struct gr_error *err, const char *what)
{
	int code = db_errcode(db_of(st));

	if (code == DB_BUSY || code == DB_LOCKED)
		return gr_fail(err, GR_ESTATE, "%s: the database '%s' is busy (another gpurent "
		    "is writing); try again", _(what), st->path);
	return gr_fail(err, GR_ESTATE, "%s: %s (%s)", _(what), db_errmsg(db_of(st)), st->path);
}

/* A SQLite file: its directory made, the file private, busy waits, no checkpoint on close. */
static enum gr_err
connect_file(struct state *st, const char *path, struct gr_error *err)
{
	char dir[4096], *slash;
	sqlite3 *lite;

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
	if (db_open(&st->db, path, err) != GR_OK)
		return err->code;
	lite = db_sqlite(st->db);
	chmod(path, 0600);
	sqlite3_busy_timeout(lite, 10000);
	/*
	 * No checkpoint when a connection closes: that checkpoint is what synced the disk
	 * (WAL, directory, database) at the end of every command, reads included. With
	 * synchronous=NORMAL a commit only appends to the WAL; SQLite's automatic checkpoint
	 * (every 1000 pages of WAL) copies it into the database, so the WAL stays bounded and
	 * a sync happens once per about 4 MB written, not once per command. Records that must
	 * survive a power cut are committed with state_commit_durable.
	 */
	sqlite3_db_config(lite, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	return GR_OK;
}

enum gr_err
state_connect(struct state **out, const char *path, struct gr_error *err)
{
	struct state *st = xcalloc(1, sizeof(*st));

	st->path = xstrdup(path);
	if ((db_is_url(path) ? db_open(&st->db, path, err) : connect_file(st, path, err)) !=
	    GR_OK) {
		state_close(st);
		return err->code;
	}
	*out = st;
	return GR_OK;
}

/* st's open, its handle kept in st (a stand-in that says why, when it failed): on
   store_open_async's thread, or where a retry is used. */
static void *
run_open(void *arg)
{
	struct state *st = arg, *opened;

	if (st->open(&opened, st->path, &st->open_err) == GR_OK) {
		st->db = opened->db;
		opened->db = NULL;
		state_close(opened);
	} else
		st->db = db_unopened(st->open_err.msg);
	return NULL;
}

enum gr_err
store_open_async(struct state **out, const char *path, store_open_fn *open,
    struct gr_error *err)
{
	struct state *st = xcalloc(1, sizeof(*st));

	st->path = xstrdup(path);
	st->open = open;
	if (pthread_create(&st->opener, NULL, run_open, st) != 0) {
		state_close(st);
		return open(out, path, err);
	}
	st->opening = true;
	*out = st;
	return GR_OK;
}

void
state_open_retry(struct state *st)
{
	st->retry = st->open != NULL;
}

enum gr_err
state_open_wait(struct state *st, struct gr_error *err)
{
	if (st->opening) {
		pthread_join(st->opener, NULL);
		st->opening = false;
	}
	if (st->retry && st->open_err.code != GR_OK) {
		/* Here, not on a thread: this use waits for it anyway. */
		db_close(st->db);
		gr_error_clear(&st->open_err);
		run_open(st);
	}
	st->retry = false;
	if (st->open_err.code == GR_OK)
		return GR_OK;
	if (err != NULL)
		*err = st->open_err;
	return st->open_err.code;
}

void
state_close(struct state *st)
{
	if (st == NULL)
		return;
	if (st->opening)
		pthread_join(st->opener, NULL);
	db_close(st->db);
	free(st->path);
	free(st);
}

bool
state_is_url(const char *target)
{
	return db_is_url(target);
}

bool
state_is_postgresql(const struct state *st)
{
	/* Known from the URL: asking does not wait for a connection still being made. */
	return db_is_url(st->path);
}

struct db *
state_db(struct state *st)
{
	return db_of(st);
}

void
store_col_text(struct db_stmt *q, int c, char *dst, size_t n)
{
	const unsigned char *t = db_column_text(q, c);

	strlcpy_(dst, t ? (const char *)t : "", n);
}

void
store_cols(struct db_stmt *q, const char *types, ...)
{
	va_list ap;
	char *dst;
	int c;

	va_start(ap, types);
	for (c = 0; types[c] != '\0'; c++) {
		switch (types[c]) {
		case 't':
			dst = va_arg(ap, char *);
			store_col_text(q, c, dst, va_arg(ap, size_t));
			break;
		case 'i':
			*va_arg(ap, int *) = db_column_int(q, c);
			break;
		case 'I':
			*va_arg(ap, int64_t *) = db_column_int64(q, c);
			break;
		case '-':
			break;
		default:
			abort();	/* a type letter the caller wrote wrong: a bug */
		}
	}
	va_end(ap);
}

static struct db_stmt *
vprepare(struct state *st, const char *sql, const char *types, va_list ap)
{
	struct db_stmt *q;
	int k;

	if (db_prepare_v2(db_of(st), sql, -1, &q, NULL) != DB_OK)
		return NULL;
	for (k = 1; *types != '\0'; types++, k++) {
		switch (*types) {
		case 't':
			db_bind_text(q, k, va_arg(ap, const char *), -1, DB_TRANSIENT);
			break;
		case 'i':
			db_bind_int(q, k, va_arg(ap, int));
			break;
		case 'I':
			db_bind_int64(q, k, va_arg(ap, int64_t));
			break;
		case 'd':
			db_bind_double(q, k, va_arg(ap, double));
			break;
		case 'b': {
			const void *p = va_arg(ap, const void *);

			db_bind_blob(q, k, p, (int)va_arg(ap, size_t), DB_TRANSIENT);
			break;
		}
		default:
			abort();	/* a type letter the caller wrote wrong: a bug */
		}
	}
	return q;
}

struct db_stmt *
store_prepare(struct state *st, const char *sql, const char *types, ...)
{
	struct db_stmt *q;
	va_list ap;

	va_start(ap, types);
	q = vprepare(st, sql, types, ap);
	va_end(ap);
	return q;
}

bool
store_run(struct state *st, const char *sql, const char *types, ...)
{
	struct db_stmt *q;
	va_list ap;
	int rc;

	va_start(ap, types);
	q = vprepare(st, sql, types, ap);
	va_end(ap);
	if (q == NULL)
		return false;
	rc = db_step(q);
	db_finalize(q);
	return rc == DB_DONE;
}

bool
store_rows(struct db_stmt *q, void **out, size_t *n, size_t size,
    void (*read_row)(struct db_stmt *q, void *row))
{
	char *v = NULL;
	size_t cap = 0;
	int rc;

	*n = 0;
	*out = NULL;
	if (q == NULL)
		return false;
	while ((rc = db_step(q)) == DB_ROW) {
		v = xgrow(v, *n, &cap, size, 8);
		read_row(q, v + (*n)++ * size);
	}
	db_finalize(q);
	if (rc != DB_DONE) {
		free(v);
		v = NULL;
		*n = 0;
	}
	*out = v;
	return rc == DB_DONE;
}

void
store_each_text(struct state *st, const char *sql, const int64_t *arg, size_t max,
    void (*fn)(const char *text, void *ctx), void *ctx)
{
	struct db_stmt *q;
	size_t rows = 0;

	if (db_prepare_v2(db_of(st), sql, -1, &q, NULL) != DB_OK)
		return;
	if (arg != NULL)
		db_bind_int64(q, 1, *arg);
	while (rows++ < max && db_step(q) == DB_ROW) {
		const unsigned char *t = db_column_text(q, 0);

		if (t != NULL)
			fn((const char *)t, ctx);
	}
	db_finalize(q);
}

bool
store_has_table(struct db *db, const char *name)
{
	struct db_stmt *s;
	bool found;

	if (db_prepare_v2(db, db_kind(db) == DB_POSTGRESQL ?
	    "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND "
	    "table_name = ?" : "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
	    -1, &s, NULL) != DB_OK)
		return false;
	db_bind_text(s, 1, name, -1, DB_STATIC);
	found = db_step(s) == DB_ROW;
	db_finalize(s);
	return found;
}

static bool
has_column(struct db *db, const char *table, const char *column)
{
	char sql[256];
	struct db_stmt *s;
	bool found;

	/* On PostgreSQL a failed probe would abort the transaction: asked of the catalogue. */
	if (db_kind(db) == DB_POSTGRESQL) {
		if (db_prepare_v2(db, "SELECT 1 FROM information_schema.columns WHERE table_schema "
		    "= current_schema() AND table_name = ? AND column_name = ?", -1, &s, NULL) !=
		    DB_OK)
			return false;
		db_bind_text(s, 1, table, -1, DB_STATIC);
		db_bind_text(s, 2, column, -1, DB_STATIC);
		found = db_step(s) == DB_ROW;
		db_finalize(s);
		return found;
	}
	snprintf(sql, sizeof(sql), "SELECT %s FROM %s LIMIT 0", column, table);
	if (db_prepare_v2(db, sql, -1, &s, NULL) != DB_OK)
		return false;
	db_finalize(s);
	return true;
}

bool
store_add_columns(struct db *db, const struct store_column *c)
{
	char sql[256];

	for (; c != NULL && c->table != NULL; c++) {
		if (has_column(db, c->table, c->name))
			continue;
		snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN %s %s", c->table, c->name,
		    c->decl);
		if (db_exec(db, sql, NULL, NULL, NULL) != DB_OK)
			return false;
	}
	return true;
}

/* SQLite's type words in DDL and what they are on PostgreSQL (longest first). */
static const struct {
	const char *sqlite, *pg;
} ddl_words[] = {
	{ " INTEGER PRIMARY KEY,", " BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY," },
	{ " WITHOUT ROWID", "" },
	{ " INTEGER", " BIGINT" },
	{ " REAL", " DOUBLE PRECISION" },
	{ " BLOB", " BYTEA" },
};

bool
store_ddl(struct db *db, const char *sql)
{
	size_t len = strlen(sql), o = 0, i;
	char *out;
	bool ok;

	if (db_kind(db) == DB_SQLITE)
		return db_exec(db, sql, NULL, NULL, NULL) == DB_OK;
	out = xmalloc(len * 4 + 1);	/* no word grows more than fourfold */
	while (*sql != '\0') {
		for (i = 0; i < ARRAY_LEN(ddl_words); i++) {
			size_t n = strlen(ddl_words[i].sqlite);

			if (strncmp(sql, ddl_words[i].sqlite, n) != 0)
				continue;
			/* A whole word: what follows it ends it (a blank, a comma, a bracket). */
			if (ddl_words[i].sqlite[n - 1] != ',' && sql[n] != '\0' &&
			    strchr(" ,);", sql[n]) == NULL)
				continue;
			strcpy(out + o, ddl_words[i].pg);
			o += strlen(ddl_words[i].pg);
			sql += n;
			break;
		}
		if (i == ARRAY_LEN(ddl_words))
			out[o++] = *sql++;
	}
	out[o] = '\0';
	ok = db_exec(db, out, NULL, NULL, NULL) == DB_OK;
	free(out);
	return ok;
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
	/* One writer at a time, as SQLite's BEGIN IMMEDIATE: on PostgreSQL a lock that the
	 * transaction holds to its end (the key is "gpurent" in ASCII, 0x67707572656e74). */
	if (db_exec(db_of(st), state_is_postgresql(st) ? "BEGIN; SELECT pg_advisory_xact_lock("
	    "29115572333932148)" : "BEGIN IMMEDIATE", NULL, NULL, NULL) != DB_OK) {
		enum gr_err rc = state_fail(st, err, "cannot start a transaction");

		if (state_is_postgresql(st))
			db_exec(db_of(st), "ROLLBACK", NULL, NULL, NULL);
		st->depth = 0;
		return rc;
	}
	return GR_OK;
}

/* state_commit, failing with `what` and the database's reason. */
static enum gr_err
commit_as(struct state *st, const char *what, struct gr_error *err)
{
	if (st->depth == 0 || --st->depth > 0)
		return GR_OK;
	if (db_exec(db_of(st), "COMMIT", NULL, NULL, NULL) != DB_OK) {
		enum gr_err rc = state_fail(st, err, what);

		db_exec(db_of(st), "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return GR_OK;
}

enum gr_err
state_commit(struct state *st, struct gr_error *err)
{
	return commit_as(st, N_("cannot commit"), err);
}

enum gr_err
state_snapshot_begin(struct state *st, bool *started, struct gr_error *err)
{
	*started = false;
	if (st->depth > 0 || !db_get_autocommit(db_of(st)))
		return GR_OK;
	/* On PostgreSQL, REPEATABLE READ: every statement of the read sees its first's snapshot. */
	if (db_exec(db_of(st), state_is_postgresql(st) ? "BEGIN ISOLATION LEVEL REPEATABLE READ" :
	    "BEGIN DEFERRED", NULL, NULL, NULL) != DB_OK)
		return state_fail(st, err, "cannot start a read");
	*started = true;
	return GR_OK;
}

void
state_snapshot_end(struct state *st, bool started)
{
	/* A read commits nothing: ending it cannot lose anything, only release the snapshot. */
	if (started && db_exec(db_of(st), "COMMIT", NULL, NULL, NULL) != DB_OK)
		db_exec(db_of(st), "ROLLBACK", NULL, NULL, NULL);
}

void
state_rollback(struct state *st)
{
	if (st->depth == 0)
		return;
	st->depth = 0;
	db_exec(db_of(st), "ROLLBACK", NULL, NULL, NULL);
}

/* The launch lock's key: "launch" in ASCII (state_begin's writer lock has another). */
#define LAUNCH_LOCK_KEY "119165837796200"

enum gr_err
state_lock_launches(struct state *st, int wait_ms, struct gr_error *err)
{
	struct timespec ts = { 0, 50 * 1000000L };
	int waited;

	for (waited = 0;; waited += 50) {
		struct db_stmt *q = store_prepare(st, "SELECT pg_try_advisory_lock("
		    LAUNCH_LOCK_KEY ")", "");
		bool got = q != NULL && db_step(q) == DB_ROW && db_column_int(q, 0) == 1;

		db_finalize(q);
		if (got)
			return GR_OK;
		if (db_errcode(db_of(st)) != DB_OK)
			return state_fail(st, err, "cannot take the launch lock");
		if (waited >= wait_ms)
			return gr_fail(err, GR_ESTATE, "another gpurent has been launching for "
			    "%d s (a lock in the database '%s'); try again", wait_ms / 1000,
			    st->path);
		nanosleep(&ts, NULL);
	}
}

void
state_unlock_launches(struct state *st)
{
	store_run(st, "SELECT pg_advisory_unlock(" LAUNCH_LOCK_KEY ")", "");
}

bool
state_meta_get(struct state *st, const char *key, char *buf, size_t n)
{
	struct db_stmt *s;
	bool found = false;

	if (db_prepare_v2(db_of(st), "SELECT value FROM meta WHERE key = ?", -1, &s, NULL) !=
	    DB_OK)
		return false;
	db_bind_text(s, 1, key, -1, DB_STATIC);
	if (db_step(s) == DB_ROW) {
		strlcpy_(buf, (const char *)db_column_text(s, 0), n);
		found = true;
	}
	db_finalize(s);
	return found;
}

enum gr_err
state_meta_set(struct state *st, const char *key, const char *value, struct gr_error *err)
{
	if (!store_run(st, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE "
	    "SET value = excluded.value", "tt", key, value))
		return state_fail(st, err, "cannot write meta");
	return GR_OK;
}

void
state_meta_each(struct state *st, const char *prefix,
    void (*fn)(const char *key, const char *value, void *ctx), void *ctx)
{
	struct db_stmt *q;

	/* By its first characters, not a range of keys: PostgreSQL may order text by a
	   collation that is not bytewise. */
	q = store_prepare(st, "SELECT key, value FROM meta WHERE substr(key, 1, ?) = ? ORDER BY "
	    "key", "It", (int64_t)strlen(prefix), prefix);
	while (q != NULL && db_step(q) == DB_ROW)
		fn((const char *)db_column_text(q, 0), (const char *)db_column_text(q, 1), ctx);
	db_finalize(q);
}

/* A launch in flight is a meta row "launch.inflight:ROW" (ROW: its journal row) whose
   value is "WALL PRICE_HOUR LUMP CURRENCY" (state.h, struct launch_cost). */
#define INFLIGHT_KEY "launch.inflight:"

static void
inflight_key(char *buf, size_t n, int64_t row)
{
	snprintf(buf, n, INFLIGHT_KEY "%lld", (long long)row);
}

enum gr_err
state_journal_launch(struct state *st, const char *provider, const char *name,
    const struct launch_cost *cost, int64_t now, int64_t wall, int64_t *row,
    struct gr_error *err)
{
	char key[64], val[160];
	struct db_stmt *s;
	enum gr_err e = GR_OK;
	int rc;

	/* Inside a transaction the record would be committed (and synced) only later. */
	if (st->depth > 0)
		return gr_fail(err, GR_ESTATE, "cannot journal a launch inside a transaction");
	/* FULL: this commit syncs the WAL (and its directory when new) before it returns. A
	 * PostgreSQL commit is durable on its own (synchronous_commit, the server's default). */
	if (!state_is_postgresql(st))
		db_exec(db_of(st), "PRAGMA synchronous=FULL", NULL, NULL, NULL);
	if (state_begin(st, err) != GR_OK) {
		e = err->code;
		goto out;
	}
	if (db_prepare_v2(db_of(st), "INSERT INTO launch_journal(provider, price_hour, asked_ts, "
	    "name, who, team) VALUES(?, ?, ?, ?, ?, ?)", -1, &s, NULL) != DB_OK) {
		e = state_fail(st, err, "cannot journal the launch");
		state_rollback(st);
		goto out;
	}
	db_bind_text(s, 1, provider, -1, DB_STATIC);
	db_bind_int64(s, 2, cost->price_hour);
	db_bind_int64(s, 3, now);
	db_bind_text(s, 4, name, -1, DB_STATIC);
	db_bind_text(s, 5, state_who(st), -1, DB_STATIC);
	db_bind_text(s, 6, state_team(st), -1, DB_STATIC);
	rc = db_step(s);
	/* Said before the rollback, whose success would leave "not an error" to say. */
	if (rc != DB_DONE)
		e = state_fail(st, err, "cannot journal the launch");
	else
		*row = db_last_insert_rowid(db_of(st));
	db_finalize(s);
	if (e == GR_OK) {
		inflight_key(key, sizeof(key), *row);
		/* Who launched it ("-": nobody named), for a person's own limit. */
		snprintf(val, sizeof(val), "%lld %lld %lld %s %s", (long long)wall,
		    (long long)cost->price_hour, (long long)cost->lump,
		    money_currency(cost->currency), state_who(st) != NULL ? state_who(st) : "-");
		if (!store_run(st, "INSERT INTO meta(key, value) VALUES(?, ?)", "tt", key, val))
			e = state_fail(st, err, "cannot journal the launch");
	}
	/* Where a full disk shows: in the commit, which writes the log. */
	if (e == GR_OK)
		e = commit_as(st, N_("cannot journal the launch"), err);
	else
		state_rollback(st);
out:
	if (!state_is_postgresql(st))
		db_exec(db_of(st), "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
	return e;
}

/* Settle journal row `row` with instance_id ("": no instance) unless only_unsettled and it
   is settled already; it is in flight no more. */
static bool
settle(struct state *st, int64_t row, const char *instance_id, bool only_unsettled)
{
	char key[64];
	bool ok;

	inflight_key(key, sizeof(key), row);
	if (state_begin(st, NULL) != GR_OK)
		return false;
	ok = store_run(st, only_unsettled ? "UPDATE launch_journal SET settled = 1, "
	    "instance_id = ? WHERE id = ? AND settled = 0" : "UPDATE launch_journal SET "
	    "settled = 1, instance_id = ? WHERE id = ?", "tI", instance_id, row) &&
	    store_run(st, "DELETE FROM meta WHERE key = ?", "t", key);
	if (!ok) {
		state_rollback(st);
		return false;
	}
	return state_commit(st, NULL) == GR_OK;
}

enum gr_err
state_journal_settle(struct state *st, int64_t row, const char *instance_id,
    struct gr_error *err)
{
	if (!settle(st, row, instance_id, false))
		return state_fail(st, err, "cannot settle the launch journal");
	/* What its provider's own ledger wrote while it launched (the simulator's) is its too. */
	if (instance_id[0] != '\0' && !store_run(st, "UPDATE ledger SET who = "
	    "launch_journal.who, team = launch_journal.team FROM launch_journal WHERE "
	    "launch_journal.id = ? AND ledger.instance_id = launch_journal.instance_id AND "
	    "ledger.who IS NULL", "I", row))
		return state_fail(st, err, "cannot settle the launch journal");
	return GR_OK;
}

size_t
state_journal_inflight(struct state *st, int64_t wall, struct launch_cost **out)
{
	/* By its first characters, as state_meta_each: under a collation that is not bytewise
	   a range of keys from 'launch.inflight:' to 'launch.inflight;' holds none of them. */
	struct db_stmt *q = store_prepare(st, "SELECT key, value FROM meta WHERE substr(key, 1, "
	    "?) = ?", "It", (int64_t)strlen(INFLIGHT_KEY), INFLIGHT_KEY);
	char (*gone)[64] = NULL, val[160], cur[CURRENCY_MAX], who[TEAM_NAME_MAX + 1];
	size_t n = 0, cap = 0, n_gone = 0, cap_gone = 0, i;
	long long at, price, lump;

	*out = NULL;
	while (q != NULL && db_step(q) == DB_ROW) {
		store_col_text(q, 1, val, sizeof(val));
		if (sscanf(val, "%lld %lld %lld %3s %64s", &at, &price, &lump, cur, who) == 5 &&
		    at > wall - STATE_INFLIGHT_S) {
			struct launch_cost *c = XPUSH(*out, n, cap, 4);

			c->price_hour = price;
			c->lump = lump;
			money_currency_set(c->currency, cur);
			strlcpy_(c->who, strcmp(who, "-") != 0 ? who : "", sizeof(c->who));
		} else
			store_col_text(q, 0, *XPUSH(gone, n_gone, cap_gone, 4), sizeof(*gone));
	}
	db_finalize(q);
	for (i = 0; i < n_gone; i++)
		(void)store_run(st, "DELETE FROM meta WHERE key = ?", "t", gone[i]);
	free(gone);
	return n;
}

void
state_journal_claim(struct state *st, const char *provider, const struct instance_list *l,
    size_t first)
{
	struct unsettled { int64_t row; char name[LABEL_MAX + 64]; } *v = NULL;
	size_t n = 0, cap = 0, i, k;
	struct db_stmt *q = store_prepare(st, "SELECT id, name FROM launch_journal WHERE "
	    "settled = 0 AND instance_id = '' AND name != '' AND provider = ? ORDER BY id", "t",
	    provider);

	while (q != NULL && db_step(q) == DB_ROW) {
		struct unsettled *u = XPUSH(v, n, cap, 4);

		u->row = db_column_int64(q, 0);
		store_col_text(q, 1, u->name, sizeof(u->name));
	}
	db_finalize(q);
	/* Oldest launch first, each to one instance. */
	for (k = 0; k < n; k++)
		for (i = first; i < l->n; i++)
			if (strcmp(l->v[i].label, v[k].name) == 0 &&
			    !state_journal_has(st, l->v[i].id)) {
				(void)settle(st, v[k].row, l->v[i].id, true);
				break;
			}
	free(v);
}

static int
cmp_instance_ids(const void *pa, const void *pb)
{
	return strcmp((*(struct instance *const *)pa)->id, (*(struct instance *const *)pb)->id);
}

void
state_journal_users(struct state *st, struct instance *v, size_t n)
{
	struct instance **by_id, key, *pkey = &key, **hit;
	struct db_stmt *q;
	size_t i;

	if (n == 0)
		return;
	/* One instance (show, the dashboard's detail pane): its own rows, by the index. */
	if (n == 1) {
		q = store_prepare(st, "SELECT who FROM launch_journal WHERE instance_id = ? AND "
		    "who IS NOT NULL ORDER BY id DESC LIMIT 1", "t", v[0].id);
		if (q != NULL && db_step(q) == DB_ROW)
			store_col_text(q, 0, v[0].user, sizeof(v[0].user));
		db_finalize(q);
		return;
	}
	by_id = xcalloc(n, sizeof(*by_id));
	for (i = 0; i < n; i++)
		by_id[i] = &v[i];
	qsort(by_id, n, sizeof(*by_id), cmp_instance_ids);
	/* Oldest first: the latest launch or start of an instance is the last to be put. */
	q = store_prepare(st, "SELECT instance_id, who FROM launch_journal WHERE instance_id != '' "
	    "AND who IS NOT NULL ORDER BY id", "");
	while (q != NULL && db_step(q) == DB_ROW) {
		store_col_text(q, 0, key.id, sizeof(key.id));
		hit = bsearch(&pkey, by_id, n, sizeof(*by_id), cmp_instance_ids);
		if (hit != NULL)
			store_col_text(q, 1, (*hit)->user, sizeof((*hit)->user));
	}
	db_finalize(q);
	free(by_id);
}

bool
state_journal_has(struct state *st, const char *instance_id)
{
	struct db_stmt *q = store_prepare(st, "SELECT 1 FROM launch_journal WHERE instance_id = ? "
	    "LIMIT 1", "t", instance_id);
	bool found;

	if (q == NULL)
		return false;
	found = db_step(q) == DB_ROW;
	db_finalize(q);
	return found;
}
