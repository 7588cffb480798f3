/*
 * gpurent budget: the budgets a launch is held against (launch.h). In a team profile, each
 * person's own (counting what they launched) and the team's (counting everyone's), both in
 * the shared state, which `budget set` and `budget set --team` set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/launch.h"
#include "gpurent/money.h"
#include "gpurent/state.h"
#include "gpurent/team.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	bool team;
};

static const struct cmd_opt opts[] = {
	{ "team", 0, NULL, N_("set or unset the team's budget, in the shared state (a team profile)"), OPT_AT(struct args, team), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

/* One budget as listed: whose, of which period, how much. */
struct budget_row {
	const char *scope;	/* "user" or "team" */
	const char *name;	/* the user's or the team's; NULL: a personal profile */
	const char *period;	/* "day" or "month" */
	int64_t amount;		/* -1: unset */
	const char *currency;
};

enum { C_SCOPE, C_NAME, C_PERIOD, C_BUDGET, C_CURRENCY };

static const struct column cols[] = {
	[C_SCOPE] = { "scope", N_("SCOPE"), false, false, 0, 0 },
	[C_NAME] = { "name", N_("NAME"), false, false, 0, 0 },
	[C_PERIOD] = { "period", N_("PERIOD"), false, false, 0, 0 },
	[C_BUDGET] = { "budget", N_("BUDGET"), true, false, 0, 0 },
	[C_CURRENCY] = { "currency", N_("CURRENCY"), false, true, 0, 0 },
};

static void
cell(const void *row, size_t c, struct cell *out, void *ctx)
{
	const struct budget_row *r = row;

	(void)ctx;
	memset(out, 0, sizeof(*out));
	switch (c) {
	case C_SCOPE: cell_str(out, r->scope); break;
	case C_NAME: cell_str(out, r->name); break;
	case C_PERIOD: cell_str(out, r->period); break;
	case C_BUDGET:
		out->kind = r->amount >= 0 ? CELL_MONEY : CELL_NULL;
		out->i = r->amount;
		out->s = r->currency;
		out->decimals = 2;
		break;
	default: cell_str(out, money_currency(r->currency)); break;
	}
}

/* The people with budgets in a team's state, each with theirs. */
struct people {
	struct person {
		char name[TEAM_NAME_MAX + 1];
		struct shared_budget b;
	} *v;
	size_t n;
};

static void
person_add(const char *who, const struct shared_budget *b, void *ctx)
{
	struct people *p = ctx;

	p->v = xreallocarray(p->v, p->n + 1, sizeof(*p->v));
	strlcpy_(p->v[p->n].name, who, sizeof(p->v[p->n].name));
	p->v[p->n++].b = *b;
}

