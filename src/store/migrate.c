/*
 * migrate.c - a personal SQLite state database copied into a team's PostgreSQL one
 * (`gpurent state migrate`; state.h), in one transaction of the target's.
 *
 * The tables are those of the target's schema (schema_pg.c) that the source has too: the
 * store's own, every one of them, and neither the simulator's world (only in the file) nor
 * schema_version (only on the server). Each is copied row for row, column by column by
 * name, with its ids kept (an identity column's sequence then moved past them) and the
 * target's triggers off, so that the totals they keep (ledger_closed, ledger_day) arrive as
 * the source has them instead of being added a second time by the ledger's rows.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/util.h"
#include "store_int.h"

/* Placeholders in one insert: rows are sent in batches of about this many values. */
#define BATCH_VALUES 1000

struct column {
	char name[64];
	bool identity, bytea;
};

static void
read_copied(struct db_stmt *q, void *row)
{
	struct state_copied *t = row;

	store_col_text(q, 0, t->table, sizeof(t->table));
}

static void
read_column(struct db_stmt *q, void *row)
{
	struct column *c = row;
	char type[32];

	store_col_text(q, 0, c->name, sizeof(c->name));
	c->identity = db_column_int(q, 1) == 1;
	store_col_text(q, 2, type, sizeof(type));
	c->bytea = strcmp(type, "bytea") == 0;
}

/* The tables to copy (rows 0): the target's that the source also has. */
static bool
tables_of(struct state *from, struct state *to, struct state_copied **out, size_t *n)
{
	size_t i, k = 0;

	if (!store_rows(store_prepare(to, "SELECT table_name FROM information_schema.tables "
	    "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' "
	    "ORDER BY table_name", ""), (void **)out, n, sizeof(**out), read_copied))
		return false;
	for (i = 0; i < *n; i++)
		if (store_has_table(state_db(from), (*out)[i].table))
			(*out)[k++] = (*out)[i];
	*n = k;
	return true;
}

/* How many rows table has, -1 when they cannot be counted. */
static int64_t
count_in(struct state *st, const char *table)
{
	char *sql = xasprintf("SELECT count(*) FROM \"%s\"", table);
	struct db_stmt *q = store_prepare(st, sql, "");
	int64_t v = q != NULL && db_step(q) == DB_ROW ? db_column_int64(q, 0) : -1;

	db_finalize(q);
	free(sql);
	return v;
}

/* Each table of v with its triggers switched by how ("ENABLE" or "DISABLE"), or emptied
 * (how NULL). */
static bool
each_table(struct state *to, const struct state_copied *v, size_t n, const char *how)
{
	size_t i;
	bool ok = true;

	for (i = 0; ok && i < n; i++) {
		char *sql = how != NULL ? xasprintf("ALTER TABLE \"%s\" %s TRIGGER USER", v[i].table,
		    how) : xasprintf("DELETE FROM \"%s\"", v[i].table);

		ok = store_run(to, sql, "");
		free(sql);
	}
	return ok;
}

/* An insert of rows rows of cols into table. */
static struct db_stmt *
insert_of(struct state *to, const char *table, const struct column *cols, size_t ncols,
    size_t rows)
{
	struct db_stmt *q;
	struct sb sql;
	size_t r, c;

	sb_init(&sql);
	sb_addf(&sql, "INSERT INTO \"%s\"(", table);
	for (c = 0; c < ncols; c++)
		sb_addf(&sql, c == 0 ? "\"%s\"" : ", \"%s\"", cols[c].name);
	sb_adds(&sql, ") VALUES");
	for (r = 0; r < rows; r++) {
		sb_adds(&sql, r == 0 ? "(" : ", (");
		for (c = 0; c < ncols; c++)
			sb_adds(&sql, c == 0 ? "?" : ", ?");
		sb_addc(&sql, ')');
	}
	q = store_prepare(to, sql.buf, "");
	sb_release(&sql);
	return q;
}

/* Column c of the source's row bound to k of the insert, as the type it has there; a
 * BYTEA column's value as bytes whatever SQLite holds it as. */
static void
bind_value(struct db_stmt *ins, int k, struct db_stmt *row, int c, const struct column *col)
{
	int type = db_column_type(row, c);
	int len = db_column_bytes(row, c);

	if (type == DB_NULL)
		db_bind_null(ins, k);
	else if (col->bytea || type == DB_BLOB) {
		const void *p = db_column_blob(row, c);

		/* An empty blob reads as NULL, which would bind NULL: bytes of none instead. */
		db_bind_blob(ins, k, p != NULL ? p : "", len, DB_TRANSIENT);
	} else if (type == DB_INTEGER)
		db_bind_int64(ins, k, db_column_int64(row, c));
	else if (type == DB_FLOAT)
		db_bind_double(ins, k, db_column_double(row, c));
	else
		db_bind_text(ins, k, (const char *)db_column_text(row, c), len, DB_TRANSIENT);
}

/* Every row of table from the source into the target; *rows how many. */
static bool
copy_table(struct state *from, struct state *to, const char *table, int64_t *rows,
    struct gr_error *err)
{
	struct column *cols = NULL;
	struct db_stmt *sel = NULL, *ins = NULL;
	struct sb sql;
	size_t ncols = 0, c, batch, in_ins = 0, filled = 0;
	int64_t total, done = 0;
	bool ok = false;

