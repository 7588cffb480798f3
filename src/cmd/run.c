/*
 * gpurent run: a job on an instance that outlives the connection.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/i18n.h"
#include "gpurent/managed.h"
#include "gpurent/money.h"
#include "gpurent/util.h"
#include "common.h"
#include "batch.h"

#define RUN_MAX_LIST 64

struct run_args {
	const char *provider, *gpu, *partition;
	long long count, nodes, max_runtime;
	bool force;
	const char *sync, *name, *then;
	bool detach;
	const char *excludes[RUN_MAX_LIST], *env[RUN_MAX_LIST], *fetch[RUN_MAX_LIST];
	size_t n_excludes, n_env, n_fetch;
	/* run --managed */
	bool managed, interruptible, retry_on_exit;
	const char *ckpt_dir, *attach, *on_exhausted;
	char store_id[ID_MAX];
	const char *store_path;		/* --store ID:PATH; NULL none */
	long long every, grace, max_attempts;
	int64_t max_price;	/* -1 none */
	char max_currency[CURRENCY_MAX];
};

enum { R_EXCLUDE = 1, R_ENV, R_FETCH, R_THEN, R_COUNT, R_NODES, R_MAX_RUNTIME, R_MAX_PRICE,
	R_MAX_ATTEMPTS, R_ON_EXHAUSTED, R_STORE };

