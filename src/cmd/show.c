/*
 * gpurent show: one instance, every field.
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/columns.h"
#include "gpurent/i18n.h"
#include "gpurent/observed.h"
#include "gpurent/output.h"
#include "gpurent/state.h"
#include "common.h"

struct show_state {
	int64_t now;
	bool first;
	struct team_view tv;	/* USER: a team profile's, as in ls */
};

static enum gr_err
show_one(struct cmd_ctx *c, struct backend *b, const char *id, struct gr_error *err, void *data)
{
	struct show_state *ss = data;
	struct out_opts o = out_global;
	struct instance in;

	memset(&in, 0, sizeof(in));
	if (observed_get(b, id, &in, err) != GR_OK)
		return err->code;
	if (!ss->first && out_global.format == OUT_TABLE)
		fputc('\n', c->out);
	if (!ss->first)
		o.no_header = true;	/* csv and tsv: one header for all the records */
	ss->first = false;
	if (ss->tv.team) {
		struct state *st;

		/* Who launched or last started it, as ls says it. */
		if (session_state(c->s, &st, NULL) == GR_OK)
			state_journal_users(st, &in, 1);
	}
	return out_print_record(c->out, &o, instance_columns, team_view_columns(&ss->tv,
	    ICOL__COUNT), &in, instance_cell, &ss->now, err);
}

static int
show_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct show_state ss;
	int n, rc;

	if (!cmd_parse_args(c, argc, argv, NULL, NULL,
	    N_("which instance? give an ID from 'gpurent ls'"), &n, &rc))
		return rc;
	ss.now = session_now(c->s);
	ss.first = true;
	cmd_team_view(c, false, &ss.tv);
	rc = for_each_id(c, n, argv, show_one, &ss);
	return finish_output(c, rc);
}

const struct command cmd_show = {
	.name = "show",
	.args = "ID...",
	.summary = N_("show every field of instances"),
	.complete_args = CPL_INSTANCE,
	.run = show_run,
};
