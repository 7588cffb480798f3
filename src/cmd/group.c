/*
 * gpurent group: elastic groups (groups.h) that the watcher scales (src/guard/group.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/filter.h"
#include "gpurent/groups.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/output.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	struct group g;
	bool has_env, has_count, has_max, has_target, has_base, burst;
};

enum { G_GPU = 1, G_COUNT, G_MIN, G_MAX, G_TARGET, G_COOLDOWN, G_WINDOW, G_BASE, G_BURST, G_MAX_PRICE, G_ENV };

/* Defaults of a group's timing: a decision at most every 10 minutes, on 10 minutes of load. */
#define GROUP_COOLDOWN_DEFAULT 600
#define GROUP_WINDOW_DEFAULT 600
/* A bound on members that catches a typo before it rents a fleet. */
#define GROUP_MEMBERS_MAX 1000

static const struct cmd_opt opts[] = {
	{ "gpu", 'g', "GPU", N_("create: the GPU of every member (a catalogue name, family or alias)"), G_GPU, CPL_GPU, 0 },
	{ "count", 'c', "N", N_("create: GPUs of each member (default 1)"), G_COUNT, CPL_NONE, 0 },
	{ "min", 0, "N", N_("create: at least N members (default 0)"), G_MIN, CPL_NONE, 0 },
	{ "max", 0, "M", N_("create: at most M members (required)"), G_MAX, CPL_NONE, 0 },
	{ "target-util", 0, "PCT", N_("create: the mean GPU utilisation to hold, 1-100 (required)"), G_TARGET, CPL_NONE, 0 },
	{ "cooldown", 0, "DURATION", N_("create: at least this long between two scaling decisions (default 10m)"), G_COOLDOWN, CPL_NONE, 0 },
	{ "window", 0, "DURATION", N_("create: the mean utilisation is taken over this long (default 10m)"), G_WINDOW, CPL_NONE, 0 },
	{ "base", 0, "N", N_("create: with --burst interruptible, the first N members on-demand (default: --min)"), G_BASE, CPL_NONE, 0 },
	{ "burst", 0, "TYPE", N_("create: interruptible (members above the base) or on-demand (all, the default)"), G_BURST, CPL_BURST, 0 },
	{ "max-price", 0, "PRICE", N_("create: each member at most this much per hour, all in: 2.5 is US dollars, '90 CNY' yuan"), G_MAX_PRICE, CPL_NONE, 0 },
	{ "env", 'e', "K=V", N_("create: an environment variable of every member (repeatable; stored in the state database as given)"), G_ENV, CPL_NONE, OPT_REPEAT },
	{ "predict", 0, NULL, N_("create: also scale out ahead of a peak forecast 15 minutes on from the group's daily pattern (Holt-Winters)"), OPT_AT(struct args, g.predict), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;
	long long v;

	switch (id) {
	case G_GPU:
		if (arg[0] == '\0' || strlen(arg) >= sizeof(a->g.gpu))
			return cmd_usage_error(c, "--gpu needs a GPU name such as H100");
		strlcpy_(a->g.gpu, arg, sizeof(a->g.gpu));
		break;
	case G_COUNT:
		if (!parse_int(arg, 1, 64, &v))
			return cmd_usage_error(c, "--count needs a number of GPUs from 1 to 64");
		a->g.gpus = (int)v;
		a->has_count = true;
		break;
	case G_MIN:
	case G_MAX:
	case G_BASE:
		if (!parse_int(arg, 0, GROUP_MEMBERS_MAX, &v))
			return cmd_usage_error(c, "--%s needs a number of members from 0 to %d",
			    id == G_MIN ? "min" : id == G_MAX ? "max" : "base", GROUP_MEMBERS_MAX);
		if (id == G_MIN)
			a->g.min = (int)v;
		else if (id == G_MAX) {
			a->g.max = (int)v;
			a->has_max = true;
		} else {
			a->g.base = (int)v;
			a->has_base = true;
		}
		break;
	case G_TARGET:
		if (!parse_int(arg, 1, 100, &v))
			return cmd_usage_error(c, "--target-util needs a percentage from 1 to 100");
		a->g.target_util = (int)v;
		a->has_target = true;
		break;
	case G_COOLDOWN:
	case G_WINDOW:
		if ((v = parse_duration(arg)) < 0 || (id == G_WINDOW && v == 0))
			return cmd_usage_error(c, "--%s needs a duration such as 90s, 10m or 1h",
			    id == G_COOLDOWN ? "cooldown" : "window");
		if (id == G_COOLDOWN)
			a->g.cooldown = v;
		else
			a->g.window = v;
		break;
	case G_BURST:
		if (strcmp(arg, "interruptible") == 0)
			a->burst = true;
		else if (strcmp(arg, "on-demand") == 0)
			a->burst = false;
		else
			return cmd_usage_error(c, "--burst is interruptible or on-demand");
		break;
	case G_ENV: {
		size_t len = strlen(a->g.env);
		const char *eq = strchr(arg, '=');

		if (eq == NULL || eq == arg || strchr(arg, '\n') != NULL)
			return cmd_usage_error(c, "--env needs K=V");
		if (len + strlen(arg) + 2 > sizeof(a->g.env))
			return cmd_usage_error(c, "--env: at most %zu bytes of environment",
			    sizeof(a->g.env) - 1);
		snprintf(a->g.env + len, sizeof(a->g.env) - len, "%s%s", len ? "\n" : "", arg);
		a->has_env = true;
		break;
	}
	case G_MAX_PRICE:
		if (!money_parse_in(arg, &a->g.max_price, a->g.max_currency) ||
		    a->g.max_price <= 0)
			return cmd_usage_error(c, "--max-price needs a price per hour such as 2.5 "
			    "(US dollars) or '90 CNY'");
		break;
	}
	return 0;
}

/* CSV columns are positional: a new one goes at the end. */
enum { C_NAME, C_GPU, C_GPUS, C_MIN, C_MAX, C_TARGET, C_MEMBERS, C_COOLDOWN, C_WINDOW, C_BASE,
	C_BURST, C_MAX_PRICE, C_PREDICT, C_ENV, C_LABEL, C_LAST_SCALE, C_CREATED, C_MEMBER_IDS,
	C_CURRENCY, C_PROVIDERS };

static const struct column cols[] = {
	[C_NAME] = { "name", N_("NAME"), false, false, 0, 8 },
	[C_GPU] = { "gpu", N_("GPU"), false, false, 0, 0 },
	[C_GPUS] = { "gpus", N_("N"), true, false, 1, 0 },
	[C_MIN] = { "min", N_("MIN"), true, false, 0, 0 },
	[C_MAX] = { "max", N_("MAX"), true, false, 0, 0 },
	[C_TARGET] = { "target_util", N_("TARGET%"), true, false, 0, 0 },
	[C_MEMBERS] = { "members", N_("MEMBERS"), true, false, 0, 0 },
	[C_COOLDOWN] = { "cooldown_s", N_("COOLDOWN"), true, false, 1, 0 },
	[C_WINDOW] = { "window_s", N_("WINDOW"), true, false, 2, 0 },
	[C_BASE] = { "base", N_("BASE"), true, false, 2, 0 },
	[C_BURST] = { "burst", N_("BURST"), false, false, 2, 0 },
	[C_MAX_PRICE] = { "max_price_hour", N_("MAX/H"), true, false, 2, 0 },
	[C_PREDICT] = { "predict", N_("PREDICT"), false, false, 3, 0 },
	[C_ENV] = { "env", N_("ENV"), false, true, 4, 0 },
	[C_LABEL] = { "label", N_("LABEL"), false, true, 3, 0 },
	[C_LAST_SCALE] = { "last_scale_at", N_("LAST SCALED"), false, false, 3, 0 },
	[C_CREATED] = { "created_at", N_("CREATED"), false, true, 3, 0 },
	[C_MEMBER_IDS] = { "member_ids", N_("MEMBER IDS"), false, true, 4, 12 },
	[C_CURRENCY] = { "currency", N_("CURRENCY"), false, true, 6, 0 },	/* the sign says it */
	[C_PROVIDERS] = { "providers", N_("PROVIDERS"), false, false, 3, 0 },
};

/* A group with what the providers list of its members. */
struct group_row {
	struct group g;
	char label[LABEL_MAX];
	char env[GROUP_ENV_MAX];	/* the K=V lines */
	int members;			/* -1: unknown (the listing failed) */
	char member_ids[1024];		/* one a line */
};

static void
cell(const void *row, size_t c, struct cell *out, void *ctx)
{
	const struct group_row *r = row;
	const struct group *g = &r->g;

	out->kind = CELL_INT;
	switch (c) {
	case C_NAME: out->kind = CELL_STR; out->s = g->name; break;
	case C_GPU: out->kind = CELL_STR; out->s = g->gpu; break;
	case C_GPUS: out->i = g->gpus; break;
	case C_MIN: out->i = g->min; break;
	case C_MAX: out->i = g->max; break;
	case C_TARGET: out->i = g->target_util; break;
	case C_MEMBERS:
		if (r->members < 0)
			out->kind = CELL_NULL;
		out->i = r->members;
		break;
	case C_COOLDOWN: out->kind = CELL_DURATION; out->i = g->cooldown; break;
	case C_WINDOW: out->kind = CELL_DURATION; out->i = g->window; break;
	case C_BASE:
		if (g->base < 0)
			out->kind = CELL_NULL;
		out->i = g->base;
		break;
	case C_BURST:
		out->kind = CELL_STR;
		out->s = g->base < 0 ? "on-demand" : "interruptible";
		break;
	case C_MAX_PRICE:
		if (g->max_price < 0)
			out->kind = CELL_NULL;
		else {
			out->kind = CELL_MONEY;
			out->s = money_currency(g->max_currency);
			out->i = g->max_price;
		}
		break;
	case C_CURRENCY: out->kind = CELL_STR; out->s = money_currency(g->max_currency); break;
	case C_PROVIDERS:
		/* "": every provider the watcher uses. */
		cell_str(out, g->providers);
		break;
	case C_PREDICT: out->kind = CELL_BOOL; out->i = g->predict; break;
	case C_ENV: out->kind = CELL_MAP; out->s = r->env; break;
	case C_LABEL: out->kind = CELL_STR; out->s = r->label; break;
	case C_LAST_SCALE:
		out->kind = g->last_scale_at ? CELL_TIME : CELL_NULL;
		out->i = g->last_scale_at;
		break;
	case C_CREATED: out->kind = CELL_TIME; out->i = g->created_at; break;
	default:
		/* unknown, as their count, when the listing failed */
		out->kind = r->members < 0 ? CELL_NULL : CELL_LIST;
		out->s = r->member_ids;
		break;
	}
}

/* Count each group's members among the instances the providers list (not destroyed). */
static void
count_members(struct cmd_ctx *c, struct group_row *rows, size_t n)
{
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct instance_list l;
	struct gr_error err = { 0 };
	enum gr_err rc;
	size_t i, k;

	for (i = 0; i < n; i++) {
		group_label(rows[i].label, sizeof(rows[i].label), rows[i].g.name);
		rows[i].members = -1;
	}
	if (session_backends(c->s, &err) != GR_OK) {
		cmd_warn("%s (members not counted)\n", err.msg);
		return;
	}
	memset(res, 0, sizeof(res));
	instance_list_init(&l);
	rc = session_instances(c->s, &l, res, &err);
	if (rc != GR_OK && rc != GR_EPARTIAL) {
		cmd_warn("%s (members not counted)\n", err.msg);
		instance_list_release(&l);
		return;
	}
	if (rc == GR_EPARTIAL)
		report_fanout(c, res, c->s->n_backends);
	for (i = 0; i < n; i++) {
		rows[i].members = 0;
		for (k = 0; k < l.n; k++) {
			size_t len = strlen(rows[i].member_ids);

			if (l.v[k].state == ST_DESTROYED || strcmp(l.v[k].label, rows[i].label) != 0)
				continue;
			rows[i].members++;
			snprintf(rows[i].member_ids + len, sizeof(rows[i].member_ids) - len, "%s%s",
			    len ? "\n" : "", l.v[k].id);
		}
	}
	instance_list_release(&l);
}

static int
print_rows(struct cmd_ctx *c, struct group_row *rows, size_t n)
{
	count_members(c, rows, n);
	return cmd_print(c, cols, ARRAY_LEN(cols), C_NAME, rows, n, sizeof(*rows), cell, NULL, 0);
}

/* Whether the filter term FIELD=VALUE parses, as the watcher will parse it; a usage error
 * in the filter's words when not, after "OPTION: " unless option is NULL. */
static int
check_term(struct cmd_ctx *c, const char *option, const char *field, const char *value)
{
	struct gr_error err = { 0 };
	char *term = xasprintf("%s=%s", field, value);
	struct filter f;
	enum gr_err rc;

	memset(&f, 0, sizeof(f));
	rc = filter_parse(&f, 1, &term, &err);
	free(term);
	if (rc == GR_OK)
		return 0;
	return option != NULL ? cmd_usage_error(c, "%s: %s", option, err.msg) :
	    cmd_usage_error(c, "%s", err.msg);
}

static int
group_create(struct cmd_ctx *c, struct state *st, struct args *a, const char *name)
{
	struct gr_error err = { 0 };
	size_t i;

	if (a->g.gpu[0] == '\0')
		return cmd_usage_error(c, "create needs --gpu: the GPU of every member");
	/* The watcher asks for gpu=GPU: refused now as launch --gpu refuses it, not at its
	 * every pass. */
	if (check_term(c, NULL, "gpu", a->g.gpu) != 0)
		return EXIT_USAGE;
	if (!a->has_max && !a->has_target)
		return cmd_usage_error(c, "create needs --max and --target-util: the most "
		    "members and the mean GPU utilisation to hold");
	if (!a->has_max)
		return cmd_usage_error(c, "create needs --max too: the most members");
	if (!a->has_target)
		return cmd_usage_error(c, "create needs --target-util too: the mean GPU "
		    "utilisation to hold, 1-100");
	if (a->g.max < 1 || a->g.min > a->g.max)
		return cmd_usage_error(c, "--min %d and --max %d: needs 0 <= min <= max and max >= 1",
		    a->g.min, a->g.max);
	if (a->has_base && !a->burst)
		return cmd_usage_error(c, "--base says how many members are on-demand when the "
		    "rest burst: give --burst interruptible too");
	if (!a->burst)
		a->g.base = -1;
	else if (!a->has_base)
		a->g.base = a->g.min;
	else if (a->g.base > a->g.max)
		return cmd_usage_error(c, "--base %d is more than --max %d", a->g.base, a->g.max);
	/* -p keeps the group on those providers (checked now, not at the watcher's pass). */
	for (i = 0; i < c->s->n_providers; i++) {
		size_t len = strlen(a->g.providers);

		if (len + strlen(c->s->providers[i]) + 2 > sizeof(a->g.providers))
			return cmd_usage_error(c, "too many providers for a group");
		snprintf(a->g.providers + len, sizeof(a->g.providers) - len, "%s%s",
		    len ? "," : "", c->s->providers[i]);
	}
	if (a->g.providers[0] && check_term(c, "-p", "provider", a->g.providers) != 0)
		return EXIT_USAGE;
	strlcpy_(a->g.name, name, sizeof(a->g.name));
	a->g.created_at = session_now(c->s);
	if (groups_create(st, &a->g, &err) != GR_OK)
		return err.code == GR_EUSAGE ? cmd_usage_error(c, "%s", err.msg) : cmd_error(c, &err);
	if (c->s->interactive && out_global.format == OUT_TABLE)
		fprintf(stderr, _("group %s: %d to %d %s, held near %d%% GPU utilisation by gpurent "
		    "watch\n"), name, a->g.min, a->g.max, a->g.gpu, a->g.target_util);
	fprintf(c->out, "%s\n", name);
	return finish_output(c, 0);
}

static int
group_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a;
	struct gr_error err = { 0 };
	struct group_row *rows = NULL;
	struct group *v = NULL;
	struct state *st;
	size_t n = 0, i;
	int rc, npos;
	const char *sub;

	memset(&a, 0, sizeof(a));
	a.g.gpus = 1;
	a.g.cooldown = GROUP_COOLDOWN_DEFAULT;
	a.g.window = GROUP_WINDOW_DEFAULT;
	a.g.max_price = -1;
	if (!cmd_parse_args(c, argc, argv, handle, &a,
	    N_("say create, ls, show or rm"), &npos, &rc))
		return rc;
	sub = argv[0];
	if (strcmp(sub, "ls") != 0 && strcmp(sub, "create") != 0 && strcmp(sub, "show") != 0 &&
	    strcmp(sub, "rm") != 0)
		return cmd_usage_error(c, "unknown subcommand '%s' (create, ls, show, rm)", sub);
	if (strcmp(sub, "create") != 0 && (a.g.gpu[0] || a.g.predict || a.has_env || a.has_count || a.has_max || a.has_target ||
	    a.has_base || a.burst || a.g.max_price >= 0 || a.g.min))
		return cmd_usage_error(c, "the options of a group's definition go with create");
	if (strcmp(sub, "ls") == 0 ? npos != 1 : npos != 2)
		return cmd_usage_error(c, strcmp(sub, "ls") == 0 ? N_("ls takes no arguments") :
		    N_("%s takes one group name"), sub);
	if (npos == 2 && !group_name_valid(argv[1])) {
		char shown[64];

		return cmd_usage_error(c, "'%s' is not a group name: 1 to %d letters, digits, '.', "
		    "'_' or '-', starting with a letter or digit", text_sanitize(shown,
		    sizeof(shown), argv[1]), GROUP_NAME_MAX - 1);
	}
	if (session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	if (strcmp(sub, "create") == 0)
		return group_create(c, st, &a, argv[1]);
	if (strcmp(sub, "rm") == 0) {
		if (groups_remove(st, argv[1], &err) != GR_OK)
			return cmd_error(c, &err);
		if (c->s->interactive && out_global.format == OUT_TABLE)
			fprintf(stderr, _("group %s removed; its members run on, labelled %s%s\n"),
			    argv[1], GROUP_LABEL_PREFIX, argv[1]);
		return finish_output(c, 0);
	}
	if (strcmp(sub, "show") == 0) {
		v = xcalloc(1, sizeof(*v));
		n = 1;
		if (groups_get(st, argv[1], v, &err) != GR_OK) {
			free(v);
			return cmd_error(c, &err);
		}
	} else if (groups_load(st, &v, &n, &err) != GR_OK)
		return cmd_error(c, &err);
	rows = xcalloc(n + 1, sizeof(*rows));
	for (i = 0; i < n; i++) {
		rows[i].g = v[i];
		strlcpy_(rows[i].env, v[i].env, sizeof(rows[i].env));
	}
	free(v);
	rc = print_rows(c, rows, n);
	free(rows);
	return rc;
}

const struct command cmd_group = {
	.name = "group",
	.args = "create NAME | ls | show NAME | rm NAME",
	.summary = N_("elastic groups that gpurent watch scales with their load"),
	.help =
	    N_("A group is between --min and --max instances of one GPU, held near a target mean\n"
	    "GPU utilisation: each pass of gpurent watch launches one more member (by\n"
	    "requirement, as launch --gpu does) when the group's mean utilisation over the\n"
	    "window is above 1.2 x the target, and destroys the least used member when it is\n"
	    "below 0.8 x the target, never beyond --min or --max nor the budget, and never two\n"
	    "decisions within --cooldown. Members below --min, or lost to preemption, are\n"
	    "replaced. Members are the instances labelled group:NAME (ls --group NAME).\n"
	    "With --burst interruptible, the first --base members are on-demand and the rest\n"
	    "interruptible. With --predict, a Holt-Winters forecast of the group's daily\n"
	    "pattern 15 minutes on also scales it out ahead of a peak. rm forgets the group;\n"
	    "its members run on. 'gpurent -p ppio group create ...' keeps the group's members\n"
	    "on the providers given; offers of several currencies are compared only at your\n"
	    "fx.CODE rates."),
	.opts = opts,
	.complete_args = CPL_GROUP_ARGS,
	.run = group_run,
};
