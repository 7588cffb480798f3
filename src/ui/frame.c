/*
 * frame.c - drawing one frame: the chrome around the view on screen (header, tabs,
 * status line, key hints), the dialog over it, then one doupdate.
 */
#include <curses.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpurent/filter.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/util.h"
#include "ui.h"

static const char *const job_names[UJ__COUNT] = { N_("offers"), N_("instances"), N_("metrics"),
	N_("action"), N_("costs"), N_("job logs"), N_("jupyter"), N_("cluster") };

/* Seconds a lane of job has waited for any provider, the longest; -1 when none. */
double
ui_busy_for(struct ui *u, enum ui_job job, size_t *who)
{
	double b, worst = -1;
	size_t i;

	for (i = 0; i < u->n_prov; i++) {
		b = lanes_busy(u->fetch, job, (int)i);
		if (b > worst) {
			worst = b;
			if (who != NULL)
				*who = i;
		}
	}
	return worst;
}

static void
draw_header(struct ui *u)
{
	const struct ui_rect *r = &u->lay.header;
	char left[512], right[96], a[96], b[96], c[96], d[96];
	size_t i, running = 0;
	struct tm tm;
	time_t t = (time_t)u->now;

	for (i = 0; i < u->insts.n; i++)
		running += u->insts.v[i].state == ST_RUNNING;
	if (u->have_costs) {
		ui_cost_list(a, sizeof(a), &u->costs, offsetof(struct cost_summary, burn_hour), 1,
		    3);
		ui_cost_list(b, sizeof(b), &u->costs, offsetof(struct cost_summary, spent_today),
		    1, 2);
		ui_cost_list(c, sizeof(c), &u->costs, offsetof(struct cost_summary, spent_month),
		    1, 2);
		ui_cost_list(d, sizeof(d), &u->costs, offsetof(struct cost_summary,
		    projected_month), 1, 2);
		snprintf(left, sizeof(left), _(" burn %s/h | today %s | month %s, projected %s | "
		    "%zu running"), a, b, c, d, running);
	} else
		snprintf(left, sizeof(left), _(" burn ... | %zu running"), running);
	right[0] = '\0';
	if (u->now > 0) {
		localtime_r(&t, &tm);
		strftime(right, sizeof(right), "%Y-%m-%d %H:%M ", &tm);
	}
	ui_put(r->y, r->x, r->w, left, ui_attr(UC_HEADER), false);
	if (text_width(left) + text_width(right) < r->w)
		ui_put(r->y, r->w - text_width(right), text_width(right), right,
		    ui_attr(UC_HEADER), false);
}

static void
draw_tabs(struct ui *u)
{
	const struct ui_rect *r = &u->lay.tabs;
	char buf[64], info[128];
	int x = 0, w;
	size_t i;
	static const enum ui_job view_job[UV__COUNT] = { UJ_OFFERS, UJ_INSTANCES, UJ_METRICS,
		UJ_COSTS, UJ_COSTS, UJ_CLUSTER, UJ_COSTS };
	double busy;

	ui_put(r->y, 0, r->w, "", A_NORMAL, false);
	for (i = 0; i < UV__COUNT; i++) {
		snprintf(buf, sizeof(buf), " %zu %s ", i + 1, ui_view_title((enum ui_view)i));
		w = text_width(buf);
		ui_put(r->y, x, w, buf, ui_attr(i == (size_t)u->view ? UC_TAB_ACTIVE : UC_TAB),
		    false);
		x += w + 1;
	}
	info[0] = '\0';
	switch (u->view) {
	case UV_OFFERS:
		/* Both of the set on screen: a newer fetch counts once its rows are in. */
		snprintf(info, sizeof(info), _("%zu of %zu offers"), u->ov.grid.n_order,
		    u->ov.grid.n);
		break;
	case UV_INSTANCES:
		snprintf(info, sizeof(info), ngettext("%zu instance", "%zu instances",
		    u->iv.grid.n_order), u->iv.grid.n_order);
		break;
	case UV_METRICS:
		snprintf(info, sizeof(info), "%s", u->mv.watch[0] ? u->mv.watch : _("no instance"));
		break;
	default:
		break;
	}
	busy = view_job[u->view] == UJ_COSTS ? lanes_busy(u->fetch, UJ_COSTS, -1) :
	    ui_busy_for(u, view_job[u->view], NULL);
	if (busy >= 0)
		strlcpy_(info + strlen(info), u->utf8 ? "  \xe2\x9f\xb3 " : "  * ",
		    sizeof(info) - strlen(info));
	else
		strlcpy_(info + strlen(info), " ", sizeof(info) - strlen(info));
	w = text_width(info);
	if (x + w < r->w)
		ui_put(r->y, r->w - w, w, info, ui_attr(UC_DIM), false);
}

