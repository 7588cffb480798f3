/*
 * lambda_parse.c - Lambda Cloud API v1 replies onto the common model
 * (../shared/providers/lambda.md).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backends_parse.h"
#include "gpurent/i18n.h"
#include "gpurent/catalogue.h"
#include "gpurent/http.h"
#include "gpurent/util.h"

#include "backends_int.h"

static const char P[] = "lambda";

bool
lambda_type_split(const char *type, int *count, char *token, size_t n)
{
	const char *p;
	long c = 0;

	if (strncmp(type, "gpu_", 4) != 0)
		return false;
	p = type + 4;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p) && c < 1000)
		c = c * 10 + (*p++ - '0');
	if (c <= 0 || c >= 1000 || *p++ != 'x' || *p++ != '_' || *p == '\0')
		return false;
	*count = (int)c;
	strlcpy_(token, p, n);
	return true;
}

/* A model token, then its first word ("b200_sxm6" -> "b200") when the table lacks it. */
static const struct gpu_model *
lambda_resolve(const char *token, int vram)
{
	const struct gpu_model *m = catalogue_resolve(P, token, vram);
	char base[48];
	size_t i;

	if (m != NULL)
		return m;
	for (i = 0; token[i] != '\0' && token[i] != '_' && i + 1 < sizeof(base); i++)
		base[i] = token[i];
	base[i] = '\0';
	return token[i] == '_' ? catalogue_resolve(P, base, vram) : NULL;
}

const char *
lambda_token_of(const struct gpu_model *m)
{
	static const char *const tokens[] = { "b200_sxm6", "h100_sxm5", "h100_pcie", "gh200",
		"a100_sxm4", "a100_pcie", "a100_80gb_sxm4", "a10", "a6000", "rtx6000", "v100" };
	size_t i;

	for (i = 0; m != NULL && i < ARRAY_LEN(tokens); i++)
		if (lambda_resolve(tokens[i], m->vram_gb) == m)
			return tokens[i];
	return NULL;
}

/* "H100 (80 GB SXM5)" -> vram 80, form "sxm5" (lower case, "" when absent). */
static void
gpu_desc_parse(const char *d, int *vram, char *form, size_t n)
{
	const char *p = strchr(d, '(');
	long v = 0;
	size_t j = 0;

	*vram = 0;
	if (n > 0)
		form[0] = '\0';
	if (p == NULL)
		return;
	p++;
	while (isdigit((unsigned char)*p) && v < 100000)
		v = v * 10 + (*p++ - '0');
	if (strncmp(p, " GB", 3) != 0)
		return;
	*vram = (int)v;
	p += 3;
	while (*p == ' ')
		p++;
	while (*p != '\0' && *p != ')' && *p != ' ' && j + 1 < n)
		form[j++] = (char)tolower((unsigned char)*p++);
	if (n > 0)
		form[j] = '\0';
}

/* The catalogue model of a Lambda type: its name's model token, then the description's form. */
static const struct gpu_model *
lambda_model(const char *token, const char *gpu_desc, int *vram_out)
{
	const struct gpu_model *m;
	char form[16], alt[64], base[48];
	int vram;
	size_t i;

	gpu_desc_parse(gpu_desc, &vram, form, sizeof(form));
	*vram_out = vram;
	/* Trust the description's form over the name: gpu_8x_a100 is "(40 GB SXM4)". */
	if (form[0] != '\0' && strstr(token, form) == NULL) {
		for (i = 0; token[i] != '\0' && token[i] != '_' && i + 1 < sizeof(base); i++)
			base[i] = token[i];
		base[i] = '\0';
		snprintf(alt, sizeof(alt), "%s_%s", base, form);
		if ((m = catalogue_resolve(P, alt, vram)) != NULL)
			return m;
	}
	return lambda_resolve(token, vram);
}

static const char *
continent_of_lambda_region(const char *r)
{
	if (strncmp(r, "us-", 3) == 0)
		return "na";
	if (strncmp(r, "europe-", 7) == 0)
		return "eu";
	if (strncmp(r, "asia-", 5) == 0)
		return "as";
	if (strncmp(r, "me-", 3) == 0)
		return "me";
	if (strncmp(r, "australia-", 10) == 0)
		return "oc";
	return "";
}

