/*
 * dialect_runpod_v2.c - the simulated world as RunPod's REST v2 (providers/runpod.md §9),
 * and the runpod dialect's entry, which hands every other path to its GraphQL and REST v1
 * (dialect_runpod.c): pods with their `status`, `actions`, `cost` and
 * `ssh` block, one action endpoint for the lifecycle, logs, the catalogue with prices and
 * availability per data centre, billing and the account's ssh keys. Lists come wrapped
 * ({"pods": [...]}), errors as RFC 9457 problem+json, and a failed create is classified by its
 * status: 422 a body that breaks the contract, 400 a rule or no capacity (told apart by
 * `detail`), 402 funds, 5xx the service.
 *
 * Where §9 names a field without its shape (logs, availability, billing records, ssh keys),
 * the shape here is the plainest one that carries what it names; tests/conformance/README.md
 * lists them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpurent/catalogue.h"
#include "gpurent/sim.h"
#include "gpurent/util.h"

#include "../backends/backends_parse.h"
#include "serve_int.h"

#define V2_MAX_COUNT 64

/* RFC 9457: {title, status, detail, errors[]} as application/problem+json. errors may be
   NULL (an empty list). */
static void
problem(struct serve_reply *rp, int status, const char *detail, cJSON *errors)
{
	static const struct {
		int status;
		const char *title;
	} titles[] = {
		{ 400, "Bad Request" }, { 401, "Unauthorized" }, { 402, "Payment Required" },
		{ 403, "Forbidden" }, { 404, "Not Found" }, { 405, "Method Not Allowed" },
		{ 409, "Conflict" }, { 422, "Unprocessable Content" },
		{ 500, "Internal Server Error" },
	};
	cJSON *j = cJSON_CreateObject();
	const char *title = "Error";
	size_t i;

	for (i = 0; i < ARRAY_LEN(titles); i++)
		if (titles[i].status == status)
			title = titles[i].title;
	cJSON_AddStringToObject(j, "title", title);
	cJSON_AddNumberToObject(j, "status", status);
	cJSON_AddStringToObject(j, "detail", detail);
	cJSON_AddItemToObject(j, "errors", errors != NULL ? errors : cJSON_CreateArray());
	serve_reply_json(rp, status, j);
	rp->ctype = "application/problem+json";
}

/* A 422 naming the one field that breaks the contract. */
static void
invalid(struct serve_reply *rp, const char *field, const char *msg)
{
	cJSON *errs = cJSON_CreateArray(), *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "field", field);
	cJSON_AddStringToObject(e, "message", msg);
	cJSON_AddItemToArray(errs, e);
	problem(rp, 422, "the request body does not match the schema", errs);
}

static const char *
status_of(enum inst_state st)
{
	switch (st) {
	case ST_PROVISIONING:
		return "PROVISIONING";
	case ST_STARTING:
		return "STARTING";
	case ST_RUNNING:
		return "RUNNING";
	case ST_STOPPING:
	case ST_STOPPED:
		return "EXITED";
	case ST_FAILED:
		return "ERROR";
	case ST_DESTROYING:
	case ST_DESTROYED:
		return "TERMINATED";
	default:
		return "ERROR";
	}
}

/* The transitions a pod in state st allows (the pod's `actions`), as a space-separated list. */
static const char *
actions_of(enum inst_state st)
{
	switch (st) {
	case ST_PROVISIONING:
	case ST_STARTING:
		return "terminate";	/* the simulator stops only a running machine */
	case ST_RUNNING:
		return "stop restart terminate";
	case ST_STOPPED:
		return "start terminate";
	case ST_STOPPING:
		return "terminate";	/* EXITED, but start waits for the machine to stop */
	case ST_DESTROYING:
	case ST_DESTROYED:
		return "";
	default:
		return "terminate";
	}
}

static bool
allowed(enum inst_state st, const char *action)
{
	const char *p = actions_of(st);
	size_t n = strlen(action);

	for (; *p != '\0'; p += strcspn(p, " "), p += *p == ' ') {
		if (strncmp(p, action, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
			return true;
	}
	return false;
}

static cJSON *
ssh_endpoint(const char *host, int port, const char *user, const char *command)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "host", host);
	cJSON_AddNumberToObject(e, "port", port);
	cJSON_AddStringToObject(e, "username", user);
	cJSON_AddStringToObject(e, "command", command);
	return e;
}

