/*
 * gpurent audit: where the money went — spend against GPU use, waste, energy and carbon,
 * and what the running instances would cost on the cheapest equivalent offer now.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/audit.h"
#include "gpurent/columns.h"
#include "gpurent/config.h"
#include "gpurent/costs.h"
#include "gpurent/elastic.h"
#include "gpurent/groups.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	int64_t span;		/* seconds back from now */
	enum audit_group by;
	bool offline;
	const char *since;	/* --since as given, made a span once the clock is known */
};

static const struct cmd_opt opts[] = {
	{ "since", 's', "WHEN", N_("audit from WHEN: a duration back (default 7d) or a UTC date or time (2026-12-01, RFC 3339)"), OPT_AT(struct args, since), CPL_NONE, OPT_WHEN },
	{ "by", 'b', "GROUP", N_("one row per instance (default), label, provider or gpu"), 0, CPL_AUDIT_BY, 0 },
	{ "offline", 0, NULL, N_("ask no provider: no cheaper offers, and GPU counts and regions only from the history"), OPT_AT(struct args, offline), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static const char *const groups[] = { "instance", "label", "provider", "gpu" };

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;
	int by;

	(void)id;	/* --by, the one option cmd_parse does not store */
	if ((by = cmd_choice(c, arg, groups, ARRAY_LEN(groups),
	    N_("--by is instance, label, provider or gpu"))) < 0)
		return EXIT_USAGE;
	a->by = (enum audit_group)by;
	return 0;
}

enum { AC_KEY, AC_INSTANCES, AC_BILLED, AC_SPEND, AC_UTIL, AC_P95, AC_TARGET, AC_IDLE,
	AC_WASTE, AC_GPU_HOURS, AC_EFF, AC_KWH, AC_ESTIMATED, AC_CO2, AC_CURRENCY, AC_CONVERTED,
	AC_OBSERVED, AC_OBSERVED_HOURS, AC__COUNT };

static const struct column audit_columns[AC__COUNT] = {
	[AC_KEY] = { "key", N_("KEY"), false, false, 0, 12 },
	[AC_INSTANCES] = { "instances", N_("N"), true, true, 6, 0 },
	[AC_BILLED] = { "billed_hours", N_("BILLED H"), true, false, 1, 0 },
	[AC_SPEND] = { "spend", N_("SPEND"), true, false, 0, 0 },
	[AC_UTIL] = { "util_mean_pct", N_("UTIL %"), true, false, 0, 0 },
	[AC_P95] = { "util_p95_pct", N_("P95 %"), true, false, 3, 0 },
	[AC_TARGET] = { "util_of_target_pct", N_("OF TARGET %"), true, false, 4, 0 },
	[AC_IDLE] = { "idle_pct", N_("IDLE %"), true, false, 0, 0 },
	[AC_WASTE] = { "waste", N_("WASTE"), true, false, 0, 0 },
	[AC_GPU_HOURS] = { "gpu_hours", N_("GPU-H"), true, false, 3, 0 },
	[AC_EFF] = { "per_effective_gpu_hour", N_("PRICE/EFF GPU-H"), true, false, 2, 0 },
	[AC_KWH] = { "energy_kwh", N_("KWH"), true, false, 4, 0 },
	/* a table says where the kWh came from: "samples" (power samples) or "TDP" */
	[AC_ESTIMATED] = { "energy_estimated", N_("KWH FROM"), false, false, 5, 0 },
	[AC_CO2] = { "co2e_kg", N_("KG CO2E"), true, false, 4, 0 },
	/* The money cells carry their currency's sign; the column is shown when it tells
	   rows apart (audit_run). */
	[AC_CURRENCY] = { "currency", N_("CURRENCY"), false, true, 1, 0 },
	[AC_CONVERTED] = { "converted", N_("CONVERTED"), false, true, 5, 0 },
	/* JSON's alone: a table says them of the total in a line after it (print_table). */
	[AC_OBSERVED] = { "observed", NULL, true, true, 5, 0 },
	[AC_OBSERVED_HOURS] = { "observed_hours", NULL, true, true, 5, 0 },
};

/* What audit_cell needs besides the row. */
struct audit_view {
	int target;
	bool table;
};

static void
set_fixed(struct cell *c, bool known, double v, int decimals)
{
	int64_t scale = decimals == 0 ? 1 : decimals == 1 ? 10 : decimals == 2 ? 100 : 1000;

	c->kind = known ? CELL_FIXED : CELL_NULL;
	c->decimals = decimals;
	c->i = (int64_t)(v * (double)scale + (v < 0 ? -0.5 : 0.5));
}

static void
audit_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct audit_row *r = row;
	const struct audit_view *v = ctx;
	const int *target = &v->target;
	double idle = audit_idle_share(r);
	int64_t eff;

	switch (col) {
	case AC_KEY:
		c->kind = CELL_STR;
		c->s = r->key[0] ? r->key : "-";
		break;
	case AC_INSTANCES: c->kind = CELL_INT; c->i = r->instances; break;
	case AC_BILLED: set_fixed(c, true, (double)r->billed_s / 3600.0, 2); break;
	case AC_SPEND:
		c->kind = r->unpriced ? CELL_NULL : CELL_MONEY;
		c->i = r->spend;
		c->decimals = 2;
		c->s = r->currency;
		break;
	case AC_UTIL: set_fixed(c, r->util_known, r->util_mean, 1); break;
	case AC_P95: set_fixed(c, r->util_known, r->util_p95, 1); break;
	case AC_TARGET:
		set_fixed(c, r->util_known && *target > 0, r->util_mean * 100.0 / *target, 0);
		if (c->kind != CELL_NULL)
			c->color = r->util_mean >= *target ? OC_GOOD : OC_WARN;
		break;
	case AC_IDLE: set_fixed(c, idle >= 0, idle * 100.0, 1); break;
	case AC_WASTE:
		c->kind = audit_waste_known(r) ? CELL_MONEY : CELL_NULL;
		c->i = r->waste;
		c->decimals = 2;
		c->s = r->currency;
		if (r->waste > 0)
			c->color = OC_WARN;
		break;
	case AC_GPU_HOURS: set_fixed(c, r->gpus_known, r->gpu_hours, 2); break;
	case AC_EFF:
		eff = audit_eff_gpu_hour(r);
		c->kind = eff >= 0 ? CELL_MONEY : CELL_NULL;
		c->i = eff;
		c->decimals = 3;
		c->s = r->currency;
		break;
	case AC_KWH: set_fixed(c, r->energy_known, r->energy_kwh, 3); break;
	case AC_ESTIMATED:
		c->kind = r->energy_known ? CELL_BOOL : CELL_NULL;
		c->i = r->energy_estimated;
		if (v->table && r->energy_known) {
			c->kind = CELL_STR;
			c->s = r->energy_estimated ? _("TDP") : _("samples");
		}
		break;
	case AC_CO2: set_fixed(c, r->co2_known, r->co2_kg, 3); break;
	case AC_CURRENCY:
		c->kind = r->unpriced ? CELL_NULL : CELL_STR;
		c->s = r->converted && v->table ? _("USD (converted at your configured rate)") :
		    r->currency;
		break;
	case AC_CONVERTED: c->kind = CELL_BOOL; c->i = r->converted; break;
	case AC_OBSERVED: c->kind = CELL_INT; c->i = r->observed; break;
	case AC_OBSERVED_HOURS: set_fixed(c, true, (double)r->covered_s / 3600.0, 2); break;
	}
}

