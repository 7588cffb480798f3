/*
 * backends_parse.h - the provider JSON parsers of the vast, runpod, lambda and ppio backends,
 * separated from the transport so unit tests and fuzzers can run them on recorded payloads.
 *
 * Every parser takes a body and its length (not necessarily NUL-terminated), never trusts
 * it, and returns GR_OK or an error with a message (GR_EUNAVAIL for a body that is not the
 * expected JSON: the provider is misbehaving). Records are appended to the caller's lists;
 * strings are copied and sanitized; fields the provider does not report keep their validity
 * bit clear. Money is parsed into micro-dollars (bj_money).
 */
#ifndef GPURENT_BACKENDS_PARSE_H
#define GPURENT_BACKENDS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpurent/error.h"
#include "gpurent/model.h"

struct cJSON;

/* --- shared helpers (src/backends/bjson.c) --- */

/* Parse a body into a cJSON tree, or fail with "<provider>: malformed reply". */
enum gr_err bj_parse(const char *provider, const char *body, size_t len, struct cJSON **out,
    struct gr_error *err);

/* A provider's verdict on a raw reply: of judges the body parsed (NULL when it is empty or
   not JSON) and, for a message, its raw text. */
typedef enum gr_err (*bj_error_of_fn)(long status, const struct cJSON *j, const char *body,
    size_t len, struct gr_error *err);
enum gr_err bj_error(long status, const char *body, size_t len, bj_error_of_fn of,
    struct gr_error *err);

/* A provider's error code and the error it means here. */
struct bj_code {
	const char *code;
	enum gr_err err;
};
/* What code means by a table of n, GR_OK when it is not listed. */
enum gr_err bj_code_of(const struct bj_code *t, size_t n, const char *code);

/* An offer's figure: a whole number below `below` at key, kept in *to, its bit set in valid. */
struct bj_figure {
	const char *key;
	long long below;
	int *to;
	unsigned bit;
};
/* Each of n figures of obj that is there and in 1..below-1. */
void bj_figures(const struct cJSON *obj, const struct bj_figure *f, size_t n, unsigned *valid);

/* A provider's reading of one instance of a reply into a zeroed out. */
typedef void (*bj_instance_fn)(const struct cJSON *o, struct instance *out);
/* Each object of arr read by from_json into out, those that come out with an id. */
void bj_instances_add(const struct cJSON *arr, bj_instance_fn from_json,
    struct instance_list *out);
/*
 * bj_instances_add of the list arr of a reply (in the tree j, which this deletes); arr not
 * a list is malformed (GR_EUNAVAIL with no_list, a message marked N_()).
 */
enum gr_err bj_instances_read(struct cJSON *j, const struct cJSON *arr, bj_instance_fn from_json,
    const char *no_list, struct instance_list *out, struct gr_error *err);
/*
 * The instance o of a reply (in the tree j, which this deletes) read by from_json; o not an
 * object, or one that comes out without an id, is malformed (GR_EUNAVAIL with not_object or
 * no_id, messages marked N_()).
 */
enum gr_err bj_instance_read(struct cJSON *j, const struct cJSON *o, bj_instance_fn from_json,
    const char *not_object, const char *no_id, struct instance *out, struct gr_error *err);

/* A provider's name for an instance state, and the state. */
struct bj_state {
	const char *name;
	enum inst_state st;
};
/* The state a name is by a table of n: ST_UNKNOWN when the name is NULL or not listed. */
enum inst_state bj_state_of(const struct bj_state *t, size_t n, const char *name);

/*
 * Fails err as Lambda and PPIO word a refusal: code c (GR_OK: the status's, else GR_EFAIL)
 * and "MSG [CODE] (HTTP status)" cut at 255 bytes before the status, MSG or CODE alone when
 * the other is "", "; SUGG" after when SUGG is not ""; http_fail_status when neither MSG nor
 * CODE is known.
 */
enum gr_err bj_fail_coded(struct gr_error *err, const char *provider, long status,
    enum gr_err c, const char *msg, const char *code, const char *sugg);

/*
 * A JSON number or decimal string in dollars as micro-dollars. A number is rounded with
 * llround(v * 1e6): a double carries 15 significant digits, so any price below $10^8 with
 * at most six decimals (all provider prices) converts exactly. Negative, NaN, huge or
 * non-numeric values are rejected (false).
 */
