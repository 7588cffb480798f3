/*
 * watch_state.h - what the watcher remembers of each instance between passes (table
 * watch_state of the state database, store/watch_state.c; the meaning is guard/watch.c's).
 */
#ifndef GPURENT_WATCH_STATE_H
#define GPURENT_WATCH_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "events.h"
#include "model.h"
#include "state.h"

struct watch_record {
	char id[ID_MAX];
	char label[LABEL_MAX];
	enum inst_state last_state;
	int util;
	int64_t sample_at;
	int64_t idle_since;
	bool unobserved;
	unsigned notified;
	int action;		/* the watcher's enum watch_action */
	char policy[EVENT_KIND_MAX];
	int phase;		/* the watcher's own phase of an order */
	int64_t ordered_at;
	int tries;
	long pid;
};

/* Every instance's record to fn (r is reused). */
enum gr_err watch_state_each(struct state *st, void (*fn)(const struct watch_record *r,
    void *ctx), void *ctx, struct gr_error *err);
/* Insert or replace one instance's record. */
enum gr_err watch_state_put(struct state *st, const struct watch_record *r,
    struct gr_error *err);
enum gr_err watch_state_forget(struct state *st, const char *instance_id, struct gr_error *err);

#endif