enum { CC_INSTANCE, CC_PRICE, CC_CURRENCY, CC_OFFER, CC_GPU, CC_OFFER_PRICE,
	CC_OFFER_CURRENCY, CC_SAVING_HOUR, CC_SAVING_MONTH, CC_CONVERTED, CC__COUNT };

/* The price now and the savings are in the instance's currency, the offer's in its own. */
static const struct column cheaper_columns[CC__COUNT] = {
	[CC_INSTANCE] = { "instance_id", N_("INSTANCE"), false, false, 0, 0 },
	[CC_PRICE] = { "price_hour", N_("PRICE/H NOW"), true, false, 0, 0 },
	[CC_CURRENCY] = { "currency", N_("CURRENCY"), false, true, 1, 0 },
	[CC_OFFER] = { "offer_id", N_("CHEAPER OFFER"), false, false, 0, 0 },
	[CC_GPU] = { "offer_gpu", N_("GPU"), false, false, 2, 9 },
	[CC_OFFER_PRICE] = { "offer_price_hour", N_("ITS PRICE/H"), true, false, 0, 0 },
	[CC_OFFER_CURRENCY] = { "offer_currency", N_("ITS CURRENCY"), false, true, 1, 0 },
	[CC_SAVING_HOUR] = { "saving_hour", N_("SAVES/H"), true, false, 0, 0 },
	[CC_SAVING_MONTH] = { "saving_month", N_("SAVES/MO"), true, false, 1, 0 },
	[CC_CONVERTED] = { "converted", N_("CONVERTED"), false, true, 1, 0 },
};

