/*
 * gpurent advise: the load the ledger shows, the cheapest mix of terms and on-demand for it,
 * and the compute balance sheet per GPU model (guard/advise.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/advise.h"
#include "gpurent/config.h"
#include "gpurent/filter.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	const char *since;
	bool offline;
};

static const struct cmd_opt opts[] = {
	{ "since", 's', "WHEN", N_("advise from the load since WHEN: a duration back (default 30d) or a UTC date or time"), OPT_AT(struct args, since), CPL_NONE, OPT_WHEN },
	{ "offline", 0, NULL, N_("ask no provider: no offers compared, GPU counts only from the history, no instance known interruptible"), OPT_AT(struct args, offline), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

/* What the cells need besides the group. */
struct view {
	const struct advise_term *terms;
	int target;
};

static void
hours(struct cell *c, bool known, int64_t seconds)
{
	c->kind = known ? CELL_FIXED : CELL_NULL;
	c->decimals = 2;
	c->i = money_scale(seconds, 100, 3600);
}

static void
money(struct cell *c, bool known, int64_t v, const char *currency, int decimals)
{
	c->kind = known ? CELL_MONEY : CELL_NULL;
	c->i = v;
	c->s = currency;
	c->decimals = decimals;
}

enum { GC_GPU, GC_CURRENCY, GC_INSTANCES, GC_OBSERVED, GC_GPU_HOURS, GC_BASE, GC_PEAK,
	GC_BASE_GPU_HOURS, GC_ABOVE, GC_PAID, GC_TERM, GC_SAVING, GC_INT_N, GC_INT_H,
	GC_INT_PAID, GC_UNSIZED_N, GC_UNSIZED_H, GC_UNSIZED_PAID, GC__COUNT };

static const struct column group_columns[GC__COUNT] = {
	[GC_GPU] = { "gpu", N_("GPU"), false, false, 0, 9 },
	[GC_CURRENCY] = { "currency", N_("CURRENCY"), false, false, 1, 0 },
	[GC_INSTANCES] = { "instances", N_("N"), true, false, 2, 0 },
	[GC_OBSERVED] = { "span_hours", N_("OVER H"), true, false, 2, 0 },
	[GC_GPU_HOURS] = { "gpu_hours", N_("GPU-H"), true, false, 1, 0 },
	[GC_BASE] = { "base_gpus", N_("BASE"), true, false, 0, 0 },
	[GC_PEAK] = { "peak_gpus", N_("PEAK"), true, false, 0, 0 },
	[GC_BASE_GPU_HOURS] = { "base_gpu_hours", N_("BASE GPU-H"), true, false, 3, 0 },
	[GC_ABOVE] = { "above_base_gpu_hours", N_("ON DEMAND GPU-H"), true, false, 3, 0 },
	[GC_PAID] = { "paid", N_("PAID"), true, false, 0, 0 },
	[GC_TERM] = { "best_term", N_("TERM"), false, false, 0, 0 },
	[GC_SAVING] = { "saving", N_("SAVING"), true, false, 0, 0 },
	[GC_INT_N] = { "interruptible_instances", N_("INTERRUPTIBLE"), true, false, 4, 0 },
	[GC_INT_H] = { "interruptible_hours", NULL, true, true, 5, 0 },
	[GC_INT_PAID] = { "interruptible_paid", NULL, true, true, 5, 0 },
	[GC_UNSIZED_N] = { "unsized_instances", N_("UNSIZED"), true, false, 4, 0 },
	[GC_UNSIZED_H] = { "unsized_hours", N_("UNSIZED H"), true, false, 5, 0 },
	[GC_UNSIZED_PAID] = { "unsized_paid", NULL, true, true, 5, 0 },
};

