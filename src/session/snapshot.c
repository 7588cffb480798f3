/*
 * snapshot.c - GPU samples of an instance from where they can be had: the provider's API or
 * the sampler over ssh (sampler.h). What is taken here is not kept: sample.c is the door
 * that takes a snapshot and keeps it in the history, and every sampler goes through it, so
 * "auto" means the same everywhere.
 */
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/costs.h"
#include "gpurent/i18n.h"
#include "gpurent/observed.h"
#include "gpurent/session.h"
#include "gpurent/util.h"

/* How long a one-shot sample may take: connecting, and nvidia-smi on a busy 8-GPU box. */
#define SNAPSHOT_TIMEOUT_MS 60000
/* With auto, a machine that does not answer ssh quickly falls back to the API. */
#define AUTO_CONNECT_TIMEOUT 5
/* Most machines of one instance sampled at once (one ssh each, all in parallel). */
#define NODES_MAX SESSION_NODES_MAX

static const char *const source_names[] = { "auto", "api", "ssh" };

bool
metrics_source_parse(const char *s, enum metrics_source *out)
{
	size_t i;

	for (i = 0; i < sizeof(source_names) / sizeof(*source_names); i++)
		if (strcmp(s, source_names[i]) == 0) {
			*out = (enum metrics_source)i;
			return true;
		}
	return false;
}

enum gr_err
session_endpoint(struct session *s, const char *id, struct remote_endpoint *ep,
    struct gr_error *err)
{
	struct backend *b;
	struct instance in;
	struct config *cfg;

	memset(ep, 0, sizeof(*ep));
	if (session_config(s, &cfg, err) != GR_OK ||
	    session_backend_for(s, id, &b, err) != GR_OK ||
	    backend_require(b->ops, CAP_SSH, NULL, err) != GR_OK ||
	    observed_get(b, id, &in, err) != GR_OK)
		return err->code;
	return session_endpoint_of(cfg, &in, ep, err);
}

/* The provider's figures into out->gpus (source api). */
static enum gr_err
api_snapshot(struct session *s, const char *id, struct probe_snapshot *out, struct gr_error *err)
{
	struct backend *b;
	size_t i;

	if (session_backend_for(s, id, &b, err) != GR_OK ||
	    backend_require(b->ops, CAP_METRICS, NULL, err) != GR_OK)
		return err->code;
	out->gpus.n = 0;
	if (b->ops->metrics(b, id, &out->gpus, err) != GR_OK)
		return err->code;
	for (i = 0; i < out->gpus.n; i++)
		out->gpus.v[i].source = SAMPLE_API;
	out->at = out->gpus.n > 0 ? out->gpus.v[0].at : session_now_of(s, id);
	out->vendor[0] = '\0';
	return GR_OK;
}

/* One frame of a once sampler, waiting at most SNAPSHOT_TIMEOUT_MS. */
static enum gr_err
ssh_snapshot(const struct remote_endpoint *ep, struct probe_snapshot *out, struct gr_error *err)
{
	struct sampler *sm = sampler_start(ep, 1, true, err);
	struct timespec t0, t;
	enum sampler_event ev;
	long spent;

	if (sm == NULL)
		return err->code;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = sampler_fd(sm), .events = POLLIN };

		ev = sampler_poll(sm, out, err);
		if (ev == SAMPLER_FRAME || ev == SAMPLER_ENDED || ev == SAMPLER_DOWN)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		spent = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (spent >= SNAPSHOT_TIMEOUT_MS) {
			sampler_free(sm);
			return gr_fail(err, GR_ETIMEOUT, "no sample from %s within %d s", ep->name,
			    SNAPSHOT_TIMEOUT_MS / 1000);
		}
		if (p.fd >= 0)
			poll(&p, 1, (int)(SNAPSHOT_TIMEOUT_MS - spent));
	}
	sampler_free(sm);
	if (ev != SAMPLER_FRAME)
		return gr_fail(err, GR_EUNAVAIL, "the sampler on %s ended without a sample",
		    ep->name);
	if (out->vendor[0] == '\0')
		return gr_fail(err, GR_EUNSUPPORTED, "%s answers ssh but has no GPU tool gpurent "
		    "knows (nvidia-smi, ...) on its PATH", ep->name);
	if (out->gpu_code != GR_OK)
		return gr_fail(err, out->gpu_code, "%s: %s", ep->name, out->gpu_error);
	return GR_OK;
}

