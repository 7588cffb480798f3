/*
 * The watcher's pass (watch.h): observe, decide on fresh evidence, act, verify, journal.
 *
 * An event's message is written in the watcher's language (gettext at emit time) and kept
 * as written in the journal, so `events`, the dashboard and notify.command show what the
 * watcher said. Scripts match on what stays English: the level, kind and policy, the ids
 * and util_pct. (Storing the msgid and its arguments to translate on display would need
 * every argument kept typed, for a journal whose readers are mostly the watcher's user.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/config.h"
#include "gpurent/costs.h"
#include "gpurent/elastic.h"
#include "gpurent/guard_agent.h"
#include "gpurent/i18n.h"
#include "gpurent/job_engine.h"
#include "gpurent/lease.h"
#include "gpurent/managed.h"
#include "gpurent/money.h"
#include "gpurent/observed.h"
#include "gpurent/paths.h"
#include "gpurent/reconcile.h"
#include "gpurent/billcheck.h"
#include "gpurent/sampler.h"
#include "gpurent/remote_job.h"
#include "gpurent/history.h"
#include "gpurent/session.h"
#include "gpurent/state.h"
#include "gpurent/team.h"
#include "gpurent/util.h"
#include "gpurent/watch.h"
#include "gpurent/watch_state.h"

/* Where an ordered stop or destroy stands. */
enum phase {
	PH_NONE,
	PH_ORDERING,	/* recorded, the request may or may not have left */
	PH_ORDERED,	/* the provider accepted (or refused) it; being verified */
	PH_FAILED,	/* not verified after watch.verify_tries orders: alerted, still checked */
};

/* What the watcher remembers of one instance between passes (table watch_state). */
struct inst_watch {
	char id[ID_MAX];
	char label[LABEL_MAX];
	enum inst_state last_state;
	int util;			/* newest sample's mean utilisation, -1 unknown */
	int64_t sample_at;		/* when it was taken, 0 never */
	int64_t idle_since;		/* first of the idle samples in a row, 0 not idle */
	bool unobserved;		/* said so already (an event per change, not per pass) */
	unsigned notified;		/* NOTE_* policies that have told about this spell */
	enum watch_action action;	/* in flight */
	char policy[EVENT_KIND_MAX];
	enum phase phase;
	int64_t ordered_at;		/* the latest order */
	int tries;			/* orders sent */
	long pid;			/* the watcher that ordered it */
	bool seen;			/* listed in this pass */
};

struct watch {
	struct session *s;
	struct state *st;
	struct config *cfg;
	struct watch_opts o;
	char holder[LEASE_HOLDER_MAX];	/* this watcher: user@host:pid */
	bool leads;			/* holds the store's watcher lease (watch_lead) */
	int64_t renewed;		/* ms: when it last took or renewed it */
	struct inst_watch *v;
	size_t n, cap;
	struct cost_clock clk;
	struct watch_report *r;
	struct watch_report between;	/* what events count outside a pass */
	int verify_tries;
	int64_t verify_timeout;
	int64_t reconcile_interval;
	int64_t check_tolerance;	/* costs.check_tolerance, micro-units */
	bool said_no_team_key[SESSION_MAX_PROVIDERS];	/* per backend, once a run */
};

/* Bits of inst_watch.notified: a notify-only policy (or a refusal) says so once a spell. */
enum { NOTE_IDLE = 1u << 0, NOTE_RUNTIME = 1u << 1, NOTE_BUDGET = 1u << 2 };

static const char *const phase_names[] = {
	N_("none"), N_("perhaps sent"), N_("accepted"), N_("alerted"),
};

/* ---------------------------------------------------------------- the lease */

/*
 * Exactly one watcher of a store acts (issue 31): the holder of its lease (lease.h,
 * WATCH_LEASE). The lease lasts half an interval from each renewal; its holder renews it
 * every quarter interval (between passes, and in a pass at each instance once due), and a
 * watcher standing by looks every quarter interval. So a holder that dies is followed
 * within three quarters of an interval (its lease, at most half of one, then a look, at
 * most a quarter), and at the next look when it was a process of the same machine (its pid
 * is gone), while a living holder keeps a quarter interval to spare. A holder that could
 * not renew in time (paused, or a pass stuck on a provider past its lease) has lost it:
 * acting() finds that out before anything more is ordered, written or journalled, and the
 * pass ends (GR_ELOCKED); it acts no more until it takes the lease again. Each host's clock reads the lease: they must agree to well within
 * a quarter interval (NTP does).
 */
int64_t
watch_tick(const struct watch *w)
{
	return w->o.interval * 250;
}

/*
 * Whether this watcher may act now: a dry run always (it acts on nothing); the holder
 * while its lease holds, renewed here once a quarter interval has passed since the last.
 */
static bool
acting(struct watch *w)
{
	int64_t now;

	if (w->o.dry_run)
		return true;
	if (!w->leads)
		return false;
	now = wall_ms();
	if (now - w->renewed < watch_tick(w))
		return true;
	if (lease_take(w->st, WATCH_LEASE, w->holder, now, w->o.interval * 500, 0, NULL)) {
		w->renewed = now;
		return true;
	}
	w->leads = false;
	return false;
}

/* ---------------------------------------------------------------- remembered state */

static struct inst_watch *
find(struct watch *w, const char *id)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (strcmp(w->v[i].id, id) == 0)
			return &w->v[i];
	return NULL;
}

static struct inst_watch *
find_or_add(struct watch *w, const char *id)
{
	struct inst_watch *iw = find(w, id);

	if (iw != NULL)
		return iw;
	iw = XPUSH(w->v, w->n, w->cap, 32);
	strlcpy_(iw->id, id, sizeof(iw->id));
	iw->util = -1;
	return iw;
}

static void
load_one(const struct watch_record *r, void *ctx)
{
	struct inst_watch *iw = find_or_add(ctx, r->id);

	strlcpy_(iw->label, r->label, sizeof(iw->label));
	iw->last_state = r->last_state;
	iw->util = r->util;
	iw->sample_at = r->sample_at;
	iw->idle_since = r->idle_since;
	iw->unobserved = r->unobserved;
	iw->notified = r->notified;
	iw->action = (enum watch_action)r->action;
	strlcpy_(iw->policy, r->policy, sizeof(iw->policy));
	iw->phase = (enum phase)r->phase;
	iw->ordered_at = r->ordered_at;
	iw->tries = r->tries;
	iw->pid = r->pid;
}

static enum gr_err
load_state(struct watch *w, struct gr_error *err)
{
	return watch_state_each(w->st, load_one, w, err);
}

