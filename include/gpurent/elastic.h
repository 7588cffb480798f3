/*
 * elastic.h - the watcher scales elastic groups (groups.h) each pass (src/guard/group.c).
 *
 * The policy, for each group, in this order:
 *   - floor and replacement: when fewer than min members are live (running, provisioning
 *     or starting), or members were lost to preemption (interruptible, now stopped or
 *     failed), launch enough to have max(min, live + lost), at most max, and destroy the
 *     lost ones. The cooldown does not hold these: they restore what the group had.
 *   - load: the group's mean GPU utilisation over its window (the mean of the watcher's
 *     records of the window, each the mean of the members it observed afresh in a pass)
 *     above target x 1.2 launches one member; below target x 0.8 destroys the least
 *     useful one (lowest utilisation this pass; then, to keep the on-demand base, an
 *     interruptible one; then the dearest; then the newest). Never above max nor below
 *     min, never twice within the cooldown, and nothing on no fresh observation.
 * Members launched for the group are on-demand up to its base, interruptible above it
 * (or all on-demand without a burst), with the group's label, by requirement (requirement.h)
 * through the launch door (launch.h), so that budgets refuse them like any launch. The
 * decision time is recorded before a launch leaves, and the launch carries a client token
 * made from the group and that time, so one decision never rents two instances.
 *
 * Every decision, and every hold that kept the load from being answered (cooldown, min,
 * max, a forecast that keeps a member, the budget), is an event whose message carries the
 * numbers behind it; a hold is told once until the reason changes.
 */
#ifndef GPURENT_ELASTIC_H
#define GPURENT_ELASTIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "events.h"
#include "groups.h"
#include "model.h"

struct session;
struct state;
struct config;

/* A listed instance with a group label, as the watcher saw it this pass. */
struct elastic_member {
	char id[ID_MAX];
	char label[LABEL_MAX];
	enum inst_state state;
	bool interruptible;
	bool in_flight;			/* the watcher has a stop or destroy of it in flight */
	int util;			/* fresh mean GPU utilisation this pass; -1 none */
	int64_t price_hour;
	int64_t created_at;
};

enum elastic_verb { EL_HOLD, EL_OUT, EL_IN };

/*
 * The group's load over its window: mean of `records` readings (0: unknown); with
 * --predict, the forecast of the group's utilisation ELASTIC_AHEAD seconds on.
 */
struct elastic_load {
	double mean;
	int records;
	bool forecast_known;
	double forecast;
};

/*
 * --predict: the group's history in ELASTIC_STEP buckets over the last ELASTIC_HISTORY
 * seconds, a daily season (ELASTIC_SEASON buckets), forecast one bucket ahead by additive
 * Holt-Winters (elastic_forecast). With a forecast, a group whose load is not above the
 * target x 1.2 now scales out by one when the forecast is ("predicted-high"), and one
 * below target x 0.8 now is not scaled in when the forecast is not ("predicted"); min,
 * max and the cooldown hold as for the reactive policy.
 */
#define ELASTIC_STEP 900
#define ELASTIC_AHEAD ELASTIC_STEP
#define ELASTIC_SEASON (86400 / ELASTIC_STEP)
#define ELASTIC_HISTORY (7 * 86400)
#define ELASTIC_ALPHA 0.5
#define ELASTIC_BETA 0.05
#define ELASTIC_GAMMA 0.3

/*
 * Additive Holt-Winters over y[0..n) with a season of `season` steps: level, trend and
 * season smoothed by alpha, beta and gamma, initialised from the first two seasons (the
 * level the first season's mean, the trend the change of the mean between the two, each
 * seasonal term its step's distance from the first mean). *out: the forecast `ahead`
 * steps after y[n - 1]. false (nothing forecast) with fewer than two seasons.
 */
bool elastic_forecast(const double *y, size_t n, size_t season, double alpha, double beta,
    double gamma, size_t ahead, double *out);

struct elastic_decision {
	enum elastic_verb verb;
	const char *reason;		/* "below-min", "replace", "load-high", "load-low",
					   "predicted-high", "predicted", "cooldown", "at-max",
					   "at-min", "unobserved", "steady" */
	int live, lost;
	int launch;			/* EL_OUT: members to launch */
	int launch_on_demand;		/* of them on-demand, the rest interruptible */
	size_t n_retire;		/* members to destroy: indexes into the members given */
	char why[EVENT_MSG_MAX];	/* the numbers behind it */
};

/*
 * Decide for group g over its members m[0..n) (those with its label), its load and the
 * time now (see above). retire has room for n indexes; d->n_retire of them are filled.
 */
void elastic_decide(const struct group *g, const struct elastic_member *m, size_t n,
    const struct elastic_load *load, int64_t now, struct elastic_decision *d, size_t *retire);

/* What elastic_pass calls back in the watcher. */
struct elastic_ops {
	void (*emit)(void *ctx, enum event_level level, const char *kind, const char *label,
	    const char *instance_id, int util, const char *msg);
	/* Destroy member id, verified as the watcher's own orders are (with dry_run: say so). */
	void (*retire)(void *ctx, const char *instance_id, const char *why);
};

/*
 * Apply every group to the listed members m[0..n) (every listed instance with a group
 * label) at now: record the load, decide, and (unless dry_run) launch and retire.
 * Returns the decisions that acted (launched or retired) in *acted.
 */
enum gr_err elastic_pass(struct session *s, const struct elastic_member *m, size_t n,
    int64_t now, bool dry_run, const struct elastic_ops *ops, void *ctx, size_t *acted,
    struct gr_error *err);

/*
 * What --predict saved or cost against the reactive policy (`gpurent audit`): over a
 * group's recorded load (group_load records, oldest first), the group as it ran and the
 * reactive policy replayed through elastic_decide on the same demand. The demand at a
 * record is its utilisation x its members (the GPU work they did); k members carry it at
 * min(100, demand / k) each, the load spread evenly. The replay starts with the members of
 * the first record, decides at every record with the group's window, thresholds, min, max
 * and cooldown and no forecast, and a decision takes effect at once. Each record covers the
 * time to the next one; the last covers none.
 */
struct elastic_tally {
	int64_t member_s;		/* members x seconds */
	int64_t above_s;		/* seconds with the members' mean utilisation > target */
	int decisions;			/* scale-outs and scale-ins (the replay only) */
};
void elastic_replay(const struct group *g, const struct group_load_rec *v, size_t n,
    struct elastic_tally *as_run, struct elastic_tally *reactive);

#endif
