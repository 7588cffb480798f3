/*
 * history.h - take a snapshot of an instance's GPUs and keep it in the sample history.
 *
 * The one place where gpurent samples an instance for the record: `metrics`, the
 * dashboard and the exporter call history_sample (or history_record for what they sampled
 * themselves), so every figure they show is also in the history (samples.h) that audit,
 * watch and `metrics --since` read. The figures come from session_snapshot: the provider's
 * API or the ssh probes, as src says.
 */
#ifndef GPURENT_HISTORY_H
#define GPURENT_HISTORY_H

#include "error.h"
#include "model.h"
#include "session.h"

/*
 * Append one sample per GPU of instance id, from src, to *out, store them and apply the history's
 * retention on the session's clock (session_now). Returns the sampling error; a failure
 * to record (a busy or unwritable database) does not lose the samples: it is returned in
 * *store_err (when not NULL; code GR_OK when they were stored).
 */
enum gr_err history_sample(struct session *s, const char *id, enum metrics_source src,
    struct sample_list *out, struct gr_error *err, struct gr_error *store_err);

/*
 * Store samples taken elsewhere and apply retention at `now` (one transaction each). The
 * samples of an instance that spans several machines (a multi-node Slurm job: samples
 * with different nodes) are kept as "ID/NODE", each node's GPUs a series of their own;
 * the row of a node that gave no sample (index -1) keeps nothing.
 */
enum gr_err history_record(struct session *s, const struct gpu_sample *v, size_t n,
    int64_t now, struct gr_error *err);

#endif
