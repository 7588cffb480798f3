/*
 * Elastic groups applied by the watcher (elastic.h): decide from the members and the load,
 * launch by requirement, retire through the watcher, journal the numbers behind each.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/config.h"
#include "gpurent/elastic.h"
#include "gpurent/filter.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/requirement.h"
#include "gpurent/session.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

/* Offers tried for one member before the decision gives up (requirement.h). */
#define MEMBER_ATTEMPTS 5

/* ---------------------------------------------------------------- forecasting */

bool
elastic_forecast(const double *y, size_t n, size_t season, double alpha, double beta,
    double gamma, size_t ahead, double *out)
{
	double *seas, level = 0, trend = 0, second = 0, prev;
	size_t i, t;

	if (season == 0 || n < 2 * season)
		return false;
	for (i = 0; i < season; i++) {
		level += y[i];
		second += y[season + i];
	}
	level /= (double)season;
	trend = (second / (double)season - level) / (double)season;
	seas = xcalloc(season, sizeof(*seas));
	for (i = 0; i < season; i++)
		seas[i] = y[i] - level;
	/* The first season only set the terms up: the level is its mean at its middle. */
	level += trend * (double)(season - 1) / 2.0;
	for (t = season; t < n; t++) {
		prev = level;
		level = alpha * (y[t] - seas[t % season]) + (1 - alpha) * (level + trend);
		trend = beta * (level - prev) + (1 - beta) * trend;
		seas[t % season] = gamma * (y[t] - level) + (1 - gamma) * seas[t % season];
	}
	*out = level + (double)ahead * trend + seas[(n - 1 + ahead) % season];
	free(seas);
	return true;
}

/* ---------------------------------------------------------------- deciding */

static bool
is_live(const struct elastic_member *m)
{
	return !m->in_flight && (m->state == ST_RUNNING || m->state == ST_PROVISIONING ||
	    m->state == ST_STARTING);
}

static bool
is_lost(const struct elastic_member *m)
{
	return !m->in_flight && m->interruptible && (m->state == ST_STOPPED ||
	    m->state == ST_FAILED);
}

/*
 * The least useful running member with a fresh reading (see elastic.h); n when none. With
 * keep_base, on-demand members are taken only when no interruptible one can be.
 */
static size_t
least_useful(const struct elastic_member *m, size_t n, bool keep_base)
{
	size_t i, best = n;
	int pass;

	for (pass = 0; pass < 2 && best == n; pass++)
		for (i = 0; i < n; i++) {
			const struct elastic_member *a = &m[i], *b = best < n ? &m[best] : NULL;

			if (!is_live(a) || a->state != ST_RUNNING || a->util < 0)
				continue;
			if (pass == 0 && keep_base && !a->interruptible)
				continue;
			if (b == NULL || a->util < b->util || (a->util == b->util &&
			    (a->price_hour > b->price_hour || (a->price_hour == b->price_hour &&
			    (a->created_at > b->created_at || (a->created_at == b->created_at &&
			    strcmp(a->id, b->id) > 0))))))
				best = i;
		}
	return best;
}

static bool
cooling(const struct group *g, int64_t now)
{
	return g->last_scale_at > 0 && now - g->last_scale_at < g->cooldown;
}

/* --predict: act on the forecast where the load now would not (elastic.h). */
static void
predict(const struct group *g, const struct elastic_load *load, int64_t now,
    struct elastic_decision *d)
{
	if (load->forecast * 10 > g->target_util * 12 && (strcmp(d->reason, "steady") == 0 ||
	    strcmp(d->reason, "load-low") == 0 || strcmp(d->reason, "at-min") == 0 ||
	    strcmp(d->reason, "unobserved") == 0) && d->live < g->max && !cooling(g, now)) {
		d->verb = EL_OUT;
		d->reason = "predicted-high";
		d->launch = 1;
		d->n_retire = 0;
	} else if (d->verb == EL_IN && load->forecast * 10 >= g->target_util * 8) {
		d->verb = EL_HOLD;
		d->reason = "predicted";
		d->n_retire = 0;
	}
}

