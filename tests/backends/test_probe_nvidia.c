/*
 * test_probe_nvidia.c - the nvidia-smi parser on every recording of tests/data/probes/nvidia/,
 * field by field, and the sampler's frame reader on a frame built from them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpurent/probe.h"
#include "gpurent/sampler.h"
#include "tdata.h"

static const struct probe_vendor *
nv(void)
{
	const struct probe_vendor *v = probe_vendor_find("nvidia");

	assert_non_null(v);
	return v;
}

/* Parse a recording; fails the test unless it parses to want devices. */
static void
parse_file(const char *name, struct sample_list *l, size_t want)
{
	struct gr_error err = { 0 };
	size_t len;
	char *b = tdata(name, &len);

	sample_list_init(l);
	assert_int_equal(nv()->parse(b, len, l, &err), GR_OK);
	assert_int_equal(l->n, want);
	free(b);
}

static void
test_table_order(void **state)
{
	const struct probe_vendor *const *v = probe_vendors();

	(void)state;
	assert_non_null(v[0]);
	assert_string_equal(v[0]->name, "nvidia");
	assert_string_equal(v[0]->tools[0], "nvidia-smi");
	assert_null(v[0]->tools[1]);
	assert_non_null(strstr(v[0]->command, "--format=csv,noheader,nounits"));
	assert_non_null(strstr(v[0]->command, "--help-query-gpu"));
}

static void
test_single(void **state)
{
	struct sample_list l;
	const struct gpu_sample *g;

	(void)state;
	parse_file("probes/nvidia/single-rtx4000.txt", &l, 1);
	g = &l.v[0];
	assert_int_equal(g->index, 0);
	assert_string_equal(g->uuid, "GPU-c7b57be0-94ff-d352-a59b-d0ee00aeed43");
	assert_string_equal(g->name, "Quadro RTX 4000");
	assert_string_equal(g->driver, "535.129.03");
	assert_string_equal(g->cuda, "12.2");
	assert_true(g->valid & MV_UTIL);
	assert_int_equal(g->util_pct, 0);
	assert_true(g->valid & MV_MEM_UTIL);
	assert_int_equal(g->mem_util_pct, 0);
	assert_true(g->valid & MV_MEM);
	assert_int_equal(g->mem_total_mib, 8192);
	assert_int_equal(g->mem_used_mib, 1);
	assert_true(g->valid & MV_MEM_FREE);
	assert_int_equal(g->mem_free_mib, 7974);
	assert_true(g->valid & MV_TEMP);
	assert_int_equal(g->temp_c, 25);
	assert_false(g->valid & MV_TEMP_MEM);		/* [N/A] */
	assert_true(g->valid & MV_POWER);
	assert_int_equal(g->power_w, 10);		/* 10.24 rounded */
	assert_true(g->valid & MV_POWER_LIMIT);
	assert_int_equal(g->power_limit_w, 125);
	assert_true(g->valid & MV_POWER_ENFORCED);
	assert_int_equal(g->power_enforced_w, 125);
	assert_true(g->valid & MV_CLK_SM);
	assert_int_equal(g->clk_sm_mhz, 300);
	assert_true(g->valid & MV_CLK_MEM);
	assert_int_equal(g->clk_mem_mhz, 405);
	assert_true(g->valid & MV_CLK_SM_MAX);
	assert_int_equal(g->clk_sm_max_mhz, 2100);
	assert_true(g->valid & MV_FAN);
	assert_int_equal(g->fan_pct, 30);
	assert_true(g->valid & MV_PSTATE);
	assert_int_equal(g->pstate, 8);
	assert_true(g->valid & MV_PCIE_GEN);
	assert_int_equal(g->pcie_gen, 1);
	assert_true(g->valid & MV_PCIE_WIDTH);
	assert_int_equal(g->pcie_width, 16);
	assert_true(g->valid & MV_ENC);
	assert_int_equal(g->enc_pct, 0);
	assert_true(g->valid & MV_DEC);
	assert_int_equal(g->dec_pct, 0);
	assert_false(g->valid & MV_ECC_UNCORR);		/* [N/A]: no ECC on this board */
	assert_true(g->valid & MV_THROTTLE);
	assert_int_equal(g->throttle, 1);		/* GPU idle */
	assert_true(g->valid & MV_COMPUTE_MODE);
	assert_int_equal(g->compute_mode, 0);
	assert_false(g->valid & MV_MIG);		/* [N/A] */
	assert_false(g->valid & MV_XID);		/* not a query field */
	sample_list_release(&l);
}

