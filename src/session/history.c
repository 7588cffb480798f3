/*
 * history.c - one snapshot of an instance, kept in the sample history (history.h).
 */
#include <string.h>

#include "gpurent/history.h"
#include "gpurent/samples.h"
#include "gpurent/state.h"

enum gr_err
history_record(struct session *s, const struct gpu_sample *v, size_t n, int64_t now,
    struct gr_error *err)
{
	struct state *st;

	if (session_state(s, &st, err) != GR_OK ||
	    samples_store(st, v, n, err) != GR_OK ||
	    samples_compact(st, now, err) != GR_OK)
		return err->code;
	return GR_OK;
}

enum gr_err
history_sample(struct session *s, const char *id, struct sample_list *out,
    struct gr_error *err, struct gr_error *store_err)
{
	struct gr_error ignored = { 0 };
	struct backend *b;
	size_t first = out->n;

	if (store_err == NULL)
		store_err = &ignored;
	store_err->code = GR_OK;
	if (session_backend_for(s, id, &b, err) != GR_OK ||
	    backend_require(b->ops, CAP_METRICS, NULL, err) != GR_OK ||
	    b->ops->metrics(b, id, out, err) != GR_OK)
		return err->code;
	history_record(s, out->v + first, out->n - first, session_now(s), store_err);
	return GR_OK;
}
