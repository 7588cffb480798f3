/*
 * test_probe_xid.c - Xid errors from the kernel log (nvidia.c): the recorded lines of
 * tests/data/probes/kernel/, counted per bus by the probe's command itself (run by /bin/sh
 * over doubles of dmesg and journalctl) after nvidia-smi's rows, matched to their GPU by
 * PCI bus; the last Xid and the count since the loop began or since the point a resumed
 * loop was given (another boot: all of it); a storm on another GPU; what leaves them
 * unknown (no readable log, no bus id, no mark) and malformed, hostile or flooding lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "../tmpdir.h"

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
 * The kernel log part of a sample as the probe's command prints it, run for real by /bin/sh
 * (its awk counts the Xids per bus) with doubles of dmesg and journalctl that print the
 * recording `kernel` (under tests/data/probes/, or a path; klog "dmesg" or "journal": the
 * one that answers), nvidia-smi failing.
 * resume is the loop's $gr_resume: "BOOT@MARK" with BOOT this machine's boot when it is
 * "this@MARK", or NULL for a loop's first sample (no resume: count from the newest Xid).
 */
/* Short enough that every path made from it below fits its buffer. */
static char bindir[160];

static void
write_script(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", bindir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

static int
setup(void **state)
{
	(void)state;
	if (test_tmpdir_make(bindir, sizeof(bindir), "xid") != 0)
		return -1;
	write_script("dmesg", "#!/bin/sh\n[ \"$GR_TEST_KLOG\" = dmesg ] || exit 1\n"
	    "cat \"$GR_TEST_KMSG\"\n");
	write_script("journalctl", "#!/bin/sh\n[ \"$GR_TEST_KLOG\" = journal ] || exit 0\n"
	    "cat \"$GR_TEST_KMSG\"\n");
	write_script("nvidia-smi", "#!/bin/sh\nexit 1\n");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return test_tmpdir_remove(bindir);
}

static void
klog_part(struct sb *out, const char *klog, const char *kernel, const char *resume)
{
	char path[1024], boot[64] = "", buf[4096];
	const char *part;
	struct sb cmd, got;
	FILE *f;
	size_t n;

	if (kernel[0] == '/')
		snprintf(path, sizeof(path), "%s", kernel);
	else
		snprintf(path, sizeof(path), "%s/probes/%s", DATA_DIR, kernel);
	assert_int_equal(setenv("GR_TEST_KMSG", path, 1), 0);
	assert_int_equal(setenv("GR_TEST_KLOG", klog, 1), 0);
	snprintf(path, sizeof(path), "%s:/usr/bin:/bin", bindir);
	assert_int_equal(setenv("PATH", path, 1), 0);
	if ((f = fopen("/proc/sys/kernel/random/boot_id", "r")) != NULL) {
		if (fgets(boot, sizeof(boot), f) == NULL)
			boot[0] = '\0';
		boot[strcspn(boot, "\n")] = '\0';
		fclose(f);
	}
	sb_init(&cmd);
	if (resume != NULL && strncmp(resume, "this@", 5) == 0)
		sb_addf(&cmd, "gr_resume='%s@%s'; ", boot, resume + 5);
	else if (resume != NULL)
		sb_addf(&cmd, "gr_resume='%s'; ", resume);
	sb_adds(&cmd, probe_vendor_nvidia.command);
	f = popen(cmd.buf, "r");
	assert_non_null(f);
	sb_init(&got);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_add(&got, buf, n);
	assert_int_equal(pclose(f), 0);
	part = strstr(got.buf, "# klog=");
	if (part == NULL)
		fail_msg("no kernel log part in:\n%s", got.buf);
	sb_adds(out, part);
	sb_release(&got);
	sb_release(&cmd);
}

/* The rows of an nvidia-smi recording. */
static void
frame(struct sb *out, const char *nvidia)
{
	char *rows = load(nvidia);

	sb_init(out);
	sb_adds(out, rows);
	free(rows);
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
add_klog(struct sb *out, const char *kernel, const char *resume)
{
	klog_part(out, "dmesg", kernel, resume);
}

static void
test_pci_bus_id(void **state)
{
	struct sample_list l;
	struct sb t;

	(void)state;
	frame(&t, "nvidia/h100x8-pci.txt");
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
	/* A loop resumed after the Xid 31 (the last loop counted up to it): nine since. */
	add_klog(&t, "kernel/dmesg-chia-gigahorse-301.txt", "this@14328.198504");
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
	add_klog(&t, "kernel/dmesg-chia-gigahorse-301.txt", "this@0");
	parse(&t, &l);
	assert_int_equal(l.v[0].xid, 45);
	assert_int_equal(l.v[0].xid_count, 10);
	sample_list_release(&l);
	sb_release(&t);

	/* Resumed after a reboot (another boot's mark): the new boot's log is all new. */
	one_gpu_at(&t, "0A");
	add_klog(&t, "kernel/dmesg-chia-gigahorse-301.txt",
	    "00000000-1111-2222-3333-444444444444@99999.5");
	parse(&t, &l);
	assert_int_equal(l.v[0].xid_count, 10);
	sample_list_release(&l);
	sb_release(&t);

	/* A loop's first sample, or a resume point that is no time: none counted yet. */
	one_gpu_at(&t, "0A");
	add_klog(&t, "kernel/dmesg-chia-gigahorse-301.txt", NULL);
	parse(&t, &l);
	assert_true(l.v[0].valid & MV_XID_COUNT);
	assert_int_equal(l.v[0].xid, 45);
	assert_int_equal(l.v[0].xid_count, 0);
	sample_list_release(&l);
	sb_release(&t);
	one_gpu_at(&t, "0A");
	add_klog(&t, "kernel/dmesg-chia-gigahorse-301.txt", "this@soon");
	parse(&t, &l);
	assert_int_equal(l.v[0].xid_count, 0);
	sample_list_release(&l);
	sb_release(&t);

	/* Began after the last: the last is still reported, none counted. */
	one_gpu_at(&t, "0A");
	add_klog(&t, "kernel/dmesg-chia-gigahorse-301.txt", "this@14397.322674");
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
	frame(&t, "nvidia/h100x8-pci.txt");
	add_klog(&t, "kernel/dmesg-tinygrad-6947.txt", "this@0");
	parse(&t, &l);
	for (size_t i = 0; i < l.n; i++) {
		assert_true(l.v[i].valid & MV_XID);
		assert_int_equal(l.v[i].xid, 0);
		assert_int_equal(l.v[i].xid_count, 0);
	}
	sample_list_release(&l);
	sb_release(&t);

	one_gpu_at(&t, "01");
	add_klog(&t, "kernel/dmesg-tinygrad-6947.txt", "this@22859.081860");
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
		klog_part(&t, "journal", "kernel/journal-open-gpu-kernel-modules-1150.txt",
		    "this@0");
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
	add_klog(&t, "kernel/dmesg-ctime-gpud-46.txt", "this@0");
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
	add_klog(&t, "kernel/dmesg-old-driver-gpud.txt", "this@0");
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
	frame(&t, "nvidia/h100x8-pci.txt");
	sb_adds(&t, "# klog=none\n");
	parse(&t, &l);
	assert_false(l.v[0].valid & (MV_XID | MV_XID_COUNT));
	sample_list_release(&l);
	sb_release(&t);

	/* A hostile "# xid" line without a readable log is not believed. */
	one_gpu_at(&t, "0A");
	sb_adds(&t, "# klog=none\n# xid_mark=0\n# xid_count 0000:0a:00 5\n"
	    "# xid [1.0] NVRM: Xid (PCI:0000:0a:00): 79, forged\n");
	parse(&t, &l);
	assert_false(l.v[0].valid & (MV_XID | MV_XID_COUNT));
	sample_list_release(&l);
	sb_release(&t);

	/* Rows without pci.bus_id: which Xid is whose is unknown. */
	frame(&t, "nvidia/h100x8.txt");
	add_klog(&t, "kernel/dmesg-chia-gigahorse-301.txt", "this@0");
	parse(&t, &l);
	assert_false(l.v[0].valid & (MV_XID | MV_XID_COUNT));
	sample_list_release(&l);
	sb_release(&t);

	/* No mark, or a mark that is no time: the last Xid, but no count. */
	one_gpu_at(&t, "0A");
	sb_adds(&t, "# klog=dmesg\n# xid_count 0000:0a:00 5\n"
	    "# xid [1.0] NVRM: Xid (PCI:0000:0a:00): 79, x\n");
	parse(&t, &l);
	assert_true(l.v[0].valid & MV_XID);
	assert_false(l.v[0].valid & MV_XID_COUNT);
	sample_list_release(&l);
	sb_release(&t);
	one_gpu_at(&t, "0A");
	sb_adds(&t, "# klog=dmesg\n# xid_mark=soon\n# xid_count 0000:0a:00 5\n");
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
	add_klog(&t, "kernel/dmesg-hostile.txt", "this@100.0");
	parse(&t, &l);
	/* 79 and 94 are well formed and after the start; 43's time is absurd (unknown). */
	assert_int_equal(l.v[0].xid, 94);
	assert_int_equal(l.v[0].xid_count, 2);
	sample_list_release(&l);
	sb_release(&t);

	/* A bad pci.bus_id is no bus id. */
	sb_init(&t);
	sb_adds(&t, "# fields=index,name,pci.bus_id\n0, X, 0000:3a\x1b[2J:00.0\n"
	    "# klog=dmesg\n# xid_mark=0\n# xid_count 0000:3a:00 1\n"
	    "# xid [1.0] NVRM: Xid (PCI:0000:3a:00): 79, x\n");
	parse(&t, &l);
	assert_string_equal(l.v[0].pci_bus_id, "");
	assert_false(l.v[0].valid & MV_XID);
	sample_list_release(&l);
	sb_release(&t);

	/* A flood of Xid lines: the newest is the last, nothing overflows. */
	one_gpu_at(&t, "0A");
	sb_adds(&t, "# klog=journal\n# xid_mark=0\n");
	for (int i = 0; i < 5000; i++)
		sb_addf(&t, "# xid [%d.5] x kernel: NVRM: Xid (PCI:0000:0a:00): %d, y\n", i + 1,
		    i % 200 + 1);
	parse(&t, &l);
	assert_int_equal(l.v[0].xid, 4999 % 200 + 1);
	assert_int_equal(l.v[0].xid_count, 0);
	sample_list_release(&l);
	sb_release(&t);

	/*
	 * A flood of counts for other buses before this GPU's: at most 256 buses are kept,
	 * so this one's is lost and reads 0 (no command of ours sends more than 64); one
	 * for this bus among the first: kept.
	 */
	one_gpu_at(&t, "0A");
	sb_adds(&t, "# klog=dmesg\n# xid_mark=1.5\n# xid_count 0000:0a:00 7\n");
	for (int i = 0; i < 5000; i++)
		sb_addf(&t, "# xid_count %04x:%02x:00 %d\n", i / 256 + 1, i % 256, i);
	parse(&t, &l);
	assert_int_equal(l.v[0].xid_count, 7);
	sample_list_release(&l);
	sb_release(&t);
}

/* Malformed "# xid_count" lines: skipped; a bus named twice keeps its higher count. */
static void
test_count_lines(void **state)
{
	static const char *const bad[] = {
		"# xid_count 0000:0a:00 -5\n", "# xid_count 0000:0a:00 1234567890\n",
		"# xid_count 0000:0a:00 7x\n", "# xid_count 0000:0a:00\n",
		"# xid_count 0000:0a:00  7\n", "# xid_count zzzz:0a:00 7\n",
		"# xid_count 0000:0a:99 7\n", "# xid_count 0000:0a:00 7 8\n",
		"# xid_count 0000:0a:00 \x1b[2J7\n", "# xid_count\n",
	};
	struct sample_list l;
	struct sb t;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		one_gpu_at(&t, "0A");
		sb_adds(&t, "# klog=dmesg\n# xid_mark=3.25\n");
		sb_adds(&t, bad[i]);
		parse(&t, &l);
		assert_true(l.v[0].valid & MV_XID_COUNT);
		if (l.v[0].xid_count != 0)
			fail_msg("'%s' read as %d", bad[i], l.v[0].xid_count);
		sample_list_release(&l);
		sb_release(&t);
	}
	one_gpu_at(&t, "0A");
	sb_adds(&t, "# klog=dmesg\n# xid_mark=3.25\n# xid_count 0000:0a:00 4\n"
	    "# xid_count 0000:0A:00.0 9\n# xid_count 0:a:0 2\n# xid_count 0000:0b:00 50\n");
	parse(&t, &l);
	assert_int_equal(l.v[0].xid_count, 9);
	sample_list_release(&l);
	sb_release(&t);
}

/*
 * The command counts per bus over the whole log: a storm of 300 Xids on another GPU (more
 * than a sample ever carried as lines) leaves this GPU's count and last Xid as they were,
 * and is counted in full itself.
 */
static void
test_storm_on_another_gpu(void **state)
{
	char path[300], *chia = load("kernel/dmesg-chia-gigahorse-301.txt");
	struct sample_list l;
	struct sb t;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/storm.txt", bindir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(chia, f);
	for (int i = 1; i <= 300; i++)
		fprintf(f, "[20000.%06d] NVRM: Xid (PCI:0000:3b:00): 13, Graphics SM Warp "
		    "Exception on (GPC 0, TPC 0, SM 0)\n", i);
	fclose(f);
	free(chia);
	sb_init(&t);
	sb_adds(&t, "# fields=index,pci.bus_id\n0, 00000000:0A:00.0\n1, 00000000:3B:00.0\n");
	klog_part(&t, "dmesg", path, "this@0");
	parse(&t, &l);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.v[0].xid, 45);
	assert_int_equal(l.v[0].xid_count, 10);
	assert_int_equal(l.v[1].xid, 13);
	assert_int_equal(l.v[1].xid_count, 300);
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
		cmocka_unit_test(test_count_lines),
		cmocka_unit_test(test_storm_on_another_gpu),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
