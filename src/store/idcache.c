/*
 * idcache.c - the ids of offers and instances last seen, kept in the database for
 * completion and short ids. On a team's state each person's rows are their own (who);
 * a personal state's rows have who ''.
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
	const char *who;	/* mine_of */
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
	sb_adds(&sql, "INSERT INTO idcache(rowid, who, id, kind, provider, descr) VALUES");
	for (i = 0; i < p->n; i++)
		sb_adds(&sql, i == 0 ? "(?, ?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?, ?)");
	sb_adds(&sql, " ON CONFLICT(who, id) DO UPDATE SET rowid = excluded.rowid, kind = "
	    "excluded.kind, provider = excluded.provider, descr = excluded.descr");
	rc = db_prepare_v2(state_db(p->st), sql.buf, -1, &q, NULL);
	sb_release(&sql);
	if (rc != DB_OK)
		return state_fail(p->st, err, "cannot update the id cache");
	for (i = 0; i < p->n; i++) {
		db_bind_int64(q, k++, p->next++);
		db_bind_text(q, k++, p->who, -1, DB_STATIC);
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

/* A row to write: its id, its provider and its short description. */
struct idrow {
	const char *id, *provider;
	char descr[384];
};

/* Which other rows of the kind a write deletes first, so that they must not be there. */
enum others { OTHERS_KEPT, OTHERS_OF_PROVIDERS, OTHERS_ALL };

/* Whose rows: the person acting on a team's state, '' on a personal one. */
static const char *
mine_of(struct state *st)
{
	return state_team(st) != NULL && state_who(st) != NULL ? state_who(st) : "";
}

static const char *
column_or_empty(struct db_stmt *q, int c)
{
	const unsigned char *t = db_column_text(q, c);

	return t != NULL ? (const char *)t : "";
}

/* Whether p names a provider of the n rows r. */
static bool
provider_among(const char *p, const struct idrow *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((i == 0 || strcmp(r[i].provider, r[i - 1].provider) != 0) &&
		    strcmp(r[i].provider, p) == 0)
			return true;
	return false;
}

/*
 * Whether writing the rows would leave the cache as it is: they are its last rows of their
 * kind already, in their order, and no row the write deletes first is there. `ls` lists the
 * same instances time after time: a read instead of a write (on PostgreSQL, a transaction of
 * a dozen round trips for 1,000 instances).
 */
static bool
cached_as(struct state *st, enum idcache_kind kind, const struct idrow *r, size_t n,
    enum others others)
{
	struct db_stmt *q = store_prepare(st, "SELECT id, provider, descr FROM idcache WHERE "
	    "who = ? AND kind = ? ORDER BY rowid", "ti", mine_of(st), (int)kind);
	struct idrow *had = NULL;
	char **text = NULL;
	size_t m = 0, cap = 0, i;
	bool same;
	int rc;

	if (q == NULL)
		return false;
	while ((rc = db_step(q)) == DB_ROW) {
		if (m == cap) {
			cap = cap ? cap * 2 : 256;
			had = xrealloc(had, cap * sizeof(*had));
			text = xrealloc(text, cap * 2 * sizeof(*text));
		}
		text[2 * m] = xstrdup(column_or_empty(q, 0));
		text[2 * m + 1] = xstrdup(column_or_empty(q, 1));
		had[m].id = text[2 * m];
		had[m].provider = text[2 * m + 1];
		strlcpy_(had[m].descr, column_or_empty(q, 2), sizeof(had[m].descr));
		m++;
	}
	db_finalize(q);
	/* A read cut short says nothing: the rows are written. */
	same = rc == DB_DONE && m >= n && (others != OTHERS_ALL || m == n);
	for (i = 0; same && i < n; i++)
		same = strcmp(had[m - n + i].id, r[i].id) == 0 &&
		    strcmp(had[m - n + i].provider, r[i].provider) == 0 &&
		    strcmp(had[m - n + i].descr, r[i].descr) == 0;
	for (i = 0; same && others == OTHERS_OF_PROVIDERS && i < m - n; i++)
		same = !provider_among(had[i].provider, r, n);
	for (i = 0; i < 2 * m; i++)
		free(text[i]);
	free(text);
	free(had);
	return same;
}

/* Rows are put after the last row of the cache. */
static enum gr_err
putter_init(struct putter *p, struct state *st, enum idcache_kind kind, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT coalesce(max(rowid), 0) FROM idcache", "");

	p->st = st;
	p->who = mine_of(st);
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

/* The rows written in their order after deleting what others says, unless they would leave
 * the cache as it is. */
static enum gr_err
write_rows(struct state *st, enum idcache_kind kind, const struct idrow *r, size_t n,
    enum others others, struct gr_error *err)
{
	struct putter *p;
	char *descr;
	size_t i;

	if (cached_as(st, kind, r, n, others))
		return GR_OK;
	if (state_begin(st, err) != GR_OK)
		return err->code;
	p = xmalloc(sizeof(*p));
	if (others == OTHERS_ALL && !store_run(st, "DELETE FROM idcache WHERE who = ? AND "
	    "kind = ?", "ti", mine_of(st), (int)kind)) {
		state_fail(st, err, "cannot update the id cache");
		goto fail;
	}
	/* Each provider's rows deleted once (a list holds one provider's instances together;
	 * deleting again where it does not is harmless). */
	for (i = 0; others == OTHERS_OF_PROVIDERS && i < n; i++)
		if ((i == 0 || strcmp(r[i].provider, r[i - 1].provider) != 0) &&
		    !store_run(st, "DELETE FROM idcache WHERE who = ? AND kind = ? AND provider = ?",
		    "tit", mine_of(st), (int)kind, r[i].provider)) {
			state_fail(st, err, "cannot update the id cache");
			goto fail;
		}
	if (putter_init(p, st, kind, err) != GR_OK)
		goto fail;
	for (i = 0; i < n; i++) {
		if ((descr = put(p, r[i].id, r[i].provider, err)) == NULL)
			goto fail;
		strlcpy_(descr, r[i].descr, sizeof(p->rows[0].descr));
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
idcache_put_offers(struct state *st, const struct offer *v, size_t n, struct gr_error *err)
{
	struct idrow *r;
	char price[32], g[64];
	size_t i;
	enum gr_err rc;

	if (n > OFFER_CACHE_MAX)
		n = OFFER_CACHE_MAX;
	r = xcalloc(n ? n : 1, sizeof(*r));
	for (i = 0; i < n; i++) {
		r[i].id = v[i].id;
		r[i].provider = v[i].provider;
		snprintf(r[i].descr, sizeof(r[i].descr), "%dx %s %s/h %s", v[i].gpu_count,
		    catalogue_display(v[i].gpu, v[i].gpu_raw, g, sizeof(g)), money_format_in(price,
		    sizeof(price), v[i].price_hour, 2, v[i].currency), v[i].region);
	}
	rc = write_rows(st, IDC_OFFER, r, n, OTHERS_ALL, err);
	free(r);
	return rc;
}

enum gr_err
idcache_put_instances(struct state *st, const struct instance *v, size_t n, bool replace,
    struct gr_error *err)
{
	struct idrow *r = xcalloc(n ? n : 1, sizeof(*r));
	char g[64];
	size_t i;
	enum gr_err rc;

	for (i = 0; i < n; i++) {
		r[i].id = v[i].id;
		r[i].provider = v[i].provider;
		snprintf(r[i].descr, sizeof(r[i].descr), "%s %dx %s %s",
		    inst_state_name(v[i].state), v[i].gpu_count, catalogue_display(v[i].gpu,
		    v[i].gpu_raw, g, sizeof(g)), v[i].label);
	}
	rc = write_rows(st, IDC_INSTANCE, r, n, replace ? OTHERS_OF_PROVIDERS : OTHERS_KEPT,
	    err);
	free(r);
	return rc;
}

enum gr_err
idcache_each(struct state *st, enum idcache_kind kind, const char *prefix,
    void (*fn)(const char *, const char *, void *), void *ctx, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT id, descr FROM idcache WHERE who = ? AND "
	    "kind = ? AND substr(id, 1, ?) = ? ORDER BY rowid", "tiit", mine_of(st), (int)kind,
	    (int)strlen(prefix), prefix);

	if (q == NULL)
		return state_fail(st, err, "cannot read the id cache");
	while (db_step(q) == DB_ROW)
		fn((const char *)db_column_text(q, 0), (const char *)db_column_text(q, 1),
		    ctx);
	db_finalize(q);
	return GR_OK;
}
