/*
 * gpurent watch: the guard that stops idle, overlong and over-budget instances (watch.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/util.h"
#include "gpurent/watch.h"
#include "common.h"

struct args {
	bool once, dry_run;
	long long interval;
};

static const struct cmd_opt opts[] = {
	{ "once", 0, NULL, N_("make one pass and exit (for cron or a systemd timer)"), OPT_AT(struct args, once), CPL_NONE, OPT_TRUE },
	{ "dry-run", 'n', NULL, N_("say what it would do; order nothing, write nothing"), OPT_AT(struct args, dry_run), CPL_NONE, OPT_TRUE },
	{ "interval", 'i', "DURATION", N_("time between passes (default: watch.interval, 60s); a sample older than three is stale"), OPT_AT(struct args, interval), CPL_NONE, OPT_INTERVAL },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

struct notifier {
	char **argv;
};

static void
notify(void *ctx, const struct event *ev)
{
	struct notifier *n = ctx;
	struct gr_error err = { 0 };

	if (watch_notify_run(n->argv, ev, 30, &err) != GR_OK)
		cmd_warn("%s\n", err.msg);
}

/*
 * Sleep through the interval in one call, so that a waiting watcher costs no CPU: Ctrl-C
 * or SIGTERM interrupts it (their handler does not restart calls).
 */
static void
pause_seconds(long long s)
{
	struct timespec left = { (time_t)s, 0 };

	while (!cmd_interrupted && nanosleep(&left, &left) != 0 && errno == EINTR)
		;
}

static int
watch_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { false, false, 0 };
	struct gr_error err = { 0 };
	struct notifier nt = { NULL };
	struct watch_opts o;
	struct watch_report r;
	struct config *cfg;
	struct watch *w;
	const char *cmd;
	long holder;
	int rc, nargs = 0;
	enum gr_err prc;

	if (!cmd_parse_options(c, argc, argv, NULL, &a, N_("takes no arguments"), &rc))
		return rc;
	if (session_config(c->s, &cfg, &err) != GR_OK)
		return cmd_error(c, &err);
	if (a.interval == 0)
		a.interval = config_get_int(cfg, "watch.interval", 60);
	cmd = config_get(cfg, "notify.command");
	if (cmd != NULL && *cmd != '\0') {
		if (cmd_shell_ops == NULL || cmd_shell_ops->split == NULL ||
		    cmd_shell_ops->split(cmd, &nargs, &nt.argv, &err) != GR_OK)
			return cmd_error(c, &err);
		if (nargs == 0) {
			cmd_shell_ops->words_free(nt.argv);
			nt.argv = NULL;
		}
	}
	memset(&o, 0, sizeof(o));
	o.interval = a.interval;
	o.dry_run = a.dry_run;
	o.out = c->out;
	o.notify = nt.argv != NULL && !a.dry_run ? notify : NULL;
	o.notify_ctx = &nt;
	if (watch_open(&w, c->s, &o, &holder, &err) != GR_OK) {
		if (nt.argv != NULL)
			cmd_shell_ops->words_free(nt.argv);
		return cmd_error(c, &err);
	}
	for (;;) {
		err = (struct gr_error){ 0 };
		prc = watch_pass(w, &r, &err);
		if (prc != GR_OK && prc != GR_EPARTIAL)
			cmd_warn("%s\n", err.msg);
		if (c->s->verbose)
			cmd_warn("watch: %zu instances, %zu unobserved, %zu orders, %zu alerts\n",
			    r.instances, r.unobserved, r.acted, r.alerts);
		fflush(c->out);
		if (a.once || cmd_interrupted)
			break;
		pause_seconds(a.interval);
		if (cmd_interrupted)
			break;
	}
	watch_close(w);
	if (nt.argv != NULL)
		cmd_shell_ops->words_free(nt.argv);
	if (a.once)
		rc = prc == GR_OK ? 0 : prc == GR_EPARTIAL ? EXIT_PARTIAL : gr_exit_code(prc);
	return finish_output(c, rc);
}

const struct command cmd_watch = {
	.name = "watch",
	.summary = N_("stop idle, overlong and over-budget instances, and verify each stop"),
	.help =
	    N_("Runs in the foreground, one pass every --interval, until interrupted (--once: one\n"
	    "pass, for cron or contrib/systemd/gpurent-watch.timer). Each pass lists the\n"
	    "instances and applies the policies of the config, globally, per profile and per\n"
	    "label (label.PATTERN.KEY): idle.after, idle.threshold and idle.action; runtime.max\n"
	    "and runtime.action; budget.day and budget.month with budget.warn and budget.action\n"
	    "(once a budget is spent, the running instances are acted on, newest first).\n"
	    "Only fresh evidence counts: an instance whose GPU utilisation is unknown, or whose\n"
	    "newest sample is older than three intervals, is unobserved and never idle; a running\n"
	    "gpurent job keeps an instance busy (watch.jobs_active). Every stop or destroy is\n"
	    "verified on later passes until the provider reports it done, ordered again up to\n"
	    "watch.verify_tries times, and an alert is raised when it is not. Every action and\n"
	    "the observation behind it go to the event journal ('gpurent events') and, for\n"
	    "actions and alerts, to notify.command. One watcher per state directory: a second\n"
	    "one exits with status 15, naming the process that holds the lock."),
	.opts = opts,
	.flags = CMD_NOT_IN_SHELL,
	.run = watch_run,
};