void
elastic_decide(const struct group *g, const struct elastic_member *m, size_t n,
    const struct elastic_load *load, int64_t now, struct elastic_decision *d, size_t *retire)
{
	int on_demand = 0, want, high10 = g->target_util * 12, low10 = g->target_util * 8;
	char numbers[160] = "";
	size_t i, k;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < n; i++) {
		if (is_live(&m[i])) {
			d->live++;
			on_demand += !m[i].interruptible;
		} else if (is_lost(&m[i]))
			d->lost++;
	}
	if (load->records > 0)
		snprintf(numbers, sizeof(numbers), _("mean GPU utilisation %.1f%% over %llds "
		    "(%d readings), target %d%% (out above %d.%d%%, in below %d.%d%%); "), load->mean,
		    (long long)g->window, load->records, g->target_util, high10 / 10, high10 % 10,
		    low10 / 10, low10 % 10);
	want = d->live + d->lost;
	if (want > g->max)
		want = g->max;
	if (want < g->min)
		want = g->min;
	if (want > d->live || d->lost > 0) {
		d->verb = want > d->live ? EL_OUT : EL_HOLD;
		d->reason = d->lost > 0 ? "replace" : "below-min";
		d->launch = want - d->live;
		for (i = 0; i < n; i++)
			if (is_lost(&m[i]))
				retire[d->n_retire++] = i;
	} else if (load->records == 0) {
		d->reason = "unobserved";
	} else if (load->mean * 10 > high10) {
		d->reason = d->live >= g->max ? "at-max" :
		    cooling(g, now) ? "cooldown" : "load-high";
		if (strcmp(d->reason, "load-high") == 0) {
			d->verb = EL_OUT;
			d->launch = 1;
		}
	} else if (load->mean * 10 < low10) {
		d->reason = d->live <= g->min ? "at-min" :
		    cooling(g, now) ? "cooldown" : "load-low";
		if (strcmp(d->reason, "load-low") == 0) {
			k = least_useful(m, n, g->base >= 0 && on_demand <= g->base);
			if (k == n)
				d->reason = "unobserved";
			else {
				d->verb = EL_IN;
				retire[d->n_retire++] = k;
			}
		}
	} else
		d->reason = "steady";
	if (load->forecast_known)
		predict(g, load, now, d);
	if (d->launch > 0) {
		int need = g->base < 0 ? d->launch : g->base - on_demand;

		d->launch_on_demand = need < 0 ? 0 : need > d->launch ? d->launch : need;
	}
	snprintf(d->why, sizeof(d->why), _("%s%d live (min %d, max %d)"), numbers, d->live,
	    g->min, g->max);
	if (d->lost) {
		size_t len = strlen(d->why);

		snprintf(d->why + len, sizeof(d->why) - len, _(", %d lost to preemption"),
		    d->lost);
	}
	if (load->forecast_known) {
		size_t len = strlen(d->why);

		snprintf(d->why + len, sizeof(d->why) - len, _("; forecast %.1f%% in %ds "
		    "(Holt-Winters over the daily pattern)"), load->forecast, ELASTIC_AHEAD);
	}
	if (strcmp(d->reason, "cooldown") == 0) {
		size_t len = strlen(d->why);

		snprintf(d->why + len, sizeof(d->why) - len, _("; last scaled %llds ago, "
		    "cooldown %llds"), (long long)(now - g->last_scale_at), (long long)g->cooldown);
	}
}

/* ---------------------------------------------------------------- replaying */

/* The utilisation of k members carrying demand (utilisation x members), spread evenly. */
static double
share(double demand, int k)
{
	if (k <= 0)
		return demand > 0 ? 100 : 0;
	return demand / k > 100 ? 100 : demand / k;
}

void
elastic_replay(const struct group *g, const struct group_load_rec *v, size_t n,
    struct elastic_tally *as_run, struct elastic_tally *reactive)
{
	struct group r = *g;
	struct elastic_member *m = xcalloc((size_t)(g->max > 0 ? g->max : 1) + 1, sizeof(*m));
	size_t *retire = xcalloc((size_t)(g->max > 0 ? g->max : 1) + 1, sizeof(*retire));
	double *seen = xcalloc(n + 1, sizeof(*seen));
	struct elastic_decision d;
	int live, k;
	size_t i, j;

