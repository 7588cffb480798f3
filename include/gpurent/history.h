/*
 * history.h - GPU sample history in the state database.
 *
 * Everything that decides or shows history (metrics --since, the dashboard's sparklines,
 * the exporter, audit, the watcher) reads samples from here, never the network.
 *
 * Storage (tables created on first use in the state database):
 *   sample_series   one row per (instance_id, gpu index) with the GPU's uuid, name, driver,
 *                   vendor (the probe vendor whose tool last reported it over ssh, NULL
 *                   if only an API ever did) and `seen`, the OR of the validity bits of
 *                   every sample stored (a bucketed query aggregates only the fields some
 *                   sample knew); history rows carry their series' strings
 *   samples         raw samples, every field of struct gpu_sample, NULL where unknown,
 *                   keyed (series, at): kept SAMPLES_RAW_KEEP seconds (24 h)
 *   samples_minute  one-minute aggregates keyed (series, minute): min/mean/max of the
 *                   figures that vary (enum sample_stat), max or min of the rest (see
 *                   store/history.c), the number of samples and the seconds they cover; kept
 *                   SAMPLES_MINUTE_KEEP seconds (30 days)
 *   samples_hour    the hourly roll-up that samples_summary reads: one row per (instance_id,
 *                   hour) folding exactly the minute rows of that hour of the instance's
 *                   GPUs, every node's of a multi-node job (below): first and last time,
 *                   samples, utilisation seconds and
 *                   utilisation x seconds, energy, and two histograms (blobs): utilisation
 *                   seconds by whole percent, and each minute's seconds by the highest
 *                   utilisation of any GPU in it (unknown apart). Kept by samples_compact
 *                   (the hours that gained minutes and the hour retention cut are made
 *                   again) and filled once from the minute rows when a database made
 *                   before it is first opened. Raw samples are never in it.
 *   samples_gpu_hour the hourly roll-up that samples_history reads for steps of whole
 *                   hours: one row per (series, hour) folding exactly the minute rows of
 *                   that hour of that GPU, as a history bucket of that hour folds them:
 *                   samples, seconds, source, each stat's min, max, sum of mean x samples
 *                   and its weight (the samples of the minutes that knew it; NULL when
 *                   none did: unknown stays unknown), the other fields' aggregate. Kept
 *                   and filled like samples_hour.
 * Both sample tables are clustered on (series, time) with a second index on time, so a
 * range of one instance reads only its rows, and compaction deletes by time.
 *
 * Retention is driven by the caller's clock: samples_compact(st, now) folds raw samples
 * older than now - 24 h (whole minutes) into minute rows and deletes them, and drops
 * minute rows older than now - 30 d. Callers pass session_now(), so the simulator's clock
 * (GPURENT_SIM_TIME, `sim advance`) ages the history like the wall clock does. A raw
 * sample that is stored after its minute was already compacted is dropped at the next
 * compaction (the minute row is not rewritten).
 *
 * Time covered: a raw sample covers the time until the next sample of its GPU, at most
 * SAMPLES_GAP_MAX seconds (the last one covers as much as the gap before it). A longer gap
 * is missing data: it is never counted as idle, nor as energy.
 *
 * A multi-node instance (a Slurm job over several machines) keeps each node's GPUs as
 * series of their own, instance_id "ID/NODE" (session.h: session_record). Asked for by ID, the history
 * and the summary take in every node: samples_history and samples_latest return the
 * nodes' rows under their "ID/NODE", samples_summary sums them up as one instance ID, each
 * GPU of each node a GPU of its own (the id up to a "/" names the instance: no provider
 * gpurent knows has one in its ids).
 *
 * Unknown stays unknown: a field whose validity bit (MV_*) is clear is stored as NULL and
 * read back with its bit clear; an aggregate of only unknown values is unknown.
 */
#ifndef GPURENT_SAMPLES_H
#define GPURENT_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

struct state;

#define SAMPLES_RAW_KEEP	(24 * 3600)
#define SAMPLES_MINUTE_KEEP	(30 * 24 * 3600)
#define SAMPLES_GAP_MAX		120

/* Store n samples (one transaction). Fields with a clear validity bit are stored as NULL. */
enum gr_err samples_store(struct state *st, const struct gpu_sample *v, size_t n,
    struct gr_error *err);

/* Apply retention at `now` (see above). One transaction; cheap when nothing is due. */
enum gr_err samples_compact(struct state *st, int64_t now, struct gr_error *err);

/* The figures that aggregates keep as min/mean/max. */
enum sample_stat {
	SS_UTIL, SS_MEM_USED, SS_MEM_FREE, SS_MEM_UTIL, SS_TEMP, SS_TEMP_MEM, SS_POWER,
	SS_CLK_SM, SS_CLK_MEM, SS_FAN, SS_ENC, SS_DEC,
	SS__COUNT,
};
/* The MV_* validity bit of a stat. */
uint32_t sample_stat_bit(enum sample_stat k);

