/*
 * dialect_ppio.c - the simulated world as PPIO's GPU instance API v2 (providers/ppio.md):
 * products (one per GPU model, with stock and prices), instances with cursor pages,
 * create, get, start, stop and delete, and errors as {code, reason, message, metadata}.
 *
 * The simulator prices in US dollars; PPIO in yuan. Every price here is the simulator's
 * at a fixed, documented rate, SIM_CNY_PER_USD_X10 / 10 yuan per dollar (7.2), so that a
 * test knows what to expect; it stands for no real exchange rate. The simulator's regions
 * become PPIO-style region ids (cn-east-1, ...): a simulated world, labelled as such.
 *
 * PPIO documents no page size (§5.2); here a page holds at most PAGE_MAX instances, so
 * that a client's paging is exercised by a handful of instances.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpurent/money.h"
#include "gpurent/sim.h"
#include "gpurent/util.h"

#include "../backends/backends_parse.h"
#include "serve_int.h"

#define SIM_CNY_PER_USD_X10 72
/* Prices go out with three decimals, as in PPIO's example (§4.2). */
#define PRECISION 3
#define PAGE_MAX 5

static void
ppio_fail(struct serve_reply *rp, int status, const char *reason, const char *msg)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "code", status);
	cJSON_AddStringToObject(j, "reason", reason);
	cJSON_AddStringToObject(j, "message", msg);
	cJSON_AddObjectToObject(j, "metadata");
	serve_reply_json(rp, status, j);
}

/* The reason PPIO gives for a simulator error, in the terms one action answers with. */
struct ppio_reason {
	enum gr_err code;
	const char *reason;
};

static const struct ppio_reason create_reasons[] = {
	{ GR_ECAPACITY, "INSUFFICIENT_RESOURCE" },
	{ GR_EFUNDS, "BALANCE_NOT_ENOUGH" },
	{ GR_EUSAGE, "VALIDATOR_PARAM" },
};

static const struct ppio_reason act_reasons[] = {
	{ GR_ECONFLICT, "CONFLICT" },
	{ GR_EUNSUPPORTED, "CONFLICT" },
	{ GR_ECAPACITY, "INSUFFICIENT_RESOURCE" },
	{ GR_ENOTFOUND, "RESOURCE_NOT_FOUND" },
};

/*
 * Answers a failed action: 400 with the reason the table gives its code, else 500 UNKNOWN.
 * False (nothing answered) when the action succeeded.
 */
static bool
ppio_fail_code(struct serve_reply *rp, enum gr_err code, const struct ppio_reason *t, size_t n,
    const char *msg)
{
	size_t i;

	if (code == GR_OK)
		return false;
	for (i = 0; i < n; i++) {
		if (t[i].code == code) {
			ppio_fail(rp, 400, t[i].reason, msg);
			return true;
		}
	}
	ppio_fail(rp, 500, "UNKNOWN", msg);
	return true;
}

/* Micro-dollars as PPIO's yuan integer at PRECISION decimals. */
static double
cny_scaled(int64_t usd_micros)
{
	int64_t cny = money_scale(usd_micros, SIM_CNY_PER_USD_X10, 10);

	return (double)money_scale(cny, 1, 1000);	/* micro-units -> thousandths */
}

static const struct {
	const char *sim, *ppio;
} regions[] = {
	{ "na-east", "cn-east-1" }, { "na-central", "cn-central-1" }, { "na-west", "cn-south-1" },
	{ "eu-west", "cn-north-1" }, { "eu-central", "cn-north-2" },
	{ "eu-north", "cn-northwest-1" }, { "as-east", "cn-east-2" }, { "as-south", "cn-south-2" },
	{ "oc-east", "cn-southwest-1" }, { "sa-east", "cn-southwest-2" },
};

static const char *
ppio_region(const char *sim)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(regions); i++)
		if (strcmp(regions[i].sim, sim) == 0)
			return regions[i].ppio;
	return "cn-east-1";
}

