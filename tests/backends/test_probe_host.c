/*
 * test_probe_host.c - the host probe's parser on tests/data/probes/host/, field by field, and
 * its fixed command run here, on this machine's own /proc (the same files an instance has).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpurent/probe.h"
#include "gpurent/util.h"
#include "tdata.h"

static enum gr_err
parse_file(const char *name, struct host_sample *h)
{
	struct gr_error err = { 0 };
	size_t len;
	char *b = tdata(name, &len);
	enum gr_err rc = probe_host_parse(b, len, h, &err);

	free(b);
	return rc;
}

static void
test_full(void **state)
{
	struct host_sample h;

	(void)state;
	assert_int_equal(parse_file("probes/host/lambda-8xh100.txt", &h), GR_OK);
	assert_int_equal(h.valid, HV_CPU | HV_LOAD | HV_MEM | HV_DISK | HV_NET);
	assert_int_equal(h.cpu_pct, 37);
	assert_int_equal(h.load1_centi, 1247);
	assert_int_equal(h.mem_total_mib, 2113389332 / 1024);
	assert_int_equal(h.mem_used_mib, (2113389332 - 1874210044) / 1024);
	assert_int_equal(h.disk_total_mib, 25945620992LL / 1024);
	assert_int_equal(h.disk_used_mib, 2147483648LL / 1024);
	/* every interface but lo */
	assert_int_equal(h.net_rx_bytes, 48213380192LL);
	assert_int_equal(h.net_tx_bytes, 1928374650LL + 1204);
}

static void
test_first_sample(void **state)
{
	struct host_sample h;

	(void)state;
	assert_int_equal(parse_file("probes/host/first-sample.txt", &h), GR_OK);
	assert_false(h.valid & HV_CPU);		/* no earlier counters to compare */
	assert_false(h.valid & HV_NET);		/* only lo */
	assert_int_equal(h.load1_centi, 0);
	assert_true(h.valid & HV_LOAD);
	assert_int_equal(h.mem_total_mib, 8039360 / 1024);
	assert_int_equal(h.mem_used_mib, (8039360 - 7421060) / 1024);
	assert_int_equal(h.disk_total_mib, 61255492 / 1024);
	assert_int_equal(h.disk_used_mib, 9234412 / 1024);
}

static void
test_hostile(void **state)
{
	struct host_sample h;
	struct gr_error err = { 0 };

	(void)state;
	/* Every line is out of range or malformed: nothing is read, and that is an error. */
	assert_int_equal(parse_file("probes/host/hostile.txt", &h), GR_EFAIL);
	assert_int_equal(h.valid, 0);
	assert_int_equal(probe_host_parse("", 0, &h, &err), GR_EFAIL);
	assert_int_equal(probe_host_parse("\x1b[2J\n\0load 1.00\n", 16, &h, &err), GR_EFAIL);
	assert_int_equal(probe_host_parse("load 1.5", 8, &h, &err), GR_OK);
	assert_int_equal(h.load1_centi, 150);
}

/* The command, run by sh on this machine twice in one shell as the sampler's loop runs it. */
static void
test_command_here(void **state)
{
	struct host_sample h;
	struct gr_error err = { 0 };
	struct sb out;
	char buf[4096], path[] = "/tmp/gpurent-host-probe-XXXXXX";
	size_t n;
	FILE *p, *script;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	script = fdopen(fd, "w");
	assert_non_null(script);
	fprintf(script, "{ %s; } >/dev/null\nsleep 0.2\n%s\n", probe_host_command,
	    probe_host_command);
	fclose(script);
	snprintf(buf, sizeof(buf), "sh %s", path);
	p = popen(buf, "r");
	assert_non_null(p);
	sb_init(&out);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		sb_add(&out, buf, n);
	unlink(path);
	assert_int_equal(pclose(p), 0);
	assert_int_equal(probe_host_parse(out.buf, out.len, &h, &err), GR_OK);
	assert_true(h.valid & HV_LOAD);
	assert_true(h.valid & HV_MEM);
	assert_true(h.valid & HV_DISK);
	assert_true(h.mem_total_mib > 0);
	assert_true(h.mem_used_mib <= h.mem_total_mib);
	assert_true(h.disk_used_mib <= h.disk_total_mib);
	sb_release(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_first_sample),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_command_here),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
