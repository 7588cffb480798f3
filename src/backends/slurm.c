/*
 * slurm.c - a Slurm cluster as a provider, through its REST daemon slurmrestd (JWT auth).
 *
 * Offers are partition x GPU type; an instance is a job that holds an allocation (a small
 * script runs the on-start command, then waits until cancelled). The parsers, pure, are in
 * slurm_parse.c.
 *
 * Connection: the address is slurm.url / GPURENT_SLURM_URL: http(s)://host:port, or
 * unix:/path for a slurmrestd listening on a local socket. The token comes from SLURM_JWT
 * (what `scontrol token` prints, "SLURM_JWT=" prefix or not), else from `gpurent login
 * slurm`; the user from slurm.user, else the login name. Both go in the X-SLURM-USER-NAME
 * and X-SLURM-USER-TOKEN headers; the HTTP layer redacts the token from traces. A token
 * whose expiry (the JWT's exp) has passed is refused here, before any request, with how
 * to get a new one.
 *
 * The OpenAPI version is asked once per process, newest first (/openapi/v3 lists them).
 */
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/backend.h"
#include "gpurent/config.h"
#include "gpurent/filter.h"
#include "gpurent/http.h"
#include "gpurent/i18n.h"
#include "slurm_parse.h"
#include "gpurent/util.h"

#include "backends_int.h"

/* What a job launched by gpurent carries in its comment, so that ls finds it. */
#define SLURM_COMMENT "gpurent"

struct slurm {
	struct http_client *http;
	char base[256];			/* http://host:port, or http://localhost for a socket */
	char where[256];		/* the address as configured, for messages */
	char user[64];
	char *hdr_user, *hdr_token;	/* the token header is wiped at cleanup */
	const char *hdrs[4];
	int api;			/* index into slurm_api_versions; -1 until asked */
	const struct config *config;
};

static struct slurm *
priv(struct backend *b)
{
	return b->priv;
}

/* The token without a "SLURM_JWT=" prefix or surrounding white space; malloc'd. */
static char *
clean_token(const char *t)
{
	size_t n;

	while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')
		t++;
	if (strncmp(t, "SLURM_JWT=", 10) == 0)
		t += 10;
	n = strlen(t);
	while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\n' ||
	    t[n - 1] == '\r'))
		n--;
	return xasprintf("%.*s", (int)n, t);
}

static const char NEW_TOKEN[] = N_("get a new one with 'scontrol token lifespan=SECONDS' on "
    "the cluster and export it as SLURM_JWT, or store it with 'gpurent login slurm'");

