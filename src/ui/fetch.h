/*
 * fetch.h - the dashboard's data path beside the UI loop.
 *
 * Backends are synchronous, so each (job kind, provider) pair gets a lane: one thread with
 * its own struct session limited to that provider (its own config, database connection and
 * backend). A provider that hangs holds up only its own lanes; the screen keeps drawing
 * from what it has, and the other providers keep refreshing. The UI thread never calls a
 * backend.
 *
 * Requests are "latest wins": asking a busy lane again replaces its pending request.
 * Finished jobs are queued as results and announced by a byte on ui_fetch_fd(), which the
 * UI loop polls beside the terminal.
 */
#ifndef GPURENT_UI_FETCH_H
#define GPURENT_UI_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "gpurent/audit.h"
#include "gpurent/costs.h"
#include "gpurent/error.h"
#include "gpurent/events.h"
#include "gpurent/filter.h"
#include "gpurent/model.h"
#include "gpurent/remote_job.h"
#include "gpurent/session.h"

enum ui_job {
	UJ_OFFERS,		/* one provider's offers, with the filter pushed down */
	UJ_INSTANCES,		/* one provider's instances, and the clock */
	UJ_METRICS,		/* one instance's GPU samples */
	UJ_ACTION,		/* launch, stop, start or destroy */
	UJ_COSTS,		/* the ledger: totals, by provider, by label (no provider),
				   and the watcher's newest events */
	UJ_JOBLOGS,		/* one instance's recorded jobs and their last log lines (ssh) */
	UJ_JUPYTER,		/* one instance's Jupyter, forwarded in the background (ssh) */
	UJ_CLUSTER,		/* a cluster's partitions and the user's jobs (CAP_CLUSTER) */
	UJ__COUNT,
};

/* The newest jobs of an instance whose logs are fetched, and how many lines of each. */
#define UI_JOB_LOGS 3
#define UI_LOG_LINES 5

/* The end of one job's log as the instance sent it: raw bytes, stripped when shown. */
struct ui_job_log {
	char job_id[JOB_ID_MAX];
	char text[2048];
	char err[200];			/* "" when it was read */
};

enum ui_action { UA_LAUNCH, UA_STOP, UA_START, UA_DESTROY };

struct ui_request {
	struct filter filter;		/* UJ_OFFERS */
	char id[ID_MAX];		/* UJ_METRICS, UJ_ACTION: instance or offer id */
	bool history;			/* UJ_METRICS: also the last hour from the history */
	enum ui_action action;
	bool interruptible;		/* UA_LAUNCH: the offer's type */
	int64_t price_hour;		/* UA_LAUNCH: the offer's price as seen (the bid follows) */
	char currency[CURRENCY_MAX];	/* of price_hour */
};

/* The most events the events view holds. */
#define UI_MAX_EVENTS 500
/* The audit line's currencies, at most this many. */
#define UI_MAX_CURRENCIES 8

struct ui_result {
	struct ui_result *next;
	enum ui_job job;
	int provider;			/* index given to ui_fetch_new; -1 for UJ_COSTS */
	struct ui_request req;
	enum gr_err code;
	struct gr_error err;
	int64_t now;			/* the provider's clock when the job ended */
	struct offer_list offers;
	bool unasked;			/* UJ_OFFERS: the market's stamp says the answer the
					   view holds is still the provider's: nothing was
					   fetched, offers is empty */
	struct instance_list instances;
	struct sample_list samples;
	struct sample_list history;	/* UJ_METRICS with req.history: raw samples, oldest
					   first, the new ones included */
	struct instance launched;	/* UA_LAUNCH */
	struct cost_set costs, by_provider, by_label;	/* UJ_COSTS: as `gpurent costs` */
	struct event *events;		/* UJ_COSTS: the watcher's newest, oldest first */
	size_t n_events;
	struct audit_row audit;		/* UJ_COSTS: the audit of the last 7 days, in total */
	struct audit_row audit_per[UI_MAX_CURRENCIES];	/* UJ_COSTS: and per currency */
	size_t n_audit_per;
	int audit_target;		/* audit.target */
	struct remote_job *jobs;	/* UJ_JOBLOGS: recorded, oldest first; states read live */
	size_t n_jobs;
	struct ui_job_log logs[UI_JOB_LOGS];	/* UJ_JOBLOGS: the newest jobs' */
	size_t n_logs;
	char url[700];			/* UJ_JUPYTER: with its token, stripped */
	struct cluster_state cluster;	/* UJ_CLUSTER */
};

struct ui_fetch;

/*
 * Start the lanes for providers[0..n-1] (static names, e.g. backend ops names), with
 * the profile of the command's session. Signals are blocked in every lane, so SIGWINCH,
 * SIGINT and SIGTERM reach the UI thread.
 */
struct ui_fetch *ui_fetch_new(const char *const *providers, size_t n, const char *profile);

/* Ask a lane for a job; provider is ignored for UJ_COSTS. Every other job has a lane per
 * provider: UJ_JOBLOGS and UJ_JUPYTER the instance's, so a hanging ssh holds up only them. */
void ui_fetch_request(struct ui_fetch *f, enum ui_job job, int provider,
    const struct ui_request *req);

/* Seconds the lane has been working on its current job; -1 when idle. */
double ui_fetch_busy(struct ui_fetch *f, enum ui_job job, int provider);

/* The descriptor that becomes readable when results are waiting. */
int ui_fetch_fd(const struct ui_fetch *f);

/* Take every finished result (oldest first) and clear the descriptor. */
struct ui_result *ui_fetch_take(struct ui_fetch *f);
void ui_result_free(struct ui_result *r);

/*
 * Stop the lanes. Lanes blocked in a provider are left to finish on their own: they
 * free their session, and the last one out frees what is shared.
 */
void ui_fetch_free(struct ui_fetch *f);

#endif