/*
 * One row of history: a raw sample (step 0), or a bucket of step seconds starting at
 * s.at. In a bucket, s holds each stat's mean rounded to an integer, the other fields
 * their aggregate (the highest ECC/Xid count, power limit, memory total; the lowest PCIe
 * link; the OR of the throttle reasons), s.valid the fields known in any sample of the
 * bucket, s.source the source of its samples (SAMPLE_SSH when any came over ssh).
 * min/mean/max are the bucket's (for a raw sample all three are the value); they are
 * meaningful only where s.valid has the stat's bit.
 */
struct sample_row {
	struct gpu_sample s;
	int step;
	int n;			/* raw samples in the row */
	int secs;		/* seconds they cover */
	double min[SS__COUNT], mean[SS__COUNT], max[SS__COUNT];
};

struct sample_rows {
	struct sample_row *v;
	size_t n, cap;
};
void sample_rows_init(struct sample_rows *r);
void sample_rows_release(struct sample_rows *r);

/*
 * History of one instance (instance_id, its nodes' series with it) or all (NULL), samples
 * with since <= at < until
 * (until 0: no bound), ordered by instance, GPU, time. step 0: raw samples only (what is
 * left of the range within raw retention). step > 0, a multiple of 60: buckets of step
 * seconds aligned to the epoch, built from minute aggregates and raw samples alike, so
 * one query spans both retentions. A step of whole hours reads the whole hours of the
 * range from samples_gpu_hour (a month: 720 rows a GPU, not 43200) and minute rows only
 * in the hours the range cuts: a bucket of one hour has the very figures of its minute
 * rows; in a bucket of several hours the hours' sums are added, so a mean may differ from
 * a sum in minute order in its last bit. Appends to *out.
 */
enum gr_err samples_history(struct state *st, const char *instance_id, int64_t since,
    int64_t until, int step, struct sample_rows *out, struct gr_error *err);

/* A row of a node's series: its instance_id "ID/NODE" made ID, its node NODE. */
void sample_node_split(struct gpu_sample *g);

/*
 * The latest raw sample of each GPU of one instance, every node's (or all: NULL). Appends
 * to *out.
 */
enum gr_err samples_latest(struct state *st, const char *instance_id, struct sample_list *out,
    struct gr_error *err);

/*
 * A cheap summary of each instance over since <= t < until, from raw samples and minute
 * aggregates (a minute row counts with its mean utilisation and power over its covered
 * seconds; it is idle when its highest utilisation is below the threshold). The whole
 * hours of the range are read from samples_hour, the minutes of the hours the range cuts
 * (at since and at until) from samples_minute, raw samples from samples: the figures are
 * those of the minute rows and raw samples themselves, with two bounded differences:
 * - util_p95 is a whole percent: the whole part of the exact time-weighted 95th percentile
 *   (exact when that is a whole number, as any raw sample's figure is; at most 1 below);
 *   figures outside 0..100 count as 0 or 100 in it;
 * - util_mean and energy_wh are the same sums added hour by hour, so they may differ from
 *   a sum in time order in the last of their 15-16 significant digits.
 * One case is not seen: a raw sample stored after its minute was compacted (dropped at
 * the next compaction) at exactly the time of a minute row inside a whole hour counts as
 * an instant of its own, not merged with that minute's. idle_pct is 0..100 (utilisation
 * below it is idle; values outside are taken as the nearer end); idle_s is exact for
 * every threshold, instants of several GPUs included.
 */
struct sample_summary {
	char instance_id[ID_MAX];
	int gpus;			/* distinct GPUs seen (each node's its own) */
	int64_t first, last;		/* times of the first and last sample */
	int64_t samples;		/* GPU samples (raw, or counted in minute rows) */
	int64_t covered_s;		/* seconds covered by samples (see above) */
	int64_t idle_s;			/* covered seconds in which every GPU was below idle_pct */
	bool util_known;		/* the next two are meaningful */
	double util_mean;		/* time-weighted mean over the GPUs */
	double util_p95;		/* 95th percentile of GPU utilisation, time-weighted */
	bool energy_known;
	double energy_wh;		/* sum over GPUs of power x covered time */
};
/*
 * One entry per instance with samples in the range (a multi-node job's nodes in one entry
 * under its ID: an instant is idle when every GPU of every node is); instance_id is an
 * instance's ID or NULL, never a node's ID/NODE. Caller frees *out.
 */
enum gr_err samples_summary(struct state *st, const char *instance_id, int64_t since,
    int64_t until, int idle_pct, struct sample_summary **out, size_t *n, struct gr_error *err);

#endif
