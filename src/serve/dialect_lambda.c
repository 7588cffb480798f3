/*
 * dialect_lambda.c - the simulated world as Lambda Cloud API v1 (providers/lambda.md):
 * instance-types (price list plus regions with capacity), instances, launch, terminate,
 * ssh-keys; Lambda's {"data": ...} envelope and {"error": {code, message}} bodies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpurent/sim.h"
#include "gpurent/util.h"

#include "../backends/backends_parse.h"
#include "serve_int.h"

#define SIM_KEY_NAME "sim-key"

static void
reply_data(struct serve_reply *rp, cJSON *data)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddItemToObject(j, "data", data);
	serve_reply_json(rp, 200, j);
}

static void
lambda_fail(struct serve_reply *rp, int status, const char *code, const char *msg,
    const char *suggestion)
{
	cJSON *j = cJSON_CreateObject(), *e = cJSON_AddObjectToObject(j, "error");

	cJSON_AddStringToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	if (suggestion != NULL)
		cJSON_AddStringToObject(e, "suggestion", suggestion);
	serve_reply_json(rp, status, j);
}

/* The simulator's region ("na-east") as a Lambda region name ("us-east-1"). */
static void
lambda_region(const char *sim, char *out, size_t n)
{
	const char *dash = strchr(sim, '-');
	const char *rest = dash != NULL ? dash + 1 : "central";

	if (strncmp(sim, "na", 2) == 0)
		snprintf(out, n, "us-%s-1", rest);
	else if (strncmp(sim, "eu", 2) == 0)
		snprintf(out, n, "europe-%s-1", rest);
	else if (strncmp(sim, "as", 2) == 0)
		snprintf(out, n, "asia-%s-1", rest);
	else if (strncmp(sim, "oc", 2) == 0)
		snprintf(out, n, "australia-%s-1", rest);
	else
		snprintf(out, n, "me-%s-1", rest);
}

/* "gpu_8x_h100_sxm5" for an on-demand sim offer, false for GPUs Lambda does not sell. */
static bool
type_name(const struct offer *o, char *out, size_t n)
{
	const char *tok = lambda_token_of(o->gpu);

	if (tok == NULL || o->type != OFFER_ON_DEMAND)
		return false;
	snprintf(out, n, "gpu_%dx_%s", o->gpu_count, tok);
	return true;
}

static cJSON *
type_json(const struct offer *o, const char *name, int64_t price)
{
	cJSON *t = cJSON_CreateObject(), *sp;
	const char *tok = lambda_token_of(o->gpu), *form = "";
	char gd[64], d[80];

	if (strstr(tok, "sxm5") != NULL)
		form = " SXM5";
	else if (strstr(tok, "sxm4") != NULL)
		form = " SXM4";
	else if (strstr(tok, "sxm6") != NULL)
		form = " SXM6";
	else if (strstr(tok, "pcie") != NULL)
		form = " PCIe";
	snprintf(gd, sizeof(gd), "%s (%d GB%s)", o->gpu->family, o->gpu->vram_gb, form);
	snprintf(d, sizeof(d), "%dx %s", o->gpu_count, gd);
	cJSON_AddStringToObject(t, "name", name);
	cJSON_AddStringToObject(t, "description", d);
	cJSON_AddStringToObject(t, "gpu_description", gd);
	cJSON_AddNumberToObject(t, "price_cents_per_hour", (double)((price + 5000) / 10000));
	sp = cJSON_AddObjectToObject(t, "specs");
	cJSON_AddNumberToObject(sp, "vcpus", o->cpu_cores);
	cJSON_AddNumberToObject(sp, "memory_gib", o->ram_gb);
	cJSON_AddNumberToObject(sp, "storage_gib", o->disk_gb);
	cJSON_AddNumberToObject(sp, "gpus", o->gpu_count);
	return t;
}

/* Adds the region of an offer to a list of Lambda regions, once. */
static void
region_add(cJSON *regs, const struct offer *o)
{
	const cJSON *x;
	cJSON *r;
	char rn[48];

	lambda_region(o->region, rn, sizeof(rn));
	cJSON_ArrayForEach(x, regs)
		if (strcmp(bj_strp(x, "name"), rn) == 0)
			return;
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "name", rn);
	cJSON_AddStringToObject(r, "description", o->location);
	cJSON_AddItemToArray(regs, r);
}