/* "prod-h100-sxm-80gb" for a catalogue model. */
static void
product_id(const struct gpu_model *m, char *out, size_t n)
{
	size_t i, o = 5;

	strlcpy_(out, "prod-", n);
	for (i = 0; m->id[i] != '\0' && o + 1 < n; i++)
		out[o++] = (char)(m->id[i] >= 'A' && m->id[i] <= 'Z' ? m->id[i] - 'A' + 'a' :
		    m->id[i]);
	out[o] = '\0';
}

static const struct gpu_model *
model_of_product(const struct offer_list *all, const char *pid)
{
	char id[80];
	size_t i;

	for (i = 0; i < all->n; i++)
		if (all->v[i].gpu != NULL) {
			product_id(all->v[i].gpu, id, sizeof(id));
			if (strcmp(id, pid) == 0)
				return all->v[i].gpu;
		}
	return NULL;
}

/* Whether a region list query ("a,b") names r; NULL or "" names every region. */
static bool
region_wanted(const char *list, const char *r)
{
	size_t len = strlen(r);
	const char *p;

	if (list == NULL || *list == '\0')
		return true;
	for (p = list; (p = strstr(p, r)) != NULL; p += len)
		if ((p == list || p[-1] == ',') && (p[len] == '\0' || p[len] == ','))
			return true;
	return false;
}

static cJSON *
price_json(int64_t per_gpu)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddNumberToObject(p, "base_price", cny_scaled(per_gpu));
	cJSON_AddNumberToObject(p, "final_price", cny_scaled(per_gpu));
	cJSON_AddStringToObject(p, "unit", "per_hour");
	return p;
}

/* The simulator's terms of a product priced per_gpu by the hour: whole terms per GPU (§4.2). */
static void
prepaid_json(cJSON *arr, const char *spec_id, int64_t per_gpu)
{
	static const int months[] = SIM_TERM_MONTHS;
	size_t i;

	for (i = 0; i < ARRAY_LEN(months); i++) {
		cJSON *t = cJSON_CreateObject();
		int64_t hours = (int64_t)months[i] * TERM_MONTH_HOURS;

		cJSON_AddStringToObject(t, "spec_id", spec_id);
		cJSON_AddNumberToObject(t, "duration_months", months[i]);
		cJSON_AddNumberToObject(t, "final_price",
		    cny_scaled(sim_term_rate(per_gpu, months[i]) * hours));
		cJSON_AddNumberToObject(t, "base_price", cny_scaled(per_gpu * hours));
		cJSON_AddItemToArray(arr, t);
	}
}

