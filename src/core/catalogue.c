/*
 * The GPU catalogue, transcribed from ../shared/gpu-catalogue.md (sections 1 and 2a) and
 * ../shared/providers/accelerators.md; the comment above each group of rows cites its source.
 * Tensor figures are dense, times ten; BF16 is 0 where the GPU has none. A figure our sources do not hold (or hold only as an
 * unconfirmed "?" or a third-party estimate) is 0: unknown, never made up.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/util.h"

/* id, family, vendor, name, VRAM GB, BW GB/s, BF16 x10, FP16 x10, TDP W, aliases */
static const struct gpu_model models[] = {
	/* NVIDIA data centre: gpu-catalogue.md 1a and 1b. */
	{ "B200-SXM-180GB", "B200", "NVIDIA", "B200", 180, 7700, 22500, 22500, 1000, "b200-sxm" },
	{ "H200-SXM-141GB", "H200", "NVIDIA", "H200 SXM", 141, 4800, 9895, 9895, 700, "h200-sxm" },
	{ "H200-NVL-141GB", "H200", "NVIDIA", "H200 NVL", 141, 4800, 8355, 8355, 600, "h200nvl" },
	{ "H100-SXM-80GB", "H100", "NVIDIA", "H100 SXM", 80, 3350, 9895, 9895, 700, "h100-sxm h100-sxm5" },
	{ "H100-PCIE-80GB", "H100", "NVIDIA", "H100 PCIe", 80, 2000, 7565, 7565, 350, "h100-pcie" },
	{ "H100-NVL-94GB", "H100", "NVIDIA", "H100 NVL", 94, 3900, 8355, 8355, 400, "h100nvl" },
	{ "GH200-96GB", "GH200", "NVIDIA", "GH200 96GB", 96, 4000, 9895, 9895, 1000, "" },
	{ "GH200-144GB", "GH200", "NVIDIA", "GH200 144GB", 144, 4900, 9895, 9895, 1000, "" },
	{ "A100-SXM-80GB", "A100", "NVIDIA", "A100 SXM 80GB", 80, 2039, 3120, 3120, 400, "a100-80gb a100-sxm4-80gb a100-80" },
	{ "A100-SXM-40GB", "A100", "NVIDIA", "A100 SXM 40GB", 40, 1555, 3120, 3120, 400, "a100-40gb a100-sxm4-40gb a100-40" },
	{ "A100-PCIE-80GB", "A100", "NVIDIA", "A100 PCIe 80GB", 80, 1935, 3120, 3120, 300, "a100-80gb a100-80" },
	{ "A100-PCIE-40GB", "A100", "NVIDIA", "A100 PCIe 40GB", 40, 1555, 3120, 3120, 250, "a100-40gb a100-40" },
	{ "L40S-48GB", "L40S", "NVIDIA", "L40S", 48, 864, 3620, 3620, 350, "" },
	{ "L40-48GB", "L40", "NVIDIA", "L40", 48, 864, 1810, 1810, 300, "" },
	{ "L4-24GB", "L4", "NVIDIA", "L4", 24, 300, 1210, 1210, 72, "" },
	{ "A40-48GB", "A40", "NVIDIA", "A40", 48, 696, 1497, 1497, 300, "" },
	{ "A30-24GB", "A30", "NVIDIA", "A30", 24, 933, 1650, 1650, 165, "" },
	{ "A10-24GB", "A10", "NVIDIA", "A10", 24, 600, 1250, 1250, 150, "" },
	/* A10G: NVIDIA publishes no datasheet; only memory is solid (section 4). */
	{ "A10G-24GB", "A10G", "NVIDIA", "A10G", 24, 600, 0, 0, 0, "" },
	{ "A16-16GB", "A16", "NVIDIA", "A16", 16, 200, 179, 179, 63, "" },
	/* Volta and Turing have no BF16 (price per TFLOP uses their FP16). */
	{ "V100-SXM2-32GB", "V100", "NVIDIA", "V100 SXM2 32GB", 32, 900, 0, 1250, 300, "v100-32gb" },
	{ "V100-SXM2-16GB", "V100", "NVIDIA", "V100 SXM2 16GB", 16, 900, 0, 1250, 300, "v100-16gb" },
	{ "V100-PCIE-16GB", "V100", "NVIDIA", "V100 PCIe 16GB", 16, 900, 0, 1120, 250, "v100-16gb" },
	{ "T4-16GB", "T4", "NVIDIA", "T4", 16, 320, 0, 650, 70, "tesla-t4" },
	/* B300: RunPod lists it with 288 GB (gpu-catalogue.md 2b); no other figure in our sources. */
	{ "B300-SXM-288GB", "B300", "NVIDIA", "B300", 288, 0, 0, 0, 0, "b300-sxm6" },
	/* NVIDIA's China-market parts: named in accelerators work and ppio.md, no figures. */
	{ "H800", "H800", "NVIDIA", "H800", 0, 0, 0, 0, 0, "" },
	{ "H20", "H20", "NVIDIA", "H20", 0, 0, 0, 0, 0, "" },
	{ "A800", "A800", "NVIDIA", "A800", 0, 0, 0, 0, 0, "a800-pcie" },
	{ "L20", "L20", "NVIDIA", "L20", 0, 0, 0, 0, 0, "" },
	/* Workstation and GeForce: gpu-catalogue.md 1c. The RTX PRO 6000's tensor figures are
	 * derived from FP4 sparse launch material and marked unconfirmed: left unknown. */
	{ "RTXPRO6000-96GB", "RTXPRO6000", "NVIDIA", "RTX PRO 6000", 96, 1792, 0, 0, 600, "rtx-pro-6000 pro6000" },
	{ "RTX6000ADA-48GB", "RTX6000ADA", "NVIDIA", "RTX 6000 Ada", 48, 960, 3642, 3642, 300, "rtx6000-ada 6000ada" },
	{ "RTXA6000-48GB", "RTXA6000", "NVIDIA", "RTX A6000", 48, 768, 1548, 1548, 300, "a6000" },
	{ "RTXA5000-24GB", "RTXA5000", "NVIDIA", "RTX A5000", 24, 768, 1111, 1111, 230, "a5000" },
	{ "RTXA4000-16GB", "RTXA4000", "NVIDIA", "RTX A4000", 16, 448, 767, 767, 140, "a4000" },
	{ "QRTX6000-24GB", "QRTX6000", "NVIDIA", "Quadro RTX 6000", 24, 672, 0, 1305, 295, "quadro-rtx-6000" },
	/* GeForce FP16 is the FP32-accumulate rate (the FP16-accumulate rate is twice it). */
	{ "RTX5090-32GB", "RTX5090", "NVIDIA", "RTX 5090", 32, 1792, 2095, 2095, 575, "5090" },
	{ "RTX4090-24GB", "RTX4090", "NVIDIA", "RTX 4090", 24, 1008, 1652, 1652, 450, "4090" },
	{ "RTX4080-16GB", "RTX4080", "NVIDIA", "RTX 4080", 16, 717, 975, 975, 320, "4080" },
	{ "RTX3090-24GB", "RTX3090", "NVIDIA", "RTX 3090", 24, 936, 710, 710, 350, "3090" },
	{ "RTX3080-10GB", "RTX3080", "NVIDIA", "RTX 3080", 10, 760, 595, 595, 320, "3080" },
	/* Sold by RunPod (gpu-catalogue.md 2b) or vast, not in our sources' spec tables:
	 * named, with no figures. The vendor's own sheets would complete them. */
	{ "RTXPRO4500", "RTXPRO4500", "NVIDIA", "RTX PRO 4500", 0, 0, 0, 0, 0, "rtx-pro-4500 pro4500" },
	{ "RTX5000ADA", "RTX5000ADA", "NVIDIA", "RTX 5000 Ada", 0, 0, 0, 0, 0, "rtx5000-ada 5000ada" },
	{ "RTX4000ADA", "RTX4000ADA", "NVIDIA", "RTX 4000 Ada", 0, 0, 0, 0, 0, "rtx4000-ada 4000ada" },
	{ "RTX4000SFFADA", "RTX4000SFFADA", "NVIDIA", "RTX 4000 SFF Ada", 0, 0, 0, 0, 0, "rtx4000-sff-ada 4000sffada" },
	{ "RTX2000ADA", "RTX2000ADA", "NVIDIA", "RTX 2000 Ada", 0, 0, 0, 0, 0, "rtx2000-ada 2000ada" },
	{ "RTXA4500", "RTXA4500", "NVIDIA", "RTX A4500", 0, 0, 0, 0, 0, "a4500" },
	{ "RTXA2000", "RTXA2000", "NVIDIA", "RTX A2000", 0, 0, 0, 0, 0, "a2000" },
	{ "QRTX8000", "QRTX8000", "NVIDIA", "Quadro RTX 8000", 0, 0, 0, 0, 0, "quadro-rtx-8000" },
	{ "RTX5080", "RTX5080", "NVIDIA", "RTX 5080", 0, 0, 0, 0, 0, "5080" },
	{ "RTX4090D", "RTX4090D", "NVIDIA", "RTX 4090D", 0, 0, 0, 0, 0, "4090d" },
	{ "RTX4080SUPER", "RTX4080SUPER", "NVIDIA", "RTX 4080 SUPER", 0, 0, 0, 0, 0, "rtx4080s 4080s 4080super" },
	{ "RTX4070TI", "RTX4070TI", "NVIDIA", "RTX 4070 Ti", 0, 0, 0, 0, 0, "4070ti" },
	{ "RTX3090TI", "RTX3090TI", "NVIDIA", "RTX 3090 Ti", 0, 0, 0, 0, 0, "3090ti" },
	{ "RTX3080TI", "RTX3080TI", "NVIDIA", "RTX 3080 Ti", 0, 0, 0, 0, 0, "3080ti" },
	{ "RTX3070", "RTX3070", "NVIDIA", "RTX 3070", 0, 0, 0, 0, 0, "3070" },
	/* AMD and Intel: gpu-catalogue.md 1d; MI250, MI325X and Gaudi 3 have no figures there. */
	{ "MI325X", "MI325X", "AMD", "MI325X", 0, 0, 0, 0, 0, "instinct-mi325x" },
	{ "MI300X-192GB", "MI300X", "AMD", "MI300X", 192, 5300, 13074, 13074, 750, "instinct-mi300x" },
	{ "MI250X-128GB", "MI250X", "AMD", "MI250X", 128, 3277, 3830, 3830, 500, "instinct-mi250x" },
	{ "MI250", "MI250", "AMD", "MI250", 0, 0, 0, 0, 0, "instinct-mi250" },
	{ "MI210-64GB", "MI210", "AMD", "MI210", 64, 1638, 1810, 1810, 300, "instinct-mi210" },
	/* Gaudi 2: BF16 only from third-party summaries, FP16 not published (section 4). */
	{ "GAUDI2-96GB", "GAUDI2", "Intel", "Gaudi 2", 96, 2450, 0, 0, 600, "gaudi" },
	{ "GAUDI3", "GAUDI3", "Intel", "Gaudi 3", 0, 0, 0, 0, 0, "" },
	/* Chinese data-centre parts: accelerators.md names them and their tools' strings and
	 * holds no vendor figures (its tool samples show sub-SKUs' memory only): unknown. */
	{ "ASCEND-910B", "ASCEND910B", "Huawei", "Ascend 910B", 0, 0, 0, 0, 0, "910b" },
	{ "ASCEND-910C", "ASCEND910C", "Huawei", "Ascend 910C", 0, 0, 0, 0, 0, "910c" },
	{ "HYGON-K100", "K100", "Hygon", "DCU K100", 0, 0, 0, 0, 0, "dcu-k100 k100-ai" },
	{ "MLU370", "MLU370", "Cambricon", "MLU370", 0, 0, 0, 0, 0, "" },
	{ "MLU590", "MLU590", "Cambricon", "MLU590", 0, 0, 0, 0, 0, "" },
	{ "MTT-S4000", "MTTS4000", "Moore Threads", "MTT S4000", 0, 0, 0, 0, 0, "s4000" },
	{ "BI-V150", "BIV150", "Iluvatar", "BI-V150", 0, 0, 0, 0, 0, "" },
	{ "BR104", "BR104", "Biren", "BR104", 0, 0, 0, 0, 0, "" },
	{ "METAX-C500", "C500", "MetaX", "C500", 0, 0, 0, 0, 0, "" },
};

