/*
 * gpurent events: the watcher's journal (events.h), newest last; --follow for more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/events.h"
#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "gpurent/watch.h"
#include "common.h"

struct args {
	const char *since;	/* --since as given, NULL: all */
	bool follow;
	enum event_level level;
};

static const struct cmd_opt opts[] = {
	{ "since", 's', "WHEN", N_("only events from WHEN: a duration back (2h, 7d) or a UTC date or time (2026-12-01, RFC 3339)"), OPT_AT(struct args, since), CPL_NONE, OPT_WHEN },
	{ "follow", 'f', NULL, N_("keep printing events as the watcher writes them, until interrupted"), OPT_AT(struct args, follow), CPL_NONE, OPT_TRUE },
	{ "level", 'l', "LEVEL", N_("only events of this level or above: info, action, warn, alert"), 0, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;

	(void)id;	/* --level, the one option cmd_parse does not store */
	if (!event_level_parse(arg, &a->level))
		return cmd_usage_error(c, "--level is info, action, warn or alert");
	return 0;
}

enum { C_SEQ, C_AT, C_LEVEL, C_KIND, C_POLICY, C_INSTANCE, C_LABEL, C_UTIL, C_MESSAGE };

static const struct column cols[] = {
	[C_SEQ] = { "seq", N_("SEQ"), true, true, 3, 0 },
	[C_AT] = { "at", N_("TIME"), false, false, 0, 0 },
	[C_LEVEL] = { "level", N_("LEVEL"), false, false, 0, 0 },
	[C_KIND] = { "kind", N_("EVENT"), false, false, 0, 0 },
	[C_POLICY] = { "policy", N_("POLICY"), false, false, 2, 0 },
	[C_INSTANCE] = { "instance_id", N_("INSTANCE"), false, false, 0, 0 },
	[C_LABEL] = { "label", N_("LABEL"), false, false, 2, 8 },
	[C_UTIL] = { "util_pct", N_("UTIL%"), true, false, 3, 0 },
	[C_MESSAGE] = { "message", N_("MESSAGE"), false, false, 1, 20 },
};

static void
cell(const void *row, size_t c, struct cell *out, void *ctx)
{
	const struct event *e = row;

	out->kind = CELL_STR;
	switch (c) {
	case C_SEQ: out->kind = CELL_INT; out->i = e->seq; break;
	case C_AT: out->kind = CELL_TIME; out->i = e->at; break;
	case C_LEVEL:
		out->s = event_level_name(e->level);
		out->color = e->level == EV_ALERT ? OC_BAD : e->level == EV_WARN ? OC_WARN :
		    e->level == EV_ACTION ? OC_ACCENT : OC_NONE;
		break;
	case C_KIND: out->s = e->kind; break;
	case C_POLICY: out->s = e->policy; break;
	case C_INSTANCE: out->s = e->instance_id; break;
	case C_LABEL: out->s = e->label; break;
	case C_UTIL:
		if (e->util_pct < 0)
			out->kind = CELL_NULL;
		else {
			out->kind = CELL_INT;
			out->i = e->util_pct;
		}
		break;
	default: out->s = e->message; break;
	}
	if (out->kind == CELL_STR && out->s[0] == '\0' && c != C_MESSAGE)
		out->kind = CELL_NULL;
}

/* Drop the events below the level asked for; returns how many are left. */
static size_t
keep_level(struct event *v, size_t n, enum event_level level)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (v[i].level >= level)
			v[k++] = v[i];
	return k;
}

static int
events_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { NULL, false, EV_INFO };
	struct gr_error err = { 0 };
	struct out_widths keep;
	struct out_opts o;
	struct timespec step = { 0, 250000000L };
	struct state *st;
	struct event *v = NULL;
	size_t n = 0, k, i;
	int64_t since = 0, last = 0;
	int rc, round = 0;

	if (!cmd_parse_options(c, argc, argv, handle, &a, N_("takes no arguments"), &rc))
		return rc;
	o = out_global;	/* after the parse: an -o after the command name sets it */
	if (session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	if (a.since != NULL)
		parse_when(a.since, session_now(c->s), &since);
	memset(&keep, 0, sizeof(keep));
	if (a.follow)
		o.keep = &keep;
	for (;;) {
		if (events_load(st, since, last, 0, &v, &n, &err) != GR_OK)
			return cmd_error(c, &err);
		if (n > 0)
			last = v[n - 1].seq;
		k = keep_level(v, n, a.level);
		if (a.follow && o.format == OUT_JSON) {
			/* Followed JSON is one object per line, so a reader can act on each. */
			for (i = 0; i < k; i++) {
				char *j = watch_event_json(&v[i]);

				fprintf(c->out, "%s\n", j);
				free(j);
			}
		} else if (k > 0 || (!a.follow && round == 0)) {
			if (out_print(c->out, &o, cols, ARRAY_LEN(cols), C_SEQ, v, k, sizeof(*v),
			    cell, NULL, &err) != GR_OK) {
				free(v);
				return cmd_error(c, &err);
			}
			if (a.follow && k > 0)
				o.no_header = true;
		}
		free(v);
		v = NULL;
		round++;
		if (!a.follow || cmd_interrupted)
			break;
		if (fflush(c->out) != 0)
			break;
		for (i = 0; i < 4 && !cmd_interrupted; i++)
			nanosleep(&step, NULL);
		if (cmd_interrupted)
			break;
	}
	return finish_output(c, 0);
}

const struct command cmd_events = {
	.name = "events",
	.summary = N_("what the watcher saw and did: its event journal"),
	.help =
	    N_("Every observation that led the watcher to act, every stop or destroy it ordered\n"
	    "and verified, every retry and alert, oldest first. Times are on the clock of the\n"
	    "instance's provider. With --follow, new events are printed as they are written\n"
	    "(as one JSON object per line with -o json) until interrupted."),
	.opts = opts,
	.run = events_run,
};