static void
cheaper_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct audit_cheaper *k = row;

	c->kind = CELL_MONEY;
	c->decimals = 3;
	c->s = k->currency;
	switch (col) {
	case CC_INSTANCE: c->kind = CELL_STR; c->s = k->instance_id; break;
	case CC_PRICE: c->i = k->price_hour; break;
	case CC_CURRENCY: c->kind = CELL_STR; break;
	case CC_OFFER: offer_cell(&k->offer, OCOL_ID, c, NULL); break;
	case CC_GPU: offer_cell(&k->offer, OCOL_GPU, c, NULL); break;
	case CC_OFFER_PRICE: c->i = k->offer.price_hour; c->s = k->offer.currency; break;
	case CC_OFFER_CURRENCY:
		c->kind = CELL_STR;
		c->s = money_currency(k->offer.currency);
		break;
	case CC_SAVING_HOUR: c->i = k->saving_hour; break;
	case CC_SAVING_MONTH: c->i = k->saving_month; c->decimals = 2; break;
	case CC_CONVERTED: c->kind = CELL_BOOL; c->i = k->converted; break;
	}
}

/* ---------------------------------------------------------------- --predict against reactive */

/* One group created with --predict: as it ran, and the reactive policy replayed. */
struct predict_row {
	char group[GROUP_NAME_MAX];
	size_t records;
	struct elastic_tally as_run, reactive;
	int64_t spend_run, spend_reactive;	/* in currency; -1: no rate known */
	char currency[CURRENCY_MAX];	/* "": members billed in currencies no rate joins */
	bool converted;			/* members in several currencies, in USD at the rates */
};

/*
 * What the members of label cost and how long they billed, from the audit by label: in
 * their one currency, or in US dollars at the user's rates when they billed in several
 * (then converted); false when a currency has no rate.
 */
static bool
member_spend(const struct audit_report *byl, const char *label, const struct fx_rates *fx,
    struct predict_row *r, int64_t *spend, int64_t *billed)
{
	size_t k;
	int64_t v;

	*spend = *billed = 0;
	for (k = 0; k < byl->n; k++)
		if (strcmp(byl->rows[k].key, label) == 0) {
			if (r->currency[0] == '\0')
				money_currency_set(r->currency, byl->rows[k].currency);
			else if (!money_same_currency(r->currency, byl->rows[k].currency))
				r->converted = true;
		}
	if (r->currency[0] == '\0')
		money_currency_set(r->currency, NULL);
	if (r->converted)
		money_currency_set(r->currency, "USD");
	for (k = 0; k < byl->n; k++)
		if (strcmp(byl->rows[k].key, label) == 0) {
			if (!money_convert(fx, byl->rows[k].compute_spend, byl->rows[k].currency,
			    r->currency, &v)) {
				r->currency[0] = '\0';
				r->converted = false;
				return false;
			}
			*spend += v;
			*billed += byl->rows[k].billed_s;
		}
	return true;
}