/* A pod in v2's shape. */
static cJSON *
pod_v2(struct serve_ctx *c, const struct instance *in)
{
	cJSON *j = cJSON_CreateObject(), *g, *acts, *ssh, *rt, *mounts, *vol;
	const char *tid = runpod_gpu_id_of(in->gpu), *a;
	bool billing = in->state == ST_PROVISIONING || in->state == ST_STARTING ||
	    in->state == ST_RUNNING;
	char pid[32], host[48], when[32], cmd[160];

	runpod_serve_pod_id(in->id, pid, sizeof(pid));
	cJSON_AddStringToObject(j, "id", pid);
	cJSON_AddStringToObject(j, "name", in->label);
	cJSON_AddStringToObject(j, "image", in->image);
	cJSON_AddStringToObject(j, "status", status_of(in->state));
	acts = cJSON_AddArrayToObject(j, "actions");
	for (a = actions_of(in->state); *a != '\0'; a += strcspn(a, " "), a += *a == ' ') {
		char w[16];
		size_t n = strcspn(a, " ");

		n = n < sizeof(w) - 1 ? n : sizeof(w) - 1;
		memcpy(w, a, n);
		w[n] = '\0';
		cJSON_AddItemToArray(acts, cJSON_CreateString(w));
	}
	/* USD per hour for the whole pod, 0 when it does not run (§9). */
	cJSON_AddNumberToObject(j, "cost", billing ? (double)in->price_hour / 1e6 : 0);
	g = cJSON_AddObjectToObject(j, "gpu");
	cJSON_AddStringToObject(g, "id", tid != NULL ? tid : in->gpu_raw);
	cJSON_AddNumberToObject(g, "count", in->gpu_count);
	cJSON_AddStringToObject(g, "displayName", in->gpu != NULL ? in->gpu->name : in->gpu_raw);
	cJSON_AddStringToObject(j, "cloud", "SECURE");
	cJSON_AddStringToObject(j, "dataCenterId", runpod_serve_data_center(in));
	/* The simulated pod's one disk outlives a stop: its volume, billed stopped (§3). */
	cJSON_AddNumberToObject(j, "disk", 0);
	mounts = cJSON_AddObjectToObject(j, "mounts");
	vol = cJSON_AddObjectToObject(mounts, "persistent");
	cJSON_AddNumberToObject(vol, "size", in->disk_gb);
	cJSON_AddStringToObject(vol, "path", "/workspace");
	cJSON_AddArrayToObject(mounts, "network");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(j, "ports"), cJSON_CreateString("22/tcp"));
	/* Secrets in env would leak into every list; the simulator keeps them to itself. */
	cJSON_AddObjectToObject(j, "env");
	ssh = cJSON_AddObjectToObject(j, "ssh");
	runpod_serve_host_id(in, host, sizeof(host));
	snprintf(cmd, sizeof(cmd), "ssh %s@ssh.runpod.io -i ~/.ssh/id_ed25519", host);
	cJSON_AddItemToObject(ssh, "proxy", ssh_endpoint("ssh.runpod.io", 22, host, cmd));
	if (in->state == ST_RUNNING && (in->valid & IV_SSH)) {
		snprintf(cmd, sizeof(cmd), "ssh root@%s -p %d", in->ssh_host, in->ssh_port);
		cJSON_AddItemToObject(ssh, "direct", ssh_endpoint(in->ssh_host, in->ssh_port, "root",
		    cmd));
	} else
		cJSON_AddNullToObject(ssh, "direct");
	/* Not in §9's list, but in v1's pod: whether it is interruptible (one rented with a bid
	   through GraphQL is listed here too) and the provider's words on its last change (an
	   outbid or a failed host says why). */
	cJSON_AddBoolToObject(j, "interruptible", in->type == OFFER_INTERRUPTIBLE);
	cJSON_AddStringToObject(j, "lastStatusChange", in->status_msg);
	cJSON_AddStringToObject(j, "createdAt", runpod_serve_time(in->created_at, when,
	    sizeof(when)));
	if (in->state == ST_RUNNING)
		cJSON_AddStringToObject(j, "startedAt", runpod_serve_time(in->state_since > 0 ?
		    in->state_since : in->created_at, when, sizeof(when)));
	else
		cJSON_AddNullToObject(j, "startedAt");
	if (in->state != ST_RUNNING) {
		cJSON_AddNullToObject(j, "runtime");
		return j;
	}
	rt = cJSON_AddObjectToObject(j, "runtime");
	cJSON_AddNumberToObject(rt, "uptime", 60);
	cJSON_AddItemToObject(rt, "gpus", runpod_serve_gpus(c, in, "util", "memoryUtil", false));
	cJSON_AddNumberToObject(rt, "cpu", 12);
	cJSON_AddNumberToObject(rt, "memory", 30);
	cJSON_AddItemToObject(rt, "ports", runpod_serve_ports(in));
	return j;
}

