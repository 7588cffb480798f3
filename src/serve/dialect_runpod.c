/*
 * dialect_runpod.c - the simulated world as RunPod's GraphQL API (providers/runpod.md):
 * gpuTypes with lowestPrice per cloud and GPU count, podFindAndDeployOnDemand,
 * podRentInterruptable, myself { pods } , pod, podStop, podResume, podTerminate, myself.
 *
 * There is no general GraphQL engine here: the operation is recognised by its root field and
 * arguments come from `variables` (or a literal podId), which is how gpurent, runpodctl and
 * runpod-python send them. Every pod field the clients ask for is returned.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "gpurent/sim.h"
#include "gpurent/util.h"

#include "../backends/backends_parse.h"
#include "serve_int.h"


/* {"errors": [{message, path, extensions}], "data": {field: null}} with HTTP 200. */
static void
gql_error(struct serve_reply *rp, int status, const char *field, const char *msg,
    const char *code)
{
	cJSON *j = cJSON_CreateObject(), *errs, *e, *d;

	errs = cJSON_AddArrayToObject(j, "errors");
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "message", msg);
	if (field != NULL)
		cJSON_AddItemToArray(cJSON_AddArrayToObject(e, "path"), cJSON_CreateString(field));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(e, "extensions"), "code", code);
	cJSON_AddItemToArray(errs, e);
	d = cJSON_AddObjectToObject(j, "data");
	if (field != NULL)
		cJSON_AddNullToObject(d, field);
	serve_reply_json(rp, status, j);
}

void
runpod_serve_pod_id(const char *sim_id, char *out, size_t n)
{
	snprintf(out, n, "sp%012lld", serve_sim_num(sim_id));
}

static bool
sim_id_of_pod(const char *pod, char *out, size_t n)
{
	long long v;

	if (pod == NULL || strncmp(pod, "sp", 2) != 0 || !parse_int(pod + 2, 0, INT64_MAX / 4, &v))
		return false;
	snprintf(out, n, "sim:i-%06lld", v);
	return true;
}

const char *
runpod_serve_data_center(const struct instance *in)
{
	return strncmp(in->region, "eu", 2) == 0 ? "EU-RO-1" :
	    strncmp(in->region, "as", 2) == 0 ? "AP-JP-1" : "US-TX-3";
}

/* RunPod machine ids are 12 lowercase letters and digits. */
static const char *
machine_id_of(const struct instance *in, char *out, size_t n)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	uint64_t h = hash_str(in->offer_id);
	size_t i;

	for (i = 0; i + 1 < n && i < 12; i++, h /= 36)
		out[i] = digits[h % 36];
	out[i] = '\0';
	return out;
}

const char *
runpod_serve_time(int64_t t, char *out, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return out;
}

/* What a machine object says of the host, the same on GraphQL and REST. */
static void
machine_fields(const struct instance *in, cJSON *m)
{
	double per_gpu = (double)in->price_hour / 1e6 / (in->gpu_count > 0 ? in->gpu_count : 1);

	cJSON_AddStringToObject(m, "location", strncmp(in->region, "eu", 2) == 0 ? "RO" :
	    strncmp(in->region, "as", 2) == 0 ? "JP" : "US");
	cJSON_AddBoolToObject(m, "secureCloud", true);
	cJSON_AddBoolToObject(m, "supportPublicIp", true);
	cJSON_AddNumberToObject(m, "costPerHr", (double)in->price_hour / 1e6);
	cJSON_AddNumberToObject(m, "currentPricePerGpu", per_gpu);
	cJSON_AddNumberToObject(m, "maxDownloadSpeedMbps", 5000);
	cJSON_AddNumberToObject(m, "maxUploadSpeedMbps", 2000);
	cJSON_AddNumberToObject(m, "diskMBps", 3000);
	cJSON_AddNumberToObject(m, "cpuCount", 16 * in->gpu_count);
	cJSON_AddNumberToObject(m, "minPodGpuCount", 1);
	cJSON_AddNumberToObject(m, "gpuAvailable", 0);
	cJSON_AddNullToObject(m, "maintenanceStart");
	cJSON_AddNullToObject(m, "maintenanceEnd");
	cJSON_AddNullToObject(m, "maintenanceNote");
	cJSON_AddNullToObject(m, "note");
}

/* GraphQL: gpuUtilPercent, memoryUtilPercent, each with its GPU's UUID as id; v2: util,
   memoryUtil. */
cJSON *
runpod_serve_gpus(struct serve_ctx *c, const struct instance *in, const char *util_key,
    const char *mem_key, bool with_id)
{
	cJSON *gpus = cJSON_CreateArray(), *g;
	struct sample_list sl;
	struct gr_error err = { 0 };
	size_t i;

	sample_list_init(&sl);
	if (sim_metrics(c->sim, in->id, &sl, &err) == GR_OK) {
		for (i = 0; i < sl.n; i++) {
			char gid[48];

			g = cJSON_CreateObject();
			snprintf(gid, sizeof(gid), "GPU-%08llx-%zu",
			    (unsigned long long)(hash_str(in->id) & 0xffffffffu), i);
			if (with_id)
				cJSON_AddStringToObject(g, "id", gid);
			if (sl.v[i].valid & MV_UTIL)
				cJSON_AddNumberToObject(g, util_key, sl.v[i].util_pct);
			if ((sl.v[i].valid & MV_MEM) && sl.v[i].mem_total_mib > 0)
				cJSON_AddNumberToObject(g, mem_key,
				    100 * sl.v[i].mem_used_mib / sl.v[i].mem_total_mib);
			cJSON_AddItemToArray(gpus, g);
		}
	}
	sample_list_release(&sl);
	return gpus;
}