/*
 * Every group created with --predict over the audit's window (on the clock the watcher
 * records the load on), priced at what its members cost per member-hour in the ledger.
 */
static enum gr_err
predict_rows(struct state *st, const struct audit_opts *base, struct predict_row **out,
    size_t *n, struct gr_error *err)
{
	struct group *g = NULL;
	struct audit_opts o = *base;
	struct audit_report byl;
	size_t ng = 0, i;
	int64_t now = base->clock->sim_shown ? base->clock->sim : base->clock->wall;
	bool priced = false;

	*out = NULL;
	*n = 0;
	memset(&byl, 0, sizeof(byl));
	if (groups_load(st, &g, &ng, err) != GR_OK)
		return err->code;
	for (i = 0; i < ng; i++) {
		struct group_load_rec *v = NULL;
		struct predict_row *r;
		char label[LABEL_MAX];
		int64_t spend = 0, billed = 0;
		size_t nv = 0;
		bool known;

		if (!g[i].predict)
			continue;
		if (groups_load_records(st, g[i].name, now - base->span_s, now, &v, &nv, err) !=
		    GR_OK)
			break;
		*out = xreallocarray(*out, *n + 1, sizeof(**out));
		r = &(*out)[(*n)++];
		memset(r, 0, sizeof(*r));
		strlcpy_(r->group, g[i].name, sizeof(r->group));
		r->records = nv;
		elastic_replay(&g[i], v, nv, &r->as_run, &r->reactive);
		free(v);
		/* What a member-hour of this group cost: its members' spend over their hours. */
		if (!priced) {
			o.by = AG_LABEL;
			if (audit_compute(st, &o, &byl, err) != GR_OK)
				break;
			priced = true;
		}
		group_label(label, sizeof(label), g[i].name);
		known = member_spend(&byl, label, base->fx, r, &spend, &billed) && billed > 0;
		r->spend_run = known ? money_scale(spend, r->as_run.member_s, billed) : -1;
		r->spend_reactive = known ? money_scale(spend, r->reactive.member_s, billed) : -1;
	}
	if (priced)
		audit_report_release(&byl);
	free(g);
	if (err->code != GR_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
		return err->code;
	}
	return GR_OK;
}

/* A currency code, or null for "" (no currency: the amounts beside it are null). */
static void
json_currency(FILE *f, const char *code)
{
	if (code[0] == '\0')
		fputs("null", f);
	else
		json_write_str(f, code);
}

static void
json_tally(FILE *f, const struct elastic_tally *t, int64_t spend, const char *currency,
    bool replayed)
{
	char m[32];

	fprintf(f, "{\"member_hours\":%.4f,\"spend\":%s,\"currency\":",
	    (double)t->member_s / 3600, spend >= 0 ? money_format(m, sizeof(m), spend, 6, false) :
	    "null");
	json_currency(f, currency);
	fprintf(f, ",\"above_target_hours\":%.4f,\"decisions\":", (double)t->above_s / 3600);
	if (replayed)
		fprintf(f, "%d}", t->decisions);
	else
		fputs("null}", f);
}

