/*
 * sim.h - the simulated marketplace: offers, instances, billing and metrics.
 *
 * Deterministic from a seed (GPURENT_SIM_SEED, default 1) and a clock:
 *   sim time = GPURENT_SIM_TIME (UTC seconds) if set, else the real time,
 *              plus the offset that `gpurent sim advance` stored in the database.
 *   GPURENT_SIM_SPEED=N makes simulated time run N times faster than real time.
 * GPURENT_SIM_OFFERS sets the size of the market (default 400).
 *
 * The world lives in the state database, so separate processes see one world. Every call
 * first brings the world up to the current simulated time inside one IMMEDIATE
 * transaction: instances change state at the moments their delays end, and the ledger
 * gets segments with those exact times, whenever the next call comes.
 */
#ifndef GPURENT_SIM_H
#define GPURENT_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

struct state;
struct sim;

enum gr_err sim_open(struct sim **out, struct state *st, struct gr_error *err);
/* The live instances' ids, newest first, at most max, to fn; none where no world was made
 * (it is not made here): for completion. */
void sim_each_live_id(struct state *st, size_t max, void (*fn)(const char *id, void *ctx),
    void *ctx);
void sim_close(struct sim *s);

int64_t sim_now(struct sim *s);
/* The simulated time at the real second `real` (what sim_now says at that second). */
int64_t sim_time_at(struct sim *s, int64_t real);
/* Simulated seconds per real second: GPURENT_SIM_SPEED (default 1); 0 while the clock is
   fixed (GPURENT_SIM_TIME), moved only by `sim advance`. */
int64_t sim_pace(const struct sim *s);
uint64_t sim_seed(const struct sim *s);

/* Move the simulated clock forward by `seconds` for every process using this database. */
enum gr_err sim_advance(struct sim *s, int64_t seconds, struct gr_error *err);

/* Bring instances up to now (also done by every call below). */
enum gr_err sim_tick(struct sim *s, struct gr_error *err);

/* The whole market now, availability included. */
enum gr_err sim_offers(struct sim *s, struct offer_list *out, struct gr_error *err);
/*
 * A stamp of what sim_offers answers now (backend.h offers_stamp), mixed into 64 bits from
 * everything that answer reads: the seed, the market's size, the ten minutes of the
 * simulated clock, and a count of the changes to the instances that every launch and state
 * change bumps in the database (so it sees other processes' too). None of them ever goes
 * back (the clock only moves forward, a step back of the system clock aside), so an equal
 * stamp later means an unchanged market since.
 */
enum gr_err sim_offers_stamp(struct sim *s, uint64_t *out, struct gr_error *err);
/* One offer by full id. */
enum gr_err sim_offer(struct sim *s, const char *id, struct offer *out, struct gr_error *err);

enum gr_err sim_instances(struct sim *s, bool with_destroyed, struct instance_list *out,
    struct gr_error *err);
enum gr_err sim_get(struct sim *s, const char *id, struct instance *out, struct gr_error *err);
enum gr_err sim_launch(struct sim *s, const struct launch_req *req, struct instance *out,
    struct gr_error *err);
enum gr_err sim_stop(struct sim *s, const char *id, struct gr_error *err);
enum gr_err sim_start(struct sim *s, const char *id, struct gr_error *err);
enum gr_err sim_destroy(struct sim *s, const char *id, struct gr_error *err);
/* Set an instance's label ("" clears it); GR_ENOTFOUND when it is gone. */
enum gr_err sim_label(struct sim *s, const char *id, const char *label, struct gr_error *err);
enum gr_err sim_metrics(struct sim *s, const char *id, struct sample_list *out,
    struct gr_error *err);
/* The simulated account: a balance that spend draws down. */
enum gr_err sim_account(struct sim *s, struct account *out, struct gr_error *err);

/*
 * The simulated provider's bill over [since, until) (until 0: now) on its clock: for each
 * instance and UTC day, what its instances' billed seconds came to (from the segments the
 * world wrote as it moved, cut at midnight by money_accrue_days), in the segments'
 * currency, with the storage part; plus whatever sim_bill_extra added. Folded
 * (charge_list_fold), appended to out.
 */
enum gr_err sim_bill(struct sim *s, int64_t since, int64_t until, struct charge_list *out,
    struct gr_error *err);
/*
 * Bill `amount` US micro-dollars to instance id (a simulated one, "sim:i-NNNNNN", live,
 * gone or never launched) now, as storage when `storage`: what the provider charges
 * that gpurent never saw (`gpurent sim bill-extra`). The account's balance pays it too.
 */
enum gr_err sim_bill_extra(struct sim *s, const char *id, int64_t amount, bool storage,
    struct gr_error *err);

#endif