static const struct cmd_opt opts[] = {
	{ "sync", 0, "DIR", N_("copy DIR into the job's working directory first"), OPT_AT(struct run_args, sync), CPL_FILE, OPT_STR },
	{ "exclude", 0, "PATTERN", N_("leave out of --sync files matching PATTERN (repeatable)"), R_EXCLUDE, CPL_NONE, OPT_REPEAT },
	{ "env", 0, "K=V", N_("set K to V in the job's environment (repeatable)"), R_ENV, CPL_NONE, OPT_REPEAT },
	{ "name", 0, "NAME", N_("a name for the job (shown by 'gpurent jobs')"), OPT_AT(struct run_args, name), CPL_NONE, OPT_STR },
	{ "detach", 'd', NULL, N_("start the job, print its id and return"), OPT_AT(struct run_args, detach), CPL_NONE, OPT_TRUE },
	{ "fetch", 0, "PATH[:DIR]", N_("copy PATH back into DIR (default .) when the job ends (repeatable)"), R_FETCH, CPL_NONE, OPT_REPEAT },
	{ "then", 0, "ACTION", N_("stop or destroy the instance once the job ended and its fetches succeeded"), R_THEN, CPL_NONE, 0 },
	{ "provider", 0, "NAME", N_("submit a batch job to this cluster (slurm) instead of an instance"), OPT_AT(struct run_args, provider), CPL_PROVIDER, OPT_STR },
	{ "gpu", 0, "TYPE", N_("with --provider: the GPU (GRES) type, such as h100"), OPT_AT(struct run_args, gpu), CPL_NONE, OPT_STR },
	{ "partition", 0, "NAME", N_("with --provider: the partition (default: the cluster's)"), OPT_AT(struct run_args, partition), CPL_NONE, OPT_STR },
	{ "count", 0, "N", N_("with --provider: GPUs per node (default 1)"), R_COUNT, CPL_NONE, 0 },
	{ "nodes", 0, "N", N_("with --provider: nodes, CMD once on each (default 1)"), R_NODES, CPL_NONE, 0 },
	{ "max-runtime", 0, "DURATION", N_("with --provider: the job's time limit, such as 90m"), R_MAX_RUNTIME, CPL_NONE, 0 },
	{ "force", 'f', NULL, N_("with --provider: submit even when a budget would be exceeded"), OPT_AT(struct run_args, force), CPL_NONE, OPT_TRUE },
	{ "managed", 0, NULL, N_("rent by requirement (--gpu, --count) and keep the job going across machines"), OPT_AT(struct run_args, managed), CPL_NONE, OPT_TRUE },
	{ "max-price", 0, "PRICE", N_("with --managed: at most this much per hour, all in, for every machine"), R_MAX_PRICE, CPL_NONE, 0 },
	{ "interruptible", 0, NULL, N_("with --managed: interruptible (spot) machines"), OPT_AT(struct run_args, interruptible), CPL_NONE, OPT_TRUE },
	{ "checkpoint-dir", 0, "DIR", N_("with --managed: the job's checkpoint directory, in its working directory"), OPT_AT(struct run_args, ckpt_dir), CPL_NONE, OPT_STR },
	{ "every", 0, "DURATION", N_("with --managed: pull a checkpoint this often (default 5m)"), OPT_AT(struct run_args, every), CPL_NONE, OPT_INTERVAL },
	{ "store", 0, "ID:PATH", N_("with --managed: keep the checkpoints in PATH on instance ID too, restored from there"), R_STORE, CPL_INSTANCE, 0 },
	{ "max-attempts", 0, "N", N_("with --managed: machines to try the job on at most (default 10)"), R_MAX_ATTEMPTS, CPL_NONE, 0 },
	{ "grace", 0, "DURATION", N_("with --managed: how long ssh may fail while the provider says running (default 3m)"), OPT_AT(struct run_args, grace), CPL_NONE, OPT_INTERVAL },
	{ "retry-on-exit", 0, NULL, N_("with --managed: a command that exits non-zero is recovered too"), OPT_AT(struct run_args, retry_on_exit), CPL_NONE, OPT_TRUE },
	{ "on-exhausted", 0, "ACTION", N_("with --managed: wait or fail when no candidate is left (default wait)"), R_ON_EXHAUSTED, CPL_NONE, 0 },
	{ "attach", 0, "JOB", N_("drive the managed job JOB from here (after a detach)"), OPT_AT(struct run_args, attach), CPL_NONE, OPT_STR },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

/* A name the remote shell takes as a variable: [A-Za-z_][A-Za-z0-9_]*. */
static bool
env_name_ok(const char *kv)
{
	const char *eq = strchr(kv, '=');
	const char *p;

	if (eq == NULL || eq == kv || (kv[0] >= '0' && kv[0] <= '9'))
		return false;
	for (p = kv; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

static int
add_item(struct cmd_ctx *c, const char **list, size_t *n, const char *arg, const char *what)
{
	if (*n == RUN_MAX_LIST)
		return cmd_usage_error(c, "at most %d %s", RUN_MAX_LIST, _(what));
	list[(*n)++] = arg;
	return 0;
}

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct run_args *a = data;
	const char *colon;

	switch (id) {
	case R_EXCLUDE:
		return add_item(c, a->excludes, &a->n_excludes, arg, N_("--exclude patterns"));
	case R_ENV:
		if (!env_name_ok(arg))
			return cmd_usage_error(c, "--env wants NAME=VALUE with a NAME of letters, "
			    "digits and _, not '%s'", arg);
		return add_item(c, a->env, &a->n_env, arg, N_("--env assignments"));
	case R_FETCH:
		if (arg[0] == '\0' || arg[0] == ':')
			return cmd_usage_error(c, "--fetch wants REMOTE_PATH[:LOCAL_DIR]");
		return add_item(c, a->fetch, &a->n_fetch, arg, N_("--fetch paths"));
	case R_COUNT:
	case R_NODES:
		if (!parse_int(arg, 1, 4096, id == R_COUNT ? &a->count : &a->nodes))
			return cmd_usage_error(c, "--%s wants a number from 1 to 4096, not '%s'",
			    id == R_COUNT ? "count" : "nodes", arg);
		break;
	case R_STORE:
		/* An id is PROVIDER:NAME: the path follows the next colon. */
		colon = strchr(arg, ':');
		colon = colon != NULL ? strchr(colon + 1, ':') : NULL;
		if (colon == NULL || colon[1] == '\0' || (size_t)(colon - arg) >= sizeof(a->store_id))
			return cmd_usage_error(c, "--store wants ID:PATH (an instance, a path on "
			    "it), not '%s'", arg);
		snprintf(a->store_id, sizeof(a->store_id), "%.*s", (int)(colon - arg), arg);
		a->store_path = colon + 1;
		break;
	case R_MAX_RUNTIME:
		if ((a->max_runtime = parse_duration(arg)) <= 0)
			return cmd_usage_error(c, "--max-runtime needs a duration such as 3600, 90m "
			    "or 4h, not '%s'", arg);
		break;
	case R_MAX_PRICE:
		if (!money_parse_in(arg, &a->max_price, a->max_currency) || a->max_price <= 0)
			return cmd_usage_error(c, "--max-price needs a price per hour such as 2.5 "
			    "or '90 CNY', not '%s'", arg);
		break;
	case R_MAX_ATTEMPTS:
		if (!parse_int(arg, 1, 1000, &a->max_attempts))
			return cmd_usage_error(c, "--max-attempts wants a number from 1 to 1000, not "
			    "'%s'", arg);
		break;
	case R_ON_EXHAUSTED:
		if (strcmp(arg, "wait") != 0 && strcmp(arg, "fail") != 0)
			return cmd_usage_error(c, "--on-exhausted takes wait or fail, not '%s'", arg);
		a->on_exhausted = arg;
		break;
	case R_THEN:
		if (strcmp(arg, "stop") != 0 && strcmp(arg, "destroy") != 0)
			return cmd_usage_error(c, "--then takes stop or destroy, not '%s'", arg);
		a->then = arg;
		break;
	}
	return 0;
}

/* The patterns of DIR/.gpurentignore (one a line; blank lines and # comments skipped),
 * added to the excludes. Returns 0 or a usage status. */
static int
read_ignore(struct cmd_ctx *c, struct run_args *a, char lines[][512], size_t max)
{
	char path[4200], line[512];
	size_t used = 0;
	FILE *fp;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/.gpurentignore", a->sync);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	while (rc == 0 && fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (used == max) {
			rc = cmd_usage_error(c, "%s has more than %zu patterns", path, max);
			break;
		}
		strlcpy_(lines[used], line, sizeof(lines[used]));
		rc = add_item(c, a->excludes, &a->n_excludes, lines[used++],
		    N_("--exclude patterns"));
	}
	fclose(fp);
	return rc;
}

