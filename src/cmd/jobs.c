/*
 * gpurent jobs: the recorded jobs, with their state read from their instances.
 */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/managed.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"
#include "batch.h"

/*
 * Plain `jobs` lists the runs and, after them, the managed jobs (KIND managed; a run that is
 * a managed job's attempt is KIND attempt) under the columns of both kinds: those a row's
 * kind has not are null.
 */
static const struct column cols[] = {
	{ "id", N_("JOB"), false, false, 0, 0 },
	{ "kind", N_("KIND"), false, false, 1, 0 },
	{ "name", N_("NAME"), false, false, 2, 8 },
	{ "instance", N_("INSTANCE"), false, true, 3, 0 },
	{ "state", N_("STATE"), false, false, 0, 0 },
	{ "exit_code", N_("EXIT"), true, false, 0, 0 },
	{ "started", N_("STARTED"), false, false, 1, 0 },
	{ "command", N_("COMMAND"), false, false, 2, 12 },
	{ "then", N_("THEN"), false, true, 3, 0 },
	{ "account", N_("AFTER"), false, false, 3, 16 },
	{ "attempt", N_("ATTEMPT"), true, false, 2, 0 },
	{ "checkpoint_age", N_("CHECKPOINT AGE"), true, false, 3, 0 },
	{ "recoveries", N_("RECOVERIES"), true, false, 3, 0 },
	{ "lost", N_("LOST"), true, false, 3, 0 },
	{ "cost", N_("COST"), true, false, 1, 0 },
	{ "user", N_("USER"), false, false, 2, 8 },	/* last: team_view_columns */
};
enum { COL_ID, COL_KIND, COL_NAME, COL_INSTANCE, COL_STATE, COL_EXIT, COL_STARTED,
	COL_COMMAND, COL_THEN, COL_AFTER, COL_ATTEMPT, COL_CKPT_AGE, COL_RECOVERIES, COL_LOST,
	COL_COST, COL_USER };

/* A row of plain `jobs`: a run, or a managed job (m). */
struct listed {
	const struct remote_job *run;
	const struct managed_row *m;
	const char *kind;
};

static void managed_cell(const void *row, size_t col, struct cell *c, void *ctx);

static void
run_cell(const struct remote_job *j, size_t col, struct cell *c)
{
	switch (col) {
	case COL_ID: c->s = j->id; break;
	case COL_NAME: cell_str(c, j->name); break;
	case COL_INSTANCE: c->s = j->instance_id; break;
	case COL_STATE: c->s = remote_job_state_name(j->state); break;
	case COL_EXIT:
		c->kind = j->state != JOB_RUNNING && j->exit_code >= 0 ? CELL_INT : CELL_NULL;
		c->i = j->exit_code;
		break;
	case COL_STARTED: c->kind = CELL_TIME; c->i = j->started_at; break;
	case COL_COMMAND: c->s = j->command; break;
	case COL_THEN: cell_str(c, j->then_action); break;
	case COL_AFTER: cell_str(c, j->account); break;
	case COL_USER: cell_str(c, j->user); break;
	default: c->kind = CELL_NULL; break;
	}
}

/* A managed job's cell: its own, or one of managed_cols' (the figures). */
static void
managed_listed_cell(const struct managed_row *m, size_t col, struct cell *c)
{
	static const size_t figure[] = { [COL_STATE] = 1, [COL_ATTEMPT] = 2,
		[COL_CKPT_AGE] = 3, [COL_RECOVERIES] = 4, [COL_LOST] = 5, [COL_COST] = 6,
		[COL_EXIT] = 7, [COL_AFTER] = 8 };

	switch (col) {
	case COL_ID: c->s = m->j.id; break;
	case COL_NAME: cell_str(c, m->name); break;
	case COL_INSTANCE: cell_str(c, m->instance); break;
	case COL_STARTED: c->kind = CELL_TIME; c->i = m->j.created_at; break;
	case COL_COMMAND: c->s = m->command; break;
	case COL_THEN: c->s = m->then_stop ? "stop" : "destroy"; break;
	case COL_USER: cell_str(c, m->j.user); break;
	default: managed_cell(m, figure[col], c, NULL); break;
	}
}

