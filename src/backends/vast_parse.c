/*
 * vast_parse.c - vast.ai replies onto the common model (../shared/providers/vast.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "backends_parse.h"
#include "gpurent/i18n.h"
#include "gpurent/catalogue.h"
#include "gpurent/http.h"
#include "gpurent/util.h"

#include "backends_int.h"

static const char P[] = "vast";

static enum gr_err error_of(long status, const cJSON *j, const char *body, size_t len,
    struct gr_error *err);

/* Per-GPU VRAM in GB from vast's gpu_ram (MB, driver-reported, MiB-like). */
static int
vram_from_mb(double mb, const struct gpu_model *m)
{
	if (m != NULL && m->vram_gb > 0)
		return m->vram_gb;
	return (int)lround(mb / 1024.0);
}

/* The country code of a "Region, CC" geolocation, or "". */
static void
geo_cc(const char *geo, char cc[3])
{
	const char *comma = strrchr(geo, ',');

	cc[0] = '\0';
	if (comma == NULL)
		return;
	comma++;
	while (*comma == ' ')
		comma++;
	if (strlen(comma) == 2) {
		cc[0] = comma[0];
		cc[1] = comma[1];
		cc[2] = '\0';
	}
}

/*
 * Every member vast_offer_from_json reads. A streamed offer is parsed with only these (jpick):
 * a real offer has about a hundred members, and building them all was most of a search's
 * time. test_parse_vast maps the simulator's full offers both ways and compares.
 */
static const char *const offer_members[] = {
	"id", "gpu_name", "gpu_ram", "num_gpus", "dph_total", "min_bid", "dph_base",
	"storage_total_cost", "storage_cost", "geolocation", "reliability", "reliability2",
	"cpu_cores_effective", "cpu_ram", "cpu_cores", "disk_space", "inet_down", "inet_up",
	"bw_nvlink", "rentable", "discount_rate", "credit_discount_max", NULL,
};

/* A fraction in [0, 1) as basis points; -1 when absent or out of range. */
static int
fraction_bp(const cJSON *o, const char *key)
{
	double d;

	return bj_num(o, key, &d) && d >= 0 && d < 1 ? (int)lround(d * 10000) : -1;
}

/* vast's prepay discounts: discount_rate for a month, credit_discount_max for three. */
static bool
prepay_discounts(const cJSON *o, int bp[2])
{
	bp[0] = fraction_bp(o, "discount_rate");
	bp[1] = fraction_bp(o, "credit_discount_max");
	return bp[0] >= 0 && bp[1] >= 0;
}

