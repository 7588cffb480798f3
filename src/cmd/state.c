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
	bool replace, merge;
};

static const struct cmd_opt opts[] = {
	{ "to", 0, "URL", N_("the PostgreSQL database to copy into (postgresql://...)"), OPT_AT(struct args, to), CPL_NONE, OPT_STR },
	{ "replace", 0, NULL, N_("empty the target's gpurent tables first when they hold rows (refused otherwise)"), OPT_AT(struct args, replace), CPL_NONE, OPT_TRUE },
	{ "merge", 0, NULL, N_("add to a target that holds others' rows: what it has already is not copied again"), OPT_AT(struct args, merge), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

enum { C_TABLE, C_ROWS, C_ALREADY, C_KEPT, C_TRIMMED, C_DERIVED };

/* A plain copy shows the first two; a merge all. */
static const struct column cols[] = {
	[C_TABLE] = { "table", N_("TABLE"), false, false, 0, 0 },
	[C_ROWS] = { "rows", N_("ROWS"), true, false, 0, 0 },
	[C_ALREADY] = { "already", N_("ALREADY"), true, false, 0, 0 },
	[C_KEPT] = { "kept", N_("KEPT"), true, false, 0, 0 },
	[C_TRIMMED] = { "trimmed", N_("TRIMMED"), true, false, 0, 0 },
	[C_DERIVED] = { "derived", N_("DERIVED"), false, false, 0, 0 },
};

static void
cell(const void *row, size_t c, struct cell *out, void *ctx)
{
	const struct state_copied *t = row;

	out->kind = CELL_INT;
	switch (c) {
	case C_TABLE:
		out->kind = CELL_STR;
		out->s = t->table;
		break;
	case C_ROWS: out->i = t->rows; break;
	case C_ALREADY: out->i = t->already; break;
	case C_KEPT: out->i = t->kept; break;
	case C_TRIMMED: out->i = t->trimmed; break;
	default:
		out->kind = CELL_BOOL;
		out->i = t->derived;
	}
}

static int
state_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { NULL, false, false };
	struct gr_error err = { 0 };
	struct state_copied *v = NULL;
	struct state *from, *to;
	size_t n = 0, i;
	int64_t rows = 0, already = 0, trimmed = 0;
	int rc, npos;

	if (!cmd_parse_args(c, argc, argv, NULL, &a, N_("say migrate"), &npos, &rc))
		return rc;
	if (strcmp(argv[0], "migrate") != 0)
		return cmd_usage_error(c, "unknown subcommand '%s' (migrate)", argv[0]);
	if (npos != 1)
		return cmd_usage_error(c, "migrate takes no arguments");
	if (a.to == NULL || !state_is_url(a.to))
		return cmd_usage_error(c, "migrate needs --to postgresql://...");
	if (a.merge && a.replace)
		return cmd_usage_error(c, "--merge adds to the target's rows, --replace empties it: "
		    "one or the other");
	if (session_state(c->s, &from, &err) != GR_OK)
		return cmd_error(c, &err);
	if (state_is_postgresql(from))
		return cmd_usage_error(c, "the state is in PostgreSQL already (%s): migrate copies "
		    "the personal file; unset GPURENT_STATE_URL and state.url", state_path(from));
	if (state_open(&to, a.to, &err) != GR_OK)
		return cmd_error(c, &err);
	rc = state_migrate(from, to, a.merge ? STATE_MIGRATE_MERGE : a.replace ?
	    STATE_MIGRATE_REPLACE : STATE_MIGRATE_EMPTY, &v, &n, &err);
	state_close(to);
	if (rc != GR_OK)
		return cmd_error(c, &err);
	for (i = 0; i < n; i++) {
		rows += v[i].rows;
		already += v[i].already + v[i].kept;
		trimmed += v[i].trimmed;
	}
	if (a.merge && rows + trimmed == 0)
		fprintf(stderr, _("nothing new: the target holds all of %s already\n"),
		    state_path(from));
	else if (c->s->interactive && out_global.format == OUT_TABLE && a.merge)
		fprintf(stderr, _("merged %s into %s: %lld rows copied, %lld in part, %lld there "
		    "already or kept as the target has them\n"), state_path(from), a.to,
		    (long long)rows, (long long)trimmed, (long long)already);
	else if (c->s->interactive && out_global.format == OUT_TABLE)
		fprintf(stderr, _("copied %lld rows of %zu tables from %s into %s\n"),
		    (long long)rows, n, state_path(from), a.to);
	rc = cmd_print(c, cols, a.merge ? ARRAY_LEN(cols) : C_ALREADY, C_TABLE, v, n, sizeof(*v),
	    cell, NULL, 0);
	free(v);
	return rc;
}

const struct command cmd_state = {
	.name = "state",
	.args = "migrate --to URL [--merge|--replace]",
	.summary = N_("the state database: copy a personal one into a team's PostgreSQL"),
	.help =
	    N_("migrate copies the personal state file (the ledger, samples and their roll-ups,\n"
	    "jobs, managed jobs, groups, events, the launch journal, the caches and every\n"
	    "other table of the store) into the PostgreSQL database --to names, in one\n"
	    "transaction: all of it or nothing. Rows keep their ids; the ledger's totals are\n"
	    "copied as they are. A target whose gpurent tables hold rows already is refused\n"
	    "(exit status 13) unless --replace, which empties them first, or --merge. The\n"
	    "role must own the target's tables (their triggers are off during the copy).\n"
	    "The file is left as it is. Prints each table with the rows copied.\n"
	    "\n"
	    "--merge adds the file to a team's database that holds others' rows (each of a\n"
	    "team's people brings theirs in), changing none of them. Rows take new ids; a row\n"
	    "the target has already is not copied again (ALREADY), one whose key it has with\n"
	    "other values stays as the target has it (KEPT). People on one account record\n"
	    "the same instances: a ledger segment bills only time outside the target's\n"
	    "segments of its instance, first to last (TRIMMED: copied in part); inside them\n"
	    "the target's record stands. A GPU's samples of a minute the target measured it\n"
	    "are there already. The ledger's totals and the hourly roll-ups follow from what\n"
	    "is copied (DERIVED). Rows that say no user take yours. Managed jobs take the\n"
	    "next free mN. The caches, the leases and this machine's passing state (launches\n"
	    "in flight, the watcher's warnings) are left out. One transaction, holding the\n"
	    "team's writes until it ends; merging the same file again copies nothing."),
	.opts = opts,
	.complete_args = CPL_STATE_ARGS,
	.run = state_run,
};