/* Whether a v2 request made with pod own's own key (RUNPOD_API_KEY) asks of that pod alone:
   reads it or stops it. */
static bool
v2_own_pod_only(const struct serve_req *rq, const char *own)
{
	char pod[64], sub[16];
	cJSON *b;
	bool ok;

	if (!runpod_serve_pod_path(rq->path, "/v2/pods/", pod, sizeof(pod), sub,
	    sizeof(sub)) || strcmp(pod, own) != 0)
		return false;
	if (sub[0] == '\0')
		return strcmp(rq->method, "GET") == 0;
	if (strcmp(sub, "action") != 0 || strcmp(rq->method, "POST") != 0)
		return false;
	b = cJSON_ParseWithLength(rq->body, rq->len);
	ok = bj_strp(b, "action") != NULL && strcmp(bj_strp(b, "action"), "stop") == 0;
	cJSON_Delete(b);
	return ok;
}

/*
 * POST /v2/pods: the nested body (§9) checked against the contract, then translated to the
 * names runpod_serve_launch reads. One GPU type per call, no fallback to another.
 */
static void
create(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	cJSON *b = cJSON_ParseWithLength(rq->body, rq->len), *in, *x;
	const cJSON *gpu, *env, *kv;
	const char *tid, *cloud = "SECURE", *why;
	struct instance inst;
	long long count = 1, disk;
	enum gr_err code;
	char detail[200];

	if (!cJSON_IsObject(b)) {
		cJSON_Delete(b);
		invalid(rp, "", "the body is not a JSON object");
		return;
	}
	gpu = cJSON_GetObjectItemCaseSensitive(b, "gpu");
	if (cJSON_GetObjectItemCaseSensitive(b, "interruptible") != NULL)
		invalid(rp, "interruptible", "unknown field: v2 has no interruptible pods");
	else if (bj_strp(b, "name") == NULL)
		invalid(rp, "name", "required, a string");
	else if (bj_strp(b, "image") == NULL)
		invalid(rp, "image", "required, a string");
	else if (!cJSON_IsObject(gpu) || (tid = bj_strp(gpu, "id")) == NULL || tid[0] == '\0')
		invalid(rp, "gpu.id", "required, a GPU type id");
	else if ((x = cJSON_GetObjectItemCaseSensitive(gpu, "count")) != NULL &&
	    (!cJSON_IsNumber(x) || !bj_int(gpu, "count", &count) || count < 1 ||
	    count > V2_MAX_COUNT))
		invalid(rp, "gpu.count", "an integer from 1 to 64");
	else if ((x = cJSON_GetObjectItemCaseSensitive(b, "cloud")) != NULL &&
	    (!cJSON_IsString(x) || (strcmp(x->valuestring, "SECURE") != 0 &&
	    strcmp(x->valuestring, "COMMUNITY") != 0)))
		invalid(rp, "cloud", "SECURE or COMMUNITY");
	else if ((x = cJSON_GetObjectItemCaseSensitive(b, "disk")) != NULL &&
	    (!cJSON_IsNumber(x) || !bj_int(b, "disk", &disk) || disk < 1 || disk > 100000))
		invalid(rp, "disk", "an integer number of GB");
	else if ((env = cJSON_GetObjectItemCaseSensitive(b, "env")) != NULL && !cJSON_IsObject(env))
		invalid(rp, "env", "an object of strings");
	else if ((x = cJSON_GetObjectItemCaseSensitive(b, "args")) != NULL && !cJSON_IsString(x))
		invalid(rp, "args", "a string");
	else
		goto valid;
	cJSON_Delete(b);
	return;
valid:
	if (catalogue_resolve("runpod", tid, 0) == NULL) {
		snprintf(detail, sizeof(detail), "gpu.id '%.100s' is not a GPU type of pods", tid);
		cJSON_Delete(b);
		problem(rp, 400, detail, NULL);
		return;
	}
	if (bj_strp(b, "cloud") != NULL)
		cloud = bj_strp(b, "cloud");
	in = cJSON_CreateObject();
	cJSON_AddNumberToObject(in, "gpuCount", (double)count);
	cJSON_AddStringToObject(in, "cloudType", cloud);
	cJSON_AddStringToObject(in, "name", bj_strp(b, "name"));
	cJSON_AddStringToObject(in, "imageName", bj_strp(b, "image"));
	if (bj_int(b, "disk", &disk))
		cJSON_AddNumberToObject(in, "containerDiskInGb", (double)disk);
	if (bj_strp(b, "args") != NULL)
		cJSON_AddStringToObject(in, "dockerArgs", bj_strp(b, "args"));
	x = cJSON_AddObjectToObject(in, "env");
	cJSON_ArrayForEach(kv, env)
		if (cJSON_IsString(kv) && kv->string != NULL)
			cJSON_AddStringToObject(x, kv->string, kv->valuestring);
	code = runpod_serve_launch(c, in, tid, false, 0, &inst, &why);
	cJSON_Delete(in);
	cJSON_Delete(b);
	if (code == GR_ECAPACITY)
		problem(rp, 400, "There are no instances currently available with the requested "
		    "GPU type and count in the requested data centers.", NULL);
	else if (code == GR_EFUNDS)
		problem(rp, 402, why, NULL);
	else if (code != GR_OK)
		problem(rp, 500, why, NULL);
	else {
		rp->acted = true;
		serve_reply_json(rp, 201, pod_v2(c, &inst));
	}
}