cJSON *
runpod_serve_ports(const struct instance *in)
{
	cJSON *ports = cJSON_CreateArray(), *p;

	if (in->valid & IV_SSH) {
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "ip", in->ssh_host);
		cJSON_AddTrueToObject(p, "isIpPublic");
		cJSON_AddNumberToObject(p, "privatePort", 22);
		cJSON_AddNumberToObject(p, "publicPort", in->ssh_port);
		cJSON_AddStringToObject(p, "type", "tcp");
		cJSON_AddItemToArray(ports, p);
	}
	return ports;
}

void
runpod_serve_host_id(const struct instance *in, char *out, size_t n)
{
	char pid[32];

	runpod_serve_pod_id(in->id, pid, sizeof(pid));
	snprintf(out, n, "%s-%08llx", pid, (unsigned long long)(hash_str(in->id) & 0xffffffffu));
}

static cJSON *
pod_json(struct serve_ctx *c, const struct instance *in)
{
	cJSON *j = cJSON_CreateObject(), *m, *rt, *gpus, *g;
	const char *tid = runpod_gpu_id_of(in->gpu), *desired;
	char pid[32], host[48], mid[16], when[32];
	size_t i;

	runpod_serve_pod_id(in->id, pid, sizeof(pid));
	cJSON_AddStringToObject(j, "id", pid);
	cJSON_AddStringToObject(j, "name", in->label);
	cJSON_AddStringToObject(j, "imageName", in->image);
	switch (in->state) {
	case ST_STOPPING:
	case ST_STOPPED:
		desired = "EXITED";
		break;
	case ST_DESTROYING:
	case ST_DESTROYED:
		desired = "TERMINATED";
		break;
	case ST_FAILED:
		desired = "DEAD";
		break;
	default:
		desired = "RUNNING";
		break;
	}
	cJSON_AddStringToObject(j, "desiredStatus", desired);
	cJSON_AddStringToObject(j, "podType", in->type == OFFER_INTERRUPTIBLE ? "INTERRUPTABLE" :
	    "RESERVED");
	cJSON_AddNumberToObject(j, "costPerHr", (double)in->price_hour / 1e6);
	cJSON_AddNumberToObject(j, "adjustedCostPerHr", (double)in->price_hour / 1e6);
	cJSON_AddNumberToObject(j, "gpuCount", in->gpu_count);
	/* The simulated pod's one disk outlives a stop: its volume, billed stopped (§3). */
	cJSON_AddNumberToObject(j, "containerDiskInGb", 0);
	cJSON_AddNumberToObject(j, "volumeInGb", in->disk_gb);
	cJSON_AddStringToObject(j, "volumeMountPath", "/workspace");
	cJSON_AddNumberToObject(j, "vcpuCount", 8 * in->gpu_count);
	cJSON_AddNumberToObject(j, "memoryInGb", 62 * in->gpu_count);
	cJSON_AddStringToObject(j, "ports", "22/tcp");
	cJSON_AddStringToObject(j, "dockerArgs", "");
	cJSON_AddStringToObject(j, "dockerId", "");
	cJSON_AddStringToObject(j, "machineId", machine_id_of(in, mid, sizeof(mid)));
	cJSON_AddStringToObject(j, "lastStatusChange", in->status_msg);
	cJSON_AddStringToObject(j, "lastStartedAt", runpod_serve_time(in->state_since > 0 ?
	    in->state_since : in->created_at, when, sizeof(when)));
	cJSON_AddBoolToObject(j, "locked", false);
	cJSON_AddStringToObject(j, "templateId", "");
	cJSON_AddNullToObject(j, "networkVolumeId");
	cJSON_AddNumberToObject(j, "version", 0);
	if (in->type == OFFER_INTERRUPTIBLE)
		cJSON_AddNumberToObject(j, "lowestBidPriceToResume",
		    (double)in->bid_hour / 1e6 / (in->gpu_count > 0 ? in->gpu_count : 1));
	else
		cJSON_AddNullToObject(j, "lowestBidPriceToResume");
	cJSON_AddArrayToObject(j, "env");
	gpus = cJSON_AddArrayToObject(j, "gpus");
	for (i = 0; i < (size_t)in->gpu_count && i < 64; i++) {
		g = cJSON_CreateObject();
		cJSON_AddStringToObject(g, "id", pid);
		cJSON_AddStringToObject(g, "podId", pid);
		cJSON_AddItemToArray(gpus, g);
	}
	m = cJSON_AddObjectToObject(j, "machine");
	runpod_serve_host_id(in, host, sizeof(host));
	cJSON_AddStringToObject(m, "podHostId", host);
	cJSON_AddStringToObject(m, "gpuTypeId", tid != NULL ? tid : in->gpu_raw);
	cJSON_AddStringToObject(m, "gpuDisplayName", in->gpu != NULL ? in->gpu->name : in->gpu_raw);
	cJSON_AddStringToObject(m, "dataCenterId", runpod_serve_data_center(in));
	machine_fields(in, m);
	if (in->state != ST_RUNNING) {
		cJSON_AddNullToObject(j, "runtime");
		cJSON_AddNullToObject(j, "uptimeSeconds");
		return j;
	}
	rt = cJSON_AddObjectToObject(j, "runtime");
	cJSON_AddNumberToObject(rt, "uptimeInSeconds", 60);
	cJSON_AddNumberToObject(j, "uptimeSeconds", 60);
	cJSON_AddItemToObject(rt, "ports", runpod_serve_ports(in));
	cJSON_AddItemToObject(rt, "gpus", runpod_serve_gpus(c, in, "gpuUtilPercent",
	    "memoryUtilPercent", true));
	cJSON_AddObjectToObject(rt, "container");
	return j;
}

