/*
 * gpurent guard: the instance guard's agent (guard_agent.h): install, status, remove.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/guard_agent.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	const char *label;
	const char *until;
	const char *max_cost;
	bool dry_run, with_key, yes;
};

static const struct cmd_opt opts[] = {
	{ "label", 'l', "LABEL", N_("every running instance with this label, instead of ids"), OPT_AT(struct args, label), CPL_NONE, OPT_STR },
	{ "until", 0, "TIME", N_("stop the instance at TIME: a duration from now (8h) or a UTC date or time (RFC 3339)"), OPT_AT(struct args, until), CPL_NONE, OPT_STR },
	{ "max-cost", 0, "MONEY", N_("stop the instance once it has cost this much, in its own currency"), OPT_AT(struct args, max_cost), CPL_NONE, OPT_STR },
	{ "dry-run", 'n', NULL, N_("print the agent's script; install nothing"), OPT_AT(struct args, dry_run), CPL_NONE, OPT_TRUE },
	{ "with-key", 0, NULL, N_("PPIO, Lambda: put your account's API key on the instance (mode 0600) for the agent"), OPT_AT(struct args, with_key), CPL_NONE, OPT_TRUE },
	{ "yes", 'y', NULL, N_("do not ask before a guard that terminates (Lambda); needed when stdin is not a terminal"), OPT_AT(struct args, yes), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

struct row {
	char id[ID_MAX];
	struct guard_journal j;
};

enum { C_ID, C_AGENT, C_HEARTBEAT, C_VERDICT, C_UTIL, C_NEXT, C_NEXT_IN, C_SPENT, C_CURRENCY };

static const struct column cols[] = {
	[C_ID] = { "id", N_("ID"), false, false, 0, 0 },
	[C_AGENT] = { "agent", N_("AGENT"), false, false, 0, 0 },
	[C_HEARTBEAT] = { "heartbeat_age_s", N_("HEARTBEAT"), true, false, 0, 0 },
	[C_VERDICT] = { "verdict", N_("VERDICT"), false, false, 0, 0 },
	[C_UTIL] = { "util_pct", N_("UTIL%"), true, false, 1, 0 },
	[C_NEXT] = { "next", N_("NEXT"), false, false, 1, 0 },
	[C_NEXT_IN] = { "next_in_s", N_("IN"), true, false, 1, 0 },
	[C_SPENT] = { "spent", N_("SPENT"), true, false, 2, 0 },
	[C_CURRENCY] = { "currency", N_("CURRENCY"), false, true, 6, 0 },	/* the sign says it */
};

/* running, stale (beats no more), gone (no process), none (nothing installed). */
static const char *
agent_word(const struct guard_journal *j)
{
	if (!j->installed)
		return "none";
	if (!j->alive)
		return "gone";
	if (j->heartbeat_age < 0 || j->heartbeat_age > GUARD_STALE_ROUNDS * j->interval + GUARD_STALE_MARGIN)
		return "stale";
	return "running";
}

static void
num_cell(struct cell *out, int64_t v)
{
	if (v < 0)
		out->kind = CELL_NULL;
	else {
		out->kind = CELL_INT;
		out->i = v;
	}
}

static void
cell(const void *row, size_t c, struct cell *out, void *ctx)
{
	const struct row *r = row;
	const char *w;

	switch (c) {
	case C_ID: cell_str(out, r->id); break;
	case C_AGENT:
		w = agent_word(&r->j);
		cell_str(out, w);
		out->color = strcmp(w, "running") == 0 ? OC_GOOD : OC_BAD;
		break;
	case C_HEARTBEAT: num_cell(out, r->j.heartbeat_age); break;
	case C_VERDICT: cell_str(out, r->j.verdict); break;
	case C_UTIL: num_cell(out, r->j.util); break;
	case C_NEXT: cell_str(out, r->j.next); break;
	case C_NEXT_IN: num_cell(out, r->j.next[0] != '\0' ? r->j.next_in : -1); break;
	case C_CURRENCY: cell_str(out, r->j.currency); break;
	default:
		if (r->j.spent < 0 || r->j.currency[0] == '\0')
			out->kind = CELL_NULL;
		else {
			out->kind = CELL_MONEY;
			out->i = r->j.spent;
			out->s = r->j.currency;
			out->decimals = 4;
		}
		break;
	}
}

