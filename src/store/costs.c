/*
 * costs.c - what the ledger says, summed: spend, burn rate and projections per line, on
 * each provider's clock and in each currency (costs.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/costs.h"
#include "gpurent/i18n.h"
#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

int64_t
day_start(int64_t t)
{
	return t - ((t % 86400) + 86400) % 86400;
}

/* The first second of the month months after t's (UTC); timegm carries a month past December. */
static int64_t
month_from(int64_t t, int months)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	tm.tm_mday = 1;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mon += months;
	return (int64_t)timegm(&tm);
}

int64_t
month_start(int64_t t)
{
	return month_from(t, 0);
}

int64_t
month_end(int64_t t)
{
	return month_from(t, 1);
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

/*
 * The lines of a summary being built, with an index by key: a month of 1,000 instances'
 * segments is tens of thousands of rows, and finding each row's line by walking the lines
 * cost a strcmp per line per row.
 */
struct line_set {
	struct cost_summary *s;
	size_t cap;
	size_t *slot;		/* open addressing: line index + 1, 0 empty */
	size_t nslot;		/* a power of two, at least twice the lines */
};

static uint64_t
key_hash(const char *k)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *k != '\0'; k++)
		h = (h ^ (unsigned char)*k) * 0x100000001b3ULL;
	return h;
}

static void
line_index_grow(struct line_set *ls)
{
	size_t i, j, mask;

	ls->nslot = ls->nslot ? ls->nslot * 2 : 64;
	free(ls->slot);
	ls->slot = xcalloc(ls->nslot, sizeof(*ls->slot));
	mask = ls->nslot - 1;
	for (i = 0; i < ls->s->n_lines; i++) {
		for (j = key_hash(ls->s->lines[i].key) & mask; ls->slot[j] != 0; j = (j + 1) & mask)
			;
		ls->slot[j] = i + 1;
	}
}

