/*
 * history.c - the stored history of GPU samples: raw samples for a day, minute aggregates for a month.
 *
 * The SQL is generated from one table of fields (fields[] below), so a field added to
 * struct gpu_sample is stored, aggregated and read back by adding one line.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/history.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "store_int.h"

enum field_kind { FK_INT, FK_I64, FK_U64 };
/* How a minute aggregates a field: min/mean/max, or one figure. */
enum field_agg { A_STAT, A_MAX, A_MIN, A_OR };

struct field {
	const char *col;
	uint32_t bit;
	size_t off;
	enum field_kind kind;
	enum field_agg agg;
	int stat;		/* enum sample_stat with A_STAT, else -1 */
};

#define F(c, b, m, k, a, s) { c, b, offsetof(struct gpu_sample, m), k, a, s }
static const struct field fields[] = {
	F("util", MV_UTIL, util_pct, FK_INT, A_STAT, SS_UTIL),
	F("mem_used", MV_MEM, mem_used_mib, FK_INT, A_STAT, SS_MEM_USED),
	F("mem_total", MV_MEM, mem_total_mib, FK_INT, A_MAX, -1),
	F("mem_free", MV_MEM_FREE, mem_free_mib, FK_INT, A_STAT, SS_MEM_FREE),
	F("mem_util", MV_MEM_UTIL, mem_util_pct, FK_INT, A_STAT, SS_MEM_UTIL),
	F("temp", MV_TEMP, temp_c, FK_INT, A_STAT, SS_TEMP),
	F("temp_mem", MV_TEMP_MEM, temp_mem_c, FK_INT, A_STAT, SS_TEMP_MEM),
	F("power", MV_POWER, power_w, FK_INT, A_STAT, SS_POWER),
	F("power_limit", MV_POWER_LIMIT, power_limit_w, FK_INT, A_MAX, -1),
	F("power_enforced", MV_POWER_ENFORCED, power_enforced_w, FK_INT, A_MAX, -1),
	F("clk_sm", MV_CLK_SM, clk_sm_mhz, FK_INT, A_STAT, SS_CLK_SM),
	F("clk_mem", MV_CLK_MEM, clk_mem_mhz, FK_INT, A_STAT, SS_CLK_MEM),
	F("clk_max_sm", MV_CLK_SM_MAX, clk_sm_max_mhz, FK_INT, A_MAX, -1),
	F("fan", MV_FAN, fan_pct, FK_INT, A_STAT, SS_FAN),
	/* The highest P-state is the slowest the GPU was in; the lowest link its worst. */
	F("pstate", MV_PSTATE, pstate, FK_INT, A_MAX, -1),
	F("pcie_gen", MV_PCIE_GEN, pcie_gen, FK_INT, A_MIN, -1),
	F("pcie_width", MV_PCIE_WIDTH, pcie_width, FK_INT, A_MIN, -1),
	F("enc", MV_ENC, enc_pct, FK_INT, A_STAT, SS_ENC),
	F("dec", MV_DEC, dec_pct, FK_INT, A_STAT, SS_DEC),
	F("ecc_uncorr", MV_ECC_UNCORR, ecc_uncorrected, FK_I64, A_MAX, -1),
	F("throttle", MV_THROTTLE, throttle, FK_U64, A_OR, -1),
	F("compute_mode", MV_COMPUTE_MODE, compute_mode, FK_INT, A_MAX, -1),
	F("mig", MV_MIG, mig, FK_INT, A_MAX, -1),
	F("xid", MV_XID, xid, FK_INT, A_MAX, -1),
};
#undef F
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

#define HOUR 3600

/* Whole hours: floor for times before 1970 too. */
static int64_t
hour_floor(int64_t t)
{
	return t >= 0 ? t / HOUR * HOUR : -((-t + HOUR - 1) / HOUR) * HOUR;
}

/* The whole hours inside [since, until), [*hlo, *hhi); both until when it holds none. */
static void
whole_hours(int64_t since, int64_t until, int64_t *hlo, int64_t *hhi)
{
	*hlo = hour_floor(since) == since ? since : hour_floor(since) + HOUR;
	*hhi = hour_floor(until);
	if (*hhi <= *hlo)
		*hlo = *hhi = until;
}

static bool delete_hours(struct db *db, const char *table, int64_t h0, int64_t h1);
static bool rollup_hours(struct state *st, int64_t h0, int64_t h1);
static bool gpu_hours(struct state *st, int64_t h0, int64_t h1);

static const uint32_t stat_bits[SS__COUNT] = {
	[SS_UTIL] = MV_UTIL, [SS_MEM_USED] = MV_MEM, [SS_MEM_FREE] = MV_MEM_FREE,
	[SS_MEM_UTIL] = MV_MEM_UTIL, [SS_TEMP] = MV_TEMP, [SS_TEMP_MEM] = MV_TEMP_MEM,
	[SS_POWER] = MV_POWER, [SS_CLK_SM] = MV_CLK_SM, [SS_CLK_MEM] = MV_CLK_MEM,
	[SS_FAN] = MV_FAN, [SS_ENC] = MV_ENC, [SS_DEC] = MV_DEC,
};

uint32_t
sample_stat_bit(enum sample_stat k)
{
	return k < SS__COUNT ? stat_bits[k] : 0;
}

/* A growable SQL text; the statements are a few KiB. */
struct sql {
	char buf[16384];
	size_t len;
};

static void __attribute__((format(printf, 2, 3)))
sql_add(struct sql *q, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(q->buf + q->len, sizeof(q->buf) - q->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(q->buf) - q->len)
		abort();	/* the statements are fixed by fields[]: a bug, not input */
	q->len += (size_t)n;
}

/*
 * The insert in q, INSERT INTO t(a, b, ...) VALUES(...), made to replace the row whose key
 * (the first nkey columns) it meets: ON CONFLICT of them, every other column set from the
 * new row. What INSERT OR REPLACE does where the key is the only constraint, in SQL that
 * PostgreSQL speaks too.
 */
static void
sql_upsert(struct sql *q, size_t nkey)
{
	const char *c = strchr(q->buf, '(') + 1, *end = strchr(c, ')');
	char cols[8192];
	size_t k = 0, len;
	bool first = true;

	len = (size_t)(end - c);
	if (len >= sizeof(cols))
		abort();	/* the statements are fixed by fields[]: a bug, not input */
	memcpy(cols, c, len);
	cols[len] = '\0';
	sql_add(q, " ON CONFLICT(");
	for (char *save = NULL, *col = strtok_r(cols, ", ", &save); col != NULL;
	    col = strtok_r(NULL, ", ", &save), k++) {
		if (k < nkey) {
			sql_add(q, k == 0 ? "%s" : ", %s", col);
			if (k + 1 == nkey)
				sql_add(q, ") DO UPDATE SET ");
			continue;
		}
		sql_add(q, first ? "%s = excluded.%s" : ", %s = excluded.%s", col, col);
		first = false;
	}
}

/* Aggregate bit_or(x) for the throttle reasons, which SQLite lacks. */
static void
bit_or_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t *acc = sqlite3_aggregate_context(ctx, sizeof(*acc) * 2);

	(void)argc;
	if (acc == NULL || sqlite3_value_type(argv[0]) == DB_NULL)
		return;
	acc[0] |= sqlite3_value_int64(argv[0]);
	acc[1] = 1;	/* some value was known */
}

static void
bit_or_final(sqlite3_context *ctx)
{
	int64_t *acc = sqlite3_aggregate_context(ctx, 0);

	if (acc == NULL || acc[1] == 0)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, acc[0]);
}

bool
history_functions(struct db *db)
{
	return sqlite3_create_function(db_sqlite(db), "gr_bit_or", 1,
	    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL, bit_or_step, bit_or_final) == DB_OK;
}

/* Columns that came after sample_series; a series made before them saw nothing known. */
static const struct store_column series_columns[] = {
	{ "sample_series", "seen", "INTEGER NOT NULL DEFAULT -1" },
	{ "sample_series", "vendor", "TEXT" },
	{ NULL, NULL, NULL },
};

static bool rollups_fill(struct state *st);

bool
history_schema(struct state *st)
{
	struct sql q = { .len = 0 };
	size_t i;

	sql_add(&q, "CREATE TABLE IF NOT EXISTS sample_series("
	    "id INTEGER PRIMARY KEY, instance_id TEXT NOT NULL, gpu INTEGER NOT NULL,"
	    "uuid TEXT, name TEXT, driver TEXT, seen INTEGER NOT NULL DEFAULT 0, vendor TEXT,"
	    "UNIQUE(instance_id, gpu));"
	    "CREATE TABLE IF NOT EXISTS samples(series INTEGER NOT NULL, at INTEGER NOT NULL,"
	    "source INTEGER NOT NULL");
	for (i = 0; i < NFIELDS; i++)
		sql_add(&q, ", %s INTEGER", fields[i].col);
	sql_add(&q, ", PRIMARY KEY(series, at)) WITHOUT ROWID;"
	    "CREATE INDEX IF NOT EXISTS samples_at ON samples(at);"
	    "CREATE TABLE IF NOT EXISTS samples_minute(series INTEGER NOT NULL,"
	    "minute INTEGER NOT NULL, n INTEGER NOT NULL, secs INTEGER NOT NULL,"
	    "source INTEGER NOT NULL");
	for (i = 0; i < NFIELDS; i++) {
		if (fields[i].agg == A_STAT)
			sql_add(&q, ", %s_min INTEGER, %s_mean REAL, %s_max INTEGER", fields[i].col,
			    fields[i].col, fields[i].col);
		else
			sql_add(&q, ", %s INTEGER", fields[i].col);
	}
	sql_add(&q, ", PRIMARY KEY(series, minute)) WITHOUT ROWID;"
	    "CREATE INDEX IF NOT EXISTS samples_minute_at ON samples_minute(minute);");
	return store_ddl(state_db(st), q.buf) && store_add_columns(state_db(st), series_columns) &&
	    rollups_fill(st);
}