void
vast_offer_from_json(const cJSON *o, enum offer_type type, struct offer *out)
{
	long long id, n;
	double d, mb = 0, eff, cores;
	int64_t m, base, stor;
	char geo[48], cc[3];
	bool b;

	strlcpy_(out->provider, P, sizeof(out->provider));
	if (bj_int(o, "id", &id))
		snprintf(out->id, sizeof(out->id), "vast:%lld", id);
	bj_str(o, "gpu_name", out->gpu_raw, sizeof(out->gpu_raw));
	if (bj_num(o, "gpu_ram", &mb) && mb > 0) {
		out->gpu = catalogue_resolve(P, out->gpu_raw, (int)lround(mb / 1000.0));
		out->vram_gb = vram_from_mb(mb, out->gpu);
		out->valid |= OV_VRAM;
	} else {
		out->gpu = catalogue_resolve(P, out->gpu_raw, 0);
		if (out->gpu != NULL && out->gpu->vram_gb > 0) {
			out->vram_gb = out->gpu->vram_gb;
			out->valid |= OV_VRAM;
		}
	}
	if (bj_int(o, "num_gpus", &n) && n > 0 && n < 1024)
		out->gpu_count = (int)n;
	out->type = type;
	/* dph_total is compute (dph_base, or min_bid for a bid search) plus the storage asked. */
	if (bj_money_at(o, "dph_total", &m)) {
		out->price_hour = m;
		out->valid |= OV_PRICE;
	} else if (bj_money_at(o, type == OFFER_INTERRUPTIBLE ? "min_bid" : "dph_base", &base)) {
		out->price_hour = base;
		if (bj_money_at(o, "storage_total_cost", &stor))
			out->price_hour += stor;
		out->valid |= OV_PRICE;
	}
	if (bj_money_at(o, "storage_cost", &m)) {
		out->storage_gb_month = m;
		out->valid |= OV_STORAGE;
	}
	if (bj_str(o, "geolocation", geo, sizeof(geo))) {
		strlcpy_(out->location, geo, sizeof(out->location));
		geo_cc(geo, cc);
		if (cc[0] != '\0')
			strlcpy_(out->region, bk_region_of_cc(cc), sizeof(out->region));
	}
	if (bj_num(o, "reliability", &d) || bj_num(o, "reliability2", &d)) {
		if (d >= 0 && d <= 1) {
			out->reliability_bp = (int)lround(d * 10000);
			out->valid |= OV_RELIABILITY;
		}
	}
	if (bj_num(o, "cpu_cores_effective", &eff) && eff >= 0 && eff < 100000) {
		out->cpu_cores = (int)eff;
		out->valid |= OV_CPU;
		/* cpu_ram is the whole machine's; the offer gets its share of the cores. */
		if (bj_num(o, "cpu_ram", &d) && d >= 0 && bj_num(o, "cpu_cores", &cores) && cores > 0 &&
		    d < 1e9) {
			out->ram_gb = (int)lround(d * (eff / cores) / 1000.0);
			out->valid |= OV_RAM;
		}
	}
	if (bj_num(o, "disk_space", &d) && d >= 0 && d < 1e9) {
		out->disk_gb = (int)d;
		out->valid |= OV_DISK;
	}
	if (bj_num(o, "inet_down", &d) && d >= 0 && d < 1e9) {
		out->net_down_mbps = (int)lround(d);
		out->valid |= OV_NET;
		if (bj_num(o, "inet_up", &d) && d >= 0 && d < 1e9)
			out->net_up_mbps = (int)lround(d);
	}
	if (bj_num(o, "bw_nvlink", &d))
		out->interconnect = d > 0 ? IC_NVLINK : IC_PCIE;
	if (bj_bool(o, "rentable", &b)) {
		out->available = b ? 1 : 0;
		out->valid |= OV_AVAILABLE;
	}
}

/*
 * A reserved search's offer (type=reserved): its machine prepaid for each of
 * PREPAY_MONTHS at its discount, on its compute price (dph_base); "vast:<id>t<months>".
 * After the prepaid time the instance bills on demand again.
 */
static void
map_terms(const cJSON *o, const struct offer *od, struct offer_list *out)
{
	static const int months[] = PREPAY_MONTHS;
	int64_t base;
	int bp[2];
	size_t i;

	if (!prepay_discounts(o, bp) || !bj_money_at(o, "dph_base", &base) || base <= 0)
		return;
	for (i = 0; i < ARRAY_LEN(months); i++) {
		struct offer *t = offer_list_add(out);

		*t = *od;
		snprintf(t->id, sizeof(t->id), "%.56st%d", od->id, months[i]);
		t->type = OFFER_RESERVED;
		t->term_months = months[i];
		t->price_hour = money_scale(base, 10000 - bp[i], 10000);
		t->term_price = t->price_hour * months[i] * TERM_MONTH_HOURS;
		t->ondemand_hour = base;
		t->term_end = TERM_END_ON_DEMAND;
		t->valid |= OV_PRICE | OV_ONDEMAND;
	}
}

/* One element of the offers array onto the model; non-offers are skipped, as vast's are. */
static void
map_offer(const cJSON *o, const void *type, struct offer_list *out)
{
	struct offer tmp;
	enum offer_type t = *(const enum offer_type *)type;

	if (!cJSON_IsObject(o))
		return;
	memset(&tmp, 0, sizeof(tmp));
	vast_offer_from_json(o, t == OFFER_RESERVED ? OFFER_ON_DEMAND : t, &tmp);
	if (tmp.id[0] == '\0' || tmp.gpu_count <= 0)	/* not an offer we could rent */
		return;
	if (t == OFFER_RESERVED)
		map_terms(o, &tmp, out);
	else
		*offer_list_add(out) = tmp;
}

