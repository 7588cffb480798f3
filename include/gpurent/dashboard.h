/*
 * dashboard.h - `gpurent dashboard`, the live ncurses screen (src/ui/).
 *
 * The only entry point into src/ui/, so that nothing outside it sees curses.
 */
#ifndef GPURENT_DASHBOARD_H
#define GPURENT_DASHBOARD_H

#include <stdbool.h>

#include "error.h"
#include "session.h"

struct ui_opts {
	bool readonly;		/* no launch, stop, start or destroy */
	double refresh;		/* seconds: overrides every view's interval when > 0 */
	const char *view;	/* the view to open on (a name or prefix), NULL: offers */
	long bench_frames;	/* > 0: draw this many full frames, then quit and report */
	bool color;		/* use colours (out_global.color, after NO_COLOR and --color) */
	volatile int *stop;	/* the caller's SIGINT/SIGTERM flag: the loop ends when set
				   (NULL: only the user's quit ends it) */
};

/*
 * Run the dashboard on the terminal until the user quits or *o->stop is set (the caller's
 * handler of SIGINT/SIGTERM sets it).
 * The terminal is restored before this returns, whatever happened; anything written to
 * stderr meanwhile is replayed then. Returns GR_OK, GR_EINTERRUPTED after a signal, or
 * an error (no terminal, unknown view) with the reason in err.
 */
enum gr_err ui_dashboard_run(struct session *s, const struct ui_opts *o, struct gr_error *err);

#endif
