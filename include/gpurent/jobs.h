/*
 * jobs.h - the records of jobs on instances (table jobs of the state database, store/jobs.c).
 *
 * What a job is and how it runs on its instance is remote_job.h's; this is what gpurent
 * remembers of each, by id INSTANCE/N.
 */
#ifndef GPURENT_JOBS_H
#define GPURENT_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "state.h"

#define JOB_ID_MAX (ID_MAX + 16)

enum remote_job_state { JOB_RUNNING, JOB_EXITED, JOB_KILLED, JOB_LOST };

/* What is left to do once a job ended (--fetch, --then), and what became of it. */
enum remote_job_after {
	JOB_AFTER_NONE,		/* nothing asked */
	JOB_AFTER_PENDING,	/* fetches and --then still to do */
	JOB_AFTER_WAITING,	/* fetched; --then waits for the instance's other jobs */
	JOB_AFTER_BUSY,		/* a gpurent is doing it now */
	JOB_AFTER_DONE,
	JOB_AFTER_FAILED,	/* a fetch or the --then failed: nothing more is done */
};

struct remote_job {
	char id[JOB_ID_MAX];		/* INSTANCE/N */
	char instance_id[ID_MAX];
	int seq;			/* N */
	char dir[1024];			/* ~/.gpurent/jobs/N on the instance, absolute */
	char name[128];
	char command[1024];		/* the command words joined, for display */
	int64_t started_at;		/* UTC seconds */
	enum remote_job_state state;
	int exit_code;			/* JOB_EXITED (and JOB_KILLED when known); else -1 */
	char then_action[16];		/* "", "stop" or "destroy" */
	enum remote_job_after after;
	char fetch[4096];		/* REMOTE\0LOCAL_DIR\0 pairs, fetch_len bytes */
	size_t fetch_len;
	char account[1024];		/* what was done after the job ended */
	char user[TEAM_NAME_MAX + 1];	/* read: who ran it ("": unknown); written: the
					   state's (state.h) */
};

/* Insert or replace the record of j. */
enum gr_err remote_job_record(struct state *st, const struct remote_job *j,
    struct gr_error *err);
/* Recorded jobs, oldest first: all (instance_id NULL) or those of one instance. Caller frees. */
enum gr_err remote_job_load(struct state *st, const char *instance_id, struct remote_job **out,
    size_t *n, struct gr_error *err);
/* The recorded jobs' ids, newest first, at most max, to fn. */
void remote_job_each_id(struct state *st, size_t max, void (*fn)(const char *id, void *ctx),
    void *ctx);
/* Move j's after-work from one step to another; false when another gpurent moved it first. */
bool remote_job_claim(struct state *st, const char *job_id, enum remote_job_after from,
    enum remote_job_after to);

#endif