static void
test_h100x8(void **state)
{
	static const int temp[8] = { 35, 30, 33, 31, 36, 32, 34, 30 };
	static const int power[8] = { 134, 110, 122, 115, 141, 119, 126, 113 };
	static const int util[8] = { 2, 0, 1, 0, 3, 0, 1, 0 };
	struct sample_list l;
	size_t i;

	(void)state;
	parse_file("probes/nvidia/h100x8.txt", &l, 8);
	for (i = 0; i < 8; i++) {
		const struct gpu_sample *g = &l.v[i];

		assert_int_equal(g->index, (int)i);
		assert_int_equal(strncmp(g->uuid, "GPU-", 4), 0);
		assert_int_equal(strlen(g->uuid), 40);
		assert_string_equal(g->name, "NVIDIA H100 80GB HBM3");
		assert_string_equal(g->driver, "550.90.07");
		assert_string_equal(g->cuda, "12.4");
		assert_int_equal(g->util_pct, util[i]);
		assert_int_equal(g->mem_util_pct, 0);
		assert_int_equal(g->mem_total_mib, 81559);
		assert_int_equal(g->mem_used_mib, 72790);
		assert_int_equal(g->mem_free_mib, 8247);
		assert_int_equal(g->temp_c, temp[i]);
		assert_int_equal(g->temp_mem_c, temp[i] + 6);
		assert_int_equal(g->power_w, power[i]);
		assert_int_equal(g->power_limit_w, 700);
		assert_int_equal(g->power_enforced_w, 700);
		assert_int_equal(g->clk_sm_mhz, 1980);
		assert_int_equal(g->clk_mem_mhz, 2619);
		assert_int_equal(g->clk_sm_max_mhz, 1980);
		assert_false(g->valid & MV_FAN);	/* [N/A] on a passively cooled SXM board */
		assert_int_equal(g->pstate, 0);
		assert_int_equal(g->pcie_gen, 5);
		assert_int_equal(g->pcie_width, 16);
		assert_int_equal(g->enc_pct, 0);
		assert_int_equal(g->dec_pct, 0);
		assert_true(g->valid & MV_ECC_UNCORR);
		assert_int_equal(g->ecc_uncorrected, 0);
		assert_true(g->valid & MV_THROTTLE);
		assert_int_equal(g->throttle, 0);
		assert_int_equal(g->compute_mode, 0);
		assert_true(g->valid & MV_MIG);
		assert_int_equal(g->mig, 0);
		assert_int_equal(g->valid & ~(uint32_t)(MV_FAN | MV_XID),
		    (MV_XID << 1) - 1 - MV_FAN - MV_XID);
	}
	sample_list_release(&l);
}

static void
test_mig(void **state)
{
	struct sample_list l;
	const struct gpu_sample *g;

	(void)state;
	parse_file("probes/nvidia/a100-mig.txt", &l, 2);
	g = &l.v[0];
	assert_string_equal(g->name, "NVIDIA A100-SXM4-40GB");
	assert_string_equal(g->driver, "470.57.02");
	assert_string_equal(g->cuda, "11.4");
	assert_int_equal(g->util_pct, 97);
	assert_int_equal(g->mem_util_pct, 61);
	assert_int_equal(g->mem_total_mib, 40536);
	assert_int_equal(g->mem_used_mib, 30127);
	assert_int_equal(g->mem_free_mib, 10409);
	assert_int_equal(g->temp_c, 64);
	assert_int_equal(g->temp_mem_c, 58);
	assert_int_equal(g->power_w, 312);
	assert_int_equal(g->clk_sm_mhz, 1410);
	assert_int_equal(g->clk_mem_mhz, 1215);
	assert_int_equal(g->pcie_gen, 4);
	assert_true(g->valid & MV_MIG);
	assert_int_equal(g->mig, 0);
	/* MIG enabled: whole-GPU utilisation and the codecs are [N/A], memory is still known. */
	g = &l.v[1];
	assert_int_equal(g->index, 1);
	assert_true(g->valid & MV_MIG);
	assert_int_equal(g->mig, 1);
	assert_false(g->valid & MV_UTIL);
	assert_false(g->valid & MV_MEM_UTIL);
	assert_false(g->valid & MV_ENC);
	assert_false(g->valid & MV_DEC);
	assert_true(g->valid & MV_MEM);
	assert_int_equal(g->mem_used_mib, 39402);
	assert_int_equal(g->mem_free_mib, 1134);
	assert_int_equal(g->temp_c, 51);
	assert_int_equal(g->power_w, 144);
	assert_int_equal(g->ecc_uncorrected, 0);
	sample_list_release(&l);
}