static int64_t
field_get(const struct gpu_sample *g, const struct field *f)
{
	const char *p = (const char *)g + f->off;

	switch (f->kind) {
	case FK_I64: { int64_t v; memcpy(&v, p, sizeof(v)); return v; }
	case FK_U64: { uint64_t v; memcpy(&v, p, sizeof(v)); return (int64_t)v; }
	default: { int v; memcpy(&v, p, sizeof(v)); return v; }
	}
}

static void
field_set(struct gpu_sample *g, const struct field *f, int64_t v)
{
	char *p = (char *)g + f->off;

	switch (f->kind) {
	case FK_I64: memcpy(p, &v, sizeof(v)); break;
	case FK_U64: { uint64_t u = (uint64_t)v; memcpy(p, &u, sizeof(u)); break; }
	default: { int i = (int)v; memcpy(p, &i, sizeof(i)); break; }
	}
}

static void
bind_text_or_null(struct db_stmt *s, int i, const char *v)
{
	if (v[0] == '\0')
		db_bind_null(s, i);
	else
		db_bind_text(s, i, v, -1, DB_STATIC);
}

enum gr_err
samples_store(struct state *st, const struct gpu_sample *v, size_t n, struct gr_error *err)
{
	struct db *db = state_db(st);
	struct db_stmt *ser = NULL, *ins = NULL;
	struct sql q = { .len = 0 };
	size_t i, k;
	enum gr_err rc = GR_OK;

	if (n == 0)
		return GR_OK;
	sql_add(&q, "INSERT INTO samples(series, at, source");
	for (k = 0; k < NFIELDS; k++)
		sql_add(&q, ", %s", fields[k].col);
	sql_add(&q, ") VALUES(?, ?, ?");
	for (k = 0; k < NFIELDS; k++)
		sql_add(&q, ", ?");
	sql_add(&q, ")");
	sql_upsert(&q, 2);
	if (db_prepare_v2(db, "INSERT INTO sample_series(instance_id, gpu, uuid, name, driver, "
	    "seen, vendor) VALUES(?, ?, ?, ?, ?, ?, ?) ON CONFLICT(instance_id, gpu) DO UPDATE SET "
	    "uuid = coalesce(excluded.uuid, sample_series.uuid), "
	    "name = coalesce(excluded.name, sample_series.name), "
	    "driver = coalesce(excluded.driver, sample_series.driver), "
	    "seen = sample_series.seen | excluded.seen, "
	    "vendor = coalesce(excluded.vendor, sample_series.vendor) RETURNING id", -1, &ser,
	    NULL) != DB_OK ||
	    db_prepare_v2(db, q.buf, -1, &ins, NULL) != DB_OK) {
		rc = state_fail(st, err, "cannot store samples");
		goto out;
	}
	if (state_begin(st, err) != GR_OK) {
		rc = err->code;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct gpu_sample *g = &v[i];
		int64_t series;

		db_reset(ser);
		db_bind_text(ser, 1, g->instance_id, -1, DB_STATIC);
		db_bind_int(ser, 2, g->index);
		bind_text_or_null(ser, 3, g->uuid);
		bind_text_or_null(ser, 4, g->name);
		bind_text_or_null(ser, 5, g->driver);
		db_bind_int64(ser, 6, g->valid);
		bind_text_or_null(ser, 7, g->vendor);
		if (db_step(ser) != DB_ROW)
			goto fail;
		series = db_column_int64(ser, 0);
		while (db_step(ser) == DB_ROW)
			;
		db_reset(ins);
		db_bind_int64(ins, 1, series);
		db_bind_int64(ins, 2, g->at);
		db_bind_int(ins, 3, g->source);
		for (k = 0; k < NFIELDS; k++) {
			if (g->valid & fields[k].bit)
				db_bind_int64(ins, (int)k + 4, field_get(g, &fields[k]));
			else
				db_bind_null(ins, (int)k + 4);
		}
		if (db_step(ins) != DB_DONE)
			goto fail;
	}
	rc = state_commit(st, err);
	goto out;
fail:
	rc = state_fail(st, err, "cannot store samples");
	state_rollback(st);
out:
	db_finalize(ser);
	db_finalize(ins);
	return rc;
}

/*
 * Raw samples with the seconds each covers (dt), as a subquery over `where` (a condition
 * on the samples table, given its own parameters by the caller).
 */
static void
sql_raw_dt(struct sql *q, const char *where)
{
	sql_add(q, "(SELECT *, min(coalesce(lead(at) OVER w - at, at - lag(at) OVER w, 0), %d) "
	    "AS dt FROM samples WHERE %s WINDOW w AS (PARTITION BY series ORDER BY at)) AS raw",
	    SAMPLES_GAP_MAX, where);
}

/* The minute-aggregate columns of raw rows grouped by minute (after series, minute). */
static void
sql_minute_aggs(struct sql *q, uint32_t seen)
{
	size_t k;

	sql_add(q, ", count(*), sum(dt), max(source)");
	for (k = 0; k < NFIELDS; k++) {
		const char *c = fields[k].col;

		if (!(seen & fields[k].bit)) {
			sql_add(q, fields[k].agg == A_STAT ? ", NULL, NULL, NULL" : ", NULL");
			continue;
		}
		switch (fields[k].agg) {
		case A_STAT: sql_add(q, ", min(%s), avg(%s), max(%s)", c, c, c); break;
		case A_MAX: sql_add(q, ", max(%s)", c); break;
		case A_MIN: sql_add(q, ", min(%s)", c); break;
		case A_OR: sql_add(q, ", gr_bit_or(%s)", c); break;
		}
	}
}

enum gr_err
samples_compact(struct state *st, int64_t now, struct gr_error *err)
{
	struct db *db = state_db(st);
	int64_t cutoff = (now - SAMPLES_RAW_KEEP) / 60 * 60;
	int64_t drop = now - SAMPLES_MINUTE_KEEP, drop_hour = hour_floor(drop);
	int64_t oldest = INT64_MAX;
	struct sql q = { .len = 0 };
	struct db_stmt *s = NULL;
	char window[64];
	bool due = false;
	size_t k;
	int step;

	if (db_prepare_v2(db, "SELECT EXISTS(SELECT 1 FROM samples WHERE at < ?1) OR "
	    "EXISTS(SELECT 1 FROM samples_minute WHERE minute < ?2)", -1, &s, NULL) != DB_OK)
		return state_fail(st, err, "cannot compact the sample history");
	db_bind_int64(s, 1, cutoff);
	db_bind_int64(s, 2, drop);
	if (db_step(s) == DB_ROW)
		due = db_column_int(s, 0) != 0;
	db_finalize(s);
	if (!due)
		return GR_OK;

	/* The window sees a little past the cutoff, so the last sample's dt is its real gap. */
	sql_add(&q, "INSERT INTO samples_minute(series, minute, n, secs, source");
	for (k = 0; k < NFIELDS; k++) {
		if (fields[k].agg == A_STAT)
			sql_add(&q, ", %s_min, %s_mean, %s_max", fields[k].col, fields[k].col,
			    fields[k].col);
		else
			sql_add(&q, ", %s", fields[k].col);
	}
	sql_add(&q, ") SELECT series, at / 60 * 60");
	sql_minute_aggs(&q, UINT32_MAX);
	sql_add(&q, " FROM ");
	snprintf(window, sizeof(window), "at < ?1 + %d", SAMPLES_GAP_MAX);
	sql_raw_dt(&q, window);
	sql_add(&q, " WHERE at < ?1 GROUP BY series, at / 60 * 60 ON CONFLICT DO NOTHING;"
	    "DELETE FROM samples WHERE at < ?1;"
	    "DELETE FROM samples_minute WHERE minute < ?2;"
	    "DELETE FROM sample_series WHERE NOT EXISTS (SELECT 1 FROM samples WHERE series = id) "
	    "AND NOT EXISTS (SELECT 1 FROM samples_minute WHERE series = id);");

	if (state_begin(st, err) != GR_OK)
		return err->code;
	/* The oldest raw sample to fold: its hour is the first that gains minutes. */
	if (db_prepare_v2(db, "SELECT min(at) FROM samples WHERE at < ?1", -1, &s,
	    NULL) != DB_OK)
		goto fail;
	db_bind_int64(s, 1, cutoff);
	if (db_step(s) == DB_ROW && db_column_type(s, 0) != DB_NULL)
		oldest = db_column_int64(s, 0);
	db_finalize(s);
	s = NULL;
	{
		const char *tail = q.buf;

		while (*tail != '\0') {
			if (db_prepare_v2(db, tail, -1, &s, &tail) != DB_OK)
				goto fail;
			if (s == NULL)
				break;
			if (db_bind_parameter_count(s) >= 1)
				db_bind_int64(s, 1, cutoff);
			if (db_bind_parameter_count(s) >= 2)
				db_bind_int64(s, 2, drop);
			step = db_step(s);
			db_finalize(s);
			s = NULL;
			if (step != DB_DONE)
				goto fail;
		}
	}
	/*
	 * The hourly roll-ups follow the minutes: the hours that gained minute rows, and the
	 * hour that retention cut, are made again; the hours before it are gone.
	 */
	if (!delete_hours(db, "samples_hour", INT64_MIN, drop_hour) ||
	    !delete_hours(db, "samples_gpu_hour", INT64_MIN, drop_hour) ||
	    !rollup_hours(st, drop_hour, drop_hour + HOUR) ||
	    !gpu_hours(st, drop_hour, drop_hour + HOUR) ||
	    (oldest != INT64_MAX && (!rollup_hours(st, hour_floor(oldest),
	    hour_floor(cutoff - 1) + HOUR) || !gpu_hours(st, hour_floor(oldest),
	    hour_floor(cutoff - 1) + HOUR))))
		goto fail;
	return state_commit(st, err);
fail:
	{
		enum gr_err rc = state_fail(st, err, "cannot compact the sample history");

		db_finalize(s);
		state_rollback(st);
		return rc;
	}
}

