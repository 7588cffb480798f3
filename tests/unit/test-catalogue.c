#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpurent/catalogue.h"
#include "gpurent/util.h"

static void
names(void **state)
{
	const struct gpu_model *h = catalogue_by_id("H100-SXM-80GB");

	(void)state;
	assert_non_null(h);
	assert_true(catalogue_matches(h, "h100"));
	assert_true(catalogue_matches(h, "H100 SXM"));
	assert_true(catalogue_matches(h, "h100-sxm5"));
	assert_true(catalogue_matches(h, "h100_sxm_80gb"));
	assert_false(catalogue_matches(h, "h100-pcie"));
	assert_false(catalogue_matches(h, "h10"));
	assert_false(catalogue_matches(h, ""));
	assert_false(catalogue_matches(NULL, "h100"));
	assert_true(catalogue_matches(catalogue_by_id("RTX6000ADA-48GB"), "rtx6000-ada"));
	assert_false(catalogue_matches(catalogue_by_id("QRTX6000-24GB"), "rtx6000ada"));
	assert_true(catalogue_known("MI300X"));
	assert_false(catalogue_known("h100x"));
	/* Only a memory suffix is dropped from an id: "MTT-S4000" is not "mtt". */
	assert_true(catalogue_matches(catalogue_by_id("MTT-S4000"), "mtt-s4000"));
	assert_false(catalogue_known("mtt"));
	assert_false(catalogue_known("bi"));
	assert_false(catalogue_known("hygon"));
	/* A family selects its variants, not its siblings. */
	assert_false(catalogue_matches(catalogue_by_id("RTX3080TI"), "rtx3080"));
	assert_false(catalogue_matches(catalogue_by_id("RTX4090D"), "rtx4090"));
	assert_true(catalogue_matches(catalogue_by_id("RTX4080SUPER"), "4080s"));
}

/* Every provider string in ../shared/gpu-catalogue.md (2a, 2b), providers/runpod.md,
 * vast.md, lambda.md, ppio.md and accelerators.md, copied as written there, with the
 * per-GPU VRAM the provider reports and the model it must give. */