/* Providers in trouble, for the status line: hanging lanes first, then failures. */
static void
provider_trouble(struct ui *u, char *buf, size_t n)
{
	struct sb sb;
	size_t i;
	int j;
	double b;

	sb_init(&sb);
	for (i = 0; i < u->n_prov; i++) {
		double worst = -1;

		for (j = 0; j < UJ_COSTS; j++) {
			b = lanes_busy(u->fetch, (enum ui_job)j, (int)i);
			if (b > worst)
				worst = b;
		}
		if (worst >= 5) {
			sb_addf(&sb, _("%s%s: no answer for %.0fs"), sb.len ? " | " : "",
			    u->prov[i].name, worst);
			continue;
		}
		for (j = 0; j < UJ_ACTION; j++)
			if (u->prov[i].err[j][0] != '\0') {
				sb_addf(&sb, "%s%s: %s (%s)", sb.len ? " | " : "", u->prov[i].name,
				    u->prov[i].err[j], _(job_names[j]));
				break;
			}
	}
	strlcpy_(buf, sb.buf, n);
	sb_release(&sb);
}

static void
draw_status(struct ui *u)
{
	const struct ui_rect *r = &u->lay.status;
	char buf[768];

	if (u->input_kind != 0) {
		int w;

		snprintf(buf, sizeof(buf), "%c%s", u->input_kind, u->input);
		w = text_width(buf);
		if (u->input_err[0] != '\0' && w + 4 < r->w) {
			ui_put(r->y, 0, w + 2, buf, ui_attr(UC_ACCENT), false);
			ui_put(r->y, w + 2, r->w - w - 2, u->input_err, ui_attr(UC_BAD), false);
		} else
			ui_put(r->y, 0, r->w, buf, ui_attr(UC_ACCENT), false);
		move(r->y, w < r->w ? w : r->w - 1);
		return;
	}
	if (u->msg[0] != '\0' && ui_clock() < u->msg_until) {
		ui_put(r->y, 0, r->w, u->msg, ui_attr((enum ui_color)u->msg_color), false);
		return;
	}
	provider_trouble(u, buf, sizeof(buf));
	ui_put(r->y, 0, r->w, buf, ui_attr(UC_BAD), false);
}

static void
draw_keys(struct ui *u)
{
	const struct ui_rect *r = &u->lay.keys;
	char buf[512];

	if (u->dialog == UD_CONFIRM)
		snprintf(buf, sizeof(buf), _(" y yes   n/Esc no"));
	else if (u->dialog == UD_PAGER)
		snprintf(buf, sizeof(buf), _(" j/k scroll   q/Esc close"));
	else if (u->input_kind == '/')
		snprintf(buf, sizeof(buf), _(" Enter keep   Esc restore   Ctrl-U clear   fields: %s"),
		    filter_fields_help());
	else if (u->input_kind == ':')
		snprintf(buf, sizeof(buf), _(" offers instances metrics costs help quit"));
	else
		snprintf(buf, sizeof(buf), _(" %s  ? help  q quit%s"), ui_view_keys(u),
		    u->opts.readonly ? _("  [read-only]") : "");
	ui_put(r->y, 0, r->w, buf, ui_attr(UC_KEY), false);
}