/* A 200 that says success:false is an error whatever else it holds. */
static enum gr_err
offers_end(enum jscan_end end, const cJSON *skeleton, long status, struct gr_error *err)
{
	enum gr_err e = error_of(status, skeleton, NULL, 0, err);

	return e != GR_OK ? e : jscan_end_error(end, P, N_("malformed reply (no offers array)"),
	    err);
}

static const char *const offers_path[] = { "offers", NULL };

const struct offer_stream_kind vast_offer_kind = {
	offers_path, false, offer_members, map_offer, offers_end, P, NULL,
};

enum gr_err
vast_parse_offers(const char *body, size_t len, enum offer_type type, struct offer_list *out,
    struct gr_error *err)
{
	return offer_stream_parse(&vast_offer_kind, &type, body, len, out, err);
}

/* vast's actual/intended status pair onto the common lifecycle (vast.md section 8). */
static enum inst_state
vast_state(const char *actual, const char *intended, const char *cur, const char *next)
{
	bool want_stop = intended != NULL && strcmp(intended, "stopped") == 0;

	/* Told to stop while it loads: still provisioning, and stopped once loaded (the
	   intent, kept apart, says so and keeps it from counting as about to bill). */
	if (actual == NULL || strcmp(actual, "created") == 0 || strcmp(actual, "loading") == 0 ||
	    strcmp(actual, "scheduling") == 0)
		return ST_PROVISIONING;
	if (strcmp(actual, "running") == 0 || strcmp(actual, "rebooting") == 0)
		return want_stop ? ST_STOPPING : ST_RUNNING;
	if (strcmp(actual, "stopped") == 0 || strcmp(actual, "frozen") == 0 ||
	    strcmp(actual, "exited") == 0) {
		if (want_stop)
			return ST_STOPPED;
		if (strcmp(actual, "exited") == 0)
			return ST_FAILED;
		/* Intended running but stopped: starting, unless the contract itself is stopped
		   (outbid, or GPUs taken), which does not resume by itself. */
		if (next != NULL && strcmp(next, "running") == 0 &&
		    (cur == NULL || strcmp(cur, "running") != 0))
			return ST_STARTING;
		return ST_STOPPED;
	}
	if (strcmp(actual, "unknown") == 0 || strcmp(actual, "offline") == 0)
		return want_stop ? ST_STOPPED : ST_FAILED;
	if (strcmp(actual, "destroyed") == 0 || strcmp(actual, "deleted") == 0)
		return ST_DESTROYED;
	return ST_UNKNOWN;
}

