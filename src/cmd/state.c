/*
 * gpurent state migrate --to URL: the personal state file copied into a team's PostgreSQL
 * database (state_migrate), and what was copied, table by table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	const char *to;
	bool replace;
};

static const struct cmd_opt opts[] = {
	{ "to", 0, "URL", N_("the PostgreSQL database to copy into (postgresql://...)"), OPT_AT(struct args, to), CPL_NONE, OPT_STR },
	{ "replace", 0, NULL, N_("empty the target's gpurent tables first when they hold rows (refused otherwise)"), OPT_AT(struct args, replace), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

enum { C_TABLE, C_ROWS };

static const struct column cols[] = {
	[C_TABLE] = { "table", N_("TABLE"), false, false, 0, 0 },
	[C_ROWS] = { "rows", N_("ROWS"), true, false, 0, 0 },
};

static void
cell(const void *row, size_t c, struct cell *out, void *ctx)
{
	const struct state_copied *t = row;

	if (c == C_TABLE) {
		out->kind = CELL_STR;
		out->s = t->table;
	} else {
		out->kind = CELL_INT;
		out->i = t->rows;
	}
}

static int
state_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { NULL, false };
	struct gr_error err = { 0 };
	struct state_copied *v = NULL;
	struct state *from, *to;
	size_t n = 0, i;
	int64_t rows = 0;
	int rc, npos;

	if (!cmd_parse_args(c, argc, argv, NULL, &a, N_("say migrate"), &npos, &rc))
		return rc;
	if (strcmp(argv[0], "migrate") != 0)
		return cmd_usage_error(c, "unknown subcommand '%s' (migrate)", argv[0]);
	if (npos != 1)
		return cmd_usage_error(c, "migrate takes no arguments");
	if (a.to == NULL || !state_is_url(a.to))
		return cmd_usage_error(c, "migrate needs --to postgresql://...");
	if (session_state(c->s, &from, &err) != GR_OK)
		return cmd_error(c, &err);
	if (state_is_postgresql(from))
		return cmd_usage_error(c, "the state is in PostgreSQL already (%s): migrate copies "
		    "the personal file; unset GPURENT_STATE_URL and state.url", state_path(from));
	if (state_open(&to, a.to, &err) != GR_OK)
		return cmd_error(c, &err);
	rc = state_migrate(from, to, a.replace, &v, &n, &err);
	state_close(to);
	if (rc != GR_OK)
		return cmd_error(c, &err);
	for (i = 0; i < n; i++)
		rows += v[i].rows;
	if (c->s->interactive && out_global.format == OUT_TABLE)
		fprintf(stderr, _("copied %lld rows of %zu tables from %s into %s\n"),
		    (long long)rows, n, state_path(from), a.to);
	rc = cmd_print(c, cols, ARRAY_LEN(cols), C_TABLE, v, n, sizeof(*v), cell, NULL, 0);
	free(v);
	return rc;
}

const struct command cmd_state = {
	.name = "state",
	.args = "migrate --to URL",
	.summary = N_("the state database: copy a personal one into a team's PostgreSQL"),
	.help =
	    N_("migrate copies the personal state file (the ledger, samples and their roll-ups,\n"
	    "jobs, managed jobs, groups, events, the launch journal, the caches and every\n"
	    "other table of the store) into the PostgreSQL database --to names, in one\n"
	    "transaction: all of it or nothing. Rows keep their ids; the ledger's totals are\n"
	    "copied as they are. A target whose gpurent tables hold rows already is refused\n"
	    "(exit status 13) unless --replace, which empties them first; rows are never\n"
	    "merged. The role must own the target's tables (their triggers are off during the\n"
	    "copy). The file is left as it is. Prints each table with the rows copied."),
	.opts = opts,
	.complete_args = CPL_STATE_ARGS,
	.run = state_run,
};
