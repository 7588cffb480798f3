/*
 * The event journal (events.h): one table of the state database.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/events.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "store_int.h"

static const char *const level_names[] = { "info", "action", "warn", "alert" };

const char *
event_level_name(enum event_level l)
{
	return (size_t)l < ARRAY_LEN(level_names) ? level_names[l] : "info";
}

bool
event_level_parse(const char *s, enum event_level *out)
{
	int i = names_index(level_names, ARRAY_LEN(level_names), s, false);

	if (i < 0)
		return false;
	*out = (enum event_level)i;
	return true;
}

enum gr_err
events_add(struct state *st, struct event *ev, struct gr_error *err)
{
	if (state_begin(st, err) != GR_OK)
		return err->code;
	if (!store_run(st, "INSERT INTO events(at, level, kind, policy, instance_id, label, util, "
	    "message, who, team) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "Iittttittt", ev->at,
	    (int)ev->level, ev->kind, ev->policy, ev->instance_id, ev->label, ev->util_pct,
	    ev->message, state_who(st), state_team(st))) {
		state_fail(st, err, "cannot write the event journal");
		state_rollback(st);
		return err->code;
	}
	ev->seq = db_last_insert_rowid(state_db(st));
	strlcpy_(ev->user, state_who(st) != NULL ? state_who(st) : "", sizeof(ev->user));
	return state_commit(st, err);
}

static void
read_event(struct db_stmt *q, void *row)
{
	struct event *e = row;

	e->seq = db_column_int64(q, 0);
	e->at = db_column_int64(q, 1);
	e->level = (enum event_level)db_column_int(q, 2);
	store_col_text(q, 3, e->kind, sizeof(e->kind));
	store_col_text(q, 4, e->policy, sizeof(e->policy));
	store_col_text(q, 5, e->instance_id, sizeof(e->instance_id));
	store_col_text(q, 6, e->label, sizeof(e->label));
	e->util_pct = db_column_int(q, 7);
	store_col_text(q, 8, e->message, sizeof(e->message));
	store_col_text(q, 9, e->user, sizeof(e->user));
}

enum gr_err
events_load(struct state *st, int64_t since, int64_t after_seq, size_t max,
    struct event **out, size_t *n, struct gr_error *err)
{
	/* The newest max, read newest first and turned round below. */
	struct db_stmt *q = store_prepare(st, "SELECT seq, at, level, kind, policy, instance_id, "
	    "label, util, message, who FROM events WHERE at >= ? AND seq > ? ORDER BY seq DESC "
	    "LIMIT ?", "III", since, after_seq, max == 0 ? INT64_MAX : (int64_t)max);
	struct event *v;

	*out = NULL;
	if (!store_rows(q, (void **)&v, n, sizeof(*v), read_event))
		return state_fail(st, err, "cannot read the event journal");
	for (size_t i = 0; i < *n / 2; i++) {
		struct event t = v[i];

		v[i] = v[*n - 1 - i];
		v[*n - 1 - i] = t;
	}
	*out = v;
	return GR_OK;
}