/* The stock word for a number of matching machines. */
static const char *
stock_word(int n)
{
	return n >= 5 ? "High" : n >= 2 ? "Medium" : n >= 1 ? "Low" : NULL;
}

/* "s8: lowestPrice(input: {gpuCount: 8, secureCloud: true})" aliases in the query text. */
struct alias {
	char name[16];
	int count;
	int secure;	/* 1 secure, 0 community, -1 both */
};

static size_t
scan_aliases(const char *q, struct alias *out, size_t max)
{
	const char *p = q, *lp, *a;
	size_t n = 0, len;

	while (n < max && (lp = strstr(p, "lowestPrice")) != NULL) {
		struct alias *al = &out[n];
		const char *gc, *sc, *end;

		/* The alias is the word before ':' just ahead of lowestPrice. */
		a = lp;
		while (a > q && isspace((unsigned char)a[-1]))
			a--;
		al->name[0] = '\0';
		if (a > q && a[-1] == ':') {
			const char *e = a - 1, *s;

			while (e > q && isspace((unsigned char)e[-1]))
				e--;
			s = e;
			while (s > q && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
				s--;
			len = (size_t)(e - s);
			if (len > 0 && len < sizeof(al->name)) {
				memcpy(al->name, s, len);
				al->name[len] = '\0';
			}
		}
		if (al->name[0] == '\0')
			strlcpy_(al->name, "lowestPrice", sizeof(al->name));
		end = strchr(lp, ')');
		gc = strstr(lp, "gpuCount:");
		al->count = gc != NULL && (end == NULL || gc < end) ? atoi(gc + 9) : 1;
		if (al->count <= 0)
			al->count = 1;
		sc = strstr(lp, "secureCloud:");
		al->secure = -1;
		if (sc != NULL && (end == NULL || sc < end)) {
			sc += 12;
			while (isspace((unsigned char)*sc))
				sc++;
			al->secure = strncmp(sc, "true", 4) == 0 ? 1 : strncmp(sc, "false", 5) == 0 ?
			    0 : -1;
		}
		n++;
		p = lp + 11;
	}
	return n;
}

static void
gpu_types(struct serve_ctx *c, const char *q, const cJSON *vars, struct serve_reply *rp)
{
	struct offer_list all;
	struct gr_error err = { 0 };
	struct alias al[32];
	size_t na = scan_aliases(q, al, ARRAY_LEN(al)), i, k, a;
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(vars, "ids");
	cJSON *res, *arr, *gt, *lp;
	const char *seen[64];
	size_t nseen = 0;

	offer_list_init(&all);
	if (sim_offers(c->sim, &all, &err) != GR_OK) {
		offer_list_release(&all);
		gql_error(rp, 200, "gpuTypes", err.msg, "INTERNAL_SERVER_ERROR");
		return;
	}
	res = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(cJSON_AddObjectToObject(res, "data"), "gpuTypes");
	for (i = 0; i < all.n; i++) {
		const char *tid = runpod_gpu_id_of(all.v[i].gpu);
		bool dup = false, want = !cJSON_IsArray(ids);
		const cJSON *x;

		if (tid == NULL)
			continue;
		for (k = 0; k < nseen; k++)
			if (strcmp(seen[k], tid) == 0)
				dup = true;
		cJSON_ArrayForEach(x, (cJSON_IsArray(ids) ? ids : NULL))
			if (cJSON_IsString(x) && strcmp(x->valuestring, tid) == 0)
				want = true;
		if (dup || !want || nseen == ARRAY_LEN(seen))
			continue;
		seen[nseen++] = tid;
		gt = cJSON_CreateObject();
		cJSON_AddStringToObject(gt, "id", tid);
		cJSON_AddStringToObject(gt, "displayName", all.v[i].gpu->name);
		cJSON_AddNumberToObject(gt, "memoryInGb", all.v[i].gpu->vram_gb);
		cJSON_AddTrueToObject(gt, "secureCloud");
		cJSON_AddTrueToObject(gt, "communityCloud");
		for (a = 0; a < na; a++) {
			int64_t best = -1, bid = -1;
			int count = 0, cpu = 0, ram = 0, net = 0, free_gpus = 0;
			char cc[3] = "";

			for (k = 0; k < all.n; k++) {
				const struct offer *o = &all.v[k];
				bool sec = o->reliability_bp >= RUNPOD_SECURE_BP;
				int64_t per;

				if (o->gpu != all.v[i].gpu || o->gpu_count != al[a].count ||
				    o->available <= 0 || (al[a].secure >= 0 && sec != (al[a].secure == 1)))
					continue;
				per = o->price_hour / o->gpu_count;
				if (o->type == OFFER_INTERRUPTIBLE) {
					if (bid < 0 || per < bid)
						bid = per;
					continue;
				}
				count++;
				free_gpus += o->available * o->gpu_count;
				if (best < 0 || per < best) {
					const char *comma = strrchr(o->location, ',');

					best = per;
					cpu = o->cpu_cores;
					ram = o->ram_gb;
					net = o->net_down_mbps;
					if (comma != NULL && strlen(comma) == 4) {
						cc[0] = comma[2];
						cc[1] = comma[3];
						cc[2] = '\0';
					}
				}
			}
			lp = cJSON_AddObjectToObject(gt, al[a].name);
			if (best >= 0)
				cJSON_AddNumberToObject(lp, "uninterruptablePrice", (double)best / 1e6);
			else
				cJSON_AddNullToObject(lp, "uninterruptablePrice");
			cJSON_AddNumberToObject(lp, "minimumBidPrice", bid >= 0 ? (double)bid / 1e6 : 0);
			if (stock_word(count) != NULL)
				cJSON_AddStringToObject(lp, "stockStatus", stock_word(count));
			else
				cJSON_AddNullToObject(lp, "stockStatus");
			cJSON_AddNumberToObject(lp, "maxUnreservedGpuCount", free_gpus);
			cJSON_AddNumberToObject(lp, "minVcpu", cpu);
			cJSON_AddNumberToObject(lp, "minMemory", ram);
			cJSON_AddNumberToObject(lp, "minDownload", net);
			if (cc[0] != '\0')
				cJSON_AddStringToObject(lp, "countryCode", cc);
		}
		cJSON_AddItemToArray(arr, gt);
	}
	offer_list_release(&all);
	serve_reply_json(rp, 200, res);
}

/* Why a launch failed, in RunPod's words; NULL when it did not. */
static const char *const no_capacity = "There are no longer any instances available with the "
    "requested specifications. Please refresh and try again.";

/* GraphQL's PodFindAndDeployOnDemandInput and REST v1's PodCreateInput use the same names
   for what the simulator uses; v2 translates its body to them. */
enum gr_err
runpod_serve_launch(struct serve_ctx *c, const cJSON *in, const char *tid, bool spot,
    double bidpg, struct instance *inst, const char **why)
{
	const char *cloud = bj_strp(in, "cloudType");
	const cJSON *env, *kv;
	struct offer_list all;
	struct launch_req req;
	struct gr_error err = { 0 };
	const struct offer *best = NULL;
	char **envv = NULL;
	long long count = 1;
	size_t i, ne = 0;
	double d;
	enum gr_err code;

	*why = NULL;
	bj_int(in, "gpuCount", &count);
	offer_list_init(&all);
	if (sim_offers(c->sim, &all, &err) != GR_OK) {
		offer_list_release(&all);
		*why = "Something went wrong. Please try again later or contact support.";
		return GR_EFAIL;
	}
	for (i = 0; i < all.n; i++) {
		const struct offer *o = &all.v[i];
		const char *t = runpod_gpu_id_of(o->gpu);
		bool sec = o->reliability_bp >= RUNPOD_SECURE_BP;

		if (t == NULL || strcmp(t, tid) != 0 || o->gpu_count != count || o->available <= 0 ||
		    (o->type == OFFER_INTERRUPTIBLE) != spot)
			continue;
		if (cloud != NULL && strcmp(cloud, "ALL") != 0 && sec != (strcmp(cloud, "SECURE") == 0))
			continue;
		if (spot && (int64_t)llround(bidpg * 1e6) * count < o->price_hour)
			continue;
		if (best == NULL || o->price_hour < best->price_hour)
			best = o;
	}
	if (best == NULL) {
		offer_list_release(&all);
		*why = no_capacity;
		return GR_ECAPACITY;
	}
	memset(&req, 0, sizeof(req));
	req.offer_id = best->id;
	req.label = bj_strp(in, "name");
	req.image = bj_strp(in, "imageName");
	/* Both disks become the simulated pod's one, shown as its volume. */
	if (bj_num(in, "containerDiskInGb", &d) && d > 0 && d < 1e6)
		req.disk_gb = (int)d;
	if (bj_num(in, "volumeInGb", &d) && d > 0 && d < 1e6 - req.disk_gb)
		req.disk_gb += (int)d;
	req.onstart = bj_strp(in, "dockerArgs");
	if (spot) {
		req.interruptible = true;
		req.bid_hour = llround(bidpg * 1e6) * count;
	}
	/* GraphQL: [{key, value}]; REST: {"KEY": "value"}. */
	env = cJSON_GetObjectItemCaseSensitive(in, "env");
	if (cJSON_IsArray(env) || cJSON_IsObject(env)) {
		envv = xcalloc((size_t)cJSON_GetArraySize(env) + 1, sizeof(*envv));
		cJSON_ArrayForEach(kv, env) {
			if (cJSON_IsArray(env) && bj_strp(kv, "key") != NULL &&
			    bj_strp(kv, "value") != NULL)
				envv[ne++] = xasprintf("%s=%s", bj_strp(kv, "key"),
				    bj_strp(kv, "value"));
			else if (cJSON_IsObject(env) && cJSON_IsString(kv))
				envv[ne++] = xasprintf("%s=%s", kv->string, kv->valuestring);
		}
		req.env = (const char *const *)envv;
	}
	/* RunPod words a rented-away offer and a full one alike. */
	code = serve_launch_fault(c) != SLF_NONE ? GR_ECAPACITY :
	    sim_launch(c->sim, &req, inst, &err);
	for (i = 0; i < ne; i++)
		free(envv[i]);
	free(envv);
	offer_list_release(&all);
	if (code == GR_OK) {
		char pod[32], key[64];

		runpod_serve_pod_id(inst->id, pod, sizeof(pod));
		serve_instance_env(pod, "RUNPOD_POD_ID", "RUNPOD_API_KEY", key, sizeof(key));
	}
	if (code == GR_ECAPACITY)
		*why = no_capacity;
	else if (code == GR_EFUNDS)
		*why = "Your balance is too low to deploy this pod.";
	else if (code != GR_OK)
		*why = "Something went wrong. Please try again later or contact support.";
	return code;
}

static void
deploy(struct serve_ctx *c, const cJSON *vars, bool spot, struct serve_reply *rp)
{
	const char *field = spot ? "podRentInterruptable" : "podFindAndDeployOnDemand";
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(vars, "input");
	const char *tid = bj_strp(in, "gpuTypeId"), *why;
	struct instance inst;
	double bidpg = 0;
	enum gr_err code;
	cJSON *res;

	if (!cJSON_IsObject(in) || tid == NULL) {
		gql_error(rp, 400, NULL, "Variable \"$input\" got invalid value; gpuTypeId required",
		    "BAD_USER_INPUT");
		return;
	}
	if (spot && (!bj_num(in, "bidPerGpu", &bidpg) || bidpg <= 0)) {
		gql_error(rp, 400, NULL, "Variable \"$input\" got invalid value; bidPerGpu required",
		    "BAD_USER_INPUT");
		return;
	}
	code = runpod_serve_launch(c, in, tid, spot, bidpg, &inst, &why);
	if (code != GR_OK) {
		gql_error(rp, 200, field, why, code == GR_EFUNDS ? "BAD_USER_INPUT" :
		    "INTERNAL_SERVER_ERROR");
		return;
	}
	rp->acted = true;
	res = cJSON_CreateObject();
	cJSON_AddItemToObject(cJSON_AddObjectToObject(res, "data"), field, pod_json(c, &inst));
	serve_reply_json(rp, 200, res);
}

/* The podId argument: variables first, else a literal podId: "..." in the query. */
static bool
pod_arg(const char *q, const cJSON *vars, char *out, size_t n)
{
	const char *v = bj_strp(vars, "podId"), *p, *e;
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(vars, "input");

	if (v == NULL && in != NULL)
		v = bj_strp(in, "podId");
	if (v != NULL) {
		strlcpy_(out, v, n);
		return true;
	}
	p = strstr(q, "podId:");
	if (p == NULL || (p = strchr(p, '"')) == NULL || (e = strchr(p + 1, '"')) == NULL ||
	    (size_t)(e - p - 1) >= n)
		return false;
	memcpy(out, p + 1, (size_t)(e - p - 1));
	out[e - p - 1] = '\0';
	return true;
}

bool
runpod_serve_get(struct serve_ctx *c, const char *pod, struct instance *out)
{
	char sid[ID_MAX];
	struct gr_error err = { 0 };

	return sim_id_of_pod(pod, sid, sizeof(sid)) && sim_get(c->sim, sid, out, &err) == GR_OK &&
	    out->state != ST_DESTROYED && out->state != ST_DESTROYING;
}

static void
mutate(struct serve_ctx *c, const char *field, const char *pod, struct serve_reply *rp)
{
	struct instance in;
	struct gr_error err = { 0 };
	enum gr_err code;
	cJSON *res, *d;

	if (!runpod_serve_get(c, pod, &in)) {
		gql_error(rp, 200, field, "pod not found", "NOT_FOUND");
		return;
	}
	if (strcmp(field, "podStop") == 0)
		code = serve_stop(c, in.id, &err);
	else if (strcmp(field, "podResume") == 0)
		code = sim_start(c->sim, in.id, &err);
	else
		code = sim_destroy(c->sim, in.id, &err);
	if (code == GR_ECAPACITY) {
		gql_error(rp, 200, field, "There are not enough free GPUs on the host machine to "
		    "start this pod.", "INTERNAL_SERVER_ERROR");
		return;
	}
	if (code != GR_OK) {
		gql_error(rp, 200, field, err.msg, "BAD_USER_INPUT");
		return;
	}
	rp->acted = true;
	res = cJSON_CreateObject();
	d = cJSON_AddObjectToObject(res, "data");
	if (strcmp(field, "podTerminate") == 0)
		cJSON_AddNullToObject(d, field);
	else {
		sim_get(c->sim, in.id, &in, &err);
		cJSON_AddItemToObject(d, field, pod_json(c, &in));
	}
	serve_reply_json(rp, 200, res);
}

/* REST v1's error body, as observed from the live service: {"error": text, "status": code}. */
static void
rest_fail(struct serve_reply *rp, int status, const char *msg)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "error", msg);
	cJSON_AddNumberToObject(j, "status", status);
	serve_reply_json(rp, status, j);
}

