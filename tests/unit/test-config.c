#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../tmpdir.h"

#include "gpurent/config.h"
#include "gpurent/paths.h"
#include "gpurent/watch.h"

/* The group's scratch directory, under $TMPDIR. */
static char dir[256];

static int
setup(void **state)
{
	(void)state;
	if (test_tmpdir_make(dir, sizeof(dir), "config") != 0)
		return -1;
	setenv("GPURENT_HOME", dir, 1);
	paths_reset();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return test_tmpdir_remove(dir);
}

static void
write_file(const char *text)
{
	FILE *fp = fopen(paths_config_file(), "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void
profiles(void **state)
{
	struct config *c;
	struct gr_error err = { 0 };

	(void)state;
	write_file("# notes\nproviders = sim\nbudget.month = 100\n[profile work]\nbudget.month = 900\n");
	assert_int_equal(config_load(&c, paths_config_file(), &err), GR_OK);
	assert_string_equal(config_get(c, "budget.month"), "100");
	assert_int_equal(config_get_money(c, "budget.month"), 100000000);
	assert_int_equal(config_select_profile(c, "work", &err), GR_OK);
	assert_string_equal(config_get(c, "budget.month"), "900");
	assert_string_equal(config_get(c, "providers"), "sim");
	assert_string_equal(config_get(c, "offers.sort"), "price");	/* default */
	assert_int_equal(config_get_int(c, "http.timeout", 0), 30);	/* "30s" */
	assert_int_equal(config_select_profile(c, "nope", &err), GR_EUSAGE);
	config_free(c);
}

static void
set_keeps_comments(void **state)
{
	struct config *c;
	struct gr_error err = { 0 };
	char buf[512];
	size_t n;
	FILE *fp;

	(void)state;
	write_file("# keep me\n[profile a]\nlaunch.disk = 80\n");
	assert_int_equal(config_load(&c, paths_config_file(), &err), GR_OK);
	assert_int_equal(config_set(c, NULL, "launch.disk", "100", &err), GR_OK);
	assert_int_equal(config_set(c, "a", "launch.disk", "120", &err), GR_OK);
	assert_int_equal(config_set(c, "b", "color", "never", &err), GR_OK);
	assert_int_equal(config_set(c, NULL, "launch.disk", "x", &err), GR_EUSAGE);
	config_free(c);
	fp = fopen(paths_config_file(), "r");
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	assert_string_equal(buf, "# keep me\nlaunch.disk = 100\n[profile a]\nlaunch.disk = 120\n"
	    "[profile b]\ncolor = never\n");
}

static void
syntax_errors(void **state)
{
	const char *bad[] = { "novalue\n", "[profile]\n", "[section x]\n", "nosuch.key = 1\n",
		"launch.disk = -1\n", "color = pink\n", "offers.filter = gpu=h100x\n",
		"[profile a b]\n" };
	struct config *c = NULL;
	struct gr_error err;
	size_t i;

	(void)state;
	/* Each is kept, unread, and named with its line. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(bad[i]);
		gr_error_clear(&err);
		assert_int_equal(config_load(&c, paths_config_file(), &err), GR_OK);
		assert_int_equal(config_problem(c, &err), GR_EUSAGE);
		assert_non_null(strstr(err.msg, ":1:"));
		assert_null(config_get(c, "launch.disk"));
		config_free(c);
	}
	unlink(paths_config_file());
	assert_int_equal(config_load(&c, paths_config_file(), &err), GR_OK);	/* absent: empty */
	config_free(c);
}

/* The watcher's policies: label keys of the profile, then of the top level, then the key. */
static void
label_policies(void **state)
{
	struct config *c = NULL;
	struct gr_error err = { 0 };
	struct watch_policy p;
	char pattern[LABEL_PATTERN_MAX];

	(void)state;
	assert_string_equal(config_label_key("label.train-*.idle.after", pattern,
	    sizeof(pattern)), "idle.after");
	assert_string_equal(pattern, "train-*");
	assert_string_equal(config_label_key("label.a.b.runtime.max", pattern, sizeof(pattern)),
	    "runtime.max");
	assert_string_equal(pattern, "a.b");
	assert_null(config_label_key("label..idle.after", NULL, 0));
	assert_null(config_label_key("label.x.colour", NULL, 0));
	assert_null(config_label_key("idle.after", NULL, 0));
	write_file("idle.after = 30m\n"
	    "label.train-*.idle.after = 2h\n"
	    "label.train-*.idle.threshold = 20\n"
	    "label.train-*.idle.after = 3h\n"
	    "[profile p]\n"
	    "label.train-big.idle.action = notify\n"
	    "label.train-big.idle.after = 1h\n"
	    "runtime.max = 1d\n");
	assert_int_equal(config_load(&c, paths_config_file(), &err), GR_OK);
	watch_policy_for(c, "web", &p);
	assert_int_equal(p.idle_after, 1800);
	assert_int_equal(p.idle_threshold, 5);
	assert_int_equal(p.idle_action, WA_STOP);
	assert_int_equal(p.runtime_max, 0);
	assert_true(p.jobs_active);
	watch_policy_for(c, "train-big", &p);
	assert_int_equal(p.idle_after, 3 * 3600);	/* the last matching line */
	assert_int_equal(p.idle_threshold, 20);
	assert_int_equal(p.idle_action, WA_STOP);	/* the profile is not selected */
	assert_int_equal(config_select_profile(c, "p", &err), GR_OK);
	watch_policy_for(c, "train-big", &p);
	assert_int_equal(p.idle_after, 3600);
	assert_int_equal(p.idle_action, WA_NOTIFY);
	assert_int_equal(p.runtime_max, 86400);
	watch_policy_for(c, "train-small", &p);
	assert_int_equal(p.idle_after, 3 * 3600);
	assert_int_equal(p.idle_action, WA_STOP);
	config_free(c);
	write_file("label.x.idle.action = explode\n");
	gr_error_clear(&err);
	assert_int_equal(config_load(&c, paths_config_file(), &err), GR_OK);
	assert_int_equal(config_problem(c, &err), GR_EUSAGE);
	config_free(c);
	unlink(paths_config_file());
}

/* A cluster's own keys, read in one place for its backend and for run --provider. */
static void
cluster_keys(void **state)
{
	struct config *c;
	struct gr_error err = { 0 };
	char cur[CURRENCY_MAX] = "";
	int64_t rate = 0;

	(void)state;
	assert_false(config_gpu_rate(NULL, "slurm", "h100", &rate, cur));
	assert_string_equal(cur, "USD");
	assert_string_equal(config_job_workdir(NULL, "slurm"), "/tmp");
	assert_null(config_job_output_dir(NULL, "slurm"));
	write_file("slurm.price.h100 = 2.10\nslurm.currency = EUR\nslurm.workdir = /w\n"
	    "slurm.output_dir = /shared\n[profile p]\nslurm.price.h100 = 3\n"
	    "slurm.currency = nope\n");
	assert_int_equal(config_load(&c, paths_config_file(), &err), GR_OK);
	assert_true(config_gpu_rate(c, "slurm", "h100", &rate, cur));
	assert_int_equal(rate, 2100000);
	assert_string_equal(cur, "EUR");
	/* No rate for a type: false, the currency still said. */
	cur[0] = '\0';
	assert_false(config_gpu_rate(c, "slurm", "a100", &rate, cur));
	assert_string_equal(cur, "EUR");
	assert_string_equal(config_job_workdir(c, "slurm"), "/w");
	assert_string_equal(config_job_output_dir(c, "slurm"), "/shared");
	/* The profile's win; a currency that is none is a line config cannot read (commands
	 * refuse to run), never read as one. */
	assert_int_equal(config_select_profile(c, "p", &err), GR_OK);
	assert_true(config_gpu_rate(c, "slurm", "h100", &rate, cur));
	assert_int_equal(rate, 3000000);
	assert_string_equal(cur, "EUR");
	assert_int_equal(config_problem(c, &err), GR_EUSAGE);
	assert_non_null(strstr(err.msg, ":7:"));
	config_free(c);
	/* A rate may name the rates' currency, never another one. */
	write_file("slurm.currency = CNY\nslurm.price.h100 = 15 CNY\nslurm.price.a100 = 2 USD\n"
	    "slurm.price.l4 = 1.5\n");
	assert_int_equal(config_load(&c, paths_config_file(), &err), GR_OK);
	assert_true(config_gpu_rate(c, "slurm", "h100", &rate, cur));
	assert_int_equal(rate, 15000000);
	assert_string_equal(cur, "CNY");
	assert_false(config_gpu_rate(c, "slurm", "a100", &rate, cur));
	assert_true(config_gpu_rate(c, "slurm", "l4", &rate, cur));
	assert_int_equal(rate, 1500000);
	config_free(c);
	unlink(paths_config_file());
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(profiles),
		cmocka_unit_test(set_keeps_comments),
		cmocka_unit_test(syntax_errors),
		cmocka_unit_test(label_policies),
		cmocka_unit_test(cluster_keys),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
