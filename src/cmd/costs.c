/*
 * gpurent costs: burn rate, spend and projections from the ledger.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/billcheck.h"
#include "gpurent/config.h"
#include "gpurent/costs.h"
#include "gpurent/i18n.h"
#include "gpurent/launch.h"
#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/output.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	int64_t since;		/* 0: the start of this month */
	enum cost_group by;
	const char *since_arg;	/* --since as given, resolved once the clock is known */
	bool check;		/* --check: the ledger against each provider's bill */
	bool mine;		/* --mine: only what team.user launched (a team profile) */
};

static const struct cmd_opt opts[] = {
	{ "since", 's', "WHEN", N_("count spend from WHEN: a duration back (7d) or a UTC date or time (2026-12-01, RFC 3339); default: start of this month"), OPT_AT(struct args, since_arg), CPL_NONE, OPT_WHEN },
	{ "by", 'b', "GROUP", N_("group spend by instance, label, provider, gpu, day or user"), 0, CPL_COSTS_BY, 0 },
	{ "mine", 0, NULL, N_("only the spend of what you launched (team.user; in a personal profile, all of it)"), OPT_AT(struct args, mine), CPL_NONE, OPT_TRUE },
	{ "check", 0, NULL, N_("compare the ledger with what each provider says it charged, per instance and day (since --since, default the last 7 days)"), OPT_AT(struct args, check), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	/* In enum cost_group's order, after CG_NONE. */
	static const char *const groups[] = { "instance", "label", "provider", "gpu", "day",
		"user" };
	struct args *a = data;
	int by;

	(void)id;	/* --by, the one option cmd_parse does not store (--check and --since are) */
	if ((by = cmd_choice(c, arg, groups, ARRAY_LEN(groups),
	    N_("--by is instance, label, provider, gpu, day or user"))) < 0)
		return EXIT_USAGE;
	a->by = (enum cost_group)(by + 1);
	return 0;
}

static const struct column summary_cols[] = {
	{ "burn_hour", N_("BURN/H"), true, false, 0, 0 },
	{ "provisioning_hour", N_("PROVISIONING/H"), true, false, 0, 0 },
	{ "spent", N_("SPENT"), true, false, 0, 0 },
	{ "spent_today", N_("TODAY"), true, false, 0, 0 },
	{ "spent_month", N_("MONTH"), true, false, 0, 0 },
	{ "projected_day", N_("PROJ DAY"), true, false, 0, 0 },
	{ "projected_month", N_("PROJ MONTH"), true, false, 0, 0 },
	{ "since", N_("SINCE"), false, false, 0, 0 },
	{ "budget_month", N_("BUDGET"), true, true, 0, 0 },
	{ "currency", N_("CURRENCY"), false, false, 0, 0 },
	{ "budget_day", N_("BUDGET/DAY"), true, true, 0, 0 },	/* last: CSV columns keep
								   their places */
};
/* The columns summary_cell gives by index beyond the amounts. */
enum { SC_SINCE = 7, SC_BUDGET_MONTH, SC_CURRENCY, SC_BUDGET_DAY };

struct summary_row {
	const struct cost_summary *s;
	int64_t budget;		/* budget.month in s->currency, -1 none */
	int64_t budget_day;	/* budget.day likewise */
};

static void
summary_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct summary_row *r = row;
	const int64_t v[] = { r->s->burn_hour, r->s->provisioning_hour, r->s->spent,
		r->s->spent_today, r->s->spent_month, r->s->projected_day, r->s->projected_month };

	c->decimals = 2;
	c->s = r->s->currency;
	if (col < ARRAY_LEN(v)) {
		c->kind = CELL_MONEY;
		c->i = v[col];
		if (col <= 1)
			c->decimals = 3;
		if ((col == 6 && r->budget >= 0 && v[col] > r->budget) ||
		    (col == 5 && r->budget_day >= 0 && v[col] > r->budget_day))
			c->color = OC_BAD;
	} else if (col == SC_SINCE) {
		c->kind = CELL_TIME;
		c->i = r->s->since;
	} else if (col == SC_CURRENCY) {
		c->kind = CELL_STR;
		c->s = r->s->converted ? "USD (converted at your configured rate)" : r->s->currency;
	} else {
		int64_t b = col == SC_BUDGET_DAY ? r->budget_day : r->budget;

		c->kind = b >= 0 ? CELL_MONEY : CELL_NULL;
		c->i = b;
	}
}