static void
instance_types(struct serve_ctx *c, struct serve_reply *rp)
{
	struct offer_list all;
	struct gr_error err = { 0 };
	cJSON *data = cJSON_CreateObject(), *ent, *regs;
	char name[64];
	size_t i, k;

	offer_list_init(&all);
	if (sim_offers(c->sim, &all, &err) != GR_OK) {
		offer_list_release(&all);
		cJSON_Delete(data);
		lambda_fail(rp, 500, "global/internal-error", err.msg, NULL);
		return;
	}
	for (i = 0; i < all.n; i++) {
		int64_t price;
		const struct offer *first;

		if (!type_name(&all.v[i], name, sizeof(name)) ||
		    cJSON_GetObjectItemCaseSensitive(data, name) != NULL)
			continue;
		/* One list price per type: the cheapest machine of it. */
		price = all.v[i].price_hour;
		first = &all.v[i];
		for (k = i; k < all.n; k++) {
			char n2[64];

			if (type_name(&all.v[k], n2, sizeof(n2)) && strcmp(n2, name) == 0 &&
			    all.v[k].price_hour < price)
				price = all.v[k].price_hour;
		}
		ent = cJSON_AddObjectToObject(data, name);
		cJSON_AddItemToObject(ent, "instance_type", type_json(first, name, price));
		regs = cJSON_AddArrayToObject(ent, "regions_with_capacity_available");
		for (k = i; k < all.n; k++) {
			char n2[64];

			if (type_name(&all.v[k], n2, sizeof(n2)) && strcmp(n2, name) == 0 &&
			    all.v[k].available > 0)
				region_add(regs, &all.v[k]);
		}
	}
	offer_list_release(&all);
	reply_data(rp, data);
}

static void
lambda_id_of(const char *sim_id, char *out, size_t n)
{
	snprintf(out, n, "%032llx", serve_sim_num(sim_id));
}

static bool
sim_id_of(const char *lid, char *out, size_t n)
{
	unsigned long long v;
	char *end;

	if (lid == NULL || strlen(lid) != 32)
		return false;
	v = strtoull(lid, &end, 16);
	if (*end != '\0')
		return false;
	snprintf(out, n, "sim:i-%06llu", v);
	return true;
}

/* The 1.10 `actions` object: which operations the instance's status allows, and why not. */
static void
actions_json(cJSON *a, const char *status)
{
	static const char *const names[] = { "migrate", "rebuild", "restart", "cold_reboot",
		"terminate" };
	bool active = strcmp(status, "active") == 0, booting = strcmp(status, "booting") == 0;
	size_t i;

	for (i = 0; i < ARRAY_LEN(names); i++) {
		cJSON *x = cJSON_AddObjectToObject(a, names[i]);
		bool ok = strcmp(names[i], "terminate") == 0 ? active || booting :
		    strcmp(names[i], "migrate") == 0 ? false : active;

		cJSON_AddBoolToObject(x, "available", ok);
		if (!ok) {
			cJSON_AddStringToObject(x, "reason_code", booting ? "vm-has-not-launched" :
			    strcmp(status, "terminating") == 0 ? "vm-is-terminating" :
			    "vm-action-in-progress");
			cJSON_AddStringToObject(x, "reason_description", booting ?
			    "The instance has not launched yet." : strcmp(status,
			    "terminating") == 0 ? "The instance is terminating." :
			    "Another action is in progress.");
		}
	}
}