static const struct {
	const char *provider;
	const char *raw;
	int vram_gb;
	const char *id;		/* NULL: deliberately unknown */
} table[] = {
	/* gpu-catalogue.md 2a, vast.ai gpu_name */
	{ "vast", "B200", 180, "B200-SXM-180GB" },
	{ "vast", "H200", 141, "H200-SXM-141GB" },
	{ "vast", "H200 NVL", 141, "H200-NVL-141GB" },
	{ "vast", "H100 SXM", 80, "H100-SXM-80GB" },
	{ "vast", "H100 PCIE", 80, "H100-PCIE-80GB" },
	{ "vast", "H100 NVL", 94, "H100-NVL-94GB" },
	{ "vast", "GH200 SXM", 96, "GH200-96GB" },
	{ "vast", "GH200 SXM", 144, "GH200-144GB" },
	{ "vast", "A100 SXM4", 82, "A100-SXM-80GB" },
	{ "vast", "A100 SXM", 82, "A100-SXM-80GB" },
	{ "vast", "A100 SXM4", 41, "A100-SXM-40GB" },
	{ "vast", "A100 SXM", 41, "A100-SXM-40GB" },
	{ "vast", "A100 PCIE", 80, "A100-PCIE-80GB" },
	{ "vast", "A100 PCIE", 40, "A100-PCIE-40GB" },
	{ "vast", "A100 SXM4", 0, NULL },		/* which one: not said */
	{ "vast", "A100X", 80, NULL },			/* left unmapped (section 4) */
	{ "vast", "A800 PCIE", 80, "A800" },
	{ "vast", "L40S", 48, "L40S-48GB" },
	{ "vast", "L40", 48, "L40-48GB" },
	{ "vast", "L4", 24, "L4-24GB" },
	{ "vast", "A40", 48, "A40-48GB" },
	{ "vast", "A30", 24, "A30-24GB" },
	{ "vast", "A10", 24, "A10-24GB" },
	{ "vast", "A10g", 24, "A10G-24GB" },
	{ "vast", "A16", 16, "A16-16GB" },
	{ "vast", "RTX 6000Ada", 48, "RTX6000ADA-48GB" },
	{ "vast", "RTX A6000", 49, "RTXA6000-48GB" },
	{ "vast", "RTX A5000", 24, "RTXA5000-24GB" },
	{ "vast", "RTX A4000", 16, "RTXA4000-16GB" },
	{ "vast", "RTX PRO 6000 S", 96, "RTXPRO6000-96GB" },
	{ "vast", "RTX PRO 6000 WS", 96, "RTXPRO6000-96GB" },
	{ "vast", "RTX PRO 6000 Max-Q", 96, "RTXPRO6000-96GB" },
	{ "vast", "RTX PRO 6000", 96, "RTXPRO6000-96GB" },
	{ "vast", "RTX 5090", 33, "RTX5090-32GB" },
	{ "vast", "RTX 4090", 25, "RTX4090-24GB" },
	{ "vast", "RTX 4090D", 24, "RTX4090D" },
	{ "vast", "RTX 4090 Ti", 24, NULL },		/* "a different GPU", not catalogued */
	{ "vast", "RTX 4080", 16, "RTX4080-16GB" },
	{ "vast", "RTX 4080S", 16, "RTX4080SUPER" },
	{ "vast", "RTX 3090", 25, "RTX3090-24GB" },
	{ "vast", "RTX 3090 Ti", 24, "RTX3090TI" },
	{ "vast", "RTX 3080", 10, "RTX3080-10GB" },
	{ "vast", "RTX 3080", 12, NULL },		/* the 12 GB variant */
	{ "vast", "Tesla V100", 32, "V100-SXM2-32GB" },
	{ "vast", "Tesla V100", 16, "V100-SXM2-16GB" },
	{ "vast", "Tesla T4", 16, "T4-16GB" },
	{ "vast", "Q RTX 6000", 24, "QRTX6000-24GB" },
	{ "vast", "Q RTX 8000", 48, "QRTX8000" },
	{ "vast", "InstinctMI300X", 192, "MI300X-192GB" },
	{ "vast", "InstinctMI250X", 64, "MI250X-128GB" },
	{ "vast", "InstinctMI210", 64, "MI210-64GB" },
	/* gpu-catalogue.md 2a and 2b, runpod.md: RunPod gpuTypeId */
	{ "runpod", "NVIDIA B200", 180, "B200-SXM-180GB" },
	{ "runpod", "NVIDIA B300 SXM6 AC", 288, "B300-SXM-288GB" },
	{ "runpod", "NVIDIA H200", 141, "H200-SXM-141GB" },
	{ "runpod", "NVIDIA H200 NVL", 143, "H200-NVL-141GB" },
	{ "runpod", "NVIDIA H100 80GB HBM3", 80, "H100-SXM-80GB" },
	{ "runpod", "NVIDIA H100 PCIe", 80, "H100-PCIE-80GB" },
	{ "runpod", "NVIDIA H100 NVL", 94, "H100-NVL-94GB" },
	{ "runpod", "NVIDIA A100-SXM4-80GB", 80, "A100-SXM-80GB" },
	{ "runpod", "NVIDIA A100 80GB PCIe", 80, "A100-PCIE-80GB" },
	{ "runpod", "NVIDIA L40S", 48, "L40S-48GB" },
	{ "runpod", "NVIDIA L40", 48, "L40-48GB" },
	{ "runpod", "NVIDIA L4", 24, "L4-24GB" },
	{ "runpod", "NVIDIA A40", 48, "A40-48GB" },
	{ "runpod", "NVIDIA A30", 24, "A30-24GB" },
	{ "runpod", "NVIDIA  A30", 24, "A30-24GB" },	/* doubled space (runpod.md) */
	{ "runpod", "NVIDIA RTX 6000 Ada Generation", 48, "RTX6000ADA-48GB" },
	{ "runpod", "NVIDIA RTX 5000 Ada Generation", 32, "RTX5000ADA" },
	{ "runpod", "NVIDIA RTX 4000 Ada Generation", 20, "RTX4000ADA" },
	{ "runpod", "NVIDIA RTX 4000 SFF Ada Generation", 20, "RTX4000SFFADA" },
	{ "runpod", "NVIDIA RTX 2000 Ada Generation", 16, "RTX2000ADA" },
	{ "runpod", "NVIDIA RTX A6000", 48, "RTXA6000-48GB" },
	{ "runpod", "NVIDIA RTX A5000", 24, "RTXA5000-24GB" },
	{ "runpod", "NVIDIA RTX A4500", 20, "RTXA4500" },
	{ "runpod", "NVIDIA  RTX A4500", 20, "RTXA4500" },
	{ "runpod", "NVIDIA RTX A4000", 16, "RTXA4000-16GB" },
	{ "runpod", "NVIDIA RTX A2000", 6, "RTXA2000" },
	{ "runpod", "NVIDIA RTX PRO 6000 Blackwell Server Edition", 96, "RTXPRO6000-96GB" },
	{ "runpod", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 96, "RTXPRO6000-96GB" },
	{ "runpod", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", 96, "RTXPRO6000-96GB" },
	/* MIG slices are not whole GPUs (2a). */
	{ "runpod", "NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb", 24, NULL },
	{ "runpod", "NVIDIA RTX PRO 4500 Blackwell", 32, "RTXPRO4500" },
	{ "runpod", "NVIDIA GeForce RTX 5090", 32, "RTX5090-32GB" },
	{ "runpod", "NVIDIA GeForce RTX 5080", 16, "RTX5080" },
	{ "runpod", "NVIDIA GeForce RTX 4090", 24, "RTX4090-24GB" },
	{ "runpod", "NVIDIA GeForce RTX 4080", 16, "RTX4080-16GB" },
	{ "runpod", "NVIDIA GeForce RTX 4080 SUPER", 16, "RTX4080SUPER" },
	{ "runpod", "NVIDIA GeForce RTX 4070 Ti", 12, "RTX4070TI" },
	{ "runpod", "NVIDIA GeForce RTX 3090", 24, "RTX3090-24GB" },
	{ "runpod", "NVIDIA GeForce RTX 3090 Ti", 24, "RTX3090TI" },
	{ "runpod", "NVIDIA GeForce RTX 3080", 10, "RTX3080-10GB" },
	{ "runpod", "NVIDIA GeForce RTX 3080 Ti", 12, "RTX3080TI" },
	{ "runpod", "NVIDIA GeForce RTX 3080TI", 12, "RTX3080TI" },
	{ "runpod", "NVIDIA GeForce RTX 3070", 8, "RTX3070" },
	{ "runpod", "Tesla V100-SXM2-32GB", 32, "V100-SXM2-32GB" },
	{ "runpod", "Tesla V100-SXM2-16GB", 16, "V100-SXM2-16GB" },
	{ "runpod", "Tesla V100-PCIE-16GB", 16, "V100-PCIE-16GB" },
	{ "runpod", "Tesla V100-FHHL-16GB", 16, NULL },	/* "leave it unmapped" */
	{ "runpod", "AMD Instinct MI300X OAM", 192, "MI300X-192GB" },
	{ "runpod", "unknown", 0, NULL },
	{ "runpod", "AMPERE_16", 16, NULL },			/* a serverless pool, not a GPU */
	/* gpu-catalogue.md 2a/2b, lambda.md: the model token of the instance type name */
	{ "lambda", "b200", 180, "B200-SXM-180GB" },
	{ "lambda", "h100", 80, "H100-SXM-80GB" },
	{ "lambda", "h100_sxm5", 80, "H100-SXM-80GB" },
	{ "lambda", "h100_pcie", 80, "H100-PCIE-80GB" },
	{ "lambda", "gh200", 96, "GH200-96GB" },
	{ "lambda", "a100", 40, "A100-PCIE-40GB" },
	{ "lambda", "a100_pcie", 40, "A100-PCIE-40GB" },
	{ "lambda", "a100_sxm4", 40, "A100-SXM-40GB" },
	{ "lambda", "a100_80gb_sxm4", 80, "A100-SXM-80GB" },
	{ "lambda", "a10", 24, "A10-24GB" },
	{ "lambda", "a6000", 48, "RTXA6000-48GB" },
	{ "lambda", "rtx6000", 24, "QRTX6000-24GB" },
	{ "lambda", "v100", 16, "V100-SXM2-16GB" },
	{ "lambda", "v100_n", 16, "V100-SXM2-16GB" },
	/* ppio.md */
	{ "ppio", "H20", 96, "H20" },
	{ "ppio", "RTX 4090D", 24, "RTX4090D" },
	/* accelerators.md: what the vendors' tools print */
	{ "smi", "910B1", 64, "ASCEND-910B" },
	{ "smi", "910B3", 64, "ASCEND-910B" },
	{ "smi", "Ascend 910B3", 64, "ASCEND-910B" },
	{ "smi", "910C", 0, "ASCEND-910C" },
	{ "smi", "Ascend950PR", 0, NULL },
	{ "smi", "310P", 0, NULL },
	{ "smi", "K100_AI", 64, "HYGON-K100" },
	{ "smi", "K100", 64, "HYGON-K100" },
	{ "smi", "Z100L", 32, NULL },
	{ "smi", "MLU370-S4", 0, "MLU370" },
	{ "smi", "MLU370-X4", 0, "MLU370" },
	{ "smi", "MLU370-X8", 0, "MLU370" },
	{ "smi", "MLU590", 0, "MLU590" },
	{ "smi", "MTT S4000", 0, "MTT-S4000" },
	{ "smi", "MTTS4000", 0, "MTT-S4000" },
	{ "smi", "MTTS80", 0, NULL },
	{ "smi", "Iluvatar MR-V100", 32, NULL },
	{ "smi", "Iluvatar BI-V150", 0, "BI-V150" },
	{ "smi", "MetaX C500", 0, "METAX-C500" },
	{ "smi", "MetaX N260", 64, NULL },
	{ "smi", "BR104", 0, "BR104" },
	/* Never across providers, never by case. */
	{ "vast", "h100 sxm", 80, NULL },
	{ "nowhere", "H100 SXM", 80, NULL },
	{ "runpod", "H100 SXM", 80, NULL },
};

static void
provider_names(void **state)
{
	const struct gpu_model *m;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(table); i++) {
		m = catalogue_resolve(table[i].provider, table[i].raw, table[i].vram_gb);
		if (table[i].id == NULL) {
			if (m != NULL)
				fail_msg("%s '%s' gave %s, expected unknown", table[i].provider,
				    table[i].raw, m->id);
		} else if (m == NULL || strcmp(m->id, table[i].id) != 0) {
			fail_msg("%s '%s' (%d GB) gave %s, expected %s", table[i].provider,
			    table[i].raw, table[i].vram_gb, m ? m->id : "unknown", table[i].id);
		}
	}
	/* Trimmed; padded names still map. */
	assert_string_equal(catalogue_resolve("vast", " RTX 4090 ", 24)->id, "RTX4090-24GB");
}