/* Fill the type-derived fields of an offer from an InstanceType object. */
static bool
offer_from_type(const cJSON *it, struct offer *o)
{
	const struct bj_figure figures[] = {
		{ "vcpus", 100000, &o->cpu_cores, OV_CPU },
		{ "memory_gib", 10000000, &o->ram_gb, OV_RAM },
		{ "storage_gib", 100000000, &o->disk_gb, OV_DISK },
	};
	char name[64], token[48], desc[96];
	const cJSON *specs;
	long long v, cents;
	int count = 0, vram;

	if (!bj_str(it, "name", name, sizeof(name)) || name[0] == '\0')
		return false;
	specs = cJSON_GetObjectItemCaseSensitive(it, "specs");
	if (!lambda_type_split(name, &count, token, sizeof(token)))
		return false;	/* CPU-only types are not GPU offers */
	if (bj_int(specs, "gpus", &v) && v > 0 && v < 1024)
		count = (int)v;
	strlcpy_(o->provider, P, sizeof(o->provider));
	if (!bj_str(it, "gpu_description", desc, sizeof(desc))) {
		/* 1.5.x: only "8x A100 (40 GB SXM4)" */
		char full[128];
		const char *sp;

		bj_str(it, "description", full, sizeof(full));
		sp = strchr(full, ' ');
		strlcpy_(desc, sp != NULL ? sp + 1 : full, sizeof(desc));
	}
	strlcpy_(o->gpu_raw, name, sizeof(o->gpu_raw));
	o->gpu = lambda_model(token, desc, &vram);
	o->vram_gb = o->gpu != NULL && o->gpu->vram_gb > 0 ? o->gpu->vram_gb : vram;
	if (o->vram_gb > 0)
		o->valid |= OV_VRAM;
	o->gpu_count = count;
	o->type = OFFER_ON_DEMAND;
	if (bj_int(it, "price_cents_per_hour", &cents) && cents >= 0 && cents < 100000000) {
		o->price_hour = cents * 10000;	/* whole instance, cents -> micro-dollars */
		o->valid |= OV_PRICE;
	}
	bj_figures(specs, figures, ARRAY_LEN(figures), &o->valid);
	if (strstr(desc, "SXM") != NULL)
		o->interconnect = count > 1 ? IC_NVLINK : IC_PCIE;
	else if (strstr(desc, "PCIe") != NULL)
		o->interconnect = IC_PCIE;
	return true;
}

/* One member of data (keyed by type name): an offer per region with capacity, or one
   without a region when it has none. */
static void
map_instance_type(const cJSON *ent, const void *arg, struct offer_list *out)
{
	const cJSON *it, *regions, *r;
	struct offer base, *o;
	char rname[32], rdesc[48];
	int nreg = 0;

	it = cJSON_GetObjectItemCaseSensitive(ent, "instance_type");
	if (!cJSON_IsObject(it))
		return;
	memset(&base, 0, sizeof(base));
	if (!offer_from_type(it, &base))
		return;
	regions = cJSON_GetObjectItemCaseSensitive(ent, "regions_with_capacity_available");
	cJSON_ArrayForEach(r, (cJSON_IsArray(regions) ? regions : NULL)) {
		if (!bj_str(r, "name", rname, sizeof(rname)) || rname[0] == '\0')
			continue;
		o = offer_list_add(out);
		*o = base;
		snprintf(o->id, sizeof(o->id), "lambda:%.32s@%.23s", base.gpu_raw, rname);
		strlcpy_(o->region, continent_of_lambda_region(rname), sizeof(o->region));
		if (bj_str(r, "description", rdesc, sizeof(rdesc)) && rdesc[0] != '\0')
			snprintf(o->location, sizeof(o->location), "%.20s (%.24s)", rname, rdesc);
		else
			strlcpy_(o->location, rname, sizeof(o->location));
		o->available = 1;
		o->valid |= OV_AVAILABLE;
		nreg++;
	}
	if (nreg == 0) {
		/* Listed with its price, but no stock anywhere now. */
		o = offer_list_add(out);
		*o = base;
		snprintf(o->id, sizeof(o->id), "lambda:%.56s", base.gpu_raw);
		o->available = 0;
		o->valid |= OV_AVAILABLE;
	}
}