/* The product of one model: its cheapest price per GPU, its stock and its regions. */
static cJSON *
product_json(const struct offer_list *all, const struct gpu_model *m, const char *want_regions)
{
	cJSON *j = cJSON_CreateObject(), *spec, *gpu, *rootfs, *pricing, *regs, *methods, *x;
	int64_t od = -1, spot = -1;
	long long available = 0, max_av = 0, disk = 0, cpu = 0, mem = 0;
	char pid[80], desc[96];
	size_t i;
	bool any = false;

	regs = cJSON_CreateArray();
	for (i = 0; i < all->n; i++) {
		const struct offer *o = &all->v[i];
		const char *r = ppio_region(o->region);
		int64_t per;
		bool dup = false;

		if (o->gpu != m || o->gpu_count <= 0 || !(o->valid & OV_PRICE) ||
		    !region_wanted(want_regions, r))
			continue;
		any = true;
		per = o->price_hour / o->gpu_count;
		if (o->type == OFFER_ON_DEMAND && (od < 0 || per < od))
			od = per;
		if (o->type == OFFER_INTERRUPTIBLE && (spot < 0 || per < spot))
			spot = per;
		if (o->available > 0 && o->type == OFFER_ON_DEMAND) {
			available += o->gpu_count;
			if (o->gpu_count > max_av)
				max_av = o->gpu_count;
		}
		if (o->disk_gb > disk)
			disk = o->disk_gb;
		if (cpu == 0 && (o->valid & OV_CPU))
			cpu = o->cpu_cores / o->gpu_count;
		if (mem == 0 && (o->valid & OV_RAM))
			mem = o->ram_gb / o->gpu_count;
		/* A product is listed in the regions that have a machine of it free. */
		cJSON_ArrayForEach(x, regs)
			dup |= strcmp(x->valuestring, r) == 0;
		if (!dup && o->available > 0)
			cJSON_AddItemToArray(regs, cJSON_CreateString(r));
	}
	if (!any || od < 0) {
		cJSON_Delete(regs);
		cJSON_Delete(j);
		return NULL;
	}
	product_id(m, pid, sizeof(pid));
	snprintf(desc, sizeof(desc), "%s %s", m->vendor, m->name);
	cJSON_AddStringToObject(j, "id", pid);
	cJSON_AddStringToObject(j, "name", m->id);
	cJSON_AddStringToObject(j, "type", "gpu");
	cJSON_AddStringToObject(j, "category", "instance");
	cJSON_AddStringToObject(j, "description", desc);
	cJSON_AddItemToObject(j, "region_ids", regs);
	spec = cJSON_AddObjectToObject(j, "resource_spec");
	gpu = cJSON_AddObjectToObject(spec, "gpu");
	cJSON_AddStringToObject(gpu, "spec_id", pid + 5);
	cJSON_AddStringToObject(gpu, "name", m->id);
	cJSON_AddNumberToObject(gpu, "memory_gb", m->vram_gb);
	cJSON_AddNumberToObject(gpu, "min", 1);
	cJSON_AddNumberToObject(gpu, "max", 8);
	cJSON_AddNumberToObject(gpu, "available", (double)available);
	cJSON_AddNumberToObject(gpu, "max_available", (double)max_av);
	cJSON_AddNumberToObject(spec, "cpu", (double)(cpu > 0 ? cpu : 8));
	cJSON_AddNumberToObject(spec, "memory_gb", (double)(mem > 0 ? mem : 32));
	rootfs = cJSON_AddObjectToObject(spec, "rootfs");
	cJSON_AddNumberToObject(rootfs, "min_gb", 10);
	cJSON_AddNumberToObject(rootfs, "max_gb", (double)(disk > 0 ? disk : 100));
	cJSON_AddNumberToObject(rootfs, "free_gb", 30);
	pricing = cJSON_AddObjectToObject(j, "pricing");
	cJSON_AddNumberToObject(pricing, "precision", PRECISION);
	cJSON_AddItemToObject(pricing, "postpaid", price_json(od));
	if (spot >= 0)
		cJSON_AddItemToObject(pricing, "spot", price_json(spot));
	else
		cJSON_AddNullToObject(pricing, "spot");
	prepaid_json(cJSON_AddArrayToObject(pricing, "prepaid"), pid + 5, od);
	cJSON_AddNumberToObject(pricing, "storage_price_per_gb", 50);
	methods = cJSON_AddArrayToObject(j, "billing_methods");
	cJSON_AddItemToArray(methods, cJSON_CreateString("postpaid"));
	cJSON_AddItemToArray(methods, cJSON_CreateString("prepaid"));
	if (spot >= 0)
		cJSON_AddItemToArray(methods, cJSON_CreateString("spot"));
	cJSON_AddStringToObject(j, "inventory_state", "normal");
	cJSON_AddBoolToObject(j, "deployable", max_av > 0);
	x = cJSON_AddObjectToObject(j, "activity");
	cJSON_AddFalseToObject(x, "is_activity_product");
	cJSON_AddFalseToObject(x, "active");
	cJSON_AddTrueToObject(x, "purchasable");
	return j;
}