static enum gr_err
slurm_init(struct backend *b, struct gr_error *err)
{
	struct slurm *s = priv(b);
	const char *url = b->env.base_url, *t, *u;
	const char *sock = NULL;
	char *token;
	struct http_opts o;
	int64_t exp;
	struct passwd *pw;

	s->api = -1;
	s->config = b->env.config;
	if (url == NULL || url[0] == '\0')
		url = getenv("GPURENT_SLURM_URL");
	if ((url == NULL || url[0] == '\0') && s->config != NULL)
		url = config_get(s->config, "slurm.url");
	if (url == NULL || url[0] == '\0')
		return gr_fail(err, GR_EUSAGE, "no cluster address: set slurm.url (or "
		    "GPURENT_SLURM_URL) to slurmrestd's http://HOST:PORT or unix:/PATH");
	text_sanitize(s->where, sizeof(s->where), url);
	if (strncmp(url, "unix:", 5) == 0) {
		sock = url + 5;
		if (sock[0] != '/')
			return gr_fail(err, GR_EUSAGE, "'%s': a socket needs an absolute "
			    "path, as in unix:/run/slurmrestd.socket", url);
		strlcpy_(s->base, "http://localhost", sizeof(s->base));
	} else {
		size_t n = strlen(url);

		while (n > 0 && url[n - 1] == '/')
			n--;
		if (n >= sizeof(s->base))
			return gr_fail(err, GR_EUSAGE, "the address is too long");
		snprintf(s->base, sizeof(s->base), "%.*s", (int)n, url);
		if (!http_url_allowed(s->base))
			return gr_fail(err, GR_EUSAGE, "refusing address '%s': use https, "
			    "plain http only to 127.0.0.1, ::1 or localhost, or unix:/PATH", s->base);
	}

	/* The session puts SLURM_JWT here over the vault (key_env); login's check, the key
	   it is about to store. */
	t = b->env.api_key;
	if (t == NULL || t[0] == '\0')
		t = getenv("SLURM_JWT");
	if (t == NULL || t[0] == '\0')
		return gr_fail(err, GR_EAUTH, "no token: %s", _(NEW_TOKEN));
	token = clean_token(t);
	if (token[0] == '\0' || strpbrk(token, "\r\n") != NULL) {
		secret_free(token);
		return gr_fail(err, GR_EAUTH, "the token is empty or has a line break");
	}
	if (slurm_jwt_expiry(token, &exp) && exp <= bk_now()) {
		char when[32];
		time_t tt = (time_t)exp;
		struct tm tm;

		gmtime_r(&tt, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		secret_free(token);
		return gr_fail(err, GR_EAUTH, "the token expired at %s: %s", when,
		    _(NEW_TOKEN));
	}
	u = s->config != NULL ? config_get(s->config, "slurm.user") : NULL;
	if (u == NULL || u[0] == '\0') {
		pw = getpwuid(geteuid());
		u = pw != NULL ? pw->pw_name : getenv("USER");
	}
	if (u == NULL || u[0] == '\0' || strpbrk(u, "\r\n") != NULL) {
		secret_free(token);
		return gr_fail(err, GR_EUSAGE, "no user name: set slurm.user");
	}
	strlcpy_(s->user, u, sizeof(s->user));
	s->hdr_user = xasprintf("X-SLURM-USER-NAME: %s", s->user);
	s->hdr_token = xasprintf("X-SLURM-USER-TOKEN: %s", token);
	s->hdrs[0] = s->hdr_user;
	s->hdrs[1] = s->hdr_token;
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);

	memset(&o, 0, sizeof(o));
	o.provider = "slurm";
	o.api_key = token;
	o.debug = b->env.debug;
	o.timeout_ms = b->env.timeout_ms;
	o.connect_timeout_ms = b->env.connect_timeout_ms;
	o.unix_socket = sock;
	s->http = http_client_new(&o);
	secret_free(token);
	if (s->http == NULL)
		return gr_fail(err, GR_EFAIL, "cannot create an HTTP client%s%s",
		    http_unavailable() ? ": " : "", http_unavailable() ? http_unavailable() : "");
	return GR_OK;
}

static void
slurm_cleanup(struct backend *b)
{
	struct slurm *s = priv(b);

	if (s == NULL)
		return;
	http_client_free(s->http);
	free(s->hdr_user);
	secret_free(s->hdr_token);
}

/* The transport's failure in this backend's words: a daemon that does not answer is named. */
static enum gr_err
transport_error(const struct slurm *s, enum gr_err e, const struct gr_error *why,
    struct gr_error *err)
{
	if (e == GR_EUNAVAIL)
		gr_fail(err, e, "slurmrestd at %s does not answer (%s)", s->where, why->msg);
	else if (e != GR_OK)
		gr_fail(err, e, "%s", why->msg);
	return e;
}

/* One request to a path under the server (not under the API version). */
static enum gr_err
raw_req(struct slurm *s, enum http_method m, const char *path, const char *json,
    bool idempotent, struct http_response *rs, struct gr_error *err)
{
	char *url = http_url(s->base, s->base, path);
	struct gr_error why = { 0 };
	enum gr_err e;

	if (m == HTTP_GET)
		e = http_get(s->http, url, s->hdrs, rs, &why);
	else if (json == NULL)
		e = http_do(s->http, &(struct http_request){ .method = m, .url = url,
		    .headers = s->hdrs, .idempotent = idempotent }, rs, &why);
	else
		e = http_send_json(s->http, m, url, s->hdrs, json, idempotent, rs, &why);
	free(url);
	return transport_error(s, e, &why, err);
}

