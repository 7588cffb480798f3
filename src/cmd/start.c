/*
 * gpurent start
 */
#include "gpurent/cmd.h"
#include "lifecycle.h"

static int
start_run(struct cmd_ctx *c, int argc, char **argv)
{
	return lifecycle_run(c, argc, argv, LC_START);
}

const struct command cmd_start = {
	.name = "start",
	.args = "ID...",
	.summary = "start stopped instances",
	.opts = lifecycle_opts,
	.complete_args = CPL_INSTANCE,
	.run = start_run,
};