/*
 * The endpoint of every machine instance id spans where its provider knows them (a Slurm
 * job's nodes): ep with each node's host and name, at most NODES_MAX, malloc'd in *eps.
 * false, *eps NULL, where it is one machine (a job on one node too) or its nodes cannot be
 * had: ep alone reaches it then, as it always has, and its samples name no node (the
 * history keys by node only where there are several). Nodes that are all reached at one
 * host (slurm.ssh_host without %n) are that one machine too: sampled once, never once per
 * node as if each were its own. What is left out, those nodes or the ones past NODES_MAX,
 * is said in note (sanitized; "" when nothing).
 */
static bool
node_endpoints(struct session *s, const char *id, const struct remote_endpoint *ep,
    struct remote_endpoint **eps, size_t *n, char *note, size_t note_size)
{
	struct gr_error quiet = { 0 };
	struct instance_node *nodes;
	struct backend *b;
	size_t k = 0, i;
	char raw[256];

	*eps = NULL;
	*n = 0;
	note[0] = '\0';
	if (session_backend_for(s, id, &b, &quiet) != GR_OK || b->ops->nodes == NULL)
		return false;
	nodes = xcalloc(NODES_MAX + 1, sizeof(*nodes));
	if (b->ops->nodes(b, id, nodes, NODES_MAX + 1, &k, &quiet) != GR_OK || k < 2) {
		free(nodes);
		return false;
	}
	for (i = 1; i < k && strcmp(nodes[i].ssh_host, nodes[0].ssh_host) == 0; i++)
		;
	if (i == k) {
		snprintf(raw, sizeof(raw), _("its nodes are all reached at %s, so it was taken "
		    "as one machine (slurm.ssh_host without %%n?)"), nodes[0].ssh_host);
		text_sanitize(note, note_size, raw);
		free(nodes);
		return false;
	}
	if (k > NODES_MAX) {
		snprintf(raw, sizeof(raw), _("the nodes past the first %d are left out"),
		    NODES_MAX);
		text_sanitize(note, note_size, raw);
	}
	*n = k > NODES_MAX ? NODES_MAX : k;
	*eps = xcalloc(*n, sizeof(**eps));
	for (i = 0; i < *n; i++) {
		(*eps)[i] = *ep;
		strlcpy_((*eps)[i].host, nodes[i].ssh_host, sizeof((*eps)[i].host));
		strlcpy_((*eps)[i].node, nodes[i].name, sizeof((*eps)[i].node));
	}
	free(nodes);
	return true;
}

/* One machine's sample, taken on a thread of its own. */
struct node_probe {
	struct remote_endpoint ep;
	struct probe_snapshot snap;
	struct gr_error err;
	enum gr_err rc;
	pthread_t thread;
	bool threaded;
};

static void *
node_probe_run(void *arg)
{
	struct node_probe *p = arg;

	p->rc = ssh_snapshot(&p->ep, &p->snap, &p->err);
	return NULL;
}

/* "; " and what was said of one machine onto the list of those that did not answer. */
static void
add_unanswered(char *list, size_t size, const char *node, const char *why)
{
	size_t k = strlen(list);

	if (k + 1 < size)
		snprintf(list + k, size - k, "%s%s: %s", k > 0 ? "; " : "", node, why);
}

/*
 * Every machine at once, each bounded by ssh_snapshot's own limit, so the whole takes as
 * long as the slowest, never the sum. Each sample says its node; a node that gave none
 * is one row with index -1 and nothing valid (unknown, never zero), and is named in
 * out->unanswered. Fails, with the first node's error, only when no node answered.
 */
