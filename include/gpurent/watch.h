/*
 * watch.h - the guard that acts on the fleet: `gpurent watch` (src/guard/).
 *
 * One pass lists the instances of the session's providers and applies the policies of the
 * config (policy.c): an instance idle (GPU utilisation at or below idle.threshold) for
 * idle.after, one that has run longer than runtime.max, and the running instances once
 * budget.day or budget.month is spent (newest first) are stopped, destroyed or only
 * reported, as idle.action, runtime.action and budget.action say. A policy may be set
 * globally, per profile and per label ("label.PATTERN.idle.after").
 *
 * It decides on fresh evidence only: an instance whose utilisation is unknown, or whose
 * newest sample is older than three intervals, is "unobserved" and never idle; a running
 * gpurent job (remote_job.h) keeps its instance busy unless watch.jobs_active is false.
 *
 * Every stop or destroy it orders is verified: it is recorded before the request leaves,
 * and later passes re-read the instance until the provider reports it stopped (no longer
 * billed for compute) or destroyed; a stop acknowledged but not done is ordered again, up
 * to watch.verify_tries orders, then raises an alert, and is never reported done. Its
 * state (idle since, the action in flight) is in the state database (table watch_state),
 * so a watcher killed at any point and started again carries on with what was in flight.
 *
 * Every observation that led to an action and every action is an event (events.h); the
 * events of EV_ACTION and above are handed to notify.command (notify.c).
 */
#ifndef GPURENT_WATCH_H
#define GPURENT_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "events.h"
#include "money.h"
#include "team.h"

struct session;
struct config;
struct lease;
struct state;

/* The name of the watcher's lease in the store (a managed job's are "m" and digits). */
#define WATCH_LEASE "watch"

enum watch_action { WA_NONE, WA_STOP, WA_DESTROY, WA_NOTIFY };

/* The policies that apply to one instance, from the config and its label. */
struct watch_policy {
	int idle_threshold;		/* percent */
	int64_t idle_after;		/* seconds, 0: no idle policy */
	enum watch_action idle_action;
	int64_t runtime_max;		/* seconds, 0: none */
	enum watch_action runtime_action;
	bool jobs_active;
};

/*
 * What a budget overrun does, and when to warn. Each budget is in its own currency
 * ("300 CNY"; bare: USD) and counts the spend in that currency; spend in another counts
 * only through a rate the user configured (fx.CODE), and then every message about it says
 * "converted at your configured rate". Spend with no rate is not counted, and the watcher
 * says so once a period (event budget-uncounted), never converting it silently. A budget
 * acts only on the instances whose spend it counts: those billing in its currency, or in
 * one with a configured rate.
 */
struct watch_limit {
	char policy[24];		/* "budget.day", "team.budget.month": the events' policy */
	int64_t amount;			/* micro-units of currency */
	char currency[CURRENCY_MAX];
	bool day;			/* else the month's */
	char who[TEAM_NAME_MAX + 1];	/* counting and acting on this person's alone; "": all */
};

/*
 * The budgets the watcher holds running instances to: a personal profile's budget.day and
 * budget.month; in a team profile, those of the team's shared state that the launch door
 * reads (launch.h), the team's counting everyone's and each person's counting their own.
 */
struct watch_budget {
	struct watch_limit *limits;	/* the set ones, the team's first */
	size_t n;
	struct fx_rates fx;		/* the fx.CODE keys */
	int warn_pct;
	enum watch_action action;
};

const char *watch_action_name(enum watch_action a);
/*
 * The policy for an instance labelled label ("" none): label keys of the selected profile,
 * then those at the top level (the last matching line of each wins), then the key itself
 * (profile, top level, default).
 */
void watch_policy_for(const struct config *cfg, const char *label, struct watch_policy *out);
void watch_budget_for(const struct config *cfg, struct state *st, struct watch_budget *out);
void watch_budget_release(struct watch_budget *b);

struct watch_opts {
	int64_t interval;		/* seconds between passes; staleness is three of them */
	bool dry_run;			/* say what it would do; change nothing, write nothing */
	FILE *out;			/* one line per event (or would-be action) */
	/* Called with each event the watcher journals, for notify.command; may be NULL. */
	void (*notify)(void *ctx, const struct event *ev);
	void *notify_ctx;
};

struct watch;

/*
 * Load the watcher's configuration and state. It acts only once watch_lead says it holds
 * the store's watcher lease; a dry run needs none.
 */
enum gr_err watch_open(struct watch **out, struct session *s, const struct watch_opts *o,
    struct gr_error *err);
/*
 * The store's watcher lease (lease.h): any number of watchers may run on one store (a
 * team's, or one person's on several terminals); exactly one acts at a time, its holder.
 * watch_lead takes it, renews it, or stands by for it: call it before each pass and every
 * watch_tick() ms between passes. True when this watcher acts (a dry run always); taken
 * just now, the state is read again and what a watcher that died left is reported. False
 * while another holds it: *held is that lease, and the output says once per holder
 * "standing by: the watcher of HOLDER acts since T". watch_pass returns GR_ELOCKED when
 * the lease was lost during the pass: it ordered nothing after that.
 */
bool watch_lead(struct watch *w, struct lease *held);
int64_t watch_tick(const struct watch *w);
/* Gives the lease up (to a standby at its next look). */
void watch_close(struct watch *w);

struct watch_report {
	size_t instances;		/* seen this pass */
	size_t unobserved;		/* running, with no fresh utilisation */
	size_t acted;			/* orders sent (or that would be, dry run) */
	size_t alerts;
	size_t unlisted;		/* providers that could not list: their instances unseen */
};

/* One pass over the fleet. GR_EPARTIAL when a provider could not list its instances. */
enum gr_err watch_pass(struct watch *w, struct watch_report *r, struct gr_error *err);

/*
 * notify.c: an event as one line of JSON (seq, at in RFC 3339, level, kind, policy,
 * instance_id, label, util_pct or null, message); caller frees.
 */
char *watch_event_json(const struct event *ev);
/*
 * Run argv (argv[0] looked up in PATH; never a shell) with the event in GPURENT_EVENT_SEQ,
 * _AT, _LEVEL, _KIND, _POLICY, _INSTANCE, _LABEL, _UTIL and _MESSAGE and its JSON on stdin;
 * killed after timeout_s seconds. GR_EFAIL when it fails or exits non-zero.
 */
enum gr_err watch_notify_run(char *const *argv, const struct event *ev, int timeout_s,
    struct gr_error *err);

#endif
