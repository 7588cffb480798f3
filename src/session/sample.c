/*
 * sample.c - the one door for a sample of the record: a snapshot of an instance
 * (snapshot.c: its provider's API or the probes over ssh), kept in the sample history
 * (history.h). The watcher, the exporter, the dashboard, `metrics` and `verify` take their
 * samples here, and whatever decides (watch, audit, groups, the exporter) reads them back
 * from the history.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/sampler.h"
#include "gpurent/history.h"
#include "gpurent/session.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

enum gr_err
session_record(struct session *s, const struct gpu_sample *v, size_t n, struct gr_error *err)
{
	struct state *st;
	struct gpu_sample *kept = NULL;
	bool rekey = false;
	size_t i, k = 0, len;
	enum gr_err e;

	if (n == 0)
		return GR_OK;
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
	    samples_compact(st, session_now(s), err) != GR_OK)
		e = err->code;
	else
		e = GR_OK;
	free(kept);
	return e;
}

void
session_samples(struct session *s, struct snapshot_job *jobs, size_t n, size_t width)
{
	size_t i;

	session_snapshots(s, jobs, n, width);
	for (i = 0; i < n; i++) {
		memset(&jobs[i].store_err, 0, sizeof(jobs[i].store_err));
		if (jobs[i].rc == GR_OK)
			session_record(s, jobs[i].out->gpus.v, jobs[i].out->gpus.n,
			    &jobs[i].store_err);
	}
}

enum gr_err
session_sample(struct session *s, const char *id, enum metrics_source src,
    struct probe_snapshot *out, struct gr_error *err, struct gr_error *store_err)
{
	struct snapshot_job job = { .id = id, .src = src, .out = out };

	session_samples(s, &job, 1, 1);
	if (store_err != NULL)
		*store_err = job.store_err;
	if (job.rc != GR_OK)
		*err = job.err;
	return job.rc;
}
