/*
 * audit.h - where the money went: spend against use, per instance, label, provider or GPU
 * (src/guard/audit.c, `gpurent audit`).
 *
 * Figures, over [since, now) on each ledger row's own clock (costs.h):
 *   billed_s      seconds of compute billing (ledger compute segments)
 *   spend         what compute and storage cost (micro-units of the row's currency,
 *                 money_accrue per segment)
 *   idle_s        billed seconds in which every GPU was at or below the idle threshold, as
 *                 the sample history saw them (history.h); time without samples is never
 *                 idle, so idle_s is a floor
 *   waste         compute spend x idle_s / billed_s: what the idle time cost
 *   util_mean/p95 time-weighted GPU utilisation of the samples (per instance; for a group,
 *                 the mean weighted by GPU-hours and the highest p95 of its instances)
 *   gpu_hours     billed hours x GPUs (GPU count from the samples, else the live instance)
 *   eff_gpu_hour  spend / (gpu_hours x util_mean / 100): the price of a utilised GPU-hour
 *   energy_kwh    from power samples where there are any; else catalogue TDP x GPUs x
 *                 billed hours x mean utilisation, and energy_estimated is set
 *   co2_kg        energy_kwh x the grid intensity of the instance's region (audit_grid)
 *   observed, covered_s  the instances some sample covers, and the seconds covered
 *                 (per instance, added up over a group's)
 * A figure that cannot be known (no samples, unknown GPU, unknown region) is marked so,
 * never zero.
 *
 * Currencies (issue 18): every row is in one currency, the one its ledger segments were
 * billed in. A group (--by) whose instances bill in several currencies is one row per
 * currency, as in `costs`; the totals are one per currency, and money of different
 * currencies is added up only through the rates the user configured (fx.CODE), into US
 * dollars, and then the row says so (converted). Nothing is converted silently.
 */
#ifndef GPURENT_AUDIT_H
#define GPURENT_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "costs.h"
#include "error.h"
#include "model.h"
#include "money.h"

struct state;
struct instance_list;
struct offer_list;

/* AG_USER: who launched or started each instance (ledger_seg.who). */
enum audit_group { AG_INSTANCE, AG_LABEL, AG_PROVIDER, AG_GPU, AG_USER };

/* What the audit knows of an instance that the provider still lists. */
struct audit_live {
	char id[ID_MAX];
	char region[32];
	int gpus;
};

struct audit_opts {
	int64_t span_s;			/* --since: the window ends now on each row's clock */
	const struct cost_clock *clock;
	int idle_pct;			/* idle.threshold */
	int target_pct;			/* audit.target */
	const char *grid;		/* audit.grid overrides, "REGION=G,..." (NULL none) */
	enum audit_group by;
	const struct audit_live *live;	/* instances listed now, for GPU count and region */
	size_t n_live;
	const struct fx_rates *fx;	/* the user's rates (NULL: none): only for the total */
	const char *who;		/* only this person's ledger rows; NULL: everyone's */
};

struct audit_row {
	char key[LABEL_MAX];		/* instance id, label ("" none), provider, GPU or user
					   ("" unknown) */
	int instances;
	int64_t billed_s;
	int64_t spend;			/* micro-units of currency */
	int64_t compute_spend;
	int64_t idle_s;
	int64_t waste;			/* micro-units of currency */
	char currency[CURRENCY_MAX];	/* of every amount of the row */
	bool converted;			/* amounts of other currencies added at the user's rates */
	bool unpriced;			/* several currencies no rate joins: no amount is known */
	int64_t covered_s;		/* seconds with samples */
	int observed;			/* of the instances, those some sample covers */
	bool util_known;
	double util_mean, util_p95;	/* percent */
	bool gpus_known;		/* gpu_hours is meaningful */
	double gpu_hours;
	double util_gpu_hours;		/* gpu_hours x util_mean / 100, where util is known */
	bool energy_known, energy_estimated;
	double energy_kwh;
	bool co2_known;
	double co2_kg;
	/* per instance, for grouping */
	char provider[PROVIDER_MAX], label[LABEL_MAX], gpu[32];
	char user[TEAM_NAME_MAX + 1];	/* "": unknown */
};

/* Cost of a utilised GPU-hour in micro-units of the row's currency; -1 when unknown. */
int64_t audit_eff_gpu_hour(const struct audit_row *r);
/*
 * Share of billed time idle, 0..1; -1 when nothing was billed or no sample covers any of it
 * (unknown, never 0: an unobserved instance may have idled all along).
 */
double audit_idle_share(const struct audit_row *r);
/* Whether the row's waste is known: its amounts are, and some sample covers its time. */
bool audit_waste_known(const struct audit_row *r);

struct audit_report {
	struct audit_row *rows;		/* grouped; by currency (USD first), then largest spend */
	size_t n;
	struct audit_row *totals;	/* one per currency, in the same order */
	size_t n_totals;
	/*
	 * Every instance: hours, use, energy and carbon over all of them; its amounts are the
	 * one currency's, or with several the US-dollar sum at the user's rates (converted),
	 * or unknown (unpriced) when a currency has no rate.
	 */
	struct audit_row total;
};
void audit_report_release(struct audit_report *r);

/* Compute the audit from the ledger and the sample history in st. */
enum gr_err audit_compute(struct state *st, const struct audit_opts *o,
    struct audit_report *out, struct gr_error *err);

/*
 * Grid carbon intensity of a region in g CO2e/kWh: the overrides first ("eu-north=30,na=400":
 * the longest region prefix wins), then the shipped table (src/guard/audit.c, with its
 * sources). false when neither knows the region. *src receives where the figure came from.
 */
bool audit_grid(const char *region, const char *overrides, int *g_per_kwh, const char **src);

/*
 * Whether offer model o can stand in for instance model m: the same model, or one of its
 * family with at least as much memory per GPU.
 */
bool audit_equivalent(const struct gpu_model *m, const struct gpu_model *o);

/*
 * "Cheaper now": for each running instance of l whose GPU the catalogue knows, the cheapest
 * offer in offers of the same model or a catalogue equivalent (the same family with at least
 * as much memory per GPU), with as many GPUs and of the same type (on-demand or
 * interruptible), that costs less per hour than the instance. One entry per such instance,
 * largest saving first; caller frees *out.
 */
struct audit_cheaper {
	char instance_id[ID_MAX];
	int64_t price_hour;		/* what the instance costs, in currency */
	char currency[CURRENCY_MAX];	/* of price_hour and the savings */
	struct offer offer;		/* its price in offer.currency */
	int64_t saving_hour;
	int64_t saving_month;		/* x 730 hours */
	bool converted;			/* the offer's price came through the user's rates */
};
/*
 * Prices are compared within a currency; an offer in another currency only through the
 * rates in fx (NULL: none), and then the saving is in the instance's currency, converted.
 */
void audit_cheaper_now(const struct instance_list *l, const struct offer_list *offers,
    const struct fx_rates *fx, struct audit_cheaper **out, size_t *n);

#endif