/* Which OpenAPI version to speak: /openapi/v3 lists them; else try each, newest first. */
static enum gr_err
discover(struct slurm *s, struct gr_error *err)
{
	struct http_response rs;
	struct gr_error quiet = { 0 };
	char path[64];
	int i;
	enum gr_err e;

	if (s->api >= 0)
		return GR_OK;
	e = raw_req(s, HTTP_GET, "/openapi/v3", NULL, true, &rs, err);
	if (e != GR_OK) {
		http_response_release(&rs);
		return e;
	}
	if (rs.status == 401 || rs.status == 403) {
		e = slurm_parse_errors(rs.status, rs.body, rs.len, err);
		http_response_release(&rs);
		return e;
	}
	if (rs.status >= 200 && rs.status < 300)
		s->api = slurm_parse_openapi(rs.body, rs.len, &quiet);
	http_response_release(&rs);
	for (i = 0; s->api < 0 && i < SLURM_API_COUNT; i++) {
		snprintf(path, sizeof(path), "/slurm/%s/ping", slurm_api_versions[i]);
		if ((e = raw_req(s, HTTP_GET, path, NULL, true, &rs, err)) != GR_OK) {
			http_response_release(&rs);
			return e;
		}
		if (rs.status >= 200 && rs.status < 300)
			s->api = i;
		else if (rs.status == 401)
			e = slurm_parse_errors(rs.status, rs.body, rs.len, err);
		http_response_release(&rs);
		if (e != GR_OK)
			return e;
	}
	if (s->api < 0)
		return gr_fail(err, GR_EUNSUPPORTED, "slurmrestd at %s offers none of the "
		    "OpenAPI versions gpurent speaks (v0.0.38 to v0.0.41)", s->where);
	return GR_OK;
}

/* A request under /slurm/<version>, its errors array checked; rs released on failure. */
static enum gr_err
api_req(struct backend *b, enum http_method m, const char *path, const char *json,
    bool idempotent, struct http_response *rs, struct gr_error *err)
{
	struct slurm *s = priv(b);
	char full[256];
	enum gr_err e;

	http_response_init(rs);
	if ((e = discover(s, err)) != GR_OK)
		return e;
	snprintf(full, sizeof(full), "/slurm/%s%s", slurm_api_versions[s->api], path);
	e = raw_req(s, m, full, json, idempotent, rs, err);
	if (e == GR_OK)
		e = slurm_parse_errors(rs->status, rs->body, rs->len, err);
	if (e != GR_OK) {
		http_response_release(rs);
		http_response_init(rs);
	}
	return e;
}

/* slurm.price.TYPE: the configured charge-back rate (config.h, shared with run --provider). */
static bool
price_of(void *ctx, const char *type, int64_t *per_gpu_hour)
{
	return config_gpu_rate(ctx, "slurm", type, per_gpu_hour, NULL);
}

/* What the cluster looks like now: its nodes, partitions and jobs, parsed. */
struct snapshot {
	struct slurm_node *nodes;
	struct slurm_partition *parts;
	struct slurm_job *jobs;
	size_t nn, np, nj;
};

static void
snapshot_release(struct snapshot *c)
{
	free(c->nodes);
	free(c->parts);
	slurm_jobs_free(c->jobs, c->nj);
	memset(c, 0, sizeof(*c));
}

/* /nodes or /jobs read as it arrives (see http.h): a record parsed as soon as its bytes are in. */
struct list_reader {
	enum slurm_list what;
	struct slurm_stream *parse;
	long status;
	bool refused;			/* the parser stopped the transfer: a malformed body */
};

static bool
list_begin(void *ctx, long status, const char *content_type)
{
	struct list_reader *r = ctx;

	(void)content_type;
	/* A retried attempt: forget what the cut-off one delivered. */
	slurm_stream_free(r->parse);
	r->parse = slurm_stream_new(r->what);
	r->status = status;
	r->refused = false;
	return true;
}

static bool
list_data(void *ctx, const char *p, size_t n)
{
	struct list_reader *r = ctx;

	if (!slurm_stream_feed(r->parse, p, n))
		r->refused = true;
	return !r->refused;
}

/* The parsed records of a finished stream: nodes or jobs, whichever r reads. */
static enum gr_err
list_finish(struct list_reader *r, struct slurm_node **nodes, struct slurm_job **jobs,
    size_t *n, struct gr_error *err)
{
	return r->what == SLURM_NODES ? slurm_stream_nodes(r->parse, r->status, nodes, n, err) :
	    slurm_stream_jobs(r->parse, r->status, jobs, n, err);
}

/*
 * GET /slurm/<v>/nodes (nodes set) or /jobs (jobs set), streamed: the body is never held
 * whole unless the transport kept it (an error status, a retried 5xx).
 */