static void
list(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *name = serve_query(rq, "name"), *want = serve_query(rq, "status");
	struct gr_error err = { 0 };
	struct instance_list l;
	cJSON *res = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(res, "pods");
	size_t i;

	instance_list_init(&l);
	if (sim_instances(c->sim, false, &l, &err) != GR_OK) {
		instance_list_release(&l);
		cJSON_Delete(res);
		problem(rp, 500, err.msg, NULL);
		return;
	}
	for (i = 0; i < l.n; i++) {
		const struct instance *in = &l.v[i];

		if (in->state == ST_DESTROYED || in->state == ST_DESTROYING ||
		    (name != NULL && strcmp(name, in->label) != 0) ||
		    (want != NULL && strcmp(want, status_of(in->state)) != 0))
			continue;
		cJSON_AddItemToArray(arr, pod_v2(c, in));
	}
	instance_list_release(&l);
	serve_reply_json(rp, 200, res);
}

/* POST /v2/pods/{id}/action {"action": start|stop|restart|terminate}. */
static void
action(struct serve_ctx *c, const struct serve_req *rq, struct instance *in,
    struct serve_reply *rp)
{
	static const char *const known[] = { "start", "stop", "restart", "terminate" };
	cJSON *b = cJSON_ParseWithLength(rq->body, rq->len);
	struct gr_error err = { 0 };
	const char *a = bj_strp(b, "action");
	char detail[160];
	enum gr_err code = GR_OK;
	size_t i;

	for (i = 0; a != NULL && i < ARRAY_LEN(known) && strcmp(a, known[i]) != 0; i++)
		;
	if (a == NULL || i == ARRAY_LEN(known)) {
		cJSON_Delete(b);
		invalid(rp, "action", "one of start, stop, restart, terminate");
		return;
	}
	if (!allowed(in->state, a)) {
		snprintf(detail, sizeof(detail), "cannot %s a pod that is %s", a,
		    status_of(in->state));
		cJSON_Delete(b);
		problem(rp, 409, detail, NULL);
		return;
	}
	if (strcmp(a, "stop") == 0)
		code = serve_stop(c, in->id, &err);
	else if (strcmp(a, "start") == 0)
		code = sim_start(c->sim, in->id, &err);
	else if (strcmp(a, "terminate") == 0)
		code = sim_destroy(c->sim, in->id, &err);
	/* restart re-runs the container: the pod stays RUNNING on its machine. */
	cJSON_Delete(b);
	if (code == GR_ECAPACITY) {
		problem(rp, 400, "There are not enough free GPUs on the host machine to start this "
		    "pod.", NULL);
		return;
	}
	if (code != GR_OK) {
		problem(rp, 500, err.msg, NULL);
		return;
	}
	rp->acted = true;
	sim_get(c->sim, in->id, in, &err);
	serve_reply_json(rp, 200, pod_v2(c, in));
}

