/*
 * ppio_parse.c - PPIO GPU instance API v2 replies onto the common model
 * (../shared/providers/ppio.md).
 *
 * Prices are integers scaled by the product's pricing.precision (§4.2), decoded here with
 * integer arithmetic only: a JSON number is accepted when it is a whole number a double
 * holds exactly (below 2^53), and a numeric string digit by digit. The currency is not in
 * the payload (§10): the caller says it.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backends_parse.h"
#include "gpurent/catalogue.h"
#include "gpurent/http.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/util.h"

#include "backends_int.h"

static const char P[] = "ppio";

/* Whole numbers a double holds exactly: no price integer has ever come near. */
#define EXACT_MAX 9007199254740991.0

/* A non-negative whole number, from a JSON number or a string of digits; false otherwise. */
static bool
whole(const cJSON *n, int64_t *out)
{
	const char *s;
	int64_t v = 0;

	if (cJSON_IsNumber(n)) {
		double d = n->valuedouble;

		if (!(d >= 0 && d <= EXACT_MAX) || d != (double)(int64_t)d)
			return false;
		*out = (int64_t)d;
		return true;
	}
	if (!cJSON_IsString(n) || (s = n->valuestring) == NULL || *s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return true;
}

bool
ppio_scaled(const cJSON *n, long long precision, int64_t *micros)
{
	int64_t v, f = 1;
	long long i;

	if (precision < 0 || precision > 12 || !whole(n, &v))
		return false;
	if (precision <= 6) {
		for (i = precision; i < 6; i++)
			f *= 10;
		if (v > INT64_MAX / f)
			return false;
		*micros = v * f;
		return true;
	}
	for (i = 6; i < precision; i++)
		f *= 10;
	*micros = money_scale(v, 1, f);	/* finer than a micro-unit: nearest */
	return true;
}

/* Chinese names of the areas PPIO's region ids are named after (cn-south-1 -> 华南). */
static const struct {
	const char *prefix, *name;
} areas[] = {
	{ "cn-east", "\xe5\x8d\x8e\xe4\xb8\x9c" },		/* 华东 */
	{ "cn-south", "\xe5\x8d\x8e\xe5\x8d\x97" },		/* 华南 */
	{ "cn-north", "\xe5\x8d\x8e\xe5\x8c\x97" },		/* 华北 */
	{ "cn-central", "\xe5\x8d\x8e\xe4\xb8\xad" },		/* 华中 */
	{ "cn-southwest", "\xe8\xa5\xbf\xe5\x8d\x97" },		/* 西南 */
	{ "cn-northwest", "\xe8\xa5\xbf\xe5\x8c\x97" },		/* 西北 */
	{ "cn-northeast", "\xe4\xb8\x9c\xe5\x8c\x97" },		/* 东北 */
	{ "c-east", "\xe5\x8d\x8e\xe4\xb8\x9c" },		/* the docs' example "c-east-1" */
};

void
ppio_region_location(const char *region, char *out, size_t n)
{
	size_t i, best = ARRAY_LEN(areas), len, best_len = 0;

	for (i = 0; i < ARRAY_LEN(areas); i++) {
		len = strlen(areas[i].prefix);
		if (strncmp(region, areas[i].prefix, len) == 0 &&
		    (region[len] == '-' || region[len] == '\0') && len > best_len) {
			best = i;
			best_len = len;
		}
	}
	if (best < ARRAY_LEN(areas))
		snprintf(out, n, "%s %s, CN", areas[best].name, region);
	else if (strncmp(region, "cn-", 3) == 0)
		snprintf(out, n, "%s, CN", region);
	else
		snprintf(out, n, "%s", region);
}

void
ppio_offer_id(char *dst, size_t n, const char *product, const char *region, int count,
    bool spot)
{
	snprintf(dst, n, "ppio:%s%s%s:%d%s", product, region[0] ? "@" : "", region, count,
	    spot ? "s" : "");
}

bool
ppio_offer_id_parse(const char *lid, char *product, size_t n, char *region, size_t nr,
    int *count, bool *spot)
{
	const char *colon = strrchr(lid, ':'), *p, *at;
	long c = 0;

	if (colon == NULL || colon == lid || (size_t)(colon - lid) >= n || nr == 0)
		return false;
	at = memchr(lid, '@', (size_t)(colon - lid));
	region[0] = '\0';
	p = colon + 1;
	if (at != NULL) {
		if (at == lid || (size_t)(colon - at - 1) >= nr || colon == at + 1)
			return false;
		memcpy(region, at + 1, (size_t)(colon - at - 1));
		region[colon - at - 1] = '\0';
		colon = at;	/* the product ends at the '@' */
	}
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p) && c < 1000)
		c = c * 10 + (*p++ - '0');
	*spot = *p == 's';
	if (*spot)
		p++;
	/* A prepaid term (ppio_offer_term). */
	if (*p == 't' && isdigit((unsigned char)p[1]))
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if (*p != '\0' || c <= 0 || c >= 1000)
		return false;
	memcpy(product, lid, (size_t)(colon - lid));
	product[colon - lid] = '\0';
	*count = (int)c;
	return strchr(product, '/') == NULL && strchr(region, '/') == NULL;
}

