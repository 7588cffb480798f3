/*
 * gpurent costs: burn rate, spend and projections from the ledger.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/config.h"
#include "gpurent/costs.h"
#include "gpurent/money.h"
#include "gpurent/output.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "common.h"

enum { C_SINCE = 1, C_BY };

static const struct cmd_opt opts[] = {
	{ "since", 's', "DATE", "count spend from DATE (YYYY-MM-DD, UTC; default: start of this month)", C_SINCE, CPL_NONE, false },
	{ "by", 'b', "GROUP", "group spend by instance, label, provider, gpu or day", C_BY, CPL_NONE, false },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, false },
};

struct args {
	int64_t since;
	enum cost_group by;
};

static bool
parse_date(const char *s, int64_t *out)
{
	struct tm tm, want, back;
	char *end;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%d", &tm);
	if (end == NULL || (*end != '\0' && *end != 'T'))
		return false;
	if (*end == 'T' && ((end = strptime(end, "T%H:%M:%S", &tm)) == NULL || *end != '\0'))
		return false;
	want = tm;
	t = timegm(&tm);
	/* strptime takes 2026-02-30; timegm would quietly make it March 2. */
	if (gmtime_r(&t, &back) == NULL || back.tm_year != want.tm_year ||
	    back.tm_mon != want.tm_mon || back.tm_mday != want.tm_mday ||
	    back.tm_hour != want.tm_hour || back.tm_min != want.tm_min ||
	    back.tm_sec != want.tm_sec)
		return false;
	*out = (int64_t)t;
	return true;
}

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	static const char *const groups[] = { "", "instance", "label", "provider", "gpu", "day" };
	struct args *a = data;
	size_t i;

	switch (id) {
	case C_SINCE:
		if (!parse_date(arg, &a->since))
			return cmd_usage_error(c, "--since needs a date that exists, such as "
			    "2026-11-01 or 2026-11-01T09:30:00, not '%s'", arg);
		break;
	case C_BY:
		for (i = 1; i < ARRAY_LEN(groups); i++)
			if (strcmp(arg, groups[i]) == 0)
				break;
		if (i == ARRAY_LEN(groups))
			return cmd_usage_error(c, "--by is instance, label, provider, gpu or day");
		a->by = (enum cost_group)i;
		break;
	}
	return 0;
}

static const struct column summary_cols[] = {
	{ "burn_hour", "BURN $/H", true, false, 0, 0 },
	{ "provisioning_hour", "PROVISIONING $/H", true, false, 0, 0 },
	{ "spent", "SPENT", true, false, 0, 0 },
	{ "spent_today", "TODAY", true, false, 0, 0 },
	{ "spent_month", "MONTH", true, false, 0, 0 },
	{ "projected_day", "PROJ DAY", true, false, 0, 0 },
	{ "projected_month", "PROJ MONTH", true, false, 0, 0 },
	{ "since", "SINCE", false, false, 0, 0 },
	{ "budget_month", "BUDGET", true, true, 0, 0 },
};

struct summary_row {
	const struct cost_summary *s;
	int64_t budget;
};

static void
summary_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct summary_row *r = row;
	const int64_t v[] = { r->s->burn_hour, r->s->provisioning_hour, r->s->spent,
		r->s->spent_today, r->s->spent_month, r->s->projected_day, r->s->projected_month };

	(void)ctx;
	c->decimals = 2;
	if (col < ARRAY_LEN(v)) {
		c->kind = CELL_MONEY;
		c->i = v[col];
		if (col <= 1)
			c->decimals = 3;
		if (col == 6 && r->budget >= 0 && v[col] > r->budget)
			c->color = OC_BAD;
	} else if (col == 7) {
		c->kind = CELL_TIME;
		c->i = r->s->since;
	} else {
		c->kind = r->budget >= 0 ? CELL_MONEY : CELL_NULL;
		c->i = r->budget;
	}
}

