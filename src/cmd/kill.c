/*
 * gpurent kill: end jobs (TERM to the job's process group, KILL after a grace period), and
 * cancel managed jobs (managed.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/managed.h"
#include "gpurent/util.h"
#include "common.h"
#include "batch.h"

enum { K_GRACE = 1 };

static const struct cmd_opt opts[] = {
	{ "grace", 0, "SECONDS", N_("wait this long after TERM before KILL (default 10)"), K_GRACE, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	long long v;

	(void)id;
	if (!parse_int(arg, 0, 3600, &v))
		return cmd_usage_error(c, "--grace wants seconds from 0 to 3600, not '%s'", arg);
	*(int *)data = (int)v;
	return 0;
}

/* Cancel a batch job through its scheduler: 0, or the error's status (said). */
static int
kill_batch(struct cmd_ctx *c, struct state *st, const char *job_id, const char *inst)
{
	struct gr_error err = { 0 };
	struct remote_job *v = NULL;
	size_t n, i;
	int rc = 0;

	if (remote_job_load(st, inst, &v, &n, &err) != GR_OK)
		return cmd_error(c, &err);
	for (i = 0; i < n && strcmp(v[i].id, job_id) != 0; i++)
		;
	if (i == n)
		gr_fail(&err, GR_ENOTFOUND, "no job '%s' is recorded", job_id);
	else if (batch_kill(c, st, &v[i], &err) == GR_OK) {
		fprintf(c->out, "%s\n", job_id);
		batch_refresh(c->s, st, &v[i]);
	}
	if (err.code != GR_OK)
		rc = cmd_error(c, &err);
	free(v);
	return rc;
}

/* Cancel a managed job through the engine: 0, or the error's status (said). */
static int
kill_managed(struct cmd_ctx *c, const char *id)
{
	struct gr_error err = { 0 };
	enum managed_turn turn;
	char holder[300];

	managed_holder(holder, sizeof(holder));
	if (managed_cancel(c->s, id, holder, stderr, &turn, &err) != GR_OK)
		return cmd_error(c, &err);
	if (turn != MT_ENDED)
		cmd_warn("%s is cancelling: its controller (or 'gpurent watch') ends it", id);
	fprintf(c->out, "%s\n", id);
	return 0;
}

static int
kill_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct remote_endpoint ep;
	struct state *st;
	char inst[ID_MAX];
	int npos, rc, seq, grace = 10, i, status = 0, failed = 0;

	if (!cmd_parse_args(c, argc, argv, handle, &grace,
	    N_("which job? give ID/N from 'gpurent jobs'"), &npos, &rc))
		return rc;
	for (i = 0; i < npos; i++)
		if (!managed_id_valid(argv[i]) && !remote_job_split(argv[i], inst, sizeof(inst), &seq))
			return cmd_usage_error(c, "'%s' is not a job id (ID/N, or mN)", argv[i]);
	if (session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	for (i = 0; i < npos; i++) {
		err = (struct gr_error){ 0 };
		seq = -1;
		if (!managed_id_valid(argv[i]))
			remote_job_split(argv[i], inst, sizeof(inst), &seq);
		if (seq < 0)
			rc = kill_managed(c, argv[i]);
		else if (seq == 0)
			rc = kill_batch(c, st, argv[i], inst);
		else if (cmd_endpoint(c, inst, &ep, &err) != GR_OK)
			rc = cmd_error(c, &err);
		else if ((rc = remote_job_kill(&ep, seq, grace, &err)) == 3) {
			gr_fail(&err, GR_ECONFLICT, "job %s is not running", argv[i]);
			rc = cmd_error(c, &err);
		} else if (rc != 0) {
			cmd_error(c, &err);
			if (rc != REMOTE_EXIT_CONN)
				rc = gr_exit_code(err.code);
		} else {
			fprintf(c->out, "%s\n", argv[i]);
			jobs_refresh(c->s, st, inst);
		}
		if (rc != 0) {
			failed++;
			status = rc;
		}
	}
	if (failed > 0 && failed < npos)
		status = EXIT_PARTIAL;
	return finish_output(c, status);
}

const struct command cmd_kill = {
	.name = "kill",
	.args = "JOB...",
	.summary = N_("end jobs started with 'gpurent run', cancel managed ones"),
	.help =
	    N_("Sends TERM to each job's process group on its instance, then KILL to what is\n"
	    "left after the grace period (--grace, default 10 seconds), and prints the ids of\n"
	    "the jobs it ended. The job is then recorded as killed, and its --fetch and --then\n"
	    "are carried out as for a job that ended. A job that no longer runs is refused\n"
	    "(exit 13), one the instance does not have exit 3. Exit status 255 when the\n"
	    "connection failed.\n"
	    "\n"
	    "A managed job (mN, from 'gpurent run --managed') is cancelled: a last checkpoint\n"
	    "is pulled, its current machine destroyed and the job ends as cancelled. When its\n"
	    "controller (the attached run or 'gpurent watch') runs, kill marks it cancelling\n"
	    "and the controller does this at its next round. One that already ended exits 13."),
	.opts = opts,
	.complete_args = CPL_JOB,
	.run = kill_run,
};