int
ppio_offer_term(const char *lid)
{
	const char *colon = strrchr(lid, ':'), *t;
	long m = 0;

	if (colon == NULL || (t = strchr(colon, 't')) == NULL)
		return 0;
	for (t++; isdigit((unsigned char)*t) && m < 1000; t++)
		m = m * 10 + (*t - '0');
	return *t == '\0' && m > 0 && m < 1000 ? (int)m : 0;
}

/* Whether a billing method is in the product's billing_methods (absent: postpaid only). */
static bool
sells(const cJSON *prod, const char *method)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(prod, "billing_methods"), *x;

	if (!cJSON_IsArray(m))
		return strcmp(method, "postpaid") == 0;
	cJSON_ArrayForEach(x, m)
		if (cJSON_IsString(x) && strcmp(x->valuestring, method) == 0)
			return true;
	return false;
}

/* The GPU counts gpurent offers of a product: 1, 2, 4, 8 within [min, max]. */
static const int counts[] = { 1, 2, 4, 8 };

/*
 * The catalogue model of a GPU name and its VRAM (§11): PPIO's own names first, then a
 * catalogue name that, with the VRAM, picks exactly one model ("A100" with 80 GB is both
 * SXM and PCIe: unknown, shown by its own name).
 */
static const struct gpu_model *
ppio_model(const char *name, int vram)
{
	const struct gpu_model *m = catalogue_resolve(P, name, vram), *all, *found = NULL;
	size_t n, i;

	if (m != NULL || name[0] == '\0')
		return m;
	all = catalogue_all(&n);
	for (i = 0; i < n; i++)
		if (catalogue_matches(&all[i], name) && (vram <= 0 || all[i].vram_gb == vram)) {
			if (found != NULL && found != &all[i])
				return NULL;
			found = &all[i];
		}
	return found;
}

/* What one product says, before its regions and counts make offers of it. */
struct product {
	const cJSON *json;
	char id[48];
	char gpu_name[64];
	const struct gpu_model *model;
	long long precision, vram, gmin, gmax, max_available, cpu, mem, disk;
	bool deployable, has_deployable;
	const char *currency;
};

/*
 * The prepaid terms of the on-demand offers out->v[first...] (§4.2 pricing.prepaid: a whole
 * term's price per GPU, duration_months): each a term offer of the same machine. gpurent
 * creates them with auto-renew off, and the billing-mode action (§5.4) says a prepaid
 * instance can be postpaid: at its end it is taken to be billed by the hour again.
 */