/* Write one instance's state; a dry run keeps it in memory only. */
static enum gr_err
save(struct watch *w, const struct inst_watch *iw, struct gr_error *err)
{
	struct watch_record r = {
		.last_state = iw->last_state, .util = iw->util, .sample_at = iw->sample_at,
		.idle_since = iw->idle_since, .unobserved = iw->unobserved,
		.notified = iw->notified, .action = iw->action, .phase = iw->phase,
		.ordered_at = iw->ordered_at, .tries = iw->tries, .pid = iw->pid,
	};

	/* Nor writes: the state is the holder's now (one paused mid-pass finds it out here). */
	if (w->o.dry_run || !acting(w))
		return GR_OK;
	strlcpy_(r.id, iw->id, sizeof(r.id));
	strlcpy_(r.label, iw->label, sizeof(r.label));
	strlcpy_(r.policy, iw->policy, sizeof(r.policy));
	return watch_state_put(w->st, &r, err);
}

/* Forget instances that are gone and have nothing in flight. */
static enum gr_err
forget(struct watch *w, struct inst_watch *iw, struct gr_error *err)
{
	enum gr_err rc = GR_OK;

	if (!w->o.dry_run && acting(w))
		rc = watch_state_forget(w->st, iw->id, err);
	*iw = w->v[--w->n];
	return rc;
}

/* ---------------------------------------------------------------- events */