_Static_assert(ARRAY_LEN(models) <= CATALOGUE_MAX, "struct catalogue_set holds CATALOGUE_MAX models");

void
catalogue_select(const char *query, struct catalogue_set *set)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(models); i++)
		if (catalogue_matches(&models[i], query))
			set->w[i / 64] |= UINT64_C(1) << (i % 64);
}

bool
catalogue_set_has(const struct catalogue_set *set, const struct gpu_model *m)
{
	size_t i;

	if (m == NULL || m < models || m >= models + ARRAY_LEN(models))
		return false;
	i = (size_t)(m - models);
	return (set->w[i / 64] >> (i % 64)) & 1;
}

int
catalogue_tensor_tflops_x10(const struct gpu_model *m)
{
	if (m == NULL)
		return 0;
	return m->bf16_tflops_x10 > 0 ? m->bf16_tflops_x10 : m->fp16_tflops_x10;
}

const struct gpu_model *
catalogue_all(size_t *n)
{
	*n = ARRAY_LEN(models);
	return models;
}

const struct gpu_model *
catalogue_by_id(const char *id)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(models); i++)
		if (streq_ci(models[i].id, id))
			return &models[i];
	return NULL;
}

/* Lower-case alphanumerics only: "H100 SXM", "h100-sxm" and "H100_SXM" are all "h100sxm". */
static void
fold(char *dst, size_t n, const char *src, size_t len)
{
	size_t o = 0, i;

	for (i = 0; i < len && src[i] != '\0' && o + 1 < n; i++)
		if (isalnum((unsigned char)src[i]))
			dst[o++] = (char)tolower((unsigned char)src[i]);
	dst[o] = '\0';
}

