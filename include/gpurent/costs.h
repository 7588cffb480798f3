/*
 * costs.h - what the ledger says: burn rate, spend, projections, grouped.
 *
 * All amounts are micro-dollars. Days and months are calendar days and months in UTC.
 */
#ifndef GPURENT_COSTS_H
#define GPURENT_COSTS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

struct state;

enum cost_group { CG_NONE, CG_INSTANCE, CG_LABEL, CG_PROVIDER, CG_GPU, CG_DAY };

struct cost_line {
	char key[LABEL_MAX];	/* instance id, label ("": none), provider, GPU or YYYY-MM-DD */
	int64_t spent;		/* in [since, now) */
	int64_t burn_hour;	/* rate of the segments open now */
};

struct cost_summary {
	int64_t now;
	int64_t since;
	int64_t burn_hour;		/* everything billing now */
	int64_t spent;			/* since `since` */
	int64_t spent_today;
	int64_t spent_month;
	int64_t projected_day;		/* today's spend at the current burn rate to midnight */
	int64_t projected_month;
	struct cost_line *lines;	/* grouped, largest spend first */
	size_t n_lines;
};

/* Sum the ledger from `since` (0: start of this month) to now, grouped by `by`. */
enum gr_err costs_compute(struct state *st, int64_t now, int64_t since, enum cost_group by,
    struct cost_summary *out, struct gr_error *err);
void cost_summary_release(struct cost_summary *s);

/* UTC midnight of the day / first of the month containing t, and the next ones. */
int64_t day_start(int64_t t);
int64_t month_start(int64_t t);
int64_t month_end(int64_t t);

/*
 * Whether adding `extra_hour` of burn would take the projection past a configured budget
 * (budget_day or budget_month, -1 when unset). GR_EBUDGET with a message when it would.
 */
enum gr_err costs_check_budget(const struct cost_summary *s, int64_t extra_hour,
    int64_t budget_day, int64_t budget_month, struct gr_error *err);

#endif
