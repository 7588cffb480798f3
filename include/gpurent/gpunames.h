/*
 * gpunames.h - the provider GPU names seen that the catalogue lacks, kept in the state
 * database when offers are fetched, so that `gpurent gpus --unknown` can list them and the
 * catalogue can be completed, and so that `gpu=NAME` filters accept them.
 */
#ifndef GPURENT_GPUNAMES_H
#define GPURENT_GPUNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

struct state;

struct gpu_name_seen {
	char provider[PROVIDER_MAX];
	char name[64];		/* the provider's own string, as the backend stored it */
	int vram_gb;		/* per GPU as the provider reported it first; 0: not reported */
	int64_t first_seen;	/* UTC seconds */
	int64_t last_seen;
};

/*
 * Remember the names of the offers whose model is unknown, seen at `now`. Writes only when a
 * name is new or was last recorded over an hour ago: a search of known GPUs writes nothing.
 */
enum gr_err gpunames_record(struct state *st, const struct offer *v, size_t n, int64_t now,
    struct gr_error *err);

/*
 * The names remembered that the catalogue still lacks, ordered by provider then name.
 * Caller frees *out.
 */
enum gr_err gpunames_load(struct state *st, struct gpu_name_seen **out, size_t *n,
    struct gr_error *err);

/* Whether a user's GPU query names one of them (catalogue_raw_matches). */
bool gpunames_known(struct state *st, const char *query);

#endif
