/*
 * events.h - the event journal: what the watcher saw that led it to act, and every action.
 *
 * A table of the state database (events), appended to by `gpurent watch` and read by
 * `gpurent events` and the dashboard's events view, in other processes at the same time.
 * Rows are never changed once written; seq grows by one per event, so a reader that
 * remembers the last seq it showed (events --follow) sees each event exactly once.
 *
 * Times are UTC seconds on the clock of the instance's provider (costs.h): the simulator's
 * for "sim", the wall clock for every other provider and for events of no instance.
 * Strings are stored as the watcher had them (labels from backends are already free of
 * control characters); readers sanitize again before a terminal.
 */
#ifndef GPURENT_EVENTS_H
#define GPURENT_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

struct state;

/* How much an event matters: notify.command runs for EV_ACTION and above. */
enum event_level {
	EV_INFO,	/* an observation (unobserved, back in view) */
	EV_ACTION,	/* the watcher ordered or verified a stop or destroy */
	EV_WARN,	/* a budget share crossed, an instance taken back by its provider */
	EV_ALERT,	/* something it could not do: a stop not verified after its tries */
};

#define EVENT_KIND_MAX 32
#define EVENT_MSG_MAX 512

struct event {
	int64_t seq;			/* set by events_add */
	int64_t at;
	enum event_level level;
	char kind[EVENT_KIND_MAX];	/* "idle", "stop-ordered", "stop-verified", ... */
	char policy[EVENT_KIND_MAX];	/* "idle", "runtime", "budget.day", "budget.month",
					   "job", "" when none */
	char instance_id[ID_MAX];	/* "" for events of no instance (budget warnings) */
	char label[LABEL_MAX];
	int util_pct;			/* the observed utilisation, -1 unknown */
	char message[EVENT_MSG_MAX];	/* one line, what was seen and done */
	char user[TEAM_NAME_MAX + 1];	/* whose gpurent wrote it (set by events_add: the
					   state's, state.h); "": unknown */
};

const char *event_level_name(enum event_level l);
bool event_level_parse(const char *s, enum event_level *out);

/* Append ev (its seq is set); one transaction of its own unless one is open. */
enum gr_err events_add(struct state *st, struct event *ev, struct gr_error *err);

/*
 * Events with at >= since and seq > after_seq, oldest first, at most max (0: no bound;
 * with a bound, the newest max). Caller frees *out.
 */
enum gr_err events_load(struct state *st, int64_t since, int64_t after_seq, size_t max,
    struct event **out, size_t *n, struct gr_error *err);

#endif