static struct cost_line *
line_for(struct line_set *ls, const char *key)
{
	struct cost_summary *s = ls->s;
	size_t j, mask;

	if (2 * (s->n_lines + 1) > ls->nslot)
		line_index_grow(ls);
	mask = ls->nslot - 1;
	for (j = key_hash(key) & mask; ls->slot[j] != 0; j = (j + 1) & mask)
		if (strcmp(s->lines[ls->slot[j] - 1].key, key) == 0)
			return &s->lines[ls->slot[j] - 1];
	s->lines = xgrow(s->lines, s->n_lines, &ls->cap, sizeof(*s->lines), 16);
	strlcpy_(s->lines[s->n_lines].key, key, sizeof(s->lines[0].key));
	ls->slot[j] = ++s->n_lines;
	return &s->lines[s->n_lines - 1];
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

int64_t
cost_clock_now(const struct cost_clock *c, const char *provider)
{
	return strcmp(provider, COST_SIM_PROVIDER) == 0 ? c->sim : c->wall;
}

int64_t
cost_clock_at(const struct cost_clock *c, const char *provider, int64_t wall)
{
	if (strcmp(provider, COST_SIM_PROVIDER) != 0)
		return wall;
	return c->sim + (wall - c->wall) * c->sim_rate;
}

int64_t
cost_clock_rate(const struct cost_clock *c, const char *provider)
{
	return strcmp(provider, COST_SIM_PROVIDER) == 0 && c->sim_rate > 1 ? c->sim_rate : 1;
}

/* Each row's window, on its own provider's clock. */
struct row_clock {
	int64_t now, today, month, month_end, since;
};

static void
row_clock(const struct cost_clock *clk, const char *provider, int64_t since,
    struct row_clock *rc)
{
	rc->now = cost_clock_now(clk, provider);
	rc->today = day_start(rc->now);
	rc->month = month_start(rc->now);
	rc->month_end = month_end(rc->now);
	rc->since = since ? since : rc->month;
}

/* Split a billing segment at each midnight it spans, onto the day lines. */
static void
add_days(struct cost_summary *out, struct line_set *ls, const struct ledger_seg *g,
    const struct row_clock *rc, bool open)
{
	int64_t d = day_start(g->start > rc->since ? g->start : rc->since);
	int64_t end = g->end ? g->end : rc->now;
	int guard;

	for (guard = 0; d < end && d < rc->now && guard < 4000; d += 86400, guard++) {
		char day[16];
		time_t tt = (time_t)d;
		struct tm tm;
		struct cost_line *l;
		/* Up to now: a term's segment ends after it. */
		int64_t c = seg_cost(g, d > rc->since ? d : rc->since,
		    d + 86400 < rc->now ? d + 86400 : rc->now, rc->now);

		gmtime_r(&tt, &tm);
		strftime(day, sizeof(day), "%Y-%m-%d", &tm);
		l = line_for(ls, day);
		l->spent += c;
		if (open && rc->now < d + 86400)
			l->burn_hour += g->rate_hour;
	}
}

/* What costs_compute carries from row to row. */
struct compute {
	const struct cost_clock *clk;
	struct row_clock sim, wall;	/* the two clocks' windows, worked out once */
	int64_t since;
	enum cost_group by;
	struct cost_summary *out;
	const struct fx_rates *fx;
	const char *who;		/* only this person's rows; NULL: every row */
	struct line_set lines;
};

static const struct row_clock *
clock_of(const struct compute *cc, const char *provider)
{
	return strcmp(provider, COST_SIM_PROVIDER) == 0 ? &cc->sim : &cc->wall;
}

/* The line a row or a day's total goes on (NULL: none, or the days' own lines). */
static const char *
line_key(enum cost_group by, const struct ledger_seg *g)
{
	switch (by) {
	case CG_INSTANCE: return g->instance_id;
	case CG_LABEL: return g->label;	/* "": unlabelled, null in JSON */
	case CG_PROVIDER: return g->provider;
	case CG_GPU: return g->gpu[0] ? g->gpu : "unknown";
	case CG_USER: return g->who;	/* "": unknown, null in JSON */
	case CG_DAY:
	case CG_NONE: break;
	}
	return NULL;
}

/* One ledger row onto the summary (rows come oldest first). */
static void
add_row(const struct ledger_seg *g, void *ctx)
{
	struct compute *cc = ctx;
	struct cost_summary *out = cc->out;
	const struct row_clock *rc;
	bool billed = g->kind != LEDGER_PROVISIONING;
	bool open;
	const char *key = line_key(cc->by, g);
	int64_t spent = 0, rest_day, rest_month;
	struct ledger_seg conv;

	if (cc->who != NULL && strcmp(g->who, cc->who) != 0)
		return;
	if (!money_same_currency(g->currency, out->currency)) {
		/* Converting the rate converts every amount derived from it. */
		conv = *g;
		if (!money_convert(cc->fx, g->rate_hour, g->currency, out->currency,
		    &conv.rate_hour)) {
			out->unconverted++;
			return;
		}
		g = &conv;
		out->converted = true;
	}
	rc = clock_of(cc, g->provider);
	/* A reservation counts even when made a moment after this clock was read; a term
	   paid ahead is spread over its period, so it burns while it covers now. */
	open = (g->end == 0 && (g->start <= rc->now || !billed)) ||
	    (g->kind == LEDGER_TERM && g->start <= rc->now && g->end > rc->now);
	rest_day = open ? money_accrue(g->rate_hour, rc->today + 86400 - rc->now) : 0;
	rest_month = open ? money_accrue(g->rate_hour, rc->month_end - rc->now) : 0;
	/* A term bills only up to its end. */
	if (open && g->kind == LEDGER_TERM && g->end < rc->today + 86400)
		rest_day = money_accrue(g->rate_hour, g->end - rc->now);
	if (open && g->kind == LEDGER_TERM && g->end < rc->month_end)
		rest_month = money_accrue(g->rate_hour, g->end - rc->now);
	if (billed) {
		int64_t today = seg_cost(g, rc->today, rc->now, rc->now);
		int64_t month = seg_cost(g, rc->month, rc->now, rc->now);

		spent = seg_cost(g, rc->since, rc->now, rc->now);
		out->spent += spent;
		out->spent_today += today;
		out->spent_month += month;
		out->projected_day += today;
		out->projected_month += month;
		if (open)
			out->burn_hour += g->rate_hour;
	} else if (open)
		out->provisioning_hour += g->rate_hour;
	/* What bills or is about to, at its rate until midnight and the month's end. */
	out->projected_day += rest_day;
	out->projected_month += rest_month;
	if (cc->by == CG_DAY && billed)
		add_days(out, &cc->lines, g, rc, open);
	if (key != NULL) {
		struct cost_line *l = line_for(&cc->lines, key);

		l->spent += spent;
		if (open && billed)
			l->burn_hour += g->rate_hour;
		/* Rows come oldest first: the instance's last row says how it ended. */
		l->gone = g->gone;
	}
}

/*
 * The kept daily totals (schema.c, ledger_day) give the sums of the days whose closed
 * segments lie wholly inside the window (from `since`, before today) and wholly on one side
 * of the month's start, on their provider's clock: for such a segment add_row's figures are
 * its whole cost in the spend, the month's spend and projection when it started this month,
 * and nothing today or in the burn, so the day's total is exactly the sum of its rows'.
 * Every other segment is read row by row through add_row: the open ones, and the closed
 * ones of any day and provider that has a segment crossing today's midnight, the window's
 * start or the month's, or in another currency that fx converts (the conversion rounds
 * each row's rate). Rows in another currency with no rate are only counted.
 */
struct day_run {
	struct ledger_day_total *v;
	size_t len, cap;
	const struct ledger_day_total **by_day;	/* v by provider and day */
};

static void
keep_day(const struct ledger_day_total *d, void *ctx)
{
	struct day_run *dr = ctx;

	*XPUSH(dr->v, dr->len, dr->cap, 256) = *d;
}

static int
cmp_day_totals(const void *pa, const void *pb)
{
	const struct ledger_day_total *a = *(const struct ledger_day_total *const *)pa;
	const struct ledger_day_total *b = *(const struct ledger_day_total *const *)pb;
	int c = strcmp(a->key.provider, b->key.provider);

	if (c != 0)
		return c;
	return a->day < b->day ? -1 : a->day > b->day;
}

/* Whether a day's total stands for its rows in this summary (see above). */
static bool
day_whole(const struct compute *cc, const struct ledger_day_total *d, int64_t window)
{
	const struct row_clock *rc;

	if (d->min_end <= window)
		return false;	/* some rows are not in the window at all */
	if (!money_same_currency(d->key.currency, cc->out->currency))
		return cc->fx == NULL;	/* only counted, unconverted */
	rc = clock_of(cc, d->key.provider);
	return d->day >= rc->since && d->max_end <= rc->today &&
	    (d->day >= rc->month || d->max_end <= rc->month);
}

static void
add_day_total(struct compute *cc, const struct ledger_day_total *d)
{
	struct cost_summary *out = cc->out;
	const char *key;
	int64_t spent = d->key.kind != LEDGER_PROVISIONING ? d->spent : 0;

	if (!money_same_currency(d->key.currency, out->currency)) {
		out->unconverted += (size_t)d->n;
		return;
	}
	out->spent += spent;
	if (d->day >= clock_of(cc, d->key.provider)->month) {
		out->spent_month += spent;
		out->projected_month += spent;
	}
	key = line_key(cc->by, &d->key);
	if (key != NULL)
		line_for(&cc->lines, key)->spent += spent;
}

static enum gr_err
compute_by_days(struct state *st, struct compute *cc, int64_t window, struct gr_error *err)
{
	struct day_run dr = { NULL, 0, 0, NULL };
	const struct ledger_day_total **v;
	size_t i, j, k;
	bool whole;

	if (ledger_each_day_total(st, window, keep_day, &dr, err) != GR_OK)
		goto fail;
	/* Sorted by reference: a total is a few hundred bytes. */
	v = dr.by_day = xreallocarray(NULL, dr.len + 1, sizeof(*dr.by_day));
	for (i = 0; i < dr.len; i++)
		v[i] = &dr.v[i];
	if (dr.len > 0)
		qsort(v, dr.len, sizeof(*v), cmp_day_totals);
	/* Runs of one provider's day: the whole run from its totals, or its rows. */
	for (i = 0; i < dr.len; i = j) {
		whole = true;
		for (j = i; j < dr.len && v[j]->day == v[i]->day &&
		    strcmp(v[j]->key.provider, v[i]->key.provider) == 0; j++)
			whole &= day_whole(cc, v[j], window);
		if (whole)
			for (k = i; k < j; k++)
				add_day_total(cc, v[k]);
		else if (ledger_each_closed_started(st, v[i]->key.provider, v[i]->day,
		    v[i]->day + 86400, window, add_row, cc, err) != GR_OK)
			goto fail;
	}
	free(dr.by_day);
	free(dr.v);
	return ledger_each_open(st, add_row, cc, err);
fail:
	free(dr.by_day);
	free(dr.v);
	return err->code;
}

/* The earliest start of any clock's window. */
static int64_t
window_start(const struct cost_clock *clk, int64_t since)
{
	int64_t from = month_start(clk->wall) < month_start(clk->sim) ? month_start(clk->wall) :
	    month_start(clk->sim);

	return since && since < from ? since : from;
}

static int
cmp_codes(const void *pa, const void *pb)
{
	const char *a = pa, *b = pb;

	if (strcmp(a, b) == 0)
		return 0;
	if (strcmp(a, "USD") == 0 || strcmp(b, "USD") == 0)
		return strcmp(a, "USD") == 0 ? -1 : 1;
	return strcmp(a, b);
}

/* The distinct currencies seen so far (ledger_currencies). */
struct code_set {
	char (*codes)[CURRENCY_MAX];
	size_t got, max;
};

static void
add_code(const char *currency, void *ctx)
{
	struct code_set *cs = ctx;
	const char *c = money_currency(currency);
	size_t k;

	for (k = 0; k < cs->got && strcmp(cs->codes[k], c) != 0; k++)
		;
	if (k == cs->got && cs->got < cs->max)
		money_currency_set(cs->codes[cs->got++], c);
}

size_t
ledger_currencies(struct state *st, const struct cost_clock *clk, int64_t since,
    char (*codes)[CURRENCY_MAX], size_t max)
{
	struct code_set cs = { codes, 0, max };
	struct gr_error err = { 0 };

	if (ledger_each_currency(st, window_start(clk, since), add_code, &cs, &err) != GR_OK)
		return 0;
	qsort(codes, cs.got, CURRENCY_MAX, cmp_codes);
	return cs.got;
}

enum gr_err
costs_compute(struct state *st, const struct cost_clock *clk, int64_t since, enum cost_group by,
    struct cost_summary *out, struct gr_error *err)
{
	return costs_compute_in(st, clk, since, by, NULL, NULL, out, err);
}

static enum gr_err
compute(struct state *st, const struct cost_clock *clk, int64_t since, enum cost_group by,
    const char *currency, const struct fx_rates *fx, const char *who, bool by_days,
    struct cost_summary *out, struct gr_error *err)
{
	struct compute cc;
	enum gr_err e;
	bool snapshot;

	memset(out, 0, sizeof(*out));
	memset(&cc, 0, sizeof(cc));
	money_currency_set(out->currency, currency);
	out->now = clk->sim_shown ? clk->sim : clk->wall;
	out->since = since ? since : month_start(out->now);
	cc.clk = clk;
	row_clock(clk, COST_SIM_PROVIDER, since, &cc.sim);
	row_clock(clk, "", since, &cc.wall);
	cc.fx = fx;
	cc.who = who;
	cc.since = since;
	cc.by = by;
	cc.out = out;
	cc.lines.s = out;
	/*
	 * From the kept daily totals where they stand for whole days; the lines by instance
	 * (not kept per day) and by day (a segment's cost split at each midnight) from the
	 * rows. Row by row as SQLite reads them: the window's rows are never all in memory.
	 * Only the lines by instance need the rows oldest first (the last says how it ended);
	 * every other figure is a sum of integers, the same in any order, and skips SQLite's
	 * sort.
	 */
	if (by_days && who == NULL && by != CG_INSTANCE && by != CG_DAY && by != CG_USER) {
		/*
		 * The totals, a day's rows and the open rows in one snapshot: a segment closed
		 * between two of those reads would be in neither.
		 */
		if ((e = state_snapshot_begin(st, &snapshot, err)) == GR_OK) {
			e = compute_by_days(st, &cc, window_start(clk, since), err);
			state_snapshot_end(st, snapshot);
		}
	} else
		e = (by == CG_INSTANCE ? ledger_each : ledger_each_unordered)(st,
		    window_start(clk, since), 0, add_row, &cc, err);
	free(cc.lines.slot);
	if (e != GR_OK) {
		cost_summary_release(out);
		return e;
	}
	cost_summary_sort(out, by);
	return GR_OK;
}

struct cost_line *
cost_summary_line(struct cost_summary *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->n_lines; i++)
		if (strcmp(s->lines[i].key, key) == 0)
			return &s->lines[i];
	s->lines = xreallocarray(s->lines, s->n_lines + 1, sizeof(*s->lines));
	memset(&s->lines[s->n_lines], 0, sizeof(*s->lines));
	strlcpy_(s->lines[s->n_lines].key, key, sizeof(s->lines[0].key));
	return &s->lines[s->n_lines++];
}