bool bj_money(const struct cJSON *n, int64_t *out);
bool bj_money_at(const struct cJSON *obj, const char *key, int64_t *out);
/* A number (or numeric string) member; false when absent, null or not numeric. */
bool bj_num(const struct cJSON *obj, const char *key, double *out);
bool bj_int(const struct cJSON *obj, const char *key, long long *out);
/*
 * When a run that has lasted the member's figure (in units of scale seconds: 60 for minutes)
 * began: now less the uptime, to the nearest minute, so that a figure the provider rounds
 * and a reply read a moment later give the same start (remote's pin compares starts with a
 * margin for the rest). False when absent, null, negative or past ten years.
 */
bool bj_started_from_uptime(const struct cJSON *obj, const char *key, double scale, int64_t now,
    int64_t *out);
/* A bool member; false when absent or not a bool. */
bool bj_bool(const struct cJSON *obj, const char *key, bool *out);
/* A string member copied and sanitized into dst; false (dst "") when absent or not a string. */
bool bj_str(const struct cJSON *obj, const char *key, char *dst, size_t n);
/*
 * A launch's environment (env: "KEY=value" strings, NULL-terminated, or NULL) as obj's member
 * "env", an object of strings, with GPURENT_CLIENT_TOKEN when client_token is not NULL (the
 * token an unclear launch is recognised by). Entries without a key are left out.
 */
void bj_env_object(struct cJSON *obj, const char *const *env, const char *client_token);
/* The raw string of a member, or NULL. */
const char *bj_strp(const struct cJSON *obj, const char *key);

/*
 * A streaming scanner for a reply whose records sit in one container of the reply, fed the
 * body in chunks as they arrive (src/backends/jscan.c). The container is found from the
 * top-level object by a path of member names: an array ({"offers": [...]}, path "offers";
 * {"data": {"gpuTypes": [...]}}, path "data", "gpuTypes"), or with members set an object
 * whose members are the records ({"data": {"gpu_1x_a10": {...}}}, path "data"). Each element
 * (for an object, each member: the callback's item has the member's name in ->string) is
 * parsed with cJSON on its own and handed to fn, then freed; fn returns false to stop. The
 * rest of the reply (the skeleton, the container left empty) is parsed once at the end and
 * handed back, for the members a caller also wants (errors, success flags).
 * A body is accepted exactly when cJSON_ParseWithLength would accept it whole: malformed,
 * truncated and too deeply nested bodies (beyond CJSON_NESTING_LIMIT containers) fail. Each
 * step of the path is the first member of that name, as cJSON finds it; one spelled with
 * escapes is not streamed but its container handed over from the skeleton at the end, and
 * when an escaped duplicate hides the streamed one (elements already handed over), the
 * reply counts as having no container.
 */
typedef bool (*jscan_elem_fn)(const struct cJSON *elem, void *ctx);
struct jscan;

enum jscan_end {
	JSCAN_OK,		/* well formed, the array found; *skeleton set */
	JSCAN_EMPTY,		/* no byte at all */
	JSCAN_MALFORMED,	/* not JSON, truncated, too deep, or fn refused an element */
	JSCAN_NO_ARRAY,		/* JSON, but the path leads to no container of the kind
				   wanted; *skeleton set */
};

enum { JSCAN_PATH_MAX = 4 };	/* steps of a path at most */

/* path: NULL-terminated member names, at most JSCAN_PATH_MAX; the strings must outlive s. */
struct jscan *jscan_new_path(const char *const *path, bool members, jscan_elem_fn fn,
    void *ctx);
/* The array under one top-level member: jscan_new_path({key, NULL}, false, ...). */
struct jscan *jscan_new(const char *key, jscan_elem_fn fn, void *ctx);
/* false once the body is known to be malformed or fn refused an element (stays false). */
bool jscan_feed(struct jscan *s, const char *p, size_t n);
/* After the last chunk. The caller frees *skeleton (cJSON_Delete), NULL unless set. */
enum jscan_end jscan_finish(struct jscan *s, struct cJSON **skeleton);
/*
 * What a streamed parser says of a scan's end, the same for every provider: GR_OK for
 * JSCAN_OK, else GR_EUNAVAIL with "empty reply from PROVIDER", "malformed reply from
 * PROVIDER (not JSON)", or no_container (an N_() string, translated here) for a reply
 * without its list.
 */