/* The models issue 16 asks for, with their vendors. */
static void
vendors(void **state)
{
	static const struct {
		const char *id, *vendor, *query;
	} want[] = {
		{ "MI210-64GB", "AMD", "amd" }, { "MI250", "AMD", "AMD" },
		{ "MI300X-192GB", "AMD", "amd" }, { "MI325X", "AMD", "amd" },
		{ "GAUDI2-96GB", "Intel", "intel" }, { "GAUDI3", "Intel", "habana" },
		{ "H800", "NVIDIA", "nvidia" }, { "H20", "NVIDIA", "nvidia" },
		{ "A800", "NVIDIA", "nvidia" }, { "L20", "NVIDIA", "nvidia" },
		{ "RTX4090D", "NVIDIA", "nvidia" },
		{ "ASCEND-910B", "Huawei", "huawei" }, { "ASCEND-910C", "Huawei", "Huawei" },
		{ "HYGON-K100", "Hygon", "hygon" }, { "MLU370", "Cambricon", "cambricon" },
		{ "MLU590", "Cambricon", "cambricon" },
		{ "MTT-S4000", "Moore Threads", "moore-threads" },
		{ "BI-V150", "Iluvatar", "iluvatar" }, { "BR104", "Biren", "biren" },
		{ "METAX-C500", "MetaX", "metax" },
	};
	const struct gpu_model *m;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(want); i++) {
		m = catalogue_by_id(want[i].id);
		if (m == NULL)
			fail_msg("%s is not in the catalogue", want[i].id);
		assert_string_equal(m->vendor, want[i].vendor);
		assert_true(catalogue_vendor_matches(m, want[i].query));
		assert_false(catalogue_vendor_matches(m, strcmp(want[i].vendor, "AMD") == 0 ?
		    "nvidia" : "amd"));
	}
	assert_true(catalogue_vendor_matches(catalogue_by_id("MTT-S4000"), "Moore Threads"));
	assert_true(catalogue_vendor_known("mthreads"));
	assert_false(catalogue_vendor_known("amdd"));
	assert_false(catalogue_vendor_matches(NULL, "nvidia"));
}

