/*
 * forwards.h - the records of background port forwards (table forwards of the state
 * database, store/forwards.c), by local port, with the ssh pid (remote_forward.h).
 */
#ifndef GPURENT_FORWARDS_H
#define GPURENT_FORWARDS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "state.h"

struct remote_forward {
	char instance_id[ID_MAX];
	int remote_port;
	int local_port;
	int pid;		/* the ssh process */
	int64_t started_at;	/* UTC seconds */
};

enum gr_err remote_forward_record(struct state *st, const struct remote_forward *f,
    struct gr_error *err);
/* Every recorded forward, by local port. Caller frees *out. */
enum gr_err remote_forward_load(struct state *st, struct remote_forward **out, size_t *n,
    struct gr_error *err);
enum gr_err remote_forward_forget(struct state *st, int local_port, struct gr_error *err);

#endif