void
sample_rows_init(struct sample_rows *r)
{
	r->v = NULL;
	r->n = r->cap = 0;
}

void
sample_rows_release(struct sample_rows *r)
{
	free(r->v);
	sample_rows_init(r);
}

static struct sample_row *
sample_rows_add(struct sample_rows *r)
{
	return XPUSH(r->v, r->n, r->cap, 64);
}

/*
 * The columns every history row starts with: instance_id, gpu, uuid, name, driver, vendor,
 * time, n, secs, source. Returns the index of the first field column.
 */
static int
read_head(struct db_stmt *s, struct sample_row *r)
{
	store_col_text(s, 0, r->s.instance_id, sizeof(r->s.instance_id));
	r->s.index = db_column_int(s, 1);
	store_col_text(s, 2, r->s.uuid, sizeof(r->s.uuid));
	store_col_text(s, 3, r->s.name, sizeof(r->s.name));
	store_col_text(s, 4, r->s.driver, sizeof(r->s.driver));
	store_col_text(s, 5, r->s.vendor, sizeof(r->s.vendor));
	r->s.at = db_column_int64(s, 6);
	r->n = db_column_int(s, 7);
	r->secs = db_column_int(s, 8);
	r->s.source = db_column_int(s, 9) == SAMPLE_SSH ? SAMPLE_SSH : SAMPLE_API;
	return 10;
}

/*
 * The series of instance ?1: its own and, for an instance of several machines (a
 * multi-node Slurm job, recorded by session/sample.c), its nodes' "?1/NODE": two searches of
 * UNIQUE(instance_id, gpu), the nodes a range ('0' follows '/').
 */
#define SQL_OF_INSTANCE "(instance_id = ?1 OR (instance_id >= ?1 || '/' AND " \
	"instance_id < ?1 || '0'))"

void
sample_node_split(struct gpu_sample *g)
{
	char *slash = strchr(g->instance_id, '/');

	if (slash == NULL)
		return;
	strlcpy_(g->node, slash + 1, sizeof(g->node));
	*slash = '\0';
}

/* The validity bits any sample of the instance's (or every) GPU ever had. */
static uint32_t
series_seen(struct state *st, const char *instance_id)
{
	struct db_stmt *s;
	uint32_t seen = 0;

	/* Two statements, so that the one for an instance searches UNIQUE(instance_id, gpu). */
	if (db_prepare_v2(state_db(st), instance_id != NULL ?
	    "SELECT gr_bit_or(seen) FROM sample_series WHERE " SQL_OF_INSTANCE :
	    "SELECT gr_bit_or(seen) FROM sample_series", -1, &s, NULL) != DB_OK)
		return UINT32_MAX;	/* aggregate everything rather than lose a field */
	if (instance_id != NULL)
		db_bind_text(s, 1, instance_id, -1, DB_STATIC);
	if (db_step(s) == DB_ROW)
		seen = (uint32_t)db_column_int64(s, 0);
	db_finalize(s);
	return seen;
}

/*
 * The series of one instance (or all), ordered by instance and GPU, a multi-node
 * instance's nodes' series ("ID/NODE") right after its own (series_list_read).
 */
struct series_list {
	int64_t *id;
	struct gpu_sample *head;	/* instance_id, index, uuid, name, driver, vendor */
	size_t n;
};

static void
series_list_release(struct series_list *l)
{
	free(l->id);
	free(l->head);
	memset(l, 0, sizeof(*l));
}

static bool
series_list_read(struct state *st, const char *instance_id, struct series_list *l)
{
	struct db_stmt *s;
	size_t cap = 0;
	int rc;

	memset(l, 0, sizeof(*l));
	/*
	 * One instance: its series and its nodes' (SQL_OF_INSTANCE: MULTI-INDEX OR, two
	 * searches of the UNIQUE index), its few rows sorted. All: each instance's series with
	 * its nodes' after them (instance_end), so the order is by the instance the node's id
	 * starts with, then the id: "J", "J/a", "J-2" (not the index's "J", "J-2", "J/a"), a
	 * sort of the series table, one row per GPU.
	 */
	if (db_prepare_v2(state_db(st), instance_id != NULL ?
	    "SELECT id, instance_id, gpu, uuid, name, driver, vendor FROM sample_series "
	    "WHERE " SQL_OF_INSTANCE " ORDER BY instance_id, gpu" :
	    "SELECT id, instance_id, gpu, uuid, name, driver, vendor FROM sample_series "
	    "ORDER BY substr(instance_id, 1, instr(instance_id || '/', '/') - 1), instance_id, "
	    "gpu", -1, &s, NULL) != DB_OK)
		return false;
	if (instance_id != NULL)
		db_bind_text(s, 1, instance_id, -1, DB_STATIC);
	while ((rc = db_step(s)) == DB_ROW) {
		struct gpu_sample *h;

		if (l->n == cap) {
			cap = cap ? cap * 2 : 16;
			l->id = xreallocarray(l->id, cap, sizeof(*l->id));
			l->head = xreallocarray(l->head, cap, sizeof(*l->head));
		}
		l->id[l->n] = db_column_int64(s, 0);
		h = &l->head[l->n++];
		memset(h, 0, sizeof(*h));
		store_col_text(s, 1, h->instance_id, sizeof(h->instance_id));
		h->index = db_column_int(s, 2);
		store_col_text(s, 3, h->uuid, sizeof(h->uuid));
		store_col_text(s, 4, h->name, sizeof(h->name));
		store_col_text(s, 5, h->driver, sizeof(h->driver));
		store_col_text(s, 6, h->vendor, sizeof(h->vendor));
	}
	db_finalize(s);
	if (rc != DB_DONE)
		series_list_release(l);
	return rc == DB_DONE;
}

/*
 * The statements that read one series' rows of a range in key order (bound: series, since,
 * until). Both are a range of the primary key (series, time), so SQLite steps the rows in
 * time order without a sort: SEARCH samples USING PRIMARY KEY (series=? AND at>? AND at<?)
 * and SEARCH samples_minute USING PRIMARY KEY (series=? AND minute>? AND minute<?).
 * `cols` is the column list after the time.
 */
static bool
prepare_range(struct db *db, const char *table, const char *time, const char *cols,
    struct db_stmt **s)
{
	struct sql q = { .len = 0 };

	sql_add(&q, "SELECT %s%s FROM %s WHERE series = ?1 AND %s >= ?2 AND %s < ?3 ORDER BY %s",
	    time, cols, table, time, time, time);
	return db_prepare_v2(db, q.buf, -1, s, NULL) == DB_OK;
}

static void
bind_range(struct db_stmt *s, int64_t series, int64_t since, int64_t until)
{
	db_reset(s);
	db_bind_int64(s, 1, series);
	db_bind_int64(s, 2, since);
	db_bind_int64(s, 3, until);
}

/*
 * The seconds a raw sample covers, from the times of its neighbours in the range (0 where
 * there is none): the gap to the next, else the gap from the previous, at most
 * SAMPLES_GAP_MAX. The same rule as sql_raw_dt, which compaction uses: they change together.
 */
static int64_t
raw_dt(int64_t prev, int64_t at, int64_t next)
{
	int64_t dt = next >= 0 ? next - at : prev >= 0 ? at - prev : 0;

	return dt < SAMPLES_GAP_MAX ? dt : SAMPLES_GAP_MAX;
}

/*
 * A bucket's aggregates over one table's rows, per field of fields[] (bit k of the masks
 * is fields[k]). A raw sample enters as a row of one sample whose min, mean and max are
 * its value. The mean is sum(mean x n) / sum(n where the mean is known), as a minute's.
 */
struct part {
	int64_t t, n, secs;
	int source;
	uint32_t has_min, has_max, has_mean, has_v;
	double min[NFIELDS], max[NFIELDS], wsum[NFIELDS], wn[NFIELDS];
	int64_t v[NFIELDS];
};

struct parts {
	struct part *v;
	size_t n, cap;
};

static struct part *
parts_add(struct parts *p, int64_t t)
{
	struct part *b;

	b = XPUSH(p->v, p->n, p->cap, 64);
	b->t = t;
	return b;
}

/* The bucket of time t: the last one, or a new one after it (rows come in time order). */
static struct part *
parts_at(struct parts *p, int64_t t)
{
	return p->n > 0 && p->v[p->n - 1].t == t ? &p->v[p->n - 1] : parts_add(p, t);
}

static void
part_min_max(struct part *b, size_t k, double lo, double hi)
{
	uint32_t bit = 1u << k;

	if (!(b->has_min & bit) || lo < b->min[k])
		b->min[k] = lo;
	if (!(b->has_max & bit) || hi > b->max[k])
		b->max[k] = hi;
	b->has_min |= bit;
	b->has_max |= bit;
}

static void
part_value(struct part *b, size_t k, int64_t v)
{
	uint32_t bit = 1u << k;

	if (!(b->has_v & bit))
		b->v[k] = v;
	else if (fields[k].agg == A_MAX)
		b->v[k] = v > b->v[k] ? v : b->v[k];
	else if (fields[k].agg == A_MIN)
		b->v[k] = v < b->v[k] ? v : b->v[k];
	else
		b->v[k] |= v;
	b->has_v |= bit;
}

/*
 * One aggregate row into its bucket. A minute row (columns after the minute: n, secs,
 * source, then per field in `seen`: min, mean, max of a stat, else the value); with hour,
 * a samples_gpu_hour row (the same, but min, sum, weight, max of a stat), its sums added
 * as a minute's mean is, so a bucket of one whole hour has the very figures its minutes
 * give.
 */