static enum gr_err
nodes_snapshot(const char *id, const struct remote_endpoint *eps, size_t n,
    const char *note, struct probe_snapshot *out, struct gr_error *err)
{
	struct node_probe *p = xcalloc(n, sizeof(*p));
	struct gpu_sample *g;
	char unanswered[sizeof(out->unanswered)] = "";
	size_t i, k, answered = 0, first_failed = n;

	for (i = 0; i < n; i++) {
		p[i].ep = eps[i];
		probe_snapshot_init(&p[i].snap);
		if ((p[i].rc = remote_endpoint_check(&p[i].ep, &p[i].err)) != GR_OK)
			continue;
		p[i].threaded = pthread_create(&p[i].thread, NULL, node_probe_run, &p[i]) == 0;
		if (!p[i].threaded)
			node_probe_run(&p[i]);
	}
	for (i = 0; i < n; i++)
		if (p[i].threaded)
			pthread_join(p[i].thread, NULL);
	out->gpus.n = 0;
	for (i = 0; i < n; i++) {
		if (p[i].rc == GR_OK) {
			if (answered++ == 0) {
				out->at = p[i].snap.at;
				strlcpy_(out->vendor, p[i].snap.vendor, sizeof(out->vendor));
				out->host = p[i].snap.host;
				out->host_ok = p[i].snap.host_ok;
			}
			for (k = 0; k < p[i].snap.gpus.n; k++)
				*sample_list_add(&out->gpus) = p[i].snap.gpus.v[k];
		} else {
			if (first_failed == n)
				first_failed = i;
			g = sample_list_add(&out->gpus);
			memset(g, 0, sizeof(*g));
			strlcpy_(g->instance_id, id, sizeof(g->instance_id));
			strlcpy_(g->node, p[i].ep.node, sizeof(g->node));
			g->index = -1;
			g->at = (int64_t)time(NULL);	/* as the frames are, until stamped */
			g->source = SAMPLE_SSH;
			add_unanswered(unanswered, sizeof(unanswered), p[i].ep.node, p[i].err.msg);
		}
	}
	if (note[0] != '\0')
		add_unanswered(unanswered, sizeof(unanswered), "...", note);
	text_sanitize(out->unanswered, sizeof(out->unanswered), unanswered);
	if (answered == 0) {
		gr_fail(err, p[first_failed].rc, "%s: %s", p[first_failed].ep.node,
		    p[first_failed].err.msg);
		if (out->at == 0)
			out->at = (int64_t)time(NULL);
	}
	for (i = 0; i < n; i++)
		probe_snapshot_release(&p[i].snap);
	free(p);
	return answered > 0 ? GR_OK : err->code;
}

void
session_stamp_frame(struct session *s, const char *id, struct probe_snapshot *snap)
{
	struct cost_clock clk;
	char provider[PROVIDER_MAX];
	size_t i;

	/*
	 * Each stamp is mapped as the instance's clock read at that second, not shifted by
	 * the clocks' difference now: a sample taken a second before this runs would come
	 * out a second early on a simulated clock that stands still between `sim advance`s.
	 */
	if (!backend_split_id(id, provider, sizeof(provider), NULL) ||
	    strcmp(provider, COST_SIM_PROVIDER) != 0)
		return;
	session_clock(s, &clk);
	snap->at = cost_clock_at(&clk, provider, snap->at);
	snap->host.at = cost_clock_at(&clk, provider, snap->host.at);
	if (snap->gap_from != 0) {
		snap->gap_from = cost_clock_at(&clk, provider, snap->gap_from);
		snap->gap_to = cost_clock_at(&clk, provider, snap->gap_to);
	}
	for (i = 0; i < snap->gpus.n; i++)
		snap->gpus.v[i].at = cost_clock_at(&clk, provider, snap->gpus.v[i].at);
}

