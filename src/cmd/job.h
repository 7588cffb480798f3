/*
 * job.h - what run, jobs, logs and kill share: bringing recorded jobs up to date from
 * their instances, and carrying out what a job asked for once it ended (--fetch, --then).
 */
#ifndef GPURENT_CMD_JOB_H
#define GPURENT_CMD_JOB_H

#include "gpurent/cmd.h"
#include "gpurent/remote_job.h"

/*
 * Read the state of the recorded running jobs (of one instance, or all with instance_id
 * NULL) from their instances and record it: a job whose instance is no longer running (or
 * gone) is lost. Then, for every job that ended with work left (--fetch, --then), whoever
 * gets here first does it: fetches, then --then only when every fetch succeeded and no
 * other recorded job on the instance still runs (it then waits for them). What was done
 * is recorded (the job's account) and said on stderr. Instances that cannot be reached
 * are named on stderr and left as they were. Returns false when one of them could not.
 */
bool jobs_refresh(struct cmd_ctx *c, struct state *st, const char *instance_id);

/* The exit status that stands for a job's end: its own, 143 when killed, 1 when lost. */
int job_exit_status(const struct remote_job *j);

/* The command words joined as a shell would show them (one word: as it is). */
void job_join_words(char *const *w, int n, char *out, size_t size);

/* A batch job to submit (run --provider): the provider's scheduler runs it, no ssh. */
struct batch_req {
	const char *provider;		/* a backend with CAP_BATCH */
	const char *partition;		/* NULL: the cluster's default */
	const char *gpu;		/* the GRES type, "h100" */
	int gpus_per_node, nodes;
	int64_t max_runtime_s;		/* 0: the partition's limit */
	const char *name;
	const char *const *env;		/* "K=V", NULL-terminated */
	bool detach, force;
};

/* A recorded job that the provider's scheduler runs (run --provider): seq 0. */
static inline bool
job_is_batch(const struct remote_job *j)
{
	return j->seq == 0;
}

/*
 * Submit words as a batch job (batch.c), checked against the budgets like a launch, and
 * record it as PROVIDER:JOBID/0. Detached, print its id; else follow its output to its end
 * and return its exit status.
 */
int batch_submit(struct cmd_ctx *c, const struct batch_req *r, char *const *words, int n);
/* Bring a running batch job's record up to date from its provider (job.c); false when
   unread. */
bool batch_refresh(struct cmd_ctx *c, struct state *st, struct remote_job *j);
/*
 * Its output (the file j->dir, read where output_dir shares it): the last tail lines (< 0:
 * all); with follow, then what it writes until it ends, exiting with its status.
 */
int batch_log(struct cmd_ctx *c, struct state *st, struct remote_job *j, long tail,
    bool follow);
/* Cancel it through its provider; GR_ECONFLICT when it no longer runs. */
enum gr_err batch_kill(struct cmd_ctx *c, struct state *st, struct remote_job *j,
    struct gr_error *err);

#endif