void
cost_summary_sort(struct cost_summary *s, enum cost_group by)
{
	if (s->n_lines > 0)
		qsort(s->lines, s->n_lines, sizeof(*s->lines), by == CG_DAY ? cmp_days :
		    cmp_lines);
}

enum gr_err
costs_compute_in(struct state *st, const struct cost_clock *clk, int64_t since,
    enum cost_group by, const char *currency, const struct fx_rates *fx,
    struct cost_summary *out, struct gr_error *err)
{
	return compute(st, clk, since, by, currency, fx, NULL, true, out, err);
}

enum gr_err
costs_compute_of(struct state *st, const struct cost_clock *clk, int64_t since,
    enum cost_group by, const char *currency, const struct fx_rates *fx, const char *who,
    struct cost_summary *out, struct gr_error *err)
{
	return compute(st, clk, since, by, currency, fx, who, true, out, err);
}

enum gr_err
costs_compute_by_rows(struct state *st, const struct cost_clock *clk, int64_t since,
    enum cost_group by, const char *currency, const struct fx_rates *fx,
    struct cost_summary *out, struct gr_error *err)
{
	return compute(st, clk, since, by, currency, fx, NULL, false, out, err);
}

void
cost_summary_release(struct cost_summary *s)
{
	free(s->lines);
	s->lines = NULL;
	s->n_lines = 0;
}

