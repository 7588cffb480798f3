/*
 * session.h - what a command runs against: config, profile, database and backends.
 *
 * The contract of src/session/, the one data path that cmd/, ui/, shell/ and guard/ share.
 * It sits above backends/, vault/ and sim/ and composes them: the profile and config, the
 * credentials from the vault, the backends chosen (created on first use), the fan-out of a
 * search or listing over them, and the state database. Nothing below it includes this
 * header; core/ keeps only the domain that all of them use.
 *
 * Everything is opened lazily, so `gpurent version` touches no file and `offers` on the
 * simulator opens only what it needs.
 */
#ifndef GPURENT_SESSION_H
#define GPURENT_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "backend.h"
#include "error.h"
#include "sampler.h"

struct config;
struct state;
struct filter;
struct cost_clock;

#define SESSION_MAX_PROVIDERS 16

struct session {
	const char *profile;		/* --profile, else GPURENT_PROFILE */
	const char *providers[SESSION_MAX_PROVIDERS];	/* --provider, repeatable */
	size_t n_providers;
	int debug;
	int verbose;
	bool interactive;		/* stdin and stderr are terminals */
	bool format_set;		/* -o given: the config's 'output' does not apply */
	bool color_set;			/* --color given */
	bool say_waits;			/* fan-outs name on stderr the providers they wait for */

	struct config *config;		/* lazily loaded */
	struct state *state;		/* lazily opened */
	struct state *sim_state;	/* the simulator's file, when state is PostgreSQL */
	struct backend *backends[SESSION_MAX_PROVIDERS];
	char *vault_keys[SESSION_MAX_PROVIDERS];	/* keys unsealed for backends[i] */
	size_t n_backends;
	bool state_lent;		/* state is the simulator's ledger too (add_backend) */
	bool backends_ready;
	bool sim_notice_done;
	/* The team's watcher: in a team profile, each backend has the team key or none. */
	bool team_keys;
	bool team_key_missing[SESSION_MAX_PROVIDERS];	/* backends[i] got none */
};

void session_init(struct session *s);
void session_release(struct session *s);
/* Forget the backends (the shell does after a command with its own --provider). */
void session_drop_backends(struct session *s);
/*
 * Before a session's next piece of work (the shell's next command, a dashboard or exporter
 * lane's next round): a state lent to the simulator that could not be opened is opened
 * again at its next use, in place (state_open_retry), as the server may be back. A state
 * nobody was lent is opened again by session_state itself.
 */
void session_state_retry(struct session *s);

/* The config, refused with config_problem's words when it has a line it cannot read. */
enum gr_err session_config(struct session *s, struct config **out, struct gr_error *err);
/* The config even then, for the one command that mends it (config). */
enum gr_err session_config_any(struct session *s, struct config **out, struct gr_error *err);
/* err may be NULL where a caller goes on without the database. */
enum gr_err session_state(struct session *s, struct state **out, struct gr_error *err);
/* Where the simulator's world is: the state, when that is a file; else this user's state
 * file (a team's PostgreSQL state keeps no simulated world). err may be NULL. */
enum gr_err session_sim_state(struct session *s, struct state **out, struct gr_error *err);

/*
 * The team key of provider for the watcher of cfg's team: sealed in st to this machine's
 * watcher key, opened with its secret half from this machine's vault (profile's);
 * *key_out sodium_malloc'd. GR_EAUTH, saying what to do, when there is no such key.
 */
enum gr_err session_team_key(const struct config *cfg, const char *profile, struct state *st,
    const char *provider, char **key_out, struct gr_error *err);

/* The selected backends: --provider, else the profile's or top-level `providers`, else sim. */
enum gr_err session_backends(struct session *s, struct gr_error *err);

/* The backend that owns an id ("vast:123"), whether or not it is selected. */
enum gr_err session_backend_for(struct session *s, const char *id, struct backend **out,
    struct gr_error *err);

/*
 * The provider's create of req on b, and its start of instance `id`, observed into the ledger:
 * the only calls of observed_launch and observed_start (observed.h), the only callers of a
 * backend's launch and start ops (scripts/check-layers). Neither is admitted here: launches
 * and starts go through the guard's doors (launch.h: guard_launch, guard_start), which check
 * the budgets and call these.
 */
enum gr_err session_launch(struct backend *b, const struct launch_req *req,
    struct instance *out, struct gr_error *err);
enum gr_err session_start(struct backend *b, const char *id, struct gr_error *err);

