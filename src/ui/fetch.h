/*
 * fetch.h - what the dashboard's lanes (gpurent/lanes.h) are handed from the layers above
 * the session: the actions and the audit (fetch.c).
 */
#ifndef GPURENT_UI_FETCH_H
#define GPURENT_UI_FETCH_H

#include "gpurent/advise.h"
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
	/* advise over the last 30 days: its savings per currency, and whether any load of
	   known GPU count was there to advise on */
	struct advise_saving saving[UI_MAX_CURRENCIES];
	size_t n_saving;
	bool advised;
};

/* UJ_ACTION and the audit of UJ_COSTS, for lanes_new. */
extern const struct lane_ops ui_lane_ops;

#endif