static void
products(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *type = serve_query(rq, "type"), *cat = serve_query(rq, "category");
	struct offer_list all;
	struct gr_error err = { 0 };
	cJSON *data, *j, *p;
	size_t i, k;

	if (type == NULL || cat == NULL) {
		ppio_fail(rp, 400, "VALIDATOR_PARAM", "type and category are required");
		return;
	}
	offer_list_init(&all);
	if (sim_offers(c->sim, &all, &err) != GR_OK) {
		offer_list_release(&all);
		ppio_fail(rp, 500, "UNKNOWN", err.msg);
		return;
	}
	j = cJSON_CreateObject();
	data = cJSON_AddArrayToObject(j, "data");
	if ((strcmp(type, "gpu") == 0 || type[0] == '\0') && strcmp(cat, "instance") == 0)
		for (i = 0; i < all.n; i++) {
			bool seen = false;

			if (all.v[i].gpu == NULL)
				continue;
			for (k = 0; k < i && !seen; k++)
				seen = all.v[k].gpu == all.v[i].gpu;
			if (!seen && (p = product_json(&all, all.v[i].gpu,
			    serve_query(rq, "region_ids"))) != NULL)
				cJSON_AddItemToArray(data, p);
		}
	offer_list_release(&all);
	serve_reply_json(rp, 200, j);
}

static void
ppio_id_of(const char *sim_id, char *out, size_t n)
{
	snprintf(out, n, "%010llx", serve_sim_num(sim_id));
}

static bool
find(struct serve_ctx *c, const char *pid, struct instance *out)
{
	struct gr_error err = { 0 };
	unsigned long long v;
	char sid[ID_MAX], *end;

	if (pid == NULL || strlen(pid) != 10)
		return false;
	v = strtoull(pid, &end, 16);
	if (*end != '\0')
		return false;
	snprintf(sid, sizeof(sid), "sim:i-%06llu", v);
	return sim_get(c->sim, sid, out, &err) == GR_OK && out->state != ST_DESTROYED;
}

static const char *
status_of(const struct instance *in)
{
	switch (in->state) {
	case ST_PROVISIONING: return "creating";
	case ST_RUNNING: return "running";
	case ST_STOPPING: return "stopping";
	case ST_STOPPED: return "exited";
	case ST_STARTING: return "starting";
	case ST_DESTROYING: return "removing";
	case ST_DESTROYED: return "removed";
	case ST_FAILED: return "exited";
	default: return "toCreate";
	}
}

