/*
 * The records of jobs on instances (jobs.h): table jobs of the state database.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/jobs.h"
#include "gpurent/util.h"
#include "store_int.h"

enum gr_err
remote_job_record(struct state *st, const struct remote_job *j, struct gr_error *err)
{
	/* "fetch" quoted: a reserved word in PostgreSQL. */
	if (!store_run(st, "INSERT INTO jobs(id, instance_id, seq, name, command, started_at, "
	    "state, exit_code, then_action, after, \"fetch\", account, dir) "
	    "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
	    "instance_id = excluded.instance_id, seq = excluded.seq, name = excluded.name, "
	    "command = excluded.command, started_at = excluded.started_at, "
	    "state = excluded.state, exit_code = excluded.exit_code, "
	    "then_action = excluded.then_action, after = excluded.after, "
	    "\"fetch\" = excluded.\"fetch\", account = excluded.account, dir = excluded.dir",
	    "ttittIiitibtt", j->id, j->instance_id,
	    j->seq, j->name, j->command, j->started_at, (int)j->state, j->exit_code,
	    j->then_action, (int)j->after, (const void *)j->fetch, j->fetch_len, j->account, j->dir))
		return state_fail(st, err, "cannot record the job");
	return GR_OK;
}

static void
read_job(struct db_stmt *q, void *row)
{
	struct remote_job *j = row;
	int len = db_column_bytes(q, 10);
	const void *blob = db_column_blob(q, 10);

	store_cols(q, "ttittI-it--tt", j->id, sizeof(j->id), j->instance_id, sizeof(j->instance_id),
	    &j->seq, j->name, sizeof(j->name), j->command, sizeof(j->command), &j->started_at,
	    &j->exit_code, j->then_action, sizeof(j->then_action), j->account, sizeof(j->account),
	    j->dir, sizeof(j->dir));
	j->state = (enum remote_job_state)db_column_int(q, 6);
	j->after = (enum remote_job_after)db_column_int(q, 9);
	if (blob != NULL && len > 0 && (size_t)len <= sizeof(j->fetch)) {
		memcpy(j->fetch, blob, (size_t)len);
		j->fetch_len = (size_t)len;
	}
}

enum gr_err
remote_job_load(struct state *st, const char *instance_id, struct remote_job **out, size_t *n,
    struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT id, instance_id, seq, name, command, "
	    "started_at, state, exit_code, then_action, after, \"fetch\", account, dir FROM jobs "
	    "WHERE ?1 IS NULL OR instance_id = ?1 ORDER BY started_at, instance_id, seq", "t",
	    instance_id);

	if (!store_rows(q, (void **)out, n, sizeof(**out), read_job))
		return state_fail(st, err, "cannot read the jobs");
	return GR_OK;
}

bool
remote_job_claim(struct state *st, const char *job_id, enum remote_job_after from,
    enum remote_job_after to)
{
	return store_run(st, "UPDATE jobs SET after = ? WHERE id = ? AND after = ?", "iti",
	    (int)to, job_id, (int)from) && db_changes(state_db(st)) == 1;
}

void
remote_job_each_id(struct state *st, size_t max, void (*fn)(const char *id, void *ctx),
    void *ctx)
{
	store_each_text(st, "SELECT id FROM jobs ORDER BY started_at DESC", NULL, max, fn, ctx);
}