/* One instance's ssh attempt: prepared on the caller's thread, run on a worker's. */
struct ssh_attempt {
	struct snapshot_job *job;
	struct remote_endpoint ep;
	bool reached;			/* an endpoint was had: ssh was tried */
	struct remote_endpoint *eps;	/* a multi-machine instance's nodes, else NULL */
	size_t n_eps;
	char note[256];			/* what node_endpoints left out */
	enum gr_err rc;			/* the attempt's outcome; ssh_err says why */
	struct gr_error ssh_err;
};

/* The single-machine attempts of a batch, taken in turn by a few workers. */
struct attempt_pool {
	struct ssh_attempt **v;
	size_t n, next;
	pthread_mutex_t lock;
};

static void *
attempt_pool_run(void *arg)
{
	struct attempt_pool *p = arg;
	struct ssh_attempt *a;

	for (;;) {
		pthread_mutex_lock(&p->lock);
		a = p->next < p->n ? p->v[p->next++] : NULL;
		pthread_mutex_unlock(&p->lock);
		if (a == NULL)
			return NULL;
		a->rc = ssh_snapshot(&a->ep, a->job->out, &a->ssh_err);
	}
}

/*
 * The pool's attempts on at most width threads at once (the caller's thread alone when
 * width or the pool is 1: no thread is started for a single instance).
 */
