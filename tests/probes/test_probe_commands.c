/*
 * test_probe_commands.c - each accelerator vendor's command, the sh snippet the sampler runs
 * on an instance, run for real by /bin/sh against test doubles of the tools (tests/probes/bin/,
 * replaying tests/data/probes/), its output parsed: it must give exactly what parsing the
 * recording it replays gives. This covers what the parsers' tests cannot: the npu-smi loop
 * over the listed NPUs and its table fallback, cnmon's private directory, and the fallbacks
 * to a second command when the first one fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpurent/probe.h"
#include "gpurent/util.h"

static char *
slurp(FILE *f, size_t *len)
{
	struct sb sb;
	char buf[4096];
	size_t n;

	sb_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_add(&sb, buf, n);
	*len = sb.len;
	return sb_detach(&sb);
}

/* Run vendor's command with the doubles first on PATH and parse what it printed. */
static void
run_command(const char *name, struct sample_list *l)
{
	const struct probe_vendor *v = probe_vendor_find(name);
	struct gr_error err = { 0 };
	size_t len;
	char *out;
	FILE *p;

	assert_non_null(v);
	assert_int_equal(setenv("PATH", BIN_DIR ":/usr/bin:/bin", 1), 0);
	p = popen(v->command, "r");
	assert_non_null(p);
	out = slurp(p, &len);
	assert_int_equal(pclose(p), 0);
	sample_list_init(l);
	if (v->parse(out, len, l, &err) != GR_OK)
		fail_msg("%s: %s; it printed:\n%s", name, err.msg, out);
	free(out);
}

static void
parse_recording(const char *name, const char *file, struct sample_list *l)
{
	struct gr_error err = { 0 };
	char path[1024];
	size_t len;
	char *text;
	FILE *f;

	snprintf(path, sizeof(path), "%s/probes/%s", DATA_DIR, file);
	f = fopen(path, "rb");
	assert_non_null(f);
	text = slurp(f, &len);
	fclose(f);
	sample_list_init(l);
	assert_int_equal(probe_vendor_find(name)->parse(text, len, l, &err), GR_OK);
	free(text);
}

/* The two lists hold the same devices with the same known figures and strings. */
static void
same(const struct sample_list *a, const struct sample_list *b)
{
	size_t i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		const struct gpu_sample *x = &a->v[i], *y = &b->v[i];

		assert_int_equal(x->index, y->index);
		assert_int_equal(x->valid, y->valid);
		assert_int_equal(x->util_pct, y->util_pct);
		assert_int_equal(x->mem_used_mib, y->mem_used_mib);
		assert_int_equal(x->mem_total_mib, y->mem_total_mib);
		assert_int_equal(x->mem_util_pct, y->mem_util_pct);
		assert_int_equal(x->temp_c, y->temp_c);
		assert_int_equal(x->temp_mem_c, y->temp_mem_c);
		assert_int_equal(x->power_w, y->power_w);
		assert_int_equal(x->power_limit_w, y->power_limit_w);
		assert_int_equal(x->clk_sm_mhz, y->clk_sm_mhz);
		assert_int_equal(x->clk_mem_mhz, y->clk_mem_mhz);
		assert_string_equal(x->name, y->name);
		assert_string_equal(x->uuid, y->uuid);
		assert_string_equal(x->driver, y->driver);
	}
}

static void
expect(const char *name, const char *file)
{
	struct sample_list got, want;

	run_command(name, &got);
	parse_recording(name, file, &want);
	assert_true(got.n > 0);
	same(&got, &want);
	sample_list_release(&got);
	sample_list_release(&want);
}

static void
clear_env(void)
{
	unsetenv("ROCM_SMI_BROKEN");
	unsetenv("ROCM_SMI_FILE");
	unsetenv("HY_SMI_BROKEN");
	unsetenv("NPU_SMI_NO_LIST");
	unsetenv("IXSMI_OLD");
}

