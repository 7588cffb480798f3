#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/costs.h"
#include "gpurent/money.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

int64_t
day_start(int64_t t)
{
	return t - ((t % 86400) + 86400) % 86400;
}

int64_t
month_start(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	tm.tm_mday = 1;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	return (int64_t)timegm(&tm);
}

int64_t
month_end(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	tm.tm_mday = 1;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mon++;
	return (int64_t)timegm(&tm);
}

/* The cost of a segment inside [from, to). */
static int64_t
seg_cost(const struct ledger_seg *g, int64_t from, int64_t to, int64_t now)
{
	int64_t a = g->start > from ? g->start : from;
	int64_t end = g->end ? g->end : now;
	int64_t b = end < to ? end : to;

	return b > a ? money_accrue(g->rate_hour, b - a) : 0;
}

static struct cost_line *
line_for(struct cost_summary *s, size_t *cap, const char *key)
{
	size_t i;

	for (i = 0; i < s->n_lines; i++)
		if (strcmp(s->lines[i].key, key) == 0)
			return &s->lines[i];
	if (s->n_lines == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		s->lines = xreallocarray(s->lines, *cap, sizeof(*s->lines));
	}
	memset(&s->lines[s->n_lines], 0, sizeof(*s->lines));
	strlcpy_(s->lines[s->n_lines].key, key, sizeof(s->lines[0].key));
	return &s->lines[s->n_lines++];
}

static int
cmp_lines(const void *pa, const void *pb)
{
	const struct cost_line *a = pa, *b = pb;

	if (a->spent != b->spent)
		return a->spent > b->spent ? -1 : 1;
	return strcmp(a->key, b->key);
}

static int
cmp_days(const void *pa, const void *pb)
{
	return strcmp(((const struct cost_line *)pa)->key, ((const struct cost_line *)pb)->key);
}

enum gr_err
costs_compute(struct state *st, int64_t now, int64_t since, enum cost_group by,
    struct cost_summary *out, struct gr_error *err)
{
	struct ledger_seg *segs = NULL;
	int64_t today = day_start(now), month = month_start(now), from;
	size_t n, i, cap = 0;

	memset(out, 0, sizeof(*out));
	out->now = now;
	out->since = since ? since : month;
	from = out->since < month ? out->since : month;
	if (from > today)
		from = today;
	if (ledger_load(st, from, 0, &segs, &n, err) != GR_OK)
		return err->code;
	for (i = 0; i < n; i++) {
		const struct ledger_seg *g = &segs[i];
		int64_t spent = seg_cost(g, out->since, now, now);
		bool open = g->end == 0 && g->start <= now;
		const char *key = NULL;

		out->spent += spent;
		out->spent_today += seg_cost(g, today, now, now);
		out->spent_month += seg_cost(g, month, now, now);
		if (open)
			out->burn_hour += g->rate_hour;
		switch (by) {
		case CG_INSTANCE: key = g->instance_id; break;
		case CG_LABEL: key = g->label; break;	/* "": unlabelled, null in JSON */
		case CG_PROVIDER: key = g->provider; break;
		case CG_GPU: key = g->gpu[0] ? g->gpu : "unknown"; break;
		case CG_DAY: {
			/* Split the segment at each midnight it spans. */
			int64_t d = day_start(g->start > out->since ? g->start : out->since);
			int64_t end = g->end ? g->end : now;
			int guard;

			for (guard = 0; d < end && d < now && guard < 4000; d += 86400, guard++) {
				char day[16];
				time_t tt = (time_t)d;
				struct tm tm;
				struct cost_line *l;
				int64_t c = seg_cost(g, d > out->since ? d : out->since, d + 86400,
				    now);

				gmtime_r(&tt, &tm);
				strftime(day, sizeof(day), "%Y-%m-%d", &tm);
				l = line_for(out, &cap, day);
				l->spent += c;
				if (open && now < d + 86400)
					l->burn_hour += g->rate_hour;
			}
			break;
		}
		case CG_NONE: break;
		}
		if (key != NULL) {
			struct cost_line *l = line_for(out, &cap, key);

			l->spent += spent;
			if (open)
				l->burn_hour += g->rate_hour;
		}
	}
	free(segs);
	out->projected_day = out->spent_today + money_accrue(out->burn_hour, today + 86400 - now);
	out->projected_month = out->spent_month + money_accrue(out->burn_hour, month_end(now) - now);
	if (out->n_lines > 0)
		qsort(out->lines, out->n_lines, sizeof(*out->lines), by == CG_DAY ? cmp_days :
		    cmp_lines);
	return GR_OK;
}

void
cost_summary_release(struct cost_summary *s)
{
	free(s->lines);
	s->lines = NULL;
	s->n_lines = 0;
}

enum gr_err
costs_check_budget(const struct cost_summary *s, int64_t extra_hour, int64_t budget_day,
    int64_t budget_month, struct gr_error *err)
{
	char a[32], b[32];
	int64_t day = s->projected_day + money_accrue(extra_hour, day_start(s->now) + 86400 -
	    s->now);
	int64_t month = s->projected_month + money_accrue(extra_hour, month_end(s->now) - s->now);

	if (budget_day >= 0 && day > budget_day)
		return gr_fail(err, GR_EBUDGET, "refused by budget.day: today's spend would reach "
		    "%s against a budget of %s (--force overrides)",
		    money_format(a, sizeof(a), day, 2, true),
		    money_format(b, sizeof(b), budget_day, 2, true));
	if (budget_month >= 0 && month > budget_month)
		return gr_fail(err, GR_EBUDGET, "refused by budget.month: this month's spend would "
		    "reach %s against a budget of %s (--force overrides)",
		    money_format(a, sizeof(a), month, 2, true),
		    money_format(b, sizeof(b), budget_month, 2, true));
	return GR_OK;
}
