/*
 * view_events.c - the events view: what gpurent watch saw and did, newest first, one line
 * each, coloured by level (alerts stand out); arrows and page keys scroll.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "ui.h"

static enum ui_color
level_color(enum event_level l)
{
	switch (l) {
	case EV_ALERT: return UC_BAD;
	case EV_WARN: return UC_WARN;
	case EV_ACTION: return UC_ACCENT;
	default: return UC_NORMAL;
	}
}

static void
draw_events(struct ui *u, const struct ui_rect *r)
{
	char line[1024], at[32], label[64], msg[EVENT_MSG_MAX];
	int y = r->y, rows = r->h - 1;
	size_t i;
	const struct ui_head heads[] = {
		{ _("TIME"), 16, false }, { _("LEVEL"), 6, false }, { _("EVENT"), 16, false },
		{ _("INSTANCE"), 14, false }, { _("LABEL"), 12, false }, { _("MESSAGE"), 0, false },
	};

	ui_put(y++, 1, r->w - 2, ui_head_line(line, sizeof(line), heads, ARRAY_LEN(heads)),
	    ui_attr(UC_COLHEAD), false);
	if (!u->have_costs) {
		ui_put(y, 2, r->w - 4, _("reading the journal ..."), ui_attr(UC_DIM), false);
		return;
	}
	if (u->ev.n_events == 0) {
		ui_put(y, 2, r->w - 4, _("no events: 'gpurent watch' writes them when it acts"),
		    ui_attr(UC_DIM), false);
		return;
	}
	if (u->ev.top >= u->ev.n_events)
		u->ev.top = u->ev.n_events - 1;
	for (i = u->ev.top; i < u->ev.n_events && (int)(i - u->ev.top) < rows; i++) {
		const struct event *e = &u->ev.events[u->ev.n_events - 1 - i];
		struct cell c = { CELL_TIME, NULL, e->at, 0, 0 };

		cell_text(&c, at, sizeof(at), true);
		/* Labels and messages come from providers: stripped, then cut to fit. */
		ui_text_fit(label, sizeof(label), e->label[0] ? e->label : "-", 12, false);
		text_sanitize(msg, sizeof(msg), e->message);
		snprintf(line, sizeof(line), "%-16s %-6s %-16s %-14s %s %s", at,
		    event_level_name(e->level), e->kind, e->instance_id[0] ? e->instance_id : "-",
		    label, msg);
		ui_put(y++, 1, r->w - 2, line, ui_attr(level_color(e->level)), false);
	}
}

static bool
events_key(struct ui *u, int key)
{
	return ui_scroll_key(u, key, &u->ev.top, u->ev.n_events);
}

/* The watcher's newest events, read with the costs. */
static void
events_take(struct ui *u, struct ui_result *r)
{
	if (r->job != UJ_COSTS || r->code != GR_OK)
		return;
	free(u->ev.events);
	u->ev.events = r->events;
	u->ev.n_events = r->n_events;
	r->events = NULL;
	r->n_events = 0;
}

static void
events_release(struct ui *u)
{
	free(u->ev.events);
}

const struct ui_view_ops ui_view_events = {
	.name = "events",
	.title = N_("Events"),
	.release = events_release,
	.take = events_take,
	.draw = draw_events,
	.key = events_key,
	.keys = N_("j/k scroll  g newest  r refresh"),
};
