/*
 * gpurent metrics: per-GPU utilisation, memory, temperature and power of an instance, now
 * (each sample is also kept in the history) or over a past range (metrics_history.c).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpurent/columns.h"
#include "gpurent/history.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"
#include "metrics_history.h"

enum { M_FOLLOW = 1, M_INTERVAL, M_COUNT, M_SINCE, M_UNTIL, M_STEP };

static const struct cmd_opt opts[] = {
	{ "follow", 'f', NULL, "keep printing samples until interrupted", M_FOLLOW, CPL_NONE, false },
	{ "interval", 'i', "SECONDS", "with --follow: seconds between samples (default 2)", M_INTERVAL, CPL_NONE, false },
	{ "count", 'c', "N", "with --follow: stop after N samples", M_COUNT, CPL_NONE, false },
	{ "since", 's', "WHEN", "print the history from WHEN: a duration ago (1h, 30d) or a UTC time (2026-12-01T10:00)", M_SINCE, CPL_NONE, false },
	{ "until", 'u', "WHEN", "with --since: end of the history (default now)", M_UNTIL, CPL_NONE, false },
	{ "step", 0, "STEP", "with --since: raw, auto (default) or a bucket of whole minutes (5m, 1h)", M_STEP, CPL_NONE, false },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, false },
};

struct args {
	bool follow;
	long long interval, count;
	const char *since, *until;	/* parsed once the session's clock is known */
	int step;			/* -1: auto */
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;

	switch (id) {
	case M_FOLLOW: a->follow = true; break;
	case M_INTERVAL:
		if ((a->interval = parse_duration(arg)) <= 0)
			return cmd_usage_error(c, "--interval needs a number of seconds");
		break;
	case M_COUNT:
		if (!parse_int(arg, 1, 1000000000, &a->count))
			return cmd_usage_error(c, "--count needs a positive number");
		break;
	case M_SINCE: a->since = arg; break;
	case M_UNTIL: a->until = arg; break;
	case M_STEP: {
		long long d;

		if (strcmp(arg, "raw") == 0)
			a->step = 0;
		else if (strcmp(arg, "auto") == 0)
			a->step = -1;
		else if ((d = parse_duration(arg)) > 0 && d % 60 == 0 && d <= 86400 * 31)
			a->step = (int)d;
		else
			return cmd_usage_error(c, "--step is raw, auto or whole minutes (5m, 1h), "
			    "not '%s'", arg);
		break;
	}
	}
	return 0;
}

/* Sleep in small steps so Ctrl-C ends the wait at once. */
static void
pause_seconds(long long s)
{
	struct timespec step = { 0, 100000000L };
	long long i;

	for (i = 0; i < s * 10 && !cmd_interrupted; i++)
		nanosleep(&step, NULL);
}

static int
metrics_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { false, 2, 0, NULL, NULL, -1 };
	struct gr_error err = { 0 };
	struct sample_list l;
	struct backend *b;
	struct out_opts o = out_global;
	struct out_widths widths = { { 0 }, 0 };
	long long round;
	int n, rc;
	size_t i;

	rc = cmd_parse(c, argc, argv, handle, &a, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (n != 1)
		return cmd_usage_error(c, n == 0 ? "which instance? give an ID from 'gpurent ls'" :
		    "one instance at a time");
	if (a.since != NULL || a.until != NULL || a.step != -1) {
		int64_t now, since, until = 0;

		if (a.since == NULL)
			return cmd_usage_error(c, "--until and --step go with --since");
		if (a.follow)
			return cmd_usage_error(c, "--since prints history; --follow samples now: "
			    "one or the other");
		/* The id must name a provider, even though only the database is read. */
		if (session_backend_for(c->s, argv[0], &b, &err) != GR_OK)
			return cmd_error(c, &err);
		now = session_now(c->s);
		if (!metrics_parse_when(a.since, now, &since))
			return cmd_usage_error(c, "--since needs a duration (1h, 30d) or a UTC time "
			    "(2026-12-01T10:00), not '%s'", a.since);
		if (a.until != NULL && !metrics_parse_when(a.until, now, &until))
			return cmd_usage_error(c, "--until needs a duration (1h, 30d) or a UTC time "
			    "(2026-12-01T10:00), not '%s'", a.until);
		return metrics_history(c, argv[0], since, until, a.step);
	}
	o = out_global;
	if (a.follow)
		o.keep = &widths;	/* every round in the first round's columns */
	for (round = 0; !cmd_interrupted; round++) {
		struct gr_error store_err = { 0 };

		sample_list_init(&l);
		if (history_sample(c->s, argv[0], &l, &err, &store_err) != GR_OK) {
			sample_list_release(&l);
			return cmd_error(c, &err);
		}
		if (store_err.code != GR_OK)
			cmd_warn("warning: the samples were not kept in the history: %s",
			    store_err.msg);
		if (a.follow && o.format == OUT_JSON) {
			/* A stream: one JSON object per line, one line per GPU sample. */
			struct out_opts line = o;

			for (i = 0; i < l.n; i++) {
				rc = out_print_record(c->out, &line, sample_columns, SCOL__COUNT,
				    &l.v[i], sample_cell, NULL, &err);
				if (rc != GR_OK)
					break;
			}
		} else
			rc = out_print(c->out, &o, sample_columns, SCOL__COUNT, SCOL_INSTANCE, l.v,
			    l.n, sizeof(*l.v), sample_cell, NULL, &err);
		sample_list_release(&l);
		if (rc != GR_OK)
			return cmd_usage_error(c, "%s", err.msg);
		if (fflush(c->out) != 0 || ferror(c->out))
			return finish_output(c, EXIT_ERROR);
		if (!a.follow || (a.count > 0 && round + 1 >= a.count))
			break;
		o.no_header = true;
		pause_seconds(a.interval);
	}
	return finish_output(c, cmd_interrupted && !a.follow ? EXIT_INTERRUPTED : 0);
}

const struct command cmd_metrics = {
	.name = "metrics",
	.args = "ID",
	.summary = "show GPU metrics of a running instance",
	.help =
	    "One sample per GPU: utilisation, memory used and total (MiB), temperature (C),\n"
	    "power draw and limit (W). --follow prints a sample every --interval seconds; with\n"
	    "-o json each sample is one JSON object on its own line. Ctrl-C ends it (status 0).\n"
	    "\n"
	    "Every sample taken is kept in the state database: raw samples for 24 hours,\n"
	    "one-minute aggregates (min, mean, max) for 30 days. --since prints that history\n"
	    "(mean, min and max per row); within the last 24 hours raw samples, further back\n"
	    "buckets of whole minutes sized to at most 1500 rows per GPU (--step chooses).\n"
	    "-o json adds every field a sample holds (clocks, PCIe link, ECC, Xid, ...).",
	.opts = opts,
	.complete_args = CPL_INSTANCE,
	.run = metrics_run,
};