	memset(as_run, 0, sizeof(*as_run));
	memset(reactive, 0, sizeof(*reactive));
	r.predict = false;
	r.last_scale_at = 0;
	live = n > 0 ? v[0].members : g->min;
	live = live > g->max ? g->max : live < g->min ? g->min : live;
	for (i = 0; i < n; i++) {
		double demand = v[i].util * v[i].members, sum = 0;
		int64_t dt = i + 1 < n ? v[i + 1].at - v[i].at : 0;
		struct elastic_load load = { .records = 0 };

		as_run->member_s += (int64_t)v[i].members * dt;
		if (v[i].util > g->target_util)
			as_run->above_s += dt;
		/* The replay's own readings, over the window as the watcher takes it. */
		seen[i] = share(demand, live);
		for (j = 0; j <= i; j++)
			if (v[j].at > v[i].at - g->window) {
				sum += seen[j];
				load.records++;
			}
		load.mean = sum / load.records;
		memset(m, 0, sizeof(*m) * (size_t)(live > 0 ? live : 1));
		for (k = 0; k < live; k++) {
			snprintf(m[k].id, sizeof(m[k].id), "replay:%d", k);
			m[k].state = ST_RUNNING;
			m[k].util = (int)(seen[i] + 0.5);
		}
		elastic_decide(&r, m, (size_t)live, &load, v[i].at, &d, retire);
		if (d.verb == EL_OUT || d.verb == EL_IN) {
			live += d.verb == EL_OUT ? d.launch : -1;
			r.last_scale_at = v[i].at;
			reactive->decisions++;
		}
		reactive->member_s += (int64_t)live * dt;
		if (share(demand, live) > g->target_util)
			reactive->above_s += dt;
	}
	free(seen);
	free(retire);
	free(m);
}

/* ---------------------------------------------------------------- launching */

/*
 * Launch one member of g by requirement: its GPU and count, on-demand or interruptible,
 * at most its max price. *tried says what each attempt did, for the journal.
 */
static enum gr_err
launch_one(struct session *s, const struct group *g, bool interruptible, const char *token,
    struct instance *out, char *tried, size_t tried_n, struct gr_error *err)
{
	const struct req_need need = { g->gpu, g->gpus > 0 ? g->gpus : 1, interruptible,
		g->providers, g->max_price, g->max_currency };
	struct launch_req base;
	char label[LABEL_MAX], envbuf[GROUP_ENV_MAX], *env[GROUP_ENV_MAX / 4 + 1], *save = NULL;
	char *tok;
	size_t n_env = 0;

	memset(&base, 0, sizeof(base));
	base.label = group_label(label, sizeof(label), g->name);
	base.client_token = token;
	strlcpy_(envbuf, g->env, sizeof(envbuf));
	for (tok = strtok_r(envbuf, "\n", &save); tok != NULL && n_env + 1 < ARRAY_LEN(env);
	    tok = strtok_r(NULL, "\n", &save))
		env[n_env++] = tok;
	env[n_env] = NULL;
	base.env = n_env ? (const char *const *)env : NULL;
	return requirement_find_rent(s, &need, &base, MEMBER_ATTEMPTS, out, tried, tried_n, err);
}

/* ---------------------------------------------------------------- the pass */

/*
 * The client token of the i-th launch of the decision the group made at `at`: the same for
 * a retry of that decision, so that a provider that saw the create finds it again.
 */
static void
decision_token(char *buf, size_t n, const char *name, int64_t at, int i)
{
	uint64_t h = hash_mix((uint64_t)at, (uint64_t)i);
	const char *p;

	for (p = name; *p != '\0'; p++)
		h = hash_mix(h, (unsigned char)*p);
	snprintf(buf, n, "grp%016llx", (unsigned long long)h);
}

/* Tell a hold once until its reason changes (meta key group.NAME.held). */
static bool
hold_is_new(struct state *st, const char *name, const char *reason, bool dry_run)
{
	struct gr_error err = { 0 };
	char key[GROUP_NAME_MAX + 16], was[32];

	snprintf(key, sizeof(key), "group.%s.held", name);
	if (state_meta_get(st, key, was, sizeof(was)) && strcmp(was, reason) == 0)
		return false;
	if (!dry_run)
		state_meta_set(st, key, reason, &err);
	return true;
}

/*
 * A scale-out the budget refused, by its reason (meta key group.NAME.refused, "" none):
 * the floor is not held by the cooldown, so a budget that keeps refusing it would be told
 * every pass. The same refusal again is tried but not told; told again once its reason
 * changes, or after a launch went through. A dry run reads it and writes nothing.
 */
static bool
refusal_repeats(struct state *st, const char *name, const char *reason)
{
	char key[GROUP_NAME_MAX + 16], was[32];

	snprintf(key, sizeof(key), "group.%s.refused", name);
	return state_meta_get(st, key, was, sizeof(was)) && strcmp(was, reason) == 0;
}

