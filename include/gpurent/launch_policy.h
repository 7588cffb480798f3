/*
 * launch_policy.h - what a launch bids and whether it may go ahead.
 *
 * `gpurent launch`, `launch --dry-run` and the dashboard's launch all pass through these
 * two steps, so a dry run refuses exactly what a real launch would:
 *
 *   launch_plan_make  checks the request against the offer (a bid only on an interruptible
 *                     offer and never below its current price, the disk within the offer's,
 *                     a machine free) and chooses the bid: without one, the current price
 *                     plus spot.bid_margin percent (rounded up to a tenth of a cent), so
 *                     that the next repricing does not outbid the instance at once.
 *   launch_admit      checks budget.day and budget.month, counting what bills now, what is
 *                     still provisioning and this launch, under a lock that makes
 *                     concurrent launches (of any gpurent process) take turns; runs the
 *                     launch; and records the new instance as provisioning before letting
 *                     the next launch look.
 */
#ifndef GPURENT_LAUNCH_POLICY_H
#define GPURENT_LAUNCH_POLICY_H

#include <stdbool.h>
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
	 * than counted as if it were the same money. launch_budget_from_config fills them all.
	 */
	char day_currency[CURRENCY_MAX];
	char month_currency[CURRENCY_MAX];
	char price_currency[CURRENCY_MAX];
	struct fx_rates fx;
};

struct config;
/* budget.day, budget.month (with their currencies) and fx.* from the config; price in
   price_currency; force from --force. */
void launch_budget_from_config(struct launch_budget *b, const struct config *cfg,
    const char *price_currency, bool force);

/* What launch_admit calls back. */
struct launch_ops {
	/* The clocks now (read once the lock is held, so that other launches are seen). */
	void (*clock)(void *ctx, struct cost_clock *out);
	/* Run the launch itself; fill out (its id at least) or fail. NULL: a dry run. */
	enum gr_err (*launch)(void *ctx, struct instance *out, struct gr_error *err);
};

/*
 * Admit a launch of `price_hour` on `provider` and run it. When a budget is set, the launch
 * lock (a file beside the database) is held from the budget check until the new instance
 * is recorded; waiting for it is bounded (GR_ESTATE after two minutes). A dry run makes the
 * same check and launches and records nothing. The launched instance gets a provisioning
 * ledger segment (state.h) at its own price when it reports one.
 */
enum gr_err launch_admit(struct state *st, const struct launch_budget *b, const char *provider,
    int64_t price_hour, const struct launch_ops *ops, void *ctx, struct instance *out,
    struct gr_error *err);

#endif
