/*
 * idcache.c - the ids of offers and instances last seen, kept in the database for
 * completion and short ids. On a team's state each person's rows are their own: the id
 * column holds "WHO ID" there (a name and an id have no space), so that the one table of
 * every store keys them by person without a second schema; a personal state's rows are the
 * bare ids, as they always were.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/idcache.h"
#include "gpurent/money.h"
#include "gpurent/state.h"
#include "gpurent/team.h"
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
	char mine[TEAM_NAME_MAX + 2];	/* "WHO " on a team's state, else "" (mine_of) */
	struct {
		const char *id, *provider;
		char key[TEAM_NAME_MAX + 2 + ID_MAX];	/* the row's: mine, then id */
		char descr[384];
	} rows[PUT_BATCH];
};

/* The characters of s, as substr counts them in SQL (a name need not be ASCII). */
static int
text_chars(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The start of the rows of the person acting on a team's state: "WHO "; "" elsewhere. */
static void
mine_of(struct state *st, char mine[TEAM_NAME_MAX + 2])
{
	if (state_team(st) != NULL && state_who(st) != NULL)
		snprintf(mine, TEAM_NAME_MAX + 2, "%s ", state_who(st));
	else
		mine[0] = '\0';
}

/* Delete the rows of mine (as mine_of) of kind, and of provider unless NULL. */
static bool
delete_mine(struct state *st, const char *mine, enum idcache_kind kind, const char *provider)
{
	/* A personal state's rows have no person before the id. */
	if (mine[0] == '\0')
		return provider != NULL ? store_run(st, "DELETE FROM idcache WHERE kind = ? AND "
		    "provider = ? AND id NOT LIKE '% %'", "it", (int)kind, provider) :
		    store_run(st, "DELETE FROM idcache WHERE kind = ? AND id NOT LIKE '% %'", "i",
		    (int)kind);
	return provider != NULL ? store_run(st, "DELETE FROM idcache WHERE kind = ? AND "
	    "provider = ? AND substr(id, 1, ?) = ?", "itit", (int)kind, provider,
	    text_chars(mine), mine) : store_run(st, "DELETE FROM idcache WHERE kind = ? AND "
	    "substr(id, 1, ?) = ?", "iit", (int)kind, text_chars(mine), mine);
}

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
		db_bind_text(q, k++, p->rows[i].key, -1, DB_STATIC);
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
	mine_of(st, p->mine);
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
	snprintf(p->rows[p->n].key, sizeof(p->rows[0].key), "%s%s", p->mine, id);
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
	if (putter_init(p, st, IDC_OFFER, err) != GR_OK)
		goto fail;
	if (!delete_mine(st, p->mine, IDC_OFFER, NULL)) {
		state_fail(st, err, "cannot update the id cache");
		goto fail;
	}
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
	if (putter_init(p, st, IDC_INSTANCE, err) != GR_OK)
		goto fail;
	/* Each provider's rows deleted once (a list holds one provider's instances together;
	 * deleting again where it does not is harmless). */
	for (i = 0; replace && i < n; i++)
		if ((i == 0 || strcmp(v[i].provider, v[i - 1].provider) != 0) &&
		    !delete_mine(st, p->mine, IDC_INSTANCE, v[i].provider)) {
			state_fail(st, err, "cannot update the id cache");
			goto fail;
		}
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
	char mine[TEAM_NAME_MAX + 2], *key;
	struct db_stmt *q;
	size_t skip;

	mine_of(st, mine);
	skip = strlen(mine);
	key = xmalloc(skip + strlen(prefix) + 1);
	memcpy(key, mine, skip);
	strcpy(key + skip, prefix);
	/* A personal state's: the bare ids alone, none of a person's. */
	q = store_prepare(st, skip > 0 ? "SELECT id, descr FROM idcache WHERE kind = ? AND "
	    "substr(id, 1, ?) = ? ORDER BY rowid" : "SELECT id, descr FROM idcache WHERE kind = "
	    "? AND substr(id, 1, ?) = ? AND id NOT LIKE '% %' ORDER BY rowid", "iit", (int)kind,
	    text_chars(key), key);
	free(key);
	if (q == NULL)
		return state_fail(st, err, "cannot read the id cache");
	while (db_step(q) == DB_ROW)
		fn((const char *)db_column_text(q, 0) + skip, (const char *)db_column_text(q, 1),
		    ctx);
	db_finalize(q);
	return GR_OK;
}
