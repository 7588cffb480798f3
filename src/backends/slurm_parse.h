/*
 * slurm_parse.h - slurmrestd's replies onto gpurent's model, as pure functions (no I/O), so
 * that unit tests and the fuzzer run them on recorded and hostile replies.
 *
 * The OpenAPI versions differ in small ways that these functions absorb: v0.0.38 (Slurm
 * 22.05) has plain numbers, a node state string and a job's "gres"; v0.0.39 to v0.0.41
 * (Slurm 23 and 24) wrap numbers as {"set": true, "infinite": false, "number": N}, give
 * states as arrays of words and take "tres_per_node" on submit. Readers accept either form
 * whatever the version; only the submit document is built per version.
 *
 * Every string is copied, sanitized (control characters stripped) and truncated to fit.
 */
#ifndef GPURENT_SLURM_PARSE_H
#define GPURENT_SLURM_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpurent/error.h"
#include "gpurent/model.h"

struct cJSON;

/* The OpenAPI versions this client speaks, newest first; index into it is the "api". */
extern const char *const slurm_api_versions[];
#define SLURM_API_COUNT 4
/* The minor number of an api index: 41, 40, 39, 38. */
int slurm_api_minor(int api);

/*
 * GET /openapi/v3 (or /openapi): the newest version in slurm_api_versions whose
 * /slurm/<version>/jobs path the server lists. Returns the index, or -1 (with err) when
 * the body is not a spec or lists none of them.
 */
int slurm_parse_openapi(const char *body, size_t len, struct gr_error *err);

/*
 * The `errors` array of any reply (and the HTTP status) onto an error: GR_OK when the
 * status is 2xx and the array is empty or absent. Each error's "description" and "error"
 * reach the message verbatim, control characters stripped, joined with "; ". A 401, and
 * the "Unspecified error" (errno -1) that Slurm 22.05 answers a token it rejects with, are
 * GR_EAUTH; "Invalid job id" is GR_ENOTFOUND; another of Slurm's own error numbers
 * (ESLURM_*, 2000 to 2999: an invalid partition, node count ...) is GR_EUSAGE, though
 * slurmrestd answers it with a 500; otherwise 4xx is GR_EUSAGE and 5xx GR_EUNAVAIL.
 */
enum gr_err slurm_parse_errors(long status, const char *body, size_t len, struct gr_error *err);

/* A number, or a {"set", "infinite", "number"} wrapper; false when unset, infinite or absent. */
bool slurm_num(const struct cJSON *v, long long *out);

/* One GRES of a node or a job: "gpu:h100:4(S:0-1)", "gres/gpu:h100=2", "gpu:2". */
struct slurm_gres {
	char type[32];		/* "h100"; "" when untyped */
	int count;
};
#define SLURM_GRES_MAX 8
/* The GPU entries of a GRES list (others, like "shard", are skipped). Returns how many. */
size_t slurm_gres_gpus(const char *s, struct slurm_gres *out, size_t max);

struct slurm_node {
	char name[64];
	char hostname[64];
	char state[64];		/* "idle", "mixed+drain", ... as words joined with '+' */
	bool usable;		/* can take jobs: up, not drained, draining, down or failing */
	char partitions[256];	/* ",gpu,short," for quick membership tests */
	struct slurm_gres gres[SLURM_GRES_MAX];
	size_t n_gres;
	struct slurm_gres used[SLURM_GRES_MAX];
	size_t n_used;
	int cpus;
	long long memory_mb;
};

struct slurm_partition {
	char name[64];
	bool up;
	long long max_time_min;	/* -1: unlimited or not said */
};

struct slurm_job {
	long long id;
	char name[LABEL_MAX];
	char state[32];		/* the first word of job_state: "PENDING", "RUNNING" ... */
	char reason[64];	/* state_reason, "None" when none */
	char partition[64];
	char *nodes;		/* hostlist expression, whole however long (malloc'd, see
				   slurm_jobs_free); NULL while pending */
	char first_node[64];	/* batch_host, else the first of nodes */
	char user[64];
	char comment[64];
	struct slurm_gres gpus;	/* per node; count 0 for a job without GPUs */
	int node_count;
	long long submit_time, start_time, end_time;
	long long time_limit_min;	/* -1: none */
	int exit_code;			/* once ended: the script's status, 128 + N for signal
					   N; -1 unknown */
};

/* One element of /nodes onto a node (a whole element, or one parsed with only the members
   the stream picks); false when it is no node (not an object, no name). */
struct cJSON;
bool slurm_node_from_json(const struct cJSON *it, struct slurm_node *nd);
/* GET /slurm/<v>/nodes: a malloc'd array in *out (free it), count in *n. */
enum gr_err slurm_parse_nodes(const char *body, size_t len, struct slurm_node **out, size_t *n,
    struct gr_error *err);
/*
 * A list reply read as it arrives (a 1,000-node cluster's /nodes is over a megabyte, its
 * /jobs a third of that): each element is parsed on its own as its bytes complete (jscan,
 * backends_parse.h), so memory holds one element's JSON, never the body. A body is accepted
 * exactly when slurm_parse_nodes / slurm_parse_jobs accept it whole; the finishing call
 * (slurm_stream_nodes for a SLURM_NODES stream, slurm_stream_jobs for SLURM_JOBS) also
 * checks the reply's errors array, as slurm_parse_errors(status) does, and hands over the
 * records. feed returns false once the body is known to be malformed.
 */
