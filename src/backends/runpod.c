/*
 * runpod.c - the RunPod backend over its REST v2 and GraphQL APIs (../shared/providers/
 * runpod.md).
 *
 * REST v1 was retired on 2026-11-15. REST v2, its announced successor, carries the pod's life
 * (GET/POST /v2/pods, GET/DELETE /v2/pods/{id}, POST /v2/pods/{id}/action), the catalogue
 * (/v2/catalog/gpus with availability), the ssh block and the runtime's GPU figures; GraphQL
 * (POST /graphql) is kept for what v2 lacks: interruptible pods and their bids, the balance,
 * utilisation where v2's runtime carries none. `runpod.api` chooses: v2, graphql, or auto
 * (the default): v2, and for a family of operations (pods, catalogue) that v2 answers 404 or
 * 410, GraphQL from then on, said once with -v, so that a user is never stranded by the next
 * retirement. GraphQL variables carry every value, so no user string is ever spliced into a
 * query.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "gpurent/backend.h"
#include "backends_parse.h"
#include "gpurent/catalogue.h"
#include "gpurent/config.h"
#include "gpurent/filter.h"
#include "gpurent/http.h"
#include "gpurent/i18n.h"
#include "gpurent/util.h"

#include "backends_int.h"

#define RUNPOD_URL "https://api.runpod.io"
#define RUNPOD_DEFAULT_IMAGE "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"
#define RUNPOD_DEFAULT_DISK 20

enum runpod_api { RP_AUTO, RP_V2, RP_GRAPHQL };

/* What REST v2 is asked for: each family found missing (auto) once, for the process. */
enum v2_family { V2_PODS, V2_CATALOG, V2__COUNT };

struct runpod {
	struct bk_http h;
	char image[128];
	int disk_gb;
	enum runpod_api api;
	bool v2_missing[V2__COUNT];	/* auto: v2 answered 404 or 410; GraphQL from then on */
	bool pods_seen;			/* v2's pods answered: a 404 about one pod is that pod's */
};

/* RunPod gpuTypeIds (gpu-catalogue.md 2a), for pushing gpu= filters down. */
#define POD_FIELDS \
	"id name imageName desiredStatus podType costPerHr gpuCount containerDiskInGb " \
	"volumeInGb lastStatusChange lastStartedAt uptimeSeconds env " \
	"machine { podHostId gpuTypeId gpuDisplayName location dataCenterId } " \
	"runtime { uptimeInSeconds ports { ip isIpPublic privatePort publicPort type } " \
	"gpus { id gpuUtilPercent memoryUtilPercent } }"

static const int default_counts[] = { 1, 2, 4, 8 };

const char *
runpod_gpu_id_of(const struct gpu_model *m)
{
	static const int no_hint[] = { 0 };

	return bk_gpu_name_of("runpod", m, no_hint, ARRAY_LEN(no_hint));
}

static struct runpod *
priv(struct backend *b)
{
	return b->priv;
}

static enum gr_err
runpod_init(struct backend *b, struct gr_error *err)
{
	struct runpod *r = priv(b);
	const char *s;
	enum gr_err e;

	if ((e = bk_http_init(&r->h, b, RUNPOD_URL, false, runpod_parse_error, err)) != GR_OK)
		return e;
	strlcpy_(r->image, RUNPOD_DEFAULT_IMAGE, sizeof(r->image));
	r->disk_gb = RUNPOD_DEFAULT_DISK;
	if (b->env.config != NULL) {
		if ((s = config_get(b->env.config, "runpod.image")) != NULL && s[0] != '\0')
			strlcpy_(r->image, s, sizeof(r->image));
		r->disk_gb = (int)config_get_int(b->env.config, "runpod.disk", RUNPOD_DEFAULT_DISK);
		if (r->disk_gb <= 0)
			r->disk_gb = RUNPOD_DEFAULT_DISK;
		if ((s = config_get(b->env.config, "runpod.api")) != NULL)
			r->api = strcmp(s, "v2") == 0 ? RP_V2 : strcmp(s, "graphql") == 0 ?
			    RP_GRAPHQL : RP_AUTO;
	}
	return GR_OK;
}

