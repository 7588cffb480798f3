/*
 * runpod_parse.c - RunPod GraphQL replies onto the common model (../shared/providers/runpod.md).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "backends_parse.h"
#include "gpurent/catalogue.h"
#include "gpurent/http.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/util.h"

#include "backends_int.h"

static const char P[] = "runpod";

void
runpod_offer_id(char *dst, size_t n, bool secure, int count, bool spot, const char *type_id)
{
	struct sb sb;
	const char *p;

	sb_init(&sb);
	sb_addf(&sb, "runpod:%c%d%s-", secure ? 's' : 'c', count, spot ? "b" : "");
	for (p = type_id; *p != '\0'; p++) {
		if (*p == ' ')
			sb_addc(&sb, '+');
		else if (*p == '+' || *p == '%' || (unsigned char)*p < 0x21 || *p == 0x7f)
			sb_addf(&sb, "%%%02X", (unsigned char)*p);
		else
			sb_addc(&sb, *p);
	}
	strlcpy_(dst, sb.buf, n);
	sb_release(&sb);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool
runpod_offer_id_parse(const char *id, bool *secure, int *count, bool *spot, char *type_id,
    size_t n)
{
	const char *p = id;
	size_t j = 0;
	long c = 0;

	if (strncmp(p, "runpod:", 7) == 0)
		p += 7;
	if (*p != 's' && *p != 'c')
		return false;
	*secure = *p++ == 's';
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p) && c < 1000)
		c = c * 10 + (*p++ - '0');
	if (c <= 0 || c >= 1000)
		return false;
	*count = (int)c;
	*spot = false;
	if (*p == 'b') {
		*spot = true;
		p++;
	}
	if (*p++ != '-' || *p == '\0')
		return false;
	for (; *p != '\0'; p++) {
		char ch = *p;

		if (ch == '+')
			ch = ' ';
		else if (ch == '%') {
			int hi = hexval(p[1]), lo = hi >= 0 ? hexval(p[2]) : -1;

			if (lo < 0)
				return false;
			ch = (char)(hi * 16 + lo);
			p += 2;
		}
		if (j + 1 >= n)
			return false;
		type_id[j++] = ch;
	}
	type_id[j] = '\0';
	return j > 0;
}

/* The data member of a GraphQL reply, or NULL. */
static cJSON *
gql_data(cJSON *j)
{
	cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "data");

	return cJSON_IsObject(d) ? d : NULL;
}

void
runpod_offer_add(struct offer_list *out, const cJSON *gt, const cJSON *lp, bool secure,
    int count, bool spot)
{
	struct offer *o;
	const char *id = bj_strp(gt, "id"), *stock;
	long long mem = 0, maxc;
	int64_t per_gpu;
	char cc[8];

	if (id == NULL || id[0] == '\0' || strcmp(id, "unknown") == 0)
		return;
	stock = bj_strp(lp, "stockStatus");
	if (stock == NULL || strcmp(stock, "None") == 0)
		return;	/* not rentable now */
	if (!bj_money_at(lp, spot ? "minimumBidPrice" : "uninterruptablePrice", &per_gpu) ||
	    per_gpu <= 0)
		return;
	o = offer_list_add(out);
	runpod_offer_id(o->id, sizeof(o->id), secure, count, spot, id);
	strlcpy_(o->provider, P, sizeof(o->provider));
	text_sanitize(o->gpu_raw, sizeof(o->gpu_raw), id);
	bj_int(gt, "memoryInGb", &mem);
	o->gpu = catalogue_resolve(P, id, mem > 0 && mem < 100000 ? (int)mem : 0);
	if (mem > 0 && mem < 100000) {
		o->vram_gb = o->gpu != NULL && o->gpu->vram_gb > 0 ? o->gpu->vram_gb : (int)mem;
		o->valid |= OV_VRAM;
	} else if (o->gpu != NULL && o->gpu->vram_gb > 0) {
		o->vram_gb = o->gpu->vram_gb;
		o->valid |= OV_VRAM;
	}
	o->gpu_count = count;
	o->type = spot ? OFFER_INTERRUPTIBLE : OFFER_ON_DEMAND;
	/* Catalogue prices are per GPU-hour; an offer is the whole pod. */
	o->price_hour = per_gpu * count;
	o->valid |= OV_PRICE;
	snprintf(o->location, sizeof(o->location), "%s cloud", secure ? "Secure" : "Community");
	if (bj_str(lp, "countryCode", cc, sizeof(cc)) && strlen(cc) == 2) {
		strlcpy_(o->region, bk_region_of_cc(cc), sizeof(o->region));
		snprintf(o->location, sizeof(o->location), "%s cloud, %s",
		    secure ? "Secure" : "Community", cc);
	}
	{
		const struct bj_figure figures[] = {
			{ "minVcpu", 100000, &o->cpu_cores, OV_CPU },
			{ "minMemory", 1000000, &o->ram_gb, OV_RAM },
			{ "minDownload", 1000000, &o->net_down_mbps, OV_NET },
		};

		bj_figures(lp, figures, ARRAY_LEN(figures), &o->valid);
	}
	if (bj_int(lp, "maxUnreservedGpuCount", &maxc) && maxc >= 0 && maxc < 100000) {
		o->available = (int)(maxc / count);
		if (o->available == 0)
			o->available = 1;	/* in stock by stockStatus */
	} else
		o->available = 1;
	o->valid |= OV_AVAILABLE;
}