static void
print_predict_json(FILE *f, const struct predict_row *v, size_t n)
{
	char m[32];
	size_t i;

	fputs(",\"predict\":[", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"group\":", i ? "," : "");
		json_write_str(f, v[i].group);
		fprintf(f, ",\"records\":%zu,\"currency\":", v[i].records);
		json_currency(f, v[i].currency);
		fprintf(f, ",\"converted\":%s,\"predictive\":", v[i].converted ? "true" :
		    "false");
		json_tally(f, &v[i].as_run, v[i].spend_run, v[i].currency, false);
		fputs(",\"reactive\":", f);
		json_tally(f, &v[i].reactive, v[i].spend_reactive, v[i].currency, true);
		fprintf(f, ",\"saved\":%s,\"member_hours_saved\":%.4f,\"above_target_hours_more\":"
		    "%.4f}", v[i].spend_run >= 0 ? money_format(m, sizeof(m), v[i].spend_reactive -
		    v[i].spend_run, 6, false) : "null", (double)(v[i].reactive.member_s -
		    v[i].as_run.member_s) / 3600, (double)(v[i].as_run.above_s -
		    v[i].reactive.above_s) / 3600);
	}
	fputc(']', f);
}

static void
print_predict_table(FILE *f, const struct predict_row *v, size_t n)
{
	char a[32], b[32], d[32], clean[GROUP_NAME_MAX];
	size_t i;

	if (n == 0)
		return;
	fprintf(f, "\n%s\n", _("--predict against the reactive policy (replayed over the same "
	    "recorded load):"));
	fprintf(f, "%-16s %-10s %12s %12s %14s\n", _("GROUP"), _("POLICY"), _("MEMBER-H"),
	    _("SPEND"), _("ABOVE TARGET H"));
	for (i = 0; i < n; i++) {
		text_sanitize(clean, sizeof(clean), v[i].group);
		fprintf(f, "%-16s %-10s %12.2f %12s %14.2f\n", clean, _("predictive"),
		    (double)v[i].as_run.member_s / 3600, v[i].spend_run >= 0 ? money_format_in(a,
		    sizeof(a), v[i].spend_run, 2, v[i].currency) : "-",
		    (double)v[i].as_run.above_s / 3600);
		fprintf(f, "%-16s %-10s %12.2f %12s %14.2f\n", clean, _("reactive"),
		    (double)v[i].reactive.member_s / 3600, v[i].spend_reactive >= 0 ?
		    money_format_in(b, sizeof(b), v[i].spend_reactive, 2, v[i].currency) : "-",
		    (double)v[i].reactive.above_s / 3600);
		if (v[i].spend_run >= 0) {
			int64_t saved = v[i].spend_reactive - v[i].spend_run;

			fprintf(f, _("%s: --predict %s %s, with %.2f h %s above target\n"), clean,
			    saved >= 0 ? _("saved") : _("cost"), money_format_in(d, sizeof(d),
			    saved >= 0 ? saved : -saved, 2, v[i].currency), (double)(v[i].as_run.above_s >
			    v[i].reactive.above_s ? v[i].as_run.above_s - v[i].reactive.above_s :
			    v[i].reactive.above_s - v[i].as_run.above_s) / 3600,
			    v[i].as_run.above_s > v[i].reactive.above_s ? _("more") : _("less"));
			if (v[i].converted)
				fprintf(f, _("%s: its members billed in several currencies, added\n"
				    "in US dollars at your configured rate (fx.*)\n"), clean);
		} else if (v[i].currency[0] == '\0') {
			fprintf(f, _("%s: no spend: its members billed in several currencies and\n"
			    "fx.CODE (US dollars per unit) is not set for each\n"), clean);
		}
	}
}

/*
 * Table and CSV: the rows, then the total of each currency when there are several, then the
 * total of every instance last (its key is "total"); in a table, what the totals add up and
 * the cheaper offers.
 */