static void
test_old_driver(void **state)
{
	struct sample_list l;
	const struct gpu_sample *g;

	(void)state;
	parse_file("probes/nvidia/old-driver-440.txt", &l, 1);
	g = &l.v[0];
	assert_string_equal(g->name, "GeForce RTX 2080");
	assert_string_equal(g->driver, "440.64");
	assert_string_equal(g->cuda, "10.2");
	assert_int_equal(g->util_pct, 86);
	assert_int_equal(g->mem_util_pct, 55);
	assert_int_equal(g->mem_total_mib, 7979);
	assert_int_equal(g->mem_used_mib, 7050);
	assert_int_equal(g->mem_free_mib, 929);
	assert_int_equal(g->temp_c, 45);
	assert_false(g->valid & MV_TEMP_MEM);	/* a bare N/A, as drivers before 450 print it */
	assert_int_equal(g->power_w, 177);
	assert_int_equal(g->power_limit_w, 200);
	assert_int_equal(g->power_enforced_w, 200);
	assert_int_equal(g->clk_sm_mhz, 1965);
	assert_int_equal(g->clk_mem_mhz, 7199);
	assert_int_equal(g->clk_sm_max_mhz, 2100);
	assert_int_equal(g->fan_pct, 100);
	assert_int_equal(g->pstate, 2);
	assert_int_equal(g->pcie_gen, 3);
	assert_int_equal(g->pcie_width, 8);
	assert_int_equal(g->enc_pct, 0);
	assert_int_equal(g->dec_pct, 0);
	assert_false(g->valid & MV_ECC_UNCORR);
	/* The reasons under their old name; no MIG field at all before 450. */
	assert_true(g->valid & MV_THROTTLE);
	assert_int_equal(g->throttle, 0);
	assert_int_equal(g->compute_mode, 0);
	assert_false(g->valid & MV_MIG);
	sample_list_release(&l);
}

/* A real user's query in its own field order, with fields we do not read, and aliases. */
static void
test_verbatim_other_order(void **state)
{
	struct sample_list l;
	const struct gpu_sample *g;

	(void)state;
	parse_file("probes/nvidia/rtx2080-440-verbatim.txt", &l, 1);
	g = &l.v[0];
	assert_int_equal(g->index, 0);		/* no index column: the row's position */
	assert_int_equal(g->power_limit_w, 200);
	assert_string_equal(g->driver, "440.64");
	assert_string_equal(g->name, "GeForce RTX 2080");
	assert_string_equal(g->uuid, "GPU-22b2c6ac-2d49-4863-197c-9c469071178a");
	assert_int_equal(g->power_w, 177);
	assert_int_equal(g->temp_c, 45);
	assert_false(g->valid & MV_TEMP_MEM);
	assert_int_equal(g->clk_sm_mhz, 1965);
	assert_int_equal(g->clk_mem_mhz, 7199);
	assert_int_equal(g->util_pct, 86);
	assert_int_equal(g->mem_util_pct, 55);
	assert_int_equal(g->fan_pct, 100);
	assert_int_equal(g->pcie_width, 8);
	assert_int_equal(g->pstate, 2);
	/* memory.total without memory.used is no memory figure. */
	assert_false(g->valid & MV_MEM);
	assert_int_equal(g->mem_total_mib, 0);
	assert_string_equal(g->cuda, "");
	sample_list_release(&l);
}

static void
test_not_supported(void **state)
{
	struct sample_list l;
	size_t i;

	(void)state;
	parse_file("probes/nvidia/not-supported-2020.txt", &l, 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(l.v[i].index, (int)i);
		assert_false(l.v[i].valid & MV_FAN);	/* [N/A] and [Not Supported] */
		assert_int_equal(l.v[i].mem_total_mib, 2004);
		assert_int_equal(l.v[i].mem_free_mib, 2004);
		assert_int_equal(l.v[i].mem_used_mib, 0);
		assert_true(l.v[i].valid & MV_MEM);
		assert_int_equal(l.v[i].temp_c, 44);
		assert_true(l.v[i].valid & MV_UTIL);
		assert_int_equal(l.v[i].util_pct, 0);
	}
	sample_list_release(&l);
}

