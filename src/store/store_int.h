/*
 * store_int.h - the store's own face: the database handle (db.h: SQLite or PostgreSQL) and
 * the helpers its files share.
 *
 * Only src/store/ (and the simulator's world in src/sim/, whose tables are its own) include
 * this; every other file holds a struct state * and calls the functions of the public
 * headers (scripts/check-layers enforces it), so a second driver could sit behind them.
 */
#ifndef GPURENT_STORE_INT_H
#define GPURENT_STORE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpurent/error.h"
#include "gpurent/state.h"
#include "db.h"

struct db *state_db(struct state *st);

/*
 * A state whose handle open (state_open, schema.c's) makes on a thread of its own: *out at
 * once, its first use waiting for it (state_open_begin). Where no thread can start, open
 * runs here.
 */
typedef enum gr_err store_open_fn(struct state **out, const char *path, struct gr_error *err);
enum gr_err store_open_async(struct state **out, const char *path, store_open_fn *open,
    struct gr_error *err);

/* Column c of q's row as text into dst (n bytes); NULL reads as "". */
void store_col_text(struct db_stmt *q, int c, char *dst, size_t n);
/*
 * The columns of q's row, from the first, into the arguments, one per letter of types, as
 * store_prepare binds them: 't' text into (char *, size_t n) as store_col_text reads it,
 * 'i' int *, 'I' int64_t *, '-' none: a column the caller reads itself (an enum, a flag).
 */
void store_cols(struct db_stmt *q, const char *types, ...);

/*
 * sql prepared, with its parameters bound from the arguments, one per letter of types:
 * 't' text (const char *, NULL binds NULL), 'i' int, 'I' int64_t, 'd' double, 'b' blob
 * (const void *, size_t). NULL when sql does not prepare (state_fail says why).
 */
struct db_stmt *store_prepare(struct state *st, const char *sql, const char *types, ...);
/* store_prepare, one step and finalize: true when the statement ran to its end. */
bool store_run(struct state *st, const char *sql, const char *types, ...);

/*
 * Each row of q (prepared and bound by store_prepare) read by read_row into a new zeroed
 * element of *out (size bytes each), *n of them; q is finalized. False on an SQL error,
 * q NULL (it did not prepare) included, with *out freed and NULL, *n 0.
 */
bool store_rows(struct db_stmt *q, void **out, size_t *n, size_t size,
    void (*read_row)(struct db_stmt *q, void *row));

/*
 * The first column of each of sql's rows (at most max), as text, to fn; arg, when not NULL,
 * is bound to ?1. A missing table or a failed read just ends the list: for completion.
 */
void store_each_text(struct state *st, const char *sql, const int64_t *arg, size_t max,
    void (*fn)(const char *text, void *ctx), void *ctx);

/* A column that came after its table: added where the table lacks it. */
struct store_column {
	const char *table, *name, *decl;
};
/* Each of c (up to one with a NULL table) added where missing; false on an SQL error. */
bool store_add_columns(struct db *db, const struct store_column *c);
bool store_has_table(struct db *db, const char *name);

/* The file opened, without the schema: state_open's first half (schema.c the second). */
enum gr_err state_connect(struct state **out, const char *path, struct gr_error *err);

/* The steps of a PostgreSQL database's schema (schema_pg.c): SQL, or a function for what
 * SQL text cannot say. */
struct pg_step {
	const char *sql;
	bool (*run)(struct state *st);
};
extern const struct pg_step pg_steps[];
extern const size_t pg_steps_n;
/* DDL written for SQLite (a table made from fields, as the history's are) run on db: on
 * PostgreSQL with its types (BIGINT, DOUBLE PRECISION, BYTEA, an identity column for
 * INTEGER PRIMARY KEY) and without WITHOUT ROWID. False on an SQL error. */
bool store_ddl(struct db *db, const char *sql);

/* Issue 31's leases (lease.c): managed_lease's rows moved into leases, with a since and
 * their times in ms, and lease_standbys; SQL that both drivers run as it is. */
extern const char lease_tables[];

/* samples_hour's and samples_gpu_hour's rows of hours [h0, h1) made again from the minute
 * rows (history.c), inside the caller's transaction: after minutes came from elsewhere. */
bool history_rollups_remake(struct state *st, int64_t h0, int64_t h1);
/* The sample history's part of the schema (history.c): its tables, made from the fields
 * of a sample, and their roll-ups filled from the minute rows where missing. */
bool history_schema(struct state *st);
/* The SQL functions the history's statements use, made on each connection. */
bool history_functions(struct db *db);
/*
 * The series samples_summary reads with each statement (history.c): a statement per series
 * was a round trip each on PostgreSQL (1,000 instances of 3,710 GPUs: some 13,000 per
 * summary); batches of 200 left some 90, a fifth of the dashboard's costs lane.
 */
#define SAMPLES_SUMMARY_BATCH 1000

#endif
