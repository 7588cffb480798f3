/*
 * test_probes.c - the accelerator probe vendors (src/remote/probes/: amd, hygon, ascend,
 * iluvatar, mthreads, cambricon, metax) on the recorded outputs of tests/data/probes/ (their
 * sources in tests/data/README.md), field by field, and on what a remote machine may print
 * instead: cut replies, N/A and unsupported values, decimal commas, escape sequences, garbage,
 * huge and negative numbers, more devices than any machine has.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpurent/catalogue.h"
#include "gpurent/probe.h"
#include "gpurent/util.h"

static const char *const vendor_names[] = {
	"amd", "hygon", "ascend", "iluvatar", "mthreads", "cambricon", "metax",
};

/* The recordings, each with its vendor. */
static const struct {
	const char *vendor, *file;
} recordings[] = {
	{ "amd", "amd/rocm-smi-mi250-2.json" },
	{ "amd", "amd/rocm-smi-navi32.json" },
	{ "amd", "amd/rocm-smi-mi300x-8.json" },
	{ "amd", "amd/amd-smi-metric-mi300x-2.json" },
	{ "amd", "amd/amd-smi-metric-list.txt" },
	{ "hygon", "hygon/hy-smi-z100l.json" },
	{ "hygon", "hygon/hy-smi-k100ai.json" },
	{ "hygon", "hygon/hy-smi-invalid-8.json" },
	{ "ascend", "ascend/npu-smi-info-910b1-2.txt" },
	{ "ascend", "ascend/npu-smi-info-910b3-8.txt" },
	{ "ascend", "ascend/npu-smi-info-310p3.txt" },
	{ "ascend", "ascend/npu-smi-blocks-910b3-8.txt" },
	{ "ascend", "ascend/npu-smi-blocks-old-cann.txt" },
	{ "iluvatar", "iluvatar/ixsmi-noheader-2.csv" },
	{ "iluvatar", "iluvatar/ixsmi-8.csv" },
	{ "mthreads", "mthreads/mthreads-gmi-q-8.txt" },
	{ "mthreads", "mthreads/mthreads-gmi-csv-2.csv" },
	{ "cambricon", "cambricon/cnmon-info-8.json" },
	{ "metax", "metax/mx-smi-c500-8.txt" },
	{ "metax", "metax/mx-smi-n260.txt" },
};

