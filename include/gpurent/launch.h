/*
 * launch.h - the launch door (src/guard/launch.c): what a launch bids, whether it may go
 * ahead, and the launch itself.
 *
 * Every launch passes through here: `gpurent launch` and its --dry-run, launch by
 * requirement (requirement.h), batch jobs, the groups' members and the dashboard's launch;
 * and every start of a stopped instance, which bills again. A dry run refuses exactly what
 * a real launch would:
 *
 *   launch_plan_make  checks the request against the offer (a bid only on an interruptible
 *                     offer and never below its current price, the disk within the offer's,
 *                     a machine free) and chooses the bid: without one, the current price
 *                     plus spot.bid_margin percent (rounded up to a tenth of a cent), so
 *                     that the next repricing does not outbid the instance at once.
 *   guard_launch      the door: checks budget.day and budget.month, counting what bills now,
 *                     what is still provisioning and this launch, under a lock that makes
 *                     concurrent launches (of any gpurent process) take turns; journals the
 *                     launch with its client token; runs it (session_launch); and records
 *                     the new instance as provisioning before letting the next launch look.
 *   guard_start       the same admission for a start (session_start).
 *   guard_prepay      the same admission for a payment ahead (the backend's prepay).
 */
#ifndef GPURENT_LAUNCH_H
#define GPURENT_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "costs.h"
#include "error.h"
#include "model.h"

struct state;

struct launch_plan {
	int64_t market_hour;	/* the offer's price now */
	int64_t bid_hour;	/* interruptible: the bid; 0 for on-demand */
	int64_t price_hour;	/* what it bills per hour: the bid, or the on-demand price */
	int margin_pct;		/* spot.bid_margin */
	bool bid_given;		/* --bid named the bid; else the margin chose it */
	bool thin_bid;		/* a given bid below the one the margin would choose */
};

/*
 * Check a launch of offer o (has_bid/bid: --bid; disk_gb 0: the provider's default) and
 * choose its bid. GR_EUSAGE for a bid on an on-demand offer, a bid below the current price
 * or more disk than the offer has; GR_ECAPACITY when no machine of it is free.
 */
enum gr_err launch_plan_make(const struct offer *o, bool has_bid, int64_t bid, int disk_gb,
    int margin_pct, struct launch_plan *out, struct gr_error *err);

struct launch_budget {
	int64_t day;		/* budget.day, -1 unset */
	int64_t month;		/* budget.month, -1 unset */
	bool force;		/* --force: check nothing, but still take turns and record */
	/*
	 * Currencies ("": USD): of each budget and of the launch's price. A budget counts
	 * spend and the launch in its own currency; anything in another is converted at the
	 * rates in fx, and when a rate is missing the launch is refused (GR_EBUDGET) rather
	 * than counted as if it were the same money. guard_launch fills them all from the
	 * config.
	 */
	char day_currency[CURRENCY_MAX];
	char month_currency[CURRENCY_MAX];
	char price_currency[CURRENCY_MAX];
	struct fx_rates fx;
	/* A term paid at creation: its months and whole price (in price_currency), which the
	   budgets count whole and the ledger records as a term (ledger_add_term); 0: none. */
	int term_months;
	int64_t term_price;
	/*
	 * A team profile's (team.h): day and month above are unused; the person's limits
	 * (launch_person_budget) and the team's (launch_team_budget) are both in the shared
	 * state, read under the one launch lock, so that the team's watcher holds everyone to
	 * the same figures and two people launching at once cannot both slip under the
	 * team's. A person's count only the spend of what `who` launched or started; the
	 * team's count everyone's. team false: a personal profile, none of this.
	 */
	bool team;
	char who[TEAM_NAME_MAX + 1];
};

/* Budgets kept in a team's shared state, the team's or one person's: -1 unset; currencies
   "" USD. */
struct shared_budget {
	int64_t day, month;
	char day_currency[CURRENCY_MAX], month_currency[CURRENCY_MAX];
};
/* The team's budgets as the state has them now. */
void launch_team_budget(struct state *st, struct shared_budget *out);
/* One person's (team.user who) as the state has them now. */
void launch_person_budget(struct state *st, const char *who, struct shared_budget *out);
/* Each person with a budget set in the state, by name, once, with their budgets. */
void launch_person_budgets_each(struct state *st,
    void (*fn)(const char *who, const struct shared_budget *b, void *ctx), void *ctx);
/*
 * Set (amount: a money value, "100" or "300 CNY") or unset (NULL) the team's budget of the
 * day (day) or the month. GR_EUSAGE for an amount that is not money.
 */