static void
part_add_row(struct part *b, struct db_stmt *s, uint32_t seen, bool hour)
{
	int64_t n = db_column_int64(s, 1);
	int col = 4, src = db_column_int(s, 3), max_at = hour ? 3 : 2;
	size_t k;

	b->n += n;
	b->secs += db_column_int64(s, 2);
	if (src > b->source)
		b->source = src;
	for (k = 0; k < NFIELDS; k++) {
		uint32_t bit = 1u << k;

		if (!(seen & fields[k].bit))
			continue;
		if (fields[k].agg != A_STAT) {
			if (db_column_type(s, col) != DB_NULL)
				part_value(b, k, db_column_int64(s, col));
			col++;
			continue;
		}
		if (db_column_type(s, col) != DB_NULL) {
			double lo = db_column_double(s, col);

			if (!(b->has_min & bit) || lo < b->min[k])
				b->min[k] = lo;
			b->has_min |= bit;
		}
		if (db_column_type(s, col + 1) != DB_NULL) {
			if (hour) {
				b->wsum[k] += db_column_double(s, col + 1);
				b->wn[k] += db_column_double(s, col + 2);
			} else {
				b->wsum[k] += db_column_double(s, col + 1) * (double)n;
				b->wn[k] += (double)n;
			}
			b->has_mean |= bit;
		}
		if (db_column_type(s, col + max_at) != DB_NULL) {
			double hi = db_column_double(s, col + max_at);

			if (!(b->has_max & bit) || hi > b->max[k])
				b->max[k] = hi;
			b->has_max |= bit;
		}
		col += max_at + 1;
	}
}

/* A raw sample, as read by the raw statement (at, source, the fields in `seen`). */
struct raw {
	int64_t at;
	int source;
	uint32_t has;		/* bit k: fields[k] known */
	int64_t v[NFIELDS];
};

static void
raw_read(struct db_stmt *s, uint32_t seen, struct raw *r)
{
	int col = 2;
	size_t k;

	r->at = db_column_int64(s, 0);
	r->source = db_column_int(s, 1);
	r->has = 0;
	for (k = 0; k < NFIELDS; k++) {
		if (!(seen & fields[k].bit))
			continue;
		if (db_column_type(s, col) != DB_NULL) {
			r->v[k] = db_column_int64(s, col);
			r->has |= 1u << k;
		}
		col++;
	}
}

static void
part_add_raw(struct part *b, const struct raw *r, int64_t dt)
{
	size_t k;

	b->n++;
	b->secs += dt;
	if (r->source > b->source)
		b->source = r->source;
	for (k = 0; k < NFIELDS; k++) {
		if (!(r->has & (1u << k)))
			continue;
		if (fields[k].agg != A_STAT) {
			part_value(b, k, r->v[k]);
			continue;
		}
		part_min_max(b, k, (double)r->v[k], (double)r->v[k]);
		b->wsum[k] += (double)r->v[k];
		b->wn[k] += 1;
		b->has_mean |= 1u << k;
	}
}

/*
 * The row of a bucket from its parts (one per table, disjoint in time): min of mins, max
 * of maxes, the parts' means weighted by their samples, as the SQL it replaced did, so
 * that the figures stay the same to the last bit.
 */
static void
bucket_row(struct sample_rows *out, const struct gpu_sample *head, int step,
    const struct part *const *p, size_t np)
{
	struct sample_row *r = sample_rows_add(out);
	size_t i, k;

	memcpy(r->s.instance_id, head->instance_id, sizeof(r->s.instance_id));
	r->s.index = head->index;
	memcpy(r->s.uuid, head->uuid, sizeof(r->s.uuid));
	memcpy(r->s.name, head->name, sizeof(r->s.name));
	memcpy(r->s.driver, head->driver, sizeof(r->s.driver));
	memcpy(r->s.vendor, head->vendor, sizeof(r->s.vendor));
	r->s.at = p[0]->t;
	r->step = step;
	r->s.source = SAMPLE_API;
	for (i = 0; i < np; i++) {
		r->n += (int)p[i]->n;
		r->secs += (int)p[i]->secs;
		if (p[i]->source == SAMPLE_SSH)
			r->s.source = SAMPLE_SSH;
	}
	for (k = 0; k < NFIELDS; k++) {
		const struct field *f = &fields[k];
		uint32_t bit = 1u << k;

		if (f->agg == A_STAT) {
			double num = 0, den = 0, lo = 0, hi = 0;
			bool any = false, has_lo = false, has_hi = false;

			for (i = 0; i < np; i++) {
				if (p[i]->has_mean & bit) {
					num += p[i]->wsum[k] / p[i]->wn[k] * (double)p[i]->n;
					den += (double)p[i]->n;
					any = true;
				}
				if ((p[i]->has_min & bit) && (!has_lo || p[i]->min[k] < lo)) {
					lo = p[i]->min[k];
					has_lo = true;
				}
				if ((p[i]->has_max & bit) && (!has_hi || p[i]->max[k] > hi)) {
					hi = p[i]->max[k];
					has_hi = true;
				}
			}
			if (!any)
				continue;
			r->s.valid |= f->bit;
			r->min[f->stat] = lo;
			r->mean[f->stat] = num / den;
			r->max[f->stat] = hi;
			field_set(&r->s, f, llround(num / den));
			continue;
		}
		for (i = 0; i < np; i++) {
			if (!(p[i]->has_v & bit))
				continue;
			if (!(r->s.valid & f->bit)) {
				r->s.valid |= f->bit;
				field_set(&r->s, f, p[i]->v[k]);
				continue;
			}
			{
				int64_t cur = field_get(&r->s, f), v = p[i]->v[k];

				field_set(&r->s, f, f->agg == A_MAX ? (v > cur ? v : cur) :
				    f->agg == A_MIN ? (v < cur ? v : cur) : (cur | v));
			}
		}
	}
}

/* The raw samples of one series in the range, as rows of step 0. */
static int
history_raw(struct db_stmt *raw, const struct gpu_sample *head, uint32_t seen,
    struct sample_rows *out)
{
	size_t first = out->n, i, k;
	struct raw v;
	int rc;

	while ((rc = db_step(raw)) == DB_ROW) {
		struct sample_row *r = sample_rows_add(out);

		raw_read(raw, seen, &v);
		r->s = *head;
		r->s.at = v.at;
		r->s.source = v.source == SAMPLE_SSH ? SAMPLE_SSH : SAMPLE_API;
		r->n = 1;
		for (k = 0; k < NFIELDS; k++) {
			const struct field *f = &fields[k];

			if (!(v.has & (1u << k)))
				continue;
			r->s.valid |= f->bit;
			field_set(&r->s, f, v.v[k]);
			if (f->agg == A_STAT)
				r->min[f->stat] = r->mean[f->stat] = r->max[f->stat] =
				    (double)v.v[k];
		}
	}
	for (i = first; i < out->n; i++)
		out->v[i].secs = (int)raw_dt(i > first ? out->v[i - 1].s.at : -1, out->v[i].s.at,
		    i + 1 < out->n ? out->v[i + 1].s.at : -1);
	return rc;
}

/* Minute rows (minute, then the columns of part_add_row) into buckets of step seconds. */
static int
minute_parts(struct db_stmt *minute, uint32_t seen, int step, struct parts *pm)
{
	int rc;

	while ((rc = db_step(minute)) == DB_ROW) {
		int64_t t = db_column_int64(minute, 0);

		part_add_row(parts_at(pm, t / step * step), minute, seen, false);
	}
	return rc;
}

/*
 * The buckets of one series: its aggregate rows (minute rows, and hour rows for the whole
 * hours of a step of whole hours, already in pm) and raw samples bucketed apart (each read
 * in key order, so a bucket is complete when the next begins), then merged by time.
 */
static int
history_buckets(struct db_stmt *raw, const struct gpu_sample *head, uint32_t seen, int step,
    struct parts *pm, struct parts *pr, struct sample_rows *out)
{
	struct raw prev, cur;
	int64_t before = -1;	/* the time of the sample before prev */
	bool have = false;
	size_t i = 0, j = 0;
	int rc;

	pr->n = 0;
	/* A raw sample's seconds need the next one's time: each is added one sample late. */
	while ((rc = db_step(raw)) == DB_ROW) {
		raw_read(raw, seen, &cur);
		if (have) {
			part_add_raw(parts_at(pr, prev.at / step * step), &prev,
			    raw_dt(before, prev.at, cur.at));
			before = prev.at;
		}
		prev = cur;
		have = true;
	}
	if (rc != DB_DONE)
		return rc;
	if (have)
		part_add_raw(parts_at(pr, prev.at / step * step), &prev,
		    raw_dt(before, prev.at, -1));
	while (i < pm->n || j < pr->n) {
		const struct part *p[2];

		if (j == pr->n || (i < pm->n && pm->v[i].t < pr->v[j].t)) {
			p[0] = &pm->v[i++];
			bucket_row(out, head, step, p, 1);
		} else if (i == pm->n || pr->v[j].t < pm->v[i].t) {
			p[0] = &pr->v[j++];
			bucket_row(out, head, step, p, 1);
		} else {
			p[0] = &pm->v[i++];
			p[1] = &pr->v[j++];
			bucket_row(out, head, step, p, 2);
		}
	}
	return DB_DONE;
}

/*
 * The columns after the minute of samples_minute, or with hour after the hour of
 * samples_gpu_hour, that part_add_row reads, for the fields in `seen`.
 */
static void
sql_row_cols(struct sql *q, uint32_t seen, bool hour)
{
	static const char *const minute_stat[] = { "min", "mean", "max", NULL };
	static const char *const hour_stat[] = { "min", "sum", "weight", "max", NULL };
	const char *const *stat = hour ? hour_stat : minute_stat;
	size_t k, j;

	sql_add(q, ", n, secs, source");
	for (k = 0; k < NFIELDS; k++) {
		if (!(seen & fields[k].bit))
			continue;
		if (fields[k].agg != A_STAT)
			sql_add(q, ", %s", fields[k].col);
		else
			for (j = 0; stat[j] != NULL; j++)
				sql_add(q, ", %s_%s", fields[k].col, stat[j]);
	}
}

