/*
 * state.h - the state database (src/store/): the connection, the launch journal, meta; the
 * cost ledger is ledger.h, and each other family of tables has a header of its own (events.h,
 * groups.h, history.h, jobs.h, forwards.h, watch_state.h, idcache.h, offer_cache.h,
 * gpunames.h). Callers hold a struct state * and call functions: no SQL and no SQLite type
 * crosses these headers (scripts/check-layers), so another database could sit behind them.
 *
 * One file in WAL mode with a busy timeout, so the CLI, the dashboard and several
 * gpurent processes can use it at once. Writers wrap their read-modify-write in
 * state_begin/state_commit (BEGIN IMMEDIATE), so two processes never interleave updates.
 */
#ifndef GPURENT_STATE_H
#define GPURENT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "team.h"

struct state;

/* Open (creating and migrating) the database at path. */
/* path: a file (SQLite), or a postgresql:// URL (a team's database; no password in it). */
enum gr_err state_open(struct state **out, const char *path, struct gr_error *err);
/*
 * As state_open, but a PostgreSQL state is opened on a thread of its own (libpq loaded, the
 * server's process started, the schema checked) while the caller goes on: the first use of
 * the state waits for it. state_open_wait waits, and says whether it opened; a state that
 * did not fails every statement with why. A file opens at once.
 */
enum gr_err state_open_begin(struct state **out, const char *path, struct gr_error *err);
enum gr_err state_open_wait(struct state *st, struct gr_error *err);
/*
 * A state opened by state_open_begin whose opening failed is opened again, once, at its
 * next use (state_open_wait or a statement), in place: whoever holds it (the simulator it
 * was lent to) has the new one. For a server that may be back since.
 */
void state_open_retry(struct state *st);
void state_close(struct state *st);
/*
 * Where a PostgreSQL state's password comes from when libpq finds none of its own
 * (~/.pgpass, PGPASSFILE, a service file) and the server asks for one: the vault's, set by
 * the session (`gpurent login state`). get puts a password or NULL (none) in *pw, which
 * release frees; it is handed to libpq as the connection's password keyword, never put in
 * a URL, argv, the environment or a message.
 */
struct state_password {
	enum gr_err (*get)(void *ctx, char **pw, struct gr_error *err);
	void (*release)(char *pw);
	void *ctx;
};
void state_set_password(const struct state_password *p);
const char *state_path(const struct state *st);
/* Whether the database is PostgreSQL (opened on a URL), else an SQLite file. */
bool state_is_postgresql(const struct state *st);
/* Whether target is a PostgreSQL URL (postgresql:// or postgres://), not a file. */
bool state_is_url(const char *target);

/*
 * The launch lock of a PostgreSQL database (a SQLite one's is a file beside it: the launch
 * door's): one holder at a time among every gpurent using the database, waited for at most
 * wait_ms (GR_ESTATE after), held until unlock or the connection ends.
 */
enum gr_err state_lock_launches(struct state *st, int wait_ms, struct gr_error *err);
void state_unlock_launches(struct state *st);

/*
 * Who acts through st, and for which team (team.h; NULL: unknown, or no team): written
 * into the rows a person causes (the launch journal, events, jobs, groups, managed jobs).
 * A ledger row takes the who and team of its instance's latest launch or start, whoever's
 * gpurent writes it. Unset: NULL in every row, shown as unknown.
 */
void state_set_actor(struct state *st, const char *who, const char *team);
const char *state_who(const struct state *st);
const char *state_team(const struct state *st);

enum gr_err state_begin(struct state *st, struct gr_error *err);
enum gr_err state_commit(struct state *st, struct gr_error *err);
void state_rollback(struct state *st);
/*
 * A read of several statements that must see one snapshot: BEGIN DEFERRED, *started set,
 * unless a transaction is open already (then it is that one's). Nothing may be written
 * before state_snapshot_end, which ends the read only where it started it.
 */
enum gr_err state_snapshot_begin(struct state *st, bool *started, struct gr_error *err);
void state_snapshot_end(struct state *st, bool started);

/*
 * The launch journal: a launch is recorded before its create request leaves the machine,
 * and settled (with the instance id, empty when the launch failed) once the provider has
 * answered. state_journal_launch is the one durable commit of a command: it returns only
 * when the record is synced to disk, so a crash or power cut after the request went out
 * cannot lose the trace of an instance that may be billing. Every other commit uses
 * synchronous=NORMAL and no checkpoint on close, so commands that only read from
 * providers (offers, ls, show, metrics, costs, completion) never wait for the disk.
 */
