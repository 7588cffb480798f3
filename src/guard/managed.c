/*
 * Managed jobs (managed.h): rent by requirement, start, pull checkpoints, and on the loss of
 * a machine rent the next one and resume, one round at a time under the job's lease.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/backend.h"
#include "gpurent/config.h"
#include "gpurent/events.h"
#include "gpurent/i18n.h"
#include "gpurent/job_engine.h"
#include "gpurent/lease.h"
#include "gpurent/ledger.h"
#include "gpurent/managed.h"
#include "gpurent/money.h"
#include "gpurent/observed.h"
#include "gpurent/paths.h"
#include "gpurent/remote_copy.h"
#include "gpurent/requirement.h"
#include "gpurent/session.h"
#include "gpurent/util.h"

#define SPEC_LIST_MAX 64
/* Offers tried for one attempt before the round gives up until the next. */
#define RENT_TRIES 5

/* The request as the job's record keeps it (its spec, JSON), read back. */
struct spec {
	char name[128], gpu[96], providers[256], max_currency[CURRENCY_MAX];
	int count, max_attempts;
	bool interruptible, retry_on_exit, exhausted_fail, then_stop;
	int64_t max_price, every_s, grace_s;
	char sync[4096], ckpt_dir[1024];
	char store_id[ID_MAX], store_path[1024];	/* --store; "" none */
	char fetch[4096];
	size_t fetch_len;
	char *excludes[SPEC_LIST_MAX], *env[SPEC_LIST_MAX], *words[SPEC_LIST_MAX];
	size_t n_excludes, n_env, n_words;
};

/* One round's view of a job. */
struct round {
	struct session *s;
	struct state *st;
	FILE *out;
	struct managed_job j;
	struct spec sp;
	struct managed_attempt *v;	/* its attempts */
	size_t nv;
	struct managed_attempt *cur;	/* the one numbered j.attempt, NULL when not recorded */
	int64_t now;			/* the wall clock */
};

/* ---------------------------------------------------------------- the spec */

static void
add_strings(cJSON *o, const char *key, const char *const *v, size_t n)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);
	size_t i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
}

static void
read_strings(const cJSON *o, const char *key, char **v, size_t *n)
{
	const cJSON *it;

	*n = 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, key))
		if (cJSON_IsString(it) && *n < SPEC_LIST_MAX)
			v[(*n)++] = xstrdup(it->valuestring);
}

static void
read_text(const cJSON *o, const char *key, char *buf, size_t n)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	strlcpy_(buf, cJSON_IsString(it) ? it->valuestring : "", n);
}

static int64_t
read_num(const cJSON *o, const char *key, int64_t dflt)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(it) ? (int64_t)it->valuedouble : dflt;
}

static bool
read_bool(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static char *
spec_write(const struct managed_request *r)
{
	cJSON *o = cJSON_CreateObject(), *f = NULL;
	const char *p = r->fetch, *end = r->fetch + r->fetch_len;
	char *text;

	cJSON_AddStringToObject(o, "name", r->name ? r->name : "");
	cJSON_AddStringToObject(o, "gpu", r->gpu);
	cJSON_AddNumberToObject(o, "count", r->count);
	cJSON_AddBoolToObject(o, "interruptible", r->interruptible);
	cJSON_AddStringToObject(o, "providers", r->providers ? r->providers : "");
	/* Micro-units stay exact as a double up to 2^53. */
	cJSON_AddNumberToObject(o, "max_price", (double)r->max_price);
	cJSON_AddStringToObject(o, "max_currency", r->max_currency ? r->max_currency : "");
	cJSON_AddStringToObject(o, "sync", r->sync ? r->sync : "");
	add_strings(o, "excludes", r->excludes, r->n_excludes);
	cJSON_AddStringToObject(o, "checkpoint_dir", r->ckpt_dir);
	cJSON_AddNumberToObject(o, "every", (double)r->every_s);
	cJSON_AddStringToObject(o, "store_id", r->store_id ? r->store_id : "");
	cJSON_AddStringToObject(o, "store_path", r->store_path ? r->store_path : "");
	f = cJSON_AddArrayToObject(o, "fetch");
	while (p < end) {
		cJSON_AddItemToArray(f, cJSON_CreateString(p));
		p += strlen(p) + 1;
	}
	cJSON_AddNumberToObject(o, "max_attempts", r->max_attempts);
	cJSON_AddNumberToObject(o, "grace", (double)r->grace_s);
	cJSON_AddBoolToObject(o, "retry_on_exit", r->retry_on_exit);
	cJSON_AddBoolToObject(o, "exhausted_fail", r->exhausted_fail);
	cJSON_AddBoolToObject(o, "then_stop", r->then_stop);
	add_strings(o, "env", r->env, r->n_env);
	add_strings(o, "command", (const char *const *)r->words, (size_t)r->n_words);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

static void
spec_release(struct spec *sp)
{
	size_t i;

	for (i = 0; i < sp->n_excludes; i++)
		free(sp->excludes[i]);
	for (i = 0; i < sp->n_env; i++)
		free(sp->env[i]);
	for (i = 0; i < sp->n_words; i++)
		free(sp->words[i]);
	memset(sp, 0, sizeof(*sp));
}

static enum gr_err
spec_read(const char *text, struct spec *sp, struct gr_error *err)
{
	cJSON *o = cJSON_Parse(text);
	const cJSON *it;
	size_t len;

	memset(sp, 0, sizeof(*sp));
	if (o == NULL)
		return gr_fail(err, GR_ESTATE, "a managed job's record is unreadable");
	read_text(o, "name", sp->name, sizeof(sp->name));
	read_text(o, "gpu", sp->gpu, sizeof(sp->gpu));
	sp->count = (int)read_num(o, "count", 1);
	sp->interruptible = read_bool(o, "interruptible");
	read_text(o, "providers", sp->providers, sizeof(sp->providers));
	sp->max_price = read_num(o, "max_price", -1);
	read_text(o, "max_currency", sp->max_currency, sizeof(sp->max_currency));
	read_text(o, "sync", sp->sync, sizeof(sp->sync));
	read_strings(o, "excludes", sp->excludes, &sp->n_excludes);
	read_text(o, "checkpoint_dir", sp->ckpt_dir, sizeof(sp->ckpt_dir));
	sp->every_s = read_num(o, "every", 300);
	read_text(o, "store_id", sp->store_id, sizeof(sp->store_id));
	read_text(o, "store_path", sp->store_path, sizeof(sp->store_path));
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "fetch"))
		if (cJSON_IsString(it) && sp->fetch_len + (len = strlen(it->valuestring) + 1) <=
		    sizeof(sp->fetch)) {
			memcpy(sp->fetch + sp->fetch_len, it->valuestring, len);
			sp->fetch_len += len;
		}
	sp->max_attempts = (int)read_num(o, "max_attempts", 10);
	sp->grace_s = read_num(o, "grace", 180);
	sp->retry_on_exit = read_bool(o, "retry_on_exit");
	sp->exhausted_fail = read_bool(o, "exhausted_fail");
	sp->then_stop = read_bool(o, "then_stop");
	read_strings(o, "env", sp->env, &sp->n_env);
	read_strings(o, "command", sp->words, &sp->n_words);
	cJSON_Delete(o);
	return GR_OK;
}