static void
attempt_pool_drain(struct attempt_pool *p, size_t width)
{
	pthread_t th[SESSION_SSH_WIDTH_MAX];
	size_t k, started = 0;

	if (width > SESSION_SSH_WIDTH_MAX)
		width = SESSION_SSH_WIDTH_MAX;
	if (width > p->n)
		width = p->n;
	pthread_mutex_init(&p->lock, NULL);
	/* The caller's thread is one of the width. */
	for (k = 1; k < width; k++)
		if (pthread_create(&th[started], NULL, attempt_pool_run, p) == 0)
			started++;
	attempt_pool_run(p);
	for (k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	pthread_mutex_destroy(&p->lock);
}

/* The ssh part of a job: its endpoint (and nodes) from the backend, on this thread. */
static void
attempt_prepare(struct session *s, struct ssh_attempt *a)
{
	const struct snapshot_job *j = a->job;

	if (session_endpoint(s, j->id, &a->ep, &a->ssh_err) != GR_OK) {
		a->rc = a->ssh_err.code;
		return;
	}
	a->reached = true;
	a->ep.batch = true;
	if (j->src == METRICS_AUTO)
		a->ep.connect_timeout = AUTO_CONNECT_TIMEOUT;
	if (!node_endpoints(s, j->id, &a->ep, &a->eps, &a->n_eps, a->note, sizeof(a->note)))
		a->eps = NULL;
}

/* A job's outcome from its attempt: ssh's figures, its error, or auto's API fallback. */
static void
job_finish(struct session *s, struct snapshot_job *j, const struct ssh_attempt *a)
{
	if (a->rc == GR_OK) {
		j->by_ssh = true;
		/* Nodes taken as one machine: what is left out is said, as a node's silence is. */
		if (a->n_eps == 0 && a->note[0] != '\0')
			snprintf(j->out->unanswered, sizeof(j->out->unanswered), "...: %.*s",
			    (int)sizeof(j->out->unanswered) - 6, a->note);
		return;
	}
	if (j->src == METRICS_SSH) {
		j->err = a->ssh_err;
		j->rc = a->ssh_err.code;
		return;
	}
	/* auto: no endpoint yet, or the machine did not answer or has no tool; the provider
	   may still know. */
	if (!a->reached) {
		j->rc = api_snapshot(s, j->id, j->out, &j->err);
		return;
	}
	{
		struct host_sample host = j->out->host;
		bool host_ok = j->out->host_ok;

		if (api_snapshot(s, j->id, j->out, &j->err) != GR_OK) {
			if (j->err.code == GR_EUNSUPPORTED)	/* no API metrics: say why ssh failed */
				j->err = a->ssh_err;
			j->rc = j->err.code;
			return;
		}
		j->out->host = host;
		j->out->host_ok = host_ok;
	}
}

void
session_snapshots(struct session *s, struct snapshot_job *jobs, size_t n, size_t width)
{
	struct ssh_attempt *a = xcalloc(n + 1, sizeof(*a));
	struct attempt_pool pool = { 0 };
	size_t i;

	pool.v = xcalloc(n + 1, sizeof(*pool.v));
	for (i = 0; i < n; i++) {
		memset(&jobs[i].err, 0, sizeof(jobs[i].err));
		jobs[i].rc = GR_OK;
		jobs[i].by_ssh = false;
		a[i].job = &jobs[i];
		if (jobs[i].src == METRICS_API)
			continue;
		attempt_prepare(s, &a[i]);
		if (a[i].reached && a[i].eps == NULL)
			pool.v[pool.n++] = &a[i];
	}
	attempt_pool_drain(&pool, width);
	/* A multi-machine instance samples its machines side by side already. */
	for (i = 0; i < n; i++)
		if (a[i].eps != NULL) {
			a[i].rc = nodes_snapshot(jobs[i].id, a[i].eps, a[i].n_eps, a[i].note,
			    jobs[i].out, &a[i].ssh_err);
			free(a[i].eps);
		}
	for (i = 0; i < n; i++) {
		if (jobs[i].src == METRICS_API) {
			jobs[i].rc = api_snapshot(s, jobs[i].id, jobs[i].out, &jobs[i].err);
			continue;
		}
		/* Before auto's fallback, which keeps the host's figures and has the API's time. */
		if (a[i].reached)
			session_stamp_frame(s, jobs[i].id, jobs[i].out);
		job_finish(s, &jobs[i], &a[i]);
	}
	free(pool.v);
	free(a);
}

/* One machine's follower, connected on a thread of its own. */
struct node_start {
	struct remote_endpoint ep;
	int interval;
	struct sampler *sm;
	struct gr_error err;
	pthread_t thread;
	bool threaded;
};

static void *
node_start_run(void *arg)
{
	struct node_start *p = arg;

	if (remote_endpoint_check(&p->ep, &p->err) == GR_OK)
		p->sm = sampler_start(&p->ep, p->interval, false, &p->err);
	return NULL;
}

enum gr_err
session_node_samplers(struct session *s, const char *id, enum metrics_source src, int interval,
    struct node_sampler **out, size_t *n, char *note, size_t note_size, struct gr_error *err)
{
	struct remote_endpoint ep, *eps;
	struct node_start *p;
	size_t i;

	*out = NULL;
	*n = 0;
	note[0] = '\0';
	if (src == METRICS_API)
		return gr_fail(err, GR_EUSAGE, "no sampler for the API source");
	if (session_endpoint(s, id, &ep, err) != GR_OK)
		return err->code;
	ep.batch = true;
	if (src == METRICS_AUTO)
		ep.connect_timeout = AUTO_CONNECT_TIMEOUT;
	if (!node_endpoints(s, id, &ep, &eps, n, note, note_size)) {
		eps = xcalloc(1, sizeof(*eps));
		eps[0] = ep;
		*n = 1;
	}
	p = xcalloc(*n, sizeof(*p));
	for (i = 0; i < *n; i++) {
		p[i].ep = eps[i];
		p[i].interval = interval;
		p[i].threaded = pthread_create(&p[i].thread, NULL, node_start_run, &p[i]) == 0;
		if (!p[i].threaded)
			node_start_run(&p[i]);
	}
	*out = xcalloc(*n, sizeof(**out));
	for (i = 0; i < *n; i++) {
		if (p[i].threaded)
			pthread_join(p[i].thread, NULL);
		(*out)[i].sm = p[i].sm;
		strlcpy_((*out)[i].node, eps[i].node, sizeof((*out)[i].node));
		(*out)[i].err = p[i].err;
		if (p[i].sm == NULL && eps[i].node[0] != '\0')
			snprintf((*out)[i].err.msg, sizeof((*out)[i].err.msg), "%s: %.440s",
			    eps[i].node, p[i].err.msg);
	}
	free(p);
	free(eps);
	return GR_OK;
}