static enum gr_err
print_table(FILE *fp, struct audit_report *rep, struct audit_view *view,
    const struct audit_cheaper *cheaper, size_t ncheaper, struct gr_error *err)
{
	struct column cols[AC__COUNT], ccols[CC__COUNT];
	size_t n = rep->n, i;
	bool several = rep->n_totals > 1, converted = false;
	enum gr_err rc;

	memcpy(cols, audit_columns, sizeof(cols));
	cols[AC_CURRENCY].hidden = !several;
	rep->rows = xreallocarray(rep->rows, rep->n + rep->n_totals + 1, sizeof(*rep->rows));
	for (i = 0; several && i < rep->n_totals; i++)
		rep->rows[n++] = rep->totals[i];
	rep->rows[n++] = rep->total;
	/* The observed columns are JSON's: a table says them of the total in a line. */
	rc = out_print(fp, &out_global, cols, AC_OBSERVED, AC_KEY, rep->rows, n, sizeof(*rep->rows),
	    audit_cell, view, err);
	if (rc != GR_OK || out_global.format != OUT_TABLE)
		return rc;
	fprintf(fp, _("samples cover %d of the %d instances, %.2f hours in all\n"),
	    rep->total.observed, rep->total.instances, (double)rep->total.covered_s / 3600.0);
	if (rep->total.converted)
		fputs(_("the last total adds every currency, converted at your configured rate "
		    "(fx.*)\n"), fp);
	else if (rep->total.unpriced)
		fputs(_("currencies are not added up: set fx.CODE (US dollars per unit) for a\n"
		    "converted total\n"), fp);
	if (ncheaper == 0)
		return GR_OK;
	for (i = 0; i < ncheaper; i++)
		converted |= cheaper[i].converted;
	memcpy(ccols, cheaper_columns, sizeof(ccols));
	ccols[CC_CONVERTED].hidden = !converted;
	fputs(_("\ncheaper now (same or equivalent GPU, as many, same type):\n"), fp);
	rc = out_print(fp, &out_global, ccols, CC__COUNT, CC_INSTANCE, cheaper, ncheaper,
	    sizeof(*cheaper), cheaper_cell, NULL, err);
	if (rc == GR_OK && converted)
		fputs(_("an offer in another currency is compared at your configured rate (fx.*),\n"
		    "and its saving is converted into the instance's currency\n"), fp);
	return rc;
}

