/*
 * dialect_vast.c - the simulated world in vast.ai's REST protocol (providers/vast.md):
 * search with vast's query language, create, list (keyset pages), get, stop/start, destroy,
 * the current user; vast's error bodies and statuses.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpurent/catalogue.h"
#include "gpurent/backends_parse.h"
#include "gpurent/sim.h"
#include "gpurent/util.h"

#include "serve_int.h"

static void
reply_json(struct serve_reply *rp, int status, cJSON *j)
{
	char *s = cJSON_PrintUnformatted(j);

	rp->status = status;
	sb_reset(&rp->body);
	sb_adds(&rp->body, s);
	free(s);
	cJSON_Delete(j);
}

static void
vast_fail(struct serve_reply *rp, int status, const char *code, const char *msg)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddFalseToObject(j, "success");
	cJSON_AddStringToObject(j, "error", code);
	cJSON_AddStringToObject(j, "msg", msg);
	reply_json(rp, status, j);
}

static double
dollars(int64_t micros)
{
	return (double)micros / 1e6;
}

static cJSON *
offer_json(const struct offer *o, long long num, int disk)
{
	cJSON *j = cJSON_CreateObject();
	const char *name = vast_gpu_name_of(o->gpu);
	double storage_h = dollars(o->storage_gb_month) * disk / 720.0;
	double per_core_ram;

	cJSON_AddNumberToObject(j, "id", (double)num);
	cJSON_AddNumberToObject(j, "ask_contract_id", (double)num);
	cJSON_AddNumberToObject(j, "machine_id", (double)(num / 4 + 1000));
	cJSON_AddStringToObject(j, "gpu_name", name != NULL ? name : o->gpu_raw);
	cJSON_AddStringToObject(j, "gpu_arch", o->gpu != NULL && strcmp(o->gpu->vendor, "AMD") == 0 ?
	    "amd" : "nvidia");
	cJSON_AddNumberToObject(j, "num_gpus", o->gpu_count);
	cJSON_AddNumberToObject(j, "gpu_ram", o->vram_gb * 1024);
	cJSON_AddNumberToObject(j, "gpu_total_ram", o->vram_gb * 1024 * o->gpu_count);
	cJSON_AddNumberToObject(j, "bw_nvlink", o->interconnect == IC_PCIE ? 0 : 600);
	cJSON_AddNumberToObject(j, "cpu_cores", o->cpu_cores * 2);
	cJSON_AddNumberToObject(j, "cpu_cores_effective", o->cpu_cores);
	per_core_ram = (double)o->ram_gb * 1000.0 * 2;
	cJSON_AddNumberToObject(j, "cpu_ram", per_core_ram);
	cJSON_AddNumberToObject(j, "disk_space", o->disk_gb);
	cJSON_AddNumberToObject(j, "inet_down", o->net_down_mbps);
	cJSON_AddNumberToObject(j, "inet_up", o->net_up_mbps);
	cJSON_AddNumberToObject(j, "reliability", o->reliability_bp / 10000.0);
	cJSON_AddStringToObject(j, "geolocation", o->location);
	cJSON_AddBoolToObject(j, "verified", true);
	cJSON_AddStringToObject(j, "verification", "verified");
	cJSON_AddBoolToObject(j, "external", false);
	cJSON_AddBoolToObject(j, "rentable", o->available > 0);
	cJSON_AddBoolToObject(j, "rented", false);
	cJSON_AddBoolToObject(j, "is_bid", o->type == OFFER_INTERRUPTIBLE);
	cJSON_AddNumberToObject(j, "dph_base", dollars(o->price_hour));
	cJSON_AddNumberToObject(j, "min_bid", dollars(o->price_hour));
	cJSON_AddNumberToObject(j, "storage_cost", dollars(o->storage_gb_month));
	cJSON_AddNumberToObject(j, "storage_total_cost", storage_h);
	/* Rounded to the micro-dollar, as a price on the wire is. */
	cJSON_AddNumberToObject(j, "dph_total",
	    (double)llround((dollars(o->price_hour) + storage_h) * 1e6) / 1e6);
	cJSON_AddNumberToObject(j, "total_flops", o->gpu != NULL ?
	    catalogue_tensor_tflops_x10(o->gpu) / 10.0 * o->gpu_count : 0);
	return j;
}