/* A GPU the catalogue lacks answers to its provider's name, by whole trailing words. */
static void
raw_names(void **state)
{
	char buf[64];

	(void)state;
	assert_true(catalogue_raw_matches("NVIDIA GeForce RTX 3060", "rtx3060"));
	assert_true(catalogue_raw_matches("NVIDIA GeForce RTX 3060", "RTX 3060"));
	assert_true(catalogue_raw_matches("NVIDIA GeForce RTX 3060", "3060"));
	assert_true(catalogue_raw_matches("NVIDIA GeForce RTX 3060", "nvidia-geforce-rtx-3060"));
	assert_false(catalogue_raw_matches("NVIDIA GeForce RTX 3060", "060"));
	assert_false(catalogue_raw_matches("NVIDIA GeForce RTX 3060", "geforce"));
	assert_false(catalogue_raw_matches("NVIDIA GeForce RTX 3060 Ti", "rtx3060"));
	assert_false(catalogue_raw_matches("NVIDIA GeForce RTX 3060", ""));
	assert_false(catalogue_raw_matches("", "rtx3060"));
	/* Shown by its name, control characters stripped; "unknown" only with no name. */
	assert_string_equal(catalogue_display(NULL, "RTX\033[2J 3060\a", buf, sizeof(buf)),
	    "RTX[2J 3060");
	assert_string_equal(catalogue_display(NULL, "", buf, sizeof(buf)), "unknown");
	assert_string_equal(catalogue_display(catalogue_by_id("L4-24GB"), "L4", buf,
	    sizeof(buf)), "L4-24GB");
}