static const char *const types_path[] = { "data", NULL };

const struct offer_stream_kind lambda_offer_kind = {
	types_path, true, NULL, map_instance_type, NULL, P, N_("malformed reply (no data object)"),
};

enum gr_err
lambda_parse_instance_types(const char *body, size_t len, struct offer_list *out,
    struct gr_error *err)
{
	return offer_stream_parse(&lambda_offer_kind, NULL, body, len, out, err);
}

static const struct bj_state lambda_states[] = {
	{ "booting", ST_PROVISIONING }, { "active", ST_RUNNING }, { "unhealthy", ST_RUNNING },
	{ "terminating", ST_DESTROYING }, { "terminated", ST_DESTROYED },
	{ "preempted", ST_FAILED },
};

void
lambda_instance_from_json(const cJSON *in, struct instance *out)
{
	char id[48], st[24], rname[32];
	const cJSON *it, *reg;
	struct offer o;

	strlcpy_(out->provider, P, sizeof(out->provider));
	if (bj_str(in, "id", id, sizeof(id)) && id[0] != '\0')
		snprintf(out->id, sizeof(out->id), "lambda:%s", id);
	bj_str(in, "name", out->label, sizeof(out->label));
	bj_str(in, "status", st, sizeof(st));
	out->state = bj_state_of(lambda_states, ARRAY_LEN(lambda_states), bj_strp(in, "status"));
	if (strcmp(st, "unhealthy") == 0)
		strlcpy_(out->status_msg, "unhealthy: Lambda's health check failed",
		    sizeof(out->status_msg));
	/* Lambda has no message: its own word says why (preempted), for ls and the watcher. */
	else if ((out->state == ST_UNKNOWN || out->state == ST_FAILED) && st[0] != '\0')
		strlcpy_(out->status_msg, st, sizeof(out->status_msg));
	out->type = OFFER_ON_DEMAND;
	it = cJSON_GetObjectItemCaseSensitive(in, "instance_type");
	memset(&o, 0, sizeof(o));
	if (cJSON_IsObject(it) && offer_from_type(it, &o)) {
		out->gpu = o.gpu;
		strlcpy_(out->gpu_raw, o.gpu_raw, sizeof(out->gpu_raw));
		out->gpu_count = o.gpu_count;
		if (o.valid & OV_PRICE) {
			out->price_hour = o.price_hour;
			out->valid |= IV_PRICE;
		}
		if (o.valid & OV_DISK)
			out->disk_gb = o.disk_gb;
	}
	reg = cJSON_GetObjectItemCaseSensitive(in, "region");
	if (cJSON_IsObject(reg) && bj_str(reg, "name", rname, sizeof(rname)))
		strlcpy_(out->region, rname, sizeof(out->region));
	if (bj_str(in, "ip", out->ssh_host, sizeof(out->ssh_host)) && out->ssh_host[0] != '\0') {
		out->ssh_port = 22;
		strlcpy_(out->ssh_user, "ubuntu", sizeof(out->ssh_user));
		out->valid |= IV_SSH;
	}
}

/* The reply parsed into *j (the caller deletes it) and its "data" member, a list, in *d. */
static enum gr_err
parse_data_list(const char *body, size_t len, cJSON **j, cJSON **d, struct gr_error *err)
{
	enum gr_err e;

	if ((e = bj_parse(P, body, len, j, err)) != GR_OK)
		return e;
	*d = cJSON_GetObjectItemCaseSensitive(*j, "data");
	if (!cJSON_IsArray(*d)) {
		cJSON_Delete(*j);
		return gr_fail(err, GR_EUNAVAIL, "malformed reply (no data list)");
	}
	return GR_OK;
}

enum gr_err
lambda_parse_instances(const char *body, size_t len, struct instance_list *out,
    struct gr_error *err)
{
	cJSON *j, *d;
	enum gr_err e;

