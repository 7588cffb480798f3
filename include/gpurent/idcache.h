/*
 * idcache.h - the ids a user has seen, kept in the state database for completion.
 *
 * `offers` records the offers it printed, `ls` and `launch` the instances, so that shell
 * completion (and `gpurent shell`) can offer ids instantly and offline. On a team's state
 * (state_set_actor with a team) each person has a cache of their own: what one lists
 * replaces only their own ids, and each completes from what they listed.
 */
#ifndef GPURENT_IDCACHE_H
#define GPURENT_IDCACHE_H

#include <stddef.h>

#include "error.h"
#include "model.h"

struct state;

enum idcache_kind { IDC_OFFER, IDC_INSTANCE };

/* Replace the cached offers with these (at most the first 1000). */
enum gr_err idcache_put_offers(struct state *st, const struct offer *v, size_t n,
    struct gr_error *err);
/* Replace the cached instances of the providers present in v, or add one instance. */
enum gr_err idcache_put_instances(struct state *st, const struct instance *v, size_t n,
    bool replace, struct gr_error *err);
/* Call fn for each cached id of a kind starting with prefix, with a short description. */
enum gr_err idcache_each(struct state *st, enum idcache_kind kind, const char *prefix,
    void (*fn)(const char *id, const char *desc, void *ctx), void *ctx, struct gr_error *err);

#endif