static void
sets(void **state)
{
	struct catalogue_set s;
	const struct gpu_model *all;
	size_t n;

	(void)state;
	memset(&s, 0, sizeof(s));
	all = catalogue_all(&n);
	assert_true(n > 64);		/* past one word of the set */
	catalogue_select("h100", &s);
	assert_true(catalogue_set_has(&s, catalogue_by_id("H100-NVL-94GB")));
	assert_false(catalogue_set_has(&s, catalogue_by_id("H200-SXM-141GB")));
	assert_false(catalogue_set_has(&s, NULL));
	catalogue_select("metax-c500", &s);
	assert_true(catalogue_set_has(&s, &all[n - 1]));
	assert_true(catalogue_set_has(&s, catalogue_by_id("H100-SXM-80GB")));
}

static void
table_is_sane(void **state)
{
	const struct gpu_model *all;
	size_t n, i, j;

	(void)state;
	all = catalogue_all(&n);
	assert_true(n >= 70);
	for (i = 0; i < n; i++) {
		assert_true(all[i].vram_gb >= 0 && all[i].bf16_tflops_x10 >= 0 &&
		    all[i].fp16_tflops_x10 >= 0 && all[i].tdp_w >= 0);
		assert_non_null(all[i].vendor);
		assert_true(catalogue_vendor_known(all[i].vendor));
		/* The id is what it selects. */
		assert_ptr_equal(catalogue_by_id(all[i].id), &all[i]);
		for (j = i + 1; j < n; j++)
			assert_string_not_equal(all[i].id, all[j].id);
	}
	/* No BF16 on a V100: its FP16 is the tensor figure; unknown stays 0. */
	assert_int_equal(catalogue_by_id("V100-SXM2-16GB")->bf16_tflops_x10, 0);
	assert_int_equal(catalogue_tensor_tflops_x10(catalogue_by_id("V100-SXM2-16GB")), 1250);
	assert_int_equal(catalogue_tensor_tflops_x10(catalogue_by_id("H100-SXM-80GB")), 9895);
	assert_int_equal(catalogue_tensor_tflops_x10(catalogue_by_id("RTX3070")), 0);
	assert_int_equal(catalogue_tensor_tflops_x10(NULL), 0);
	/* The pushdown lists come from the same table. */
	assert_string_equal(catalogue_provider_name("vast", 0), "B200");
	assert_null(catalogue_provider_name("nowhere", 0));
}

