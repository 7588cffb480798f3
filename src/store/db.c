/*
 * db.c - the store's driver face (db.h): each call handed to SQLite, or to the PostgreSQL
 * driver (pg.c) for a handle opened on a URL.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/util.h"
#include "db.h"
#include "pg.h"

struct db {
	sqlite3 *lite;	/* one of the two, */
	struct pg *pg;
	char *unopened;	/* or neither: why it could not be opened (db_unopened) */
};

struct db_stmt {
	sqlite3_stmt *lite;	/* one of the two */
	struct pg_stmt *pg;
	/* A blob read from pg, for db_column_bytes after db_column_blob. */
	int blob_bytes;
};

bool
db_is_url(const char *target)
{
	return strncmp(target, "postgresql://", 13) == 0 || strncmp(target, "postgres://", 11) == 0;
}

enum gr_err
db_open(struct db **out, const char *target, struct gr_error *err)
{
	struct db *db = xcalloc(1, sizeof(*db));
	int rc;

	if (db_is_url(target)) {
		if (pg_open(&db->pg, target, err) != GR_OK) {
			free(db);
			return err->code;
		}
		*out = db;
		return GR_OK;
	}
	rc = sqlite3_open_v2(target, &db->lite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		gr_fail(err, GR_ESTATE, "cannot open database '%s': %s", target,
		    db->lite ? sqlite3_errmsg(db->lite) : sqlite3_errstr(rc));
		db_close(db);
		return GR_ESTATE;
	}
	*out = db;
	return GR_OK;
}

struct db *
db_unopened(const char *why)
{
	struct db *db = xcalloc(1, sizeof(*db));

	db->unopened = xstrdup(why);
	return db;
}

void
db_close(struct db *db)
{
	if (db == NULL)
		return;
	if (db->pg != NULL)
		pg_close(db->pg);
	else
		sqlite3_close(db->lite);
	free(db->unopened);
	free(db);
}

enum db_kind
db_kind(const struct db *db)
{
	return db->lite != NULL ? DB_SQLITE : DB_POSTGRESQL;
}

sqlite3 *
db_sqlite(struct db *db)
{
	return db->lite;
}

int
db_prepare_v2(struct db *db, const char *sql, int n, struct db_stmt **q, const char **tail)
{
	struct db_stmt *s;
	int rc;

	*q = NULL;
	if (n != -1)
		abort();	/* the store's calls never ask for this: a bug */
	if (db->unopened != NULL)
		return DB_ERROR;
	s = xcalloc(1, sizeof(*s));
	if (db->pg != NULL)
		rc = pg_prepare(db->pg, sql, &s->pg, tail);
	else
		rc = sqlite3_prepare_v2(db->lite, sql, -1, &s->lite, tail);
	if (rc != DB_OK || (s->lite == NULL && s->pg == NULL)) {
		free(s);
		return rc;
	}
	*q = s;
	return DB_OK;
}

int
db_bind_int(struct db_stmt *q, int k, int v)
{
	return db_bind_int64(q, k, v);
}

int
db_bind_int64(struct db_stmt *q, int k, int64_t v)
{
	char buf[24];

	if (q->lite != NULL)
		return sqlite3_bind_int64(q->lite, k, v);
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return pg_bind(q->pg, k, buf, -1, PG_UNKNOWN, PG_FMT_TEXT);
}

int
db_bind_double(struct db_stmt *q, int k, double v)
{
	char buf[32];

	if (q->lite != NULL)
		return sqlite3_bind_double(q->lite, k, v);
	snprintf(buf, sizeof(buf), "%.17g", v);
	return pg_bind(q->pg, k, buf, -1, PG_UNKNOWN, PG_FMT_TEXT);
}

int
db_bind_text(struct db_stmt *q, int k, const char *v, int n, void (*del)(void *))
{
	if (q->lite != NULL)
		return sqlite3_bind_text(q->lite, k, v, n, del);
	return pg_bind(q->pg, k, v, n, PG_TEXT, PG_FMT_TEXT);
}

int
db_bind_blob(struct db_stmt *q, int k, const void *v, int n, void (*del)(void *))
{
	if (q->lite != NULL)
		return sqlite3_bind_blob(q->lite, k, v, n, del);
	/* A NULL blob binds NULL, as in SQLite; an empty one is an empty bytea. */
	return pg_bind(q->pg, k, v == NULL ? NULL : n == 0 ? "" : v, n, PG_BYTEA, PG_FMT_BINARY);
}

int
db_bind_null(struct db_stmt *q, int k)
{
	if (q->lite != NULL)
		return sqlite3_bind_null(q->lite, k);
	return pg_bind(q->pg, k, NULL, 0, PG_UNKNOWN, PG_FMT_TEXT);
}

