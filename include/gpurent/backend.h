/*
 * backend.h - one interface, many providers (after curl's Curl_ssl and nvtop's gpu_vendor).
 *
 * Each provider is one const struct backend_ops in its own file under src/backends/, listed
 * in registry.c. The core creates a struct backend for it, allocates ops->priv_size bytes of
 * private state, calls init, the operations, then cleanup, and frees what it allocated.
 *
 * Rules for every slot:
 *  - Returns GR_OK or an error, with the reason written to err (first writer wins).
 *  - Never prints, exits, reads credential files or touches the terminal.
 *  - Output lists and records belong to the caller; strings are copied into them,
 *    sanitized (text_sanitize) and truncated to fit.
 *  - Ids passed in and out are full ids with the provider prefix ("vast:123").
 *  - Writes nothing to the ledger: the caller observes what came back (observed.h).
 *  - Optional slots may be NULL: the core checks the slot or capability bit first and reports
 *    "'lambda' cannot stop an instance" itself, so no backend stubs them out.
 */
#ifndef GPURENT_BACKEND_H
#define GPURENT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

struct filter;
struct state;
struct config;

enum {
	CAP_STOP = 1u << 0,		/* can stop and start an instance, keeping its disk */
	CAP_METRICS = 1u << 1,		/* reports per-GPU metrics */
	CAP_INTERRUPTIBLE = 1u << 2,	/* interruptible (spot, bid) instances */
	CAP_ACCOUNT = 1u << 3,		/* reports balance or spend */
	CAP_SSH = 1u << 4,		/* reports an ssh endpoint */
	CAP_COST = 1u << 5,		/* reports per-instance cost so far */
	CAP_ALLOC = 1u << 6,		/* launch sizes an allocation: GPUs per node, nodes and a
					   runtime limit (launch_req.gpus_per_node ...) */
	CAP_BATCH = 1u << 7,		/* launch runs launch_req.script as a batch job that ends
					   when the script does; get then reports its exit status
					   (IV_EXIT) and cancel is destroy (gpurent run --provider) */
	CAP_CLUSTER = 1u << 8,		/* a shared cluster: cluster reports its partitions' GPUs
					   and the user's jobs (the dashboard's cluster view) */
};

/* What the core hands a backend at init. Everything is borrowed and outlives the backend. */
struct backend_env {
	const char *name;		/* the configured name, usually ops->name */
	const char *base_url;		/* NULL: the provider's public address */
	const char *api_key;		/* NULL when none is configured; never logged */
	const struct config *config;	/* the whole config, for provider-specific keys */
	struct state *state;		/* the local database (journal, ledger, simulator);
					   NULL: opened from db_path on first need */
	const char *db_path;		/* with state NULL: where backend_state opens it (a
					   command that never needs it, like offers, never
					   pays for a second connection) */
	const char *store_url;		/* with state NULL: a PostgreSQL state (a team's)
					   where gpurent's records go (ledger, launch journal),
					   while a world stays at db_path; NULL: db_path's */
	struct state *store;		/* store_url's connection lent by the session, for the
					   one backend that bills itself (the simulator): the
					   session's thread waits while the fan-out runs it, so
					   the two never use it at once, and a command opens
					   one connection to the server instead of two */
	int debug;			/* trace requests to stderr (keys redacted) */
	/* Tells the user of a change of course they asked to hear of (-v), such as a fallback
	   to an older API; a backend never prints. NULL: nothing is said. */
	void (*note)(void *ctx, const char *msg);
	void *note_ctx;
	long timeout_ms;		/* per request, total */
	long connect_timeout_ms;
};

struct backend;

/* One machine of an instance that spans several (a Slurm job's node). */
struct instance_node {
	char name[64];		/* the provider's name for it ("n2"), sanitized */
	char ssh_host[64];	/* where ssh reaches it */
};

struct backend_ops {
	const char *name;		/* as typed on the command line and in config */
	const char *description;
	unsigned caps;
	size_t priv_size;		/* bytes of zeroed private state the core allocates */
	const char *key_env;		/* the provider's own variable for its key, taken over
					   the credential store ("SLURM_JWT"); NULL: none */
	const char *no_stop_why;	/* without CAP_STOP: why, in the provider's own terms
					   ("a Slurm job can only be cancelled"); NULL: generic */
	bool own_ledger;		/* bills its instances into the ledger itself (the
					   simulator): the session observes nothing of it */
	bool lists_ended;		/* instances also appends the ended jobs the provider
					   still keeps (Slurm, for MinJobAge), so that their end
					   is observed; the session drops them from the list */

	/* Called once before any operation. Optional. */
	enum gr_err (*init)(struct backend *b, struct gr_error *err);
	/* Called once at the end, even after a failed init. Frees only what init allocated. */
	void (*cleanup)(struct backend *b);

	/*
	 * Append this provider's offers to out. f may be pushed down to the provider as far as
	 * it can; the core applies the whole filter again after. *pushed_all is set false when
	 * some term could not be pushed down (the command says so on stderr).
	 */
	enum gr_err (*offers)(struct backend *b, const struct filter *f, struct offer_list *out,
	    bool *pushed_all, struct gr_error *err);