/* REMOTE\0LOCAL_DIR\0 for each --fetch, LOCAL_DIR absolute (a later gpurent may fetch). */
static enum gr_err
fetch_list(const struct run_args *a, struct remote_job *j, struct gr_error *err)
{
	char cwd[4096], spec[4200], local[8400];
	const char *colon, *dir;
	size_t i, need;

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return gr_fail(err, GR_EFAIL, "cannot tell the current directory");
	for (i = 0; i < a->n_fetch; i++) {
		strlcpy_(spec, a->fetch[i], sizeof(spec));
		/* The last colon splits, so a remote path may hold colons when a DIR is given. */
		colon = strrchr(spec, ':');
		dir = ".";
		if (colon != NULL) {
			spec[colon - spec] = '\0';
			dir = colon + 1;
		}
		if (dir[0] == '/')
			snprintf(local, sizeof(local), "%s", dir);
		else
			snprintf(local, sizeof(local), "%s/%s", cwd, dir);
		need = strlen(spec) + 1 + strlen(local) + 1;
		if (j->fetch_len + need > sizeof(j->fetch))
			return gr_fail(err, GR_EUSAGE, "the --fetch paths are too long together");
		memcpy(j->fetch + j->fetch_len, spec, strlen(spec) + 1);
		memcpy(j->fetch + j->fetch_len + strlen(spec) + 1, local, strlen(local) + 1);
		j->fetch_len += need;
	}
	return GR_OK;
}

/* Follow the job's log to its end, then its state, fetches and --then. */
static int
attach(struct cmd_ctx *c, struct state *st, const struct remote_endpoint *ep,
    const struct remote_job *j)
{
	struct gr_error err = { 0 };
	struct remote_job *v = NULL;
	size_t n, i;
	int rc;

	rc = remote_job_log(ep, j->seq, -1, true, &err);
	fflush(stdout);
	if (rc == 128 + 2 || rc == 128 + 15 || rc == 128 + 1) {
		cmd_warn("detached from %s; it runs on. 'gpurent logs %s --follow' reattaches",
		    j->id, j->id);
		return 130;
	}
	if (rc != 0) {
		cmd_error(c, &err);
		cmd_warn("%s may still run: 'gpurent logs %s --follow' reattaches", j->id, j->id);
		return rc == REMOTE_EXIT_CONN ? REMOTE_EXIT_CONN : rc;
	}
	if (!jobs_refresh(c->s, st, j->instance_id))
		return REMOTE_EXIT_CONN;
	if (remote_job_load(st, j->instance_id, &v, &n, &err) != GR_OK)
		return cmd_error(c, &err);
	rc = 1;
	for (i = 0; i < n; i++)
		if (strcmp(v[i].id, j->id) == 0) {
			rc = job_exit_status(&v[i]);
			/* The job succeeded but what it asked for afterwards did not. */
			if (rc == 0 && v[i].after == JOB_AFTER_FAILED)
				rc = 1;
		}
	free(v);
	return rc;
}

