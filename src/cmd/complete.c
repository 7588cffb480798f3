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

#include "gpurent/backend.h"
#include "gpurent/catalogue.h"
#include "gpurent/columns.h"
#include "gpurent/config.h"
#include "gpurent/filter.h"
#include "gpurent/idcache.h"
#include "gpurent/shell.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "common.h"

static void
word(FILE *fp, const char *prefix, const char *w)
{
	if (strncmp(w, prefix, strlen(prefix)) == 0)
		fprintf(fp, "%s\n", w);
}

static void
id_word(const char *id, const char *desc, void *ctx)
{
	(void)desc;
	fprintf(ctx, "%s\n", id);
}

static void
cached_ids(struct cmd_ctx *c, enum idcache_kind kind, const char *prefix)
{
	struct state *st;

	if (session_state(c->s, &st, NULL) == GR_OK)
		idcache_each(st, kind, prefix, id_word, c->out, NULL);
}

static const struct cmd_opt *
find_opt(const struct command *cmd, const char *name)
{
	const struct cmd_opt *tables[2] = { cmd ? cmd->opts : NULL, global_opts };
	const struct cmd_opt *o;
	size_t t;

	while (*name == '-')
		name++;
	for (t = 0; t < 2; t++)
		for (o = tables[t]; o != NULL && o->name != NULL; o++)
			if (strcmp(o->name, name) == 0 || (o->short_name && name[0] ==
			    o->short_name && name[1] == '\0'))
				return o;
	return NULL;
}

/* Complete one kind of word. */
static void
complete(struct cmd_ctx *c, enum opt_complete kind, const char *prefix)
{
	static const char *const formats[] = { "table", "json", "csv", "tsv", "ids" };
	size_t i, n;

	switch (kind) {
	case CPL_OFFER:
		cached_ids(c, IDC_OFFER, prefix);
		break;
	case CPL_INSTANCE:
		cached_ids(c, IDC_INSTANCE, prefix);
		break;
	case CPL_PROVIDER: {
		const struct backend_ops *const *all = backend_registry(&n);

		for (i = 0; i < n; i++)
			word(c->out, prefix, all[i]->name);
		break;
	}
	case CPL_GPU: {
		const struct gpu_model *m = catalogue_all(&n);

		for (i = 0; i < n; i++)
			word(c->out, prefix, m[i].id);
		break;
	}
	case CPL_FORMAT:
		for (i = 0; i < ARRAY_LEN(formats); i++)
			word(c->out, prefix, formats[i]);
		break;
	case CPL_FIELD:
		for (i = 0; i < OCOL__COUNT; i++)
			word(c->out, prefix, offer_columns[i].name);
		for (i = 0; i < ICOL__COUNT; i++)
			word(c->out, prefix, instance_columns[i].name);
		break;
	case CPL_SORT: {
		char buf[256], *tok, *save = NULL;

		strlcpy_(buf, sort_keys_help(), sizeof(buf));
		for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
			word(c->out, prefix, tok);
		break;
	}
	case CPL_STATE:
		for (i = ST_PROVISIONING; i < ST__COUNT; i++)
			word(c->out, prefix, inst_state_name((enum inst_state)i));
		break;
	case CPL_CONFIG_KEY: {
		const struct config_key *k = config_keys(&n);
		static const char *const subs[] = { "get", "set", "unset", "list", "path" };

		for (i = 0; i < ARRAY_LEN(subs); i++)
			word(c->out, prefix, subs[i]);
		for (i = 0; i < n; i++)
			word(c->out, prefix, k[i].name);
		break;
	}
	case CPL_COMMAND:
		for (i = 0; commands[i] != NULL; i++)
			if (!(commands[i]->flags & CMD_HIDDEN))
				word(c->out, prefix, commands[i]->name);
		break;
	case CPL_PROFILE: {
		struct config *cfg;
		const char *names[64];

		if (session_config(c->s, &cfg, NULL) == GR_OK) {
			n = config_profiles(cfg, names, ARRAY_LEN(names));
			for (i = 0; i < n; i++)
				word(c->out, prefix, names[i]);
		}
		break;
	}
	default:
		break;
	}
}

static int
complete_run(struct cmd_ctx *c, int argc, char **argv)
{
	const struct command *cmd;
	const struct cmd_opt *o;

	if (argc >= 2 && strcmp(argv[1], "commands") == 0) {
		complete(c, CPL_COMMAND, argc >= 3 ? argv[2] : "");
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
		cmd = cmd_find(argv[2]);
		if (cmd != NULL && cmd->complete_args == CPL_FILTER) {
			/* Filter terms and their values ("gpu=h1" -> "gpu=H100..."): the shell's engine. */
			char *words[1] = { argv[2] };
			char **cands = shell_complete(c->s, words, 1, argc >= 4 ? argv[3] : "");
			size_t i;

			for (i = 0; cands != NULL && cands[i] != NULL; i++)
				fprintf(c->out, "%s\n", cands[i]);
			shell_argv_free(cands);
		} else if (cmd != NULL)
			complete(c, cmd->complete_args, argc >= 4 ? argv[3] : "");
	} else if (argc >= 4 && strcmp(argv[1], "optarg") == 0) {
		o = find_opt(cmd_find(argv[2]), argv[3]);
		if (o != NULL && o->arg != NULL)
			complete(c, o->complete, argc >= 5 ? argv[4] : "");
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