enum slurm_list { SLURM_NODES, SLURM_JOBS };
struct slurm_stream;
struct slurm_stream *slurm_stream_new(enum slurm_list what);
bool slurm_stream_feed(struct slurm_stream *s, const char *p, size_t n);
enum gr_err slurm_stream_nodes(struct slurm_stream *s, long status, struct slurm_node **out,
    size_t *n, struct gr_error *err);
enum gr_err slurm_stream_jobs(struct slurm_stream *s, long status, struct slurm_job **out,
    size_t *n, struct gr_error *err);
void slurm_stream_free(struct slurm_stream *s);
enum gr_err slurm_parse_partitions(const char *body, size_t len, struct slurm_partition **out,
    size_t *n, struct gr_error *err);
/* GET /slurm/<v>/jobs (or /job/ID): the same as a slurm_stream fed the whole body. */
/* n jobs of a list and the list itself (NULL is none). */
void slurm_jobs_free(struct slurm_job *v, size_t n);
enum gr_err slurm_parse_jobs(const char *body, size_t len, struct slurm_job **out, size_t *n,
    struct gr_error *err);
/* POST /slurm/<v>/job/submit: the new job's id. */
enum gr_err slurm_parse_submit(const char *body, size_t len, long long *job_id,
    struct gr_error *err);

/* The first host of a hostlist expression: "n[3-4,7]" -> "n3", "a,b" -> "a". */
void slurm_hostlist_first(const char *list, char *out, size_t n);

/*
 * The hosts of a hostlist expression, as Slurm writes a job's nodes: "n[1-2],gpu[01-03,07]"
 * is n1 n2 gpu01 gpu02 gpu03 gpu07 (a range keeps its lower bound's zero padding; several
 * bracket groups in one name multiply). At most max names go to out, in order: the count,
 * or -1 when the expression is malformed (unbalanced brackets, an empty name, a range
 * backwards or of more than nine digits, a name of SLURM_HOST_MAX bytes or more). A range
 * is walked only until max names are out, so "n[0-999999999]" costs max names, not a
 * billion. Names are raw (the caller strips them before a terminal).
 */
#define SLURM_HOST_MAX 64
int slurm_hostlist_expand(const char *list, char (*out)[SLURM_HOST_MAX], int max);

/* Give an offer its GPU model (NULL: unknown) and the memory per GPU that tells (OV_VRAM). */
void slurm_offer_gpu(struct offer *o, const struct gpu_model *m);

/* Price per GPU-hour of a GRES type, from configuration; false when none is set. */
typedef bool (*slurm_price_fn)(void *ctx, const char *gres_type, int64_t *per_gpu_hour);

/*
 * One offer per partition x GPU type over the usable nodes: id "slurm:PART/TYPE" ("gpu"
 * for untyped GRES), gpu_count the most GPUs of that type on one node, available the GPUs
 * free now, nodes, the partition's time limit, and queued (pending jobs of that partition
 * asking for that type). Price only from price_fn (per GPU-hour x gpu_count), else unknown.
 */
void slurm_build_offers(const struct slurm_node *nodes, size_t n_nodes,
    const struct slurm_partition *parts, size_t n_parts, const struct slurm_job *jobs,
    size_t n_jobs, const char *cluster, slurm_price_fn price, void *ctx,
    struct offer_list *out);

/*
 * The cluster view (struct cluster_state): per partition x GPU type over all its nodes, the
 * GPUs in total and allocated (what sinfo's GRES and GRES_USED say), those free on nodes
 * that can take jobs in a partition that is up, and the pending jobs asking for the type;
 * then user's jobs that squeue shows by default (pending, running, completing ...), with
 * Slurm's state and reason ("None" becomes "").
 */
void slurm_build_cluster(const struct slurm_node *nodes, size_t n_nodes,
    const struct slurm_partition *parts, size_t n_parts, const struct slurm_job *jobs,
    size_t n_jobs, const char *user, struct cluster_state *out);

/*
 * A job onto the common instance: id "slurm:ID", state from job_state (PENDING and
 * CONFIGURING provisioning, RUNNING running, COMPLETING destroying, SUSPENDED stopped,
 * COMPLETED, CANCELLED, TIMEOUT, DEADLINE and PREEMPTED destroyed; FAILED, NODE_FAIL,
 * BOOT_FAIL and OUT_OF_MEMORY failed) with Slurm's words in status_msg ("PENDING
 * (Resources)"), label the job name, region the partition.
 */
void slurm_job_to_instance(const struct slurm_job *j, struct instance *out);

/* Parameters of a holding or batch job; strings borrowed. */
struct slurm_submit {
	const char *name;
	const char *partition;		/* "" or NULL: the cluster's default */
	const char *gres_type;		/* "" or NULL: untyped */
	int gpus_per_node;
	int nodes;
	long long time_limit_min;	/* 0: the partition's */
	const char *cwd;
	const char *script;
	const char *comment;
	const char *const *env;		/* "K=V", NULL-terminated; PATH is always added */
	const char *output;		/* stdout and stderr ("%j": the job id); NULL: Slurm's */
};
/* The POST /slurm/<v>/job/submit body for an api index; malloc'd JSON. */
char *slurm_build_submit(int api, const struct slurm_submit *s);

/*
 * The expiry ("exp", UTC seconds) of a JWT, read without checking its signature (the server
 * does that): false when the token is not a JWT with a numeric exp.
 */
bool slurm_jwt_expiry(const char *token, int64_t *exp);

#endif