static bool
fold_eq(const char *folded_query, const char *s, size_t len)
{
	char buf[128];

	fold(buf, sizeof(buf), s, len);
	return buf[0] != '\0' && strcmp(buf, folded_query) == 0;
}

/* The length of an id without its memory suffix ("H100-SXM" of "H100-SXM-80GB"), or 0. */
static size_t
id_stem_len(const char *id)
{
	const char *dash = strrchr(id, '-'), *p;

	if (dash == NULL || !isdigit((unsigned char)dash[1]))
		return 0;
	for (p = dash + 1; isdigit((unsigned char)*p); p++)
		;
	return strcmp(p, "GB") == 0 ? (size_t)(dash - id) : 0;
}

/* Each space-separated word of list, folded, compared with q. */
static bool
list_has(const char *list, const char *q)
{
	const char *a, *sp;

	for (a = list; *a != '\0'; a = sp) {
		sp = strchr(a, ' ');
		if (sp == NULL)
			sp = a + strlen(a);
		if (fold_eq(q, a, (size_t)(sp - a)))
			return true;
		while (*sp == ' ')
			sp++;
	}
	return false;
}

bool
catalogue_matches(const struct gpu_model *m, const char *query)
{
	char q[128];
	size_t stem;

	if (m == NULL)
		return false;
	fold(q, sizeof(q), query, strlen(query));
	if (q[0] == '\0')
		return false;
	if (fold_eq(q, m->id, strlen(m->id)) || fold_eq(q, m->family, strlen(m->family)) ||
	    fold_eq(q, m->name, strlen(m->name)))
		return true;
	stem = id_stem_len(m->id);
	if (stem > 0 && fold_eq(q, m->id, stem))
		return true;
	return list_has(m->aliases, q);
}