/* The instances the command names: its ids, or those labelled --label. */
static int
targets(struct cmd_ctx *c, const struct args *a, int npos, char **argv,
    struct instance_list *out, int *partial)
{
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct gr_error err = { 0 };
	struct instance_list all;
	enum gr_err e;
	size_t i;
	int k, rc;

	instance_list_init(out);
	*partial = 0;
	if (a->label == NULL && npos > 0) {
		for (k = 0; k < npos; k++)
			strlcpy_(instance_list_add(out)->id, argv[k], ID_MAX);
		return 0;
	}
	if (npos > 0)
		return cmd_usage_error(c, "give instance ids or --label, not both");
	/* --label: its running instances; neither (status): every one the guard can stop. */
	instance_list_init(&all);
	e = session_instances(c->s, &all, res, &err);
	/* A provider that could not list is named; the others' instances go on. */
	if ((rc = fanout_outcome(c, res, e, &err, partial)) >= 0) {
		instance_list_release(&all);
		return rc;
	}
	for (i = 0; i < all.n; i++)
		if (all.v[i].state == ST_RUNNING && (a->label != NULL ?
		    strcmp(all.v[i].label, a->label) == 0 : guard_agent_can_stop(all.v[i].provider)))
			*instance_list_add(out) = all.v[i];
	instance_list_release(&all);
	if (out->n == 0 && a->label != NULL) {
		gr_fail(&err, GR_ENOTFOUND, "no running instance is labelled '%s'", a->label);
		return cmd_error(c, &err);
	}
	return 0;
}

/* What the agent holds, said on stderr after an install. */
static void
say_policies(const struct guard_agent *g)
{
	char m1[48], m2[48], m3[48];

	fprintf(stderr, _("%s: guard installed (a sample every %llds)"), g->id,
	    (long long)g->interval);
	if (g->idle_after > 0)
		fprintf(stderr, _("; stops it idle %llds at %d%% or less"),
		    (long long)g->idle_after, g->idle_threshold);
	if (g->runtime_max > 0 && g->started > 0)
		fprintf(stderr, _("; stops it %llds after its start"), (long long)g->runtime_max);
	if (g->until > 0) {
		time_t t = (time_t)g->until;
		struct tm tm;
		char when[32];

		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
		fprintf(stderr, _("; stops it at %s"), when);
	}
	if (g->max_cost > 0)
		fprintf(stderr, _("; stops it at a cost of %s (%s so far, %s an hour)"),
		    money_format_in(m1, sizeof(m1), g->max_cost, 4, g->currency),
		    money_format_in(m2, sizeof(m2), g->spent, 4, g->currency),
		    money_format_in(m3, sizeof(m3), g->price, 4, g->currency));
	if (g->idle_after == 0 && g->runtime_max == 0 && g->until == 0 && g->max_cost == 0)
		fputs(_("; no policy is set, so it only watches"), stderr);
	fputc('\n', stderr);
	if (g->with_key)
		fprintf(stderr, _("%s: your %s API key is on the instance in "
		    "~/.gpurent-guard/%s/key (mode 0600): whoever controls the machine can read it "
		    "and act on your whole account; guard remove deletes it. What holds: the "
		    "agent %s the instance through the API on the policies above, and gpurent "
		    "watch on this machine while it runs\n"), g->id, g->provider, g->dir_name,
		    g->terminates ? _("terminates (the disk is lost)") : _("stops"));
}