static void
prepaid_offers(const struct product *p, struct offer_list *out, size_t first)
{
	const cJSON *terms = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(p->json, "pricing"), "prepaid"), *x;
	size_t i, n = out->n;

	if (!sells(p->json, "prepaid") || !cJSON_IsArray(terms))
		return;
	cJSON_ArrayForEach(x, terms) {
		long long months;
		int64_t per_gpu;

		if (!bj_int(x, "duration_months", &months) || months < 1 || months > 120 ||
		    !ppio_scaled(cJSON_GetObjectItemCaseSensitive(x, "final_price"),
		    p->precision, &per_gpu) || per_gpu <= 0)
			continue;
		for (i = first; i < n; i++) {
			struct offer *o;
			size_t len;

			if (out->v[i].type != OFFER_ON_DEMAND ||
			    per_gpu > INT64_MAX / out->v[i].gpu_count)
				continue;
			o = offer_list_add(out);
			*o = out->v[i];
			len = strlen(o->id);
			snprintf(o->id + len, sizeof(o->id) - len, "t%d", (int)months);
			o->type = OFFER_RESERVED;
			o->term_months = (int)months;
			o->term_price = per_gpu * o->gpu_count;
			o->price_hour = term_hourly(o->term_price, o->term_months);
			o->ondemand_hour = out->v[i].price_hour;
			o->valid |= OV_ONDEMAND;
			o->term_end = TERM_END_ON_DEMAND;
		}
	}
}

/* The offers of one product in one region: each count, on demand (postpaid) and
   interruptible (spot), and the prepaid terms of the on-demand ones. */
static void
region_offers(const struct product *p, const char *region, const char *loc, bool terms,
    struct offer_list *out)
{
	const cJSON *pricing = cJSON_GetObjectItemCaseSensitive(p->json, "pricing");
	size_t k, t, first = out->n;

	for (t = 0; t < 2; t++) {
		const char *method = t == 0 ? "postpaid" : "spot";
		const cJSON *pm = cJSON_GetObjectItemCaseSensitive(pricing, method);
		int64_t per_gpu;

		if (!sells(p->json, method) ||
		    !ppio_scaled(cJSON_GetObjectItemCaseSensitive(pm, "final_price"), p->precision,
		    &per_gpu))
			continue;
		for (k = 0; k < ARRAY_LEN(counts); k++) {
			struct offer *o;
			int n = counts[k];

			if (n < p->gmin || n > p->gmax || per_gpu > INT64_MAX / n)
				continue;
			o = offer_list_add(out);
			ppio_offer_id(o->id, sizeof(o->id), p->id, region, n, t == 1);
			strlcpy_(o->provider, P, sizeof(o->provider));
			text_sanitize(o->gpu_raw, sizeof(o->gpu_raw), p->gpu_name);
			o->gpu = p->model;
			o->gpu_count = n;
			o->vram_gb = p->model != NULL && p->model->vram_gb > 0 ? p->model->vram_gb :
			    (int)p->vram;
			if (o->vram_gb > 0)
				o->valid |= OV_VRAM;
			o->type = t == 0 ? OFFER_ON_DEMAND : OFFER_INTERRUPTIBLE;
			o->price_hour = per_gpu * n;	/* per GPU-hour (§4.2) */
			o->valid |= OV_PRICE;
			money_currency_set(o->currency, p->currency);
			strlcpy_(o->region, region, sizeof(o->region));
			text_sanitize(o->location, sizeof(o->location), loc);
			if (p->cpu > 0) {
				o->cpu_cores = (int)(p->cpu * n);	/* per GPU (§4.2) */
				o->valid |= OV_CPU;
			}
			if (p->mem > 0) {
				o->ram_gb = (int)(p->mem * n);
				o->valid |= OV_RAM;
			}
			if (p->disk > 0) {
				o->disk_gb = (int)p->disk;
				o->valid |= OV_DISK;
			}
			/* A machine of n GPUs is free when the product deploys and n fits the
			   largest instance stock allows now (§4.2: advisory). */
			if (p->max_available >= 0 || p->has_deployable) {
				o->available = p->deployable && (p->max_available < 0 ||
				    n <= p->max_available) ? 1 : 0;
				o->valid |= OV_AVAILABLE;
			}
		}
	}
	if (terms)
		prepaid_offers(p, out, first);
}