/* The statement that writes one samples_gpu_hour row, every field. */
static bool
prepare_gpu_hour_insert(struct db *db, struct db_stmt **s)
{
	struct sql q = { .len = 0 };
	size_t k;

	sql_add(&q, "INSERT INTO samples_gpu_hour(series, hour");
	sql_row_cols(&q, UINT32_MAX, true);
	sql_add(&q, ") VALUES(?, ?, ?, ?, ?");
	for (k = 0; k < NFIELDS; k++)
		sql_add(&q, fields[k].agg == A_STAT ? ", ?, ?, ?, ?" : ", ?");
	sql_add(&q, ")");
	sql_upsert(&q, 2);
	return db_prepare_v2(db, q.buf, -1, s, NULL) == DB_OK;
}

/* One hour's part (the fold of its minute rows) as a samples_gpu_hour row. */
static bool
gpu_hour_write(struct db_stmt *ins, int64_t series, const struct part *b)
{
	int col = 6;
	size_t k;

	db_reset(ins);
	db_bind_int64(ins, 1, series);
	db_bind_int64(ins, 2, b->t);
	db_bind_int64(ins, 3, b->n);
	db_bind_int64(ins, 4, b->secs);
	db_bind_int(ins, 5, b->source);
	for (k = 0; k < NFIELDS; k++) {
		uint32_t bit = 1u << k;

		if (fields[k].agg != A_STAT) {
			if (b->has_v & bit)
				db_bind_int64(ins, col, b->v[k]);
			else
				db_bind_null(ins, col);
			col++;
			continue;
		}
		if (b->has_min & bit)
			db_bind_double(ins, col, b->min[k]);
		else
			db_bind_null(ins, col);
		if (b->has_mean & bit) {
			db_bind_double(ins, col + 1, b->wsum[k]);
			db_bind_double(ins, col + 2, b->wn[k]);
		} else {
			db_bind_null(ins, col + 1);
			db_bind_null(ins, col + 2);
		}
		if (b->has_max & bit)
			db_bind_double(ins, col + 3, b->max[k]);
		else
			db_bind_null(ins, col + 3);
		col += 4;
	}
	return db_step(ins) == DB_DONE;
}

/* Deletes a roll-up table's rows for hours [h0, h1). */
static bool
delete_hours(struct db *db, const char *table, int64_t h0, int64_t h1)
{
	struct db_stmt *del;
	char sql[96];
	bool ok;

	snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE hour >= ?1 AND hour < ?2", table);
	if (db_prepare_v2(db, sql, -1, &del, NULL) != DB_OK)
		return false;
	db_bind_int64(del, 1, h0);
	db_bind_int64(del, 2, h1);
	ok = db_step(del) == DB_DONE;
	db_finalize(del);
	return ok;
}

/* What remaking a roll-up's hours reads and writes with (rebuild_begin). */
struct rebuild {
	struct series_list l;
	struct db_stmt *minute;		/* the minute rows of a series (cols), by range */
	struct db_stmt *ins;		/* the roll-up's insert, the caller's to prepare */
};

/*
 * For making table's rows for hours [h0, h1) again: every series and a reader of their
 * minute rows, with the rows of those hours deleted. False, holding nothing, on failure.
 */
static bool
rebuild_begin(struct state *st, const char *table, const char *cols, int64_t h0, int64_t h1,
    struct rebuild *r)
{
	struct db *db = state_db(st);

	r->minute = r->ins = NULL;
	if (!series_list_read(st, NULL, &r->l))
		return false;
	if (!prepare_range(db, "samples_minute", "minute", cols, &r->minute) ||
	    !delete_hours(db, table, h0, h1)) {
		db_finalize(r->minute);
		series_list_release(&r->l);
		return false;
	}
	return true;
}

static void
rebuild_end(struct rebuild *r)
{
	db_finalize(r->minute);
	db_finalize(r->ins);
	series_list_release(&r->l);
}

/*
 * Makes samples_gpu_hour's rows for hours [h0, h1) again from the minute rows of those
 * hours, each hour folded by part_add_row in minute order, as a history bucket of that
 * hour would be. Inside the caller's transaction.
 */
static bool
gpu_hours(struct state *st, int64_t h0, int64_t h1)
{
	struct sql cols = { .len = 0 };
	struct parts ph = { 0 };
	struct rebuild r;
	size_t i, k;
	int rc = DB_DONE;

	if (h0 >= h1)
		return true;
	sql_row_cols(&cols, UINT32_MAX, false);
	/* The delete: SEARCH samples_gpu_hour USING COVERING INDEX samples_gpu_hour_at. */
	if (!rebuild_begin(st, "samples_gpu_hour", cols.buf, h0, h1, &r))
		return false;
	if (!prepare_gpu_hour_insert(state_db(st), &r.ins))
		rc = DB_ERROR;
	for (i = 0; i < r.l.n && rc == DB_DONE; i++) {
		ph.n = 0;
		bind_range(r.minute, r.l.id[i], h0, h1);
		if ((rc = minute_parts(r.minute, UINT32_MAX, HOUR, &ph)) != DB_DONE)
			break;
		for (k = 0; k < ph.n; k++) {
			if (!gpu_hour_write(r.ins, r.l.id[i], &ph.v[k])) {
				rc = DB_ERROR;
				break;
			}
		}
	}
	rebuild_end(&r);
	free(ph.v);
	return rc == DB_DONE;
}

enum gr_err
samples_history(struct state *st, const char *instance_id, int64_t since, int64_t until,
    int step, struct sample_rows *out, struct gr_error *err)
{
	struct db *db = state_db(st);
	struct sql mcols = { .len = 0 }, hcols = { .len = 0 }, rcols = { .len = 0 };
	struct db_stmt *minute = NULL, *hour = NULL, *raw = NULL;
	struct parts pm = { 0 }, pr = { 0 };
	struct series_list l;
	uint32_t seen = UINT32_MAX;
	enum gr_err ret = GR_OK;
	int64_t hlo = 0, hhi = 0;
	size_t i, k;
	int rc = DB_DONE;

	if (step < 0 || step % 60 != 0)
		return gr_fail(err, GR_EUSAGE, "a history step is a whole number of minutes");
	if (until <= 0)
		until = INT64_MAX;
	/* Aggregate only the fields some sample of these GPUs knew: most APIs know five. */
	if (step > 0 && (seen = series_seen(st, instance_id)) == 0)
		return GR_OK;
	sql_row_cols(&mcols, seen, false);
	sql_row_cols(&hcols, seen, true);
	sql_add(&rcols, ", source");
	for (k = 0; k < NFIELDS; k++)
		if (seen & fields[k].bit)
			sql_add(&rcols, ", %s", fields[k].col);
	/*
	 * A step of whole hours reads the whole hours of the range, [hlo, hhi), from
	 * samples_gpu_hour and minute rows only where the range cuts an hour; with no whole
	 * hour inside, the minute rows of the whole range.
	 */
	if (step % HOUR == 0)
		whole_hours(since, until, &hlo, &hhi);
	if (!series_list_read(st, instance_id, &l))
		return state_fail(st, err, "cannot read the sample history");
	if (!prepare_range(db, "samples", "at", rcols.buf, &raw) ||
	    (step > 0 && !prepare_range(db, "samples_minute", "minute", mcols.buf, &minute)) ||
	    (hlo < hhi && !prepare_range(db, "samples_gpu_hour", "hour", hcols.buf, &hour))) {
		ret = state_fail(st, err, "cannot read the sample history");
		goto out;
	}
	/* Series come in (instance, GPU) order and each one's rows in time order. */
	for (i = 0; i < l.n && rc == DB_DONE; i++) {
		bind_range(raw, l.id[i], since, until);
		if (step == 0) {
			rc = history_raw(raw, &l.head[i], seen, out);
			continue;
		}
		pm.n = 0;
		if (hlo < hhi) {
			bind_range(minute, l.id[i], since, hlo);
			rc = minute_parts(minute, seen, step, &pm);
			if (rc == DB_DONE) {
				bind_range(hour, l.id[i], hlo, hhi);
				while ((rc = db_step(hour)) == DB_ROW) {
					int64_t t = db_column_int64(hour, 0);

					part_add_row(parts_at(&pm, t / step * step), hour, seen, true);
				}
			}
			if (rc == DB_DONE) {
				bind_range(minute, l.id[i], hhi, until);
				rc = minute_parts(minute, seen, step, &pm);
			}
		} else {
			bind_range(minute, l.id[i], since, until);
			rc = minute_parts(minute, seen, step, &pm);
		}
		if (rc == DB_DONE)
			rc = history_buckets(raw, &l.head[i], seen, step, &pm, &pr, out);
	}
	if (rc != DB_DONE)
		ret = state_fail(st, err, "cannot read the sample history");
out:
	db_finalize(minute);
	db_finalize(hour);
	db_finalize(raw);
	series_list_release(&l);
	free(pm.v);
	free(pr.v);
	return ret;
}

enum gr_err
samples_latest(struct state *st, const char *instance_id, struct sample_list *out,
    struct gr_error *err)
{
	struct db *db = state_db(st);
	struct sql q = { .len = 0 };
	struct db_stmt *s;
	size_t k;
	int rc;

	sql_add(&q, "SELECT ss.instance_id, ss.gpu, ss.uuid, ss.name, ss.driver, ss.vendor, r.at, "
	    "1, 0, r.source");
	for (k = 0; k < NFIELDS; k++)
		sql_add(&q, ", r.%s", fields[k].col);
	/*
	 * One instance's series through UNIQUE(instance_id, gpu), or all in its order; each
	 * one's latest sample is the last key of its primary-key range.
	 */
	sql_add(&q, " FROM sample_series ss JOIN samples r ON r.series = ss.id AND r.at = "
	    "(SELECT max(at) FROM samples WHERE series = ss.id)%s ORDER BY ss.instance_id, "
	    "ss.gpu", instance_id != NULL ? " WHERE " SQL_OF_INSTANCE : "");
	if (db_prepare_v2(db, q.buf, -1, &s, NULL) != DB_OK)
		return state_fail(st, err, "cannot read the latest samples");
	if (instance_id != NULL)
		db_bind_text(s, 1, instance_id, -1, DB_STATIC);
	while ((rc = db_step(s)) == DB_ROW) {
		struct sample_row r;
		int col;

		memset(&r, 0, sizeof(r));
		col = read_head(s, &r);
		for (k = 0; k < NFIELDS; k++, col++) {
			if (db_column_type(s, col) != DB_NULL) {
				r.s.valid |= fields[k].bit;
				field_set(&r.s, &fields[k], db_column_int64(s, col));
			}
		}
		*sample_list_add(out) = r.s;
	}
	db_finalize(s);
	if (rc != DB_DONE)
		return state_fail(st, err, "cannot read the latest samples");
	return GR_OK;
}

