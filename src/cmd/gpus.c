/*
 * gpurent gpus: the GPU catalogue, the names filters accept; with --unknown, the names
 * providers were seen selling that the catalogue lacks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/filter.h"
#include "gpurent/gpunames.h"
#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "common.h"

static const struct cmd_opt opts[] = {
	{ "unknown", 0, NULL, N_("list the GPU names providers were seen selling that the catalogue lacks"), 0, CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

/*
 * On a narrow terminal, as offers and ls: the names a filter takes (the id, its aliases cut
 * to fit) and the figures one compares GPUs by stay; what the id says again (family,
 * vendor) and the rarer figures go first.
 */
static const struct column cols[] = {
	{ "id", N_("ID"), false, false, 0, 0 },
	{ "family", N_("FAMILY"), false, false, 4, 0 },
	{ "vendor", N_("VENDOR"), false, false, 3, 0 },
	{ "vram_gb", N_("VRAM GB"), true, false, 0, 0 },
	{ "bandwidth_gbs", N_("BW GB/S"), true, false, 2, 0 },
	{ "bf16_tflops", N_("BF16 TFLOPS"), true, false, 1, 0 },
	{ "fp16_tflops", N_("FP16 TFLOPS"), true, false, 5, 0 },
	{ "tdp_w", N_("TDP W"), true, false, 2, 0 },
	{ "aliases", N_("ALIASES"), false, false, 0, 10 },
};

/* A catalogue figure: 0 is unknown, null in JSON and "-" in a table. */
static void
figure(struct cell *c, int v, int decimals)
{
	c->kind = v > 0 ? (decimals > 0 ? CELL_FIXED : CELL_INT) : CELL_NULL;
	c->i = v;
	c->decimals = decimals;
}

static void
cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct gpu_model *m = *(const struct gpu_model *const *)row;

	switch (col) {
	case 0: c->kind = CELL_STR; c->s = m->id; break;
	case 1: c->kind = CELL_STR; c->s = m->family; break;
	case 2: c->kind = CELL_STR; c->s = m->vendor; break;
	case 3: figure(c, m->vram_gb, 0); break;
	case 4: figure(c, m->bw_gbs, 0); break;
	case 5: figure(c, m->bf16_tflops_x10, 1); break;
	case 6: figure(c, m->fp16_tflops_x10, 1); break;
	case 7: figure(c, m->tdp_w, 0); break;
	default: cell_str(c, m->aliases); break;
	}
}

static const struct column unknown_cols[] = {
	{ "provider", N_("PROVIDER"), false, false, 0, 0 },
	{ "gpu_name", N_("GPU NAME"), false, false, 0, 12 },
	{ "vram_gb", N_("VRAM GB"), true, false, 1, 0 },
	{ "first_seen", N_("FIRST SEEN"), false, false, 2, 0 },
	{ "last_seen", N_("LAST SEEN"), false, false, 2, 0 },
};

static void
unknown_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct gpu_name_seen *g = row;

	switch (col) {
	case 0: c->kind = CELL_STR; c->s = g->provider; break;
	case 1: c->kind = CELL_STR; c->s = g->name; break;
	case 2: figure(c, g->vram_gb, 0); break;
	case 3: c->kind = CELL_TIME; c->i = g->first_seen; break;
	default: c->kind = CELL_TIME; c->i = g->last_seen; break;
	}
}

static int
list_unknown(struct cmd_ctx *c)
{
	struct gr_error err = { 0 };
	struct gpu_name_seen *v;
	struct state *st;
	size_t n;
	int rc;

	if (session_state(c->s, &st, &err) != GR_OK || gpunames_load(st, &v, &n, &err) != GR_OK)
		return cmd_error(c, &err);
	rc = cmd_print(c, unknown_cols, ARRAY_LEN(unknown_cols), 1, v, n, sizeof(*v),
	    unknown_cell, NULL, 0);
	free(v);
	return rc;
}

/* The catalogue as offers of one GPU, so that the offers' filter language selects it. */
static bool
model_matches(const struct filter *f, const struct gpu_model *m)
{
	struct offer o;

	memset(&o, 0, sizeof(o));
	o.gpu = m;
	o.gpu_count = 1;
	o.vram_gb = m->vram_gb;
	if (m->vram_gb > 0)
		o.valid |= OV_VRAM;
	return filter_match(f, &o);
}

static int
gpus_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	const struct gpu_model *all, **rows;
	struct filter f;
	bool unknown = false;
	size_t n, i, shown = 0;
	int npos, rc;

	rc = cmd_parse(c, argc, argv, NULL, &unknown, &npos);
	if (rc != 0 || npos < 0)
		return rc;
	if (unknown) {
		if (npos > 0)
			return cmd_usage_error(c, "--unknown takes no filter ('%s')", argv[0]);
		return list_unknown(c);
	}
	memset(&f, 0, sizeof(f));
	if (filter_parse(&f, npos, argv, &err) != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	for (i = 0; i < f.n; i++) {
		enum filter_field ff = f.t[i].field;

		if (ff != FF_GPU && ff != FF_VENDOR && ff != FF_VRAM && ff != FF_TFLOPS)
			return cmd_usage_error(c, "'%s' does not apply to the catalogue (gpus "
			    "takes gpu, vendor, vram and tflops)", filter_field_name(ff));
	}
	all = catalogue_all(&n);
	rows = xcalloc(n > 0 ? n : 1, sizeof(*rows));
	for (i = 0; i < n; i++)
		if (model_matches(&f, &all[i]))
			rows[shown++] = &all[i];
	rc = cmd_print(c, cols, ARRAY_LEN(cols), 0, rows, shown, sizeof(*rows), cell, NULL, 0);
	free(rows);
	return rc;
}

const struct command cmd_gpus = {
	.name = "gpus",
	.args = "[FILTER...]",
	.summary = N_("list the GPU catalogue and the names filters accept"),
	.help =
	    N_("Each GPU model's canonical id, family, vendor, memory, bandwidth, dense BF16 and\n"
	    "FP16 TFLOPS and TDP (- where the vendor publishes no figure our sources hold).\n"
	    "Filter terms select models: gpu, vendor, vram and tflops (per GPU), as in 'offers'.\n\n"
	    "examples:\n"
	    "  gpurent gpus vendor=amd\n"
	    "  gpurent gpus vendor=huawei,hygon -o json\n"
	    "  gpurent gpus --unknown"),
	.opts = opts,
	.complete_args = CPL_FILTER,
	.run = gpus_run,
};
