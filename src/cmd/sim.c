/*
 * gpurent sim: look at and steer the simulated marketplace.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/output.h"
#include "gpurent/sim.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "common.h"
#include "sim_serve.h"

/* One step of the clock: a year covers any rehearsal; a typo of 99999d is not one. */
#define SIM_ADVANCE_MAX (366LL * 86400)

struct args {
	const char *at;
	const char *reason;
};

static const struct cmd_opt opts[] = {
	{ "at", 0, "TIME", N_("preempt: at this simulated time, a duration from now (30m) or a UTC date or time (default: now)"), OPT_AT(struct args, at), CPL_NONE, OPT_STR },
	{ "reason", 0, "REASON", N_("preempt: outbid (an interruptible one), host-failure (the default) or unreachable (its ssh stops answering)"), OPT_AT(struct args, reason), CPL_PREEMPT_REASON, OPT_STR },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

/* `sim preempt ID`: the simulator takes the instance away, now or at --at. */
static int
preempt(struct cmd_ctx *c, struct sim *sim, const char *id, const struct args *a)
{
	struct gr_error err = { 0 };
	enum sim_fault f = SIM_FAULT_HOST_FAILURE;
	int64_t now = sim_now(sim), at = now;
	struct cell when = { CELL_TIME, NULL, 0, 0, 0 };
	char shown[64];

	if (a->reason != NULL && !sim_fault_parse(a->reason, &f))
		return cmd_usage_error(c, "--reason is outbid, host-failure or unreachable, not "
		    "'%s'", a->reason);
	if (a->at != NULL && (!parse_ahead(a->at, now, &at) || at < now))
		return cmd_usage_error(c, "--at wants a duration from now (30m) or a simulated time "
		    "to come (2026-12-24T18:00:00Z), not '%s'", a->at);
	if (sim_preempt(sim, id, f, at, &err) != GR_OK)
		return cmd_error(c, &err);
	when.i = at;
	cell_text(&when, shown, sizeof(shown), true);
	/* TRANSLATORS: "ID: outbid|host-failure|unreachable at TIME". */
	fprintf(stderr, _("%s: %s at %s (simulated time)\n"), id, sim_fault_name(f), shown);
	return 0;
}

static int
sim_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct state *st;
	struct sim *sim;
	struct account acct;
	struct args a;
	long long secs;
	int n, rc;

	/* serve has options of its own, parsed by its own file. */
	if (argc >= 2 && strcmp(argv[1], "serve") == 0)
		return cmd_sim_serve(c, argc - 1, argv + 1);
	memset(&a, 0, sizeof(a));
	if (!cmd_parse_args(c, argc, argv, NULL, &a,
	    N_("say advance DURATION, preempt ID, status, bill-extra or serve"), &n, &rc))
		return rc;
	if ((a.at != NULL || a.reason != NULL) && strcmp(argv[0], "preempt") != 0)
		return cmd_usage_error(c, "--at and --reason go with 'sim preempt ID'");
	if (session_sim_state(c->s, &st, &err) != GR_OK || sim_open(&sim, st, &err) != GR_OK)
		return cmd_error(c, &err);
	/* The world in this user's file, its billing in the session's state (a team's). */
	if (session_state(c->s, &st, &err) != GR_OK) {
		sim_close(sim);
		return cmd_error(c, &err);
	}
	sim_set_ledger(sim, st);
	if (strcmp(argv[0], "preempt") == 0) {
		rc = n == 2 ? preempt(c, sim, argv[1], &a) : cmd_usage_error(c, "usage: gpurent "
		    "sim preempt ID [--at TIME] [--reason outbid|host-failure|unreachable]");
	} else if (strcmp(argv[0], "advance") == 0) {
		if (n != 2 || (secs = parse_duration(argv[1])) < 0) {
			sim_close(sim);
			return cmd_usage_error(c, "usage: gpurent sim advance DURATION (90, 15m, "
			    "2h, 1d)");
		}
		if (secs > SIM_ADVANCE_MAX) {
			sim_close(sim);
			return cmd_usage_error(c, "sim advance moves at most 366d at a time, not "
			    "'%s' (call it again to go further)", argv[1]);
		}
		rc = sim_advance(sim, secs, &err) == GR_OK ? 0 : cmd_error(c, &err);
	} else if (strcmp(argv[0], "status") == 0) {
		char t[32], bal[32], burn[32];
		time_t now = (time_t)sim_now(sim);
		struct tm tm;

		if (sim_account(sim, &acct, &err) != GR_OK) {
			sim_close(sim);
			return cmd_error(c, &err);
		}
		gmtime_r(&now, &tm);
		strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (out_global.format == OUT_JSON) {
			struct cell cb = { CELL_MONEY, NULL, acct.balance, 0, 0 };
			struct cell cr = { CELL_MONEY, NULL, acct.spend_hour, 0, 0 };

			fprintf(c->out, "{\"time\":\"%s\",\"seed\":%llu,\"balance\":%s,",
			    t, (unsigned long long)sim_seed(sim), cell_text(&cb, bal, sizeof(bal), false));
			fprintf(c->out, "\"burn_hour\":%s}\n", cell_text(&cr, burn, sizeof(burn), false));
		} else
			/* Money prints as everywhere else: "-$12.34", never "$-12.34". */
			fprintf(c->out, "time     %s\nseed     %llu\nbalance  %s\nburn     %s/h\n",
			    t, (unsigned long long)sim_seed(sim),
			    money_format(bal, sizeof(bal), acct.balance, 2, true),
			    money_format(burn, sizeof(burn), acct.spend_hour, 3, true));
		rc = 0;
	} else if (strcmp(argv[0], "bill-extra") == 0) {
		int64_t amount;

		if ((n != 3 && n != 4) || !money_parse(argv[2], &amount) ||
		    (n == 4 && strcmp(argv[3], "storage") != 0)) {
			sim_close(sim);
			return cmd_usage_error(c, "usage: gpurent sim bill-extra ID AMOUNT [storage] "
			    "(AMOUNT in US dollars, 1.50)");
		}
		rc = sim_bill_extra(sim, argv[1], amount, n == 4, &err) == GR_OK ? 0 :
		    cmd_error(c, &err);
	} else
		rc = cmd_usage_error(c, "unknown subcommand '%s' (advance, preempt, status, bill-extra)",
		    argv[0]);
	sim_close(sim);
	return finish_output(c, rc);
}

