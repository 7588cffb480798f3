/*
 * test_probe_xid.c - Xid errors from the kernel log (nvidia.c): the recorded lines of
 * tests/data/probes/kernel/, as the probe's command frames them after nvidia-smi's rows,
 * matched to their GPU by PCI bus; the last Xid and the count since the loop began; what
 * leaves them unknown (no readable log, no bus id) and malformed or hostile lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpurent/probe.h"
#include "gpurent/util.h"

static char *
load(const char *rel)
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
	return buf;
}

/*
 * What the probe's command prints: the rows of an nvidia-smi recording, then "# klog=",
 * "# xid_since=" and the Xid lines of a kernel log recording (grep -F 'NVRM: Xid'), each
 * after "# xid ".
 */
static void
frame(struct sb *out, const char *nvidia, const char *klog, const char *kernel,
    const char *since)
{
	char *rows = load(nvidia);

	sb_init(out);
	sb_adds(out, rows);
	free(rows);
	if (klog != NULL)
		sb_addf(out, "# klog=%s\n", klog);
	if (since != NULL)
		sb_addf(out, "# xid_since=%s\n", since);
	if (kernel != NULL) {
		char *log = load(kernel), *line, *nl;

		for (line = log; *line != '\0'; line = *nl != '\0' ? nl + 1 : nl) {
			const char *mark = strstr(line, "NVRM: Xid");

			if ((nl = strchr(line, '\n')) == NULL)
				nl = line + strlen(line);
			if (mark != NULL && mark < nl)
				sb_addf(out, "# xid %.*s\n", (int)(nl - line), line);
		}
		free(log);
	}
}

static void
parse(const struct sb *text, struct sample_list *l)
{
	struct gr_error err = { 0 };

	sample_list_init(l);
	assert_int_equal(probe_vendor_nvidia.parse(text->buf, text->len, l, &err), GR_OK);
}

/* A one-GPU recording moved to bus bus ("0A"): single-rtx4000 with a pci.bus_id column. */
static void
one_gpu_at(struct sb *out, const char *bus)
{
	char *rows = load("nvidia/single-rtx4000.txt"), *line = rows, *nl;

	sb_init(out);
	for (; *line != '\0'; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		*nl = '\0';
		if (strncmp(line, "# fields=", 9) == 0)
			sb_addf(out, "%s,pci.bus_id\n", line);
		else if (line[0] == '#' || line[0] == '\0')
			sb_addf(out, "%s\n", line);
		else
			sb_addf(out, "%s, 00000000:%s:00.0\n", line, bus);
	}
	free(rows);
}

static void
add_klog(struct sb *out, const char *kernel, const char *since)
{
	struct sb tail;

	frame(&tail, "nvidia/h100x8.txt", "dmesg", kernel, since);
	/* Only the part after the rows: the h100x8 rows are cut off at "# klog=". */
	sb_adds(out, strstr(tail.buf, "# klog="));
	sb_release(&tail);
}

static void
test_pci_bus_id(void **state)
{
	struct sample_list l;
	struct sb t;

	(void)state;
	frame(&t, "nvidia/h100x8-pci.txt", NULL, NULL, NULL);
	parse(&t, &l);
	assert_int_equal(l.n, 8);
	assert_string_equal(l.v[0].pci_bus_id, "00000000:18:00.0");
	assert_string_equal(l.v[7].pci_bus_id, "00000000:DB:00.0");
	/* No kernel log part: the Xid figures are unknown, not 0. */
	assert_false(l.v[0].valid & (MV_XID | MV_XID_COUNT));
	sample_list_release(&l);
	sb_release(&t);
}

