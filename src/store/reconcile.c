/*
 * What `gpurent reconcile` keeps (reconcile_marks.h): table reconcile_marks.
 */
#include "gpurent/reconcile_marks.h"
#include "store_int.h"

static void
read_mark(struct db_stmt *q, void *row)
{
	struct reconcile_mark *m = row;

	store_col_text(q, 0, m->instance_id, sizeof(m->instance_id));
	store_col_text(q, 1, m->provider, sizeof(m->provider));
	m->adopted_at = db_column_int64(q, 2);
	m->reported = (unsigned)db_column_int(q, 3);
}

enum gr_err
reconcile_marks_load(struct state *st, struct reconcile_mark **out, size_t *n,
    struct gr_error *err)
{
	struct db_stmt *q = store_prepare(st, "SELECT instance_id, provider, adopted_at, reported "
	    "FROM reconcile_marks", "");

	if (!store_rows(q, (void **)out, n, sizeof(**out), read_mark))
		return state_fail(st, err, "cannot read the reconciled instances");
	return GR_OK;
}

enum gr_err
reconcile_mark_put(struct state *st, const struct reconcile_mark *m, struct gr_error *err)
{
	bool ok = m->adopted_at == 0 && m->reported == 0 ?
	    store_run(st, "DELETE FROM reconcile_marks WHERE instance_id = ?", "t",
	    m->instance_id) :
	    store_run(st, "INSERT INTO reconcile_marks(instance_id, provider, adopted_at, "
	    "reported) VALUES (?, ?, ?, ?) ON CONFLICT(instance_id) DO UPDATE SET "
	    "provider = excluded.provider, adopted_at = excluded.adopted_at, "
	    "reported = excluded.reported", "ttIi", m->instance_id, m->provider,
	    m->adopted_at, (int)m->reported);

	return ok ? GR_OK : state_fail(st, err, "cannot write the reconciled instances");
}