static char *
load(const char *rel, size_t *len)
{
	char path[1024];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/probes/%s", DATA_DIR, rel);
	f = fopen(path, "rb");
	if (f == NULL)
		fail_msg("cannot open %s", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = xmalloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static const struct probe_vendor *
vendor(const char *name)
{
	const struct probe_vendor *v = probe_vendor_find(name);

	if (v == NULL)
		fail_msg("no vendor %s in the registry", name);
	return v;
}

/* Parse text with a vendor into a fresh list; the error code. */
static enum gr_err
parse(const char *name, const char *text, size_t len, struct sample_list *l, char *msg,
    size_t n)
{
	struct gr_error err = { 0 };
	enum gr_err e;

	sample_list_init(l);
	e = vendor(name)->parse(text, len, l, &err);
	if (msg != NULL)
		strlcpy_(msg, err.msg, n);
	return e;
}

static void
parse_file(const char *name, const char *file, struct sample_list *l)
{
	size_t len;
	char *text = load(file, &len), msg[512];

	if (parse(name, text, len, l, msg, sizeof(msg)) != GR_OK)
		fail_msg("%s: %s", file, msg);
	free(text);
}

/* What one device of a recording must parse to: every field, and which are known. */
struct want {
	int index;
	uint32_t valid;
	int util, used, total, temp, power, limit, mem_util, temp_mem, clk_sm, clk_mem, fan;
	int pstate, mem_free;
	const char *name, *uuid, *driver;
	const char *model;	/* the catalogue id the name resolves to ("smi"); NULL: none */
};

static void
check(const struct gpu_sample *s, const struct want *w)
{
	const struct gpu_model *m;

	assert_int_equal(s->index, w->index);
	/* Exactly these fields are known: none made up, none lost. */
	assert_int_equal(s->valid, w->valid);
	if (w->valid & MV_UTIL)
		assert_int_equal(s->util_pct, w->util);
	if (w->valid & MV_MEM) {
		assert_int_equal(s->mem_used_mib, w->used);
		assert_int_equal(s->mem_total_mib, w->total);
	}
	if (w->valid & MV_MEM_FREE)
		assert_int_equal(s->mem_free_mib, w->mem_free);
	if (w->valid & MV_TEMP)
		assert_int_equal(s->temp_c, w->temp);
	if (w->valid & MV_POWER)
		assert_int_equal(s->power_w, w->power);
	if (w->valid & MV_POWER_LIMIT)
		assert_int_equal(s->power_limit_w, w->limit);
	if (w->valid & MV_MEM_UTIL)
		assert_int_equal(s->mem_util_pct, w->mem_util);
	if (w->valid & MV_TEMP_MEM)
		assert_int_equal(s->temp_mem_c, w->temp_mem);
	if (w->valid & MV_CLK_SM)
		assert_int_equal(s->clk_sm_mhz, w->clk_sm);
	if (w->valid & MV_CLK_MEM)
		assert_int_equal(s->clk_mem_mhz, w->clk_mem);
	if (w->valid & MV_FAN)
		assert_int_equal(s->fan_pct, w->fan);
	if (w->valid & MV_PSTATE)
		assert_int_equal(s->pstate, w->pstate);
	assert_string_equal(s->name, w->name ? w->name : "");
	assert_string_equal(s->uuid, w->uuid ? w->uuid : "");
	assert_string_equal(s->driver, w->driver ? w->driver : "");
	m = catalogue_resolve("smi", s->name, 0);
	if (w->model == NULL) {
		assert_null(m);
	} else {
		assert_non_null(m);
		assert_string_equal(m->id, w->model);
	}
}

static void
check_all(const char *name, const char *file, const struct want *w, size_t n)
{
	struct sample_list l;
	size_t i;

	parse_file(name, file, &l);
	assert_int_equal(l.n, n);
	for (i = 0; i < n; i++)
		check(&l.v[i], &w[i]);
	sample_list_release(&l);
}

/* --- AMD ------------------------------------------------------------------------------ */

static void
amd_mi250(void **state)
{
	/* The second die of an MI250 reports no power of its own: unknown, not 0. */
	static const struct want w[] = {
		{ .index = 0, .valid = MV_UTIL | MV_MEM_UTIL | MV_MEM | MV_POWER, .util = 50,
		  .mem_util = 0, .used = 49140, .total = 65520, .power = 102,
		  .name = "AMD INSTINCT MI250 (MCM) OAM AC MBA", .model = "MI250" },
		{ .index = 1, .valid = MV_UTIL | MV_MEM_UTIL | MV_MEM, .util = 0, .mem_util = 0,
		  .used = 11, .total = 65520,
		  .name = "AMD INSTINCT MI250 (MCM) OAM AC MBA", .model = "MI250" },
	};

	(void)state;
	check_all("amd", "amd/rocm-smi-mi250-2.json", w, ARRAY_LEN(w));
}

static void
amd_navi32(void **state)
{
	static const struct want w[] = {
		{ .index = 0, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_TEMP_MEM | MV_POWER,
		  .util = 100, .used = 11078, .total = 16368, .temp = 45, .temp_mem = 54,
		  .power = 53, .name = "Navi 32 [Radeon RX 7700 XT / 7800 XT]",
		  .uuid = "0x5c88007d760374f3" },
	};

	(void)state;
	check_all("amd", "amd/rocm-smi-navi32.json", w, ARRAY_LEN(w));
}

static void
amd_mi300x_8(void **state)
{
	/* No edge sensor on MI300X: the junction temperature; no fan: unknown. */
	static const int temps[] = { 39, 41, 37, 43, 37, 40, 38, 42 };
	static const int power[] = { 134, 139, 130, 139, 133, 137, 131, 136 };
	static const char *const ids[] = {
		"0x1d3f8a9b2c4e6f01", "0x2e4a9b0c3d5f7012", "0x3f5bac1d4e608123",
		"0x406cbd2e5f719234", "0x517dce3f6082a345", "0x628edf407193b456",
		"0x739fe05182a4c567", "0x84a0f16293b5d678",
	};
	struct want w[8];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		struct want x = {
			.index = i, .valid = MV_UTIL | MV_MEM_UTIL | MV_MEM | MV_TEMP | MV_TEMP_MEM |
			    MV_POWER | MV_POWER_LIMIT | MV_CLK_SM | MV_CLK_MEM,
			.util = 0, .mem_util = 0, .used = i == 4 ? 20520 : 283, .total = 196592,
			.temp = temps[i], .temp_mem = temps[i] - 4, .power = power[i], .limit = 750,
			.clk_sm = i % 2 == 0 ? 132 : 131, .clk_mem = 900,
			.name = "AMD Instinct MI300X", .uuid = ids[i], .driver = "6.8.5",
			.model = "MI300X-192GB",
		};
		w[i] = x;
	}
	check_all("amd", "amd/rocm-smi-mi300x-8.json", w, 8);
}

static void
amdsmi_mi300x(void **state)
{
	/* amd-smi (ROCm 7 "gpu_data" form): GPU 1's power and memory activity N/A. */
	static const struct want w[] = {
		{ .index = 0, .valid = MV_UTIL | MV_MEM_UTIL | MV_MEM | MV_POWER, .util = 94,
		  .mem_util = 61, .used = 17153, .total = 196592, .power = 612 },
		{ .index = 1, .valid = MV_UTIL | MV_MEM, .util = 0, .used = 284, .total = 196592 },
	};

	(void)state;
	check_all("amd", "amd/amd-smi-metric-mi300x-2.json", w, ARRAY_LEN(w));
}

static void
amdsmi_list(void **state)
{
	/* The list form after a warning line; bare {"value"} without a unit; GPUs out of order. */
	static const struct want w[] = {
		{ .index = 0, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_POWER, .util = 0, .used = 0,
		  .total = 196592, .temp = 30, .power = 90 },
		{ .index = 1, .valid = MV_UTIL | MV_MEM_UTIL | MV_MEM | MV_TEMP | MV_TEMP_MEM |
		      MV_POWER, .util = 73, .mem_util = 12, .used = 49148, .total = 196592,
		  .temp = 45, .temp_mem = 58, .power = 142 },
	};

	(void)state;
	check_all("amd", "amd/amd-smi-metric-list.txt", w, ARRAY_LEN(w));
}

/* --- Hygon ---------------------------------------------------------------------------- */

static void
hygon_z100l(void **state)
{
	/* Memory in MiB (AMD's is bytes); "DCU use (%)" before DTK 25.04. */
	static const struct want w[] = {
		{ .index = 0, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_TEMP_MEM | MV_POWER,
		  .util = 0, .used = 2, .total = 32752, .temp = 38, .temp_mem = 39, .power = 38,
		  .name = "Z100L", .uuid = "a000000000000000" },
	};

	(void)state;
	check_all("hygon", "hygon/hy-smi-z100l.json", w, ARRAY_LEN(w));
}

static void
hygon_k100ai(void **state)
{
	/* DTK 25.04 renamed the key to "HCU use (%)". */
	static const struct want w[] = {
		{ .index = 0, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_TEMP_MEM | MV_POWER,
		  .util = 0, .used = 2, .total = 65520, .temp = 37, .temp_mem = 38, .power = 77,
		  .name = "K100_AI", .uuid = "a000000000000000", .model = "HYGON-K100" },
	};

	(void)state;
	check_all("hygon", "hygon/hy-smi-k100ai.json", w, ARRAY_LEN(w));
}

static void
hygon_invalid_json_8(void **state)
{
	/* Missing commas, unquoted values with units, a warning line: all eight read. */
	struct want w[8];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		struct want x = {
			.index = i, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_TEMP_MEM | MV_POWER,
			.util = i * 10, .used = 1000 * i + 2, .total = 65520, .temp = 40 + i,
			.temp_mem = 42 + i, .power = 70 + i, .name = "K100_AI",
			.model = "HYGON-K100",
		};
		static char uuids[8][32];

		snprintf(uuids[i], sizeof(uuids[i]), "a00000000000000%d", i);
		x.uuid = uuids[i];
		w[i] = x;
	}
	check_all("hygon", "hygon/hy-smi-invalid-8.json", w, 8);
}