/* One currency as a record: every column but the currency, which the amounts carry. */
static void
record_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	summary_cell(row, col < SC_CURRENCY ? col : col + 1, c, ctx);
}

static const struct column line_cols[] = {
	{ "key", N_("KEY"), false, false, 0, 12 },
	{ "spent", N_("SPENT"), true, false, 0, 0 },
	{ "burn_hour", N_("BURN/H"), true, false, 0, 0 },
	{ "currency", N_("CURRENCY"), false, true, 1, 0 },
	{ "gone", N_("GONE"), false, false, 1, 0 },
};

/* A group line and the currency of its summary. */
struct line_row {
	const struct cost_line *l;
	const char *currency;
};

static void
line_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct line_row *r = row;
	const struct cost_line *l = r->l;

	switch (col) {
	case 0: cell_str(c, l->key); break;
	case 1: c->kind = CELL_MONEY; c->i = l->spent; c->decimals = 2; c->s = r->currency; break;
	case 2:
		c->kind = CELL_MONEY;
		c->i = l->burn_hour;
		c->decimals = 3;
		c->s = r->currency;
		break;
	case 3: c->kind = CELL_STR; c->s = r->currency; break;
	default: c->kind = CELL_BOOL; c->i = l->gone; break;
	}
}

static void
json_money(FILE *fp, const char *key, int64_t v, bool comma)
{
	struct cell c = { .kind = CELL_MONEY, .i = v };

	fprintf(fp, "\"%s\":", key);
	json_write_cell(fp, &c);
	if (comma)
		fputc(',', fp);
}

/* What a provider itself reports, beside what the local ledger says about it. */
struct reported {
	const char *provider;
	struct account acct;
	int64_t ledger_burn;
};

/*
 * Ask each provider that keeps accounts for its balance and spend, and say on stderr when
 * its burn rate disagrees with the ledger's (an instance started or stopped elsewhere).
 */
static size_t
reconcile(struct cmd_ctx *c, struct state *st, const struct cost_clock *clk,
    struct reported *out)
{
	struct gr_error err = { 0 };
	size_t i, n = 0;
	char a[32], b[32];

	for (i = 0; i < c->s->n_backends; i++) {
		struct backend *be = c->s->backends[i];
		struct reported *r = &out[n];

		if (!be->ready || be->ops->account == NULL)
			continue;
		memset(r, 0, sizeof(*r));
		gr_error_clear(&err);
		if (be->ops->account(be, &r->acct, &err) != GR_OK) {
			cmd_warn("%s: no account figures: %s", be->ops->name, err.msg);
			continue;
		}
		r->provider = be->ops->name;
		/* The provider line's burn in costs_compute's dollars, from the open rows. */
		r->ledger_burn = ledger_burn(st, r->provider, cost_clock_now(clk, r->provider),
		    "USD");
		if ((r->acct.valid & AV_SPEND) && llabs(r->acct.spend_hour - r->ledger_burn) >
		    (r->ledger_burn / 100 > 10000 ? r->ledger_burn / 100 : 10000))
			cmd_warn("%s reports a burn rate of %s/h where the local ledger has %s/h: "
			    "instances changed outside gpurent are counted from when it last saw "
			    "them", r->provider, money_format(a, sizeof(a), r->acct.spend_hour, 3,
			    true), money_format(b, sizeof(b), r->ledger_burn, 3, true));
		n++;
	}
	return n;
}

static void
json_reported(FILE *fp, const struct reported *r, size_t n)
{
	struct cell m = { .kind = CELL_MONEY };
	size_t i;

	fputs("\"providers\":[", fp);
	for (i = 0; i < n; i++) {
		fprintf(fp, "%s{\"provider\":", i ? "," : "");
		json_write_str(fp, r[i].provider);
		fputs(",\"currency\":", fp);
		json_write_str(fp, money_currency(r[i].acct.currency));
		m.kind = r[i].acct.valid & AV_BALANCE ? CELL_MONEY : CELL_NULL;
		m.i = r[i].acct.balance;
		fputs(",\"balance\":", fp);
		json_write_cell(fp, &m);
		m.kind = r[i].acct.valid & AV_SPEND ? CELL_MONEY : CELL_NULL;
		m.i = r[i].acct.spend_hour;
		fputs(",\"reported_burn_hour\":", fp);
		json_write_cell(fp, &m);
		fputc(',', fp);
		json_money(fp, "ledger_burn_hour", r[i].ledger_burn, false);
		fputc('}', fp);
	}
	fputs("],", fp);
}

