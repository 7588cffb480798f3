/*
 * Batch jobs: `gpurent run --provider slurm -- CMD` submits CMD to a cluster's scheduler
 * (a backend with CAP_BATCH), with no idle allocation in between. They are recorded beside
 * the ssh jobs as PROVIDER:JOBID/0 (seq 0: no ssh job has it), their `dir` the output file,
 * so that jobs, logs and kill treat both alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/backend.h"
#include "gpurent/i18n.h"
#include "gpurent/config.h"
#include "gpurent/launch.h"
#include "gpurent/observed.h"
#include "gpurent/remote.h"
#include "gpurent/util.h"
#include "common.h"
#include "batch.h"

/*
 * The job's script. The command words are quoted here, each one, by remote_shell_quote:
 * nothing the user typed is ever read by the shell as syntax (one word is, on purpose, a
 * command line for sh -c, as for ssh jobs). With more than one node, srun starts the
 * command once per node with what distributed training reads: MASTER_ADDR (the first
 * node, where the script runs), MASTER_PORT (29500 unless --env gives one), WORLD_SIZE
 * (the number of nodes) and NODE_RANK (0 ... nodes-1). When one rank fails, srun stops
 * the others (--kill-on-bad-exit) with SIGTERM; a rank stopped so exits 0, so that the job
 * ends with the failed rank's status (srun's is the highest of its tasks'), not 143.
 * Slurm signals a task's descendants before the task itself, so a command that died of a
 * signal gives its rank's wrapper a moment (2 s) to receive that SIGTERM too. A SIGTERM from
 * outside (the time limit, scancel, preemption) reaches the script as well, which then
 * exits 143 itself: the ranks' 0 must not make a stopped job look successful.
 */
static char *
batch_script(char *const *words, int n, int nodes)
{
	struct sb sb;
	int i;

	sb_init(&sb);
	sb_adds(&sb, "#!/bin/sh\n# gpurent batch job\n"
	    "MASTER_ADDR=${MASTER_ADDR:-${SLURMD_NODENAME:-$(hostname)}}\n"
	    "MASTER_PORT=${MASTER_PORT:-29500}\n"
	    "WORLD_SIZE=${SLURM_JOB_NUM_NODES:-1}\nNODE_RANK=0\n"
	    "export MASTER_ADDR MASTER_PORT WORLD_SIZE NODE_RANK\n");
	if (nodes > 1)
		sb_adds(&sb, "trap stopped=1 TERM\n"
		    "srun --ntasks-per-node=1 --kill-on-bad-exit=1 sh -c "
		    "'NODE_RANK=$SLURM_NODEID; export NODE_RANK; trap \"exit 0\" TERM; \"$@\"; "
		    "rc=$?; [ $rc -le 128 ] || { sleep 2 & wait $!; }; exit $rc' sh");
	else
		sb_adds(&sb, "exec");
	if (n == 1)
		sb_adds(&sb, " sh -c");
	for (i = 0; i < n; i++) {
		sb_addc(&sb, ' ');
		remote_shell_quote(&sb, words[i]);
	}
	if (nodes > 1)
		sb_adds(&sb, " &\nwait $!\nrc=$?\n"
		    "[ -z \"$stopped\" ] || { wait $!; exit 143; }\nexit $rc");
	sb_addc(&sb, '\n');
	return sb_detach(&sb);
}

/* The cluster's rate (config_gpu_rate, as its backend prices jobs) x GPUs; 0 when none. */
static int64_t
batch_price(const struct config *cfg, const struct batch_req *r, char *currency)
{
	int64_t rate;

	if (!config_gpu_rate(cfg, r->provider, r->gpu, &rate, currency))
		return 0;
	return rate * r->gpus_per_node * (r->nodes > 0 ? r->nodes : 1);
}

