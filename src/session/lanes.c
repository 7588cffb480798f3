/*
 * The dashboard's lanes (lanes.h): one thread and one session per (job kind, provider).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/job_engine.h"
#include "gpurent/lanes.h"
#include "gpurent/paths.h"
#include "gpurent/remote_forward.h"
#include "gpurent/history.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

struct lane {
	struct lanes *f;
	enum ui_job job;
	int provider;
	const char *name;		/* NULL for the costs lane */
	pthread_cond_t cond;
	bool has_req;
	struct lane_request req;
	bool busy;
	struct timespec since;
	bool cache_tried;		/* UJ_OFFERS: the first answer may come from the cache */
	/* UJ_OFFERS: the market stamp of the answer the view holds (every answer that
	 * succeeds is taken in), and the filter it was asked with */
	bool held_stamped;
	uint64_t held_stamp;
	struct filter held_filter;
};

struct lanes {
	pthread_mutex_t mu;
	int refs;			/* the UI, plus each lane still running */
	bool stop;
	int pipe[2];
	char profile[64];
	bool has_profile;
	const struct lane_ops *ops;	/* what needs the layers above */
	size_t n;			/* providers */
	struct lane *lanes;
	size_t n_lanes;
	struct ui_result *head, *tail;
};

/* Lanes by provider for every job but UJ_COSTS, which has one lane, the last. */
static size_t
provider_kind(enum ui_job job)
{
	return job < UJ_COSTS ? (size_t)job : (size_t)job - 1;
}

static struct lane *
lane_for(struct lanes *f, enum ui_job job, int provider)
{
	if (job == UJ_COSTS)
		return &f->lanes[f->n_lanes - 1];
	if (provider < 0 || (size_t)provider >= f->n)
		return NULL;
	return &f->lanes[provider_kind(job) * f->n + (size_t)provider];
}

static void
free_shared(struct lanes *f)
{
	struct ui_result *r, *next;
	size_t i;

	for (r = f->head; r != NULL; r = next) {
		next = r->next;
		lanes_result_free(r);
	}
	for (i = 0; i < f->n_lanes; i++)
		pthread_cond_destroy(&f->lanes[i].cond);
	close(f->pipe[0]);
	close(f->pipe[1]);
	pthread_mutex_destroy(&f->mu);
	free(f->lanes);
	free(f);
}

void
lanes_result_free(struct ui_result *r)
{
	if (r == NULL)
		return;
	offer_list_release(&r->offers);
	instance_list_release(&r->instances);
	sample_list_release(&r->samples);
	sample_list_release(&r->history);
	cost_set_release(&r->costs);
	cost_set_release(&r->by_provider);
	cost_set_release(&r->by_label);
	free(r->events);
	free(r->jobs);
	free(r->audit);
	free(r->managed);
	cluster_state_release(&r->cluster);
	free(r);
}

static enum gr_err
do_costs(struct session *s, const struct lane_ops *ops, struct ui_result *r)
{
	struct cost_clock clk;
	struct config *cfg;
	struct fx_rates fx;
	struct state *st;

	if (session_state(s, &st, &r->err) != GR_OK || session_config(s, &cfg, &r->err) != GR_OK)
		return r->err.code;
	session_clock(s, &clk);
	r->now = clk.sim_shown ? clk.sim : clk.wall;
	/* What `gpurent costs` shows: each currency on its own, converted only at the rates. */
	config_fx(cfg, &fx);
	if (costs_compute_set(st, &clk, 0, CG_NONE, &fx, NULL, &r->costs, &r->err) != GR_OK ||
	    costs_compute_set(st, &clk, 0, CG_PROVIDER, &fx, NULL, &r->by_provider, &r->err) !=
	    GR_OK ||
	    costs_compute_set(st, &clk, 0, CG_LABEL, &fx, NULL, &r->by_label, &r->err) != GR_OK ||
	    events_load(st, 0, 0, UI_MAX_EVENTS, &r->events, &r->n_events, &r->err) != GR_OK)
		return r->err.code;
	if (ops->audit(s, st, &clk, r) != GR_OK)
		return r->err.code;
	return ops->managed(s, r);
}