static cJSON *
instance_json(struct serve_ctx *c, const struct instance *in, bool with_tools)
{
	cJSON *j = cJSON_CreateObject(), *st, *spec, *tools, *ssh, *b;
	struct gr_error err = { 0 };
	struct offer o;
	char id[16], pid[80], cmd[160];
	bool started = in->state != ST_PROVISIONING && in->state != ST_UNKNOWN;

	ppio_id_of(in->id, id, sizeof(id));
	cJSON_AddStringToObject(j, "id", id);
	cJSON_AddStringToObject(j, "name", in->label);
	cJSON_AddStringToObject(j, "type", "gpu");
	if (sim_offer(c->sim, in->offer_id, &o, &err) == GR_OK && o.gpu != NULL) {
		product_id(o.gpu, pid, sizeof(pid));
		cJSON_AddStringToObject(j, "product_id", pid);
	} else
		cJSON_AddStringToObject(j, "product_id", "");
	cJSON_AddStringToObject(j, "image", in->image);
	cJSON_AddStringToObject(j, "registry_auth_id", "");
	b = cJSON_AddObjectToObject(j, "billing");
	/* Prepaid until its term's end, then billed by the hour (not renewed). */
	if (in->term_months > 0 && in->term_until > sim_now(c->sim)) {
		cJSON *pre, *ar;

		cJSON_AddStringToObject(b, "mode", "prepaid");
		pre = cJSON_AddObjectToObject(b, "prepaid");
		cJSON_AddNumberToObject(pre, "months", in->term_months);
		cJSON_AddNumberToObject(pre, "end_time", (double)in->term_until);
		ar = cJSON_AddObjectToObject(pre, "auto_renew");
		cJSON_AddFalseToObject(ar, "enabled");
		cJSON_AddNumberToObject(ar, "months", 0);
		cJSON_AddStringToObject(ar, "status", "active");
	} else
		cJSON_AddStringToObject(b, "mode", in->type == OFFER_INTERRUPTIBLE ? "spot" :
		    "postpaid");
	cJSON_AddArrayToObject(j, "envs");
	cJSON_AddArrayToObject(j, "ports");
	spec = cJSON_AddObjectToObject(j, "resource_specs");
	cJSON_AddNumberToObject(spec, "rootfs_size_gb", in->disk_gb);
	cJSON_AddNumberToObject(spec, "gpu_num", in->gpu_count);
	cJSON_AddNumberToObject(spec, "cpu_num", 8 * in->gpu_count);
	cJSON_AddNumberToObject(spec, "memory_gb", 32 * in->gpu_count);
	cJSON_AddArrayToObject(spec, "gpu_ids");
	cJSON_AddStringToObject(j, "region", ppio_region(in->region));
	if (with_tools) {
		tools = cJSON_AddObjectToObject(j, "tools");
		ssh = cJSON_AddObjectToObject(tools, "ssh");
		if ((in->valid & IV_SSH) && in->state == ST_RUNNING) {
			snprintf(cmd, sizeof(cmd), "ssh -p %d %s@%s", in->ssh_port,
			    in->ssh_user[0] ? in->ssh_user : "root", in->ssh_host);
			cJSON_AddStringToObject(ssh, "command", cmd);
			cJSON_AddStringToObject(ssh, "password", "sim-password");
		} else {
			cJSON_AddStringToObject(ssh, "command", "");
			cJSON_AddStringToObject(ssh, "password", "");
		}
		cJSON_AddStringToObject(ssh, "username", "root");
	}
	st = cJSON_AddObjectToObject(j, "status");
	cJSON_AddStringToObject(st, "status", status_of(in));
	cJSON_AddStringToObject(st, "error", in->state == ST_FAILED ? "instance failed" : "");
	cJSON_AddStringToObject(st, "message", in->status_msg);
	cJSON_AddNumberToObject(j, "created_at", (double)in->created_at);
	cJSON_AddNumberToObject(j, "last_started_at", !started ? 0 :
	    (double)(in->state == ST_RUNNING && in->state_since > 0 ? in->state_since :
	    in->created_at));
	cJSON_AddNumberToObject(j, "last_stopped_at", in->state == ST_STOPPED ?
	    (double)in->state_since : 0);
	cJSON_AddStringToObject(j, "member_id", "sim-member");
	cJSON_AddStringToObject(j, "owner_id", "sim-owner");
	cJSON_AddStringToObject(j, "region_version", "v1");
	return j;
}

/* Cursors: base64url of {"offset":N}, as the documented example (§3). */
static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void
cursor_make(size_t offset, char *out, size_t n)
{
	char raw[40];
	size_t len, i, o = 0;

	len = (size_t)snprintf(raw, sizeof(raw), "{\"offset\":%zu}", offset);
	for (i = 0; i < len && o + 5 < n; i += 3) {
		unsigned v = (unsigned)(unsigned char)raw[i] << 16;

		if (i + 1 < len)
			v |= (unsigned)(unsigned char)raw[i + 1] << 8;
		if (i + 2 < len)
			v |= (unsigned char)raw[i + 2];
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		if (i + 1 < len)
			out[o++] = b64[v >> 6 & 63];
		if (i + 2 < len)
			out[o++] = b64[v & 63];
	}
	out[o] = '\0';
}

