/*
 * agent.c - the instance guard's agent: its plan from the session, its script, and the three
 * things done to it over ssh (install, remove, read the journal) (guard_agent.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/backend.h"
#include "gpurent/config.h"
#include "gpurent/events.h"
#include "gpurent/guard_agent.h"
#include "gpurent/i18n.h"
#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/observed.h"
#include "gpurent/probe.h"
#include "gpurent/remote.h"
#include "gpurent/session.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "gpurent/watch.h"

#include "src/guard/agent_sh.h"

/* Where each provider the guard can act through takes the stop. */
static const struct stopper {
	const char *provider;
	const char *api;		/* the public API base when none is configured */
	bool needs_key;			/* no credential of the instance's own: --with-key */
	bool terminates;		/* no stop, only terminate: the disk goes */
	bool own_deadline;		/* a time limit of its own (Slurm's --time): no --until */
} stoppers[] = {
	{ "vast", "https://console.vast.ai", false, false, false },
	{ "runpod", "https://api.runpod.io", false, false, false },
	{ "ppio", "https://api.ppio.com", true, false, false },
	{ "lambda", "https://cloud.lambda.ai", true, true, false },
	/* A job is cancelled from its own node (scancel) with the user's own Slurm identity. */
	{ "slurm", "", false, false, true },
};

/* How the guard acts on a provider's instances, or NULL. */
static const struct stopper *
stopper_of(const char *provider)
{
	size_t i;

	for (i = 0; i < sizeof(stoppers) / sizeof(stoppers[0]); i++)
		if (strcmp(stoppers[i].provider, provider) == 0)
			return &stoppers[i];
	return NULL;
}

bool
guard_agent_can_stop(const char *provider)
{
	const struct stopper *st = stopper_of(provider);

	return st != NULL && !st->needs_key;
}

/* Why the guard cannot stop an instance of a provider: said at a refused install. */
static enum gr_err
refuse(const struct stopper *st, const char *provider, const char *id, struct gr_error *err)
{
	if (st != NULL)
		return gr_fail(err, GR_EUNSUPPORTED, "'%s' gives its instances no credential of "
		    "their own, so an agent on %s could stop it only with your account's API key; "
		    "nothing was installed. --with-key puts that key on the instance (a file of "
		    "mode 0600 in the agent's directory, readable by whoever controls the "
		    "machine) and the agent %s it through the API. What holds without it: "
		    "gpurent watch on this machine (idle.after, runtime.max, budgets) while it "
		    "runs, and the provider's own limits", provider, id,
		    st->terminates ? _("terminates (the disk is lost)") : _("stops"));
	return gr_fail(err, GR_EUNSUPPORTED, "'%s' gives its instances no credential of their "
	    "own, so an agent on %s could not stop it; nothing was installed. What still holds: "
	    "gpurent watch on this machine (idle.after, runtime.max, budgets) while it runs, and "
	    "the provider's own limits", provider, id);
}

