/*
 * lanes.h - the dashboard's data path beside the UI loop (src/session/lanes.c).
 *
 * Backends are synchronous, so each (job kind, provider) pair gets a lane: one thread with
 * its own struct session limited to that provider (its own config, database connection and
 * backend). A provider that hangs holds up only its own lanes; the screen keeps drawing
 * from what it has, and the other providers keep refreshing. The UI thread never calls a
 * backend.
 *
 * Requests are "latest wins": asking a busy lane again replaces its pending request.
 * Finished jobs are queued as results and announced by a byte on lanes_fd(), which the UI
 * loop polls beside the terminal.
 *
 * What needs the layers above the session (a launch or start admitted by the guard, the
 * audit) the dashboard hands in as handlers (struct lane_ops).
 */
#ifndef GPURENT_LANES_H
#define GPURENT_LANES_H

#include <stdbool.h>
#include <stdint.h>

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
				   the watcher's newest events and the managed jobs */
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

/* UA_CANCEL: the managed job req.id (run --managed), in its current machine's lane. */
enum ui_action { UA_LAUNCH, UA_STOP, UA_START, UA_DESTROY, UA_CANCEL };

struct lane_request {
	struct filter filter;		/* UJ_OFFERS */
	char id[ID_MAX];		/* UJ_METRICS, UJ_ACTION: instance or offer id */
	bool history;			/* UJ_METRICS: also the last hour from the history */
	enum ui_action action;
	bool interruptible;		/* UA_LAUNCH: the offer's type */
	int64_t price_hour;		/* UA_LAUNCH: the offer's price as seen (the bid follows) */
	char currency[CURRENCY_MAX];	/* of price_hour */
};

/* The costs view's audit line, filled by lane_ops.audit, and the managed jobs, by
   lane_ops.managed: types of the layers above. */
struct ui_audit;
struct managed_row;

/* The most events the events view holds. */
#define UI_MAX_EVENTS 500

struct ui_result {
	struct ui_result *next;
	enum ui_job job;
	int provider;			/* index given to lanes_new; -1 for UJ_COSTS */
	struct lane_request req;
	enum gr_err code;
	struct gr_error err;
	int64_t now;			/* the provider's clock when the job ended */
	double took;			/* seconds the lane spent on the job (GPURENT_UI_TRACE) */
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
	struct ui_audit *audit;		/* UJ_COSTS: lane_ops.audit's (one flat block, freed
					   with the result) */
	struct managed_row *managed;	/* UJ_COSTS: lane_ops.managed's (one flat block) */
	size_t n_managed;
	struct remote_job *jobs;	/* UJ_JOBLOGS: recorded, oldest first; states read live */
	size_t n_jobs;
	struct ui_job_log logs[UI_JOB_LOGS];	/* UJ_JOBLOGS: the newest jobs' */
	size_t n_logs;
	char url[700];			/* UJ_JUPYTER: with its token, stripped */
	struct cluster_state cluster;	/* UJ_CLUSTER */
};

/*
 * The jobs that need the layers above the session, handed in by the dashboard: a job
 * fills r (and r->err) and returns its code.
 */
struct lane_ops {
	/* UJ_ACTION: launch, stop, start, destroy or cancel what r->req names. */
	enum gr_err (*action)(struct session *s, struct ui_result *r);
	/* UJ_COSTS, after the costs (at clk): the audit line, as r->audit. */
	enum gr_err (*audit)(struct session *s, struct state *st, const struct cost_clock *clk,
	    struct ui_result *r);
	/* UJ_COSTS, after the audit: the managed jobs with their figures, as r->managed. */
	enum gr_err (*managed)(struct session *s, struct ui_result *r);
};

struct lanes;

/*
 * Start the lanes for providers[0..n-1] (static names, e.g. backend ops names), with
 * the profile of the command's session; ops (static) does the jobs it names. Signals are
 * blocked in every lane, so SIGWINCH, SIGINT and SIGTERM reach the UI thread.
 */
struct lanes *lanes_new(const char *const *providers, size_t n, const char *profile,
    const struct lane_ops *ops);

/* Ask a lane for a job; provider is ignored for UJ_COSTS. Every other job has a lane per
 * provider: UJ_JOBLOGS and UJ_JUPYTER the instance's, so a hanging ssh holds up only them. */
void lanes_request(struct lanes *f, enum ui_job job, int provider,
    const struct lane_request *req);

/* Seconds the lane has been working on its current job; -1 when idle. */
double lanes_busy(struct lanes *f, enum ui_job job, int provider);

/* The descriptor that becomes readable when results are waiting. */
int lanes_fd(const struct lanes *f);

/* Take every finished result (oldest first) and clear the descriptor. */
struct ui_result *lanes_take(struct lanes *f);
void lanes_result_free(struct ui_result *r);

/*
 * Stop the lanes. Lanes blocked in a provider are left to finish on their own: they
 * free their session, and the last one out frees what is shared.
 */
void lanes_free(struct lanes *f);

#endif
