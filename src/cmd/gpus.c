/*
 * gpurent gpus: the GPU catalogue, the names filters accept.
 */
#include <stdio.h>

#include "gpurent/catalogue.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"

static const struct column cols[] = {
	{ "id", "ID", false, false, 0, 0 },
	{ "family", "FAMILY", false, false, 0, 0 },
	{ "vendor", "VENDOR", false, false, 0, 0 },
	{ "vram_gb", "VRAM GB", true, false, 0, 0 },
	{ "bandwidth_gbs", "BW GB/S", true, false, 0, 0 },
	{ "bf16_tflops", "BF16 TFLOPS", true, false, 0, 0 },
	{ "tdp_w", "TDP W", true, false, 0, 0 },
	{ "aliases", "ALIASES", false, false, 1, 10 },
};

static void
cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct gpu_model *m = row;

	(void)ctx;
	switch (col) {
	case 0: c->kind = CELL_STR; c->s = m->id; break;
	case 1: c->kind = CELL_STR; c->s = m->family; break;
	case 2: c->kind = CELL_STR; c->s = m->vendor; break;
	case 3: c->kind = CELL_INT; c->i = m->vram_gb; break;
	case 4: c->kind = CELL_INT; c->i = m->bw_gbs; break;
	case 5:
		c->kind = m->bf16_tflops_x10 > 0 ? CELL_FIXED : CELL_NULL;
		c->i = m->bf16_tflops_x10;
		c->decimals = 1;
		break;
	case 6: c->kind = m->tdp_w > 0 ? CELL_INT : CELL_NULL; c->i = m->tdp_w; break;
	default: c->kind = m->aliases[0] ? CELL_STR : CELL_NULL; c->s = m->aliases; break;
	}
}

static int
gpus_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	const struct gpu_model *all;
	size_t n;
	int npos, rc;

	rc = cmd_parse(c, argc, argv, cmd_noopt, NULL, &npos);
	if (rc != 0 || npos < 0)
		return rc;
	if (npos > 0)
		return cmd_usage_error(c, "unexpected argument '%s'", argv[0]);
	all = catalogue_all(&n);
	if (out_print(c->out, &out_global, cols, ARRAY_LEN(cols), 0, all, n, sizeof(*all), cell,
	    NULL, &err) != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	return finish_output(c, 0);
}

const struct command cmd_gpus = {
	.name = "gpus",
	.summary = "list the GPU catalogue and the names filters accept",
	.run = gpus_run,
};