static void
group_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct advise_group *g = row;
	const struct view *v = ctx;
	bool seen = g->base >= 0;

	switch (col) {
	case GC_GPU: cell_str(c, g->gpu); break;
	case GC_CURRENCY: cell_str(c, g->currency); break;
	case GC_INSTANCES: c->kind = CELL_INT; c->i = g->instances; break;
	case GC_OBSERVED: hours(c, seen, g->span_s); break;
	case GC_GPU_HOURS: hours(c, seen, g->gpu_s); break;
	case GC_BASE: c->kind = seen ? CELL_INT : CELL_NULL; c->i = g->base; break;
	case GC_PEAK: c->kind = seen ? CELL_INT : CELL_NULL; c->i = g->peak; break;
	case GC_BASE_GPU_HOURS: hours(c, seen, g->base_gpu_s); break;
	case GC_ABOVE: hours(c, seen, g->gpu_s - g->base_gpu_s); break;
	case GC_PAID: money(c, seen, g->paid, g->currency, 2); break;
	case GC_TERM:
		c->kind = CELL_STR;
		c->s = g->best >= 0 ? v->terms[g->best].name : _("on demand");
		if (!seen)
			c->kind = CELL_NULL;
		break;
	case GC_SAVING:
		money(c, seen, g->best >= 0 ? g->plans[g->best].saving : 0, g->currency, 2);
		if (c->kind != CELL_NULL && c->i > 0)
			c->color = OC_GOOD;
		break;
	case GC_INT_N: c->kind = CELL_INT; c->i = g->interruptible; break;
	case GC_INT_H: hours(c, true, g->interruptible_s); break;
	case GC_INT_PAID: money(c, true, g->interruptible_paid, g->currency, 2); break;
	case GC_UNSIZED_N: c->kind = CELL_INT; c->i = g->unsized; break;
	case GC_UNSIZED_H: hours(c, true, g->unsized_s); break;
	case GC_UNSIZED_PAID: money(c, true, g->unsized_paid, g->currency, 2); break;
	}
}

/* Hours a month a GPU must run for a term at discount_pct to cost less than on demand. */
static void
break_even(struct cell *c, int discount_pct)
{
	c->kind = CELL_FIXED;
	c->decimals = 1;
	c->i = (int64_t)(advise_break_even_hours(discount_pct) * 10.0 + 0.5);
}

/* One term's plan for one group. */
struct plan_row {
	const struct advise_group *g;
	const struct advise_term *t;
	const struct advise_plan *p;
};

enum { PC_GPU, PC_CURRENCY, PC_TERM, PC_DISCOUNT, PC_BREAK_EVEN, PC_OFFER, PC_TERM_COST, PC_DEMAND,
	PC_SAVING, PC__COUNT };

static const struct column plan_columns[PC__COUNT] = {
	[PC_GPU] = { "gpu", N_("GPU"), false, false, 0, 9 },
	[PC_CURRENCY] = { "currency", N_("CURRENCY"), false, false, 1, 0 },
	[PC_TERM] = { "term", N_("TERM"), false, false, 0, 0 },
	/* In JSON; a table says them below its rows (print_offered). */
	[PC_DISCOUNT] = { "discount_pct", N_("DISCOUNT %"), true, true, 1, 0 },
	[PC_BREAK_EVEN] = { "break_even_hours_month", N_("BREAK-EVEN H/MO"), true, true, 2, 0 },
	/* null: the config's assumed discount, no provider offers the term */
	[PC_OFFER] = { "term_offer", N_("TERM OFFER"), false, true, 2, 0 },
	[PC_TERM_COST] = { "term_cost", N_("BASE ON TERM"), true, false, 0, 0 },
	[PC_DEMAND] = { "demand_cost", N_("REST ON DEMAND"), true, false, 0, 0 },
	[PC_SAVING] = { "saving", N_("SAVING"), true, false, 0, 0 },
};

