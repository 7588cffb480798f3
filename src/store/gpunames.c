/*
 * gpunames.c - the GPU names providers were seen selling that the catalogue lacks, kept
 * in the database for filters and completion.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/gpunames.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "store_int.h"

/* A name seen again is recorded again at most this often (seconds). */
#define REFRESH_S 3600
/* At most this many distinct names are looked at per search (each is one query). */
#define NAMES_PER_SEARCH 256

/* Whether (provider, name) needs writing: new, or last recorded REFRESH_S ago. */
static bool
stale(struct db_stmt *q, const struct offer *o, int64_t now)
{
	bool want = true;

	db_reset(q);
	db_bind_text(q, 1, o->provider, -1, DB_STATIC);
	db_bind_text(q, 2, o->gpu_raw, -1, DB_STATIC);
	if (db_step(q) == DB_ROW)
		want = db_column_int64(q, 0) + REFRESH_S <= now;
	db_reset(q);
	return want;
}

/* Whether one of the offers v[idx[0..n)] has o's provider and name. */
static bool
among(const struct offer *v, const size_t *idx, size_t n, const struct offer *o)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (strcmp(v[idx[k]].provider, o->provider) == 0 &&
		    strcmp(v[idx[k]].gpu_raw, o->gpu_raw) == 0)
			return true;
	return false;
}

enum gr_err
gpunames_record(struct state *st, const struct offer *v, size_t n, int64_t now,
    struct gr_error *err)
{
	struct db_stmt *get = NULL, *put = NULL;
	size_t i, distinct[NAMES_PER_SEARCH], ndistinct = 0, todo[NAMES_PER_SEARCH], ntodo = 0;

	for (i = 0; i < n; i++)
		if (v[i].gpu == NULL && v[i].gpu_raw[0] != '\0')
			break;
	if (i == n)
		return GR_OK;	/* every GPU known: nothing to read or write */
	get = store_prepare(st, "SELECT last_seen FROM gpu_names_seen WHERE provider = ? AND "
	    "name = ?", "");
	if (get == NULL)
		return state_fail(st, err, "cannot read the GPU names seen");
	for (; i < n && ndistinct < NAMES_PER_SEARCH; i++) {
		if (v[i].gpu != NULL || v[i].gpu_raw[0] == '\0' ||
		    among(v, distinct, ndistinct, &v[i]))
			continue;
		distinct[ndistinct++] = i;
		if (stale(get, &v[i], now))
			todo[ntodo++] = i;
	}
	db_finalize(get);
	if (ntodo == 0)
		return GR_OK;
	if (state_begin(st, err) != GR_OK)
		return err->code;
	if (db_prepare_v2(state_db(st), "INSERT INTO gpu_names_seen(provider, name, "
	    "vram_gb, first_seen, last_seen) VALUES(?1, ?2, ?3, ?4, ?4) ON CONFLICT(provider, "
	    "name) DO UPDATE SET last_seen = excluded.last_seen", -1, &put, NULL) != DB_OK) {
		state_fail(st, err, "cannot record the GPU names seen");
		goto fail;
	}
	for (i = 0; i < ntodo; i++) {
		const struct offer *o = &v[todo[i]];

		db_reset(put);
		db_bind_text(put, 1, o->provider, -1, DB_STATIC);
		db_bind_text(put, 2, o->gpu_raw, -1, DB_STATIC);
		db_bind_int(put, 3, o->valid & OV_VRAM ? o->vram_gb : 0);
		db_bind_int64(put, 4, now);
		if (db_step(put) != DB_DONE) {
			state_fail(st, err, "cannot record the GPU names seen");
			goto fail;
		}
	}
	db_finalize(put);
	return state_commit(st, err);
fail:
	db_finalize(put);
	state_rollback(st);
	return err->code;
}

enum gr_err
gpunames_load(struct state *st, struct gpu_name_seen **out, size_t *n, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT provider, name, vram_gb, first_seen, "
	    "last_seen FROM gpu_names_seen ORDER BY provider, name", "");
	struct gpu_name_seen *v = NULL, *r;
	size_t cnt = 0, cap = 0;

	*out = NULL;
	*n = 0;
	if (q == NULL)
		return state_fail(st, err, "cannot read the GPU names seen");
	while (db_step(q) == DB_ROW) {
		const char *p = (const char *)db_column_text(q, 0);
		const char *name = (const char *)db_column_text(q, 1);
		int vram = db_column_int(q, 2);

		/* A name the catalogue has learnt since is no longer unknown. */
		if (p == NULL || name == NULL || catalogue_resolve(p, name, vram) != NULL)
			continue;
		r = XPUSH(v, cnt, cap, 16);
		strlcpy_(r->provider, p, sizeof(r->provider));
		strlcpy_(r->name, name, sizeof(r->name));
		r->vram_gb = vram;
		r->first_seen = db_column_int64(q, 3);
		r->last_seen = db_column_int64(q, 4);
	}
	db_finalize(q);
	*out = v;
	*n = cnt;
	return GR_OK;
}

bool
gpunames_known(struct state *st, const char *query)
{
	struct gpu_name_seen *v;
	size_t n, i;
	bool found = false;

	if (gpunames_load(st, &v, &n, NULL) != GR_OK)
		return false;
	for (i = 0; i < n && !found; i++)
		found = catalogue_raw_matches(v[i].name, query);
	free(v);
	return found;
}
