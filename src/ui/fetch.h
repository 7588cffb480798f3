/*
 * fetch.h - what the dashboard's lanes (gpurent/lanes.h) are handed from the layers above
 * the session: the actions and the audit (fetch.c).
 */
#ifndef GPURENT_UI_FETCH_H
#define GPURENT_UI_FETCH_H

#include "gpurent/audit.h"
#include "gpurent/lanes.h"

/* The audit line's currencies, at most this many. */
#define UI_MAX_CURRENCIES 8

/* The costs view's audit line: the last 7 days. */
struct ui_audit {
	struct audit_row total;		/* in total */
	struct audit_row per[UI_MAX_CURRENCIES];	/* and per currency */
	size_t n_per;
	int target;			/* audit.target */
};

/* UJ_ACTION and the audit of UJ_COSTS, for lanes_new. */
extern const struct lane_ops ui_lane_ops;

#endif
