/*
 * grid.h - a table of records as the dashboard shows it: which rows pass, in what order,
 * the widths of their cells, the selection and the scroll position.
 *
 * Cell text comes from the same columns and cell functions as `offers` and `ls`
 * (columns.h), so a value reads the same in the dashboard and on the command line. Only the
 * rows on screen are formatted, when they are drawn (a window of them is kept until the
 * order changes), so a frame costs the same over 100 rows or 100,000. No curses here.
 *
 * A small table (instances) is filtered and sorted in place by ui_grid_rebuild. A large one
 * (offers) is given a worker (ui_grid_async): ui_grid_submit then hands the rows, the
 * filter and the sort to a thread of the grid's own and returns at once; the screen keeps
 * the order it has, with `busy` set, until ui_grid_collect swaps the new one in. A newer
 * submission supersedes an older unfinished one: its result is never shown.
 */
#ifndef GPURENT_UI_GRID_H
#define GPURENT_UI_GRID_H

#include <stdbool.h>
#include <stddef.h>

#include "gpurent/model.h"
#include "gpurent/money.h"
#include "gpurent/output.h"

#define UI_GRID_MAX_COLS 16
#define UI_CELL_MAX 96
/* Rows formatted at a time around the ones drawn: more than a screen holds. */
#define UI_GRID_WINDOW 256

/*
 * Records shared between the screen and the worker: freed (release(v), when set) when the
 * last holder lets go, so a job may still sort the previous set after new data arrived.
 */
struct ui_rows {
	int refs;			/* atomic */
	void *v;
	size_t n, size;
	void (*release)(void *v);
	unsigned char *width;		/* per row and shown column: its text's width, filled by
					   the first job over these rows */
};

struct ui_grid_worker;

struct ui_grid {
	const struct column *cols;	/* the whole column table */
	size_t show[UI_GRID_MAX_COLS];	/* columns shown, in order; show[0] is the id */
	size_t nshow;
	cell_fn get;
	void *ctx;			/* for get (instances: a pointer to "now") */

	const char *rows;		/* records, `size` bytes apart: borrowed (rebuild) or
					   held through `held` (submit) */
	size_t size, n;
	struct ui_rows *held;

	size_t *order;			/* the rows that pass, sorted */
	size_t n_order, cap;
	char (*text)[UI_CELL_MAX];	/* the window: rows win_top.. of the order, nshow each */
	unsigned char *color;		/* enum out_color per cell of the window */
	size_t win_top, win_n;
	int want[UI_GRID_MAX_COLS];	/* widest text per shown column, header included */

	size_t sel, top;
	int sort;			/* index into show, -1: as fetched */
	bool desc;
	/*
	 * Money cells of different currencies sort as `gpurent offers` sorts them: in US
	 * dollars at these rates (config_fx), else never by their numbers but one currency
	 * after the other, US dollars first, whichever the direction. Empty: no rates.
	 */
	struct fx_rates fx;
	char sel_id[ID_MAX];		/* the selected row's id, kept across rebuilds */

	struct ui_grid_worker *worker;	/* NULL: filtered and sorted in place */
	bool busy;			/* a submitted job has not been collected yet */
	double submitted;		/* CLOCK_MONOTONIC seconds of the newest submission */
};

void ui_grid_init(struct ui_grid *g, const struct column *cols, const size_t *show, size_t nshow,
    cell_fn get, void *ctx);
void ui_grid_release(struct ui_grid *g);

/*
 * Take a new set of rows (borrowed until the next call), keep those for which keep()
 * is true (NULL: all), sort them and measure their cells, on the calling thread. The
 * selection follows the row with the same id when it is still there.
 */
void ui_grid_rebuild(struct ui_grid *g, const void *rows, size_t n, size_t size,
    bool (*keep)(const void *row, void *kctx), void *kctx);

/*
 * Give g a worker thread; false when none could be started (the grid then works in
 * place). Its descriptor (ui_grid_fd) becomes readable when a result is waiting.
 * gate (NULL: none) holds every job back until that file exists, and removes it: one file
 * lets one job start (a test's window to press a second key while a sort runs, closed by
 * the test; GPURENT_UI_SORT_GATE); a newer job ends the wait, 120 s at most.
 */
bool ui_grid_async(struct ui_grid *g, const char *gate);
int ui_grid_fd(const struct ui_grid *g);

/* Records for ui_grid_submit; the grid takes the reference returned. */
struct ui_rows *ui_rows_new(void *v, size_t n, size_t size, void (*release)(void *v));

/*
 * Filter (keep with a copy of kctx's kctx_size bytes) and sort rows, or the rows the grid
 * has when rows is NULL (a new filter or sort order), by the grid's sort and desc as they
 * are now. Takes the reference to rows. Off the calling thread when the grid has a worker,
 * else at once. Returns at once either way.
 */
void ui_grid_submit(struct ui_grid *g, struct ui_rows *rows,
    bool (*keep)(const void *row, void *kctx), const void *kctx, size_t kctx_size);

/* Swap in the newest submission's result when it is ready; true when it did. */
bool ui_grid_collect(struct ui_grid *g);

/* Wait (up to timeout_ms) for the newest submission and swap it in; true when it did. */
bool ui_grid_wait(struct ui_grid *g, long timeout_ms);

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

/* Cell text and colour of row r (in display order), shown column c: formatted on demand. */
const char *ui_grid_text(struct ui_grid *g, size_t r, size_t c);
int ui_grid_color(struct ui_grid *g, size_t r, size_t c);

#endif