static bool
cursor_parse(const char *s, size_t *offset)
{
	char raw[48], again[64];
	unsigned v = 0;
	size_t i, o = 0, bits = 0;
	long long n;
	const char *d;

	for (i = 0; s[i] != '\0'; i++) {
		if ((d = strchr(b64, s[i])) == NULL || o + 1 >= sizeof(raw))
			return false;
		v = (v << 6) | (unsigned)(d - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			raw[o++] = (char)(v >> bits & 0xff);
		}
	}
	raw[o] = '\0';
	/* Ours are the only valid ones: {"offset":N}, which encodes back to s. */
	if (strncmp(raw, "{\"offset\":", 10) != 0 || raw[o - 1] != '}')
		return false;
	raw[o - 1] = '\0';
	if (!parse_int(raw + 10, 0, 1000000, &n))
		return false;
	cursor_make((size_t)n, again, sizeof(again));
	if (strcmp(again, s) != 0)
		return false;
	*offset = (size_t)n;
	return true;
}

static void
list(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *cur = serve_query(rq, "cursor"), *lim = serve_query(rq, "limit");
	const char *name = serve_query(rq, "name"), *status = serve_query(rq, "status");
	struct instance_list l;
	struct gr_error err = { 0 };
	cJSON *j, *data;
	size_t offset = 0, limit = PAGE_MAX, i, matched = 0, shown = 0;
	long long v;
	char next[64] = "", id[16];
	bool more = false;

	if (lim != NULL && lim[0] != '\0') {
		if (!parse_int(lim, 0, 1000, &v)) {
			ppio_fail(rp, 400, "VALIDATOR_PARAM", "limit must be an integer >= 0");
			return;
		}
		if (v > 0)
			limit = (size_t)v;
	}
	if (limit > PAGE_MAX)
		limit = PAGE_MAX;
	if (cur != NULL && cur[0] != '\0' && (strlen(cur) > 1024 || !cursor_parse(cur, &offset))) {
		ppio_fail(rp, 400, "VALIDATOR_PARAM", "invalid cursor");
		return;
	}
	instance_list_init(&l);
	if (sim_instances(c->sim, false, &l, &err) != GR_OK) {
		instance_list_release(&l);
		ppio_fail(rp, 500, "UNKNOWN", err.msg);
		return;
	}
	j = cJSON_CreateObject();
	data = cJSON_AddArrayToObject(j, "data");
	for (i = 0; i < l.n; i++) {
		const struct instance *in = &l.v[i];

		if (in->state == ST_DESTROYED)
			continue;
		ppio_id_of(in->id, id, sizeof(id));
		/* name: a fuzzy match on the name or the id (§5.2). */
		if (name != NULL && name[0] != '\0' && strstr(in->label, name) == NULL &&
		    strstr(id, name) == NULL)
			continue;
		if (status != NULL && status[0] != '\0' && strcmp(status, status_of(in)) != 0)
			continue;
		if (matched++ < offset)
			continue;
		if (shown == limit) {
			more = true;
			break;
		}
		cJSON_AddItemToArray(data, instance_json(c, in, false));
		shown++;
	}
	instance_list_release(&l);
	if (more)
		cursor_make(offset + shown, next, sizeof(next));
	cJSON_AddStringToObject(j, "next_cursor", next);
	cJSON_AddBoolToObject(j, "has_more", more);
	serve_reply_json(rp, 200, j);
}