/*
 * A pod in REST v1's shape (providers/runpod.md §4.1): the spec's names (`image`, `gpu`
 * {id, count, ...}) and runpodctl's (`imageName`, `gpuTypeId`, `gpuCount`, `uptimeSeconds`)
 * both, `ports` as a list, `env` as an object, `portMappings` and `publicIp` empty until up.
 */
static cJSON *
rest_pod_json(const struct instance *in, bool with_machine)
{
	cJSON *j = cJSON_CreateObject(), *g, *pm, *m;
	const char *tid = runpod_gpu_id_of(in->gpu), *desired;
	double per_gpu = (double)in->price_hour / 1e6 / (in->gpu_count > 0 ? in->gpu_count : 1);
	bool up = in->state == ST_RUNNING && (in->valid & IV_SSH);
	char pid[32], mid[16], when[32], port[16];

	runpod_serve_pod_id(in->id, pid, sizeof(pid));
	desired = in->state == ST_STOPPING || in->state == ST_STOPPED ? "EXITED" :
	    in->state == ST_DESTROYING || in->state == ST_DESTROYED ? "TERMINATED" : "RUNNING";
	cJSON_AddStringToObject(j, "id", pid);
	cJSON_AddStringToObject(j, "name", in->label);
	cJSON_AddStringToObject(j, "image", in->image);
	cJSON_AddStringToObject(j, "imageName", in->image);
	cJSON_AddStringToObject(j, "desiredStatus", desired);
	cJSON_AddNumberToObject(j, "costPerHr", (double)in->price_hour / 1e6);
	cJSON_AddNumberToObject(j, "adjustedCostPerHr", (double)in->price_hour / 1e6);
	cJSON_AddBoolToObject(j, "interruptible", in->type == OFFER_INTERRUPTIBLE);
	cJSON_AddBoolToObject(j, "locked", false);
	g = cJSON_AddObjectToObject(j, "gpu");
	cJSON_AddStringToObject(g, "id", tid != NULL ? tid : in->gpu_raw);
	cJSON_AddNumberToObject(g, "count", in->gpu_count);
	cJSON_AddStringToObject(g, "displayName", in->gpu != NULL ? in->gpu->name : in->gpu_raw);
	cJSON_AddNumberToObject(g, "securePrice", per_gpu);
	cJSON_AddNumberToObject(g, "communityPrice", per_gpu);
	cJSON_AddNumberToObject(g, "secureSpotPrice", per_gpu / 2);
	cJSON_AddNumberToObject(g, "communitySpotPrice", per_gpu / 2);
	cJSON_AddStringToObject(j, "gpuTypeId", tid != NULL ? tid : in->gpu_raw);
	cJSON_AddNumberToObject(j, "gpuCount", in->gpu_count);
	cJSON_AddStringToObject(j, "machineId", machine_id_of(in, mid, sizeof(mid)));
	cJSON_AddNumberToObject(j, "memoryInGb", 62 * in->gpu_count);
	cJSON_AddNumberToObject(j, "vcpuCount", 8 * in->gpu_count);
	/* The simulated pod's one disk outlives a stop: its volume, billed stopped (§3). */
	cJSON_AddNumberToObject(j, "containerDiskInGb", 0);
	cJSON_AddNumberToObject(j, "volumeInGb", in->disk_gb);
	cJSON_AddStringToObject(j, "volumeMountPath", "/workspace");
	cJSON_AddBoolToObject(j, "volumeEncrypted", false);
	cJSON_AddNullToObject(j, "networkVolumeId");
	cJSON_AddStringToObject(j, "templateId", "");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(j, "ports"), cJSON_CreateString("22/tcp"));
	cJSON_AddObjectToObject(j, "env");
	cJSON_AddArrayToObject(j, "dockerEntrypoint");
	cJSON_AddArrayToObject(j, "dockerStartCmd");
	cJSON_AddStringToObject(j, "publicIp", up ? in->ssh_host : "");
	pm = cJSON_AddObjectToObject(j, "portMappings");
	if (up) {
		snprintf(port, sizeof(port), "%d", 22);
		cJSON_AddNumberToObject(pm, port, in->ssh_port);
	}
	cJSON_AddStringToObject(j, "createdAt", runpod_serve_time(in->created_at, when,
	    sizeof(when)));
	cJSON_AddStringToObject(j, "lastStartedAt", runpod_serve_time(in->state_since > 0 ?
	    in->state_since : in->created_at, when, sizeof(when)));
	cJSON_AddStringToObject(j, "lastStatusChange", in->status_msg);
	if (in->state == ST_RUNNING)
		cJSON_AddNumberToObject(j, "uptimeSeconds", 60);
	else
		cJSON_AddNumberToObject(j, "uptimeSeconds", 0);
	cJSON_AddStringToObject(j, "consumerUserId", "user_simulatedSimulatedSimulatedSi");
	cJSON_AddNullToObject(j, "containerRegistryAuthId");
	cJSON_AddNullToObject(j, "cpuFlavorId");
	if (with_machine) {
		m = cJSON_AddObjectToObject(j, "machine");
		cJSON_AddStringToObject(m, "gpuTypeId", tid != NULL ? tid : in->gpu_raw);
		cJSON_AddStringToObject(m, "gpuDisplayName", in->gpu != NULL ? in->gpu->name :
		    in->gpu_raw);
		cJSON_AddStringToObject(m, "dataCenterId", runpod_serve_data_center(in));
		machine_fields(in, m);
	}
	return j;
}

