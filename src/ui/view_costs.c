/*
 * view_costs.c - the costs view: burn rate, today and this month with projections, the
 * monthly budget as a bar, and the spend by provider and by label.
 */
#include <curses.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gpurent/audit.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/util.h"
#include "ui.h"

void
ui_cost_list(char *buf, size_t n, const struct cost_set *s, size_t field, int times,
    int decimals)
{
	char a[32];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < s->n && len + 1 < n; i++) {
		const int64_t *v = (const int64_t *)(const void *)((const char *)&s->per[i] + field);

		snprintf(buf + len, n - len, "%s%s", i ? ", " : "", money_format_in(a, sizeof(a),
		    *v * times, decimals, s->per[i].currency));
		len = strlen(buf);
	}
}

/* A set's lines, each currency's in its own money, the largest spend of each first. */
static void
draw_cost_lines(int y, int x, int w, int h, const char *title, const struct cost_set *set)
{
	char line[256], a[32], b[32], fa[48], fb[48];
	size_t i, k, shown = 0;
	const struct ui_head heads[] = {
		{ title, w - 26 > 4 ? w - 26 : 4, false }, { _("SPENT"), 12, true },
		{ _("BURN/H"), 11, true },
	};

	ui_put(y, x, w, ui_head_line(line, sizeof(line), heads, ARRAY_LEN(heads)),
	    ui_attr(UC_COLHEAD), false);
	for (k = 0; k < set->n; k++) {
		const struct cost_summary *s = &set->per[k];

		for (i = 0; i < s->n_lines && (int)shown < h - 1; i++, shown++) {
			char key[64];

			ui_text_fit(key, sizeof(key), s->lines[i].key[0] ? s->lines[i].key :
			    _("(no label)"), w - 26 > 4 ? w - 26 : 4, false);
			/* By display width: a yuan sign is one cell, two bytes. */
			money_format_in(a, sizeof(a), s->lines[i].spent, 2, s->currency);
			money_format_in(b, sizeof(b), s->lines[i].burn_hour, 3, s->currency);
			snprintf(line, sizeof(line), "%s %s %s", key, ui_text_fit(fa, sizeof(fa),
			    a, 12, true), ui_text_fit(fb, sizeof(fb), b, 11, true));
			ui_put(y + 1 + (int)shown, x, w, line, A_NORMAL, false);
		}
	}
	if (shown == 0)
		ui_put(y + 1, x, w, _("  nothing billed this month"), ui_attr(UC_DIM), false);
}

/*
 * The waste of the audit's totals, each in its own currency side by side, and their sum in
 * US dollars only when the user's rates gave one (saying so).
 */
static void
audit_waste(const struct ui *u, char *buf, size_t n)
{
	char a[32], list[160] = "";
	size_t i, len = 0;

	for (i = 0; i < u->cv.audit.n_per && len + 1 < sizeof(list); i++) {
		snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", money_format_in(a,
		    sizeof(a), u->cv.audit.per[i].waste, 2, u->cv.audit.per[i].currency));
		len = strlen(list);
	}
	if (u->cv.audit.n_per == 0)
		money_format_in(list, sizeof(list), 0, 2, NULL);
	if (u->cv.audit.total.converted)
		snprintf(buf, n, _("%s (%s converted at your configured rate)"), list,
		    money_format_in(a, sizeof(a), u->cv.audit.total.waste, 2,
		    u->cv.audit.total.currency));
	else
		snprintf(buf, n, "%s", list);
}

/* One line of `gpurent audit` over the last 7 days: use against the target, and waste. */
static void
draw_audit(const struct ui *u, int y, int w)
{
	const struct audit_row *t = &u->cv.audit.total;
	char line[384], util[48], waste[224];
	double idle = audit_idle_share(t);
	bool wasted = false;
	size_t i;

	if (t->billed_s <= 0) {
		ui_put(y, 2, w, _("Last 7 days    nothing billed"), ui_attr(UC_DIM), false);
		return;
	}
	if (idle < 0) {
		/* Nothing observed: idle time and waste are unknown, not none. */
		ui_put(y, 2, w, _("Last 7 days    no samples: GPU use, idle time and waste "
		    "unknown ('gpurent audit')"), ui_attr(UC_WARN), false);
		return;
	}
	if (t->util_known)
		snprintf(util, sizeof(util), _("GPU util %.0f%% (target %d%%)"), t->util_mean,
		    u->cv.audit.target);
	else
		snprintf(util, sizeof(util), _("GPU util unknown (no samples)"));
	audit_waste(u, waste, sizeof(waste));
	for (i = 0; i < u->cv.audit.n_per; i++)
		wasted |= u->cv.audit.per[i].waste > 0;
	snprintf(line, sizeof(line), _("Last 7 days    %s, idle %.0f%% of billed time, waste %s "
	    "('gpurent audit')"), util, idle * 100.0, waste);
	ui_put(y, 2, w, line, ui_attr(wasted || (t->util_known &&
	    t->util_mean < u->cv.audit.target) ? UC_WARN : UC_GOOD), false);
}