static void
test_sixteen_decimal_comma(void **state)
{
	struct sample_list l;
	size_t i;

	(void)state;
	parse_file("probes/nvidia/v100x16-decimal-comma.txt", &l, 16);
	for (i = 0; i < 16; i++) {
		const struct gpu_sample *g = &l.v[i];

		assert_int_equal(g->index, (int)i);
		assert_string_equal(g->name, "Tesla V100-SXM3-32GB");
		assert_int_equal(g->util_pct, (int)i * 6);
		assert_int_equal(g->mem_util_pct, (int)i * 3);
		assert_int_equal(g->mem_used_mib, (int)i * 2000 + 4);
		assert_int_equal(g->mem_total_mib, 32768);
		assert_int_equal(g->temp_c, 40 + (int)i);
		/* "60,00" ... "210,50": a decimal comma read as a point, .5 rounded up */
		assert_int_equal(g->power_w, 60 + (int)i * 10 + (i % 10 >= 5));
		assert_false(g->valid & MV_TEMP_MEM);
		assert_false(g->valid & MV_MIG);
	}
	sample_list_release(&l);
}

static void
test_hostile(void **state)
{
	struct sample_list l;
	const struct gpu_sample *g;
	size_t i, k;

	(void)state;
	/* Row 0 is a device with garbage in most fields; row 1 starts with an escape (no
	 * index); row 2 has too few columns; row 3 is good; the last line is an error. */
	parse_file("probes/nvidia/hostile.txt", &l, 2);
	g = &l.v[0];
	assert_int_equal(g->index, 0);
	for (k = 0; k < 2; k++)
		for (i = 0; l.v[k].name[i]; i++)
			assert_true((unsigned char)l.v[k].name[i] >= 0x20 && l.v[k].name[i] != 0x7f);
	for (i = 0; g->cuda[i]; i++)
		assert_true((unsigned char)g->cuda[i] >= 0x20);
	assert_null(strchr(g->name, 0x1b));
	assert_false(g->valid & MV_UTIL);		/* 101 */
	assert_false(g->valid & MV_MEM_UTIL);		/* -3 */
	assert_false(g->valid & MV_MEM);		/* used: [Unknown Error] */
	assert_int_equal(g->mem_total_mib, 0);
	assert_true(g->valid & MV_MEM_FREE);
	assert_false(g->valid & MV_TEMP_MEM);		/* empty */
	assert_false(g->valid & MV_POWER);		/* 9e9 */
	assert_false(g->valid & MV_POWER_ENFORCED);	/* [Not Supported] */
	/* 1980MHz: a unit of nvidia-smi's own, as fields.h reads it for every vendor
	 * (hy-smi prints 38.0W), with or without a space. */
	assert_true(g->valid & MV_CLK_SM);
	assert_int_equal(g->clk_sm_mhz, 1980);
	assert_false(g->valid & MV_CLK_MEM);		/* abc */
	assert_false(g->valid & MV_FAN);		/* empty */
	assert_false(g->valid & MV_PSTATE);		/* P99 */
	assert_false(g->valid & MV_PCIE_GEN);		/* 0 */
	assert_false(g->valid & MV_PCIE_WIDTH);		/* 128 */
	assert_false(g->valid & MV_ECC_UNCORR);		/* -1 */
	assert_false(g->valid & MV_THROTTLE);		/* 0xZZ, then 0x */
	assert_true(g->valid & MV_COMPUTE_MODE);
	assert_int_equal(g->compute_mode, 3);
	assert_false(g->valid & MV_MIG);		/* Maybe */
	g = &l.v[1];
	assert_int_equal(g->index, 3);
	assert_string_equal(g->uuid, "GPU-ok-row");
	assert_int_equal(g->power_w, 401);		/* "400,50 W" */
	assert_int_equal(g->throttle, 4);		/* SW power cap */
	assert_int_equal(g->compute_mode, 1);
	assert_int_equal(g->clk_sm_mhz, 1755);
	sample_list_release(&l);
}

static void
test_errors(void **state)
{
	static const char *const bad[] = {
		"",
		"\n\n",
		"No devices were found\n",
		"# fields=index,name\n# cuda=12.4\n",
		"Field \"clocks_event_reasons.active\" is not a valid field to query.\n",
		"\x1b[2J\x1b[31mgarbage, garbage\n",
	};
	struct sample_list l;
	struct gr_error err = { 0 };
	size_t len, i;
	char *b = tdata("probes/nvidia/driver-gone.txt", &len);

	(void)state;
	sample_list_init(&l);
	assert_int_equal(nv()->parse(b, len, &l, &err), GR_EFAIL);
	assert_int_equal(l.n, 0);
	assert_non_null(strstr(err.msg, "couldn't communicate"));
	free(b);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(nv()->parse(bad[i], strlen(bad[i]), &l, &err), GR_EFAIL);
		assert_int_equal(l.n, 0);
		assert_null(strchr(err.msg, 0x1b));
	}
	/* A NUL inside a row is no row. */
	assert_int_equal(nv()->parse("0, a\0b, c\n", 10, &l, &err), GR_EFAIL);
	sample_list_release(&l);
}