/* PATCH /v2/pods/{id}: the simulator renames; any other change it cannot make. */
static void
update(struct serve_ctx *c, const struct serve_req *rq, struct instance *in,
    struct serve_reply *rp)
{
	cJSON *b = cJSON_ParseWithLength(rq->body, rq->len), *m;
	struct gr_error err = { 0 };

	if (!cJSON_IsObject(b)) {
		cJSON_Delete(b);
		invalid(rp, "", "the body is not a JSON object");
		return;
	}
	for (m = b->child; m != NULL; m = m->next) {
		if (m->string == NULL || strcmp(m->string, "name") != 0 || !cJSON_IsString(m)) {
			invalid(rp, m->string != NULL ? m->string : "", "the simulator changes only "
			    "a pod's name, a string");
			cJSON_Delete(b);
			return;
		}
	}
	if (bj_strp(b, "name") != NULL && sim_label(c->sim, in->id, bj_strp(b, "name"), &err) !=
	    GR_OK) {
		cJSON_Delete(b);
		problem(rp, 500, err.msg, NULL);
		return;
	}
	cJSON_Delete(b);
	rp->acted = true;
	sim_get(c->sim, in->id, in, &err);
	serve_reply_json(rp, 200, pod_v2(c, in));
}

static void
logs(const struct instance *in, struct serve_reply *rp)
{
	cJSON *res = cJSON_CreateObject(), *arr, *l;
	char pid[32], when[32], line[200];
	int k;

	runpod_serve_pod_id(in->id, pid, sizeof(pid));
	cJSON_AddStringToObject(res, "podId", pid);
	arr = cJSON_AddArrayToObject(res, "logs");
	for (k = 0; k < 3; k++) {
		if (k == 0)
			snprintf(line, sizeof(line), "pulling image %.150s", in->image);
		else if (k == 1)
			snprintf(line, sizeof(line), "pod %s: %s", pid, status_of(in->state));
		else if (in->status_msg[0] != '\0')
			snprintf(line, sizeof(line), "%.150s", in->status_msg);
		else
			break;
		l = cJSON_CreateObject();
		cJSON_AddStringToObject(l, "timestamp", runpod_serve_time(in->created_at, when,
		    sizeof(when)));
		cJSON_AddStringToObject(l, "message", line);
		cJSON_AddItemToArray(arr, l);
	}
	serve_reply_json(rp, 200, res);
}

static const char *
level_of(int free_machines)
{
	return free_machines >= 5 ? "HIGH" : free_machines >= 2 ? "MEDIUM" :
	    free_machines >= 1 ? "LOW" : "NONE";
}

/* One data centre's stock of a GPU type on one cloud. */
struct stock {
	char dc[16];
	bool secure;
	int machines;
	unsigned counts;	/* bit n-1: n GPUs on one machine are free (n <= 32) */
};

/* The catalogue entry of GPU type m: prices per GPU-hour (the lowest on each cloud), its
   largest count, and with `availability` its stock per data centre and cloud. */
static cJSON *
gpu_entry(const struct offer_list *all, const struct gpu_model *m, const char *tid,
    bool availability)
{
	cJSON *g = cJSON_CreateObject(), *price, *av, *e, *cnt;
	int64_t best[2] = { -1, -1 };
	struct stock st[16];
	size_t ns = 0, i, k;
	int maxc = 0, n;

	for (i = 0; i < all->n; i++) {
		const struct offer *o = &all->v[i];
		bool sec = o->reliability_bp >= RUNPOD_SECURE_BP;
		struct instance at;
		int64_t per;

		if (o->gpu != m || o->type == OFFER_INTERRUPTIBLE || o->gpu_count <= 0)
			continue;
		per = o->price_hour / o->gpu_count;
		if (best[sec] < 0 || per < best[sec])
			best[sec] = per;
		if (o->gpu_count > maxc)
			maxc = o->gpu_count;
		if (o->available <= 0)
			continue;
		memset(&at, 0, sizeof(at));
		strlcpy_(at.region, o->region, sizeof(at.region));
		for (k = 0; k < ns; k++)
			if (strcmp(st[k].dc, runpod_serve_data_center(&at)) == 0 &&
			    st[k].secure == sec)
				break;
		if (k == ns) {
			if (ns == ARRAY_LEN(st))
				continue;
			memset(&st[ns], 0, sizeof(st[ns]));
			strlcpy_(st[ns].dc, runpod_serve_data_center(&at), sizeof(st[ns].dc));
			st[ns++].secure = sec;
		}
		st[k].machines += o->available;
		if (o->gpu_count <= 32)
			st[k].counts |= 1u << (o->gpu_count - 1);
	}
	cJSON_AddStringToObject(g, "id", tid);
	cJSON_AddStringToObject(g, "displayName", m->name);
	cJSON_AddStringToObject(g, "manufacturer", m->vendor);
	cJSON_AddNumberToObject(g, "memoryInGb", m->vram_gb);
	price = cJSON_AddObjectToObject(g, "price");
	for (k = 0; k < 2; k++) {
		const char *key = k == 1 ? "secure" : "community";

		if (best[k] >= 0)
			cJSON_AddNumberToObject(price, key, (double)best[k] / 1e6);
		else
			cJSON_AddNullToObject(price, key);
	}
	cJSON_AddNullToObject(price, "serverless");
	cJSON_AddNumberToObject(g, "maxCount", maxc);
	if (!availability)
		return g;
	av = cJSON_AddArrayToObject(g, "availability");
	for (k = 0; k < ns; k++) {
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "dataCenterId", st[k].dc);
		cJSON_AddStringToObject(e, "cloud", st[k].secure ? "SECURE" : "COMMUNITY");
		cJSON_AddStringToObject(e, "status", level_of(st[k].machines));
		cnt = cJSON_AddArrayToObject(e, "gpuCounts");
		for (n = 1; n <= 32; n++)
			if (st[k].counts & (1u << (n - 1)))
				cJSON_AddItemToArray(cnt, cJSON_CreateNumber(n));
		cJSON_AddItemToArray(av, e);
	}
	return g;
}