static void emit(struct watch *w, enum event_level level, const char *kind, const char *policy,
    const struct inst_watch *iw, int64_t at, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Journal an event, print it, and hand actions and alerts to notify.command. */
static void
emit(struct watch *w, enum event_level level, const char *kind, const char *policy,
    const struct inst_watch *iw, int64_t at, const char *fmt, ...)
{
	struct gr_error err = { 0 };
	struct event ev;
	char shown[EVENT_MSG_MAX + LABEL_MAX + 128], clean[sizeof(shown)];
	va_list ap;

	/* One that lost the lease says nothing more: the holder speaks for the store. */
	if (!acting(w))
		return;
	memset(&ev, 0, sizeof(ev));
	ev.at = at;
	ev.level = level;
	strlcpy_(ev.kind, kind, sizeof(ev.kind));
	strlcpy_(ev.policy, policy ? policy : "", sizeof(ev.policy));
	if (iw != NULL) {
		strlcpy_(ev.instance_id, iw->id, sizeof(ev.instance_id));
		strlcpy_(ev.label, iw->label, sizeof(ev.label));
		ev.util_pct = iw->util;
	} else
		ev.util_pct = -1;
	va_start(ap, fmt);
	vsnprintf(ev.message, sizeof(ev.message), fmt, ap);
	va_end(ap);
	if (level == EV_ALERT)
		w->r->alerts++;
	snprintf(shown, sizeof(shown), "%s%s %s%s%s: %s", w->o.dry_run ? _("would: ") : "",
	    event_level_name(level), kind, iw && iw->id[0] ? " " : "", iw ? iw->id : "",
	    ev.message);
	if (w->o.out != NULL)
		fprintf(w->o.out, "%s\n", text_sanitize(clean, sizeof(clean), shown));
	if (w->o.dry_run)
		return;
	if (events_add(w->st, &ev, &err) != GR_OK)
		fprintf(stderr, "gpurent watch: %s\n", err.msg);
	if (level >= EV_ACTION && w->o.notify != NULL)
		w->o.notify(w->o.notify_ctx, &ev);
}

/* ---------------------------------------------------------------- observing */

/*
 * The mean utilisation of the GPUs in v[0..n) sampled at `from` or later, and when the
 * newest of them was taken. false when none of them knew its utilisation.
 */
static bool
mean_util(const struct gpu_sample *v, size_t n, int64_t from, int *util, int64_t *at)
{
	int64_t newest = 0;
	long sum = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (v[i].at >= from && (v[i].valid & MV_UTIL)) {
			sum += v[i].util_pct;
			k++;
			if (v[i].at > newest)
				newest = v[i].at;
		}
	if (k == 0)
		return false;
	*util = (int)(sum / (long)k);
	*at = newest;
	return true;
}

/*
 * The newest utilisation of a running instance, from the sample history: a sample taken
 * through the session's door (session_samples: the provider's metrics, or for a provider
 * with none, such as Slurm, the machine's GPU tool over ssh as `gpurent metrics --source
 * ssh` reads it), kept in the history and read back from it, where audit finds it too. A
 * dry run writes nothing, its samples neither: it reads them as taken. What the listing
 * carries stands in when no sample could be had. Returns false when nothing could be had
 * (unknown, or the provider failed).
 */
static bool
take_sample(struct watch *w, struct backend *b, const struct instance *in, int64_t now,
    int *util, int64_t *at)
{
	struct probe_snapshot snap;
	struct snapshot_job job = { .id = in->id, .out = &snap };
	struct sample_list kept;
	struct gr_error err = { 0 };
	int64_t from = INT64_MAX;
	bool seen = false;
	size_t i;

	job.src = (b->ops->caps & CAP_METRICS) ? METRICS_API : METRICS_SSH;
	probe_snapshot_init(&snap);
	sample_list_init(&kept);
	if (b->ops->caps & (CAP_METRICS | CAP_SSH)) {
		if (w->o.dry_run)
			session_snapshots(w->s, &job, 1, 1);
		else
			session_samples(w->s, &job, 1, 1);
	} else
		job.rc = GR_EUNSUPPORTED;
	/* A job's node that did not answer may be the busy one: the job is unobserved. */
	if (job.rc == GR_OK && snap.unanswered[0] == '\0') {
		for (i = 0; i < snap.gpus.n; i++)
			if (snap.gpus.v[i].at < from)
				from = snap.gpus.v[i].at;
		/* The history when it kept them; what was taken when it did not. */
		if (!w->o.dry_run && job.store_err.code == GR_OK &&
		    samples_latest(w->st, in->id, &kept, &err) == GR_OK)
			seen = mean_util(kept.v, kept.n, from, util, at);
		else
			seen = mean_util(snap.gpus.v, snap.gpus.n, from, util, at);
	}
	sample_list_release(&kept);
	probe_snapshot_release(&snap);
	if (!seen && (in->valid & IV_UTIL)) {
		*util = in->util_pct;
		*at = now;
		seen = true;
	}
	return seen;
}

/*
 * How long a sample stays fresh: three intervals, as they pass on the clock the instance's
 * samples are stamped with (a simulator run faster than the wall spans more of its own
 * seconds while the watcher sleeps one interval).
 */
static int64_t
fresh_span(const struct watch *w, const char *provider)
{
	return 3 * w->o.interval * cost_clock_rate(&w->clk, provider);
}

static bool
has_running_job(const struct remote_job *jobs, size_t n, const char *id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (jobs[i].state == JOB_RUNNING && strcmp(jobs[i].instance_id, id) == 0)
			return true;
	return false;
}

static void
fmt_dur(char *buf, size_t n, int64_t s)
{
	if (s >= 3600)
		snprintf(buf, n, "%lldh%02lldm%02llds", (long long)(s / 3600),
		    (long long)(s % 3600 / 60), (long long)(s % 60));
	else if (s >= 60)
		snprintf(buf, n, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
	else
		snprintf(buf, n, "%llds", (long long)s);
}

/* ---------------------------------------------------------------- acting */

static enum gr_err
send_order(struct backend *b, enum watch_action a, const char *id, struct gr_error *err)
{
	if (a == WA_STOP)
		return observed_stop(b, id, err);
	return observed_destroy(b, id, err);
}

/* Whether the instance as listed (NULL: not listed) shows the order done. */
static bool
order_done(enum watch_action a, const struct instance *in)
{
	if (in == NULL || in->state == ST_DESTROYED)
		return true;
	return a == WA_STOP && (in->state == ST_STOPPED || in->state == ST_FAILED);
}

/*
 * Order a stop or destroy: recorded (ordering) before the request leaves, so that a
 * watcher killed meanwhile finds it and verifies, then ordered.
 */
static void
order(struct watch *w, struct backend *b, struct inst_watch *iw, int64_t now)
{
	struct gr_error err = { 0 }, serr = { 0 };
	const char *verb = watch_action_name(iw->action);
	char kind[EVENT_KIND_MAX];
	enum gr_err rc;

	/* The last look before an order leaves: one that lost the lease sends nothing. */
	if (!acting(w))
		return;
	iw->phase = PH_ORDERING;
	iw->ordered_at = now;
	iw->tries++;
	iw->pid = (long)getpid();
	w->r->acted++;
	if (w->o.dry_run) {
		emit(w, EV_ACTION, iw->action == WA_STOP ? "stop-ordered" : "destroy-ordered",
		    iw->policy, iw, now, "%s", iw->action == WA_STOP ?
		    _("stop (dry run: nothing sent)") : _("destroy (dry run: nothing sent)"));
		iw->phase = PH_NONE;
		iw->action = WA_NONE;
		iw->tries = 0;
		return;
	}
	if (save(w, iw, &err) != GR_OK) {
		/* Without the record a crash could lose it: do not send. */
		emit(w, EV_ALERT, "state-error", iw->policy, iw, now, _("not ordered: %s"), err.msg);
		iw->phase = PH_NONE;
		iw->action = WA_NONE;
		return;
	}
	rc = send_order(b, iw->action, iw->id, &err);
	/* Recorded before it is told (notify.command may take its time, or never return). */
	iw->phase = PH_ORDERED;
	save(w, iw, &serr);
	if (rc != GR_OK) {
		snprintf(kind, sizeof(kind), "%s-refused", verb);
		emit(w, EV_WARN, kind, iw->policy, iw, now, _("order %d of %d: %s"), iw->tries,
		    w->verify_tries, err.msg);
	} else {
		snprintf(kind, sizeof(kind), "%s-ordered", verb);
		emit(w, EV_ACTION, kind, iw->policy, iw, now, _("order %d of %d accepted by the "
		    "provider; verifying"), iw->tries, w->verify_tries);
	}
}

/* Start acting on an instance for a policy, after the observation that led to it. */
static void
act(struct watch *w, struct backend *b, struct inst_watch *iw, enum watch_action a,
    const char *policy, int64_t now, const char *why)
{
	struct gr_error err = { 0 };
	unsigned note = strcmp(policy, "idle") == 0 ? NOTE_IDLE :
	    strcmp(policy, "runtime") == 0 ? NOTE_RUNTIME : NOTE_BUDGET;

	if (a == WA_NOTIFY) {
		if (!(iw->notified & note))
			emit(w, EV_WARN, policy, policy, iw, now, _("%s (notify only)"), why);
		iw->notified |= note;
		return;
	}
	emit(w, EV_INFO, policy, policy, iw, now, "%s", why);
	/*
	 * A cluster's allocation (a Slurm job) cannot be stopped, and cancelling it is what
	 * stopping is elsewhere: the charge ends, and nothing is lost but the allocation (the
	 * job's files are on the cluster). A cloud instance that cannot stop is not destroyed
	 * for a stop: that would lose its disk.
	 */
	if (a == WA_STOP && !(b->ops->caps & CAP_STOP) && (b->ops->caps & CAP_ALLOC)) {
		emit(w, EV_INFO, "stop-as-cancel", policy, iw, now, _("%s: stopping it means "
		    "cancelling it (destroy)"), b->ops->no_stop_why ? _(b->ops->no_stop_why) :
		    _("it cannot be stopped"));
		a = WA_DESTROY;
	}
	if (a == WA_STOP && !(b->ops->caps & CAP_STOP)) {
		backend_require(b->ops, CAP_STOP, NULL, &err);
		if (!(iw->notified & note))
			emit(w, EV_ALERT, "stop-unsupported", policy, iw, now,
			    /* TRANSLATORS: the second %s is a config key prefix (idle, budget or
			       runtime); "action = destroy or notify" is config and stays. */
			    _("%s; set %s.action = destroy or notify"), err.msg, strcmp(policy, "idle") == 0 ?
			    "idle" : strstr(policy, "budget") != NULL ? "budget" : "runtime");
		iw->notified |= note;
		return;
	}
	iw->action = a;
	strlcpy_(iw->policy, policy, sizeof(iw->policy));
	iw->tries = 0;
	order(w, b, iw, now);
}

/* A pass over an instance with an order in flight: verified, waited for, again, or alert. */
static void
verify(struct watch *w, struct backend *b, struct inst_watch *iw, const struct instance *in,
    int64_t now)
{
	const char *verb = watch_action_name(iw->action);
	char kind[EVENT_KIND_MAX], took[32];
	struct gr_error err = { 0 };

	fmt_dur(took, sizeof(took), now - iw->ordered_at);
	if (order_done(iw->action, in)) {
		snprintf(kind, sizeof(kind), "%s-verified", verb);
		if (in == NULL)
			emit(w, EV_ACTION, kind, iw->policy, iw, now, _("the provider reports it "
			    "gone (%s after order %d)"), took, iw->tries);
		else
			emit(w, EV_ACTION, kind, iw->policy, iw, now,
			    /* TRANSLATORS: the first %s is a state (running, stopped ...). */
			    _("the provider reports it %s%s%s (%s after order %d)"),
			    inst_state_name(in->state),
			    in->state == ST_DESTROYED && in->status_msg[0] ? ": " : "",
			    in->state == ST_DESTROYED ? in->status_msg : "", took, iw->tries);
		iw->action = WA_NONE;
		iw->phase = PH_NONE;
		iw->policy[0] = '\0';
		iw->tries = 0;
		iw->idle_since = 0;
		save(w, iw, &err);
		return;
	}
	if (iw->phase == PH_FAILED)
		return;
	/* On its way, and not for too long: wait for it. */
	if ((in->state == ST_STOPPING || in->state == ST_DESTROYING) &&
	    now - iw->ordered_at < w->verify_timeout)
		return;
	if (iw->tries < w->verify_tries) {
		snprintf(kind, sizeof(kind), "%s-retry", verb);
		emit(w, EV_WARN, kind, iw->policy, iw, now,
		    /* TRANSLATORS: still STATE DURATION after order N. */
		    _("still %s %s after order %d; ordering again"), inst_state_name(in->state), took, iw->tries);
		order(w, b, iw, now);
		return;
	}
	snprintf(kind, sizeof(kind), "%s-unverified", verb);
	emit(w, EV_ALERT, kind, iw->policy, iw, now,
	    /* TRANSLATORS: still STATE DURATION after N orders. */
	    _("still %s %s after %d orders; it may still bill: check it at the provider"),
	    inst_state_name(in->state), took, iw->tries);
	iw->phase = PH_FAILED;
	save(w, iw, &err);
}

/*
 * An instance with an order in flight that its provider no longer lists: read it back by
 * id (a cancelled Slurm job says CANCELLED), gone when the provider does not know it; an
 * answer of neither is verified at a later pass.
 */
static void
reread(struct watch *w, struct backend *b, struct inst_watch *iw, int64_t now)
{
	struct instance in;
	struct gr_error err = { 0 };
	enum gr_err rc;

	memset(&in, 0, sizeof(in));
	rc = observed_get(b, iw->id, &in, &err);
	if (rc == GR_OK)
		verify(w, b, iw, &in, now);
	else if (rc == GR_ENOTFOUND)
		verify(w, b, iw, NULL, now);
}

/* ---------------------------------------------------------------- one instance */

/* Whether a provider's status message says it took the instance back. */
static bool
taken_back_msg(const char *msg)
{
	static const char *const words[] = { "outbid", "preempt", "interrupt", "reclaim" };
	char low[128];
	size_t i;

	for (i = 0; i + 1 < sizeof(low) && msg[i] != '\0'; i++)
		low[i] = (char)(msg[i] >= 'A' && msg[i] <= 'Z' ? msg[i] + 32 : msg[i]);
	low[i] = '\0';
	for (i = 0; i < ARRAY_LEN(words); i++)
		if (strstr(low, words[i]) != NULL)
			return true;
	return false;
}

static void
observe(struct watch *w, struct backend *b, const struct instance *in, struct inst_watch *iw,
    const struct remote_job *jobs, size_t n_jobs, int64_t now)
{
	struct watch_policy pol;
	struct gr_error err = { 0 };
	char why[EVENT_MSG_MAX], d1[32], d2[32];
	int util;
	int64_t at, started;
	bool fresh;

	watch_policy_for(w->cfg, in->label, &pol);
	/*
	 * Taken back by the provider: an interruptible instance that stopped unasked, or any
	 * that failed (its machine died), seen running by the last pass, or first seen with
	 * the provider's word for it.
	 */
	if ((iw->last_state == ST_RUNNING || (iw->last_state == ST_UNKNOWN &&
	    taken_back_msg(in->status_msg))) && in->state != ST_RUNNING &&
	    (in->type == OFFER_INTERRUPTIBLE || in->state == ST_FAILED) && iw->phase == PH_NONE &&
	    (in->state == ST_STOPPED || in->state == ST_DESTROYED || in->state == ST_FAILED))
		emit(w, EV_WARN, "preempted", "", iw, now, _("the provider took it back (%s%s%s)"),
		    inst_state_name(in->state), in->status_msg[0] ? ": " : "", in->status_msg);
	iw->last_state = in->state;
	if (in->state != ST_RUNNING) {
		iw->idle_since = 0;
		iw->notified = 0;
		save(w, iw, &err);
		return;
	}
	if (take_sample(w, b, in, now, &util, &at)) {
		iw->util = util;
		/*
		 * Idle time accrues only between samples no further apart than the freshness:
		 * across a longer gap (passes not run, a laptop asleep) nobody saw the GPU, so
		 * an idle spell begins again at this sample.
		 */
		if (iw->idle_since != 0 && iw->sample_at > 0 &&
		    at - iw->sample_at > fresh_span(w, in->provider)) {
			fmt_dur(d1, sizeof(d1), at - iw->sample_at);
			fmt_dur(d2, sizeof(d2), fresh_span(w, in->provider));
			iw->idle_since = 0;
			iw->notified &= ~(unsigned)NOTE_IDLE;
			emit(w, EV_INFO, "gap", "", iw, now, _("no sample for %s (over %s): "
			    "idle time counts again from this sample"), d1, d2);
		}
		iw->sample_at = at;
	}
	fresh = iw->sample_at > 0 && iw->util >= 0 &&
	    now - iw->sample_at <= fresh_span(w, in->provider);
	if (!fresh) {
		w->r->unobserved++;
		if (!iw->unobserved) {
			if (iw->sample_at == 0 || iw->util < 0)
				snprintf(why, sizeof(why), "%s",
				    _("GPU utilisation unknown: not counted as idle"));
			else {
				fmt_dur(d1, sizeof(d1), now - iw->sample_at);
				fmt_dur(d2, sizeof(d2), fresh_span(w, in->provider));
				snprintf(why, sizeof(why), _("newest sample %s old (over "
				    "%s): not counted as idle"), d1, d2);
			}
			emit(w, EV_INFO, "unobserved", "", iw, now, "%s", why);
		}
		iw->unobserved = true;
		iw->idle_since = 0;
		save(w, iw, &err);
		return;
	}
	iw->unobserved = false;
	if (pol.jobs_active && has_running_job(jobs, n_jobs, in->id)) {
		iw->idle_since = 0;
		iw->notified &= ~(unsigned)NOTE_IDLE;
	} else if (pol.idle_after > 0 && iw->util <= pol.idle_threshold) {
		if (iw->idle_since == 0)
			iw->idle_since = iw->sample_at;
		if (now - iw->idle_since >= pol.idle_after) {
			fmt_dur(d1, sizeof(d1), now - iw->idle_since);
			fmt_dur(d2, sizeof(d2), pol.idle_after);
			snprintf(why, sizeof(why), _("GPU utilisation %d%% <= %d%% "
			    "for %s (idle.after %s)"), iw->util, pol.idle_threshold, d1, d2);
			act(w, b, iw, pol.idle_action, "idle", now, why);
			save(w, iw, &err);
			return;
		}
	} else {
		iw->idle_since = 0;
		iw->notified &= ~(unsigned)NOTE_IDLE;
	}
	started = in->state_since > 0 ? in->state_since :
	    (in->valid & IV_CREATED) ? in->created_at : 0;
	if (pol.runtime_max > 0 && started > 0 && now - started >= pol.runtime_max) {
		fmt_dur(d1, sizeof(d1), now - started);
		fmt_dur(d2, sizeof(d2), pol.runtime_max);
		snprintf(why, sizeof(why), _("running for %s (runtime.max %s)"), d1, d2);
		act(w, b, iw, pol.runtime_action, "runtime", now, why);
	}
	save(w, iw, &err);
}

/* ---------------------------------------------------------------- budgets */

struct budget_target {
	struct backend *b;
	const struct instance *in;
};

static int
newest_first(const void *a, const void *b)
{
	const struct budget_target *x = a, *y = b;

	return x->in->created_at < y->in->created_at ? 1 :
	    x->in->created_at > y->in->created_at ? -1 : strcmp(y->in->id, x->in->id);
}

/* Once per day or month: whether meta key says this period is done, and mark it. */
static bool
once_per(struct watch *w, const char *key, int64_t period)
{
	struct gr_error err = { 0 };
	char buf[32];
	long long v;

	if (state_meta_get(w->st, key, buf, sizeof(buf)) && parse_int(buf, 0, INT64_MAX, &v) &&
	    v == period)
		return false;
	if (!w->o.dry_run) {
		snprintf(buf, sizeof(buf), "%lld", (long long)period);
		state_meta_set(w->st, key, buf, &err);
	}
	return true;
}

/* Whether a budget in `cur` counts spend in `code`: the same currency, or both rated. */
static bool
counted_in(const struct fx_rates *fx, const char *code, const char *cur)
{
	int64_t unused;

	return money_convert(fx, MICROS_PER_DOLLAR, code, cur, &unused);
}

/*
 * Spend the ledger has in currencies a budget cannot count (no configured rate): said
 * once a period, with the fx key that would count it, and never converted silently.
 */
static void
say_uncounted(struct watch *w, const struct watch_budget *bud, const struct watch_limit *l,
    const char *name, const char *key_of, const char *cur, int64_t period, int64_t now)
{
	char codes[8][CURRENCY_MAX], list[64] = "", keys[96] = "", key[64], said[128], b[32];
	size_t got = ledger_currencies(w->st, &w->clk, 0, codes, ARRAY_LEN(codes)), i;
	int64_t unused;

	for (i = 0; i < got; i++) {
		if (counted_in(&bud->fx, codes[i], cur))
			continue;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
		    list[0] ? ", " : "", codes[i]);
		/* The rate that is missing: the spend's currency's, or the budget's own. */
		snprintf(key, sizeof(key), "fx.%s", strcmp(codes[i], "USD") == 0 ||
		    fx_rate(&bud->fx, codes[i], &unused) ? cur : codes[i]);
		if (strstr(keys, key) == NULL)
			snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s",
			    keys[0] ? ", " : "", key);
	}
	snprintf(said, sizeof(said), "watch.%s.uncounted", key_of);
	if (list[0] != '\0' && once_per(w, said, period))
		emit(w, EV_WARN, "budget-uncounted", l->policy, NULL, now, _("spend in %s is not "
		    "counted against %s (%s): no rate is configured to convert it (set %s, US "
		    "dollars per unit)"), list, name, money_format_in(b, sizeof(b), l->amount, 2, cur),
		    keys);
}