bool
runpod_serve_pod_path(const char *path, const char *prefix, char *pod, size_t pn, char *sub,
    size_t sn)
{
	const char *p, *slash;
	size_t n;

	if (strncmp(path, prefix, strlen(prefix)) != 0)
		return false;
	p = path + strlen(prefix);
	slash = strchr(p, '/');
	n = slash != NULL ? (size_t)(slash - p) : strlen(p);
	if (n == 0 || n >= pn || (slash != NULL && (strlen(slash + 1) >= sn ||
	    strchr(slash + 1, '/') != NULL)))
		return false;
	memcpy(pod, p, n);
	pod[n] = '\0';
	strlcpy_(sub, slash != NULL ? slash + 1 : "", sn);
	return true;
}

/* REST v1 create: tries each of gpuTypeIds in order, as gpuTypePriority "custom" does. */
static void
rest_create(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	cJSON *b = cJSON_ParseWithLength(rq->body, rq->len);
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(b, "gpuTypeIds"), *t;
	const char *why = no_capacity;
	struct instance inst;
	enum gr_err code = GR_ECAPACITY;
	char msg[200];

	if (!cJSON_IsObject(b) || !cJSON_IsArray(ids) || cJSON_GetArraySize(ids) == 0) {
		cJSON_Delete(b);
		rest_fail(rp, 400, "create pod: gpuTypeIds: at least one GPU type is required");
		return;
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "interruptible"))) {
		cJSON_Delete(b);
		rest_fail(rp, 500, "create pod: Spot pods are no longer offered");
		return;
	}
	cJSON_ArrayForEach(t, ids) {
		if (!cJSON_IsString(t))
			continue;
		code = runpod_serve_launch(c, b, t->valuestring, false, 0, &inst, &why);
		if (code != GR_ECAPACITY)
			break;
	}
	cJSON_Delete(b);
	if (code != GR_OK) {
		snprintf(msg, sizeof(msg), "create pod: %s", code == GR_ECAPACITY ?
		    "There are no instances currently available" : why);
		rest_fail(rp, code == GR_EFUNDS ? 400 : 500, msg);
		return;
	}
	rp->acted = true;
	serve_reply_json(rp, 201, rest_pod_json(&inst, false));
}

