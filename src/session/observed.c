/*
 * observed.c - provider calls whose answers go into the cost ledger (observed.h): the one
 * place that writes what backends report, under one lock for the fan-out's threads. The
 * ssh include file (ssh_hosts.h) follows the same answers.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/ledger.h"
#include "gpurent/observed.h"
#include "gpurent/ssh_hosts.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

/* The fan-out runs backends on threads, each with its own connection to one database. */
static pthread_mutex_t ledger_lock = PTHREAD_MUTEX_INITIALIZER;

static struct state *
ledger_of(const struct backend *b)
{
	return b->ops->own_ledger ? NULL : backend_store(b, NULL);
}

/* The ledger is a convenience: a failure to write it never fails the provider call. */
static void
observe(struct state *st, const struct instance *in, bool plain)
{
	struct gr_error e = { 0 };

	if (in->id[0] == '\0')
		return;
	pthread_mutex_lock(&ledger_lock);
	if (in->valid & IV_BILLED)
		(void)ledger_observe_span(st, in, in->billed_from, in->billed_until, &e);
	if (plain)
		(void)ledger_observe(st, in, (int64_t)time(NULL), &e);
	pthread_mutex_unlock(&ledger_lock);
}

/*
 * When an instance was created, for a provider that says so only in the answer to its
 * launch (RunPod) or never (Lambda: the launch's time): kept in the state when the
 * launch is answered, and lent to every later answer that lacks it.
 */
static void
created_keep(const struct backend *b, const struct instance *in)
{
	struct gr_error e = { 0 };
	char key[ID_MAX + 16], val[32];
	struct state *st;

	if (!(in->valid & IV_CREATED) || in->id[0] == '\0' || (st = ledger_of(b)) == NULL)
		return;
	snprintf(key, sizeof(key), "created:%s", in->id);
	snprintf(val, sizeof(val), "%lld", (long long)in->created_at);
	pthread_mutex_lock(&ledger_lock);
	(void)state_meta_set(st, key, val, &e);
	pthread_mutex_unlock(&ledger_lock);
}

static void
created_lend(const struct backend *b, struct instance *in)
{
	char key[ID_MAX + 16], val[32];
	struct state *st;
	long long v;
	bool kept;

	if ((in->valid & IV_CREATED) || (st = ledger_of(b)) == NULL)
		return;
	snprintf(key, sizeof(key), "created:%s", in->id);
	pthread_mutex_lock(&ledger_lock);
	kept = state_meta_get(st, key, val, sizeof(val));
	pthread_mutex_unlock(&ledger_lock);
	if (kept && parse_int(val, 1, INT64_MAX, &v)) {
		in->created_at = v;
		in->valid |= IV_CREATED;
	}
}

/* An instance the provider no longer has, or has destroyed: its entries go. */
static void
hosts_gone(const struct backend *b, const char *id)
{
	struct instance in;

	memset(&in, 0, sizeof(in));
	strlcpy_(in.id, id, sizeof(in.id));
	in.state = ST_DESTROYED;
	ssh_hosts_follow(b->env.config, b->ops->name, &in, 1, false);
}

enum gr_err
observed_get(struct backend *b, const char *id, struct instance *out, struct gr_error *err)
{
	enum gr_err e = b->ops->get(b, id, out, err);
	struct state *st;

	if (e == GR_OK) {
		created_lend(b, out);
		ssh_hosts_follow(b->env.config, b->ops->name, out, 1, false);
	} else if (e == GR_ENOTFOUND)
		hosts_gone(b, id);
	if (e == GR_OK && (st = ledger_of(b)) != NULL)
		observe(st, out, true);
	return e;
}

enum gr_err
observed_adopt(struct backend *b, const char *id, struct instance *out, struct gr_error *err)
{
	enum gr_err e = b->ops->get(b, id, out, err);
	struct instance seen;
	struct state *st;

	if (e != GR_OK)
		return e;
	created_lend(b, out);
	if ((st = ledger_of(b)) == NULL)
		return GR_OK;
	seen = *out;
	if (inst_state_billed(seen.state) && (seen.valid & IV_CREATED) &&
	    !(seen.valid & IV_BILLED) && seen.created_at <= (int64_t)time(NULL)) {
		seen.billed_from = seen.created_at;
		seen.billed_until = 0;
		seen.valid |= IV_BILLED;
	}
	observe(st, &seen, true);
	return GR_OK;
}