/* chia-gigahorse #301: an Xid 31, then a 62 and eight 45s, on the GPU at 0a:00. */
static void
test_chia_last_and_count(void **state)
{
	struct sample_list l;
	struct sb t;

	(void)state;
	one_gpu_at(&t, "0A");
	/* The loop began after the Xid 31 (its time is xid_since): nine since. */
	add_klog(&t, "kernel/dmesg-chia-gigahorse-301.txt", "14328.198504");
	parse(&t, &l);
	assert_int_equal(l.n, 1);
	assert_true(l.v[0].valid & MV_XID);
	assert_true(l.v[0].valid & MV_XID_COUNT);
	assert_int_equal(l.v[0].xid, 45);
	assert_int_equal(l.v[0].xid_count, 9);
	sample_list_release(&l);
	sb_release(&t);

	/* Began before any of them: all ten count. */
	one_gpu_at(&t, "0a");
	add_klog(&t, "kernel/dmesg-chia-gigahorse-301.txt", "0");
	parse(&t, &l);
	assert_int_equal(l.v[0].xid, 45);
	assert_int_equal(l.v[0].xid_count, 10);
	sample_list_release(&l);
	sb_release(&t);

	/* Began after the last: the last is still reported, none counted. */
	one_gpu_at(&t, "0A");
	add_klog(&t, "kernel/dmesg-chia-gigahorse-301.txt", "14397.322674");
	parse(&t, &l);
	assert_int_equal(l.v[0].xid, 45);
	assert_int_equal(l.v[0].xid_count, 0);
	sample_list_release(&l);
	sb_release(&t);
}

/* Another GPU's Xids are not this one's; a readable log without any says 0. */
static void
test_other_bus_is_zero(void **state)
{
	struct sample_list l;
	struct sb t;

	(void)state;
	frame(&t, "nvidia/h100x8-pci.txt", "dmesg", "kernel/dmesg-tinygrad-6947.txt", "0");
	parse(&t, &l);
	for (size_t i = 0; i < l.n; i++) {
		assert_true(l.v[i].valid & MV_XID);
		assert_int_equal(l.v[i].xid, 0);
		assert_int_equal(l.v[i].xid_count, 0);
	}
	sample_list_release(&l);
	sb_release(&t);

	one_gpu_at(&t, "01");
	add_klog(&t, "kernel/dmesg-tinygrad-6947.txt", "22859.081860");
	parse(&t, &l);
	assert_int_equal(l.v[0].xid, 31);
	assert_int_equal(l.v[0].xid_count, 1);
	sample_list_release(&l);
	sb_release(&t);
}

/* journalctl -k -o short-monotonic: the host and "kernel:" before NVRM. */
static void
test_journal(void **state)
{
	static const char *const buses[] = { "97", "BA", "DC", "ED", "18" };
	static const int want[] = { 45, 45, 45, 45, 0 };
	static const int count[] = { 1, 1, 2, 1, 0 };
	struct sample_list l;
	struct sb t;

	(void)state;
	for (size_t i = 0; i < 5; i++) {
		one_gpu_at(&t, buses[i]);
		add_klog(&t, "kernel/journal-open-gpu-kernel-modules-1150.txt", "0");
		parse(&t, &l);
		assert_int_equal(l.v[0].xid, want[i]);
		assert_int_equal(l.v[0].xid_count, count[i]);
		sample_list_release(&l);
		sb_release(&t);
	}
}

/* dmesg --ctime stamps are no monotonic time: the last Xid is known, none is counted. */
static void
test_ctime_not_counted(void **state)
{
	struct sample_list l;
	struct sb t;

	(void)state;
	one_gpu_at(&t, "CB");
	add_klog(&t, "kernel/dmesg-ctime-gpud-46.txt", "0");
	parse(&t, &l);
	assert_int_equal(l.v[0].xid, 109);
	assert_int_equal(l.v[0].xid_count, 0);
	sample_list_release(&l);
	sb_release(&t);
}

/* The older drivers' "NVRM: Xid (0000:03:00): 14" without "PCI:". */
static void
test_old_format(void **state)
{
	struct sample_list l;
	struct sb t;

	(void)state;
	one_gpu_at(&t, "03");
	add_klog(&t, "kernel/dmesg-old-driver-gpud.txt", "0");
	parse(&t, &l);
	assert_int_equal(l.v[0].xid, 14);
	assert_int_equal(l.v[0].xid_count, 1);
	sample_list_release(&l);
	sb_release(&t);
}