static enum gr_err
list_fetch(struct backend *b, struct slurm_node **nodes, struct slurm_job **jobs, size_t *n,
    struct gr_error *err)
{
	struct slurm *s = priv(b);
	struct list_reader r = { nodes != NULL ? SLURM_NODES : SLURM_JOBS, NULL, 0, false };
	struct http_stream stream = { list_begin, list_data, &r };
	struct http_request rq = { 0 };
	struct http_response rs;
	struct gr_error why = { 0 };
	char path[64], *url;
	enum gr_err e;

	if ((e = discover(s, err)) != GR_OK)
		return e;
	snprintf(path, sizeof(path), "/slurm/%s/%s", slurm_api_versions[s->api],
	    r.what == SLURM_NODES ? "nodes" : "jobs");
	url = http_url(s->base, s->base, path);
	rq.method = HTTP_GET;
	rq.url = url;
	rq.headers = s->hdrs;
	rq.idempotent = true;
	rq.read = true;
	rq.stream = &stream;
	e = http_do(s->http, &rq, &rs, &why);
	free(url);
	if (rs.streamed && (e == GR_OK || r.refused))
		/* The parser's verdict when it stopped the transfer or the transfer ended well. */
		e = list_finish(&r, nodes, jobs, n, err);
	else if (transport_error(s, e, &why, err) == GR_OK &&
	    (e = slurm_parse_errors(rs.status, rs.body, rs.len, err)) == GR_OK) {
		list_begin(&r, rs.status, NULL);
		(void)slurm_stream_feed(r.parse, rs.body, rs.len);
		e = list_finish(&r, nodes, jobs, n, err);
	}
	slurm_stream_free(r.parse);
	http_response_release(&rs);
	return e;
}

static enum gr_err
snapshot_fetch(struct backend *b, struct snapshot *c, struct gr_error *err)
{
	struct http_response rp;
	enum gr_err e;

	memset(c, 0, sizeof(*c));
	http_response_init(&rp);
	e = list_fetch(b, &c->nodes, NULL, &c->nn, err);
	if (e == GR_OK)
		e = api_req(b, HTTP_GET, "/partitions", NULL, true, &rp, err);
	if (e == GR_OK)
		e = slurm_parse_partitions(rp.body, rp.len, &c->parts, &c->np, err);
	if (e == GR_OK)
		e = list_fetch(b, NULL, &c->jobs, &c->nj, err);
	http_response_release(&rp);
	if (e != GR_OK)
		snapshot_release(c);
	return e;
}

static enum gr_err
slurm_offers(struct backend *b, const struct filter *f, struct offer_list *out,
    bool *pushed_all, struct gr_error *err)
{
	struct slurm *s = priv(b);
	struct snapshot c;
	const char *cluster;
	size_t first = out->n, i;
	int64_t rate;
	enum gr_err e;

	*pushed_all = f == NULL || f->n == 0;
	if ((e = snapshot_fetch(b, &c, err)) != GR_OK)
		return e;
	cluster = s->config != NULL ? config_get(s->config, "slurm.cluster") : NULL;
	slurm_build_offers(c.nodes, c.nn, c.parts, c.np, c.jobs, c.nj, cluster, price_of,
	    (void *)s->config, out);
	for (i = first; i < out->n; i++) {
		struct offer *o = &out->v[i];
		const struct gpu_model *m = config_gpu_model(s->config, "slurm", o->gpu_raw);

		/* The user's word on a GRES type over what its name tells. */
		if (m != NULL)
			slurm_offer_gpu(o, m);
		(void)config_gpu_rate(s->config, "slurm", o->gpu_raw, &rate, o->currency);
	}
	snapshot_release(&c);
	return GR_OK;
}

/* The dashboard's cluster view: every partition's GPUs and all of this user's jobs. */
static enum gr_err
slurm_cluster(struct backend *b, struct cluster_state *out, struct gr_error *err)
{
	struct snapshot c;
	enum gr_err e;

	if ((e = snapshot_fetch(b, &c, err)) != GR_OK)
		return e;
	slurm_build_cluster(c.nodes, c.nn, c.parts, c.np, c.jobs, c.nj, priv(b)->user, out);
	snapshot_release(&c);
	return GR_OK;
}

/*
 * Where ssh reaches the node named node: slurm.ssh_host with %n for the node's name (%% a
 * percent sign), else the node's NodeHostname from /nodes, else its name.
 */