/* Where each provider's figures came from, with costs.source = provider. */
static void
json_sources(FILE *fp, const struct bill_report *bills, const char *source)
{
	size_t i;

	fprintf(fp, "\"source\":\"%s\",\"sources\":[", source != NULL &&
	    strcmp(source, "provider") == 0 ? "provider" : "ledger");
	for (i = 0; i < bills->n_prov; i++) {
		const struct bill_provider *p = &bills->prov[i];

		fprintf(fp, "%s{\"provider\":", i ? "," : "");
		json_write_str(fp, p->name);
		fprintf(fp, ",\"source\":\"%s\",\"instance_days\":%zu,\"error\":",
		    p->has_bill && p->error == GR_OK ? "provider" : "ledger", p->differences);
		if (p->error != GR_OK)
			json_write_str(fp, p->msg);
		else
			fputs("null", fp);
		fputc('}', fp);
	}
	fputs("],", fp);
}

static void
say_source(FILE *fp, const struct bill_provider *p)
{
	if (p->has_bill && p->error == GR_OK && p->differences > 0)
		/* TRANSLATORS: PROVIDER: ... N instance-days ... */
		fprintf(fp, _("%s: its bill counts where it differs from the ledger "
		    "(%zu instance-days; costs --check shows them)\n"), p->name, p->differences);
	else if (p->has_bill && p->error == GR_OK)
		fprintf(fp, _("%s: its bill agrees with the ledger\n"), p->name);
	else if (p->has_bill)
		fprintf(fp, _("%s: the ledger's figures (no bill: %s)\n"), p->name, p->msg);
	else
		fprintf(fp, _("%s: the ledger's figures (its API exposes no bill)\n"), p->name);
}

/* A budget's amount when it is in the summary's currency, else null. */
static void
json_budget(FILE *fp, const char *key, const struct cost_summary *s, int64_t budget,
    const char *budget_cur)
{
	if (budget >= 0 && money_same_currency(budget_cur, s->currency))
		json_money(fp, key, budget, true);
	else
		fprintf(fp, "\"%s\":null,", key);
}

/* budget.month and budget.day, each with its currency. */
struct budgets {
	int64_t month, day;	/* -1 unset */
	char month_cur[CURRENCY_MAX], day_cur[CURRENCY_MAX];
};

static void
json_summary(FILE *fp, const struct cost_summary *s, const struct budgets *bg)
{
	fputs("{\"currency\":", fp);
	json_write_str(fp, s->currency);
	fputc(',', fp);
	json_money(fp, "burn_hour", s->burn_hour, true);
	json_money(fp, "provisioning_hour", s->provisioning_hour, true);
	json_money(fp, "spent", s->spent, true);
	json_money(fp, "spent_today", s->spent_today, true);
	json_money(fp, "spent_month", s->spent_month, true);
	json_money(fp, "projected_day", s->projected_day, true);
	json_money(fp, "projected_month", s->projected_month, true);
	json_budget(fp, "budget_month", s, bg->month, bg->month_cur);
	json_budget(fp, "budget_day", s, bg->day, bg->day_cur);
	fprintf(fp, "\"converted\":%s}", s->converted ? "true" : "false");
}

static void
json_groups(FILE *fp, const struct cost_summary *s, enum cost_group by, bool *first)
{
	size_t i;

	for (i = 0; i < s->n_lines; i++) {
		fputs(*first ? "{\"key\":" : ",{\"key\":", fp);
		*first = false;
		if (s->lines[i].key[0] != '\0')
			json_write_str(fp, s->lines[i].key);
		else
			fputs("null", fp);	/* unlabelled, as in ls */
		fputs(",\"currency\":", fp);
		json_write_str(fp, s->currency);
		fputc(',', fp);
		json_money(fp, "spent", s->lines[i].spent, true);
		json_money(fp, "burn_hour", s->lines[i].burn_hour, by == CG_INSTANCE);
		if (by == CG_INSTANCE)
			fprintf(fp, "\"gone\":%s", s->lines[i].gone ? "true" : "false");
		fputc('}', fp);
	}
}