/* Slurm GRES types and the like onto the catalogue (catalogue_gpu_type): NULL is unknown. */
static void
gpu_types(void **state)
{
	static const struct {
		const char *type, *want;
	} cases[] = {
		/* The names the issue lists, and the test cluster's. */
		{ "h100", "H100-SXM-80GB" },
		{ "H100", "H100-SXM-80GB" },
		{ "a100", NULL },			/* 40 or 80 GB: not guessed */
		{ "a100_80g", "A100-SXM-80GB" },
		{ "l40s", "L40S-48GB" },
		{ "mi300x", "MI300X-192GB" },
		/* Memory, form and both. */
		{ "a100_40g", "A100-SXM-40GB" },
		{ "a100-40gb", "A100-SXM-40GB" },
		{ "a100_40g_pcie", "A100-PCIE-40GB" },
		{ "a100-pcie-80gb", "A100-PCIE-80GB" },
		{ "a100.80gb", "A100-SXM-80GB" },
		{ "h100_pcie", "H100-PCIE-80GB" },
		{ "h100-nvl", "H100-NVL-94GB" },
		{ "h100_94g", "H100-NVL-94GB" },
		{ "h200", "H200-SXM-141GB" },
		{ "h200_nvl", "H200-NVL-141GB" },
		{ "v100", NULL },			/* 16 or 32 GB SXM2 */
		{ "v100_32g", "V100-SXM2-32GB" },
		{ "v100_16g_pcie", "V100-PCIE-16GB" },
		{ "gh200", NULL },			/* 96 or 144 GB, neither SXM */
		{ "l40", "L40-48GB" },
		{ "a10", "A10-24GB" },
		{ "rtx_a6000", "RTXA6000-48GB" },
		{ "4090", "RTX4090-24GB" },
		/* Slurm's AutoDetect=nvml names. */
		{ "nvidia_h100_80gb_hbm3", "H100-SXM-80GB" },
		{ "nvidia_a100-sxm4-80gb", "A100-SXM-80GB" },
		{ "nvidia_a100_80gb_pcie", "A100-PCIE-80GB" },
		{ "nvidia_geforce_rtx_3090", "RTX3090-24GB" },
		{ "tesla_v100-sxm2-16gb", "V100-SXM2-16GB" },
		{ "amd_instinct_mi300x", "MI300X-192GB" },
		/* Hostile: nothing, no model, two sizes or forms, sizes no variant has. */
		{ "", NULL },
		{ "gpu", NULL },
		{ "_-_", NULL },
		{ "80g", NULL },
		{ "nvidia", NULL },
		{ "sxm", NULL },
		{ "h100_80g_94g", NULL },
		{ "h100_pcie_nvl", NULL },
		{ "h100_96g", NULL },
		{ "a100_0g", NULL },
		{ "a100_99999g", NULL },
		{ "h100h100", NULL },
		{ "h1", NULL },
		{ "h100\x01", NULL },
		{ "h1\x01" "00", NULL },
		{ "h100/pcie", NULL },
		{ "h100 ", "H100-SXM-80GB" },
		{ "h100\xc3\xa9", NULL },
		{ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", NULL },
		{ "h100_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", NULL },
	};
	size_t i;

	(void)state;
	assert_null(catalogue_gpu_type(NULL));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct gpu_model *m = catalogue_gpu_type(cases[i].type);

		if (cases[i].want == NULL) {
			if (m != NULL)
				fail_msg("'%s' is %s, not unknown", cases[i].type, m->id);
		} else if (m == NULL || strcmp(m->id, cases[i].want) != 0)
			fail_msg("'%s' is %s, not %s", cases[i].type, m ? m->id : "unknown",
			    cases[i].want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(provider_names),
		cmocka_unit_test(vendors),
		cmocka_unit_test(raw_names),
		cmocka_unit_test(sets),
		cmocka_unit_test(table_is_sane),
		cmocka_unit_test(gpu_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