/* The directory of id's agent: PROVIDER-ID with the provider's own id. */
static enum gr_err
dir_of(const char *id, char *out, size_t n, struct gr_error *err)
{
	const char *colon = strchr(id, ':');

	if (colon == NULL || colon == id || colon[1] == '\0' ||
	    strspn(colon + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
	    != strlen(colon + 1) || strspn(id, "abcdefghijklmnopqrstuvwxyz") != (size_t)(colon - id))
		return gr_fail(err, GR_EUSAGE, "'%s' is no instance id the guard can name", id);
	snprintf(out, n, "%.*s-%s", (int)(colon - id), id, colon + 1);
	return GR_OK;
}

enum gr_err
guard_agent_plan(struct session *s, const char *id, int64_t until, int64_t max_cost,
    const char *max_cost_currency, bool with_key, struct guard_agent *out,
    struct gr_error *err)
{
	const struct stopper *stopper;
	struct backend *b;
	struct config *cfg;
	struct state *st;
	struct instance in;
	struct watch_policy pol;
	const char *colon = strchr(id, ':'), *env;
	enum gr_err e;

	memset(out, 0, sizeof(*out));
	if ((e = session_backend_for(s, id, &b, err)) != GR_OK ||
	    (e = session_config(s, &cfg, err)) != GR_OK)
		return e;
	stopper = stopper_of(b->ops->name);
	if (stopper == NULL || (stopper->needs_key && !with_key))
		return refuse(stopper, b->ops->name, id, err);
	if (until > 0 && stopper->own_deadline)
		return gr_fail(err, GR_EUSAGE, "a Slurm job's deadline is its own time limit (its "
		    "--time, which Slurm holds): --until is not held on %s", id);
	if (stopper->needs_key && (b->env.api_key == NULL || b->env.api_key[0] == '\0'))
		return gr_fail(err, GR_EAUTH, "no API key is configured for '%s', so --with-key "
		    "has none to place on %s", b->ops->name, id);
	if ((e = observed_get(b, id, &in, err)) != GR_OK)
		return e;
	strlcpy_(out->id, in.id, sizeof(out->id));
	strlcpy_(out->provider, b->ops->name, sizeof(out->provider));
	strlcpy_(out->target, colon != NULL ? colon + 1 : id, sizeof(out->target));
	if (dir_of(out->id, out->dir_name, sizeof(out->dir_name), err) != GR_OK)
		return err->code;
	strlcpy_(out->api, b->env.base_url != NULL ? b->env.base_url : stopper->api,
	    sizeof(out->api));
	out->with_key = stopper->needs_key;
	out->terminates = stopper->terminates;
	/* Tests name a file that stands in for the container's first process's environment. */
	env = getenv("GPURENT_GUARD_ENVIRON");
	strlcpy_(out->environ_path, env != NULL && env[0] != '\0' ? env : "/proc/1/environ",
	    sizeof(out->environ_path));
	out->interval = parse_interval(config_get(cfg, "guard.interval"));
	if (out->interval < 0)
		out->interval = 30;
	/* The agent only stops: a policy that only notifies is not its to hold, and one that
	 * destroys is held as a stop (the disk kept; the watcher may still destroy). */
	watch_policy_for(cfg, in.label, &pol);
	out->idle_after = pol.idle_action != WA_NOTIFY ? pol.idle_after : 0;
	out->idle_threshold = pol.idle_threshold;
	out->runtime_max = pol.runtime_action != WA_NOTIFY ? pol.runtime_max : 0;
	out->started = in.valid & IV_CREATED ? in.created_at : 0;
	out->until = until;
	money_currency_set(out->currency, in.currency[0] != '\0' ? in.currency : "USD");
	out->price = in.valid & IV_PRICE ? in.price_hour : 0;
	if (in.valid & IV_COST)
		out->spent = in.cost_so_far;
	else if (session_state(s, &st, NULL) == GR_OK)
		out->spent = ledger_spent(st, out->provider, out->id, session_now_of(s, id), NULL);
	if (max_cost > 0) {
		if (!money_same_currency(max_cost_currency, out->currency))
			return gr_fail(err, GR_EUSAGE, "%s bills in %s: --max-cost must be in %s too "
			    "(amounts are never converted)", id, out->currency, out->currency);
		if (out->price <= 0)
			return gr_fail(err, GR_EUSAGE, "%s's price is unknown, so --max-cost cannot "
			    "be held on it", id);
		out->max_cost = max_cost;
	}
	return GR_OK;
}

/* NAME='value' on a line of its own. */
static void
setting(struct sb *sb, const char *name, const char *value)
{
	sb_addf(sb, "%s=", name);
	remote_shell_quote(sb, value);
	sb_addc(sb, '\n');
}

static void
setting_num(struct sb *sb, const char *name, int64_t value)
{
	sb_addf(sb, "%s=%lld\n", name, (long long)value);
}

char *
guard_agent_script(const struct guard_agent *a)
{
	struct sb sb;

	sb_init(&sb);
	sb_addf(&sb, "#!/bin/sh\n# gpurent guard agent for %s, written by gpurent install\n", a->id);
	setting(&sb, "GR_ID", a->id);
	setting(&sb, "GR_PROVIDER", a->provider);
	setting(&sb, "GR_TARGET", a->target);
	setting(&sb, "GR_API", a->api);
	setting(&sb, "GR_ENVIRON", a->environ_path);
	setting(&sb, "GR_CURRENCY", a->currency);
	setting_num(&sb, "GR_INTERVAL", a->interval);
	setting_num(&sb, "GR_IDLE_AFTER", a->idle_after);
	setting_num(&sb, "GR_IDLE_THRESHOLD", a->idle_threshold);
	setting_num(&sb, "GR_RUNTIME_MAX", a->runtime_max);
	setting_num(&sb, "GR_STARTED", a->started);
	setting_num(&sb, "GR_UNTIL", a->until);
	setting_num(&sb, "GR_MAX_COST", a->max_cost);
	setting_num(&sb, "GR_PRICE", a->price);
	setting_num(&sb, "GR_SPENT0", a->spent);
	/* dir_name holds only [A-Za-z0-9_-] (guard_agent_plan). */
	sb_addf(&sb, "GR_DIR=\"$HOME/.gpurent-guard/%s\"\n", a->dir_name);
	setting(&sb, "GR_PROBE", probe_vendor_nvidia.command);
	setting(&sb, "GR_PROBE_AMD", probe_vendor_find("amd")->command);
	if (a->with_key)
		sb_addf(&sb, "# $GR_DIR/key: your %s API key (mode 0600), placed by install over "
		    "ssh's stdin and never printed\n", a->provider);
	sb_adds(&sb, guard_agent_text);
	return sb_detach(&sb);
}

/*
 * Run sh -c SCRIPT on id's instance with the words after it as $1... and the in_len bytes at
 * in on its stdin; its stdout in out.
 */
static enum gr_err
on_instance(struct session *s, const char *id, const char *script, const char *const *args,
    size_t nargs, const char *in, size_t in_len, struct sb *out, struct gr_error *err)
{
	struct remote_endpoint ep;
	const char *words[8] = { "sh", "-c", script, "gpurent-guard" };
	size_t i;
	int rc;

	if (session_endpoint(s, id, &ep, err) != GR_OK)
		return err->code;
	for (i = 0; i < nargs && i + 4 < sizeof(words) / sizeof(words[0]); i++)
		words[4 + i] = args[i];
	rc = remote_capture_fed(&ep, words, 4 + i, in, in_len, out, 1 << 20, err);
	if (rc == REMOTE_EXIT_CONN)
		return err->code != GR_OK ? err->code : gr_fail(err, GR_EUNAVAIL,
		    "could not reach %s over ssh", id);
	if (rc != 0)
		return gr_fail(err, GR_EFAIL, "the guard's command on %s exited %d", id, rc);
	return GR_OK;
}

/* The agent's pid in $p when it runs (its pid file names a live agent.sh), else "". */
#define LIVE_PID "p=$(cat \"$d/pid\" 2>/dev/null); case $p in ''|*[!0-9]*) p=;; *) " \
	"kill -0 \"$p\" 2>/dev/null && grep -q agent.sh \"/proc/$p/cmdline\" 2>/dev/null " \
	"|| p=;; esac; "

/*
 * $1 the directory's name, $2 the script ("": start the one there again, with the settings
 * of its install), $3 "key" when stdin is the API key for the agent's key file (mode 0600
 * from its creation). Replaces a running agent, so there is one.
 */
static const char install_sh[] =
	"d=$HOME/.gpurent-guard/$1; mkdir -p \"$d\" && chmod 700 \"$d\" || exit 1; "
	"if [ \"$3\" = key ]; then (umask 077; cat >\"$d/key.new\") && chmod 600 \"$d/key.new\" && "
	"mv -f \"$d/key.new\" \"$d/key\" || exit 1; fi; "
	/* A new script counts its spend from now: the time of the install it replaces goes. */
	"if [ -n \"$2\" ]; then printf '%s\\n' \"$2\" >\"$d/agent.sh.new\" && "
	"mv \"$d/agent.sh.new\" \"$d/agent.sh\" && rm -f \"$d/installed_at\" || exit 1; fi; "
	"[ -f \"$d/agent.sh\" ] || exit 0; " LIVE_PID
	"if [ -n \"$p\" ]; then kill \"$p\"; i=0; "
	"while kill -0 \"$p\" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done; fi; "
	"rm -f \"$d/pid\"; "
	"if command -v setsid >/dev/null 2>&1; then "
	"setsid nohup sh \"$d/agent.sh\" </dev/null >>\"$d/out\" 2>&1 & "
	"else nohup sh \"$d/agent.sh\" </dev/null >>\"$d/out\" 2>&1 & fi; "
	"if command -v crontab >/dev/null 2>&1; then "
	"{ crontab -l 2>/dev/null | grep -vF \"# gpurent-guard $1\"; "
	"echo \"@reboot sh $d/agent.sh >>$d/out 2>&1 # gpurent-guard $1\"; } | crontab -; fi; "
	/* Answer once the new agent holds its pid file. */
	"i=0; while [ $i -lt 100 ]; do " LIVE_PID "[ -n \"$p\" ] && break; sleep 0.1; "
	"i=$((i + 1)); done; [ -n \"$p\" ] && echo \"$p\"";

/* $1 the directory's name. */
static const char remove_sh[] =
	"d=$HOME/.gpurent-guard/$1; " LIVE_PID
	"[ -n \"$p\" ] && kill \"$p\"; "
	"if command -v crontab >/dev/null 2>&1 && crontab -l 2>/dev/null | grep -qF "
	"\"# gpurent-guard $1\"; then crontab -l 2>/dev/null | grep -vF \"# gpurent-guard $1\" "
	"| crontab -; fi; "
	"if [ -d \"$d\" ]; then rm -rf \"$d\"; echo removed; fi";

/* $1 the directory's name, $2 the last decision already recorded. */
static const char read_sh[] =
	"d=$HOME/.gpurent-guard/$1; [ -d \"$d\" ] || exit 0; " LIVE_PID
	"echo \"@@now $(date +%s)\"; [ -n \"$p\" ] && echo @@alive; "
	"echo @@state; cat \"$d/state\" 2>/dev/null; "
	"echo @@log; awk -v s=\"$2\" '$1 + 0 > s + 0' \"$d/log\" 2>/dev/null | tail -n 200";

/*
 * Run one of the scripts above on id's agent directory ($1), with arg as $2 unless NULL and
 * key (NULL: none) as "key" in $3 and on stdin; *said: whether it printed anything (the
 * agent's pid, "removed").
 */
static enum gr_err
on_agent(struct session *s, const char *id, const char *script, const char *arg,
    const char *key, bool *said, struct gr_error *err)
{
	char dir[ID_MAX + PROVIDER_MAX];
	const char *args[3] = { dir, arg, "key" };
	struct sb out;
	enum gr_err e;

	if (dir_of(id, dir, sizeof(dir), err) != GR_OK)
		return err->code;
	sb_init(&out);
	e = on_instance(s, id, script, args, key != NULL ? 3 : arg != NULL ? 2 : 1, key,
	    key != NULL ? strlen(key) : 0, &out, err);
	*said = out.len > 0;
	sb_release(&out);
	return e;
}

enum gr_err
guard_agent_install(struct session *s, const struct guard_agent *a, struct gr_error *err)
{
	struct backend *b;
	char *script;
	bool started = false;
	enum gr_err e;

	if (a->with_key && session_backend_for(s, a->id, &b, err) != GR_OK)
		return err->code;
	script = guard_agent_script(a);
	e = on_agent(s, a->id, install_sh, script, a->with_key ? b->env.api_key : NULL, &started,
	    err);
	free(script);
	if (e == GR_OK && !started)
		e = gr_fail(err, GR_EFAIL, "the guard's agent did not start on %s (see "
		    "~/.gpurent-guard/%s/out there)", a->id, a->dir_name);
	return e;
}

enum gr_err
guard_agent_remove(struct session *s, const char *id, struct gr_error *err)
{
	bool removed = false;
	enum gr_err e = on_agent(s, id, remove_sh, NULL, NULL, &removed, err);

	if (e == GR_OK && !removed)
		e = gr_fail(err, GR_ENOTFOUND, "no guard is installed on %s", id);
	return e;
}

/* What a decision is recorded with. */
struct record_ctx {
	struct state *st;
	const char *id;
	const char *label;
	const struct guard_journal *j;
};

/* Record one decision as an event. */
static void
record(const struct guard_decision *d, void *ctx)
{
	const struct record_ctx *c = ctx;
	struct event ev = { 0 };
	struct gr_error e = { 0 };

	ev.at = d->at;
	ev.level = strcmp(d->kind, "stop-ordered") == 0 ? EV_ACTION :
	    strcmp(d->kind, "stop-failed") == 0 ? EV_ALERT :
	    strcmp(d->kind, "unknown") == 0 ? EV_WARN : EV_INFO;
	snprintf(ev.kind, sizeof(ev.kind), "guard-%s", d->kind);
	strlcpy_(ev.policy, d->policy, sizeof(ev.policy));
	strlcpy_(ev.instance_id, c->id, sizeof(ev.instance_id));
	strlcpy_(ev.label, c->label, sizeof(ev.label));
	ev.util_pct = c->j->util;
	snprintf(ev.message, sizeof(ev.message), "%s: %s", _("instance guard"), d->msg);
	events_add(c->st, &ev, &e);
}

enum gr_err
guard_agent_read(struct session *s, const char *id, const char *label,
    struct guard_journal *out, struct gr_error *err)
{
	char dir[ID_MAX + PROVIDER_MAX], key[ID_MAX + 16], seen[24] = "0";
	const char *args[2] = { dir, seen };
	struct record_ctx rc = { NULL, id, label, out };
	struct sb buf;
	long long last = 0;
	enum gr_err e;

	memset(out, 0, sizeof(*out));
	out->heartbeat_age = out->next_in = out->spent = -1;
	out->util = -1;
	if (dir_of(id, dir, sizeof(dir), err) != GR_OK ||
	    session_state(s, &rc.st, err) != GR_OK)
		return err->code;
	snprintf(key, sizeof(key), "guard.seq:%s", id);
	if (state_meta_get(rc.st, key, seen, sizeof(seen)))
		parse_int(seen, 0, INT64_MAX / 4, &last);
	sb_init(&buf);
	if ((e = on_instance(s, id, read_sh, args, 2, NULL, 0, &buf, err)) == GR_OK && buf.buf != NULL &&
	    guard_journal_parse(buf.buf, &last, out, record, &rc) && out->events > 0) {
		snprintf(seen, sizeof(seen), "%lld", last);
		state_meta_set(rc.st, key, seen, NULL);
	}
	sb_release(&buf);
	return e;
}

/* Start the agent of id again from the script it was installed with. */
static enum gr_err
restart(struct session *s, const char *id, struct gr_error *err)
{
	bool started = false;
	enum gr_err e = on_agent(s, id, install_sh, "", NULL, &started, err);

	if (e == GR_OK && !started)
		e = gr_fail(err, GR_EFAIL, "the guard's agent did not start again on %s", id);
	return e;
}

/* An event of the watcher's keeping of the agents. */
static void
keep_event(struct session *s, enum event_level level, const char *kind, const char *id,
    const char *label, const char *msg)
{
	struct event ev = { 0 };
	struct state *st;

	if (session_state(s, &st, NULL) != GR_OK)
		return;
	ev.at = session_now_of(s, id);
	ev.level = level;
	strlcpy_(ev.kind, kind, sizeof(ev.kind));
	strlcpy_(ev.instance_id, id, sizeof(ev.instance_id));
	strlcpy_(ev.label, label, sizeof(ev.label));
	ev.util_pct = -1;
	snprintf(ev.message, sizeof(ev.message), "%s: %s", _("instance guard"), msg);
	events_add(st, &ev, NULL);
}

size_t
guard_agents_keep(struct session *s, const struct instance_list *l)
{
	struct config *cfg;
	struct gr_error err;
	struct guard_journal j;
	struct guard_agent g;
	char msg[EVENT_MSG_MAX - 32];
	size_t i, done = 0;

	if (session_config(s, &cfg, NULL) != GR_OK || !config_get_bool(cfg, "guard.agent", false))
		return 0;
	for (i = 0; i < l->n; i++) {
		const struct instance *in = &l->v[i];

		if (in->state != ST_RUNNING || !guard_agent_can_stop(in->provider))
			continue;
		err = (struct gr_error){ 0 };
		if (guard_agent_read(s, in->id, in->label, &j, &err) != GR_OK)
			continue;	/* no ssh this pass: the next one tries again */
		if (!j.installed) {
			if (guard_agent_plan(s, in->id, 0, 0, "", false, &g, &err) != GR_OK ||
			    guard_agent_install(s, &g, &err) != GR_OK) {
				snprintf(msg, sizeof(msg), _("not installed: %s"), err.msg);
				keep_event(s, EV_ALERT, "guard-install-failed", in->id, in->label, msg);
				continue;
			}
			keep_event(s, EV_INFO, "guard-installed", in->id, in->label,
			    _("installed (guard.agent = true)"));
			done++;
		} else if (!j.alive || j.heartbeat_age < 0 ||
		    j.heartbeat_age > GUARD_STALE_ROUNDS * j.interval + GUARD_STALE_MARGIN) {
			if (restart(s, in->id, &err) != GR_OK) {
				snprintf(msg, sizeof(msg), _("gone and not started again: %s"), err.msg);
				keep_event(s, EV_ALERT, "guard-restart-failed", in->id, in->label, msg);
				continue;
			}
			snprintf(msg, sizeof(msg), j.alive ? _("the agent's heartbeat is %llds old: "
			    "started again") : _("the agent was gone (heartbeat %llds old): started "
			    "again"), (long long)j.heartbeat_age);
			keep_event(s, EV_WARN, "guard-restarted", in->id, in->label, msg);
			done++;
		}
	}
	return done;
}