/* One vast operator test of a field value. */
static bool
op_match(const char *field, const cJSON *v, const char *op, const cJSON *arg)
{
	const cJSON *a;
	double x, y;
	char cc[3] = "";

	if (strcmp(field, "geolocation") == 0 && cJSON_IsString(v)) {
		const char *c = strrchr(v->valuestring, ',');

		if (c != NULL && strlen(c) == 4) {
			cc[0] = c[2];
			cc[1] = c[3];
		}
	}
	if (strcmp(op, "in") == 0 || strcmp(op, "notin") == 0) {
		bool found = false;

		cJSON_ArrayForEach(a, arg)
			if (op_match(field, v, "eq", a))
				found = true;
		return strcmp(op, "in") == 0 ? found : !found;
	}
	if (strcmp(op, "eq") == 0 || strcmp(op, "neq") == 0) {
		bool eq;

		if (cJSON_IsNull(arg))
			eq = v == NULL || cJSON_IsNull(v);
		else if (cJSON_IsBool(arg))
			eq = cJSON_IsBool(v) && cJSON_IsTrue(v) == cJSON_IsTrue(arg);
		else if (cJSON_IsString(arg) && cc[0] != '\0')
			eq = strcmp(cc, arg->valuestring) == 0 ||
			    strcmp(v->valuestring, arg->valuestring) == 0;
		else if (cJSON_IsString(arg) && cJSON_IsString(v))
			eq = strcmp(v->valuestring, arg->valuestring) == 0;
		else if (cJSON_IsNumber(v))
			eq = v->valuedouble == (cJSON_IsNumber(arg) ? arg->valuedouble :
			    cJSON_IsString(arg) ? strtod(arg->valuestring, NULL) : NAN);
		else
			eq = false;
		return strcmp(op, "eq") == 0 ? eq : !eq;
	}
	if (!cJSON_IsNumber(v))
		return false;
	x = v->valuedouble;
	y = cJSON_IsNumber(arg) ? arg->valuedouble : cJSON_IsString(arg) ?
	    strtod(arg->valuestring, NULL) : NAN;
	if (strcmp(op, "gt") == 0)
		return x > y;
	if (strcmp(op, "gte") == 0)
		return x >= y;
	if (strcmp(op, "lt") == 0)
		return x < y;
	if (strcmp(op, "lte") == 0)
		return x <= y;
	return false;
}

static bool
is_meta(const char *k)
{
	return strcmp(k, "order") == 0 || strcmp(k, "type") == 0 || strcmp(k, "limit") == 0 ||
	    strcmp(k, "allocated_storage") == 0 || strcmp(k, "disable_bundling") == 0;
}

/* Whether an offer object passes the query; *bad names an unknown key. */
static bool
query_match(const cJSON *q, const cJSON *o, const char **bad)
{
	const cJSON *f, *op;

	for (f = q->child; f != NULL; f = f->next) {
		const cJSON *v;

		if (is_meta(f->string))
			continue;
		v = cJSON_GetObjectItemCaseSensitive(o, f->string);
		if (v == NULL) {
			*bad = f->string;
			return false;
		}
		if (!cJSON_IsObject(f)) {
			if (!op_match(f->string, v, "eq", f))
				return false;
			continue;
		}
		for (op = f->child; op != NULL; op = op->next)
			if (!op_match(f->string, v, op->string, op))
				return false;
	}
	return true;
}

static const char *sort_key = "dph_total";
static int sort_desc;

