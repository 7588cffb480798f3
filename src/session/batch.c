/*
 * batch.c - batch jobs (gpurent run --provider), recorded with seq 0 and their output file
 * as dir: their state from the scheduler and the end of their output, read the way `logs`
 * reads them, for the CLI and the dashboard alike.
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/observed.h"
#include "gpurent/remote.h"
#include "gpurent/remote_job.h"
#include "gpurent/session.h"
#include "gpurent/util.h"

bool
session_batch_refresh(struct session *s, struct state *st, struct remote_job *j,
    struct gr_error *err)
{
	struct backend *b;
	struct instance in;
	enum gr_err e;

	if (j->state != JOB_RUNNING)
		return true;
	if (session_backend_for(s, j->instance_id, &b, err) != GR_OK)
		return false;
	memset(&in, 0, sizeof(in));
	e = observed_get(b, j->instance_id, &in, err);
	if (e == GR_ENOTFOUND) {
		gr_error_clear(err);
		j->state = JOB_LOST;
	} else if (e != GR_OK)
		return false;
	else if (in.state == ST_DESTROYED || in.state == ST_FAILED) {
		j->state = strncmp(in.status_msg, "CANCELLED", 9) == 0 ? JOB_KILLED : JOB_EXITED;
		j->exit_code = in.valid & IV_EXIT ? in.exit_code : -1;
		if (j->state == JOB_EXITED && j->exit_code < 0)
			j->state = JOB_LOST;
	} else
		return true;
	/* Not recorded, the next look asks the scheduler again: the state above still holds. */
	(void)remote_job_record(st, j, &(struct gr_error){ 0 });
	return true;
}

/* The last lines of a file this machine shares with the nodes. */
static enum gr_err
file_tail(const struct remote_job *j, long lines, struct sb *out, size_t max,
    struct gr_error *err)
{
	FILE *fp = fopen(j->dir, "r");
	char buf[8192];
	size_t got;

	if (fp == NULL)
		return gr_fail(err, GR_ENOTFOUND, "no output of %s at %s yet (it is read there: "
		    "set slurm.output_dir to a directory this machine shares with the nodes)",
		    j->id, j->dir);
	if (fseek(fp, file_tail_start(fp, lines), SEEK_SET) == 0)
		while ((got = fread(buf, 1, sizeof(buf), fp)) > 0 && out->len < max)
			sb_add(out, buf, got < max - out->len ? got : max - out->len);
	fclose(fp);
	return GR_OK;
}

enum gr_err
session_batch_tail(struct session *s, const struct remote_job *j, long lines, struct sb *out,
    size_t max, struct gr_error *err)
{
	struct remote_endpoint ep;
	struct config *cfg;
	char provider[64], count[32];
	const char *words[] = { "tail", lines >= 0 ? "-n" : "-c", count, "--", j->dir };
	int rc;

	if (session_config(s, &cfg, err) != GR_OK)
		return err->code;
	snprintf(provider, sizeof(provider), "%.*s", (int)strcspn(j->instance_id, ":"),
	    j->instance_id);
	if (config_job_output_dir(cfg, provider) != NULL)
		return file_tail(j, lines, out, max, err);
	/* Else the file is on the job's first node, where ssh reaches it while it runs. */
	rc = -1;
	if (session_endpoint(s, j->instance_id, &ep, err) == GR_OK) {
		ep.batch = !s->interactive;
		if (lines >= 0)
			snprintf(count, sizeof(count), "%ld", lines);
		else
			snprintf(count, sizeof(count), "+1");
		rc = remote_capture(&ep, words, ARRAY_LEN(words), out, max, err);
	}
	if (rc == 0)
		return GR_OK;
	{
		struct gr_error why = *err;

		gr_error_clear(err);
		return gr_fail(err, why.code != GR_OK ? why.code : GR_EFAIL, "cannot read %s on the "
		    "job's node: %s (slurm.output_dir, a directory shared with the nodes, reads "
		    "it after the job ended)", j->dir, why.msg[0] ? why.msg : _("tail failed"));
	}
}