static void
observe_listed(struct state *st, const struct backend *b, const struct instance_list *l,
    size_t first, int64_t asked)
{
	struct gr_error e = { 0 };
	const char **ids;
	size_t i;

	for (i = first; i < l->n; i++)
		observe(st, &l->v[i], true);
	ids = xcalloc(l->n - first + 1, sizeof(*ids));
	for (i = first; i < l->n; i++)
		ids[i - first] = l->v[i].id;
	pthread_mutex_lock(&ledger_lock);
	(void)ledger_close_unlisted(st, b->ops->name, ids, l->n - first, asked,
	    (int64_t)time(NULL), &e);
	pthread_mutex_unlock(&ledger_lock);
	free(ids);
}

enum gr_err
observed_instances(struct backend *b, struct instance_list *out, struct gr_error *err)
{
	size_t first = out->n, i, k;
	int64_t asked = (int64_t)time(NULL);
	enum gr_err e = b->ops->instances(b, out, err);
	struct state *st;

	if (e != GR_OK)
		return e;
	for (i = first; i < out->n; i++)
		created_lend(b, &out->v[i]);
	ssh_hosts_follow(b->env.config, b->ops->name, out->v + first, out->n - first, true);
	/* A launch left unsettled is the instance listed by its name (the simulator's too). */
	if ((st = backend_store(b, NULL)) != NULL) {
		pthread_mutex_lock(&ledger_lock);
		state_journal_claim(st, b->ops->name, out, first);
		pthread_mutex_unlock(&ledger_lock);
	}
	if ((st = ledger_of(b)) != NULL) {
		/* Only gpurent's own jobs go to the ledger: --all shows the others, never
		   bills them. */
		if (b->list_all && (b->ops->caps & CAP_CLUSTER))
			for (i = first; i < out->n; i++)
				observe(st, &out->v[i], false);
		else
			observe_listed(st, b, out, first, asked);
	}
	/* Finished jobs linger in Slurm for MinJobAge: ls shows live ones only. */
	if (b->ops->lists_ended) {
		for (i = first, k = first; i < out->n; i++)
			if (out->v[i].state != ST_DESTROYED)
				out->v[k++] = out->v[i];
		out->n = k;
	}
	return GR_OK;
}

enum gr_err
observed_launch(struct backend *b, const struct launch_req *req, struct instance *out,
    struct gr_error *err)
{
	enum gr_err e = b->ops->launch(b, req, out, err);
	struct state *st;

	if (e == GR_OK) {
		created_keep(b, out);
		ssh_hosts_follow(b->env.config, b->ops->name, out, 1, false);
	}
	if (e == GR_OK && (st = ledger_of(b)) != NULL)
		observe(st, out, true);
	return e;
}

/* After an accepted stop or start: where the instance is now, when the provider says. */
static enum gr_err
observe_again(struct backend *b, const char *id, enum gr_err e)
{
	struct instance in;
	struct state *st;

	if (e == GR_OK && ((st = ledger_of(b)) != NULL || ssh_hosts_enabled(NULL, 0)) &&
	    b->ops->get(b, id, &in, &(struct gr_error){ 0 }) == GR_OK) {
		created_lend(b, &in);
		ssh_hosts_follow(b->env.config, b->ops->name, &in, 1, false);
		if (st != NULL)
			observe(st, &in, true);
	}
	return e;
}

enum gr_err
observed_stop(struct backend *b, const char *id, struct gr_error *err)
{
	return observe_again(b, id, b->ops->stop(b, id, err));
}

enum gr_err
observed_start(struct backend *b, const char *id, struct gr_error *err)
{
	return observe_again(b, id, b->ops->start(b, id, err));
}

enum gr_err
observed_destroy(struct backend *b, const char *id, struct gr_error *err)
{
	enum gr_err e = b->ops->destroy(b, id, err);
	struct instance in;
	struct state *st;

	if (e == GR_OK)
		hosts_gone(b, id);
	if (e == GR_OK && (st = ledger_of(b)) != NULL) {
		memset(&in, 0, sizeof(in));
		strlcpy_(in.id, id, sizeof(in.id));
		strlcpy_(in.provider, b->ops->name, sizeof(in.provider));
		in.state = ST_DESTROYED;
		observe(st, &in, true);
	}
	return e;
}
