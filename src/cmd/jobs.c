/*
 * gpurent jobs: the recorded jobs, with their state read from their instances.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"
#include "batch.h"

static const struct column cols[] = {
	{ "id", N_("JOB"), false, false, 0, 0 },
	{ "name", N_("NAME"), false, false, 2, 8 },
	{ "instance", N_("INSTANCE"), false, true, 3, 0 },
	{ "state", N_("STATE"), false, false, 0, 0 },
	{ "exit_code", N_("EXIT"), true, false, 0, 0 },
	{ "started", N_("STARTED"), false, false, 1, 0 },
	{ "command", N_("COMMAND"), false, false, 2, 12 },
	{ "then", N_("THEN"), false, true, 3, 0 },
	{ "account", N_("AFTER"), false, false, 3, 16 },
};

static void
cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct remote_job *j = row;

	(void)ctx;
	c->kind = CELL_STR;
	switch (col) {
	case 0: c->s = j->id; break;
	case 1: cell_str(c, j->name); break;
	case 2: c->s = j->instance_id; break;
	case 3: c->s = remote_job_state_name(j->state); break;
	case 4:
		c->kind = j->state != JOB_RUNNING && j->exit_code >= 0 ? CELL_INT : CELL_NULL;
		c->i = j->exit_code;
		break;
	case 5: c->kind = CELL_TIME; c->i = j->started_at; break;
	case 6: c->s = j->command; break;
	case 7: cell_str(c, j->then_action); break;
	default: cell_str(c, j->account); break;
	}
}

static int
jobs_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct remote_job *v = NULL;
	struct state *st;
	char inst[ID_MAX];
	const char *want_job = NULL, *want_inst = NULL;
	size_t n, i, k;
	int npos, rc, seq;
	bool reached;

	rc = cmd_parse(c, argc, argv, NULL, NULL, &npos);
	if (rc != 0 || npos < 0)
		return rc;
	if (npos > 1)
		return cmd_usage_error(c, "give at most one instance or job id");
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
	rc = out_print(c->out, &out_global, cols, ARRAY_LEN(cols), 0, v, k, sizeof(*v), cell,
	    NULL, &err) == GR_OK ? 0 : cmd_error(c, &err);
	free(v);
	if (rc != 0)
		return rc;
	/* The list is printed, but some states are the recorded ones, not the instance's. */
	return finish_output(c, reached ? 0 : REMOTE_EXIT_CONN);
}

const struct command cmd_jobs = {
	.name = "jobs",
	.args = "[ID|JOB]",
	.summary = N_("list the jobs started with 'gpurent run'"),
	.help =
	    N_("Lists the recorded jobs (all, an instance's, or one), each with its state read\n"
	    "from its instance: running, exited (with its status), killed, or lost (its\n"
	    "instance stopped, or it vanished without a status). A job that ended with\n"
	    "--fetch or --then still to do gets them done now; AFTER says what was done.\n"
	    "Exit status 255 when an instance could not be reached (its jobs show the state\n"
	    "recorded last)."),
	.complete_args = CPL_JOB,
	.run = jobs_run,
};