/*
 * One limit in its own currency (cur), counting its person's spend or everyone's: warn at
 * budget.warn percent, once a period; when it is spent, say so once a period and return
 * true with the reason in why. name: the limit in messages; key: in the meta keys that
 * say what was said this period.
 */
static bool
budget_spent(struct watch *w, const struct watch_budget *bud, const struct watch_limit *l,
    const char *name, const char *key, const char *cur, int64_t now, int64_t *period,
    char *why, size_t why_n)
{
	struct cost_summary sum;
	struct gr_error err = { 0 };
	char a[32], b[32], mkey[128];
	const char *rate;
	int64_t spent;
	size_t unconverted;

	memset(&sum, 0, sizeof(sum));
	if (costs_compute_of(w->st, &w->clk, 0, CG_NONE, cur, &bud->fx, l->who[0] != '\0' ?
	    l->who : NULL, &sum, &err) != GR_OK) {
		emit(w, EV_ALERT, "budget-unknown", l->policy, NULL, now, _("cannot read the "
		    "ledger: %s"), err.msg);
		return false;
	}
	spent = l->day ? sum.spent_today : sum.spent_month;
	*period = l->day ? day_start(sum.now) : month_start(sum.now);
	rate = sum.converted ? _(", converted at your configured rate") : "";
	unconverted = sum.unconverted;
	cost_summary_release(&sum);
	if (unconverted > 0)
		say_uncounted(w, bud, l, name, key, cur, *period, now);
	money_format_in(a, sizeof(a), spent, 2, cur);
	money_format_in(b, sizeof(b), l->amount, 2, cur);
	if (spent < l->amount) {
		snprintf(mkey, sizeof(mkey), "watch.%s.warned", key);
		if (spent * 100 >= l->amount * bud->warn_pct && once_per(w, mkey, *period))
			emit(w, EV_WARN, "budget-warn", l->policy, NULL, now, _("%s of %s spent%s "
			    "(%d%% or more of %s)"), a, b, rate, bud->warn_pct, name);
		return false;
	}
	snprintf(why, why_n, _("%s of %s spent%s: %s is used up"), a, b, rate, name);
	return true;
}