enum gr_err
managed_submit(struct session *s, const struct managed_request *r, char *id, size_t n,
    struct gr_error *err)
{
	struct managed_job *j = xcalloc(1, sizeof(*j));
	struct gr_error why = { 0 };
	struct remote_endpoint ep;
	struct state *st;
	char *text = spec_write(r);
	enum gr_err rc;

	if (strlen(text) >= sizeof(j->spec))
		rc = gr_fail(err, GR_EUSAGE, "the managed job's request is too long");
	else if (r->store_id != NULL &&
	    (rc = session_endpoint(s, r->store_id, &ep, &why)) != GR_OK)
		gr_fail(err, rc, "--store %s: %s", r->store_id, why.msg);
	else if ((rc = session_state(s, &st, err)) == GR_OK) {
		strlcpy_(j->spec, text, sizeof(j->spec));
		j->state = MJ_RENTING;
		j->attempt = 1;
		j->created_at = time(NULL);
		if ((rc = managed_job_add(st, j, err)) == GR_OK)
			strlcpy_(id, j->id, n);
	}
	free(text);
	free(j);
	return rc;
}

/* ---------------------------------------------------------------- saying and saving */

static void say(struct round *r, enum event_level level, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* An event of the job (of its current attempt's instance, when it has one), journalled and
   said on r->out. */
static void
say(struct round *r, enum event_level level, const char *kind, const char *fmt, ...)
{
	struct gr_error err = { 0 };
	struct event ev;
	char clean[EVENT_MSG_MAX];
	va_list ap;

	memset(&ev, 0, sizeof(ev));
	ev.level = level;
	ev.util_pct = -1;
	strlcpy_(ev.kind, kind, sizeof(ev.kind));
	strlcpy_(ev.policy, "managed", sizeof(ev.policy));
	strlcpy_(ev.label, r->j.id, sizeof(ev.label));
	if (r->cur != NULL && r->cur->instance_id[0]) {
		strlcpy_(ev.instance_id, r->cur->instance_id, sizeof(ev.instance_id));
		ev.at = session_now_of(r->s, r->cur->instance_id);
	} else
		ev.at = r->now;
	va_start(ap, fmt);
	vsnprintf(ev.message, sizeof(ev.message), fmt, ap);
	va_end(ap);
	if (r->out != NULL) {
		fprintf(r->out, "%s %s %s: %s\n", event_level_name(level), kind, r->j.id,
		    text_sanitize(clean, sizeof(clean), ev.message));
		fflush(r->out);
	}
	if (events_add(r->st, &ev, &err) != GR_OK && r->out != NULL)
		fprintf(r->out, "gpurent: %s\n", err.msg);
}

static enum gr_err
save(struct round *r, struct gr_error *err)
{
	if (r->cur != NULL && managed_attempt_save(r->st, r->cur, err) != GR_OK)
		return err->code;
	return managed_job_save(r->st, &r->j, err);
}

/* ---------------------------------------------------------------- checkpoints */

/* The job's checkpoint folder, or its checkpoint seq (0: the folder), or .partial-seq. */
static void
ckpt_path(const struct round *r, int seq, bool partial, char *out, size_t n)
{
	if (seq == 0)
		snprintf(out, n, "%s/jobs/%s/checkpoints", paths_data_dir(), r->j.id);
	else
		snprintf(out, n, "%s/jobs/%s/checkpoints/%s%06d", paths_data_dir(), r->j.id,
		    partial ? ".partial-" : "", seq);
}

/* Remove a local directory tree that gpurent made (no links followed). */
static void
remove_tree(const char *path)
{
	struct dirent *d;
	struct stat sb;
	char sub[4200];
	DIR *dir;

	if (lstat(path, &sb) != 0)
		return;
	if (S_ISDIR(sb.st_mode) && (dir = opendir(path)) != NULL) {
		while ((d = readdir(dir)) != NULL) {
			if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, d->d_name);
			remove_tree(sub);
		}
		closedir(dir);
		rmdir(path);
	} else
		unlink(path);
}

/* The attempt's remote job record (its id), for the engine's copies and polls. */
static bool
attempt_job(struct round *r, struct remote_job *out)
{
	struct gr_error err = { 0 };
	struct remote_job *v = NULL;
	size_t n, i;
	bool found = false;

	if (remote_job_load(r->st, r->cur->instance_id, &v, &n, &err) != GR_OK)
		return false;
	for (i = 0; i < n && !found; i++)
		if (strcmp(v[i].id, r->cur->remote_job) == 0) {
			*out = v[i];
			found = true;
		}
	free(v);
	return found;
}

void
managed_log_path(const char *id, int n, char *out, size_t size)
{
	snprintf(out, size, "%s/jobs/%s/attempt-%d.log", paths_data_dir(), id, n);
}

/*
 * Pull the attempt's log into .partial-attempt-N, then rename it over attempt-N.log: the
 * kept log is always one whole pull, the newest (a failed pull keeps the one before).
 */
static void
pull_log(struct round *r, const struct remote_endpoint *ep, const struct remote_job *rj)
{
	struct gr_error err = { 0 };
	char partial[4200], got[4300], whole[4200], from[1100];

	snprintf(partial, sizeof(partial), "%s/jobs/%s/.partial-attempt-%d", paths_data_dir(),
	    r->j.id, r->cur->n);
	snprintf(got, sizeof(got), "%s/log", partial);
	snprintf(from, sizeof(from), "%s/log", rj->dir);
	managed_log_path(r->j.id, r->cur->n, whole, sizeof(whole));
	remove_tree(partial);
	if (jobs_pull(r->s, ep, rj, from, partial, &err) == 0)
		(void)rename(got, whole);
	remove_tree(partial);
}

/* The job's folder on its --store, its endpoint, and rsync's settings. */
static bool
store_at(struct round *r, struct remote_endpoint *ep, struct remote_copy_opts *o, char *dir,
    size_t n, struct gr_error *err)
{
	struct config *cfg;

	memset(o, 0, sizeof(*o));
	if (session_config(r->s, &cfg, NULL) == GR_OK)
		o->rsync_path = config_get(cfg, "ssh.rsync_path");
	snprintf(dir, n, "%s/%s", r->sp.store_path, r->j.id);
	return session_endpoint(r->s, r->sp.store_id, ep, err) == GR_OK;
}

/* Keep checkpoint seq (the local folder whole) on the --store: false, said, when not. */
static bool
store_put(struct round *r, int seq, const char *whole)
{
	struct gr_error err = { 0 };
	struct remote_copy_opts o;
	struct remote_endpoint ep;
	char dir[1200];

	if (store_at(r, &ep, &o, dir, sizeof(dir), &err) &&
	    remote_keep_put(&ep, dir, seq, whole, &o, &err) == 0)
		return true;
	say(r, EV_WARN, "managed-checkpoint", _("checkpoint %d not kept on %s: %s"), seq,
	    r->sp.store_id, err.msg);
	return false;
}

/* The newest checkpoint from the --store into its local folder, when that is missing (a
   controller on another machine, or this one's copy lost): false, said, when not. */
static bool
store_get(struct round *r, const char *whole)
{
	struct gr_error err = { 0 };
	struct remote_copy_opts o;
	struct remote_endpoint ep;
	char dir[1200], partial[4200];
	struct stat sb;

	if (stat(whole, &sb) == 0)
		return true;
	ckpt_path(r, r->j.ckpt_seq, true, partial, sizeof(partial));
	remove_tree(partial);
	if (store_at(r, &ep, &o, dir, sizeof(dir), &err) && paths_mkdir(partial, &err) == GR_OK &&
	    remote_keep_get(&ep, dir, r->j.ckpt_seq, partial, &o, &err) == 0 &&
	    rename(partial, whole) == 0)
		return true;
	remove_tree(partial);
	say(r, EV_WARN, "managed-checkpoint", _("checkpoint %d not restored from %s (%s): "
	    "tried again next round"), r->j.ckpt_seq, r->sp.store_id, err.msg);
	return false;
}

/*
 * Pull the checkpoint directory into .partial-N, then rename it N: only a whole pull counts.
 * The one before last is kept, older ones removed. false when the pull failed (the partial
 * copy is removed).
 */
static bool
pull_checkpoint_dir(struct round *r, const struct remote_endpoint *ep,
    const struct remote_job *rj)
{
	struct gr_error err = { 0 };
	char partial[4200], whole[4200], old[4200], from[1100];
	int seq = r->j.ckpt_seq + 1;

	r->j.state = MJ_CHECKPOINTING;
	(void)save(r, &err);
	ckpt_path(r, seq, true, partial, sizeof(partial));
	ckpt_path(r, seq, false, whole, sizeof(whole));
	remove_tree(partial);
	snprintf(from, sizeof(from), "%s/", r->sp.ckpt_dir);
	r->j.state = MJ_RUNNING;
	if (jobs_pull(r->s, ep, rj, from, partial, &err) != 0) {
		remove_tree(partial);
		(void)save(r, &err);
		return false;
	}
	remove_tree(whole);
	if (rename(partial, whole) != 0) {
		remove_tree(partial);
		(void)save(r, &err);
		return false;
	}
	/* With --store, a checkpoint counts once it is whole there. */
	if (r->sp.store_id[0] && !store_put(r, seq, whole)) {
		remove_tree(whole);
		(void)save(r, &err);
		return false;
	}
	r->j.ckpt_seq = seq;
	r->j.ckpt_at = r->now;
	if (seq > 2) {
		ckpt_path(r, seq - 2, false, old, sizeof(old));
		remove_tree(old);
	}
	(void)save(r, &err);
	return true;
}

/* A checkpoint (pull_checkpoint_dir's result), then the attempt's log either way. */
static bool
pull_checkpoint(struct round *r, const struct remote_endpoint *ep, const struct remote_job *rj)
{
	bool ok = pull_checkpoint_dir(r, ep, rj);

	pull_log(r, ep, rj);
	return ok;
}

/* ---------------------------------------------------------------- machines */

static const char *
attempt_label(const struct round *r, int n, char *buf, size_t size)
{
	snprintf(buf, size, "gpurent-%s-a%d", r->j.id, n);
	return buf;
}

/* Find the attempt's instance among what the providers list (by its label): the one a
   killed controller's launch may have made. GR_ENOTFOUND only when every provider answered:
   a provider that did not may hold it, and a launch sent now could rent a second. */
static enum gr_err
find_by_label(struct round *r, struct instance *out, struct gr_error *err)
{
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct instance_list l;
	char label[LABEL_MAX];
	enum gr_err e;
	size_t i;

	attempt_label(r, r->cur->n, label, sizeof(label));
	memset(res, 0, sizeof(res));
	instance_list_init(&l);
	e = session_instances(r->s, &l, res, err);
	/* A list answered "not found" (an API retired with 404 or 410) did not answer either. */
	if (e == GR_ENOTFOUND)
		e = GR_EUNAVAIL;
	for (i = 0; i < l.n; i++)
		if (strcmp(l.v[i].label, label) == 0 && l.v[i].state != ST_DESTROYED) {
			*out = l.v[i];
			e = GR_OK;
			break;
		}
	if (e == GR_OK && i == l.n)
		e = GR_ENOTFOUND;
	instance_list_release(&l);
	return e;
}

static void
note_rented(struct round *r, const struct instance *in)
{
	strlcpy_(r->cur->instance_id, in->id, sizeof(r->cur->instance_id));
	strlcpy_(r->cur->gpu, in->gpu ? in->gpu->id : in->gpu_raw, sizeof(r->cur->gpu));
	r->cur->price_hour = (in->valid & IV_PRICE) ? in->price_hour : -1;
	money_currency_set(r->cur->currency, in->currency);
}

/* The instance's state from its provider: GR_OK with *in, GR_ENOTFOUND when it is gone. */
static enum gr_err
instance_now(struct round *r, struct instance *in, struct gr_error *err)
{
	struct backend *b;

	if (session_backend_for(r->s, r->cur->instance_id, &b, err) != GR_OK)
		return err->code;
	return observed_get(b, r->cur->instance_id, in, err);
}

/* What the ledger billed for the attempt's instance, to now. */
static int64_t
attempt_cost(struct session *s, const struct managed_attempt *a)
{
	struct state *st;
	struct gr_error err = { 0 };

	if (a->instance_id[0] == '\0' || session_state(s, &st, &err) != GR_OK)
		return -1;
	return ledger_spent(st, NULL, a->instance_id, session_now_of(s, a->instance_id), NULL);
}

/* Destroy (or, with stop, stop) what is left of the attempt's machine: true when it is no
   longer there to bill. */
static bool
put_down(struct round *r, bool stop, struct gr_error *err)
{
	struct backend *b;
	enum gr_err rc;

	if (r->cur == NULL || r->cur->instance_id[0] == '\0')
		return true;
	if (session_backend_for(r->s, r->cur->instance_id, &b, err) != GR_OK)
		return false;
	rc = stop ? observed_stop(b, r->cur->instance_id, err) :
	    observed_destroy(b, r->cur->instance_id, err);
	return rc == GR_OK || rc == GR_ENOTFOUND;
}

/* Close the current attempt: its end, its bill, the work lost (loss only). */
static void
end_attempt(struct round *r, const char *why, bool lost)
{
	int64_t from = r->cur->run_at;

	if (r->cur->ended_at != 0)
		return;
	r->cur->ended_at = r->now;
	strlcpy_(r->cur->end, why, sizeof(r->cur->end));
	if (lost && from != 0) {
		if (r->j.ckpt_at > from)
			from = r->j.ckpt_at;
		r->cur->lost_s = r->now - from;
	}
}

/*
 * The machine is lost: end the attempt, destroy what is left, then (only once it is gone)
 * move on to the next attempt, or fail when none is left.
 */
static void
lose(struct round *r, const char *why)
{
	struct gr_error err = { 0 };
	bool first = r->cur->ended_at == 0;

	end_attempt(r, why, true);
	r->j.state = MJ_RECOVERING;
	(void)save(r, &err);
	if (first)
		say(r, EV_WARN, "managed-lost", _("attempt %d on %s lost: %s; %lld s of work "
		    "since the last checkpoint lost"), r->cur->n, r->cur->instance_id, why,
		    (long long)r->cur->lost_s);
	if (!put_down(r, false, &err)) {
		say(r, EV_ALERT, "managed-destroy", _("%s not destroyed (%s): the next attempt "
		    "waits until it is"), r->cur->instance_id, err.msg);
		return;
	}
	r->cur->cost = attempt_cost(r->s, r->cur);
	(void)save(r, &err);
	if (r->j.attempt >= r->sp.max_attempts) {
		r->j.state = MJ_FAILED;
		r->j.ended_at = r->now;
		snprintf(r->j.why, sizeof(r->j.why), _("%d attempts used (--max-attempts)"),
		    r->j.attempt);
		(void)save(r, &err);
		say(r, EV_ALERT, "managed-failed", "%s", r->j.why);
		return;
	}
	r->j.attempt++;
	r->j.recoveries++;
	r->j.state = MJ_RENTING;
	r->cur = NULL;
	(void)save(r, &err);
	say(r, EV_ACTION, "managed-recovery", _("recovering: renting attempt %d"), r->j.attempt);
}

/* ---------------------------------------------------------------- the steps */

/* Record the attempt (with its client token) before anything is sent for it. */
static bool
record_attempt(struct round *r)
{
	struct gr_error err = { 0 };
	struct managed_attempt a;

	memset(&a, 0, sizeof(a));
	strlcpy_(a.job_id, r->j.id, sizeof(a.job_id));
	a.n = r->j.attempt;
	guard_client_token(a.token, sizeof(a.token));
	a.started_at = r->now;
	a.price_hour = -1;
	a.cost = -1;
	if (managed_attempt_save(r->st, &a, &err) != GR_OK)
		return false;
	r->v = xrealloc(r->v, (r->nv + 1) * sizeof(*r->v));
	r->v[r->nv] = a;
	r->cur = &r->v[r->nv++];
	return true;
}

/* No candidate (or the budget refuses): wait for one, or fail, as --on-exhausted says. */
static void
exhausted(struct round *r, const char *why)
{
	struct gr_error err = { 0 };
	char was[sizeof(r->j.why)];

	strlcpy_(was, r->j.why, sizeof(was));
	snprintf(r->j.why, sizeof(r->j.why), "%s", why);
	if (r->sp.exhausted_fail) {
		/* The attempt rented nothing: it ends here, with nothing to destroy. */
		end_attempt(r, why, false);
		r->cur->cost = 0;
		r->j.state = MJ_FAILED;
		r->j.ended_at = r->now;
		(void)save(r, &err);
		say(r, EV_ALERT, "managed-exhausted", _("no candidate for attempt %d: %s; failed "
		    "(--on-exhausted fail)"), r->j.attempt, why);
		return;
	}
	(void)save(r, &err);
	if (strcmp(was, r->j.why) != 0)
		say(r, EV_WARN, "managed-exhausted", _("no candidate for attempt %d: %s; waiting "
		    "for one (--on-exhausted wait)"), r->j.attempt, why);
}

/*
 * For the tests of a controller killed mid-recovery: with GPURENT_MANAGED_GATE=PATH and a
 * file PATH.STEPN, attempt N's step, once made and before it is recorded, leaves
 * PATH.STEPN.held and waits (at most a minute) until PATH.STEPN is removed. The steps: ""
 * the rental, "started-" the start of the command.
 */
static void
test_gate(const char *step, int n)
{
	const char *gate = getenv("GPURENT_MANAGED_GATE");
	struct timespec tick = { 0, 100 * 1000000L };
	char path[4200], held[4300];
	FILE *fp;
	int i;

	if (gate == NULL || *gate == '\0')
		return;
	snprintf(path, sizeof(path), "%s.%s%d", gate, step, n);
	if (access(path, F_OK) != 0)
		return;
	snprintf(held, sizeof(held), "%s.held", path);
	if ((fp = fopen(held, "w")) != NULL)
		fclose(fp);
	for (i = 0; i < 600 && access(path, F_OK) == 0; i++)
		nanosleep(&tick, NULL);
}

static void
step_rent(struct round *r)
{
	const struct req_need need = { r->sp.gpu, r->sp.count, r->sp.interruptible,
		r->sp.providers, r->sp.max_price, r->sp.max_currency };
	struct gr_error err = { 0 };
	struct launch_req base;
	struct instance in;
	char label[LABEL_MAX], tried[EVENT_MSG_MAX];
	bool resumed = r->cur != NULL;
	enum gr_err rc;

	if (r->cur == NULL && !record_attempt(r))
		return;
	/* A controller before this one may have sent this attempt's launch. */
	if (resumed && (rc = find_by_label(r, &in, &err)) != GR_ENOTFOUND) {
		if (rc != GR_OK) {
			say(r, EV_WARN, "managed-rent", _("attempt %d: the providers could not all "
			    "be asked whether it was rented (%s); asking again next round"),
			    r->cur->n, err.msg);
			return;
		}
		note_rented(r, &in);
		(void)save(r, &err);
		say(r, EV_INFO, "managed-rented", _("attempt %d: found %s, rented before the last "
		    "controller stopped"), r->cur->n, in.id);
		return;
	}
	memset(&base, 0, sizeof(base));
	base.label = attempt_label(r, r->cur->n, label, sizeof(label));
	base.client_token = r->cur->token;
	rc = requirement_find_rent(r->s, &need, &base, RENT_TRIES, &in, tried, sizeof(tried),
	    &err);
	if (rc == GR_ECAPACITY || rc == GR_EBUDGET) {
		exhausted(r, err.msg);
		return;
	}
	if (rc != GR_OK) {
		/* Perhaps sent: the next round sends it again under the same token. */
		say(r, EV_WARN, "managed-rent", _("attempt %d: %s (tried again next round)"),
		    r->cur->n, err.msg);
		return;
	}
	test_gate("", r->cur->n);
	note_rented(r, &in);
	r->j.why[0] = '\0';
	(void)save(r, &err);
	say(r, EV_ACTION, "managed-rented", _("attempt %d: rented %s (%s)"), r->cur->n, in.id,
	    tried);
}

/* ssh failed: lost once it has failed for longer than the grace. */
static void
unreachable(struct round *r, const char *why)
{
	struct gr_error err = { 0 };
	char msg[300];

	if (r->cur->ssh_failing_since == 0) {
		r->cur->ssh_failing_since = r->now;
		(void)save(r, &err);
	}
	if (r->now - r->cur->ssh_failing_since <= r->sp.grace_s)
		return;
	snprintf(msg, sizeof(msg), _("unreachable over ssh for %llds while its provider says it "
	    "runs (%s)"), (long long)(r->now - r->cur->ssh_failing_since), why);
	lose(r, msg);
}

/* Whether the machine still runs by its provider; false after lose() when it does not,
   or when the provider could not be asked this round. */
static bool
still_running(struct round *r, bool *asked)
{
	struct gr_error err = { 0 };
	struct instance in;
	char why[300];
	enum gr_err rc = instance_now(r, &in, &err);

	*asked = rc == GR_OK || rc == GR_ENOTFOUND;
	if (rc == GR_ENOTFOUND) {
		lose(r, _("gone: its provider no longer lists it"));
		return false;
	}
	if (rc != GR_OK)
		return false;
	if (in.state == ST_RUNNING)
		return true;
	/* Not up yet, or its provider cannot say now: neither is a loss. */
	if (in.state == ST_UNKNOWN || ((in.state == ST_PROVISIONING ||
	    in.state == ST_STARTING) && r->cur->run_at == 0))
		return false;
	snprintf(why, sizeof(why), "%s%s%s", inst_state_name(in.state),
	    in.status_msg[0] ? ": " : "", in.status_msg);
	lose(r, why);
	return false;
}

static void
step_start(struct round *r)
{
	struct gr_error err = { 0 };
	struct remote_endpoint ep;
	struct remote_job rj;
	struct job_start js;
	const char *env[SPEC_LIST_MAX + 4];
	char e_job[64], e_attempt[48], fill[4200];
	size_t n_env = 0, i;
	bool asked;
	int rc;

	if (!still_running(r, &asked))
		return;
	if (r->j.state == MJ_RENTING) {
		r->j.state = MJ_SYNCING;
		(void)save(r, &err);
	}
	if (session_endpoint(r->s, r->cur->instance_id, &ep, &err) != GR_OK) {
		unreachable(r, err.msg);
		return;
	}
	snprintf(e_job, sizeof(e_job), "GPURENT_JOB=%s", r->j.id);
	snprintf(e_attempt, sizeof(e_attempt), "GPURENT_ATTEMPT=%d", r->cur->n);
	env[n_env++] = e_job;
	env[n_env++] = e_attempt;
	if (r->cur->n > 1)
		env[n_env++] = "GPURENT_RESUMED=1";
	for (i = 0; i < r->sp.n_env; i++)
		env[n_env++] = r->sp.env[i];
	memset(&rj, 0, sizeof(rj));
	strlcpy_(rj.name, r->sp.name[0] ? r->sp.name : r->j.id, sizeof(rj.name));
	memcpy(rj.fetch, r->sp.fetch, r->sp.fetch_len);
	rj.fetch_len = r->sp.fetch_len;
	memset(&js, 0, sizeof(js));
	js.sync = r->sp.sync[0] ? r->sp.sync : NULL;
	js.sync_opts.excludes = (const char *const *)r->sp.excludes;
	js.sync_opts.n_excludes = r->sp.n_excludes;
	js.env = env;
	js.n_env = n_env;
	js.words = r->sp.words;
	js.n_words = (int)r->sp.n_words;
	js.place = r->sp.ckpt_dir;
	js.place_env = "GPURENT_CHECKPOINT_DIR";
	/* With no checkpoint yet, an empty one: the directory is there for the pulls. */
	ckpt_path(r, r->j.ckpt_seq, false, fill, sizeof(fill));
	if (r->j.ckpt_seq == 0)
		strlcpy_(fill + strlen(fill), "/.none", sizeof(fill) - strlen(fill));
	else if (r->sp.store_id[0] && !store_get(r, fill))
		return;
	if (paths_mkdir(fill, &err) != GR_OK) {
		say(r, EV_ALERT, "managed-checkpoint", "%s", err.msg);
		return;
	}
	js.place_fill = fill;
	js.key = r->cur->token;
	rc = jobs_start(r->s, r->st, &ep, &rj, &js, &err);
	if (rc != 0) {
		unreachable(r, err.msg);
		return;
	}
	test_gate("started-", r->cur->n);
	strlcpy_(r->cur->remote_job, rj.id, sizeof(r->cur->remote_job));
	r->cur->run_at = r->now;
	r->cur->ssh_failing_since = 0;
	r->j.state = MJ_RUNNING;
	(void)save(r, &err);
	if (r->j.ckpt_seq > 0)
		say(r, EV_INFO, "managed-started", _("attempt %d: %s started on %s, resumed from "
		    "checkpoint %d"), r->cur->n, rj.id, r->cur->instance_id, r->j.ckpt_seq);
	else
		say(r, EV_INFO, "managed-started", _("attempt %d: %s started on %s"), r->cur->n,
		    rj.id, r->cur->instance_id);
}

/* The command ended by itself with status code: fetch, last checkpoint, then put down. */
static void
finish(struct round *r, const struct remote_endpoint *ep, struct remote_job *rj, int code)
{
	struct gr_error err = { 0 };
	char why[128];
	bool ok = code == 0;

	if (ok && rj->fetch_len > 0 && !jobs_fetch(r->s, ep, rj))
		ok = false;
	(void)remote_job_record(r->st, rj, &err);
	if (!pull_checkpoint(r, ep, rj))
		say(r, EV_WARN, "managed-checkpoint", _("the last checkpoint could not be pulled"));
	if (code == 0)
		snprintf(why, sizeof(why), "%s", ok ? _("done") : _("done, but a fetch failed"));
	else
		snprintf(why, sizeof(why), _("the command exited %d"), code);
	end_attempt(r, why, false);
	if (!put_down(r, code == 0 && r->sp.then_stop, &err))
		say(r, EV_ALERT, "managed-destroy", _("%s not put down: %s"), r->cur->instance_id,
		    err.msg);
	r->cur->cost = attempt_cost(r->s, r->cur);
	r->j.state = ok ? MJ_DONE : MJ_FAILED;
	r->j.exit_code = code;
	r->j.ended_at = r->now;
	strlcpy_(r->j.why, why, sizeof(r->j.why));
	(void)save(r, &err);
	say(r, ok ? EV_INFO : EV_WARN, ok ? "managed-done" : "managed-failed", "%s", why);
}

/*
 * A sample of the machine through the sampling door: the code of a fatal Xid (xid_fatal)
 * that its kernel log holds as a GPU's newest, else 0. The log is the machine's since it
 * booted, rented for this attempt.
 */
static int
fatal_xid(struct round *r)
{
	struct gr_error err = { 0 };
	struct probe_snapshot snap;
	int xid = 0;
	size_t i;

	probe_snapshot_init(&snap);
	if (session_sample(r->s, r->cur->instance_id, METRICS_SSH, &snap, &err, NULL) == GR_OK)
		for (i = 0; i < snap.gpus.n && xid == 0; i++)
			if ((snap.gpus.v[i].valid & MV_XID) && xid_fatal(snap.gpus.v[i].xid))
				xid = snap.gpus.v[i].xid;
	probe_snapshot_release(&snap);
	return xid;
}

static void
step_run(struct round *r)
{
	struct gr_error err = { 0 };
	struct remote_endpoint ep;
	struct remote_job rj;
	char why[160];
	bool asked, ended = false;
	int rc, xid = 0;

	if (!still_running(r, &asked))
		return;
	if (!attempt_job(r, &rj)) {
		say(r, EV_ALERT, "managed-state", _("the record of %s is missing"),
		    r->cur->remote_job);
		return;
	}
	if (session_endpoint(r->s, r->cur->instance_id, &ep, &err) != GR_OK) {
		unreachable(r, err.msg);
		return;
	}
	rc = jobs_poll(&ep, &rj, 1, &ended, &err);
	if (rc != 0) {
		unreachable(r, err.msg);
		return;
	}
	if (r->cur->ssh_failing_since != 0) {
		r->cur->ssh_failing_since = 0;
		(void)save(r, &err);
	}
	if (ended)
		(void)remote_job_record(r->st, &rj, &err);
	/* A GPU that failed is looked for before each checkpoint (what it computed since may
	   be spoilt: the one before is restored) and when the command failed (it failed with
	   its machine, not by itself). */
	if (rj.state == JOB_RUNNING) {
		if (r->now - (r->j.ckpt_at > r->cur->run_at ? r->j.ckpt_at : r->cur->run_at) <
		    r->sp.every_s)
			return;
		if ((xid = fatal_xid(r)) == 0) {
			(void)pull_checkpoint(r, &ep, &rj);
			return;
		}
	}
	rc = job_exit_status(&rj);
	if (xid != 0 || (rc != 0 && (xid = fatal_xid(r)) != 0)) {
		snprintf(why, sizeof(why), "xid %d", xid);
		pull_log(r, &ep, &rj);
		lose(r, why);
		return;
	}
	if (rc != 0 && r->sp.retry_on_exit && rj.state == JOB_EXITED) {
		snprintf(why, sizeof(why), _("the command exited %d (--retry-on-exit)"), rc);
		pull_log(r, &ep, &rj);
		lose(r, why);
		return;
	}
	finish(r, &ep, &rj, rc);
}

/*
 * Cancelled (managed_cancel): a last checkpoint while the command runs, then the machine
 * destroyed (one a killed controller's launch may have rented too) and the job ended. Until
 * the machine is destroyed the job stays cancelling, for the next round to try again.
 */
static void
step_cancel(struct round *r)
{
	struct gr_error err = { 0 };
	struct remote_endpoint ep;
	struct remote_job rj;
	struct instance in;
	enum gr_err e;

	if (r->cur != NULL && r->cur->ended_at == 0) {
		if (r->cur->instance_id[0] == '\0') {
			/* Unknown whether a machine was rented: ask again rather than end the job
			   with one left running. */
			if ((e = find_by_label(r, &in, &err)) != GR_OK && e != GR_ENOTFOUND) {
				say(r, EV_WARN, "managed-cancel", _("attempt %d: the providers "
				    "could not all be asked whether it was rented (%s); cancelling "
				    "goes on at the next round"), r->cur->n, err.msg);
				return;
			}
			if (e == GR_OK)
				note_rented(r, &in);
		}
		if (r->cur->remote_job[0] && (!attempt_job(r, &rj) ||
		    session_endpoint(r->s, r->cur->instance_id, &ep, &err) != GR_OK ||
		    !pull_checkpoint(r, &ep, &rj)))
			say(r, EV_WARN, "managed-checkpoint", _("the last checkpoint could not be "
			    "pulled"));
		r->j.state = MJ_CANCELLING;
		end_attempt(r, _("cancelled"), false);
	}
	if (!put_down(r, false, &err)) {
		(void)save(r, &err);
		say(r, EV_ALERT, "managed-destroy", _("%s not destroyed (%s): cancelling goes on "
		    "at the next round"), r->cur->instance_id, err.msg);
		return;
	}
	if (r->cur != NULL)
		r->cur->cost = r->cur->instance_id[0] ? attempt_cost(r->s, r->cur) : 0;
	r->j.state = MJ_CANCELLED;
	r->j.ended_at = r->now;
	strlcpy_(r->j.why, _("cancelled"), sizeof(r->j.why));
	(void)save(r, &err);
	if (r->cur != NULL && r->cur->instance_id[0])
		say(r, EV_ACTION, "managed-cancelled", _("cancelled at attempt %d: %s destroyed "
		    "after checkpoint %d"), r->cur->n, r->cur->instance_id, r->j.ckpt_seq);
	else
		say(r, EV_ACTION, "managed-cancelled", _("cancelled at attempt %d, before a "
		    "machine was rented"), r->j.attempt);
}

/* ---------------------------------------------------------------- rounds and leases */

void
managed_holder(char *buf, size_t n)
{
	char host[256];

	host_name(host, sizeof(host), "localhost");
	snprintf(buf, n, "%s:%ld", host, (long)getpid());
}

enum gr_err
managed_round(struct session *s, const char *id, const char *holder, FILE *out,
    enum managed_turn *turn, struct gr_error *err)
{
	struct round *r = xcalloc(1, sizeof(*r));
	size_t i;
	enum gr_err rc;

	r->s = s;
	r->out = out;
	r->now = time(NULL);
	*turn = MT_LIVE;
	if ((rc = session_state(s, &r->st, err)) != GR_OK ||
	    (rc = managed_job_get(r->st, id, &r->j, err)) != GR_OK)
		goto out;
	if (!managed_state_live(r->j.state)) {
		*turn = MT_ENDED;
		goto out;
	}
	if (!lease_take(r->st, id, holder, r->now * 1000, MANAGED_LEASE_S * 1000,
	    MANAGED_STALE_S * 1000, NULL)) {
		*turn = MT_HELD;
		goto out;
	}
	if ((rc = spec_read(r->j.spec, &r->sp, err)) != GR_OK ||
	    (rc = managed_attempt_load(r->st, id, &r->v, &r->nv, err)) != GR_OK)
		goto out;
	for (i = 0; i < r->nv; i++)
		if (r->v[i].n == r->j.attempt)
			r->cur = &r->v[i];
	if (r->j.state == MJ_CANCELLING)
		step_cancel(r);
	else if (r->j.state == MJ_RECOVERING && r->cur != NULL)
		lose(r, r->cur->end[0] ? r->cur->end : _("lost"));
	else if (r->cur == NULL || r->cur->instance_id[0] == '\0')
		step_rent(r);
	else if (r->cur->remote_job[0] == '\0')
		step_start(r);
	else
		step_run(r);
	if (!managed_state_live(r->j.state)) {
		*turn = MT_ENDED;
		lease_drop(r->st, id, holder);
	}
out:
	spec_release(&r->sp);
	free(r->v);
	free(r);
	return rc;
}

void
managed_round_all(struct session *s, const char *holder, FILE *out)
{
	struct gr_error err = { 0 };
	struct managed_job *v = NULL;
	enum managed_turn turn;
	struct state *st;
	size_t n, i;

	if (session_state(s, &st, &err) != GR_OK || managed_job_load(st, &v, &n, &err) != GR_OK) {
		if (out != NULL)
			fprintf(out, "gpurent: %s\n", err.msg);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!managed_state_live(v[i].state))
			continue;
		err = (struct gr_error){ 0 };
		if (managed_round(s, v[i].id, holder, out, &turn, &err) != GR_OK && out != NULL)
			fprintf(out, "gpurent: %s: %s\n", v[i].id, err.msg);
	}
	free(v);
}