static void
plan_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct plan_row *r = row;

	switch (col) {
	case PC_GPU: cell_str(c, r->g->gpu); break;
	case PC_CURRENCY: cell_str(c, r->g->currency); break;
	case PC_TERM: cell_str(c, r->t->name); break;
	case PC_DISCOUNT: c->kind = CELL_INT; c->i = r->p->discount_pct; break;
	case PC_BREAK_EVEN: break_even(c, r->p->discount_pct); break;
	case PC_OFFER: cell_str(c, r->p->offer_id); break;
	case PC_TERM_COST: money(c, true, r->p->term_cost, r->g->currency, 2); break;
	case PC_DEMAND: money(c, true, r->p->demand_cost, r->g->currency, 2); break;
	case PC_SAVING: money(c, true, r->p->saving, r->g->currency, 2); break;
	}
}

enum { TC_TERM, TC_MONTHS, TC_DISCOUNT, TC_BREAK_EVEN, TC_ASSUMED, TC__COUNT };

static const struct column term_columns[TC__COUNT] = {
	[TC_TERM] = { "term", N_("TERM"), false, false, 0, 0 },
	[TC_MONTHS] = { "months", N_("MONTHS"), true, false, 1, 0 },
	[TC_DISCOUNT] = { "discount_pct", N_("DISCOUNT %"), true, false, 0, 0 },
	[TC_BREAK_EVEN] = { "break_even_hours_month", N_("BREAK-EVEN H/MO"), true, false, 0, 0 },
	[TC_ASSUMED] = { "assumed", NULL, false, true, 2, 0 },
};

static void
term_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct advise_term *t = row;

	switch (col) {
	case TC_TERM: cell_str(c, t->name); break;
	case TC_MONTHS: c->kind = CELL_INT; c->i = t->months; break;
	case TC_DISCOUNT: c->kind = CELL_INT; c->i = t->discount_pct; break;
	case TC_BREAK_EVEN: break_even(c, t->discount_pct); break;
	/* the config's discounts are assumptions; a plan of a term offer says its own */
	case TC_ASSUMED: c->kind = CELL_BOOL; c->i = 1; break;
	}
}

enum { BC_GPU, BC_CURRENCY, BC_INSTANCES, BC_GPU_HOURS, BC_TFLOPS, BC_TFLOP_HOURS, BC_UTIL, BC_OBSERVED,
	BC_OBSERVED_HOURS, BC_SPEND, BC_PER_TFLOP, BC_AT_TARGET, BC_OFFER, BC_OFFER_PER_TFLOP,
	BC_OFFER_CONVERTED, BC__COUNT };

static const struct column balance_columns[BC__COUNT] = {
	[BC_GPU] = { "gpu", N_("GPU"), false, false, 0, 9 },
	[BC_CURRENCY] = { "currency", N_("CURRENCY"), false, false, 1, 0 },
	[BC_INSTANCES] = { "instances", N_("N"), true, false, 3, 0 },
	[BC_GPU_HOURS] = { "gpu_hours", N_("GPU-H"), true, false, 0, 0 },
	[BC_TFLOPS] = { "tflops", N_("TFLOPS"), true, false, 2, 0 },
	[BC_TFLOP_HOURS] = { "tflop_hours", N_("TFLOP-H"), true, false, 1, 0 },
	[BC_UTIL] = { "util_mean_pct", N_("UTIL %"), true, false, 0, 0 },
	[BC_OBSERVED] = { "observed_instances", N_("OBSERVED"), true, false, 3, 0 },
	[BC_OBSERVED_HOURS] = { "observed_hours", N_("OBSERVED H"), true, false, 3, 0 },
	[BC_SPEND] = { "spend", N_("SPEND"), true, false, 1, 0 },
	[BC_PER_TFLOP] = { "per_util_tflop_hour", N_("PER UTIL TFLOP-H"), true, false, 0, 0 },
	[BC_AT_TARGET] = { "per_tflop_hour_at_target", N_("AT TARGET"), true, false, 0, 0 },
	[BC_OFFER] = { "offer_id", N_("CHEAPEST OFFER"), false, false, 2, 0 },
	[BC_OFFER_PER_TFLOP] = { "offer_per_tflop_hour_at_target", N_("ITS AT TARGET"), true,
	    false, 2, 0 },
	[BC_OFFER_CONVERTED] = { "offer_converted", NULL, false, true, 4, 0 },
};

