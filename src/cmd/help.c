/*
 * gpurent help [COMMAND]
 */
#include <stdio.h>

#include "gpurent/cmd.h"
#include "gpurent/i18n.h"
#include "common.h"

static int
help_run(struct cmd_ctx *c, int argc, char **argv)
{
	const struct command *cmd;
	const char *hint;

	if (argc < 2) {
		cmd_print_overview(c->out);
		return finish_output(c, 0);
	}
	cmd = cmd_find(argv[1]);
	if (cmd == NULL) {
		hint = cmd_suggest(argv[1]);
		fprintf(stderr, _("gpurent: no command '%s'%s%s%s\n"), argv[1],
		    hint ? _("; did you mean '") : "", hint ? hint : "", hint ? _("'?") : "");
		return EXIT_USAGE;
	}
	cmd_print_help(c->out, cmd);
	return finish_output(c, 0);
}

const struct command cmd_help = {
	.name = "help",
	.args = "[COMMAND]",
	.summary = N_("show help for gpurent or a command"),
	.complete_args = CPL_COMMAND,
	.run = help_run,
};
