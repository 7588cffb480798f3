/*
 * metrics_history.c - `gpurent metrics ID --since WHEN`: GPU history from the state database.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/samples.h"
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
 * longer than AUTO_HOURS_AFTER: those are read from the hourly roll-up (samples.h), a
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
	HCOL__COUNT,
};

/* Means carry one decimal; a raw sample's mean is its value. */
static const struct column hist_columns[HCOL__COUNT] = {
	[HCOL_INSTANCE] = { "instance_id", N_("INSTANCE"), false, false, 0, 12 },
	[HCOL_GPU] = { "gpu", N_("GPU"), true, false, 0, 0 },
	[HCOL_TIME] = { "time", N_("TIME"), false, false, 0, 0 },
	[HCOL_STEP] = { "step_s", N_("STEP s"), true, false, 3, 0 },
	[HCOL_SAMPLES] = { "samples", N_("N"), true, false, 3, 0 },
	[HCOL_UTIL] = { "util_pct", N_("UTIL %"), true, false, 0, 0 },
	[HCOL_UTIL_MIN] = { "util_min_pct", N_("MIN %"), true, false, 2, 0 },
	[HCOL_UTIL_MAX] = { "util_max_pct", N_("MAX %"), true, false, 1, 0 },
	[HCOL_MEM_USED] = { "memory_used_mib", N_("MEM MiB"), true, false, 1, 0 },
	[HCOL_MEM_USED_MAX] = { "memory_used_max_mib", N_("MEM MAX MiB"), true, false, 2, 0 },
	[HCOL_MEM_TOTAL] = { "memory_total_mib", N_("TOTAL MiB"), true, false, 3, 0 },
	[HCOL_TEMP] = { "temp_c", "TEMP \xc2\xb0" "C", true, false, 1, 0 },
	[HCOL_TEMP_MAX] = { "temp_max_c", "MAX \xc2\xb0" "C", true, false, 2, 0 },
	[HCOL_POWER] = { "power_w", N_("POWER W"), true, false, 1, 0 },
	[HCOL_POWER_MAX] = { "power_max_w", N_("MAX W"), true, false, 2, 0 },
	[HCOL_SOURCE] = { "source", N_("SOURCE"), false, false, 3, 0 },
	[HCOL_MEM_FREE] = { "memory_free_mib", N_("FREE MiB"), true, true, 3, 0 },
	[HCOL_MEM_UTIL] = { "memory_util_pct", N_("MEM BW %"), true, true, 3, 0 },
	[HCOL_TEMP_MEM] = { "temp_memory_c", "MEM \xc2\xb0" "C", true, true, 3, 0 },
	[HCOL_POWER_LIMIT] = { "power_limit_w", N_("LIMIT W"), true, true, 3, 0 },
	[HCOL_CLK_SM] = { "clock_sm_mhz", N_("SM MHz"), true, true, 3, 0 },
	[HCOL_CLK_MEM] = { "clock_mem_mhz", N_("MEM MHz"), true, true, 3, 0 },
	[HCOL_FAN] = { "fan_pct", N_("FAN %"), true, true, 3, 0 },
	[HCOL_ENC] = { "encoder_pct", N_("ENC %"), true, true, 3, 0 },
	[HCOL_DEC] = { "decoder_pct", N_("DEC %"), true, true, 3, 0 },
	[HCOL_PCIE_GEN] = { "pcie_gen", N_("PCIE GEN"), true, true, 3, 0 },
	[HCOL_PCIE_WIDTH] = { "pcie_width", N_("PCIE WIDTH"), true, true, 3, 0 },
	[HCOL_ECC] = { "ecc_uncorrected", N_("ECC"), true, true, 3, 0 },
	[HCOL_XID] = { "xid", N_("XID"), true, true, 3, 0 },
	[HCOL_THROTTLE] = { "throttle_reasons", N_("THROTTLE"), true, true, 3, 0 },
	[HCOL_UUID] = { "uuid", N_("UUID"), false, true, 3, 0 },
	[HCOL_NAME] = { "name", N_("NAME"), false, true, 3, 0 },
	/* as the live metrics show it (named in --fields); last, so csv columns keep places */
	[HCOL_VENDOR] = { "vendor", N_("VENDOR"), false, true, 4, 0 },
};

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
set_text(struct cell *c, const char *s)
{
	c->kind = s[0] ? CELL_STR : CELL_NULL;
	c->s = s;
}