static int
audit_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { 7 * 86400, AG_INSTANCE, false, NULL };
	struct gr_error err = { 0 };
	struct audit_opts o;
	struct audit_report rep;
	struct audit_live *live = NULL;
	struct audit_cheaper *cheaper = NULL;
	struct instance_list insts;
	struct offer_list offers;
	struct cost_clock clk;
	struct config *cfg;
	struct state *st;
	struct predict_row *pred = NULL;
	struct fx_rates fx;
	struct audit_view view;
	size_t ncheaper = 0, npred = 0;
	int rc, target;
	enum gr_err prc = GR_OK;

	if (!cmd_parse_options(c, argc, argv, handle, &a, N_("no arguments; --by groups the rows"),
	    &rc))
		return rc;
	if (session_config(c->s, &cfg, &err) != GR_OK || session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	target = (int)config_get_int(cfg, "audit.target", 85);
	view.target = target;
	view.table = out_global.format == OUT_TABLE;
	config_fx(cfg, &fx);
	instance_list_init(&insts);
	offer_list_init(&offers);
	if (!a.offline) {
		if (session_backends(c->s, &err) != GR_OK)
			return cmd_error(c, &err);
		live = cmd_ask_providers(c, &insts, &offers);
		audit_cheaper_now(&insts, &offers, &fx, &cheaper, &ncheaper);
	}
	session_clock(c->s, &clk);
	if (a.since != NULL) {
		int64_t now = session_now(c->s), from;

		parse_when(a.since, now, &from);
		if (from >= now)
			return cmd_usage_error(c, "--since %s is not in the past", a.since);
		a.span = now - from;
	}
	memset(&o, 0, sizeof(o));
	o.span_s = a.span;
	o.clock = &clk;
	o.idle_pct = (int)config_get_int(cfg, "idle.threshold", 5);
	o.target_pct = target;
	o.grid = config_get(cfg, "audit.grid");
	o.by = a.by;
	o.live = live;
	o.n_live = a.offline ? 0 : insts.n;
	o.fx = &fx;
	rc = audit_compute(st, &o, &rep, &err) == GR_OK ? 0 : cmd_error(c, &err);
	if (rc == 0 && predict_rows(st, &o, &pred, &npred, &err) != GR_OK) {
		audit_report_release(&rep);
		rc = cmd_error(c, &err);
	}
	free(live);
	instance_list_release(&insts);
	offer_list_release(&offers);
	if (rc != 0) {
		free(cheaper);
		return rc;
	}
	if (out_global.format == OUT_JSON) {
		fprintf(c->out, "{\"by\":\"%s\",\"since_s\":%lld,\"target_pct\":%d,\"rows\":",
		    groups[a.by], (long long)a.span, target);
		prc = cmd_print_nested(c->out, audit_columns, AC__COUNT, AC_KEY, rep.rows, rep.n,
		    sizeof(*rep.rows), audit_cell, &view, false, &err);
		if (prc == GR_OK) {
			fputs(",\"total\":", c->out);
			prc = cmd_print_nested(c->out, audit_columns, AC__COUNT, AC_KEY, &rep.total, 1,
			    sizeof(rep.total), audit_cell, &view, true, &err);
		}
		if (prc == GR_OK) {
			fputs(",\"totals\":", c->out);
			prc = cmd_print_nested(c->out, audit_columns, AC__COUNT, AC_KEY, rep.totals,
			    rep.n_totals, sizeof(*rep.totals), audit_cell, &view, false, &err);
		}
		if (prc == GR_OK) {
			fputs(",\"cheaper_now\":", c->out);
			if (a.offline)
				fputs("null", c->out);
			else
				prc = cmd_print_nested(c->out, cheaper_columns, CC__COUNT, CC_INSTANCE,
				    cheaper, ncheaper, sizeof(*cheaper), cheaper_cell, NULL, false,
				    &err);
		}
		if (prc == GR_OK) {
			print_predict_json(c->out, pred, npred);
			fputs("}\n", c->out);
		}
	} else {
		prc = print_table(c->out, &rep, &view, cheaper, ncheaper, &err);
		if (prc == GR_OK && out_global.format == OUT_TABLE)
			print_predict_table(c->out, pred, npred);
	}
	audit_report_release(&rep);
	free(pred);
	free(cheaper);
	if (prc != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	return finish_output(c, 0);
}

const struct command cmd_audit = {
	.name = "audit",
	.alias = NULL,
	.args = "",
	.summary = N_("where the money went: spend against GPU use, waste, energy, cheaper offers"),
	.help =
	    N_("Per instance (or --by label, provider or gpu) and in total, over the last --since\n"
	    "(default 7d) on each provider's clock: billed hours, spend (from the ledger),\n"
	    "mean and p95 GPU utilisation (from the sample history: metrics, the dashboard and\n"
	    "the watcher record it), that mean against audit.target (default 85%), the share of\n"
	    "billed time idle (every GPU at or below idle.threshold, default 5%; time without\n"
	    "samples is never counted idle) and what it cost (waste), GPU-hours, the price of\n"
	    "a utilised GPU-hour, energy in kWh (from power samples, else the catalogue's TDP\n"
	    "scaled by utilisation, marked estimated) and kg CO2e from the region's grid\n"
	    "intensity (a shipped table, audit.grid overrides). Then, for each running\n"
	    "instance, the cheapest offer now of the same or an equivalent GPU on any\n"
	    "selected provider and the saving per hour and per month (730 h). For each group\n"
	    "created with --predict: what prediction saved or cost against the reactive policy\n"
	    "replayed over the same recorded load (member-hours, spend, hours above target).\n"
	    "\n"
	    "Money stays in the currency it was billed in (USD, CNY for ppio): a group whose\n"
	    "instances bill in several is one row per currency, and there is a total per\n"
	    "currency; all of them are added up, in US dollars, only when fx.CODE rates are\n"
	    "configured for each, and that total says 'converted at your configured rate'.\n"
	    "A cheaper offer is one in the instance's currency, or in another at those rates."),
	.opts = opts,
	.complete_args = CPL_NONE,
	.run = audit_run,
};