/* --- Ascend --------------------------------------------------------------------------- */

static void
ascend_table_910b1(void **state)
{
	/* npu-smi 23.0: the table read by position; HBM (not the empty DDR) is the memory. */
	static const struct want w[] = {
		{ .index = 0, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_POWER, .util = 55,
		  .used = 65099, .total = 65536, .temp = 41, .power = 271, .name = "910B1",
		  .uuid = "0000:C1:00.0", .model = "ASCEND-910B" },
		{ .index = 1, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_POWER, .util = 66,
		  .used = 65098, .total = 65536, .temp = 42, .power = 275, .name = "910B1",
		  .uuid = "0000:01:00.0", .model = "ASCEND-910B" },
	};

	(void)state;
	check_all("ascend", "ascend/npu-smi-info-910b1-2.txt", w, ARRAY_LEN(w));
}

static void
ascend_table_910b3_8(void **state)
{
	static const int power[] = { 97, 94, 93, 89, 89, 90, 94, 86 };
	static const int temp[] = { 32, 30, 30, 31, 36, 35, 34, 33 };
	static const int used[] = { 60056, 60050, 60050, 60051, 60050, 60050, 60051, 60051 };
	static const char *const bus[] = {
		"0000:C1:00.0", "0000:C2:00.0", "0000:81:00.0", "0000:82:00.0",
		"0000:01:00.0", "0000:02:00.0", "0000:41:00.0", "0000:42:00.0",
	};
	struct want w[8];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		struct want x = {
			.index = i, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_POWER, .util = 0,
			.used = used[i], .total = 65536, .temp = temp[i], .power = power[i],
			.name = "910B3", .uuid = bus[i], .model = "ASCEND-910B",
		};
		w[i] = x;
	}
	check_all("ascend", "ascend/npu-smi-info-910b3-8.txt", w, 8);
}

static void
ascend_table_310p3(void **state)
{
	/* npu-smi 25.3's "Chip Device" header; power "NA"; DDR only, no HBM column. */
	static const struct want w[] = {
		{ .index = 6, .valid = MV_UTIL | MV_MEM | MV_TEMP, .util = 0, .used = 1839,
		  .total = 21525, .temp = 50, .name = "310P3", .uuid = "0000:84:00.0" },
	};

	(void)state;
	check_all("ascend", "ascend/npu-smi-info-310p3.txt", w, ARRAY_LEN(w));
}

static void
ascend_blocks_8(void **state)
{
	/*
	 * npu-smi 25.5's key : value blocks: the NPU's utilisation rather than the AI cores',
	 * memory from capacity × rate, "NPU Temperature (C)" with its space, the MCU's
	 * "Chip Name" not taken for the NPU's, the name from info -m.
	 */
	static const char *const bus[] = {
		"0000:C1:00.0", "0000:C2:00.0", "0000:81:00.0", "0000:82:00.0",
		"0000:01:00.0", "0000:02:00.0", "0000:41:00.0", "0000:42:00.0",
	};
	struct want w[8];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		struct want x = {
			.index = i, .valid = MV_UTIL | MV_MEM_UTIL | MV_MEM | MV_TEMP | MV_POWER,
			.util = 60 + i, .mem_util = 2 * i,
			.used = (65536 * (5 + 10 * i) + 50) / 100, .total = 65536, .temp = 39 + i,
			.power = 101 + i, .name = "Ascend 910B3", .uuid = bus[i], .driver = "25.5.1",
			.model = "ASCEND-910B",
		};
		w[i] = x;
	}
	check_all("ascend", "ascend/npu-smi-blocks-910b3-8.txt", w, 8);
}

static void
ascend_blocks_old_cann(void **state)
{
	/* Older spellings (Power(W), Temperature(C)), no NPU Utilization: the AI cores'. */
	static const struct want w[] = {
		{ .index = 0, .valid = MV_UTIL | MV_MEM_UTIL | MV_MEM | MV_TEMP | MV_POWER,
		  .util = 0, .mem_util = 0, .used = 0, .total = 32768, .temp = 46, .power = 73,
		  .name = "Ascend 910B", .uuid = "0000:C1:00.0", .driver = "23.0.rc3",
		  .model = "ASCEND-910B" },
	};

	(void)state;
	check_all("ascend", "ascend/npu-smi-blocks-old-cann.txt", w, ARRAY_LEN(w));
}

/* --- Iluvatar ------------------------------------------------------------------------- */

static void
iluvatar_noheader(void **state)
{
	static const struct want w[] = {
		{ .index = 0, .valid = MV_UTIL | MV_MEM | MV_TEMP, .util = 0, .used = 116,
		  .total = 16384, .temp = 30, .name = "Iluvatar MR-V50" },
		{ .index = 1, .valid = MV_UTIL | MV_MEM | MV_TEMP, .util = 0, .used = 27996,
		  .total = 32768, .temp = 36, .name = "Iluvatar MR-V100" },
	};

	(void)state;
	check_all("iluvatar", "iluvatar/ixsmi-noheader-2.csv", w, ARRAY_LEN(w));
}

static void
iluvatar_8(void **state)
{
	/* Card 5 says [Not Supported] for its power, card 6 N/A: unknown, not 0. */
	struct want w[8];
	static char uuids[8][64];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		struct want x = {
			.index = i, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_POWER_LIMIT |
			    (i == 5 || i == 6 ? 0 : MV_POWER),
			.util = 12 * i, .used = 1024 * i + 64, .total = 32768, .temp = 35 + i,
			.power = 120 + i, .limit = 350, .name = "Iluvatar BI-V150", .driver = "4.1.0",
			.model = "BI-V150",
		};

		snprintf(uuids[i], sizeof(uuids[i]), "GPU-7a1c%04x-0e43-2d1f-bd5e-0c4b3a2f1%03d",
		    i, i);
		x.uuid = uuids[i];
		w[i] = x;
	}
	check_all("iluvatar", "iluvatar/ixsmi-8.csv", w, 8);
}