/*
 * The headline of `gpurent advise` over the last 30 days: what the base on the best term
 * would save, each currency on its own.
 */
static void
draw_advise(const struct ui *u, int y, int w)
{
	const struct ui_audit *a = &u->cv.audit;
	char line[384], list[256] = "", m[48];
	size_t i, len = 0;
	bool saves = false;

	if (!a->advised) {
		ui_put(y, 2, w, _("Last 30 days   no steady load of known GPU count to put on a "
		    "term ('gpurent advise')"), ui_attr(UC_DIM), false);
		return;
	}
	for (i = 0; i < a->n_saving && len + 1 < sizeof(list); i++) {
		if (a->saving[i].saving <= 0)
			continue;
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", saves ? ", " : "",
		    money_format_in(m, sizeof(m), a->saving[i].saving, 2, a->saving[i].currency));
		saves = true;
	}
	if (!saves) {
		ui_put(y, 2, w, _("Last 30 days   on demand is the cheapest for this load "
		    "('gpurent advise')"), ui_attr(UC_DIM), false);
		return;
	}
	snprintf(line, sizeof(line), _("Last 30 days   the base on a term would save %s "
	    "(discounts assumed; 'gpurent advise')"), list);
	ui_put(y, 2, w, line, ui_attr(UC_GOOD), false);
}

/*
 * One budget as a bar: what was spent and what is projected against it, both in the
 * budget's own currency; spend in other currencies is not converted into it here.
 */
static void
draw_budget(const struct ui *u, const struct ui_budget *bg, int y, int w)
{
	const struct cost_summary *s = cost_set_in(&u->costs, bg->currency);
	int64_t spent = s == NULL ? 0 : bg->day ? s->spent_today : s->spent_month;
	int64_t projected = s == NULL ? 0 : bg->day ? s->projected_day : s->projected_month;
	int gw = w - 4 - 15 - 34, fill, proj, i;
	long long pct = projected * 100 / bg->amount;
	enum ui_color col = pct >= 100 ? UC_BAD : pct >= 80 ? UC_WARN : UC_GOOD;
	char bar[1024], line[256], amount[48];
	size_t len = 0;

	if (gw < 10)
		gw = 10;
	fill = ui_level(spent, bg->amount, gw + 1);
	proj = ui_level(projected, bg->amount, gw + 1);
	for (i = 0; i < gw && len + 4 < sizeof(bar); i++) {
		const char *ch = i < fill ? (u->utf8 ? "\xe2\x96\x88" : "#") :
		    i < proj ? (u->utf8 ? "\xe2\x96\x92" : "+") : (u->utf8 ? "\xc2\xb7" : ".");

		memcpy(bar + len, ch, strlen(ch));
		len += strlen(ch);
	}
	bar[len] = '\0';
	ui_put(y, 2, 15, bg->day ? _("Budget/day") : _("Budget/month"), A_NORMAL, false);
	ui_put(y, 17, gw, bar, ui_attr(col), false);
	money_format_in(amount, sizeof(amount), bg->amount, 0, bg->currency);
	snprintf(line, sizeof(line), _("%lld%% of %s projected"), pct, amount);
	ui_put(y, 18 + gw, w - 20 - gw, line, ui_attr(col), false);
}

/* Names the currencies spent this month that no budget counts, so none hides silently. */
static int
draw_uncounted(const struct ui *u, int y, int w)
{
	char codes[64] = "", line[256];
	size_t i, k;

	if (u->n_budgets == 0)
		return y;
	for (i = 0; i < u->costs.n; i++) {
		const struct cost_summary *s = &u->costs.per[i];
		bool counted = false;

		for (k = 0; k < u->n_budgets; k++)
			counted |= money_same_currency(u->budgets[k].currency, s->currency);
		if (counted || s->spent_month + s->burn_hour <= 0)
			continue;
		snprintf(codes + strlen(codes), sizeof(codes) - strlen(codes), "%s%s",
		    codes[0] ? ", " : "", s->currency);
	}
	if (codes[0] == '\0')
		return y;
	snprintf(line, sizeof(line), _("               spend in %s is not counted: each budget "
	    "counts its own currency"), codes);
	ui_put(y++, 2, w - 4, line, ui_attr(UC_DIM), false);
	return y;
}

