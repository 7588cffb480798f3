/*
 * store_int.h - the store's own face: the SQLite handle and the helpers its files share.
 *
 * Only src/store/ (and the simulator's world in src/sim/, whose tables are its own) include
 * this; every other file holds a struct state * and calls the functions of the public
 * headers (scripts/check-layers enforces it), so a second driver could sit behind them.
 */
#ifndef GPURENT_STORE_INT_H
#define GPURENT_STORE_INT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpurent/error.h"
#include "gpurent/state.h"

sqlite3 *state_db(struct state *st);

/* Column c of q's row as text into dst (n bytes); NULL reads as "". */
void store_col_text(sqlite3_stmt *q, int c, char *dst, size_t n);

/*
 * The first column of each of sql's rows (at most max), as text, to fn; arg, when not NULL,
 * is bound to ?1. A missing table or a failed read just ends the list: for completion.
 */
void store_each_text(struct state *st, const char *sql, const int64_t *arg, size_t max,
    void (*fn)(const char *text, void *ctx), void *ctx);

#endif