static void
create(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	cJSON *b = cJSON_ParseWithLength(rq->body, rq->len), *x, *j;
	const cJSON *billing = cJSON_GetObjectItemCaseSensitive(b, "billing");
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(b, "resource");
	const cJSON *cands = cJSON_GetObjectItemCaseSensitive(b, "candidate_regions");
	const cJSON *envs = cJSON_GetObjectItemCaseSensitive(b, "envs");
	const cJSON *ports = cJSON_GetObjectItemCaseSensitive(b, "ports");
	const char *name = bj_strp(b, "name"), *pid = bj_strp(b, "product_id");
	const char *image = bj_strp(b, "image"), *mode = bj_strp(billing, "mode");
	struct offer_list all;
	struct gr_error err = { 0 };
	const struct gpu_model *m;
	const struct offer *best = NULL;
	struct launch_req req;
	struct instance in;
	char *env[101], id[16];
	int port_v[16];
	long long num = 1, disk = 0, months = 0;
	size_t i, n_env = 0, n_ports = 0;
	bool spot;
	enum gr_err code;

	if (!cJSON_IsObject(b) || name == NULL || name[0] == '\0' || strlen(name) > 255 ||
	    pid == NULL || image == NULL || image[0] == '\0' || strlen(image) > 500 ||
	    mode == NULL || !cJSON_IsObject(res)) {
		cJSON_Delete(b);
		ppio_fail(rp, 400, "VALIDATOR_PARAM", "name, product_id, image, billing.mode and "
		    "resource are required");
		return;
	}
	if (strcmp(mode, "postpaid") != 0 && strcmp(mode, "spot") != 0 &&
	    strcmp(mode, "prepaid") != 0) {
		cJSON_Delete(b);
		ppio_fail(rp, 400, "UNSUPPORTED_BILLING_MODE", "the simulator sells postpaid, "
		    "prepaid and spot");
		return;
	}
	spot = strcmp(mode, "spot") == 0;
	if (strcmp(mode, "prepaid") == 0 &&
	    (!bj_int(cJSON_GetObjectItemCaseSensitive(billing, "prepaid"), "months", &months) ||
	    sim_term_discount_pct((int)months) == 0)) {
		cJSON_Delete(b);
		ppio_fail(rp, 400, "UNSUPPORTED_BILLING_MODE", "the simulator sells prepaid terms "
		    "of 1 or 3 months (billing.prepaid.months)");
		return;
	}
	if ((cJSON_GetObjectItemCaseSensitive(res, "gpu_num") != NULL &&
	    (!bj_int(res, "gpu_num", &num) || num < 1 || num > 8)) ||
	    (cJSON_GetObjectItemCaseSensitive(res, "rootfs_size_gb") != NULL &&
	    (!bj_int(res, "rootfs_size_gb", &disk) || disk < 0 || disk > 100000))) {
		cJSON_Delete(b);
		ppio_fail(rp, 400, "VALIDATOR_PARAM", "resource.gpu_num or rootfs_size_gb is out "
		    "of range");
		return;
	}
	offer_list_init(&all);
	sim_offers(c->sim, &all, &err);
	if ((m = model_of_product(&all, pid)) == NULL) {
		offer_list_release(&all);
		cJSON_Delete(b);
		ppio_fail(rp, 400, "RESOURCE_NOT_FOUND", "product not found");
		return;
	}
	for (i = 0; i < all.n; i++) {
		const struct offer *o = &all.v[i];
		bool region_ok = !cJSON_IsArray(cands) || cJSON_GetArraySize(cands) == 0;

		cJSON_ArrayForEach(x, cands)
			region_ok |= cJSON_IsString(x) &&
			    strcmp(x->valuestring, ppio_region(o->region)) == 0;
		if (o->gpu != m || o->gpu_count != num || o->available <= 0 || !region_ok ||
		    (o->type == OFFER_INTERRUPTIBLE) != spot || o->disk_gb < disk)
			continue;
		if (best == NULL || o->price_hour < best->price_hour)
			best = o;
	}
	if (best == NULL) {
		offer_list_release(&all);
		cJSON_Delete(b);
		ppio_fail(rp, 400, "INSUFFICIENT_RESOURCE", "insufficient resources: try another "
		    "product, region or GPU count");
		return;
	}
	memset(&req, 0, sizeof(req));
	cJSON_ArrayForEach(x, envs) {
		const char *k = bj_strp(x, "key"), *v = bj_strp(x, "value");

		if (k != NULL && v != NULL && n_env < 100) {
			size_t len = strlen(k) + strlen(v) + 2;

			env[n_env] = xcalloc(1, len);
			snprintf(env[n_env++], len, "%s=%s", k, v);
		}
	}
	env[n_env] = NULL;
	cJSON_ArrayForEach(x, ports) {
		long long p;

		if (bj_int(x, "port", &p) && p > 0 && p < 65536 && n_ports < ARRAY_LEN(port_v))
			port_v[n_ports++] = (int)p;
	}
	req.offer_id = best->id;
	req.image = image;
	req.disk_gb = (int)disk;
	req.label = name;
	req.env = n_env ? (const char *const *)env : NULL;
	req.ports = port_v;
	req.n_ports = n_ports;
	req.onstart = bj_strp(b, "command");
	req.interruptible = spot;
	req.bid_hour = spot ? best->price_hour : 0;
	req.term_months = (int)months;
	code = sim_launch(c->sim, &req, &in, &err);
	offer_list_release(&all);
	for (i = 0; i < n_env; i++)
		free(env[i]);
	cJSON_Delete(b);
	if (ppio_fail_code(rp, code, create_reasons, ARRAY_LEN(create_reasons), err.msg))
		return;
	rp->acted = true;
	ppio_id_of(in.id, id, sizeof(id));
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "id", id);
	serve_reply_json(rp, 200, j);
}