int
db_bind_parameter_count(struct db_stmt *q)
{
	return q->lite != NULL ? sqlite3_bind_parameter_count(q->lite) :
	    pg_bind_parameter_count(q->pg);
}

int
db_step(struct db_stmt *q)
{
	return q->lite != NULL ? sqlite3_step(q->lite) : pg_step(q->pg);
}

int
db_reset(struct db_stmt *q)
{
	if (q->lite != NULL)
		return sqlite3_reset(q->lite);
	pg_reset(q->pg);
	return DB_OK;
}

int
db_finalize(struct db_stmt *q)
{
	int rc = DB_OK;

	if (q == NULL)
		return DB_OK;
	if (q->lite != NULL)
		rc = sqlite3_finalize(q->lite);
	else
		pg_finalize(q->pg);
	free(q);
	return rc;
}

int
db_column_type(struct db_stmt *q, int c)
{
	return q->lite != NULL ? sqlite3_column_type(q->lite, c) : pg_column_type(q->pg, c);
}

int
db_column_int(struct db_stmt *q, int c)
{
	return (int)db_column_int64(q, c);
}

int64_t
db_column_int64(struct db_stmt *q, int c)
{
	const char *t;

	if (q->lite != NULL)
		return sqlite3_column_int64(q->lite, c);
	t = pg_column_text(q->pg, c);
	if (t == NULL)
		return 0;
	if (t[0] == 't' || t[0] == 'f')	/* a boolean */
		return t[0] == 't';
	return strtoll(t, NULL, 10);
}

double
db_column_double(struct db_stmt *q, int c)
{
	const char *t;

	if (q->lite != NULL)
		return sqlite3_column_double(q->lite, c);
	t = pg_column_text(q->pg, c);
	return t != NULL ? strtod(t, NULL) : 0.0;
}

const unsigned char *
db_column_text(struct db_stmt *q, int c)
{
	if (q->lite != NULL)
		return sqlite3_column_text(q->lite, c);
	return (const unsigned char *)pg_column_text(q->pg, c);
}

const void *
db_column_blob(struct db_stmt *q, int c)
{
	if (q->lite != NULL)
		return sqlite3_column_blob(q->lite, c);
	return pg_column_blob(q->pg, c, &q->blob_bytes);
}

int
db_column_bytes(struct db_stmt *q, int c)
{
	const char *t;

	if (q->lite != NULL)
		return sqlite3_column_bytes(q->lite, c);
	if (pg_column_type(q->pg, c) == DB_BLOB) {
		pg_column_blob(q->pg, c, &q->blob_bytes);
		return q->blob_bytes;
	}
	t = pg_column_text(q->pg, c);
	return t != NULL ? (int)strlen(t) : 0;
}

int
db_exec(struct db *db, const char *sql, int (*cb)(void *, int, char **, char **), void *arg,
    char **msg)
{
	int rc;

	if (db->lite != NULL)
		return sqlite3_exec(db->lite, sql, cb, arg, msg);
	if (db->unopened != NULL) {
		if (msg != NULL)
			*msg = sqlite3_mprintf("%s", db->unopened);
		return DB_ERROR;
	}
	if (cb != NULL)
		abort();	/* the store's calls never pass one: a bug */
	rc = pg_exec(db->pg, sql);
	if (msg != NULL)
		*msg = rc == DB_OK ? NULL : sqlite3_mprintf("%s", pg_errmsg(db->pg));
	return rc;
}

void
db_free(void *p)
{
	/* What db_exec gave: SQLite's allocation on either driver. */
	sqlite3_free(p);
}

int
db_changes(struct db *db)
{
	return db->lite != NULL ? sqlite3_changes(db->lite) : db->pg != NULL ?
	    pg_changes(db->pg) : 0;
}

int64_t
db_last_insert_rowid(struct db *db)
{
	return db->lite != NULL ? sqlite3_last_insert_rowid(db->lite) : db->pg != NULL ?
	    pg_last_insert_rowid(db->pg) : 0;
}

const char *
db_errmsg(struct db *db)
{
	return db->lite != NULL ? sqlite3_errmsg(db->lite) : db->pg != NULL ?
	    pg_errmsg(db->pg) : db->unopened;
}

int
db_errcode(struct db *db)
{
	return db->lite != NULL ? sqlite3_errcode(db->lite) : db->pg != NULL ?
	    pg_errcode(db->pg) : DB_ERROR;
}

int
db_get_autocommit(struct db *db)
{
	return db->lite != NULL ? sqlite3_get_autocommit(db->lite) : db->pg != NULL ?
	    pg_autocommit(db->pg) : 1;
}
