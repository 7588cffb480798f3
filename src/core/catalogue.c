/*
 * The GPU catalogue, transcribed from ../shared/gpu-catalogue.md (sections 1 and 2a).
 * Tensor figures are dense BF16 (FP16 where the GPU has no BF16), times ten.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/util.h"

static const struct gpu_model models[] = {
	{ "B200-SXM-180GB", "B200", "NVIDIA", "B200", 180, 7700, 22500, 1000, "b200-sxm" },
	{ "H200-SXM-141GB", "H200", "NVIDIA", "H200 SXM", 141, 4800, 9895, 700, "h200-sxm" },
	{ "H200-NVL-141GB", "H200", "NVIDIA", "H200 NVL", 141, 4800, 8355, 600, "h200nvl" },
	{ "H100-SXM-80GB", "H100", "NVIDIA", "H100 SXM", 80, 3350, 9895, 700, "h100-sxm h100-sxm5" },
	{ "H100-PCIE-80GB", "H100", "NVIDIA", "H100 PCIe", 80, 2000, 7565, 350, "h100-pcie" },
	{ "H100-NVL-94GB", "H100", "NVIDIA", "H100 NVL", 94, 3900, 8355, 400, "h100nvl" },
	{ "GH200-96GB", "GH200", "NVIDIA", "GH200 96GB", 96, 4000, 9895, 1000, "" },
	{ "GH200-144GB", "GH200", "NVIDIA", "GH200 144GB", 144, 4900, 9895, 1000, "" },
	{ "A100-SXM-80GB", "A100", "NVIDIA", "A100 SXM 80GB", 80, 2039, 3120, 400, "a100-80gb a100-sxm4-80gb a100-80" },
	{ "A100-SXM-40GB", "A100", "NVIDIA", "A100 SXM 40GB", 40, 1555, 3120, 400, "a100-40gb a100-sxm4-40gb a100-40" },
	{ "A100-PCIE-80GB", "A100", "NVIDIA", "A100 PCIe 80GB", 80, 1935, 3120, 300, "a100-80gb a100-80" },
	{ "A100-PCIE-40GB", "A100", "NVIDIA", "A100 PCIe 40GB", 40, 1555, 3120, 250, "a100-40gb a100-40" },
	{ "L40S-48GB", "L40S", "NVIDIA", "L40S", 48, 864, 3620, 350, "" },
	{ "L40-48GB", "L40", "NVIDIA", "L40", 48, 864, 1810, 300, "" },
	{ "L4-24GB", "L4", "NVIDIA", "L4", 24, 300, 1210, 72, "" },
	{ "A40-48GB", "A40", "NVIDIA", "A40", 48, 696, 1497, 300, "" },
	{ "A30-24GB", "A30", "NVIDIA", "A30", 24, 933, 1650, 165, "" },
	{ "A10-24GB", "A10", "NVIDIA", "A10", 24, 600, 1250, 150, "" },
	{ "A10G-24GB", "A10G", "NVIDIA", "A10G", 24, 600, 0, 0, "" },
	{ "A16-16GB", "A16", "NVIDIA", "A16", 16, 200, 179, 63, "" },
	{ "V100-SXM2-32GB", "V100", "NVIDIA", "V100 SXM2 32GB", 32, 900, 1250, 300, "v100-32gb" },
	{ "V100-SXM2-16GB", "V100", "NVIDIA", "V100 SXM2 16GB", 16, 900, 1250, 300, "v100-16gb" },
	{ "V100-PCIE-16GB", "V100", "NVIDIA", "V100 PCIe 16GB", 16, 900, 1120, 250, "v100-16gb" },
	{ "T4-16GB", "T4", "NVIDIA", "T4", 16, 320, 650, 70, "tesla-t4" },
	{ "RTXPRO6000-96GB", "RTXPRO6000", "NVIDIA", "RTX PRO 6000", 96, 1792, 5000, 600, "rtx-pro-6000 pro6000" },
	{ "RTX6000ADA-48GB", "RTX6000ADA", "NVIDIA", "RTX 6000 Ada", 48, 960, 3642, 300, "rtx6000-ada 6000ada" },
	{ "RTXA6000-48GB", "RTXA6000", "NVIDIA", "RTX A6000", 48, 768, 1548, 300, "a6000" },
	{ "RTXA5000-24GB", "RTXA5000", "NVIDIA", "RTX A5000", 24, 768, 1111, 230, "a5000" },
	{ "RTXA4000-16GB", "RTXA4000", "NVIDIA", "RTX A4000", 16, 448, 767, 140, "a4000" },
	{ "QRTX6000-24GB", "QRTX6000", "NVIDIA", "Quadro RTX 6000", 24, 672, 1305, 295, "quadro-rtx-6000" },
	{ "RTX5090-32GB", "RTX5090", "NVIDIA", "RTX 5090", 32, 1792, 2095, 575, "5090" },
	{ "RTX4090-24GB", "RTX4090", "NVIDIA", "RTX 4090", 24, 1008, 1652, 450, "4090" },
	{ "RTX4080-16GB", "RTX4080", "NVIDIA", "RTX 4080", 16, 717, 975, 320, "4080" },
	{ "RTX3090-24GB", "RTX3090", "NVIDIA", "RTX 3090", 24, 936, 710, 350, "3090" },
	{ "RTX3080-10GB", "RTX3080", "NVIDIA", "RTX 3080", 10, 760, 595, 320, "3080" },
	{ "MI300X-192GB", "MI300X", "AMD", "MI300X", 192, 5300, 13074, 750, "instinct-mi300x" },
	{ "MI250X-128GB", "MI250X", "AMD", "MI250X", 128, 3277, 3830, 500, "instinct-mi250x" },
	{ "MI210-64GB", "MI210", "AMD", "MI210", 64, 1638, 1810, 300, "instinct-mi210" },
	{ "GAUDI2-96GB", "GAUDI2", "Intel", "Gaudi 2", 96, 2450, 0, 600, "gaudi" },
};

_Static_assert(ARRAY_LEN(models) <= 64, "catalogue_select's mask holds 64 models");

uint64_t
catalogue_select(const char *query)
{
	uint64_t mask = 0;
	size_t i;

	for (i = 0; i < ARRAY_LEN(models); i++)
		if (catalogue_matches(&models[i], query))
			mask |= UINT64_C(1) << i;
	return mask;
}

uint64_t
catalogue_bit(const struct gpu_model *m)
{
	if (m == NULL || m < models || m >= models + ARRAY_LEN(models))
		return 0;
	return UINT64_C(1) << (m - models);
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
	char buf[64];

	fold(buf, sizeof(buf), s, len);
	return buf[0] != '\0' && strcmp(buf, folded_query) == 0;
}

bool
catalogue_matches(const struct gpu_model *m, const char *query)
{
	char q[64];
	const char *a, *sp;

	if (m == NULL)
		return false;
	fold(q, sizeof(q), query, strlen(query));
	if (q[0] == '\0')
		return false;
	if (fold_eq(q, m->id, strlen(m->id)) || fold_eq(q, m->family, strlen(m->family)) ||
	    fold_eq(q, m->name, strlen(m->name)))
		return true;
	/* The id without its memory suffix: "h100sxm" for "H100-SXM-80GB". */
	sp = strrchr(m->id, '-');
	if (sp != NULL && fold_eq(q, m->id, (size_t)(sp - m->id)))
		return true;
	for (a = m->aliases; *a != '\0'; a = sp) {
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
catalogue_known(const char *query)
{
	return catalogue_select(query) != 0;
}

/*
 * Provider strings (section 2a). Where one string covers several variants, `split_gb` is the
 * VRAM boundary: below it `small`, at or above it `large`.
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
	{ "vast", "RTX 4080", "RTX4080-16GB", NULL, 0 },
	{ "vast", "RTX 3090", "RTX3090-24GB", NULL, 0 },
	{ "vast", "RTX 3080", NULL, "RTX3080-10GB", 11 },
	{ "vast", "Tesla V100", "V100-SXM2-32GB", "V100-SXM2-16GB", 24 },
	{ "vast", "Tesla T4", "T4-16GB", NULL, 0 },
	{ "vast", "Q RTX 6000", "QRTX6000-24GB", NULL, 0 },
	{ "vast", "InstinctMI250X", "MI250X-128GB", NULL, 0 },
	{ "vast", "InstinctMI210", "MI210-64GB", NULL, 0 },
	{ "runpod", "NVIDIA B200", "B200-SXM-180GB", NULL, 0 },
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
	{ "runpod", "NVIDIA RTX A6000", "RTXA6000-48GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX A5000", "RTXA5000-24GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX A4000", "RTXA4000-16GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTXPRO6000-96GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTXPRO6000-96GB", NULL, 0 },
	{ "runpod", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "RTXPRO6000-96GB", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 5090", "RTX5090-32GB", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 4090", "RTX4090-24GB", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 4080", "RTX4080-16GB", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 3090", "RTX3090-24GB", NULL, 0 },
	{ "runpod", "NVIDIA GeForce RTX 3080", "RTX3080-10GB", NULL, 0 },
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
};

const struct gpu_model *
catalogue_resolve(const char *provider, const char *raw, int vram_gb)
{
	char trimmed[96];
	size_t i, len;

	while (isspace((unsigned char)*raw))
		raw++;
	len = strlen(raw);
	while (len > 0 && isspace((unsigned char)raw[len - 1]))
		len--;
	if (len >= sizeof(trimmed))
		return NULL;
	memcpy(trimmed, raw, len);
	trimmed[len] = '\0';
	for (i = 0; i < ARRAY_LEN(names); i++) {
		const struct name_row *r = &names[i];

		if (strcmp(r->provider, provider) != 0 || strcmp(r->raw, trimmed) != 0)
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