static void
refusal_note(struct state *st, const char *name, const char *reason, bool dry_run)
{
	struct gr_error err = { 0 };
	char key[GROUP_NAME_MAX + 16], was[32];

	snprintf(key, sizeof(key), "group.%s.refused", name);
	if (dry_run || (state_meta_get(st, key, was, sizeof(was)) && strcmp(was, reason) == 0) ||
	    (reason[0] == '\0' && !state_meta_get(st, key, was, sizeof(was))))
		return;
	state_meta_set(st, key, reason, &err);
}

static void
emitf(const struct elastic_ops *ops, void *ctx, enum event_level level, const char *kind,
    const char *label, const char *id, int util, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

static void
emitf(const struct elastic_ops *ops, void *ctx, enum event_level level, const char *kind,
    const char *label, const char *id, int util, const char *fmt, ...)
{
	char msg[EVENT_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ops->emit(ctx, level, kind, label, id, util, msg);
}

/*
 * --predict: the forecast of the group's load from its last ELASTIC_HISTORY seconds, once
 * two days of it are recorded.
 */
static void
forecast_load(struct state *st, const struct group *g, int64_t now, struct elastic_load *load)
{
	struct gr_error err = { 0 };
	size_t n = ELASTIC_HISTORY / ELASTIC_STEP;
	double *y = xcalloc(n, sizeof(*y));
	int64_t since = now + 1 - (int64_t)n * ELASTIC_STEP, first;
	size_t skip;

	if (groups_load_series(st, g->name, since, ELASTIC_STEP, n, y, &first, &err) == GR_OK &&
	    first > 0) {
		/* The buckets before the first record carry nothing: leave them out. */
		skip = (size_t)((first - since) / ELASTIC_STEP);
		load->forecast_known = elastic_forecast(y + skip, n - skip, ELASTIC_SEASON,
		    ELASTIC_ALPHA, ELASTIC_BETA, ELASTIC_GAMMA, 1, &load->forecast);
	}
	free(y);
}

static void
say_out(const struct elastic_ops *ops, void *ctx, const struct group *g, const char *label,
    int mean_util, const struct elastic_decision *d)
{
	emitf(ops, ctx, EV_ACTION, "group-out", label, "", mean_util,
	    /* TRANSLATORS: the second %s is a reason word (load-high, replace ...): keep it. */
	    _("group %s scales out by %d (%s; %d on-demand, %d interruptible): %s"), g->name, d->launch, d->reason,
	    d->launch_on_demand, d->launch - d->launch_on_demand, d->why);
}

/* One group: record the load, decide, act. Returns whether it acted. */
static bool
apply_group(struct session *s, struct state *st, struct config *cfg, struct group *g,
    const struct elastic_member *all, size_t n_all, int64_t now, bool dry_run,
    const struct elastic_ops *ops, void *ctx)
{
	struct gr_error err = { 0 };
	struct elastic_member *m = xcalloc(n_all + 1, sizeof(*m));
	size_t *retire = xcalloc(n_all + 1, sizeof(*retire));
	struct elastic_decision d;
	struct elastic_load load = { .records = 0 };
	char label[LABEL_MAX], token[40], tried[EVENT_MSG_MAX];
	double cur = 0, prev = 0;
	int observed = 0, prev_n = 0, i, mean_util;
	size_t n = 0, k;
	bool acted = false, quiet;

	group_label(label, sizeof(label), g->name);
	for (k = 0; k < n_all; k++)
		if (strcmp(all[k].label, label) == 0)
			m[n++] = all[k];
	for (k = 0; k < n; k++)
		if (is_live(&m[k]) && m[k].state == ST_RUNNING && m[k].util >= 0) {
			cur += m[k].util;
			observed++;
		}
	if (groups_load_mean(st, g->name, now - g->window, now - 1, &prev, &prev_n, &err) != GR_OK)
		prev_n = 0;
	if (observed > 0) {
		cur /= observed;
		load.mean = (prev * prev_n + cur) / (prev_n + 1);
		load.records = prev_n + 1;
		if (!dry_run)
			groups_load_add(st, g->name, now, cur, observed, &err);
	} else if (prev_n > 0) {
		load.mean = prev;
		load.records = prev_n;
	}
	if (g->predict)
		forecast_load(st, g, now, &load);
	mean_util = load.records > 0 ? (int)(load.mean + 0.5) : -1;
	elastic_decide(g, m, n, &load, now, &d, retire);
	quiet = !dry_run && d.verb == EL_OUT && refusal_repeats(st, g->name, d.reason);
	if (d.verb != EL_OUT)
		refusal_note(st, g->name, "", dry_run);
	if (d.verb == EL_HOLD && d.n_retire == 0) {
		/* A hold that kept the load from being answered is told, once. */
		bool blocking = strcmp(d.reason, "cooldown") == 0 || strcmp(d.reason,
		    "at-max") == 0 || strcmp(d.reason, "at-min") == 0 || strcmp(d.reason,
		    "predicted") == 0;

		if (hold_is_new(st, g->name, blocking ? d.reason : "none", dry_run) && blocking)
			emitf(ops, ctx, EV_INFO, "group-hold", label, "", mean_util,
			    _("group %s holds (%s): %s"), g->name, d.reason, d.why);
		free(m);
		free(retire);
		return false;
	}
	hold_is_new(st, g->name, "none", dry_run);
	/* Recorded before anything leaves: a watcher killed now does not decide again. */
	if (!dry_run && groups_scaled(st, g->name, now, &err) != GR_OK) {
		emitf(ops, ctx, EV_ALERT, "group-error", label, "", mean_util,
		    _("group %s: not scaled: %s"), g->name, err.msg);
		free(m);
		free(retire);
		return false;
	}
	if (d.verb == EL_OUT && !quiet)
		say_out(ops, ctx, g, label, mean_util, &d);
	else if (d.verb == EL_IN)
		emitf(ops, ctx, EV_ACTION, "group-in", label, m[retire[0]].id, m[retire[0]].util,
		    _("group %s scales in by 1 (%s): %s; the least used member is %s at %d%%"),
		    g->name, d.reason, d.why, m[retire[0]].id, m[retire[0]].util);
	for (k = 0; k < d.n_retire; k++) {
		char why[EVENT_MSG_MAX];

		snprintf(why, sizeof(why), _("group %s: %s"), g->name, d.verb == EL_IN ?
		    _("scaled in: the least used member") : _("lost to preemption, replaced"));
		/* The watcher's order says "dry run: nothing sent" itself. */
		ops->retire(ctx, m[retire[k]].id, why);
		acted = true;
	}
	for (i = 0; i < d.launch; i++) {
		struct instance in;
		bool interruptible = i >= d.launch_on_demand;
		enum gr_err rc;

		acted = true;
		if (dry_run) {
			/* Whole sentences: the article goes with the word. */
			emitf(ops, ctx, EV_ACTION, "group-launch", label, "", -1, interruptible ?
			    _("group %s: would launch an interruptible %s member (dry run: nothing "
			    "rented)") : _("group %s: would launch an on-demand %s member (dry "
			    "run: nothing rented)"), g->name, g->gpu);
			continue;
		}
		decision_token(token, sizeof(token), g->name, now, i);
		gr_error_clear(&err);
		rc = launch_one(s, g, interruptible, token, &in, tried, sizeof(tried),
		    &err);
		/* The same budget refusal as last pass: tried, not told again. */
		if (rc == GR_EBUDGET && quiet)
			break;
		if (quiet)
			say_out(ops, ctx, g, label, mean_util, &d);
		quiet = false;
		refusal_note(st, g->name, rc == GR_EBUDGET ? d.reason : "", dry_run);
		if (rc == GR_OK)
			emitf(ops, ctx, EV_ACTION, "group-launched", label, in.id, -1,
			    _("group %s: launched %s (%s %s) for %s; tried %s"), g->name, in.id,
			    interruptible ? _("interruptible") : _("on-demand"), g->gpu, d.reason, tried);
		else {
			emitf(ops, ctx, err.code == GR_EBUDGET ? EV_WARN : EV_ALERT,
			    err.code == GR_EBUDGET ? "group-budget" : "group-launch-failed", label,
			    "", -1, _("group %s: no member launched for %s: %s%s%s"), g->name,
			    d.reason, err.msg, tried[0] ? _("; tried ") : "", tried);
			break;
		}
	}
	free(m);
	free(retire);
	return acted;
}

enum gr_err
elastic_pass(struct session *s, const struct elastic_member *m, size_t n, int64_t now,
    bool dry_run, const struct elastic_ops *ops, void *ctx, size_t *acted,
    struct gr_error *err)
{
	struct group *g = NULL;
	struct config *cfg;
	struct state *st;
	size_t ng = 0, i;

	*acted = 0;
	if (session_config(s, &cfg, err) != GR_OK || session_state(s, &st, err) != GR_OK ||
	    groups_load(st, &g, &ng, err) != GR_OK)
		return err->code;
	for (i = 0; i < ng; i++)
		if (apply_group(s, st, cfg, &g[i], m, n, now, dry_run, ops, ctx))
			(*acted)++;
	free(g);
	return GR_OK;
}
