/*
 * The records of managed jobs (managed_jobs.h): tables managed_jobs and managed_attempts of
 * the state database (their leases are lease.c's).
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/managed_jobs.h"
#include "gpurent/util.h"
#include "store_int.h"

const char *
managed_state_name(enum managed_state s)
{
	static const char *const names[] = { "renting", "syncing", "running", "checkpointing",
		"recovering", "done", "failed", "cancelling", "cancelled" };

	return (size_t)s < ARRAY_LEN(names) ? names[s] : "failed";
}

bool
managed_state_live(enum managed_state s)
{
	return s != MJ_DONE && s != MJ_FAILED && s != MJ_CANCELLED;
}

bool
managed_id_valid(const char *s)
{
	if (s[0] != 'm' || s[1] == '\0')
		return false;
	for (s++; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

enum gr_err
managed_job_add(struct state *st, struct managed_job *j, struct gr_error *err)
{
	int64_t seq;

	if (state_begin(st, err) != GR_OK)
		return err->code;
	if (!store_run(st, "INSERT INTO managed_jobs(id, spec, state, attempt, recoveries, "
	    "ckpt_seq, ckpt_at, created_at, ended_at, exit_code, why, who, team) VALUES('', ?, ?, "
	    "?, 0, 0, 0, ?, 0, -1, '', ?, ?)", "tiiItt", j->spec, (int)j->state, j->attempt,
	    j->created_at, state_who(st), state_team(st)))
		goto fail;
	seq = db_last_insert_rowid(state_db(st));
	snprintf(j->id, sizeof(j->id), "m%lld", (long long)seq);
	if (!store_run(st, "UPDATE managed_jobs SET id = ? WHERE seq = ?", "tI", j->id, seq))
		goto fail;
	return state_commit(st, err);
fail:
	state_fail(st, err, "cannot record the managed job");
	state_rollback(st);
	return err->code;
}

enum gr_err
managed_job_save(struct state *st, const struct managed_job *j, struct gr_error *err)
{
	int live = managed_state_live(j->state) ? 1 : 0;

	if (!store_run(st, "UPDATE managed_jobs SET state = CASE WHEN state = ? AND ? THEN "
	    "state ELSE ? END, attempt = ?, recoveries = ?, ckpt_seq = ?, ckpt_at = ?, "
	    "ended_at = ?, exit_code = ?, why = ? WHERE id = ?", "iiiiiiIIitt",
	    (int)MJ_CANCELLING, live, (int)j->state, j->attempt, j->recoveries, j->ckpt_seq,
	    j->ckpt_at, j->ended_at, j->exit_code, j->why, j->id))
		return state_fail(st, err, "cannot record the managed job");
	return GR_OK;
}

enum gr_err
managed_job_cancel(struct state *st, const char *id, struct gr_error *err)
{
	if (!store_run(st, "UPDATE managed_jobs SET state = ? WHERE id = ? AND state NOT IN "
	    "(?, ?, ?)", "itiii", (int)MJ_CANCELLING, id, (int)MJ_DONE, (int)MJ_FAILED,
	    (int)MJ_CANCELLED))
		return state_fail(st, err, "cannot record the managed job");
	return GR_OK;
}

#define JOB_COLUMNS "id, spec, state, attempt, recoveries, ckpt_seq, ckpt_at, created_at, " \
	"ended_at, exit_code, why, who"

static void
read_job(struct db_stmt *q, void *row)
{
	struct managed_job *j = row;

	store_cols(q, "tt-iiiIIIitt", j->id, sizeof(j->id), j->spec, sizeof(j->spec), &j->attempt,
	    &j->recoveries, &j->ckpt_seq, &j->ckpt_at, &j->created_at, &j->ended_at,
	    &j->exit_code, j->why, sizeof(j->why), j->user, sizeof(j->user));
	j->state = (enum managed_state)db_column_int(q, 2);
}

enum gr_err
managed_job_get(struct state *st, const char *id, struct managed_job *j, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT " JOB_COLUMNS " FROM managed_jobs WHERE "
	    "id = ?", "t", id);
	struct managed_job *v = NULL;
	size_t n;

	if (!store_rows(q, (void **)&v, &n, sizeof(*v), read_job))
		return state_fail(st, err, "cannot read the managed jobs");
	if (n == 0) {
		free(v);
		return gr_fail(err, GR_ENOTFOUND, "no managed job '%s' ('gpurent jobs' lists them)",
		    id);
	}
	*j = v[0];
	free(v);
	return GR_OK;
}

enum gr_err
managed_job_load(struct state *st, struct managed_job **out, size_t *n, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT " JOB_COLUMNS " FROM managed_jobs ORDER BY "
	    "seq", "");

	if (!store_rows(q, (void **)out, n, sizeof(**out), read_job))
		return state_fail(st, err, "cannot read the managed jobs");
	return GR_OK;
}

enum gr_err
managed_attempt_save(struct state *st, const struct managed_attempt *a, struct gr_error *err)
{
	if (!store_run(st, "INSERT INTO managed_attempts(job_id, n, token, instance_id, gpu, "
	    "price_hour, currency, remote_job, started_at, ended_at, ssh_failing_since, lost_s, "
	    "cost, end_reason, run_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
	    "ON CONFLICT(job_id, n) DO UPDATE SET token = excluded.token, "
	    "instance_id = excluded.instance_id, gpu = excluded.gpu, "
	    "price_hour = excluded.price_hour, currency = excluded.currency, "
	    "remote_job = excluded.remote_job, started_at = excluded.started_at, "
	    "ended_at = excluded.ended_at, ssh_failing_since = excluded.ssh_failing_since, "
	    "lost_s = excluded.lost_s, cost = excluded.cost, end_reason = excluded.end_reason, "
	    "run_at = excluded.run_at", "titttIttIIIIItI", a->job_id, a->n, a->token, a->instance_id,
	    a->gpu, a->price_hour, a->currency, a->remote_job, a->started_at, a->ended_at,
	    a->ssh_failing_since, a->lost_s, a->cost, a->end, a->run_at))
		return state_fail(st, err, "cannot record the managed job's attempt");
	return GR_OK;
}

static void
read_attempt(struct db_stmt *q, void *row)
{
	struct managed_attempt *a = row;

	store_cols(q, "titttIttIIIIItI", a->job_id, sizeof(a->job_id), &a->n, a->token,
	    sizeof(a->token), a->instance_id, sizeof(a->instance_id), a->gpu, sizeof(a->gpu),
	    &a->price_hour, a->currency, sizeof(a->currency), a->remote_job, sizeof(a->remote_job),
	    &a->started_at, &a->ended_at, &a->ssh_failing_since, &a->lost_s, &a->cost, a->end,
	    sizeof(a->end), &a->run_at);
}

enum gr_err
managed_attempt_load(struct state *st, const char *job_id, struct managed_attempt **out,
    size_t *n, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT job_id, n, token, instance_id, gpu, "
	    "price_hour, currency, remote_job, started_at, ended_at, ssh_failing_since, lost_s, "
	    "cost, end_reason, run_at FROM managed_attempts WHERE job_id = ? ORDER BY n", "t", job_id);

	if (!store_rows(q, (void **)out, n, sizeof(**out), read_attempt))
		return state_fail(st, err, "cannot read the managed job's attempts");
	return GR_OK;
}
