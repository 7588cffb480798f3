/*
 * idcache.c - the ids of offers and instances last seen, kept in the database for
 * completion and short ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/idcache.h"
#include "gpurent/money.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "store_int.h"

#define OFFER_CACHE_MAX 1000

/* Rows written per statement: on PostgreSQL a statement is a round trip to the server,
 * which for `ls` over 1,000 instances was 1,000 of them. */
#define PUT_BATCH 100

/* Rows on their way into the cache, in the order they were put. */
struct putter {
	struct state *st;
	enum idcache_kind kind;
	int64_t next;		/* the rowid the next row takes: the order it is read in */
	size_t n;
	struct {
		const char *id, *provider;
		char descr[384];
	} rows[PUT_BATCH];
};

/* The pending rows written, each replacing its id's row, as INSERT OR REPLACE would, in SQL
 * PostgreSQL speaks too: a row put again moves to the end of the order (rowid: SQLite's
 * own, a column on PostgreSQL). */
static enum gr_err
flush(struct putter *p, struct gr_error *err)
{
	struct db_stmt *q;
	struct sb sql;
	size_t i;
	int k = 1, rc;

	if (p->n == 0)
		return GR_OK;
	sb_init(&sql);
	sb_adds(&sql, "INSERT INTO idcache(rowid, id, kind, provider, descr) VALUES");
	for (i = 0; i < p->n; i++)
		sb_adds(&sql, i == 0 ? "(?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?)");
	sb_adds(&sql, " ON CONFLICT(id) DO UPDATE SET rowid = excluded.rowid, kind = "
	    "excluded.kind, provider = excluded.provider, descr = excluded.descr");
	rc = db_prepare_v2(state_db(p->st), sql.buf, -1, &q, NULL);
	sb_release(&sql);
	if (rc != DB_OK)
		return state_fail(p->st, err, "cannot update the id cache");
	for (i = 0; i < p->n; i++) {
		db_bind_int64(q, k++, p->next++);
		db_bind_text(q, k++, p->rows[i].id, -1, DB_STATIC);
		db_bind_int(q, k++, p->kind);
		db_bind_text(q, k++, p->rows[i].provider, -1, DB_STATIC);
		db_bind_text(q, k++, p->rows[i].descr, -1, DB_STATIC);
	}
	rc = db_step(q);
	db_finalize(q);
	p->n = 0;
	if (rc != DB_DONE)
		return state_fail(p->st, err, "cannot update the id cache");
	return GR_OK;
}

/* Rows are put after the last row of the cache. */
static enum gr_err
putter_init(struct putter *p, struct state *st, enum idcache_kind kind, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT coalesce(max(rowid), 0) FROM idcache", "");

	p->st = st;
	p->kind = kind;
	p->n = 0;
	if (q == NULL || db_step(q) != DB_ROW) {
		db_finalize(q);
		return state_fail(st, err, "cannot update the id cache");
	}
	p->next = db_column_int64(q, 0) + 1;
	db_finalize(q);
	return GR_OK;
}

/* A row to put, its descr to fill; NULL on an SQL error. A second row of an id already
 * pending is put after the first is written: one statement may not touch a row twice on
 * PostgreSQL. */
static char *
put(struct putter *p, const char *id, const char *provider, struct gr_error *err)
{
	size_t i;

	for (i = 0; i < p->n && strcmp(p->rows[i].id, id) != 0; i++)
		;
	if ((i < p->n || p->n == PUT_BATCH) && flush(p, err) != GR_OK)
		return NULL;
	p->rows[p->n].id = id;
	p->rows[p->n].provider = provider;
	return p->rows[p->n++].descr;
}

enum gr_err
idcache_put_offers(struct state *st, const struct offer *v, size_t n, struct gr_error *err)
{
	struct putter *p = xmalloc(sizeof(*p));
	char price[32], g[64], *descr;
	size_t i;

	if (state_begin(st, err) != GR_OK) {
		free(p);
		return err->code;
	}
	if (db_exec(state_db(st), "DELETE FROM idcache WHERE kind = 0", NULL, NULL, NULL) !=
	    DB_OK) {
		state_fail(st, err, "cannot update the id cache");
		goto fail;
	}
	if (putter_init(p, st, IDC_OFFER, err) != GR_OK)
		goto fail;
	for (i = 0; i < n && i < OFFER_CACHE_MAX; i++) {
		if ((descr = put(p, v[i].id, v[i].provider, err)) == NULL)
			goto fail;
		snprintf(descr, sizeof(p->rows[0].descr), "%dx %s %s/h %s", v[i].gpu_count,
		    catalogue_display(v[i].gpu, v[i].gpu_raw, g, sizeof(g)), money_format_in(price,
		    sizeof(price), v[i].price_hour, 2, v[i].currency), v[i].region);
	}
	if (flush(p, err) != GR_OK)
		goto fail;
	free(p);
	return state_commit(st, err);
fail:
	free(p);
	state_rollback(st);
	return err->code;
}

enum gr_err
idcache_put_instances(struct state *st, const struct instance *v, size_t n, bool replace,
    struct gr_error *err)
{
	struct putter *p = xmalloc(sizeof(*p));
	char g[64], *descr;
	size_t i;

	if (state_begin(st, err) != GR_OK) {
		free(p);
		return err->code;
	}
	/* Each provider's rows deleted once (a list holds one provider's instances together;
	 * deleting again where it does not is harmless). */
	for (i = 0; replace && i < n; i++)
		if ((i == 0 || strcmp(v[i].provider, v[i - 1].provider) != 0) &&
		    !store_run(st, "DELETE FROM idcache WHERE kind = 1 AND provider = ?", "t",
		    v[i].provider)) {
			state_fail(st, err, "cannot update the id cache");
			goto fail;
		}
	if (putter_init(p, st, IDC_INSTANCE, err) != GR_OK)
		goto fail;
	for (i = 0; i < n; i++) {
		if ((descr = put(p, v[i].id, v[i].provider, err)) == NULL)
			goto fail;
		snprintf(descr, sizeof(p->rows[0].descr), "%s %dx %s %s",
		    inst_state_name(v[i].state), v[i].gpu_count, catalogue_display(v[i].gpu,
		    v[i].gpu_raw, g, sizeof(g)), v[i].label);
	}
	if (flush(p, err) != GR_OK)
		goto fail;
	free(p);
	return state_commit(st, err);
fail:
	free(p);
	state_rollback(st);
	return err->code;
}

enum gr_err
idcache_each(struct state *st, enum idcache_kind kind, const char *prefix,
    void (*fn)(const char *, const char *, void *), void *ctx, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT id, descr FROM idcache WHERE kind = ? AND "
	    "substr(id, 1, ?) = ? ORDER BY rowid", "iit", (int)kind, (int)strlen(prefix), prefix);

	if (q == NULL)
		return state_fail(st, err, "cannot read the id cache");
	while (db_step(q) == DB_ROW)
		fn((const char *)db_column_text(q, 0), (const char *)db_column_text(q, 1),
		    ctx);
	db_finalize(q);
	return GR_OK;
}