/*
 * One offer as its provider has it now, by id ("vast:123"), through the provider's own
 * search (no provider lists a single offer). GR_ECAPACITY when it is not on the market:
 * rented by someone else, or gone. Launch and the groups' launches re-read an offer with it
 * just before renting it.
 */
enum gr_err session_offer_find(struct session *s, const char *offer_id, struct offer *out,
    struct gr_error *err);

/* Per-provider result of a fan-out. */
struct fanout_result {
	struct backend *b;
	enum gr_err code;
	struct gr_error err;
	bool pushed_all;
	double seconds;
	size_t count;		/* offers or instances it returned */
	bool from_cache;	/* offers: answered from the offer cache, not asked */
	int64_t fetched_at;	/* offers: when the provider answered (UTC seconds) */
};

/*
 * Run offers or instances on every selected backend at once, one thread each, and append
 * the results in backend order. results has n_backends entries. Returns GR_OK when every
 * backend succeeded, GR_EPARTIAL when some did, and the first error when none did.
 */
enum gr_err session_offers(struct session *s, const struct filter *f, struct offer_list *out,
    struct fanout_result *results, struct gr_error *err);
/*
 * Offers stamp each offer's fetched_at with when its provider answered, and keep every
 * provider's fresh answer in the offer cache (offer_cache.h: by filter and provider config).
 * session_offers_aged answers a provider from that cache instead when its answer to this
 * filter is at most max_age_s old (-1: always ask, as session_offers does); those results
 * have from_cache set and the answer's fetched_at.
 */
enum gr_err session_offers_aged(struct session *s, const struct filter *f, long long max_age_s,
    struct offer_list *out, struct fanout_result *results, struct gr_error *err);
enum gr_err session_instances(struct session *s, struct instance_list *out,
    struct fanout_result *results, struct gr_error *err);
/*
 * The stamp of the market session_offers would answer f with now, over every selected
 * provider (backend.h offers_stamp: equal stamps from one session, an equal answer up to
 * fetched_at, also for an answer fetched just after the first stamp was read). false when
 * any provider cannot say (no such operation, not ready, or it failed): only asking tells.
 */
bool session_offers_stamp(struct session *s, const struct filter *f, uint64_t *out);

/* Current UTC time as the session sees it (the simulator's clock when only sim is used). */
int64_t session_now(struct session *s);

/*
 * The clocks the ledger's rows follow (costs.h): the wall clock, and the simulator's when a
 * simulated world exists in the database, whichever providers this session uses. The
 * summary shows the simulator's clock when the session uses sim, as session_now does.
 */
void session_clock(struct session *s, struct cost_clock *out);

/*
 * Now on the clock of instance id's provider (cost_clock_now): the simulator's for a sim
 * instance, the wall clock for every other. Each sample of an instance is stamped on it,
 * whatever its source, so that its history has one clock and its newest sample is newest.
 */
int64_t session_now_of(struct session *s, const char *id);

/* Where GPU samples come from (metrics --source). */
enum metrics_source {
	METRICS_AUTO,	/* ssh where the instance answers and has a GPU tool, else the API */
	METRICS_API,	/* the provider's API */
	METRICS_SSH,	/* the sampler over ssh, or an error */
};
bool metrics_source_parse(const char *s, enum metrics_source *out);

/*
 * Where ssh listens on instance id, with the identity from config and the state directory:
 * a clear error when the id is unknown, not running, has no endpoint yet, or its provider
 * gave fields that must not reach ssh.
 */
enum gr_err session_endpoint(struct session *s, const char *id, struct remote_endpoint *ep,
    struct gr_error *err);
/* The endpoint of instance in as its provider described it (session_endpoint's, with no
 * provider call): cfg may be NULL (no identity, ssh's own config). */
enum gr_err session_endpoint_of(const struct config *cfg, const struct instance *in,
    struct remote_endpoint *ep, struct gr_error *err);

/*
 * A snapshot: one sample of every GPU of an instance (and, over ssh, its host) from src
 * (src/session/snapshot.c). With auto, ssh is tried with a short connect timeout and the
 * API answers when the machine does not, or has no GPU tool; each sample says which it was.
 *
 * session_snapshots takes the snapshots of n jobs at once, for a sampler that takes many
 * every round (the exporter's lanes). Their ssh attempts run side by side, at most width
 * at a time (and at most SESSION_SSH_WIDTH_MAX): a round of instances that refuse ssh costs
 * the slowest few attempts, not the sum of them all. Everything that asks the provider
 * (endpoints, nodes, the API's figures) stays on the caller's thread, one instance after
 * another, as a session's backend is not shared between threads. Each job's out is
 * initialised by the caller; rc and err say how it went, by_ssh whether the figures came
 * over ssh (auto: false when ssh failed and the API answered, or nothing did). What it
 * takes is not kept: samplers go through the door below.
 */