static void
balance_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct advise_group *g = row;
	const struct audit_row *r = &g->sheet;

	switch (col) {
	case BC_GPU: cell_str(c, g->gpu); break;
	case BC_CURRENCY: cell_str(c, g->currency); break;
	case BC_GPU_HOURS:
		c->kind = r->gpus_known ? CELL_FIXED : CELL_NULL;
		c->decimals = 2;
		c->i = (int64_t)(r->gpu_hours * 100.0 + 0.5);
		break;
	case BC_TFLOPS:
		c->kind = g->tflops_x10 > 0 ? CELL_FIXED : CELL_NULL;
		c->decimals = 1;
		c->i = g->tflops_x10;
		break;
	case BC_TFLOP_HOURS:
		c->kind = g->tflops_x10 > 0 && r->gpus_known ? CELL_FIXED : CELL_NULL;
		c->decimals = 1;
		c->i = (int64_t)(r->gpu_hours * g->tflops_x10 + 0.5);
		break;
	case BC_UTIL:
		c->kind = r->util_known ? CELL_FIXED : CELL_NULL;
		c->decimals = 1;
		c->i = (int64_t)(r->util_mean * 10.0 + 0.5);
		break;
	case BC_INSTANCES: c->kind = CELL_INT; c->i = r->instances; break;
	case BC_OBSERVED: c->kind = CELL_INT; c->i = r->observed; break;
	case BC_OBSERVED_HOURS: hours(c, true, r->covered_s); break;
	case BC_SPEND: money(c, !r->unpriced, r->spend, g->currency, 2); break;
	case BC_PER_TFLOP:
		money(c, g->per_tflop_hour >= 0, g->per_tflop_hour, g->currency, 6);
		break;
	case BC_AT_TARGET:
		money(c, g->per_tflop_hour_target >= 0, g->per_tflop_hour_target, g->currency, 6);
		break;
	case BC_OFFER: cell_str(c, g->offer_found ? g->offer.id : NULL); break;
	case BC_OFFER_PER_TFLOP:
		money(c, g->offer_found, g->offer_per_tflop_hour, g->currency, 6);
		break;
	case BC_OFFER_CONVERTED:
		c->kind = g->offer_found ? CELL_BOOL : CELL_NULL;
		c->i = g->offer_converted;
		break;
	}
}

enum { SC_CURRENCY, SC_PAID, SC_SAVING, SC__COUNT };

static const struct column saving_columns[SC__COUNT] = {
	[SC_CURRENCY] = { "currency", N_("CURRENCY"), false, false, 0, 0 },
	[SC_PAID] = { "paid", N_("PAID"), true, false, 0, 0 },
	[SC_SAVING] = { "saving", N_("SAVING"), true, false, 0, 0 },
};

static void
saving_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct advise_saving *s = row;

	switch (col) {
	case SC_CURRENCY: cell_str(c, s->currency); break;
	case SC_PAID: money(c, true, s->paid, s->currency, 2); break;
	case SC_SAVING: money(c, true, s->saving, s->currency, 2); break;
	}
}

/* GPU-hours of n buckets of GPU-seconds: a JSON array, or a line of a table. */
static void
print_buckets(FILE *f, const int64_t *v, size_t n, bool json)
{
	struct cell c;
	size_t i;

	fputs(json ? "[" : "", f);
	for (i = 0; i < n; i++) {
		memset(&c, 0, sizeof(c));
		hours(&c, true, v[i]);
		if (json) {
			fputs(i ? "," : "", f);
			json_write_cell(f, &c);
		} else {
			fprintf(f, " %lld.%02lld", (long long)(c.i / 100), (long long)(c.i % 100));
		}
	}
	fputs(json ? "]" : "\n", f);
}