enum gr_err
costs_compute_set(struct state *st, const struct cost_clock *clk, int64_t since,
    enum cost_group by, const struct fx_rates *fx, const char *who, struct cost_set *out,
    struct gr_error *err)
{
	char codes[COSTS_MAX_CURRENCIES][CURRENCY_MAX];
	size_t i, n = ledger_currencies(st, clk, since, codes, COSTS_MAX_CURRENCIES);
	bool all_rated = true;
	int64_t r;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		money_currency_set(codes[n++], NULL);
	for (i = 0; i < n; i++) {
		if (costs_compute_of(st, clk, since, by, codes[i], NULL, who, &out->per[i],
		    err) != GR_OK) {
			cost_set_release(out);
			return err->code;
		}
		out->n++;
		all_rated &= fx_rate(fx, codes[i], &r);
	}
	if (n > 1 && all_rated) {
		if (costs_compute_of(st, clk, since, by, "USD", fx, who, &out->total, err) !=
		    GR_OK) {
			cost_set_release(out);
			return err->code;
		}
		out->has_total = true;
	}
	return GR_OK;
}

const struct cost_summary *
cost_set_main(const struct cost_set *s)
{
	return s->has_total ? &s->total : &s->per[0];
}

const struct cost_summary *
cost_set_in(const struct cost_set *s, const char *currency)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (money_same_currency(s->per[i].currency, currency))
			return &s->per[i];
	return NULL;
}