enum gr_err jscan_end_error(enum jscan_end end, const char *provider, const char *no_container,
    struct gr_error *err);
void jscan_free(struct jscan *s);

/*
 * Members picked by name (src/backends/jpick.c): one JSON value p[0..n), then nothing but
 * whitespace, accepted exactly when cJSON_ParseWithLengthOpts would accept it with nothing
 * but whitespace after; NULL when not. An object comes back holding only its members named
 * in k (the first member of each name, as cJSON_GetObjectItemCaseSensitive finds it, in the
 * order they stood), the rest checked but never built; any other value comes back whole.
 * Names: NULL-terminated, at most JPICK_MAX, the strings outliving k (they are the picked
 * members' keys).
 */
enum { JPICK_MAX = 64 };
struct jpick;
struct jpick *jpick_new(const char *const *names);
void jpick_free(struct jpick *k);
struct cJSON *jpick_parse(const struct jpick *k, const char *p, size_t n);
/*
 * An object at p[0] picked as jpick_parse picks it, when it ends within p[0..n) (whatever
 * follows it): *used is its length. limit: the containers it may open (cJSON's limit less
 * those around it). NULL when p holds no whole object there: malformed or cut short, which
 * the caller tells apart with the bytes that follow (jscan does, with jpick_parse).
 */
struct cJSON *jpick_object_prefix(const struct jpick *k, const char *p, size_t n, size_t limit,
    size_t *used);
/* The same picking on an object already parsed: its other members (and later members of a
   picked name) are deleted. Anything but an object is left as it is. */
void jpick_filter(const struct jpick *k, struct cJSON *obj);
/*
 * Elements of the scanned array parsed with jpick_parse: an object element reaches the
 * callback with only the members k names (one handed over from the skeleton, the array
 * under a name spelled with escapes, picked with jpick_filter). k must outlive s. Not for
 * members mode.
 */
void jscan_pick(struct jscan *s, const struct jpick *k);

/*
 * An offers reply read as it arrives, the same for every provider (jscan.c): a jscan over
 * the reply (kind's path, each element picked to kind's members when pick is set) whose
 * elements kind's map appends to out as offers; at the end kind's verdict on the scan's end,
 * the skeleton and the HTTP status. On an error nothing stays appended to out. arg is the
 * provider's own (the offer type, spot wanted, the currency), borrowed for the stream's life.
 */
struct offer_stream_kind {
	const char *const *path;	/* jscan_new_path's path and members */
	bool members;
	const char *const *pick;	/* jpick_new's names, or NULL: elements whole */
	void (*map)(const struct cJSON *elem, const void *arg, struct offer_list *out);
	/* The verdict on the end; NULL: jscan_end_error's with provider and no_container. */
	enum gr_err (*end)(enum jscan_end end, const struct cJSON *skeleton, long status,
	    struct gr_error *err);
	const char *provider, *no_container;
};
struct offer_stream;
struct offer_stream *offer_stream_new(const struct offer_stream_kind *k, const void *arg,
    struct offer_list *out);
bool offer_stream_feed(struct offer_stream *s, const char *p, size_t n);
enum gr_err offer_stream_finish(struct offer_stream *s, long status, struct gr_error *err);
void offer_stream_free(struct offer_stream *s);
/* A whole body, as a 200 reply: the same stream fed once. */
enum gr_err offer_stream_parse(const struct offer_stream_kind *k, const void *arg,
    const char *body, size_t len, struct offer_list *out, struct gr_error *err);

/* "RunPod said ..." messages: the first non-empty of the listed string members. */
const char *bj_first_str(const struct cJSON *obj, const char *const *keys);

/* --- vast.ai (src/backends/vast_parse.c) --- */

/* Each provider's own name for a catalogue model, or NULL (used by `sim serve`). */
const char *vast_gpu_name_of(const struct gpu_model *m);
const char *runpod_gpu_id_of(const struct gpu_model *m);
/* Lambda's model token ("h100_sxm5") for an instance type name, or NULL. */
const char *lambda_token_of(const struct gpu_model *m);