void
vast_instance_from_json(const cJSON *r, struct instance *out)
{
	long long id, n;
	double mb = 0, d, temp;
	int64_t m;
	char geo[48], cc[3], runtype[64];
	const cJSON *ports, *p22, *first;
	const char *intended;
	bool b;

	strlcpy_(out->provider, P, sizeof(out->provider));
	if (bj_int(r, "id", &id))
		snprintf(out->id, sizeof(out->id), "vast:%lld", id);
	bj_str(r, "gpu_name", out->gpu_raw, sizeof(out->gpu_raw));
	bj_num(r, "gpu_ram", &mb);
	out->gpu = catalogue_resolve(P, out->gpu_raw, mb > 0 ? (int)lround(mb / 1000.0) : 0);
	if (bj_int(r, "num_gpus", &n) && n > 0 && n < 1024)
		out->gpu_count = (int)n;
	out->state = vast_state(bj_strp(r, "actual_status"), bj_strp(r, "intended_status"),
	    bj_strp(r, "cur_state"), bj_strp(r, "next_state"));
	intended = bj_strp(r, "intended_status");
	if (intended != NULL && strcmp(intended, "stopped") == 0)
		out->intended = ST_STOPPED;
	else if (intended != NULL && strcmp(intended, "running") == 0)
		out->intended = ST_RUNNING;
	out->type = bj_bool(r, "is_bid", &b) && b ? OFFER_INTERRUPTIBLE : OFFER_ON_DEMAND;
	if (bj_money_at(r, "dph_total", &m)) {
		out->price_hour = m;
		out->valid |= IV_PRICE;
	}
	if (out->type == OFFER_INTERRUPTIBLE && bj_money_at(r, "dph_base", &m))
		out->bid_hour = m;
	if (bj_money_at(r, "storage_total_cost", &m)) {
		out->storage_hour = m;
		out->valid |= IV_STORAGE;
	}
	bj_str(r, "label", out->label, sizeof(out->label));
	bj_str(r, "image_uuid", out->image, sizeof(out->image));
	if (bj_str(r, "geolocation", geo, sizeof(geo))) {
		geo_cc(geo, cc);
		if (cc[0] != '\0')
			strlcpy_(out->region, bk_region_of_cc(cc), sizeof(out->region));
	}
	if (bj_num(r, "disk_space", &d) && d >= 0 && d < 1e9)
		out->disk_gb = (int)lround(d);
	if (bj_num(r, "start_date", &d) && d > 0 && d < 1e12) {
		out->created_at = (int64_t)d;
		out->valid |= IV_CREATED;
	}
	/* When the container last started: the run a host key belongs to (null when stopped). */
	if (out->state == ST_RUNNING)
		bj_started_from_uptime(r, "uptime_mins", 60, (int64_t)time(NULL),
		    &out->state_since);
	/* ssh: direct when port 22 is mapped, else vast's proxy (plus one with jupyter). */
	ports = cJSON_GetObjectItemCaseSensitive(r, "ports");
	p22 = cJSON_IsObject(ports) ? cJSON_GetObjectItemCaseSensitive(ports, "22/tcp") : NULL;
	first = cJSON_IsArray(p22) ? cJSON_GetArrayItem(p22, 0) : NULL;
	if (first != NULL && bj_int(first, "HostPort", &n) && n > 0 && n < 65536 &&
	    bj_str(r, "public_ipaddr", out->ssh_host, sizeof(out->ssh_host)) &&
	    out->ssh_host[0] != '\0') {
		out->ssh_port = (int)n;
		out->valid |= IV_SSH;
	} else if (bj_str(r, "ssh_host", out->ssh_host, sizeof(out->ssh_host)) &&
	    out->ssh_host[0] != '\0' && bj_int(r, "ssh_port", &n) && n > 0 && n < 65535) {
		bj_str(r, "image_runtype", runtype, sizeof(runtype));
		out->ssh_port = (int)n + (strstr(runtype, "jupyter") != NULL ? 1 : 0);
		out->valid |= IV_SSH;
	}
	if (out->valid & IV_SSH)
		strlcpy_(out->ssh_user, "root", sizeof(out->ssh_user));
	/* gpu_util 0 together with gpu_temp 0 is a missed report, not an idle GPU. */
	if (out->state == ST_RUNNING && bj_num(r, "gpu_util", &d) && d >= 0 && d <= 100 &&
	    !(d == 0 && bj_num(r, "gpu_temp", &temp) && temp == 0)) {
		out->util_pct = (int)lround(d);
		out->valid |= IV_UTIL;
	}
	bj_str(r, "status_msg", out->status_msg, sizeof(out->status_msg));
	if (prepay_discounts(r, out->prepay_bp))
		out->valid |= IV_PREPAY;
}

/* The keyset token of the next page ("" on the last) into next_token, when ntok > 0. */
static void
next_token_of(const cJSON *j, char *next_token, size_t ntok)
{
	const char *t = bj_strp(j, "next_token");

	if (ntok > 0 && t != NULL)
		strlcpy_(next_token, t, ntok);
}

enum gr_err
vast_parse_instances(const char *body, size_t len, struct instance_list *out, char *next_token,
    size_t ntok, struct gr_error *err)
{
	cJSON *j, *arr;
	enum gr_err e;

	if (ntok > 0)
		next_token[0] = '\0';
	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	arr = cJSON_GetObjectItemCaseSensitive(j, "instances");
	if (cJSON_IsNull(arr) || arr == NULL) {
		cJSON_Delete(j);
		return arr == NULL ? gr_fail(err, GR_EUNAVAIL,
		    "malformed reply (no instances)") : GR_OK;
	}
	if (!cJSON_IsArray(arr)) {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "malformed reply (instances not a list)");
	}
	bj_instances_add(arr, vast_instance_from_json, out);
	next_token_of(j, next_token, ntok);
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
vast_parse_instance(const char *body, size_t len, struct instance *out, struct gr_error *err)
{
	cJSON *j, *r;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	r = cJSON_GetObjectItemCaseSensitive(j, "instances");
	if (cJSON_IsArray(r))	/* tolerate a one-element list */
		r = cJSON_GetArrayItem(r, 0);
	if (r == NULL || cJSON_IsNull(r)) {
		cJSON_Delete(j);
		return gr_fail(err, GR_ENOTFOUND, "no such instance");
	}
	return bj_instance_read(j, r, vast_instance_from_json, N_("malformed reply (instance)"),
	    N_("malformed reply (instance without id)"), out, err);
}

