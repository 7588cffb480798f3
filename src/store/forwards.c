/*
 * The records of background port forwards (forwards.h): table forwards of the state database.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/forwards.h"
#include "gpurent/util.h"
#include "store_int.h"

enum gr_err
remote_forward_record(struct state *st, const struct remote_forward *f, struct gr_error *err)
{
	if (!store_run(st, "INSERT INTO forwards(local_port, instance_id, remote_port, pid, "
	    "started_at) VALUES(?, ?, ?, ?, ?) ON CONFLICT(local_port) DO UPDATE SET "
	    "instance_id = excluded.instance_id, remote_port = excluded.remote_port, "
	    "pid = excluded.pid, started_at = excluded.started_at", "itiiI", f->local_port, f->instance_id,
	    f->remote_port, f->pid, f->started_at))
		return state_fail(st, err, "cannot record the forward");
	return GR_OK;
}

static void
read_forward(struct db_stmt *q, void *row)
{
	struct remote_forward *f = row;

	store_cols(q, "itiiI", &f->local_port, f->instance_id, sizeof(f->instance_id),
	    &f->remote_port, &f->pid, &f->started_at);
}

enum gr_err
remote_forward_load(struct state *st, struct remote_forward **out, size_t *n,
    struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT local_port, instance_id, remote_port, pid, "
	    "started_at FROM forwards ORDER BY local_port", "");

	if (!store_rows(q, (void **)out, n, sizeof(**out), read_forward))
		return state_fail(st, err, "cannot read the forwards");
	return GR_OK;
}

enum gr_err
remote_forward_forget(struct state *st, int local_port, struct gr_error *err)
{
	if (!store_run(st, "DELETE FROM forwards WHERE local_port = ?", "i", local_port))
		return state_fail(st, err, "cannot forget the forward");
	return GR_OK;
}
