/*
 * view_offers.c - the offers view: every provider's offers in one table, filtered by the
 * '/' line, with details and launch (after a confirmation that names the price).
 */
#include <curses.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/columns.h"
#include "gpurent/i18n.h"
#include "gpurent/launch.h"
#include "gpurent/money.h"
#include "gpurent/util.h"
#include "ui.h"

static const size_t offer_show[] = {
	OCOL_ID, OCOL_PROVIDER, OCOL_GPU, OCOL_GPUS, OCOL_VRAM, OCOL_PRICE, OCOL_GPU_PRICE,
	OCOL_TFLOP_PRICE, OCOL_TYPE, OCOL_REGION, OCOL_LOCATION, OCOL_RELIABILITY,
	OCOL_INTERCONNECT,
};

static void
offers_init(struct ui *u)
{
	ui_grid_init(&u->ov.grid, offer_columns, offer_show, ARRAY_LEN(offer_show), offer_cell,
	    NULL);
	u->ov.grid.sort = 5;		/* $/H, cheapest first, as `gpurent offers` */
	u->ov.grid.fx = u->fx;	/* and across currencies as it does (grid.h) */
	/* Sorting and filtering 100,000 offers takes longer than a frame: off the UI thread.
	 * Without the thread the grid still works, in place. */
	ui_grid_async(&u->ov.grid, getenv("GPURENT_UI_SORT_GATE"));
}

static void
offers_release(struct ui *u)
{
	ui_grid_release(&u->ov.grid);
}

/* What the grid filters with: its own copy of the filter and the rates. */
struct offers_keep {
	struct filter f;
	struct fx_rates fx;
};

static bool
keep_offer(const void *row, void *ctx)
{
	const struct offers_keep *k = ctx;

	/* Price terms are in dollars; other currencies meet them at the rates, as in offers. */
	return filter_match_fx(&k->f, row, &k->fx);
}

/* Filter and sort rows (NULL: the grid's own) off the UI thread. */
static void
submit(struct ui *u, struct ui_rows *rows)
{
	struct offers_keep k;

	k.f = u->ov.filter;
	k.fx = u->fx;
	ui_grid_submit(&u->ov.grid, rows, keep_offer, &k, sizeof(k));
}

static void
free_offers(void *v)
{
	free(v);
}

void
ui_offers_rebuild(struct ui *u)
{
	submit(u, NULL);
	u->dirty = true;
}

/*
 * Whether the providers' lists, one after another, are the offers the grid has already, in
 * the same order, with the same figures; only when they were fetched may differ (the
 * dashboard does not show it). Compared where they lie, so an unchanged refresh copies
 * nothing. Byte for byte up to fetched_at, the last member: padding that differs only makes
 * this say "changed", never the other way.
 */
static bool
same_offers(const struct ui *u)
{
	const struct offer_list *have = &u->ov.offers;
	size_t i, k, at = 0;

	if (have->v == NULL)
		return false;
	for (i = 0; i < u->n_prov; i++) {
		const struct offer_list *p = &u->prov[i].offers;

		if (p->n > have->n - at)
			return false;
		for (k = 0; k < p->n; k++)
			if (memcmp(&p->v[k], &have->v[at + k], offsetof(struct offer, fetched_at))
			    != 0)
				return false;
		at += p->n;
	}
	return at == have->n;
}

void
ui_offers_merge(struct ui *u)
{
	struct offer_list all;
	size_t i;

	/*
	 * A market that did not change (a provider's answer every 30 s) is not filtered,
	 * sorted and measured again in the worker: 100,000 offers cost it about half a
	 * second of CPU each time (bench/README.md).
	 */
	if (same_offers(u)) {
		u->ov.merged = "same";
		if (u->n_prov == 1)	/* nothing else will merge it again: its memory goes */
			offer_list_release(&u->prov[0].offers);
		return;
	}
	/* A new array each time: a sort still running reads the previous one, which the
	 * grid frees when nothing needs it any more. u->ov.offers is a view of the newest. */
	if (u->n_prov == 1) {
		/* One provider's answer is the whole set: the grid takes its array, no copy of
		 * 31 MB for 100,000 offers. Only the next answer merges again, alone. */
		all = u->prov[0].offers;
		offer_list_init(&u->prov[0].offers);
		u->ov.merged = "taken";
	} else {
		offer_list_init(&all);
		for (i = 0; i < u->n_prov; i++)
			offer_list_append(&all, &u->prov[i].offers);
		u->ov.merged = "copied";
	}
	u->ov.offers = all;
	submit(u, ui_rows_new(all.v, all.n, sizeof(*all.v), free_offers));
	u->dirty = true;
}

int
ui_offers_fd(const struct ui *u)
{
	return ui_grid_fd(&u->ov.grid);
}