/* --- Moore Threads -------------------------------------------------------------------- */

static void
mthreads_query_8(void **state)
{
	/* -q text: FB memory, not BAR1; GPU 7's power N/A. */
	struct want w[8];
	static char uuids[8][64];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		struct want x = {
			.index = i, .valid = MV_UTIL | MV_MEM_UTIL | MV_MEM | MV_TEMP | MV_POWER_LIMIT |
			    (i == 7 ? 0 : MV_POWER),
			.util = 11 * i, .mem_util = 3 * i, .used = 2048 * i, .total = 49152,
			.temp = 27 + i, .power = 97 + i, .limit = 450, .name = "MTT S4000",
			.driver = "2.7.0", .model = "MTT-S4000",
		};

		snprintf(uuids[i], sizeof(uuids[i]), "399282a8-ba01-1475-893c-2eeca9e302%02x", i);
		x.uuid = uuids[i];
		w[i] = x;
	}
	check_all("mthreads", "mthreads/mthreads-gmi-q-8.txt", w, 8);
}

static void
mthreads_csv_decimal_comma(void **state)
{
	/* "130,50 W" in a locale with decimal commas stays one field and reads as 130.5. */
	static const struct want w[] = {
		{ .index = 0, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_POWER, .util = 37,
		  .used = 1024, .total = 49152, .temp = 45, .power = 131, .name = "MTT S4000",
		  .uuid = "bf1da7bf-0000-4d4e-9a3c-000000000000", .driver = "2.7.0",
		  .model = "MTT-S4000" },
		{ .index = 1, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_POWER, .util = 0,
		  .used = 0, .total = 49152, .temp = 41, .power = 97, .name = "MTT S4000",
		  .uuid = "bf1da7bf-0000-4d4e-9a3c-000000000001", .driver = "2.7.0",
		  .model = "MTT-S4000" },
	};

	(void)state;
	check_all("mthreads", "mthreads/mthreads-gmi-csv-2.csv", w, ARRAY_LEN(w));
}

/* --- Cambricon ------------------------------------------------------------------------ */

static void
cambricon_8(void **state)
{
	struct want w[8];
	static char uuids[8][32];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		struct want x = {
			.index = i, .valid = MV_UTIL | MV_MEM | MV_TEMP | (i == 3 ? 0 : MV_POWER),
			.util = 5 * i, .used = 512 + 1024 * i, .total = 24576, .temp = 43 + i,
			.power = 60 + i, .name = "MLU370-X8", .model = "MLU370",
		};

		snprintf(uuids[i], sizeof(uuids[i]), "U%011d", 54003 + i);
		x.uuid = uuids[i];
		w[i] = x;
	}
	check_all("cambricon", "cambricon/cnmon-info-8.json", w, 8);
}

/* --- MetaX ---------------------------------------------------------------------------- */

static void
metax_c500_8(void **state)
{
	static const int util[] = { 0, 0, 0, 1, 0, 1, 0, 0 };
	static const int temp[] = { 36, 38, 37, 37, 37, 36, 39, 38 };
	static const int power[] = { 69, 70, 69, 71, 70, 68, 73, 71 };
	static const char *const bus[] = {
		"0000:0e:00.0", "0000:0f:00.0", "0000:10:00.0", "0000:12:00.0",
		"0000:35:00.0", "0000:36:00.0", "0000:37:00.0", "0000:38:00.0",
	};
	struct want w[8];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		struct want x = {
			.index = i, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_POWER | MV_POWER_LIMIT,
			.util = util[i], .used = i == 0 ? 5680 : 4986, .total = 65536,
			.temp = temp[i], .power = power[i], .limit = 350, .name = "MetaX C500",
			.uuid = bus[i], .driver = "2.12.13", .model = "METAX-C500",
		};
		w[i] = x;
	}
	check_all("metax", "metax/mx-smi-c500-8.txt", w, 8);
}

static void
metax_n260(void **state)
{
	/* mx-smi 2.2.8 adds persistence mode and performance state to the rows. */
	static const struct want w[] = {
		{ .index = 0, .valid = MV_UTIL | MV_MEM | MV_TEMP | MV_POWER | MV_POWER_LIMIT |
		      MV_PSTATE, .util = 0, .used = 666, .total = 65536, .temp = 37, .power = 29,
		  .limit = 225, .pstate = 0, .name = "MetaX N260", .uuid = "0000:01:00.0",
		  .driver = "3.0.11" },
	};

	(void)state;
	check_all("metax", "metax/mx-smi-n260.txt", w, ARRAY_LEN(w));
}

/* --- Every vendor on what a machine may print instead ---------------------------------- */

/* The ranges the parsers promise (fields.h), and no control character in a string. */
static void
sane(const struct gpu_sample *s)
{
	const char *const strs[] = { s->name, s->uuid, s->driver };
	size_t i, k;

	if (s->valid & MV_UTIL)
		assert_true(s->util_pct >= 0 && s->util_pct <= 100);
	if (s->valid & MV_MEM)
		assert_true(s->mem_used_mib >= 0 && s->mem_used_mib <= s->mem_total_mib &&
		    s->mem_total_mib > 0);
	if (s->valid & MV_TEMP)
		assert_true(s->temp_c >= 1 && s->temp_c <= 150);
	if (s->valid & MV_POWER)
		assert_true(s->power_w >= 0 && s->power_w <= 5000);
	for (k = 0; k < ARRAY_LEN(strs); k++)
		for (i = 0; strs[k][i] != '\0'; i++)
			assert_true((unsigned char)strs[k][i] >= 0x20 &&
			    (unsigned char)strs[k][i] != 0x7f);
}