struct filter;

/*
 * The search query object for POST /api/v0/bundles/ (vast.md section 2.2): the CLI's
 * defaults plus every filter term vast can evaluate. *pushed_all is cleared when a term
 * could not be pushed down. Returns a malloc'd JSON string.
 */
char *vast_build_query(const struct filter *f, enum offer_type type, int disk_gb, int limit,
    bool *pushed_all);
/* Which searches a filter needs: on-demand, interruptible or both. */
void vast_types_wanted(const struct filter *f, bool *on_demand, bool *interruptible);

/*
 * POST /api/v0/bundles/ reply {"offers": [...]}, parsed as it arrives: each offer is mapped
 * onto the model as soon as its element is complete, so memory never holds the body or its
 * whole tree (an offer_stream of this kind; arg: the enum offer_type asked). Its verdict:
 * GR_OK or the error (the one the reply states, for the reply's status: a 2xx with
 * success:false is one; else empty, not JSON, no offers array).
 */
extern const struct offer_stream_kind vast_offer_kind;
/* The same on a whole body: appends offers of the given type. */
enum gr_err vast_parse_offers(const char *body, size_t len, enum offer_type type,
    struct offer_list *out, struct gr_error *err);
/* One element of the offers array onto the model, as the stream maps each (a whole element,
   or one parsed with only the members the stream picks). */
void vast_offer_from_json(const struct cJSON *o, enum offer_type type, struct offer *out);
/* One instance row (as in lists and get) onto the common model. */
void vast_instance_from_json(const struct cJSON *row, struct instance *out);
/* GET /api/v1/instances/ page: appends instances; next_token gets the cursor or "". */
enum gr_err vast_parse_instances(const char *body, size_t len, struct instance_list *out,
    char *next_token, size_t ntok, struct gr_error *err);
/* GET /api/v0/instances/{id}/ reply {"instances": {row} | null}: GR_ENOTFOUND on null. */
enum gr_err vast_parse_instance(const char *body, size_t len, struct instance *out,
    struct gr_error *err);
/* PUT /api/v0/asks/{id}/ success reply: the new contract (instance) id. */
/* A prepay's answer {success, timescale (months), discount_rate}. */
enum gr_err vast_parse_prepay(const char *body, size_t len, int *discount_bp, int64_t *covered_s,
    struct gr_error *err);
enum gr_err vast_parse_create(const char *body, size_t len, long long *contract,
    struct gr_error *err);
/* GET /api/v0/users/current/: credit as balance. */
enum gr_err vast_parse_user(const char *body, size_t len, struct account *out,
    struct gr_error *err);
/*
 * GET /api/v0/charges/: each instance's result (source "instance-N") as a charge of
 * "vast:N" on the UTC day of its start, its amount in dollars, the sum of its "disk" items as
 * storage (-1 without items or with one unreadable); other sources (volumes, serverless) are
 * skipped. next_token as vast_parse_instances. success:false, or an instance's result
 * without a readable amount (negative included) or start, fails it (GR_EUNAVAIL) with
 * nothing appended: a bill read in part would compare as differences that are not there.
 */
enum gr_err vast_parse_charges(const char *body, size_t len, struct charge_list *out,
    char *next_token, size_t ntok, struct gr_error *err);
/* One instance row's single-value metrics as one sample (vast has no per-GPU numbers). */
enum gr_err vast_parse_metrics(const char *body, size_t len, struct sample_list *out,
    struct gr_error *err);
/*
 * An error reply (any status, or 200 with success:false) onto an error code and message:
 * "Invalid user key" is auth whatever the status; no_such_ask and 410 are capacity.
 * Returns GR_OK when the body is a success.
 */
enum gr_err vast_parse_error(long status, const char *body, size_t len, struct gr_error *err);

/* --- RunPod GraphQL (src/backends/runpod_parse.c) --- */
/*
 * RunPod's price of a pod volume while its pod is stopped, in micro-dollars per GB-month
 * (providers/runpod.md §3: $0.20; the container disk is free once stopped). A pod's
 * costPerHr leaves storage out, so this is where its storage rate comes from.
 */