	*rows = 0;
	if (!store_rows(store_prepare(to, "SELECT column_name, CASE is_identity WHEN 'YES' "
	    "THEN 1 ELSE 0 END, data_type FROM information_schema.columns WHERE table_schema = "
	    "current_schema() AND table_name = ? ORDER BY ordinal_position", "t", table),
	    (void **)&cols, &ncols, sizeof(*cols), read_column) || ncols == 0) {
		state_fail(to, err, "cannot read the target's columns");
		free(cols);
		return false;
	}
	batch = BATCH_VALUES / ncols > 0 ? BATCH_VALUES / ncols : 1;
	sb_init(&sql);
	sb_adds(&sql, "SELECT ");
	for (c = 0; c < ncols; c++)
		sb_addf(&sql, c == 0 ? "\"%s\"" : ", \"%s\"", cols[c].name);
	sb_addf(&sql, " FROM \"%s\"", table);
	total = count_in(from, table);
	if (total < 0 || (sel = store_prepare(from, sql.buf, "")) == NULL) {
		state_fail(from, err, "cannot read the source's rows");
		goto out;
	}
	while (done < total && db_step(sel) == DB_ROW) {
		if (filled == 0) {
			size_t want = (size_t)(total - done) < batch ? (size_t)(total - done) : batch;

			if (ins == NULL || in_ins != want) {
				db_finalize(ins);
				if ((ins = insert_of(to, table, cols, ncols, want)) == NULL)
					goto target_failed;
				in_ins = want;
			}
		}
		for (c = 0; c < ncols; c++)
			bind_value(ins, (int)(filled * ncols + c + 1), sel, (int)c, &cols[c]);
		done++;
		if (++filled < in_ins)
			continue;
		if (db_step(ins) != DB_DONE)
			goto target_failed;
		db_reset(ins);
		filled = 0;
	}
	if (done != total) {
		state_fail(from, err, "cannot read the source's rows");
		goto out;
	}
	/* An identity's next value past the ids copied (an empty table's max is NULL, which
	 * setval leaves alone). */
	for (c = 0; c < ncols; c++) {
		struct db_stmt *q;
		char *next;
		bool set;

		if (!cols[c].identity)
			continue;
		next = xasprintf("SELECT setval(pg_get_serial_sequence(?, ?), max(\"%s\")) FROM "
		    "\"%s\"", cols[c].name, table);
		q = store_prepare(to, next, "tt", table, cols[c].name);
		set = q != NULL && db_step(q) == DB_ROW;
		db_finalize(q);
		free(next);
		if (!set)
			goto target_failed;
	}
	*rows = done;
	ok = true;
	goto out;
target_failed:
	state_fail(to, err, "cannot copy into the target");
out:
	db_finalize(sel);
	db_finalize(ins);
	sb_release(&sql);
	free(cols);
	return ok;
}

enum gr_err
state_migrate(struct state *from, struct state *to, bool replace, struct state_copied **out,
    size_t *n, struct gr_error *err)
{
	struct state_copied *v = NULL;
	struct sb held;
	size_t nv = 0, i;
	bool started = false;

	*out = NULL;
	*n = 0;
	if (state_is_postgresql(from) || !state_is_postgresql(to))
		return gr_fail(err, GR_EUSAGE, "state migrate copies an SQLite file into a "
		    "PostgreSQL database");
	if (state_snapshot_begin(from, &started, err) != GR_OK)
		return err->code;
	if (state_begin(to, err) != GR_OK) {
		state_snapshot_end(from, started);
		return err->code;
	}
	if (!tables_of(from, to, &v, &nv)) {
		state_fail(to, err, "cannot list the target's tables");
		goto fail;
	}
	/* What the target holds already, counted under the writer lock state_begin took. */
	sb_init(&held);
	for (i = 0; i < nv; i++) {
		int64_t k = count_in(to, v[i].table);

		if (k < 0) {
			sb_release(&held);
			state_fail(to, err, "cannot count the target's rows");
			goto fail;
		}
		if (k > 0)
			sb_addf(&held, "%s%s: %lld", held.len > 0 ? ", " : "", v[i].table,
			    (long long)k);
	}
	if (held.len > 0 && !replace) {
		gr_fail(err, GR_ECONFLICT, "the database '%s' already holds gpurent's state (%s): "
		    "state migrate copies into an empty one; --replace empties it first",
		    state_path(to), held.buf);
		sb_release(&held);
		goto fail;
	}
	sb_release(&held);
	if (!each_table(to, v, nv, "DISABLE") || (replace && !each_table(to, v, nv, NULL))) {
		state_fail(to, err, "cannot prepare the target's tables");
		goto fail;
	}
	for (i = 0; i < nv; i++)
		if (!copy_table(from, to, v[i].table, &v[i].rows, err))
			goto fail;
	if (!each_table(to, v, nv, "ENABLE")) {
		state_fail(to, err, "cannot prepare the target's tables");
		goto fail;
	}
	if (state_commit(to, err) != GR_OK)
		goto fail;
	/*
	 * A bulk load leaves the planner no statistics until autovacuum gathers them, perhaps
	 * minutes later, and without them PostgreSQL read a year's ledger whole for one burn
	 * (bench/team-store.sh: 528 ms, 5 ms after). Gathered now; a failure only costs time.
	 */
	(void)store_run(to, "ANALYZE", "");
	state_snapshot_end(from, started);
	*out = v;
	*n = nv;
	return GR_OK;
fail:
	state_rollback(to);
	state_snapshot_end(from, started);
	free(v);
	return err->code;
}