static int
cmp_offer(const void *a, const void *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(*(cJSON *const *)a, sort_key);
	const cJSON *y = cJSON_GetObjectItemCaseSensitive(*(cJSON *const *)b, sort_key);
	double dx = cJSON_IsNumber(x) ? x->valuedouble : 0, dy = cJSON_IsNumber(y) ? y->valuedouble : 0;
	int c = dx < dy ? -1 : dx > dy;

	return sort_desc ? -c : c;
}

static void
search(struct serve_ctx *c, const char *qtext, struct serve_reply *rp)
{
	struct offer_list all;
	struct gr_error err = { 0 };
	cJSON *q, *res, *arr, **keep;
	const cJSON *t, *ord;
	const char *bad = NULL;
	bool bid;
	size_t i, n = 0;
	long long limit = 1000;
	int disk = 5;
	double d;

	q = cJSON_Parse(qtext);
	if (!cJSON_IsObject(q)) {
		cJSON_Delete(q);
		vast_fail(rp, 400, "invalid_request", "Invalid json body");
		return;
	}
	t = cJSON_GetObjectItemCaseSensitive(q, "type");
	bid = cJSON_IsString(t) && (strcmp(t->valuestring, "bid") == 0 ||
	    strcmp(t->valuestring, "interruptible") == 0);
	if (bj_num(q, "limit", &d) && d > 0)
		limit = (long long)d;
	if (bj_num(q, "allocated_storage", &d) && d > 0 && d < 100000)
		disk = (int)d;
	ord = cJSON_GetObjectItemCaseSensitive(q, "order");
	sort_key = "dph_total";
	sort_desc = 0;
	if (cJSON_IsArray(ord) && cJSON_IsArray(ord->child) &&
	    cJSON_IsString(cJSON_GetArrayItem(ord->child, 0))) {
		sort_key = cJSON_GetArrayItem(ord->child, 0)->valuestring;
		t = cJSON_GetArrayItem(ord->child, 1);
		sort_desc = cJSON_IsString(t) && strcmp(t->valuestring, "desc") == 0;
	}
	offer_list_init(&all);
	if (sim_offers(c->sim, &all, &err) != GR_OK) {
		cJSON_Delete(q);
		offer_list_release(&all);
		vast_fail(rp, 500, "internal_error", err.msg);
		return;
	}
	keep = xcalloc(all.n + 1, sizeof(*keep));
	for (i = 0; i < all.n; i++) {
		cJSON *o;
		long long num;

		if ((all.v[i].type == OFFER_INTERRUPTIBLE) != bid)
			continue;
		num = serve_sim_num(all.v[i].id);
		if (num < 0)
			continue;
		o = offer_json(&all.v[i], num, disk);
		if (query_match(q, o, &bad))
			keep[n++] = o;
		else
			cJSON_Delete(o);
		if (bad != NULL)
			break;
	}
	if (bad != NULL) {
		char msg[160];

		for (i = 0; i < n; i++)
			cJSON_Delete(keep[i]);
		free(keep);
		snprintf(msg, sizeof(msg), "%.60s is not a valid search key", bad);
		cJSON_Delete(q);
		offer_list_release(&all);
		vast_fail(rp, 400, "invalid_request", msg);
		return;
	}
	qsort(keep, n, sizeof(*keep), cmp_offer);
	res = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(res, "offers");
	for (i = 0; i < n; i++) {
		if ((long long)i < limit)
			cJSON_AddItemToArray(arr, keep[i]);
		else
			cJSON_Delete(keep[i]);
	}
	free(keep);
	cJSON_Delete(q);
	offer_list_release(&all);
	reply_json(rp, 200, res);
}

static void
status_of(const struct instance *in, const char **actual, const char **intended,
    const char **cur, const char **next)
{
	*intended = "running";
	*cur = "running";
	*next = "running";
	switch (in->state) {
	case ST_PROVISIONING:
		*actual = "loading";
		break;
	case ST_RUNNING:
		*actual = "running";
		break;
	case ST_STOPPING:
		*actual = "running";
		*intended = *next = "stopped";
		break;
	case ST_STOPPED:
		*actual = "stopped";
		*intended = *cur = *next = "stopped";
		break;
	case ST_STARTING:
		*actual = "stopped";
		*cur = "stopped";
		break;
	case ST_FAILED:
		*actual = "exited";
		break;
	default:
		*actual = "offline";
		*intended = *cur = *next = "stopped";
		break;
	}
}