#define RUNPOD_VOLUME_STOPPED_GB_MONTH 200000
/* What a stopped pod with a volume of gb GB bills per hour (a monthly price over 730 h). */
int64_t runpod_stopped_storage_hour(long long gb);
/*
 * RunPod's price of a running pod's disks, its container disk and its volume alike, in
 * micro-dollars per GB-month (providers/runpod.md §3: $0.10), which costPerHr leaves out too.
 */
#define RUNPOD_DISK_RUNNING_GB_MONTH 100000
/* What the gb GB of a running pod's disks bill per hour, beside its costPerHr. */
int64_t runpod_running_disk_hour(long long gb);

/*
 * A gpuTypes reply {"data": {"gpuTypes": [...]}} whose lowestPrice aliases are named s<N>
 * (secure cloud) and c<N> (community) for N GPUs: one offer per (type, cloud, N) in stock.
 * With want_spot, an offer with a minimumBidPrice also gives an OFFER_INTERRUPTIBLE offer.
 * Parsed as it arrives, like vast's (an offer_stream of this kind; arg: the bool want_spot):
 * its verdict is GR_OK or the error, as runpod_parse_error gives it for the reply's errors[] (the
 * skeleton holds them whatever their place), else "malformed reply (not JSON)" for an
 * empty, truncated or non-object body, "malformed reply (no gpuTypes)"; on an error the
 * offers appended by this reply are taken back.
 */
extern const struct offer_stream_kind runpod_offer_kind;
/* The same on a whole body (a 200). */
enum gr_err runpod_parse_gpu_types(const char *body, size_t len, bool want_spot,
    struct offer_list *out, struct gr_error *err);
/* The GraphQL request body for offers with the filter pushed down (gpu ids, GPU counts). */
char *runpod_build_offers_query(const struct filter *f, bool *pushed_all);
/* A Pod object onto the common model. */
void runpod_pod_from_json(const struct cJSON *pod, struct instance *out);
/* What GraphQL and v2 say alike of a pod: the provider, the id "runpod:<pod id>" (a pod keeps
   one id whichever API lists it) and its name as the label. */
void runpod_pod_identity(const struct cJSON *pod, struct instance *out);
/* {"data": {"myself": {"pods": [...]}}}. */
enum gr_err runpod_parse_pods(const char *body, size_t len, struct instance_list *out,
    struct gr_error *err);
/*
 * GET /v2/billing/pods?grouping=podId&bucketSize=day (providers/runpod.md §4.4, §9): records
 * {podId, startTime (RFC 3339), totalAmount, diskAmount, ...}, as {"records": [...]} or a bare
 * array (v1), as charges of "runpod:<podId>" on the UTC day of startTime, diskAmount as
 * storage (-1 when absent). A record without a pod id (another grouping), a readable start or
 * total, or a reply that holds no list, fails it (GR_EUNAVAIL) with nothing appended.
 */
enum gr_err runpod_parse_billing(const char *body, size_t len, struct charge_list *out,
    struct gr_error *err);
/* {"data": {"pod": {...} | null}}: GR_ENOTFOUND on null. */
enum gr_err runpod_parse_pod(const char *body, size_t len, struct instance *out,
    struct gr_error *err);
/* A mutation reply {"data": {"<field>": Pod}}: the pod (field may be NULL for any). */
enum gr_err runpod_parse_mutation(const char *body, size_t len, const char *field,
    struct instance *out, struct gr_error *err);
/* {"data": {"myself": {clientBalance, currentSpendPerHr}}}. */
enum gr_err runpod_parse_myself(const char *body, size_t len, struct account *out,
    struct gr_error *err);
/* {"data": {"pod": {"runtime": {"gpus": [...]}}}}: one sample per GPU. */
enum gr_err runpod_parse_metrics(const char *body, size_t len, const char *id,
    struct sample_list *out, struct gr_error *err);
/*
 * HTTP status plus GraphQL errors[] onto an error: 401 auth, "Unauthorized" auth, "no longer
 * any instances" / "not enough free GPUs" capacity, podTerminate path / "not found" not
 * found. GR_OK when the reply has no errors and a 2xx status.
 */
enum gr_err runpod_parse_error(long status, const char *body, size_t len, struct gr_error *err);

