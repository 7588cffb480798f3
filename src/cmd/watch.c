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
#include "gpurent/lease.h"
#include "gpurent/util.h"
#include "gpurent/watch.h"
#include "common.h"

struct args {
	bool once, dry_run, status;
	long long interval;
};

static const struct cmd_opt opts[] = {
	{ "once", 0, NULL, N_("make one pass and exit (for cron or a systemd timer)"), OPT_AT(struct args, once), CPL_NONE, OPT_TRUE },
	{ "dry-run", 'n', NULL, N_("say what it would do; order nothing, write nothing"), OPT_AT(struct args, dry_run), CPL_NONE, OPT_TRUE },
	{ "interval", 'i', "DURATION", N_("time between passes (default: watch.interval, 60s); a sample older than three is stale"), OPT_AT(struct args, interval), CPL_NONE, OPT_INTERVAL },
	{ "status", 0, NULL, N_("say which watcher acts on this store, since when, and which stand by; exit status 3 when none acts"), OPT_AT(struct args, status), CPL_NONE, OPT_TRUE },
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
 * Sleep until the next look at the lease in one call, so that a waiting watcher costs no
 * CPU: Ctrl-C or SIGTERM interrupts it (their handler does not restart calls).
 */
static void
pause_ms(int64_t ms)
{
	struct timespec left = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

	if (ms <= 0)
		return;
	while (!cmd_interrupted && nanosleep(&left, &left) != 0 && errno == EINTR)
		;
}

/* ---------------------------------------------------------------- --status */

enum { C_ROLE, C_HOLDER, C_SINCE, C_EXPIRES, C_SEEN };

static const struct column status_cols[] = {
	[C_ROLE] = { "role", N_("ROLE"), false, false, 0, 0 },
	[C_HOLDER] = { "holder", N_("WATCHER"), false, false, 0, 0 },
	[C_SINCE] = { "since", N_("SINCE"), false, false, 0, 0 },
	[C_EXPIRES] = { "expires", N_("LEASE UNTIL"), false, false, 0, 0 },
	[C_SEEN] = { "seen", N_("LAST SEEN"), false, false, 0, 0 },
};

/* The lease's holder (acting, or lapsed once it expired), then each standby. */
struct status_row {
	const char *role;
	const char *holder;
	int64_t since, expires, seen;	/* ms, 0: none */
};

static void
status_cell(const void *row, size_t c, struct cell *out, void *ctx)
{
	const struct status_row *r = row;
	int64_t t = c == C_SINCE ? r->since : c == C_EXPIRES ? r->expires : r->seen;

	if (c == C_ROLE || c == C_HOLDER) {
		out->kind = CELL_STR;
		out->s = c == C_ROLE ? r->role : r->holder;
	} else if (t > 0) {
		out->kind = CELL_TIME;
		out->i = t / 1000;
	} else
		out->kind = CELL_NULL;
}

static int
watch_status(struct cmd_ctx *c)
{
	struct gr_error err = { 0 };
	struct lease_standby *v = NULL;
	struct status_row *rows;
	struct lease l;
	struct state *st;
	int64_t now;
	size_t n = 0, k = 0, i;
	bool acts;
	int rc;

	if (session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	now = wall_ms();
	lease_get(st, WATCH_LEASE, &l);
	if (!lease_standbys(st, WATCH_LEASE, now, &v, &n)) {
		gr_fail(&err, GR_ESTATE, "cannot read the watchers standing by");
		return cmd_error(c, &err);
	}
	acts = l.holder[0] != '\0' && l.until >= now;
	rows = xcalloc(n + 1, sizeof(*rows));
	if (l.holder[0] != '\0')
		rows[k++] = (struct status_row){ acts ? "acting" : "lapsed", l.holder, l.since,
		    l.until, 0 };
	for (i = 0; i < n; i++)
		rows[k++] = (struct status_row){ "standby", v[i].holder, 0, 0, v[i].seen };
	/* Status 3 says it to scripts; stderr to people, as every non-zero status does. */
	if (!acts)
		fprintf(stderr, "%s", _("gpurent: no watcher acts on this store\n"));
	rc = cmd_print(c, status_cols, ARRAY_LEN(status_cols), C_HOLDER, rows, k, sizeof(*rows),
	    status_cell, NULL, 0);
	free(rows);
	free(v);
	return rc != 0 ? rc : acts ? 0 : EXIT_NOTFOUND;
}

/* ---------------------------------------------------------------- the watcher */

static int
watch_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { false, false, false, 0 };
	struct gr_error err = { 0 };
	struct notifier nt = { NULL };
	struct watch_opts o;
	struct watch_report r;
	struct config *cfg;
	struct watch *w;
	struct lease held;
	char waits_for[LEASE_HOLDER_MAX] = "", since[32];
	const char *cmd;
	int64_t next = 0, now;
	int rc, nargs = 0;
	enum gr_err prc = GR_OK;
	bool acts, acted = false;

	if (!cmd_parse_options(c, argc, argv, NULL, &a, N_("takes no arguments"), &rc))
		return rc;
	if (a.status && (a.once || a.dry_run || a.interval != 0))
		return cmd_usage_error(c, "--status takes none of --once, --dry-run, --interval");
	if (a.status)
		return watch_status(c);
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
	if (watch_open(&w, c->s, &o, &err) != GR_OK) {
		if (nt.argv != NULL)
			cmd_shell_ops->words_free(nt.argv);
		return cmd_error(c, &err);
	}
	/*
	 * A look at the lease every watch_tick; a pass every interval while this one acts,
	 * and at once when it takes over.
	 */
	for (;;) {
		acts = watch_lead(w, &held);
		if (!acts && a.once) {
			if (held.holder[0] == '\0')
				gr_fail(&err, GR_ESTATE, "cannot take the watcher's lease of this "
				    "store");
			else
				gr_fail(&err, GR_ELOCKED, "another watcher (%s) holds the lease of "
				    "this store since %s", held.holder, utc_rfc3339(since,
				    sizeof(since), held.since / 1000));
			watch_close(w);
			if (nt.argv != NULL)
				cmd_shell_ops->words_free(nt.argv);
			return cmd_error(c, &err);
		}
		if (acted && !acts)
			fprintf(c->out, _("lost the watcher's lease to %s: acting no more\n"),
			    held.holder);
		/* Said once per holder, not at every look. */
		if (!acts && held.holder[0] != '\0' && strcmp(waits_for, held.holder) != 0) {
			strlcpy_(waits_for, held.holder, sizeof(waits_for));
			fprintf(c->out, _("standing by: the watcher of %s acts since %s\n"),
			    held.holder, utc_rfc3339(since, sizeof(since), held.since / 1000));
		}
		if (acts)
			waits_for[0] = '\0';
		/* What the look said (a takeover, standing by) is out before a pass begins. */
		fflush(c->out);
		now = monotonic_ms();
		if (acts && (!acted || now >= next)) {
			err = (struct gr_error){ 0 };
			prc = watch_pass(w, &r, &err);
			if (prc != GR_OK && prc != GR_EPARTIAL)
				cmd_warn("%s\n", err.msg);
			if (c->s->verbose)
				cmd_warn("watch: %zu instances, %zu unobserved, %zu orders, %zu alerts\n",
				    r.instances, r.unobserved, r.acted, r.alerts);
			now = monotonic_ms();
			next = now + a.interval * 1000;
		}
		acted = acts && prc != GR_ELOCKED;
		fflush(c->out);
		if (a.once || cmd_interrupted)
			break;
		pause_ms(acted && next - now < watch_tick(w) ? next - now : watch_tick(w));
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
	    "actions and alerts, to notify.command. Any number of watchers may run on one store\n"
	    "(a team's in PostgreSQL, or one person's file): exactly one acts, the holder of the\n"
	    "store's watcher lease, which lasts half an interval and is renewed every quarter;\n"
	    "the others stand by, say so once, look every quarter interval, and take over within\n"
	    "one interval of the holder's death. A second --once exits with status 15, naming\n"
	    "the holder. --status says who acts, since when, until when, and who stands by\n"
	    "(status 0 when one acts, 3 when none)."),
	.opts = opts,
	.flags = CMD_NOT_IN_SHELL,
	.run = watch_run,
};
