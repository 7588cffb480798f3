/*
 * Leases (lease.h): tables leases and lease_standbys of the state database.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/lease.h"
#include "gpurent/util.h"
#include "store_int.h"

/*
 * One table for every lease, the managed jobs' included (they held theirs in
 * managed_lease, seconds): a watcher's lease needs less than a second's precision, since
 * it lasts half an interval (watch.c). Written to run again harmlessly over its own
 * tables, as the steps before numbering are, for a database whose user_version was put
 * back to 0 while it kept them (step 9 makes managed_lease again then); WHERE true keeps
 * SQLite from reading ON CONFLICT as part of the SELECT.
 */
const char lease_tables[] =
	"CREATE TABLE IF NOT EXISTS leases(name TEXT PRIMARY KEY, holder TEXT NOT NULL,"
	"  since BIGINT NOT NULL, until BIGINT NOT NULL);"
	"INSERT INTO leases(name, holder, since, until)"
	"  SELECT job_id, holder, 0, until * 1000 FROM managed_lease WHERE true"
	"  ON CONFLICT(name) DO NOTHING;"
	"DROP TABLE managed_lease;"
	"CREATE TABLE IF NOT EXISTS lease_standbys(name TEXT NOT NULL, holder TEXT NOT NULL,"
	"  seen BIGINT NOT NULL, until BIGINT NOT NULL, PRIMARY KEY(name, holder));";

void
lease_get(struct state *st, const char *name, struct lease *out)
{
	struct db_stmt *q = store_prepare(st, "SELECT holder, since, until FROM leases WHERE "
	    "name = ?", "t", name);

	memset(out, 0, sizeof(*out));
	if (q == NULL)
		return;
	if (db_step(q) == DB_ROW)
		store_cols(q, "tII", out->holder, sizeof(out->holder), &out->since, &out->until);
	db_finalize(q);
}

/* Hand the lease from `from` ("": nobody holds it) to `to`, only if `from` still holds it. */
static bool
swap(struct state *st, const char *name, const char *from, const char *to, int64_t since,
    int64_t until)
{
	if (!store_run(st, "UPDATE leases SET holder = ?, since = ?, until = ? WHERE name = ? "
	    "AND holder = ?", "tIItt", to, since, until, name, from))
		return false;
	if (db_changes(state_db(st)) == 1)
		return true;
	return from[0] == '\0' && store_run(st, "INSERT INTO leases(name, holder, since, "
	    "until) VALUES(?, ?, ?, ?) ON CONFLICT DO NOTHING", "ttII", name, to, since, until) &&
	    db_changes(state_db(st)) == 1;
}

enum holder_life { HOLDER_DEAD, HOLDER_ALIVE, HOLDER_ELSEWHERE };

/* Whether a holder ("[user@]host:pid") is a process of this machine, and whether it lives. */
static enum holder_life
holder_life(const char *holder)
{
	char me[256];
	const char *colon = strrchr(holder, ':'), *host = holder, *at;
	long pid;

	if (colon == NULL)
		return HOLDER_ELSEWHERE;
	for (at = holder; at < colon; at++)
		if (*at == '@')
			host = at + 1;
	host_name(me, sizeof(me), "localhost");
	if (strlen(me) != (size_t)(colon - host) || strncmp(me, host, (size_t)(colon - host)) != 0)
		return HOLDER_ELSEWHERE;
	pid = strtol(colon + 1, NULL, 10);
	return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH ? HOLDER_DEAD : HOLDER_ALIVE;
}

bool
lease_take(struct state *st, const char *name, const char *holder, int64_t now,
    int64_t span, int64_t grace, struct lease *was)
{
	struct lease cur;

	lease_get(st, name, &cur);
	if (was != NULL)
		*was = cur;
	if (cur.holder[0] != '\0' && strcmp(cur.holder, holder) != 0) {
		switch (holder_life(cur.holder)) {
		case HOLDER_DEAD:
			break;
		case HOLDER_ALIVE:
			if (cur.until + grace >= now)
				return false;
			break;
		case HOLDER_ELSEWHERE:
			if (cur.until >= now)
				return false;
			break;
		}
	}
	return swap(st, name, cur.holder, holder,
	    strcmp(cur.holder, holder) == 0 ? cur.since : now, now + span);
}

void
lease_drop(struct state *st, const char *name, const char *holder)
{
	(void)store_run(st, "UPDATE leases SET holder = '', until = 0 WHERE name = ? "
	    "AND holder = ?", "tt", name, holder);
}

void
lease_standby_mark(struct state *st, const char *name, const char *holder, int64_t now,
    int64_t until)
{
	(void)store_run(st, "INSERT INTO lease_standbys(name, holder, seen, until) "
	    "VALUES(?, ?, ?, ?) ON CONFLICT(name, holder) DO UPDATE SET seen = excluded.seen, "
	    "until = excluded.until", "ttII", name, holder, now, until);
}

void
lease_standby_drop(struct state *st, const char *name, const char *holder)
{
	(void)store_run(st, "DELETE FROM lease_standbys WHERE name = ? AND holder = ?", "tt",
	    name, holder);
}

static void
read_standby(struct db_stmt *q, void *row)
{
	struct lease_standby *s = row;

	store_cols(q, "tII", s->holder, sizeof(s->holder), &s->seen, &s->until);
}

bool
lease_standbys(struct state *st, const char *name, int64_t now, struct lease_standby **out,
    size_t *n)
{
	struct db_stmt *q = store_prepare(st, "SELECT holder, seen, until FROM lease_standbys "
	    "WHERE name = ? AND until >= ? ORDER BY holder", "tI", name, now);

	return store_rows(q, (void **)out, n, sizeof(**out), read_standby);
}
