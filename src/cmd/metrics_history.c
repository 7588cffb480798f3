/*
 * metrics_history.c - `gpurent metrics ID --since WHEN`: GPU history from the state database.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/columns.h"
#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/history.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "common.h"
#include "metrics_history.h"

/* Most rows per GPU that an automatic step lets through. */
#define AUTO_ROWS_MAX 1500
/* A range longer than this is shown in buckets of an hour or more. */
#define AUTO_HOURS_AFTER (2 * 86400)

/*
 * Raw samples while the whole range is within raw retention; beyond it, buckets of whole
 * minutes, as small as keeps each GPU under AUTO_ROWS_MAX rows, and whole hours for a range
 * longer than AUTO_HOURS_AFTER: those are read from the hourly roll-up (history.h), a
 * month in some 720 rows per GPU instead of 43200 minute rows.
 */
int
metrics_auto_step(int64_t since, int64_t until, int64_t now)
{
	static const int steps[] = { 60, 300, 600, 900, 1800, 3600, 3 * 3600, 6 * 3600, 86400 };
	int64_t span = (until > 0 ? until : now) - since;
	size_t i;

	if (since >= now - SAMPLES_RAW_KEEP)
		return 0;
	for (i = 0; i < ARRAY_LEN(steps) - 1; i++)
		if (span / steps[i] <= AUTO_ROWS_MAX && (span <= AUTO_HOURS_AFTER || steps[i] >= 3600))
			break;
	return steps[i];
}

enum hist_col {
	HCOL_INSTANCE, HCOL_GPU, HCOL_TIME, HCOL_STEP, HCOL_SAMPLES, HCOL_UTIL, HCOL_UTIL_MIN,
	HCOL_UTIL_MAX, HCOL_MEM_USED, HCOL_MEM_USED_MAX, HCOL_MEM_TOTAL, HCOL_TEMP, HCOL_TEMP_MAX,
	HCOL_POWER, HCOL_POWER_MAX, HCOL_SOURCE,
	/* not in tables: the rest of what a sample holds */
	HCOL_MEM_FREE, HCOL_MEM_UTIL, HCOL_TEMP_MEM, HCOL_POWER_LIMIT, HCOL_CLK_SM, HCOL_CLK_MEM,
	HCOL_FAN, HCOL_ENC, HCOL_DEC, HCOL_PCIE_GEN, HCOL_PCIE_WIDTH, HCOL_ECC, HCOL_XID,
	HCOL_THROTTLE, HCOL_UUID, HCOL_NAME, HCOL_VENDOR,
	/* the rest of the live schema, last so that csv columns keep their places: what the
	   history keeps, then what it does not (null) */
	HCOL_MEM_PCT, HCOL_POWER_ENFORCED, HCOL_CLK_SM_MAX, HCOL_PSTATE, HCOL_COMPUTE_MODE,
	HCOL_MIG, HCOL_NODE, HCOL_DRIVER, HCOL_CUDA, HCOL_PCI_BUS, HCOL_XID_COUNT,
	HCOL__COUNT,
};

/*
 * One schema for every sample: a figure that live samples have keeps their name, header
 * and form (sample_columns, sample_cell); the history adds its step, its sample count and
 * the minima and maxima. hist_live is that figure's live column + 1 (0: the history's own).
 */