static void
node_ssh_host(const struct slurm *s, const char *node, const struct slurm_node *nodes,
    size_t nn, char *out, size_t size)
{
	const char *tmpl = s->config != NULL ? config_get(s->config, "slurm.ssh_host") : NULL;
	size_t i, k;

	if (tmpl != NULL && tmpl[0] != '\0') {
		for (i = 0, k = 0; tmpl[i] != '\0' && k + 1 < size; i++) {
			if (tmpl[i] == '%' && tmpl[i + 1] == 'n') {
				k += strlcpy_(out + k, node, size - k);
				if (k >= size)
					k = size - 1;
				i++;
			} else if (tmpl[i] == '%' && tmpl[i + 1] == '%') {
				out[k++] = '%';
				i++;
			} else
				out[k++] = tmpl[i];
		}
		out[k] = '\0';
		return;
	}
	strlcpy_(out, node, size);
	for (i = 0; i < nn; i++)
		if (strcmp(nodes[i].name, node) == 0 && nodes[i].hostname[0])
			strlcpy_(out, nodes[i].hostname, size);
}

/* Price while running from the configured rate, and where ssh reaches the job. */
static void
finish_instance(struct backend *b, const struct slurm_job *j, struct instance *in,
    const struct slurm_node *nodes, size_t nn)
{
	struct slurm *s = priv(b);
	const struct gpu_model *m = config_gpu_model(s->config, "slurm", in->gpu_raw);
	int64_t rate;

	if (m != NULL)
		in->gpu = m;
	if (in->gpu_count > 0 && config_gpu_rate(s->config, "slurm", in->gpu_raw, &rate,
	    in->currency)) {
		in->price_hour = rate * in->gpu_count;
		in->valid |= IV_PRICE;
	}
	if (in->state != ST_RUNNING || j->first_node[0] == '\0')
		return;
	node_ssh_host(s, j->first_node, nodes, nn, in->ssh_host, sizeof(in->ssh_host));
	in->ssh_port = (int)(s->config != NULL ? config_get_int(s->config, "slurm.ssh_port", 22) :
	    22);
	strlcpy_(in->ssh_user, s->user, sizeof(in->ssh_user));
	in->valid |= IV_SSH;
}

/* The nodes, for hostnames, when some job runs; failures only cost the hostname. */
static void
nodes_for(struct backend *b, const struct slurm_job *jobs, size_t nj, struct slurm_node **nodes,
    size_t *nn)
{
	struct gr_error quiet = { 0 };
	size_t i;

	*nodes = NULL;
	*nn = 0;
	for (i = 0; i < nj; i++)
		if (strcmp(jobs[i].state, "RUNNING") == 0)
			break;
	if (i == nj)
		return;
	(void)list_fetch(b, nodes, NULL, nn, &quiet);
}

/*
 * A job gpurent submitted bills its GPUs from Slurm's own start time to its end time (what
 * the cluster accounts), not from when gpurent happened to look: say so for the ledger.
 */
static void
date_billing(const struct slurm_job *j, struct instance *in)
{
	bool ended = in->state == ST_DESTROYED || in->state == ST_FAILED;

	if (strcmp(j->comment, SLURM_COMMENT) != 0 || j->start_time <= 0)
		return;
	if (in->state == ST_RUNNING || in->state == ST_DESTROYING ||
	    (ended && j->end_time >= j->start_time)) {
		in->billed_from = j->start_time;
		in->billed_until = ended ? j->end_time : 0;
		in->valid |= IV_BILLED;
	}
}

/* This user's jobs (gpurent's only, unless all), onto instances. */
static enum gr_err
list_jobs(struct backend *b, bool all, struct instance_list *out, struct gr_error *err)
{
	struct slurm *s = priv(b);
	struct slurm_job *jobs = NULL;
	struct slurm_node *nodes = NULL;
	size_t nj = 0, nn = 0, i;
	enum gr_err e;

	e = list_fetch(b, NULL, &jobs, &nj, err);
	if (e == GR_OK) {
		nodes_for(b, jobs, nj, &nodes, &nn);
		for (i = 0; i < nj; i++) {
			struct instance *in;

			if (strcmp(jobs[i].user, s->user) != 0 ||
			    (!all && strcmp(jobs[i].comment, SLURM_COMMENT) != 0))
				continue;
			in = instance_list_add(out);
			slurm_job_to_instance(&jobs[i], in);
			finish_instance(b, &jobs[i], in, nodes, nn);
			date_billing(&jobs[i], in);
		}
	}
	slurm_jobs_free(jobs, nj);
	free(nodes);
	return e;
}

