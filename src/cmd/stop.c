/*
 * gpurent stop
 */
#include "gpurent/cmd.h"
#include "lifecycle.h"

static int
stop_run(struct cmd_ctx *c, int argc, char **argv)
{
	return lifecycle_run(c, argc, argv, LC_STOP);
}

const struct command cmd_stop = {
	.name = "stop",
	.args = "ID...",
	.summary = "stop instances, keeping their disks (billed for storage)",
	.help = "A provider that cannot stop instances (lambda) says so; use destroy there.",
	.opts = lifecycle_opts,
	.complete_args = CPL_INSTANCE,
	.run = stop_run,
};
