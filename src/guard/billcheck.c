/*
 * billcheck.c - the ledger set beside each provider's bill (billcheck.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/backend.h"
#include "gpurent/billcheck.h"
#include "gpurent/costs.h"
#include "gpurent/i18n.h"
#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/session.h"
#include "gpurent/util.h"

/* The ledger of one provider over a window, cut into days. */
struct ledger_walk {
	struct charge_list days;	/* ledger_days, folded */
	char (*seen)[ID_MAX];		/* instances with a segment in the window, sorted */
	size_t n_seen, cap_seen;
};

static void
add_seen(const char *id, void *ctx)
{
	struct ledger_walk *w = ctx;

	strlcpy_(*XPUSH(w->seen, w->n_seen, w->cap_seen, 16), id, ID_MAX);
}

static int
id_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Whether the ledger has the instance in the window (w->seen sorted). */
static bool
seen(const struct ledger_walk *w, const char *id)
{
	return bsearch(id, w->seen, w->n_seen, ID_MAX, id_cmp) != NULL;
}

/* The order of a and b by instance, day and currency; *other_currency when only the
   currency tells them apart. */
static int
key_cmp(const struct charge *a, const struct charge *b, bool *other_currency)
{
	int c = strcmp(a->instance_id, b->instance_id);

	*other_currency = false;
	if (c != 0)
		return c;
	if (a->day != b->day)
		return a->day < b->day ? -1 : 1;
	c = strcmp(a->currency, b->currency);
	*other_currency = c != 0;
	return c;
}

static enum bill_cause
cause_of(const struct bill_row *r, bool unseen, int64_t tolerance)
{
	if (llabs(r->difference) <= tolerance)
		return BILL_MATCH;
	if (r->billed < 0)
		return BILL_UNBILLED;
	if (unseen)
		return BILL_UNSEEN;
	if (r->billed_storage >= 0 && r->billed_storage -
	    (r->ledger_storage > 0 ? r->ledger_storage : 0) > tolerance)
		return BILL_STORAGE;
	if (r->difference > 0 && (r->ledger < 0 || r->ledger == r->ledger_storage))
		return BILL_STOPPED;
	return BILL_PRICE;
}

static void
add_row(struct bill_report *out, struct bill_provider *p, const struct ledger_walk *w,
    const struct charge *l, const struct charge *b, bool other_currency, int64_t tolerance)
{
	struct bill_row *r = XPUSH(out->rows, out->n, out->cap, 64);
	const struct charge *k = l != NULL ? l : b;

	memset(r, 0, sizeof(*r));
	strlcpy_(r->instance_id, k->instance_id, sizeof(r->instance_id));
	strlcpy_(r->provider, p->name, sizeof(r->provider));
	strlcpy_(r->currency, k->currency, sizeof(r->currency));
	r->day = k->day;
	r->ledger = l != NULL ? l->amount : -1;
	r->ledger_storage = l != NULL ? l->storage : -1;
	r->billed = b != NULL ? b->amount : -1;
	r->billed_storage = b != NULL ? b->storage : -1;
	r->difference = money_add(b != NULL ? b->amount : 0, l != NULL ? -l->amount : 0);
	r->cause = other_currency ? BILL_CURRENCY : cause_of(r, !seen(w, k->instance_id),
	    tolerance);
	if (r->cause == BILL_MATCH)
		p->matches++;
	else {
		p->differences++;
		out->differences++;
	}
}

/* Both sides, folded, walked together. */
static void
compare(struct bill_report *out, struct bill_provider *p, const struct ledger_walk *w,
    const struct charge_list *bill, int64_t tolerance)
{
	const struct charge_list *led = &w->days;
	size_t i = 0, j = 0;
	bool oc;
	int c;

	while (i < led->n || j < bill->n) {
		if (i == led->n)
			c = 1, oc = false;
		else if (j == bill->n)
			c = -1, oc = false;
		else
			c = key_cmp(&led->v[i], &bill->v[j], &oc);
		if (c == 0)
			add_row(out, p, w, &led->v[i++], &bill->v[j++], false, tolerance);
		else if (c < 0)
			add_row(out, p, w, &led->v[i++], NULL, oc, tolerance);
		else
			add_row(out, p, w, NULL, &bill->v[j++], oc, tolerance);
	}
}

