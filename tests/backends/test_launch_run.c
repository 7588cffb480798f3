/*
 * test_launch_run.c - bk_launch_run's look-up after an unclear create (backends_int.h): an
 * instance is taken for the new one only when it wears the name and was not there before
 * the create was sent; otherwise the outcome is unknown and nothing is adopted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/backends/backends_int.h"

/* A provider in memory: what it lists, what a create adds, how the create is answered. */
struct fake {
	struct instance have[8];
	size_t n;
	int sends, lists, lists_at_send;
	int list_fails_from, list_fails_to;	/* the lists (1-based) that fail */
	int acted_adds;			/* instances a create adds before its 500 */
};

static void
add(struct fake *f, const char *id, const char *label, enum inst_state st)
{
	struct instance *in = &f->have[f->n++];

	memset(in, 0, sizeof(*in));
	snprintf(in->id, sizeof(in->id), "%s", id);
	snprintf(in->label, sizeof(in->label), "%s", label);
	in->state = st;
}

static enum gr_err
fake_send(void *ctx, struct http_response *rs, struct gr_error *err)
{
	struct fake *f = ctx;
	char id[32];
	int i;

	(void)err;
	memset(rs, 0, sizeof(*rs));
	f->sends++;
	f->lists_at_send = f->lists;
	for (i = 0; i < f->acted_adds; i++) {
		snprintf(id, sizeof(id), "p:new%d", i + 1);
		add(f, id, "cn", ST_PROVISIONING);
	}
	rs->status = 500;	/* acted, and the answer lost */
	rs->retry_after_s = -1;
	return GR_OK;
}

static enum gr_err
fake_accept(void *ctx, const struct http_response *rs, struct gr_error *err)
{
	(void)ctx;
	(void)rs;
	return gr_fail(err, GR_EFAIL, "not reached: every answer here is unclear");
}

static enum gr_err
fake_list(void *ctx, struct instance_list *out, struct gr_error *err)
{
	struct fake *f = ctx;
	size_t i;

	f->lists++;
	if (f->lists >= f->list_fails_from && f->lists <= f->list_fails_to)
		return gr_fail(err, GR_EUNAVAIL, "list failed");
	for (i = 0; i < f->n; i++)
		*instance_list_add(out) = f->have[i];
	return GR_OK;
}

static enum gr_err
launch(struct fake *f, const char *name, bool unique, struct instance *out, bool *found,
    struct gr_error *err)
{
	return bk_launch_run(&(struct bk_launch){ .name = name, .name_unique = unique,
	    .backoff_ms = 1, .ctx = f, .send = fake_send, .accept = fake_accept,
	    .list = fake_list }, out, found, err);
}

/* An older live instance with the label is passed over for the one the create made. */
static void
test_older_label_not_adopted(void **state)
{
	struct fake f = { .acted_adds = 1 };
	struct gr_error err = { 0 };
	struct instance out;
	bool found;

	(void)state;
	add(&f, "p:old", "cn", ST_RUNNING);
	add(&f, "p:other", "cnx", ST_RUNNING);
	assert_int_equal(launch(&f, "cn", false, &out, &found, &err), GR_OK);
	assert_true(found);
	assert_string_equal(out.id, "p:new1");
	assert_int_equal(f.sends, 1);
	assert_int_equal(f.lists_at_send, 1);	/* the list before the send */
}

/* What wore the label before could not be listed: unknown, no look, nothing adopted. */
static void
test_no_list_before_is_unknown(void **state)
{
	struct fake f = { .acted_adds = 1, .list_fails_from = 1, .list_fails_to = 1 };
	struct gr_error err = { 0 };
	struct instance out;
	bool found;

	(void)state;
	add(&f, "p:old", "cn", ST_RUNNING);
	assert_int_equal(launch(&f, "cn", false, &out, &found, &err), GR_EUNAVAIL);
	assert_false(found);
	assert_non_null(strstr(err.msg, "launch outcome unknown"));
	assert_non_null(strstr(err.msg, "could not be listed before it was sent"));
	assert_int_equal(f.sends, 1);
	assert_int_equal(f.lists, 1);
}

/* Two new instances wear the label: which is this launch's cannot be told. */
static void
test_several_new_is_unknown(void **state)
{
	struct fake f = { .acted_adds = 2 };
	struct gr_error err = { 0 };
	struct instance out;
	bool found;

	(void)state;
	add(&f, "p:old", "cn", ST_RUNNING);
	assert_int_equal(launch(&f, "cn", false, &out, &found, &err), GR_EUNAVAIL);
	assert_false(found);
	assert_non_null(strstr(err.msg, "more than one new instance"));
	assert_int_equal(f.sends, 1);
}

/* A destroyed instance with the name is not the new one. */
static void
test_destroyed_not_adopted(void **state)
{
	struct fake f = { .acted_adds = 1 };
	struct gr_error err = { 0 };
	struct instance out;
	bool found;

	(void)state;
	add(&f, "p:gone", "cn", ST_DESTROYED);
	assert_int_equal(launch(&f, "cn", true, &out, &found, &err), GR_OK);
	assert_true(found);
	assert_string_equal(out.id, "p:new1");
}

/* Every look after the send fails: unknown, and the create is not sent again. */
static void
test_failed_look_is_unknown(void **state)
{
	struct fake f = { .acted_adds = 0, .list_fails_from = 2, .list_fails_to = 9 };
	struct gr_error err = { 0 };
	struct instance out;
	bool found;

	(void)state;
	assert_int_equal(launch(&f, "cn", false, &out, &found, &err), GR_EUNAVAIL);
	assert_false(found);
	assert_non_null(strstr(err.msg, "could not confirm it"));
	assert_int_equal(f.sends, 1);
	assert_int_equal(f.lists, 4);	/* one before, three looks */
}

/* A name made for this request alone is looked up without a list before the send. */
static void
test_unique_name_no_list_before(void **state)
{
	struct fake f = { .acted_adds = 1 };
	struct gr_error err = { 0 };
	struct instance out;
	bool found;

	(void)state;
	assert_int_equal(launch(&f, "cn", true, &out, &found, &err), GR_OK);
	assert_true(found);
	assert_string_equal(out.id, "p:new1");
	assert_int_equal(f.lists_at_send, 0);
	assert_int_equal(f.lists, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_older_label_not_adopted),
		cmocka_unit_test(test_no_list_before_is_unknown),
		cmocka_unit_test(test_several_new_is_unknown),
		cmocka_unit_test(test_destroyed_not_adopted),
		cmocka_unit_test(test_failed_look_is_unknown),
		cmocka_unit_test(test_unique_name_no_list_before),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
