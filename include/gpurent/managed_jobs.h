/*
 * managed_jobs.h - the records of managed jobs (src/store/managed.c): tables managed_jobs
 * and managed_attempts of the state database (each job's lease is a lease, lease.h).
 *
 * A managed job (run --managed, managed.h) is a request that outlives its machines: each
 * machine it ran on is an attempt, recorded before its launch leaves (with the launch's
 * client token), so that a controller killed at any point finds what it was doing. One
 * controller acts on a job at a time: the one holding its lease row.
 */
#ifndef GPURENT_MANAGED_JOBS_H
#define GPURENT_MANAGED_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "jobs.h"
#include "model.h"
#include "state.h"

#define MANAGED_ID_MAX 24
#define MANAGED_SPEC_MAX 16384

/* Where a managed job is: live until it is done, failed or cancelled. New states go last:
   the state database keeps the number. */
enum managed_state {
	MJ_RENTING,		/* its attempt's machine is being rented or starting */
	MJ_SYNCING,		/* the machine runs: sync, restore and start */
	MJ_RUNNING,
	MJ_CHECKPOINTING,	/* a checkpoint is being pulled */
	MJ_RECOVERING,		/* the machine was lost: its end recorded, the next attempt due */
	MJ_DONE,
	MJ_FAILED,
	MJ_CANCELLING,		/* cancelled (managed_cancel): its controller ends it next */
	MJ_CANCELLED,
};
const char *managed_state_name(enum managed_state s);
/* Whether a job in state s still lives (a controller has work for it). */
bool managed_state_live(enum managed_state s);
/* Whether s is a managed job's id: m and digits. */
bool managed_id_valid(const char *s);

struct managed_job {
	char id[MANAGED_ID_MAX];	/* "m1", "m2", ... */
	char spec[MANAGED_SPEC_MAX];	/* the request, as managed.c writes it (JSON) */
	enum managed_state state;
	int attempt;			/* the current (or last) attempt, from 1 */
	int recoveries;			/* machines lost and replaced */
	int ckpt_seq;			/* the newest whole checkpoint's number; 0: none */
	int64_t ckpt_at;		/* when it was pulled (UTC seconds); 0: none */
	int64_t created_at, ended_at;	/* ended_at 0 while it lives */
	int exit_code;			/* the command's, once it ended; -1 before */
	char why[512];			/* how it ended, or what it waits for */
	char user[TEAM_NAME_MAX + 1];	/* read: who ran it ("": unknown); written: the
					   state's (state.h) */
};

struct managed_attempt {
	char job_id[MANAGED_ID_MAX];
	int n;				/* 1, 2, ... */
	char token[40];			/* the launch's client token */
	char instance_id[ID_MAX];	/* "" until rented */
	char gpu[64];
	int64_t price_hour;		/* what it bills per hour, in currency; -1 unknown */
	char currency[CURRENCY_MAX];
	char remote_job[JOB_ID_MAX];	/* INSTANCE/N once the command started; "" before */
	int64_t started_at;		/* when it was recorded (UTC seconds) */
	int64_t run_at;			/* when its command started; 0 before */
	int64_t ended_at;		/* 0 while it is the current one */
	int64_t ssh_failing_since;	/* the first of an unbroken run of failed looks; 0 none */
	int64_t lost_s;			/* work lost since the last whole checkpoint; 0 */
	int64_t cost;			/* what the ledger billed for it; -1 unknown */
	char end[256];			/* why it ended; "" while current */
};

/* A new job from j (its spec and created_at): j->id gets its id. */
enum gr_err managed_job_add(struct state *st, struct managed_job *j, struct gr_error *err);
/* Write j's fields back; a cancel mark (MJ_CANCELLING) stays under a live state, so a
   controller in the middle of a round does not undo it. */
enum gr_err managed_job_save(struct state *st, const struct managed_job *j,
    struct gr_error *err);
/* Job id into j; GR_ENOTFOUND when there is none. */
enum gr_err managed_job_get(struct state *st, const char *id, struct managed_job *j,
    struct gr_error *err);
/* Mark job id cancelling, when it lives. */
enum gr_err managed_job_cancel(struct state *st, const char *id, struct gr_error *err);
/* Every job, oldest first. Caller frees. */
enum gr_err managed_job_load(struct state *st, struct managed_job **out, size_t *n,
    struct gr_error *err);

/* Insert or replace attempt a. */
enum gr_err managed_attempt_save(struct state *st, const struct managed_attempt *a,
    struct gr_error *err);
/* The job's attempts, first first. Caller frees. */
enum gr_err managed_attempt_load(struct state *st, const char *job_id,
    struct managed_attempt **out, size_t *n, struct gr_error *err);

#endif