static enum gr_err
slurm_list(struct backend *b, struct instance_list *out, struct gr_error *err)
{
	return list_jobs(b, false, out, err);
}

/* Ended jobs stay in the list (lists_ended): the session observes their end, then drops them. */
static enum gr_err
slurm_instances(struct backend *b, struct instance_list *out, struct gr_error *err)
{
	return list_jobs(b, b->list_all, out, err);
}

/* "slurm:123" -> 123; GR_ENOTFOUND for anything that is no job id. */
static bool
job_id_of(struct backend *b, const char *id, long long *out, struct gr_error *err)
{
	const char *l = bk_local_id(b, id, err);

	if (l == NULL)
		return false;
	if (!parse_int(l, 1, 0xFFFFFFFFLL, out)) {
		gr_fail(err, GR_ENOTFOUND, "no instance '%s' (a Slurm job id is a number)", id);
		return false;
	}
	return true;
}

/*
 * One job's record and, when it runs, the nodes (for hostnames); both malloc'd, the job
 * freed with slurm_jobs_free(job, 1).
 */
static enum gr_err
fetch_job(struct backend *b, long long jid, struct slurm_job **job, struct slurm_node **nodes,
    size_t *nn, struct gr_error *err)
{
	struct http_response rs;
	size_t nj = 0, i;
	char path[64];
	enum gr_err e;

	*job = NULL;
	*nodes = NULL;
	*nn = 0;
	snprintf(path, sizeof(path), "/job/%lld", jid);
	e = api_req(b, HTTP_GET, path, NULL, true, &rs, err);
	if (e == GR_ENOTFOUND) {
		gr_error_clear(err);
		e = gr_fail(err, GR_ENOTFOUND, "no instance 'slurm:%lld' (no such job, or it ended "
		    "long enough ago that Slurm forgot it)", jid);
	}
	if (e == GR_OK)
		e = slurm_parse_jobs(rs.body, rs.len, job, &nj, err);
	http_response_release(&rs);
	if (e == GR_OK && nj == 0)
		e = gr_fail(err, GR_ENOTFOUND, "no instance 'slurm:%lld'", jid);
	if (e == GR_OK) {
		/* The first is the job asked for; the rest are let go (slurm_jobs_free). */
		for (i = 1; i < nj; i++) {
			free((*job)[i].nodes);
			(*job)[i].nodes = NULL;
		}
		nodes_for(b, *job, 1, nodes, nn);
	} else {
		slurm_jobs_free(*job, nj);
		*job = NULL;
	}
	return e;
}

static enum gr_err
get_job(struct backend *b, long long jid, struct instance *out, struct gr_error *err)
{
	struct slurm_job *job;
	struct slurm_node *nodes;
	size_t nn;
	enum gr_err e = fetch_job(b, jid, &job, &nodes, &nn, err);

	if (e == GR_OK) {
		slurm_job_to_instance(job, out);
		finish_instance(b, job, out, nodes, nn);
		date_billing(job, out);
	}
	slurm_jobs_free(job, 1);
	free(nodes);
	return e;
}

/*
 * Every node of a running job's allocation (its hostlist expanded, held whole however
 * long), each reached as finish_instance reaches the first. A list that does not parse
 * (hostile) is read as its first node only, as ssh has always reached it.
 */
static enum gr_err
slurm_nodes(struct backend *b, const char *id, struct instance_node *out, size_t max,
    size_t *n, struct gr_error *err)
{
	struct slurm *s = priv(b);
	struct slurm_job *job;
	struct slurm_node *nodes;
	char (*names)[SLURM_HOST_MAX];
	long long jid;
	size_t nn, i;
	int k;
	enum gr_err e;

	*n = 0;
	if (!job_id_of(b, id, &jid, err))
		return GR_ENOTFOUND;
	if ((e = fetch_job(b, jid, &job, &nodes, &nn, err)) != GR_OK)
		return e;
	if (strcmp(job->state, "RUNNING") == 0 && max > 0) {
		names = xcalloc(max, sizeof(*names));
		k = slurm_hostlist_expand(job->nodes, names, max > INT_MAX ? INT_MAX : (int)max);
		if (k <= 0 && job->first_node[0] != '\0') {
			strlcpy_(names[0], job->first_node, sizeof(names[0]));
			k = 1;
		}
		for (i = 0; i < (size_t)(k > 0 ? k : 0); i++) {
			text_sanitize(out[i].name, sizeof(out[i].name), names[i]);
			node_ssh_host(s, out[i].name, nodes, nn, out[i].ssh_host,
			    sizeof(out[i].ssh_host));
		}
		*n = i;
		free(names);
	}
	slurm_jobs_free(job, 1);
	free(nodes);
	return GR_OK;
}

