/*
 * The dashboard's tables: filter, sort and format once per data change.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/util.h"
#include "grid.h"
#include "layout.h"

void
ui_grid_init(struct ui_grid *g, const struct column *cols, const size_t *show, size_t nshow,
    cell_fn get, void *ctx)
{
	memset(g, 0, sizeof(*g));
	g->cols = cols;
	if (nshow > UI_GRID_MAX_COLS)
		nshow = UI_GRID_MAX_COLS;
	memcpy(g->show, show, nshow * sizeof(*show));
	g->nshow = nshow;
	g->get = get;
	g->ctx = ctx;
	g->sort = -1;
}

void
ui_grid_release(struct ui_grid *g)
{
	free(g->order);
	free(g->text);
	free(g->color);
	g->order = NULL;
	g->text = NULL;
	g->color = NULL;
	g->n_order = g->cap = 0;
}

static const void *
row_at(const struct ui_grid *g, size_t i)
{
	return g->rows + i * g->size;
}

/* Order two cells of the sort column: unknown values last, numbers by value, text by bytes. */
static int
cmp_rows(size_t a, size_t b, void *ctx)
{
	const struct ui_grid *g = ctx;
	struct cell ca, cb;
	size_t col = g->show[g->sort];
	int r;

	memset(&ca, 0, sizeof(ca));
	memset(&cb, 0, sizeof(cb));
	g->get(row_at(g, a), col, &ca, g->ctx);
	g->get(row_at(g, b), col, &cb, g->ctx);
	if (ca.kind == CELL_NULL || cb.kind == CELL_NULL)
		return (ca.kind == CELL_NULL) - (cb.kind == CELL_NULL);
	if (ca.kind == CELL_STR && cb.kind == CELL_STR)
		r = strcmp(ca.s ? ca.s : "", cb.s ? cb.s : "");
	else
		r = ca.i < cb.i ? -1 : ca.i > cb.i;
	return g->desc ? -r : r;
}

void
ui_grid_rebuild(struct ui_grid *g, const void *rows, size_t n, size_t size,
    bool (*keep)(const void *row, void *kctx), void *kctx)
{
	struct cell c;
	size_t i, k, col;
	int w;

	g->rows = rows;
	g->n = n;
	g->size = size;
	if (n > g->cap) {
		g->cap = n;
		g->order = xreallocarray(g->order, n, sizeof(*g->order));
		g->text = xreallocarray(g->text, n * (g->nshow ? g->nshow : 1), sizeof(*g->text));
		g->color = xreallocarray(g->color, n * (g->nshow ? g->nshow : 1), 1);
	}
	g->n_order = 0;
	for (i = 0; i < n; i++)
		if (keep == NULL || keep(row_at(g, i), kctx))
			g->order[g->n_order++] = i;
	if (g->sort >= 0 && (size_t)g->sort < g->nshow)
		ui_sort_index(g->order, g->n_order, cmp_rows, g);
	for (k = 0; k < g->nshow; k++) {
		g->want[k] = text_width(_(g->cols[g->show[k]].header)) + (g->sort == (int)k ? 1 : 0);
	}
	for (i = 0; i < g->n_order; i++)
		for (k = 0; k < g->nshow; k++) {
			col = g->show[k];
			memset(&c, 0, sizeof(c));
			g->get(row_at(g, g->order[i]), col, &c, g->ctx);
			cell_text(&c, g->text[i * g->nshow + k], UI_CELL_MAX, true);
			g->color[i * g->nshow + k] = (unsigned char)c.color;
			w = text_width(g->text[i * g->nshow + k]);
			if (w > g->want[k])
				g->want[k] = w;
		}
	/* Keep the selection on the same record when it is still listed. */
	if (g->sel_id[0] != '\0' && g->nshow > 0)
		for (i = 0; i < g->n_order; i++)
			if (strcmp(g->text[i * g->nshow], g->sel_id) == 0) {
				g->sel = i;
				break;
			}
	if (g->sel >= g->n_order)
		g->sel = g->n_order ? g->n_order - 1 : 0;
	if (g->n_order > 0 && g->nshow > 0)
		strlcpy_(g->sel_id, g->text[g->sel * g->nshow], sizeof(g->sel_id));
}

const void *
ui_grid_selected(const struct ui_grid *g)
{
	return g->n_order > 0 ? row_at(g, g->order[g->sel]) : NULL;
}

bool
ui_grid_move(struct ui_grid *g, long delta)
{
	size_t old = g->sel;
	long s = (long)g->sel + delta;

	if (g->n_order == 0)
		return false;
	if (s < 0)
		s = 0;
	if ((size_t)s >= g->n_order)
		s = (long)g->n_order - 1;
	g->sel = (size_t)s;
	if (g->nshow > 0)
		strlcpy_(g->sel_id, g->text[g->sel * g->nshow], sizeof(g->sel_id));
	return g->sel != old;
}

size_t
ui_grid_fit(const struct ui_grid *g, int avail, int gap, int *width)
{
	int min[UI_GRID_MAX_COLS], prio[UI_GRID_MAX_COLS];
	size_t k;

	for (k = 0; k < g->nshow; k++) {
		const struct column *c = &g->cols[g->show[k]];

		min[k] = c->min <= 0 ? 0 : c->min < g->want[k] ? c->min : g->want[k];
		prio[k] = c->prio;
	}
	return out_fit_widths(g->want, min, prio, g->nshow, avail, gap, width);
}

const char *
ui_grid_text(const struct ui_grid *g, size_t r, size_t c)
{
	return g->text[r * g->nshow + c];
}

int
ui_grid_color(const struct ui_grid *g, size_t r, size_t c)
{
	return g->color[r * g->nshow + c];
}
