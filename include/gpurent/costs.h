/*
 * costs.h - what the ledger says: burn rate, spend, projections, grouped.
 *
 * All amounts are micro-units of the summary's currency. Days and months are calendar days
 * and months in UTC.
 *
 * Currencies: a summary is in one currency. costs_compute_in counts the ledger rows in that
 * currency, and rows in any other only when the user configured rates for both (fx.CODE),
 * converted and flagged (`converted`); rows it could not convert are left out and counted
 * (`unconverted`), never added as if they were the same money. costs_compute is
 * costs_compute_in in USD without rates: exactly the dollar figures it always gave.
 * ledger_currencies lists the currencies present, for totals side by side.
 *
 * Each ledger row follows its provider's clock: the simulator ("sim") has a clock of its
 * own that `gpurent sim advance` moves; every real provider follows the wall clock, also
 * when it is pointed at `gpurent sim serve`. A row is costed, and its "today" and "this
 * month" found, on its own clock, so the same ledger gives the same figures for a provider
 * whichever providers a command happens to use.
 */
#ifndef GPURENT_COSTS_H
#define GPURENT_COSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

struct state;

/* The provider whose rows follow the simulated clock. */
#define COST_SIM_PROVIDER "sim"

struct cost_clock {
	int64_t wall;		/* UTC seconds now */
	int64_t sim;		/* the simulator's now (the wall clock when there is no world) */
	bool sim_shown;		/* the summary's now and default since are the simulator's */
	int64_t sim_rate;	/* the simulator's seconds per real second (GPURENT_SIM_SPEED),
				   0 while its clock is fixed; sim is its time at the second wall */
};

/* Now on the clock that `provider`'s ledger rows follow. */
int64_t cost_clock_now(const struct cost_clock *c, const char *provider);

/* The real second `wall` (not long before the clock was read) on `provider`'s clock. */
int64_t cost_clock_at(const struct cost_clock *c, const char *provider, int64_t wall);

/*
 * Seconds that pass on `provider`'s clock while one real second passes: what a wait of the
 * wall clock (a watcher's interval) spans on the clock its samples are stamped with.
 */
int64_t cost_clock_rate(const struct cost_clock *c, const char *provider);

/* CG_USER: who launched or started each instance (ledger_seg.who). */
enum cost_group { CG_NONE, CG_INSTANCE, CG_LABEL, CG_PROVIDER, CG_GPU, CG_DAY, CG_USER };

struct cost_line {
	char key[LABEL_MAX];	/* instance id, label ("": none), provider, GPU, YYYY-MM-DD or
				   user ("": unknown) */
	int64_t spent;		/* in [since, now) */
	int64_t burn_hour;	/* rate of the segments open now */
	bool gone;		/* CG_INSTANCE: the provider no longer lists it (see state.h) */
};

struct cost_summary {
	int64_t now;			/* on the clock shown (cost_clock.sim_shown) */
	int64_t since;			/* likewise; each row counts from its own clock's */
	int64_t burn_hour;		/* everything billing now */
	int64_t provisioning_hour;	/* launched, not billing yet: counted in projections */
	int64_t spent;			/* since `since` */
	int64_t spent_today;
	int64_t spent_month;
	int64_t projected_day;		/* today's spend, plus the burn and what is
					   provisioning at their rates until midnight */
	int64_t projected_month;
	struct cost_line *lines;	/* grouped, largest spend first */
	size_t n_lines;
	char currency[CURRENCY_MAX];	/* of every amount above */
	bool converted;			/* some rows converted at the user's configured rate */
	size_t unconverted;		/* rows in other currencies left out: no rate */
};

/*
 * Sum the ledger from `since` (0: the start of this month on each row's clock) to now,
 * grouped by `by`.
 */
enum gr_err costs_compute(struct state *st, const struct cost_clock *clk, int64_t since,
    enum cost_group by, struct cost_summary *out, struct gr_error *err);
