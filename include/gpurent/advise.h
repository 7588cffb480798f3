/*
 * advise.h - the cheapest way to pay for the load the ledger shows (src/guard/advise.c,
 * `gpurent advise`).
 *
 * Per GPU model and currency, over the last span_s on each ledger row's clock:
 *   the load shape  GPU-seconds of compute billing by hour of day and by day of the week
 *                   (UTC), the steady base (the ADVISE_BASE_PCT-th percentile of the GPUs
 *                   running at once over the observed time) and the peak (the most at once);
 *   the mix         the base on a term, the GPU-hours above it on demand, instances that ran
 *                   interruptible left there, priced from what the same GPU-hours were paid:
 *                   a term at discount d costs base x observed time x (1 - d) of the mean
 *                   price paid per GPU-hour, whether its GPUs run or not; the saving is what
 *                   was paid less the mix, per term;
 *   the balance     theoretical TFLOP-hours (catalogue.h) of the GPU-hours, the utilisation
 *                   the samples measured, the price of a utilised TFLOP-hour, that price had
 *                   the GPUs been used at the audit target, and the cheapest comparable
 *                   offer's at the target.
 * A GPU count comes from the samples or the listing (audit.h); an instance with neither is
 * left out of the shape and the mix, and counted as such (unsized). Nothing is converted
 * between currencies: a model billed in two is a group in each.
 *
 * The terms: for each term length, the largest discount among the providers' term offers
 * (type=reserved) of the group's GPU in its currency, against the same machine on demand;
 * where none is offered, the discount the config assumes (advise.term_1mo, advise.term_3mo),
 * and the plan says so.
 */
#ifndef GPURENT_ADVISE_H
#define GPURENT_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit.h"
#include "error.h"
#include "model.h"

/* The steady base: the GPUs running at least 90 % of the observed time. */
#define ADVISE_BASE_PCT 10
/* Hours in the month a term's break-even is of (as audit's monthly saving). */
#define ADVISE_MONTH_H 730
#define ADVISE_TERMS_MAX 4

struct advise_term {
	const char *name;	/* "1mo" */
	int months;
	int discount_pct;	/* off the on-demand price */
};

struct config;
/* The terms advise prices, a month and three, at the discounts the config assumes
 * (advise.term_1mo, advise.term_3mo); t has room for ADVISE_TERMS_MAX. Returns how many. */
size_t advise_terms(const struct config *cfg, struct advise_term *t);

struct advise_opts {
	struct audit_opts audit;	/* its by is the advisor's to set */
	const struct advise_term *terms;
	size_t n_terms;			/* at most ADVISE_TERMS_MAX */
	const char *const *interruptible;	/* ids of listed instances that are interruptible */
	size_t n_interruptible;
	const struct offer_list *offers;	/* NULL: none compared */
	const struct offer_list *term_offers;	/* the providers' terms; NULL: none asked */
};

/* One term's mix for a group, over its observed time. */
struct advise_plan {
	int discount_pct;	/* the term's discount, from offer_id or assumed */
	char offer_id[ID_MAX];	/* the term offer it is of; "": the config's assumption */
	int64_t term_cost;	/* the base on the term */
	int64_t demand_cost;	/* the GPU-hours above the base, on demand */
	int64_t saving;		/* paid - term_cost - demand_cost; < 0: the term costs more */
};

struct advise_group {
	char gpu[32];			/* the ledger's GPU ("": unknown) */
	char currency[CURRENCY_MAX];
	/* the mix: the on-demand instances whose GPU count is known */
	int instances;
	int64_t span_s;			/* observed: from the first billed second to now */
	int64_t gpu_s;
	int64_t by_hour[24];		/* GPU-seconds, UTC */
	int64_t by_weekday[7];		/* Monday first */
	int base, peak;			/* GPUs at once; base -1: nothing observed */
	int64_t base_gpu_s;		/* of gpu_s, the part the base covers */
	int64_t paid;			/* what gpu_s cost */
	struct advise_plan plans[ADVISE_TERMS_MAX];
	int best;			/* the plan that saves most, -1: none saves */
	/* left as they were */
	int interruptible;
	int64_t interruptible_s;	/* billed seconds */
	int64_t interruptible_paid;
	int unsized;			/* instances of no known GPU count */
	int64_t unsized_s;
	int64_t unsized_paid;
	/* the balance sheet: every instance of the model, from audit --by gpu */
	struct audit_row sheet;		/* zeroed when the audit has no row of the group */
	int tflops_x10;			/* per GPU, 0: unknown */
	int64_t per_tflop_hour;		/* spend per utilised TFLOP-hour, -1: unknown */
	int64_t per_tflop_hour_target;	/* spend per TFLOP-hour at the target use, -1 */
	struct offer offer;		/* the cheapest comparable offer now */
	bool offer_found, offer_converted;
	int64_t offer_per_tflop_hour;	/* at the target use, in currency; -1: none */
};

struct advise_report {
	struct advise_group *groups;	/* audit's order: by currency, then spend */
	size_t n;
};
void advise_report_release(struct advise_report *r);

/* What the groups paid and the best plans save, in one currency. */
struct advise_saving {
	char currency[CURRENCY_MAX];
	int64_t paid, saving;
};
/*
 * The groups' paid and best savings added up per currency, in the report's order, into v
 * (at most max currencies; the rest are left out); returns how many.
 */
size_t advise_savings(const struct advise_report *r, struct advise_saving *v, size_t max);

enum gr_err advise_compute(struct state *st, const struct advise_opts *o,
    struct advise_report *out, struct gr_error *err);

/*
 * The smallest level L (GPUs at once) such that at least pct % of the time was spent at L
 * or fewer, given dur[L] seconds spent at each level L < n; -1 when no time was spent.
 */
int advise_percentile(const int64_t *dur, size_t n, int pct);

/* Hours a month a GPU must run for a term at discount_pct to cost less than on demand. */
double advise_break_even_hours(int discount_pct);

/*
 * The mix of `paid` for gpu_s GPU-seconds, base GPUs on a term at discount_pct over span_s,
 * of which they cover base_gpu_s, the rest on demand at the mean price paid.
 */
struct advise_plan advise_plan(int64_t paid, int64_t gpu_s, int64_t base_gpu_s, int base,
    int64_t span_s, int discount_pct);

#endif