static void
cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct listed *l = row;

	c->kind = CELL_STR;
	if (col == COL_KIND)
		c->s = l->kind;
	else if (l->m != NULL)
		managed_listed_cell(l->m, col, c);
	else
		run_cell(l->run, col, c);
}

/* ---------------------------------------------------------------- managed jobs */

struct jobs_args {
	bool managed;
	bool mine;
};

static const struct cmd_opt opts[] = {
	{ "managed", 'm', NULL, N_("list only the managed jobs (run --managed), with their own columns"), OPT_AT(struct jobs_args, managed), CPL_NONE, OPT_TRUE },
	{ "mine", 0, NULL, N_("only the jobs you ran (team.user; in a personal profile, all of them)"), OPT_AT(struct jobs_args, mine), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static const struct column managed_cols[] = {
	{ "id", N_("JOB"), false, false, 0, 0 },
	{ "state", N_("STATE"), false, false, 0, 0 },
	{ "attempt", N_("ATTEMPT"), true, false, 0, 0 },
	{ "checkpoint_age", N_("CHECKPOINT AGE"), true, false, 1, 0 },
	{ "recoveries", N_("RECOVERIES"), true, false, 1, 0 },
	{ "lost", N_("LOST"), true, false, 1, 0 },
	{ "cost", N_("COST"), true, false, 0, 0 },
	{ "exit_code", N_("EXIT"), true, false, 2, 0 },
	{ "why", N_("NOTE"), false, false, 3, 16 },
	{ "user", N_("USER"), false, false, 2, 8 },	/* last: team_view_columns */
};

static void
managed_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct managed_row *m = row;

	c->kind = CELL_STR;
	switch (col) {
	case 0: c->s = m->j.id; break;
	case 1: c->s = managed_state_name(m->j.state); break;
	case 2: c->kind = CELL_INT; c->i = m->j.attempt; break;
	case 3: c->kind = m->ckpt_age >= 0 ? CELL_DURATION : CELL_NULL; c->i = m->ckpt_age; break;
	case 4: c->kind = CELL_INT; c->i = m->j.recoveries; break;
	case 5: c->kind = CELL_DURATION; c->i = m->lost_s; break;
	case 6:
		c->kind = m->cost_known ? CELL_MONEY : CELL_NULL;
		c->i = m->cost;
		c->s = m->currency;
		c->decimals = 4;
		break;
	case 7:
		c->kind = m->j.ended_at != 0 && m->j.exit_code >= 0 ? CELL_INT : CELL_NULL;
		c->i = m->j.exit_code;
		break;
	case 9: cell_str(c, m->j.user); break;
	default: cell_str(c, m->j.why); break;
	}
}

static const struct column attempt_cols[] = {
	{ "attempt", N_("ATTEMPT"), true, false, 0, 0 },
	{ "provider", N_("PROVIDER"), false, false, 2, 0 },
	{ "instance", N_("INSTANCE"), false, false, 0, 0 },
	{ "gpu", N_("GPU"), false, false, 1, 0 },
	{ "price_hour", N_("PRICE/H"), true, false, 1, 0 },
	{ "started", N_("STARTED"), false, false, 1, 0 },
	{ "ended", N_("ENDED"), false, false, 1, 0 },
	{ "lost", N_("LOST"), true, false, 2, 0 },
	{ "cost", N_("COST"), true, false, 0, 0 },
	{ "job", N_("RUN"), false, true, 3, 0 },
	{ "why", N_("WHY IT ENDED"), false, false, 2, 16 },
};

/* An attempt as listed: its record and its provider (its instance id's prefix). */
struct attempt_row {
	struct managed_attempt a;
	char provider[ID_MAX];
};

static void
attempt_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct attempt_row *ar = row;
	const struct managed_attempt *a = &ar->a;

	c->kind = CELL_STR;
	switch (col) {
	case 0: c->kind = CELL_INT; c->i = a->n; break;
	case 1: cell_str(c, ar->provider); break;
	case 2: cell_str(c, a->instance_id); break;
	case 3: cell_str(c, a->gpu); break;
	case 4:
		c->kind = a->price_hour >= 0 ? CELL_MONEY : CELL_NULL;
		c->i = a->price_hour;
		c->s = a->currency;
		c->decimals = 3;
		break;
	case 5: c->kind = CELL_TIME; c->i = a->started_at; break;
	case 6: c->kind = a->ended_at ? CELL_TIME : CELL_NULL; c->i = a->ended_at; break;
	case 7: c->kind = CELL_DURATION; c->i = a->lost_s; break;
	case 8:
		/* What the ledger billed: the current attempt's is filled in to now. */
		c->kind = a->cost >= 0 && a->instance_id[0] ? CELL_MONEY : CELL_NULL;
		c->i = a->cost;
		c->s = a->currency;
		c->decimals = 4;
		break;
	case 9: cell_str(c, a->remote_job); break;
	default: cell_str(c, a->end); break;
	}
}