/* run --provider P -- COMMAND: a batch job of the cluster's scheduler. */
static int
run_batch(struct cmd_ctx *c, struct run_args *a, char **argv, int n)
{
	struct batch_req r;
	const char *env[RUN_MAX_LIST + 1];
	size_t i;

	if (n < 1)
		return cmd_usage_error(c, "which command? run --provider %s -- COMMAND...",
		    a->provider);
	if (a->gpu == NULL)
		return cmd_usage_error(c, "a batch job wants --gpu TYPE (such as h100)");
	if (a->sync || a->n_fetch || a->then)
		return cmd_usage_error(c, "--sync, --fetch and --then are for a job on an "
		    "instance; a batch job runs in the cluster's slurm.workdir");
	for (i = 0; i < a->n_env; i++)
		env[i] = a->env[i];
	env[a->n_env] = NULL;
	memset(&r, 0, sizeof(r));
	r.provider = a->provider;
	r.partition = a->partition;
	r.gpu = a->gpu;
	r.gpus_per_node = a->count > 0 ? (int)a->count : 1;
	r.nodes = a->nodes > 0 ? (int)a->nodes : 1;
	r.max_runtime_s = a->max_runtime;
	r.name = a->name;
	r.env = env;
	r.detach = a->detach;
	r.force = a->force;
	return batch_submit(c, &r, argv, n);
}

/* Sleep a second, or less when interrupted (Ctrl-C detaches). */
static void
pause_round(void)
{
	struct timespec left = { 1, 0 };

	while (!cmd_interrupted && nanosleep(&left, &left) != 0 && errno == EINTR)
		;
}

/*
 * Drive managed job id from here until it ends (its exit status: 0 done, the command's
 * when it exited non-zero, else 1) or Ctrl-C detaches (130; the lease is given up, for
 * 'gpurent watch' to take).
 */
static int
drive(struct cmd_ctx *c, const char *id)
{
	struct gr_error err = { 0 };
	struct managed_job j;
	enum managed_turn turn = MT_LIVE;
	struct state *st;
	char holder[300];
	bool told = false;

	managed_holder(holder, sizeof(holder));
	cmd_warn("driving managed job %s; Ctrl-C detaches ('gpurent watch' drives it then)", id);
	while (!cmd_interrupted) {
		err = (struct gr_error){ 0 };
		if (managed_round(c->s, id, holder, stderr, &turn, &err) != GR_OK)
			return cmd_error(c, &err);
		if (turn == MT_ENDED)
			break;
		if (turn == MT_HELD && !told)
			cmd_warn("another controller drives %s; watching", id);
		told = turn == MT_HELD;
		pause_round();
	}
	if (turn != MT_ENDED) {
		managed_release(c->s, id, holder);
		cmd_warn("detached from %s; it goes on. 'gpurent run --attach %s' drives it again",
		    id, id);
		return 130;
	}
	if (session_state(c->s, &st, &err) != GR_OK || managed_job_get(st, id, &j, &err) != GR_OK)
		return cmd_error(c, &err);
	if (j.state == MJ_DONE)
		return finish_output(c, 0);
	if (j.state == MJ_CANCELLED)
		cmd_warn("%s was cancelled", id);
	return finish_output(c, j.exit_code > 0 ? j.exit_code : 1);
}

