/*
 * batch.h - batch jobs as the commands show them (batch.c): submitted by run --provider,
 * followed by logs, cancelled by kill. Their records are kept up to date by the job
 * engine (gpurent/job_engine.h).
 */
#ifndef GPURENT_CMD_BATCH_H
#define GPURENT_CMD_BATCH_H

#include "gpurent/cmd.h"
#include "gpurent/job_engine.h"

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

/*
 * Submit words as a batch job, checked against the budgets like a launch, and record it
 * as PROVIDER:JOBID/0. Detached, print its id; else follow its output to its end and
 * return its exit status.
 */
int batch_submit(struct cmd_ctx *c, const struct batch_req *r, char *const *words, int n);
/*
 * Its output (the file j->dir, read where output_dir shares it): the last tail lines (< 0:
 * all); with follow, then what it writes until it ends, exiting with its status.
 */
int batch_log(struct cmd_ctx *c, struct state *st, struct remote_job *j, long tail,
    bool follow);
/* Copy what fp holds from *off on to stdout (*off moves past it). */
void copy_to_stdout(FILE *fp, long *off);
/* Cancel it through its provider; GR_ECONFLICT when it no longer runs. */
enum gr_err batch_kill(struct cmd_ctx *c, struct state *st, struct remote_job *j,
    struct gr_error *err);

#endif