/*
 * Words of a scheduler's GPU type that name no model: vendors and product lines (Slurm's
 * AutoDetect writes "nvidia_geforce_rtx_3090", "tesla_v100", "amd_instinct_mi300x") and
 * memory kinds ("nvidia_h100_80gb_hbm3").
 */
static const char *const type_noise[] = {
	"nvidia", "amd", "intel", "tesla", "geforce", "instinct", "hbm2", "hbm2e", "hbm3",
	"hbm3e", "gddr6", "gddr6x",
};

/* Form words, and the word of a canonical id they pick ("sxm4" picks "A100-SXM-80GB"). */
static const struct {
	const char *word, *in_id;
} type_forms[] = {
	{ "sxm", "-SXM" }, { "sxm2", "-SXM" }, { "sxm4", "-SXM" }, { "sxm5", "-SXM" },
	{ "sxm6", "-SXM" }, { "pcie", "-PCIE" }, { "nvl", "-NVL" },
};

/* A memory word, "80g" or "80gb": its GB, else 0. */
static int
type_memory(const char *w)
{
	int gb = 0;
	size_t i;

	for (i = 0; isdigit((unsigned char)w[i]) && i < 4; i++)
		gb = gb * 10 + (w[i] - '0');
	if (i == 0 || gb == 0 || (strcmp(w + i, "g") != 0 && strcmp(w + i, "gb") != 0))
		return 0;
	return gb;
}