/* The managed jobs (all, or one: want), with their figures. */
static int
list_managed(struct cmd_ctx *c, const char *want, bool mine)
{
	struct gr_error err = { 0 };
	struct managed_row *rows;
	struct team_view tv;
	size_t k, i, n;
	int rc;

	if (managed_rows(c->s, want, time(NULL), &rows, &n, &err) != GR_OK)
		return cmd_error(c, &err);
	cmd_team_view(c, mine, &tv);
	for (i = k = 0; i < n; i++)
		if (team_view_keeps(&tv, rows[i].j.user))
			rows[k++] = rows[i];
	/* A team's list says who started each job, as plain jobs does. */
	rc = out_print(c->out, &out_global, managed_cols, team_view_columns(&tv,
	    ARRAY_LEN(managed_cols)), 0, rows, k, sizeof(*rows), managed_cell, NULL, &err) ==
	    GR_OK ? 0 : cmd_error(c, &err);
	free(rows);
	return rc != 0 ? rc : finish_output(c, 0);
}

/* jobs show JOB: every attempt of a managed job. */
static int
show_attempts(struct cmd_ctx *c, struct state *st, const char *id)
{
	struct gr_error err = { 0 };
	struct managed_attempt *v = NULL;
	struct attempt_row *rows;
	struct managed_job j;
	int64_t cost;
	char cur[CURRENCY_MAX];
	const char *colon;
	size_t n, i;
	int rc;

	if (managed_job_get(st, id, &j, &err) != GR_OK ||
	    managed_attempt_load(st, id, &v, &n, &err) != GR_OK)
		return cmd_error(c, &err);
	rows = xcalloc(n + 1, sizeof(*rows));
	for (i = 0; i < n; i++) {
		rows[i].a = v[i];
		if (v[i].ended_at == 0 && managed_cost(c->s, &v[i], 1, &cost, cur))
			rows[i].a.cost = cost;
		colon = strchr(v[i].instance_id, ':');
		snprintf(rows[i].provider, sizeof(rows[i].provider), "%.*s",
		    colon ? (int)(colon - v[i].instance_id) : 0, v[i].instance_id);
	}
	free(v);
	rc = out_print(c->out, &out_global, attempt_cols, ARRAY_LEN(attempt_cols), 0, rows, n,
	    sizeof(*rows), attempt_cell, NULL, &err) == GR_OK ? 0 : cmd_error(c, &err);
	free(rows);
	return rc != 0 ? rc : finish_output(c, 0);
}

/* Whether run is the run of one of the managed jobs' attempts. */
static bool
is_attempt(struct state *st, const struct managed_row *m, size_t nm, const char *run)
{
	struct gr_error err = { 0 };
	struct managed_attempt *v;
	size_t i, k, n;
	bool found = false;

	for (i = 0; i < nm && !found; i++) {
		if (managed_attempt_load(st, m[i].j.id, &v, &n, &err) != GR_OK)
			continue;
		for (k = 0; k < n && !found; k++)
			found = strcmp(v[k].remote_job, run) == 0;
		free(v);
	}
	return found;
}