enum gr_err
vast_parse_prepay(const char *body, size_t len, int *discount_bp, int64_t *covered_s,
    struct gr_error *err)
{
	cJSON *j;
	enum gr_err e;
	bool ok = false;
	double months;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	bj_bool(j, "success", &ok);
	*discount_bp = fraction_bp(j, "discount_rate");
	if (!ok || !bj_num(j, "timescale", &months) || months <= 0 || months > 1200 ||
	    *discount_bp < 0) {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "malformed prepay reply (no success, timescale "
		    "or discount_rate)");
	}
	*covered_s = llround(months * TERM_MONTH_HOURS * 3600.0);
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
vast_parse_create(const char *body, size_t len, long long *contract, struct gr_error *err)
{
	cJSON *j;
	enum gr_err e;
	bool ok = true;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	bj_bool(j, "success", &ok);
	if (!ok || !bj_int(j, "new_contract", contract) || *contract <= 0) {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "malformed reply (no new_contract)");
	}
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
vast_parse_user(const char *body, size_t len, struct account *out, struct gr_error *err)
{
	cJSON *j;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	memset(out, 0, sizeof(*out));
	/* credit is the spendable prepaid amount; it can be negative on post-paid accounts. */
	{
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "credit");

		if (cJSON_IsNumber(c) && isfinite(c->valuedouble) && fabs(c->valuedouble) < 1e8) {
			out->balance = (int64_t)llround(c->valuedouble * 1e6);
			out->valid |= AV_BALANCE;
		}
	}
	cJSON_Delete(j);
	return GR_OK;
}

/* The disk items' sum of a charge's result; -1 when it has none to read or one is bad. */
static int64_t
charge_storage(const cJSON *r)
{
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(r, "items"), *it;
	int64_t sum = 0, m;

	if (!cJSON_IsArray(items))
		return -1;
	cJSON_ArrayForEach(it, items) {
		const char *t = bj_strp(it, "type");

		if (t == NULL || strcmp(t, "disk") != 0)
			continue;
		if (!bj_money_at(it, "amount", &m))
			return -1;
		sum = money_add(sum, m);
	}
	return sum;
}