static void
product_offers(const cJSON *prod, const char *currency, bool terms, struct offer_list *out)
{
	const cJSON *spec = cJSON_GetObjectItemCaseSensitive(prod, "resource_spec");
	const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(spec, "gpu");
	const cJSON *rootfs = cJSON_GetObjectItemCaseSensitive(spec, "rootfs");
	const cJSON *pricing = cJSON_GetObjectItemCaseSensitive(prod, "pricing");
	const cJSON *regions = cJSON_GetObjectItemCaseSensitive(prod, "region_ids");
	struct product p = { .json = prod, .gmin = 1, .gmax = 8, .max_available = -1, .cpu = -1,
		.mem = -1, .disk = -1, .deployable = true, .currency = currency };
	/* The product's figures, each kept where it is in range (else the default above). */
	const struct {
		const cJSON *obj;
		const char *key;
		long long min, below, *to;
	} figures[] = {
		{ gpu, "memory_gb", 1, 100000, &p.vram },
		{ gpu, "min", 1, 1000, &p.gmin },
		{ gpu, "max", 1, 1000, &p.gmax },
		{ gpu, "max_available", 0, 100000, &p.max_available },
		{ spec, "cpu", 1, 10000, &p.cpu },
		{ spec, "memory_gb", 1, 1000000, &p.mem },
		{ rootfs, "max_gb", 1, 10000000, &p.disk },
	};
	char name[64];
	long long v;
	size_t i, ri, nreg;

	if (bj_strp(prod, "id") == NULL || !name_safe(bj_strp(prod, "id"), sizeof(p.id) - 1) ||
	    !bj_str(prod, "id", p.id, sizeof(p.id)) || !bj_int(pricing, "precision", &p.precision))
		return;
	bj_str(prod, "name", name, sizeof(name));
	if (!bj_str(gpu, "name", p.gpu_name, sizeof(p.gpu_name)) || p.gpu_name[0] == '\0')
		strlcpy_(p.gpu_name, name, sizeof(p.gpu_name));
	for (i = 0; i < ARRAY_LEN(figures); i++)
		if (bj_int(figures[i].obj, figures[i].key, &v) && v >= figures[i].min &&
		    v < figures[i].below)
			*figures[i].to = v;
	p.has_deployable = bj_bool(prod, "deployable", &p.deployable);
	p.model = ppio_model(p.gpu_name, (int)p.vram);
	if (p.model == NULL && strcmp(p.gpu_name, name) != 0)
		p.model = ppio_model(name, (int)p.vram);
	/* One offer per region the product is sold in (create names it in candidate_regions). */
	nreg = cJSON_IsArray(regions) ? (size_t)cJSON_GetArraySize(regions) : 0;
	for (ri = 0; ri < (nreg ? nreg : 1) && ri < 64; ri++) {
		const cJSON *r = nreg ? cJSON_GetArrayItem(regions, (int)ri) : NULL;
		char region[32] = "", loc[48];

		if (nreg && (!cJSON_IsString(r) || !name_safe(r->valuestring, sizeof(region) - 1)))
			continue;
		if (r != NULL)
			text_sanitize(region, sizeof(region), r->valuestring);
		ppio_region_location(region, loc, sizeof(loc));
		region_offers(&p, region, loc, terms, out);
	}
}

/* One element of data: its offers; anything but a product object is skipped. */
static void
map_product(const cJSON *prod, const void *currency, struct offer_list *out)
{
	if (cJSON_IsObject(prod))
		product_offers(prod, currency, false, out);
}

static void
map_product_terms(const cJSON *prod, const void *currency, struct offer_list *out)
{
	if (cJSON_IsObject(prod))
		product_offers(prod, currency, true, out);
}

static const char *const products_path[] = { "data", NULL };

const struct offer_stream_kind ppio_product_kind = {
	products_path, false, NULL, map_product, NULL, P,
	N_("ppio: the product list has no data array"),
};

const struct offer_stream_kind ppio_product_terms_kind = {
	products_path, false, NULL, map_product_terms, NULL, P,
	N_("ppio: the product list has no data array"),
};

enum gr_err
ppio_parse_products(const char *body, size_t len, const char *currency,
    struct offer_list *out, struct gr_error *err)
{
	return offer_stream_parse(&ppio_product_kind, currency, body, len, out, err);
}