bool
ui_offers_collect(struct ui *u)
{
	return ui_grid_collect(&u->ov.grid);
}

static void
ask_launch(struct ui *u, const struct offer *o)
{
	struct lane_request req;
	struct launch_plan plan;
	struct gr_error err = { 0 };
	char text[1024], h[32], d[32], m[32], loc[64], month[160] = "", spot[160] = "", g[64];
	const struct cost_summary *in;
	int64_t price, spent = 0, now;
	size_t k;

	if (!(o->valid & OV_PRICE)) {
		u->ctx->message(u, UC_BAD, "%s has no known price; launch it with 'gpurent launch'",
		    o->id);
		return;
	}
	/* What the launch will bid and bill: the same plan as `gpurent launch` makes. */
	if (launch_plan_make(o, false, 0, 0, u->bid_margin, &plan, &err) != GR_OK) {
		u->ctx->message(u, UC_BAD, "%s", err.msg);
		return;
	}
	price = plan.price_hour;
	if (o->type == OFFER_INTERRUPTIBLE)
		snprintf(spot, sizeof(spot), _("\nInterruptible: it bids %d%% over the current %s "
		    "(spot.bid_margin) and stops when outbid."), plan.margin_pct,
		    money_format_in(h, sizeof(h), plan.market_hour, 3, o->currency));
	/* Against the month budget in the offer's own currency, with that currency's spend. */
	for (k = 0; k < u->n_budgets; k++) {
		const struct ui_budget *bg = &u->budgets[k];
		char p[32], b[32];

		if (bg->day || !u->have_costs || !money_same_currency(bg->currency, o->currency))
			continue;
		if ((in = cost_set_in(&u->costs, o->currency)) != NULL)
			spent = in->projected_month;
		now = cost_set_main(&u->costs)->now;
		snprintf(month, sizeof(month), _("\nThis month would then project to %s of the %s "
		    "budget."), money_format_in(p, sizeof(p), spent + money_scale(price,
		    month_end(now) - now, 3600), 2, o->currency),
		    money_format_in(b, sizeof(b), bg->amount, 2, bg->currency));
	}
	snprintf(text, sizeof(text), _("Rent %s: %d x %s, %s, %s.\nIt costs %s per hour, %s per "
	    "day (%s per 730-hour month), billed per second while it runs.%s%s"), o->id,
	    o->gpu_count, o->gpu ? o->gpu->name : catalogue_display(NULL, o->gpu_raw, g, sizeof(g)),
	    offer_type_name(o->type),
	    text_sanitize(loc, sizeof(loc), o->location),
	    money_format_in(h, sizeof(h), price, 3, o->currency),
	    money_format_in(d, sizeof(d), price * 24, 2, o->currency),
	    money_format_in(m, sizeof(m), price * 730, 2, o->currency), spot, month);
	memset(&req, 0, sizeof(req));
	req.action = UA_LAUNCH;
	strlcpy_(req.id, o->id, sizeof(req.id));
	req.interruptible = o->type == OFFER_INTERRUPTIBLE;
	req.price_hour = plan.market_hour;
	money_currency_set(req.currency, o->currency);
	u->ctx->confirm(u, _("Launch?"), text, &req, u->ctx->provider_of(u, o->id));
}

static bool
offers_key(struct ui *u, int key)
{
	const struct offer *o = ui_grid_selected(&u->ov.grid);

	if (ui_table_key(u, &u->ov.grid, key, ui_offers_rebuild))
		return true;
	if (o == NULL)
		return false;
	if (key == '\r' || key == '\n' || key == UI_FKEY(KEY_ENTER)) {
		ui_table_details(u, o->id, offer_columns, OCOL__COUNT, offer_cell, o, NULL);
		return true;
	}
	if (key == 'L' && !ui_refuse_readonly(u)) {
		ask_launch(u, o);
		return true;
	}
	return key == 'L';
}

static void
offers_draw(struct ui *u, const struct ui_rect *r)
{
	size_t i;
	bool any = false;

	for (i = 0; i < u->n_prov; i++)
		any |= u->prov[i].have_offers;
	ui_table_draw(u, &u->ov.grid, r, !any ? _("fetching offers ...") : u->ov.grid.busy ?
	    _("sorting offers ...") : u->ov.filter.n ?
	    _("no offer matches the filter (/ changes it)") : _("no offers"), NULL);
}

const struct ui_view_ops ui_view_offers = {
	.name = "offers",
	.title = N_("Offers"),
	.init = offers_init,
	.release = offers_release,
	.draw = offers_draw,
	.key = offers_key,
	.keys = N_("/ filter  < > sort  i reverse  Enter details  L launch"),
};
