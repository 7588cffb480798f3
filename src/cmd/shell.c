/*
 * shell.c - `gpurent shell`: the interactive prompt (src/shell does the work, reached
 * through cmd_shell_ops since it sits above the command table).
 */
#include "gpurent/cmd.h"
#include "gpurent/i18n.h"
#include "common.h"

static int
shell_cmd_run(struct cmd_ctx *c, int argc, char **argv)
{
	int npos = 0, rc;

	if ((rc = cmd_parse(c, argc, argv, NULL, NULL, &npos)) != 0)
		return rc;
	if (npos < 0)
		return 0;
	if (npos > 0)
		return cmd_usage_error(c, "takes no arguments");
	return cmd_shell_ops->run(c->s);
}

const struct command cmd_shell = {
	.name = "shell",
	.alias = NULL,
	.args = NULL,
	.summary = N_("an interactive prompt with completion and history"),
	.help =
	    N_("Reads commands at a prompt and runs each through the same command table as the\n"
	    "command line, without the 'gpurent' in front: 'offers gpu=h100', 'ls', 'metrics\n"
	    "sim:i-000001 --follow'. Tab completes commands, options, providers, GPU names,\n"
	    "filter terms, and offer and instance ids from the local database. Ctrl-C stops the\n"
	    "running command and keeps the shell; an error is printed and the shell goes on;\n"
	    "'exit' or Ctrl-D leaves.\n\n"
	    "History is kept in the state directory (mode 0600). Lines that may carry a secret\n"
	    "are never written there: 'login', any line naming a key, token, password or\n"
	    "passphrase, any line holding the value of a *_API_KEY variable, lines that are not\n"
	    "gpurent commands, and lines that start with a blank.\n\n"
	    "Global options given on a line apply to that line only; 'gpurent --profile NAME\n"
	    "shell' selects a profile for the whole session. With standard input not a terminal,\n"
	    "commands are read one per line (a script) and the exit status is that of the last\n"
	    "command that failed."),
	.opts = NULL,
	.complete_args = CPL_NONE,
	.flags = CMD_NOT_IN_SHELL,
	.run = shell_cmd_run,
};
