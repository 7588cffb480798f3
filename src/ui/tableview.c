/*
 * tableview.c - what the views made of a table share: drawing the grid, its keys, the
 * details pager of one row, and the read-only refusal of the actions on it.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/util.h"
#include "ui.h"

/* Draw a grid in r: a header row, then rows from the scroll position. */
void
ui_table_draw(struct ui *u, struct ui_grid *g, const struct ui_rect *r, const char *empty,
    bool (*marked)(struct ui *, const void *))
{
	int width[UI_GRID_MAX_COLS], x, attr;
	char head[64];
	size_t k, i, h = r->h > 1 ? (size_t)(r->h - 1) : 0;
	const char *up = u->utf8 ? "\xe2\x96\xb2" : "^", *down = u->utf8 ? "\xe2\x96\xbc" : "v";

	ui_grid_fit(g, r->w - 2, 2, width);
	ui_put(r->y, 0, r->w, "", ui_attr(UC_COLHEAD), false);
	for (k = 0, x = 2; k < g->nshow; k++) {
		if (width[k] == 0)
			continue;
		snprintf(head, sizeof(head), "%s%s", _(g->cols[g->show[k]].header),
		    g->sort == (int)k ? (g->desc ? down : up) : "");
		ui_put(r->y, x, width[k], head, ui_attr(UC_COLHEAD), g->cols[g->show[k]].right);
		x += width[k] + 2;
	}
	/* A filter or sort under way (the worker's): the rows below are the previous order. */
	if (g->busy) {
		snprintf(head, sizeof(head), " %s%s ", _("sorting"), u->utf8 ? "\xe2\x80\xa6" :
		    "...");
		x = text_width(head);
		ui_put(r->y, r->w - x, x, head, ui_attr(UC_ACCENT), false);
	}
	if (g->n_order == 0) {
		ui_put(r->y + 2, 2, r->w - 4, empty, ui_attr(UC_DIM), false);
		return;
	}
	g->top = ui_scroll(g->top, g->sel, g->n_order, h);
	for (i = g->top; i < g->n_order && i < g->top + h; i++) {
		int y = r->y + 1 + (int)(i - g->top);
		bool sel = i == g->sel;
		bool mark = marked != NULL && marked(u, g->rows + g->order[i] * g->size);
		int row_attr = sel ? ui_attr(UC_SELECT) : mark ? ui_attr(UC_IDLE) : (int)A_NORMAL;

		ui_put(y, 0, r->w, mark ? " *" : "", row_attr, false);
		for (k = 0, x = 2; k < g->nshow; k++) {
			if (width[k] == 0)
				continue;
			attr = sel || mark ? row_attr :
			    ui_attr(ui_color_of(ui_grid_color(g, i, k)));
			ui_put(y, x, width[k], ui_grid_text(g, i, k), attr,
			    g->cols[g->show[k]].right);
			x += width[k] + 2;
		}
	}
}

/* Details of one record: every column, hidden ones included, as "HEADER  value". */
void
ui_table_details(struct ui *u, const char *title, const struct column *cols, size_t n,
    cell_fn get, const void *row, void *ctx)
{
	char val[256], head[64];
	struct cell c;
	struct sb sb;
	size_t i;

	sb_init(&sb);
	for (i = 0; i < n; i++) {
		memset(&c, 0, sizeof(c));
		get(row, i, &c, ctx);
		/* Padded by display width: a translated header may be CJK. */
		sb_addf(&sb, "%s %s\n", ui_text_fit(head, sizeof(head), _(cols[i].header), 14,
		    false), cell_text(&c, val, sizeof(val), true));
	}
	if (sb.len > 0)
		sb.buf[--sb.len] = '\0';
	u->ctx->pager(u, title, sb.buf);
	sb_release(&sb);
}

/* Keys shared by the tables; true when used. A new sort order calls rebuild. */
bool
ui_table_key(struct ui *u, struct ui_grid *g, int key, void (*rebuild)(struct ui *u))
{
	long page = u->lay.body.h > 2 ? u->lay.body.h - 2 : 1;

	switch (key) {
	case 'j': case UI_FKEY(KEY_DOWN): return ui_grid_move(g, 1) || true;
	case 'k': case UI_FKEY(KEY_UP): return ui_grid_move(g, -1) || true;
	case 6: case ' ': case UI_FKEY(KEY_NPAGE): return ui_grid_move(g, page) || true;
	case 2: case UI_FKEY(KEY_PPAGE): return ui_grid_move(g, -page) || true;
	case 'g': case UI_FKEY(KEY_HOME): return ui_grid_move(g, -(long)g->n_order) || true;
	case 'G': case UI_FKEY(KEY_END): return ui_grid_move(g, (long)g->n_order) || true;
	case '<': case '>':
		if (g->sort < 0)
			g->sort = 0;
		else
			g->sort = (g->sort + (key == '>' ? 1 : (int)g->nshow - 1)) % (int)g->nshow;
		g->desc = false;
		break;
	case 'i':
		if (g->sort < 0)
			g->sort = 0;
		g->desc = !g->desc;
		break;
	default:
		return false;
	}
	rebuild(u);
	u->ctx->message(u, UC_DIM, g->desc ? N_("sorted by %s, descending") :
	    N_("sorted by %s, ascending"), _(g->cols[g->show[g->sort]].header));
	return true;
}

bool
ui_scroll_key(struct ui *u, int key, size_t *top, size_t n)
{
	size_t page = (size_t)(u->lay.body.h > 2 ? u->lay.body.h - 2 : 1);

	if (key == UI_FKEY(KEY_DOWN) || key == 'j') {
		if (*top + 1 < n)
			++*top;
	} else if (key == UI_FKEY(KEY_UP) || key == 'k') {
		if (*top > 0)
			--*top;
	} else if (key == UI_FKEY(KEY_NPAGE)) {
		if (*top + page < n)
			*top += page;
	} else if (key == UI_FKEY(KEY_PPAGE)) {
		*top = *top > page ? *top - page : 0;
	} else if (key == UI_FKEY(KEY_HOME) || key == 'g') {
		*top = 0;
	} else
		return false;
	u->dirty = true;
	return true;
}

const struct instance *
ui_instance_find(const struct ui *u, const char *id)
{
	size_t i;

	for (i = 0; i < u->insts.n; i++)
		if (strcmp(u->insts.v[i].id, id) == 0)
			return &u->insts.v[i];
	return NULL;
}

/* Whether --readonly forbids actions; says so when it does. */
bool
ui_refuse_readonly(struct ui *u)
{
	if (u->opts.readonly)
		u->ctx->message(u, UC_WARN, "read-only: --readonly turns off launch, stop, start, "
		    "destroy and cancel");
	return u->opts.readonly;
}