static cJSON *
instance_json(struct serve_ctx *c, const struct instance *in)
{
	cJSON *j = cJSON_CreateObject(), *ports, *p22, *m;
	const char *actual, *intended, *cur, *next, *name = vast_gpu_name_of(in->gpu);
	struct offer o;
	struct gr_error err = { 0 };
	long long num = serve_sim_num(in->id);
	char port[16];

	status_of(in, &actual, &intended, &cur, &next);
	cJSON_AddNumberToObject(j, "id", (double)num);
	cJSON_AddStringToObject(j, "actual_status", actual);
	cJSON_AddStringToObject(j, "intended_status", intended);
	cJSON_AddStringToObject(j, "cur_state", cur);
	cJSON_AddStringToObject(j, "next_state", next);
	cJSON_AddStringToObject(j, "status_msg", in->status_msg);
	if (in->label[0] != '\0')
		cJSON_AddStringToObject(j, "label", in->label);
	else
		cJSON_AddNullToObject(j, "label");
	cJSON_AddNumberToObject(j, "start_date", (double)in->created_at);
	cJSON_AddStringToObject(j, "gpu_name", name != NULL ? name : in->gpu_raw);
	cJSON_AddNumberToObject(j, "num_gpus", in->gpu_count);
	if (in->gpu != NULL) {
		cJSON_AddNumberToObject(j, "gpu_ram", in->gpu->vram_gb * 1024);
		cJSON_AddNumberToObject(j, "gpu_totalram", in->gpu->vram_gb * 1024 * in->gpu_count);
	}
	cJSON_AddBoolToObject(j, "is_bid", in->type == OFFER_INTERRUPTIBLE);
	cJSON_AddNumberToObject(j, "dph_base", dollars(in->price_hour));
	cJSON_AddNumberToObject(j, "storage_total_cost", dollars(in->storage_hour));
	cJSON_AddNumberToObject(j, "dph_total",
	    (double)llround(dollars(in->price_hour + in->storage_hour) * 1e6) / 1e6);
	if (sim_offer(c->sim, in->offer_id, &o, &err) == GR_OK)
		cJSON_AddStringToObject(j, "geolocation", o.location);
	else
		cJSON_AddNullToObject(j, "geolocation");
	cJSON_AddNumberToObject(j, "disk_space", in->disk_gb);
	cJSON_AddStringToObject(j, "image_uuid", in->image);
	cJSON_AddStringToObject(j, "image_runtype", "ssh_direc ssh_proxy");
	if (in->valid & IV_SSH) {
		cJSON_AddStringToObject(j, "public_ipaddr", in->ssh_host);
		ports = cJSON_AddObjectToObject(j, "ports");
		p22 = cJSON_AddArrayToObject(ports, "22/tcp");
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "HostIp", "0.0.0.0");
		snprintf(port, sizeof(port), "%d", in->ssh_port);
		cJSON_AddStringToObject(m, "HostPort", port);
		cJSON_AddItemToArray(p22, m);
		cJSON_AddStringToObject(j, "ssh_host", "ssh4.vast.ai");
		cJSON_AddNumberToObject(j, "ssh_port", 20000 + (double)(num % 10000));
	}
	if ((in->valid & IV_UTIL) && in->state == ST_RUNNING) {
		cJSON_AddNumberToObject(j, "gpu_util", in->util_pct);
		cJSON_AddNumberToObject(j, "gpu_temp", 40 + in->util_pct / 3);
	} else {
		cJSON_AddNullToObject(j, "gpu_util");
		cJSON_AddNullToObject(j, "gpu_temp");
	}
	return j;
}