/* GET /v2/catalog/gpus[/{id}]; availability with include=AVAILABILITY. */
static void
catalog_gpus(struct serve_ctx *c, const struct serve_req *rq, const char *one,
    struct serve_reply *rp)
{
	const char *inc = serve_query(rq, "include");
	bool availability = inc != NULL && strstr(inc, "AVAILABILITY") != NULL;
	struct offer_list all;
	struct gr_error err = { 0 };
	const struct gpu_model *seen[64];
	size_t nseen = 0, i, k;
	cJSON *res, *arr;

	offer_list_init(&all);
	if (sim_offers(c->sim, &all, &err) != GR_OK) {
		offer_list_release(&all);
		problem(rp, 500, err.msg, NULL);
		return;
	}
	res = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(res, "gpus");
	for (i = 0; i < all.n; i++) {
		const char *tid = runpod_gpu_id_of(all.v[i].gpu);

		for (k = 0; k < nseen && seen[k] != all.v[i].gpu; k++)
			;
		if (tid == NULL || k < nseen || nseen == ARRAY_LEN(seen) ||
		    (one != NULL && strcmp(one, tid) != 0))
			continue;
		seen[nseen++] = all.v[i].gpu;
		cJSON_AddItemToArray(arr, gpu_entry(&all, all.v[i].gpu, tid, availability));
	}
	offer_list_release(&all);
	if (one == NULL) {
		serve_reply_json(rp, 200, res);
		return;
	}
	if (cJSON_GetArraySize(arr) == 0) {
		cJSON_Delete(res);
		problem(rp, 404, "no such GPU type", NULL);
		return;
	}
	serve_reply_json(rp, 200, cJSON_DetachItemFromArray(arr, 0));
	cJSON_Delete(res);
}

static void
catalog_datacenters(struct serve_reply *rp)
{
	static const struct {
		const char *id, *name, *cc;
	} dcs[] = {
		{ "EU-RO-1", "Europe (Romania)", "RO" },
		{ "US-TX-3", "United States (Texas)", "US" },
		{ "AP-JP-1", "Asia Pacific (Japan)", "JP" },
	};
	cJSON *res = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(res, "dataCenters"), *d;
	size_t i;

	for (i = 0; i < ARRAY_LEN(dcs); i++) {
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "id", dcs[i].id);
		cJSON_AddStringToObject(d, "name", dcs[i].name);
		cJSON_AddStringToObject(d, "location", dcs[i].cc);
		cJSON_AddTrueToObject(d, "storageSupport");
		cJSON_AddArrayToObject(d, "compliance");
		cJSON_AddItemToArray(arr, d);
	}
	serve_reply_json(rp, 200, res);
}

/*
 * GET /v2/billing/pods (providers/runpod.md §4.4, §9): the simulated bill, in records of a day
 * per pod, each day from the one holding startTime to the one holding endTime, whole (without
 * them, the whole bill). Only bucketSize=day and grouping=podId are simulated.
 */