/* Whether limit l acts on instance in: one billing in a currency it counts, and in a
   person's, one that person launched or last started. */
static bool
limit_covers(const struct watch_budget *bud, const struct watch_limit *l, const char *cur,
    const struct instance *in)
{
	return counted_in(&bud->fx, money_currency(in->currency), cur) &&
	    (l->who[0] == '\0' || strcmp(in->user, l->who) == 0);
}

static void
budgets(struct watch *w, struct budget_target *t, size_t n, int64_t now)
{
	struct watch_budget bud;
	struct gr_error err = { 0 };
	char why[EVENT_MSG_MAX], name[EVENT_KIND_MAX + TEAM_NAME_MAX + 8];
	char key[sizeof(name)], mkey[sizeof(name) + 32], cur[CURRENCY_MAX], others[64];
	int64_t period;
	bool *done;
	size_t i, k, outside;

	watch_budget_for(w->cfg, w->st, &bud);
	if (bud.n == 0)
		return;
	if (n > 1)	/* t may be NULL when nothing runs: not for qsort */
		qsort(t, n, sizeof(*t), newest_first);
	done = xcalloc(n + 1, sizeof(*done));
	for (k = 0; k < bud.n; k++) {
		const struct watch_limit *l = &bud.limits[k];

		money_currency_set(cur, l->currency);
		if (l->who[0] != '\0') {
			/* TRANSLATORS: a person's budget: "budget.day of ann". */
			snprintf(name, sizeof(name), _("%s of %s"), l->policy, l->who);
			snprintf(key, sizeof(key), "%s@%s", l->policy, l->who);
		} else {
			strlcpy_(name, l->policy, sizeof(name));
			strlcpy_(key, l->policy, sizeof(key));
		}
		if (!budget_spent(w, &bud, l, name, key, cur, now, &period, why, sizeof(why)))
			continue;
		/* A budget acts on what it counts: instances billing in a currency it converts. */
		others[0] = '\0';
		for (i = outside = 0; i < n; i++)
			if (t[i].in->state == ST_RUNNING && !counted_in(&bud.fx,
			    money_currency(t[i].in->currency), cur) && (l->who[0] == '\0' ||
			    strcmp(t[i].in->user, l->who) == 0)) {
				outside++;
				if (strstr(others, money_currency(t[i].in->currency)) == NULL)
					snprintf(others + strlen(others), sizeof(others) -
					    strlen(others), "%s%s", others[0] ? ", " : "",
					    money_currency(t[i].in->currency));
			}
		snprintf(mkey, sizeof(mkey), "watch.%s.exceeded", key);
		if (once_per(w, mkey, period)) {
			char scope[EVENT_MSG_MAX / 2] = "";
			const char *doing = bud.action == WA_NOTIFY ? _("reporting") :
			    bud.action == WA_STOP ? _("stopping") : _("destroying");

			if (outside > 0)
				snprintf(scope, sizeof(scope), _(" (not the %zu billing in %s, "
				    "which it does not count)"), outside, others);
			if (l->who[0] != '\0')
				emit(w, EV_WARN, "budget-exceeded", l->policy, NULL, now, _("%s; %s "
				    "the running instances of %s, newest first%s"), why, doing,
				    l->who, scope);
			else
				emit(w, EV_WARN, "budget-exceeded", l->policy, NULL, now, _("%s; %s "
				    "the running instances, newest first%s"), why, doing, scope);
		}
		for (i = 0; i < n; i++) {
			struct inst_watch *iw = find(w, t[i].in->id);

			if (done[i] || iw == NULL || iw->phase != PH_NONE ||
			    t[i].in->state != ST_RUNNING || !limit_covers(&bud, l, cur, t[i].in))
				continue;
			done[i] = true;
			act(w, t[i].b, iw, bud.action, l->policy,
			    cost_clock_now(&w->clk, t[i].in->provider), why);
			save(w, iw, &err);
		}
	}
	free(done);
	watch_budget_release(&bud);
}

