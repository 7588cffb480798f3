/*
 * The job engine of run, jobs, logs, kill and the watcher (job_engine.h): jobs started,
 * recorded jobs brought up to date from their instances, and their --fetch and --then
 * carried out by whichever gpurent first sees them ended.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/backend.h"
#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/job_engine.h"
#include "gpurent/observed.h"
#include "gpurent/paths.h"
#include "gpurent/remote_copy.h"
#include "gpurent/session.h"
#include "gpurent/util.h"

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What the engine says goes to stderr, as the commands' warnings do (cmd_warn). */
static void
warn(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("gpurent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
job_exit_status(const struct remote_job *j)
{
	switch (j->state) {
	case JOB_EXITED:
		return j->exit_code >= 0 ? j->exit_code : 1;
	case JOB_KILLED:
		return 128 + 15;
	default:
		return 1;
	}
}

void
job_join_words(char *const *w, int n, char *out, size_t size)
{
	struct sb sb;
	int i;

	sb_init(&sb);
	for (i = 0; i < n; i++) {
		if (i)
			sb_addc(&sb, ' ');
		if (n == 1)
			sb_adds(&sb, w[i]);
		else
			remote_shell_quote(&sb, w[i]);
	}
	strlcpy_(out, sb.buf, size);
	sb_release(&sb);
}

/* Copy what dir holds (the trailing slash) into sub ("": itself) of j's working directory. */
static int
sync_into(struct session *s, const struct remote_endpoint *ep, const char *dir,
    const struct remote_copy_opts *opts, const struct remote_job *j, const char *sub,
    struct gr_error *err)
{
	struct remote_copy_opts o = *opts;
	struct remote_place src, dst;
	struct config *cfg;
	char from[4200], to[4200];

	o.recursive = true;
	if (session_config(s, &cfg, NULL) == GR_OK)
		o.rsync_path = config_get(cfg, "ssh.rsync_path");
	snprintf(from, sizeof(from), "%s/", dir);
	remote_job_path(j, sub, to, sizeof(to));
	if (sub[0] != '\0')
		strlcpy_(to + strlen(to), "/", sizeof(to) - strlen(to));
	src = (struct remote_place){ NULL, from };
	dst = (struct remote_place){ ep, to };
	return remote_copy_rsync(&src, 1, &dst, &o, err);
}

int
jobs_start(struct session *s, struct state *st, const struct remote_endpoint *ep,
    struct remote_job *j, const struct job_start *js, struct gr_error *err)
{
	const char **env = xcalloc(js->n_env + 2, sizeof(*env));
	struct remote_copy_opts plain;
	char place[4200], assign[4400];
	size_t n_env = js->n_env;
	bool started;
	int rc = 0;

	memcpy(env, js->env, js->n_env * sizeof(*env));
	memset(&plain, 0, sizeof(plain));
	if (remote_connect(ep, err) != GR_OK ||
	    (rc = remote_job_create(ep, j, js->key, &started, err)) != 0) {
		rc = rc != 0 ? rc : REMOTE_EXIT_CONN;
		goto out;
	}
	/* Started before: its files are the command's now, never copied over. */
	if (!started && js->sync != NULL &&
	    (rc = sync_into(s, ep, js->sync, &js->sync_opts, j, "", err)) != 0)
		goto out;
	if (js->place != NULL) {
		if (!started && js->place_fill != NULL &&
		    (rc = sync_into(s, ep, js->place_fill, &plain, j, js->place, err)) != 0)
			goto out;
		remote_job_path(j, js->place, place, sizeof(place));
		snprintf(assign, sizeof(assign), "%s=%s", js->place_env, place);
		env[n_env++] = assign;
	}
	strlcpy_(j->instance_id, ep->name, sizeof(j->instance_id));
	snprintf(j->id, sizeof(j->id), "%s/%d", ep->name, j->seq);
	job_join_words(js->words, js->n_words, j->command, sizeof(j->command));
	j->state = JOB_RUNNING;
	j->exit_code = -1;
	j->started_at = session_now(s);
	rc = remote_job_start(ep, j->seq, env, n_env, (const char *const *)js->words,
	    (size_t)js->n_words, err);
	if (rc == 0 && remote_job_record(st, j, err) != GR_OK)
		rc = gr_exit_code(err->code);
out:
	free(env);
	return rc;
}

/* The recorded state of a batch job from its provider: ended, killed, lost or running. */
bool
batch_refresh(struct session *s, struct state *st, struct remote_job *j)
{
	struct gr_error err = { 0 };

	if (session_batch_refresh(s, st, j, &err))
		return true;
	warn(_("cannot read %s: %s"), j->id, err.msg);
	return false;
}

static void
account_add(struct remote_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append a sentence to j's account, and say it on stderr. */
static void
account_add(struct remote_job *j, const char *fmt, ...)
{
	char line[512], clean[512];
	size_t len = strlen(j->account);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	text_sanitize(clean, sizeof(clean), line);
	snprintf(j->account + len, sizeof(j->account) - len, "%s%s", len ? "; " : "", clean);
	warn("%s: %s", j->id, clean);
}

int
jobs_pull(struct session *s, const struct remote_endpoint *ep, const struct remote_job *j,
    const char *path, const char *local_dir, struct gr_error *err)
{
	struct remote_copy_opts o;
	struct remote_place src, dst;
	struct config *cfg;
	char rpath[4200], ldir[4200];

	memset(&o, 0, sizeof(o));
	o.recursive = true;
	if (session_config(s, &cfg, NULL) == GR_OK)
		o.rsync_path = config_get(cfg, "ssh.rsync_path");
	remote_job_path(j, path, rpath, sizeof(rpath));
	snprintf(ldir, sizeof(ldir), "%s/", local_dir);
	src = (struct remote_place){ ep, rpath };
	dst = (struct remote_place){ NULL, ldir };
	if (paths_mkdir(local_dir, err) != GR_OK)
		return 1;
	return remote_copy_rsync(&src, 1, &dst, &o, err);
}

bool
jobs_fetch(struct session *s, const struct remote_endpoint *ep, struct remote_job *j)
{
	struct gr_error err;
	const char *p = j->fetch, *end = j->fetch + j->fetch_len, *local;

	while (p < end) {
		local = p + strlen(p) + 1;
		if (local >= end)
			break;
		err = (struct gr_error){ 0 };
		if (jobs_pull(s, ep, j, p, local, &err) != 0) {
			account_add(j, _("fetching %s to %s failed: %s"), p, local,
			    err.msg[0] ? err.msg : _("the copy failed"));
			return false;
		}
		account_add(j, _("fetched %s to %s"), p, local);
		p = local + strlen(local) + 1;
	}
	return true;
}

/* Stop or destroy the instance; false (accounted) when the provider refused. */
static bool
then_act(struct session *s, struct remote_job *j)
{
	struct gr_error err = { 0 };
	struct backend *b;
	bool stop = strcmp(j->then_action, "stop") == 0;

	if (session_backend_for(s, j->instance_id, &b, &err) == GR_OK &&
	    (stop ? observed_stop(b, j->instance_id, &err) :
	    observed_destroy(b, j->instance_id, &err)) == GR_OK) {
		account_add(j, stop ? _("stopped %s") : _("destroyed %s"), j->instance_id);
		return true;
	}
	account_add(j, _("--then %s failed: %s"), j->then_action, err.msg);
	return false;
}

/* The first recorded job on the instance other than j that still runs, or NULL. */
static const struct remote_job *
other_running(const struct remote_job *v, size_t n, const struct remote_job *j)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (&v[i] != j && v[i].state == JOB_RUNNING)
			return &v[i];
	return NULL;
}

static void
save(struct state *st, const struct remote_job *j)
{
	struct gr_error err = { 0 };

	if (remote_job_record(st, j, &err) != GR_OK)
		warn("%s", err.msg);
}

/*
 * The ended jobs of one instance (v, all of its records) with work left. ep is NULL when
 * the instance was not reached: with down set (it is stopped or gone) that work can never
 * be done and is accounted as failed; without, it waits for a later look.
 */
static void
settle(struct session *s, struct state *st, const struct remote_endpoint *ep,
    const char *down, struct remote_job *v, size_t n)
{
	const struct remote_job *busy;
	const char *acted = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		struct remote_job *j = &v[i];
		enum remote_job_after from = j->after;

		if (j->state == JOB_RUNNING ||
		    (from != JOB_AFTER_PENDING && from != JOB_AFTER_WAITING))
			continue;
		if (ep == NULL && down == NULL)
			continue;	/* it waits until the instance answers */
		if (!remote_job_claim(st, j->id, from, JOB_AFTER_BUSY))
			continue;	/* another gpurent is at it */
		j->after = JOB_AFTER_BUSY;
		if (ep == NULL) {
			account_add(j, _("%s is %s: nothing fetched%s%s%s"), j->instance_id, down,
			    j->then_action[0] ? ", --then " : "", j->then_action,
			    j->then_action[0] ? _(" not done") : "");
			j->after = JOB_AFTER_FAILED;
		} else if (from == JOB_AFTER_PENDING && j->fetch_len > 0 && !jobs_fetch(s, ep, j)) {
			if (j->then_action[0])
				account_add(j, _("--then %s not done"), j->then_action);
			j->after = JOB_AFTER_FAILED;
		}
		if (j->after == JOB_AFTER_BUSY && j->then_action[0] == '\0')
			j->after = JOB_AFTER_DONE;
		if (j->after == JOB_AFTER_BUSY) {
			if (acted != NULL) {
				account_add(j, _("--then %s: %s was %s already"), j->then_action,
				    j->instance_id, acted);
				j->after = JOB_AFTER_DONE;
			} else if ((busy = other_running(v, n, j)) != NULL) {
				if (from != JOB_AFTER_WAITING)
					account_add(j, _("--then %s waits for %s, which still runs"),
					    j->then_action, busy->id);
				j->after = JOB_AFTER_WAITING;
			} else if (then_act(s, j)) {
				acted = strcmp(j->then_action, "stop") == 0 ? "stopped" : "destroyed";
				j->after = JOB_AFTER_DONE;
			} else
				j->after = JOB_AFTER_FAILED;
		}
		save(st, j);
	}
}

/* NULL while the instance runs (or its provider does not answer), else what it is. */
static const char *
instance_down(struct session *s, const char *id)
{
	struct gr_error err = { 0 };
	struct backend *b;
	struct instance in;

	if (session_backend_for(s, id, &b, &err) != GR_OK)
		return NULL;
	if (observed_get(b, id, &in, &err) != GR_OK)
		return err.code == GR_ENOTFOUND ? "gone" : NULL;
	return in.state == ST_RUNNING ? NULL : inst_state_name(in.state);
}

int
jobs_poll(const struct remote_endpoint *ep, struct remote_job *v, size_t n, bool *ended,
    struct gr_error *err)
{
	struct remote_job *run = xcalloc(n + 1, sizeof(*run));
	size_t nrun = 0, i, k;
	int rc;

	for (i = 0; i < n; i++)
		if (v[i].state == JOB_RUNNING)
			run[nrun++] = v[i];
	rc = remote_job_poll(ep, run, nrun, err);
	if (rc == 0)
		for (i = 0, k = 0; i < n; i++)
			if (v[i].state == JOB_RUNNING) {
				v[i].state = run[k].state;
				v[i].exit_code = run[k++].exit_code;
				if (ended != NULL)
					ended[i] = v[i].state != JOB_RUNNING;
			}
	free(run);
	return rc;
}

/* One instance: its running jobs read from it, then settled. */
static bool
refresh_instance(struct session *s, struct state *st, const char *id)
{
	struct gr_error err = { 0 };
	struct remote_endpoint ep;
	struct remote_job *v = NULL;
	size_t n, i;
	const char *down;
	bool reached = false, *ended;

	if (remote_job_load(st, id, &v, &n, &err) != GR_OK) {
		warn("%s", err.msg);
		return false;
	}
	/* A batch job is its own instance: its scheduler says how it is. */
	if (n == 1 && job_is_batch(&v[0])) {
		reached = batch_refresh(s, st, &v[0]);
		free(v);
		return reached;
	}
	down = instance_down(s, id);
	if (down == NULL && session_endpoint(s, id, &ep, &err) == GR_OK) {
		ended = xcalloc(n + 1, sizeof(*ended));
		if (jobs_poll(&ep, v, n, ended, &err) == 0) {
			reached = true;
			for (i = 0; i < n; i++)
				if (ended[i])
					save(st, &v[i]);
		}
		free(ended);
	}
	if (down != NULL) {
		/* Its processes ended with the machine. */
		for (i = 0; i < n; i++)
			if (v[i].state == JOB_RUNNING) {
				v[i].state = JOB_LOST;
				save(st, &v[i]);
			}
	} else if (!reached)
		warn(_("cannot read the jobs of %s: %s"), id, err.msg[0] ? err.msg :
		    _("no answer"));
	settle(s, st, reached ? &ep : NULL, down, v, n);
	free(v);
	return reached || down != NULL;
}

bool
jobs_refresh(struct session *s, struct state *st, const char *instance_id)
{
	struct gr_error err = { 0 };
	struct remote_job *v = NULL;
	size_t n, i, k;
	bool ok = true;

	if (instance_id != NULL)
		return refresh_instance(s, st, instance_id);
	if (remote_job_load(st, NULL, &v, &n, &err) != GR_OK) {
		warn("%s", err.msg);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (v[i].state != JOB_RUNNING && v[i].after != JOB_AFTER_PENDING &&
		    v[i].after != JOB_AFTER_WAITING)
			continue;
		/* Each instance once. */
		for (k = 0; k < i; k++)
			if (strcmp(v[k].instance_id, v[i].instance_id) == 0 &&
			    (v[k].state == JOB_RUNNING || v[k].after == JOB_AFTER_PENDING ||
			    v[k].after == JOB_AFTER_WAITING))
				break;
		if (k == i && !refresh_instance(s, st, v[i].instance_id))
			ok = false;
	}
	free(v);
	return ok;
}