/* Offers from a catalogue entry: gt's id and memoryInGb, lp as GraphQL's lowestPrice. */
void runpod_offer_add(struct offer_list *out, const struct cJSON *gt, const struct cJSON *lp,
    bool secure, int count, bool spot);
/* The country of a data centre id ("EU-RO-1": "RO"); false when it has none. */
bool runpod_dc_country(const char *dc, char cc[3]);
/* o's dataCenterId as a region (the continent of its country, else the id) into region. */
void runpod_region_of_dc(const struct cJSON *o, char *region, size_t n);
/* The mean of the figure key (a percent) of the GPUs gpus lists, as out's utilisation. */
void runpod_gpus_util(const struct cJSON *gpus, const char *key, struct instance *out);
/* A runtime's gpus[] as samples, one per GPU, utilisation at util_key (GraphQL's
   gpuUtilPercent, v2's util); whether any GPU carried it. */
bool runpod_runtime_samples(const struct cJSON *rt, const char *util_key, const char *id,
    struct sample_list *out);
/* A time as RunPod writes it (ISO 8601, Go's default, Unix seconds) at o's key. */
bool runpod_pod_time(const struct cJSON *o, const char *key, int64_t *out);

/* --- RunPod REST v2 (src/backends/runpod_v2_parse.c) --- */

/* A v2 Pod onto the common model: status, cost (a rate only while it runs), gpu, disk,
   dataCenterId, runtime.gpus[].util, the ssh block (direct, else proxy) while running, and
   v1's interruptible and lastStatusChange where given. */
void runpod_v2_pod_from_json(const struct cJSON *pod, struct instance *out);
/* {"pods": [...]}. */
enum gr_err runpod_v2_parse_pods(const char *body, size_t len, struct instance_list *out,
    struct gr_error *err);
/* One Pod object (GET /v2/pods/{id}, create, action). */
enum gr_err runpod_v2_parse_pod(const char *body, size_t len, struct instance *out,
    struct gr_error *err);
/* A Pod's runtime.gpus as samples, one per GPU; *carried: the reply says all there is
   (the pod has no runtime, or some GPU carries its util), so GraphQL has nothing to add. */
enum gr_err runpod_v2_parse_metrics(const char *body, size_t len, const char *id,
    struct sample_list *out, bool *carried, struct gr_error *err);
/* GET /v2/catalog/gpus?include=AVAILABILITY {"gpus": [...]}: an offer per GPU type, cloud
   with a price, and GPU count some data centre has free. */
enum gr_err runpod_v2_parse_catalog(const char *body, size_t len, struct offer_list *out,
    struct gr_error *err);

/* Offer ids: "runpod:<cloud s|c><count>-<gpuTypeId with ' ' as '+'>", e.g.
   "runpod:s8-NVIDIA+H100+80GB+HBM3". Decoding restores the id byte for byte. */
void runpod_offer_id(char *dst, size_t n, bool secure, int count, bool spot, const char *type_id);
bool runpod_offer_id_parse(const char *id, bool *secure, int *count, bool *spot, char *type_id,
    size_t n);

/* --- Lambda (src/backends/lambda_parse.c) --- */

/*
 * GET /instance-types {"data": {"<type name>": {instance_type, regions_with_capacity_available},
 * ...}}: one offer per (type, region with capacity); a type with no capacity anywhere gives
 * one offer with available 0 and no region. Parsed as it arrives (an offer_stream of this
 * kind; no arg): each member of data is mapped as soon as it is complete. Its verdict: GR_OK,
 * or "empty reply from lambda", "malformed reply from lambda (not
 * JSON)" (truncated too), "malformed reply (no data object)"; on an error the offers
 * appended by this reply are taken back.
 */
extern const struct offer_stream_kind lambda_offer_kind;
/* The same on a whole body. */
enum gr_err lambda_parse_instance_types(const char *body, size_t len, struct offer_list *out,
    struct gr_error *err);
void lambda_instance_from_json(const struct cJSON *inst, struct instance *out);
enum gr_err lambda_parse_instances(const char *body, size_t len, struct instance_list *out,
    struct gr_error *err);
enum gr_err lambda_parse_instance(const char *body, size_t len, struct instance *out,
    struct gr_error *err);
