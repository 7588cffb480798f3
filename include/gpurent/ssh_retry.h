/*
 * ssh_retry.h - what a long-running sampler (the exporter's lanes) remembers of instances
 * whose ssh failed, so that `--source auto` does not pay a failed ssh attempt for each of
 * them every round.
 *
 * An instance whose ssh failed (refused, unreachable, no GPU tool: auto fell back to the
 * provider's API) is sampled by the API alone until its retry time. The first wait is
 * `first_ms`; each further failure doubles it, up to SSH_RETRY_GROWTH times the first; an
 * answer over ssh forgets the instance, so its next failure waits `first_ms` again. An
 * instance is therefore back on ssh at most SSH_RETRY_GROWTH * first_ms (plus a round)
 * after its ssh answers again. Times are the caller's monotonic milliseconds; nothing here
 * reads a clock, so a test can drive it.
 */
#ifndef GPURENT_SSH_RETRY_H
#define GPURENT_SSH_RETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* The longest wait, as a multiple of the first (60 s first: 1, 2, 4, 8, 16 minutes). */
#define SSH_RETRY_GROWTH 16

struct ssh_retry_entry {
	char id[ID_MAX];
	int64_t retry_at;	/* ssh is tried again from this time on */
	int64_t wait;		/* the wait after its last failure */
};

struct ssh_retry {
	struct ssh_retry_entry *v;
	size_t n, cap;
	int64_t first_ms;	/* 0: remember nothing, ssh is tried every time */
};

void ssh_retry_init(struct ssh_retry *r, int64_t first_ms);
void ssh_retry_release(struct ssh_retry *r);

/* Whether ssh should be tried on instance id at now: true unless it failed and waits. */
bool ssh_retry_due(const struct ssh_retry *r, const char *id, int64_t now);

/*
 * The outcome of an ssh attempt on id at now: answered forgets it; a failure makes it wait
 * (first_ms, or twice its last wait, at most SSH_RETRY_GROWTH * first_ms).
 */
void ssh_retry_note(struct ssh_retry *r, const char *id, bool answered, int64_t now);

/* Forget every instance that keep(id, data) says is gone (so the memory stays bounded). */
void ssh_retry_prune(struct ssh_retry *r, bool (*keep)(const char *id, void *data), void *data);

#endif