/* run --managed: a job by requirement that outlives its machines (managed.h). */
static int
run_managed(struct cmd_ctx *c, struct run_args *a, char **argv, int n)
{
	struct gr_error err = { 0 };
	struct managed_request r;
	struct remote_job fetch;
	char providers[512] = "", id[MANAGED_ID_MAX];
	size_t i, len;

	if (a->attach != NULL) {
		if (n > 0 || a->managed)
			return cmd_usage_error(c, "--attach JOB takes no command and no --managed");
		return drive(c, a->attach);
	}
	if (a->provider || a->partition || a->nodes || a->max_runtime || a->force)
		return cmd_usage_error(c, "--provider, --partition, --nodes, --max-runtime and "
		    "--force are for a batch job, not --managed");
	if (a->gpu == NULL || a->ckpt_dir == NULL || n < 1)
		return cmd_usage_error(c, "run --managed --gpu GPU --checkpoint-dir DIR [OPTIONS] "
		    "-- COMMAND...");
	if (a->ckpt_dir[0] == '\0' || a->ckpt_dir[0] == '/' || strstr(a->ckpt_dir, "..") != NULL)
		return cmd_usage_error(c, "--checkpoint-dir is a directory inside the job's working "
		    "directory, not '%s'", a->ckpt_dir);
	if (a->n_excludes > 0 && a->sync == NULL)
		return cmd_usage_error(c, "--exclude belongs to --sync");
	memset(&fetch, 0, sizeof(fetch));
	if (fetch_list(a, &fetch, &err) != GR_OK)
		return cmd_error(c, &err);
	/* -p keeps every attempt on those providers, whoever drives the job later. */
	for (i = 0; i < c->s->n_providers; i++) {
		len = strlen(providers);
		snprintf(providers + len, sizeof(providers) - len, "%s%s", len ? "," : "",
		    c->s->providers[i]);
	}
	memset(&r, 0, sizeof(r));
	r.name = a->name;
	r.gpu = a->gpu;
	r.count = a->count > 0 ? (int)a->count : 1;
	r.interruptible = a->interruptible;
	r.providers = providers;
	r.max_price = a->max_price;
	r.max_currency = a->max_currency;
	r.sync = a->sync;
	r.excludes = a->excludes;
	r.n_excludes = a->n_excludes;
	r.ckpt_dir = a->ckpt_dir;
	r.every_s = a->every > 0 ? a->every : 300;
	r.store_id = a->store_path != NULL ? a->store_id : NULL;
	r.store_path = a->store_path;
	r.fetch = fetch.fetch;
	r.fetch_len = fetch.fetch_len;
	r.max_attempts = a->max_attempts > 0 ? (int)a->max_attempts : 10;
	r.grace_s = a->grace > 0 ? a->grace : 180;
	r.retry_on_exit = a->retry_on_exit;
	r.exhausted_fail = a->on_exhausted != NULL && strcmp(a->on_exhausted, "fail") == 0;
	r.then_stop = a->then != NULL && strcmp(a->then, "stop") == 0;
	r.env = a->env;
	r.n_env = a->n_env;
	r.words = argv;
	r.n_words = n;
	if (managed_submit(c->s, &r, id, sizeof(id), &err) != GR_OK)
		return cmd_error(c, &err);
	fprintf(c->out, "%s\n", id);
	fflush(c->out);
	if (a->detach)
		return finish_output(c, 0);
	return drive(c, id);
}

/* Options of run --managed, refused without it. */
static bool
managed_only(const struct run_args *a)
{
	return a->interruptible || a->retry_on_exit || a->ckpt_dir || a->on_exhausted ||
	    a->every || a->grace || a->max_attempts || a->max_price >= 0 || a->store_path;
}

static int
run_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct remote_endpoint ep;
	struct remote_job j;
	struct job_start js;
	struct run_args a;
	struct state *st;
	static char ignore[RUN_MAX_LIST][512];
	int n, rc;

	memset(&a, 0, sizeof(a));
	a.max_price = -1;
	rc = cmd_parse(c, argc, argv, handle, &a, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (a.managed || a.attach)
		return run_managed(c, &a, argv, n);
	if (managed_only(&a))
		return cmd_usage_error(c, "--max-price, --interruptible, --checkpoint-dir, --every, "
		    "--max-attempts, --grace, --retry-on-exit, --on-exhausted and --store belong to "
		    "--managed");
	if (a.provider != NULL)
		return run_batch(c, &a, argv, n);
	if (a.gpu || a.partition || a.count || a.nodes || a.max_runtime || a.force)
		return cmd_usage_error(c, "--gpu, --partition, --count, --nodes, --max-runtime and "
		    "--force belong to --provider (a batch job)");
	if (n < 2)
		return cmd_usage_error(c, "give an instance and the command: run ID -- COMMAND...");
	if (a.n_excludes > 0 && a.sync == NULL)
		return cmd_usage_error(c, "--exclude belongs to --sync");
	if (a.sync != NULL && (rc = read_ignore(c, &a, ignore, ARRAY_LEN(ignore))) != 0)
		return rc;
	memset(&j, 0, sizeof(j));
	if (fetch_list(&a, &j, &err) != GR_OK)
		return cmd_error(c, &err);
	if (session_state(c->s, &st, &err) != GR_OK ||
	    cmd_endpoint(c, argv[0], &ep, &err) != GR_OK ||
	    ((a.sync != NULL || a.n_fetch > 0) && cmd_endpoint_full(&ep, &err) != GR_OK))
		return cmd_error(c, &err);
	strlcpy_(j.name, a.name ? a.name : "", sizeof(j.name));
	strlcpy_(j.then_action, a.then ? a.then : "", sizeof(j.then_action));
	j.after = a.n_fetch > 0 || a.then != NULL ? JOB_AFTER_PENDING : JOB_AFTER_NONE;
	memset(&js, 0, sizeof(js));
	js.sync = a.sync;
	js.sync_opts.excludes = a.excludes;
	js.sync_opts.n_excludes = a.n_excludes;
	js.sync_opts.progress = isatty(STDERR_FILENO) && !c->in_shell;
	js.env = a.env;
	js.n_env = a.n_env;
	js.words = argv + 1;
	js.n_words = n - 1;
	if ((rc = jobs_start(c->s, st, &ep, &j, &js, &err)) != 0) {
		cmd_error(c, &err);
		return rc;
	}
	if (a.detach) {
		fprintf(c->out, "%s\n", j.id);
		return finish_output(c, 0);
	}
	cmd_warn("job %s started; Ctrl-C detaches", j.id);
	return attach(c, st, &ep, &j);
}

