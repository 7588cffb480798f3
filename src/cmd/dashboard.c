/*
 * gpurent dashboard: the live screen of offers, instances, metrics and costs.
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/dashboard.h"
#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"

enum { D_REFRESH = 1, D_BENCH };

static const struct cmd_opt opts[] = {
	{ "readonly", 'r', NULL, N_("look only: no launch, stop, start, destroy or cancel"), OPT_AT(struct ui_opts, readonly), CPL_NONE, OPT_TRUE },
	{ "refresh", 0, "SECONDS", N_("refresh instances, metrics and costs this often (default: the dashboard.* config keys)"), D_REFRESH, CPL_NONE, 0 },
	{ "view", 0, "NAME", N_("open on offers, instances, metrics, costs, events, cluster or jobs"), OPT_AT(struct ui_opts, view), CPL_NONE, OPT_STR },
	{ "bench-frames", 0, "N", N_("answer N keys on the offers view (sort, scroll), print the time per frame and per sort, and quit"), D_BENCH, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct ui_opts *o = data;
	long long n;

	switch (id) {
	case D_REFRESH:
		if ((n = parse_interval(arg)) < 0)
			return cmd_usage_error(c, "%s needs a duration from 1s to 1d (such as 30s or "
			    "5m), not '%s'", "--refresh", arg);
		o->refresh = (double)n;
		break;
	case D_BENCH:
		if (!parse_int(arg, 1, 1000000, &n))
			return cmd_usage_error(c, "--bench-frames needs a number from 1 to 1000000");
		o->bench_frames = (long)n;
		break;
	}
	return 0;
}

static int
dashboard_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct ui_opts o;
	struct gr_error err = { 0 };
	int rc;

	memset(&o, 0, sizeof(o));
	if (!cmd_parse_options(c, argc, argv, handle, &o, NULL, &rc))
		return rc;
	o.color = out_global.color;
	o.stop = &cmd_interrupted;
	if (ui_dashboard_run(c->s, &o, &err) != GR_OK)
		return cmd_error(c, &err);
	return finish_output(c, 0);
}

const struct command cmd_dashboard = {
	.name = "dashboard",
	.alias = "top",
	.summary = N_("watch offers, instances, metrics and costs live"),
	.help =
	    N_("A full-screen view of every selected provider at once: 1 offers, 2 instances,\n"
	    "3 metrics, 4 costs, 5 events (what gpurent watch did), 6 cluster (a Slurm cluster's\n"
	    "partitions with GPUs used and free, and your jobs with Slurm's reason), 7 jobs\n"
	    "(the managed jobs of 'run --managed'; K cancels one, as 'gpurent kill mN'); ?\n"
	    "lists every key. Data is fetched beside the screen, so a\n"
	    "slow or failing provider is named on the status line and never freezes it.\n"
	    "Refresh intervals come from dashboard.offers_interval, instances_interval and\n"
	    "metrics_interval; instances idle for dashboard.idle_minutes are highlighted.\n"
	    "Needs a terminal of at least 80x24."),
	.opts = opts,
	.run = dashboard_run,
};