static void
billing_pods(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *s0 = serve_query(rq, "startTime"), *s1 = serve_query(rq, "endTime");
	const char *bucket = serve_query(rq, "bucketSize"), *grp = serve_query(rq, "grouping");
	struct gr_error err = { 0 };
	struct charge_list bill;
	int64_t t0 = 0, t1 = sim_now(c->sim);
	cJSON *res, *arr;
	size_t i;

	if ((s0 != NULL && !parse_when(s0, 0, &t0)) || (s1 != NULL && !parse_when(s1, 0, &t1)) ||
	    t0 < 0 || t1 < t0 || t1 > 253402300799LL ||
	    (bucket != NULL && strcmp(bucket, "day") != 0) ||
	    (grp != NULL && strcmp(grp, "podId") != 0)) {
		problem(rp, 400, "startTime and endTime (RFC 3339), bucketSize=day and "
		    "grouping=podId are what the simulator answers", NULL);
		return;
	}
	charge_list_init(&bill);
	if (sim_bill(c->sim, t0 - t0 % 86400, t1 - t1 % 86400 + 86400, &bill, &err) != GR_OK) {
		charge_list_release(&bill);
		problem(rp, 500, err.msg, NULL);
		return;
	}
	res = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(res, "records");
	for (i = 0; i < bill.n; i++) {
		const struct charge *ch = &bill.v[i];
		cJSON *r = cJSON_CreateObject();
		char pid[32], when[32];

		runpod_serve_pod_id(ch->instance_id, pid, sizeof(pid));
		cJSON_AddStringToObject(r, "podId", pid);
		cJSON_AddStringToObject(r, "startTime", runpod_serve_time(ch->day, when,
		    sizeof(when)));
		cJSON_AddStringToObject(r, "endTime", runpod_serve_time(ch->day + 86400, when,
		    sizeof(when)));
		cJSON_AddNumberToObject(r, "totalAmount", (double)ch->amount / 1e6);
		cJSON_AddNumberToObject(r, "gpuAmount", (double)(ch->amount - ch->storage) / 1e6);
		cJSON_AddNumberToObject(r, "diskAmount", (double)ch->storage / 1e6);
		cJSON_AddItemToArray(arr, r);
	}
	charge_list_release(&bill);
	serve_reply_json(rp, 200, res);
}

/* GET / PUT /v2/account/ssh-keys: {"keys": [{name, key, fingerprint}]}; a PUT replaces them. */
static void
ssh_keys(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	cJSON *b, *keys, *out, *k, *e;
	char fp[40];

	if (strcmp(rq->method, "GET") == 0) {
		out = cJSON_CreateObject();
		cJSON_AddItemToObject(out, "keys", c->runpod_ssh_keys != NULL ?
		    cJSON_Duplicate(c->runpod_ssh_keys, true) : cJSON_CreateArray());
		serve_reply_json(rp, 200, out);
		return;
	}
	if (strcmp(rq->method, "PUT") != 0) {
		problem(rp, 405, "GET or PUT", NULL);
		return;
	}
	b = cJSON_ParseWithLength(rq->body, rq->len);
	keys = cJSON_GetObjectItemCaseSensitive(b, "keys");
	if (!cJSON_IsArray(keys)) {
		cJSON_Delete(b);
		invalid(rp, "keys", "required, a list of {name, key}");
		return;
	}
	out = cJSON_CreateArray();
	cJSON_ArrayForEach(k, keys) {
		const char *key = bj_strp(k, "key"), *name = bj_strp(k, "name");

		if (key == NULL || name == NULL || (strncmp(key, "ssh-", 4) != 0 &&
		    strncmp(key, "ecdsa-", 6) != 0)) {
			cJSON_Delete(out);
			cJSON_Delete(b);
			invalid(rp, "keys", "each a {name, key} with an OpenSSH public key");
			return;
		}
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", name);
		cJSON_AddStringToObject(e, "key", key);
		snprintf(fp, sizeof(fp), "SHA256:%016llx", (unsigned long long)hash_str(key));
		cJSON_AddStringToObject(e, "fingerprint", fp);
		cJSON_AddItemToArray(out, e);
	}
	cJSON_Delete(b);
	cJSON_Delete(c->runpod_ssh_keys);
	c->runpod_ssh_keys = out;
	rp->acted = true;
	b = cJSON_CreateObject();
	cJSON_AddItemToObject(b, "keys", cJSON_Duplicate(out, true));
	serve_reply_json(rp, 200, b);
}