/* A guard that terminates: asked on a terminal, refused elsewhere without --yes. */
static enum gr_err
terminate_agreed(const struct guard_agent *g, struct gr_error *err)
{
	if (!isatty(STDIN_FILENO))
		return gr_fail(err, GR_EUSAGE, "%s has no stop, so its guard would terminate "
		    "it and its disk would be lost: say --yes to install it anyway", g->provider);
	fprintf(stderr, _("%s has no stop: the guard terminates %s when a policy acts, and its "
	    "disk is lost.\n"), g->provider, g->id);
	if (!cmd_confirm("Install the guard on %s?", g->id))
		return gr_fail(err, GR_EUSAGE, "nothing was installed on %s", g->id);
	return GR_OK;
}

/* What install does to each instance. */
struct install_ctx {
	const struct args *a;
	int64_t until, max_cost;
	char currency[CURRENCY_MAX];
};

enum gr_err
cmd_guard_install(struct cmd_ctx *c, const char *id, int64_t until, int64_t max_cost,
    const char *currency, unsigned flags, struct gr_error *err)
{
	struct guard_agent g;
	char *script;

	if (guard_agent_plan(c->s, id, until, max_cost, currency, flags & AGENT_WITH_KEY, &g,
	    err) != GR_OK)
		return err->code;
	if (flags & AGENT_DRY_RUN) {
		script = guard_agent_script(&g);
		fputs(script, c->out);
		free(script);
		return GR_OK;
	}
	if ((g.terminates && !(flags & AGENT_YES) && terminate_agreed(&g, err) != GR_OK) ||
	    guard_agent_install(c->s, &g, err) != GR_OK)
		return err->code;
	say_policies(&g);
	return GR_OK;
}

static enum gr_err
install_one(struct cmd_ctx *c, struct backend *b, const char *id, struct gr_error *err,
    void *data)
{
	const struct install_ctx *x = data;
	unsigned flags = (x->a->dry_run ? AGENT_DRY_RUN : 0) |
	    (x->a->with_key ? AGENT_WITH_KEY : 0) | (x->a->yes ? AGENT_YES : 0);

	(void)b;
	if (cmd_guard_install(c, id, x->until, x->max_cost, x->currency, flags, err) != GR_OK)
		return err->code;
	if (!x->a->dry_run)
		fprintf(c->out, "%s\n", id);
	return GR_OK;
}

static enum gr_err
remove_one(struct cmd_ctx *c, struct backend *b, const char *id, struct gr_error *err,
    void *data)
{
	(void)b;
	(void)data;
	if (guard_agent_remove(c->s, id, err) != GR_OK)
		return err->code;
	fprintf(c->out, "%s\n", id);
	return GR_OK;
}

/* install or remove on each of ids. */
static int
each(struct cmd_ctx *c, const struct instance_list *ids, id_op op, void *data)
{
	char **v = xcalloc(ids->n + 1, sizeof(*v));
	size_t i;
	int rc;

	for (i = 0; i < ids->n; i++)
		v[i] = ids->v[i].id;
	rc = for_each_id(c, (int)ids->n, v, op, data);
	free(v);
	return finish_output(c, rc);
}

static int
install(struct cmd_ctx *c, const struct args *a, const struct instance_list *ids)
{
	struct install_ctx x = { a, 0, 0, "USD" };
	int64_t now = session_now(c->s);

	if (a->until != NULL && (!parse_ahead(a->until, now, &x.until) || x.until <= now))
		return cmd_usage_error(c, "--until wants a duration from now (8h) or a time to "
		    "come (2026-12-24T18:00:00Z), not '%s'", a->until);
	if (a->max_cost != NULL && (!money_parse_in(a->max_cost, &x.max_cost, x.currency) ||
	    x.max_cost <= 0))
		return cmd_usage_error(c, "--max-cost wants an amount above 0 (12.50, 80 CNY), not "
		    "'%s'", a->max_cost);
	return each(c, ids, install_one, &x);
}

