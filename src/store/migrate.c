/*
 * migrate.c - a personal SQLite state database copied into a team's PostgreSQL one
 * (`gpurent state migrate`; state.h), in one transaction of the target's.
 *
 * The tables are those of the target's schema (schema_pg.c) that the source has too: the
 * store's own, every one of them, and neither the simulator's world (only in the file) nor
 * schema_version (only on the server).
 *
 * Into an empty target (or one --replace emptied) each is copied row for row, column by
 * column by name, with its ids kept (an identity column's sequence then moved past them)
 * and the target's triggers off, so that the totals they keep (ledger_closed, ledger_day)
 * arrive as the source has them instead of being added a second time by the ledger's rows.
 *
 * A merge (--merge) goes into a target that holds other people's rows, and changes none of
 * them (but for the who of a ledger row that has none, below). Each source table is first copied as it is into a temporary table of the
 * transaction's (merge_<table>), and from there into the target:
 *  - a row with an identity id (the launch journal, events) is there already when a target
 *    row equals it in every column but the id, who and team; otherwise it is added, with a
 *    new id;
 *  - a row with a key (jobs, groups, durable meta keys, sample series by instance and GPU)
 *    is there already when the target's row of that key equals it, kept (the target's, not
 *    overwritten) when it differs, and added when the key is new;
 *  - a managed job is a row of an identity too (each file numbers its jobs m1, m2...): the
 *    target's job of the same spec and creation is there already, or kept where it differs
 *    since; another takes the target's next seq and id, and its attempts and its
 *    controller's events follow it;
 *  - the caches, the leases and a process's memory in meta are not merged (not_merged,
 *    durable_meta);
 *  - a sample series takes the target's id where it has one, and its samples follow it; a
 *    GPU's raw sample or minute row is there already when the target measured that GPU in
 *    that minute (either way), as two watchers of one account measure the same GPUs; the
 *    hourly roll-ups are then made again from the minutes (history.c);
 *  - a ledger segment bills only time outside the target's view of its instance: two
 *    people on one account both record every instance they see. The target's view runs
 *    from the start of its first segment of the instance to the end of its last (on, while
 *    one is open; compute, storage and reservations, terms apart), and inside it the
 *    target's record stands, its gaps too (times it saw the instance bill nothing). A
 *    segment wholly before or after it is copied; one that begins before it is cut to the
 *    time before (trimmed), and what it says about the time inside, or past the end the
 *    target saw (an open segment of a view that stopped looking), is there already. A term
 *    is there already when the target has one of the instance from the same start
 *    (ledger_add_term's rule). The target's triggers add what is copied to its totals.
 *    Where two views disagree, the one in the target first stands: an instance's end seen
 *    a minute later by the second person does not add that minute.
 * Merging into an empty target gives the same figures as a plain copy, and merging the same
 * file again copies nothing.
 *
 * Rows that say no who (written before there was one) take the migrating person's, and
 * their team where they have none; a ledger row takes its instance's latest launch's, as
 * the ledger's own inserts do (ledger.c), else stays unknown: the person who saw an instance
 * is not the one who rented it. So the target's own ledger rows of an instance whose launch
 * the merge brings in, seen by someone else and of no who so far, take the launch's who.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/ledger.h"
#include "gpurent/util.h"
#include "store_int.h"

/* Placeholders in one insert: rows are sent in batches of about this many values. */
#define BATCH_VALUES 1000

struct column {
	char name[64];
	bool identity, bytea, nullable;
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
	c->nullable = db_column_int(q, 3) == 1;
}

