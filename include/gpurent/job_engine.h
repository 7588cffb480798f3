/*
 * job_engine.h - the job engine (src/session/job_engine.c) that run, jobs, logs, kill and
 * the watcher share: starting jobs, bringing recorded jobs up to date from their instances,
 * and carrying out what a job asked for once it ended (--fetch, --then).
 */
#ifndef GPURENT_JOB_ENGINE_H
#define GPURENT_JOB_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpurent/remote_copy.h"
#include "gpurent/remote_job.h"

struct session;
struct state;

/* A job to start on an instance (run ID -- COMMAND). */
struct job_start {
	const char *sync;		/* a local directory whose contents go into the job's
					   working directory first; NULL: none */
	struct remote_copy_opts sync_opts;	/* its excludes and progress */
	const char *const *env;		/* "K=V" for the job */
	size_t n_env;
	char *const *words;		/* the command */
	int n_words;
	/*
	 * A directory under the working directory (NULL: none) whose absolute path the job
	 * gets in the variable place_env, filled first with what the local directory
	 * place_fill holds (NULL: left to the job): a managed job's checkpoints.
	 */
	const char *place, *place_env, *place_fill;
	/*
	 * A mark of this start on the instance (NULL: none): a jobs_start sent again with the
	 * same key (a controller that took over from a killed one) takes the job the first
	 * made and neither copies into it again nor starts its command a second time.
	 */
	const char *key;
};

/*
 * Start a job on the instance at ep: make its directory (j->seq), sync, then start the
 * command there, detached, and record j (its name, fetches, then_action and after as the
 * caller set them; its ids, command, state and start from here). 0, or the exit status
 * that stands for what failed (REMOTE_EXIT_CONN: the connection), with err saying why.
 */
int jobs_start(struct session *s, struct state *st, const struct remote_endpoint *ep,
    struct remote_job *j, const struct job_start *js, struct gr_error *err);

/*
 * Copy path (relative to j's working directory, or absolute; a trailing slash: what it
 * holds) from the instance at ep into the local directory local_dir, made when missing.
 * 0, or the copy's status with err set.
 */
int jobs_pull(struct session *s, const struct remote_endpoint *ep, const struct remote_job *j,
    const char *path, const char *local_dir, struct gr_error *err);
/*
 * Every --fetch of j, in order, each said on stderr and in j's account; false at the first
 * that failed (the account says which).
 */
bool jobs_fetch(struct session *s, const struct remote_endpoint *ep, struct remote_job *j);

/*
 * Read the state of the recorded running jobs (of one instance, or all with instance_id
 * NULL) from their instances and record it: a job whose instance is no longer running (or
 * gone) is lost. Then, for every job that ended with work left (--fetch, --then), whoever
 * gets here first does it: fetches, then --then only when every fetch succeeded and no
 * other recorded job on the instance still runs (it then waits for them). What was done
 * is recorded (the job's account) and said on stderr. Instances that cannot be reached
 * are named on stderr and left as they were. Returns false when one of them could not.
 */
bool jobs_refresh(struct session *s, struct state *st, const char *instance_id);

/*
 * Read the states of the running jobs among v (all of ep's instance) from it into v; with
 * ended, ended[i] says that v[i] was running and is not now. 0, or remote_job_poll's
 * status (v unchanged). Nothing is recorded.
 */
int jobs_poll(const struct remote_endpoint *ep, struct remote_job *v, size_t n, bool *ended,
    struct gr_error *err);

/* The exit status that stands for a job's end: its own, 143 when killed, 1 when lost. */
int job_exit_status(const struct remote_job *j);

/* The command words joined as a shell would show them (one word: as it is). */
void job_join_words(char *const *w, int n, char *out, size_t size);

/* A recorded job that the provider's scheduler runs (run --provider): seq 0. */
static inline bool
job_is_batch(const struct remote_job *j)
{
	return j->seq == 0;
}

/* Bring a running batch job's record up to date from its provider; false (said on stderr)
   when unread. */
bool batch_refresh(struct session *s, struct state *st, struct remote_job *j);

#endif