enum inst_state
ppio_state(const char *status, const char *error, long long last_started)
{
	static const struct bj_state map[] = {
		{ "toCreate", ST_PROVISIONING }, { "creating", ST_PROVISIONING },
		{ "running", ST_RUNNING },
		{ "toStart", ST_STARTING }, { "starting", ST_STARTING },
		{ "toRestart", ST_STARTING }, { "restarting", ST_STARTING },
		{ "toStop", ST_STOPPING }, { "stopping", ST_STOPPING }, { "freezing", ST_STOPPING },
		{ "exited", ST_STOPPED },
		{ "toRemove", ST_DESTROYING }, { "removing", ST_DESTROYING },
		{ "removed", ST_DESTROYED },
		{ "toReset", ST_PROVISIONING }, { "resetting", ST_PROVISIONING },
		{ "migrating", ST_PROVISIONING },
	};
	if (error != NULL && error[0] != '\0')
		return ST_FAILED;
	if (strcmp(status, "pulling") == 0)	/* billed from here on (§6) */
		return last_started > 0 ? ST_STARTING : ST_PROVISIONING;
	return bj_state_of(map, ARRAY_LEN(map), status);
}

/* "ssh -p 51039 root@proxy.cn-south-nas-1.gpu-instance.ppinfra.com": port, user, host. */
static bool
ssh_parse(const char *cmd, struct instance *out)
{
	const char *p = strstr(cmd, "-p "), *at, *h;
	long port = 22;
	size_t n;

	if (p != NULL) {
		port = 0;
		for (p += 3; *p == ' '; p++)
			;
		while (isdigit((unsigned char)*p) && port < 100000)
			port = port * 10 + (*p++ - '0');
	}
	if (port <= 0 || port > 65535 || (at = strrchr(cmd, '@')) == NULL)
		return false;
	for (h = at; h > cmd && h[-1] != ' '; h--)
		;
	n = (size_t)(at - h);
	if (n == 0 || n >= sizeof(out->ssh_user))
		return false;
	memcpy(out->ssh_user, h, n);
	out->ssh_user[n] = '\0';
	for (n = 0, at++; at[n] != '\0' && at[n] != ' '; n++)
		if (!(isalnum((unsigned char)at[n]) || at[n] == '.' || at[n] == '-'))
			return false;
	if (n == 0 || n >= sizeof(out->ssh_host))
		return false;
	memcpy(out->ssh_host, at, n);
	out->ssh_host[n] = '\0';
	text_sanitize(out->ssh_user, sizeof(out->ssh_user), out->ssh_user);
	out->ssh_port = (int)port;
	return out->ssh_user[0] != '\0' && out->ssh_user[0] != '-';
}