/* No readable log, no bus id, or no start time: unknown, never 0. */
static void
test_unknown(void **state)
{
	struct sample_list l;
	struct sb t;

	(void)state;
	frame(&t, "nvidia/h100x8-pci.txt", "none", NULL, "0");
	parse(&t, &l);
	assert_false(l.v[0].valid & (MV_XID | MV_XID_COUNT));
	sample_list_release(&l);
	sb_release(&t);

	/* A hostile "# xid" line without a readable log is not believed. */
	one_gpu_at(&t, "0A");
	sb_adds(&t, "# klog=none\n# xid_since=0\n"
	    "# xid [1.0] NVRM: Xid (PCI:0000:0a:00): 79, forged\n");
	parse(&t, &l);
	assert_false(l.v[0].valid & (MV_XID | MV_XID_COUNT));
	sample_list_release(&l);
	sb_release(&t);

	/* Rows without pci.bus_id: which Xid is whose is unknown. */
	frame(&t, "nvidia/h100x8.txt", "dmesg", "kernel/dmesg-chia-gigahorse-301.txt", "0");
	parse(&t, &l);
	assert_false(l.v[0].valid & (MV_XID | MV_XID_COUNT));
	sample_list_release(&l);
	sb_release(&t);

	/* A start time that is no number: the last Xid, but no count. */
	one_gpu_at(&t, "0A");
	add_klog(&t, "kernel/dmesg-chia-gigahorse-301.txt", "soon");
	parse(&t, &l);
	assert_true(l.v[0].valid & MV_XID);
	assert_false(l.v[0].valid & MV_XID_COUNT);
	sample_list_release(&l);
	sb_release(&t);
}

/* Malformed and hostile lines: skipped, each on its own; the good ones still count. */
static void
test_hostile(void **state)
{
	struct sample_list l;
	struct sb t;

	(void)state;
	one_gpu_at(&t, "3A");
	add_klog(&t, "kernel/dmesg-hostile.txt", "100.0");
	parse(&t, &l);
	/* 79 and 94 are well formed and after the start; 43's time is absurd (unknown). */
	assert_int_equal(l.v[0].xid, 94);
	assert_int_equal(l.v[0].xid_count, 2);
	sample_list_release(&l);
	sb_release(&t);

	/* A bad pci.bus_id is no bus id. */
	sb_init(&t);
	sb_adds(&t, "# fields=index,name,pci.bus_id\n0, X, 0000:3a\x1b[2J:00.0\n"
	    "# klog=dmesg\n# xid_since=0\n# xid [1.0] NVRM: Xid (PCI:0000:3a:00): 79, x\n");
	parse(&t, &l);
	assert_string_equal(l.v[0].pci_bus_id, "");
	assert_false(l.v[0].valid & MV_XID);
	sample_list_release(&l);
	sb_release(&t);

	/* A flood of Xid lines: the newest are kept, nothing overflows. */
	one_gpu_at(&t, "0A");
	sb_adds(&t, "# klog=journal\n# xid_since=0\n");
	for (int i = 0; i < 5000; i++)
		sb_addf(&t, "# xid [%d.5] x kernel: NVRM: Xid (PCI:0000:0a:00): %d, y\n", i + 1,
		    i % 200 + 1);
	parse(&t, &l);
	assert_int_equal(l.v[0].xid, 4999 % 200 + 1);
	assert_int_equal(l.v[0].xid_count, 256);
	sample_list_release(&l);
	sb_release(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pci_bus_id),
		cmocka_unit_test(test_chia_last_and_count),
		cmocka_unit_test(test_other_bus_is_zero),
		cmocka_unit_test(test_journal),
		cmocka_unit_test(test_ctime_not_counted),
		cmocka_unit_test(test_old_format),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