/* {"data": {"instance_ids": [id]}}: the first id. */
enum gr_err lambda_parse_launch(const char *body, size_t len, char *id, size_t n,
    struct gr_error *err);
/* {"data": [{id, name, public_key}]}: the names, at most max; *count gets the total. */
enum gr_err lambda_parse_ssh_keys(const char *body, size_t len, char (*names)[65], size_t max,
    size_t *count, struct gr_error *err);
/* {"error": {code, message, suggestion}} onto an error code by `code`, else by status. */
enum gr_err lambda_parse_error(long status, const char *body, size_t len, struct gr_error *err);
/* gpu_8x_h100_sxm5 -> count 8, token "h100_sxm5"; false when not gpu_<N>x_<token>. */
bool lambda_type_split(const char *type, int *count, char *token, size_t n);

/* --- PPIO GPU API v2 (src/backends/ppio_parse.c) --- */

/*
 * A price integer scaled by `precision` decimal places (§4.2: 12600 with precision 3 is
 * 12.600) as micro-units, exactly: a whole JSON number below 2^53 or a string of digits,
 * never through a fraction. false for anything else or a precision outside 0..12.
 */
bool ppio_scaled(const struct cJSON *n, long long precision, int64_t *micros);
/*
 * GET /gpus/v2/products {"data": [Product]}: one offer per product, region, GPU count in
 * {1, 2, 4, 8} within [gpu.min, gpu.max] and billing method (postpaid: on demand; spot:
 * interruptible), priced final_price x count in `currency` (the payload names none).
 */
enum gr_err ppio_parse_products(const char *body, size_t len, const char *currency,
    struct offer_list *out, struct gr_error *err);
/*
 * The same as the body arrives (an offer_stream of this kind; arg: the currency): each
 * product is mapped as soon as its element is complete. Its verdict: GR_OK, or the error
 * (empty, not JSON, no data array) with nothing appended. Errors in the provider's own shape come
 * with a non-2xx status, which is never streamed (ppio_parse_error reads that body).
 */
extern const struct offer_stream_kind ppio_product_kind;
/* The same with each on-demand offer's prepaid terms (OFFER_RESERVED) after it. */
extern const struct offer_stream_kind ppio_product_terms_kind;
/* Offer ids: "ppio:<product>@<region>:<count>[s|t<months>]" (s: spot; t: prepaid for that
   many months); the region may be absent. */
void ppio_offer_id(char *dst, size_t n, const char *product, const char *region, int count,
    bool spot);
bool ppio_offer_id_parse(const char *local, char *product, size_t n, char *region, size_t nr,
    int *count, bool *spot);
/* The months of a prepaid offer's local id (ppio_offer_id_parse accepts it); 0: none. */
int ppio_offer_term(const char *local);
/* "华南 cn-south-1, CN" for a PPIO region id; the id alone when its area is unknown. */
void ppio_region_location(const char *region, char *out, size_t n);
/* status.status (v1's vocabulary, §6) onto the lifecycle; a non-empty error is failed. */
enum inst_state ppio_state(const char *status, const char *error, long long last_started);
void ppio_instance_from_json(const struct cJSON *inst, struct instance *out);
/* GET /gpus/v2/instances page: appends; next_cursor (opaque) and has_more for the next. */
enum gr_err ppio_parse_instances(const char *body, size_t len, struct instance_list *out,
    char *next_cursor, size_t ncur, bool *has_more, struct gr_error *err);
/* GET /gpus/v2/instances/{id}. */
enum gr_err ppio_parse_instance(const char *body, size_t len, struct instance *out,
    struct gr_error *err);
/* POST /gpus/v2/instances {"id": ...}: the id, refused unless URL-safe. */
enum gr_err ppio_parse_create(const char *body, size_t len, char *id, size_t n,
    struct gr_error *err);
/*
 * An error reply onto an error code by its `reason` (§8: almost everything is HTTP 400, so
 * the name decides: INSUFFICIENT_RESOURCE capacity, RESOURCE_NOT_FOUND not found, ...),
 * else by status. GR_OK for a 2xx.
 */
enum gr_err ppio_parse_error(long status, const char *body, size_t len, struct gr_error *err);

#endif
