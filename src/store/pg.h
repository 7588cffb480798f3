/*
 * pg.h - db.h's PostgreSQL driver (pg.c, libpq): the calls db.c hands a PostgreSQL handle or
 * statement, each with db.h's meaning (see there for how PostgreSQL is mapped).
 */
#ifndef GPURENT_STORE_PG_H
#define GPURENT_STORE_PG_H

#include <stdint.h>

#include "db.h"

struct pg;
struct pg_stmt;

enum gr_err pg_open(struct pg **out, const char *url, struct gr_error *err);
void pg_close(struct pg *pg);
int pg_prepare(struct pg *pg, const char *sql, struct pg_stmt **q, const char **tail);
int pg_bind(struct pg_stmt *q, int k, const void *v, int n, unsigned type, int format);
int pg_bind_parameter_count(struct pg_stmt *q);
int pg_step(struct pg_stmt *q);
void pg_reset(struct pg_stmt *q);
void pg_finalize(struct pg_stmt *q);
int pg_column_type(struct pg_stmt *q, int c);
const char *pg_column_text(struct pg_stmt *q, int c);
const void *pg_column_blob(struct pg_stmt *q, int c, int *n);
int pg_exec(struct pg *pg, const char *sql);
int pg_changes(struct pg *pg);
int64_t pg_last_insert_rowid(struct pg *pg);
const char *pg_errmsg(struct pg *pg);
int pg_errcode(struct pg *pg);
int pg_autocommit(struct pg *pg);

/* Parameter types (PostgreSQL's type oids) and formats pg_bind takes. */
enum { PG_UNKNOWN = 0, PG_BYTEA = 17, PG_TEXT = 25 };
enum { PG_FMT_TEXT = 0, PG_FMT_BINARY = 1 };

#endif