static cJSON *
instance_json(struct serve_ctx *c, const struct instance *in)
{
	cJSON *j = cJSON_CreateObject(), *r;
	struct offer o;
	struct gr_error err = { 0 };
	char lid[40], rn[48], tn[64], priv[32], jupyter[128];
	long long num = serve_sim_num(in->id);
	const char *st;

	lambda_id_of(in->id, lid, sizeof(lid));
	cJSON_AddStringToObject(j, "id", lid);
	if (in->label[0] != '\0')
		cJSON_AddStringToObject(j, "name", in->label);
	else
		cJSON_AddNullToObject(j, "name");
	switch (in->state) {
	case ST_PROVISIONING:
	case ST_STARTING:
		st = "booting";
		break;
	case ST_DESTROYING:
		st = "terminating";
		break;
	case ST_DESTROYED:
		st = "terminated";
		break;
	case ST_FAILED:
		st = "preempted";
		break;
	default:
		st = "active";
		break;
	}
	cJSON_AddStringToObject(j, "status", st);
	if ((in->valid & IV_SSH) && strcmp(st, "active") == 0) {
		snprintf(priv, sizeof(priv), "10.19.%u.%u", (unsigned)(num / 250 % 250),
		    (unsigned)(num % 250 + 2));
		cJSON_AddStringToObject(j, "ip", in->ssh_host);
		cJSON_AddStringToObject(j, "private_ip", priv);
		cJSON_AddStringToObject(j, "hostname", in->ssh_host);
	}
	snprintf(jupyter, sizeof(jupyter), "https://jupyter-%s.lambdaspaces.com/?token=%.16s", lid,
	    lid + 16);
	cJSON_AddStringToObject(j, "jupyter_token", lid + 16);
	cJSON_AddStringToObject(j, "jupyter_url", jupyter);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(j, "ssh_key_names"),
	    cJSON_CreateString(SIM_KEY_NAME));
	cJSON_AddArrayToObject(j, "file_system_names");
	r = cJSON_AddObjectToObject(j, "region");
	lambda_region(in->region, rn, sizeof(rn));
	cJSON_AddStringToObject(r, "name", rn);
	if (sim_offer(c->sim, in->offer_id, &o, &err) == GR_OK && type_name(&o, tn, sizeof(tn))) {
		cJSON_AddStringToObject(r, "description", o.location);
		cJSON_AddItemToObject(j, "instance_type", type_json(&o, tn, in->price_hour));
	}
	cJSON_AddFalseToObject(j, "is_reserved");
	actions_json(cJSON_AddObjectToObject(j, "actions"), st);
	cJSON_AddArrayToObject(j, "tags");
	cJSON_AddArrayToObject(j, "firewall_rulesets");
	return j;
}

static bool
find(struct serve_ctx *c, const char *lid, struct instance *out)
{
	struct gr_error err = { 0 };
	char sid[ID_MAX];

	return sim_id_of(lid, sid, sizeof(sid)) && sim_get(c->sim, sid, out, &err) == GR_OK &&
	    out->state != ST_DESTROYED;
}

static void
launch(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	cJSON *b = cJSON_ParseWithLength(rq->body, rq->len), *keys, *ids;
	const char *region = bj_strp(b, "region_name"), *type = bj_strp(b, "instance_type_name");
	struct offer_list all;
	struct gr_error err = { 0 };
	struct launch_req req;
	struct instance in;
	const struct offer *best = NULL;
	char tn[64], rn[48], lid[40];
	bool type_known = false;
	long long qty = 1;
	size_t i;
	enum gr_err code;

	if (!cJSON_IsObject(b) || region == NULL || type == NULL) {
		cJSON_Delete(b);
		lambda_fail(rp, 400, "global/invalid-parameters", "Invalid request body.", NULL);
		return;
	}
	keys = cJSON_GetObjectItemCaseSensitive(b, "ssh_key_names");
	if (!cJSON_IsArray(keys) || cJSON_GetArraySize(keys) != 1) {
		cJSON_Delete(b);
		lambda_fail(rp, 400, "global/invalid-parameters",
		    "ssh_key_names: exactly one SSH key name is required.", NULL);
		return;
	}
	if (!cJSON_IsString(keys->child) || strcmp(keys->child->valuestring, SIM_KEY_NAME) != 0) {
		cJSON_Delete(b);
		lambda_fail(rp, 404, "global/object-does-not-exist", "SSH key does not exist.", NULL);
		return;
	}
	if (bj_int(b, "quantity", &qty) && qty != 1) {
		cJSON_Delete(b);
		lambda_fail(rp, 400, "global/invalid-parameters", "Requested too many instances.",
		    NULL);
		return;
	}
	offer_list_init(&all);
	sim_offers(c->sim, &all, &err);
	for (i = 0; i < all.n; i++) {
		if (!type_name(&all.v[i], tn, sizeof(tn)) || strcmp(tn, type) != 0)
			continue;
		type_known = true;
		lambda_region(all.v[i].region, rn, sizeof(rn));
		if (strcmp(rn, region) != 0 || all.v[i].available <= 0)
			continue;
		if (best == NULL || all.v[i].price_hour < best->price_hour)
			best = &all.v[i];
	}
	if (!type_known) {
		offer_list_release(&all);
		cJSON_Delete(b);
		lambda_fail(rp, 404, "global/object-does-not-exist", "Instance type does not exist.",
		    NULL);
		return;
	}
	if (best == NULL) {
		offer_list_release(&all);
		cJSON_Delete(b);
		lambda_fail(rp, 400, "instance-operations/launch/insufficient-capacity",
		    "Not enough capacity to fulfill launch request.",
		    "Choose an instance type with more availability, or try again later.");
		return;
	}
	memset(&req, 0, sizeof(req));
	req.offer_id = best->id;
	req.label = bj_strp(b, "name");
	req.onstart = bj_strp(b, "user_data");
	/* Lambda words a rented-away offer and a full one alike. */
	code = serve_launch_fault(c) != SLF_NONE ? GR_ECAPACITY :
	    sim_launch(c->sim, &req, &in, &err);
	offer_list_release(&all);
	cJSON_Delete(b);
	if (code == GR_ECAPACITY) {
		lambda_fail(rp, 400, "instance-operations/launch/insufficient-capacity",
		    "Not enough capacity to fulfill launch request.", NULL);
		return;
	}
	if (code == GR_EFUNDS) {
		lambda_fail(rp, 403, "global/account-inactive", err.msg, NULL);
		return;
	}
	if (code != GR_OK) {
		lambda_fail(rp, 500, "global/internal-error", err.msg, NULL);
		return;
	}
	rp->acted = true;
	lambda_id_of(in.id, lid, sizeof(lid));
	ids = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(ids, "instance_ids"), cJSON_CreateString(lid));
	reply_data(rp, ids);
}