/* What each tool may print when it has nothing to say; each must be an error. */
static void
not_the_format(void **state)
{
	static const char *const inputs[] = {
		"",
		"\n\n",
		"bash: line 1: rocm-smi: command not found\n",
		"No devices were found\n",
		"ERROR: GPU[0]\t\t: Unable to get GPU memory use.\n",
		"dcmi model initialized failed, because the device is used. ret is -8020\n",
		"{}\n",
		"[]\n",
		"\x1b[2J\x1b[H\x1b]0;owned\x07\n",
		"\xff\xfe\x00\x01garbage\x00\n",
	};
	size_t v, i;

	(void)state;
	for (v = 0; v < ARRAY_LEN(vendor_names); v++) {
		for (i = 0; i < ARRAY_LEN(inputs); i++) {
			struct sample_list l;
			char msg[512];
			size_t len = strlen(inputs[i]);

			if (i == ARRAY_LEN(inputs) - 1)
				len = 13;	/* with its NUL bytes */
			assert_int_equal(parse(vendor_names[v], inputs[i], len, &l, msg, sizeof(msg)),
			    GR_EFAIL);
			/* An error appends nothing and says something. */
			assert_int_equal(l.n, 0);
			assert_true(msg[0] != '\0');
			sample_list_release(&l);
		}
	}
}

/*
 * A reply cut anywhere (the connection dropped, the tool was killed) gives a subset of the
 * truth: fewer devices or fewer figures, never a figure the whole reply does not have (a cut
 * "65536" read as "655"), and never a crash.
 */
static void
cut_anywhere(void **state)
{
	size_t r;

	(void)state;
	for (r = 0; r < ARRAY_LEN(recordings); r++) {
		struct sample_list full;
		size_t len, cut;
		char *text = load(recordings[r].file, &len);

		parse_file(recordings[r].vendor, recordings[r].file, &full);
		for (cut = 0; cut < len; cut++) {
			struct sample_list l;
			char *part = xmalloc(cut + 1);
			size_t i, k;

			/* A copy of exactly cut bytes, so that ASan sees any read past them. */
			memcpy(part, text, cut);
			if (parse(recordings[r].vendor, part, cut, &l, NULL, 0) != GR_OK)
				assert_int_equal(l.n, 0);
			for (i = 0; i < l.n; i++) {
				const struct gpu_sample *s = &l.v[i], *f = NULL;
				uint32_t both;

				for (k = 0; k < full.n; k++)
					if (full.v[k].index == s->index)
						f = &full.v[k];
				if (f == NULL)
					fail_msg("%s cut at %zu: device %d not in the whole reply",
					    recordings[r].file, cut, s->index);
				both = s->valid;
				if ((both & ~f->valid) != 0)
					fail_msg("%s cut at %zu: device %d knows 0x%x, whole 0x%x",
					    recordings[r].file, cut, s->index, s->valid, f->valid);
				if (both & MV_UTIL)
					assert_int_equal(s->util_pct, f->util_pct);
				if (both & MV_MEM) {
					assert_int_equal(s->mem_used_mib, f->mem_used_mib);
					assert_int_equal(s->mem_total_mib, f->mem_total_mib);
				}
				if (both & MV_TEMP)
					assert_int_equal(s->temp_c, f->temp_c);
				if (both & MV_POWER)
					assert_int_equal(s->power_w, f->power_w);
				if (both & MV_POWER_LIMIT)
					assert_int_equal(s->power_limit_w, f->power_limit_w);
				if (both & MV_MEM_UTIL)
					assert_int_equal(s->mem_util_pct, f->mem_util_pct);
				if (both & MV_TEMP_MEM)
					assert_int_equal(s->temp_mem_c, f->temp_mem_c);
				sane(s);
			}
			sample_list_release(&l);
			free(part);
		}
		sample_list_release(&full);
		free(text);
	}
}

/* One device whose every figure is a word for "none": listed, every figure unknown. */
static const struct {
	const char *vendor, *text;
} all_unknown[] = {
	{ "amd", "{\"card0\": {\"Card Series\": \"AMD Instinct MI300X\", \"GPU use (%)\": \"N/A\","
	    " \"VRAM Total Memory (B)\": \"N/A\", \"VRAM Total Used Memory (B)\": \"\","
	    " \"Temperature (Sensor edge) (C)\": \"[Not Supported]\","
	    " \"Current Socket Graphics Package Power (W)\": \"[Unknown Error]\"}}\n" },
	{ "amd", "[{\"gpu\": 0, \"usage\": {\"gfx_activity\": \"N/A\", \"umc_activity\": "
	    "{\"value\": 5, \"unit\": \"GB\"}}, \"mem_usage\": {\"total_vram\": {\"value\": 8, "
	    "\"unit\": \"GB\"}, \"used_vram\": {\"value\": 1, \"unit\": \"GB\"}}, \"temperature\": "
	    "{\"edge\": \"N/A\", \"hotspot\": {\"value\": \"N/A\"}}, \"power\": {\"socket_power\": "
	    "null}}]\n" },
	{ "hygon", "{\"card0\": {\"Card Series\": \"K100_AI\", \"HCU use (%)\": \"N/A\","
	    " \"vram Total Memory (MiB)\": \"N/A\", \"vram Total Used Memory (MiB)\": \"N/A\","
	    " \"Temperature (Sensor edge) (C)\": \"0.0\","
	    " \"Average Graphics Package Power (W)\": \"N/A\"}}\n" },
	{ "ascend", "gpurent-npu: 0\n        NPU Utilization(%) : NA\n"
	    "        HBM Capacity(MB) : NA\n        HBM Usage Rate(%) : 5\n"
	    "        NPU Real-time Power(W) : NA\n        NPU Temperature (C) : -\n"
	    "        PCIe Bus Info : 0000:C1:00.0\ngpurent-npu-end: 0\n" },
	{ "ascend", "| 0     910B1               | OK            | NA          NA                0    / 0             |\n"
	    "| 0                         | 0000:C1:00.0  | NA          NA / NA       NA / NA              |\n" },
	{ "iluvatar", "index, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%], "
	    "temperature.gpu, power.draw [W]\n0, Iluvatar BI-V150, [N/A], [N/A], [Not Supported], "
	    "N/A, [Unknown Error]\n" },
	{ "mthreads", "GPU 00000000:2a:00.0\n    Product Name : MTT S4000\n    FB Memory Usage\n"
	    "        Total : N/A\n        Used : N/A\n    Utilization\n        Gpu : N/A\n"
	    "    Temperature\n        GPU Current Temp : N/A\n    Power Readings\n"
	    "        Power Draw : N/A\n" },
	{ "cambricon", "{\"CnmonInfo\": [{\"CardNum\": 0, \"ProductName\": \"MLU370-X8\","
	    " \"PhysicalMemUsage\": {\"Total\": \"N/A\", \"Used\": null},"
	    " \"Temperature\": {\"Chip\": \"N/A\"}, \"Utilization\": {\"MLUAverage\": \"-\"}}]}\n" },
	{ "metax", "| 0           MetaX C500             | 0000:0e:00.0        | N/A                  |\n"
	    "| N/A         N/A / N/A              | N/A                 |                      |\n" },
};