/* REST v1 (providers/runpod.md §4.1): the pod calls runpodctl makes. */
static void
rest_v1(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *m = rq->method, *inc = serve_query(rq, "includeMachine");
	bool machine = inc != NULL && strcmp(inc, "true") == 0;
	struct gr_error err = { 0 };
	struct instance in;
	char pod[64], act[16];
	enum gr_err code;

	if (!rq->auth_ok || (c->api_key != NULL && rq->auth[0] == '\0')) {
		rest_fail(rp, 401, "Invalid API key");
		return;
	}
	if (strcmp(rq->path, "/v1/pods") == 0) {
		if (strcmp(m, "POST") == 0)
			rest_create(c, rq, rp);
		else if (strcmp(m, "GET") == 0) {
			const char *want = serve_query(rq, "desiredStatus");
			const char *name = serve_query(rq, "name");
			struct instance_list l;
			cJSON *arr = cJSON_CreateArray();
			size_t i;

			instance_list_init(&l);
			if (sim_instances(c->sim, false, &l, &err) == GR_OK) {
				for (i = 0; i < l.n; i++) {
					cJSON *p;
					const char *st;

					if (l.v[i].state == ST_DESTROYED ||
					    l.v[i].state == ST_DESTROYING)
						continue;
					if (name != NULL && strcmp(name, l.v[i].label) != 0)
						continue;
					p = rest_pod_json(&l.v[i], machine);
					st = bj_strp(p, "desiredStatus");
					if (want != NULL && (st == NULL || strcmp(st, want) != 0))
						cJSON_Delete(p);
					else
						cJSON_AddItemToArray(arr, p);
				}
			}
			instance_list_release(&l);
			serve_reply_json(rp, 200, arr);
		} else
			rest_fail(rp, 405, "method not allowed");
		return;
	}
	if (!runpod_serve_pod_path(rq->path, "/v1/pods/", pod, sizeof(pod), act, sizeof(act))) {
		rest_fail(rp, 404, "not found");
		return;
	}
	if (!runpod_serve_get(c, pod, &in)) {
		rest_fail(rp, 404, "pod not found");
		return;
	}
	if (act[0] == '\0' && strcmp(m, "GET") == 0) {
		serve_reply_json(rp, 200, rest_pod_json(&in, machine));
		return;
	}
	if (act[0] == '\0' && strcmp(m, "DELETE") == 0) {
		if (sim_destroy(c->sim, in.id, &err) != GR_OK) {
			rest_fail(rp, 500, err.msg);
			return;
		}
		rp->acted = true;
		rp->status = 204;
		rp->ctype = "text/plain";
		sb_reset(&rp->body);
		return;
	}
	if (strcmp(m, "POST") != 0 || (strcmp(act, "stop") != 0 && strcmp(act, "start") != 0)) {
		rest_fail(rp, 404, "not found");
		return;
	}
	code = strcmp(act, "stop") == 0 ? serve_stop(c, in.id, &err) :
	    sim_start(c->sim, in.id, &err);
	if (code == GR_ECAPACITY) {
		rest_fail(rp, 500, "There are not enough free GPUs on the host machine to start "
		    "this pod.");
		return;
	}
	if (code != GR_OK) {
		rest_fail(rp, 400, err.msg);
		return;
	}
	rp->acted = true;
	sim_get(c->sim, in.id, &in, &err);
	serve_reply_json(rp, 200, rest_pod_json(&in, false));
}

