/*
 * offer_cache.c - providers' offer answers in the state database (offer_cache.h).
 *
 * An entry's offers are stored as the records themselves (struct offer, its gpu pointer
 * replaced by the model's catalogue index in a second array), so that reading 10,000 cached
 * offers is one memcpy, not a parse. Each entry is tagged with the schema identity of the
 * build that wrote it (schema() below), and an entry of another identity is dropped, never
 * read: a build whose struct offer or catalogue differs ignores an older one's cache instead
 * of misreading it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/offer_cache.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "src/store/offer_schema.h"
#include "store_int.h"

/* Bump when the encoding itself changes. */
#define OFFER_CACHE_FORMAT 1

static uint64_t
fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n-- > 0)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

/*
 * What a stored record means to this build: the digest of the headers that define struct
 * offer (OFFER_SCHEMA_SOURCE, made by scripts/offer-schema at build time: any edit to the
 * struct, its array sizes or its enums changes it), the compiler's layout of it (another ABI
 * on the same home), and the catalogue's order, since a record names its GPU model by index.
 */
static int64_t
schema(void)
{
	const uint64_t parts[] = {
		OFFER_CACHE_FORMAT, OFFER_SCHEMA_SOURCE, sizeof(struct offer),
		offsetof(struct offer, gpu), offsetof(struct offer, price_hour),
		offsetof(struct offer, currency), offsetof(struct offer, valid),
		offsetof(struct offer, fetched_at),
	};
	const struct gpu_model *cat;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t ncat, i;

	h = fnv1a(h, parts, sizeof(parts));
	cat = catalogue_all(&ncat);
	for (i = 0; i < ncat; i++)
		h = fnv1a(h, cat[i].id, strlen(cat[i].id) + 1);
	return (int64_t)(h >> 1);	/* an SQLite INTEGER, never negative */
}

static int
exec_provider(struct db *db, const char *sql, const char *provider, const char *arg)
{
	struct db_stmt *q;
	int rc;

	if (db_prepare_v2(db, sql, -1, &q, NULL) != DB_OK)
		return DB_ERROR;
	db_bind_text(q, 1, provider, -1, DB_STATIC);
	if (arg != NULL)
		db_bind_text(q, 2, arg, -1, DB_STATIC);
	rc = db_step(q);
	db_finalize(q);
	return rc == DB_DONE ? DB_OK : rc;
}

/* Forget a provider's entries made under another config. */
static int
drop_other_configs(struct db *db, const char *provider, const char *config)
{
	return exec_provider(db, "DELETE FROM offer_cache WHERE provider = ?1 AND config != ?2",
	    provider, config);
}

/* Forget every entry written under another schema identity: no build of today can read it. */
static int
drop_other_schemas(struct db *db)
{
	struct db_stmt *q;
	int rc;

	if (db_prepare_v2(db, "DELETE FROM offer_cache WHERE layout != ?1", -1, &q, NULL)
	    != DB_OK)
		return DB_ERROR;
	db_bind_int64(q, 1, schema());
	rc = db_step(q);
	db_finalize(q);
	return rc == DB_DONE ? DB_OK : rc;
}

enum gr_err
offer_cache_put(struct state *st, const char *provider, const char *config, const char *query,
    int64_t fetched_at, const struct offer *v, size_t n, struct gr_error *err)
{
	struct db *db = state_db(st);
	size_t ncat, i, bytes;
	const struct gpu_model *cat = catalogue_all(&ncat);
	struct db_stmt *q;
	unsigned char *blob;
	int32_t *models;
	struct offer *recs;
	int rc;

	if (n > (OFFER_CACHE_MAX_BYTES) / (sizeof(*v) + sizeof(*models)))
		return GR_OK;	/* too big to keep: the next search asks again */
	bytes = n * (sizeof(*v) + sizeof(*models));
	blob = xmalloc(bytes > 0 ? bytes : 1);
	recs = (struct offer *)(void *)blob;
	models = (int32_t *)(void *)(blob + n * sizeof(*v));
	for (i = 0; i < n; i++) {
		recs[i] = v[i];
		recs[i].gpu = NULL;
		recs[i].fetched_at = fetched_at;
		models[i] = v[i].gpu != NULL && v[i].gpu >= cat && v[i].gpu < cat + ncat ?
		    (int32_t)(v[i].gpu - cat) : -1;
	}
	if (state_begin(st, err) != GR_OK) {
		free(blob);
		return state_fail(st, err, "cannot keep offers");
	}
	rc = drop_other_configs(db, provider, config);
	if (rc == DB_OK)
		rc = drop_other_schemas(db);
	if (rc == DB_OK)
		rc = db_prepare_v2(db, "INSERT INTO offer_cache(provider, query, config, layout, "
		    "fetched_at, n, offers) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
		    "ON CONFLICT(provider, query) DO UPDATE SET config = excluded.config, "
		    "layout = excluded.layout, fetched_at = excluded.fetched_at, n = excluded.n, "
		    "offers = excluded.offers", -1, &q, NULL);
	if (rc == DB_OK) {
		db_bind_text(q, 1, provider, -1, DB_STATIC);
		db_bind_text(q, 2, query, -1, DB_STATIC);
		db_bind_text(q, 3, config, -1, DB_STATIC);
		db_bind_int64(q, 4, schema());
		db_bind_int64(q, 5, fetched_at);
		db_bind_int64(q, 6, (int64_t)n);
		db_bind_blob(q, 7, blob, (int)bytes, DB_STATIC);
		rc = db_step(q) == DB_DONE ? DB_OK : DB_ERROR;
		db_finalize(q);
	}
	/* The newest OFFER_CACHE_QUERIES queries of the provider stay. */
	if (rc == DB_OK) {
		char sql[200];

		snprintf(sql, sizeof(sql), "DELETE FROM offer_cache WHERE provider = ?1 AND query "
		    "NOT IN (SELECT query FROM offer_cache WHERE provider = ?1 ORDER BY fetched_at "
		    "DESC LIMIT %d)", OFFER_CACHE_QUERIES);
		rc = exec_provider(db, sql, provider, NULL);
	}
	free(blob);
	if (rc != DB_OK) {
		enum gr_err e = state_fail(st, err, "cannot keep offers");

		state_rollback(st);
		return e;
	}
	return state_commit(st, err);
}

