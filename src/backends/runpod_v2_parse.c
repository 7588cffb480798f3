/*
 * runpod_v2_parse.c - RunPod REST v2 replies onto the common model (../shared/providers/
 * runpod.md §9): pods with their `status`, `cost` and `ssh` block, the list wrapped as
 * {"pods": [...]}, the catalogue of GPU types with prices per GPU-hour and availability per
 * data centre. Errors (problem+json) are read by runpod_parse_error.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backends_parse.h"
#include "gpurent/catalogue.h"
#include "gpurent/i18n.h"
#include "gpurent/util.h"

#include "backends_int.h"

static const char P[] = "runpod";

static const struct bj_state v2_states[] = {
	{ "PROVISIONING", ST_PROVISIONING }, { "STARTING", ST_STARTING },
	{ "RUNNING", ST_RUNNING }, { "EXITED", ST_STOPPED }, { "ERROR", ST_FAILED },
	{ "TERMINATED", ST_DESTROYED },
};

/* ssh.direct (host, port, username), else the proxy: each only while the pod runs. */
static void
pod_ssh(const cJSON *pod, struct instance *out)
{
	static const char *const ways[] = { "direct", "proxy" };
	const cJSON *ssh = cJSON_GetObjectItemCaseSensitive(pod, "ssh"), *e;
	long long port;
	size_t i;

	if (out->state != ST_RUNNING || !cJSON_IsObject(ssh))
		return;
	for (i = 0; i < ARRAY_LEN(ways); i++) {
		e = cJSON_GetObjectItemCaseSensitive(ssh, ways[i]);
		if (!cJSON_IsObject(e) || !bj_int(e, "port", &port) || port <= 0 || port >= 65536 ||
		    !bj_str(e, "host", out->ssh_host, sizeof(out->ssh_host)) ||
		    out->ssh_host[0] == '\0' ||
		    !bj_str(e, "username", out->ssh_user, sizeof(out->ssh_user)) ||
		    out->ssh_user[0] == '\0')
			continue;
		out->ssh_port = (int)port;
		out->valid |= IV_SSH;
		return;
	}
	out->ssh_host[0] = out->ssh_user[0] = '\0';
}

void
runpod_v2_pod_from_json(const cJSON *pod, struct instance *out)
{
	const cJSON *g, *rt, *gpus, *x;
	char tid[96];
	long long n, v;
	int64_t cost;
	bool spot;

	runpod_pod_identity(pod, out);
	bj_str(pod, "image", out->image, sizeof(out->image));
	out->state = bj_state_of(v2_states, ARRAY_LEN(v2_states), bj_strp(pod, "status"));
	/* v2 creates none, but lists a pod rented with a bid through GraphQL as v1 did. */
	out->type = bj_bool(pod, "interruptible", &spot) && spot ? OFFER_INTERRUPTIBLE :
	    OFFER_ON_DEMAND;
	/* cost is 0 when the pod does not run (§9): then it says nothing of its rate. */
	if (bj_money_at(pod, "cost", &cost) && (cost > 0 || out->state == ST_RUNNING)) {
		out->price_hour = cost;
		out->valid |= IV_PRICE;
		if (out->type == OFFER_INTERRUPTIBLE)
			out->bid_hour = cost;
	}
	g = cJSON_GetObjectItemCaseSensitive(pod, "gpu");
	if (bj_str(g, "id", tid, sizeof(tid)) && tid[0] != '\0') {
		strlcpy_(out->gpu_raw, tid, sizeof(out->gpu_raw));
		out->gpu = catalogue_resolve(P, bj_strp(g, "id"), 0);
	}
	if (bj_int(g, "count", &n) && n > 0 && n < 1024)
		out->gpu_count = (int)n;
	if (bj_int(pod, "disk", &v) && v >= 0 && v < 1000000)
		out->disk_gb = (int)v;
	/* The pod volume (mounts.persistent, as created): what a stopped pod bills. */
	x = cJSON_GetObjectItemCaseSensitive(pod, "mounts");
	x = cJSON_IsObject(x) ? cJSON_GetObjectItemCaseSensitive(x, "persistent") : NULL;
	if (cJSON_IsNull(x) || (bj_int(x, "size", &v) && v >= 0 && v < 1000000)) {
		v = cJSON_IsNull(x) ? 0 : v;
		out->disk_gb += (int)v;
		out->storage_hour = runpod_stopped_storage_hour(v);
		out->valid |= IV_STORAGE;
	}
	runpod_region_of_dc(pod, out->region, sizeof(out->region));
	rt = cJSON_GetObjectItemCaseSensitive(pod, "runtime");
	gpus = cJSON_IsObject(rt) ? cJSON_GetObjectItemCaseSensitive(rt, "gpus") : NULL;
	runpod_gpus_util(gpus, "util", out);
	pod_ssh(pod, out);
	bj_str(pod, "lastStatusChange", out->status_msg, sizeof(out->status_msg));
	if (out->state == ST_RUNNING && !runpod_pod_time(pod, "startedAt", &out->state_since))
		bj_started_from_uptime(cJSON_IsObject(rt) ? rt : NULL, "uptime", 1, bk_now(),
		    &out->state_since);
	out->disk_running_hour = runpod_running_disk_hour(out->disk_gb);
}