static void
terminate(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	cJSON *b = cJSON_ParseWithLength(rq->body, rq->len), *ids, *x, *data, *arr;
	struct instance in;
	struct gr_error err = { 0 };

	ids = cJSON_GetObjectItemCaseSensitive(b, "instance_ids");
	if (!cJSON_IsArray(ids) || cJSON_GetArraySize(ids) == 0) {
		cJSON_Delete(b);
		lambda_fail(rp, 400, "global/invalid-parameters", "instance_ids is required.", NULL);
		return;
	}
	cJSON_ArrayForEach(x, ids) {
		if (!cJSON_IsString(x) || !find(c, x->valuestring, &in)) {
			cJSON_Delete(b);
			lambda_fail(rp, 404, "global/object-does-not-exist",
			    "Specified instance does not exist.", NULL);
			return;
		}
	}
	data = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(data, "terminated_instances");
	cJSON_ArrayForEach(x, ids) {
		if (find(c, x->valuestring, &in) && sim_destroy(c->sim, in.id, &err) == GR_OK) {
			rp->acted = true;
			sim_get(c->sim, in.id, &in, &err);
			if (in.state == ST_DESTROYED)
				in.state = ST_DESTROYING;
			cJSON_AddItemToArray(arr, instance_json(c, &in));
		}
	}
	cJSON_Delete(b);
	reply_data(rp, data);
}

/* POST /instances/{id} {"name": ...}: a rename, the one change Lambda allows. */
static void
rename_instance(struct serve_ctx *c, const char *lid, const struct serve_req *rq,
    struct serve_reply *rp)
{
	cJSON *b = cJSON_ParseWithLength(rq->body, rq->len);
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(b, "name");
	struct instance in;
	struct gr_error err = { 0 };

	if (!find(c, lid, &in)) {
		cJSON_Delete(b);
		lambda_fail(rp, 404, "global/object-does-not-exist",
		    "Specified instance does not exist.", NULL);
		return;
	}
	if (!(cJSON_IsString(name) || cJSON_IsNull(name)) ||
	    sim_label(c->sim, in.id, cJSON_IsString(name) ? name->valuestring : "", &err) != GR_OK) {
		cJSON_Delete(b);
		lambda_fail(rp, 400, "global/invalid-parameters", "name: String should have at most "
		    "64 characters.", NULL);
		return;
	}
	cJSON_Delete(b);
	rp->acted = true;
	sim_get(c->sim, in.id, &in, &err);
	reply_data(rp, instance_json(c, &in));
}

/*
 * POST /instance-operations/restart: the simulator has no reboot to model, so an active
 * instance answers as it is (the spec's example shows it still active); any other is 409.
 */