#define SESSION_SSH_WIDTH_MAX 32
struct snapshot_job {
	const char *id;			/* in */
	enum metrics_source src;	/* in */
	struct probe_snapshot *out;	/* in: initialised; out: the figures */
	enum gr_err rc;			/* out */
	struct gr_error err;		/* out: why, when rc is not GR_OK */
	bool by_ssh;			/* out */
	struct gr_error store_err;	/* out (session_samples): why the figures were not
					   kept in the history; code GR_OK when they were */
};
void session_snapshots(struct session *s, struct snapshot_job *jobs, size_t n, size_t width);

/*
 * The door for a sample of the record (src/session/sample.c): the snapshot of instance id
 * from src into out (initialised by the caller), kept in the sample history (history.h)
 * with the history's retention applied on the session's clock (session_now). The watcher,
 * the exporter, the dashboard, `metrics` and `verify` sample here, and whatever decides
 * (watch, audit, groups, the exporter) reads the history. Returns the sampling error; a
 * failure to record (a busy or unwritable database) does not lose the snapshot: it is said
 * in *store_err (when not NULL; code GR_OK when the samples were kept).
 * session_samples: the same for n jobs at once (session_snapshots), each job's recording
 * in its store_err.
 */
enum gr_err session_sample(struct session *s, const char *id, enum metrics_source src,
    struct probe_snapshot *out, struct gr_error *err, struct gr_error *store_err);
void session_samples(struct session *s, struct snapshot_job *jobs, size_t n, size_t width);

/*
 * Keep samples that a follower took (a sampler's frames, session_node_samplers) in the
 * history, as the door keeps its own, and apply retention (one transaction each). The
 * samples of an instance that spans several machines (a multi-node Slurm job: samples with
 * different nodes) are kept as "ID/NODE", each node's GPUs a series of their own; the row
 * of a node that gave no sample (index -1) keeps nothing.
 */
enum gr_err session_record(struct session *s, const struct gpu_sample *v, size_t n,
    struct gr_error *err);

/*
 * A frame of instance id's sampler (sampler.h: stamped on this machine's clock when it
 * arrived) moved onto the instance's clock (session_now_of), its gap with it. The samples of
 * session_snapshots are moved already; a follower's frames are moved by its reader.
 */
void session_stamp_frame(struct session *s, const char *id, struct probe_snapshot *snap);

/*
 * Batch jobs (gpurent run --provider), recorded with seq 0 and their output file as dir.
 * session_batch_refresh: the job's state from its scheduler (the backend's get): exited with
 *   its status, killed, lost, or still running; a change is recorded. false (err set) when
 *   the provider could not be asked.
 * session_batch_tail: the last lines of its output (lines < 0: all of it), at most max
 *   bytes, as `logs` reads it: from PROVIDER.output_dir when this machine shares it with
 *   the nodes, else over ssh to the job's first node while the job runs. Raw bytes: the
 *   caller strips them before a terminal.
 */
struct remote_job;
struct sb;
bool session_batch_refresh(struct session *s, struct state *st, struct remote_job *j,
    struct gr_error *err);
enum gr_err session_batch_tail(struct session *s, const struct remote_job *j, long lines,
    struct sb *out, size_t max, struct gr_error *err);

/*
 * Following samplers on every machine instance id spans (a multi-node Slurm job: one per
 * node, its samples saying their node; else the instance's one), connected in parallel:
 * *n of them (at most SESSION_NODES_MAX) in the malloc'd *out; a machine that did not
 * answer has a NULL sampler and err says why. note says what is not followed (sanitized,
 * "" when nothing): the nodes past SESSION_NODES_MAX, or nodes that are all reached at one
 * host, followed as one machine. Fails, nothing allocated, only when the instance itself
 * has no ssh (session_endpoint's error).
 */
#define SESSION_NODES_MAX 64
struct node_sampler {
	struct sampler *sm;
	char node[64];		/* "" for a one-machine instance */
	struct gr_error err;
};
enum gr_err session_node_samplers(struct session *s, const char *id, enum metrics_source src,
    int interval, struct node_sampler **out, size_t *n, char *note, size_t note_size,
    struct gr_error *err);

#endif
