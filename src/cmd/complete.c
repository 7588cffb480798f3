/*
 * gpurent __complete: what the bash, zsh and fish completions ask the binary, so the
 * command table stays the only list of commands and options.
 *
 *   __complete commands
 *   __complete options CMD
 *   __complete args CMD PREFIX           positional words of CMD
 *   __complete optarg CMD OPTION PREFIX  values of an option's argument
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

/* Print the shell's completions of partial after words (the one engine for both). */
static void
print_completions(struct cmd_ctx *c, char **words, int nwords, const char *partial)
{
	char **cands = cmd_shell_ops->complete(c->s, words, nwords, partial);
	size_t i;

	for (i = 0; cands != NULL && cands[i] != NULL; i++)
		fprintf(c->out, "%s\n", cands[i]);
	cmd_shell_ops->words_free(cands);
}

/* The option "--name", "-n", "name" or "n" names, as cmd_parse finds it. */
static const struct cmd_opt *
find_opt(const struct command *cmd, const char *name)
{
	const struct cmd_opt *o;

	while (*name == '-')
		name++;
	o = cmd_opt_long(cmd, name, strlen(name), NULL);
	if (o == NULL && name[0] != '\0' && name[1] == '\0')
		o = cmd_opt_short(cmd, name[0], NULL);
	return o;
}

static int
complete_run(struct cmd_ctx *c, int argc, char **argv)
{
	const struct command *cmd;
	const struct cmd_opt *o;

	if (argc >= 2 && strcmp(argv[1], "commands") == 0) {
		size_t i;
		const char *prefix = argc >= 3 ? argv[2] : "";

		for (i = 0; commands[i] != NULL; i++)
			if (!(commands[i]->flags & CMD_HIDDEN) &&
			    strncmp(commands[i]->name, prefix, strlen(prefix)) == 0)
				fprintf(c->out, "%s\n", commands[i]->name);
	} else if (argc >= 3 && strcmp(argv[1], "options") == 0) {
		const struct cmd_opt *tables[2];
		size_t t;

		cmd = cmd_find(argv[2]);
		tables[0] = cmd ? cmd->opts : NULL;
		tables[1] = global_opts;
		for (t = 0; t < 2; t++)
			for (o = tables[t]; o != NULL && o->name != NULL; o++) {
				fprintf(c->out, "--%s\n", o->name);
				if (o->short_name)
					fprintf(c->out, "-%c\n", o->short_name);
			}
	} else if (argc >= 3 && strcmp(argv[1], "args") == 0) {
		if (cmd_find(argv[2]) != NULL)
			print_completions(c, argv + 2, 1, argc >= 4 ? argv[3] : "");
	} else if (argc >= 4 && strcmp(argv[1], "optarg") == 0) {
		cmd = cmd_find(argv[2]);
		o = find_opt(cmd, argv[3]);
		/* Without a command yet ("__none"), only a global option can be asked about. */
		if (o != NULL && o->arg != NULL)
			print_completions(c, cmd != NULL ? argv + 2 : argv + 3, cmd != NULL ? 2 : 1,
			    argc >= 5 ? argv[4] : "");
	} else if (argc >= 3 && strcmp(argv[1], "takes-arg") == 0) {
		/* Exit 0 when OPTION of CMD takes an argument: the scripts skip its value. */
		o = find_opt(argc >= 4 ? cmd_find(argv[2]) : NULL, argv[argc >= 4 ? 3 : 2]);
		return o != NULL && o->arg != NULL ? 0 : 1;
	} else
		return EXIT_USAGE;
	return finish_output(c, 0);
}

const struct command cmd_complete = {
	.name = "__complete",
	.summary = "words for shell completion (used by the completion scripts)",
	.flags = CMD_HIDDEN,
	.run = complete_run,
};
