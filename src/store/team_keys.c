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
    void (*fn)(const char *public_hex, const char *host, void *ctx), void *ctx,
    struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT public_key, host FROM team_watchers "
	    "WHERE team = ? ORDER BY added_at, public_key", "t", team);
	int rc;

	if (q == NULL)
		return state_fail(st, err, "cannot read the team's watcher keys");
	while ((rc = db_step(q)) == DB_ROW)
		fn((const char *)db_column_text(q, 0), (const char *)db_column_text(q, 1), ctx);
	db_finalize(q);
	if (rc != DB_DONE)
		return state_fail(st, err, "cannot read the team's watcher keys");
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
