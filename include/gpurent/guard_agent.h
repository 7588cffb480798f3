/*
 * guard_agent.h - the instance guard: a small POSIX sh agent that gpurent puts on an instance
 * (over the one ssh transport) and that holds its policies there with no connection to the
 * user's machine (DESIGN.md, "Past the user's machine").
 *
 * The agent (src/guard/agent.sh, embedded at build) samples the GPUs with the NVIDIA probe's
 * own command (probe_vendor_nvidia) every guard.interval seconds, never gives an idle verdict
 * on a missing reading, and stops the instance through the provider's API with the
 * credential the provider gave the instance itself, read on the instance when it acts:
 *  - vast: CONTAINER_ID and CONTAINER_API_KEY, PUT /api/v0/instances/{id}/ {"state":"stopped"};
 *  - runpod: RUNPOD_POD_ID and RUNPOD_API_KEY, the GraphQL podStop.
 * PPIO and Lambda give an instance no credential of its own: the guard is refused there
 * unless the user places the account's API key on the instance (--with-key: ~/.gpurent-guard/
 * PROVIDER-ID/key, mode 0600, sent over ssh's stdin); the agent then stops a PPIO instance
 * (PUT /gpus/v2/instances/{id}/stop) and terminates a Lambda one (it has no stop).
 * On Slurm the agent, on the job's node, cancels it with scancel (the user's own Slurm
 * identity); the job's --time is its deadline, so --until is refused there.
 * The settings are copied at install: the label's policy (idle.after, idle.threshold,
 * runtime.max), a deadline, a spend cap in the instance's own currency at its price.
 *
 * On the instance everything lives in ~/.gpurent-guard/PROVIDER-ID/: agent.sh, pid, state
 * (the journal's last round), log (its decisions, numbered), installed_at.
 */
#ifndef GPURENT_GUARD_AGENT_H
#define GPURENT_GUARD_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include <stddef.h>

#include "error.h"
#include "model.h"

struct session;

#define GUARD_URL_MAX 512

/* What one agent is told at install. */
struct guard_agent {
	char id[ID_MAX];		/* "vast:123" */
	char provider[PROVIDER_MAX];
	char target[ID_MAX];		/* the provider's own id ("123") */
	char dir_name[ID_MAX + PROVIDER_MAX];	/* PROVIDER-ID under ~/.gpurent-guard */
	char api[GUARD_URL_MAX];	/* the provider's API base (its configured url) */
	char environ_path[GUARD_URL_MAX];	/* where the container's environment is read */
	int64_t interval;		/* seconds between samples */
	int64_t idle_after;		/* seconds; 0: no idle policy */
	int idle_threshold;		/* percent */
	int64_t runtime_max;		/* seconds; 0: none */
	int64_t started;		/* when the instance was created (runtime.max), 0 unknown */
	int64_t until;			/* deadline, UTC seconds; 0: none */
	int64_t max_cost;		/* micro-units of currency; 0: none */
	int64_t price;			/* per hour while running, micro-units */
	int64_t spent;			/* billed so far at install */
	char currency[CURRENCY_MAX];
	bool with_key;			/* the account's API key goes on the instance */
	bool terminates;		/* the provider has no stop: the agent terminates */
};

/* Whether the guard can stop an instance of provider with no key of the user's (the instance
 * has its own credential, or a Slurm job is cancelled from its node). */
bool guard_agent_can_stop(const char *provider);

/*
 * The agent for instance id with the session's policy for its label: refuses (GR_EUNSUPPORTED)
 * a provider that gives its instances no credential of their own unless with_key (a provider
 * that does ignores it), saying which protections then still hold; max_cost (0: none) must be in the instance's currency and needs its price.
 * until 0: none.
 */
enum gr_err guard_agent_plan(struct session *s, const char *id, int64_t until,
    int64_t max_cost, const char *max_cost_currency, bool with_key, struct guard_agent *out,
    struct gr_error *err);

/* The whole script for a (caller frees): its settings, the probe, the agent. */
char *guard_agent_script(const struct guard_agent *a);

/*
 * Put the agent on its instance and start it detached (setsid, nohup), with an @reboot
 * crontab line where crontab exists; a running agent of the same instance is replaced, so
 * installing twice leaves one.
 */
enum gr_err guard_agent_install(struct session *s, const struct guard_agent *a,
    struct gr_error *err);

/* Stop the agent of instance id, drop its crontab line and its directory. */
enum gr_err guard_agent_remove(struct session *s, const char *id, struct gr_error *err);

/* The journal as read from the instance. */
struct guard_journal {
	bool installed;			/* a journal or an agent is there */
	bool alive;			/* the pid file's process runs */
	int64_t heartbeat_age;		/* seconds on the instance's clock, -1 none yet */
	int64_t interval;
	int util;			/* the busiest GPU, -1 no reading */
	char verdict[16];		/* idle, busy, unknown, stopped, stop-failed, starting */
	char next[16];			/* the policy that acts next, "" none */
	int64_t next_in;		/* seconds, -1 none */
	int64_t spent;			/* micro-units, -1 unknown */
	char currency[CURRENCY_MAX];
	int events;			/* decisions recorded as events by this read */
};

/* A decision of the agent's log, its words sanitised. */
struct guard_decision {
	long long seq, at;
	char kind[24], policy[24];
	char msg[480];			/* an event's message less its prefix */
};

/*
 * Parse what the journal read printed on the instance (text, changed in place): the state
 * into out, and each decision numbered past *last to fn, in order, *last following them
 * (out->events counts them). False when text is not such an answer (out: nothing known).
 */
bool guard_journal_parse(char *text, long long *last, struct guard_journal *out,
    void (*fn)(const struct guard_decision *d, void *ctx), void *ctx);

/*
 * Read instance id's journal over ssh and record its decisions that are not yet events
 * (events.h, kinds "guard-start", "guard-stop-ordered", ...) once each, with the
 * instance's label ("" when the caller does not know it).
 */
enum gr_err guard_agent_read(struct session *s, const char *id, const char *label,
    struct guard_journal *out, struct gr_error *err);

/* An agent whose heartbeat is older than this many rounds and the margin (seconds) has
 * stopped beating: guard status says "stale", the watcher starts it again. */
#define GUARD_STALE_ROUNDS 3
#define GUARD_STALE_MARGIN 5

/*
 * The watcher's keeping of the agents, where guard.agent is true: on each running instance of
 * a provider the guard can stop, read the journal (its decisions become events), install
 * the agent where there is none, start it again where it is gone or stale (from the script
 * it was installed with, so its --until and --max-cost hold). Each install and restart is
 * an event. Returns how many it installed or started again.
 */
size_t guard_agents_keep(struct session *s, const struct instance_list *l);

#endif