static void
unknown_stays_unknown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(all_unknown); i++) {
		struct sample_list l;
		char msg[512];

		if (parse(all_unknown[i].vendor, all_unknown[i].text, strlen(all_unknown[i].text),
		    &l, msg, sizeof(msg)) != GR_OK)
			fail_msg("%s case %zu: %s", all_unknown[i].vendor, i, msg);
		assert_int_equal(l.n, 1);
		/* Nothing known: not one made-up zero. */
		if (l.v[0].valid != 0)
			fail_msg("%s case %zu: valid 0x%x", all_unknown[i].vendor, i, l.v[0].valid);
		sample_list_release(&l);
	}
}

/* Numbers no device has: negative, huge, overflowing, with a second number or junk. */
static const struct {
	const char *vendor, *text;
} absurd[] = {
	{ "amd", "{\"card0\": {\"Card Series\": \"x\", \"GPU use (%)\": \"-5\","
	    " \"VRAM Total Memory (B)\": \"99999999999999999999999\","
	    " \"VRAM Total Used Memory (B)\": \"-1\", \"Temperature (Sensor edge) (C)\": \"1e9\","
	    " \"Current Socket Graphics Package Power (W)\": \"1000000.0\","
	    " \"Max Graphics Package Power (W)\": \"0x10\", \"Fan speed (%)\": \"101\"}}\n" },
	{ "hygon", "{\"card0\": {\"Card Series\": \"x\", \"DCU use (%)\": \"12.5.1\","
	    " \"vram Total Memory (MiB)\": \"65520\", \"vram Total Used Memory (MiB)\": \"70000\","
	    " \"Temperature (Sensor edge) (C)\": \"-40.0\","
	    " \"Average Graphics Package Power (W)\": \"77.0 kW\"}}\n" },
	{ "ascend", "0 0 0 x\ngpurent-npu: 0\n  NPU Utilization(%) : 250\n"
	    "  HBM Capacity(MB) : 99999999999999999\n  HBM Usage Rate(%) : 5\n"
	    "  NPU Real-time Power(W) : -3\n  NPU Temperature (C) : 4000\n"
	    "gpurent-npu-end: 0\n" },
	{ "iluvatar", "0, x, -16384 MiB, 116 MiB, 120 %, 99999999999999999999 C\n" },
	{ "mthreads", "GPU 0\n    Product Name : x\n    FB Memory Usage\n        Total : 1 2 MiB\n"
	    "        Used : 5MiB\n    Utilization\n        Gpu : -0.7%\n"
	    "    Temperature\n        GPU Current Temp : 300C\n    Power Readings\n"
	    "        Power Draw : 99999W\n" },
	{ "cambricon", "{\"CnmonInfo\": [{\"CardNum\": 0, \"ProductName\": \"x\","
	    " \"PhysicalMemUsage\": {\"Total\": 1e300, \"Used\": -1},"
	    " \"Temperature\": {\"Chip\": 1e999}, \"Utilization\": {\"MLUAverage\": -1}}]}\n" },
	{ "metax", "| 0           x             | 0000:0e:00.0        | 200%                 |\n"
	    "| -5C         -69W / 350000W             | 9/8 MiB      |                      |\n" },
};

static void
absurd_numbers_unknown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(absurd); i++) {
		struct sample_list l;
		char msg[512];

		if (parse(absurd[i].vendor, absurd[i].text, strlen(absurd[i].text), &l, msg,
		    sizeof(msg)) != GR_OK)
			fail_msg("%s case %zu: %s", absurd[i].vendor, i, msg);
		assert_int_equal(l.n, 1);
		if (l.v[0].valid != 0)
			fail_msg("%s case %zu: valid 0x%x", absurd[i].vendor, i, l.v[0].valid);
		assert_string_equal(l.v[0].name, "x");
		sample_list_release(&l);
	}
}

/* Names with terminal escapes: stripped before they can reach a terminal. */
static const struct {
	const char *vendor, *text, *name;
} escapes[] = {
	{ "amd", "{\"card0\": {\"Card Series\": \"\x1b[31mMI\x07" "300X\x1b]0;t\x07\", \"GPU use (%)\": \"5\"}}\n",
	  "[31mMI300X]0;t" },
	{ "hygon", "{\"card0\": {\"Card Series\": \"K100\x1b[2J_AI\", \"HCU use (%)\": \"5\"}}\n",
	  "K100[2J_AI" },
	{ "ascend", "0 0 0 Ascend \x1b[1m910B3\x9b\ngpurent-npu: 0\n  NPU Utilization(%) : 5\n"
	    "gpurent-npu-end: 0\n",
	  "Ascend [1m910B3?" },
	{ "iluvatar", "0, Iluvatar\x1b[K BI-V150\r, 16384 MiB, 116 MiB, 5 %, 30 C\n",
	  "Iluvatar[K BI-V150" },
	{ "mthreads", "GPU 0\n    Product Name : MTT\x08\x08\x08S4000\n    Utilization\n        Gpu : 5%\n",
	  "MTTS4000" },
	{ "cambricon", "{\"CnmonInfo\": [{\"CardNum\": 0, \"ProductName\": \"MLU\\u001b[5m370\","
	    " \"Utilization\": {\"MLUAverage\": 5}}]}\n", "MLU[5m370" },
	{ "metax", "| 0           MetaX\x1b[7m C500             | 0000:0e:00.0        | 5%                   |\n",
	  "MetaX[7m C500" },
};