/* ---------------------------------------------------------------- summaries and roll-up */

/*
 * What audit asks of the history (samples_summary) is a fold of spans: one GPU's figures
 * over some seconds at a time t (a minute row, or a raw sample with the seconds it covers).
 * The fold keeps its utilisation as seconds per whole percent and its instants (the spans
 * of an instance's GPUs at one time) as seconds per highest utilisation, so that a fold
 * can be stored per hour (samples_hour) and hours added together: p95 and the idle seconds
 * at any whole-percent threshold are read off the bins. See history.h for what that keeps
 * exact and what not.
 *
 * A span: util (util_known), its idle test (idle_util, the highest utilisation in the
 * span), power (power_known), n samples; gpu tells the instance's GPUs apart (its place in
 * the instance's series, so that each node of a multi-node job has GPUs of its own).
 */
struct span {
	int64_t t;
	int gpu;
	int n;
	double secs, util, idle_util, power;
	bool util_known, power_known;
};

/* Utilisation seconds by whole percent, 0..100; a figure outside counts at the nearest end. */
#define UTIL_BINS 101
/*
 * An instant's seconds by the highest utilisation of its GPUs: bin 0 below 0 %, 1 + k for
 * [k, k + 1) %, 101 for 100 % and above, INSTANT_UNKNOWN when some GPU's is unknown. An
 * instant is idle at threshold p (0..100: utilisation below p) exactly when its bin <= p.
 */
#define INSTANT_UNKNOWN 102
#define INSTANT_BINS 103

static int
util_bin(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 100 ? 100 : (int)v;
}

static int
instant_bin(const struct span *p)
{
	if (!p->util_known)
		return INSTANT_UNKNOWN;
	if (p->idle_util < 0)
		return 0;
	return p->idle_util >= 100 ? 101 : 1 + (int)p->idle_util;
}

struct fold {
	bool any;
	int64_t first, last, samples;
	double util_w, util_sum;	/* seconds with utilisation known; utilisation x seconds */
	bool energy_known;
	double energy_j;
	double util_secs[UTIL_BINS];
	double instant_secs[INSTANT_BINS];
	/* the instant being folded: its time, its covered seconds (the longest span's), bin */
	bool t_open;
	int64_t t;
	double t_secs;
	int t_bin;
};

static void
fold_close(struct fold *f)
{
	if (!f->t_open)
		return;
	f->instant_secs[f->t_bin] += f->t_secs;
	f->t_open = false;
}

/* One span; spans of one time follow each other (the caller sorts several GPUs'). */
static void
fold_add(struct fold *f, const struct span *p)
{
	int bin = instant_bin(p);

	if (!f->t_open || p->t != f->t) {
		fold_close(f);
		f->t_open = true;
		f->t = p->t;
		f->t_secs = 0;
		f->t_bin = 0;
	}
	if (p->secs > f->t_secs)
		f->t_secs = p->secs;
	if (bin > f->t_bin)
		f->t_bin = bin;
	if (!f->any || p->t < f->first)
		f->first = p->t;
	if (!f->any || p->t > f->last)
		f->last = p->t;
	f->any = true;
	f->samples += p->n;
	if (p->util_known && p->secs > 0) {
		f->util_w += p->secs;
		f->util_sum += p->util * p->secs;
		f->util_secs[util_bin(p->util)] += p->secs;
	}
	if (p->power_known) {
		f->energy_known = true;
		f->energy_j += p->power * p->secs;
	}
}

/*
 * The summary of a fold at threshold idle_pct. p95 is the lowest whole percent at which
 * the utilisation seconds reach 95 %: the whole part of the exact time-weighted percentile
 * (the smallest value v with W(<= v) >= 0.95 W), since every value in bin b is below b + 1.
 */
static void
fold_summary(struct fold *f, int idle_pct, struct sample_summary *m)
{
	double covered = 0, idle = 0, cum = 0, want;
	int b;

	fold_close(f);
	m->first = f->first;
	m->last = f->last;
	m->samples = f->samples;
	for (b = 0; b < INSTANT_BINS; b++) {
		covered += f->instant_secs[b];
		if (b <= idle_pct)
			idle += f->instant_secs[b];
	}
	m->covered_s = (int64_t)covered;
	m->idle_s = (int64_t)idle;
	if (f->util_w > 0) {
		m->util_known = true;
		m->util_mean = f->util_sum / f->util_w;
		want = f->util_w * 0.95;
		for (b = 0; b < UTIL_BINS - 1; b++) {
			cum += f->util_secs[b];
			if (cum >= want)
				break;
		}
		m->util_p95 = b;
	}
	m->energy_known = f->energy_known;
	m->energy_wh = f->energy_j / 3600.0;
}

struct spans {
	struct span *v;
	size_t n, cap;
};

static struct span *
spans_add(struct spans *l)
{
	return XPUSH(l->v, l->n, l->cap, 1024);
}

static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

static bool
spans_sorted(const struct spans *l)
{
	size_t i;

	for (i = 1; i < l->n; i++)
		if (span_cmp(&l->v[i - 1], &l->v[i]) > 0)
			return false;
	return true;
}

/* The columns the minute statement of a summary reads after the minute (minute_spans). */
#define MINUTE_SPAN_COLS ", secs, util_mean, util_max, power_mean, n"

/* A minute row (minute, secs, util_mean, util_max, power_mean, n) as a span of gpu. */
static void
minute_span(struct db_stmt *minute, int gpu, struct span *p)
{
	p->t = db_column_int64(minute, 0);
	p->gpu = gpu;
	p->secs = db_column_double(minute, 1);
	p->util_known = db_column_type(minute, 2) != DB_NULL;
	p->util = db_column_double(minute, 2);
	p->idle_util = db_column_double(minute, 3);
	p->power_known = db_column_type(minute, 4) != DB_NULL;
	p->power = db_column_double(minute, 4);
	p->n = db_column_int(minute, 5);
}

/* One series' minute rows as spans. */
static int
minute_spans(struct db_stmt *minute, int gpu, struct spans *out)
{
	int rc;

	while ((rc = db_step(minute)) == DB_ROW)
		minute_span(minute, gpu, spans_add(out));
	return rc;
}

/* A raw sample (at, util, power) as a span of gpu, its seconds left to raw_secs. */
static void
raw_span(struct db_stmt *raw, int gpu, struct span *p)
{
	p->t = db_column_int64(raw, 0);
	p->gpu = gpu;
	p->util_known = db_column_type(raw, 1) != DB_NULL;
	p->util = p->idle_util = db_column_double(raw, 1);
	p->power_known = db_column_type(raw, 2) != DB_NULL;
	p->power = db_column_double(raw, 2);
	p->n = 1;
	p->secs = 0;
}

/* The seconds each of one series' raw samples v[0..n) covers, in time order. */
static void
raw_secs(struct span *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i].secs = (double)raw_dt(i > 0 ? v[i - 1].t : -1, v[i].t,
		    i + 1 < n ? v[i + 1].t : -1);
}