/* Sparklines look back this far when an instance is first watched. */
#define HISTORY_SPAN 3600

/*
 * One sample of the watched instance, kept in the history like every other; on the first
 * request for an instance, the history of the last hour too, so its sparklines start full.
 */
static enum gr_err
do_metrics(struct session *s, struct ui_result *r)
{
	struct gr_error ignored = { 0 };
	struct probe_snapshot snap;
	struct sample_rows rows;
	struct state *st;
	size_t i;
	enum gr_err rc;

	probe_snapshot_init(&snap);
	rc = session_sample(s, r->req.id, METRICS_API, &snap, &r->err, NULL);
	for (i = 0; rc == GR_OK && i < snap.gpus.n; i++)
		*sample_list_add(&r->samples) = snap.gpus.v[i];
	probe_snapshot_release(&snap);
	r->now = session_now(s);
	if (!r->req.history || session_state(s, &st, &ignored) != GR_OK)
		return rc;
	sample_rows_init(&rows);
	/*
	 * Without the history the view still works: it starts from this sample. Without a
	 * sample (a provider with no API metrics, such as Slurm) it still has the history
	 * that metrics, watch or the exporter took over ssh, every node's of a multi-node job.
	 */
	if (samples_history(st, r->req.id, r->now - HISTORY_SPAN, 0, 0, &rows, &ignored) ==
	    GR_OK)
		for (i = 0; i < rows.n; i++) {
			sample_node_split(&rows.v[i].s);
			*sample_list_add(&r->history) = rows.v[i].s;
		}
	sample_rows_release(&rows);
	return rc;
}

/*
 * A batch job (run --provider: seq 0, the scheduler's job is its "instance"): its state from
 * the scheduler and its output where `logs` reads it (session_batch_tail), never the ssh
 * jobs' ~/.gpurent/jobs/N of a machine.
 */
static enum gr_err
do_batchlog(struct session *s, struct state *st, struct ui_result *r)
{
	struct ui_job_log *lg = &r->logs[r->n_logs++];
	struct gr_error err = { 0 };
	struct sb text;

	/* A scheduler that does not answer leaves the recorded state; the log may still come. */
	(void)session_batch_refresh(s, st, &r->jobs[0], &err);
	strlcpy_(lg->job_id, r->jobs[0].id, sizeof(lg->job_id));
	sb_init(&text);
	gr_error_clear(&err);
	if (session_batch_tail(s, &r->jobs[0], UI_LOG_LINES, &text, sizeof(lg->text) - 1,
	    &err) == GR_OK)
		strlcpy_(lg->text, text.buf, sizeof(lg->text));
	else
		strlcpy_(lg->err, err.msg[0] ? err.msg : _("cannot read the output"), sizeof(lg->err));
	sb_release(&text);
	return GR_OK;
}

/*
 * The instance's recorded jobs, the states of those recorded running read from the instance,
 * and the last lines of the newest ones' logs. The records come back even when ssh fails.
 */
static enum gr_err
do_joblogs(struct session *s, struct ui_result *r)
{
	struct remote_endpoint ep;
	struct state *st;
	struct sb text;
	size_t i;

	if (session_state(s, &st, &r->err) != GR_OK ||
	    remote_job_load(st, r->req.id, &r->jobs, &r->n_jobs, &r->err) != GR_OK)
		return r->err.code;
	if (r->n_jobs == 0)
		return GR_OK;
	if (r->n_jobs == 1 && r->jobs[0].seq == 0)
		return do_batchlog(s, st, r);
	if (session_endpoint(s, r->req.id, &ep, &r->err) != GR_OK)
		return r->err.code;
	ep.batch = true;		/* nothing may prompt under curses */
	if (jobs_poll(&ep, r->jobs, r->n_jobs, NULL, &r->err) != 0)
		return r->err.code != GR_OK ? r->err.code : GR_EFAIL;
	sb_init(&text);
	for (i = r->n_jobs > UI_JOB_LOGS ? r->n_jobs - UI_JOB_LOGS : 0; i < r->n_jobs; i++) {
		struct ui_job_log *lg = &r->logs[r->n_logs++];
		struct gr_error err = { 0 };
		int rc;

		strlcpy_(lg->job_id, r->jobs[i].id, sizeof(lg->job_id));
		sb_reset(&text);
		rc = remote_job_tail(&ep, r->jobs[i].seq, UI_LOG_LINES, &text, sizeof(lg->text) - 1,
		    &err);
		if (rc != 0) {
			strlcpy_(lg->err, err.msg[0] ? err.msg : _("cannot read the log"),
			    sizeof(lg->err));
			if (rc == REMOTE_EXIT_CONN)
				break;
		} else
			strlcpy_(lg->text, text.buf, sizeof(lg->text));
	}
	sb_release(&text);
	return GR_OK;
}

