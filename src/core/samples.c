/*
 * samples.c - GPU sample history: raw samples for a day, minute aggregates for a month.
 *
 * The SQL is generated from one table of fields (fields[] below), so a field added to
 * struct gpu_sample is stored, aggregated and read back by adding one line.
 */
#include <math.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/samples.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

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

/* Aggregate bit_or(x) for the throttle reasons, which SQLite lacks. */
static void
bit_or_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t *acc = sqlite3_aggregate_context(ctx, sizeof(*acc) * 2);

	(void)argc;
	if (acc == NULL || sqlite3_value_type(argv[0]) == SQLITE_NULL)
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

/* The tables, indexes and the bit_or function, made on first use by this connection. */
static enum gr_err
ensure(struct state *st, struct gr_error *err)
{
	sqlite3 *db = state_db(st);
	struct sql q = { .len = 0 };
	char *msg = NULL;
	size_t i;

	if (sqlite3_create_function(db, "gr_bit_or", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
	    NULL, bit_or_step, bit_or_final) != SQLITE_OK)
		return state_fail(st, err, "cannot prepare the sample history");
	sql_add(&q, "CREATE TABLE IF NOT EXISTS sample_series("
	    "id INTEGER PRIMARY KEY, instance_id TEXT NOT NULL, gpu INTEGER NOT NULL,"
	    "uuid TEXT, name TEXT, driver TEXT, UNIQUE(instance_id, gpu));"
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
	if (sqlite3_exec(db, q.buf, NULL, NULL, &msg) != SQLITE_OK) {
		gr_fail(err, GR_ESTATE, "cannot make the sample history tables: %s (%s)",
		    msg ? msg : sqlite3_errmsg(db), state_path(st));
		sqlite3_free(msg);
		return GR_ESTATE;
	}
	return GR_OK;
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
bind_text_or_null(sqlite3_stmt *s, int i, const char *v)
{
	if (v[0] == '\0')
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

enum gr_err
samples_store(struct state *st, const struct gpu_sample *v, size_t n, struct gr_error *err)
{
	sqlite3 *db = state_db(st);
	sqlite3_stmt *ser = NULL, *ins = NULL;
	struct sql q = { .len = 0 };
	size_t i, k;
	enum gr_err rc = GR_OK;

	if (n == 0)
		return GR_OK;
	if (ensure(st, err) != GR_OK)
		return err->code;
	sql_add(&q, "INSERT OR REPLACE INTO samples(series, at, source");
	for (k = 0; k < NFIELDS; k++)
		sql_add(&q, ", %s", fields[k].col);
	sql_add(&q, ") VALUES(?, ?, ?");
	for (k = 0; k < NFIELDS; k++)
		sql_add(&q, ", ?");
	sql_add(&q, ")");
	if (sqlite3_prepare_v2(db, "INSERT INTO sample_series(instance_id, gpu, uuid, name, driver) "
	    "VALUES(?, ?, ?, ?, ?) ON CONFLICT(instance_id, gpu) DO UPDATE SET "
	    "uuid = coalesce(excluded.uuid, uuid), name = coalesce(excluded.name, name), "
	    "driver = coalesce(excluded.driver, driver) RETURNING id", -1, &ser, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, q.buf, -1, &ins, NULL) != SQLITE_OK) {
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

		sqlite3_reset(ser);
		sqlite3_bind_text(ser, 1, g->instance_id, -1, SQLITE_STATIC);
		sqlite3_bind_int(ser, 2, g->index);
		bind_text_or_null(ser, 3, g->uuid);
		bind_text_or_null(ser, 4, g->name);
		bind_text_or_null(ser, 5, g->driver);
		if (sqlite3_step(ser) != SQLITE_ROW)
			goto fail;
		series = sqlite3_column_int64(ser, 0);
		while (sqlite3_step(ser) == SQLITE_ROW)
			;
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, series);
		sqlite3_bind_int64(ins, 2, g->at);
		sqlite3_bind_int(ins, 3, g->source);
		for (k = 0; k < NFIELDS; k++) {
			if (g->valid & fields[k].bit)
				sqlite3_bind_int64(ins, (int)k + 4, field_get(g, &fields[k]));
			else
				sqlite3_bind_null(ins, (int)k + 4);
		}
		if (sqlite3_step(ins) != SQLITE_DONE)
			goto fail;
	}
	rc = state_commit(st, err);
	goto out;
fail:
	rc = state_fail(st, err, "cannot store samples");
	state_rollback(st);
out:
	sqlite3_finalize(ser);
	sqlite3_finalize(ins);
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
	    "AS dt FROM samples WHERE %s WINDOW w AS (PARTITION BY series ORDER BY at))",
	    SAMPLES_GAP_MAX, where);
}

/* The minute-aggregate columns of raw rows grouped by minute (after series, minute). */
static void
sql_minute_aggs(struct sql *q)
{
	size_t k;

	sql_add(q, ", count(*), sum(dt), max(source)");
	for (k = 0; k < NFIELDS; k++) {
		const char *c = fields[k].col;

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
	sqlite3 *db = state_db(st);
	int64_t cutoff = (now - SAMPLES_RAW_KEEP) / 60 * 60;
	int64_t drop = now - SAMPLES_MINUTE_KEEP;
	struct sql q = { .len = 0 };
	sqlite3_stmt *s = NULL;
	char window[64];
	bool due = false;
	size_t k;
	int step;

	if (ensure(st, err) != GR_OK)
		return err->code;
	if (sqlite3_prepare_v2(db, "SELECT EXISTS(SELECT 1 FROM samples WHERE at < ?1) OR "
	    "EXISTS(SELECT 1 FROM samples_minute WHERE minute < ?2)", -1, &s, NULL) != SQLITE_OK)
		return state_fail(st, err, "cannot compact the sample history");
	sqlite3_bind_int64(s, 1, cutoff);
	sqlite3_bind_int64(s, 2, drop);
	if (sqlite3_step(s) == SQLITE_ROW)
		due = sqlite3_column_int(s, 0) != 0;
	sqlite3_finalize(s);
	if (!due)
		return GR_OK;

	/* The window sees a little past the cutoff, so the last sample's dt is its real gap. */
	sql_add(&q, "INSERT OR IGNORE INTO samples_minute(series, minute, n, secs, source");
	for (k = 0; k < NFIELDS; k++) {
		if (fields[k].agg == A_STAT)
			sql_add(&q, ", %s_min, %s_mean, %s_max", fields[k].col, fields[k].col,
			    fields[k].col);
		else
			sql_add(&q, ", %s", fields[k].col);
	}
	sql_add(&q, ") SELECT series, at / 60 * 60");
	sql_minute_aggs(&q);
	sql_add(&q, " FROM ");
	snprintf(window, sizeof(window), "at < ?1 + %d", SAMPLES_GAP_MAX);
	sql_raw_dt(&q, window);
	sql_add(&q, " WHERE at < ?1 GROUP BY series, at / 60 * 60;"
	    "DELETE FROM samples WHERE at < ?1;"
	    "DELETE FROM samples_minute WHERE minute < ?2;"
	    "DELETE FROM sample_series WHERE NOT EXISTS (SELECT 1 FROM samples WHERE series = id) "
	    "AND NOT EXISTS (SELECT 1 FROM samples_minute WHERE series = id);");

	if (state_begin(st, err) != GR_OK)
		return err->code;
	{
		const char *tail = q.buf;

		while (*tail != '\0') {
			if (sqlite3_prepare_v2(db, tail, -1, &s, &tail) != SQLITE_OK)
				goto fail;
			if (s == NULL)
				break;
			if (sqlite3_bind_parameter_count(s) >= 1)
				sqlite3_bind_int64(s, 1, cutoff);
			if (sqlite3_bind_parameter_count(s) >= 2)
				sqlite3_bind_int64(s, 2, drop);
			step = sqlite3_step(s);
			sqlite3_finalize(s);
			s = NULL;
			if (step != SQLITE_DONE)
				goto fail;
		}
	}
	return state_commit(st, err);
fail:
	{
		enum gr_err rc = state_fail(st, err, "cannot compact the sample history");

		sqlite3_finalize(s);
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
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->v = xreallocarray(r->v, r->cap, sizeof(*r->v));
	}
	memset(&r->v[r->n], 0, sizeof(r->v[r->n]));
	return &r->v[r->n++];
}

static void
column_text(sqlite3_stmt *s, int i, char *buf, size_t n)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	strlcpy_(buf, t ? (const char *)t : "", n);
}

/*
 * The columns every history row starts with: instance_id, gpu, uuid, name, driver, time,
 * n, secs, source. Returns the index of the first field column.
 */
static int
read_head(sqlite3_stmt *s, struct sample_row *r)
{
	column_text(s, 0, r->s.instance_id, sizeof(r->s.instance_id));
	r->s.index = sqlite3_column_int(s, 1);
	column_text(s, 2, r->s.uuid, sizeof(r->s.uuid));
	column_text(s, 3, r->s.name, sizeof(r->s.name));
	column_text(s, 4, r->s.driver, sizeof(r->s.driver));
	r->s.at = sqlite3_column_int64(s, 5);
	r->n = sqlite3_column_int(s, 6);
	r->secs = sqlite3_column_int(s, 7);
	r->s.source = sqlite3_column_int(s, 8) == SAMPLE_SSH ? SAMPLE_SSH : SAMPLE_API;
	return 9;
}

enum gr_err
samples_history(struct state *st, const char *instance_id, int64_t since, int64_t until,
    int step, struct sample_rows *out, struct gr_error *err)
{
	sqlite3 *db = state_db(st);
	struct sql q = { .len = 0 };
	sqlite3_stmt *s;
	const char *range = "series IN (SELECT id FROM sample_series WHERE ?1 IS NULL OR "
	    "instance_id = ?1) AND at >= ?2 AND at < ?3";
	size_t k;
	int rc;

	if (step < 0 || step % 60 != 0)
		return gr_fail(err, GR_EUSAGE, "a history step is a whole number of minutes");
	if (ensure(st, err) != GR_OK)
		return err->code;
	if (until <= 0)
		until = INT64_MAX;
	sql_add(&q, "SELECT ss.instance_id, ss.gpu, ss.uuid, ss.name, ss.driver, ");
	if (step == 0) {
		sql_add(&q, "r.at, 1, r.dt, r.source");
		for (k = 0; k < NFIELDS; k++)
			sql_add(&q, ", r.%s", fields[k].col);
		sql_add(&q, " FROM ");
		sql_raw_dt(&q, range);
		sql_add(&q, " r JOIN sample_series ss ON ss.id = r.series ORDER BY ss.instance_id, "
		    "ss.gpu, r.at");
	} else {
		/* Minute rows from both tables (disjoint in time), then buckets of step. */
		sql_add(&q, "m.t / %d * %d AS b, sum(m.n), sum(m.secs), max(m.source)", step, step);
		for (k = 0; k < NFIELDS; k++) {
			const char *c = fields[k].col;

			switch (fields[k].agg) {
			case A_STAT:
				sql_add(&q, ", min(m.%s_min), sum(m.%s_mean * m.n) / sum(CASE WHEN "
				    "m.%s_mean IS NOT NULL THEN m.n END), max(m.%s_max)", c, c, c, c);
				break;
			case A_MAX: sql_add(&q, ", max(m.%s)", c); break;
			case A_MIN: sql_add(&q, ", min(m.%s)", c); break;
			case A_OR: sql_add(&q, ", gr_bit_or(m.%s)", c); break;
			}
		}
		sql_add(&q, " FROM (SELECT series, minute AS t, n, secs, source");
		for (k = 0; k < NFIELDS; k++) {
			if (fields[k].agg == A_STAT)
				sql_add(&q, ", %s_min, %s_mean, %s_max", fields[k].col, fields[k].col,
				    fields[k].col);
			else
				sql_add(&q, ", %s", fields[k].col);
		}
		sql_add(&q, " FROM samples_minute WHERE series IN (SELECT id FROM sample_series "
		    "WHERE ?1 IS NULL OR instance_id = ?1) AND minute >= ?2 AND minute < ?3 "
		    "UNION ALL SELECT series, at / 60 * 60");
		sql_minute_aggs(&q);
		sql_add(&q, " FROM ");
		sql_raw_dt(&q, range);
		sql_add(&q, " GROUP BY series, at / 60 * 60) m JOIN sample_series ss ON "
		    "ss.id = m.series GROUP BY m.series, b ORDER BY ss.instance_id, ss.gpu, b");
	}
	if (sqlite3_prepare_v2(db, q.buf, -1, &s, NULL) != SQLITE_OK)
		return state_fail(st, err, "cannot read the sample history");
	if (instance_id != NULL)
		sqlite3_bind_text(s, 1, instance_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, since);
	sqlite3_bind_int64(s, 3, until);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct sample_row *r = sample_rows_add(out);
		int col = read_head(s, r);

		r->step = step;
		for (k = 0; k < NFIELDS; k++) {
			const struct field *f = &fields[k];

			if (f->agg == A_STAT && step > 0) {
				if (sqlite3_column_type(s, col + 1) != SQLITE_NULL) {
					double mean = sqlite3_column_double(s, col + 1);

					r->s.valid |= f->bit;
					r->min[f->stat] = sqlite3_column_double(s, col);
					r->mean[f->stat] = mean;
					r->max[f->stat] = sqlite3_column_double(s, col + 2);
					field_set(&r->s, f, llround(mean));
				}
				col += 3;
				continue;
			}
			if (sqlite3_column_type(s, col) != SQLITE_NULL) {
				int64_t v = sqlite3_column_int64(s, col);

				r->s.valid |= f->bit;
				field_set(&r->s, f, v);
				if (f->agg == A_STAT)
					r->min[f->stat] = r->mean[f->stat] = r->max[f->stat] = (double)v;
			}
			col++;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return state_fail(st, err, "cannot read the sample history");
	return GR_OK;
}

enum gr_err
samples_latest(struct state *st, const char *instance_id, struct sample_list *out,
    struct gr_error *err)
{
	sqlite3 *db = state_db(st);
	struct sql q = { .len = 0 };
	sqlite3_stmt *s;
	size_t k;
	int rc;

	if (ensure(st, err) != GR_OK)
		return err->code;
	sql_add(&q, "SELECT ss.instance_id, ss.gpu, ss.uuid, ss.name, ss.driver, r.at, 1, 0, "
	    "r.source");
	for (k = 0; k < NFIELDS; k++)
		sql_add(&q, ", r.%s", fields[k].col);
	sql_add(&q, " FROM sample_series ss JOIN samples r ON r.series = ss.id AND r.at = "
	    "(SELECT max(at) FROM samples WHERE series = ss.id) WHERE ?1 IS NULL OR "
	    "ss.instance_id = ?1 ORDER BY ss.instance_id, ss.gpu");
	if (sqlite3_prepare_v2(db, q.buf, -1, &s, NULL) != SQLITE_OK)
		return state_fail(st, err, "cannot read the latest samples");
	if (instance_id != NULL)
		sqlite3_bind_text(s, 1, instance_id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct sample_row r;
		int col;

		memset(&r, 0, sizeof(r));
		col = read_head(s, &r);
		for (k = 0; k < NFIELDS; k++, col++) {
			if (sqlite3_column_type(s, col) != SQLITE_NULL) {
				r.s.valid |= fields[k].bit;
				field_set(&r.s, &fields[k], sqlite3_column_int64(s, col));
			}
		}
		*sample_list_add(out) = r.s;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return state_fail(st, err, "cannot read the latest samples");
	return GR_OK;
}

/* A utilisation figure with the seconds it stands for, for the percentile. */
struct weighted {
	double v, w;
};

static int
weighted_cmp(const void *a, const void *b)
{
	const struct weighted *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

/* What is being summed for the current instance. */
struct acc {
	struct sample_summary *sum;
	uint64_t gpus_lo;		/* GPU indices 0..63 seen */
	int gpus_hi;			/* 1 when any index above was seen (counted as one GPU) */
	double util_w, util_sum, energy_j;
	struct weighted *u;
	size_t nu, capu;
	/* the current instant: its covered seconds, and whether all GPUs were idle */
	int64_t t;
	double t_secs;
	bool t_idle, t_open;
};

static void
acc_close_instant(struct acc *a)
{
	if (!a->t_open)
		return;
	a->sum->covered_s += (int64_t)a->t_secs;
	if (a->t_idle)
		a->sum->idle_s += (int64_t)a->t_secs;
	a->t_open = false;
}

static void
acc_finish(struct acc *a)
{
	struct sample_summary *m = a->sum;
	double want, run = 0;
	size_t i;

	acc_close_instant(a);
	m->gpus = __builtin_popcountll(a->gpus_lo) + a->gpus_hi;
	if (a->util_w > 0) {
		m->util_known = true;
		m->util_mean = a->util_sum / a->util_w;
		qsort(a->u, a->nu, sizeof(*a->u), weighted_cmp);
		want = a->util_w * 0.95;
		m->util_p95 = a->nu ? a->u[a->nu - 1].v : 0;
		for (i = 0; i < a->nu; i++) {
			run += a->u[i].w;
			if (run >= want) {
				m->util_p95 = a->u[i].v;
				break;
			}
		}
	}
	m->energy_wh = a->energy_j / 3600.0;
	a->nu = 0;
}

/*
 * One GPU's figures over `secs` seconds at time t: util (util_known), its idle test
 * (idle_util, the highest utilisation in the span), power (power_known), n samples.
 */
static void
acc_add(struct acc *a, int64_t t, int gpu, double secs, bool util_known, double util,
    double idle_util, int idle_pct, bool power_known, double power, int n)
{
	struct sample_summary *m = a->sum;

	if (!a->t_open || t != a->t) {
		acc_close_instant(a);
		a->t = t;
		a->t_open = true;
		a->t_secs = 0;
		a->t_idle = true;
	}
	if (secs > a->t_secs)
		a->t_secs = secs;
	/* A GPU whose utilisation is unknown keeps the instant from counting as idle. */
	if (!util_known || idle_util >= idle_pct)
		a->t_idle = false;
	if (gpu >= 0 && gpu < 64)
		a->gpus_lo |= 1ull << gpu;
	else
		a->gpus_hi = 1;
	if (m->samples == 0 || t < m->first)
		m->first = t;
	if (t > m->last)
		m->last = t;
	m->samples += n;
	if (util_known && secs > 0) {
		a->util_w += secs;
		a->util_sum += util * secs;
		if (a->nu == a->capu) {
			a->capu = a->capu ? a->capu * 2 : 256;
			a->u = xreallocarray(a->u, a->capu, sizeof(*a->u));
		}
		a->u[a->nu].v = util;
		a->u[a->nu++].w = secs;
	}
	if (power_known) {
		m->energy_known = true;
		a->energy_j += power * secs;
	}
}

enum gr_err
samples_summary(struct state *st, const char *instance_id, int64_t since, int64_t until,
    int idle_pct, struct sample_summary **out, size_t *n, struct gr_error *err)
{
	sqlite3 *db = state_db(st);
	struct sql q = { .len = 0 };
	struct sample_summary *v = NULL;
	size_t nv = 0, cap = 0;
	struct acc a;
	sqlite3_stmt *s;
	int rc;

	*out = NULL;
	*n = 0;
	if (ensure(st, err) != GR_OK)
		return err->code;
	if (until <= 0)
		until = INT64_MAX;
	/*
	 * Minute rows and raw samples (disjoint in time) as one stream ordered by instance
	 * and time: instance, t, gpu, secs, util (mean), util for the idle test (max), power
	 * (mean), samples.
	 */
	sql_add(&q, "SELECT ss.instance_id, m.minute AS t, ss.gpu, m.secs, m.util_mean, "
	    "m.util_max, m.power_mean, m.n FROM samples_minute m JOIN sample_series ss ON "
	    "ss.id = m.series WHERE (?1 IS NULL OR ss.instance_id = ?1) AND m.minute >= ?2 AND "
	    "m.minute < ?3 UNION ALL SELECT ss.instance_id, r.at, ss.gpu, r.dt, r.util, r.util, "
	    "r.power, 1 FROM ");
	sql_raw_dt(&q, "series IN (SELECT id FROM sample_series WHERE ?1 IS NULL OR "
	    "instance_id = ?1) AND at >= ?2 AND at < ?3");
	sql_add(&q, " r JOIN sample_series ss ON ss.id = r.series ORDER BY 1, 2");
	if (sqlite3_prepare_v2(db, q.buf, -1, &s, NULL) != SQLITE_OK)
		return state_fail(st, err, "cannot summarise the sample history");
	if (instance_id != NULL)
		sqlite3_bind_text(s, 1, instance_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, since);
	sqlite3_bind_int64(s, 3, until);
	memset(&a, 0, sizeof(a));
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(s, 0);

		if (a.sum == NULL || strcmp(a.sum->instance_id, id ? id : "") != 0) {
			if (a.sum != NULL)
				acc_finish(&a);
			if (nv == cap) {
				cap = cap ? cap * 2 : 8;
				v = xreallocarray(v, cap, sizeof(*v));
			}
			memset(&v[nv], 0, sizeof(v[nv]));
			strlcpy_(v[nv].instance_id, id ? id : "", sizeof(v[nv].instance_id));
			a.sum = &v[nv++];
			a.gpus_lo = 0;
			a.gpus_hi = 0;
			a.util_w = a.util_sum = a.energy_j = 0;
			a.t_open = false;
		}
		acc_add(&a, sqlite3_column_int64(s, 1), sqlite3_column_int(s, 2),
		    sqlite3_column_double(s, 3), sqlite3_column_type(s, 4) != SQLITE_NULL,
		    sqlite3_column_double(s, 4), sqlite3_column_double(s, 5), idle_pct,
		    sqlite3_column_type(s, 6) != SQLITE_NULL, sqlite3_column_double(s, 6),
		    sqlite3_column_int(s, 7));
	}
	sqlite3_finalize(s);
	if (a.sum != NULL)
		acc_finish(&a);
	free(a.u);
	if (rc != SQLITE_DONE) {
		free(v);
		return state_fail(st, err, "cannot summarise the sample history");
	}
	*out = v;
	*n = nv;
	return GR_OK;
}