void
cost_set_release(struct cost_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		cost_summary_release(&s->per[i]);
	s->n = 0;
	if (s->has_total)
		cost_summary_release(&s->total);
	s->has_total = false;
}

enum gr_err
costs_check_budget(const struct cost_summary *s, int64_t now, int64_t extra_hour,
    int64_t extra_lump, int64_t budget_day, int64_t budget_month, struct gr_error *err)
{
	char a[32], b[32];
	const char *rate = s->converted ? _(", converted at your configured rate") : "";
	int64_t day = s->projected_day + money_accrue(extra_hour, day_start(now) + 86400 - now);
	int64_t month = s->projected_month + money_accrue(extra_hour, month_end(now) - now);

	/* A term paid at launch is paid today, whole. */
	day = money_add(day, extra_lump);
	month = money_add(month, extra_lump);

	if (budget_day >= 0 && day > budget_day)
		return gr_fail(err, GR_EBUDGET, "refused by budget.day: today's spend would reach "
		    "%s against a budget of %s%s (--force overrides)",
		    money_format_in(a, sizeof(a), day, 2, s->currency),
		    money_format_in(b, sizeof(b), budget_day, 2, s->currency), rate);
	if (budget_month >= 0 && month > budget_month)
		return gr_fail(err, GR_EBUDGET, "refused by budget.month: this month's spend would "
		    "reach %s against a budget of %s%s (--force overrides)",
		    money_format_in(a, sizeof(a), month, 2, s->currency),
		    money_format_in(b, sizeof(b), budget_month, 2, s->currency), rate);
	return GR_OK;
}