/* One element of data.gpuTypes: an offer per alias s<N> and c<N> (lowestPrice for N GPUs
   on the secure and the community cloud) in stock. */
static void
map_gpu_type(const cJSON *gt, const void *want_spot, struct offer_list *out)
{
	const cJSON *m;

	if (!cJSON_IsObject(gt))
		return;
	for (m = gt->child; m != NULL; m = m->next) {
		const char *k = m->string;
		long long n;

		if (k == NULL || (k[0] != 's' && k[0] != 'c') || !cJSON_IsObject(m) ||
		    !parse_int(k + 1, 1, 64, &n))
			continue;
		runpod_offer_add(out, gt, m, k[0] == 's', (int)n, false);
		if (*(const bool *)want_spot)
			runpod_offer_add(out, gt, m, k[0] == 's', (int)n, true);
	}
}

static enum gr_err error_of(long status, const cJSON *j, const char *body, size_t len,
    struct gr_error *err);

static enum gr_err
gpu_types_end(enum jscan_end end, const cJSON *skeleton, long status, struct gr_error *err)
{
	enum gr_err e;

	if (end == JSCAN_EMPTY || end == JSCAN_MALFORMED)
		e = gr_fail(err, GR_EUNAVAIL, "malformed reply (not JSON)");
	else if ((e = error_of(status, skeleton, NULL, 0, err)) == GR_OK && end == JSCAN_NO_ARRAY)
		e = gr_fail(err, GR_EUNAVAIL, "malformed reply (no gpuTypes)");
	return e;
}

static const char *const gpu_types_path[] = { "data", "gpuTypes", NULL };

const struct offer_stream_kind runpod_offer_kind = {
	gpu_types_path, false, NULL, map_gpu_type, gpu_types_end, P, NULL,
};

enum gr_err
runpod_parse_gpu_types(const char *body, size_t len, bool want_spot, struct offer_list *out,
    struct gr_error *err)
{
	return offer_stream_parse(&runpod_offer_kind, &want_spot, body, len, out, err);
}

static const struct bj_state pod_states[] = {
	{ "CREATED", ST_PROVISIONING }, { "RESTARTING", ST_STARTING }, { "EXITED", ST_STOPPED },
	{ "PAUSED", ST_STOPPED }, { "TERMINATED", ST_DESTROYED }, { "DEAD", ST_FAILED },
};

/* A pod asked to run is running once it has a runtime. */
static enum inst_state
pod_state(const char *desired, bool has_runtime)
{
	if (desired != NULL && strcmp(desired, "RUNNING") == 0)
		return has_runtime ? ST_RUNNING : ST_PROVISIONING;
	return bj_state_of(pod_states, ARRAY_LEN(pod_states), desired);
}

/*
 * A time as RunPod writes it (runpod.md, Time): ISO 8601 ("2024-07-12T19:14:40.144Z"), Go's
 * default ("2026-10-04 11:09:24.633 +0000 UTC") or a string of Unix seconds; false for
 * anything else.
 */