enum gr_err
runpod_v2_parse_pods(const char *body, size_t len, struct instance_list *out,
    struct gr_error *err)
{
	cJSON *j, *pods;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	pods = cJSON_GetObjectItemCaseSensitive(j, "pods");
	return bj_instances_read(j, pods, runpod_v2_pod_from_json, N_("malformed reply (no pods)"),
	    out, err);
}

enum gr_err
runpod_v2_parse_pod(const char *body, size_t len, struct instance *out, struct gr_error *err)
{
	cJSON *j;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	return bj_instance_read(j, j, runpod_v2_pod_from_json, N_("malformed reply (pod)"),
	    N_("malformed reply (pod without id)"), out, err);
}

enum gr_err
runpod_v2_parse_metrics(const char *body, size_t len, const char *id, struct sample_list *out,
    bool *carried, struct gr_error *err)
{
	cJSON *j, *rt;
	enum gr_err e;

	*carried = false;
	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	if (!cJSON_IsObject(j) || bj_strp(j, "id") == NULL) {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "malformed reply (pod)");
	}
	rt = cJSON_GetObjectItemCaseSensitive(j, "runtime");
	/* A pod that does not run has no runtime: no samples, and nothing GraphQL would add. */
	*carried = runpod_runtime_samples(rt, "util", id, out) || !cJSON_IsObject(rt);
	cJSON_Delete(j);
	return GR_OK;
}

/* What one GPU type offers on one cloud: the counts free on some machine, the first data
   centre that has them. */
struct cloud_stock {
	unsigned counts;	/* bit n-1: n GPUs (n <= 32) */
	char cc[3];
};

static void
stock_of(const cJSON *gpu, bool secure, struct cloud_stock *st)
{
	const cJSON *av = cJSON_GetObjectItemCaseSensitive(gpu, "availability"), *a, *c;
	const char *cloud, *level, *dc;
	long long n;

	memset(st, 0, sizeof(*st));
	cJSON_ArrayForEach(a, (cJSON_IsArray(av) ? av : NULL)) {
		cloud = bj_strp(a, "cloud");
		level = bj_strp(a, "status");
		if (cloud == NULL || strcmp(cloud, secure ? "SECURE" : "COMMUNITY") != 0 ||
		    level == NULL || strcmp(level, "NONE") == 0)
			continue;
		if (st->cc[0] == '\0' && (dc = bj_strp(a, "dataCenterId")) != NULL)
			runpod_dc_country(dc, st->cc);
		c = cJSON_GetObjectItemCaseSensitive(a, "gpuCounts");
		cJSON_ArrayForEach(c, (cJSON_IsArray(c) ? c : NULL))
			if (cJSON_IsNumber(c) && c->valuedouble >= 1 && c->valuedouble <= 32 &&
			    (n = (long long)c->valuedouble) == c->valuedouble)
				st->counts |= 1u << (n - 1);
	}
}

/*
 * One catalogue entry: an offer per cloud with a price and per count some data centre has
 * free, each as GraphQL's lowestPrice would give it (runpod_offer_add: the price per GPU-hour
 * times the count, the country of the first data centre with stock).
 */
static void
map_catalog_gpu(const cJSON *gpu, struct offer_list *out)
{
	static const char *const clouds[] = { "community", "secure" };
	const cJSON *price = cJSON_GetObjectItemCaseSensitive(gpu, "price");
	struct cloud_stock st;
	int64_t per;
	cJSON *lp;
	int sec, n;

	if (!cJSON_IsObject(gpu) || !cJSON_IsObject(price))
		return;
	for (sec = 0; sec < 2; sec++) {
		if (!bj_money_at(price, clouds[sec], &per) || per <= 0)
			continue;
		stock_of(gpu, sec == 1, &st);
		for (n = 1; n <= 32; n++) {
			if (!(st.counts & (1u << (n - 1))))
				continue;
			lp = cJSON_CreateObject();
			cJSON_AddStringToObject(lp, "stockStatus", "High");
			cJSON_AddNumberToObject(lp, "uninterruptablePrice", (double)per / 1e6);
			if (st.cc[0] != '\0')
				cJSON_AddStringToObject(lp, "countryCode", st.cc);
			runpod_offer_add(out, gpu, lp, sec == 1, n, false);
			cJSON_Delete(lp);
		}
	}
}

enum gr_err
runpod_v2_parse_catalog(const char *body, size_t len, struct offer_list *out,
    struct gr_error *err)
{
	cJSON *j, *gpus, *g;
	enum gr_err e;

	if ((e = bj_parse(P, body, len, &j, err)) != GR_OK)
		return e;
	gpus = cJSON_GetObjectItemCaseSensitive(j, "gpus");
	if (!cJSON_IsArray(gpus)) {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "malformed reply (no gpus)");
	}
	cJSON_ArrayForEach(g, gpus)
		map_catalog_gpu(g, out);
	cJSON_Delete(j);
	return GR_OK;
}
