/*
 * gpurent start: its entry in the command table; lifecycle.c does the work.
 */
#include "gpurent/cmd.h"
#include "gpurent/i18n.h"
#include "lifecycle.h"

const struct command cmd_start = {
	.name = "start",
	.args = "ID...",
	.summary = N_("start stopped instances"),
	.help =
	    N_("An instance that is still stopping is waited for, then started; one that does\n"
	    "not settle within --timeout is a state conflict (status 13). With --wait, waits\n"
	    "until each runs (status 11 when --timeout passes first). A stopped instance bills\n"
	    "again once started, so budget.day and budget.month admit it as they admit a\n"
	    "launch, at its price per hour (status 9 when they refuse; --force overrides)."),
	.opts = start_opts,
	.complete_args = CPL_INSTANCE,
	.run = lifecycle_run,
};