static const struct column check_cols[] = {
	{ "instance", N_("INSTANCE"), false, false, 0, 12 },
	{ "day", N_("DAY"), false, false, 0, 0 },
	{ "ledger", N_("LEDGER"), true, false, 0, 0 },
	{ "billed", N_("BILLED"), true, false, 0, 0 },
	{ "difference", N_("DIFFERENCE"), true, false, 0, 0 },
	{ "currency", N_("CURRENCY"), false, true, 1, 0 },
	{ "cause", N_("CAUSE"), false, false, 1, 16 },
	{ "provider", N_("PROVIDER"), false, true, 1, 0 },
	{ "ledger_storage", N_("LEDGER STORAGE"), true, true, 2, 0 },
	{ "billed_storage", N_("BILLED STORAGE"), true, true, 2, 0 },
};

struct check_row {
	const struct bill_row *r;
	char day[16];
};

static void
check_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct check_row *cr = row;
	const struct bill_row *r = cr->r;
	const int64_t money[] = { r->ledger, r->billed, r->difference, 0, 0, 0,
		r->ledger_storage, r->billed_storage };
	bool words = ctx != NULL;	/* a table, for a person: the cause in words */

	c->decimals = 2;
	switch (col) {
	case 0: cell_str(c, r->instance_id); break;
	case 1: cell_str(c, cr->day); break;
	case 5: cell_str(c, r->currency); break;
	case 6: cell_str(c, words ? bill_cause_text(r->cause) : bill_cause_name(r->cause)); break;
	case 7: cell_str(c, r->provider); break;
	default:
		/* An amount the side does not have is unknown, never 0. */
		c->kind = col == 4 || money[col - 2] >= 0 ? CELL_MONEY : CELL_NULL;
		c->i = money[col - 2];
		c->s = r->currency;
		if (col == 4 && r->cause != BILL_MATCH)
			c->color = OC_BAD;
		break;
	}
}

/* The check's exit status: a difference, else a provider that could not be read. */
static int
check_status(const struct bill_report *rep, size_t asked)
{
	size_t i, failed = 0, none = 0;
	enum gr_err last = GR_OK;

	if (rep->differences > 0)
		return EXIT_MISMATCH;
	for (i = 0; i < rep->n_prov; i++) {
		if (rep->prov[i].error != GR_OK) {
			failed++;
			last = rep->prov[i].error;
		} else if (!rep->prov[i].has_bill)
			none++;
	}
	if (failed > 0)
		return failed == rep->n_prov ? gr_exit_code(last) : EXIT_PARTIAL;
	/* Named providers that have no bill to read: nothing was checked. */
	return asked > 0 && none == rep->n_prov ? EXIT_UNSUPPORTED : 0;
}

static void
json_check(FILE *fp, const struct bill_report *rep, const struct check_row *rows,
    int64_t tolerance)
{
	struct cell t = { .kind = CELL_TIME };
	size_t i, k;

	fputs("{", fp);
	json_money(fp, "tolerance", tolerance, true);
	fprintf(fp, "\"differences\":%zu,\"providers\":[", rep->differences);
	for (i = 0; i < rep->n_prov; i++) {
		const struct bill_provider *p = &rep->prov[i];

		fprintf(fp, "%s{\"provider\":", i ? "," : "");
		json_write_str(fp, p->name);
		fprintf(fp, ",\"bill\":%s,\"since\":", p->has_bill ? "true" : "false");
		t.i = p->since;
		json_write_cell(fp, &t);
		fputs(",\"until\":", fp);
		t.i = p->until;
		json_write_cell(fp, &t);
		fprintf(fp, ",\"matches\":%zu,\"differences\":%zu,\"error\":", p->matches,
		    p->differences);
		if (p->error != GR_OK)
			json_write_str(fp, p->msg);
		else
			fputs("null", fp);
		fputc('}', fp);
	}
	fputs("],\"rows\":[", fp);
	for (i = 0; i < rep->n; i++) {
		fputs(i ? ",{" : "{", fp);
		for (k = 0; k < ARRAY_LEN(check_cols); k++) {
			struct cell c = { 0 };

			check_cell(&rows[i], k, &c, NULL);
			fprintf(fp, "%s\"%s\":", k ? "," : "", check_cols[k].name);
			json_write_cell(fp, &c);
		}
		fputc('}', fp);
	}
	fputs("]}\n", fp);
}