/* The sim instance for a vast instance id; false when it does not exist. */
static bool
find_instance(struct serve_ctx *c, const char *num, struct instance *out)
{
	struct gr_error err = { 0 };
	char id[ID_MAX];
	long long n;

	if (!parse_int(num, 0, INT64_MAX / 4, &n))
		return false;
	snprintf(id, sizeof(id), "sim:i-%06lld", n);
	return sim_get(c->sim, id, out, &err) == GR_OK && out->state != ST_DESTROYED &&
	    out->state != ST_DESTROYING;
}

static void
list(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	struct instance_list l;
	struct gr_error err = { 0 };
	const char *tok = serve_query(rq, "after_token"), *lim = serve_query(rq, "limit");
	const char *sf = serve_query(rq, "select_filters"), *bad = NULL;
	cJSON *res, *arr, *filters = NULL, *row;
	long long limit = 25, after = -1, n;
	size_t i, found = 0;
	char next[32] = "";

	if (lim != NULL && parse_int(lim, -1000, 1000, &n))
		limit = n <= 0 ? 5 : n > 25 ? 25 : n;
	if (tok != NULL && tok[0] != '\0' && !parse_int(tok, 0, INT64_MAX / 4, &after)) {
		vast_fail(rp, 400, "invalid_token", "invalid after_token");
		return;
	}
	if (sf != NULL && (filters = cJSON_Parse(sf)) != NULL && !cJSON_IsObject(filters)) {
		cJSON_Delete(filters);
		vast_fail(rp, 400, "invalid_args", "select_filters must be an object");
		return;
	}
	instance_list_init(&l);
	if (sim_instances(c->sim, false, &l, &err) != GR_OK) {
		cJSON_Delete(filters);
		instance_list_release(&l);
		vast_fail(rp, 500, "internal_error", err.msg);
		return;
	}
	res = cJSON_CreateObject();
	cJSON_AddTrueToObject(res, "success");
	arr = cJSON_CreateArray();
	for (i = 0; i < l.n; i++) {
		long long num = serve_sim_num(l.v[i].id);

		if (num <= after || l.v[i].state == ST_DESTROYED ||
		    l.v[i].state == ST_DESTROYING)
			continue;
		row = instance_json(c, &l.v[i]);
		if (filters != NULL && !query_match(filters, row, &bad)) {
			cJSON_Delete(row);
			continue;
		}
		if ((long long)found == limit) {
			cJSON_Delete(row);
			snprintf(next, sizeof(next), "%lld", after);
			break;
		}
		cJSON_AddItemToArray(arr, row);
		found++;
		after = num;
	}
	cJSON_AddNumberToObject(res, "instances_found", (double)found);
	if (next[0] != '\0')
		cJSON_AddStringToObject(res, "next_token", next);
	else
		cJSON_AddNullToObject(res, "next_token");
	cJSON_AddItemToObject(res, "instances", arr);
	cJSON_Delete(filters);
	instance_list_release(&l);
	reply_json(rp, 200, res);
}

