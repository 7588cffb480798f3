/*
 * sim_int.h - pieces of the simulator shared between its files.
 */
#ifndef GPURENT_SIM_INT_H
#define GPURENT_SIM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "gpurent/model.h"

/* The disk of a launch that asks for none, billed at the offer's storage price. */
#define SIM_DEFAULT_DISK_GB 50

/* Machines come and go every ten minutes; interruptible prices move by the hour. */
#define MARKET_AVAIL_PERIOD 600
#define MARKET_PRICE_PERIOD 3600

/* Build offer idx of the market at time now (availability not yet reduced by rentals). */
bool market_offer(uint64_t seed, int64_t idx, int64_t now, struct offer *o);
/* The interruptible clearing price at time t for an offer whose floor is floor_hour. */
int64_t market_spot_price(uint64_t seed, int64_t idx, int64_t floor_hour, int64_t t);
/* The lowest interruptible price of offer idx: the market never clears below it. */
int64_t market_spot_floor(uint64_t seed, int64_t idx);
/*
 * The whole market of the last build (offers 0 to n-1, before rentals), kept because
 * making 100,000 offers costs a third of a second and the dashboard asks every 30 s.
 */
struct market_cache {
	struct offer *v;	/* NULL: nothing built yet */
	uint64_t seed;
	int64_t n;
	int64_t period;		/* now / MARKET_AVAIL_PERIOD of the build */
	int asks;		/* up to 2: whether this world was asked more than once */
	unsigned builds;	/* how many times it was built: tests see it reused */
};

/*
 * Offers 0 to n-1 at time now, each exactly as market_offer makes it: from c when its build
 * had the same seed, count and availability period (the only parts of now an offer reads),
 * else built again into c. The array belongs to c, valid until its next call or release.
 * NULL on the first ask of c: the caller makes each offer with market_offer, because a
 * command that asks once (`gpurent offers`) would pay for a copy it never reuses.
 */
const struct offer *market_kept(struct market_cache *c, uint64_t seed, int64_t n,
    int64_t now);
void market_cache_release(struct market_cache *c);
/* "sim:o-000123", "sim:o-000123i" or "sim:o-000123t3" -> 123, its type and a term's
   months (0 for none; months may be NULL). */
bool market_parse_offer_id(const char *id, int64_t *idx, enum offer_type *type, int *months);

/*
 * One GPU's metrics at time t for an instance that has been running since run_since. spec
 * is the instance's SIM_WORKLOAD ("" or NULL: chosen from the seed): training, inference
 * (or tidal), idle, job:DURATION (training that ends after DURATION and leaves the GPU
 * idle), unreported (no utilisation in the samples) or dark:DURATION (idle, and no
 * metrics at all after DURATION). tide_ratio: the daily peak over trough of inference.
 */
void workload_sample(uint64_t seed, const char *instance_id, const char *spec, int tide_ratio,
    const struct gpu_model *gpu, int index, int64_t run_since, int64_t t,
    struct gpu_sample *out);
/* Whether the instance reports metrics at t, and (*util) its utilisation among them. */
bool workload_reports(uint64_t seed, const char *instance_id, const char *spec,
    int64_t run_since, int64_t t, bool *util);

#endif