const struct command cmd_run_job = {
	.name = "run",
	.args = "ID|--provider P --gpu T [OPTIONS] -- COMMAND...",
	.summary = N_("run a job on an instance that outlives the connection"),
	.help =
	    N_("Starts COMMAND in a new directory ~/.gpurent/jobs/N/work on the instance, in its\n"
	    "own session and process group, stdout and stderr to ~/.gpurent/jobs/N/log, its\n"
	    "exit status written to a file when it ends: a dropped connection, a closed laptop\n"
	    "or a killed gpurent does not end it. One COMMAND word is a command line for the\n"
	    "remote shell; several are run as they are. The job is recorded as ID/N.\n"
	    "--sync DIR first copies what DIR holds into the working directory (rsync,\n"
	    "leaving out --exclude patterns and those in DIR/.gpurentignore). --env K=V sets\n"
	    "variables for the job; nothing else of this machine's environment (no API key)\n"
	    "goes along. Attached (the default), the log streams here and gpurent exits with\n"
	    "the job's status (143 when it was killed, 1 when it was lost); Ctrl-C detaches\n"
	    "(exit 130) and says how to reattach. --detach prints the job id and returns.\n"
	    "--fetch PATH[:DIR] copies PATH (relative to the working directory) into DIR\n"
	    "when the job ends; --then stop|destroy stops or destroys the instance after the\n"
	    "job ended and every fetch succeeded, never while another recorded job on it runs.\n"
	    "For a detached job, whichever gpurent first sees it ended (jobs, logs --follow)\n"
	    "does both, and 'gpurent jobs' shows what was done. A job that succeeded but\n"
	    "whose fetch or --then failed exits 1. Exit status 255 when the connection failed.\n"
	    "--provider slurm --gpu TYPE (no ID) submits COMMAND to the cluster as a batch\n"
	    "job of its own (--partition, --count GPUs per node, --nodes, --max-runtime),\n"
	    "each word quoted into its script; it is recorded as slurm:JOBID/0 for jobs,\n"
	    "logs (which read slurm.output_dir, shared with the nodes) and kill (scancel).\n"
	    "With --nodes N > 1, srun runs COMMAND on each node with MASTER_ADDR (the first\n"
	    "node), MASTER_PORT (29500), WORLD_SIZE (N) and NODE_RANK set, for torchrun.\n"
	    "A priced job is checked against the budgets (exit 9; --force overrides).\n"
	    "--managed --gpu GPU --checkpoint-dir DIR (no ID) rents the best offer that meets\n"
	    "--gpu and --count (at most --max-price, through the budgets), syncs, restores the\n"
	    "newest whole checkpoint into DIR and starts COMMAND with GPURENT_JOB,\n"
	    "GPURENT_CHECKPOINT_DIR, GPURENT_ATTEMPT and, after a recovery, GPURENT_RESUMED=1;\n"
	    "pulls DIR back every --every (--store ID:PATH: onto instance ID too, in PATH/mN,\n"
	    "whence the next machine is restored when this one has no copy); and when the\n"
	    "machine is lost (its provider stops listing it running, ssh fails past --grace,\n"
	    "or a GPU has a fatal Xid) destroys it and resumes on the next, up to\n"
	    "--max-attempts. It prints the job's id (mN) and, attached, drives it\n"
	    "to its end (Ctrl-C detaches; 'gpurent watch' or 'run --attach mN' drives it then).\n"
	    "'gpurent jobs --managed' and 'jobs show mN' show it, 'logs mN' its current run."),
	.opts = opts,
	.complete_args = CPL_INSTANCE,
	.run = run_run,
};