static void
draw_frame_box(const struct ui_rect *b, const char *title)
{
	int i;

	attrset(ui_attr(UC_DIALOG));
	for (i = 0; i < b->h; i++)
		mvhline(b->y + i, b->x, ' ', b->w);
	mvhline(b->y, b->x, ACS_HLINE, b->w);
	mvhline(b->y + b->h - 1, b->x, ACS_HLINE, b->w);
	mvvline(b->y, b->x, ACS_VLINE, b->h);
	mvvline(b->y, b->x + b->w - 1, ACS_VLINE, b->h);
	mvaddch(b->y, b->x, ACS_ULCORNER);
	mvaddch(b->y, b->x + b->w - 1, ACS_URCORNER);
	mvaddch(b->y + b->h - 1, b->x, ACS_LLCORNER);
	mvaddch(b->y + b->h - 1, b->x + b->w - 1, ACS_LRCORNER);
	attrset(A_NORMAL);
	ui_put(b->y, b->x + 2, text_width(title) + 2 < b->w - 4 ? text_width(title) + 2 :
	    b->w - 4, title, ui_attr(UC_DIALOG) | A_BOLD, false);
}

static void
draw_dialog(struct ui *u)
{
	const struct ui_rect *body = &u->lay.body;
	size_t start[64], len[64], n, i;
	char line[512], title[128];
	struct ui_rect b;

	if (u->dialog == UD_CONFIRM) {
		int w = body->w - 10 < 72 ? body->w - 10 : 72;

		n = ui_wrap(u->dlg_text.buf, w - 4, start, len, 60);
		b = ui_layout_dialog(body, w, (int)n + 4);
		snprintf(title, sizeof(title), " %s ", u->dlg_title);
		draw_frame_box(&b, title);
		for (i = 0; i < n && (int)i < b.h - 3; i++) {
			snprintf(line, sizeof(line), "%.*s", (int)len[i], u->dlg_text.buf + start[i]);
			ui_put(b.y + 1 + (int)i, b.x + 2, b.w - 4, line, ui_attr(UC_DIALOG), false);
		}
		ui_put(b.y + b.h - 2, b.x + 2, b.w - 4, _("[y] yes    [n] no"), ui_attr(UC_DIALOG) |
		    A_BOLD, false);
		return;
	}
	/* The pager covers the body: a title row and the lines from dlg_top. */
	ui_put(body->y, 0, body->w, u->dlg_title, ui_attr(UC_COLHEAD), false);
	{
		const char *p = u->dlg_text.buf;
		size_t skip = u->dlg_top;
		int y = body->y + 1;

		while (skip > 0 && (p = strchr(p, '\n')) != NULL) {
			p++;
			skip--;
		}
		for (; y < body->y + body->h; y++) {
			size_t l = p ? strcspn(p, "\n") : 0;

			snprintf(line, sizeof(line), " %.*s", (int)l, p ? p : "");
			ui_put(y, 0, body->w, line, A_NORMAL, false);
			if (p != NULL)
				p = p[l] == '\n' ? p + l + 1 : NULL;
		}
	}
}

void
ui_draw(struct ui *u)
{
	if (u->need_clear) {
		clear();
		u->need_clear = false;
	} else
		erase();
	curs_set(0);
	if (u->lay.too_small) {
		char buf[160];

		snprintf(buf, sizeof(buf), _("terminal too small: %dx%d; the dashboard needs at "
		    "least %dx%d (q quits)"), u->lay.cols, u->lay.rows, UI_MIN_COLS, UI_MIN_ROWS);
		mvaddnstr(u->lay.rows / 2, 0, buf, u->lay.cols > 0 ? u->lay.cols : 0);
	} else {
		draw_header(u);
		draw_tabs(u);
		if (u->dialog == UD_PAGER)
			draw_dialog(u);
		else {
			ui_view_draw(u);
			if (u->dialog == UD_CONFIRM)
				draw_dialog(u);
		}
		draw_keys(u);
		draw_status(u);		/* last: it places the cursor of the input line */
		if (u->input_kind != 0)
			curs_set(1);
	}
	wnoutrefresh(stdscr);
	doupdate();
	u->dirty = false;
}