static void
amd_rocm_smi(void **state)
{
	(void)state;
	clear_env();
	expect("amd", "amd/rocm-smi-mi300x-8.json");
}

static void
amd_falls_back_to_amd_smi(void **state)
{
	(void)state;
	clear_env();
	setenv("ROCM_SMI_BROKEN", "1", 1);
	expect("amd", "amd/amd-smi-metric-mi300x-2.json");
}

static void
hygon_hy_smi(void **state)
{
	(void)state;
	clear_env();
	expect("hygon", "hygon/hy-smi-invalid-8.json");
}

static void
hygon_falls_back_to_dtk_rocm_smi(void **state)
{
	(void)state;
	clear_env();
	setenv("HY_SMI_BROKEN", "1", 1);
	setenv("ROCM_SMI_FILE", "hygon/hy-smi-z100l.json", 1);
	expect("hygon", "hygon/hy-smi-z100l.json");
}

static void
ascend_loops_over_the_listed_npus(void **state)
{
	/* -l, -m, then four blocks per NPU between our marks: the composed recording exactly. */
	(void)state;
	clear_env();
	expect("ascend", "ascend/npu-smi-blocks-910b3-8.txt");
}

static void
ascend_table_when_npus_cannot_be_listed(void **state)
{
	(void)state;
	clear_env();
	setenv("NPU_SMI_NO_LIST", "1", 1);
	expect("ascend", "ascend/npu-smi-info-910b3-8.txt");
}

static void
iluvatar_full_query(void **state)
{
	(void)state;
	clear_env();
	expect("iluvatar", "iluvatar/ixsmi-8.csv");
}

static void
iluvatar_documented_query_when_a_field_is_refused(void **state)
{
	(void)state;
	clear_env();
	setenv("IXSMI_OLD", "1", 1);
	expect("iluvatar", "iluvatar/ixsmi-noheader-2.csv");
}

static void
mthreads_full_query_on_an_older_release(void **state)
{
	(void)state;
	clear_env();
	expect("mthreads", "mthreads/mthreads-gmi-q-8.txt");
}

static void
cambricon_in_a_private_directory(void **state)
{
	/* cnmon writes its file in a fresh directory of its own, which is gone afterwards. */
	char log[] = "/tmp/gpurent-cnmon-log.XXXXXX", dir[1024] = "", cwd[1024];
	struct stat st;
	FILE *f;
	int fd;

	(void)state;
	clear_env();
	fd = mkstemp(log);
	assert_true(fd >= 0);
	close(fd);
	setenv("CNMON_LOG", log, 1);
	expect("cambricon", "cambricon/cnmon-info-8.json");
	f = fopen(log, "r");
	assert_non_null(f);
	assert_non_null(fgets(dir, sizeof(dir), f));
	fclose(f);
	unlink(log);
	dir[strcspn(dir, "\n")] = '\0';
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_string_not_equal(dir, cwd);
	assert_true(stat(dir, &st) != 0);
}

static void
metax_table(void **state)
{
	(void)state;
	clear_env();
	expect("metax", "metax/mx-smi-c500-8.txt");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(amd_rocm_smi),
		cmocka_unit_test(amd_falls_back_to_amd_smi),
		cmocka_unit_test(hygon_hy_smi),
		cmocka_unit_test(hygon_falls_back_to_dtk_rocm_smi),
		cmocka_unit_test(ascend_loops_over_the_listed_npus),
		cmocka_unit_test(ascend_table_when_npus_cannot_be_listed),
		cmocka_unit_test(iluvatar_full_query),
		cmocka_unit_test(iluvatar_documented_query_when_a_field_is_refused),
		cmocka_unit_test(mthreads_full_query_on_an_older_release),
		cmocka_unit_test(cambricon_in_a_private_directory),
		cmocka_unit_test(metax_table),
	};

	setenv("PROBE_DATA", DATA_DIR "/probes", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
