#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpurent/catalogue.h"

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
}

static void
resolve(void **state)
{
	const struct gpu_model *m;

	(void)state;
	assert_string_equal(catalogue_resolve("vast", "H100 SXM", 80)->id, "H100-SXM-80GB");
	assert_string_equal(catalogue_resolve("vast", " RTX 4090 ", 24)->id, "RTX4090-24GB");
	assert_string_equal(catalogue_resolve("vast", "A100 SXM4", 40)->id, "A100-SXM-40GB");
	assert_string_equal(catalogue_resolve("vast", "A100 SXM4", 80)->id, "A100-SXM-80GB");
	assert_null(catalogue_resolve("vast", "A100 SXM4", 0));
	assert_string_equal(catalogue_resolve("runpod", "NVIDIA H100 80GB HBM3", 80)->id,
	    "H100-SXM-80GB");
	assert_string_equal(catalogue_resolve("runpod", "AMD Instinct MI300X OAM", 192)->id,
	    "MI300X-192GB");
	assert_string_equal(catalogue_resolve("lambda", "gh200", 96)->id, "GH200-96GB");
	assert_string_equal(catalogue_resolve("lambda", "rtx6000", 24)->id, "QRTX6000-24GB");
	/* Unknown strings stay unknown, never guessed. */
	assert_null(catalogue_resolve("vast", "RTX 4090D", 24));
	assert_null(catalogue_resolve("vast", "h100 sxm", 80));
	assert_null(catalogue_resolve("nowhere", "H100 SXM", 80));
	m = catalogue_resolve("vast", "RTX 3080", 12);
	assert_null(m);
}

static void
table_is_sane(void **state)
{
	const struct gpu_model *all;
	size_t n, i, j;

	(void)state;
	all = catalogue_all(&n);
	assert_true(n >= 30);
	for (i = 0; i < n; i++) {
		assert_true(all[i].vram_gb > 0);
		for (j = i + 1; j < n; j++)
			assert_string_not_equal(all[i].id, all[j].id);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(resolve),
		cmocka_unit_test(table_is_sane),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