static bool
use_v2(struct backend *b, enum v2_family f)
{
	return priv(b)->api != RP_GRAPHQL && !priv(b)->v2_missing[f];
}

/*
 * Whether a 404 or 410 from v2 says the API is not there (rather than the one pod asked
 * about): always 410; a 404 to a collection; a 404 about one pod when v2's pod list is not
 * there either. In auto mode the family then goes to GraphQL, said once (-v); in v2 mode the
 * answer stands.
 */
static bool
v2_gone(struct backend *b, enum v2_family f, long status, bool about_one)
{
	static const char *const names[] = { N_("pods"), N_("catalogue") };
	struct runpod *r = priv(b);
	struct http_response rs;
	char msg[200];

	if (r->api != RP_AUTO || (status != 404 && status != 410))
		return false;
	if (status == 404 && about_one && !r->pods_seen) {
		if (bk_request(&r->h, HTTP_GET, "/v2/pods", NULL, true, &rs, NULL) == GR_OK &&
		    rs.status != 404 && rs.status != 410)
			r->pods_seen = true;
		http_response_release(&rs);
	}
	if (status == 404 && about_one && r->pods_seen)
		return false;
	r->v2_missing[f] = true;
	if (b->env.note != NULL) {
		snprintf(msg, sizeof(msg), _("runpod: REST v2 answers %ld for %s; using GraphQL for "
		    "them"), status, _(names[f]));
		b->env.note(b->env.note_ctx, msg);
	}
	return true;
}

/*
 * One REST v2 request (idempotent: may be retried; a GET always is). *gone: auto mode found
 * v2 lacking this family (v2_gone): nothing was done, the caller asks GraphQL. Else, as
 * bk_check: on GR_OK rs holds a reply the provider calls a success. rs is the caller's to
 * release either way.
 */
static enum gr_err
v2_call(struct backend *b, enum v2_family f, bool about_one, enum http_method m,
    const char *path, const char *json, bool idempotent, struct http_response *rs,
    bool *gone, struct gr_error *err)
{
	struct runpod *r = priv(b);
	enum gr_err e;

	*gone = false;
	e = bk_request(&r->h, m, path, json, idempotent, rs, err);
	if (e == GR_OK && v2_gone(b, f, rs->status, about_one)) {
		*gone = true;
		return GR_ENOTFOUND;
	}
	if (e == GR_OK && f == V2_PODS && rs->status >= 200 && rs->status < 300)
		r->pods_seen = true;
	if (e == GR_OK && rs->status == 204)
		return GR_OK;	/* a delete: nothing to read */
	return bk_check(&r->h, e, rs, err);
}

/* "/v2/pods/ID" and what follows; NULL for an id RunPod never gives (lower case letters and
   digits), which no pod has. */