static int
budget_show(struct cmd_ctx *c, const struct config *cfg)
{
	struct gr_error err = { 0 };
	struct people people = { NULL, 0 };
	struct budget_row *rows;
	struct shared_budget tb;
	struct state *st;
	char day_cur[CURRENCY_MAX], month_cur[CURRENCY_MAX], me[TEAM_NAME_MAX + 1];
	size_t n = 0, i;
	int rc;

	if (!team_profile(cfg)) {
		struct budget_row mine[2] = {
			{ "user", NULL, "day", config_get_money_in(cfg, "budget.day", day_cur),
			    day_cur },
			{ "user", NULL, "month", config_get_money_in(cfg, "budget.month",
			    month_cur), month_cur },
		};

		return cmd_print(c, cols, ARRAY_LEN(cols), C_SCOPE, mine, 2, sizeof(*mine), cell,
		    NULL, 0);
	}
	if (session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	cmd_warn_profile_budget(c);
	/* Whoever runs it first, with or without budgets, then everyone else who has one. */
	team_user(cfg, me, sizeof(me));
	launch_person_budget(st, me, &tb);
	person_add(me, &tb, &people);
	launch_person_budgets_each(st, person_add, &people);
	rows = xcalloc(2 * people.n + 2, sizeof(*rows));
	for (i = 0; i < people.n; i++) {
		const struct person *p = &people.v[i];

		if (i > 0 && strcmp(p->name, me) == 0)
			continue;
		rows[n++] = (struct budget_row){ "user", p->name, "day", p->b.day,
		    p->b.day_currency };
		rows[n++] = (struct budget_row){ "user", p->name, "month", p->b.month,
		    p->b.month_currency };
	}
	launch_team_budget(st, &tb);
	rows[n++] = (struct budget_row){ "team", team_name(cfg), "day", tb.day, tb.day_currency };
	rows[n++] = (struct budget_row){ "team", team_name(cfg), "month", tb.month,
	    tb.month_currency };
	rc = cmd_print(c, cols, ARRAY_LEN(cols), C_SCOPE, rows, n, sizeof(*rows), cell, NULL, 0);
	free(rows);
	free(people.v);
	return rc;
}

static int
budget_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { false };
	struct gr_error err = { 0 };
	struct config *cfg;
	struct state *st;
	bool set, day;
	int rc, npos;

	if (!cmd_parse_args(c, argc, argv, NULL, &a, N_("say show, set or unset"), &npos, &rc))
		return rc;
	if (session_config(c->s, &cfg, &err) != GR_OK)
		return cmd_error(c, &err);
	if (strcmp(argv[0], "show") == 0) {
		if (npos != 1 || a.team)
			return cmd_usage_error(c, "show takes no arguments; it shows every budget");
		return budget_show(c, cfg);
	}
	set = strcmp(argv[0], "set") == 0;
	if (!set && strcmp(argv[0], "unset") != 0)
		return cmd_usage_error(c, "unknown subcommand '%s' (show, set, unset)", argv[0]);
	if (npos != (set ? 3 : 2) || (strcmp(argv[1], "day") != 0 &&
	    strcmp(argv[1], "month") != 0)) {
		if (set)
			return cmd_usage_error(c, "usage: gpurent budget set [--team] day|month "
			    "AMOUNT");
		return cmd_usage_error(c, "usage: gpurent budget unset [--team] day|month");
	}
	day = strcmp(argv[1], "day") == 0;
	if (!a.team && team_profile(cfg)) {
		char me[TEAM_NAME_MAX + 1];

		/* In the team's state, where its watcher reads it too (launch.h). */
		if (session_state(c->s, &st, &err) != GR_OK ||
		    launch_person_budget_set(st, team_user(cfg, me, sizeof(me)), day,
		    set ? argv[2] : NULL, &err) != GR_OK)
			return cmd_error(c, &err);
		return finish_output(c, 0);
	}
	if (!a.team) {
		const char *profile = c->s->profile != NULL && c->s->profile[0] != '\0' ?
		    c->s->profile : NULL;
		const char *key = day ? "budget.day" : "budget.month";

		/* The person's own budget is the selected profile's key: the config's door. */
		rc = set ? config_set(cfg, profile, key, argv[2], &err) :
		    config_unset(cfg, profile, key, &err);
		return rc != GR_OK ? cmd_error(c, &err) : finish_output(c, 0);
	}
	if (!team_profile(cfg))
		return cmd_usage_error(c, "--team needs a team profile (team.name, with the "
		    "team's state.url)");
	if (session_state(c->s, &st, &err) != GR_OK ||
	    launch_team_budget_set(st, day, set ? argv[2] : NULL, &err) != GR_OK)
		return cmd_error(c, &err);
	return finish_output(c, 0);
}

const struct command cmd_budget = {
	.name = "budget",
	.args = "show | set [--team] day|month AMOUNT | unset [--team] day|month",
	.summary = N_("the budgets launches are held against: yours and your team's"),
	.help =
	    N_("show lists the budgets a launch or start is admitted against: budget.day and\n"
	    "budget.month of the profile or, in a team profile (team.name), each person's and\n"
	    "the team's, which are kept in the team's shared state so that every member and\n"
	    "the team's watcher read the same. A person's count only the spend of what they\n"
	    "(team.user) launched or started; the team's count everyone's. A launch is\n"
	    "admitted against all of them under one lock in the shared state, so two people\n"
	    "launching at once cannot both pass a team budget that only one fits under; the\n"
	    "watcher stops (budget.action) a person's instances once their budget is spent,\n"
	    "and everyone's once the team's is.\n"
	    "set and unset change the profile's (as 'gpurent config set budget.day' does) or,\n"
	    "in a team profile, yours in the team's state (the profile's keys are not read\n"
	    "there) or, with --team, the team's. An AMOUNT is money, in US dollars unless a\n"
	    "currency follows (100, 12.50, 300 CNY)."),
	.opts = opts,
	.complete_args = CPL_BUDGET_ARGS,
	.run = budget_run,
};