static void
escapes_stripped(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(escapes); i++) {
		struct sample_list l;
		char msg[512];

		if (parse(escapes[i].vendor, escapes[i].text, strlen(escapes[i].text), &l, msg,
		    sizeof(msg)) != GR_OK)
			fail_msg("%s case %zu: %s", escapes[i].vendor, i, msg);
		assert_int_equal(l.n, 1);
		assert_string_equal(l.v[0].name, escapes[i].name);
		assert_true(l.v[0].valid & MV_UTIL);
		assert_int_equal(l.v[0].util_pct, 5);
		sane(&l.v[0]);
		sample_list_release(&l);
	}
}

/*
 * Precedence between keys that say the same thing does not depend on their order: npu-smi's
 * NPU Utilization over the AI cores' figure; rocm-smi's first real product name over a
 * "Card Series" of N/A; a unique id over a bus id; a bracketed nvidia-smi style message is no
 * uuid or driver (the bus id stands in).
 */
static void
precedence_any_order(void **state)
{
	static const char npu[] = "gpurent-npu: 0\n  NPU Utilization(%) : 61\n"
	    "  Aicore Usage Rate(%) : 50\ngpurent-npu-end: 0\n";
	static const char rsmi[] = "{\"card0\": {\"Device Name\": \"Instinct MI300X\", "
	    "\"Card Series\": \"N/A\", \"PCI Bus\": \"0000:0C:00.0\", \"Unique ID\": \"0x1\", "
	    "\"GPU use (%)\": \"3\"}, \"card1\": {\"Card Series\": \"N/A\", "
	    "\"Device Name\": \"Instinct MI300X\", \"PCI Bus\": \"0000:22:00.0\", "
	    "\"GPU use (%)\": \"4\"}}\n";
	static const char amdsmi[] = "{\"gpu_data\": [{\"gpu\": 0, \"temperature\": "
	    "{\"edge\": \"N/A\", \"hotspot\": {\"value\": 61, \"unit\": \"C\"}}}]}\n";
	static const char csv[] = "index, name, uuid, driver_version, utilization.gpu [%], "
	    "pci.bus_id\n0, Iluvatar BI-V150, [Not Supported], [N/A], 5 %, 00000000:1A:00.0\n";
	struct sample_list l;

	(void)state;
	assert_int_equal(parse("ascend", npu, strlen(npu), &l, NULL, 0), GR_OK);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].util_pct, 61);
	sample_list_release(&l);
	assert_int_equal(parse("amd", rsmi, strlen(rsmi), &l, NULL, 0), GR_OK);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].name, "Instinct MI300X");
	assert_string_equal(l.v[1].name, "Instinct MI300X");
	/* The unique id where there is one, before or after the bus id; else the bus id. */
	assert_string_equal(l.v[0].uuid, "0x1");
	assert_string_equal(l.v[1].uuid, "0000:22:00.0");
	sample_list_release(&l);
	/* amd-smi on an MI300X: no edge sensor, the junction (hotspot) temperature. */
	assert_int_equal(parse("amd", amdsmi, strlen(amdsmi), &l, NULL, 0), GR_OK);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].valid, MV_TEMP);
	assert_int_equal(l.v[0].temp_c, 61);
	sample_list_release(&l);
	assert_int_equal(parse("iluvatar", csv, strlen(csv), &l, NULL, 0), GR_OK);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].uuid, "00000000:1A:00.0");
	assert_string_equal(l.v[0].driver, "");
	assert_int_equal(l.v[0].util_pct, 5);
	sample_list_release(&l);
}

/* More devices than any machine: the first PF_MAX_DEVICES (64) are kept, nothing breaks. */
static void
too_many_devices(void **state)
{
	struct sb sb;
	size_t v;
	int i;

	(void)state;
	for (v = 0; v < ARRAY_LEN(vendor_names); v++) {
		const char *name = vendor_names[v];
		struct sample_list l;
		char msg[512];

		sb_init(&sb);
		if (strcmp(name, "cambricon") == 0)
			sb_adds(&sb, "{\"CnmonInfo\": [");
		else if (strcmp(name, "amd") == 0 || strcmp(name, "hygon") == 0)
			sb_adds(&sb, "{");
		for (i = 0; i < 1000; i++) {
			if (strcmp(name, "amd") == 0 || strcmp(name, "hygon") == 0)
				sb_addf(&sb, "%s\"card%d\": {\"GPU use (%%)\": \"%d\", "
				    "\"DCU use (%%)\": \"%d\"}\n", i ? "," : "", i, i % 100, i % 100);
			else if (strcmp(name, "ascend") == 0)
				sb_addf(&sb, "gpurent-npu: %d\n  NPU Utilization(%%) : %d\n"
				    "gpurent-npu-end: %d\n", i, i % 100, i);
			else if (strcmp(name, "iluvatar") == 0 || strcmp(name, "mthreads") == 0)
				sb_addf(&sb, "%d, x, 16384 MiB, 116 MiB, %d %%, 30 C\n", i, i % 100);
			else if (strcmp(name, "cambricon") == 0)
				sb_addf(&sb, "%s{\"CardNum\": %d, \"Utilization\": {\"MLUAverage\": %d}}",
				    i ? "," : "", i, i % 100);
			else
				sb_addf(&sb, "| %d  x | 0000:%02x:00.0 | %d%% |\n| 30C 1W / 2W | 1/2 MiB | |\n",
				    i, i % 256, i % 100);
		}
		if (strcmp(name, "cambricon") == 0)
			sb_adds(&sb, "]}\n");
		else if (strcmp(name, "amd") == 0 || strcmp(name, "hygon") == 0)
			sb_adds(&sb, "}\n");
		if (parse(name, sb.buf, sb.len, &l, msg, sizeof(msg)) != GR_OK)
			fail_msg("%s: %s", name, msg);
		assert_int_equal(l.n, 64);
		assert_int_equal(l.v[63].index, 63);
		sample_list_release(&l);
		sb_release(&sb);
	}
}

