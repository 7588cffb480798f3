/*
 * view_jobs.c - the jobs view: the managed jobs of 'gpurent run --managed', as 'gpurent
 * jobs --managed' lists them (state, attempt, checkpoint age, recoveries, lost work, cost
 * so far), one selected; K cancels the selected one after a confirmation, through the
 * engine's door (managed_cancel), as 'gpurent kill mN' does.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/managed.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "ui.h"

static enum ui_color
state_color(enum managed_state s)
{
	switch (s) {
	case MJ_FAILED: return UC_BAD;
	case MJ_RECOVERING: case MJ_CANCELLING: return UC_WARN;
	case MJ_DONE: case MJ_CANCELLED: return UC_DIM;
	default: return UC_NORMAL;
	}
}

static void
draw_jobs(struct ui *u, const struct ui_rect *r)
{
	char line[1024], age[32], lost[32], cost[48], note[160];
	int y = r->y, rows = r->h - 1;
	size_t i, top;
	const struct ui_head heads[] = {
		{ _("JOB"), 6, false }, { _("STATE"), 13, false }, { _("ATTEMPT"), 7, true },
		{ _("CHECKPOINT AGE"), 14, true }, { _("RECOVERIES"), 10, true },
		{ _("LOST"), 8, true }, { _("COST"), 12, true }, { _("INSTANCE"), 16, false },
		{ _("NOTE"), 0, false },
	};

	ui_put(y++, 1, r->w - 2, ui_head_line(line, sizeof(line), heads, ARRAY_LEN(heads)),
	    ui_attr(UC_COLHEAD), false);
	if (!u->have_costs) {
		ui_put(y, 2, r->w - 4, _("reading the managed jobs ..."), ui_attr(UC_DIM), false);
		return;
	}
	if (u->jv.n == 0) {
		ui_put(y, 2, r->w - 4, _("no managed jobs: 'gpurent run --managed' starts one"),
		    ui_attr(UC_DIM), false);
		return;
	}
	top = u->jv.sel >= (size_t)rows ? u->jv.sel - (size_t)rows + 1 : 0;
	for (i = top; i < u->jv.n && (int)(i - top) < rows; i++) {
		const struct managed_row *m = &u->jv.rows[i];
		struct cell c_age = { m->ckpt_age >= 0 ? CELL_DURATION : CELL_NULL, NULL,
			m->ckpt_age, 0, 0 };
		struct cell c_lost = { CELL_DURATION, NULL, m->lost_s, 0, 0 };
		struct cell c_cost = { m->cost_known ? CELL_MONEY : CELL_NULL, m->currency, m->cost,
			4, 0 };

		cell_text(&c_age, age, sizeof(age), true);
		cell_text(&c_lost, lost, sizeof(lost), true);
		cell_text(&c_cost, cost, sizeof(cost), true);
		/* The note may carry a provider's words: stripped. */
		text_sanitize(note, sizeof(note), m->j.why);
		snprintf(line, sizeof(line), "%-6s %-13s %7d %14s %10d %8s %12s %-16s %s", m->j.id,
		    managed_state_name(m->j.state), m->j.attempt, age, m->j.recoveries, lost, cost,
		    m->instance[0] ? m->instance : "-", note);
		ui_put(y++, 1, r->w - 2, line, ui_attr(i == u->jv.sel ? UC_SELECT :
		    state_color(m->j.state)), false);
	}
}

/* K: cancel the selected job, once confirmed, in the lane of its machine's provider. */
static void
ask_cancel(struct ui *u, const struct managed_row *m)
{
	struct lane_request req;
	char text[1024];
	int prov = m->instance[0] ? u->ctx->provider_of(u, m->instance) : -1;

	if (!managed_state_live(m->j.state)) {
		u->ctx->message(u, UC_DIM, "%s already ended (%s)", m->j.id,
		    managed_state_name(m->j.state));
		return;
	}
	snprintf(text, sizeof(text), _("Cancel managed job %s (attempt %d, on %s)?\nA last "
	    "checkpoint is pulled, then its machine is destroyed; the job ends as cancelled."),
	    m->j.id, m->j.attempt, m->instance[0] ? m->instance : _("no machine yet"));
	memset(&req, 0, sizeof(req));
	req.action = UA_CANCEL;
	strlcpy_(req.id, m->j.id, sizeof(req.id));
	u->ctx->confirm(u, _("Cancel?"), text, &req, prov >= 0 ? prov : 0);
}

static bool
jobs_key(struct ui *u, int key)
{
	switch (key) {
	case 'j': case UI_FKEY(KEY_DOWN):
		if (u->jv.sel + 1 < u->jv.n)
			u->jv.sel++;
		break;
	case 'k': case UI_FKEY(KEY_UP):
		if (u->jv.sel > 0)
			u->jv.sel--;
		break;
	case 'K':
		if (u->jv.n > 0 && !ui_refuse_readonly(u))
			ask_cancel(u, &u->jv.rows[u->jv.sel]);
		break;
	default:
		return false;
	}
	u->dirty = true;
	return true;
}

/* The managed jobs, read with the costs. */
static void
jobs_take(struct ui *u, struct ui_result *r)
{
	if (r->job != UJ_COSTS || r->code != GR_OK)
		return;
	free(u->jv.rows);
	u->jv.rows = r->managed;
	u->jv.n = r->n_managed;
	r->managed = NULL;
	r->n_managed = 0;
	if (u->jv.sel >= u->jv.n)
		u->jv.sel = u->jv.n > 0 ? u->jv.n - 1 : 0;
}

static void
jobs_release(struct ui *u)
{
	free(u->jv.rows);
}

const struct ui_view_ops ui_view_jobs = {
	.name = "jobs",
	.title = N_("Jobs"),
	.release = jobs_release,
	.take = jobs_take,
	.draw = draw_jobs,
	.key = jobs_key,
	.keys = N_("j/k select  K cancel  r refresh"),
};