static void
restart(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	cJSON *b = cJSON_ParseWithLength(rq->body, rq->len), *ids, *x, *data, *arr;
	struct instance in;

	ids = cJSON_GetObjectItemCaseSensitive(b, "instance_ids");
	if (!cJSON_IsArray(ids) || cJSON_GetArraySize(ids) == 0) {
		cJSON_Delete(b);
		lambda_fail(rp, 400, "global/invalid-parameters", "instance_ids is required.", NULL);
		return;
	}
	data = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(data, "restarted_instances");
	cJSON_ArrayForEach(x, ids) {
		if (!cJSON_IsString(x) || !find(c, x->valuestring, &in)) {
			cJSON_Delete(b);
			cJSON_Delete(data);
			lambda_fail(rp, 404, "global/object-does-not-exist",
			    "Specified instance does not exist.", NULL);
			return;
		}
		if (in.state != ST_RUNNING) {
			cJSON_Delete(b);
			cJSON_Delete(data);
			lambda_fail(rp, 409, "global/conflict", "The instance cannot be restarted "
			    "in its current state.", "Wait until the instance is active.");
			return;
		}
		cJSON_AddItemToArray(arr, instance_json(c, &in));
	}
	cJSON_Delete(b);
	reply_data(rp, data);
}

/* GET /regions: every region the simulated world has machines in. */
static void
regions(struct serve_ctx *c, struct serve_reply *rp)
{
	struct offer_list all;
	struct gr_error err = { 0 };
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	offer_list_init(&all);
	if (sim_offers(c->sim, &all, &err) == GR_OK)
		for (i = 0; i < all.n; i++)
			region_add(arr, &all.v[i]);
	offer_list_release(&all);
	reply_data(rp, arr);
}

void
dialect_lambda(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *m = rq->method, *p = rq->path;
	struct instance in;

	if (!rq->auth_ok || (c->api_key != NULL && rq->auth[0] == '\0')) {
		lambda_fail(rp, 401, "global/invalid-api-key", "API key was invalid, expired, or "
		    "deleted.", "Check your API key or create a new one, then try again.");
		return;
	}
	if (strcmp(m, "GET") == 0 && strcmp(p, "/api/v1/instance-types") == 0)
		instance_types(c, rp);
	else if (strcmp(m, "GET") == 0 && strcmp(p, "/api/v1/instances") == 0) {
		struct instance_list l;
		struct gr_error err = { 0 };
		cJSON *arr = cJSON_CreateArray();
		size_t i;

		instance_list_init(&l);
		if (sim_instances(c->sim, false, &l, &err) == GR_OK)
			for (i = 0; i < l.n; i++)
				if (l.v[i].state != ST_DESTROYED)
					cJSON_AddItemToArray(arr, instance_json(c, &l.v[i]));
		instance_list_release(&l);
		reply_data(rp, arr);
	} else if (strcmp(m, "POST") == 0 && strncmp(p, "/api/v1/instances/", 18) == 0)
		rename_instance(c, p + 18, rq, rp);
	else if (strcmp(m, "POST") == 0 &&
	    strcmp(p, "/api/v1/instance-operations/restart") == 0)
		restart(c, rq, rp);
	else if (strcmp(m, "GET") == 0 && strcmp(p, "/api/v1/regions") == 0)
		regions(c, rp);
	else if (strcmp(m, "GET") == 0 && (strcmp(p, "/api/v1/file-systems") == 0 ||
	    strcmp(p, "/api/v1/firewall-rules") == 0))
		reply_data(rp, cJSON_CreateArray());
	else if (strcmp(m, "GET") == 0 && strncmp(p, "/api/v1/instances/", 18) == 0) {
		if (find(c, p + 18, &in))
			reply_data(rp, instance_json(c, &in));
		else
			lambda_fail(rp, 404, "global/object-does-not-exist",
			    "Specified instance does not exist.", NULL);
	} else if (strcmp(m, "POST") == 0 && strcmp(p, "/api/v1/instance-operations/launch") == 0)
		launch(c, rq, rp);
	else if (strcmp(m, "POST") == 0 &&
	    strcmp(p, "/api/v1/instance-operations/terminate") == 0)
		terminate(c, rq, rp);
	else if (strcmp(m, "GET") == 0 && strcmp(p, "/api/v1/ssh-keys") == 0) {
		cJSON *arr = cJSON_CreateArray(), *k = cJSON_CreateObject();

		cJSON_AddStringToObject(k, "id", "0123456789abcdef0123456789abcdef");
		cJSON_AddStringToObject(k, "name", SIM_KEY_NAME);
		cJSON_AddStringToObject(k, "public_key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI"
		    "Simulated sim@gpurent");
		cJSON_AddItemToArray(arr, k);
		reply_data(rp, arr);
	} else
		lambda_fail(rp, 404, "global/not-found", "Not found.", NULL);
}
