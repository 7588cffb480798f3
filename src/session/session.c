/*
 * session.c - the session a command or the dashboard works in: config, database,
 * backends, the fan-out to every provider, the clocks and starting an instance.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/config.h"
#include "gpurent/costs.h"
#include "gpurent/filter.h"
#include "gpurent/gpunames.h"
#include "gpurent/i18n.h"
#include "gpurent/observed.h"
#include "gpurent/offer_cache.h"
#include "gpurent/paths.h"
#include "gpurent/session.h"
#include "gpurent/sim.h"
#include "gpurent/state.h"
#include "gpurent/team.h"
#include "gpurent/util.h"
#include "gpurent/vault.h"

/* For filter terms: the registry is above core/, so the check is handed down from here. */
static bool
provider_known(const char *name)
{
	return backend_find_ops(name) != NULL;
}

/* For gpu= terms: names providers were seen selling that the catalogue lacks. */
static bool
gpu_seen(void *ctx, const char *name)
{
	struct state *st;

	return session_state(ctx, &st, NULL) == GR_OK && gpunames_known(st, name);
}

/*
 * For a PostgreSQL state whose server asks for a password that libpq has not found: the one
 * stored with `gpurent login state` for the profile of the process's first session (main's,
 * which lives as long as the process). Asked from the threads that connect (backends', the
 * state's own opener): the vault takes one look at a time.
 */
static enum gr_err
state_password_of(void *ctx, char **pw, struct gr_error *err)
{
	const struct session *s = ctx;

	return vault_lookup(s->profile, VAULT_STATE_PASSWORD, pw, err);
}

void
session_init(struct session *s)
{
	static bool password_set;
	/*
	 * A filter asks the first session of its thread for the GPU names seen (main's, or a
	 * dashboard lane's own): one made later on the same thread (the exporter's lanes are
	 * made on main's) may end before it, and a session is not shared between threads.
	 */
	static _Thread_local bool gpu_seen_bound;

	filter_set_provider_known(provider_known);
	memset(s, 0, sizeof(*s));
	if (!gpu_seen_bound) {
		filter_set_gpu_seen(gpu_seen, s);
		gpu_seen_bound = true;
	}
	if (!password_set) {
		state_set_password(&(struct state_password){ state_password_of, vault_key_free, s });
		password_set = true;
	}
	s->profile = getenv("GPURENT_PROFILE");
	s->interactive = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
}

void
session_drop_backends(struct session *s)
{
	size_t i;

	for (i = 0; i < s->n_backends; i++) {
		backend_destroy(s->backends[i]);
		vault_key_free(s->vault_keys[i]);
		s->vault_keys[i] = NULL;
	}
	s->n_backends = 0;
	s->backends_ready = false;
	s->state_lent = false;
}

void
session_state_retry(struct session *s)
{
	if (s->state != NULL && s->state_lent)
		state_open_retry(s->state);
}

void
session_release(struct session *s)
{
	session_drop_backends(s);
	state_close(s->state);
	s->state = NULL;
	state_close(s->sim_state);
	s->sim_state = NULL;
	config_free(s->config);
	s->config = NULL;
}

enum gr_err
session_config_any(struct session *s, struct config **out, struct gr_error *err)
{
	enum gr_err rc;

	if (s->config == NULL) {
		if ((rc = config_load(&s->config, paths_config_file(), err)) != GR_OK)
			return rc;
		if ((rc = config_select_profile(s->config, s->profile, err)) != GR_OK) {
			config_free(s->config);
			s->config = NULL;
			return rc;
		}
	}
	*out = s->config;
	return GR_OK;
}

enum gr_err
session_config(struct session *s, struct config **out, struct gr_error *err)
{
	enum gr_err rc;

	if ((rc = session_config_any(s, out, err)) != GR_OK)
		return rc;
	return config_problem(*out, err);
}

/*
 * Where the state is: GPURENT_STATE_URL, else the profile's state.url (a team's PostgreSQL
 * database), else the file in the state directory. A configuration that does not load
 * leaves the file: the command that reads the configuration says what is wrong with it.
 */