/* Appending to a list that holds another instance's samples leaves those alone. */
static void
appends_after_existing(void **state)
{
	size_t r;

	(void)state;
	for (r = 0; r < ARRAY_LEN(recordings); r++) {
		struct sample_list l;
		struct gr_error err = { 0 };
		struct gpu_sample *s;
		size_t len, i;
		char *text = load(recordings[r].file, &len);

		sample_list_init(&l);
		s = sample_list_add(&l);
		s->index = 0;
		s->util_pct = 77;
		s->valid = MV_UTIL;
		assert_int_equal(vendor(recordings[r].vendor)->parse(text, len, &l, &err), GR_OK);
		assert_true(l.n >= 2);
		assert_int_equal(l.v[0].util_pct, 77);
		assert_int_equal(l.v[0].valid, MV_UTIL);
		for (i = 1; i < l.n; i++)
			sane(&l.v[i]);
		/* And a failure after them removes only what it added: nothing. */
		assert_int_equal(vendor(recordings[r].vendor)->parse("junk\n", 5, &l, &err),
		    GR_EFAIL);
		sample_list_release(&l);
		free(text);
	}
}

/* The tools' own names map to the catalogue (issue 18 part 3's examples and rocm-smi's). */
static void
tool_names_in_catalogue(void **state)
{
	static const struct {
		const char *raw, *id;
	} names[] = {
		{ "910B3", "ASCEND-910B" }, { "Ascend 910B3", "ASCEND-910B" },
		{ "MTTS4000", "MTT-S4000" }, { "MTT S4000", "MTT-S4000" },
		{ "K100_AI", "HYGON-K100" }, { "AMD Instinct MI300X", "MI300X-192GB" },
		{ "AMD INSTINCT MI250 (MCM) OAM AC MBA", "MI250" }, { "MLU370-X8", "MLU370" },
		{ "Iluvatar BI-V150", "BI-V150" }, { "MetaX C500", "METAX-C500" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(names); i++) {
		const struct gpu_model *m = catalogue_resolve("smi", names[i].raw, 0);

		if (m == NULL || strcmp(m->id, names[i].id) != 0)
			fail_msg("%s: %s, not %s", names[i].raw, m ? m->id : "unknown", names[i].id);
	}
	/* A name the catalogue lacks stays unknown, never a guess. */
	assert_null(catalogue_resolve("smi", "310P3", 0));
	assert_null(catalogue_resolve("smi", "Z100L", 0));
}

/* Each vendor is in the registry with the tool that selects it and a command. */
static void
registry_lists_them(void **state)
{
	/* Each vendor's tools, the names its command runs in the order it tries them. */
	static const char *const tools[][PROBE_TOOLS_MAX + 1] = {
		{ "rocm-smi", "amd-smi" }, { "hy-smi" }, { "npu-smi" }, { "ixsmi" },
		{ "mthreads-gmi" }, { "cnmon" }, { "mx-smi" },
	};
	const struct probe_vendor *const *all = probe_vendors();
	size_t v, i, hygon = 0, amd = 0;

	(void)state;
	for (v = 0; v < ARRAY_LEN(vendor_names); v++) {
		const struct probe_vendor *p = vendor(vendor_names[v]);

		const char *prev = p->command;

		assert_non_null(p->command);
		for (i = 0; i <= PROBE_TOOLS_MAX; i++) {
			if (tools[v][i] == NULL) {
				assert_null(p->tools[i]);
				break;
			}
			assert_string_equal(p->tools[i], tools[v][i]);
			/* The command is ours: it runs its tools, in that order. */
			prev = strstr(prev, p->tools[i]);
			assert_non_null(prev);
		}
		assert_non_null(p->parse);
	}
	/* hy-smi is tried before rocm-smi: a Hygon machine has both. */
	for (i = 0; all[i] != NULL; i++) {
		if (strcmp(all[i]->name, "hygon") == 0)
			hygon = i + 1;
		if (strcmp(all[i]->name, "amd") == 0)
			amd = i + 1;
	}
	assert_true(hygon > 0 && amd > 0 && hygon < amd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(amd_mi250),
		cmocka_unit_test(amd_navi32),
		cmocka_unit_test(amd_mi300x_8),
		cmocka_unit_test(amdsmi_mi300x),
		cmocka_unit_test(amdsmi_list),
		cmocka_unit_test(hygon_z100l),
		cmocka_unit_test(hygon_k100ai),
		cmocka_unit_test(hygon_invalid_json_8),
		cmocka_unit_test(ascend_table_910b1),
		cmocka_unit_test(ascend_table_910b3_8),
		cmocka_unit_test(ascend_table_310p3),
		cmocka_unit_test(ascend_blocks_8),
		cmocka_unit_test(ascend_blocks_old_cann),
		cmocka_unit_test(iluvatar_noheader),
		cmocka_unit_test(iluvatar_8),
		cmocka_unit_test(mthreads_query_8),
		cmocka_unit_test(mthreads_csv_decimal_comma),
		cmocka_unit_test(cambricon_8),
		cmocka_unit_test(metax_c500_8),
		cmocka_unit_test(metax_n260),
		cmocka_unit_test(not_the_format),
		cmocka_unit_test(cut_anywhere),
		cmocka_unit_test(unknown_stays_unknown),
		cmocka_unit_test(absurd_numbers_unknown),
		cmocka_unit_test(escapes_stripped),
		cmocka_unit_test(precedence_any_order),
		cmocka_unit_test(too_many_devices),
		cmocka_unit_test(appends_after_existing),
		cmocka_unit_test(tool_names_in_catalogue),
		cmocka_unit_test(registry_lists_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