/* gpurent costs --check: the ledger against each provider's bill (billcheck.h). */
static int
costs_check(struct cmd_ctx *c, const struct config *cfg, int64_t since)
{
	struct gr_error err = { 0 };
	struct bill_report rep;
	struct check_row *rows;
	int64_t tolerance = config_get_money(cfg, "costs.check_tolerance");
	size_t i;
	int rc = 0;

	if (tolerance < 0)
		tolerance = BILL_TOLERANCE;
	if (bill_check(c->s, since, 0, tolerance, &rep, &err) != GR_OK)
		return cmd_error(c, &err);
	rows = xcalloc(rep.n + 1, sizeof(*rows));
	for (i = 0; i < rep.n; i++) {
		struct tm tm;
		time_t d = (time_t)rep.rows[i].day;

		rows[i].r = &rep.rows[i];
		gmtime_r(&d, &tm);
		strftime(rows[i].day, sizeof(rows[i].day), "%Y-%m-%d", &tm);
	}
	if (out_global.format == OUT_JSON)
		json_check(c->out, &rep, rows, tolerance);
	else if (out_print(c->out, &out_global, check_cols, ARRAY_LEN(check_cols), 0, rows,
	    rep.n, sizeof(*rows), check_cell, out_global.format == OUT_TABLE ? rows : NULL,
	    &err) != GR_OK)
		rc = cmd_usage_error(c, "%s", err.msg);
	for (i = 0; rc == 0 && i < rep.n_prov; i++) {
		const struct bill_provider *p = &rep.prov[i];

		if (p->error != GR_OK)
			cmd_warn("%s: no bill: %s", p->name, p->msg);
		else if (!p->has_bill)
			cmd_warn("%s: its API exposes no bill: nothing to compare the ledger with",
			    p->name);
		else if (out_global.format == OUT_TABLE)
			/* TRANSLATORS: PROVIDER: N instance-days match, N differ. */
			fprintf(c->out, _("%s: %zu instance-days match, %zu differ\n"), p->name,
			    p->matches, p->differences);
	}
	if (rc == 0)
		rc = check_status(&rep, c->s->n_providers);
	free(rows);
	bill_report_release(&rep);
	return finish_output(c, rc);
}

