/*
 * view_costs.c - the costs view: burn rate, today and this month with projections, the
 * monthly budget as a bar, and the spend by provider and by label.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "gpurent/audit.h"
#include "gpurent/money.h"
#include "gpurent/util.h"
#include "ui.h"

static void
draw_cost_lines(int y, int x, int w, int h, const char *title, const struct cost_summary *s)
{
	char line[256], a[32], b[32];
	size_t i;

	snprintf(line, sizeof(line), "%-*s %12s %11s", w - 26 > 4 ? w - 26 : 4, title, "SPENT",
	    "$/H NOW");
	ui_put(y, x, w, line, ui_attr(UC_COLHEAD), false);
	if (s->n_lines == 0)
		ui_put(y + 1, x, w, "  nothing billed this month", ui_attr(UC_DIM), false);
	for (i = 0; i < s->n_lines && (int)i < h - 1; i++) {
		char key[64];

		ui_text_fit(key, sizeof(key), s->lines[i].key[0] ? s->lines[i].key : "(no label)",
		    w - 26 > 4 ? w - 26 : 4, false);
		snprintf(line, sizeof(line), "%s %12s %11s", key,
		    money_format(a, sizeof(a), s->lines[i].spent, 2, true),
		    money_format(b, sizeof(b), s->lines[i].burn_hour, 3, true));
		ui_put(y + 1 + (int)i, x, w, line, A_NORMAL, false);
	}
}

/* One line of `gpurent audit` over the last 7 days: use against the target, and waste. */
static void
draw_audit(const struct ui *u, int y, int w)
{
	const struct audit_row *t = &u->audit;
	char line[256], util[48], a[32];
	double idle = audit_idle_share(t);

	if (t->billed_s <= 0) {
		ui_put(y, 2, w, "Last 7 days    nothing billed", ui_attr(UC_DIM), false);
		return;
	}
	if (t->util_known)
		snprintf(util, sizeof(util), "GPU util %.0f%% (target %d%%)", t->util_mean,
		    u->audit_target);
	else
		snprintf(util, sizeof(util), "GPU util unknown (no samples)");
	snprintf(line, sizeof(line), "Last 7 days    %s, idle %.0f%% of billed time, waste %s "
	    "('gpurent audit')", util, idle * 100.0, money_format(a, sizeof(a), t->waste, 2,
	    true));
	ui_put(y, 2, w, line, ui_attr(t->waste > 0 || (t->util_known &&
	    t->util_mean < u->audit_target) ? UC_WARN : UC_GOOD), false);
}

static void
draw_costs(struct ui *u, const struct ui_rect *r)
{
	const struct cost_summary *t = &u->total;
	char line[512], a[32], b[32], c[32];
	int y = r->y + 1, half;

	if (!u->have_costs) {
		ui_put(y, 2, r->w - 4, "reading the ledger ...", ui_attr(UC_DIM), false);
		return;
	}
	snprintf(line, sizeof(line), "Burn rate      %s per hour, %s per day at this rate",
	    money_format(a, sizeof(a), t->burn_hour, 3, true),
	    money_format(b, sizeof(b), t->burn_hour * 24, 2, true));
	ui_put(y++, 2, r->w - 4, line, ui_attr(UC_ACCENT), false);
	snprintf(line, sizeof(line), "Today          %s spent, %s projected by midnight (UTC)",
	    money_format(a, sizeof(a), t->spent_today, 2, true),
	    money_format(b, sizeof(b), t->projected_day, 2, true));
	ui_put(y++, 2, r->w - 4, line, A_NORMAL, false);
	snprintf(line, sizeof(line), "This month     %s spent, %s projected by the end of the "
	    "month", money_format(a, sizeof(a), t->spent_month, 2, true),
	    money_format(b, sizeof(b), t->projected_month, 2, true));
	ui_put(y++, 2, r->w - 4, line, A_NORMAL, false);
	draw_audit(u, y++, r->w - 4);
	if (u->budget_month > 0) {
		int gw = r->w - 4 - 15 - 34, fill, proj, i;
		long long pct = t->projected_month * 100 / u->budget_month;
		enum ui_color col = pct >= 100 ? UC_BAD : pct >= 80 ? UC_WARN : UC_GOOD;
		char bar[1024];
		size_t len = 0;

		if (gw < 10)
			gw = 10;
		fill = ui_level(t->spent_month, u->budget_month, gw + 1);
		proj = ui_level(t->projected_month, u->budget_month, gw + 1);
		for (i = 0; i < gw && len + 4 < sizeof(bar); i++) {
			const char *ch = i < fill ? (u->utf8 ? "\xe2\x96\x88" : "#") :
			    i < proj ? (u->utf8 ? "\xe2\x96\x92" : "+") : (u->utf8 ? "\xc2\xb7" : ".");

			memcpy(bar + len, ch, strlen(ch));
			len += strlen(ch);
		}
		bar[len] = '\0';
		ui_put(y, 2, 15, "Budget", A_NORMAL, false);
		ui_put(y, 17, gw, bar, ui_attr(col), false);
		snprintf(line, sizeof(line), "%lld%% of %s projected", pct,
		    money_format(c, sizeof(c), u->budget_month, 0, true));
		ui_put(y++, 18 + gw, r->w - 20 - gw, line, ui_attr(col), false);
	} else
		ui_put(y++, 2, r->w - 4, "Budget         none ('gpurent config set budget.month "
		    "500' sets one)", ui_attr(UC_DIM), false);
	y++;
	half = (r->w - 6) / 2;
	draw_cost_lines(y, 2, half, r->y + r->h - y, "BY PROVIDER", &u->by_provider);
	draw_cost_lines(y, 4 + half, half, r->y + r->h - y, "BY LABEL", &u->by_label);
}

const struct ui_view_ops ui_view_costs = {
	.name = "costs",
	.title = "Costs",
	.draw = draw_costs,
	.keys = "r refresh  1-6 views",
};