/* The n runs, then (with managed) every managed job, as plain `jobs` lists them. */
static int
print_listed(struct cmd_ctx *c, struct state *st, const struct remote_job *v, size_t n,
    bool managed, bool mine_only)
{
	struct gr_error err = { 0 };
	struct managed_row *m = NULL;
	struct listed *rows;
	struct team_view tv;
	size_t nm = 0, i, k = 0;
	int rc;

	if (managed && managed_rows(c->s, NULL, time(NULL), &m, &nm, &err) != GR_OK)
		return cmd_error(c, &err);
	cmd_team_view(c, mine_only, &tv);
	rows = xcalloc(n + nm + 1, sizeof(*rows));
	for (i = 0; i < n; i++)
		if (team_view_keeps(&tv, v[i].user)) {
			rows[k].run = &v[i];
			rows[k++].kind = is_attempt(st, m, nm, v[i].id) ? "attempt" : "run";
		}
	for (i = 0; i < nm; i++)
		if (team_view_keeps(&tv, m[i].j.user)) {
			rows[k].m = &m[i];
			rows[k++].kind = "managed";
		}
	/* A team's list says who ran each job. */
	rc = out_print(c->out, &out_global, cols, team_view_columns(&tv, ARRAY_LEN(cols)), 0,
	    rows, k,
	    sizeof(*rows), cell, NULL, &err) == GR_OK ? 0 : cmd_error(c, &err);
	free(rows);
	free(m);
	return rc;
}

static int
jobs_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct remote_job *v = NULL;
	struct state *st;
	char inst[ID_MAX];
	const char *want_job = NULL, *want_inst = NULL;
	struct jobs_args a = { false, false };
	size_t n, i, k;
	int npos, rc, seq;
	bool reached;

	rc = cmd_parse(c, argc, argv, NULL, &a, &npos);
	if (rc != 0 || npos < 0)
		return rc;
	if (npos == 2 && strcmp(argv[0], "show") == 0) {
		if (session_state(c->s, &st, &err) != GR_OK)
			return cmd_error(c, &err);
		return show_attempts(c, st, argv[1]);
	}
	if (npos > 1)
		return cmd_usage_error(c, "give at most one instance or job id");
	if (a.managed || (npos == 1 && managed_id_valid(argv[0])))
		return list_managed(c, npos == 1 ? argv[0] : NULL, a.mine);
	if (npos == 1) {
		if (remote_job_split(argv[0], inst, sizeof(inst), &seq)) {
			want_job = argv[0];
			want_inst = inst;
		} else
			want_inst = argv[0];
	}
	if (session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	reached = jobs_refresh(c->s, st, want_inst);
	if (remote_job_load(st, want_inst, &v, &n, &err) != GR_OK)
		return cmd_error(c, &err);
	for (i = k = 0; i < n; i++)
		if (want_job == NULL || strcmp(v[i].id, want_job) == 0)
			v[k++] = v[i];
	if (want_job != NULL && k == 0) {
		free(v);
		gr_fail(&err, GR_ENOTFOUND, "no job '%s' is recorded", want_job);
		return cmd_error(c, &err);
	}
	rc = print_listed(c, st, v, k, npos == 0, a.mine);
	free(v);
	if (rc != 0)
		return rc;
	/* The list is printed, but some states are the recorded ones, not the instance's. */
	return finish_output(c, reached ? 0 : REMOTE_EXIT_CONN);
}

const struct command cmd_jobs = {
	.name = "jobs",
	.args = "[ID|JOB|--managed|show JOB]",
	.summary = N_("list the jobs started with 'gpurent run'"),
	.help =
	    N_("Lists the recorded jobs (all, an instance's, or one), each with its state read\n"
	    "from its instance: running, exited (with its status), killed, or lost (its\n"
	    "instance stopped, or it vanished without a status). A job that ended with\n"
	    "--fetch or --then still to do gets them done now; AFTER says what was done.\n"
	    "Exit status 255 when an instance could not be reached (its jobs show the state\n"
	    "recorded last).\n"
	    "With no id, the managed jobs of 'run --managed' follow the runs, KIND managed\n"
	    "(a run that is one of their attempts is KIND attempt), with the figures below.\n"
	    "--managed (or a managed job's id, mN) lists only the managed jobs:\n"
	    "their state (renting, syncing, running, checkpointing, recovering, done, failed,\n"
	    "cancelling, cancelled: 'gpurent kill mN'),\n"
	    "attempt, the age of the newest whole checkpoint, recoveries, the work lost to\n"
	    "lost machines since their last checkpoints, and the cost so far (what the ledger\n"
	    "billed each attempt's machine; unknown when attempts differ in currency).\n"
	    "'jobs show mN' lists every attempt: its instance, GPU, price, start, end, the work\n"
	    "it lost, its cost and why it ended."),
	.opts = opts,
	.complete_args = CPL_JOB,
	.run = jobs_run,
};
