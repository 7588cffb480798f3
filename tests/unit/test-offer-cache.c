/*
 * The offer cache's schema identity: records written by this build read back as they were,
 * and an entry written under another identity (another build's struct offer or catalogue)
 * is never read, not listed, not counted as fresh, and dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../state_under_test.h"
#include "../tmpdir.h"

#include <sqlite3.h>

#include "gpurent/catalogue.h"
#include "gpurent/offer_cache.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "../../src/store/store_int.h"	/* the tests read the tables themselves */

/* The group's scratch directory, under $TMPDIR. */
static char dir[256];
static char db[sizeof(dir) + 16];

static int
setup(void **state)
{
	(void)state;
	if (test_tmpdir_make(dir, sizeof(dir), "offer-cache") != 0)
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
make_offers(struct offer *v, size_t n, const char *provider)
{
	size_t i;

	memset(v, 0, n * sizeof(*v));
	for (i = 0; i < n; i++) {
		snprintf(v[i].id, sizeof(v[i].id), "%s:%zu", provider, i + 1);
		strlcpy_(v[i].provider, provider, sizeof(v[i].provider));
		v[i].gpu = catalogue_by_id(i % 2 ? "H100-SXM-80GB" : "A100-SXM4-80GB");
		v[i].gpu_count = (int)i + 1;
		v[i].price_hour = 1234567 * (int64_t)(i + 1);
		strlcpy_(v[i].region, "eu-west", sizeof(v[i].region));
	}
}

static int64_t
count_rows(struct state *st, const char *provider)
{
	struct db_stmt *q;
	int64_t n = -1;

	assert_int_equal(db_prepare_v2(state_db(st), "SELECT count(*) FROM offer_cache "
	    "WHERE provider = ?1", -1, &q, NULL), DB_OK);
	db_bind_text(q, 1, provider, -1, DB_STATIC);
	if (db_step(q) == DB_ROW)
		n = db_column_int64(q, 0);
	db_finalize(q);
	return n;
}

static void
count_id(const char *id, void *ctx)
{
	(void)id;
	(*(int *)ctx)++;
}

static void
round_trip(void **state)
{
	struct gr_error err = { 0 };
	struct offer v[3];
	struct offer_list l;
	struct state *st;
	int64_t at = 0;
	size_t i;

	(void)state;
	assert_int_equal(test_state_open(&st, db, &err), GR_OK);
	make_offers(v, 3, "vast");
	assert_int_equal(offer_cache_put(st, "vast", "cfg", "q", 1000, v, 3, &err), GR_OK);
	offer_list_init(&l);
	assert_true(offer_cache_get(st, "vast", "cfg", "q", 1010, 60, &l, &at));
	assert_int_equal(at, 1000);
	assert_int_equal(l.n, 3);
	for (i = 0; i < 3; i++) {
		assert_string_equal(l.v[i].id, v[i].id);
		assert_ptr_equal(l.v[i].gpu, v[i].gpu);
		assert_int_equal(l.v[i].price_hour, v[i].price_hour);
		assert_int_equal(l.v[i].fetched_at, 1000);
	}
	offer_list_release(&l);
	state_close(st);
}

/*
 * Another build wrote the same bytes under another identity (as one whose struct kept its
 * size but moved a member would): the entry is a miss and is gone afterwards.
 */
static void
other_identity_dropped(void **state)
{
	struct gr_error err = { 0 };
	struct offer v[4];
	struct offer_list l;
	struct state *st;
	int64_t at = 0;
	int ids = 0;

	(void)state;
	assert_int_equal(test_state_open(&st, db, &err), GR_OK);
	make_offers(v, 4, "runpod");
	assert_int_equal(offer_cache_put(st, "runpod", "cfg", "q", 2000, v, 4, &err), GR_OK);
	make_offers(v, 2, "lambda");
	assert_int_equal(offer_cache_put(st, "lambda", "cfg", "q", 1900, v, 2, &err), GR_OK);
	assert_int_equal(db_exec(state_db(st), "UPDATE offer_cache SET layout = layout + 1 "
	    "WHERE provider IN ('runpod', 'lambda')", NULL, NULL, NULL), DB_OK);

	/* Neither listed for completion nor counted as a fresh answer while it waits. */
	offer_cache_each_id(st, "runpod:", 100, count_id, &ids);
	assert_int_equal(ids, 0);
	assert_int_not_equal(offer_cache_newest(st), 2000);

	offer_list_init(&l);
	assert_false(offer_cache_get(st, "runpod", "cfg", "q", 2010, -1, &l, &at));
	assert_int_equal(l.n, 0);
	offer_list_release(&l);
	assert_int_equal(count_rows(st, "runpod"), 0);
	/* Every entry of another identity goes, whichever provider it was for. */
	assert_int_equal(count_rows(st, "lambda"), 0);

	/* A put drops them too, for every provider. */
	make_offers(v, 2, "lambda");
	assert_int_equal(offer_cache_put(st, "lambda", "cfg", "q", 2100, v, 2, &err), GR_OK);
	assert_int_equal(db_exec(state_db(st), "UPDATE offer_cache SET layout = layout - 1 "
	    "WHERE provider = 'lambda'", NULL, NULL, NULL), DB_OK);
	make_offers(v, 1, "ppio");
	assert_int_equal(offer_cache_put(st, "ppio", "cfg", "q", 2200, v, 1, &err), GR_OK);
	assert_int_equal(count_rows(st, "lambda"), 0);
	assert_int_equal(count_rows(st, "ppio"), 1);
	state_close(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(other_identity_dropped),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