static enum gr_err
slurm_get(struct backend *b, const char *id, struct instance *out, struct gr_error *err)
{
	long long jid;

	if (!job_id_of(b, id, &jid, err))
		return GR_ENOTFOUND;
	return get_job(b, jid, out, err);
}

/*
 * The holding job's script. The on-start command travels in the environment and runs
 * through sh -c: it is the user's own shell command, never spliced into the script text.
 */
static const char HOLD_SCRIPT[] =
    "#!/bin/sh\n"
    "# gpurent: run the on-start command, then hold the allocation until cancelled\n"
    "if [ -n \"$GPURENT_ONSTART\" ]; then sh -c \"$GPURENT_ONSTART\"; fi\n"
    "exec sleep infinity\n";

static enum gr_err slurm_destroy(struct backend *b, const char *id, struct gr_error *err);

struct create {
	struct backend *b;
	const char *doc;
	const char *name;
	long long jid;
};

static enum gr_err
create_send(void *ctx, struct http_response *rs, struct gr_error *err)
{
	struct create *c = ctx;
	struct slurm *s = priv(c->b);
	enum gr_err e;
	char path[64];

	if ((e = discover(s, err)) != GR_OK)
		return e;
	snprintf(path, sizeof(path), "/slurm/%s/job/submit", slurm_api_versions[s->api]);
	return raw_req(s, HTTP_POST, path, c->doc, false, rs, err);
}

static enum gr_err
create_accept(void *ctx, const struct http_response *rs, struct gr_error *err)
{
	struct create *c = ctx;
	enum gr_err e = slurm_parse_errors(rs->status, rs->body, rs->len, err);

	if (e == GR_OK)
		return slurm_parse_submit(rs->body, rs->len, &c->jid, err);
	/* Slurm 22.05 may refuse and queue the job all the same: note it, to cancel it. */
	if (slurm_parse_submit(rs->body, rs->len, &c->jid, &(struct gr_error){ 0 }) != GR_OK ||
	    c->jid <= 0)
		c->jid = 0;
	return e;
}

static enum gr_err
create_list(void *ctx, struct instance_list *out, struct gr_error *err)
{
	struct create *c = ctx;

	return slurm_list(c->b, out, err);
}

/* "slurm:PART/TYPE" -> partition ("": the cluster's default) and GRES type ("gpu":
   untyped). */
static bool
offer_split(const char *local, char *part, size_t np, char *type, size_t nt)
{
	const char *slash = strchr(local, '/');

	if (slash == NULL || slash[1] == '\0' ||
	    (size_t)(slash - local) >= np || strlen(slash + 1) >= nt)
		return false;
	memcpy(part, local, (size_t)(slash - local));
	part[slash - local] = '\0';
	strlcpy_(type, strcmp(slash + 1, "gpu") == 0 ? "" : slash + 1, nt);
	return true;
}

static enum gr_err
slurm_launch(struct backend *b, const struct launch_req *req, struct instance *out,
    struct gr_error *err)
{
	struct slurm *s = priv(b);
	struct slurm_submit sub;
	struct create c = { 0 };
	char part[64], type[64], name[LABEL_MAX];
	const char *local, *cwd, *env[70];
	char *onstart = NULL;
	size_t ne = 0, i;
	enum gr_err e;
	bool found, labelled;