enum gr_err
bill_check_backend(struct session *s, struct backend *be, int64_t since, int64_t until,
    int64_t tolerance, struct bill_report *out, struct gr_error *gerr)
{
	struct bill_provider *p;
	struct ledger_walk w = { 0 };
	struct charge_list bill;
	struct gr_error err = { 0 };
	struct cost_clock clk;
	struct state *st;
	int64_t now;

	if (out->n_prov == ARRAY_LEN(out->prov))
		return GR_OK;
	if (session_state(s, &st, gerr) != GR_OK)
		return gerr->code;
	session_clock(s, &clk);
	now = cost_clock_now(&clk, be->ops->name);
	p = &out->prov[out->n_prov++];

	memset(p, 0, sizeof(*p));
	strlcpy_(p->name, be->ops->name, sizeof(p->name));
	p->since = day_start(since != 0 ? since : now) - (since != 0 ? 0 : 6 * 86400);
	p->until = until != 0 ? day_start(until) : now;
	/* No bill to read is said as such, key or no key. */
	if (be->ops->charges == NULL)
		return GR_OK;
	if (!be->ready) {
		p->error = be->init_err.code;
		strlcpy_(p->msg, be->init_err.msg, sizeof(p->msg));
		return GR_OK;
	}
	p->has_bill = true;
	charge_list_init(&bill);
	if (be->ops->charges(be, p->since, p->until, &bill, &err) != GR_OK) {
		p->error = err.code;
		strlcpy_(p->msg, err.msg, sizeof(p->msg));
		charge_list_release(&bill);
		return GR_OK;
	}
	charge_list_init(&w.days);
	/* Any instance the ledger has in the window, whatever its provider: a bill names
	   only its own provider's. */
	ledger_each_instance_id(st, p->since, SIZE_MAX, add_seen, &w);
	if (ledger_days(st, p->name, p->since, p->until, &w.days, &err) != GR_OK) {
		p->error = err.code;
		strlcpy_(p->msg, err.msg, sizeof(p->msg));
	} else {
		qsort(w.seen, w.n_seen, ID_MAX, id_cmp);
		charge_list_fold(&w.days);
		charge_list_fold(&bill);
		compare(out, p, &w, &bill, tolerance);
	}
	charge_list_release(&w.days);
	charge_list_release(&bill);
	free(w.seen);
	return GR_OK;
}

enum gr_err
bill_check(struct session *s, int64_t since, int64_t until, int64_t tolerance,
    struct bill_report *out, struct gr_error *err)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (session_backends(s, err) != GR_OK)
		return err->code;
	for (i = 0; i < s->n_backends; i++)
		if (bill_check_backend(s, s->backends[i], since, until, tolerance, out, err) !=
		    GR_OK)
			return err->code;
	return GR_OK;
}

/* One summary's share of a difference on `day`. */
static void
apply_to(struct cost_summary *s, const struct bill_row *r, int64_t diff,
    const struct cost_clock *clk, enum cost_group by)
{
	int64_t now = cost_clock_now(clk, r->provider);
	char key[16];
	time_t d = (time_t)r->day;
	struct tm tm;

	s->spent = money_add(s->spent, diff);
	if (r->day >= day_start(now)) {
		s->spent_today = money_add(s->spent_today, diff);
		s->projected_day = money_add(s->projected_day, diff);
	}
	if (r->day >= month_start(now)) {
		s->spent_month = money_add(s->spent_month, diff);
		s->projected_month = money_add(s->projected_month, diff);
	}
	if (by == CG_INSTANCE)
		cost_summary_line(s, r->instance_id)->spent += diff;
	else if (by == CG_PROVIDER)
		cost_summary_line(s, r->provider)->spent += diff;
	else if (by == CG_DAY) {
		strftime(key, sizeof(key), "%Y-%m-%d", gmtime_r(&d, &tm));
		cost_summary_line(s, key)->spent += diff;
	}
}

size_t
bill_apply(const struct bill_report *rep, const struct cost_clock *clk, enum cost_group by,
    const struct fx_rates *fx, struct cost_set *set)
{
	size_t i, j, n = 0;
	int64_t usd;

	for (i = 0; i < rep->n; i++) {
		const struct bill_row *r = &rep->rows[i];

		if (r->cause == BILL_MATCH || r->cause == BILL_CURRENCY)
			continue;
		for (j = 0; j < set->n; j++)
			if (money_same_currency(set->per[j].currency, r->currency))
				break;
		if (j == set->n)
			continue;
		apply_to(&set->per[j], r, r->difference, clk, by);
		if (set->has_total && money_convert(fx, r->difference, r->currency, "USD", &usd))
			apply_to(&set->total, r, usd, clk, by);
		n++;
	}
	for (j = 0; j < set->n; j++)
		cost_summary_sort(&set->per[j], by);
	if (set->has_total)
		cost_summary_sort(&set->total, by);
	return n;
}

void
bill_report_release(struct bill_report *r)
{
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

const char *
bill_cause_name(enum bill_cause c)
{
	static const char *const names[] = { "match", "unseen", "storage", "stopped", "price",
		"unbilled", "currency" };

	return names[c];
}

const char *
bill_cause_text(enum bill_cause c)
{
	switch (c) {
	case BILL_MATCH: return _("match");
	case BILL_UNSEEN: return _("billed an instance the ledger does not have");
	case BILL_STORAGE: return _("storage billed beyond the ledger's (a stopped instance's disk)");
	case BILL_STOPPED: return _("billed while gpurent thought it stopped");
	case BILL_PRICE: return _("a price that changed");
	case BILL_UNBILLED: return _("the ledger counts what the provider did not bill");
	default: return _("billed in another currency: not compared");
	}
}