static void
print_shape_json(FILE *f, const struct advise_report *rep)
{
	size_t i;

	fputs(",\"shape\":[", f);
	for (i = 0; i < rep->n; i++) {
		fputs(i ? ",{\"gpu\":" : "{\"gpu\":", f);
		json_write_str(f, rep->groups[i].gpu);
		fputs(",\"currency\":", f);
		json_write_str(f, rep->groups[i].currency);
		if (rep->groups[i].base < 0) {
			fputs(",\"by_hour\":null,\"by_weekday\":null}", f);
			continue;
		}
		fputs(",\"by_hour\":", f);
		print_buckets(f, rep->groups[i].by_hour, 24, true);
		fputs(",\"by_weekday\":", f);
		print_buckets(f, rep->groups[i].by_weekday, 7, true);
		fputs("}", f);
	}
	fputs("]", f);
}

/* Below a table of plans: the plans priced from a provider's term offer, and its terms. */
static void
print_offered(FILE *f, const struct plan_row *plans, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (plans[i].p->offer_id[0] != '\0')
			fprintf(f, _("%s %s %s: the term offer %s, %d %% off, break-even %.1f h a "
			    "month\n"), plans[i].g->gpu, plans[i].g->currency, plans[i].t->name,
			    plans[i].p->offer_id, plans[i].p->discount_pct,
			    advise_break_even_hours(plans[i].p->discount_pct));
}

static enum gr_err
print_all(FILE *f, const struct advise_report *rep, struct view *v, size_t n_terms,
    const char *since, struct gr_error *err)
{
	bool json = out_global.format == OUT_JSON;
	struct plan_row *plans = xcalloc(rep->n * n_terms + 1, sizeof(*plans));
	struct advise_saving sv[8];
	size_t np = 0, ns = advise_savings(rep, sv, ARRAY_LEN(sv)), i, k;
	enum gr_err rc;

	for (i = 0; i < rep->n; i++)
		for (k = 0; k < n_terms && rep->groups[i].base >= 0; k++)
			plans[np++] = (struct plan_row){ &rep->groups[i], &v->terms[k],
			    &rep->groups[i].plans[k] };
	if (json) {
		fprintf(f, "{\"since\":");
		json_write_str(f, since);
		fprintf(f, ",\"base_percentile\":%d,\"target_pct\":%d,\"terms\":", ADVISE_BASE_PCT,
		    v->target);
	} else {
		fprintf(f, _("the load since %s per GPU model: the base is the GPUs running at "
		    "once at least %d %% of the observed time\n"), since, 100 - ADVISE_BASE_PCT);
	}
	rc = json ? cmd_print_nested(f, term_columns, TC__COUNT, TC_TERM, v->terms, n_terms,
	    sizeof(*v->terms), term_cell, v, false, err) : GR_OK;
	if (rc == GR_OK) {
		fputs(json ? ",\"groups\":" : "", f);
		rc = json ? cmd_print_nested(f, group_columns, GC__COUNT, GC_GPU, rep->groups,
		    rep->n, sizeof(*rep->groups), group_cell, v, false, err) :
		    out_print(f, &out_global, group_columns, GC__COUNT, GC_GPU, rep->groups, rep->n,
		    sizeof(*rep->groups), group_cell, v, err);
	}
	if (rc == GR_OK && json)
		print_shape_json(f, rep);
	for (i = 0; rc == GR_OK && !json && i < rep->n; i++) {
		if (rep->groups[i].base < 0)
			continue;
		fprintf(f, _("%s GPU-hours by hour of day (UTC, 00-23):"), rep->groups[i].gpu);
		print_buckets(f, rep->groups[i].by_hour, 24, false);
		fprintf(f, _("%s GPU-hours by weekday (Mon-Sun):"), rep->groups[i].gpu);
		print_buckets(f, rep->groups[i].by_weekday, 7, false);
	}
	if (rc == GR_OK) {
		fputs(json ? ",\"plans\":" : _("\nthe base on each term, the rest on demand, at "
		    "the mean price paid per GPU-hour, over the observed time:\n"), f);
		rc = json ? cmd_print_nested(f, plan_columns, PC__COUNT, PC_GPU, plans, np,
		    sizeof(*plans), plan_cell, NULL, false, err) :
		    out_print(f, &out_global, plan_columns, PC__COUNT, PC_GPU, plans, np,
		    sizeof(*plans), plan_cell, NULL, err);
	}
	if (rc == GR_OK && !json)
		print_offered(f, plans, np);
	if (rc == GR_OK && !json) {
		fputs(_("\nterms assumed where no provider offers one of the GPU (advise.term_1mo "
		    "and advise.term_3mo set the discounts):\n"), f);
		rc = out_print(f, &out_global, term_columns, TC__COUNT, TC_TERM, v->terms, n_terms,
		    sizeof(*v->terms), term_cell, v, err);
	}
	if (rc == GR_OK) {
		if (json)
			fputs(",\"balance\":", f);
		else
			fprintf(f, _("\ncompute balance sheet (the audit target: %d %% utilisation):\n"),
			    v->target);
		rc = json ? cmd_print_nested(f, balance_columns, BC__COUNT, BC_GPU, rep->groups,
		    rep->n, sizeof(*rep->groups), balance_cell, v, false, err) :
		    out_print(f, &out_global, balance_columns, BC__COUNT, BC_GPU, rep->groups,
		    rep->n, sizeof(*rep->groups), balance_cell, v, err);
	}
	if (rc == GR_OK) {
		fputs(json ? ",\"savings\":" : _("\nsaving of the cheapest mix against what was "
		    "paid, per currency:\n"), f);
		rc = json ? cmd_print_nested(f, saving_columns, SC__COUNT, SC_CURRENCY, sv, ns,
		    sizeof(*sv), saving_cell, NULL, false, err) :
		    out_print(f, &out_global, saving_columns, SC__COUNT, SC_CURRENCY, sv, ns,
		    sizeof(*sv), saving_cell, NULL, err);
	}
	if (rc == GR_OK && json)
		fputs("}\n", f);
	free(plans);
	return rc;
}

