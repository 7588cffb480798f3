/*
 * managed.h - managed jobs (src/guard/managed.c): a command that outlives its machines.
 *
 * `gpurent run --managed` asks for a GPU by requirement instead of an instance. The engine
 * rents the best candidate through the launch door (requirement.h, launch.h), copies the
 * working directory, restores the newest whole checkpoint into the checkpoint directory and
 * starts the command detached (job_engine.h), with GPURENT_JOB, GPURENT_CHECKPOINT_DIR
 * (absolute), GPURENT_ATTEMPT and, after a recovery, GPURENT_RESUMED=1 in its environment.
 * Every `every` seconds it pulls the checkpoint directory into
 * paths_data_dir()/jobs/JOB/checkpoints/: into .partial-N first, renamed N (six digits) only
 * once the pull is complete, so a pull cut short by the machine's loss is never restored;
 * the last two whole ones are kept. With every pull, and at an attempt's end while its
 * machine still answers, the attempt's log is pulled too, the same way (.partial-attempt-N,
 * renamed), to managed_log_path: what an attempt printed outlives its machine, up to the
 * last pull.
 *
 * A machine is lost when its provider no longer says it runs (stopped, outbid, failed,
 * gone), when ssh has failed for longer than `grace` while it does, or when a sample of it
 * (taken through the sampling door before each checkpoint, and when the command failed)
 * holds a fatal Xid (xid_fatal): that attempt ends "xid N". Then the attempt's end
 * is recorded (when, why, what the ledger billed for it, the work lost since the last whole
 * checkpoint), what is left of the machine is destroyed, and only once it is, the next
 * attempt rents the next candidate: never two machines at once. A command that exits
 * non-zero by itself ends the job (failed) unless retry_on_exit. On success the fetches are
 * copied back, a last checkpoint pulled, and the machine destroyed (or stopped); a
 * cancelled job (managed_cancel) gets its last checkpoint pulled and its machine destroyed.
 *
 * The engine moves in rounds: managed_round does what is due for one job and returns; a
 * controller (the attached `run --managed`, or `gpurent watch` for every job) calls it
 * again and again. Only the holder of the job's lease acts (lease.h); the lease
 * lasts MANAGED_LEASE_S past each round and is free at once when its holder is a process
 * of this machine that no longer lives; a living one keeps it MANAGED_STALE_S longer. An attempt is recorded with its client token
 * before its launch leaves, so a controller killed at any moment is followed by one that
 * looks the attempt's instance up (by its label, then by sending the create again with the
 * same token, which the provider recognises) instead of renting a second one. Its command
 * is started with the attempt's token as the start's key on the machine (job_engine.h), so
 * one killed after the start, before recording it, is followed by one that finds that start
 * instead of starting the command again.
 */
#ifndef GPURENT_MANAGED_H
#define GPURENT_MANAGED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "managed_jobs.h"

struct session;
struct state;

#define MANAGED_LEASE_S 30
/* How long past its expiry a living holder on this machine keeps the lease. */
#define MANAGED_STALE_S 600

/* What run --managed asks for. */
struct managed_request {
	const char *name;		/* NULL: none */
	const char *gpu;		/* the requirement (requirement.h, struct req_need) */
	int count;
	bool interruptible;
	const char *providers;		/* "a,b" or "": every selected one */
	int64_t max_price;		/* -1: no bound */
	const char *max_currency;
	const char *sync;		/* a local directory copied first; NULL: none */
	const char *const *excludes;
	size_t n_excludes;
	const char *ckpt_dir;		/* relative to the working directory */
	int64_t every_s;		/* between checkpoint pulls */
	const char *store_id;		/* --store: the instance that keeps the checkpoints
					   (in store_path/JOB/), NULL: this machine only */
	const char *store_path;
	const char *fetch;		/* REMOTE\0LOCAL_DIR\0 pairs (jobs.h), fetch_len bytes */
	size_t fetch_len;
	int max_attempts;
	int64_t grace_s;
	bool retry_on_exit;
	bool exhausted_fail;		/* no candidate left: fail (else wait for one) */
	bool then_stop;			/* on success stop the machine (else destroy it) */
	const char *const *env;		/* "K=V" */
	size_t n_env;
	char *const *words;
	int n_words;
};

/* Record a new job (renting its first attempt at the next round); id gets its id. */
enum gr_err managed_submit(struct session *s, const struct managed_request *r, char *id,
    size_t n, struct gr_error *err);

/* This process as a lease holder: "HOST:PID". */
void managed_holder(char *buf, size_t n);
/* Where attempt n of job id keeps its log: paths_data_dir()/jobs/ID/attempt-N.log. */
void managed_log_path(const char *id, int n, char *out, size_t size);

enum managed_turn {
	MT_LIVE,	/* acted; the job lives on */
	MT_ENDED,	/* the job is done or failed */
	MT_HELD,	/* another controller holds it: nothing done */
};

/*
 * One round of job id as `holder`: take or renew its lease, then do what is due. What it
 * did is journalled as events and, with out, said there. GR_OK with *turn set, or an
 * error that kept it from reading the job.
 */
enum gr_err managed_round(struct session *s, const char *id, const char *holder, FILE *out,
    enum managed_turn *turn, struct gr_error *err);
/* A round of every live job no other controller holds (the watcher). */
void managed_round_all(struct session *s, const char *holder, FILE *out);
/*
 * Cancel job id: mark it cancelling, then take a round as holder, which ends it (a last
 * checkpoint, its machine destroyed, the job cancelled) unless another controller holds
 * its lease (*turn MT_HELD): that one ends it at its next round. GR_ECONFLICT when the job
 * already ended.
 */
enum gr_err managed_cancel(struct session *s, const char *id, const char *holder, FILE *out,
    enum managed_turn *turn, struct gr_error *err);
/* Give the job's lease up, for the next controller to take at once. */
void managed_release(struct session *s, const char *id, const char *holder);

/*
 * What a job has cost so far: the ledger's bill of each attempt's instance (an ended one
 * as recorded at its end, the current one up to now). false when unknown: attempts in
 * different currencies, or none rented yet with a price. *cost in currency.
 */
bool managed_cost(struct session *s, const struct managed_attempt *v, size_t n, int64_t *cost,
    char *currency);
/* A managed job with the figures `jobs --managed` and the dashboard show. */
struct managed_row {
	struct managed_job j;
	char name[128];			/* its --name; "" none */
	char command[1024];		/* its command, as `jobs` shows a run's */
	bool then_stop;			/* --then stop (else destroy) */
	char instance[ID_MAX];		/* the current (or last) attempt's machine; "" none */
	int64_t ckpt_age;		/* since the newest whole checkpoint (to the job's end
					   once it ended); -1 none */
	int64_t lost_s;			/* managed_lost */
	int64_t cost;			/* managed_cost, when cost_known */
	char currency[CURRENCY_MAX];
	bool cost_known;
};
/* Every managed job, or only `want` (GR_ENOTFOUND when there is none), oldest first, with
   its figures at now. Caller frees. */
enum gr_err managed_rows(struct session *s, const char *want, int64_t now,
    struct managed_row **out, size_t *n, struct gr_error *err);
/* The seconds of work lost over the attempts (each: from its last whole checkpoint, or its
   start, to its loss). */
int64_t managed_lost(const struct managed_attempt *v, size_t n);

#endif