bool
runpod_pod_time(const cJSON *pod, const char *key, int64_t *out)
{
	const char *s = bj_strp(pod, key);
	char iso[64];
	long long v;
	int64_t t;
	size_t n;

	if (s == NULL || (n = strlen(s)) >= sizeof(iso))
		return false;
	if (parse_int(s, 1, 253402300799LL, &v)) {
		*out = (int64_t)v;
		return true;
	}
	memcpy(iso, s, n + 1);
	/* Go's " +0000 UTC": the offset as ISO writes it (+00:00), the zone's name dropped. */
	if (n > 4 && strcmp(iso + n - 4, " UTC") == 0)
		iso[n -= 4] = '\0';
	if (n > 6 && iso[n - 6] == ' ' && (iso[n - 5] == '+' || iso[n - 5] == '-') &&
	    isdigit((unsigned char)iso[n - 4]) && isdigit((unsigned char)iso[n - 3]) &&
	    isdigit((unsigned char)iso[n - 2]) && isdigit((unsigned char)iso[n - 1])) {
		char off[7] = { iso[n - 5], iso[n - 4], iso[n - 3], ':', iso[n - 2], iso[n - 1],
			'\0' };

		memcpy(iso + n - 6, off, sizeof(off));
	}
	/* A date, never one of parse_when's durations back from now. */
	if (n < 10 || iso[4] != '-' || !parse_when(iso, 0, &t) || t <= 0)
		return false;
	*out = t;
	return true;
}

bool
runpod_dc_country(const char *dc, char cc[3])
{
	/* "EU-RO-1": the middle part is the country. */
	const char *dash = strchr(dc, '-');

	if (dash == NULL || strlen(dash + 1) < 2 || (dash[3] != '-' && dash[3] != '\0'))
		return false;
	cc[0] = dash[1];
	cc[1] = dash[2];
	cc[2] = '\0';
	return true;
}

void
runpod_region_of_dc(const cJSON *o, char *region, size_t n)
{
	char dc[32], cc[3] = "";

	if (!bj_str(o, "dataCenterId", dc, sizeof(dc)) || dc[0] == '\0')
		return;
	snprintf(region, n, "%s", runpod_dc_country(dc, cc) && bk_region_of_cc(cc)[0] != '\0' ?
	    bk_region_of_cc(cc) : dc);
}

void
runpod_gpus_util(const cJSON *gpus, const char *key, struct instance *out)
{
	const cJSON *g;
	double sum = 0, u;
	int cnt = 0;

	cJSON_ArrayForEach(g, (cJSON_IsArray(gpus) ? gpus : NULL)) {
		if (bj_num(g, key, &u) && u >= 0 && u <= 100) {
			sum += u;
			cnt++;
		}
	}
	if (cnt > 0) {
		out->util_pct = (int)lround(sum / cnt);
		out->valid |= IV_UTIL;
	}
}

int64_t
runpod_stopped_storage_hour(long long gb)
{
	return money_scale(RUNPOD_VOLUME_STOPPED_GB_MONTH, gb, 730);
}

int64_t
runpod_running_disk_hour(long long gb)
{
	return money_scale(RUNPOD_DISK_RUNNING_GB_MONTH, gb, 730);
}

void
runpod_pod_identity(const cJSON *pod, struct instance *out)
{
	char id[ID_MAX - 8];

	strlcpy_(out->provider, P, sizeof(out->provider));
	if (bj_str(pod, "id", id, sizeof(id)) && id[0] != '\0')
		snprintf(out->id, sizeof(out->id), "runpod:%s", id);
	bj_str(pod, "name", out->label, sizeof(out->label));
}