int
batch_submit(struct cmd_ctx *c, const struct batch_req *r, char *const *words, int n)
{
	struct gr_error err = { 0 };
	struct launch_req req;
	struct instance in;
	struct remote_job j;
	struct backend *b;
	struct config *cfg;
	struct state *st;
	char offer[ID_MAX], key[96], output[1024], currency[CURRENCY_MAX] = "USD", *script;
	const char *dir, *p;
	int64_t price;
	enum gr_err e;

	snprintf(offer, sizeof(offer), "%s:%s/%s", r->provider, r->partition ? r->partition :
	    "", r->gpu);
	if (session_config(c->s, &cfg, &err) != GR_OK ||
	    session_backend_for(c->s, offer, &b, &err) != GR_OK ||
	    backend_require(b->ops, CAP_BATCH, _("run a batch job"), &err) != GR_OK ||
	    session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	/* Where the job writes: the shared output_dir, else its working directory. */
	snprintf(key, sizeof(key), "%s.output_dir", r->provider);
	if ((dir = config_job_output_dir(cfg, r->provider)) == NULL) {
		snprintf(key, sizeof(key), "%s.workdir", r->provider);
		dir = config_job_workdir(cfg, r->provider);
	}
	if (dir[0] != '/')
		return cmd_usage_error(c, "%s must be an absolute path, not '%s'", key, dir);
	/* Slurm expands % in an output path, and a backslash turns all expansion off. */
	if (strpbrk(dir, "%\\") != NULL)
		return cmd_usage_error(c, "%s must not contain '%%' or '\\' (Slurm gives them a "
		    "meaning in output paths): '%s'", key, dir);
	snprintf(output, sizeof(output), "%s/gpurent-%%j.out", dir);
	script = batch_script(words, n, r->nodes);
	memset(&req, 0, sizeof(req));
	req.offer_id = offer;
	req.label = r->name;
	req.env = r->env;
	req.gpus_per_node = r->gpus_per_node;
	req.nodes = r->nodes;
	req.max_runtime_s = r->max_runtime_s;
	req.script = script;
	req.output = output;
	price = batch_price(cfg, r, currency);
	cmd_warn_profile_budget(c);
	e = guard_launch(c->s, b, &req, price, currency, r->force ? GUARD_FORCE : 0, &in, &err);
	free(script);
	if (e != GR_OK)
		return cmd_error(c, &err);
	memset(&j, 0, sizeof(j));
	strlcpy_(j.instance_id, in.id, sizeof(j.instance_id));
	snprintf(j.id, sizeof(j.id), "%s/0", in.id);
	/* The output file with %j as the job id. */
	p = strchr(in.id, ':');
	snprintf(j.dir, sizeof(j.dir), "%s/gpurent-%s.out", dir, p != NULL ? p + 1 : in.id);
	strlcpy_(j.name, r->name ? r->name : "", sizeof(j.name));
	job_join_words(words, n, j.command, sizeof(j.command));
	j.state = JOB_RUNNING;
	j.exit_code = -1;
	j.started_at = session_now(c->s);
	if (remote_job_record(st, &j, &err) != GR_OK)
		return cmd_error(c, &err);
	if (r->detach) {
		fprintf(c->out, "%s\n", j.id);
		return finish_output(c, 0);
	}
	cmd_warn("batch job %s submitted; Ctrl-C detaches", j.id);
	return batch_log(c, st, &j, -1, true);
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

void
copy_to_stdout(FILE *fp, long *off)
{
	char buf[8192];
	size_t got;

	clearerr(fp);
	if (fseek(fp, *off, SEEK_SET) != 0)
		return;
	while ((got = fread(buf, 1, sizeof(buf), fp)) > 0) {
		fwrite(buf, 1, got, stdout);
		*off += (long)got;
	}
	fflush(stdout);
}

/*
 * Read the output file from *off on over ssh to the job's first node (while it runs, the
 * node is where ssh reaches it; the endpoint is kept for the last read after it ended).
 * 0, or ssh's status with err set.
 */
static int
copy_over_ssh(const struct remote_endpoint *ep, const char *path, long *off,
    struct gr_error *err)
{
	struct sb out;
	char from[32];
	const char *words[] = { "tail", "-c", from, "--", path };
	int rc;

	snprintf(from, sizeof(from), "+%ld", *off + 1);
	sb_init(&out);
	rc = remote_capture(ep, words, ARRAY_LEN(words), &out, 64u << 20, err);
	if (rc == 0 || out.len > 0) {
		fwrite(out.buf, 1, out.len, stdout);
		fflush(stdout);
		*off += (long)out.len;
	}
	sb_release(&out);
	return rc;
}

/* The output over ssh, all of it, following it to the job's end. */
static int
batch_follow_ssh(struct cmd_ctx *c, struct state *st, struct remote_job *j)
{
	struct gr_error err = { 0 };
	struct remote_endpoint ep;
	bool have_ep = false;
	long off = 0;
	int waits, rc = 0;

	/* Half a second a round, a day at most; the next call picks up what is left. */
	for (waits = 0; waits < 2 * 86400; waits++) {
		if (!have_ep && cmd_endpoint(c, j->instance_id, &ep, &err) == GR_OK &&
		    remote_connect(&ep, &err) == GR_OK)
			have_ep = true;
		if (have_ep)
			rc = copy_over_ssh(&ep, j->dir, &off, &err);
		if (!batch_refresh(c->s, st, j) || j->state != JOB_RUNNING)
			break;
		gr_error_clear(&err);
		sleep_ms(500);
	}
	if (have_ep && j->state != JOB_RUNNING)
		rc = copy_over_ssh(&ep, j->dir, &off, &err);
	if (!have_ep || (rc != 0 && off == 0)) {
		if (err.msg[0] == '\0')
			gr_fail(&err, GR_ENOTFOUND, "cannot reach the node of %s", j->id);
		cmd_warn("cannot read %s on the job's node: %s (slurm.output_dir, a directory "
		    "shared with the nodes, reads it after the job ended)", j->dir, err.msg);
		return have_ep ? rc : gr_exit_code(err.code);
	}
	return finish_output(c, j->state == JOB_RUNNING ? EXIT_TIMEOUT : job_exit_status(j));
}

/* The last tail lines (< 0: all), read where the dashboard reads them too. */
static int
batch_tail(struct cmd_ctx *c, const struct remote_job *j, long tail)
{
	struct gr_error err = { 0 };
	struct sb out;
	enum gr_err e;

	sb_init(&out);
	e = session_batch_tail(c->s, j, tail, &out, 64u << 20, &err);
	fwrite(out.buf, 1, out.len, stdout);
	fflush(stdout);
	sb_release(&out);
	if (e != GR_OK)
		return cmd_error(c, &err);
	return finish_output(c, 0);
}

int
batch_log(struct cmd_ctx *c, struct state *st, struct remote_job *j, long tail, bool follow)
{
	struct gr_error err = { 0 };
	struct config *cfg;
	FILE *fp = NULL;
	long off = 0;
	int waits;

	char provider[64];

	if (!follow)
		return batch_tail(c, j, tail);
	if (session_config(c->s, &cfg, &err) != GR_OK)
		return cmd_error(c, &err);
	/* Without a shared output_dir, the file is on the job's node. */
	snprintf(provider, sizeof(provider), "%.*s", (int)strcspn(j->instance_id, ":"),
	    j->instance_id);
	if (config_job_output_dir(cfg, provider) == NULL)
		return batch_follow_ssh(c, st, j);
	/*
	 * The output file is on a path this machine shares with the nodes (output_dir);
	 * Slurm creates it when the job starts, so wait for it while the job waits. Each
	 * round is half a second; a job still pending after a day is left to a later call.
	 */
	for (waits = 0; waits < 2 * 86400; waits++) {
		if (fp == NULL && (fp = fopen(j->dir, "r")) != NULL)
			off = file_tail_start(fp, tail);
		if (fp != NULL)
			copy_to_stdout(fp, &off);
		if (!batch_refresh(c->s, st, j))
			break;
		if (j->state != JOB_RUNNING) {
			if (fp == NULL)
				fp = fopen(j->dir, "r");
			if (fp != NULL)
				copy_to_stdout(fp, &off);
			break;
		}
		sleep_ms(500);
	}
	if (fp == NULL && j->state == JOB_RUNNING) {
		gr_fail(&err, GR_ENOTFOUND, "no output of %s at %s yet (it is read there: set "
		    "slurm.output_dir to a directory this machine shares with the nodes)", j->id,
		    j->dir);
		return cmd_error(c, &err);
	}
	if (fp != NULL)
		fclose(fp);
	return finish_output(c, j->state == JOB_RUNNING ? EXIT_TIMEOUT : job_exit_status(j));
}

enum gr_err
batch_kill(struct cmd_ctx *c, struct state *st, struct remote_job *j, struct gr_error *err)
{
	struct backend *b;

	if (session_backend_for(c->s, j->instance_id, &b, err) != GR_OK)
		return err->code;
	if (!batch_refresh(c->s, st, j) || j->state != JOB_RUNNING)
		return gr_fail(err, GR_ECONFLICT, "job %s is not running", j->id);
	return observed_destroy(b, j->instance_id, err);
}