/* The ids of the interruptible instances among insts (they stay valid as long as insts). */
static const char **
interruptible(const struct instance_list *insts, size_t *n)
{
	const char **ids = xcalloc(insts->n + 1, sizeof(*ids));
	size_t i;

	*n = 0;
	for (i = 0; i < insts->n; i++)
		if (insts->v[i].type == OFFER_INTERRUPTIBLE)
			ids[(*n)++] = insts->v[i].id;
	return ids;
}

/* The providers' term offers (type=reserved); none where they cannot be searched. */
static void
ask_terms(struct cmd_ctx *c, struct offer_list *out)
{
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct gr_error err = { 0 };
	struct filter f;

	memset(&f, 0, sizeof(f));
	if (filter_parse_str(&f, "type=reserved", &err) != GR_OK)
		return;
	if (fanout_failed_whole(c, res, session_offers(c->s, &f, out, res, &err)))
		cmd_warn("the term offers could not be searched (%s); the terms are assumed",
		    err.msg);
}

static int
advise_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { NULL, false };
	struct advise_term terms[ADVISE_TERMS_MAX];
	struct gr_error err = { 0 };
	struct advise_opts o;
	struct advise_report rep;
	struct audit_live *live = NULL;
	struct instance_list insts;
	struct offer_list offers, term_offers;
	struct cost_clock clk;
	struct config *cfg;
	struct state *st;
	struct fx_rates fx;
	struct view v;
	const char **ids = NULL;
	size_t n_ids = 0, n_terms;
	int64_t now, from;
	int rc;
	enum gr_err prc;

	if (!cmd_parse_options(c, argc, argv, NULL, &a, N_("no arguments"), &rc))
		return rc;
	if (session_config(c->s, &cfg, &err) != GR_OK || session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	now = session_now(c->s);
	from = now - 30 * 86400;
	if (a.since != NULL) {
		parse_when(a.since, now, &from);
		if (from >= now)
			return cmd_usage_error(c, "--since %s is not in the past", a.since);
	}
	n_terms = advise_terms(cfg, terms);
	config_fx(cfg, &fx);
	instance_list_init(&insts);
	offer_list_init(&offers);
	offer_list_init(&term_offers);
	if (!a.offline) {
		if (session_backends(c->s, &err) != GR_OK)
			return cmd_error(c, &err);
		live = cmd_ask_providers(c, &insts, &offers);
		ids = interruptible(&insts, &n_ids);
		ask_terms(c, &term_offers);
	}
	session_clock(c->s, &clk);
	memset(&o, 0, sizeof(o));
	o.audit.span_s = now - from;
	o.audit.clock = &clk;
	o.audit.idle_pct = (int)config_get_int(cfg, "idle.threshold", 5);
	o.audit.target_pct = (int)config_get_int(cfg, "audit.target", 85);
	o.audit.live = live;
	o.audit.n_live = insts.n;
	o.audit.fx = &fx;
	o.terms = terms;
	o.n_terms = n_terms;
	o.interruptible = ids;
	o.n_interruptible = n_ids;
	o.offers = a.offline ? NULL : &offers;
	o.term_offers = a.offline ? NULL : &term_offers;
	rc = advise_compute(st, &o, &rep, &err) == GR_OK ? 0 : cmd_error(c, &err);
	if (rc == 0) {
		v.terms = terms;
		v.target = o.audit.target_pct;
		prc = print_all(c->out, &rep, &v, n_terms, a.since ? a.since : "30d",
		    &err);
		advise_report_release(&rep);
		rc = prc == GR_OK ? finish_output(c, 0) : cmd_usage_error(c, "%s", err.msg);
	}
	free(ids);
	free(live);
	instance_list_release(&insts);
	offer_list_release(&offers);
	offer_list_release(&term_offers);
	return rc;
}