const struct gpu_model *
catalogue_gpu_type(const char *type)
{
	char core[64] = "", w[64];
	const char *form = NULL, *p, *end;
	const struct gpu_model *found = NULL, *sxm = NULL;
	int gb = 0, n_found = 0, n_sxm = 0;
	size_t i, len;

	if (type == NULL)
		return NULL;
	for (p = type; *p != '\0'; p = end + (*end != '\0')) {
		end = p + strcspn(p, "_- .");
		len = (size_t)(end - p);
		if (len == 0)
			continue;
		if (len >= sizeof(w))
			return NULL;
		for (i = 0; i < len; i++) {
			/* Anything but words and their separators is no type we can read. */
			if (!isalnum((unsigned char)p[i]))
				return NULL;
			w[i] = (char)tolower((unsigned char)p[i]);
		}
		w[len] = '\0';
		for (i = 0; i < ARRAY_LEN(type_noise) && strcmp(w, type_noise[i]) != 0; i++)
			;
		if (i < ARRAY_LEN(type_noise))
			continue;
		if (type_memory(w) > 0) {
			if (gb != 0)
				return NULL;	/* two memory sizes: which? */
			gb = type_memory(w);
			continue;
		}
		for (i = 0; i < ARRAY_LEN(type_forms) && strcmp(w, type_forms[i].word) != 0; i++)
			;
		if (i < ARRAY_LEN(type_forms)) {
			if (form != NULL && strcmp(form, type_forms[i].in_id) != 0)
				return NULL;	/* two forms */
			form = type_forms[i].in_id;
			continue;
		}
		if (strlen(core) + len >= sizeof(core))
			return NULL;
		strcat(core, w);
	}
	if (core[0] == '\0')
		return NULL;
	for (i = 0; i < ARRAY_LEN(models); i++) {
		const struct gpu_model *m = &models[i];

		if (!catalogue_matches(m, core) || (gb != 0 && m->vram_gb != gb) ||
		    (form != NULL && strstr(m->id, form) == NULL))
			continue;
		found = m;
		n_found++;
		if (strstr(m->id, "-SXM") != NULL) {
			sxm = m;
			n_sxm++;
		}
	}
	if (n_found == 1)
		return found;
	/* Several variants and one of them SXM: that one, the board of the HGX and DGX nodes
	   that clusters are built from ("h100" is the H100 SXM 80 GB). Several SXM variants
	   differ in memory ("a100": 40 or 80 GB, "v100"): unknown, never a guess. */
	return n_sxm == 1 ? sxm : NULL;
}

bool
catalogue_known(const char *query)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(models); i++)
		if (catalogue_matches(&models[i], query))
			return true;
	return false;
}

/*
 * Provider strings (gpu-catalogue.md 2a and 2b, accelerators.md, ppio.md). Where one string
 * covers several variants, `split_gb` is the VRAM boundary: below it `small`, at or above it
 * `large`. Strings are exact, case and all; "smi" rows are compared folded (tools and the
 * scripts around them drop spaces: "MTT S4000" and "MTTS4000").
 */
struct name_row {
	const char *provider;
	const char *raw;
	const char *large;
	const char *small;
	int split_gb;
};