static void
one_pod(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *m = rq->method;
	struct gr_error err = { 0 };
	struct instance in;
	char pod[64], sub[16];

	if (!runpod_serve_pod_path(rq->path, "/v2/pods/", pod, sizeof(pod), sub,
	    sizeof(sub))) {
		problem(rp, 404, "no such route", NULL);
		return;
	}
	if (!runpod_serve_get(c, pod, &in)) {
		problem(rp, 404, "pod not found", NULL);
		return;
	}
	if (sub[0] == '\0' && strcmp(m, "GET") == 0)
		serve_reply_json(rp, 200, pod_v2(c, &in));
	else if (sub[0] == '\0' && strcmp(m, "PATCH") == 0)
		update(c, rq, &in, rp);
	else if (sub[0] == '\0' && strcmp(m, "DELETE") == 0) {
		if (sim_destroy(c->sim, in.id, &err) != GR_OK) {
			problem(rp, 500, err.msg, NULL);
			return;
		}
		rp->acted = true;
		rp->status = 204;
		rp->ctype = "text/plain";
		sb_reset(&rp->body);
	} else if (strcmp(sub, "action") == 0 && strcmp(m, "POST") == 0)
		action(c, rq, &in, rp);
	else if (strcmp(sub, "logs") == 0 && strcmp(m, "GET") == 0)
		logs(&in, rp);
	else
		problem(rp, 405, "method not allowed here", NULL);
}

static void
v2(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *p = rq->path, *m = rq->method;

	if (!rq->auth_ok || (c->api_key != NULL && rq->auth[0] == '\0')) {
		problem(rp, 401, "Invalid API key", NULL);
		return;
	}
	if (strcmp(p, "/v2/pods") == 0) {
		if (strcmp(m, "GET") == 0)
			list(c, rq, rp);
		else if (strcmp(m, "POST") == 0)
			create(c, rq, rp);
		else
			problem(rp, 405, "GET or POST", NULL);
	} else if (strncmp(p, "/v2/pods/", 9) == 0)
		one_pod(c, rq, rp);
	else if (strcmp(m, "GET") != 0 && strcmp(p, "/v2/account/ssh-keys") != 0)
		problem(rp, 405, "GET only", NULL);
	else if (strcmp(p, "/v2/catalog/gpus") == 0)
		catalog_gpus(c, rq, NULL, rp);
	else if (strncmp(p, "/v2/catalog/gpus/", 17) == 0 && p[17] != '\0')
		catalog_gpus(c, rq, p + 17, rp);
	else if (strcmp(p, "/v2/catalog/datacenters") == 0)
		catalog_datacenters(rp);
	else if (strcmp(p, "/v2/billing/pods") == 0)
		billing_pods(c, rq, rp);
	else if (strcmp(p, "/v2/billing/network-volumes") == 0) {
		/* The simulated world has no network volumes. */
		cJSON *res = cJSON_CreateObject();

		cJSON_AddArrayToObject(res, "records");
		serve_reply_json(rp, 200, res);
	}
	else if (strcmp(p, "/v2/account/ssh-keys") == 0)
		ssh_keys(c, rq, rp);
	else
		problem(rp, 404, "no such route", NULL);
}

/* The runpod dialect: v2 under /v2/, GraphQL and REST v1 (dialect_runpod.c) elsewhere. */
void
dialect_runpod(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	bool is_v2 = strncmp(rq->path, "/v2/", 4) == 0;
	struct serve_req scoped;
	char pod[64];

	/* A pod's own key (RUNPOD_API_KEY) reads and stops that pod alone. */
	if (serve_instance_of_key("RUNPOD_API_KEY", rq->auth, pod, sizeof(pod))) {
		if (is_v2 && !v2_own_pod_only(rq, pod)) {
			problem(rp, 403, "this key is scoped to its own pod alone", NULL);
			return;
		}
		if (!is_v2 && !runpod_graphql_own_pod_only(rq, pod)) {
			rp->status = 403;
			sb_addf(&rp->body, "{\"errors\":[{\"message\":\"this key is scoped to pod "
			    "%s alone\"}]}", pod);
			return;
		}
		scoped = *rq;
		scoped.auth_ok = true;
		rq = &scoped;
	}
	if (is_v2)
		v2(c, rq, rp);
	else
		runpod_graphql(c, rq, rp);
}