enum gr_err
managed_cancel(struct session *s, const char *id, const char *holder, FILE *out,
    enum managed_turn *turn, struct gr_error *err)
{
	struct managed_job *j = xmalloc(sizeof(*j));
	struct state *st;
	enum gr_err rc;

	if ((rc = session_state(s, &st, err)) == GR_OK &&
	    (rc = managed_job_get(st, id, j, err)) == GR_OK) {
		if (!managed_state_live(j->state))
			rc = gr_fail(err, GR_ECONFLICT, "managed job %s already ended (%s)", id,
			    managed_state_name(j->state));
		else if ((rc = managed_job_cancel(st, id, err)) == GR_OK)
			rc = managed_round(s, id, holder, out, turn, err);
	}
	free(j);
	return rc;
}

void
managed_release(struct session *s, const char *id, const char *holder)
{
	struct gr_error err = { 0 };
	struct state *st;

	if (session_state(s, &st, &err) == GR_OK)
		lease_drop(st, id, holder);
}

/* ---------------------------------------------------------------- figures */

bool
managed_cost(struct session *s, const struct managed_attempt *v, size_t n, int64_t *cost,
    char *currency)
{
	size_t i;
	int64_t c;
	bool any = false;

	*cost = 0;
	currency[0] = '\0';
	for (i = 0; i < n; i++) {
		if (v[i].instance_id[0] == '\0')
			continue;
		c = v[i].ended_at != 0 ? v[i].cost : attempt_cost(s, &v[i]);
		if (c < 0)
			return false;
		if (any && !money_same_currency(currency, v[i].currency))
			return false;
		money_currency_set(currency, v[i].currency);
		*cost += c;
		any = true;
	}
	return any;
}

