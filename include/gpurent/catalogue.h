/*
 * catalogue.h - the GPUs gpurent knows, from ../shared/gpu-catalogue.md and
 * ../shared/providers/accelerators.md (the comments in src/core/catalogue.c cite each row).
 *
 * Each model has one canonical id ("H100-SXM-80GB"), a family ("H100") and aliases.
 * A model a provider names in a way we do not know is NULL, never a guess: such a GPU is
 * shown by the provider's own name (catalogue_display).
 */
#ifndef GPURENT_CATALOGUE_H
#define GPURENT_CATALOGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Figures are 0 where the vendor publishes none that our sources hold: unknown, never 0. */
struct gpu_model {
	const char *id;		/* canonical id, "H100-SXM-80GB"; no memory suffix when unknown */
	const char *family;	/* "H100": `gpu=h100` matches every variant of the family */
	const char *vendor;	/* "NVIDIA", "AMD", "Intel", "Huawei", ... */
	const char *name;	/* short display name, "H100 SXM" */
	int vram_gb;		/* per GPU, decimal GB as sold */
	int bw_gbs;		/* memory bandwidth GB/s */
	int bf16_tflops_x10;	/* dense BF16 x10; 0 also where the GPU has no BF16 (V100) */
	int fp16_tflops_x10;	/* dense FP16 with FP32 accumulate, x10 */
	int tdp_w;
	const char *aliases;	/* space-separated extra names, matched like the id */
};

/*
 * The tensor figure that price per TFLOP and the tflops filter use: dense BF16, or FP16 for
 * a GPU without BF16; 0 when unknown (or m is NULL), and then nothing is divided by it.
 */
int catalogue_tensor_tflops_x10(const struct gpu_model *m);

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
 * A set of models, so that a filter folds its names once instead of once per offer.
 * CATALOGUE_MAX bounds the catalogue (a static assertion keeps it so).
 */
#define CATALOGUE_MAX 128
struct catalogue_set {
	uint64_t w[CATALOGUE_MAX / 64];
};
/* Add every model the query selects to *set. */
void catalogue_select(const char *query, struct catalogue_set *set);
/* Whether m is in the set; false for NULL (unknown). */
bool catalogue_set_has(const struct catalogue_set *set, const struct gpu_model *m);

/*
 * A provider's own GPU string mapped to a model (gpu-catalogue.md section 2c):
 * provider is "vast", "runpod", "lambda" or "ppio", or "smi" for what a vendor's monitoring
 * tool prints (npu-smi "910B3", mthreads-gmi "MTTS4000", hy-smi "K100_AI"); vram_gb is the
 * per-GPU VRAM the provider reports (0 when unknown) and picks the variant where one name
 * covers several. Runs of spaces count as one (RunPod's "NVIDIA  A30"). NULL when the string
 * is not in the table.
 */
const struct gpu_model *catalogue_resolve(const char *provider, const char *raw, int vram_gb);

/*
 * A cluster scheduler's own name for a GPU type (a Slurm GRES type: "h100", "a100_80g",
 * "nvidia_h100_80gb_hbm3", "amd_instinct_mi300x") mapped to a model, where the name leaves
 * one: its words, case and the separators '_', '-', '.' and ' ' aside, are a model's name
 * or family, a memory size ("80g", "80gb"), a form ("sxm4", "pcie", "nvl") and words that
 * name no model (vendors, "geforce", "hbm3"). Where several variants are left and exactly
 * one is SXM, that one (clusters are built from HGX and DGX boards: "h100" is
 * H100-SXM-80GB, "h200" H200-SXM-141GB, "a100_80g" A100-SXM-80GB). NULL when none is left,
 * or several SXM ones that differ in memory ("a100", "v100"), or the name says two sizes
 * or two forms, or has other characters: never a guess. The user names the rest (config
 * slurm.gpu.TYPE).
 */
const struct gpu_model *catalogue_gpu_type(const char *type);

/* The i-th string a provider uses for some model (for pushing filters down), or NULL. */
const char *catalogue_provider_name(const char *provider, size_t i);

/*
 * What to show for a GPU: the canonical id when the model is known, else the provider's own
 * name with control characters stripped, into buf. "unknown" only when the provider named
 * none.
 */
const char *catalogue_display(const struct gpu_model *m, const char *raw, char *buf, size_t n);

/*
 * Whether a query names a provider's own GPU string: its folded form (case, spaces, '-' and
 * '_' ignored) equals the whole name or the name's last words ("rtx3070" and "3070" name
 * "NVIDIA GeForce RTX 3070"; "070" and "geforce" do not).
 */
bool catalogue_raw_matches(const char *raw, const char *query);

/*
 * Vendors: whether a user's vendor name ("amd", "Moore Threads", "mthreads") names
 * m's vendor; whether it names any vendor; and the vendors as a ", " list for messages.
 */
bool catalogue_vendor_matches(const struct gpu_model *m, const char *query);
bool catalogue_vendor_known(const char *query);
const char *catalogue_vendors_help(void);

#endif