static enum gr_err
state_target(struct session *s, const char **out, struct gr_error *err)
{
	const char *url = getenv("GPURENT_STATE_URL"), *from = "GPURENT_STATE_URL";
	struct gr_error ignored = { 0 };
	struct config *c;

	if ((url == NULL || url[0] == '\0') && session_config_any(s, &c, &ignored) == GR_OK) {
		url = config_get(c, "state.url");
		from = "state.url";
	}
	*out = paths_state_db();
	if (url == NULL || url[0] == '\0')
		return GR_OK;
	if (!state_is_url(url))
		return gr_fail(err, GR_EUSAGE, "%s must be a postgresql:// URL", from);
	*out = url;
	return GR_OK;
}

/* The state, opened or with its opening begun (a server's connection made on a thread). */
static enum gr_err
state_opening(struct session *s, struct gr_error *err)
{
	struct gr_error ignored = { 0 };
	struct config *c = NULL;
	char who[TEAM_NAME_MAX + 1];
	const char *target;

	if (s->state != NULL)
		return GR_OK;
	if (state_target(s, &target, err) != GR_OK ||
	    state_open_begin(&s->state, target, err) != GR_OK)
		return err->code;
	/* A configuration that does not load still has a login name to act as. */
	if (session_config_any(s, &c, &ignored) != GR_OK)
		c = NULL;
	state_set_actor(s->state, team_user(c, who, sizeof(who)), team_name(c));
	return GR_OK;
}

enum gr_err
session_state(struct session *s, struct state **out, struct gr_error *err)
{
	struct gr_error ignored = { 0 };

	if (err == NULL)
		err = &ignored;
	if (state_opening(s, err) != GR_OK)
		return err->code;
	if (state_open_wait(s->state, err) != GR_OK) {
		/* Asked again, it is opened again (a dashboard's next refresh, once the server
		   is back), unless the simulator holds it: its calls say why until the
		   session's next piece of work (session_state_retry). */
		if (!s->state_lent) {
			state_close(s->state);
			s->state = NULL;
		}
		return err->code;
	}
	*out = s->state;
	return GR_OK;
}

enum gr_err
session_sim_state(struct session *s, struct state **out, struct gr_error *err)
{
	struct gr_error ignored = { 0 };
	const char *target;

	if (err == NULL)
		err = &ignored;
	if (state_target(s, &target, err) != GR_OK)
		return err->code;
	/* A team's state: the world stays in the file, opened without waiting for the server. */
	if (!state_is_url(target))
		return session_state(s, out, err);
	if (s->sim_state == NULL && state_open(&s->sim_state, paths_state_db(), err) != GR_OK)
		return err->code;
	*out = s->sim_state;
	return GR_OK;
}

