/*
 * db.h - the store's driver face: one set of calls over SQLite (a file path) and PostgreSQL
 * (a postgresql:// URL, libpq), so that the store's files say their SQL once.
 *
 * The calls are SQLite's, renamed (sqlite3_x -> db_x, SQLITE_X -> DB_X, sqlite3 -> struct
 * db, sqlite3_stmt -> struct db_stmt), with the same arguments and results, so that a file
 * of the store moves to this face by a mechanical rename; on SQLite each call is the
 * sqlite3_ call it is named after. On PostgreSQL: `?` and `?N` placeholders are sent as $N;
 * a statement is run at its first db_step, its whole result fetched and then read row by
 * row; text parameters are sent as text, blobs as bytea, numbers and NULL untyped, as a
 * literal would be written (the server gives each the type its place in the statement
 * needs: a bigint column's, an integer argument's);
 * a column reads as DB_NULL, DB_INTEGER (integers, booleans, and numerics without a
 * fraction, such as a sum of bigints), DB_FLOAT, DB_BLOB (bytea) or DB_TEXT. A statement
 * that fails inside a transaction aborts that transaction, as PostgreSQL does.
 *
 * Only src/store/ includes this (and the simulator's world, for the SQLite handle it keeps
 * its own tables in).
 */
#ifndef GPURENT_STORE_DB_H
#define GPURENT_STORE_DB_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "gpurent/error.h"

struct db;
struct db_stmt;

/* Result codes and column types: SQLite's values, which the SQLite driver passes through. */
enum {
	DB_OK = SQLITE_OK, DB_ERROR = SQLITE_ERROR, DB_BUSY = SQLITE_BUSY,
	DB_LOCKED = SQLITE_LOCKED, DB_ROW = SQLITE_ROW, DB_DONE = SQLITE_DONE,
};
enum {
	DB_INTEGER = SQLITE_INTEGER, DB_FLOAT = SQLITE_FLOAT, DB_TEXT = SQLITE_TEXT,
	DB_BLOB = SQLITE_BLOB, DB_NULL = SQLITE_NULL,
};
/* A bound text or blob's lifetime, as SQLite's: PostgreSQL always copies it. */
#define DB_STATIC SQLITE_STATIC
#define DB_TRANSIENT SQLITE_TRANSIENT

enum db_kind { DB_SQLITE, DB_POSTGRESQL };

/* Whether target is a PostgreSQL URL (postgresql:// or postgres://), not a file path. */
bool db_is_url(const char *target);

/*
 * Open target: a PostgreSQL URL, else the SQLite file at that path (created). A URL that
 * carries a password is refused: libpq reads it from ~/.pgpass (PGPASSFILE) or a service
 * file instead, so that it is never in argv or a config file in clear.
 */
enum gr_err db_open(struct db **out, const char *target, struct gr_error *err);
/* A handle that stands for a database that could not be opened: every statement on it
 * fails, and db_errmsg says why. */
struct db *db_unopened(const char *why);
void db_close(struct db *db);
enum db_kind db_kind(const struct db *db);
/* The SQLite handle underneath (NULL on PostgreSQL): for what only SQLite has. */
sqlite3 *db_sqlite(struct db *db);

/* sql is read to its end (n -1): its first statement, the rest at *tail when tail is not
 * NULL (*q NULL where only blanks were left), as SQLite does. */
int db_prepare_v2(struct db *db, const char *sql, int n, struct db_stmt **q, const char **tail);
int db_bind_int(struct db_stmt *q, int k, int v);
int db_bind_int64(struct db_stmt *q, int k, int64_t v);
int db_bind_double(struct db_stmt *q, int k, double v);
int db_bind_text(struct db_stmt *q, int k, const char *v, int n, void (*del)(void *));
int db_bind_blob(struct db_stmt *q, int k, const void *v, int n, void (*del)(void *));
int db_bind_null(struct db_stmt *q, int k);
int db_bind_parameter_count(struct db_stmt *q);
int db_step(struct db_stmt *q);
int db_reset(struct db_stmt *q);
int db_finalize(struct db_stmt *q);
int db_column_type(struct db_stmt *q, int c);
int db_column_int(struct db_stmt *q, int c);
int64_t db_column_int64(struct db_stmt *q, int c);
double db_column_double(struct db_stmt *q, int c);
const unsigned char *db_column_text(struct db_stmt *q, int c);
const void *db_column_blob(struct db_stmt *q, int c);
int db_column_bytes(struct db_stmt *q, int c);

/* Statements without parameters, several at once; cb must be NULL. *msg (when asked for)
 * is the error, freed with db_free. */
int db_exec(struct db *db, const char *sql, int (*cb)(void *, int, char **, char **),
    void *arg, char **msg);
void db_free(void *p);
int db_changes(struct db *db);
/* The id the last insert gave its row: on PostgreSQL, the last value of a sequence this
 * connection took (an identity column's), 0 when none was. */
int64_t db_last_insert_rowid(struct db *db);
const char *db_errmsg(struct db *db);
int db_errcode(struct db *db);
/* No transaction open. */
int db_get_autocommit(struct db *db);

#endif