/* Append a stored entry's offers; false when the blob is not n records of this layout. */
static bool
decode(const void *blob, size_t bytes, int64_t n, int64_t fetched_at, struct offer_list *out)
{
	size_t ncat, i;
	const struct gpu_model *cat = catalogue_all(&ncat);
	const unsigned char *b = blob;
	int32_t model;

	if (n < 0 || (uint64_t)n > bytes / (sizeof(struct offer) + sizeof(model)) ||
	    bytes != (size_t)n * (sizeof(struct offer) + sizeof(model)))
		return false;
	for (i = 0; i < (size_t)n; i++) {
		struct offer *o = offer_list_add(out);

		memcpy(o, b + i * sizeof(*o), sizeof(*o));
		memcpy(&model, b + (size_t)n * sizeof(*o) + i * sizeof(model), sizeof(model));
		o->gpu = model >= 0 && (size_t)model < ncat ? &cat[model] : NULL;
		o->fetched_at = fetched_at;
		/* Strings came from this binary, but a file can be edited: keep them terminated. */
		o->id[sizeof(o->id) - 1] = o->provider[sizeof(o->provider) - 1] = '\0';
		o->gpu_raw[sizeof(o->gpu_raw) - 1] = o->region[sizeof(o->region) - 1] = '\0';
		o->location[sizeof(o->location) - 1] = '\0';
	}
	return true;
}

bool
offer_cache_get(struct state *st, const char *provider, const char *config, const char *query,
    int64_t now, long long max_age_s, struct offer_list *out, int64_t *fetched_at)
{
	struct db *db = state_db(st);
	struct db_stmt *q;
	bool hit = false, stale_config = false, stale_schema = false;
	size_t n0 = out->n;

	if (db_prepare_v2(db, "SELECT config, layout, fetched_at, n, offers FROM offer_cache "
	    "WHERE provider = ?1 AND query = ?2", -1, &q, NULL) != DB_OK)
		return false;	/* no table yet: nothing kept */
	db_bind_text(q, 1, provider, -1, DB_STATIC);
	db_bind_text(q, 2, query, -1, DB_STATIC);
	if (db_step(q) == DB_ROW) {
		const char *cfg = (const char *)db_column_text(q, 0);
		int64_t at = db_column_int64(q, 2);

		if (cfg == NULL || strcmp(cfg, config) != 0)
			stale_config = true;
		else if (db_column_int64(q, 1) != schema())
			stale_schema = true;
		else if (at <= now &&
		    (max_age_s < 0 || now - at <= max_age_s)) {
			hit = decode(db_column_blob(q, 4), (size_t)db_column_bytes(q, 4),
			    db_column_int64(q, 3), at, out);
			if (hit)
				*fetched_at = at;
			else
				out->n = n0;
		}
	}
	db_finalize(q);
	if (stale_config)
		drop_other_configs(db, provider, config);
	if (stale_schema)
		drop_other_schemas(db);
	return hit;
}

void
offer_cache_each_id(struct state *st, const char *prefix, size_t max,
    void (*fn)(const char *id, void *ctx), void *ctx)
{
	struct db_stmt *q;
	size_t plen = strlen(prefix), done = 0, i;

	if (db_prepare_v2(state_db(st), "SELECT layout, fetched_at, n, offers FROM "
	    "offer_cache ORDER BY fetched_at DESC", -1, &q, NULL) != DB_OK)
		return;
	while (done < max && db_step(q) == DB_ROW) {
		struct offer_list l;

		if (db_column_int64(q, 0) != schema())
			continue;
		offer_list_init(&l);
		if (decode(db_column_blob(q, 3), (size_t)db_column_bytes(q, 3),
		    db_column_int64(q, 2), db_column_int64(q, 1), &l))
			for (i = 0; i < l.n && done < max; i++)
				if (strncmp(l.v[i].id, prefix, plen) == 0) {
					fn(l.v[i].id, ctx);
					done++;
				}
		offer_list_release(&l);
	}
	db_finalize(q);
}

int64_t
offer_cache_newest(struct state *st)
{
	struct db_stmt *q;
	int64_t at = 0;

	if (db_prepare_v2(state_db(st), "SELECT max(fetched_at) FROM offer_cache WHERE "
	    "layout = ?1", -1, &q, NULL) != DB_OK)
		return 0;
	db_bind_int64(q, 1, schema());
	if (db_step(q) == DB_ROW)
		at = db_column_int64(q, 0);
	db_finalize(q);
	return at;
}