void
runpod_pod_from_json(const cJSON *pod, struct instance *out)
{
	const cJSON *rt, *m, *ports, *p, *gpus;
	char tid[96];
	const char *pt;
	long long n, v;
	int64_t price;
	bool pub;

	runpod_pod_identity(pod, out);
	if (!bj_str(pod, "imageName", out->image, sizeof(out->image)))
		bj_str(pod, "image", out->image, sizeof(out->image));
	rt = cJSON_GetObjectItemCaseSensitive(pod, "runtime");
	if (!cJSON_IsObject(rt))
		rt = NULL;
	out->state = pod_state(bj_strp(pod, "desiredStatus"), rt != NULL);
	pt = bj_strp(pod, "podType");
	out->type = pt != NULL && (strcmp(pt, "INTERRUPTABLE") == 0 || strcmp(pt, "BID") == 0) ?
	    OFFER_INTERRUPTIBLE : OFFER_ON_DEMAND;
	if (bj_money_at(pod, "costPerHr", &price)) {
		out->price_hour = price;
		out->valid |= IV_PRICE;
		if (out->type == OFFER_INTERRUPTIBLE)
			out->bid_hour = price;
	}
	if (bj_int(pod, "gpuCount", &n) && n > 0 && n < 1024)
		out->gpu_count = (int)n;
	if (bj_int(pod, "containerDiskInGb", &v) && v >= 0 && v < 1000000)
		out->disk_gb = (int)v;
	if (bj_int(pod, "volumeInGb", &v) && v >= 0 && v < 1000000) {
		out->disk_gb += (int)v;
		out->storage_hour = runpod_stopped_storage_hour(v);
		out->valid |= IV_STORAGE;
	}
	m = cJSON_GetObjectItemCaseSensitive(pod, "machine");
	if (cJSON_IsObject(m)) {
		if (bj_str(m, "gpuTypeId", tid, sizeof(tid))) {
			strlcpy_(out->gpu_raw, tid, sizeof(out->gpu_raw));
			/* The type id names the variant already; no VRAM needed. */
			out->gpu = catalogue_resolve(P, bj_strp(m, "gpuTypeId"), 0);
		}
		runpod_region_of_dc(m, out->region, sizeof(out->region));
	}
	if (out->gpu_raw[0] == '\0' && bj_str(pod, "gpuTypeId", tid, sizeof(tid))) {
		strlcpy_(out->gpu_raw, tid, sizeof(out->gpu_raw));
		out->gpu = catalogue_resolve(P, bj_strp(pod, "gpuTypeId"), 0);
	}
	if (rt != NULL) {
		ports = cJSON_GetObjectItemCaseSensitive(rt, "ports");
		cJSON_ArrayForEach(p, (cJSON_IsArray(ports) ? ports : NULL)) {
			if (bj_int(p, "privatePort", &v) && v == 22 && bj_bool(p, "isIpPublic", &pub) &&
			    pub && bj_int(p, "publicPort", &n) && n > 0 && n < 65536 &&
			    bj_str(p, "ip", out->ssh_host, sizeof(out->ssh_host)) &&
			    out->ssh_host[0] != '\0') {
				out->ssh_port = (int)n;
				strlcpy_(out->ssh_user, "root", sizeof(out->ssh_user));
				out->valid |= IV_SSH;
				break;
			}
		}
		gpus = cJSON_GetObjectItemCaseSensitive(rt, "gpus");
		runpod_gpus_util(gpus, "gpuUtilPercent", out);
	}
	/* When the container last started (the run a host key belongs to), else its uptime. */
	if (out->state == ST_RUNNING && !runpod_pod_time(pod, "lastStartedAt", &out->state_since))
		bj_started_from_uptime(rt, "uptimeInSeconds", 1, (int64_t)time(NULL),
		    &out->state_since);
	if (!(out->valid & IV_SSH) && cJSON_IsObject(m) && out->state == ST_RUNNING) {
		char host[64];

		/* The proxy needs no public port: podHostId@ssh.runpod.io. */
		if (bj_str(m, "podHostId", host, sizeof(host)) && host[0] != '\0') {
			strlcpy_(out->ssh_user, host, sizeof(out->ssh_user));
			strlcpy_(out->ssh_host, "ssh.runpod.io", sizeof(out->ssh_host));
			out->ssh_port = 22;
			out->valid |= IV_SSH;
		}
	}
	bj_str(pod, "lastStatusChange", out->status_msg, sizeof(out->status_msg));
	out->disk_running_hour = runpod_running_disk_hour(out->disk_gb);
}

enum gr_err
runpod_parse_pods(const char *body, size_t len, struct instance_list *out, struct gr_error *err)
{
	cJSON *j, *d, *me, *pods;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	d = gql_data(j);
	me = d != NULL ? cJSON_GetObjectItemCaseSensitive(d, "myself") : NULL;
	pods = cJSON_IsObject(me) ? cJSON_GetObjectItemCaseSensitive(me, "pods") : NULL;
	return bj_instances_read(j, pods, runpod_pod_from_json, N_("malformed reply (no pods)"), out,
	    err);
}

enum gr_err
runpod_parse_mutation(const char *body, size_t len, const char *fieldname,
    struct instance *out, struct gr_error *err)
{
	cJSON *j, *d, *p = NULL;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	d = gql_data(j);
	if (d != NULL)
		p = fieldname != NULL ? cJSON_GetObjectItemCaseSensitive(d, fieldname) : d->child;
	if (p == NULL || cJSON_IsNull(p)) {
		cJSON_Delete(j);
		return gr_fail(err, GR_ENOTFOUND, "no such pod");
	}
	return bj_instance_read(j, p, runpod_pod_from_json, N_("malformed reply (pod)"),
	    N_("malformed reply (pod without id)"), out, err);
}

