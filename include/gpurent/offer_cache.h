/*
 * offer_cache.h - providers' answers to offer searches, kept in the state database with the
 * time they were fetched, so that `offers --max-age`, completion and the dashboard can
 * answer at once from a recent answer instead of asking the provider again.
 *
 * An entry is one provider's raw answer (before the core's filter, sort and limit) to one
 * query (the filter as the backend was given it), under the provider's configuration at the
 * time (a fingerprint the caller computes: its URL and config keys). An entry whose
 * fingerprint differs from the caller's is dropped with every other entry of that provider,
 * so a changed config never answers from the old one's prices. Bounded: at most
 * OFFER_CACHE_QUERIES entries per provider (the oldest go first), and an answer of more than
 * OFFER_CACHE_MAX_BYTES is not kept. Entries hold raw records, so each carries the schema
 * identity of the build that wrote it (the digest of the headers defining struct offer, its
 * compiled layout and the GPU catalogue's order); an entry of another identity is never read
 * and is dropped at the next get or put. Writes are plain WAL commits (synchronous=NORMAL): a
 * cache lost in a crash costs one fetch, so nothing here syncs the disk.
 */
#ifndef GPURENT_OFFER_CACHE_H
#define GPURENT_OFFER_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

struct state;

enum {
	OFFER_CACHE_QUERIES = 4,			/* entries kept per provider */
	OFFER_CACHE_MAX_BYTES = 4 * 1024 * 1024,	/* largest answer kept (~11,000 offers): a
						   bigger one costs more to write than
						   it saves (bench/README.md) */
};

/*
 * Keep a provider's answer to a query, fetched at fetched_at (UTC seconds). Replaces the
 * entry of the same query; drops the provider's entries under another config.
 */
enum gr_err offer_cache_put(struct state *st, const char *provider, const char *config,
    const char *query, int64_t fetched_at, const struct offer *v, size_t n,
    struct gr_error *err);

/*
 * The provider's answer to a query, when one is kept under this config and is at most
 * max_age_s old at now (max_age_s < 0: any age): appended to out (each offer's fetched_at
 * is the entry's), *fetched_at set, true. False when there is none (an entry under another
 * config is dropped then), or on any error: the caller asks the provider.
 */
bool offer_cache_get(struct state *st, const char *provider, const char *config,
    const char *query, int64_t now, long long max_age_s, struct offer_list *out,
    int64_t *fetched_at);

/* Call fn for each cached offer id starting with prefix, newest entries first, at most max. */
void offer_cache_each_id(struct state *st, const char *prefix, size_t max,
    void (*fn)(const char *id, void *ctx), void *ctx);

/* When the newest readable entry of any provider was fetched; 0 when there is none. */
int64_t offer_cache_newest(struct state *st);

#endif