/* The instance's Jupyter, as `forward --jupyter --background` does it: a recorded forward
 * that outlives the dashboard. A live one to the same server is used again. */
static enum gr_err
do_jupyter(struct session *s, struct ui_result *r)
{
	struct remote_endpoint ep;
	struct remote_jupyter j;
	struct remote_forward f, *v = NULL;
	struct state *st;
	char log_path[4200], base[300], token[300];
	size_t n = 0, i;
	struct gr_error *err = &r->err;

	if (session_endpoint(s, r->req.id, &ep, err) != GR_OK)
		return err->code;
	ep.batch = true;
	if (ep.proxy_only)
		return gr_fail(err, GR_EUNSUPPORTED, "'%s' is reachable only through RunPod's ssh "
		    "proxy, which carries no port forwards; expose TCP port 22 on the pod",
		    ep.name);
	if (remote_jupyter_find(&ep, &j, err) != GR_OK || session_state(s, &st, err) != GR_OK ||
	    remote_forward_load(st, &v, &n, err) != GR_OK)
		return err->code;
	memset(&f, 0, sizeof(f));
	for (i = 0; i < n; i++)
		if (strcmp(v[i].instance_id, ep.name) == 0 && v[i].remote_port == j.port &&
		    remote_forward_alive(&v[i]))
			f = v[i];
	free(v);
	if (f.pid == 0) {
		f.remote_port = j.port;
		if ((f.local_port = remote_free_port(j.port)) < 0)
			return gr_fail(err, GR_EFAIL, "no free local port");
		snprintf(log_path, sizeof(log_path), "%s/forward-%d.log", paths_state_dir(),
		    f.local_port);
		if (remote_forward_start(&ep, &f, 1, true, log_path, session_now(s), err) != GR_OK)
			return err->code;
		if (remote_forward_record(st, &f, err) != GR_OK) {
			remote_forward_end(&f);
			return err->code;
		}
	}
	/* The instance wrote the base and the token: nothing of them may steer a terminal. */
	text_sanitize(base, sizeof(base), j.base_url);
	text_sanitize(token, sizeof(token), j.token);
	snprintf(r->url, sizeof(r->url), "http://127.0.0.1:%d%s%s%s", f.local_port, base,
	    token[0] ? "?token=" : "", token);
	return GR_OK;
}

/* The lane's one provider, when it is a cluster (the view asks only those). */
static enum gr_err
do_cluster(struct session *s, struct ui_result *r)
{
	struct backend *b;

	if (session_backends(s, &r->err) != GR_OK)
		return r->err.code;
	b = s->backends[0];
	if (backend_require(b->ops, CAP_CLUSTER, NULL, &r->err) != GR_OK)
		return r->err.code;
	return b->ops->cluster(b, &r->cluster, &r->err);
}

/*
 * The first answer from the cache, whatever its age; then always fresh, unless the
 * provider's market stamp (session_offers_stamp, read before asking) is that of the answer
 * the view holds, for the same filter: then nothing is fetched and the result says so
 * (unasked). 100,000 simulated offers cost a copy of 34 MB per ask, every 30 s.
 */