/* ---------------------------------------------------------------- groups */

static struct backend *
backend_of(struct watch *w, const char *provider)
{
	size_t i;

	for (i = 0; i < w->s->n_backends; i++)
		if (strcmp(w->s->backends[i]->env.name, provider) == 0 ||
		    strcmp(w->s->backends[i]->ops->name, provider) == 0)
			return w->s->backends[i];
	return NULL;
}

static void
group_emit(void *ctx, enum event_level level, const char *kind, const char *label,
    const char *instance_id, int util, const char *msg)
{
	struct watch *w = ctx;
	struct inst_watch tag;

	/* A group's event names the group's label, and the member when there is one. */
	memset(&tag, 0, sizeof(tag));
	strlcpy_(tag.id, instance_id, sizeof(tag.id));
	strlcpy_(tag.label, label, sizeof(tag.label));
	tag.util = util;
	emit(w, level, kind, "group", &tag, session_now(w->s), "%s", msg);
}

static void
group_retire(void *ctx, const char *instance_id, const char *why)
{
	struct watch *w = ctx;
	struct gr_error err = { 0 };
	char provider[PROVIDER_MAX];
	struct inst_watch *iw = find(w, instance_id);
	struct backend *b;

	if (iw == NULL || iw->phase != PH_NONE ||
	    !backend_split_id(instance_id, provider, sizeof(provider), NULL) ||
	    (b = backend_of(w, provider)) == NULL)
		return;
	act(w, b, iw, WA_DESTROY, "group", cost_clock_now(&w->clk, provider), why);
	save(w, iw, &err);
}

/* A listed instance as a group sees it, after the watcher observed it this pass. */
static void
as_member(const struct watch *w, const struct instance *in, const struct inst_watch *iw,
    int64_t now, struct elastic_member *m)
{
	memset(m, 0, sizeof(*m));
	strlcpy_(m->id, in->id, sizeof(m->id));
	strlcpy_(m->label, in->label, sizeof(m->label));
	m->state = in->state;
	m->interruptible = in->type == OFFER_INTERRUPTIBLE;
	m->in_flight = iw->phase != PH_NONE;
	m->util = in->state == ST_RUNNING && !iw->unobserved && iw->sample_at > 0 &&
	    iw->util >= 0 && now - iw->sample_at <= fresh_span(w, in->provider) ? iw->util : -1;
	m->price_hour = in->price_hour;
	m->created_at = in->created_at;
}

/* A finding of the periodic reconcile (reconcile.h) that is new: its event. */
static void
reconciled(void *ctx, const struct reconcile_news *n)
{
	struct watch *w = ctx;
	struct inst_watch iw;

	memset(&iw, 0, sizeof(iw));
	strlcpy_(iw.id, n->finding->in.id, sizeof(iw.id));
	strlcpy_(iw.label, n->finding->in.label, sizeof(iw.label));
	iw.util = -1;
	emit(w, n->warn ? EV_WARN : EV_INFO, n->kind, "reconcile", &iw,
	    cost_clock_now(&w->clk, n->finding->in.provider), "%s", n->message);
}

/*
 * Once a day on each provider's clock, the day before set beside its bill (billcheck.h):
 * an event for each instance and day that differs beyond costs.check_tolerance. The day
 * checked is kept in meta (costs.check_day.PROVIDER) only once its bill was read, so a
 * provider that failed is asked again at the next pass.
 */