const struct command cmd_advise = {
	.name = "advise",
	.alias = NULL,
	.args = "",
	.summary = N_("the cheapest mix of terms and on-demand for the load your ledger shows"),
	.help =
	    N_("Per GPU model and currency, over the last --since (default 30d) on each\n"
	    "provider's clock, from the ledger and the sample history:\n"
	    "\n"
	    "The load shape: GPU-hours by hour of day and by weekday (UTC), the base (the\n"
	    "GPUs running at once at least 90 % of the observed time: the 10th percentile)\n"
	    "and the peak (the most at once). The observed time runs from the first billed\n"
	    "second in the window to now.\n"
	    "\n"
	    "The mix: the base on a term, the GPU-hours above it on demand, each at the mean\n"
	    "price paid per GPU-hour; a term costs the base x the observed time at its\n"
	    "discount, whether its GPUs run or not. The saving is what those GPU-hours cost\n"
	    "less the mix, per term; the best term per model is shown, and the savings per\n"
	    "currency. A term's discount is the largest among the providers' term offers\n"
	    "of the GPU (offers type=reserved; not with --offline), named with its plan;\n"
	    "where none is offered it is assumed, advise.term_1mo (default 20 %, vast's\n"
	    "prepay for a month) and advise.term_3mo (30 %, for three), and the plan says\n"
	    "so. Each plan gives its break-even in hours a month (730 h).\n"
	    "Instances the providers list as interruptible stay so, and an instance whose GPU\n"
	    "count neither the samples nor the listing give is left out (unsized), with its\n"
	    "hours; storage is the same whatever the mix and is left out.\n"
	    "\n"
	    "The compute balance sheet, from audit --by gpu: GPU-hours x the catalogue's\n"
	    "dense TFLOPS, the utilisation the samples measured, the spend per utilised\n"
	    "TFLOP-hour, the spend per TFLOP-hour had the GPUs run at audit.target (85 %),\n"
	    "and the cheapest equivalent on-demand offer's price per TFLOP-hour at that use\n"
	    "(not with --offline). A figure nothing measured is '-' (null in JSON).\n"
	    "Money stays in the currency it was billed in; nothing is converted but an\n"
	    "offer's price through your fx.CODE rates, and then offer_converted says so."),
	.opts = opts,
	.complete_args = CPL_NONE,
	.run = advise_run,
};
