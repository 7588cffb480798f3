/*
 * lease.h - who may act on a thing that many processes could act on (src/store/lease.c):
 * tables leases and lease_standbys of the state database.
 *
 * A lease is a row: its name (a managed job's id, "m" and digits, or WATCH_LEASE for the
 * store's watcher), its holder ("user@host:pid" or "host:pid", "" nobody), since when it
 * holds it and until when, in milliseconds of the Unix clock. A holder takes it, renews
 * it and gives it up through lease_take and lease_drop; of two processes taking it at
 * once, only one gets it (a compare-and-swap on the holder).
 */
#ifndef GPURENT_LEASE_H
#define GPURENT_LEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct state;

enum { LEASE_HOLDER_MAX = 300 };

struct lease {
	char holder[LEASE_HOLDER_MAX];	/* "" nobody */
	int64_t since, until;		/* ms; 0 unknown (since) or none */
};

/* The lease named name as it stands (holder "" when nobody ever held it). */
void lease_get(struct state *st, const char *name, struct lease *out);
/*
 * Take or renew the lease for holder until now + span (ms). It is free when nobody holds
 * it, when holder holds it, when its holder is a process of this machine that ended, and
 * once it expired; a living holder of this machine keeps it `grace` ms past its expiry
 * (a round that may be long). True when holder has it now; *was (may be NULL) receives
 * the lease as it stood before.
 */
bool lease_take(struct state *st, const char *name, const char *holder, int64_t now,
    int64_t span, int64_t grace, struct lease *was);
/* Give it up (when holder holds it). */
void lease_drop(struct state *st, const char *name, const char *holder);

/* A process waiting for a lease, as it last said so: until when it means to look again. */
struct lease_standby {
	char holder[LEASE_HOLDER_MAX];
	int64_t seen, until;		/* ms */
};

/* Say that holder waits for name, seen now, looking again before until. */
void lease_standby_mark(struct state *st, const char *name, const char *holder, int64_t now,
    int64_t until);
/* It no longer waits (it took the lease, or ended). */
void lease_standby_drop(struct state *st, const char *name, const char *holder);
/* Those that still wait at now (until not passed), by holder. Caller frees. */
bool lease_standbys(struct state *st, const char *name, int64_t now,
    struct lease_standby **out, size_t *n);

#endif