enum gr_err launch_team_budget_set(struct state *st, bool day, const char *amount,
    struct gr_error *err);
/* The same for one person's budget (who: a team.user), which the door and watcher read. */
enum gr_err launch_person_budget_set(struct state *st, const char *who, bool day,
    const char *amount, struct gr_error *err);

/*
 * The door's engine, called by guard_launch, guard_start and guard_prepay only
 * (scripts/check-layers fails on any other caller); the unit tests drive it with their own
 * clock and launch.
 */
struct launch_ops {
	/* The clocks now (read once the lock is held, so that other launches are seen). */
	void (*clock)(void *ctx, struct cost_clock *out);
	/* Run the launch itself; fill out (its id at least) or fail. NULL: a dry run. */
	enum gr_err (*run)(void *ctx, struct instance *out, struct gr_error *err);
	/* The name the provider's listing shows the new instance by (bk_launch_name), kept in
	   the launch journal; NULL or "" for a start. */
	const char *name;
	/* Record in the ledger what a run that succeeded bought, on the clocks clk, before it
	   is settled (a prepayment's term); NULL: the launched instance as provisioning, and a
	   term paid at its launch. */
	void (*record)(void *ctx, const struct cost_clock *clk, const struct instance *out);
};

/*
 * Admit a launch of `price_hour` on `provider` and run it. When a budget is set, the launch
 * lock (a file beside the database; in it, for PostgreSQL) is held from the budget check
 * until the launch is journaled, which makes it one in flight that later checks count
 * (state.h, state_journal_inflight) until the ledger has its instance; the create itself
 * runs after the lock is let go, so concurrent launches wait for one another's admission,
 * not for their providers. Waiting for the lock is bounded (GR_ESTATE after two minutes).
 * A dry run makes the same check and launches and records nothing. The launched instance
 * gets a provisioning ledger segment (state.h) at its own price when it reports one.
 */
enum gr_err launch_admit(struct state *st, const struct launch_budget *b, const char *provider,
    int64_t price_hour, const struct launch_ops *ops, void *ctx, struct instance *out,
    struct gr_error *err);

struct session;
struct backend;
struct launch_req;

/* How guard_launch admits. */
#define GUARD_FORCE 1u		/* --force: check no budget, but still take turns and record */
#define GUARD_DRY_RUN 2u	/* check only: lock, journal, launch and record nothing */

/* A client token: hex, at most GUARD_TOKEN_MAX - 1 characters. */
#define GUARD_TOKEN_MAX 32

/*
 * THE launch door: admit the create req on b, billing price_hour in `currency` ("": USD),
 * against the session's budgets (budget.day, budget.month, in their currencies, fx.* rates)
 * and run it through session_launch, as launch_admit says. A req without a client_token is
 * given a new one, which the journal and the provider keep, so that a retried create is
 * recognised. flags: GUARD_FORCE, GUARD_DRY_RUN. GR_EBUDGET when a budget refuses.
 */
enum gr_err guard_launch(struct session *s, struct backend *b, const struct launch_req *req,
    int64_t price_hour, const char *currency, unsigned flags, struct instance *out,
    struct gr_error *err);

/*
 * Pay `amount` (in->currency) ahead on instance `in` of b (backend op prepay, vast),
 * admitted as a launch is (launch_admit): the budgets count it whole (GR_EBUDGET unless
 * force), and it is in flight, counted by the launches admitted while its provider answers,
 * until the ledger has it; the launch lock is not held across the provider's answer. The
 * ledger records what it bought as a term (ledger.h) from now or the end of what is already
 * paid, and the instance's hourly price stops while it covers it. *discount_bp and
 * *covered_s: the provider's answer; *paid_until: the end of the term recorded (the
 * provider's clock). GR_EUNSUPPORTED where the provider takes none.
 */
enum gr_err guard_prepay(struct session *s, struct backend *b, const struct instance *in,
    int64_t amount, bool force, int *discount_bp, int64_t *covered_s, int64_t *paid_until,
    struct gr_error *err);

/*
 * Start instance `id` of b. A stopped (or stopping) instance resumes billing at its price, so
 * it is admitted exactly as a launch is (budget.day and budget.month, GR_EBUDGET unless
 * force, under the launch lock); one in any other state is asked as it is, for its provider
 * to answer.
 */
enum gr_err guard_start(struct session *s, struct backend *b, const char *id, bool force,
    struct gr_error *err);

/* A new random client token in buf (GUARD_TOKEN_MAX), for requests that try several creates
   under one (launch by requirement). */
void guard_client_token(char *buf, size_t n);

#endif
