/*
 * catalogue.h - the GPUs gpurent knows, from ../shared/gpu-catalogue.md.
 *
 * Each model has one canonical id ("H100-SXM-80GB"), a family ("H100") and aliases.
 * A model a provider names in a way we do not know is NULL ("unknown"), never a guess.
 */
#ifndef GPURENT_CATALOGUE_H
#define GPURENT_CATALOGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gpu_model {
	const char *id;		/* canonical id, "H100-SXM-80GB" */
	const char *family;	/* "H100": `gpu=h100` matches every variant of the family */
	const char *vendor;	/* "NVIDIA", "AMD", "Intel" */
	const char *name;	/* short display name, "H100 SXM" */
	int vram_gb;		/* per GPU, decimal GB as sold */
	int bw_gbs;		/* memory bandwidth GB/s */
	int bf16_tflops_x10;	/* dense BF16 (FP16 where there is no BF16) x10; 0 = unknown */
	int tdp_w;
	const char *aliases;	/* space-separated extra names, matched like the id */
};

/* All models, in catalogue order; *n receives the count. */
const struct gpu_model *catalogue_all(size_t *n);

/* The model with exactly this canonical id (case-insensitive), or NULL. */
const struct gpu_model *catalogue_by_id(const char *id);

/*
 * Whether a user's GPU name selects this model: it matches, ignoring case, spaces, '-' and
 * '_', the canonical id, the display name, an alias, or the family ("h100" selects every H100).
 */
bool catalogue_matches(const struct gpu_model *m, const char *query);

/* Whether any model is selected by the query (to reject typos in filters). */
bool catalogue_known(const char *query);

/*
 * The set of models a query selects, as a bit mask over catalogue_all() indexes, so that a
 * filter folds its names once instead of once per offer. The catalogue has at most 64 models.
 */
uint64_t catalogue_select(const char *query);
/* The bit of a model in such a mask; 0 for NULL (unknown). */
uint64_t catalogue_bit(const struct gpu_model *m);

/*
 * A provider's own GPU string mapped to a model (gpu-catalogue.md section 2c):
 * provider is "vast", "runpod" or "lambda"; vram_gb is the per-GPU VRAM the provider reports
 * (0 when unknown) and picks the variant where one name covers several. NULL when the string
 * is not in the table.
 */
const struct gpu_model *catalogue_resolve(const char *provider, const char *raw, int vram_gb);

#endif
