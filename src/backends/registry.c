/*
 * The providers compiled in: an explicit array, so nothing depends on the linker keeping
 * self-registering objects alive in a static library.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/backend.h"
#include "gpurent/i18n.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

extern const struct backend_ops backend_sim;
extern const struct backend_ops backend_vast;
extern const struct backend_ops backend_runpod;
extern const struct backend_ops backend_lambda;
extern const struct backend_ops backend_ppio;
extern const struct backend_ops backend_slurm;

static const struct backend_ops *const registry[] = {
	&backend_sim,
	&backend_vast,
	&backend_runpod,
	&backend_lambda,
	&backend_ppio,
	&backend_slurm,
};

const struct backend_ops *const *
backend_registry(size_t *n)
{
	*n = ARRAY_LEN(registry);
	return registry;
}

const struct backend_ops *
backend_find_ops(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(registry); i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

/* A backend's own database connection, opened when first needed. */
struct backend_db {
	pthread_mutex_t lock;
	char *path;
	struct state *st;
};

static struct backend_db *
backend_db_new(const char *path)
{
	struct backend_db *db = xcalloc(1, sizeof(*db));

	pthread_mutex_init(&db->lock, NULL);
	db->path = xstrdup(path);
	return db;
}

static void
backend_db_free(struct backend_db *db)
{
	if (db == NULL)
		return;
	state_close(db->st);
	free(db->path);
	pthread_mutex_destroy(&db->lock);
	free(db);
}

/* The connection, opened on the first call; NULL (err set when given) when it cannot be. */
static struct state *
backend_db_open(struct backend_db *db, struct gr_error *err)
{
	struct gr_error quiet = { 0 };
	struct state *st;

	pthread_mutex_lock(&db->lock);
	if (db->st == NULL && state_open(&db->st, db->path, err ? err : &quiet) != GR_OK)
		db->st = NULL;
	st = db->st;
	pthread_mutex_unlock(&db->lock);
	return st;
}

struct backend *
backend_create(const struct backend_ops *ops, const struct backend_env *env)
{
	struct backend *b = xcalloc(1, sizeof(*b));

	b->ops = ops;
	b->env = *env;
	if (b->env.name == NULL)
		b->env.name = ops->name;
	if (env->state == NULL && env->db_path != NULL) {
		b->db = backend_db_new(env->db_path);
		b->env.db_path = b->db->path;
	}
	if (env->state == NULL && env->store == NULL && env->store_url != NULL) {
		b->store = backend_db_new(env->store_url);
		b->env.store_url = b->store->path;
	}
	b->priv = ops->priv_size ? xcalloc(1, ops->priv_size) : NULL;
	if (ops->init == NULL || ops->init(b, &b->init_err) == GR_OK)
		b->ready = true;
	return b;
}

void
backend_destroy(struct backend *b)
{
	if (b == NULL)
		return;
	if (b->ops->cleanup != NULL)
		b->ops->cleanup(b);
	free(b->priv);
	backend_db_free(b->db);
	backend_db_free(b->store);
	free(b);
}

struct state *
backend_state(const struct backend *b, struct gr_error *err)
{
	if (b->env.state != NULL)
		return b->env.state;
	if (b->db == NULL) {
		if (err != NULL)
			gr_fail(err, GR_ESTATE, "no state database");
		return NULL;
	}
	return backend_db_open(b->db, err);
}

struct state *
backend_store(const struct backend *b, struct gr_error *err)
{
	if (b->env.store != NULL)
		return b->env.store;
	return b->store != NULL ? backend_db_open(b->store, err) : backend_state(b, err);
}

bool
backend_split_id(const char *id, char *provider, size_t n, const char **rest)
{
	const char *colon = strchr(id, ':');

	if (colon == NULL || colon == id || colon[1] == '\0' || (size_t)(colon - id) >= n)
		return false;
	memcpy(provider, id, (size_t)(colon - id));
	provider[colon - id] = '\0';
	if (rest != NULL)
		*rest = colon + 1;
	return true;
}

static const struct {
	unsigned cap;
	const char *need;
} cap_words[] = {
	{ CAP_STOP, N_("stop or start an instance (only destroy it)") },
	{ CAP_METRICS, N_("report GPU metrics") },
	{ CAP_INTERRUPTIBLE, N_("rent interruptible instances") },
	{ CAP_ACCOUNT, N_("report the account balance") },
	{ CAP_SSH, N_("report an ssh endpoint") },
	{ CAP_COST, N_("report per-instance cost") },
	{ CAP_ALLOC, N_("size an allocation (--count, --nodes, --max-runtime)") },
	{ CAP_CLUSTER, N_("show a cluster's partitions and jobs (it is not a cluster)") },
};

enum gr_err
backend_require(const struct backend_ops *ops, unsigned cap, const char *what,
    struct gr_error *err)
{
	size_t i;

	if ((ops->caps & cap) == cap)
		return GR_OK;
	if ((cap & CAP_STOP) && !(ops->caps & CAP_STOP) && ops->no_stop_why != NULL)
		return gr_fail(err, GR_EUNSUPPORTED, "'%s' cannot stop or start an instance: %s%s%s",
		    ops->name, _(ops->no_stop_why), what ? ": " : "", what ? what : "");
	for (i = 0; i < ARRAY_LEN(cap_words); i++)
		if (cap & cap_words[i].cap)
			return gr_fail(err, GR_EUNSUPPORTED, "'%s' cannot %s%s%s", ops->name,
			    _(cap_words[i].need), what ? ": " : "", what ? what : "");
	return gr_fail(err, GR_EUNSUPPORTED, "'%s' cannot do that", ops->name);
}