/* A histogram as a blob: for each bin with seconds, its index and the seconds (LEB128). */
static size_t
hist_encode(const double *h, int bins, unsigned char *buf)
{
	size_t n = 0;
	int b;

	for (b = 0; b < bins; b++) {
		uint64_t v;

		if (!(h[b] > 0))
			continue;
		v = (uint64_t)llround(h[b]);
		buf[n++] = (unsigned char)b;
		do {
			buf[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
			v >>= 7;
		} while (v != 0);
	}
	return n;
}

/* Adds a blob of hist_encode to h; what does not decode (a damaged row) is skipped. */
static void
hist_decode(const unsigned char *p, int len, double *h, int bins)
{
	int i = 0;

	while (i < len) {
		int b = p[i++], shift = 0;
		uint64_t v = 0;

		while (i < len && shift < 64) {
			unsigned c = p[i++];

			v |= (uint64_t)(c & 0x7f) << shift;
			shift += 7;
			if (!(c & 0x80))
				break;
		}
		if (b < bins)
			h[b] += (double)v;
	}
}

/* samples_hour: one row per instance and hour (history.h). */
static const char sql_hour_table[] =
    "CREATE TABLE samples_hour(instance_id TEXT NOT NULL, hour INTEGER NOT NULL,"
    "first INTEGER NOT NULL, last INTEGER NOT NULL, samples INTEGER NOT NULL,"
    "gpus INTEGER NOT NULL, gpus_hi INTEGER NOT NULL, util_w REAL NOT NULL,"
    "util_sum REAL NOT NULL, energy_j REAL, util_secs BLOB, instant_secs BLOB,"
    "PRIMARY KEY(instance_id, hour)) WITHOUT ROWID;"
    "CREATE INDEX samples_hour_at ON samples_hour(hour);";

static bool
hour_write(struct db_stmt *ins, const char *instance_id, int64_t hour, const struct fold *f)
{
	unsigned char util[UTIL_BINS * 11], inst[INSTANT_BINS * 11];
	size_t nu = hist_encode(f->util_secs, UTIL_BINS, util);
	size_t ni = hist_encode(f->instant_secs, INSTANT_BINS, inst);

	db_reset(ins);
	db_bind_text(ins, 1, instance_id, -1, DB_STATIC);
	db_bind_int64(ins, 2, hour);
	db_bind_int64(ins, 3, f->first);
	db_bind_int64(ins, 4, f->last);
	db_bind_int64(ins, 5, f->samples);
	/* gpus, gpus_hi: no longer read (samples_summary counts an instance's series). */
	db_bind_int64(ins, 6, 0);
	db_bind_int(ins, 7, 0);
	db_bind_double(ins, 8, f->util_w);
	db_bind_double(ins, 9, f->util_sum);
	if (f->energy_known)
		db_bind_double(ins, 10, f->energy_j);
	else
		db_bind_null(ins, 10);
	db_bind_blob(ins, 11, util, (int)nu, DB_TRANSIENT);
	db_bind_blob(ins, 12, inst, (int)ni, DB_TRANSIENT);
	return db_step(ins) == DB_DONE;
}

/* One samples_hour row (the columns of sql_hour_read) added to a fold. */
static void
fold_add_hour(struct fold *f, struct db_stmt *s)
{
	int64_t first = db_column_int64(s, 0), last = db_column_int64(s, 1);

	fold_close(f);
	if (!f->any || first < f->first)
		f->first = first;
	if (!f->any || last > f->last)
		f->last = last;
	f->any = true;
	f->samples += db_column_int64(s, 2);
	f->util_w += db_column_double(s, 3);
	f->util_sum += db_column_double(s, 4);
	if (db_column_type(s, 5) != DB_NULL) {
		f->energy_known = true;
		f->energy_j += db_column_double(s, 5);
	}
	hist_decode(db_column_blob(s, 6), db_column_bytes(s, 6), f->util_secs,
	    UTIL_BINS);
	hist_decode(db_column_blob(s, 7), db_column_bytes(s, 7), f->instant_secs,
	    INSTANT_BINS);
}

/*
 * The series of one instance, its nodes' ("ID/NODE") with them: l->head[i..j), j returned.
 * The instance is the id up to a '/'.
 */
static size_t
instance_end(const struct series_list *l, size_t i)
{
	const char *id = l->head[i].instance_id;
	size_t j = i, len = strcspn(id, "/");

	while (j < l->n && strncmp(l->head[j].instance_id, id, len) == 0 &&
	    (l->head[j].instance_id[len] == '\0' || l->head[j].instance_id[len] == '/'))
		j++;
	return j;
}

/* The instance a series belongs to: its id up to a '/' (a multi-node job's node). */
static void
instance_of(const char *series_id, char out[ID_MAX])
{
	size_t len = strcspn(series_id, "/");

	memcpy(out, series_id, len);
	out[len] = '\0';
}

/*
 * Makes samples_hour's rows for hours [h0, h1) again from the minute rows of those hours:
 * a row is always the fold of exactly its hour's minute rows, whatever the order in which
 * compactions added them or retention removed them. Inside the caller's transaction.
 */
static bool
rollup_hours(struct state *st, int64_t h0, int64_t h1)
{
	struct spans sp = { 0 };
	struct rebuild r;
	struct fold *f;
	size_t i, j, k;
	int rc = DB_DONE;

	if (h0 >= h1)
		return true;
	/* The delete: SEARCH samples_hour USING COVERING INDEX samples_hour_at (hour>? AND hour<?). */
	if (!rebuild_begin(st, "samples_hour", MINUTE_SPAN_COLS, h0, h1, &r))
		return false;
	if (db_prepare_v2(state_db(st), "INSERT INTO samples_hour(instance_id, hour, first, "
	    "last, samples, gpus, gpus_hi, util_w, util_sum, energy_j, util_secs, instant_secs) "
	    "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &r.ins, NULL) != DB_OK)
		rc = DB_ERROR;
	f = xcalloc(1, sizeof(*f));
	for (i = 0; i < r.l.n && rc == DB_DONE; i = j) {
		char base[ID_MAX];

		j = instance_end(&r.l, i);
		instance_of(r.l.head[i].instance_id, base);
		sp.n = 0;
		for (k = i; k < j && rc == DB_DONE; k++) {
			bind_range(r.minute, r.l.id[k], h0, h1);
			rc = minute_spans(r.minute, (int)(k - i), &sp);
		}
		if (rc != DB_DONE)
			break;
		/* Several GPUs: their minutes side by side, each minute one instant. */
		if (j - i > 1 && sp.n > 1)
			qsort(sp.v, sp.n, sizeof(*sp.v), span_cmp);
		for (k = 0; k < sp.n;) {
			int64_t hour = sp.v[k].t / HOUR * HOUR;

			memset(f, 0, sizeof(*f));
			for (; k < sp.n && sp.v[k].t / HOUR * HOUR == hour; k++)
				fold_add(f, &sp.v[k]);
			fold_close(f);
			if (!hour_write(r.ins, base, hour, f)) {
				rc = DB_ERROR;
				break;
			}
		}
	}
	rebuild_end(&r);
	free(sp.v);
	free(f);
	return rc == DB_DONE;
}

bool
history_rollups_remake(struct state *st, int64_t h0, int64_t h1)
{
	return rollup_hours(st, hour_floor(h0), h1) && gpu_hours(st, hour_floor(h0), h1);
}

/*
 * The roll-ups came after the minute table (samples_hour, then samples_gpu_hour): a
 * database without one gets it here, filled once from every minute row it holds (a month
 * of 50 GPUs: some seconds, once), inside the schema's transaction.
 */
/* samples_gpu_hour: one row per series and hour (history.h); made without the rows. */
static bool
gpu_hour_table(struct db *db)
{
	struct sql q = { .len = 0 };
	size_t k;

	sql_add(&q, "CREATE TABLE samples_gpu_hour(series INTEGER NOT NULL, hour INTEGER NOT NULL,"
	    "n INTEGER NOT NULL, secs INTEGER NOT NULL, source INTEGER NOT NULL");
	for (k = 0; k < NFIELDS; k++) {
		if (fields[k].agg == A_STAT)
			sql_add(&q, ", %s_min INTEGER, %s_sum REAL, %s_weight INTEGER, %s_max INTEGER",
			    fields[k].col, fields[k].col, fields[k].col, fields[k].col);
		else
			sql_add(&q, ", %s INTEGER", fields[k].col);
	}
	sql_add(&q, ", PRIMARY KEY(series, hour)) WITHOUT ROWID;"
	    "CREATE INDEX samples_gpu_hour_at ON samples_gpu_hour(hour);");
	return store_ddl(db, q.buf);
}

static bool
rollups_fill(struct state *st)
{
	struct db *db = state_db(st);
	struct db_stmt *s = NULL;
	int64_t lo = 0, hi = -1;
	bool instance_hours = !store_has_table(db, "samples_hour");
	bool gpu_hours_missing = !store_has_table(db, "samples_gpu_hour");

	if (!instance_hours && !gpu_hours_missing)
		return true;
	if ((instance_hours && !store_ddl(db, sql_hour_table)) ||
	    (gpu_hours_missing && !gpu_hour_table(db)) ||
	    db_prepare_v2(db, "SELECT min(minute), max(minute) FROM samples_minute", -1, &s,
	    NULL) != DB_OK)
		return false;
	if (db_step(s) == DB_ROW && db_column_type(s, 0) != DB_NULL) {
		lo = hour_floor(db_column_int64(s, 0));
		hi = hour_floor(db_column_int64(s, 1)) + HOUR;
	}
	db_finalize(s);
	return (!instance_hours || rollup_hours(st, lo, hi)) &&
	    (!gpu_hours_missing || gpu_hours(st, lo, hi));
}


/* Part of the series list, l->id[lo..hi) (whole instances), read together. */
struct batch {
	const struct series_list *l;
	size_t lo, hi;
	struct batch_id { int64_t id; size_t k; } *by_id;	/* sorted by id */
	struct run { size_t first, n; } *runs[3];	/* per k - lo: its spans in sp[] */
	struct spans sp[3];	/* the minute rows before and after the whole hours, raw */
	bool *any_minute;	/* per k - lo: a minute row in the whole hours */
};

static int
batch_id_cmp(const void *a, const void *b)
{
	const struct batch_id *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The place in the list (k) of series id, or SIZE_MAX where the batch has none. */
static size_t
batch_k(const struct batch *b, int64_t id)
{
	struct batch_id key = { .id = id }, *hit;

	hit = bsearch(&key, b->by_id, b->hi - b->lo, sizeof(key), batch_id_cmp);
	return hit != NULL ? hit->k : SIZE_MAX;
}

/* " IN (?, ...)" with n places into q (bound from ?3 on by batch_prepare). A batch can be
 * one instance's thousands of nodes' GPUs: q grows. */
static void
batch_in(struct sb *q, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sb_adds(q, i == 0 ? " IN (?" : ", ?");
	sb_addc(q, ')');
}

/* q prepared (and released), ?1 and ?2 bound to since and until, ?3... to the batch's
 * series (or, with bases, the n instance ids in bases). */
static struct db_stmt *
batch_prepare(struct db *db, const struct batch *b, struct sb *q, int64_t since,
    int64_t until, const char (*bases)[ID_MAX], size_t n)
{
	struct db_stmt *s;
	size_t i;
	int rc = db_prepare_v2(db, q->buf, -1, &s, NULL);

	sb_release(q);
	if (rc != DB_OK)
		return NULL;
	db_bind_int64(s, 1, since);
	db_bind_int64(s, 2, until);
	for (i = 0; i < n; i++)
		if (bases != NULL)
			db_bind_text(s, (int)i + 3, bases[i], -1, DB_STATIC);
		else
			db_bind_int64(s, (int)i + 3, b->l->id[b->lo + i]);
	return s;
}

/* The batch's rows of [since, until) from samples_minute (which 0 or 1) or samples (2) as
 * spans into b->sp[which], one run of them per series (b->runs[which]). */
static int
batch_spans(struct db *db, struct batch *b, int which, int64_t since, int64_t until)
{
	struct spans *out = &b->sp[which];
	struct run *runs = b->runs[which];
	struct sb q;
	struct db_stmt *s;
	size_t k = SIZE_MAX, nb = b->hi - b->lo;
	int64_t series = -1;
	int rc;

	out->n = 0;
	memset(runs, 0, nb * sizeof(*runs));
	sb_init(&q);
	/* The primary key's range for each series: (series=? AND time>? AND time<?). */
	sb_adds(&q, which < 2 ? "SELECT minute" MINUTE_SPAN_COLS ", series FROM samples_minute "
	    "WHERE minute >= ?1 AND minute < ?2 AND series" : "SELECT at, util, power, series "
	    "FROM samples WHERE at >= ?1 AND at < ?2 AND series");
	batch_in(&q, nb);
	sb_adds(&q, which < 2 ? " ORDER BY series, minute" : " ORDER BY series, at");
	if ((s = batch_prepare(db, b, &q, since, until, NULL, nb)) == NULL)
		return DB_ERROR;
	while ((rc = db_step(s)) == DB_ROW) {
		int64_t id = db_column_int64(s, which < 2 ? 6 : 3);

		if (id != series) {
			series = id;
			if ((k = batch_k(b, id)) == SIZE_MAX)
				continue;
			runs[k - b->lo].first = out->n;
		}
		if (k == SIZE_MAX)
			continue;
		if (which < 2)
			minute_span(s, 0, spans_add(out));
		else
			raw_span(s, 0, spans_add(out));
		runs[k - b->lo].n++;
	}
	db_finalize(s);
	for (k = 0; which == 2 && k < nb; k++)
		if (runs[k].n > 0)
			raw_secs(out->v + runs[k].first, runs[k].n);
	return rc;
}

/* Which of the batch's series have a minute row in [since, until). */
static int
batch_any_minute(struct db *db, struct batch *b, int64_t since, int64_t until)
{
	struct db_stmt *s;
	size_t k, nb = b->hi - b->lo;
	struct sb q;
	int rc;

	memset(b->any_minute, 0, nb * sizeof(*b->any_minute));
	sb_init(&q);
	sb_adds(&q, "SELECT s.id FROM sample_series s WHERE EXISTS (SELECT 1 FROM samples_minute "
	    "m WHERE m.series = s.id AND m.minute >= ?1 AND m.minute < ?2) AND s.id");
	batch_in(&q, nb);
	if ((s = batch_prepare(db, b, &q, since, until, NULL, nb)) == NULL)
		return DB_ERROR;
	while ((rc = db_step(s)) == DB_ROW)
		if ((k = batch_k(b, db_column_int64(s, 0))) != SIZE_MAX)
			b->any_minute[k - b->lo] = true;
	db_finalize(s);
	return rc;
}

/* The batch's whole hours [hlo, hhi) of its ni instances (bases) added to their folds. */
static int
batch_hours(struct db *db, struct batch *b, const char (*bases)[ID_MAX], size_t ni,
    struct fold *f, int64_t hlo, int64_t hhi)
{
	struct db_stmt *s;
	size_t x = SIZE_MAX;
	char id[ID_MAX] = "";
	struct sb q;
	int rc;

	/* Plan: SEARCH samples_hour USING PRIMARY KEY (instance_id=? AND hour>? AND hour<?)
	 * for each instance, its hours in key order (about 720 rows of some 300 bytes for a
	 * month), one instance's after another's. */
	sb_init(&q);
	sb_adds(&q, "SELECT first, last, samples, util_w, util_sum, energy_j, util_secs, "
	    "instant_secs, instance_id FROM samples_hour WHERE hour >= ?1 AND hour < ?2 AND "
	    "instance_id");
	batch_in(&q, ni);
	sb_adds(&q, " ORDER BY instance_id, hour");
	if ((s = batch_prepare(db, b, &q, hlo, hhi, bases, ni)) == NULL)
		return DB_ERROR;
	while ((rc = db_step(s)) == DB_ROW) {
		const char *t = (const char *)db_column_text(s, 8);

		if (t == NULL)
			continue;
		if (strcmp(t, id) != 0) {
			strlcpy_(id, t, sizeof(id));
			for (x = 0; x < ni && strcmp(bases[x], id) != 0; x++)
				;
		}
		if (x < ni)
			fold_add_hour(&f[x], s);
	}
	db_finalize(s);
	return rc;
}

static void
batch_release(struct batch *b)
{
	int w;

	free(b->by_id);
	for (w = 0; w < 3; w++) {
		free(b->runs[w]);
		free(b->sp[w].v);
	}
	free(b->any_minute);
}

enum gr_err
samples_summary(struct state *st, const char *instance_id, int64_t since, int64_t until,
    int idle_pct, struct sample_summary **out, size_t *n, struct gr_error *err)
{
	struct db *db = state_db(st);
	struct sample_summary *v = NULL;
	struct spans sp = { 0 };
	struct series_list l;
	struct batch b;
	struct fold *f = NULL;
	char (*bases)[ID_MAX] = NULL;
	size_t *ends = NULL;
	int *gpus = NULL;
	size_t nv = 0, i, j, k, x, ni;
	int64_t hlo, hhi;
	int rc = DB_DONE, w;

	*out = NULL;
	*n = 0;
	if (until <= 0)
		until = INT64_MAX;
	idle_pct = idle_pct < 0 ? 0 : idle_pct > 100 ? 100 : idle_pct;	/* history.h: 0..100 */
	/*
	 * The whole hours of the range come from samples_hour, [hlo, hhi); minute rows only
	 * at its two ends, [since, hlo) and [hhi, until), where the range cuts an hour; raw
	 * samples (never in samples_hour) over the whole range. With no whole hour inside,
	 * the minute rows of the whole range.
	 */
	whole_hours(since, until, &hlo, &hhi);
	if (!series_list_read(st, instance_id, &l))
		return state_fail(st, err, "cannot summarise the sample history");
	memset(&b, 0, sizeof(b));
	b.l = &l;
	if (l.n > 0) {
		v = xreallocarray(NULL, l.n, sizeof(*v));
		b.by_id = xreallocarray(NULL, l.n, sizeof(*b.by_id));
		for (w = 0; w < 3; w++)
			b.runs[w] = xreallocarray(NULL, l.n, sizeof(*b.runs[w]));
		b.any_minute = xreallocarray(NULL, l.n, sizeof(*b.any_minute));
		bases = xreallocarray(NULL, l.n, sizeof(*bases));
		ends = xreallocarray(NULL, l.n, sizeof(*ends));
		gpus = xreallocarray(NULL, l.n, sizeof(*gpus));
		f = xreallocarray(NULL, l.n, sizeof(*f));
	}
	for (b.lo = 0; b.lo < l.n && rc == DB_DONE; b.lo = b.hi) {
		/* Whole instances, SAMPLES_SUMMARY_BATCH series or just over. */
		for (ni = 0, b.hi = b.lo; b.hi < l.n && (ni == 0 || b.hi - b.lo < SAMPLES_SUMMARY_BATCH);
		    ni++) {
			instance_of(l.head[b.hi].instance_id, bases[ni]);
			b.hi = ends[ni] = instance_end(&l, b.hi);
		}
		for (k = b.lo; k < b.hi; k++) {
			b.by_id[k - b.lo].id = l.id[k];
			b.by_id[k - b.lo].k = k;
		}
		qsort(b.by_id, b.hi - b.lo, sizeof(*b.by_id), batch_id_cmp);
		if ((rc = batch_spans(db, &b, 0, since, hlo)) != DB_DONE ||
		    (hhi < until && (rc = batch_spans(db, &b, 1, hhi, until)) != DB_DONE) ||
		    (rc = batch_spans(db, &b, 2, since, until)) != DB_DONE ||
		    (hlo < hhi && (rc = batch_any_minute(db, &b, hlo, hhi)) != DB_DONE))
			break;
		if (!(hhi < until))
			memset(b.runs[1], 0, (b.hi - b.lo) * sizeof(*b.runs[1]));
		for (x = 0, i = b.lo; x < ni; i = j, x++) {
			j = ends[x];
			gpus[x] = 0;
			sp.n = 0;
			/* Each GPU of each node its own (gpu: its place in the instance's series),
			 * its cut hours' minutes, then its raw samples. */
			for (k = i; k < j; k++) {
				size_t before = sp.n, r;

				for (w = 0; w < 3; w++) {
					const struct run *run = &b.runs[w][k - b.lo];

					for (r = 0; r < run->n; r++) {
						struct span *p = spans_add(&sp);

						*p = b.sp[w].v[run->first + r];
						p->gpu = (int)(k - i);
					}
				}
				/* A GPU seen in the range: a span, or a minute row of its whole
				 * hours. */
				gpus[x] += sp.n > before || (hlo < hhi && b.any_minute[k - b.lo]);
			}
			/*
			 * Spans side by side in time: one instant is every GPU's span at one
			 * time. One GPU's come in order already (the cut hours' minutes, then the
			 * raw samples of the last day): checked in a pass, sorted only when not.
			 */
			if (!spans_sorted(&sp))
				qsort(sp.v, sp.n, sizeof(*sp.v), span_cmp);
			memset(&f[x], 0, sizeof(f[x]));
			for (k = 0; k < sp.n; k++)
				fold_add(&f[x], &sp.v[k]);
		}
		if (hlo < hhi && (rc = batch_hours(db, &b, (const char (*)[ID_MAX])bases, ni, f,
		    hlo, hhi)) != DB_DONE)
			break;
		for (x = 0; x < ni; x++) {
			if (!f[x].any)
				continue;
			memset(&v[nv], 0, sizeof(v[nv]));
			fold_summary(&f[x], idle_pct, &v[nv]);
			v[nv].gpus = gpus[x];
			strlcpy_(v[nv].instance_id, bases[x], sizeof(v[nv].instance_id));
			nv++;
		}
	}
	batch_release(&b);
	free(bases);
	free(ends);
	free(gpus);
	free(f);
	free(sp.v);
	series_list_release(&l);
	if (rc != DB_DONE) {
		free(v);
		return state_fail(st, err, "cannot summarise the sample history");
	}
	if (nv == 0) {
		free(v);
		v = NULL;
	}
	*out = v;
	*n = nv;
	return GR_OK;
}