/* A whole frame as the sampler's loop prints it, with a forged marker inside the tool's
 * output that carries the wrong token. */
static void
test_frame(void **state)
{
	struct probe_snapshot s;
	struct sb f;
	size_t len;
	char *b = tdata("probes/nvidia/h100x8.txt", &len);

	(void)state;
	sb_init(&f);
	sb_adds(&f, "@@gpurent 0123456789abcdef vendor nvidia\n");
	sb_add(&f, b, len);
	sb_adds(&f, "@@gpurent ffffffffffffffff host\ncpu 99\n");
	sb_adds(&f, "\n@@gpurent 0123456789abcdef host\ncpu 12\nload 1.50 1 1 1/1 1\n");
	probe_snapshot_init(&s);
	sampler_parse_frame(f.buf, f.len, "0123456789abcdef", &s);
	assert_string_equal(s.vendor, "nvidia");
	assert_int_equal(s.gpu_code, GR_OK);
	assert_int_equal(s.gpus.n, 8);
	assert_true(s.host_ok);
	assert_int_equal(s.host.cpu_pct, 12);
	assert_int_equal(s.host.load1_centi, 150);
	probe_snapshot_release(&s);
	sb_release(&f);
	free(b);
}

/*
 * The resume point after the vendor's part (sampler.h): it ends the vendor's text and is
 * kept only when it is a plain token; a forged one with another token is not read.
 */
static void
test_frame_resume(void **state)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
		{ "da19ed01-4229-4b5b-bb94-63742ea958e6@14397.322674", "da19ed01-4229-4b5b-bb94-63742ea958e6@14397.322674" },
		{ "@0", "@0" },
		{ "x@1; rm -rf ~", "" },
		{ "x@1'$(id)'", "" },
		{ "x@\x1b[2J1", "" },
		{ "", "" },
		{ "0123456789012345678901234567890123456789012345678901234567890123", "" },
	};
	struct probe_snapshot s;
	struct sb f;
	size_t len, i;
	char *b = tdata("probes/nvidia/h100x8.txt", &len);

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sb_init(&f);
		sb_adds(&f, "@@gpurent 0123456789abcdef vendor nvidia\n");
		sb_add(&f, b, len);
		sb_addf(&f, "\n@@gpurent ffffffffffffffff resume forged@1\n"
		    "\n@@gpurent 0123456789abcdef resume %s\n", cases[i].line);
		sb_adds(&f, "\n@@gpurent 0123456789abcdef host\ncpu 12\n");
		probe_snapshot_init(&s);
		sampler_parse_frame(f.buf, f.len, "0123456789abcdef", &s);
		assert_int_equal(s.gpu_code, GR_OK);
		assert_int_equal(s.gpus.n, 8);
		assert_true(s.host_ok);
		assert_string_equal(s.resume, cases[i].want);
		probe_snapshot_release(&s);
		sb_release(&f);
	}
	/* The script hands $4 to the vendor commands and prints it after them. */
	{
		char *script = sampler_script();

		assert_non_null(strstr(script, "gr_resume=$4;"));
		assert_non_null(strstr(script, " resume %s"));
		free(script);
	}
	free(b);
}

/* The script names every vendor of the table and keeps the frame markers. */
static void
test_script(void **state)
{
	char *s = sampler_script();

	(void)state;
	assert_non_null(strstr(s, "if command -v nvidia-smi >/dev/null 2>&1; then v=nvidia;"));
	/* A machine with only amd-smi (ROCm 7) is AMD too. */
	assert_non_null(strstr(s, "elif command -v rocm-smi >/dev/null 2>&1 || "
	    "command -v amd-smi >/dev/null 2>&1; then v=amd;"));
	assert_non_null(strstr(s, "nvidia) {"));
	assert_non_null(strstr(s, " begin "));
	assert_non_null(strstr(s, " end "));
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_order),
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_h100x8),
		cmocka_unit_test(test_mig),
		cmocka_unit_test(test_old_driver),
		cmocka_unit_test(test_verbatim_other_order),
		cmocka_unit_test(test_not_supported),
		cmocka_unit_test(test_sixteen_decimal_comma),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_frame),
		cmocka_unit_test(test_frame_resume),
		cmocka_unit_test(test_script),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