enum gr_err
vast_parse_charges(const char *body, size_t len, struct charge_list *out, char *next_token,
    size_t ntok, struct gr_error *err)
{
	cJSON *j, *arr, *r;
	size_t n0 = out->n;
	bool ok;
	enum gr_err e;

	if (ntok > 0)
		next_token[0] = '\0';
	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	arr = cJSON_GetObjectItemCaseSensitive(j, "results");
	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "success")) || !cJSON_IsArray(arr)) {
		char msg[160];

		if (!bj_str(j, "msg", msg, sizeof(msg)) && !bj_str(j, "error", msg, sizeof(msg)))
			strlcpy_(msg, "no results", sizeof(msg));
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "%s: malformed charges reply (%s)", P, msg);
	}
	cJSON_ArrayForEach(r, arr) {
		const char *src = bj_strp(r, "source");
		struct charge *c;
		long long num;
		double start;

		if (src == NULL || strncmp(src, "instance-", 9) != 0)
			continue;
		c = charge_list_add(out);
		ok = parse_int(src + 9, 0, INT64_MAX / 4, &num) && bj_num(r, "start", &start) &&
		    start >= 0 && start <= 253402300799.0 && bj_money_at(r, "amount", &c->amount);
		if (!ok) {
			out->n = n0;
			cJSON_Delete(j);
			return gr_fail(err, GR_EUNAVAIL, "%s: malformed charge (source, start or "
			    "amount)", P);
		}
		snprintf(c->instance_id, sizeof(c->instance_id), "vast:%lld", num);
		c->day = (int64_t)start - (int64_t)start % 86400;
		c->storage = charge_storage(r);
		strlcpy_(c->currency, "USD", sizeof(c->currency));
	}
	next_token_of(j, next_token, ntok);
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
vast_parse_metrics(const char *body, size_t len, struct sample_list *out, struct gr_error *err)
{
	struct instance in;
	cJSON *j, *r;
	struct gpu_sample *s;
	double d, temp = -1, mem, total;
	enum gr_err e;

	if ((e = vast_parse_instance(body, len, &in, err)) != GR_OK)
		return e;
	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	r = cJSON_GetObjectItemCaseSensitive(j, "instances");
	if (cJSON_IsArray(r))
		r = cJSON_GetArrayItem(r, 0);
	s = sample_list_add(out);
	strlcpy_(s->instance_id, in.id, sizeof(s->instance_id));
	s->index = 0;
	bj_num(r, "gpu_temp", &temp);
	if (bj_num(r, "gpu_util", &d) && d >= 0 && d <= 100 && !(d == 0 && temp == 0)) {
		s->util_pct = (int)lround(d);
		s->valid |= MV_UTIL;
	}
	if (temp > 0 && temp < 200) {
		s->temp_c = (int)lround(temp);
		s->valid |= MV_TEMP;
	}
	if (bj_num(r, "vmem_usage", &mem) && mem >= 0 && mem < 1e6 &&
	    bj_num(r, "gpu_totalram", &total) && total > 0 && total < 1e9) {
		s->mem_used_mib = (int)lround(mem * 1024);
		s->mem_total_mib = (int)lround(total);
		s->valid |= MV_MEM;
	}
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
vast_parse_error(long status, const char *body, size_t len, struct gr_error *err)
{
	return bj_error(status, body, len, error_of, err);
}

/* The error a reply says, from its parsed body j (may be NULL) or its raw text. */
static enum gr_err
error_of(long status, const cJSON *j, const char *body, size_t len, struct gr_error *err)
{
	static const char *const msg_keys[] = { "msg", "message", "detail", "error", NULL };
	char msg[300] = "", code[64] = "";
	bool success = true, has_success = false;
	const char *m;

	if (cJSON_IsObject(j)) {
		has_success = bj_bool(j, "success", &success);
		bj_str(j, "error", code, sizeof(code));
		if ((m = bj_first_str(j, msg_keys)) != NULL)
			text_sanitize(msg, sizeof(msg), m);
	} else if (body != NULL && len > 0 && !(status >= 200 && status < 300))
		http_body_snippet(msg, sizeof(msg), body, len);
	if (j != NULL && !cJSON_IsObject(j) && status >= 200 && status < 300)
		return GR_OK;	/* arrays and the like are successes for their callers */
	if (strstr(msg, "Invalid user key") != NULL || strcmp(code, "auth_error") == 0)
		return gr_fail(err, GR_EAUTH, "API key rejected: %s (HTTP %ld)",
		    msg[0] ? msg : code, status);
	if (status >= 200 && status < 300 && (!has_success || success))
		return GR_OK;
	if (status == 410 || strstr(msg, "no_such_ask") != NULL || strcmp(code, "no_such_ask") == 0)
		return gr_fail(err, GR_ECAPACITY, "offer no longer available: %s (HTTP %ld)",
		    msg[0] ? msg : code, status);
	if (strcmp(code, "resources_unavailable") == 0)
		return gr_fail(err, GR_ECAPACITY, "%s (HTTP %ld)", msg[0] ? msg : code, status);
	if (strstr(code, "no_such_instance") != NULL || strstr(msg, "no_such_instance") != NULL)
		return gr_fail(err, GR_ENOTFOUND, "no such instance (HTTP %ld)", status);
	if (strstr(code, "credit") != NULL || strstr(code, "billing") != NULL ||
	    strstr(msg, "insufficient credit") != NULL)
		return gr_fail(err, GR_EFUNDS, "%s (HTTP %ld)", msg[0] ? msg : code, status);
	if (msg[0] == '\0' && code[0] != '\0')
		strlcpy_(msg, code, sizeof(msg));
	return http_fail_status(err, P, status, msg[0] ? msg : NULL);
}
