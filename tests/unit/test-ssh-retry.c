/*
 * The exporter's memory of instances whose ssh failed (ssh_retry.h), on a clock the test
 * drives: a failure makes an instance wait, each further one doubles the wait up to its
 * bound, an answer forgets it (so the next failure waits the first wait again), 0 keeps
 * nothing, and instances no longer listed are forgotten.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpurent/ssh_retry.h"

#define A "sim:i-000001"
#define B "sim:i-000002"

static void
waits_double_up_to_the_bound(void **state)
{
	struct ssh_retry r;
	int64_t now = 5000, wait = 1000;
	int k;

	(void)state;
	ssh_retry_init(&r, 1000);
	assert_true(ssh_retry_due(&r, A, now));		/* never tried: try */
	for (k = 0; k < 8; k++) {
		ssh_retry_note(&r, A, false, now);
		assert_false(ssh_retry_due(&r, A, now));
		assert_false(ssh_retry_due(&r, A, now + wait - 1));
		assert_true(ssh_retry_due(&r, A, now + wait));
		assert_true(ssh_retry_due(&r, B, now));	/* another instance: untouched */
		now += wait;
		/* 1, 2, 4, 8, 16 s, then 16 s: never longer than SSH_RETRY_GROWTH times the first. */
		wait = wait * 2 > 1000 * SSH_RETRY_GROWTH ? 1000 * SSH_RETRY_GROWTH : wait * 2;
	}
	assert_int_equal(r.v[0].wait, 1000 * SSH_RETRY_GROWTH);
	ssh_retry_release(&r);
}

static void
an_answer_starts_over(void **state)
{
	struct ssh_retry r;

	(void)state;
	ssh_retry_init(&r, 1000);
	ssh_retry_note(&r, A, false, 0);
	ssh_retry_note(&r, A, false, 1000);
	ssh_retry_note(&r, A, false, 3000);		/* waits 4 s: due at 7000 */
	assert_false(ssh_retry_due(&r, A, 6999));
	ssh_retry_note(&r, A, true, 7000);		/* ssh answered */
	assert_true(ssh_retry_due(&r, A, 7000));
	assert_int_equal(r.n, 0);
	ssh_retry_note(&r, A, false, 8000);		/* fails again: the first wait */
	assert_false(ssh_retry_due(&r, A, 8999));
	assert_true(ssh_retry_due(&r, A, 9000));
	ssh_retry_release(&r);
}

static void
zero_remembers_nothing(void **state)
{
	struct ssh_retry r;

	(void)state;
	ssh_retry_init(&r, 0);
	ssh_retry_note(&r, A, false, 0);
	assert_true(ssh_retry_due(&r, A, 0));
	assert_int_equal(r.n, 0);
	ssh_retry_release(&r);
}

static bool
only_b(const char *id, void *data)
{
	(void)data;
	return strcmp(id, B) == 0;
}

static void
gone_instances_are_forgotten(void **state)
{
	struct ssh_retry r;
	char id[32];
	int k;

	(void)state;
	ssh_retry_init(&r, 1000);
	for (k = 0; k < 40; k++) {			/* past the first allocation */
		snprintf(id, sizeof(id), "sim:i-%06d", k + 10);
		ssh_retry_note(&r, id, false, 0);
	}
	ssh_retry_note(&r, B, false, 0);
	assert_int_equal(r.n, 41);
	ssh_retry_prune(&r, only_b, NULL);
	assert_int_equal(r.n, 1);
	assert_false(ssh_retry_due(&r, B, 999));
	assert_true(ssh_retry_due(&r, "sim:i-000010", 0));
	ssh_retry_release(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(waits_double_up_to_the_bound),
		cmocka_unit_test(an_answer_starts_over),
		cmocka_unit_test(zero_remembers_nothing),
		cmocka_unit_test(gone_instances_are_forgotten),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
