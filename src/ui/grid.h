/*
 * grid.h - a table of records as the dashboard shows it: which rows pass, in what order,
 * their cell text and widths, the selection and the scroll position.
 *
 * Cell text comes from the same columns and cell functions as `offers` and `ls`
 * (columns.h), so a value reads the same in the dashboard and on the command line. The
 * text is formatted once per data change (ui_grid_rebuild), not once per frame, so
 * drawing a frame only copies strings. No curses here.
 */
#ifndef GPURENT_UI_GRID_H
#define GPURENT_UI_GRID_H

#include <stdbool.h>
#include <stddef.h>

#include "gpurent/model.h"
#include "gpurent/output.h"

#define UI_GRID_MAX_COLS 16
#define UI_CELL_MAX 96

struct ui_grid {
	const struct column *cols;	/* the whole column table */
	size_t show[UI_GRID_MAX_COLS];	/* columns shown, in order; show[0] is the id */
	size_t nshow;
	cell_fn get;
	void *ctx;			/* for get (instances: a pointer to "now") */

	const char *rows;		/* borrowed records, `size` bytes apart */
	size_t size, n;

	size_t *order;			/* the rows that pass, sorted */
	size_t n_order, cap;
	char (*text)[UI_CELL_MAX];	/* n_order * nshow cells */
	unsigned char *color;		/* enum out_color per cell */
	int want[UI_GRID_MAX_COLS];	/* widest text per shown column, header included */

	size_t sel, top;
	int sort;			/* index into show, -1: as fetched */
	bool desc;
	char sel_id[ID_MAX];		/* the selected row's id, kept across rebuilds */
};

void ui_grid_init(struct ui_grid *g, const struct column *cols, const size_t *show, size_t nshow,
    cell_fn get, void *ctx);
void ui_grid_release(struct ui_grid *g);

/*
 * Take a new set of rows (borrowed until the next call), keep those for which keep()
 * is true (NULL: all), sort them and format their cells. The selection follows the row
 * with the same id when it is still there.
 */
void ui_grid_rebuild(struct ui_grid *g, const void *rows, size_t n, size_t size,
    bool (*keep)(const void *row, void *kctx), void *kctx);

/* The selected record, or NULL when the grid is empty. */
const void *ui_grid_selected(const struct ui_grid *g);

/* Move the selection by delta rows (clamped); returns true when it moved. */
bool ui_grid_move(struct ui_grid *g, long delta);

/*
 * Widths of the shown columns in avail cells with gap cells between them (0: dropped),
 * by the columns' priorities and minimums, as `offers` and `ls` fit a terminal
 * (out_fit_widths). Returns the number of columns shown.
 */
size_t ui_grid_fit(const struct ui_grid *g, int avail, int gap, int *width);

/* Cell text and colour of row r (in display order), shown column c. */
const char *ui_grid_text(const struct ui_grid *g, size_t r, size_t c);
int ui_grid_color(const struct ui_grid *g, size_t r, size_t c);

#endif
