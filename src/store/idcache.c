/*
 * idcache.c - the ids of offers and instances last seen, kept in the database for
 * completion and short ids.
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/idcache.h"
#include "gpurent/money.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "store_int.h"

#define OFFER_CACHE_MAX 1000

static enum gr_err
put(struct state *st, struct db_stmt *q, const char *id, enum idcache_kind kind,
    const char *provider, const char *descr, struct gr_error *err)
{
	db_reset(q);
	db_bind_text(q, 1, id, -1, DB_STATIC);
	db_bind_int(q, 2, kind);
	db_bind_text(q, 3, provider, -1, DB_STATIC);
	db_bind_text(q, 4, descr, -1, DB_STATIC);
	if (db_step(q) != DB_DONE)
		return state_fail(st, err, "cannot update the id cache");
	return GR_OK;
}

/*
 * Replace the id's row, as INSERT OR REPLACE would, in SQL PostgreSQL speaks too: a row put
 * again moves to the end of the order (rowid: SQLite's own, a column on PostgreSQL).
 */
#define PUT_SQL "INSERT INTO idcache(rowid, id, kind, provider, descr) VALUES((SELECT " \
	"coalesce(max(rowid), 0) + 1 FROM idcache), ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET " \
	"rowid = excluded.rowid, kind = excluded.kind, provider = excluded.provider, " \
	"descr = excluded.descr"

enum gr_err
idcache_put_offers(struct state *st, const struct offer *v, size_t n, struct gr_error *err)
{
	struct db_stmt *q = NULL;
	char descr[384], price[32], g[64];
	size_t i;

	if (state_begin(st, err) != GR_OK)
		return err->code;
	if (db_exec(state_db(st), "DELETE FROM idcache WHERE kind = 0", NULL, NULL, NULL) !=
	    DB_OK || db_prepare_v2(state_db(st), PUT_SQL, -1, &q, NULL) != DB_OK) {
		state_fail(st, err, "cannot update the id cache");
		goto fail;
	}
	for (i = 0; i < n && i < OFFER_CACHE_MAX; i++) {
		snprintf(descr, sizeof(descr), "%dx %s %s/h %s", v[i].gpu_count,
		    catalogue_display(v[i].gpu, v[i].gpu_raw, g, sizeof(g)), money_format_in(price,
		    sizeof(price), v[i].price_hour, 2, v[i].currency), v[i].region);
		if (put(st, q, v[i].id, IDC_OFFER, v[i].provider, descr, err) != GR_OK)
			goto fail;
	}
	db_finalize(q);
	return state_commit(st, err);
fail:
	db_finalize(q);
	state_rollback(st);
	return err->code;
}

enum gr_err
idcache_put_instances(struct state *st, const struct instance *v, size_t n, bool replace,
    struct gr_error *err)
{
	struct db_stmt *q = NULL, *del = NULL;
	char descr[384], g[64];
	size_t i;

	if (state_begin(st, err) != GR_OK)
		return err->code;
	if (db_prepare_v2(state_db(st), PUT_SQL, -1, &q, NULL) != DB_OK ||
	    db_prepare_v2(state_db(st), "DELETE FROM idcache WHERE kind = 1 AND "
	    "provider = ?", -1, &del, NULL) != DB_OK) {
		state_fail(st, err, "cannot update the id cache");
		goto fail;
	}
	for (i = 0; replace && i < n; i++) {
		db_reset(del);
		db_bind_text(del, 1, v[i].provider, -1, DB_STATIC);
		if (db_step(del) != DB_DONE) {
			state_fail(st, err, "cannot update the id cache");
			goto fail;
		}
	}
	for (i = 0; i < n; i++) {
		snprintf(descr, sizeof(descr), "%s %dx %s %s", inst_state_name(v[i].state),
		    v[i].gpu_count, catalogue_display(v[i].gpu, v[i].gpu_raw, g, sizeof(g)), v[i].label);
		if (put(st, q, v[i].id, IDC_INSTANCE, v[i].provider, descr, err) != GR_OK)
			goto fail;
	}
	db_finalize(q);
	db_finalize(del);
	return state_commit(st, err);
fail:
	db_finalize(q);
	db_finalize(del);
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