static void
bill_daily(struct watch *w, const bool *failed)
{
	struct gr_error err = { 0 };
	size_t i, k;

	for (i = 0; i < w->s->n_backends; i++) {
		struct backend *be = w->s->backends[i];
		int64_t today = day_start(cost_clock_now(&w->clk, be->ops->name));
		struct bill_report rep;
		char key[PROVIDER_MAX + 32], buf[32], a[32], b[32], d[16];
		long long v;

		snprintf(key, sizeof(key), "costs.check_day.%s", be->ops->name);
		if (failed[i] || be->ops->charges == NULL || (state_meta_get(w->st, key, buf,
		    sizeof(buf)) && parse_int(buf, 0, INT64_MAX, &v) && v >= today))
			continue;
		memset(&rep, 0, sizeof(rep));
		gr_error_clear(&err);
		if (bill_check_backend(w->s, be, today - 86400, today, w->check_tolerance, &rep,
		    &err) != GR_OK || rep.n_prov == 0 || rep.prov[0].error != GR_OK) {
			fprintf(stderr, _("gpurent watch: %s: no bill to check: %s\n"), be->ops->name,
			    err.code != GR_OK ? err.msg : rep.n_prov ? rep.prov[0].msg : "");
			bill_report_release(&rep);
			continue;
		}
		for (k = 0; k < rep.n; k++) {
			const struct bill_row *r = &rep.rows[k];
			struct inst_watch iw;
			time_t day = (time_t)r->day;
			struct tm tm;

			if (r->cause == BILL_MATCH)
				continue;
			memset(&iw, 0, sizeof(iw));
			strlcpy_(iw.id, r->instance_id, sizeof(iw.id));
			iw.util = -1;
			strftime(d, sizeof(d), "%Y-%m-%d", gmtime_r(&day, &tm));
			/* TRANSLATORS: DAY: billed MONEY where the ledger has MONEY: CAUSE. */
			emit(w, EV_WARN, "bill-difference", "costs.check", &iw, today,
			    _("%s: billed %s where the ledger has %s: %s"), d,
			    r->billed >= 0 ? money_format_in(a, sizeof(a), r->billed, 2,
			    r->currency) : _("nothing"), r->ledger >= 0 ? money_format_in(b,
			    sizeof(b), r->ledger, 2, r->currency) : _("nothing"),
			    bill_cause_text(r->cause));
		}
		bill_report_release(&rep);
		snprintf(buf, sizeof(buf), "%lld", (long long)today);
		if (state_meta_set(w->st, key, buf, &err) != GR_OK)
			fprintf(stderr, _("gpurent watch: %s\n"), err.msg);
	}
}

/* ---------------------------------------------------------------- the pass */

static enum gr_err
lost(struct gr_error *err)
{
	return gr_fail(err, GR_ELOCKED, "another watcher took the lease: this one stands by");
}

/*
 * The instances every provider lists (session_instances). A provider without a team key
 * (session_team_key), whose team instances this watcher leaves alone, is said once a run,
 * in the log and the journal, and counts as one that could not answer, never as the
 * pass's error.
 */
static enum gr_err
listed(struct watch *w, struct instance_list *l, struct fanout_result *res,
    struct gr_error *err)
{
	enum gr_err rc = session_instances(w->s, l, res, err);
	bool other = false;
	size_t i;

	for (i = 0; i < w->s->n_backends; i++) {
		if (res[i].code == GR_OK)
			continue;
		if (!w->s->team_key_missing[i]) {
			other = true;
			continue;
		}
		if (!w->said_no_team_key[i])
			emit(w, EV_ALERT, "no-team-key", "", NULL, session_now(w->s), "%s",
			    res[i].err.msg);
		w->said_no_team_key[i] = true;
	}
	return rc != GR_OK && rc != GR_EPARTIAL && !other ? GR_EPARTIAL : rc;
}

enum gr_err
watch_pass(struct watch *w, struct watch_report *r, struct gr_error *err)
{
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct instance_list l;
	struct remote_job *jobs = NULL;
	struct budget_target *targets;
	struct elastic_member *members;
	struct elastic_ops gops = { group_emit, group_retire };
	size_t n_jobs = 0, n_targets = 0, n_members = 0, grouped = 0, i;
	bool failed[SESSION_MAX_PROVIDERS] = { false };
	struct gr_error jerr = { 0 };
	enum gr_err rc;

	memset(r, 0, sizeof(*r));
	w->r = r;
	if (!acting(w))
		return lost(err);
	/* Managed jobs that no other controller drives, a round each (managed.h). */
	if (!w->o.dry_run) {
		char holder[300];

		managed_holder(holder, sizeof(holder));
		managed_round_all(w->s, holder, w->o.out);
	}
	/* Jobs first: their ends settled (--fetch, --then), the running ones keep theirs busy. */
	if (!acting(w))
		return lost(err);
	if (!w->o.dry_run)
		jobs_refresh(w->s, w->st, NULL);
	if (session_backends(w->s, err) != GR_OK)
		return err->code;
	memset(res, 0, sizeof(res));
	instance_list_init(&l);
	rc = listed(w, &l, res, err);
	if (rc != GR_OK && rc != GR_EPARTIAL) {
		instance_list_release(&l);
		return rc;
	}
	for (i = 0; i < w->s->n_backends; i++)
		if (res[i].code != GR_OK) {
			failed[i] = true;
			r->unlisted++;
			if (w->s->team_key_missing[i])
				continue;	/* said by listed */
			fprintf(stderr, _("gpurent watch: %s: %s (its instances are not "
			    "watched this pass)\n"), w->s->backends[i]->env.name, res[i].err.msg);
		}
	session_clock(w->s, &w->clk);
	if (!acting(w)) {
		instance_list_release(&l);
		return lost(err);
	}
	/* Whose each is: a person's budget acts on that person's alone. */
	if (team_profile(w->cfg))
		state_journal_users(w->st, l.v, l.n);
	if (!w->o.dry_run && reconcile_periodic(w->s, &l, failed, w->reconcile_interval,
	    reconciled, w, &jerr) != GR_OK)
		fprintf(stderr, _("gpurent watch: reconcile: %s\n"), jerr.msg);
	if (!w->o.dry_run)
		bill_daily(w, failed);
	jerr = (struct gr_error){ 0 };
	if (remote_job_load(w->st, NULL, &jobs, &n_jobs, &jerr) != GR_OK)
		n_jobs = 0;
	for (i = 0; i < w->n; i++)
		w->v[i].seen = false;
	targets = xcalloc(l.n + 1, sizeof(*targets));
	members = xcalloc(l.n + 1, sizeof(*members));
	for (i = 0; i < l.n; i++) {
		const struct instance *in = &l.v[i];
		struct backend *b = backend_of(w, in->provider);
		struct inst_watch *iw;
		int64_t now = cost_clock_now(&w->clk, in->provider);
		bool in_flight;

		if (!acting(w))
			break;
		if (b == NULL)
			continue;
		if (in->state == ST_DESTROYED) {
			/* Still listed once gone (a cancelled Slurm job): verify against it. */
			iw = find(w, in->id);
			if (iw != NULL && iw->phase != PH_NONE) {
				iw->seen = true;
				verify(w, b, iw, in, now);
				if (iw->phase == PH_NONE)
					forget(w, iw, &jerr);
			}
			continue;
		}
		r->instances++;
		iw = find_or_add(w, in->id);
		iw->seen = true;
		strlcpy_(iw->label, in->label, sizeof(iw->label));
		in_flight = iw->phase != PH_NONE;
		if (in_flight) {
			verify(w, b, iw, in, now);
			iw->last_state = in->state;
		} else
			observe(w, b, in, iw, jobs, n_jobs, now);
		if (strncmp(in->label, GROUP_LABEL_PREFIX, strlen(GROUP_LABEL_PREFIX)) == 0)
			as_member(w, in, iw, now, &members[n_members++]);
		if (in_flight)
			continue;
		targets[n_targets].b = b;
		targets[n_targets++].in = in;
	}
	/* Not listed: gone, unless its provider could not answer. */
	for (i = 0; i < w->n && acting(w);) {
		struct inst_watch *iw = &w->v[i];
		char provider[PROVIDER_MAX];
		struct backend *b;
		size_t k;
		bool unseen = false;

		if (iw->seen || !backend_split_id(iw->id, provider, sizeof(provider), NULL) ||
		    (b = backend_of(w, provider)) == NULL) {
			i++;
			continue;
		}
		for (k = 0; k < w->s->n_backends; k++)
			if (w->s->backends[k] == b && failed[k])
				unseen = true;
		if (unseen) {
			i++;
			continue;
		}
		if (iw->phase != PH_NONE)
			reread(w, b, iw, cost_clock_now(&w->clk, provider));
		if (iw->phase == PH_NONE) {
			forget(w, iw, err);
			continue;
		}
		i++;
	}
	/* A group decides on what every provider listed: not while one could not answer. */
	if (!acting(w)) {
		rc = lost(err);
		goto out;
	}
	if (r->unlisted == 0 && elastic_pass(w->s, members, n_members, session_now(w->s),
	    w->o.dry_run, &gops, w, &grouped, &jerr) != GR_OK)
		emit(w, EV_ALERT, "group-error", "group", NULL, session_now(w->s),
		    _("groups not applied: %s"), jerr.msg);
	r->acted += grouped;
	budgets(w, targets, n_targets, session_now(w->s));
	if (!w->o.dry_run)
		guard_agents_keep(w->s, &l);
	rc = r->unlisted > 0 ? GR_EPARTIAL : GR_OK;
out:
	free(members);
	free(targets);
	free(jobs);
	instance_list_release(&l);
	return rc;
}

