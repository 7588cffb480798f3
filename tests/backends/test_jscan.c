/*
 * test_jscan.c - the streaming scanner of provider replies (src/backends/jscan.c) and the
 * vast offers stream built on it: the same answer as one whole-body cJSON parse for every
 * way of cutting a body into chunks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../fuzz/jscan_oracle.h"
#include "gpurent/backends_parse.h"
#include "gpurent/util.h"
#include "tdata.h"

/* Cut once at every byte boundary, and into one-byte chunks. */
static void
agrees_everywhere(const char *b, size_t len)
{
	size_t k, *all;

	for (k = 0; k <= len; k++)
		if (!jscan_agrees(b, len, &k, 1))
			fail_msg("cut at %zu of %zu disagrees: %.*s", k, len, (int)len, b);
	all = malloc((len + 1) * sizeof(*all));
	for (k = 0; k <= len; k++)
		all[k] = k;
	if (!jscan_agrees(b, len, all, len + 1))
		fail_msg("one-byte chunks disagree: %.*s", (int)len, b);
	free(all);
}

static void
test_shapes(void **state)
{
	static const char *const bodies[] = {
		"", " ", "{}", "[]", "\"offers\"", "42 {\"offers\":[1]}",
		"{\"offers\":[]}", "{\"offers\":[ ]}", "{\"offers\" : [1, 2 ,3 ]}",
		"{\"offers\":[1,]}", "{\"offers\":[,1]}", "{\"offers\":[1,,2]}", "{\"offers\":[1 2]}",
		"{\"offers\":[1}", "{\"offers\":[{\"a\":1]}", "{\"offers\":[{\"a\":[1}]}",
		"{\"offers\":[{\"a\":\"],}\\\"[{\"}, \"x\\\\\"]}",
		"{\"a\":{\"offers\":[1]},\"offers\":[2]}", "{\"a\":\"offers\",\"offers\":[3]}",
		"{\"offers\":5}", "{\"offers\":{}}", "{\"x\":1}", "{\"offers\":[1]} trailing",
		"{}{\"offers\":[1]}", "{\"offers\":[1]", "{\"offers\":[{\"a\":1}", "{\"offers\":[\"ab",
		"{\"offers\":[1]}}", "{\"off\\u0065rs\":[1,2]}", "{\"off\\u0065rs\":5,\"offers\":[1]}",
		"{\"offers\":[1],\"offers\":[2]}", "{\"offers\":[1],\"success\":false}",
		"\xef\xbb\xbf{\"offers\":[1]}", "{\"offers\":[tru]}", "{\"offers\":[nul, 1]}",
		"[\"offers\":[1]]", "{\"offers\":[1]:2}", "{\"offers\":[\"\\u00e9\",\"\\ud83d\\ude00\"]}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++)
		agrees_everywhere(bodies[i], strlen(bodies[i]));
}

/* Nesting: cJSON's limit (CJSON_NESTING_LIMIT containers) holds for the whole reply. */
static void
test_depth(void **state)
{
	size_t depths[] = { 10, CJSON_NESTING_LIMIT - 2, CJSON_NESTING_LIMIT - 1,
		CJSON_NESTING_LIMIT, CJSON_NESTING_LIMIT + 1, 5000 };
	size_t i, d, k;

	(void)state;
	for (i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		struct sb b;
		size_t cut;

		sb_init(&b);
		sb_adds(&b, "{\"offers\":[");
		for (d = 0; d < depths[i]; d++)
			sb_addc(&b, '[');
		for (d = 0; d < depths[i]; d++)
			sb_addc(&b, ']');
		sb_adds(&b, "]}");
		for (k = 0; k < 4; k++) {
			cut = b.len * k / 4;
			if (!jscan_agrees(b.buf, b.len, &cut, 1))
				fail_msg("depth %zu, cut at %zu disagrees", depths[i], cut);
		}
		sb_release(&b);
	}
}

/* The recorded vast payloads, cut everywhere. */
static void
test_recorded(void **state)
{
	static const char *const files[] = { "vast/offers.json", "vast/offers-malformed.json",
		"vast/offers-wrongshape.json", "vast/error-429.txt", "vast/instances-page1.json" };
	size_t i, len;
	char *b;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		b = tdata(files[i], &len);
		agrees_everywhere(b, len);
		free(b);
	}
}

/* The vast offers stream: any cut gives the same offers as one whole-body parse. */
static void
test_vast_stream_cuts(void **state)
{
	struct offer_list whole, part;
	struct gr_error err = { 0 };
	size_t len, k;
	char *b;

	(void)state;
	b = tdata("vast/offers-sim.json", &len);
	offer_list_init(&whole);
	assert_int_equal(vast_parse_offers(b, len, OFFER_ON_DEMAND, &whole, &err), GR_OK);
	assert_true(whole.n > 1);
	for (k = 0; k <= len; k += 1) {
		struct vast_offer_stream *s;

		offer_list_init(&part);
		s = vast_offer_stream_new(OFFER_ON_DEMAND, &part);
		assert_true(vast_offer_stream_feed(s, b, k));
		assert_true(vast_offer_stream_feed(s, b + k, len - k));
		assert_int_equal(vast_offer_stream_finish(s, 200, &err), GR_OK);
		vast_offer_stream_free(s);
		assert_int_equal(part.n, whole.n);
		assert_memory_equal(part.v, whole.v, whole.n * sizeof(*whole.v));
		offer_list_release(&part);
	}
	offer_list_release(&whole);
	free(b);
}

/* Errors as the whole-body parser gave them, and nothing appended on one. */
static void
test_vast_stream_errors(void **state)
{
	static const struct {
		const char *body;
		long status;
		const char *msg;
	} cases[] = {
		{ "", 200, "empty reply from vast" },
		{ "{\"offers\":[{\"id\":1,\"num_gpus\":1}", 200, "malformed reply from vast (not JSON)" },
		{ "{\"offers\":{}}", 200, "malformed reply (no offers array)" },
		{ "{\"offers\":[{\"id\":1,\"num_gpus\":1}],\"success\":false,\"msg\":\"nope\"}", 200,
		    "nope" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct offer_list l;
		struct gr_error err = { 0 };
		struct vast_offer_stream *s;

		offer_list_init(&l);
		s = vast_offer_stream_new(OFFER_ON_DEMAND, &l);
		vast_offer_stream_feed(s, cases[i].body, strlen(cases[i].body));
		assert_int_not_equal(vast_offer_stream_finish(s, cases[i].status, &err), GR_OK);
		vast_offer_stream_free(s);
		if (strstr(err.msg, cases[i].msg) == NULL)
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].msg);
		assert_int_equal(l.n, 0);
		offer_list_release(&l);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_vast_stream_cuts),
		cmocka_unit_test(test_vast_stream_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