/* start, stop and delete: {} on success, as the sibling v2 actions answer (§5.4). */
static void
act(struct serve_ctx *c, const char *pid, const char *verb, struct serve_reply *rp)
{
	struct instance in;
	struct gr_error err = { 0 };
	enum gr_err code;

	if (!find(c, pid, &in)) {
		ppio_fail(rp, 400, "RESOURCE_NOT_FOUND", "instance not found");
		return;
	}
	if (strcmp(verb, "delete") == 0 && in.term_months > 0 && in.term_until > sim_now(c->sim)) {
		ppio_fail(rp, 400, "PREPAID_INSTANCE_NOT_SUPPORT_RELEASE", "a prepaid instance "
		    "cannot be released before its term ends");
		return;
	}
	if (strcmp(verb, "stop") == 0)
		code = sim_stop(c->sim, in.id, &err);
	else if (strcmp(verb, "start") == 0)
		code = sim_start(c->sim, in.id, &err);
	else
		code = sim_destroy(c->sim, in.id, &err);
	if (ppio_fail_code(rp, code, act_reasons, ARRAY_LEN(act_reasons), err.msg))
		return;
	rp->acted = true;
	serve_reply_json(rp, 200, cJSON_CreateObject());
}

#define INSTANCES "/gpus/v2/instances"

void
dialect_ppio(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *m = rq->method, *p = rq->path;
	const size_t il = sizeof(INSTANCES) - 1;
	struct instance in;
	char pid[64];
	const char *slash;

	if (!rq->auth_ok || (c->api_key != NULL && rq->auth[0] == '\0')) {
		ppio_fail(rp, 401, "UNAUTHORIZED", "invalid or missing API key");
		return;
	}
	if (strcmp(m, "GET") == 0 && strcmp(p, "/gpus/v2/products") == 0)
		products(c, rq, rp);
	else if (strcmp(m, "GET") == 0 && strcmp(p, INSTANCES) == 0)
		list(c, rq, rp);
	else if (strcmp(m, "POST") == 0 && strcmp(p, INSTANCES) == 0)
		create(c, rq, rp);
	else if (strncmp(p, INSTANCES "/", il + 1) == 0 && strlen(p + il + 1) < sizeof(pid)) {
		strlcpy_(pid, p + il + 1, sizeof(pid));
		slash = strchr(pid, '/');
		if (slash == NULL && strcmp(m, "GET") == 0) {
			if (find(c, pid, &in))
				serve_reply_json(rp, 200, instance_json(c, &in, true));
			else
				ppio_fail(rp, 400, "RESOURCE_NOT_FOUND", "instance not found");
		} else if (slash == NULL && strcmp(m, "DELETE") == 0)
			act(c, pid, "delete", rp);
		else if (slash != NULL && strcmp(m, "PUT") == 0 &&
		    (strcmp(slash, "/start") == 0 || strcmp(slash, "/stop") == 0)) {
			pid[slash - pid] = '\0';
			act(c, pid, slash + 1, rp);
		} else
			ppio_fail(rp, 404, "NOT_FOUND", "not found");
	} else
		ppio_fail(rp, 404, "NOT_FOUND", "not found");
}
