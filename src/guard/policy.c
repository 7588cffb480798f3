/*
 * Which policies apply to an instance: the config keys, globally, per profile and per label;
 * and which budgets the watcher holds the fleet to.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/config.h"
#include "gpurent/launch.h"
#include "gpurent/team.h"
#include "gpurent/util.h"
#include "gpurent/watch.h"

const char *
watch_action_name(enum watch_action a)
{
	switch (a) {
	case WA_STOP: return "stop";
	case WA_DESTROY: return "destroy";
	case WA_NOTIFY: return "notify";
	default: return "none";
	}
}

static enum watch_action
action_parse(const char *s)
{
	if (s == NULL || strcmp(s, "stop") == 0)
		return WA_STOP;
	return strcmp(s, "destroy") == 0 ? WA_DESTROY : WA_NOTIFY;
}

/* The label keys that match one label, in the profile's section and at the top level. */
struct label_match {
	const char *label;
	const char *profile;
	const char *key;		/* the key looked for */
	const char *top, *in_profile;	/* the last matching values */
};

static void
match_one(const char *profile, const char *key, const char *value, void *ctx)
{
	struct label_match *m = ctx;
	char pattern[LABEL_PATTERN_MAX];
	const char *base = config_label_key(key, pattern, sizeof(pattern));

	if (base == NULL || strcmp(base, m->key) != 0 || fnmatch(pattern, m->label, 0) != 0)
		return;
	if (profile == NULL)
		m->top = value;
	else if (m->profile != NULL && strcmp(profile, m->profile) == 0)
		m->in_profile = value;
}

static const char *
get(const struct config *cfg, const char *label, const char *key)
{
	struct label_match m = { label, config_profile(cfg), key, NULL, NULL };

	config_each(cfg, match_one, &m);
	if (m.in_profile != NULL)
		return m.in_profile;
	if (m.top != NULL)
		return m.top;
	return config_get(cfg, key);
}

static long long
get_num(const struct config *cfg, const char *label, const char *key, bool duration)
{
	const char *v = get(cfg, label, key);
	long long n;

	if (v == NULL)
		return 0;
	if (duration)
		return parse_duration(v) > 0 ? parse_duration(v) : 0;
	return parse_int(v, 0, 1000000000, &n) ? n : 0;
}

void
watch_policy_for(const struct config *cfg, const char *label, struct watch_policy *out)
{
	const char *v;

	memset(out, 0, sizeof(*out));
	out->idle_threshold = (int)get_num(cfg, label, "idle.threshold", false);
	out->idle_after = get_num(cfg, label, "idle.after", true);
	out->idle_action = action_parse(get(cfg, label, "idle.action"));
	out->runtime_max = get_num(cfg, label, "runtime.max", true);
	out->runtime_action = action_parse(get(cfg, label, "runtime.action"));
	v = get(cfg, label, "watch.jobs_active");
	out->jobs_active = v == NULL || strcmp(v, "false") != 0;
}

static void
limit_add(struct watch_budget *out, const char *policy, int64_t amount, const char *currency,
    bool day, const char *who)
{
	struct watch_limit *l;

	if (amount < 0)
		return;
	out->limits = xreallocarray(out->limits, out->n + 1, sizeof(*out->limits));
	l = &out->limits[out->n++];
	strlcpy_(l->policy, policy, sizeof(l->policy));
	l->amount = amount;
	money_currency_set(l->currency, currency);
	l->day = day;
	strlcpy_(l->who, who != NULL ? who : "", sizeof(l->who));
}

static void
person_limits(const char *who, const struct shared_budget *b, void *ctx)
{
	limit_add(ctx, "budget.day", b->day, b->day_currency, true, who);
	limit_add(ctx, "budget.month", b->month, b->month_currency, false, who);
}

void
watch_budget_for(const struct config *cfg, struct state *st, struct watch_budget *out)
{
	struct shared_budget team;
	char cur[CURRENCY_MAX];
	int64_t v;

	memset(out, 0, sizeof(*out));
	if (team_profile(cfg)) {
		/* What the launch door holds each launch to (launch.h), never the profile's. */
		launch_team_budget(st, &team);
		limit_add(out, "team.budget.day", team.day, team.day_currency, true, NULL);
		limit_add(out, "team.budget.month", team.month, team.month_currency, false,
		    NULL);
		launch_person_budgets_each(st, person_limits, out);
	} else {
		v = config_get_money_in(cfg, "budget.day", cur);
		limit_add(out, "budget.day", v, cur, true, NULL);
		v = config_get_money_in(cfg, "budget.month", cur);
		limit_add(out, "budget.month", v, cur, false, NULL);
	}
	config_fx(cfg, &out->fx);
	out->warn_pct = (int)config_get_int(cfg, "budget.warn", 80);
	out->action = action_parse(config_get(cfg, "budget.action"));
}

void
watch_budget_release(struct watch_budget *b)
{
	free(b->limits);
	b->limits = NULL;
	b->n = 0;
}