/* Whether a GraphQL body asks only for the public catalogue (gpuTypes), nothing of a user. */
static bool
public_query(const struct serve_req *rq)
{
	cJSON *b = cJSON_ParseWithLength(rq->body, rq->len);
	const char *q = bj_strp(b, "query");
	bool pub = q != NULL && strstr(q, "gpuTypes") != NULL && strstr(q, "myself") == NULL &&
	    strstr(q, "mutation") == NULL && strstr(q, "pod") == NULL;

	cJSON_Delete(b);
	return pub;
}

/* Whether a request made with pod own's own key (RUNPOD_API_KEY) asks of that pod alone:
 * reads it or stops it (REST or GraphQL). */
bool
runpod_graphql_own_pod_only(const struct serve_req *rq, const char *own)
{
	cJSON *b, *vars;
	const char *q;
	char pod[64], act[16];
	bool ok;

	if (strncmp(rq->path, "/v1/pods/", 9) == 0)
		return runpod_serve_pod_path(rq->path, "/v1/pods/", pod, sizeof(pod), act,
		    sizeof(act)) &&
		    strcmp(pod, own) == 0 && ((act[0] == '\0' && strcmp(rq->method, "GET") == 0) ||
		    (strcmp(act, "stop") == 0 && strcmp(rq->method, "POST") == 0));
	if (strcmp(rq->path, "/graphql") != 0 || strcmp(rq->method, "POST") != 0)
		return false;
	b = cJSON_ParseWithLength(rq->body, rq->len);
	q = bj_strp(b, "query");
	vars = cJSON_GetObjectItemCaseSensitive(b, "variables");
	ok = q != NULL && pod_arg(q, vars, pod, sizeof(pod)) && strcmp(pod, own) == 0 &&
	    strstr(q, "podResume") == NULL && strstr(q, "podTerminate") == NULL &&
	    strstr(q, "myself") == NULL && strstr(q, "podFindAndDeploy") == NULL &&
	    strstr(q, "podRent") == NULL;
	cJSON_Delete(b);
	return ok;
}

