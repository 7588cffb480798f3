/*
 * gpurent logs: a job's output, to its end with --follow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/managed.h"
#include "gpurent/managed_jobs.h"
#include "gpurent/util.h"
#include "common.h"
#include "batch.h"

struct logs_args {
	bool follow;
	long tail;
	int attempt;		/* a managed job's attempt alone; 0: all of them */
};

enum { OPT_TAIL, OPT_ATTEMPT };

static const struct cmd_opt opts[] = {
	{ "follow", 'f', NULL, N_("keep printing what the job writes until it ends"), OPT_AT(struct logs_args, follow), CPL_NONE, OPT_TRUE },
	{ "tail", 'n', "N", N_("start with the last N lines only"), OPT_TAIL, CPL_NONE, 0 },
	{ "attempt", 0, "K", N_("a managed job's attempt K only (kept, or live when current)"),
	  OPT_ATTEMPT, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct logs_args *a = data;
	long long v;

	if (id == OPT_ATTEMPT) {
		if (!parse_int(arg, 1, 1000000, &v))
			return cmd_usage_error(c, "--attempt wants an attempt number (1, 2, ...), "
			    "not '%s'", arg);
		a->attempt = (int)v;
		return 0;
	}
	if (!parse_int(arg, 0, 100000000, &v))
		return cmd_usage_error(c, "--tail wants a number of lines, not '%s'", arg);
	a->tail = (long)v;
	return 0;
}

/* The record of run job_id on instance inst into out; false when there is none. */
static bool
find_run(struct state *st, const char *inst, const char *job_id, struct remote_job *out,
    struct gr_error *err)
{
	struct remote_job *v = NULL;
	size_t n, i;
	bool found = false;

	if (remote_job_load(st, inst, &v, &n, err) != GR_OK)
		return false;
	for (i = 0; i < n && !found; i++)
		if (strcmp(v[i].id, job_id) == 0) {
			*out = v[i];
			found = true;
		}
	free(v);
	if (!found)
		gr_fail(err, GR_ENOTFOUND, "no job '%s' is recorded", job_id);
	return found;
}

/* A batch job's output, from its recorded output file. */
static int
logs_batch(struct cmd_ctx *c, struct state *st, const char *job_id, const char *inst,
    const struct logs_args *a)
{
	struct gr_error err = { 0 };
	struct remote_job j;

	if (!find_run(st, inst, job_id, &j, &err))
		return cmd_error(c, &err);
	return batch_log(c, st, &j, a->tail, a->follow);
}

/*
 * The log that ended attempt a of managed job id kept (its last tail lines, < 0: all),
 * after its header on stderr. Pulled once its command had ended, it is whole; else it
 * ends at the last pull, and the header says so. false when nothing was kept.
 */
static bool
print_kept(struct state *st, const char *id, const struct managed_attempt *a, long tail)
{
	struct gr_error err = { 0 };
	struct remote_job j;
	char path[4200];
	FILE *fp;
	long off;

	managed_log_path(id, a->n, path, sizeof(path));
	fflush(stdout);
	if ((fp = fopen(path, "r")) == NULL) {
		fprintf(stderr, _("== attempt %d on %s: no log kept (its machine was lost before "
		    "one was pulled) ==\n"), a->n, a->instance_id);
		return false;
	}
	if (find_run(st, a->instance_id, a->remote_job, &j, &err) &&
	    (j.state == JOB_EXITED || j.state == JOB_KILLED))
		fprintf(stderr, _("== attempt %d on %s ==\n"), a->n, a->instance_id);
	else
		fprintf(stderr, _("== attempt %d on %s: kept up to its last pull; what it printed "
		    "after that was lost with the machine ==\n"), a->n, a->instance_id);
	off = file_tail_start(fp, tail);
	copy_to_stdout(fp, &off);
	fclose(fp);
	return true;
}

/*
 * A managed job's attempts that started their command (only attempt a->attempt, when
 * given), each after a header on stderr naming it and its machine, so that stdout holds the
 * logs alone: the kept log of each ended one, then the current one's run, into run, for the
 * caller to read live. -1 when there is such a run, else the exit status.
 */
static int
logs_managed(struct cmd_ctx *c, struct state *st, const char *id, const struct logs_args *a,
    char *run, size_t n)
{
	struct gr_error err = { 0 };
	struct managed_attempt *v = NULL;
	size_t na, i;
	bool any = false, kept = true;

	run[0] = '\0';
	if (managed_attempt_load(st, id, &v, &na, &err) != GR_OK)
		return cmd_error(c, &err);
	for (i = 0; i < na; i++) {
		if (!v[i].remote_job[0] || (a->attempt != 0 && v[i].n != a->attempt))
			continue;
		any = true;
		if (v[i].ended_at != 0)
			kept = print_kept(st, id, &v[i], a->tail);
		else {
			fprintf(stderr, _("== attempt %d on %s (current) ==\n"), v[i].n,
			    v[i].instance_id);
			strlcpy_(run, v[i].remote_job, n);
		}
	}
	free(v);
	if (!any) {
		if (a->attempt != 0)
			gr_fail(&err, GR_ENOTFOUND, "managed job %s has no attempt %d that started "
			    "its command", id, a->attempt);
		else
			gr_fail(&err, GR_ENOTFOUND, "managed job %s has not started on a machine "
			    "yet", id);
		return cmd_error(c, &err);
	}
	if (run[0])
		return -1;
	return finish_output(c, a->attempt != 0 && !kept ? gr_exit_code(GR_ENOTFOUND) : 0);
}

static int
logs_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct logs_args a = { false, -1, 0 };
	struct remote_endpoint ep;
	struct remote_job j;
	struct managed_job mj;
	struct state *st;
	char inst[ID_MAX], run[JOB_ID_MAX];
	int npos, rc, seq;

	rc = cmd_parse(c, argc, argv, handle, &a, &npos);
	if (rc != 0 || npos < 0)
		return rc;
	if (npos != 1)
		return cmd_usage_error(c, "give one job id (ID/N, from 'gpurent jobs')");
	if (session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	/* A managed job: its earlier attempts' kept logs, then its current attempt's run. */
	if (managed_job_get(st, argv[0], &mj, &err) == GR_OK) {
		if ((rc = logs_managed(c, st, argv[0], &a, run, sizeof(run))) >= 0)
			return rc;
		argv[0] = run;
	} else if (a.attempt != 0)
		return cmd_usage_error(c, "--attempt is for a managed job (mN, from 'gpurent "
		    "jobs')");
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
	if (!find_run(st, inst, argv[0], &j, &err) && err.code != GR_ENOTFOUND)
		return cmd_error(c, &err);
	return finish_output(c, err.code == GR_OK ? job_exit_status(&j) : 0);
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
	    "it is the log of each attempt that started its command, each after a line on\n"
	    "stderr that names the attempt and its machine: the earlier ones as they were kept\n"
	    "(pulled with every checkpoint and at the attempt's end; when the machine was lost,\n"
	    "up to the last pull, and the line says so), then the current one's, read live.\n"
	    "--attempt K prints attempt K's alone (exit status 3 when none was kept)."),
	.opts = opts,
	.complete_args = CPL_JOB,
	.run = logs_run,
};