/* ---------------------------------------------------------------- taking over */

/*
 * Taken the lease: what the store holds now is the state to go on from (another watcher
 * wrote it while this one stood by). A holder that did not give the lease up died (its
 * process ended) or let it lapse: what it left in flight is reported, and the first pass
 * verifies it; orders still being sent (ordering) are reported whoever left them.
 */
static void
take_over(struct watch *w, const struct lease *was, int64_t now)
{
	struct gr_error err = { 0 };
	char t[32];
	bool died = was->holder[0] != '\0' && strcmp(was->holder, w->holder) != 0;
	const char *pid = strrchr(was->holder, ':');
	size_t i;

	w->leads = true;
	w->renewed = now;
	lease_standby_drop(w->st, WATCH_LEASE, w->holder);
	w->n = 0;
	if (load_state(w, &err) != GR_OK)
		fprintf(stderr, _("gpurent watch: %s\n"), err.msg);
	if (died && was->until >= now)
		emit(w, EV_WARN, "watcher-died", "", NULL, session_now(w->s),
		    _("the watcher of pid %s ended without closing; carrying on with what it "
		    "left"), pid != NULL ? pid + 1 : was->holder);
	else if (died)
		emit(w, EV_WARN, "watcher-died", "", NULL, session_now(w->s),
		    _("the watcher %s let its lease lapse at %s; carrying on with what it left"),
		    was->holder, utc_rfc3339(t, sizeof(t), was->until / 1000));
	for (i = 0; i < w->n; i++)
		if (w->v[i].phase == PH_ORDERING || (died && w->v[i].phase == PH_ORDERED))
			emit(w, EV_INFO, "resumed", w->v[i].policy, &w->v[i], session_now(w->s),
			    w->v[i].action == WA_STOP ?
			    _("stop by pid %ld (order %d, %s) was in flight; verifying it") :
			    _("destroy by pid %ld (order %d, %s) was in flight; verifying it"),
			    w->v[i].pid, w->v[i].tries,
			    _(phase_names[w->v[i].phase]));
}

bool
watch_lead(struct watch *w, struct lease *held)
{
	int64_t now = wall_ms();
	struct lease was;

	memset(held, 0, sizeof(*held));
	if (w->o.dry_run)
		return true;
	if (lease_take(w->st, WATCH_LEASE, w->holder, now, w->o.interval * 500, 0, &was)) {
		if (!w->leads)
			take_over(w, &was, now);
		w->renewed = now;
		return true;
	}
	w->leads = false;
	*held = was;
	lease_standby_mark(w->st, WATCH_LEASE, w->holder, now, now + w->o.interval * 1000);
	return false;
}

/* ---------------------------------------------------------------- open and close */

enum gr_err
watch_open(struct watch **out, struct session *s, const struct watch_opts *o,
    struct gr_error *err)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	char user[TEAM_NAME_MAX + 1], host[256];

	w->s = s;
	s->team_keys = true;	/* a team's instances only with the team's keys */
	w->o = *o;
	w->r = &w->between;
	if (session_config(s, &w->cfg, err) != GR_OK || session_state(s, &w->st, err) != GR_OK)
		goto fail;
	w->verify_tries = (int)config_get_int(w->cfg, "watch.verify_tries", 3);
	w->verify_timeout = config_get_int(w->cfg, "watch.verify_timeout", 300);
	w->reconcile_interval = config_get_int(w->cfg, "reconcile.interval", 900);
	if ((w->check_tolerance = config_get_money(w->cfg, "costs.check_tolerance")) < 0)
		w->check_tolerance = BILL_TOLERANCE;
	host_name(host, sizeof(host), "localhost");
	snprintf(w->holder, sizeof(w->holder), "%s@%s:%ld", team_user(w->cfg, user,
	    sizeof(user)), host, (long)getpid());
	/* A dry run reads the state now; the holder reads it again when it takes the lease. */
	if (load_state(w, err) != GR_OK)
		goto fail;
	*out = w;
	return GR_OK;
fail:
	watch_close(w);
	return err->code;
}

void
watch_close(struct watch *w)
{
	if (w == NULL)
		return;
	if (w->st != NULL && !w->o.dry_run) {
		if (w->leads)
			lease_drop(w->st, WATCH_LEASE, w->holder);
		lease_standby_drop(w->st, WATCH_LEASE, w->holder);
	}
	free(w->v);
	free(w);
}