/*
 * What a launch will cost: by the hour from its start, and at once (a term paid at launch).
 * From its record until it is settled or claimed a launch is in flight, and this is what
 * the budgets of the launches admitted meanwhile count of it (the launch door admits under
 * the launch lock and sends the create after letting it go). One never answered (its
 * command killed) stops counting STATE_INFLIGHT_S after it was recorded, on the wall clock:
 * a create is answered long before.
 */
struct launch_cost {
	int64_t price_hour;
	int64_t lump;
	char currency[CURRENCY_MAX];	/* of both; "": USD */
	char who[TEAM_NAME_MAX + 1];	/* who launched it, in flight; "": nobody named */
};
#define STATE_INFLIGHT_S (15 * 60)

/* Refused (GR_ESTATE) inside state_begin/state_commit: it must commit on its own. now: on
   the provider's clock; wall: the wall clock's (the in-flight window's). */
enum gr_err state_journal_launch(struct state *st, const char *provider, const char *name,
    const struct launch_cost *cost, int64_t now, int64_t wall, int64_t *row,
    struct gr_error *err);
enum gr_err state_journal_settle(struct state *st, int64_t row, const char *instance_id,
    struct gr_error *err);
/* The launches in flight at wall-clock second `wall`: their count, and their costs in *out
   (to free; NULL when none). Those past their window are forgotten. */
size_t state_journal_inflight(struct state *st, int64_t wall, struct launch_cost **out);

/*
 * A launch left unsettled (its command killed, or its outcome unknown) is the instance of
 * its provider that a listing shows by its name, when no launch has that instance yet: it
 * is settled with it, so that gpurent knows what it rented. l->v[first..] is one provider's
 * listing; nothing is written when no launch of it is unsettled.
 */
struct instance_list;
void state_journal_claim(struct state *st, const char *provider, const struct instance_list *l,
    size_t first);

/* Each of v[0..n)'s user: who made its latest launch or start (left "" when unknown). */
void state_journal_users(struct state *st, struct instance *v, size_t n);

/* Whether a launch or start through gpurent settled with this instance id. */
bool state_journal_has(struct state *st, const char *instance_id);

/*
 * A failed sqlite call as an error with the database's own message. `what` is translated
 * here, as gr_fail translates its format (po/meson.build names it to xgettext).
 */
enum gr_err state_fail(struct state *st, struct gr_error *err, const char *what);

/*
 * Every table of the store copied from from (an SQLite file) into to (a PostgreSQL
 * database), in one transaction of to's. STATE_MIGRATE_EMPTY and _REPLACE: rows and ids as
 * they are, the totals the ledger's triggers keep included; a target that already holds
 * rows in any of those tables is refused (GR_ECONFLICT, naming them) unless _REPLACE, which
 * empties them first. STATE_MIGRATE_MERGE: into a target that may hold another person's
 * rows, none of which is changed: rows take new ids, what the target has already is not
 * copied again, and the time an instance's ledger segments bill is billed once (migrate.c
 * says the rules). Rows without a who take from's (state_set_actor), and its team where
 * they have none. *out: each table, by name, with what became of its rows (free it).
 */
enum state_migrate_how { STATE_MIGRATE_EMPTY, STATE_MIGRATE_REPLACE, STATE_MIGRATE_MERGE };
struct state_copied {
	char table[64];
	int64_t rows;		/* copied whole */
	int64_t already;	/* the same row, or for the ledger the same time, in the target */
	int64_t kept;		/* a row of the same key that differs: the target's kept */
	int64_t trimmed;	/* ledger segments copied in part: the time the target lacked */
	bool derived;		/* made from the rows copied (the ledger's totals, hourly roll-ups) */
};
enum gr_err state_migrate(struct state *from, struct state *to, enum state_migrate_how how,
    struct state_copied **out, size_t *n, struct gr_error *err);

/* Small key/value table. get returns false when the key is absent. */
bool state_meta_get(struct state *st, const char *key, char *buf, size_t n);
enum gr_err state_meta_set(struct state *st, const char *key, const char *value,
    struct gr_error *err);
/* Each key that starts with prefix (ASCII, not empty), in key order, with its value. */
void state_meta_each(struct state *st, const char *prefix,
    void (*fn)(const char *key, const char *value, void *ctx), void *ctx);

#endif