/* GPURENT_<NAME>_<WHAT> with NAME upper-cased, then <NAME>_<WHAT> when fallback is set. */
static const char *
provider_env(const char *name, const char *what, bool fallback)
{
	char var[96], up[32];
	const char *v;
	size_t i;

	for (i = 0; name[i] != '\0' && i + 1 < sizeof(up); i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	up[i] = '\0';
	snprintf(var, sizeof(var), "GPURENT_%s_%s", up, what);
	v = getenv(var);
	if ((v == NULL || *v == '\0') && fallback) {
		snprintf(var, sizeof(var), "%s_%s", up, what);
		v = getenv(var);
	}
	return v != NULL && *v != '\0' ? v : NULL;
}

/* A backend's note (backend_env.note): on stderr when the user asked to hear more. */
static void
session_note(void *ctx, const char *msg)
{
	const struct session *s = ctx;

	if (s->verbose > 0)
		fprintf(stderr, "gpurent: %s\n", msg);
}

static enum gr_err
add_backend(struct session *s, const char *name, struct gr_error *err)
{
	const struct backend_ops *ops = backend_find_ops(name);
	struct gr_error no_key = { 0 };
	struct backend_env env;
	struct backend *b;
	char key[64];
	size_t i;
	bool keyed;

	if (ops == NULL) {
		struct sb sb;
		const struct backend_ops *const *all = backend_registry(&i);
		size_t n = i;

		sb_init(&sb);
		for (i = 0; i < n; i++)
			sb_addf(&sb, "%s%s", i ? ", " : "", all[i]->name);
		gr_fail(err, GR_EUSAGE, "unknown provider '%s' (known: %s)", name, sb.buf);
		sb_release(&sb);
		return GR_EUSAGE;
	}
	for (i = 0; i < s->n_backends; i++)
		if (s->backends[i]->ops == ops)
			return GR_OK;
	if (s->n_backends == SESSION_MAX_PROVIDERS)
		return gr_fail(err, GR_EUSAGE, "too many providers");
	memset(&env, 0, sizeof(env));
	env.name = ops->name;
	snprintf(key, sizeof(key), "%s.url", ops->name);
	env.base_url = provider_env(ops->name, "URL", false);
	if (env.base_url == NULL)
		env.base_url = config_get(s->config, key);
	env.api_key = provider_env(ops->name, "API_KEY", true);
	if (env.api_key == NULL && ops->key_env != NULL && getenv(ops->key_env) != NULL &&
	    getenv(ops->key_env)[0] != '\0')
		env.api_key = getenv(ops->key_env);
	env.config = s->config;
	env.debug = s->debug;
	env.note = session_note;
	env.note_ctx = s;
	env.timeout_ms = config_get_int(s->config, "http.timeout", 30) * 1000;
	env.connect_timeout_ms = config_get_int(s->config, "http.connect_timeout", 10) * 1000;
	/* Each backend opens its own connections when it first needs them (backend_state,
	   backend_store): a world in the file, gpurent's records in a team's state. */
	env.db_path = paths_state_db();
	{
		struct gr_error ignored = { 0 };
		const char *target;

		if (state_target(s, &target, &ignored) == GR_OK && state_is_url(target)) {
			env.store_url = target;
			/* The simulator bills through the session's own connection (one
			   server process, not two), lent while it is still being made: the
			   world's work goes on meanwhile. One that does not open fails the
			   simulator's calls with why. */
			if (ops->own_ledger && state_opening(s, &ignored) == GR_OK) {
				env.store = s->state;
				s->state_lent = true;
			}
		}
	}
	/*
	 * The environment wins; the sealed store is opened only when it has to be. The
	 * simulator takes no key.
	 */
	keyed = strcmp(ops->name, "sim") != 0;
	s->vault_keys[s->n_backends] = NULL;
	s->team_key_missing[s->n_backends] = false;
	if (keyed && s->team_keys && team_profile(s->config)) {
		/* The team's watcher: its team key, never one of the environment or a person's. */
		struct state *st;

		if (session_state(s, &st, err) != GR_OK)
			return err->code;
		if (session_team_key(s->config, s->profile, st, ops->name,
		    &s->vault_keys[s->n_backends], &no_key) == GR_EAUTH)
			s->team_key_missing[s->n_backends] = true;
		else if (no_key.code != GR_OK) {
			*err = no_key;
			return err->code;
		}
		env.api_key = s->vault_keys[s->n_backends];
	} else if (keyed && env.api_key == NULL) {
		char *k = NULL;

		if (vault_lookup_cfg(s->config, s->profile, ops->name, &k, err) != GR_OK)
			return err->code;
		env.api_key = k;
		s->vault_keys[s->n_backends] = k;
	}
	b = backend_create(ops, &env);
	if (no_key.code != GR_OK) {
		/* Its instances are left alone: every call of it fails with why. */
		b->ready = false;
		b->init_err = no_key;
	}
	s->backends[s->n_backends++] = b;
	return GR_OK;
}

static void
sim_notice(struct session *s)
{
	struct state *st;
	char buf[8];

	if (s->sim_notice_done || !isatty(STDERR_FILENO))
		return;
	s->sim_notice_done = true;
	if (session_state(s, &st, NULL) != GR_OK ||
	    state_meta_get(st, "notice.sim_default", buf, sizeof(buf)))
		return;
	fputs(_("gpurent: no provider configured; using the built-in simulated marketplace "
	    "'sim' (see 'gpurent help providers')\n"), stderr);
	state_meta_set(st, "notice.sim_default", "1", NULL);
}

enum gr_err
session_backends(struct session *s, struct gr_error *err)
{
	struct config *cfg;
	const char *list;
	char buf[512], *tok, *save = NULL;
	size_t i;

	if (s->backends_ready)
		return GR_OK;
	if (session_config(s, &cfg, err) != GR_OK)
		return err->code;
	if (s->n_providers > 0) {
		for (i = 0; i < s->n_providers; i++)
			if (add_backend(s, s->providers[i], err) != GR_OK)
				return err->code;
	} else {
		list = config_get(cfg, "providers");
		strlcpy_(buf, list ? list : "sim", sizeof(buf));
		for (tok = strtok_r(buf, ", ", &save); tok != NULL;
		    tok = strtok_r(NULL, ", ", &save))
			if (add_backend(s, tok, err) != GR_OK)
				return err->code;
		if (s->n_backends == 1 && strcmp(s->backends[0]->ops->name, "sim") == 0 &&
		    config_get(cfg, "providers") == config_key_find("providers")->def)
			sim_notice(s);
	}
	s->backends_ready = true;
	return GR_OK;
}

enum gr_err
session_backend_for(struct session *s, const char *id, struct backend **out,
    struct gr_error *err)
{
	char provider[PROVIDER_MAX];
	size_t i;

	if (!backend_split_id(id, provider, sizeof(provider), NULL))
		return gr_fail(err, GR_EUSAGE, "'%s' is not an id: ids look like 'sim:i-000001' "
		    "or 'vast:123'", id);
	if (session_config(s, &s->config, err) != GR_OK)
		return err->code;
	if (backend_find_ops(provider) == NULL)
		return gr_fail(err, GR_ENOTFOUND, "no provider '%s' for id '%s'", provider, id);
	if (add_backend(s, provider, err) != GR_OK)
		return err->code;
	for (i = 0; i < s->n_backends; i++)
		if (strcmp(s->backends[i]->ops->name, provider) == 0) {
			if (!s->backends[i]->ready) {
				*err = s->backends[i]->init_err;
				return err->code;
			}
			*out = s->backends[i];
			return GR_OK;
		}
	return gr_fail(err, GR_ENOTFOUND, "no provider '%s'", provider);
}

enum gr_err
session_offer_find(struct session *s, const char *offer_id, struct offer *out,
    struct gr_error *err)
{
	struct offer_list l;
	struct filter f;
	struct backend *b;
	bool pushed, found = false;
	size_t i;
	int pass;
	enum gr_err rc = GR_OK;

	if (session_backend_for(s, offer_id, &b, err) != GR_OK)
		return err->code;
	/* A provider asked with no filter lists its on-demand offers (vast, RunPod, PPIO):
	   an interruptible offer is looked for among the interruptible ones next, a term
	   among the terms last. */
	for (pass = 0; pass < 3 && rc == GR_OK && !found; pass++) {
		memset(&f, 0, sizeof(f));
		if (pass > 0 && filter_parse_str(&f, pass == 1 ? "type=interruptible" :
		    "type=reserved", err) != GR_OK)
			return err->code;
		offer_list_init(&l);
		rc = b->ops->offers(b, &f, &l, &pushed, err);
		for (i = 0; rc == GR_OK && i < l.n && !found; i++)
			if (strcmp(l.v[i].id, offer_id) == 0) {
				*out = l.v[i];
				found = true;
			}
		offer_list_release(&l);
	}
	/*
	 * No provider tells a rented offer from one that never was: either way it is not on
	 * the market, the race a parallel launch loses (exit 7, search again).
	 */
	if (rc == GR_OK && !found)
		rc = gr_fail(err, GR_ECAPACITY, "offer '%s' is not on the market (rented by "
		    "someone else, or gone); search again", offer_id);
	return rc;
}

/* The jobs of one fan-out still running, for the note that says who is waited for. */
struct fan_wait {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t left;
};

struct job {
	struct backend *b;
	const struct filter *f;
	bool want_offers;
	struct offer_list offers;
	struct instance_list instances;
	struct fanout_result *res;
	struct fan_wait *wait;	/* NULL: nobody is told */
	bool done;		/* under wait->mu */
};

/* The query a backend is asked, as the offer cache keys it: every term of the filter. */
static void
query_key(const struct filter *f, struct sb *out)
{
	size_t i, k;

	sb_adds(out, "v1");
	for (i = 0; f != NULL && i < f->n; i++) {
		const struct filter_term *t = &f->t[i];

		sb_addf(out, ";%s/%d", filter_field_name(t->field), (int)t->op);
		for (k = 0; k < t->n && k < FILTER_MAX_VALUES; k++)
			sb_addf(out, ",%lld:%s", (long long)t->num[k], t->str[k]);
	}
}

struct fingerprint {
	const char *provider;
	const char *profile;
	uint64_t h;
};

static void
fingerprint_add(struct fingerprint *fp, const char *s)
{
	for (; *s != '\0'; s++)
		fp->h = (fp->h ^ (unsigned char)*s) * 0x100000001b3ULL;	/* FNV-1a */
	fp->h = (fp->h ^ 0xff) * 0x100000001b3ULL;
}

static void
fingerprint_entry(const char *profile, const char *key, const char *value, void *ctx)
{
	struct fingerprint *fp = ctx;
	size_t n = strlen(fp->provider);

	if (profile != NULL && (fp->profile == NULL || strcmp(profile, fp->profile) != 0))
		return;
	if (strncmp(key, fp->provider, n) != 0 || key[n] != '.')
		return;
	fingerprint_add(fp, profile != NULL ? profile : "");
	fingerprint_add(fp, key);
	fingerprint_add(fp, value);
}

/*
 * What the offer cache files a provider's answers under: its URL from the environment and
 * its keys in the config (the profile's and the top level's). When it changes, the
 * provider's cached answers are dropped.
 */
static void
provider_config(struct session *s, const char *name, char *out, size_t n)
{
	struct fingerprint fp = { name, s->profile, 0xcbf29ce484222325ULL };
	const char *url = provider_env(name, "URL", false);

	fingerprint_add(&fp, s->profile != NULL ? s->profile : "");
	fingerprint_add(&fp, url != NULL ? url : "");
	if (s->config != NULL)
		config_each(s->config, fingerprint_entry, &fp);
	snprintf(out, n, "%016llx", (unsigned long long)fp.h);
}

static void *
run_job(void *arg)
{
	struct job *j = arg;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	j->res->b = j->b;
	j->res->pushed_all = true;
	if (!j->b->ready) {
		j->res->err = j->b->init_err;
		j->res->code = j->b->init_err.code ? j->b->init_err.code : GR_EFAIL;
	} else if (j->want_offers)
		j->res->code = j->b->ops->offers(j->b, j->f, &j->offers, &j->res->pushed_all,
		    &j->res->err);
	else
		j->res->code = observed_instances(j->b, &j->instances, &j->res->err);
	if (j->want_offers && j->res->code == GR_OK) {
		size_t i;

		j->res->fetched_at = (int64_t)time(NULL);
		for (i = 0; i < j->offers.n; i++)
			j->offers.v[i].fetched_at = j->res->fetched_at;
	}
	if (j->res->code != GR_OK && j->res->err.msg[0] == '\0')
		gr_fail(&j->res->err, j->res->code, "%s", gr_err_name(j->res->code));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	j->res->seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (j->wait != NULL) {
		pthread_mutex_lock(&j->wait->mu);
		j->done = true;
		j->wait->left--;
		pthread_cond_broadcast(&j->wait->cv);
		pthread_mutex_unlock(&j->wait->mu);
	}
	return NULL;
}

/* After this long a fan-out says on stderr which providers it still waits for. */
#define WAIT_NOTE_AFTER_S 2

/*
 * Wait for the started jobs; from WAIT_NOTE_AFTER_S on, a line on stderr, redrawn each
 * second, names the providers not yet answered (and those that have), cleared once all
 * have: a provider that hangs no longer looks like gpurent hanging.
 */
static void
wait_noting(struct job *jobs, const bool *started, size_t n, struct fan_wait *w)
{
	struct timespec t0, t, until;
	bool drawn = false;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_mutex_lock(&w->mu);
	while (w->left > 0) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&w->cv, &w->mu, &until);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (w->left == 0 || t.tv_sec - t0.tv_sec < WAIT_NOTE_AFTER_S)
			continue;
		{
			struct sb waiting, answered;

			sb_init(&waiting);
			sb_init(&answered);
			for (i = 0; i < n; i++) {
				struct sb *to = !started[i] || jobs[i].done ? &answered : &waiting;

				sb_addf(to, "%s%s", to->len ? ", " : "", jobs[i].b->ops->name);
			}
			fputs("\r\033[K", stderr);
			if (answered.len > 0)
				fprintf(stderr, _("gpurent: waiting for %s (%llds; %s answered)"),
				    waiting.buf, (long long)(t.tv_sec - t0.tv_sec), answered.buf);
			else
				fprintf(stderr, _("gpurent: waiting for %s (%llds)"), waiting.buf,
				    (long long)(t.tv_sec - t0.tv_sec));
			fflush(stderr);
			drawn = true;
			sb_release(&waiting);
			sb_release(&answered);
		}
	}
	pthread_mutex_unlock(&w->mu);
	if (drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

/*
 * max_age_s >= 0: a provider whose answer to f is in the offer cache, no older than that,
 * is answered from there. Fresh answers are kept in the cache.
 */
static enum gr_err
fanout(struct session *s, const struct filter *f, bool offers, long long max_age_s,
    struct offer_list *oout, struct instance_list *iout, struct fanout_result *results,
    struct gr_error *err)
{
	struct job jobs[SESSION_MAX_PROVIDERS];
	pthread_t th[SESSION_MAX_PROVIDERS];
	bool started[SESSION_MAX_PROVIDERS], asked[SESSION_MAX_PROVIDERS];
	char configs[SESSION_MAX_PROVIDERS][20];
	struct state *st = NULL;
	struct fan_wait wait = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	struct sb query;
	size_t i, ok = 0;
	enum gr_err first = GR_OK;

	if (session_backends(s, err) != GR_OK)
		return err->code;
	sb_init(&query);
	if (offers) {
		query_key(f, &query);
		if (session_state(s, &st, NULL) != GR_OK)
			st = NULL;	/* no cache: every provider is asked */
	}
	memset(jobs, 0, sizeof(jobs));
	for (i = 0; i < s->n_backends; i++) {
		memset(&results[i], 0, sizeof(results[i]));
		jobs[i].b = s->backends[i];
		jobs[i].f = f;
		jobs[i].want_offers = offers;
		jobs[i].res = &results[i];
		offer_list_init(&jobs[i].offers);
		instance_list_init(&jobs[i].instances);
		asked[i] = true;
		if (st != NULL) {
			const char *name = s->backends[i]->ops->name;

			provider_config(s, name, configs[i], sizeof(configs[i]));
			if (max_age_s >= 0 && s->backends[i]->ready &&
			    offer_cache_get(st, name, configs[i], query.buf, (int64_t)time(NULL),
			    max_age_s, &jobs[i].offers, &results[i].fetched_at)) {
				results[i].b = s->backends[i];
				results[i].code = GR_OK;
				results[i].pushed_all = true;
				results[i].from_cache = true;
				asked[i] = false;
			}
		}
	}
	/*
	 * One provider needs no thread unless a wait is to be told; several run at once, so
	 * the slowest sets the pace.
	 */
	for (i = 0; i < s->n_backends; i++) {
		started[i] = false;
		if (!asked[i] || (s->n_backends == 1 && !s->say_waits))
			continue;
		pthread_mutex_lock(&wait.mu);
		wait.left++;
		pthread_mutex_unlock(&wait.mu);
		jobs[i].wait = &wait;
		started[i] = pthread_create(&th[i], NULL, run_job, &jobs[i]) == 0;
		if (!started[i]) {
			/* run below, on this thread, as if alone */
			jobs[i].wait = NULL;
			pthread_mutex_lock(&wait.mu);
			wait.left--;
			pthread_mutex_unlock(&wait.mu);
		}
	}
	if (s->say_waits)
		wait_noting(jobs, started, s->n_backends, &wait);
	for (i = 0; i < s->n_backends; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else if (asked[i])
			run_job(&jobs[i]);
	}
	pthread_cond_destroy(&wait.cv);
	pthread_mutex_destroy(&wait.mu);
	/* Fresh answers are kept for the next `--max-age`, completion and the dashboard. */
	for (i = 0; st != NULL && i < s->n_backends; i++)
		if (asked[i] && results[i].code == GR_OK)
			offer_cache_put(st, s->backends[i]->ops->name, configs[i], query.buf,
			    results[i].fetched_at, jobs[i].offers.v, jobs[i].offers.n, NULL);
	sb_release(&query);
	for (i = 0; i < s->n_backends; i++) {
		results[i].count = offers ? jobs[i].offers.n : jobs[i].instances.n;
		if (results[i].code == GR_OK) {
			ok++;
			if (offers && oout->n == 0 && oout->v == NULL) {
				/* The first list is taken over, not copied. */
				*oout = jobs[i].offers;
				offer_list_init(&jobs[i].offers);
			} else if (offers)
				offer_list_append(oout, &jobs[i].offers);
			else {
				size_t k;

				for (k = 0; k < jobs[i].instances.n; k++)
					*instance_list_add(iout) = jobs[i].instances.v[k];
			}
		} else if (first == GR_OK) {
			first = results[i].code;
			gr_fail(err, first, "%s: %s", s->backends[i]->ops->name,
			    results[i].err.msg);
		}
		offer_list_release(&jobs[i].offers);
		instance_list_release(&jobs[i].instances);
	}
	if (first == GR_OK)
		return GR_OK;
	if (ok > 0) {
		err->code = GR_EPARTIAL;
		return GR_EPARTIAL;
	}
	return first;
}

enum gr_err
session_offers(struct session *s, const struct filter *f, struct offer_list *out,
    struct fanout_result *results, struct gr_error *err)
{
	return fanout(s, f, true, -1, out, NULL, results, err);
}

enum gr_err
session_offers_aged(struct session *s, const struct filter *f, long long max_age_s,
    struct offer_list *out, struct fanout_result *results, struct gr_error *err)
{
	return fanout(s, f, true, max_age_s, out, NULL, results, err);
}

enum gr_err
session_instances(struct session *s, struct instance_list *out, struct fanout_result *results,
    struct gr_error *err)
{
	return fanout(s, NULL, false, -1, NULL, out, results, err);
}

bool
session_offers_stamp(struct session *s, const struct filter *f, uint64_t *out)
{
	struct gr_error err = { 0 };
	uint64_t h = 0, one;
	size_t i;

	if (session_backends(s, &err) != GR_OK)
		return false;
	for (i = 0; i < s->n_backends; i++) {
		struct backend *b = s->backends[i];

		if (!b->ready || b->ops->offers_stamp == NULL ||
		    b->ops->offers_stamp(b, f, &one, &err) != GR_OK)
			return false;
		h = hash_mix(h, one);
	}
	*out = h;
	return true;
}

int64_t
session_now(struct session *s)
{
	struct state *st;
	struct sim *sim;
	int64_t now = (int64_t)time(NULL);
	size_t i;
	bool uses_sim = false;

	for (i = 0; i < s->n_backends; i++)
		if (strcmp(s->backends[i]->ops->name, "sim") == 0)
			uses_sim = true;
	if ((uses_sim || s->n_backends == 0) && session_sim_state(s, &st, NULL) == GR_OK &&
	    sim_open(&sim, st, NULL) == GR_OK) {
		now = sim_now(sim);
		sim_close(sim);
	}
	return now;
}

int64_t
session_now_of(struct session *s, const char *id)
{
	struct cost_clock clk;
	char provider[PROVIDER_MAX];

	session_clock(s, &clk);
	if (!backend_split_id(id, provider, sizeof(provider), NULL))
		return clk.wall;
	return cost_clock_now(&clk, provider);
}

void
session_clock(struct session *s, struct cost_clock *out)
{
	struct state *st;
	struct sim *sim;
	char buf[32];
	size_t i;

	out->wall = (int64_t)time(NULL);
	out->sim = out->wall;
	out->sim_rate = 1;
	out->sim_shown = s->n_backends == 0;
	for (i = 0; i < s->n_backends; i++)
		if (strcmp(s->backends[i]->ops->name, COST_SIM_PROVIDER) == 0)
			out->sim_shown = true;
	/* Only a world that exists has a clock; opening one would create it. */
	if (session_sim_state(s, &st, NULL) == GR_OK &&
	    state_meta_get(st, "sim.epoch", buf, sizeof(buf)) &&
	    sim_open(&sim, st, NULL) == GR_OK) {
		out->sim = sim_time_at(sim, out->wall);
		out->sim_rate = sim_pace(sim);
		sim_close(sim);
	}
}

enum gr_err
session_launch(struct backend *b, const struct launch_req *req, struct instance *out,
    struct gr_error *err)
{
	return observed_launch(b, req, out, err);
}

enum gr_err
session_start(struct backend *b, const char *id, struct gr_error *err)
{
	return observed_start(b, id, err);
}
