/*
 * state.c - the state database's connection (state.h): the file and its handle,
 * transactions and snapshots, the helpers the store's files share (store_int.h), the meta
 * table and the launch journal. state_open, which adds the schema, is schema.c's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpurent/paths.h"
#include "gpurent/i18n.h"
#include "gpurent/model.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "store_int.h"

struct state {
	sqlite3 *db;
	char *path;
	int depth;	/* nested state_begin calls; only the outermost starts a transaction */
};

enum gr_err
state_fail(struct state *st, struct gr_error *err, const char *what)
{
	int code = sqlite3_errcode(st->db);

	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return gr_fail(err, GR_ESTATE, "%s: the database '%s' is busy (another gpurent "
		    "is writing); try again", _(what), st->path);
	return gr_fail(err, GR_ESTATE, "%s: %s (%s)", _(what), sqlite3_errmsg(st->db), st->path);
}

enum gr_err
state_connect(struct state **out, const char *path, struct gr_error *err)
{
	struct state *st;
	char dir[4096], *slash;
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

static sqlite3_stmt *
vprepare(struct state *st, const char *sql, const char *types, va_list ap)
{
	sqlite3_stmt *q;
	int k;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return NULL;
	for (k = 1; *types != '\0'; types++, k++) {
		switch (*types) {
		case 't':
			sqlite3_bind_text(q, k, va_arg(ap, const char *), -1, SQLITE_TRANSIENT);
			break;
		case 'i':
			sqlite3_bind_int(q, k, va_arg(ap, int));
			break;
		case 'I':
			sqlite3_bind_int64(q, k, va_arg(ap, int64_t));
			break;
		case 'd':
			sqlite3_bind_double(q, k, va_arg(ap, double));
			break;
		case 'b': {
			const void *p = va_arg(ap, const void *);

			sqlite3_bind_blob(q, k, p, (int)va_arg(ap, size_t), SQLITE_TRANSIENT);
			break;
		}
		default:
			abort();	/* a type letter the caller wrote wrong: a bug */
		}
	}
	return q;
}

sqlite3_stmt *
store_prepare(struct state *st, const char *sql, const char *types, ...)
{
	sqlite3_stmt *q;
	va_list ap;

	va_start(ap, types);
	q = vprepare(st, sql, types, ap);
	va_end(ap);
	return q;
}

bool
store_run(struct state *st, const char *sql, const char *types, ...)
{
	sqlite3_stmt *q;
	va_list ap;
	int rc;

	va_start(ap, types);
	q = vprepare(st, sql, types, ap);
	va_end(ap);
	if (q == NULL)
		return false;
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE;
}

bool
store_rows(sqlite3_stmt *q, void **out, size_t *n, size_t size,
    void (*read_row)(sqlite3_stmt *q, void *row))
{
	char *v = NULL;
	size_t cap = 0;
	int rc;

	*n = 0;
	*out = NULL;
	if (q == NULL)
		return false;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		v = xgrow(v, *n, &cap, size, 8);
		read_row(q, v + (*n)++ * size);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		free(v);
		v = NULL;
		*n = 0;
	}
	*out = v;
	return rc == SQLITE_DONE;
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

bool
store_has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *s;
	bool found;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
	    -1, &s, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return found;
}

static bool
has_column(sqlite3 *db, const char *table, const char *column)
{
	char sql[256];
	sqlite3_stmt *s;

	snprintf(sql, sizeof(sql), "SELECT %s FROM %s LIMIT 0", column, table);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return false;
	sqlite3_finalize(s);
	return true;
}

bool
store_add_columns(sqlite3 *db, const struct store_column *c)
{
	char sql[256];

	for (; c != NULL && c->table != NULL; c++) {
		if (has_column(db, c->table, c->name))
			continue;
		snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN %s %s", c->table, c->name,
		    c->decl);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
			return false;
	}
	return true;
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
	if (!store_run(st, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE "
	    "SET value = excluded.value", "tt", key, value))
		return state_fail(st, err, "cannot write meta");
	return GR_OK;
}

enum gr_err
state_journal_launch(struct state *st, const char *provider, const char *name,
    int64_t price_hour, int64_t now, int64_t *row, struct gr_error *err)
{
	sqlite3_stmt *s;
	enum gr_err e = GR_OK;
	int rc;

	/* Inside a transaction the record would be committed (and synced) only later. */
	if (st->depth > 0)
		return gr_fail(err, GR_ESTATE, "cannot journal a launch inside a transaction");
	if (sqlite3_prepare_v2(st->db, "INSERT INTO launch_journal(provider, price_hour, asked_ts, "
	    "name) VALUES(?, ?, ?, ?)", -1, &s, NULL) != SQLITE_OK)
		return state_fail(st, err, "cannot journal the launch");
	sqlite3_bind_text(s, 1, provider, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, price_hour);
	sqlite3_bind_int64(s, 3, now);
	sqlite3_bind_text(s, 4, name, -1, SQLITE_STATIC);
	/* FULL: this commit syncs the WAL (and its directory when new) before it returns. */
	sqlite3_exec(st->db, "PRAGMA synchronous=FULL", NULL, NULL, NULL);
	rc = sqlite3_step(s);
	/* Said before the pragma below, whose success would leave "not an error" to say. */
	if (rc != SQLITE_DONE)
		e = state_fail(st, err, "cannot journal the launch");
	else
		*row = sqlite3_last_insert_rowid(st->db);
	sqlite3_finalize(s);
	sqlite3_exec(st->db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
	return e;
}

enum gr_err
state_journal_settle(struct state *st, int64_t row, const char *instance_id,
    struct gr_error *err)
{
	if (!store_run(st, "UPDATE launch_journal SET settled = 1, instance_id = ? WHERE id = ?",
	    "tI", instance_id, row))
		return state_fail(st, err, "cannot settle the launch journal");
	return GR_OK;
}

void
state_journal_claim(struct state *st, const char *provider, const struct instance_list *l,
    size_t first)
{
	struct unsettled { int64_t row; char name[LABEL_MAX + 64]; } *v = NULL;
	size_t n = 0, cap = 0, i, k;
	sqlite3_stmt *q = store_prepare(st, "SELECT id, name FROM launch_journal WHERE "
	    "settled = 0 AND instance_id = '' AND name != '' AND provider = ? ORDER BY id", "t",
	    provider);

	while (q != NULL && sqlite3_step(q) == SQLITE_ROW) {
		struct unsettled *u = XPUSH(v, n, cap, 4);

		u->row = sqlite3_column_int64(q, 0);
		store_col_text(q, 1, u->name, sizeof(u->name));
	}
	sqlite3_finalize(q);
	/* Oldest launch first, each to one instance. */
	for (k = 0; k < n; k++)
		for (i = first; i < l->n; i++)
			if (strcmp(l->v[i].label, v[k].name) == 0 &&
			    !state_journal_has(st, l->v[i].id)) {
				(void)store_run(st, "UPDATE launch_journal SET settled = 1, "
				    "instance_id = ? WHERE id = ? AND settled = 0", "tI", l->v[i].id,
				    v[k].row);
				break;
			}
	free(v);
}

bool
state_journal_has(struct state *st, const char *instance_id)
{
	sqlite3_stmt *q = store_prepare(st, "SELECT 1 FROM launch_journal WHERE instance_id = ? "
	    "LIMIT 1", "t", instance_id);
	bool found;

	if (q == NULL)
		return false;
	found = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return found;
}