void
ppio_instance_from_json(const cJSON *j, struct instance *out)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "status");
	const cJSON *spec = cJSON_GetObjectItemCaseSensitive(j, "resource_specs");
	const cJSON *billing = cJSON_GetObjectItemCaseSensitive(j, "billing");
	const cJSON *ssh = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(j, "tools"), "ssh");
	char id[ID_MAX - 6], status[32] = "", error[96] = "", message[96] = "", mode[16] = "";
	char cmd[256], prod[48];
	long long v, started = 0;

	memset(out, 0, sizeof(*out));
	bj_str(j, "id", id, sizeof(id));
	snprintf(out->id, sizeof(out->id), "ppio:%s", id);
	strlcpy_(out->provider, P, sizeof(out->provider));
	bj_str(j, "name", out->label, sizeof(out->label));
	bj_str(j, "image", out->image, sizeof(out->image));
	bj_str(j, "region", out->region, sizeof(out->region));
	if (cJSON_IsObject(st)) {
		bj_str(st, "status", status, sizeof(status));
		bj_str(st, "error", error, sizeof(error));
		bj_str(st, "message", message, sizeof(message));
	} else
		bj_str(j, "status", status, sizeof(status));
	bj_int(j, "last_started_at", &started);
	out->state = ppio_state(status, error, started);
	/* The provider's own words: the raw status where it is not plain, then the reason. */
	snprintf(out->status_msg, sizeof(out->status_msg), "%.31s%s%.40s%s%.48s", status,
	    error[0] ? ": " : "", error, message[0] ? ": " : "", message);
	text_sanitize(out->status_msg, sizeof(out->status_msg), out->status_msg);
	if (bj_int(j, "created_at", &v) && v > 0) {
		out->created_at = v;
		out->valid |= IV_CREATED;
	}
	if (out->state == ST_RUNNING && started > 0)
		out->state_since = started;
	if (bj_int(spec, "gpu_num", &v) && v > 0 && v < 1000)
		out->gpu_count = (int)v;
	if (bj_int(spec, "rootfs_size_gb", &v) && v > 0 && v < 10000000)
		out->disk_gb = (int)v;
	bj_str(billing, "mode", mode, sizeof(mode));
	out->type = strcmp(mode, "spot") == 0 ? OFFER_INTERRUPTIBLE : OFFER_ON_DEMAND;
	/* Prepaid: nothing by the hour until the term's end_time (§5.3). */
	if (strcmp(mode, "prepaid") == 0) {
		const cJSON *pre = cJSON_GetObjectItemCaseSensitive(billing, "prepaid");

		out->type = OFFER_RESERVED;
		if (bj_int(pre, "end_time", &v) && v > 0)
			out->term_until = v;
		if (bj_int(pre, "months", &v) && v > 0 && v < 1000)
			out->term_months = (int)v;
	}
	if (bj_str(j, "product_id", prod, sizeof(prod)) && prod[0] != '\0' && out->gpu_count > 0)
		ppio_offer_id(out->offer_id, sizeof(out->offer_id), prod, out->region,
		    out->gpu_count, out->type == OFFER_INTERRUPTIBLE);
	if (out->offer_id[0] != '\0' && out->term_months > 0) {
		size_t len = strlen(out->offer_id);

		snprintf(out->offer_id + len, sizeof(out->offer_id) - len, "t%d", out->term_months);
	}
	if (cJSON_IsObject(ssh) && bj_str(ssh, "command", cmd, sizeof(cmd)) &&
	    ssh_parse(cmd, out))
		out->valid |= IV_SSH;
}