static const struct column line_cols[] = {
	{ "key", "KEY", false, false, 0, 12 },
	{ "spent", "SPENT", true, false, 0, 0 },
	{ "burn_hour", "BURN $/H", true, false, 0, 0 },
	{ "gone", "GONE", false, false, 1, 0 },
};

static void
line_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct cost_line *l = row;

	(void)ctx;
	switch (col) {
	case 0: c->kind = l->key[0] ? CELL_STR : CELL_NULL; c->s = l->key; break;
	case 1: c->kind = CELL_MONEY; c->i = l->spent; c->decimals = 2; break;
	case 2: c->kind = CELL_MONEY; c->i = l->burn_hour; c->decimals = 3; break;
	default: c->kind = CELL_BOOL; c->i = l->gone; break;
	}
}

static void
json_money(FILE *fp, const char *key, int64_t v, bool comma)
{
	struct cell c = { CELL_MONEY, NULL, v, 0, 0 };

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
	struct cost_summary byp;
	struct gr_error err = { 0 };
	size_t i, k, n = 0;
	char a[32], b[32];

	if (costs_compute(st, clk, 0, CG_PROVIDER, &byp, &err) != GR_OK)
		return 0;
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
		for (k = 0; k < byp.n_lines; k++)
			if (strcmp(byp.lines[k].key, r->provider) == 0)
				r->ledger_burn = byp.lines[k].burn_hour;
		if ((r->acct.valid & AV_SPEND) && llabs(r->acct.spend_hour - r->ledger_burn) >
		    (r->ledger_burn / 100 > 10000 ? r->ledger_burn / 100 : 10000))
			cmd_warn("%s reports a burn rate of %s/h where the local ledger has %s/h: "
			    "instances changed outside gpurent are counted from when it last saw "
			    "them", r->provider, money_format(a, sizeof(a), r->acct.spend_hour, 3,
			    true), money_format(b, sizeof(b), r->ledger_burn, 3, true));
		n++;
	}
	cost_summary_release(&byp);
	return n;
}