static const struct name_row names[] = {
	{ "vast", "B200", "B200-SXM-180GB", NULL, 0 },
	{ "vast", "H200", "H200-SXM-141GB", NULL, 0 },
	{ "vast", "H200 NVL", "H200-NVL-141GB", NULL, 0 },
	{ "vast", "H100 SXM", "H100-SXM-80GB", NULL, 0 },
	{ "vast", "H100 PCIE", "H100-PCIE-80GB", NULL, 0 },
	{ "vast", "H100 NVL", "H100-NVL-94GB", NULL, 0 },
	{ "vast", "GH200 SXM", "GH200-144GB", "GH200-96GB", 120 },
	{ "vast", "A100 SXM4", "A100-SXM-80GB", "A100-SXM-40GB", 60 },
	{ "vast", "A100 SXM", "A100-SXM-80GB", "A100-SXM-40GB", 60 },
	{ "vast", "A100 PCIE", "A100-PCIE-80GB", "A100-PCIE-40GB", 60 },
	{ "vast", "A800 PCIE", "A800", NULL, 0 },
	{ "vast", "L40S", "L40S-48GB", NULL, 0 },
	{ "vast", "L40", "L40-48GB", NULL, 0 },
	{ "vast", "L4", "L4-24GB", NULL, 0 },
	{ "vast", "A40", "A40-48GB", NULL, 0 },
	{ "vast", "A30", "A30-24GB", NULL, 0 },
	{ "vast", "A10", "A10-24GB", NULL, 0 },
	{ "vast", "A10g", "A10G-24GB", NULL, 0 },
	{ "vast", "A16", "A16-16GB", NULL, 0 },
	{ "vast", "RTX 6000Ada", "RTX6000ADA-48GB", NULL, 0 },
	{ "vast", "RTX A6000", "RTXA6000-48GB", NULL, 0 },
	{ "vast", "RTX A5000", "RTXA5000-24GB", NULL, 0 },
	{ "vast", "RTX A4000", "RTXA4000-16GB", NULL, 0 },
	{ "vast", "RTX PRO 6000 S", "RTXPRO6000-96GB", NULL, 0 },
	{ "vast", "RTX PRO 6000 WS", "RTXPRO6000-96GB", NULL, 0 },
	{ "vast", "RTX PRO 6000 Max-Q", "RTXPRO6000-96GB", NULL, 0 },
	{ "vast", "RTX PRO 6000", "RTXPRO6000-96GB", NULL, 0 },
	{ "vast", "RTX 5090", "RTX5090-32GB", NULL, 0 },
	{ "vast", "RTX 4090", "RTX4090-24GB", NULL, 0 },
	{ "vast", "RTX 4090D", "RTX4090D", NULL, 0 },
	{ "vast", "RTX 4080", "RTX4080-16GB", NULL, 0 },
	{ "vast", "RTX 4080S", "RTX4080SUPER", NULL, 0 },
	{ "vast", "RTX 3090", "RTX3090-24GB", NULL, 0 },
	{ "vast", "RTX 3090 Ti", "RTX3090TI", NULL, 0 },
	/* The 12 GB RTX 3080 is another GPU that the catalogue does not hold. */
	{ "vast", "RTX 3080", NULL, "RTX3080-10GB", 11 },
	{ "vast", "Tesla V100", "V100-SXM2-32GB", "V100-SXM2-16GB", 24 },
	{ "vast", "Tesla T4", "T4-16GB", NULL, 0 },
	{ "vast", "Q RTX 6000", "QRTX6000-24GB", NULL, 0 },
	{ "vast", "Q RTX 8000", "QRTX8000", NULL, 0 },
	/* Unconfirmed: the MI210/MI250X pattern (gpu-catalogue.md 2a). */
	{ "vast", "InstinctMI300X", "MI300X-192GB", NULL, 0 },
	{ "vast", "InstinctMI250X", "MI250X-128GB", NULL, 0 },
	{ "vast", "InstinctMI210", "MI210-64GB", NULL, 0 },
	{ "runpod", "NVIDIA B200", "B200-SXM-180GB", NULL, 0 },
	{ "runpod", "NVIDIA B300 SXM6 AC", "B300-SXM-288GB", NULL, 0 },
	{ "runpod", "NVIDIA H200", "H200-SXM-141GB", NULL, 0 },
	{ "runpod", "NVIDIA H200 NVL", "H200-NVL-141GB", NULL, 0 },
	{ "runpod", "NVIDIA H100 80GB HBM3", "H100-SXM-80GB", NULL, 0 },
	{ "runpod", "NVIDIA H100 PCIe", "H100-PCIE-80GB", NULL, 0 },
	{ "runpod", "NVIDIA H100 NVL", "H100-NVL-94GB", NULL, 0 },
	{ "runpod", "NVIDIA A100-SXM4-80GB", "A100-SXM-80GB", NULL, 0 },
	{ "runpod", "NVIDIA A100 80GB PCIe", "A100-PCIE-80GB", NULL, 0 },
	{ "runpod", "NVIDIA L40S", "L40S-48GB", NULL, 0 },
	{ "runpod", "NVIDIA L40", "L40-48GB", NULL, 0 },
	{ "runpod", "NVIDIA L4", "L4-24GB", NULL, 0 },
	{ "runpod", "NVIDIA A40", "A40-48GB", NULL, 0 },
	{ "runpod", "NVIDIA A30", "A30-24GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX 6000 Ada Generation", "RTX6000ADA-48GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX 5000 Ada Generation", "RTX5000ADA", NULL, 0 },
	{ "runpod", "NVIDIA RTX 4000 Ada Generation", "RTX4000ADA", NULL, 0 },
	{ "runpod", "NVIDIA RTX 4000 SFF Ada Generation", "RTX4000SFFADA", NULL, 0 },
	{ "runpod", "NVIDIA RTX 2000 Ada Generation", "RTX2000ADA", NULL, 0 },
	{ "runpod", "NVIDIA RTX A6000", "RTXA6000-48GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX A5000", "RTXA5000-24GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX A4500", "RTXA4500", NULL, 0 },
	{ "runpod", "NVIDIA RTX A4000", "RTXA4000-16GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX A2000", "RTXA2000", NULL, 0 },
	{ "runpod", "NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTXPRO6000-96GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTXPRO6000-96GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "RTXPRO6000-96GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX PRO 4500 Blackwell", "RTXPRO4500", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 5090", "RTX5090-32GB", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 5080", "RTX5080", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 4090", "RTX4090-24GB", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 4080", "RTX4080-16GB", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 4080 SUPER", "RTX4080SUPER", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 4070 Ti", "RTX4070TI", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 3090", "RTX3090-24GB", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 3090 Ti", "RTX3090TI", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 3080", "RTX3080-10GB", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 3080 Ti", "RTX3080TI", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 3080TI", "RTX3080TI", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 3070", "RTX3070", NULL, 0 },
	{ "runpod", "Tesla V100-SXM2-32GB", "V100-SXM2-32GB", NULL, 0 },
	{ "runpod", "Tesla V100-SXM2-16GB", "V100-SXM2-16GB", NULL, 0 },
	{ "runpod", "Tesla V100-PCIE-16GB", "V100-PCIE-16GB", NULL, 0 },
	{ "runpod", "AMD Instinct MI300X OAM", "MI300X-192GB", NULL, 0 },
	/* Lambda: the model token of the instance type name, disambiguated by VRAM. */
	{ "lambda", "b200", "B200-SXM-180GB", NULL, 0 },
	{ "lambda", "h100", "H100-SXM-80GB", NULL, 0 },
	{ "lambda", "h100_sxm5", "H100-SXM-80GB", NULL, 0 },
	{ "lambda", "h100_pcie", "H100-PCIE-80GB", NULL, 0 },
	{ "lambda", "gh200", "GH200-144GB", "GH200-96GB", 120 },
	{ "lambda", "a100", "A100-PCIE-80GB", "A100-PCIE-40GB", 60 },
	{ "lambda", "a100_pcie", "A100-PCIE-80GB", "A100-PCIE-40GB", 60 },
	{ "lambda", "a100_sxm4", "A100-SXM-80GB", "A100-SXM-40GB", 60 },
	{ "lambda", "a100_80gb_sxm4", "A100-SXM-80GB", NULL, 0 },
	{ "lambda", "a10", "A10-24GB", NULL, 0 },
	{ "lambda", "a6000", "RTXA6000-48GB", NULL, 0 },
	{ "lambda", "rtx6000", "QRTX6000-24GB", NULL, 0 },
	{ "lambda", "v100", "V100-SXM2-32GB", "V100-SXM2-16GB", 24 },
	{ "lambda", "v100_n", "V100-SXM2-32GB", "V100-SXM2-16GB", 24 },
	/* PPIO (ppio.md): resource_spec.gpu.name. */
	{ "ppio", "H20", "H20", NULL, 0 },
	{ "ppio", "RTX 4090D", "RTX4090D", NULL, 0 },
	/* Vendor tools (accelerators.md): npu-smi's Name and Chip Name, hy-smi's Card Series,
	 * cnmon's ProductName, mthreads-gmi's Product Name, ixsmi and mx-smi names. */
	/* rocm-smi's Card Series (tests/data/probes/amd/). */
	{ "smi", "AMD Instinct MI300X", "MI300X-192GB", NULL, 0 },
	{ "smi", "AMD Instinct MI300X OAM", "MI300X-192GB", NULL, 0 },
	{ "smi", "AMD INSTINCT MI250 (MCM) OAM AC MBA", "MI250", NULL, 0 },
	{ "smi", "910B", "ASCEND-910B", NULL, 0 },
	{ "smi", "910B1", "ASCEND-910B", NULL, 0 },
	{ "smi", "910B2", "ASCEND-910B", NULL, 0 },
	{ "smi", "910B3", "ASCEND-910B", NULL, 0 },
	{ "smi", "910B4", "ASCEND-910B", NULL, 0 },
	{ "smi", "Ascend 910B", "ASCEND-910B", NULL, 0 },
	{ "smi", "Ascend 910B1", "ASCEND-910B", NULL, 0 },
	{ "smi", "Ascend 910B2", "ASCEND-910B", NULL, 0 },
	{ "smi", "Ascend 910B3", "ASCEND-910B", NULL, 0 },
	{ "smi", "Ascend 910B4", "ASCEND-910B", NULL, 0 },
	{ "smi", "910C", "ASCEND-910C", NULL, 0 },
	{ "smi", "Ascend 910C", "ASCEND-910C", NULL, 0 },
	{ "smi", "K100", "HYGON-K100", NULL, 0 },
	{ "smi", "K100_AI", "HYGON-K100", NULL, 0 },
	{ "smi", "MLU370", "MLU370", NULL, 0 },
	{ "smi", "MLU370-S4", "MLU370", NULL, 0 },
	{ "smi", "MLU370-X4", "MLU370", NULL, 0 },
	{ "smi", "MLU370-X8", "MLU370", NULL, 0 },
	{ "smi", "MLU590", "MLU590", NULL, 0 },
	{ "smi", "MTT S4000", "MTT-S4000", NULL, 0 },
	{ "smi", "BI-V150", "BI-V150", NULL, 0 },
	{ "smi", "Iluvatar BI-V150", "BI-V150", NULL, 0 },
	{ "smi", "BR104", "BR104", NULL, 0 },
	{ "smi", "MetaX C500", "METAX-C500", NULL, 0 },
};

/* raw trimmed, with each run of white space made one space, into dst; false if too long. */
static bool
squeeze(char *dst, size_t n, const char *raw)
{
	size_t o = 0;

	while (isspace((unsigned char)*raw))
		raw++;
	while (*raw != '\0') {
		if (isspace((unsigned char)*raw)) {
			while (isspace((unsigned char)*raw))
				raw++;
			if (*raw == '\0')
				break;
			if (o + 1 >= n)
				return false;
			dst[o++] = ' ';
			continue;
		}
		if (o + 1 >= n)
			return false;
		dst[o++] = *raw++;
	}
	dst[o] = '\0';
	return true;
}

static bool
row_matches(const struct name_row *r, const char *squeezed, const char *folded)
{
	return strcmp(r->provider, "smi") == 0 ? fold_eq(folded, r->raw, strlen(r->raw)) :
	    strcmp(r->raw, squeezed) == 0;
}

const struct gpu_model *
catalogue_resolve(const char *provider, const char *raw, int vram_gb)
{
	char squeezed[128], folded[128];
	size_t i;

	if (!squeeze(squeezed, sizeof(squeezed), raw))
		return NULL;
	fold(folded, sizeof(folded), squeezed, strlen(squeezed));
	for (i = 0; i < ARRAY_LEN(names); i++) {
		const struct name_row *r = &names[i];

		if (strcmp(r->provider, provider) != 0 || !row_matches(r, squeezed, folded))
			continue;
		if (r->small == NULL)
			return r->large ? catalogue_by_id(r->large) : NULL;
		if (r->large == NULL)
			return vram_gb > 0 && vram_gb < r->split_gb ? catalogue_by_id(r->small) : NULL;
		if (vram_gb <= 0)
			return NULL;
		return catalogue_by_id(vram_gb < r->split_gb ? r->small : r->large);
	}
	return NULL;
}

const char *
catalogue_provider_name(const char *provider, size_t i)
{
	size_t k;

	for (k = 0; k < ARRAY_LEN(names); k++)
		if (strcmp(names[k].provider, provider) == 0 && i-- == 0)
			return names[k].raw;
	return NULL;
}

const char *
catalogue_display(const struct gpu_model *m, const char *raw, char *buf, size_t n)
{
	if (m != NULL)
		return m->id;
	text_sanitize(buf, n, raw != NULL ? raw : "");
	return buf[0] != '\0' ? buf : "unknown";
}

bool
catalogue_raw_matches(const char *raw, const char *query)
{
	char q[128], words[128];
	size_t i;

	fold(q, sizeof(q), query, strlen(query));
	if (q[0] == '\0')
		return false;
	/* The name's word starts, from the first: each start gives a tail of words. */
	for (i = 0; raw[i] != '\0'; i++) {
		if (!isalnum((unsigned char)raw[i]) || (i > 0 && isalnum((unsigned char)raw[i - 1])))
			continue;
		fold(words, sizeof(words), raw + i, strlen(raw + i));
		if (strcmp(words, q) == 0)
			return true;
	}
	return false;
}

/* Vendors and the other names users give them. */
static const struct {
	const char *vendor;
	const char *aliases;
} vendors[] = {
	{ "NVIDIA", "" },
	{ "AMD", "" },
	{ "Intel", "habana" },
	{ "Huawei", "ascend" },
	{ "Hygon", "haiguang" },
	{ "Cambricon", "" },
	{ "Moore Threads", "mthreads" },
	{ "Iluvatar", "corex iluvatar-corex" },
	{ "Biren", "" },
	{ "MetaX", "" },
};

static bool
vendor_named(size_t v, const char *query)
{
	char q[64];

	fold(q, sizeof(q), query, strlen(query));
	return q[0] != '\0' && (fold_eq(q, vendors[v].vendor, strlen(vendors[v].vendor)) ||
	    list_has(vendors[v].aliases, q));
}

bool
catalogue_vendor_matches(const struct gpu_model *m, const char *query)
{
	size_t v;

	for (v = 0; m != NULL && v < ARRAY_LEN(vendors); v++)
		if (strcmp(vendors[v].vendor, m->vendor) == 0)
			return vendor_named(v, query);
	return false;
}

bool
catalogue_vendor_known(const char *query)
{
	size_t v;

	for (v = 0; v < ARRAY_LEN(vendors); v++)
		if (vendor_named(v, query))
			return true;
	return false;
}

const char *
catalogue_vendors_help(void)
{
	return "nvidia, amd, intel, huawei, hygon, cambricon, moore-threads, iluvatar, biren, "
	    "metax";
}
