/*
 * remote_job.h - jobs that outlive the connection, over the transport (remote.h).
 *
 * A job lives on the instance in $HOME/.gpurent/jobs/N/: work/ (its working directory, where
 * --sync copies to), log (stdout and stderr), pid (the session leader: its process group
 * is the job), status (the exit status, written under a temporary name and renamed, so a
 * reader never sees half of it) and killed (a mark left by remote_job_kill). N is taken on
 * the instance by mkdir, so two gpurents never get the same one.
 *
 * Every remote step is a fixed sh script that gets the user's data (env assignments, the
 * command words, directories) as quoted positional parameters, never inside its text.
 * The job runs under setsid (its own session and process group; with no setsid, its own
 * process group), stdin from /dev/null, so neither a dropped connection nor a killed
 * gpurent reaches it.
 *
 * Jobs are recorded in the state database by id INSTANCE/N (jobs.h).
 * Functions that talk to the instance return ssh's statuses (REMOTE_EXIT_CONN: the
 * connection failed; err says so).
 */
#ifndef GPURENT_REMOTE_JOB_H
#define GPURENT_REMOTE_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "jobs.h"
#include "remote.h"

const char *remote_job_state_name(enum remote_job_state s);
/*
 * "sim:i-000001/3" -> "sim:i-000001" and 3; false when it is no job id. N is 0 for a batch
 * job (gpurent run --provider): its "instance" is the scheduler's job, its dir its output.
 */
bool remote_job_split(const char *job_id, char *instance_id, size_t n, int *seq);
/* j's working directory on the instance + "/" + path, or path when it is absolute. */
void remote_job_path(const struct remote_job *j, const char *path, char *out, size_t n);

/*
 * Make a job's directory on the instance: j->seq gets N, j->dir its absolute path. With a
 * key (NULL: none), kept there, a job that already holds it is taken instead, and *started
 * says whether its start began: the same start sent again finds the first.
 */
int remote_job_create(const struct remote_endpoint *ep, struct remote_job *j, const char *key,
    bool *started, struct gr_error *err);
/*
 * Start words (one word: a command line for sh -c; several: an argv) in job seq's work
 * directory with the n_env assignments K=V exported, detached; returns once it runs. Only
 * the first start of a job starts it: a second waits until that one runs.
 */
int remote_job_start(const struct remote_endpoint *ep, int seq, const char *const *env,
    size_t n_env, const char *const *words, size_t n_words, struct gr_error *err);
/* Read the state (and exit status) of the n jobs, all on ep's instance, from the instance. */
int remote_job_poll(const struct remote_endpoint *ep, struct remote_job *jobs, size_t n,
    struct gr_error *err);
/*
 * Write job seq's log to stdout: its last tail lines (tail < 0: all of it); with follow,
 * then what it writes until it ends (0), checking about twice a second.
 */
int remote_job_log(const struct remote_endpoint *ep, int seq, long tail, bool follow,
    struct gr_error *err);
/*
 * Job seq's last lines of log into out (at most max bytes kept), as they are: the caller
 * strips control characters before a terminal. 0, or ssh's statuses with err set.
 */
int remote_job_tail(const struct remote_endpoint *ep, int seq, long lines, struct sb *out,
    size_t max, struct gr_error *err);
/* TERM to the job's process group, KILL after grace seconds; 0, or 3 when it no longer ran. */
int remote_job_kill(const struct remote_endpoint *ep, int seq, int grace,
    struct gr_error *err);

#endif
