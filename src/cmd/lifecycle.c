/*
 * The shared body of stop, start and destroy: many ids, several providers, one report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/catalogue.h"
#include "gpurent/i18n.h"
#include "gpurent/launch.h"
#include "gpurent/money.h"
#include "gpurent/observed.h"
#include "gpurent/util.h"
#include "common.h"
#include "lifecycle.h"

enum lifecycle_op { LC_STOP, LC_START, LC_DESTROY };

struct args {
	enum lifecycle_op op;
	bool yes, wait, force;
	long long timeout;
	struct timespec t0;	/* when the first request went out: --timeout counts from here */
	char **accepted;	/* with wait: the ids the providers accepted, to wait for */
	int n_accepted;
};

const struct cmd_opt stop_opts[] = {
	{ "no-wait", 0, NULL, N_("return once the provider accepted, before the instance has stopped"), OPT_AT(struct args, wait), CPL_NONE, OPT_FALSE },
	{ "wait", 'w', NULL, N_("wait until every instance has stopped (the default)"), OPT_AT(struct args, wait), CPL_NONE, OPT_TRUE },
	{ "timeout", 't', "SECONDS", N_("give up waiting after this long (default 300)"), 0, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

const struct cmd_opt start_opts[] = {
	{ "wait", 'w', NULL, N_("wait until every instance runs"), OPT_AT(struct args, wait), CPL_NONE, OPT_TRUE },
	{ "force", 0, NULL, N_("start even when budget.day or budget.month would refuse it"), OPT_AT(struct args, force), CPL_NONE, OPT_TRUE },
	{ "timeout", 't', "SECONDS", N_("give up waiting after this long (default 300)"), 0, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

const struct cmd_opt destroy_opts[] = {
	{ "yes", 'y', NULL, N_("do not ask; needed when stdin is not a terminal"), OPT_AT(struct args, yes), CPL_NONE, OPT_TRUE },
	{ "wait", 'w', NULL, N_("wait until every instance is destroyed"), OPT_AT(struct args, wait), CPL_NONE, OPT_TRUE },
	{ "timeout", 't', "SECONDS", N_("give up waiting after this long (default 300)"), 0, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;

	(void)id;	/* --timeout, the one option cmd_parse does not store */
	if ((a->timeout = parse_duration(arg)) <= 0)
		return cmd_usage_error(c, "--timeout needs a duration such as 300 or 5m");
	return 0;
}

static enum inst_state
target_state(enum lifecycle_op op)
{
	return op == LC_STOP ? ST_STOPPED : op == LC_START ? ST_RUNNING : ST_DESTROYED;
}

/* Seconds since t0 on the monotonic clock. */
static long long
elapsed_s(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)(t.tv_sec - t0->tv_sec);
}

/* Whether the instance is on its way between two states, so that waiting settles it. */
static bool
in_transition(enum inst_state s)
{
	return s == ST_PROVISIONING || s == ST_STARTING || s == ST_STOPPING ||
	    s == ST_DESTROYING;
}

/*
 * Poll until the instance reaches want (ST_DESTROYED: also when it is gone), or, with want
 * ST_UNKNOWN, until it is in no transition. Counts against the time since t0.
 */
static enum gr_err
wait_for(struct backend *b, const char *id, enum inst_state want, const struct timespec *t0,
    long long timeout, struct gr_error *err)
{
	struct timespec pause = { 0, 500000000L };
	struct instance in;

	for (;;) {
		enum gr_err rc = observed_get(b, id, &in, err);

		if (want == ST_DESTROYED && rc == GR_ENOTFOUND) {
			gr_error_clear(err);
			return GR_OK;
		}
		if (rc != GR_OK)
			return rc;
		if (in.state == want || (want == ST_UNKNOWN && !in_transition(in.state)))
			return GR_OK;
		if (in.state == ST_FAILED)
			return gr_fail(err, GR_EFAIL, "failed%s%s", in.status_msg[0] ? ": " : "",
			    in.status_msg);
		if (elapsed_s(t0) >= timeout)
			return gr_fail(err, GR_ETIMEOUT, "still %s after %llds",
			    inst_state_name(in.state), timeout);
		if (cmd_interrupted)
			return gr_fail(err, GR_EINTERRUPTED, "interrupted while %s",
			    inst_state_name(in.state));
		nanosleep(&pause, NULL);
	}
}

static enum gr_err
request(struct cmd_ctx *c, struct backend *b, const struct args *a, const char *id,
    struct gr_error *err)
{
	switch (a->op) {
	case LC_STOP:
		/* lifecycle_run has already set aside the ids of providers that cannot stop. */
		return observed_stop(b, id, err);
	case LC_START:
		/* It bills again: admitted as a launch is. */
		return guard_start(c->s, b, id, a->force, err);
	default:
		return observed_destroy(b, id, err);
	}
}

/*
 * Ask for op; when the provider refuses it because the instance is between two states
 * (start while it is stopping, stop while it is provisioning), wait until it settles and
 * ask again, within the timeout. A refusal that waiting cannot resolve (a settled state
 * that does not allow op, or one still unsettled when the time is up) is GR_ECONFLICT:
 * nothing was done, unlike GR_ETIMEOUT, where the provider accepted and is still at it.
 */
static enum gr_err
request_settled(struct cmd_ctx *c, struct backend *b, const struct args *a, const char *id,
    struct gr_error *err)
{
	struct gr_error conflict, werr;
	struct instance in;
	enum gr_err rc;

	for (;;) {
		conflict = (struct gr_error){ 0 };
		rc = request(c, b, a, id, &conflict);
		if (rc != GR_ECONFLICT)
			return rc == GR_OK ? GR_OK : gr_fail(err, rc, "%s", conflict.msg);
		werr = (struct gr_error){ 0 };
		if (observed_get(b, id, &in, &werr) != GR_OK || !in_transition(in.state))
			return gr_fail(err, GR_ECONFLICT, "%s", conflict.msg);
		rc = wait_for(b, id, ST_UNKNOWN, &a->t0, a->timeout, &werr);
		if (rc == GR_ETIMEOUT)
			return gr_fail(err, GR_ECONFLICT, "%s (%s)", conflict.msg, werr.msg);
		/* A failed instance is settled too: asking again gets the provider's answer. */
		if (rc != GR_OK && rc != GR_EFAIL)
			return gr_fail(err, rc, "%s", werr.msg);
	}
}

/* The first pass: ask for every id; with wait, note it for the second pass. */
static enum gr_err
apply_request(struct cmd_ctx *c, struct backend *b, const char *id, struct gr_error *err,
    void *data)
{
	struct args *a = data;
	enum gr_err rc = request_settled(c, b, a, id, err);

	if (rc != GR_OK)
		return rc;
	if (a->wait)
		a->accepted[a->n_accepted++] = (char *)id;
	else
		fprintf(c->out, "%s\n", id);
	return GR_OK;
}

/* The second pass: wait for each accepted id to reach its new state. */
static enum gr_err
apply_wait(struct cmd_ctx *c, struct backend *b, const char *id, struct gr_error *err,
    void *data)
{
	struct args *a = data;
	enum gr_err rc = wait_for(b, id, target_state(a->op), &a->t0, a->timeout, err);

	if (rc == GR_OK)
		fprintf(c->out, "%s\n", id);
	return rc;
}

/*
 * Ask for op on every id first, then wait for them together, so stopping ten instances
 * takes as long as the slowest, not the sum. Returns the exit status as for_each_id does.
 */
static int
run_ids(struct cmd_ctx *c, int n, char **ids, struct args *a)
{
	int rc, wrc;

	clock_gettime(CLOCK_MONOTONIC, &a->t0);
	a->accepted = xcalloc((size_t)n, sizeof(*a->accepted));
	a->n_accepted = 0;
	rc = for_each_id(c, n, ids, apply_request, a);
	if (a->n_accepted > 0 && !cmd_interrupted) {
		wrc = for_each_id(c, a->n_accepted, a->accepted, apply_wait, a);
		/* Some failed to be asked and the rest ended well: a partial failure. */
		rc = rc == 0 ? wrc : wrc == 0 ? EXIT_PARTIAL : rc;
	}
	free(a->accepted);
	a->accepted = NULL;
	return rc;
}

/* Say what destroying loses and saves (in each currency on its own), and ask. */
static bool
confirm_destroy(struct cmd_ctx *c, int n, char **ids)
{
	struct {
		char currency[CURRENCY_MAX];
		int64_t hour;
	} saves[4];
	size_t n_saves = 0, k;
	struct sb msg;
	char buf[32];
	int i;

	for (i = 0; i < n; i++) {
		struct gr_error err = { 0 };
		struct backend *b;
		struct instance in;
		char g[64];
		int64_t v;

		if (session_backend_for(c->s, ids[i], &b, &err) == GR_OK &&
		    observed_get(b, ids[i], &in, &err) == GR_OK) {
			fprintf(stderr, "  %s  %s  %s  %s\n", in.id, in.label[0] ? in.label : "-",
			    inst_state_name(in.state), catalogue_display(in.gpu, in.gpu_raw, g,
			    sizeof(g)));
			v = instance_saving_hour(&in);
			for (k = 0; k < n_saves && !money_same_currency(saves[k].currency,
			    in.currency); k++)
				;
			if (k == n_saves && n_saves < ARRAY_LEN(saves)) {
				money_currency_set(saves[k].currency, in.currency);
				saves[n_saves++].hour = 0;
			}
			if (k < n_saves)
				saves[k].hour += v;
		} else
			fprintf(stderr, _("  %s  (not found)\n"), ids[i]);
	}
	sb_init(&msg);
	for (k = 0; k < n_saves || k == 0; k++)
		sb_addf(&msg, "%s%s/hour", k ? " and " : "", money_format_in(buf, sizeof(buf),
		    n_saves ? saves[k].hour : 0, 3, n_saves ? saves[k].currency : NULL));
	fprintf(stderr, _("Destroying deletes the disk and everything on it; it cannot be undone. "
	    "It saves %s.\n"), msg.buf);
	sb_release(&msg);
	return cmd_confirm("Destroy %d instance%s?", n, n == 1 ? "" : "s");
}

/* Without --yes: refused when stdin is not a terminal, else asked; 0 when it may go on. */
static int
destroy_asked(struct cmd_ctx *c, int n, char **ids)
{
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr, _("gpurent %s: refusing to destroy without --yes when stdin is not "
		    "a terminal\n"), c->cmd->name);
		return EXIT_USAGE;
	}
	if (!confirm_destroy(c, n, ids)) {
		fputs(_("nothing destroyed\n"), stderr);
		return EXIT_ERROR;
	}
	return 0;
}

int
lifecycle_destroy(struct cmd_ctx *c, int n, char **ids, bool yes)
{
	struct args a = { LC_DESTROY, yes, false, false, 300, { 0, 0 }, NULL, 0 };
	int rc;

	if (!yes && (rc = destroy_asked(c, n, ids)) != 0)
		return rc;
	return run_ids(c, n, ids, &a);
}

int
lifecycle_run(struct cmd_ctx *c, int argc, char **argv)
{
	enum lifecycle_op op = c->cmd == &cmd_stop ? LC_STOP : c->cmd == &cmd_start ? LC_START :
	    LC_DESTROY;
	/* stop waits unless told not to: the next step (start, a snapshot) needs it stopped. */
	struct args a = { op, false, op == LC_STOP, false, 300, { 0, 0 }, NULL, 0 };
	int n, rc;

	if (!cmd_parse_args(c, argc, argv, handle, &a,
	    N_("which instance? give one or more IDs from 'gpurent ls'"), &n, &rc))
		return rc;
	if (op == LC_DESTROY && !a.yes && (rc = destroy_asked(c, n, argv)) != 0)
		return rc;
	if (op == LC_START)
		cmd_warn_profile_budget(c);
	if (op != LC_DESTROY) {
		/* Say what a provider cannot do before asking it for anything (even a key). */
		int i, k = 0, refused = 0;

		for (i = 0; i < n; i++) {
			char provider[PROVIDER_MAX];
			const struct backend_ops *ops;
			struct gr_error err = { 0 };

			if (backend_split_id(argv[i], provider, sizeof(provider), NULL) &&
			    (ops = backend_find_ops(provider)) != NULL && !(ops->caps & CAP_STOP)) {
				backend_require(ops, CAP_STOP, NULL, &err);
				fprintf(stderr, "gpurent: %s: %s\n", argv[i], err.msg);
				refused++;
				continue;
			}
			argv[k++] = argv[i];
		}
		if (refused > 0) {
			if (k > 0)
				run_ids(c, k, argv, &a);
			return finish_output(c, k == 0 ? EXIT_UNSUPPORTED : EXIT_PARTIAL);
		}
	}
	rc = run_ids(c, n, argv, &a);
	return finish_output(c, rc);
}
