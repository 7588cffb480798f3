/*
 * gpurent version
 */
#include <stdio.h>

#include "gpurent/cmd.h"
#include "gpurent/i18n.h"
#include "common.h"

static int
version_run(struct cmd_ctx *c, int argc, char **argv)
{
	/* No option parsing, so a broken config file never hides the version. */
	(void)argc;
	(void)argv;
	fprintf(c->out, "gpurent %s\n", GPURENT_VERSION);
	return finish_output(c, 0);
}

const struct command cmd_version = {
	.name = "version",
	.summary = N_("print the version"),
	.run = version_run,
};