void
runpod_graphql(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	cJSON *b, *vars, *res, *d, *me, *pods;
	const char *q;
	char pod[64];

	if (strncmp(rq->path, "/v1/", 4) == 0) {
		rest_v1(c, rq, rp);
		return;
	}
	if (strcmp(rq->path, "/graphql") != 0) {
		rp->status = 404;
		rp->ctype = "text/plain";
		sb_adds(&rp->body, "404 page not found\n");
		return;
	}
	/* gpuTypes answers without a key (providers/runpod.md §2); a wrong key is refused. */
	if (!rq->auth_ok && !(rq->auth[0] == '\0' && public_query(rq))) {
		rp->status = 401;
		sb_adds(&rp->body, "{\"errors\":[{\"message\":\"Unauthorized\"}]}");
		return;
	}
	if (strcmp(rq->method, "POST") != 0) {
		gql_error(rp, 400, NULL, "GET query missing.", "BAD_REQUEST");
		return;
	}
	b = cJSON_ParseWithLength(rq->body, rq->len);
	q = bj_strp(b, "query");
	if (q == NULL) {
		cJSON_Delete(b);
		gql_error(rp, 400, NULL, "POST body missing, invalid Content-Type, or JSON object "
		    "has no keys.", "BAD_REQUEST");
		return;
	}
	vars = cJSON_GetObjectItemCaseSensitive(b, "variables");
	if (strstr(q, "podFindAndDeployOnDemand") != NULL)
		deploy(c, vars, false, rp);
	else if (strstr(q, "podRentInterruptable") != NULL)
		deploy(c, vars, true, rp);
	else if (strstr(q, "podStop") != NULL || strstr(q, "podResume") != NULL ||
	    strstr(q, "podTerminate") != NULL) {
		const char *f = strstr(q, "podStop") ? "podStop" : strstr(q, "podResume") ?
		    "podResume" : "podTerminate";

		if (!pod_arg(q, vars, pod, sizeof(pod)))
			gql_error(rp, 400, NULL, "podId required", "BAD_USER_INPUT");
		else
			mutate(c, f, pod, rp);
	} else if (strstr(q, "gpuTypes") != NULL)
		gpu_types(c, q, vars, rp);
	else if (strstr(q, "myself") != NULL) {
		struct gr_error err = { 0 };

		res = cJSON_CreateObject();
		me = cJSON_AddObjectToObject(cJSON_AddObjectToObject(res, "data"), "myself");
		cJSON_AddStringToObject(me, "id", "user_simulatedSimulatedSimulatedSi");
		if (strstr(q, "pods") != NULL) {
			struct instance_list l;
			size_t i;

			pods = cJSON_AddArrayToObject(me, "pods");
			instance_list_init(&l);
			if (sim_instances(c->sim, false, &l, &err) == GR_OK)
				for (i = 0; i < l.n; i++)
					if (l.v[i].state != ST_DESTROYED &&
					    l.v[i].state != ST_DESTROYING)
						cJSON_AddItemToArray(pods, pod_json(c, &l.v[i]));
			instance_list_release(&l);
		}
		if (strstr(q, "clientBalance") != NULL || strstr(q, "currentSpendPerHr") != NULL) {
			struct account a;

			if (sim_account(c->sim, &a, &err) == GR_OK) {
				cJSON_AddNumberToObject(me, "clientBalance", (double)a.balance / 1e6);
				cJSON_AddNumberToObject(me, "currentSpendPerHr",
				    (double)a.spend_hour / 1e6);
				cJSON_AddNumberToObject(me, "spendLimit", 80);
			}
		}
		serve_reply_json(rp, 200, res);
	} else if (strstr(q, "pod") != NULL) {
		struct instance in;

		res = cJSON_CreateObject();
		d = cJSON_AddObjectToObject(res, "data");
		if (pod_arg(q, vars, pod, sizeof(pod)) && runpod_serve_get(c, pod, &in))
			cJSON_AddItemToObject(d, "pod", pod_json(c, &in));
		else
			cJSON_AddNullToObject(d, "pod");
		serve_reply_json(rp, 200, res);
	} else
		gql_error(rp, 400, NULL, "Cannot query this field in the simulator.",
		    "GRAPHQL_VALIDATION_FAILED");
	cJSON_Delete(b);
}
