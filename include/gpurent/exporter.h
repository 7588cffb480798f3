/*
 * exporter.h - the Prometheus face (src/exporter/): sampling rounds (rounds.c) that take a
 * sample of every running instance on a schedule, and /metrics in the text exposition
 * format 0.0.4 (render.c, server.c).
 *
 * exporter_serve runs the rounds: a lane per provider samples through the session's door
 * (session_samples: snapshot, then history); every interval the rounds gather the lanes'
 * listings, the newest samples from the history and the ledger's figures into a snapshot and
 * hand it to the face with exporter_publish. The face never samples and never touches the
 * network or the database: every scrape is answered from the last snapshot, so a scrape
 * never waits on a provider, however slow. Figures that depend on "now" (the age of a
 * sample) are computed at scrape time from the snapshot's clock plus the monotonic time
 * since it was published, so a sampler that hangs shows as samples growing old.
 *
 * Series (labels in braces):
 *   DCGM_FI_DEV_* (dcgm-exporter's names and units, see render.c) per GPU of each running
 *     instance {gpu, UUID, modelName, Hostname, instance_id, provider, label}: a field the
 *     sample does not know is left out, never written as 0.
 *     Hostname is the instance's ssh host, or its id when there is none.
 *   gpurent_instance_up {instance_id, provider, label}: 1 running, 0 otherwise
 *   gpurent_instance_price_dollars_per_hour {instance_id, provider, label}
 *   gpurent_spend_dollars_total {instance_id, provider, label}: billed since launch (ledger)
 *   gpurent_burn_rate_dollars_per_hour: what everything billing now costs per hour
 *   gpurent_sample_age_seconds {instance_id, provider, label}: age of the newest sample
 *   gpurent_provider_up {provider}: 1 when its last listing succeeded
 * Label values are sanitized (text_sanitize: no control character, a newline included,
 * survives; invalid UTF-8 becomes '?') and escaped (\\ and \"), so no value from a
 * provider can end a line or a value early, or add a series.
 */
#ifndef GPURENT_EXPORTER_H
#define GPURENT_EXPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "util.h"

#define EXPORTER_MAX_PROVIDERS 16

struct exporter_provider {
	char name[PROVIDER_MAX];
	bool up;
};

/* What gpurent knows at one moment; owned by whoever holds it. */
struct exporter_snapshot {
	int64_t taken;				/* session clock (UTC seconds) when taken */
	struct instance_list instances;		/* every instance listed */
	struct sample_list samples;		/* newest of each running GPU, on taken's clock */
	struct exporter_provider providers[EXPORTER_MAX_PROVIDERS];
	size_t n_providers;
	int64_t *spent;				/* per instance (same index), micro-dollars,
						   -1 unknown; NULL: none known */
	bool burn_known;
	int64_t burn_hour;			/* micro-dollars per hour */
};
void exporter_snapshot_init(struct exporter_snapshot *s);
void exporter_snapshot_release(struct exporter_snapshot *s);

/* Append the exposition of s at time `now` (same clock as s->taken) to out. */
void exporter_render(const struct exporter_snapshot *s, int64_t now, struct sb *out);

/*
 * A snapshot rendered once, when it is published, so that a scrape copies text instead of
 * formatting it: every series but the sample ages (their values depend on the scrape's
 * clock; their series names and labels are rendered here too). exporter_render is
 * exporter_page_build then exporter_page_render, byte for byte.
 */
struct exporter_age;
struct exporter_page {
	struct sb head;			/* every family before gpurent_sample_age_seconds */
	struct sb ages_text;		/* the age series, name and labels, one after another */
	struct exporter_age *ages;
	size_t n_ages;
	struct sb tail;			/* the families after the ages */
};
void exporter_page_init(struct exporter_page *p);
void exporter_page_release(struct exporter_page *p);
/* Render s into p (initialised, empty); s is no longer needed after. */
void exporter_page_build(const struct exporter_snapshot *s, struct exporter_page *p);
/* Append the page with the sample ages at `now` to out. */
void exporter_page_render(const struct exporter_page *p, int64_t now, struct sb *out);

struct exporter;

/*
 * Listen on `listen` ("127.0.0.1:9400", "[::1]:9400", "0.0.0.0:9400"; port 0: any free
 * one) and answer GET /metrics (and / with a pointer to it) from its own threads.
 * token: when not NULL, every request must carry "Authorization: Bearer TOKEN" (compared
 * in constant time) or gets 401; the exporter keeps a copy. Until the first snapshot is
 * published, /metrics answers 503.
 */
enum gr_err exporter_start(struct exporter **out, const char *listen, const char *token,
    struct gr_error *err);
/* The address it listens on, "127.0.0.1:40123". */
const char *exporter_address(const struct exporter *e);
/* Replace the served snapshot with *s (taken over: *s is left empty). Never blocks on I/O. */
void exporter_publish(struct exporter *e, struct exporter_snapshot *s);
void exporter_stop(struct exporter *e);

/*
 * The rounds, until *interrupted is set (by a signal handler): /metrics on listen (token as
 * exporter_start's), a lane per provider of s, each with a session of its own, sampling
 * every running instance every interval seconds; with auto, an instance whose ssh failed is
 * sampled by its API alone for ssh_retry seconds, doubled after each further failure
 * (ssh_retry.h). warn says what a lane could not do, when s is verbose. Prints the address
 * to scrape on stderr once serving. Fails only when it cannot start.
 */
struct session;
typedef void exporter_warn_fn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct exporter_rounds {
	const char *listen;
	const char *token;		/* NULL: no token asked for */
	long long interval;		/* seconds */
	long long ssh_retry;		/* seconds */
	const volatile int *interrupted;
	exporter_warn_fn *warn;
};
enum gr_err exporter_serve(struct session *s, const struct exporter_rounds *o,
    struct gr_error *err);

#endif
