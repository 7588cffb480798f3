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
/* Where the world's billing (ledger rows) goes: the state it was opened on, unless this
 * names another (a team's PostgreSQL state, the world staying in this user's file). */
void sim_set_ledger(struct sim *s, struct state *ledger);
/* Wait for the ledger's state, which may still be opening (state_open_begin); whether it
 * opened, err saying why not. sim_instances waits by itself, after its world's reads. */
enum gr_err sim_ledger_ready(struct sim *s, struct gr_error *err);

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
/* One offer by full id; a term offer's too ("sim:o-000123t3"). */
enum gr_err sim_offer(struct sim *s, const char *id, struct offer *out, struct gr_error *err);

/*
 * Terms: every on-demand offer is also sold for SIM_TERM_MONTHS months paid ahead, at
 * sim_term_discount_pct off (20 % for one month, 30 % for three, as vast.ai's prepay is
 * described in providers/vast.md): the hourly rate of a term is the on-demand price less
 * the discount (rounded to the micro-dollar), its whole price that rate times its hours
 * (TERM_MONTH_HOURS a month), so that the two agree exactly. At the term's end the
 * instance stays and bills on demand again.
 */
#define SIM_TERM_MONTHS { 1, 3 }
int sim_term_discount_pct(int months);	/* 0 for months the simulator does not sell */
int64_t sim_term_rate(int64_t price_hour, int months);
/* The term offer of on-demand offer od for `months` (id: od's with "t<months>"). */
void sim_term_offer(const struct offer *od, int months, struct offer *out);
/*
 * Prepay `amount` micro-dollars on instance id (vast's prepay): the largest term whose
 * whole price it reaches sets the discount (none below a month), and it pays that
 * discounted rate for as long as it lasts, from now or from the end of what is already
 * paid. *discount_pct and *covered_s say what it bought. Billed at once, as a term.
 */
enum gr_err sim_prepay(struct sim *s, const char *id, int64_t amount, int *discount_pct,
    int64_t *covered_s, struct gr_error *err);

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
/*
 * How the simulator takes an instance away (`gpurent sim preempt`, `sim serve --preempt-*`),
 * each as a real machine is lost. The provider dialects of sim serve read it back from the
 * instance (sim_fault_of) to say it in their own words.
 */
enum sim_fault {
	SIM_FAULT_NONE,
	SIM_FAULT_OUTBID,	/* an interruptible instance is taken back: stopped (its disk
				   kept and billed), status "outbid: ..." */
	SIM_FAULT_HOST_FAILURE,	/* the machine dies: failed, status "host failure: ..." */
	SIM_FAULT_UNREACHABLE,	/* its ssh refuses (SIM_DEAD_SSH_PORT) while it still runs and
				   bills, until it fails SIM_UNREACHABLE_FAILS_AFTER later,
				   status "unreachable: ..." */
};
/* The port an unreachable instance's ssh is on: nothing listens on it (tcpmux). */
#define SIM_DEAD_SSH_PORT 1
/* How long an unreachable machine is said to run before its provider reports it failed. */
#define SIM_UNREACHABLE_FAILS_AFTER 600

/* "outbid", "host-failure", "unreachable" (the options' words) and back; false: none. */
const char *sim_fault_name(enum sim_fault f);
bool sim_fault_parse(const char *s, enum sim_fault *out);
/*
 * Take instance id away at the simulated time at (not before now) in the way f says. It
 * must have a machine now (provisioning, starting or running), and only an interruptible
 * one can be outbid; a stop or destroy before at cancels it, and a later call replaces it.
 */
enum gr_err sim_preempt(struct sim *s, const char *id, enum sim_fault f, int64_t at,
    struct gr_error *err);
/* The fault that took in away, from the words the simulator gave it (SIM_FAULT_NONE when
 * none did; an unreachable instance says nothing while its provider still runs it). */
enum sim_fault sim_fault_of(const struct instance *in);
/*
 * sim serve's preemption (serve.h): every instance this sim launches from now on is taken
 * away `after` seconds after its launch, by `fault` (outbid: only the interruptible ones;
 * SIM_FAULT_NONE: outbid when it is interruptible, else a host failure). With a seed, each
 * one's moment is drawn from it between after/2 and 3*after/2, and, with no fault given,
 * its way among those that fit it.
 */
struct sim_preemption {
	int64_t after;		/* 0: none */
	enum sim_fault fault;
	bool seeded;
	uint64_t seed;
};
void sim_set_preemption(struct sim *s, const struct sim_preemption *p);
/*
 * sim serve's for a dialect whose instance price is its machine and its disk together
 * (vast's dph_total): every instance this sim launches from now on is billed its disk
 * while it runs (and while starting, its reservation), not only once stopped.
 */
void sim_set_disk_in_price(struct sim *s, bool on);
/*
 * sim serve's for a dialect whose provider prices disks itself (RunPod's pod volume): every
 * instance this sim launches from now on bills its disk at gb_month (micro-units per
 * GB-month) while stopped, not at its offer's storage price; 0: the offer's;
 * SIM_STORAGE_NONE: nothing, for a provider that keeps no disk across a stop (PPIO's).
 */
#define SIM_STORAGE_NONE (-1)
void sim_set_storage_price(struct sim *s, int64_t gb_month);
/*
 * sim serve's for a dialect whose provider bills disks while they run at a price of their
 * own, beside the instance's price (RunPod's, which costPerHr leaves out): every instance
 * this sim launches from now on is billed its disk at gb_month (micro-units per GB-month)
 * while it runs (and while starting, its reservation); 0: nothing.
 */
void sim_set_running_disk_price(struct sim *s, int64_t gb_month);

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