enum gr_err
ppio_parse_instances(const char *body, size_t len, struct instance_list *out,
    char *next_cursor, size_t ncur, bool *has_more, struct gr_error *err)
{
	cJSON *j, *data, *x;
	bool more = false;
	enum gr_err e;

	if (ncur > 0)
		next_cursor[0] = '\0';
	*has_more = false;
	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	data = cJSON_GetObjectItemCaseSensitive(j, "data");
	if (!cJSON_IsArray(data) && !cJSON_IsNull(data) && data != NULL) {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "ppio: the instance list has no data array");
	}
	cJSON_ArrayForEach(x, data) {
		struct instance *in;

		if (!cJSON_IsObject(x) || bj_strp(x, "id") == NULL || bj_strp(x, "id")[0] == '\0')
			continue;
		in = instance_list_add(out);
		ppio_instance_from_json(x, in);
	}
	/* A cursor is opaque (§3): copied as it came, never built; one too long is refused. */
	if (bj_strp(j, "next_cursor") != NULL) {
		const char *c = bj_strp(j, "next_cursor");

		if (strlen(c) >= ncur) {
			cJSON_Delete(j);
			return gr_fail(err, GR_EUNAVAIL, "ppio: a page cursor longer than %zu "
			    "bytes", ncur - 1);
		}
		strlcpy_(next_cursor, c, ncur);
	}
	bj_bool(j, "has_more", &more);
	*has_more = more && ncur > 0 && next_cursor[0] != '\0';
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
ppio_parse_instance(const char *body, size_t len, struct instance *out, struct gr_error *err)
{
	cJSON *j, *d;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	/* The instance itself, or (as some v2 replies wrap) under "data". */
	d = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "data")) ?
	    cJSON_GetObjectItemCaseSensitive(j, "data") : j;
	if (!cJSON_IsObject(d) || bj_strp(d, "id") == NULL || bj_strp(d, "id")[0] == '\0') {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "ppio: the instance reply has no id");
	}
	ppio_instance_from_json(d, out);
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
ppio_parse_create(const char *body, size_t len, char *id, size_t n, struct gr_error *err)
{
	cJSON *j;
	const char *s;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	s = bj_strp(j, "id");
	/* An id goes into URL paths: only what is safe there (§3: opaque, 1-255 chars). */
	if (s == NULL || !name_safe(s, n - 1 < ID_MAX - 6 ? n - 1 : ID_MAX - 6)) {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "ppio: the create reply has no usable id");
	}
	strlcpy_(id, s, n);
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
ppio_parse_error(long status, const char *body, size_t len, struct gr_error *err)
{
	static const struct bj_code reasons[] = {
		{ "UNAUTHORIZED", GR_EAUTH }, { "FORBIDDEN", GR_EAUTH },
		{ "RESOURCE_NOT_FOUND", GR_ENOTFOUND },
		{ "INSUFFICIENT_RESOURCE", GR_ECAPACITY },
		{ "CREATE_INSTANCE_LIMIT", GR_ECAPACITY }, { "OPERATION_LIMIT", GR_ECAPACITY },
		{ "BALANCE_NOT_ENOUGH", GR_EFUNDS }, { "EXPIRED_OR_BALANCE_NOT_ENOUGH", GR_EFUNDS },
		{ "CONFLICT", GR_ECONFLICT }, { "DEPENDENT_RESOURCE_STATE", GR_ECONFLICT },
		{ "PREPAID_INSTANCE_NOT_SUPPORT_RELEASE", GR_EUNSUPPORTED },
		{ "UNSUPPORTED_BILLING_MODE", GR_EUNSUPPORTED },
		{ "VALIDATOR_PARAM", GR_EUSAGE }, { "REQUEST", GR_EUSAGE },
		{ "IMAGE_NOT_FOUND", GR_EUSAGE }, { "NETWORK_STORAGE_NOT_FOUND", GR_EUSAGE },
		{ "NETWORK_NOT_FOUND", GR_EUSAGE }, { "TEMPLATE_NOT_FOUND", GR_EUSAGE },
		{ "CLUSTER_STATUS", GR_EUNAVAIL }, { "NODE_STATUS", GR_EUNAVAIL },
		{ "RATE_LIMIT_EXCEEDED", GR_ERATELIMIT }, { "UNKNOWN", GR_EUNAVAIL },
	};
	static const char *const msg_keys[] = { "message", "error", "title", NULL };
	cJSON *j = NULL, *eo;
	char reason[64] = "", msg[256] = "";
	const char *m;
	enum gr_err c = GR_OK;

	if (status >= 200 && status < 300)
		return GR_OK;
	if (body != NULL && len > 0)
		j = cJSON_ParseWithLength(body, len);
	if (cJSON_IsObject(j)) {
		/* §8: message, then error (a string or {message}), then reason. */
		bj_str(j, "reason", reason, sizeof(reason));
		eo = cJSON_GetObjectItemCaseSensitive(j, "error");
		if ((m = bj_first_str(j, msg_keys)) != NULL)
			text_sanitize(msg, sizeof(msg), m);
		else if (cJSON_IsObject(eo) && bj_strp(eo, "message") != NULL)
			bj_str(eo, "message", msg, sizeof(msg));
		if (reason[0] == '\0' && cJSON_IsObject(eo))
			bj_str(eo, "reason", reason, sizeof(reason));
	} else if (body != NULL && len > 0 && j == NULL) {
		/* An edge proxy's page: its first line, unless it is HTML. */
		http_body_snippet(msg, sizeof(msg), body, len);
		if (msg[0] == '<')
			msg[0] = '\0';
	}
	cJSON_Delete(j);
	c = bj_code_of(reasons, ARRAY_LEN(reasons), reason);
	if (status == 429)
		c = GR_ERATELIMIT;
	else if (status >= 500 && c != GR_ERATELIMIT)
		c = GR_EUNAVAIL;
	return bj_fail_coded(err, P, status, c, msg, reason, "");
}