enum gr_err
runpod_parse_pod(const char *body, size_t len, struct instance *out, struct gr_error *err)
{
	return runpod_parse_mutation(body, len, "pod", out, err);
}

enum gr_err
runpod_parse_myself(const char *body, size_t len, struct account *out, struct gr_error *err)
{
	cJSON *j, *d, *me;
	enum gr_err e;
	double v;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	d = gql_data(j);
	me = d != NULL ? cJSON_GetObjectItemCaseSensitive(d, "myself") : NULL;
	if (!cJSON_IsObject(me)) {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "malformed reply (no myself)");
	}
	memset(out, 0, sizeof(*out));
	/* The balance may be negative; bj_money refuses that, so read it signed here. */
	if (bj_num(me, "clientBalance", &v) && fabs(v) < 1e8) {
		out->balance = (int64_t)llround(v * 1e6);
		out->valid |= AV_BALANCE;
	}
	if (bj_money_at(me, "currentSpendPerHr", &out->spend_hour))
		out->valid |= AV_SPEND;
	cJSON_Delete(j);
	return GR_OK;
}

enum gr_err
runpod_parse_metrics(const char *body, size_t len, const char *id, struct sample_list *out,
    struct gr_error *err)
{
	cJSON *j, *d, *pod;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	d = gql_data(j);
	pod = d != NULL ? cJSON_GetObjectItemCaseSensitive(d, "pod") : NULL;
	if (pod == NULL || cJSON_IsNull(pod)) {
		cJSON_Delete(j);
		return gr_fail(err, GR_ENOTFOUND, "no pod '%s'", id);
	}
	runpod_runtime_samples(cJSON_GetObjectItemCaseSensitive(pod, "runtime"), "gpuUtilPercent",
	    id, out);
	cJSON_Delete(j);
	return GR_OK;
}

bool
runpod_runtime_samples(const cJSON *rt, const char *util_key, const char *id,
    struct sample_list *out)
{
	const cJSON *gpus = cJSON_IsObject(rt) ? cJSON_GetObjectItemCaseSensitive(rt, "gpus") :
	    NULL, *g;
	struct gpu_sample *s;
	bool carried = false;
	int idx = 0;
	double v;

	cJSON_ArrayForEach(g, (cJSON_IsArray(gpus) ? gpus : NULL)) {
		if (!cJSON_IsObject(g))
			continue;
		s = sample_list_add(out);
		strlcpy_(s->instance_id, id, sizeof(s->instance_id));
		s->index = idx++;
		if (bj_num(g, util_key, &v) && v >= 0 && v <= 100) {
			s->util_pct = (int)lround(v);
			s->valid |= MV_UTIL;
			carried = true;
		}
		/* The memory figure is a share; without the card's size it is not MiB. */
	}
	return carried;
}

enum gr_err
runpod_parse_error(long status, const char *body, size_t len, struct gr_error *err)
{
	return bj_error(status, body, len, error_of, err);
}

