/*
 * serve_int.h - `gpurent sim serve`: the simulated world over HTTP in a provider's dialect.
 * Internal to src/serve/.
 */
#ifndef GPURENT_SERVE_INT_H
#define GPURENT_SERVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "gpurent/error.h"
#include "gpurent/model.h"
#include "gpurent/util.h"

struct sim;
struct MHD_Connection;

/* One request as a dialect sees it. */
struct serve_req {
	const char *method;
	const char *path;		/* without the query string */
	struct MHD_Connection *conn;	/* for serve_query() */
	const char *body;
	size_t len;
	const char *auth;		/* the presented key ("" none): Bearer, Basic or api_key= */
	bool auth_ok;			/* no key configured, or the right one */
	const char *host;		/* the Host header (NULL none), for URLs back to us */
};

struct serve_reply {
	int status;
	struct sb body;
	const char *ctype;		/* NULL: application/json */
	bool acted;			/* the request changed the world (for after-the-fact faults) */
};

struct serve_ctx {
	struct sim *sim;
	const char *api_key;		/* NULL: any key accepted */
	int ignore_stops;		/* stops still to acknowledge and not do (--ignore-stop) */
	const char *launch_faults;	/* serve_opts.fail_launch still to come; NULL: none */
	cJSON *runpod_ssh_keys;		/* RunPod v2's account keys (PUT /v2/account/ssh-keys);
					   NULL: none yet */
};

/* request.c: stop an instance, or, while c->ignore_stops lasts, only say so. */
enum gr_err serve_stop(struct serve_ctx *c, const char *id, struct gr_error *err);

/* How the next create is refused (serve_opts.fail_launch). */
enum serve_launch_fault { SLF_NONE, SLF_GONE, SLF_CAPACITY };

/* request.c: the next scripted refusal of a create, consumed; SLF_NONE when none is left. */
enum serve_launch_fault serve_launch_fault(struct serve_ctx *c);
/* request.c: whether s is a valid fail_launch list. */
bool serve_launch_faults_valid(const char *s);

/*
 * request.c: the environment the provider gives a new instance's container, with the
 * credential scoped to that instance alone (vast's CONTAINER_ID and CONTAINER_API_KEY,
 * RunPod's RUNPOD_POD_ID and RUNPOD_API_KEY): written NUL-separated, as /proc/1/environ
 * reads, to <the server's state directory>/instance-env/NATIVE, where a test's instance
 * (an sshd on this machine) reads it. key (n bytes) receives the new key.
 */
void serve_instance_env(const char *native, const char *id_var, const char *key_var,
    char *key, size_t n);
/* request.c: the native id of the instance whose own key (key_var) key is; false when it
 * is no instance's key. */
bool serve_instance_of_key(const char *key_var, const char *key, char *native, size_t n);

/* request.c: the value of a query parameter, or NULL (always NULL when rq->conn is NULL). */
const char *serve_query(const struct serve_req *rq, const char *name);

/* request.c: rp becomes status and j printed compactly; j is freed. */
void serve_reply_json(struct serve_reply *rp, int status, cJSON *j);

/* Each dialect fills rp (status and body) for a request. */
void dialect_vast(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp);
void dialect_runpod(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp);
void dialect_lambda(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp);
void dialect_ppio(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp);

/*
 * dialect_runpod.c, for its REST v2 beside it (dialect_runpod_v2.c). RunPod's secure cloud
 * in the simulated world is its datacentre-grade machines (reliability in basis points).
 */
#define RUNPOD_SECURE_BP 9700
/* The pod id of a simulated instance ("sp" and 12 digits). */
void runpod_serve_pod_id(const char *sim_id, char *out, size_t n);
/* The runtime's ports once up: ssh's public port, as GraphQL and v2 give it. */
cJSON *runpod_serve_ports(const struct instance *in);
/* podHostId: the pod's id and 8 hex digits, the user name of RunPod's ssh proxy. */
void runpod_serve_host_id(const struct instance *in, char *out, size_t n);
/* The live pod of that id into out; false when there is none. */
bool runpod_serve_get(struct serve_ctx *c, const char *pod, struct instance *out);
/* The data centre of an instance ("EU-RO-1"), from its region. */
const char *runpod_serve_data_center(const struct instance *in);
/* RFC 3339 UTC of t into out. */
const char *runpod_serve_time(int64_t t, char *out, size_t n);
/* "PREFIX ID" or "PREFIX ID/SUB" ("/v1/pods/", "/v2/pods/"): the id into pod, SUB (or "")
   into sub; false for another path. */
bool runpod_serve_pod_path(const char *path, const char *prefix, char *pod, size_t pn, char *sub,
    size_t sn);
/* The runtime's GPUs, util_key and mem_key naming the percentages (with_id: each its UUID). */
cJSON *runpod_serve_gpus(struct serve_ctx *c, const struct instance *in, const char *util_key,
    const char *mem_key, bool with_id);
/*
 * Launch the cheapest offer of GPU type tid that fits `in` (names as GraphQL's
 * PodFindAndDeployOnDemandInput: gpuCount, cloudType, name, imageName, containerDiskInGb,
 * dockerArgs, env); *why is RunPod's message on failure.
 */
enum gr_err runpod_serve_launch(struct serve_ctx *c, const cJSON *in, const char *tid,
    bool spot, double bidpg, struct instance *inst, const char **why);
/* RunPod's GraphQL and REST v1 (every path but /v2/), for dialect_runpod (in
   dialect_runpod_v2.c, which serves /v2/ itself). */
void runpod_graphql(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp);
/* Whether a GraphQL or v1 request with pod own's own key asks of that pod alone. */
bool runpod_graphql_own_pod_only(const struct serve_req *rq, const char *own);

/* The numeric part of "sim:i-000042" / "sim:o-000123i", -1 when not of that shape. */
long long serve_sim_num(const char *id);

#endif