int64_t
managed_lost(const struct managed_attempt *v, size_t n)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i].lost_s;
	return sum;
}

enum gr_err
managed_rows(struct session *s, const char *want, int64_t now, struct managed_row **out,
    size_t *n, struct gr_error *err)
{
	struct managed_job *v = NULL;
	struct gr_error unread = { 0 };
	struct managed_attempt *at;
	struct spec *sp;
	struct state *st;
	size_t nv, i, na;

	*out = NULL;
	*n = 0;
	if (session_state(s, &st, err) != GR_OK || managed_job_load(st, &v, &nv, err) != GR_OK)
		return err->code;
	*out = xcalloc(nv + 1, sizeof(**out));
	sp = xcalloc(1, sizeof(*sp));
	for (i = 0; i < nv; i++) {
		struct managed_row *m = &(*out)[*n];

		if (want != NULL && strcmp(v[i].id, want) != 0)
			continue;
		m->j = v[i];
		/* An unreadable request leaves the name and command empty, the rest shown. */
		if (spec_read(v[i].spec, sp, &unread) == GR_OK) {
			strlcpy_(m->name, sp->name, sizeof(m->name));
			job_join_words(sp->words, (int)sp->n_words, m->command,
			    sizeof(m->command));
			m->then_stop = sp->then_stop;
		}
		spec_release(sp);
		m->ckpt_age = v[i].ckpt_at ? (v[i].ended_at ? v[i].ended_at : now) -
		    v[i].ckpt_at : -1;
		if (managed_attempt_load(st, v[i].id, &at, &na, err) != GR_OK) {
			free(sp);
			free(v);
			free(*out);
			*out = NULL;
			*n = 0;
			return err->code;
		}
		if (na > 0)
			strlcpy_(m->instance, at[na - 1].instance_id, sizeof(m->instance));
		m->lost_s = managed_lost(at, na);
		m->cost_known = managed_cost(s, at, na, &m->cost, m->currency);
		free(at);
		(*n)++;
	}
	free(sp);
	free(v);
	if (want != NULL && *n == 0) {
		free(*out);
		*out = NULL;
		return gr_fail(err, GR_ENOTFOUND, "no managed job '%s' ('gpurent jobs --managed' "
		    "lists them)", want);
	}
	return GR_OK;
}