static const unsigned char hist_live[HCOL__COUNT] = {
	[HCOL_INSTANCE] = SCOL_INSTANCE + 1, [HCOL_GPU] = SCOL_GPU + 1,
	[HCOL_TIME] = SCOL_TIME + 1, [HCOL_UTIL] = SCOL_UTIL + 1,
	[HCOL_MEM_USED] = SCOL_MEM_USED + 1, [HCOL_MEM_TOTAL] = SCOL_MEM_TOTAL + 1,
	[HCOL_TEMP] = SCOL_TEMP + 1, [HCOL_POWER] = SCOL_POWER + 1,
	[HCOL_SOURCE] = SCOL_SOURCE + 1, [HCOL_MEM_FREE] = SCOL_MEM_FREE + 1,
	[HCOL_MEM_UTIL] = SCOL_MEM_UTIL + 1, [HCOL_TEMP_MEM] = SCOL_TEMP_MEM + 1,
	[HCOL_POWER_LIMIT] = SCOL_POWER_LIMIT + 1, [HCOL_CLK_SM] = SCOL_CLK_SM + 1,
	[HCOL_CLK_MEM] = SCOL_CLK_MEM + 1, [HCOL_FAN] = SCOL_FAN + 1, [HCOL_ENC] = SCOL_ENC + 1,
	[HCOL_DEC] = SCOL_DEC + 1, [HCOL_PCIE_GEN] = SCOL_PCIE_GEN + 1,
	[HCOL_PCIE_WIDTH] = SCOL_PCIE_WIDTH + 1, [HCOL_ECC] = SCOL_ECC + 1,
	[HCOL_XID] = SCOL_XID + 1, [HCOL_THROTTLE] = SCOL_THROTTLE + 1,
	[HCOL_UUID] = SCOL_UUID + 1, [HCOL_NAME] = SCOL_NAME + 1, [HCOL_VENDOR] = SCOL_VENDOR + 1,
	[HCOL_MEM_PCT] = SCOL_MEM_PCT + 1, [HCOL_POWER_ENFORCED] = SCOL_POWER_ENFORCED + 1,
	[HCOL_CLK_SM_MAX] = SCOL_CLK_SM_MAX + 1, [HCOL_PSTATE] = SCOL_PSTATE + 1,
	[HCOL_COMPUTE_MODE] = SCOL_COMPUTE_MODE + 1, [HCOL_MIG] = SCOL_MIG + 1,
	[HCOL_NODE] = SCOL_NODE + 1, [HCOL_DRIVER] = SCOL_DRIVER + 1,
	[HCOL_CUDA] = SCOL_CUDA + 1, [HCOL_PCI_BUS] = SCOL_PCI_BUS + 1,
	[HCOL_XID_COUNT] = SCOL_XID_COUNT + 1,
};

/*
 * The history's own columns whole; of the others only where tables show them (hidden,
 * prio, min): hist_columns_init takes the rest from the live column. Means carry one
 * decimal; a raw sample's mean is its value.
 */
static struct column hist_columns[HCOL__COUNT] = {
	[HCOL_INSTANCE] = { NULL, NULL, false, false, 0, 12 },
	[HCOL_GPU] = { NULL, NULL, false, false, 0, 0 },
	[HCOL_TIME] = { NULL, NULL, false, false, 0, 0 },
	[HCOL_STEP] = { "step_s", N_("STEP s"), true, false, 3, 0 },
	[HCOL_SAMPLES] = { "samples", N_("N"), true, false, 3, 0 },
	[HCOL_UTIL] = { NULL, NULL, false, false, 0, 0 },
	[HCOL_UTIL_MIN] = { "util_min_pct", N_("MIN %"), true, false, 2, 0 },
	[HCOL_UTIL_MAX] = { "util_max_pct", N_("MAX %"), true, false, 1, 0 },
	[HCOL_MEM_USED] = { NULL, NULL, false, false, 1, 0 },
	[HCOL_MEM_USED_MAX] = { "memory_used_max_mib", N_("MEM MAX MiB"), true, false, 2, 0 },
	[HCOL_MEM_TOTAL] = { NULL, NULL, false, false, 3, 0 },
	[HCOL_TEMP] = { NULL, NULL, false, false, 1, 0 },
	[HCOL_TEMP_MAX] = { "temp_max_c", "MAX \xc2\xb0" "C", true, false, 2, 0 },
	[HCOL_POWER] = { NULL, NULL, false, false, 1, 0 },
	[HCOL_POWER_MAX] = { "power_max_w", N_("MAX W"), true, false, 2, 0 },
	[HCOL_SOURCE] = { NULL, NULL, false, false, 3, 0 },
	/* the rest are hidden (hist_columns_init), of priority 3, or as the live ones */
	[HCOL_VENDOR] = { NULL, NULL, false, true, 4, 0 },
	[HCOL_NODE] = { NULL, NULL, false, true, 4, 12 },
	[HCOL_UUID] = { NULL, NULL, false, true, 2, 12 },
	[HCOL_NAME] = { NULL, NULL, false, true, 2, 12 },
};

static void
hist_columns_init(void)
{
	size_t i;

	if (hist_columns[HCOL_INSTANCE].name != NULL)
		return;
	for (i = 0; i < HCOL__COUNT; i++) {
		const struct column *live;

		if (hist_live[i] == 0)
			continue;
		live = &sample_columns[hist_live[i] - 1];
		hist_columns[i].name = live->name;
		hist_columns[i].header = live->header;
		hist_columns[i].right = live->right;
		if (i > HCOL_SOURCE && hist_columns[i].prio == 0) {
			hist_columns[i].hidden = true;
			hist_columns[i].prio = 3;
		}
	}
}