static void
json_reported(FILE *fp, const struct reported *r, size_t n)
{
	struct cell m = { CELL_MONEY, NULL, 0, 0, 0 };
	size_t i;

	fputs("\"providers\":[", fp);
	for (i = 0; i < n; i++) {
		fprintf(fp, "%s{\"provider\":", i ? "," : "");
		json_write_str(fp, r[i].provider);
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

static int
costs_run(struct cmd_ctx *c, int argc, char **argv)
{
	static const char *const group_names[] = { "", "instance", "label", "provider", "gpu",
		"day" };
	struct args a = { 0, CG_NONE };
	struct gr_error err = { 0 };
	struct cost_summary sum;
	struct cost_clock clk;
	struct summary_row row;
	struct config *cfg;
	struct state *st;
	struct instance_list l;
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct reported rep[SESSION_MAX_PROVIDERS];
	int n, rc;
	size_t i, n_rep;

	rc = cmd_parse(c, argc, argv, handle, &a, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (n > 0)
		return cmd_usage_error(c, "unexpected argument '%s'", argv[0]);
	if (session_config(c->s, &cfg, &err) != GR_OK)
		return cmd_error(c, &err);
	/* Listing instances brings every provider's ledger up to date (sim bills on read). */
	instance_list_init(&l);
	if (session_instances(c->s, &l, res, &err) != GR_OK)
		report_fanout(c, res, c->s->n_backends);
	instance_list_release(&l);
	session_clock(c->s, &clk);
	if (session_state(c->s, &st, &err) != GR_OK ||
	    costs_compute(st, &clk, a.since, a.by, &sum, &err) != GR_OK)
		return cmd_error(c, &err);
	n_rep = reconcile(c, st, &clk, rep);
	row.s = &sum;
	row.budget = config_get_money(cfg, "budget.month");
	if (out_global.format == OUT_JSON) {
		struct cell t = { CELL_TIME, NULL, sum.since, 0, 0 };

		fputc('{', c->out);
		json_money(c->out, "burn_hour", sum.burn_hour, true);
		json_money(c->out, "provisioning_hour", sum.provisioning_hour, true);
		json_money(c->out, "spent", sum.spent, true);
		json_money(c->out, "spent_today", sum.spent_today, true);
		json_money(c->out, "spent_month", sum.spent_month, true);
		json_money(c->out, "projected_day", sum.projected_day, true);
		json_money(c->out, "projected_month", sum.projected_month, true);
		if (row.budget >= 0)
			json_money(c->out, "budget_month", row.budget, true);
		else
			fputs("\"budget_month\":null,", c->out);
		fputs("\"since\":", c->out);
		json_write_cell(c->out, &t);
		fprintf(c->out, ",\"by\":%s%s%s,", a.by ? "\"" : "",
		    a.by ? group_names[a.by] : "null", a.by ? "\"" : "");
		json_reported(c->out, rep, n_rep);
		fputs("\"groups\":[", c->out);
		for (i = 0; i < sum.n_lines; i++) {
			fputs(i ? ",{\"key\":" : "{\"key\":", c->out);
			if (sum.lines[i].key[0] != '\0')
				json_write_str(c->out, sum.lines[i].key);
			else
				fputs("null", c->out);	/* unlabelled, as in ls */
			fputc(',', c->out);
			json_money(c->out, "spent", sum.lines[i].spent, true);
			json_money(c->out, "burn_hour", sum.lines[i].burn_hour, a.by == CG_INSTANCE);
			if (a.by == CG_INSTANCE)
				fprintf(c->out, "\"gone\":%s", sum.lines[i].gone ? "true" : "false");
			fputc('}', c->out);
		}
		fputs("]}\n", c->out);
	} else if (a.by != CG_NONE) {
		/* By instance, a last column says which ones their provider no longer lists. */
		rc = out_print(c->out, &out_global, line_cols, ARRAY_LEN(line_cols) -
		    (a.by == CG_INSTANCE ? 0 : 1), 0, sum.lines, sum.n_lines, sizeof(*sum.lines),
		    line_cell, NULL, &err);
	} else if (out_global.format == OUT_TABLE) {
		rc = out_print_record(c->out, &out_global, summary_cols, ARRAY_LEN(summary_cols),
		    &row, summary_cell, NULL, &err);
		for (i = 0; i < n_rep; i++) {
			char bal[32], burn[32];

			fprintf(c->out, "%s says: balance %s, burn %s/h\n", rep[i].provider,
			    rep[i].acct.valid & AV_BALANCE ? money_format(bal, sizeof(bal),
			    rep[i].acct.balance, 2, true) : "unknown",
			    rep[i].acct.valid & AV_SPEND ? money_format(burn, sizeof(burn),
			    rep[i].acct.spend_hour, 3, true) : "unknown");
		}
	} else
		rc = out_print(c->out, &out_global, summary_cols, ARRAY_LEN(summary_cols), 0, &row,
		    1, sizeof(row), summary_cell, NULL, &err);
	cost_summary_release(&sum);
	if (rc != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	return finish_output(c, 0);
}

const struct command cmd_costs = {
	.name = "costs",
	.args = NULL,
	.summary = "burn rate, spend so far and projections",
	.help =
	    "Burn rate is what every billing instance costs per hour now; provisioning is what\n"
	    "launched instances will cost once they run. Spent counts from --since (default:\n"
	    "the first of this month, UTC). The projections add both rates until midnight and\n"
	    "until the end of the month. Money comes from a local ledger of billed seconds, so\n"
	    "it is exact to the micro-dollar: the simulator's on its own clock, every real\n"
	    "provider's on the wall clock. An instance its provider no longer lists stops\n"
	    "counting when a listing confirms it (GONE with --by instance).",
	.opts = opts,
	.run = costs_run,
};
