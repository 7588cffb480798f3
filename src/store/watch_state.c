/*
 * The watcher's remembered state (watch_state.h): table watch_state of the state database.
 */
#include <string.h>

#include "gpurent/watch_state.h"
#include "store_int.h"

enum gr_err
watch_state_each(struct state *st, void (*fn)(const struct watch_record *r, void *ctx),
    void *ctx, struct gr_error *err)
{
	struct watch_record r;
	struct db_stmt *q;
	int rc;

	if (db_prepare_v2(state_db(st), "SELECT instance_id, label, last_state, util, "
	    "sample_at, idle_since, unobserved, notified, action, policy, phase, ordered_at, "
	    "tries, pid FROM watch_state", -1, &q, NULL) != DB_OK)
		return state_fail(st, err, "cannot read the watcher's state");
	while ((rc = db_step(q)) == DB_ROW) {
		memset(&r, 0, sizeof(r));
		store_cols(q, "tt-iII--itiIi", r.id, sizeof(r.id), r.label, sizeof(r.label), &r.util,
		    &r.sample_at, &r.idle_since, &r.action, r.policy, sizeof(r.policy), &r.phase,
		    &r.ordered_at, &r.tries);
		r.last_state = (enum inst_state)db_column_int(q, 2);
		r.unobserved = db_column_int(q, 6) != 0;
		r.notified = (unsigned)db_column_int(q, 7);
		r.pid = (long)db_column_int64(q, 13);
		fn(&r, ctx);
	}
	db_finalize(q);
	return rc == DB_DONE ? GR_OK : state_fail(st, err, "cannot read the watcher's state");
}

enum gr_err
watch_state_put(struct state *st, const struct watch_record *r, struct gr_error *err)
{
	if (!store_run(st, "INSERT INTO watch_state(instance_id, label, last_state, util, "
	    "sample_at, idle_since, unobserved, notified, action, policy, phase, ordered_at, "
	    "tries, pid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
	    "ON CONFLICT(instance_id) DO UPDATE SET label = excluded.label, "
	    "last_state = excluded.last_state, util = excluded.util, "
	    "sample_at = excluded.sample_at, idle_since = excluded.idle_since, "
	    "unobserved = excluded.unobserved, notified = excluded.notified, "
	    "action = excluded.action, policy = excluded.policy, phase = excluded.phase, "
	    "ordered_at = excluded.ordered_at, tries = excluded.tries, pid = excluded.pid",
	    "ttiiIIiiitiIiI",
	    r->id, r->label, (int)r->last_state, r->util, r->sample_at, r->idle_since,
	    (int)r->unobserved, (int)r->notified, r->action, r->policy, r->phase, r->ordered_at,
	    r->tries, (int64_t)r->pid))
		return state_fail(st, err, "cannot write the watcher's state");
	return GR_OK;
}

enum gr_err
watch_state_forget(struct state *st, const char *instance_id, struct gr_error *err)
{
	if (!store_run(st, "DELETE FROM watch_state WHERE instance_id = ?", "t", instance_id))
		return state_fail(st, err, "cannot write the watcher's state");
	return GR_OK;
}
