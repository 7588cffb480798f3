/*
 * Leases (lease.h), on SQLite and on PostgreSQL (store-on-postgresql): of two holders only
 * one has it; it is free once it expired, at once when its holder was a process of this
 * machine that ended, and a living one of this machine keeps it `grace` longer; a renewal
 * keeps its since; standbys are listed until they stop looking.
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

#include "../state_under_test.h"
#include "../tmpdir.h"

#include "gpurent/lease.h"
#include "gpurent/state.h"

static char dir[256];
static char db[sizeof(dir) + 16];

static int
setup(void **state)
{
	(void)state;
	if (test_tmpdir_make(dir, sizeof(dir), "lease") != 0)
		return -1;
	snprintf(db, sizeof(db), "%s/state.db", dir);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return test_tmpdir_remove(dir);
}

static void
taken_and_lapsed(void **unused)
{
	struct gr_error err = { 0 };
	struct state *st;
	struct lease l, was;
	char host[256], dead[300], alive[300];

	(void)unused;
	assert_int_equal(test_state_open(&st, db, &err), GR_OK);
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	host[sizeof(host) - 1] = '\0';
	/* pid 1 lives; a pid past pid_max never does. */
	snprintf(alive, sizeof(alive), "ann@%s:1", host);
	snprintf(dead, sizeof(dead), "bob@%s:2147483647", host);

	assert_true(lease_take(st, "watch", "ann@far:10", 1000, 500, 0, &was));
	assert_string_equal(was.holder, "");
	lease_get(st, "watch", &l);
	assert_string_equal(l.holder, "ann@far:10");
	assert_true(l.since == 1000 && l.until == 1500);
	/* Another host's holder: held to its expiry, free after it. */
	assert_false(lease_take(st, "watch", "bob@far:20", 1500, 500, 0, &was));
	assert_string_equal(was.holder, "ann@far:10");
	assert_true(lease_take(st, "watch", "ann@far:10", 1400, 500, 0, NULL));
	lease_get(st, "watch", &l);
	assert_true(l.since == 1000 && l.until == 1900);	/* renewed: the same since */
	assert_false(lease_take(st, "watch", "bob@far:20", 1900, 500, 0, NULL));
	assert_true(lease_take(st, "watch", "bob@far:20", 1901, 500, 0, &was));
	assert_string_equal(was.holder, "ann@far:10");
	lease_get(st, "watch", &l);
	assert_true(strcmp(l.holder, "bob@far:20") == 0 && l.since == 1901);
	/* The one that lapsed cannot renew: it lost it. */
	assert_false(lease_take(st, "watch", "ann@far:10", 1950, 500, 0, NULL));

	/* A process of this machine: dead, free at once; alive, kept `grace` past expiry. */
	assert_true(lease_take(st, "m1", dead, 0, 500, 0, NULL));
	assert_true(lease_take(st, "m1", "x@far:1", 10, 500, 0, NULL));
	assert_true(lease_take(st, "m2", alive, 0, 500, 1000, NULL));
	assert_false(lease_take(st, "m2", "x@far:1", 1500, 500, 1000, NULL));
	assert_true(lease_take(st, "m2", "x@far:1", 1501, 500, 1000, NULL));
	/* Given up: free for anyone, and only by its holder. */
	lease_drop(st, "watch", "ann@far:10");
	assert_false(lease_take(st, "watch", "cy@far:30", 2000, 500, 0, NULL));
	lease_drop(st, "watch", "bob@far:20");
	assert_true(lease_take(st, "watch", "cy@far:30", 2000, 500, 0, &was));
	assert_string_equal(was.holder, "");
	state_close(st);
}

static void
standbys(void **unused)
{
	struct gr_error err = { 0 };
	struct lease_standby *v = NULL;
	struct state *st;
	size_t n = 0;

	(void)unused;
	assert_int_equal(test_state_open(&st, db, &err), GR_OK);
	lease_standby_mark(st, "watch", "bob@far:20", 1000, 2000);
	lease_standby_mark(st, "watch", "ann@far:10", 1000, 1500);
	lease_standby_mark(st, "m1", "cy@far:30", 1000, 9000);
	assert_true(lease_standbys(st, "watch", 1500, &v, &n));
	assert_int_equal(n, 2);
	assert_string_equal(v[0].holder, "ann@far:10");
	assert_true(v[1].seen == 1000 && v[1].until == 2000);
	free(v);
	lease_standby_mark(st, "watch", "bob@far:20", 1800, 2800);
	assert_true(lease_standbys(st, "watch", 1501, &v, &n));
	assert_int_equal(n, 1);		/* ann stopped looking */
	assert_true(strcmp(v[0].holder, "bob@far:20") == 0 && v[0].seen == 1800);
	free(v);
	lease_standby_drop(st, "watch", "bob@far:20");
	assert_true(lease_standbys(st, "watch", 1501, &v, &n));
	assert_int_equal(n, 0);
	free(v);
	state_close(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(taken_and_lapsed),
		cmocka_unit_test(standbys),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
