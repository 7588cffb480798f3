/*
 * gpurent destroy: its entry in the command table; lifecycle.c does the work.
 */
#include "gpurent/cmd.h"
#include "gpurent/i18n.h"
#include "lifecycle.h"

const struct command cmd_destroy = {
	.name = "destroy",
	.args = "ID...",
	.summary = N_("destroy instances and their disks"),
	.help =
	    N_("On a terminal it says what will be lost and asks first. Without --yes it refuses\n"
	    "when stdin is not a terminal. It has no alias, so that it is not run by accident."),
	.opts = destroy_opts,
	.complete_args = CPL_INSTANCE,
	.run = lifecycle_run,
};