static void
hist_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct sample_row *r = row;
	const struct gpu_sample *g = &r->s;

	(void)ctx;
	switch ((enum hist_col)col) {
	case HCOL_INSTANCE: set_text(c, g->instance_id); break;
	case HCOL_GPU: set_known(c, g->index, true); break;
	case HCOL_TIME: c->kind = CELL_TIME; c->i = g->at; break;
	case HCOL_STEP: set_known(c, r->step, true); break;
	case HCOL_SAMPLES: set_known(c, r->n, true); break;
	case HCOL_UTIL: set_stat(c, r, SS_UTIL, r->mean); break;
	case HCOL_UTIL_MIN: set_stat(c, r, SS_UTIL, r->min); break;
	case HCOL_UTIL_MAX: set_stat(c, r, SS_UTIL, r->max); break;
	case HCOL_MEM_USED: set_stat(c, r, SS_MEM_USED, r->mean); break;
	case HCOL_MEM_USED_MAX: set_stat(c, r, SS_MEM_USED, r->max); break;
	case HCOL_MEM_TOTAL: set_known(c, g->mem_total_mib, g->valid & MV_MEM); break;
	case HCOL_TEMP: set_stat(c, r, SS_TEMP, r->mean); break;
	case HCOL_TEMP_MAX: set_stat(c, r, SS_TEMP, r->max); break;
	case HCOL_POWER: set_stat(c, r, SS_POWER, r->mean); break;
	case HCOL_POWER_MAX: set_stat(c, r, SS_POWER, r->max); break;
	case HCOL_SOURCE: set_text(c, g->source == SAMPLE_SSH ? "ssh" : "api"); break;
	case HCOL_VENDOR: set_text(c, g->vendor); break;
	case HCOL_MEM_FREE: set_stat(c, r, SS_MEM_FREE, r->mean); break;
	case HCOL_MEM_UTIL: set_stat(c, r, SS_MEM_UTIL, r->mean); break;
	case HCOL_TEMP_MEM: set_stat(c, r, SS_TEMP_MEM, r->mean); break;
	case HCOL_POWER_LIMIT: set_known(c, g->power_limit_w, g->valid & MV_POWER_LIMIT); break;
	case HCOL_CLK_SM: set_stat(c, r, SS_CLK_SM, r->mean); break;
	case HCOL_CLK_MEM: set_stat(c, r, SS_CLK_MEM, r->mean); break;
	case HCOL_FAN: set_stat(c, r, SS_FAN, r->mean); break;
	case HCOL_ENC: set_stat(c, r, SS_ENC, r->mean); break;
	case HCOL_DEC: set_stat(c, r, SS_DEC, r->mean); break;
	case HCOL_PCIE_GEN: set_known(c, g->pcie_gen, g->valid & MV_PCIE_GEN); break;
	case HCOL_PCIE_WIDTH: set_known(c, g->pcie_width, g->valid & MV_PCIE_WIDTH); break;
	case HCOL_ECC: set_known(c, g->ecc_uncorrected, g->valid & MV_ECC_UNCORR); break;
	case HCOL_XID: set_known(c, g->xid, g->valid & MV_XID); break;
	case HCOL_THROTTLE: set_known(c, (int64_t)g->throttle, g->valid & MV_THROTTLE); break;
	case HCOL_UUID: set_text(c, g->uuid); break;
	case HCOL_NAME: set_text(c, g->name); break;
	default: c->kind = CELL_NULL; break;
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