/* runpod_parse_error on a parsed reply (NULL: not JSON; body, if any, for a snippet). */
static enum gr_err
error_of(long status, const cJSON *j, const char *body, size_t len, struct gr_error *err)
{
	static const char *const keys[] = { "error", "message", "detail", NULL };
	const cJSON *errs, *e0, *path, *pe;
	char msg[300] = "";
	const char *m;
	bool terminate = false;

	if (status == 401)
		goto auth;
	if (!cJSON_IsObject(j)) {
		if (status >= 200 && status < 300)
			return gr_fail(err, GR_EUNAVAIL, "malformed reply (not JSON)");
		if (body != NULL && len > 0)
			http_body_snippet(msg, sizeof(msg), body, len);
		if (status == 403)
			return gr_fail(err, GR_EAUTH, "access refused%s%s (HTTP 403)",
			    msg[0] ? ": " : "", msg);
		return http_fail_status(err, P, status, msg[0] ? msg : NULL);
	}
	errs = cJSON_GetObjectItemCaseSensitive(j, "errors");
	e0 = cJSON_IsArray(errs) ? cJSON_GetArrayItem(errs, 0) : NULL;
	if (bj_strp(j, "title") != NULL && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j,
	    "status"))) {
		/* REST v2's problem+json: the detail, and the first field it names. */
		char d[160] = "", f[40] = "", fm[80] = "", raw[sizeof(msg)];

		if (!bj_str(j, "detail", d, sizeof(d)) || d[0] == '\0')
			bj_str(j, "title", d, sizeof(d));
		if (bj_str(e0, "field", f, sizeof(f)) && bj_str(e0, "message", fm, sizeof(fm)))
			snprintf(raw, sizeof(raw), "%s (%s: %s)", d, f, fm);
		else
			snprintf(raw, sizeof(raw), "%s", d);
		text_sanitize(msg, sizeof(msg), raw);
		e0 = NULL;
	} else if (e0 != NULL) {
		if ((m = bj_strp(e0, "message")) != NULL)
			text_sanitize(msg, sizeof(msg), m);
		path = cJSON_GetObjectItemCaseSensitive(e0, "path");
		cJSON_ArrayForEach(pe, (cJSON_IsArray(path) ? path : NULL))
			if (cJSON_IsString(pe) && strcmp(pe->valuestring, "podTerminate") == 0)
				terminate = true;
	} else if ((m = bj_first_str(j, keys)) != NULL)
		text_sanitize(msg, sizeof(msg), m);
	if (e0 == NULL && status >= 200 && status < 300)
		return GR_OK;
	if (strcmp(msg, "Unauthorized") == 0 || status == 403)
		goto auth;
	if (strstr(msg, "no longer any instances") != NULL ||
	    strstr(msg, "not enough free GPUs") != NULL ||
	    strstr(msg, "no instances currently available") != NULL)
		return gr_fail(err, GR_ECAPACITY, "%s", msg);
	if (strstr(msg, "Spot pods are no longer offered") != NULL)
		return gr_fail(err, GR_EUNSUPPORTED, "%s", msg);
	if (strstr(msg, "balance") != NULL || strstr(msg, "insufficient funds") != NULL)
		return gr_fail(err, GR_EFUNDS, "%s", msg);
	if (terminate || strstr(msg, "not found") != NULL || strstr(msg, "does not exist") != NULL)
		return gr_fail(err, GR_ENOTFOUND, "%s", msg[0] ? msg : _("no such pod"));
	if (status >= 200 && status < 300)
		return gr_fail(err, GR_EFAIL, "%s", msg[0] ? msg : _("request failed"));
	return http_fail_status(err, P, status, msg[0] ? msg : NULL);
auth:
	return gr_fail(err, GR_EAUTH, "API key rejected%s%s (HTTP %ld)",
	    msg[0] ? ": " : "", msg, status);
}

enum gr_err
runpod_parse_billing(const char *body, size_t len, struct charge_list *out,
    struct gr_error *err)
{
	cJSON *j, *recs, *b;
	size_t n0 = out->n;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	/* v2 wraps its records as {"records": [...]}; v1 answered the bare list. */
	recs = cJSON_IsObject(j) ? cJSON_GetObjectItemCaseSensitive(j, "records") : j;
	if (!cJSON_IsArray(recs)) {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "%s: malformed billing reply (not a list)", P);
	}
	cJSON_ArrayForEach(b, recs) {
		struct charge *c = charge_list_add(out);
		const char *pod = bj_strp(b, "podId");
		int64_t start;
		size_t i;
		/* A pod id is letters and digits (providers/runpod.md §3), whole, never cut. */
		bool ok = pod != NULL && pod[0] != '\0' && strlen(pod) < 32 &&
		    runpod_pod_time(b, "startTime", &start) && bj_money_at(b, "totalAmount", &c->amount);

		for (i = 0; ok && pod[i] != '\0'; i++)
			ok = isalnum((unsigned char)pod[i]);
		if (!ok) {
			out->n = n0;
			cJSON_Delete(j);
			return gr_fail(err, GR_EUNAVAIL, "%s: malformed billing bucket (podId, "
			    "startTime or totalAmount)", P);
		}
		snprintf(c->instance_id, sizeof(c->instance_id), "runpod:%s", pod);
		c->day = start - start % 86400;
		if (!bj_money_at(b, "diskAmount", &c->storage))
			c->storage = -1;
		strlcpy_(c->currency, "USD", sizeof(c->currency));
	}
	cJSON_Delete(j);
	return GR_OK;
}