static int
status_(struct cmd_ctx *c, const struct instance_list *ids)
{
	struct gr_error err = { 0 };
	struct row *rows = xcalloc(ids->n + 1, sizeof(*rows));
	size_t i, n = 0;
	int status = 0;

	for (i = 0; i < ids->n; i++) {
		err = (struct gr_error){ 0 };
		if (guard_agent_read(c->s, ids->v[i].id, ids->v[i].label, &rows[n].j, &err) !=
		    GR_OK) {
			status = cmd_error(c, &err);
			continue;
		}
		strlcpy_(rows[n].id, ids->v[i].id, sizeof(rows[n].id));
		n++;
	}
	if (n > 0 && n < ids->n)
		status = EXIT_PARTIAL;
	status = cmd_print(c, cols, ARRAY_LEN(cols), C_ID, rows, n, sizeof(*rows), cell, NULL,
	    status);
	free(rows);
	return status;
}

static int
guard_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { 0 };
	struct instance_list ids;
	const char *sub;
	int rc, npos, partial;

	rc = cmd_parse(c, argc, argv, NULL, &a, &npos);
	if (rc != 0 || npos < 0)
		return rc;
	if (npos == 0)
		return cmd_usage_error(c, "say install, status or remove");
	sub = argv[0];
	if (strcmp(sub, "install") != 0 && strcmp(sub, "status") != 0 &&
	    strcmp(sub, "remove") != 0)
		return cmd_usage_error(c, "unknown subcommand '%s' (install, status, remove)", sub);
	if (strcmp(sub, "install") != 0 && (a.until != NULL || a.max_cost != NULL || a.dry_run ||
	    a.with_key || a.yes))
		return cmd_usage_error(c, "--until, --max-cost, --dry-run, --with-key and --yes go "
		    "with install");
	if (npos == 1 && a.label == NULL && strcmp(sub, "status") != 0)
		return cmd_usage_error(c, "%s wants instance ids or --label", sub);
	if ((rc = targets(c, &a, npos - 1, argv + 1, &ids, &partial)) != 0)
		return rc;
	if (strcmp(sub, "install") == 0)
		rc = install(c, &a, &ids);
	else if (strcmp(sub, "remove") == 0)
		rc = each(c, &ids, remove_one, NULL);
	else
		rc = status_(c, &ids);
	instance_list_release(&ids);
	return rc == 0 ? partial : rc;
}

const struct command cmd_guard = {
	.name = "guard",
	.args = "install ID... | status [ID...] | remove ID...",
	.summary = N_("an agent on the instance that stops it when this machine cannot"),
	.help =
	    N_("install puts a small sh agent on each instance over ssh, started detached (and\n"
	    "again at boot where crontab exists), that samples its GPUs every guard.interval\n"
	    "and stops the instance through the provider's API with the instance's own\n"
	    "credential, with no connection to this machine: idle.after and idle.threshold\n"
	    "and runtime.max of the instance's label, --until and --max-cost. It never gives\n"
	    "an idle verdict without a GPU reading. Installing again replaces the agent.\n"
	    "vast.ai and RunPod give each instance such a credential. PPIO and Lambda do\n"
	    "not: there install is refused unless --with-key puts your account's API key on\n"
	    "the instance (~/.gpurent-guard/PROVIDER-ID/key, mode 0600, sent over ssh's\n"
	    "stdin, never printed; --dry-run shows where). Whoever controls that machine can\n"
	    "read it. Lambda has no stop, so its guard terminates the instance and the disk\n"
	    "is lost: install asks on a terminal and wants --yes elsewhere. On Slurm the\n"
	    "agent cancels the job with scancel from its node, and the job's own --time is\n"
	    "its deadline (--until is refused). Other providers are refused. status reads each agent's journal over ssh (its last sample, verdict,\n"
	    "what acts next and in how many seconds, its heartbeat's age), of every running\n"
	    "instance the guard can stop unless ids or --label say which, and records its\n"
	    "new decisions as events (gpurent events). remove stops the agent and deletes it."),
	.opts = opts,
	.complete_args = CPL_INSTANCE,
	.run = guard_run,
};
