/*
 * team_keys.c - tables team_watchers and team_keys (team_keys.h): public halves of team
 * watchers' key pairs, and provider keys sealed to them. Nothing here can open a sealed key.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/team_keys.h"
#include "gpurent/util.h"
#include "store_int.h"

enum gr_err
team_watcher_add(struct state *st, const char *team, const char *public_hex, const char *host,
    const char *user, int64_t at, struct gr_error *err)
{
	if (!store_run(st, "INSERT INTO team_watchers(team, public_key, host, added_by, added_at) "
	    "VALUES(?, ?, ?, ?, ?) ON CONFLICT(team, public_key) DO UPDATE SET host = excluded.host, "
	    "added_by = excluded.added_by, added_at = excluded.added_at", "ttttI", team, public_hex,
	    host, user, at))
		return state_fail(st, err, "cannot publish the team watcher's key");
	return GR_OK;
}

enum gr_err
team_watchers_each(struct state *st, const char *team,
    void (*fn)(const struct team_watcher *w, void *ctx), void *ctx, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT public_key, host, added_by, added_at FROM "
	    "team_watchers WHERE team = ? ORDER BY added_at, public_key", "t", team);
	struct team_watcher w;
	int rc;

	if (q == NULL)
		return state_fail(st, err, "cannot read the team's watcher keys");
	while ((rc = db_step(q)) == DB_ROW) {
		w.public_hex = (const char *)db_column_text(q, 0);
		w.host = (const char *)db_column_text(q, 1);
		w.added_by = (const char *)db_column_text(q, 2);
		w.added_at = db_column_int64(q, 3);
		fn(&w, ctx);
	}
	db_finalize(q);
	if (rc != DB_DONE)
		return state_fail(st, err, "cannot read the team's watcher keys");
	return GR_OK;
}

enum gr_err
team_watcher_remove(struct state *st, const char *team, const char *public_hex,
    char **providers, struct gr_error *err)
{
	struct db_stmt *q;
	struct sb names;
	enum gr_err rc;
	int step;

	*providers = NULL;
	if ((rc = state_begin(st, err)) != GR_OK)
		return rc;
	sb_init(&names);
	q = store_prepare(st, "SELECT provider FROM team_keys WHERE team = ? AND public_key = ? "
	    "ORDER BY provider", "tt", team, public_hex);
	while (q != NULL && (step = db_step(q)) == DB_ROW)
		sb_addf(&names, "%s%s", names.len > 0 ? ", " : "",
		    (const char *)db_column_text(q, 0));
	if (q == NULL || step != DB_DONE ||
	    !store_run(st, "DELETE FROM team_keys WHERE team = ? AND public_key = ?", "tt", team,
	    public_hex) ||
	    !store_run(st, "DELETE FROM team_watchers WHERE team = ? AND public_key = ?", "tt",
	    team, public_hex)) {
		rc = state_fail(st, err, "cannot withdraw the watcher key");
		db_finalize(q);
		state_rollback(st);
		sb_release(&names);
		return rc;
	}
	db_finalize(q);
	if ((rc = state_commit(st, err)) != GR_OK) {
		sb_release(&names);
		return rc;
	}
	*providers = sb_detach(&names);
	return GR_OK;
}

enum gr_err
team_keys_each(struct state *st, const char *team,
    void (*fn)(const struct team_key *k, void *ctx), void *ctx, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT k.provider, k.public_key, k.stored_by, "
	    "k.stored_at FROM team_keys k LEFT JOIN team_watchers w ON w.team = k.team AND "
	    "w.public_key = k.public_key WHERE k.team = ? ORDER BY k.provider, w.added_at, "
	    "k.public_key", "t", team);
	struct team_key k;
	int rc;

	if (q == NULL)
		return state_fail(st, err, "cannot read the team keys");
	while ((rc = db_step(q)) == DB_ROW) {
		k.provider = (const char *)db_column_text(q, 0);
		k.public_hex = (const char *)db_column_text(q, 1);
		k.stored_by = (const char *)db_column_text(q, 2);
		k.stored_at = db_column_int64(q, 3);
		fn(&k, ctx);
	}
	db_finalize(q);
	if (rc != DB_DONE)
		return state_fail(st, err, "cannot read the team keys");
	return GR_OK;
}

enum gr_err
team_key_remove(struct state *st, const char *team, const char *provider, size_t *removed,
    struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT count(*) FROM team_keys WHERE team = ? AND "
	    "provider = ?", "tt", team, provider);

	*removed = 0;
	if (q != NULL && db_step(q) == DB_ROW)
		*removed = (size_t)db_column_int64(q, 0);
	db_finalize(q);
	if (q == NULL || !store_run(st, "DELETE FROM team_keys WHERE team = ? AND provider = ?",
	    "tt", team, provider))
		return state_fail(st, err, "cannot remove the team key");
	return GR_OK;
}

enum gr_err
team_key_put(struct state *st, const char *team, const char *provider, const char *public_hex,
    const unsigned char *sealed, size_t n, const char *user, int64_t at, struct gr_error *err)
{
	if (!store_run(st, "INSERT INTO team_keys(team, provider, public_key, sealed, stored_by, "
	    "stored_at) VALUES(?, ?, ?, ?, ?, ?) ON CONFLICT(team, provider, public_key) DO UPDATE "
	    "SET sealed = excluded.sealed, stored_by = excluded.stored_by, "
	    "stored_at = excluded.stored_at", "tttbtI", team, provider, public_hex, sealed, n, user,
	    at))
		return state_fail(st, err, "cannot store the team key");
	return GR_OK;
}

enum gr_err
team_key_get(struct state *st, const char *team, const char *provider, const char *public_hex,
    unsigned char **out, size_t *n, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT sealed FROM team_keys WHERE team = ? AND "
	    "provider = ? AND public_key = ?", "ttt", team, provider, public_hex);
	int rc;

	*out = NULL;
	*n = 0;
	if (q == NULL)
		return state_fail(st, err, "cannot read the team key");
	if ((rc = db_step(q)) == DB_ROW) {
		/* Its size first: on PostgreSQL, asking it decodes the column again and frees
		 * what an earlier db_column_blob returned. */
		int bytes = db_column_bytes(q, 0);
		const void *p = db_column_blob(q, 0);

		*n = (size_t)bytes;
		*out = xmalloc(*n + 1);
		if (*n > 0)
			memcpy(*out, p, *n);
		rc = DB_DONE;
	}
	db_finalize(q);
	if (rc != DB_DONE)
		return state_fail(st, err, "cannot read the team key");
	return GR_OK;
}
