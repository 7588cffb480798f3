/*
 * history.c - one snapshot of an instance, kept in the sample history (history.h).
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/history.h"
#include "gpurent/sampler.h"
#include "gpurent/samples.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

enum gr_err
history_record(struct session *s, const struct gpu_sample *v, size_t n, int64_t now,
    struct gr_error *err)
{
	struct state *st;
	struct gpu_sample *kept = NULL;
	bool rekey = false;
	size_t i, k = 0, len;
	enum gr_err e;

	/*
	 * A GPU names its node only on an instance of several machines: its series is ID/NODE
	 * however many nodes this batch holds (--follow records one node's frame at a time).
	 */
	for (i = 0; i < n; i++)
		rekey |= v[i].index < 0 || v[i].node[0] != '\0';
	if (rekey) {
		kept = xcalloc(n + 1, sizeof(*kept));
		for (i = 0; i < n; i++) {
			if (v[i].index < 0)
				continue;
			kept[k] = v[i];
			len = strlen(kept[k].instance_id);
			if (v[i].node[0] != '\0' && len + 1 < sizeof(kept[k].instance_id)) {
				kept[k].instance_id[len] = '/';
				strlcpy_(kept[k].instance_id + len + 1, v[i].node,
				    sizeof(kept[k].instance_id) - len - 1);
			}
			k++;
		}
		v = kept;
		n = k;
	}
	if (session_state(s, &st, err) != GR_OK ||
	    samples_store(st, v, n, err) != GR_OK ||
	    samples_compact(st, now, err) != GR_OK)
		e = err->code;
	else
		e = GR_OK;
	free(kept);
	return e;
}

enum gr_err
history_sample(struct session *s, const char *id, enum metrics_source src,
    struct sample_list *out, struct gr_error *err, struct gr_error *store_err)
{
	struct gr_error ignored = { 0 };
	struct probe_snapshot snap;
	size_t first = out->n, i;

	if (store_err == NULL)
		store_err = &ignored;
	store_err->code = GR_OK;
	probe_snapshot_init(&snap);
	if (session_snapshot(s, id, src, &snap, err) != GR_OK) {
		probe_snapshot_release(&snap);
		return err->code;
	}
	for (i = 0; i < snap.gpus.n; i++)
		*sample_list_add(out) = snap.gpus.v[i];
	probe_snapshot_release(&snap);
	history_record(s, out->v + first, out->n - first, session_now(s), store_err);
	return GR_OK;
}