static void
do_offers(struct session *s, struct lane *l, struct ui_result *r, struct fanout_result *res)
{
	uint64_t stamp = 0;
	bool stamped = l->cache_tried && session_offers_stamp(s, &r->req.filter, &stamp);

	if (stamped && l->held_stamped && stamp == l->held_stamp &&
	    memcmp(&r->req.filter, &l->held_filter, sizeof(l->held_filter)) == 0) {
		r->code = GR_OK;
		r->unasked = true;
		return;
	}
	r->code = session_offers_aged(s, &r->req.filter, l->cache_tried ? -1 : LLONG_MAX,
	    &r->offers, res, &r->err);
	l->cache_tried = true;
	/* A failed ask leaves the view with the answer it held, and the lane its stamp. */
	if (r->code == GR_OK) {
		l->held_stamped = stamped;	/* never one from the cache: its market is gone */
		l->held_stamp = stamp;
		l->held_filter = r->req.filter;
	}
}

/*
 * Returns true when the result came from the offer cache: the lane then asks the provider
 * at once, so the view shows the kept offers while the fresh ones are on their way.
 */
static bool
run_job(struct session *s, struct lane *l, struct ui_result *r)
{
	bool cached = false;
	struct fanout_result res[SESSION_MAX_PROVIDERS];

	memset(res, 0, sizeof(res));
	session_state_retry(s);
	switch (l->job) {
	case UJ_OFFERS:
		cached = !l->cache_tried;
		do_offers(s, l, r, res);
		cached = cached && r->code == GR_OK && s->n_backends == 1 && res[0].from_cache;
		break;
	case UJ_INSTANCES:
		r->code = session_instances(s, &r->instances, res, &r->err);
		r->now = session_now(s);
		break;
	case UJ_METRICS:
		r->code = do_metrics(s, r);
		break;
	case UJ_ACTION:
		r->code = l->f->ops->action(s, r);
		break;
	case UJ_JOBLOGS:
		r->code = do_joblogs(s, r);
		break;
	case UJ_JUPYTER:
		r->code = do_jupyter(s, r);
		break;
	case UJ_CLUSTER:
		r->code = do_cluster(s, r);
		break;
	default:
		r->code = do_costs(s, l->f->ops, r);
		break;
	}
	/* A fan-out over one provider: its own message, without the "name: " prefix. */
	if ((l->job == UJ_OFFERS || l->job == UJ_INSTANCES) && r->code != GR_OK &&
	    s->n_backends == 1 && res[0].code != GR_OK) {
		r->code = res[0].code;
		r->err = res[0].err;
	}
	if (r->code != GR_OK && r->err.msg[0] == '\0')
		gr_fail(&r->err, r->code, "%s", gr_err_name(r->code));
	return cached;
}

static void *
lane_main(void *arg)
{
	struct lane *l = arg;
	struct lanes *f = l->f;
	struct session s;
	struct ui_result *r;
	struct lane_request again;
	struct timespec done;
	bool last, cached;
	char b = 1;

	session_init(&s);
	s.interactive = false;
	s.sim_notice_done = true;	/* nothing may reach stderr under curses */
	s.profile = f->has_profile ? f->profile : NULL;
	if (l->name != NULL) {
		s.providers[0] = l->name;
		s.n_providers = 1;
	}
	pthread_mutex_lock(&f->mu);
	for (;;) {
		while (!f->stop && !l->has_req)
			pthread_cond_wait(&l->cond, &f->mu);
		if (f->stop)
			break;
		r = xcalloc(1, sizeof(*r));
		r->job = l->job;
		r->provider = l->provider;
		r->req = l->req;
		l->has_req = false;
		l->busy = true;
		clock_gettime(CLOCK_MONOTONIC, &l->since);
		pthread_mutex_unlock(&f->mu);

		offer_list_init(&r->offers);
		instance_list_init(&r->instances);
		sample_list_init(&r->samples);
		sample_list_init(&r->history);
		cached = run_job(&s, l, r);
		clock_gettime(CLOCK_MONOTONIC, &done);
		r->took = (double)(done.tv_sec - l->since.tv_sec) +
		    (double)(done.tv_nsec - l->since.tv_nsec) / 1e9;
		again = r->req;

		pthread_mutex_lock(&f->mu);
		l->busy = false;
		if (f->stop) {
			lanes_result_free(r);
			break;
		}
		if (f->tail != NULL)
			f->tail->next = r;
		else
			f->head = r;
		f->tail = r;
		if (cached && !l->has_req) {
			l->req = again;
			l->has_req = true;
		}
		/* The pipe is non-blocking: a full pipe already says "results waiting". */
		if (write(f->pipe[1], &b, 1) < 0 && errno != EAGAIN)
			break;
	}
	last = --f->refs == 0;
	pthread_mutex_unlock(&f->mu);
	session_release(&s);
	if (last)
		free_shared(f);
	return NULL;
}