static char *
v2_pod_path(const char *pod, const char *rest)
{
	if (pod[0] == '\0' || strspn(pod, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(pod))
		return NULL;
	return xasprintf("/v2/pods/%s%s", pod, rest);
}

static void
runpod_cleanup(struct backend *b)
{
	if (b->priv != NULL)
		bk_http_free(&priv(b)->h);
}

char *
runpod_build_offers_query(const struct filter *f, bool *pushed_all)
{
	const struct filter_term *t;
	int counts[16];
	size_t nc = 0, i, k;
	struct sb q;
	cJSON *body, *vars, *ids = NULL;
	char *s;

	*pushed_all = true;
	t = f != NULL ? filter_find(f, FF_GPUS) : NULL;
	if (t != NULL && t->op == FOP_EQ) {
		for (i = 0; i < t->n && nc < ARRAY_LEN(counts); i++)
			if (t->num[i] > 0 && t->num[i] <= 64)
				counts[nc++] = (int)t->num[i];
	}
	if (nc == 0) {
		/* Other count terms (gpus>=4) are applied after, over the usual sizes. */
		for (i = 0; i < ARRAY_LEN(default_counts); i++)
			counts[nc++] = default_counts[i];
		if (t != NULL)
			*pushed_all = false;
	}
	t = f != NULL ? filter_find(f, FF_GPU) : NULL;
	/* A name the catalogue lacks matches offers by RunPod's own id: ask for every type. */
	for (i = 0; t != NULL && i < t->n; i++)
		if (!catalogue_known(t->str[i])) {
			t = NULL;
			*pushed_all = false;
		}
	if (t != NULL && t->op == FOP_EQ) {
		const char *id;

		ids = cJSON_CreateArray();
		for (k = 0; (id = catalogue_provider_name("runpod", k)) != NULL; k++) {
			const struct gpu_model *m = catalogue_resolve("runpod", id, 0);

			for (i = 0; m != NULL && i < t->n; i++) {
				if (catalogue_matches(m, t->str[i])) {
					cJSON_AddItemToArray(ids, cJSON_CreateString(id));
					break;
				}
			}
		}
	}
	for (i = 0; f != NULL && i < f->n; i++) {
		switch (f->t[i].field) {
		case FF_GPU:
		case FF_GPUS:
		case FF_TYPE:
		case FF_PROVIDER:
			break;
		default:
			*pushed_all = false;	/* RunPod's catalogue has no such input */
			break;
		}
	}
	if (f != NULL && (t = filter_find(f, FF_GPU)) != NULL && t->op != FOP_EQ)
		*pushed_all = false;

	sb_init(&q);
	sb_adds(&q, ids != NULL ? "query GpuTypes($ids: [String]) { gpuTypes(input: {ids: $ids}) {" :
	    "query GpuTypes { gpuTypes {");
	sb_adds(&q, " id displayName memoryInGb secureCloud communityCloud");
	for (i = 0; i < nc; i++) {
		for (k = 0; k < 2; k++)
			sb_addf(&q, " %c%d: lowestPrice(input: {gpuCount: %d, secureCloud: %s}) {"
			    " uninterruptablePrice minimumBidPrice stockStatus maxUnreservedGpuCount"
			    " minVcpu minMemory minDownload countryCode }",
			    k == 0 ? 's' : 'c', counts[i], counts[i], k == 0 ? "true" : "false");
	}
	sb_adds(&q, " } }");
	body = cJSON_CreateObject();
	cJSON_AddStringToObject(body, "query", q.buf);
	vars = cJSON_AddObjectToObject(body, "variables");
	if (ids != NULL)
		cJSON_AddItemToObject(vars, "ids", ids);
	s = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	sb_release(&q);
	return s;
}

/* A document with one string variable. */
static char *
doc1(const char *query, const char *var, const char *val)
{
	cJSON *o = cJSON_CreateObject(), *v;
	char *s;

	cJSON_AddStringToObject(o, "query", query);
	v = cJSON_AddObjectToObject(o, "variables");
	if (var != NULL)
		cJSON_AddStringToObject(v, var, val);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

/*
 * POST one GraphQL document, the text with at most one string variable (var NULL: none). A
 * query only reads, so the HTTP layer retries it like a GET (a 500 included); a mutation is
 * sent as an idempotent change, which a 500 does not repeat. On GR_OK the reply had no
 * errors; the body stays in rs for the caller to parse and release.
 */
static enum gr_err
gql(struct backend *b, const char *text, const char *var, const char *val, bool query,
    struct http_response *rs, struct gr_error *err)
{
	struct runpod *r = priv(b);
	char *url = bk_url(&r->h, "/graphql"), *json = doc1(text, var, val);
	enum gr_err e;

	e = query ? http_read_json(r->h.http, HTTP_POST, url, r->h.hdrs, json, rs, err) :
	    http_send_json(r->h.http, HTTP_POST, url, r->h.hdrs, json, true, rs, err);
	free(json);
	free(url);
	return bk_check(&r->h, e, rs, err);
}

static enum gr_err
runpod_offers(struct backend *b, const struct filter *f, struct offer_list *out,
    bool *pushed_all, struct gr_error *err)
{
	const struct filter_term *t = f != NULL ? filter_find(f, FF_TYPE) : NULL;
	bool spot = false;
	char *q;
	size_t i;
	enum gr_err e;

	for (i = 0; t != NULL && i < t->n; i++)
		if (t->op == FOP_EQ && t->num[i] == OFFER_INTERRUPTIBLE)
			spot = true;
	/* v2's catalogue wants the key that GraphQL's does not, and has no interruptible pods. */
	if (!spot && use_v2(b, V2_CATALOG) && bk_need_key(&priv(b)->h, b->ops->name, NULL) ==
	    GR_OK) {
		struct http_response rs;
		bool gone;

		e = v2_call(b, V2_CATALOG, false, HTTP_GET,
		    "/v2/catalog/gpus?include=AVAILABILITY&product=POD", NULL, true, &rs, &gone, err);
		if (!gone) {
			if (e == GR_OK)
				e = runpod_v2_parse_catalog(rs.body, rs.len, out, err);
			http_response_release(&rs);
			*pushed_all = bk_only_provider_type(f);
			return e;
		}
		http_response_release(&rs);
	}
	q = runpod_build_offers_query(f, pushed_all);
	/* A query changes nothing: a read. */
	e = bk_offers_read(&priv(b)->h, HTTP_POST, "/graphql", q, &runpod_offer_kind, &spot, out,
	    err);
	free(q);
	return e;
}

static enum gr_err
runpod_get_local(struct backend *b, const char *pod, struct instance *out, struct gr_error *err)
{
	struct http_response rs;
	struct gr_error e2 = { 0 };
	enum gr_err e;
	char *path;
	bool gone;

	if (use_v2(b, V2_PODS)) {
		if ((path = v2_pod_path(pod, "")) == NULL)
			return gr_fail(err, GR_ENOTFOUND, "no pod 'runpod:%s'", pod);
		e = v2_call(b, V2_PODS, true, HTTP_GET, path, NULL, true, &rs, &gone, &e2);
		free(path);
		if (!gone) {
			if (e == GR_ENOTFOUND)
				e = gr_fail(err, GR_ENOTFOUND, "no pod 'runpod:%s'", pod);
			else if (e != GR_OK)
				e = gr_fail(err, e, "%s", e2.msg);
			else
				e = runpod_v2_parse_pod(rs.body, rs.len, out, err);
			http_response_release(&rs);
			return e;
		}
		http_response_release(&rs);
	}
	e = gql(b, "query Pod($podId: String!) { pod(input: {podId: $podId}) { " POD_FIELDS
	    " } }", "podId", pod, true, &rs, err);
	if (e == GR_OK) {
		e = runpod_parse_pod(rs.body, rs.len, out, &(struct gr_error){ 0 });
		if (e == GR_ENOTFOUND)
			e = gr_fail(err, GR_ENOTFOUND, "no pod 'runpod:%s'", pod);
		else if (e != GR_OK)
			e = runpod_parse_pod(rs.body, rs.len, out, err);
	}
	http_response_release(&rs);
	return e;
}

static enum gr_err
runpod_get(struct backend *b, const char *id, struct instance *out, struct gr_error *err)
{
	const char *l;
	enum gr_err e;

	if ((e = bk_instance_local(b, &priv(b)->h, id, bk_local_id, &l, err)) != GR_OK)
		return e;
	return runpod_get_local(b, l, out, err);
}

static enum gr_err
runpod_list(struct backend *b, struct instance_list *out, struct gr_error *err)
{
	struct http_response rs;
	enum gr_err e;
	bool gone;

	if (use_v2(b, V2_PODS)) {
		e = v2_call(b, V2_PODS, false, HTTP_GET, "/v2/pods", NULL, true, &rs, &gone, err);
		if (!gone) {
			if (e == GR_OK)
				e = runpod_v2_parse_pods(rs.body, rs.len, out, err);
			http_response_release(&rs);
			return e;
		}
		http_response_release(&rs);
	}
	e = gql(b, "query Pods { myself { pods { " POD_FIELDS " } } }", NULL, NULL, true, &rs, err);
	if (e == GR_OK)
		e = runpod_parse_pods(rs.body, rs.len, out, err);
	http_response_release(&rs);
	return e;
}

static enum gr_err
runpod_instances(struct backend *b, struct instance_list *out, struct gr_error *err)
{
	enum gr_err e;

	if ((e = bk_need_key(&priv(b)->h, b->ops->name, err)) != GR_OK)
		return e;
	return runpod_list(b, out, err);
}

static char *
deploy_doc(const struct runpod *r, const struct launch_req *req, bool secure, int count,
    const char *type_id, const char *name)
{
	cJSON *o = cJSON_CreateObject(), *in, *env, *kv;
	struct sb ports;
	char *s;
	size_t i;
	const char *eq;

	cJSON_AddStringToObject(o, "query", req->interruptible ?
	    "mutation Deploy($input: PodRentInterruptableInput!) { podRentInterruptable(input: "
	    "$input) { " POD_FIELDS " } }" :
	    "mutation Deploy($input: PodFindAndDeployOnDemandInput!) { podFindAndDeployOnDemand("
	    "input: $input) { " POD_FIELDS " } }");
	in = cJSON_AddObjectToObject(cJSON_AddObjectToObject(o, "variables"), "input");
	cJSON_AddStringToObject(in, "gpuTypeId", type_id);
	cJSON_AddNumberToObject(in, "gpuCount", count);
	cJSON_AddStringToObject(in, "cloudType", secure ? "SECURE" : "COMMUNITY");
	cJSON_AddStringToObject(in, "name", name);
	cJSON_AddStringToObject(in, "imageName", req->image != NULL ? req->image : r->image);
	cJSON_AddNumberToObject(in, "containerDiskInGb", req->disk_gb > 0 ? req->disk_gb :
	    r->disk_gb);
	cJSON_AddNumberToObject(in, "volumeInGb", 0);
	cJSON_AddTrueToObject(in, "startSsh");
	sb_init(&ports);
	sb_adds(&ports, "22/tcp");
	for (i = 0; i < req->n_ports; i++)
		if (req->ports[i] != 22)
			sb_addf(&ports, ",%d/tcp", req->ports[i]);
	cJSON_AddStringToObject(in, "ports", ports.buf);
	sb_release(&ports);
	env = cJSON_AddArrayToObject(in, "env");
	for (i = 0; req->env != NULL && req->env[i] != NULL; i++) {
		char k[128];

		eq = strchr(req->env[i], '=');
		if (eq == NULL || eq == req->env[i] || (size_t)(eq - req->env[i]) >= sizeof(k))
			continue;
		memcpy(k, req->env[i], (size_t)(eq - req->env[i]));
		k[eq - req->env[i]] = '\0';
		kv = cJSON_CreateObject();
		cJSON_AddStringToObject(kv, "key", k);
		cJSON_AddStringToObject(kv, "value", eq + 1);
		cJSON_AddItemToArray(env, kv);
	}
	if (req->client_token != NULL) {
		kv = cJSON_CreateObject();
		cJSON_AddStringToObject(kv, "key", "GPURENT_CLIENT_TOKEN");
		cJSON_AddStringToObject(kv, "value", req->client_token);
		cJSON_AddItemToArray(env, kv);
	}
	if (req->onstart != NULL)
		cJSON_AddStringToObject(in, "dockerArgs", req->onstart);
	if (req->interruptible)
		cJSON_AddNumberToObject(in, "bidPerGpu", (double)req->bid_hour / 1e6 / count);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

/* POST /v2/pods's body (§9): one GPU type, the cloud, the image, disk, ports, env, args. */
static char *
create_body_v2(const struct runpod *r, const struct launch_req *req, bool secure, int count,
    const char *type_id, const char *name)
{
	cJSON *o = cJSON_CreateObject(), *g, *ports;
	char p[16];
	char *s;
	size_t i;

	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "image", req->image != NULL ? req->image : r->image);
	g = cJSON_AddObjectToObject(o, "gpu");
	cJSON_AddStringToObject(g, "id", type_id);
	cJSON_AddNumberToObject(g, "count", count);
	cJSON_AddStringToObject(o, "cloud", secure ? "SECURE" : "COMMUNITY");
	cJSON_AddNumberToObject(o, "disk", req->disk_gb > 0 ? req->disk_gb : r->disk_gb);
	ports = cJSON_AddArrayToObject(o, "ports");
	cJSON_AddItemToArray(ports, cJSON_CreateString("22/tcp"));
	for (i = 0; i < req->n_ports; i++) {
		if (req->ports[i] == 22)
			continue;
		snprintf(p, sizeof(p), "%d/tcp", req->ports[i]);
		cJSON_AddItemToArray(ports, cJSON_CreateString(p));
	}
	bj_env_object(o, req->env, req->client_token);
	if (req->onstart != NULL)
		cJSON_AddStringToObject(o, "args", req->onstart);
	cJSON_AddTrueToObject(o, "startSsh");
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

/* One create (v2's POST /v2/pods, else a podFindAndDeploy* mutation) and how to recognise
   its pod (for bk_launch_run). */
struct create {
	struct backend *b;
	const struct launch_req *req;
	bool secure;
	int count;
	const char *type_id;
	const char *name;
	struct instance *out;	/* filled from the reply once accepted */
	bool v2;		/* the last send was POST /v2/pods, not a mutation */
	bool gone;		/* v2: auto mode found it missing; nothing was created */
};

/* Chosen at each send: a list before it (a labelled launch's) may have found v2 missing. */
static enum gr_err
create_send(void *ctx, struct http_response *rs, struct gr_error *err)
{
	struct create *c = ctx;
	struct runpod *r = priv(c->b);
	char *doc, *url;
	enum gr_err e;

	/* v2 has no interruptible pods: a bid goes to GraphQL. */
	c->v2 = !c->req->interruptible && use_v2(c->b, V2_PODS);
	doc = c->v2 ? create_body_v2(r, c->req, c->secure, c->count, c->type_id, c->name) :
	    deploy_doc(r, c->req, c->secure, c->count, c->type_id, c->name);
	url = bk_url(&r->h, c->v2 ? "/v2/pods" : "/graphql");
	e = http_send_json(r->h.http, HTTP_POST, url, r->h.hdrs, doc, false, rs, err);
	free(url);
	free(doc);
	return e;
}

static enum gr_err
create_accept(void *ctx, const struct http_response *rs, struct gr_error *err)
{
	struct create *c = ctx;
	enum gr_err e;

	if (c->v2 && v2_gone(c->b, V2_PODS, rs->status, false)) {
		c->gone = true;
		return GR_ENOTFOUND;
	}
	e = runpod_parse_error(rs->status, rs->body, rs->len, err);
	if (e != GR_OK)
		return e;
	return c->v2 ? runpod_v2_parse_pod(rs->body, rs->len, c->out, err) :
	    runpod_parse_mutation(rs->body, rs->len, NULL, c->out, err);
}

static enum gr_err
create_list(void *ctx, struct instance_list *out, struct gr_error *err)
{
	struct create *c = ctx;

	return runpod_list(c->b, out, err);
}

static enum gr_err
runpod_launch(struct backend *b, const struct launch_req *req, struct instance *out,
    struct gr_error *err)
{
	struct create rc = { 0 };
	char type_id[96], name[64];
	bool secure, spot;
	int count;
	enum gr_err e = GR_OK;
	bool found, labelled;

	if ((e = bk_need_key(&priv(b)->h, b->ops->name, err)) != GR_OK)
		return e;
	if (!runpod_offer_id_parse(req->offer_id, &secure, &count, &spot, type_id,
	    sizeof(type_id)))
		return gr_fail(err, GR_ENOTFOUND, "no offer '%s'", req->offer_id);
	if (req->interruptible && req->bid_hour <= 0)
		return gr_fail(err, GR_EUSAGE, "an interruptible launch needs a bid");
	/* The name carries the client token, so an unclear outcome can be looked up. */
	labelled = bk_launch_name(req, name, sizeof(name));
	rc.b = b;
	rc.req = req;
	rc.secure = secure;
	rc.count = count;
	rc.type_id = type_id;
	rc.name = name;
	rc.out = out;
	/* A create that found v2 gone did nothing: sent again, it goes to GraphQL. */
	do {
		struct gr_error e2 = { 0 };

		rc.gone = false;
		e = bk_launch_run(&(struct bk_launch){ .name = name,
		    .name_unique = !labelled && req->client_token != NULL, .backoff_ms = 500,
		    .ctx = &rc, .send = create_send, .accept = create_accept, .list = create_list },
		    out, &found, &e2);
		if (!rc.gone && e != GR_OK)
			return gr_fail(err, e, "%s", e2.msg);
	} while (rc.gone);
	strlcpy_(out->offer_id, req->offer_id, sizeof(out->offer_id));
	out->created_at = bk_now();
	out->valid |= IV_CREATED;
	return GR_OK;
}

/*
 * A pod's action by its id: v2's POST /v2/pods/{id}/action (stop, start) or DELETE
 * /v2/pods/{id} (terminate), else GraphQL's podStop / podResume / podTerminate (doc_text).
 * Each has the same effect when repeated: an attempt after one that went through (a 500 after
 * acting) finds the pod gone (terminate) or v2 refusing, 409, what is already done.
 */
static enum gr_err
runpod_mutate(struct backend *b, const char *id, const char *action, const char *doc_text,
    struct gr_error *err)
{
	bool terminate = strcmp(action, "terminate") == 0, gone = false;
	struct http_response rs;
	struct gr_error e2 = { 0 };
	struct instance now;
	const char *l;
	char *path, body[40];
	enum gr_err e;

	if ((e = bk_instance_local(b, &priv(b)->h, id, bk_local_id, &l, err)) != GR_OK)
		return e;
	if (use_v2(b, V2_PODS)) {
		if ((path = v2_pod_path(l, terminate ? "" : "/action")) == NULL)
			return gr_fail(err, GR_ENOTFOUND, "no pod '%s'", id);
		snprintf(body, sizeof(body), "{\"action\":\"%s\"}", action);
		e = v2_call(b, V2_PODS, true, terminate ? HTTP_DELETE : HTTP_POST, path,
		    terminate ? NULL : body, true, &rs, &gone, &e2);
		free(path);
		if (e == GR_ECONFLICT && runpod_get_local(b, l, &now, &(struct gr_error){ 0 }) ==
		    GR_OK && (strcmp(action, "stop") == 0 ? now.state == ST_STOPPED ||
		    now.state == ST_STOPPING : now.state == ST_RUNNING ||
		    now.state == ST_PROVISIONING || now.state == ST_STARTING))
			e = GR_OK;	/* already done */
		if (gone)
			http_response_release(&rs);
	}
	if (!use_v2(b, V2_PODS))
		e = gql(b, doc_text, "podId", l, false, &rs, &e2);
	if (e == GR_ENOTFOUND && terminate && rs.attempts > 1)
		e = GR_OK;	/* an earlier attempt went through */
	else if (e == GR_ENOTFOUND)
		e = gr_fail(err, GR_ENOTFOUND, "no pod '%s'", id);
	else if (e != GR_OK)
		e = gr_fail(err, e, "%s", e2.msg);
	http_response_release(&rs);
	return e;
}

static enum gr_err
runpod_stop(struct backend *b, const char *id, struct gr_error *err)
{
	return runpod_mutate(b, id, "stop", "mutation Stop($podId: String!) { podStop(input: "
	    "{podId: $podId}) { id desiredStatus } }", err);
}

static enum gr_err
runpod_start(struct backend *b, const char *id, struct gr_error *err)
{
	return runpod_mutate(b, id, "start", "mutation Resume($podId: String!) { podResume("
	    "input: {podId: $podId}) { id desiredStatus costPerHr } }", err);
}

static enum gr_err
runpod_destroy(struct backend *b, const char *id, struct gr_error *err)
{
	return runpod_mutate(b, id, "terminate", "mutation Terminate($podId: String!) { "
	    "podTerminate(input: {podId: $podId}) }", err);
}

static enum gr_err
runpod_metrics(struct backend *b, const char *id, struct sample_list *out, struct gr_error *err)
{
	struct http_response rs;
	char *path;
	const char *l;
	enum gr_err e;
	size_t from;

	if ((e = bk_instance_local(b, &priv(b)->h, id, bk_local_id, &l, err)) != GR_OK)
		return e;
	from = out->n;
	if (use_v2(b, V2_PODS) && (path = v2_pod_path(l, "")) != NULL) {
		bool gone, carried = false;

		e = v2_call(b, V2_PODS, true, HTTP_GET, path, NULL, true, &rs, &gone, err);
		free(path);
		if (!gone && e == GR_OK)
			e = runpod_v2_parse_metrics(rs.body, rs.len, id, out, &carried, err);
		http_response_release(&rs);
		if (!gone && (e != GR_OK || carried)) {
			bk_stamp_samples(out, from, bk_now());
			return e;
		}
		/* The runtime carries no utilisation: GraphQL's does. */
		out->n = from;
	}
	e = gql(b, "query Metrics($podId: String!) { pod(input: {podId: $podId}) { id runtime { "
	    "gpus { id gpuUtilPercent memoryUtilPercent } } } }", "podId", l, true, &rs, err);
	if (e == GR_OK)
		e = runpod_parse_metrics(rs.body, rs.len, id, out, err);
	http_response_release(&rs);
	/* RunPod's runtime figures carry no time: they are as of now. */
	bk_stamp_samples(out, from, bk_now());
	return e;
}

static enum gr_err
runpod_account(struct backend *b, struct account *out, struct gr_error *err)
{
	struct http_response rs;
	enum gr_err e;

	if ((e = bk_need_key(&priv(b)->h, b->ops->name, err)) != GR_OK)
		return e;
	e = gql(b, "query Me { myself { clientBalance currentSpendPerHr } }", NULL, NULL, true,
	    &rs, err);
	if (e == GR_OK)
		e = runpod_parse_myself(rs.body, rs.len, out, err);
	http_response_release(&rs);
	return e;
}

/*
 * What RunPod billed each pod per day: REST v2's GET /v2/billing/pods on the API's address
 * (GraphQL has no billing query in providers/runpod.md), one request for the whole window.
 */
static enum gr_err
runpod_charges(struct backend *b, int64_t since, int64_t until, struct charge_list *out,
    struct gr_error *err)
{
	struct runpod *r = priv(b);
	struct http_response rs;
	char path[192], from[32], to[32];
	time_t t0 = (time_t)since, t1 = (time_t)(until != 0 ? until : bk_now());
	struct tm tm;
	size_t n0 = out->n;
	enum gr_err e;

	if ((e = bk_need_key(&r->h, b->ops->name, err)) != GR_OK)
		return e;
	strftime(from, sizeof(from), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t0, &tm));
	strftime(to, sizeof(to), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t1, &tm));
	snprintf(path, sizeof(path), "/v2/billing/pods?bucketSize=day&grouping=podId&"
	    "startTime=%s&endTime=%s", from, to);
	e = bk_call(&r->h, HTTP_GET, path, NULL, true, &rs, err);
	if (e == GR_OK)
		e = runpod_parse_billing(rs.body, rs.len, out, err);
	http_response_release(&rs);
	if (e == GR_OK)
		bk_charges_window(out, n0, since, until);
	return e;
}

const struct backend_ops backend_runpod = {
	.name = "runpod",
	.description = "RunPod GPU pods (REST v2 and GraphQL APIs)",
	.caps = CAP_STOP | CAP_METRICS | CAP_INTERRUPTIBLE | CAP_ACCOUNT | CAP_SSH,
	.priv_size = sizeof(struct runpod),
	.init = runpod_init,
	.cleanup = runpod_cleanup,
	.offers = runpod_offers,
	.instances = runpod_instances,
	.get = runpod_get,
	.launch = runpod_launch,
	.stop = runpod_stop,
	.start = runpod_start,
	.destroy = runpod_destroy,
	.metrics = runpod_metrics,
	.account = runpod_account,
	.charges = runpod_charges,
};