/* The target's columns of table, in their order; false (and *cols NULL) on failure. */
static bool
columns_of(struct state *to, const char *table, struct column **cols, size_t *n)
{
	return store_rows(store_prepare(to, "SELECT column_name, CASE is_identity WHEN 'YES' "
	    "THEN 1 ELSE 0 END, data_type, CASE is_nullable WHEN 'YES' THEN 1 ELSE 0 END FROM "
	    "information_schema.columns WHERE table_schema = current_schema() AND table_name = ? "
	    "ORDER BY ordinal_position", "t", table), (void **)cols, n, sizeof(**cols),
	    read_column) && *n > 0;
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

/* Every row of table from the source into the target's table into (table itself, or a
 * table of its columns); *rows how many. */
static bool
copy_table(struct state *from, struct state *to, const char *table, const char *into,
    int64_t *rows, struct gr_error *err)
{
	struct column *cols = NULL;
	struct db_stmt *sel = NULL, *ins = NULL;
	struct sb sql;
	size_t ncols = 0, c, batch, in_ins = 0, filled = 0;
	int64_t total, done = 0;
	bool ok = false;

	*rows = 0;
	if (!columns_of(to, table, &cols, &ncols)) {
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
				if ((ins = insert_of(to, into, cols, ncols, want)) == NULL)
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

		if (!cols[c].identity || strcmp(into, table) != 0)
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

/* The tables whose rows the target makes from others': the ledger's totals (its triggers)
 * and the samples' hourly roll-ups (made again from the minutes). */
static bool
derived(const char *table)
{
	static const char *const v[] = { "ledger_closed", "ledger_day", "samples_hour",
	    "samples_gpu_hour" };
	size_t i;

	for (i = 0; i < ARRAY_LEN(v); i++)
		if (strcmp(v[i], table) == 0)
			return true;
	return false;
}

/* Who and team, which say who caused a row, not what the row is. */
static bool
actor_column(const char *name)
{
	return strcmp(name, "who") == 0 || strcmp(name, "team") == 0;
}

/* A table's key where its primary key says less: a sample series is its instance and GPU
 * (its id an identity). */
static const struct natural_key {
	const char *table;
	const char *cols[2];
} natural_keys[] = {
	{ "sample_series", { "instance_id", "gpu" } },
};

/*
 * The tables a merge leaves out: the id cache (a person's completions, under a user the
 * file does not have: '' in a personal one) and the offer cache, caches that fill again;
 * the leases (the watcher's and managed jobs'), which only a running process holds.
 */
static bool
not_merged(const char *table)
{
	static const char *const v[] = { "idcache", "lease_standbys", "leases", "offer_cache" };
	size_t i;

	for (i = 0; i < ARRAY_LEN(v); i++)
		if (strcmp(v[i], table) == 0)
			return true;
	return false;
}

/*
 * The meta keys a merge copies, by prefix: what stays true (an instance's creation time, how
 * far its guard journal was read, the budgets). The rest is a process's memory, not merged:
 * launches in flight (named by the file's journal ids, which the merge renumbers), what the
 * watcher and groups have said already, when reconcile last ran, the offer cache's refresher,
 * the simulator's clock and notices.
 */
static const char durable_meta[] = "DELETE FROM merge_meta WHERE NOT (key LIKE 'created:%' OR "
    "key LIKE 'guard.seq:%' OR key LIKE 'person.budget.%' OR key LIKE 'team.budget.%')";

static void
read_name(struct db_stmt *q, void *row)
{
	store_col_text(q, 0, ((struct column *)row)->name, sizeof(((struct column *)row)->name));
}

/*
 * The columns by which a row of table is found in the target (*key, *nkey): the natural key,
 * else the primary key; none (*nkey 0) where the primary key is an identity, whose rows are
 * found by all their columns.
 */
static bool
key_of(struct state *to, const char *table, const struct column *cols, size_t ncols,
    struct column **key, size_t *nkey)
{
	size_t i, c;

	*key = NULL;
	*nkey = 0;
	for (i = 0; i < ARRAY_LEN(natural_keys); i++) {
		if (strcmp(natural_keys[i].table, table) != 0)
			continue;
		*key = xcalloc(ARRAY_LEN(natural_keys[i].cols), sizeof(**key));
		for (c = 0; c < ARRAY_LEN(natural_keys[i].cols) && natural_keys[i].cols[c]; c++)
			strlcpy_((*key)[(*nkey)++].name, natural_keys[i].cols[c], sizeof((*key)->name));
		return true;
	}
	if (!store_rows(store_prepare(to, "SELECT a.attname FROM pg_index i JOIN pg_attribute a "
	    "ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indisprimary AND "
	    "i.indrelid = to_regclass(?)", "t", table), (void **)key, nkey, sizeof(**key),
	    read_name))
		return false;
	for (i = 0; i < *nkey; i++)
		for (c = 0; c < ncols; c++)
			if (cols[c].identity && strcmp(cols[c].name, (*key)[i].name) == 0)
				*nkey = 0;
	return true;
}

/* The columns copied into the target (all but an identity), each as prefix."name". */
static void
add_list(struct sb *sql, const struct column *cols, size_t ncols, const char *prefix)
{
	size_t c;
	bool first = true;

	for (c = 0; c < ncols; c++) {
		if (cols[c].identity)
			continue;
		sb_addf(sql, "%s%s\"%s\"", first ? "" : ", ", prefix, cols[c].name);
		first = false;
	}
}

/* Whether column name of cols may be NULL (a key's column of another table: never). */
static bool
nullable(const struct column *cols, size_t ncols, const char *name)
{
	size_t c;

	for (c = 0; c < ncols; c++)
		if (strcmp(cols[c].name, name) == 0)
			return cols[c].nullable;
	return false;
}

/* t's row that is s's: by the key's columns, or (key NULL) by every column but an identity,
 * who and team, NULL equal to NULL. */
static void
add_match(struct sb *sql, const struct column *cols, size_t ncols, const struct column *key,
    size_t nkey)
{
	size_t c, k = 0;

	for (c = 0; c < (key != NULL ? nkey : ncols); c++) {
		const char *name = key != NULL ? key[c].name : cols[c].name;

		if (key == NULL && (cols[c].identity || actor_column(name)))
			continue;
		sb_addf(sql, nullable(cols, ncols, name) ? "%st.\"%s\" IS NOT DISTINCT FROM "
		    "s.\"%s\"" : "%st.\"%s\" = s.\"%s\"", k++ == 0 ? "" : " AND ", name, name);
	}
	if (k == 0)
		sb_adds(sql, "true");
}

/* A count of one row and column, -1 when it fails. */
static int64_t
count_of(struct state *to, const char *sql)
{
	struct db_stmt *q = store_prepare(to, sql, "");
	int64_t v = q != NULL && db_step(q) == DB_ROW ? db_column_int64(q, 0) : -1;

	db_finalize(q);
	return v;
}

/*
 * The rows of stage (table's copy of the source's) merged into table: those not found
 * (key_of) added; *t says how many were there already, kept, and added. also: SQL over
 * s (stage's row) that finds a row there already in another shape (NULL: none).
 */
static bool
merge_rows(struct state *to, const char *table, const char *stage, const char *also,
    struct state_copied *t)
{
	struct column *cols = NULL, *key = NULL;
	size_t ncols = 0, nkey = 0;
	struct sb sql;
	int64_t total, already;
	bool ok = false;

	if (!columns_of(to, table, &cols, &ncols) ||
	    !key_of(to, table, cols, ncols, &key, &nkey))
		goto out;
	sb_init(&sql);
	sb_addf(&sql, "SELECT count(*) FROM \"%s\"", stage);
	total = count_of(to, sql.buf);
	sb_reset(&sql);
	sb_addf(&sql, "SELECT count(*) FROM \"%s\" s WHERE EXISTS (SELECT 1 FROM \"%s\" t WHERE ",
	    stage, table);
	add_match(&sql, cols, ncols, NULL, 0);
	sb_addf(&sql, ")%s%s", also != NULL ? " OR " : "", also != NULL ? also : "");
	already = count_of(to, sql.buf);
	sb_reset(&sql);
	sb_addf(&sql, "INSERT INTO \"%s\"(", table);
	add_list(&sql, cols, ncols, "");
	sb_adds(&sql, ") SELECT ");
	add_list(&sql, cols, ncols, "s.");
	sb_addf(&sql, " FROM \"%s\" s WHERE NOT EXISTS (SELECT 1 FROM \"%s\" t WHERE ", stage,
	    table);
	add_match(&sql, cols, ncols, nkey > 0 ? key : NULL, nkey);
	sb_addf(&sql, ")%s%s%s", also != NULL ? " AND NOT (" : "", also != NULL ? also : "",
	    also != NULL ? ")" : "");
	/* In the source's order: the new ids keep it (events are listed by theirs). */
	if (ncols > 0 && cols[0].identity)
		sb_addf(&sql, " ORDER BY s.\"%s\"", cols[0].name);
	if (total >= 0 && already >= 0 && store_run(to, sql.buf, "")) {
		t->rows = db_changes(state_db(to));
		t->already = already;
		t->kept = total - already - t->rows;
		ok = true;
	}
	sb_release(&sql);
out:
	free(cols);
	free(key);
	return ok;
}

/* An open segment's end, for the windows: on for ever (INT64_MAX). */
#define OPEN_END "9223372036854775807"

/* How many staged ledger rows have fate f: 0 there already, 1 copied whole, 2 trimmed. */
static int64_t
fates(struct state *to, int f)
{
	struct db_stmt *q = store_prepare(to, "SELECT count(*) FROM merge_ledger WHERE fate = ?",
	    "i", f);
	int64_t v = q != NULL && db_step(q) == DB_ROW ? db_column_int64(q, 0) : -1;

	db_finalize(q);
	return v;
}

/*
 * The staged ledger merged into the target's by migrate.c's rule, for every instance at
 * once: each one's window in the target as it was (merge_window: first start, last end, on
 * where one is open; terms apart), then each staged segment's fate, then the copies.
 */
static bool
merge_ledger(struct state *to, struct state_copied *t)
{
	bool ok = store_run(to, "CREATE TEMPORARY TABLE merge_window ON COMMIT DROP AS SELECT "
	    "instance_id, provider, min(start_ts) AS first, max(CASE end_ts WHEN 0 THEN " OPEN_END
	    " ELSE end_ts END) AS last FROM ledger WHERE kind != ? AND instance_id IN (SELECT "
	    "instance_id FROM merge_ledger) GROUP BY instance_id, provider", "i", LEDGER_TERM) &&
	    store_run(to, "ALTER TABLE merge_ledger ADD COLUMN fate INTEGER NOT NULL DEFAULT 1",
	    "") &&
	    /* Inside the window: there already, or cut to the time before it. Copied whole:
	     * wholly before it (one that never ran: before its first moment), or from its end
	     * on (the instance billing again later). */
	    store_run(to, "UPDATE merge_ledger s SET fate = CASE WHEN s.start_ts >= w.first THEN 0 "
	    "ELSE 2 END FROM merge_window w WHERE w.instance_id = s.instance_id AND w.provider = "
	    "s.provider AND s.kind != ? AND NOT ((CASE s.end_ts WHEN 0 THEN " OPEN_END " ELSE "
	    "s.end_ts END <= w.first AND s.end_ts != s.start_ts) OR s.start_ts >= w.last OR "
	    "(s.end_ts = s.start_ts AND s.start_ts < w.first))", "i", LEDGER_TERM) &&
	    /* A term: there already where the target has one of the instance from its start. */
	    store_run(to, "UPDATE merge_ledger s SET fate = 0 WHERE s.kind = ?1 AND EXISTS (SELECT "
	    "1 FROM ledger x WHERE x.instance_id = s.instance_id AND x.provider = s.provider AND "
	    "x.kind = ?1 AND x.start_ts = s.start_ts)", "i", LEDGER_TERM);

	if (!ok || (t->already = fates(to, 0)) < 0 || (t->rows = fates(to, 1)) < 0 ||
	    (t->trimmed = fates(to, 2)) < 0)
		return false;
	/* The target's triggers add what is copied to its totals; ids in the source's order. */
	return store_run(to, "INSERT INTO ledger(instance_id, provider, label, gpu, kind, "
	    "rate_hour, start_ts, end_ts, gone, currency, who, team) SELECT s.instance_id, "
	    "s.provider, s.label, s.gpu, s.kind, s.rate_hour, s.start_ts, CASE s.fate WHEN 2 THEN "
	    "w.first ELSE s.end_ts END, CASE s.fate WHEN 2 THEN 0 ELSE s.gone END, s.currency, "
	    "s.who, s.team FROM merge_ledger s LEFT JOIN merge_window w ON w.instance_id = "
	    "s.instance_id AND w.provider = s.provider WHERE s.fate > 0 ORDER BY s.id", "") &&
	    /* A row that says no who learns it from its instance's launch the source brought. */
	    store_run(to, "UPDATE ledger l SET who = j.who, team = COALESCE(l.team, j.team) FROM "
	    "(SELECT DISTINCT ON (instance_id) instance_id, who, team FROM launch_journal WHERE "
	    "who IS NOT NULL AND instance_id IN (SELECT instance_id FROM merge_launch_journal) "
	    "ORDER BY instance_id, id DESC) j WHERE l.instance_id = j.instance_id AND l.who IS "
	    "NULL", "");
}

/*
 * The rows of rows (table itself in the target, or its staged copy) that say no who given
 * the migrating person's, and no team theirs where they have one; the ledger's take their
 * instance's latest launch's, from journal (the source's launches) or the target's journal.
 */
static bool
fill_actor(struct state *from, struct state *to, const char *table, const char *rows,
    const char *journal)
{
	static const char *const caused[] = { "events", "groups", "jobs", "launch_journal",
	    "managed_jobs" };
	const char *who = state_who(from), *team = state_team(from);
	char *sql;
	size_t i;
	bool ok = true;

	if (strcmp(table, "ledger") == 0) {
		for (i = 0; ok && i < 2; i++) {
			const char *c = i == 0 ? "who" : "team";

			sql = xasprintf("UPDATE \"%s\" l SET %s = COALESCE((SELECT j.%s FROM \"%s\" j "
			    "WHERE j.instance_id = l.instance_id ORDER BY j.id DESC LIMIT 1), (SELECT "
			    "j.%s FROM launch_journal j WHERE j.instance_id = l.instance_id ORDER BY "
			    "j.id DESC LIMIT 1)) WHERE %s IS NULL", rows, c, c, journal, c, c);
			ok = store_run(to, sql, "");
			free(sql);
		}
		return ok;
	}
	for (i = 0; i < ARRAY_LEN(caused) && strcmp(table, caused[i]) != 0; i++)
		;
	if (i == ARRAY_LEN(caused))
		return true;
	sql = xasprintf("UPDATE \"%s\" SET who = ? WHERE who IS NULL", rows);
	ok = who == NULL || store_run(to, sql, "t", who);
	free(sql);
	if (ok && team != NULL) {
		sql = xasprintf("UPDATE \"%s\" SET team = ? WHERE team IS NULL", rows);
		ok = store_run(to, sql, "t", team);
		free(sql);
	}
	return ok;
}

/*
 * The staged managed jobs merged into the target's as rows of an identity: each file numbers
 * its jobs from m1, so a job's id names another person's job in the target. A job is what
 * was asked and when (spec, created_at; the k-th of such the k-th: two jobs alike stay two):
 * the target's is there already where it equals the staged one in every column but seq, id,
 * who and team, and kept where the job went on since (a file merged again after more use);
 * a job the target lacks is added with the target's next seq, and id m<seq>.
 * merge_managed_jobs.dst: each job's id in the target, for what names it (attempts, events).
 */
static bool
merge_managed_jobs(struct state *to, struct state_copied *t)
{
	struct column *cols = NULL;
	size_t ncols = 0, c;
	struct sb same, sql;
	bool ok;

	if (!columns_of(to, "managed_jobs", &cols, &ncols)) {
		free(cols);
		return false;
	}
	sb_init(&same);
	sb_init(&sql);
	for (c = 0; c < ncols; c++) {
		const char *name = cols[c].name;

		if (cols[c].identity || strcmp(name, "id") == 0 || actor_column(name))
			continue;
		sb_addf(&same, " AND s.\"%s\" = t.\"%s\"", name, name);
	}
	sb_addf(&sql, "SELECT count(*) FROM merge_managed_jobs s JOIN managed_jobs t ON t.id = "
	    "s.dst%s", same.buf);
	ok = store_run(to, "ALTER TABLE merge_managed_jobs ADD COLUMN dst TEXT, ADD COLUMN "
	    "dst_seq BIGINT", "") &&
	    store_run(to, "UPDATE merge_managed_jobs m SET dst = x.id FROM (SELECT s.seq, t.id "
	    "FROM (SELECT *, row_number() OVER (PARTITION BY spec, created_at ORDER BY seq) AS k "
	    "FROM merge_managed_jobs) s JOIN (SELECT *, row_number() OVER (PARTITION BY spec, "
	    "created_at ORDER BY seq) AS k FROM managed_jobs) t ON s.spec = t.spec AND "
	    "s.created_at = t.created_at AND s.k = t.k) x WHERE m.seq = x.seq", "") &&
	    (t->already = count_of(to, sql.buf)) >= 0 &&
	    (t->kept = count_of(to, "SELECT count(*) FROM merge_managed_jobs WHERE dst IS NOT "
	    "NULL") - t->already) >= 0 &&
	    /* The new ones numbered in the source's order, once each (a WITH of a volatile
	     * function is evaluated once, not again per row joined). */
	    store_run(to, "WITH n AS (SELECT seq, nextval(pg_get_serial_sequence('managed_jobs', "
	    "'seq')) AS v FROM (SELECT seq FROM merge_managed_jobs WHERE dst IS NULL ORDER BY "
	    "seq) o) UPDATE merge_managed_jobs m SET dst_seq = n.v, dst = 'm' || n.v FROM n WHERE "
	    "m.seq = n.seq", "");
	if (ok) {
		sb_reset(&sql);
		sb_adds(&sql, "INSERT INTO managed_jobs(seq, id");
		for (c = 0; c < ncols; c++)
			if (!cols[c].identity && strcmp(cols[c].name, "id") != 0)
				sb_addf(&sql, ", \"%s\"", cols[c].name);
		sb_adds(&sql, ") SELECT dst_seq, dst");
		for (c = 0; c < ncols; c++)
			if (!cols[c].identity && strcmp(cols[c].name, "id") != 0)
				sb_addf(&sql, ", \"%s\"", cols[c].name);
		sb_adds(&sql, " FROM merge_managed_jobs WHERE dst_seq IS NOT NULL ORDER BY seq");
		ok = store_run(to, sql.buf, "");
		t->rows = ok ? db_changes(state_db(to)) : 0;
	}
	sb_release(&same);
	sb_release(&sql);
	free(cols);
	return ok;
}

/* What names a staged managed job by its id in the file, made to name it by its id in the
 * target (merge_managed_jobs.dst): its attempts (those of no job dropped: nothing shows
 * them), and the events of its controller (policy managed, the job's id for a label). */
static bool
managed_ids_follow(struct state *to, const char *table)
{
	if (strcmp(table, "managed_attempts") == 0)
		return store_run(to, "DELETE FROM merge_managed_attempts WHERE job_id NOT IN "
		    "(SELECT id FROM merge_managed_jobs)", "") &&
		    store_run(to, "UPDATE merge_managed_attempts a SET job_id = j.dst FROM "
		    "merge_managed_jobs j WHERE a.job_id = j.id", "");
	if (strcmp(table, "events") == 0)
		return store_run(to, "UPDATE merge_events e SET label = j.dst FROM "
		    "merge_managed_jobs j WHERE e.policy = 'managed' AND e.label = j.id", "");
	return true;
}

/* The source's table copied into a temporary table of its columns, merge_<table>. */
static bool
stage(struct state *from, struct state *to, const char *table, char *name, size_t n,
    struct gr_error *err)
{
	char *sql;
	int64_t rows;
	bool ok;

	snprintf(name, n, "merge_%s", table);
	sql = xasprintf("CREATE TEMPORARY TABLE \"%s\" (LIKE \"%s\") ON COMMIT DROP", name, table);
	ok = store_run(to, sql, "");
	free(sql);
	if (!ok) {
		state_fail(to, err, "cannot merge into the target");
		return false;
	}
	return copy_table(from, to, table, name, &rows, err);
}

/* The hours of the staged minutes [*h0, *h1), for their roll-ups; none: h0 >= h1. */
static bool
minute_hours(struct state *to, int64_t *h0, int64_t *h1)
{
	struct db_stmt *q = store_prepare(to, "SELECT min(minute), max(minute) FROM "
	    "merge_samples_minute", "");
	bool ok = q != NULL && db_step(q) == DB_ROW;

	*h0 = 0;
	*h1 = 0;
	if (ok && db_column_type(q, 0) != DB_NULL) {
		*h0 = db_column_int64(q, 0);
		*h1 = db_column_int64(q, 1) / 3600 * 3600 + 3600;
	}
	db_finalize(q);
	return ok;
}

/* Each table of v merged into the target (migrate.c's rules): the managed jobs first (what
 * names them follows their new ids), then the others in v's order (by name: the journal
 * before the ledger, the series before their samples). */
static bool
merge(struct state *from, struct state *to, struct state_copied *v, size_t nv,
    struct gr_error *err)
{
	/* A GPU's minute there already (raw or rolled up), for its raw samples and its minutes. */
	static const char raw_there[] = "EXISTS (SELECT 1 FROM samples_minute x WHERE "
	    "x.series = s.series AND x.minute = s.at / 60 * 60)";
	static const char minute_there[] = "EXISTS (SELECT 1 FROM samples x WHERE "
	    "x.series = s.series AND x.at >= s.minute AND x.at < s.minute + 60)";
	int64_t h0 = 0, h1 = 0;
	bool minutes = false, managed = false;
	size_t k;

	/* Twice over v: the managed jobs in the first pass, the others in the second. */
	for (k = 0; k < 2 * nv; k++) {
		size_t i = k % nv;
		const char *table = v[i].table;
		char name[80];
		bool ok;

		if ((strcmp(table, "managed_jobs") == 0) != (k < nv))
			continue;
		if ((v[i].derived = derived(table)))
			continue;
		if (!stage(from, to, table, name, sizeof(name), err))
			return false;
		ok = fill_actor(from, to, table, name, "merge_launch_journal");
		if (ok && strcmp(table, "meta") == 0)
			ok = store_run(to, durable_meta, "");
		if (ok && managed)
			ok = managed_ids_follow(to, table);
		if (ok && (strcmp(table, "samples") == 0 || strcmp(table, "samples_minute") == 0)) {
			/* The series' ids in the target; a row of no series is none of the source's
			 * history (compaction removes series, never their rows first). */
			char *sql = xasprintf("DELETE FROM \"%s\" WHERE series NOT IN (SELECT src FROM "
			    "merge_series)", name);

			ok = store_run(to, sql, "");
			free(sql);
			sql = xasprintf("UPDATE \"%s\" m SET series = x.dst FROM merge_series x WHERE "
			    "m.series = x.src", name);
			ok = ok && store_run(to, sql, "");
			free(sql);
		}
		if (ok && strcmp(table, "samples_minute") == 0)
			ok = minute_hours(to, &h0, &h1);
		if (ok && strcmp(table, "managed_jobs") == 0)
			ok = managed = merge_managed_jobs(to, &v[i]);
		else if (ok)
			ok = strcmp(table, "ledger") == 0 ? merge_ledger(to, &v[i]) :
			    merge_rows(to, table, name, strcmp(table, "samples") == 0 ? raw_there :
			    strcmp(table, "samples_minute") == 0 ? minute_there : NULL, &v[i]);
		if (ok && strcmp(table, "sample_series") == 0)
			ok = store_run(to, "CREATE TEMPORARY TABLE merge_series ON COMMIT DROP AS "
			    "SELECT s.id AS src, t.id AS dst FROM merge_sample_series s JOIN "
			    "sample_series t ON t.instance_id = s.instance_id AND t.gpu = s.gpu", "");
		if (ok && strcmp(table, "samples_minute") == 0)
			minutes = v[i].rows > 0;
		if (!ok) {
			state_fail(to, err, "cannot merge into the target");
			return false;
		}
	}
	if (minutes && !history_rollups_remake(to, h0, h1)) {
		state_fail(to, err, "cannot merge into the target");
		return false;
	}
	return true;
}

enum gr_err
state_migrate(struct state *from, struct state *to, enum state_migrate_how how,
    struct state_copied **out, size_t *n, struct gr_error *err)
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
	if (held.len > 0 && how == STATE_MIGRATE_EMPTY) {
		gr_fail(err, GR_ECONFLICT, "the database '%s' already holds gpurent's state (%s): "
		    "state migrate copies into an empty one; --merge adds to it, --replace empties "
		    "it first",
		    state_path(to), held.buf);
		sb_release(&held);
		goto fail;
	}
	sb_release(&held);
	if (how == STATE_MIGRATE_MERGE) {
		size_t k = 0;

		for (i = 0; i < nv; i++)
			if (!not_merged(v[i].table))
				v[k++] = v[i];
		nv = k;
		if (!merge(from, to, v, nv, err))
			goto fail;
	} else {
		if (!each_table(to, v, nv, "DISABLE") ||
		    (how == STATE_MIGRATE_REPLACE && !each_table(to, v, nv, NULL))) {
			state_fail(to, err, "cannot prepare the target's tables");
			goto fail;
		}
		for (i = 0; i < nv; i++)
			if (!copy_table(from, to, v[i].table, v[i].table, &v[i].rows, err) ||
			    !fill_actor(from, to, v[i].table, v[i].table, "launch_journal")) {
				if (err->code == GR_OK)
					state_fail(to, err, "cannot copy into the target");
				goto fail;
			}
		if (!each_table(to, v, nv, "ENABLE")) {
			state_fail(to, err, "cannot prepare the target's tables");
			goto fail;
		}
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