	/*
	 * Optional: a stamp of the market offers would answer now, so that a caller that
	 * holds an answer can skip asking again. The contract: two stamps from one backend
	 * that are equal mean that offers answers the same filter with the same list, byte
	 * for byte up to fetched_at, at any moment between the two readings. It is a
	 * version, not a digest: once the market moves on, its stamp never comes back to an
	 * earlier value, so the stamp read just before an offers call may be kept as the
	 * stamp of that call's answer (a change during the call only costs one more ask). A
	 * different stamp says nothing: the market may be the same. A backend with NULL here,
	 * or one that fails, leaves the caller to ask as before.
	 */
	enum gr_err (*offers_stamp)(struct backend *b, const struct filter *f, uint64_t *stamp,
	    struct gr_error *err);

	/* Append every instance not yet destroyed (and recently destroyed ones, if known).
	   With list_all (a cluster), also jobs gpurent did not submit. */
	enum gr_err (*instances)(struct backend *b, struct instance_list *out, struct gr_error *err);

	/* Fill one instance by id; GR_ENOTFOUND if it does not exist. */
	enum gr_err (*get)(struct backend *b, const char *id, struct instance *out,
	    struct gr_error *err);

	/* Rent an offer. On success out describes the new instance (at least id and state). */
	enum gr_err (*launch)(struct backend *b, const struct launch_req *req, struct instance *out,
	    struct gr_error *err);

	/* Lifecycle; stop and start only with CAP_STOP. They return once the provider accepted. */
	enum gr_err (*stop)(struct backend *b, const char *id, struct gr_error *err);
	enum gr_err (*start)(struct backend *b, const char *id, struct gr_error *err);
	enum gr_err (*destroy)(struct backend *b, const char *id, struct gr_error *err);

	/* Append one sample per GPU of a running instance (CAP_METRICS). */
	enum gr_err (*metrics)(struct backend *b, const char *id, struct sample_list *out,
	    struct gr_error *err);

	/* Balance and spend (CAP_ACCOUNT). */
	enum gr_err (*account)(struct backend *b, struct account *out, struct gr_error *err);

	/*
	 * What the provider says it charged per instance and UTC day over [since, until) (its
	 * clock; until 0: up to now), appended to out, folded (charge_list_fold). NULL where
	 * the provider's API exposes no bill (Lambda, PPIO, Slurm).
	 */
	enum gr_err (*charges)(struct backend *b, int64_t since, int64_t until,
	    struct charge_list *out, struct gr_error *err);

	/*
	 * Optional: pay `amount` (the instance's currency) ahead on an instance, at the
	 * discount the provider gives that amount (vast's prepay); *discount_bp and
	 * *covered_s say what the provider answered it bought. Never retried: money moves.
	 */
	enum gr_err (*prepay)(struct backend *b, const char *id, int64_t amount, int *discount_bp,
	    int64_t *covered_s, struct gr_error *err);

	/* The cluster as its users see it (CAP_CLUSTER): appended to out, which the caller
	   initialised. Read-only: it observes nothing into the ledger. */
	enum gr_err (*cluster)(struct backend *b, struct cluster_state *out, struct gr_error *err);

	/*
	 * The machines a running instance spans (CAP_SSH; optional, NULL where an instance is
	 * one machine): in order, at most max, each with where ssh reaches it (port and user
	 * are the instance's). *n is 0 while it runs nowhere.
	 */
	enum gr_err (*nodes)(struct backend *b, const char *id, struct instance_node *out,
	    size_t max, size_t *n, struct gr_error *err);
};

struct backend {
	const struct backend_ops *ops;
	struct backend_env env;
	void *priv;			/* ops->priv_size zeroed bytes, owned by the core */
	bool ready;			/* init succeeded */
	bool list_all;			/* set by `ls --all` around one instances call: a
					   cluster lists every job of the user, not only the
					   ones gpurent submitted */
	struct gr_error init_err;	/* why init failed, when it did */
	struct backend_db *db;		/* the connection opened from env.db_path, once
					   backend_state has opened it; closed with b */
	struct backend_db *store;	/* env.store_url's, once backend_store has opened it */
};

/* The registry: every provider compiled in. */
const struct backend_ops *const *backend_registry(size_t *n);
const struct backend_ops *backend_find_ops(const char *name);

/* Create a backend (allocating priv) and run its init; init failures stay in b->init_err. */
struct backend *backend_create(const struct backend_ops *ops, const struct backend_env *env);
void backend_destroy(struct backend *b);
/*
 * The backend's database: env.state when the caller gave one, else its own connection,
 * opened from env.db_path on the first call (each backend its own, so fan-out threads
 * never share one). NULL, with err set (err may be NULL), when it cannot be opened; a
 * later call tries again.
 */
struct state *backend_state(const struct backend *b, struct gr_error *err);
/*
 * Where gpurent's records of this backend go (the ledger, the launch journal, what is kept
 * of its answers): env.store when lent, else env.store_url's connection when given (a
 * team's PostgreSQL state; the backend's own, opened on the first call), else
 * backend_state's.
 */
struct state *backend_store(const struct backend *b, struct gr_error *err);

/* "vast:123" -> "vast"; false when the id has no provider prefix. */
bool backend_split_id(const char *id, char *provider, size_t n, const char **rest);
/* The name a launch is found by: the user's label made printable, else
   "gpurent-<client token>" (made for this request alone). True when it is the label. */
struct launch_req;
bool bk_launch_name(const struct launch_req *req, char *name, size_t n);

/*
 * Name of the capability an operation needs, for "'lambda' cannot stop an instance" messages.
 * Returns GR_OK when the backend can do it.
 */
enum gr_err backend_require(const struct backend_ops *ops, unsigned cap, const char *what,
    struct gr_error *err);

#endif