struct lanes *
lanes_new(const char *const *providers, size_t n, const char *profile,
    const struct lane_ops *ops)
{
	struct lanes *f = xcalloc(1, sizeof(*f));
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;
	size_t i;

	pthread_mutex_init(&f->mu, NULL);
	if (pipe(f->pipe) != 0) {
		pthread_mutex_destroy(&f->mu);
		free(f);
		return NULL;
	}
	for (i = 0; i < 2; i++) {
		fcntl(f->pipe[i], F_SETFL, fcntl(f->pipe[i], F_GETFL) | O_NONBLOCK);
		fcntl(f->pipe[i], F_SETFD, FD_CLOEXEC);
	}
	if (profile != NULL) {
		strlcpy_(f->profile, profile, sizeof(f->profile));
		f->has_profile = true;
	}
	f->ops = ops;
	f->n = n;
	f->n_lanes = (size_t)(UJ__COUNT - 1) * n + 1;
	f->lanes = xcalloc(f->n_lanes, sizeof(*f->lanes));
	for (i = 0; i < f->n_lanes; i++) {
		struct lane *l = &f->lanes[i];

		l->f = f;
		l->job = i + 1 == f->n_lanes ? UJ_COSTS : (enum ui_job)(i / n < UJ_COSTS ? i / n :
		    i / n + 1);
		l->provider = l->job == UJ_COSTS ? -1 : (int)(i % n);
		l->name = l->job == UJ_COSTS ? NULL : providers[i % n];
		pthread_cond_init(&l->cond, NULL);
	}
	f->refs = 1;
	/* Lanes inherit a full signal mask, so signals land on the UI thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (i = 0; i < f->n_lanes; i++)
		if (pthread_create(&th, &attr, lane_main, &f->lanes[i]) == 0) {
			pthread_mutex_lock(&f->mu);
			f->refs++;
			pthread_mutex_unlock(&f->mu);
		}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return f;
}

void
lanes_request(struct lanes *f, enum ui_job job, int provider, const struct lane_request *req)
{
	struct lane *l = lane_for(f, job, provider);

	if (l == NULL)
		return;
	pthread_mutex_lock(&f->mu);
	l->req = *req;
	l->has_req = true;
	pthread_cond_signal(&l->cond);
	pthread_mutex_unlock(&f->mu);
}

double
lanes_busy(struct lanes *f, enum ui_job job, int provider)
{
	struct lane *l = lane_for(f, job, provider);
	struct timespec now;
	double s = -1;

	if (l == NULL)
		return -1;
	pthread_mutex_lock(&f->mu);
	if (l->busy) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		s = (double)(now.tv_sec - l->since.tv_sec) +
		    (double)(now.tv_nsec - l->since.tv_nsec) / 1e9;
	} else if (l->has_req)
		s = 0;
	pthread_mutex_unlock(&f->mu);
	return s;
}

int
lanes_fd(const struct lanes *f)
{
	return f->pipe[0];
}

struct ui_result *
lanes_take(struct lanes *f)
{
	struct ui_result *r;
	char buf[64];

	pthread_mutex_lock(&f->mu);
	while (read(f->pipe[0], buf, sizeof(buf)) > 0)
		;
	r = f->head;
	f->head = f->tail = NULL;
	pthread_mutex_unlock(&f->mu);
	return r;
}

void
lanes_free(struct lanes *f)
{
	size_t i;
	bool last;

	if (f == NULL)
		return;
	pthread_mutex_lock(&f->mu);
	f->stop = true;
	for (i = 0; i < f->n_lanes; i++)
		pthread_cond_signal(&f->lanes[i].cond);
	last = --f->refs == 0;
	pthread_mutex_unlock(&f->mu);
	if (last)
		free_shared(f);
}