	if ((e = parse_data_list(body, len, &j, &d, err)) != GR_OK)
		return e;
	bj_instances_add(d, lambda_instance_from_json, out);
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
lambda_parse_instance(const char *body, size_t len, struct instance *out, struct gr_error *err)
{
	cJSON *j;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	return bj_instance_read(j, cJSON_GetObjectItemCaseSensitive(j, "data"),
	    lambda_instance_from_json, N_("malformed reply (no data object)"),
	    N_("malformed reply (instance without id)"), out, err);
}

enum gr_err
lambda_parse_launch(const char *body, size_t len, char *id, size_t n, struct gr_error *err)
{
	cJSON *j, *d, *ids, *first;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	d = cJSON_GetObjectItemCaseSensitive(j, "data");
	ids = cJSON_IsObject(d) ? cJSON_GetObjectItemCaseSensitive(d, "instance_ids") : NULL;
	first = cJSON_IsArray(ids) ? cJSON_GetArrayItem(ids, 0) : NULL;
	if (!cJSON_IsString(first) || first->valuestring[0] == '\0' ||
	    strlen(first->valuestring) >= n) {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "malformed reply (no instance id)");
	}
	text_sanitize(id, n, first->valuestring);
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
lambda_parse_ssh_keys(const char *body, size_t len, char (*names)[65], size_t max,
    size_t *count, struct gr_error *err)
{
	cJSON *j, *d, *k;
	enum gr_err e;
	char name[65];

	*count = 0;
	if ((e = parse_data_list(body, len, &j, &d, err)) != GR_OK)
		return e;
	cJSON_ArrayForEach(k, d) {
		if (!bj_str(k, "name", name, sizeof(name)) || name[0] == '\0')
			continue;
		if (*count < max)
			strlcpy_(names[*count], name, sizeof(names[0]));
		(*count)++;
	}
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
lambda_parse_error(long status, const char *body, size_t len, struct gr_error *err)
{
	static const struct bj_code codes[] = {
		{ "global/invalid-api-key", GR_EAUTH },
		{ "global/account-inactive", GR_EAUTH },
		{ "global/invalid-address", GR_EAUTH },
		{ "global/forbidden", GR_EAUTH },
		{ "global/object-does-not-exist", GR_ENOTFOUND },
		{ "global/not-found", GR_ENOTFOUND },
		{ "instance-operations/launch/insufficient-capacity", GR_ECAPACITY },
		{ "global/quota-exceeded", GR_ECAPACITY },
		{ "global/invalid-parameters", GR_EUSAGE },
		{ "global/duplicate", GR_EUSAGE },
		{ "global/conflict", GR_ECONFLICT },
		{ "instance-operations/launch/file-system-in-wrong-region", GR_EUSAGE },
		{ "global/internal-error", GR_EUNAVAIL },
	};
	cJSON *j = NULL, *eo;
	char code[96] = "", msg[256] = "", sugg[160] = "";
	enum gr_err c = GR_OK;

	if (status >= 200 && status < 300)
		return GR_OK;
	if (body != NULL && len > 0)
		j = cJSON_ParseWithLength(body, len);
	eo = cJSON_IsObject(j) ? cJSON_GetObjectItemCaseSensitive(j, "error") : NULL;
	if (cJSON_IsObject(eo)) {
		bj_str(eo, "code", code, sizeof(code));
		bj_str(eo, "message", msg, sizeof(msg));
		bj_str(eo, "suggestion", sugg, sizeof(sugg));
	} else if (body != NULL && len > 0 && j == NULL) {
		/* A proxy's HTML or text page: the first line says enough. */
		http_body_snippet(msg, sizeof(msg), body, len);
		if (msg[0] == '<')
			msg[0] = '\0';
	}
	cJSON_Delete(j);
	c = bj_code_of(codes, ARRAY_LEN(codes), code);
	if (c == GR_OK && strncmp(code, "provider/", 9) == 0)
		c = GR_EUNAVAIL;
	if (status == 429)
		c = GR_ERATELIMIT;
	return bj_fail_coded(err, P, status, c, msg, code, sugg);
}