static void
draw_costs(struct ui *u, const struct ui_rect *r)
{
	const struct cost_set *cs = &u->costs;
	const struct cost_summary *t = &cs->total;
	char line[512], a[160], b[160], c[32];
	int y = r->y + 1, half;
	size_t i;

	if (!u->have_costs) {
		ui_put(y, 2, r->w - 4, _("reading the ledger ..."), ui_attr(UC_DIM), false);
		return;
	}
	/* Each currency side by side, as `gpurent costs` shows them, never added up here. */
	ui_cost_list(a, sizeof(a), cs, offsetof(struct cost_summary, burn_hour), 1, 3);
	ui_cost_list(b, sizeof(b), cs, offsetof(struct cost_summary, burn_hour), 24, 2);
	snprintf(line, sizeof(line), _("Burn rate      %s per hour, %s per day at this rate"),
	    a, b);
	ui_put(y++, 2, r->w - 4, line, ui_attr(UC_ACCENT), false);
	ui_cost_list(a, sizeof(a), cs, offsetof(struct cost_summary, spent_today), 1, 2);
	ui_cost_list(b, sizeof(b), cs, offsetof(struct cost_summary, projected_day), 1, 2);
	snprintf(line, sizeof(line), _("Today          %s spent, %s projected by midnight (UTC)"),
	    a, b);
	ui_put(y++, 2, r->w - 4, line, A_NORMAL, false);
	ui_cost_list(a, sizeof(a), cs, offsetof(struct cost_summary, spent_month), 1, 2);
	ui_cost_list(b, sizeof(b), cs, offsetof(struct cost_summary, projected_month), 1, 2);
	snprintf(line, sizeof(line), _("This month     %s spent, %s projected by the end of the "
	    "month"), a, b);
	ui_put(y++, 2, r->w - 4, line, A_NORMAL, false);
	/* The sum of them all only where the user's rates give one, and saying so. */
	if (cs->has_total) {
		snprintf(line, sizeof(line), _("In all         %s per hour, %s projected today, %s "
		    "this month, converted at your configured rate (fx.*)"),
		    money_format_in(a, sizeof(a), t->burn_hour, 3, t->currency),
		    money_format_in(b, sizeof(b), t->projected_day, 2, t->currency),
		    money_format_in(c, sizeof(c), t->projected_month, 2, t->currency));
		ui_put(y++, 2, r->w - 4, line, A_NORMAL, false);
	}
	draw_audit(u, y++, r->w - 4);
	draw_advise(u, y++, r->w - 4);
	if (u->n_budgets == 0)
		ui_put(y++, 2, r->w - 4, _("Budget         none ('gpurent config set budget.month "
		    "500' sets one)"), ui_attr(UC_DIM), false);
	for (i = 0; i < u->n_budgets; i++)
		draw_budget(u, &u->budgets[i], y++, r->w);
	y = draw_uncounted(u, y, r->w);
	y++;
	half = (r->w - 6) / 2;
	draw_cost_lines(y, 2, half, r->y + r->h - y, _("BY PROVIDER"), &u->cv.by_provider);
	draw_cost_lines(y, 4 + half, half, r->y + r->h - y, _("BY LABEL"), &u->cv.by_label);
}

/* The lines by provider and by label, and the audit line (the totals are the frame's). */
static void
costs_take(struct ui *u, struct ui_result *r)
{
	if (r->job != UJ_COSTS || r->code != GR_OK)
		return;
	cost_set_release(&u->cv.by_provider);
	cost_set_release(&u->cv.by_label);
	u->cv.by_provider = r->by_provider;
	u->cv.by_label = r->by_label;
	u->cv.audit = *r->audit;
	memset(&r->by_provider, 0, sizeof(r->by_provider));
	memset(&r->by_label, 0, sizeof(r->by_label));
}

static void
costs_release(struct ui *u)
{
	cost_set_release(&u->cv.by_provider);
	cost_set_release(&u->cv.by_label);
}

const struct ui_view_ops ui_view_costs = {
	.name = "costs",
	.title = N_("Costs"),
	.release = costs_release,
	.take = costs_take,
	.draw = draw_costs,
	.keys = N_("r refresh  1-6 views"),
};