	if (req->interruptible)
		return gr_fail(err, GR_EUNSUPPORTED, "a Slurm job has no bid; launch it without "
		    "one");
	if ((local = bk_local_id(b, req->offer_id, err)) == NULL)
		return GR_ENOTFOUND;
	if (!offer_split(local, part, sizeof(part), type, sizeof(type)))
		return gr_fail(err, GR_ENOTFOUND, "no offer '%s' (a Slurm offer is "
		    "slurm:PARTITION/GPU)", req->offer_id);
	labelled = req->label != NULL && req->label[0] != '\0';
	if (labelled)
		strlcpy_(name, req->label, sizeof(name));
	else
		snprintf(name, sizeof(name), "gpurent-%.48s",
		    req->client_token != NULL ? req->client_token : "launch");
	cwd = config_job_workdir(s->config, "slurm");
	for (i = 0; req->env != NULL && req->env[i] != NULL && ne < 64; i++)
		env[ne++] = req->env[i];
	if (req->onstart != NULL && req->onstart[0] != '\0') {
		onstart = xasprintf("GPURENT_ONSTART=%s", req->onstart);
		env[ne++] = onstart;
	}
	env[ne] = NULL;
	memset(&sub, 0, sizeof(sub));
	sub.name = name;
	sub.partition = part;
	sub.gres_type = type;
	sub.gpus_per_node = req->gpus_per_node > 0 ? req->gpus_per_node : 1;
	sub.nodes = req->nodes > 0 ? req->nodes : 1;
	sub.time_limit_min = req->max_runtime_s > 0 ? (req->max_runtime_s + 59) / 60 : 0;
	sub.cwd = cwd;
	sub.script = req->script != NULL ? req->script : HOLD_SCRIPT;
	sub.output = req->output;
	sub.comment = SLURM_COMMENT;
	sub.env = env;
	if ((e = discover(s, err)) != GR_OK) {
		free(onstart);
		return e;
	}
	c.b = b;
	c.name = name;
	c.doc = slurm_build_submit(s->api, &sub);
	free(onstart);
	e = bk_launch_run(&(struct bk_launch){ .name = name,
	    .name_unique = !labelled && req->client_token != NULL, .backoff_ms = 1000, .ctx = &c,
	    .send = create_send, .accept = create_accept, .list = create_list }, out, &found, err);
	free((char *)c.doc);
	if (e != GR_OK && c.jid > 0) {
		/* An error with a job: the job would wait for what Slurm just said it cannot
		   give. Cancel it rather than leave it queued behind the user's back. */
		char id[32];
		size_t len = strlen(err->msg);

		snprintf(id, sizeof(id), "slurm:%lld", c.jid);
		snprintf(err->msg + len, sizeof(err->msg) - len, _("; Slurm queued it as job "
		    "%lld anyway, %s"), c.jid, slurm_destroy(b, id, &(struct gr_error){ 0 }) ==
		    GR_OK ? _("cancelled") : _("which could not be cancelled: cancel it yourself"));
	}
	if (e != GR_OK)
		return e;
	if (!found) {
		if (get_job(b, c.jid, out, &(struct gr_error){ 0 }) != GR_OK) {
			memset(out, 0, sizeof(*out));
			snprintf(out->id, sizeof(out->id), "slurm:%lld", c.jid);
			strlcpy_(out->provider, "slurm", sizeof(out->provider));
			strlcpy_(out->label, name, sizeof(out->label));
			out->state = ST_PROVISIONING;
		}
	}
	strlcpy_(out->offer_id, req->offer_id, sizeof(out->offer_id));
	return GR_OK;
}

static enum gr_err
slurm_destroy(struct backend *b, const char *id, struct gr_error *err)
{
	struct http_response rs;
	long long jid;
	char path[64];
	enum gr_err e;

	if (!job_id_of(b, id, &jid, err))
		return GR_ENOTFOUND;
	snprintf(path, sizeof(path), "/job/%lld", jid);
	/* Cancelling twice has the effect of once: the HTTP layer may retry it. */
	e = api_req(b, HTTP_DELETE, path, NULL, true, &rs, err);
	http_response_release(&rs);
	if (e == GR_ENOTFOUND) {
		gr_error_clear(err);
		return gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
	}
	return e;
}

const struct backend_ops backend_slurm = {
	.name = "slurm",
	.description = "a Slurm cluster through slurmrestd (JWT): partitions as offers, jobs "
	    "as instances",
	.caps = CAP_SSH | CAP_ALLOC | CAP_BATCH | CAP_CLUSTER,
	.lists_ended = true,
	.priv_size = sizeof(struct slurm),
	.key_env = "SLURM_JWT",
	.no_stop_why = N_("a Slurm job can only be cancelled (destroy)"),
	.init = slurm_init,
	.cleanup = slurm_cleanup,
	.offers = slurm_offers,
	.instances = slurm_instances,
	.get = slurm_get,
	.launch = slurm_launch,
	.stop = NULL,		/* a job can only be cancelled */
	.start = NULL,
	.destroy = slurm_destroy,
	.metrics = NULL,
	.account = NULL,
	.cluster = slurm_cluster,
	.nodes = slurm_nodes,
};
