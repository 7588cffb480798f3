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

#endif