/* A mean with one decimal; a min or max is a figure a sample had, a whole number. */
static void
set_stat(struct cell *c, const struct sample_row *r, enum sample_stat k, const double *v)
{
	if (!(r->s.valid & sample_stat_bit(k))) {
		c->kind = CELL_NULL;
		return;
	}
	if (v == r->mean) {
		c->kind = CELL_FIXED;
		c->decimals = 1;
		c->i = llround(v[k] * 10);
	} else {
		c->kind = CELL_INT;
		c->i = llround(v[k]);
	}
}

static void
set_known(struct cell *c, int64_t v, bool known)
{
	c->kind = known ? CELL_INT : CELL_NULL;
	c->i = v;
}

static void
hist_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct sample_row *r = row;
	const struct gpu_sample *g = &r->s;

	switch ((enum hist_col)col) {
	case HCOL_STEP: set_known(c, r->step, true); break;
	case HCOL_SAMPLES: set_known(c, r->n, true); break;
	case HCOL_UTIL: set_stat(c, r, SS_UTIL, r->mean); break;
	case HCOL_UTIL_MIN: set_stat(c, r, SS_UTIL, r->min); break;
	case HCOL_UTIL_MAX: set_stat(c, r, SS_UTIL, r->max); break;
	case HCOL_MEM_USED: set_stat(c, r, SS_MEM_USED, r->mean); break;
	case HCOL_MEM_USED_MAX: set_stat(c, r, SS_MEM_USED, r->max); break;
	case HCOL_TEMP: set_stat(c, r, SS_TEMP, r->mean); break;
	case HCOL_TEMP_MAX: set_stat(c, r, SS_TEMP, r->max); break;
	case HCOL_POWER: set_stat(c, r, SS_POWER, r->mean); break;
	case HCOL_POWER_MAX: set_stat(c, r, SS_POWER, r->max); break;
	case HCOL_MEM_FREE: set_stat(c, r, SS_MEM_FREE, r->mean); break;
	case HCOL_MEM_UTIL: set_stat(c, r, SS_MEM_UTIL, r->mean); break;
	case HCOL_TEMP_MEM: set_stat(c, r, SS_TEMP_MEM, r->mean); break;
	case HCOL_CLK_SM: set_stat(c, r, SS_CLK_SM, r->mean); break;
	case HCOL_CLK_MEM: set_stat(c, r, SS_CLK_MEM, r->mean); break;
	case HCOL_FAN: set_stat(c, r, SS_FAN, r->mean); break;
	case HCOL_ENC: set_stat(c, r, SS_ENC, r->mean); break;
	case HCOL_DEC: set_stat(c, r, SS_DEC, r->mean); break;
	default:
		/* one figure, as a live sample gives it */
		if (col < HCOL__COUNT && hist_live[col] != 0) {
			c->color = 0;
			sample_cell(g, hist_live[col] - 1, c, NULL);
		} else
			c->kind = CELL_NULL;
		break;
	}
}

int
metrics_history(struct cmd_ctx *c, const char *id, int64_t since, int64_t until, int step)
{
	struct gr_error err = { 0 };
	struct sample_rows rows;
	struct state *st;
	int64_t now = session_now(c->s);
	enum gr_err rc;

	if (until > 0 && until <= since)
		return cmd_usage_error(c, "--until must be later than --since");
	hist_columns_init();
	if (step < 0)
		step = metrics_auto_step(since, until, now);
	if (session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	/* Retention first, so what is printed is what the history keeps at this time. */
	if (samples_compact(st, now, &err) != GR_OK)
		return cmd_error(c, &err);
	sample_rows_init(&rows);
	if (samples_history(st, id, since, until, step, &rows, &err) != GR_OK) {
		sample_rows_release(&rows);
		return cmd_error(c, &err);
	}
	rc = out_print(c->out, &out_global, hist_columns, HCOL__COUNT, HCOL_INSTANCE, rows.v,
	    rows.n, sizeof(*rows.v), hist_cell, NULL, &err);
	sample_rows_release(&rows);
	if (rc != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	return finish_output(c, 0);
}
