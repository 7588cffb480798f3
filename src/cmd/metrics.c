/*
 * gpurent metrics: per-GPU utilisation, memory, temperature and power of an instance.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpurent/columns.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"

enum { M_FOLLOW = 1, M_INTERVAL, M_COUNT };

static const struct cmd_opt opts[] = {
	{ "follow", 'f', NULL, "keep printing samples until interrupted", M_FOLLOW, CPL_NONE, false },
	{ "interval", 'i', "SECONDS", "with --follow: seconds between samples (default 2)", M_INTERVAL, CPL_NONE, false },
	{ "count", 'c', "N", "with --follow: stop after N samples", M_COUNT, CPL_NONE, false },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, false },
};

struct args {
	bool follow;
	long long interval, count;
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
	struct args a = { false, 2, 0 };
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
	if (session_backend_for(c->s, argv[0], &b, &err) != GR_OK ||
	    backend_require(b->ops, CAP_METRICS, NULL, &err) != GR_OK)
		return cmd_error(c, &err);
	o = out_global;
	if (a.follow)
		o.keep = &widths;	/* every round in the first round's columns */
	for (round = 0; !cmd_interrupted; round++) {
		sample_list_init(&l);
		if (b->ops->metrics(b, argv[0], &l, &err) != GR_OK) {
			sample_list_release(&l);
			return cmd_error(c, &err);
		}
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
	    "-o json each sample is one JSON object on its own line. Ctrl-C ends it (status 0).",
	.opts = opts,
	.complete_args = CPL_INSTANCE,
	.run = metrics_run,
};