/* The same in `currency` (NULL: USD), converting other rows through fx (NULL: none). */
enum gr_err costs_compute_in(struct state *st, const struct cost_clock *clk, int64_t since,
    enum cost_group by, const char *currency, const struct fx_rates *fx,
    struct cost_summary *out, struct gr_error *err);
/*
 * The same of one person's rows only: those whose ledger_seg.who is who (NULL: everyone's,
 * costs_compute_in). Read row by row, as the kept daily totals are not per person.
 */
enum gr_err costs_compute_of(struct state *st, const struct cost_clock *clk, int64_t since,
    enum cost_group by, const char *currency, const struct fx_rates *fx, const char *who,
    struct cost_summary *out, struct gr_error *err);
/*
 * The same from every row of the window, without the daily totals the database keeps
 * (state.h, ledger_day): the computation costs_compute_in must equal figure for figure,
 * which test-ledger-days checks (bench/scale.sh OLD= compares whole outputs with another
 * build's).
 */
enum gr_err costs_compute_by_rows(struct state *st, const struct cost_clock *clk, int64_t since,
    enum cost_group by, const char *currency, const struct fx_rates *fx,
    struct cost_summary *out, struct gr_error *err);
/*
 * The currencies of the ledger rows that overlap the window costs_compute would read
 * (since 0: this month), sorted, USD first; at most max. Returns how many.
 */
size_t ledger_currencies(struct state *st, const struct cost_clock *clk, int64_t since,
    char (*codes)[CURRENCY_MAX], size_t max);
void cost_summary_release(struct cost_summary *s);
/* The line of s with this key, appended (zeroed but for the key) when it has none. */
struct cost_line *cost_summary_line(struct cost_summary *s, const char *key);
/* The lines in costs_compute's order for the grouping: by day, else largest spend first. */
void cost_summary_sort(struct cost_summary *s, enum cost_group by);

/* The most currencies a cost_set sums on their own. */
#define COSTS_MAX_CURRENCIES 8

/*
 * What `costs` shows: one summary per currency in the ledger (ledger_currencies; USD alone
 * when it is empty), and their total in US dollars at the user's rates when fx has one for
 * every currency and there are several (money.h: never added up otherwise).
 */
struct cost_set {
	struct cost_summary per[COSTS_MAX_CURRENCIES];
	size_t n;
	struct cost_summary total;	/* converted; valid with has_total */
	bool has_total;
};

/* who: one person's spend only (costs_compute_of); NULL: everyone's. */
enum gr_err costs_compute_set(struct state *st, const struct cost_clock *clk, int64_t since,
    enum cost_group by, const struct fx_rates *fx, const char *who, struct cost_set *out,
    struct gr_error *err);
/* The figures to show first: the converted total, else the first currency's. */
const struct cost_summary *cost_set_main(const struct cost_set *s);
/* The summary in `currency`, or NULL when the ledger has none in it. */
const struct cost_summary *cost_set_in(const struct cost_set *s, const char *currency);
void cost_set_release(struct cost_set *s);

/* UTC midnight of the day / first of the month containing t, and the next ones. */
int64_t day_start(int64_t t);
int64_t month_start(int64_t t);
int64_t month_end(int64_t t);

/*
 * Whether a launch that adds `extra_hour` from `now` (its provider's clock) would take a
 * projection past a configured budget (budget_day or budget_month, -1 when unset): today's
 * projection (s->projected_day: spent today, plus what bills and what is provisioning at
 * their rates until midnight) plus extra_hour until midnight, and the same for the month.
 * extra_lump (a term paid at launch) counts whole against both, as it is paid at once.
 * GR_EBUDGET with a message when it would. The budgets and extras are in s->currency.
 */
enum gr_err costs_check_budget(const struct cost_summary *s, int64_t now, int64_t extra_hour,
    int64_t extra_lump, int64_t budget_day, int64_t budget_month, struct gr_error *err);

#endif