static int
costs_run(struct cmd_ctx *c, int argc, char **argv)
{
	static const char *const group_names[] = { "", "instance", "label", "provider", "gpu",
		"day", "user" };
	struct args a = { 0, CG_NONE, NULL, false, false };
	struct team_view tv;
	struct gr_error err = { 0 };
	struct cost_set all;
	const struct cost_summary *sum;
	struct cost_clock clk;
	struct summary_row rows[COSTS_MAX_CURRENCIES + 1];
	struct config *cfg;
	struct state *st;
	struct instance_list l;
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct reported rep[SESSION_MAX_PROVIDERS];
	struct fx_rates fx;
	struct budgets bg;
	struct bill_report bills;
	const char *source;
	int rc;
	size_t i, k, n_rep, n_rows;

	if (!cmd_parse_options(c, argc, argv, handle, &a, NULL, &rc))
		return rc;
	if (session_config(c->s, &cfg, &err) != GR_OK)
		return cmd_error(c, &err);
	/* Listing instances brings every provider's ledger up to date (sim bills on read). */
	instance_list_init(&l);
	if (session_instances(c->s, &l, res, &err) != GR_OK)
		report_fanout(c, res, c->s->n_backends);
	instance_list_release(&l);
	session_clock(c->s, &clk);
	if (a.since_arg != NULL)
		parse_when(a.since_arg, session_now(c->s), &a.since);
	if (a.check && a.by != CG_NONE)
		return cmd_usage_error(c, "--check compares per instance and day: it takes no --by");
	if (a.check)
		return costs_check(c, cfg, a.since);
	config_fx(cfg, &fx);
	cmd_team_view(c, a.mine, &tv);
	if (session_state(c->s, &st, &err) != GR_OK ||
	    costs_compute_set(st, &clk, a.since, a.by, &fx, tv.who, &all, &err) != GR_OK)
		return cmd_error(c, &err);
	/* costs.source = provider: each provider's bill where it has one and it differs. */
	source = config_get(cfg, "costs.source");
	if (source != NULL && strcmp(source, "ledger") != 0 && strcmp(source, "provider") != 0) {
		cost_set_release(&all);
		return cmd_usage_error(c, "costs.source is ledger or provider, not '%s'", source);
	}
	memset(&bills, 0, sizeof(bills));
	if (source != NULL && strcmp(source, "provider") == 0) {
		int64_t tol = config_get_money(cfg, "costs.check_tolerance");

		for (i = 0; i < c->s->n_backends; i++) {
			const char *name = c->s->backends[i]->ops->name;

			if (bill_check_backend(c->s, c->s->backends[i], a.since != 0 ? a.since :
			    month_start(cost_clock_now(&clk, name)), 0, tol < 0 ? BILL_TOLERANCE : tol,
			    &bills, &err) != GR_OK) {
				cost_set_release(&all);
				bill_report_release(&bills);
				return cmd_error(c, &err);
			}
		}
		bill_apply(&bills, &clk, a.by, &fx, &all);
	}
	n_rep = reconcile(c, st, &clk, rep);
	if (tv.team) {
		struct shared_budget sb;

		/* A team's are in its state, where the launch door reads them (launch.h): the
		   team's beside everyone's spend, your own beside yours (--mine). */
		if (tv.who != NULL)
			launch_person_budget(st, tv.who, &sb);
		else
			launch_team_budget(st, &sb);
		bg.month = sb.month;
		bg.day = sb.day;
		money_currency_set(bg.month_cur, sb.month_currency);
		money_currency_set(bg.day_cur, sb.day_currency);
	} else {
		bg.month = config_get_money_in(cfg, "budget.month", bg.month_cur);
		bg.day = config_get_money_in(cfg, "budget.day", bg.day_cur);
	}
	/* The main figures: the one currency, else the converted total, else the first. */
	sum = cost_set_main(&all);
	for (n_rows = 0; n_rows < all.n; n_rows++) {
		rows[n_rows].s = &all.per[n_rows];
		rows[n_rows].budget = money_same_currency(bg.month_cur,
		    all.per[n_rows].currency) ? bg.month : -1;
		rows[n_rows].budget_day = money_same_currency(bg.day_cur,
		    all.per[n_rows].currency) ? bg.day : -1;
	}
	if (all.has_total) {
		rows[n_rows].s = &all.total;
		rows[n_rows].budget = money_same_currency(bg.month_cur, "USD") ? bg.month : -1;
		rows[n_rows++].budget_day = money_same_currency(bg.day_cur, "USD") ? bg.day : -1;
	}
	if (out_global.format == OUT_JSON) {
		struct cell t = { .kind = CELL_TIME, .i = sum->since };
		bool first = true;

		/* The top level keeps the schema of one currency: the converted total when the
		   rates cover every currency, else the first (USD when there is spend in it). */
		fputc('{', c->out);
		fputs("\"currency\":", c->out);
		json_write_str(c->out, sum->currency);
		fprintf(c->out, ",\"converted\":%s,", sum->converted ? "true" : "false");
		json_money(c->out, "burn_hour", sum->burn_hour, true);
		json_money(c->out, "provisioning_hour", sum->provisioning_hour, true);
		json_money(c->out, "spent", sum->spent, true);
		json_money(c->out, "spent_today", sum->spent_today, true);
		json_money(c->out, "spent_month", sum->spent_month, true);
		json_money(c->out, "projected_day", sum->projected_day, true);
		json_money(c->out, "projected_month", sum->projected_month, true);
		json_budget(c->out, "budget_month", sum, bg.month, bg.month_cur);
		json_budget(c->out, "budget_day", sum, bg.day, bg.day_cur);
		fputs("\"since\":", c->out);
		json_write_cell(c->out, &t);
		fprintf(c->out, ",\"by\":%s%s%s,", a.by ? "\"" : "",
		    a.by ? group_names[a.by] : "null", a.by ? "\"" : "");
		fputs("\"currencies\":[", c->out);
		for (i = 0; i < all.n; i++) {
			if (i)
				fputc(',', c->out);
			json_summary(c->out, &all.per[i], &bg);
		}
		fputs("],", c->out);
		json_reported(c->out, rep, n_rep);
		json_sources(c->out, &bills, source);
		fputs("\"rows\":[", c->out);
		for (i = 0; i < all.n; i++)
			json_groups(c->out, &all.per[i], a.by, &first);
		fputs("]}\n", c->out);
	} else if (a.by != CG_NONE) {
		struct line_row *lines;
		size_t nl = 0;

		for (i = 0; i < all.n; i++)
			nl += all.per[i].n_lines;
		lines = xcalloc(nl ? nl : 1, sizeof(*lines));
		for (nl = 0, i = 0; i < all.n; i++)
			for (k = 0; k < all.per[i].n_lines; k++) {
				lines[nl].l = &all.per[i].lines[k];
				lines[nl++].currency = all.per[i].currency;
			}
		/* By instance, a last column says which ones their provider no longer lists. */
		rc = out_print(c->out, &out_global, line_cols, ARRAY_LEN(line_cols) -
		    (a.by == CG_INSTANCE ? 0 : 1), 0, lines, nl, sizeof(*lines), line_cell, NULL,
		    &err);
		free(lines);
	} else if (out_global.format == OUT_TABLE && n_rows == 1) {
		struct column rec[ARRAY_LEN(summary_cols) - 1];

		for (i = 0, k = 0; i < ARRAY_LEN(summary_cols); i++)
			if (i != SC_CURRENCY)
				rec[k++] = summary_cols[i];
		rc = out_print_record(c->out, &out_global, rec, ARRAY_LEN(rec), &rows[0],
		    record_cell, NULL, &err);
	} else {
		/* Several currencies: one row each, side by side, and the converted total. */
		rc = out_print(c->out, &out_global, summary_cols, ARRAY_LEN(summary_cols), 0, rows,
		    n_rows, sizeof(rows[0]), summary_cell, NULL, &err);
		if (rc == GR_OK && out_global.format == OUT_TABLE && all.has_total)
			fputs(_("the USD row adds every currency, converted at your configured rate "
			    "(fx.*)\n"), c->out);
		else if (rc == GR_OK && out_global.format == OUT_TABLE)
			fputs(_("currencies are not added up: set fx.CODE (US dollars per unit) for a\n"
			    "converted total\n"), c->out);
	}
	if (rc == GR_OK && out_global.format == OUT_TABLE && a.by == CG_NONE)
		for (i = 0; i < n_rep; i++) {
			char bal[32], burn[32];

			/* TRANSLATORS: PROVIDER says: balance MONEY, burn MONEY/h (the account's). */
			fprintf(c->out, _("%s says: balance %s, burn %s/h\n"), rep[i].provider,
			    rep[i].acct.valid & AV_BALANCE ? money_format_in(bal, sizeof(bal),
			    rep[i].acct.balance, 2, rep[i].acct.currency) : _("unknown"),
			    rep[i].acct.valid & AV_SPEND ? money_format_in(burn, sizeof(burn),
			    rep[i].acct.spend_hour, 3, rep[i].acct.currency) : _("unknown"));
		}
	for (i = 0; rc == GR_OK && out_global.format == OUT_TABLE && i < bills.n_prov; i++)
		say_source(c->out, &bills.prov[i]);
	cost_set_release(&all);
	bill_report_release(&bills);
	if (rc != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	return finish_output(c, 0);
}

const struct command cmd_costs = {
	.name = "costs",
	.args = NULL,
	.summary = N_("burn rate, spend so far and projections"),
	.help =
	    N_("Burn rate is what every billing instance costs per hour now; provisioning is what\n"
	    "launched instances will cost once they run. Spent counts from --since (default:\n"
	    "the first of this month, UTC). The projections add both rates until midnight and\n"
	    "until the end of the month. Money comes from a local ledger of billed seconds, so\n"
	    "it is exact to the micro-unit: the simulator's on its own clock, every real\n"
	    "provider's on the wall clock. An instance its provider no longer lists stops\n"
	    "counting when a listing confirms it (GONE with --by instance).\n"
	    "\n"
	    "Each currency (USD, CNY for ppio) is totalled on its own and shown side by side;\n"
	    "a total of all of them, in US dollars, only when fx.CODE rates are configured for\n"
	    "every currency, and then it says 'converted at your configured rate'.\n"
	    "\n"
	    "--check sets the ledger beside what each provider says it charged (vast, RunPod\n"
	    "and the simulator have a bill; Lambda, PPIO and Slurm none), per instance and\n"
	    "day: the differences beyond costs.check_tolerance, with their likely cause, exit\n"
	    "with status 14."),
	.opts = opts,
	.run = costs_run,
};