static void
create(struct serve_ctx *c, const char *ask, const struct serve_req *rq, struct serve_reply *rp)
{
	struct launch_req req;
	struct instance in;
	struct offer o;
	struct gr_error err = { 0 };
	cJSON *b, *env, *e, *res;
	char oid[ID_MAX], **envv = NULL, msg[200];
	const char *lab;
	long long n;
	size_t ne = 0, i;
	double d;
	enum gr_err code;

	b = cJSON_ParseWithLength(rq->body, rq->len);
	if (!cJSON_IsObject(b)) {
		cJSON_Delete(b);
		vast_fail(rp, 400, "invalid_request", "Invalid json body");
		return;
	}
	if (!parse_int(ask, 0, INT64_MAX / 4, &n)) {
		cJSON_Delete(b);
		vast_fail(rp, 404, "no_such_ask", "error 404/3603: no_such_ask  Instance type is "
		    "not available.");
		return;
	}
	snprintf(oid, sizeof(oid), "sim:o-%06lld", n);
	if (sim_offer(c->sim, oid, &o, &err) != GR_OK) {
		snprintf(oid, sizeof(oid), "sim:o-%06lldi", n);
		gr_error_clear(&err);
	}
	memset(&req, 0, sizeof(req));
	req.offer_id = oid;
	req.image = bj_strp(b, "image");
	if (bj_num(b, "disk", &d) && d > 0 && d < 1e6)
		req.disk_gb = (int)d;
	lab = bj_strp(b, "label");
	req.label = lab;
	req.onstart = bj_strp(b, "onstart");
	if (bj_num(b, "price", &d) && d > 0) {
		req.interruptible = true;
		req.bid_hour = llround(d * 1e6);
	}
	env = cJSON_GetObjectItemCaseSensitive(b, "env");
	if (cJSON_IsObject(env)) {
		envv = xcalloc((size_t)cJSON_GetArraySize(env) + 1, sizeof(*envv));
		cJSON_ArrayForEach(e, env)
			if (cJSON_IsString(e) && e->string[0] != '-')
				envv[ne++] = xasprintf("%s=%s", e->string, e->valuestring);
		req.env = (const char *const *)envv;
	}
	/* Real vast has no client token: a repeated create makes a second instance. */
	code = sim_launch(c->sim, &req, &in, &err);
	for (i = 0; i < ne; i++)
		free(envv[i]);
	free(envv);
	cJSON_Delete(b);
	if (code == GR_ENOTFOUND || code == GR_ECAPACITY) {
		snprintf(msg, sizeof(msg), "error 404/3603: no_such_ask  Instance type by id %lld "
		    "is not available.", n);
		vast_fail(rp, 404, "no_such_ask", msg);
		return;
	}
	if (code == GR_EFUNDS) {
		vast_fail(rp, 402, "insufficient_credit", err.msg);
		return;
	}
	if (code != GR_OK) {
		vast_fail(rp, code == GR_EUSAGE ? 400 : 500, code == GR_EUSAGE ? "invalid_args" :
		    "internal_error", err.msg);
		return;
	}
	rp->acted = true;
	res = cJSON_CreateObject();
	cJSON_AddTrueToObject(res, "success");
	cJSON_AddNumberToObject(res, "new_contract", (double)serve_sim_num(in.id));
	cJSON_AddStringToObject(res, "instance_api_key", "simulated-instance-key");
	reply_json(rp, 200, res);
}

static void
action(struct serve_ctx *c, const char *num, const struct serve_req *rq, bool del,
    struct serve_reply *rp)
{
	struct instance in;
	struct gr_error err = { 0 };
	cJSON *b = NULL, *res;
	const char *st;
	enum gr_err code;

	if (!find_instance(c, num, &in)) {
		vast_fail(rp, 404, "no_such_instance", "error 404/3603: no_such_instance");
		return;
	}
	if (del) {
		code = sim_destroy(c->sim, in.id, &err);
	} else {
		b = cJSON_ParseWithLength(rq->body, rq->len);
		st = bj_strp(b, "state");
		if (st != NULL && strcmp(st, "stopped") == 0)
			code = sim_stop(c->sim, in.id, &err);
		else if (st != NULL && strcmp(st, "running") == 0)
			code = sim_start(c->sim, in.id, &err);
		else if (bj_strp(b, "label") != NULL)
			code = GR_OK;
		else {
			cJSON_Delete(b);
			vast_fail(rp, 400, "invalid_args", "state must be running or stopped");
			return;
		}
		cJSON_Delete(b);
	}
	if (code != GR_OK) {
		vast_fail(rp, code == GR_ECAPACITY || code == GR_ECONFLICT ? 409 :
		    code == GR_EUSAGE ? 400 : 500, code == GR_ECAPACITY ? "resources_unavailable" :
		    code == GR_ECONFLICT ? "state_conflict" : "invalid_args", err.msg);
		return;
	}
	rp->acted = true;
	res = cJSON_CreateObject();
	cJSON_AddTrueToObject(res, "success");
	reply_json(rp, 200, res);
}

