/*
 * gpurent logs: a job's output, to its end with --follow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/managed_jobs.h"
#include "gpurent/util.h"
#include "common.h"
#include "batch.h"

struct logs_args {
	bool follow;
	long tail;
};

static const struct cmd_opt opts[] = {
	{ "follow", 'f', NULL, N_("keep printing what the job writes until it ends"), OPT_AT(struct logs_args, follow), CPL_NONE, OPT_TRUE },
	{ "tail", 'n', "N", N_("start with the last N lines only"), 0, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct logs_args *a = data;
	long long v;

	(void)id;	/* --tail, the one option cmd_parse does not store */
	if (!parse_int(arg, 0, 100000000, &v))
		return cmd_usage_error(c, "--tail wants a number of lines, not '%s'", arg);
	a->tail = (long)v;
	return 0;
}

/* A batch job's output, from its recorded output file. */
static int
logs_batch(struct cmd_ctx *c, struct state *st, const char *job_id, const char *inst,
    const struct logs_args *a)
{
	struct gr_error err = { 0 };
	struct remote_job *v = NULL;
	size_t n, i;
	int rc;

	if (remote_job_load(st, inst, &v, &n, &err) != GR_OK)
		return cmd_error(c, &err);
	for (i = 0; i < n; i++)
		if (strcmp(v[i].id, job_id) == 0)
			break;
	if (i == n) {
		free(v);
		gr_fail(&err, GR_ENOTFOUND, "no job '%s' is recorded", job_id);
		return cmd_error(c, &err);
	}
	rc = batch_log(c, st, &v[i], a->tail, a->follow);
	free(v);
	return rc;
}

/*
 * A managed job's id (mN) as the run of its newest attempt that started one (ID/N, into
 * run); false when the id is no managed job's or none of its attempts started yet.
 */
static bool
managed_run(struct state *st, const char *id, char *run, size_t n)
{
	struct gr_error err = { 0 };
	struct managed_attempt *v = NULL;
	size_t na, i;

	run[0] = '\0';
	if (managed_attempt_load(st, id, &v, &na, &err) != GR_OK)
		return false;
	for (i = 0; i < na; i++)
		if (v[i].remote_job[0])
			strlcpy_(run, v[i].remote_job, n);
	free(v);
	return run[0] != '\0';
}

static int
logs_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct logs_args a = { false, -1 };
	struct remote_endpoint ep;
	struct remote_job *v = NULL;
	struct managed_job mj;
	struct state *st;
	char inst[ID_MAX], run[JOB_ID_MAX];
	size_t n, i;
	int npos, rc, seq;

	rc = cmd_parse(c, argc, argv, handle, &a, &npos);
	if (rc != 0 || npos < 0)
		return rc;
	if (npos != 1)
		return cmd_usage_error(c, "give one job id (ID/N, from 'gpurent jobs')");
	if (session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	/* A managed job: its current attempt's run. */
	if (managed_job_get(st, argv[0], &mj, &err) == GR_OK) {
		if (!managed_run(st, argv[0], run, sizeof(run))) {
			gr_fail(&err, GR_ENOTFOUND, "managed job %s has not started on a machine yet",
			    argv[0]);
			return cmd_error(c, &err);
		}
		argv[0] = run;
	}
	gr_error_clear(&err);
	if (!remote_job_split(argv[0], inst, sizeof(inst), &seq))
		return cmd_usage_error(c, "'%s' is not a job id (ID/N, from 'gpurent jobs')",
		    argv[0]);
	if (seq == 0)
		return logs_batch(c, st, argv[0], inst, &a);
	if (cmd_endpoint(c, inst, &ep, &err) != GR_OK)
		return cmd_error(c, &err);
	rc = remote_job_log(&ep, seq, a.tail, a.follow, &err);
	fflush(stdout);
	if (rc != 0) {
		if (rc == 128 + 2 || rc == 128 + 15 || rc == 128 + 1)
			return 130;
		cmd_error(c, &err);
		return rc == REMOTE_EXIT_CONN ? rc : gr_exit_code(err.code);
	}
	if (!a.follow)
		return finish_output(c, 0);
	/* It ended: record how, do what it asked for, and end as it did. */
	if (!jobs_refresh(c->s, st, inst))
		return REMOTE_EXIT_CONN;
	if (remote_job_load(st, inst, &v, &n, &err) != GR_OK)
		return cmd_error(c, &err);
	rc = 0;
	for (i = 0; i < n; i++)
		if (strcmp(v[i].id, argv[0]) == 0)
			rc = job_exit_status(&v[i]);
	free(v);
	return finish_output(c, rc);
}

const struct command cmd_logs = {
	.name = "logs",
	.args = "JOB|MJOB",
	.summary = N_("print a job's output (stdout and stderr)"),
	.help =
	    N_("Prints the log of JOB (ID/N, from 'gpurent run' or 'gpurent jobs'): all of it,\n"
	    "or the last N lines with --tail N. --follow keeps printing what the job writes\n"
	    "until it ends, then records its end, carries out its --fetch and --then, and\n"
	    "exits with the job's status (143 when it was killed, 1 when lost); Ctrl-C stops\n"
	    "following (exit 130), not the job. Exit status 3 when the instance has no such\n"
	    "job, 255 when the connection failed. For a managed job (mN, from 'run --managed')\n"
	    "it is the log of its current attempt's run."),
	.opts = opts,
	.complete_args = CPL_JOB,
	.run = logs_run,
};