const struct command cmd_sim = {
	.name = "sim",
	.args = "advance DURATION | preempt ID | status | bill-extra ID AMOUNT [storage] | "
	    "serve --dialect vast|runpod|lambda|ppio [OPTIONS]",
	.summary = N_("steer the simulated marketplace"),
	.opts = opts,
	.help =
	    N_("'advance' moves the simulated clock forward for every gpurent process using this\n"
	    "state directory (at most 366d at a time): instances boot, stop, get outbid and\n"
	    "bill as if the time had passed. 'preempt ID' takes an instance away, now or\n"
	    "--at a simulated time: --reason outbid (an interruptible one is stopped, its disk\n"
	    "kept), host-failure (it fails) or unreachable (its ssh refuses while it still\n"
	    "runs and bills, and it fails 10 minutes later); a stop or destroy before then\n"
	    "cancels it. 'status' shows the simulated time, seed, balance\n"
	    "and burn rate. 'bill-extra' makes the simulated provider bill AMOUNT US dollars\n"
	    "to instance ID now (as its disk with 'storage'), which gpurent never sees: what\n"
	    "'gpurent costs --check' is there to find. 'serve' serves the world over HTTP in\n"
	    "a provider's protocol "
	    "('gpurent sim serve --help'). Environment: GPURENT_SIM_SEED, GPURENT_SIM_TIME,\n"
	    "GPURENT_SIM_SPEED, GPURENT_SIM_OFFERS; a value that is not a whole number in\n"
	    "range is refused (status 2)."),
	.run = sim_run,
};