static void
user(struct serve_ctx *c, struct serve_reply *rp)
{
	struct account a;
	struct gr_error err = { 0 };
	cJSON *j;

	if (sim_account(c->sim, &a, &err) != GR_OK) {
		vast_fail(rp, 500, "internal_error", err.msg);
		return;
	}
	j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "id", 1);
	cJSON_AddStringToObject(j, "username", "simulated");
	cJSON_AddStringToObject(j, "email", "sim@example.invalid");
	cJSON_AddNumberToObject(j, "credit", dollars(a.balance));
	cJSON_AddNumberToObject(j, "balance", 0);
	reply_json(rp, 200, j);
}

/* "/api/v0/instances/123/" -> "123" into buf; false when path is not prefix + id + '/'. */
static bool
path_id(const char *path, const char *prefix, char *buf, size_t n)
{
	size_t pl = strlen(prefix), i = 0;
	const char *p;

	if (strncmp(path, prefix, pl) != 0)
		return false;
	for (p = path + pl; *p != '\0' && *p != '/' && i + 1 < n; p++)
		buf[i++] = *p;
	buf[i] = '\0';
	return i > 0 && (*p == '\0' || (*p == '/' && p[1] == '\0'));
}

void
dialect_vast(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *m = rq->method, *p = rq->path;
	char id[32];
	bool search_path = strcmp(p, "/api/v0/bundles/") == 0 || strcmp(p, "/api/v0/bundles") == 0 ||
	    strcmp(p, "/api/v0/search/asks/") == 0;

	/* Search works without a key, but a wrong key is refused (as "Invalid user key"). */
	if (!rq->auth_ok && !(search_path && rq->auth[0] == '\0')) {
		vast_fail(rp, search_path ? 404 : 401, "auth_error", "Invalid user key");
		return;
	}
	if (search_path) {
		if (strcmp(m, "GET") == 0) {
			const char *q = serve_query(rq, "q");

			search(c, q != NULL ? q : "{}", rp);
		} else if (strcmp(m, "PUT") == 0) {
			cJSON *b = cJSON_ParseWithLength(rq->body, rq->len);
			cJSON *q = cJSON_GetObjectItemCaseSensitive(b, "q");
			char *s = q != NULL ? cJSON_PrintUnformatted(q) : NULL;

			search(c, s != NULL ? s : "{}", rp);
			free(s);
			cJSON_Delete(b);
		} else {
			char *s = xmalloc(rq->len + 1);

			memcpy(s, rq->body, rq->len);
			s[rq->len] = '\0';
			search(c, s, rp);
			free(s);
		}
		return;
	}
	if (strcmp(m, "PUT") == 0 && path_id(p, "/api/v0/asks/", id, sizeof(id))) {
		create(c, id, rq, rp);
		return;
	}
	if (strcmp(m, "GET") == 0 && (strcmp(p, "/api/v1/instances/") == 0 ||
	    strcmp(p, "/api/v1/instances") == 0)) {
		list(c, rq, rp);
		return;
	}
	if (path_id(p, "/api/v0/instances/", id, sizeof(id))) {
		struct instance in;
		cJSON *res;

		if (strcmp(m, "GET") == 0) {
			res = cJSON_CreateObject();
			if (find_instance(c, id, &in))
				cJSON_AddItemToObject(res, "instances", instance_json(c, &in));
			else
				cJSON_AddNullToObject(res, "instances");
			reply_json(rp, 200, res);
		} else if (strcmp(m, "PUT") == 0)
			action(c, id, rq, false, rp);
		else if (strcmp(m, "DELETE") == 0)
			action(c, id, rq, true, rp);
		else
			vast_fail(rp, 405, "method_not_allowed", "method not allowed");
		return;
	}
	if (strcmp(m, "GET") == 0 && (strcmp(p, "/api/v0/users/current/") == 0 ||
	    strcmp(p, "/api/v0/users/current") == 0)) {
		user(c, rp);
		return;
	}
	vast_fail(rp, 404, "not_found", "no such endpoint");
}
