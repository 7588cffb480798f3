/*
 * test_jscan.c - the streaming scanner of provider replies (src/backends/jscan.c) and the
 * offers streams of vast, RunPod, Lambda and PPIO built on it: the same answer as one whole-body
 * cJSON parse for every way of cutting a body into chunks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../fuzz/jscan_oracle.h"
#include "backends_parse.h"
#include "gpurent/util.h"
#include "tdata.h"

static const char *const offers_path[] = { "offers", NULL };
static const char *const gpu_types_path[] = { "data", "gpuTypes", NULL };
static const char *const data_path[] = { "data", NULL };

/* Cut once at every byte boundary, and into one-byte chunks. */
static void
agrees_everywhere_at(const char *const *path, bool members, const char *b, size_t len)
{
	size_t k, *all;

	for (k = 0; k <= len; k++)
		if (!jscan_agrees_at(path, members, b, len, &k, 1))
			fail_msg("%s: cut at %zu of %zu disagrees: %.*s", path[0], k, len, (int)len,
			    b);
	all = malloc((len + 1) * sizeof(*all));
	for (k = 0; k <= len; k++)
		all[k] = k;
	if (!jscan_agrees_at(path, members, b, len, all, len + 1))
		fail_msg("%s: one-byte chunks disagree: %.*s", path[0], (int)len, b);
	free(all);
}

static void
agrees_everywhere(const char *b, size_t len)
{
	agrees_everywhere_at(offers_path, false, b, len);
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
		"\xef\xbb\xbf{\"offers\":[1]}", ("{\"offers\":[\xef\xbb\xbf" "12]}"), "{\"offers\":[tru]}", "{\"offers\":[nul, 1]}",
		"[\"offers\":[1]]", "{\"offers\":[1]:2}", "{\"offers\":[\"\\u00e9\",\"\\ud83d\\ude00\"]}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++)
		agrees_everywhere(bodies[i], strlen(bodies[i]));
}

/* A nested path (RunPod's data.gpuTypes): only the array the path names is streamed. */
static void
test_nested_path(void **state)
{
	static const char *const bodies[] = {
		"{\"data\":{\"gpuTypes\":[1,2]}}", "{\"data\":{\"gpuTypes\":[]},\"errors\":[1]}",
		"{\"errors\":[{\"message\":\"x\"}],\"data\":null}", "{\"data\":{\"gpuTypes\":5}}",
		"{\"gpuTypes\":[1],\"data\":{}}", "{\"data\":{\"x\":{\"gpuTypes\":[1]}}}",
		"{\"data\":[{\"gpuTypes\":[1]}]}", "{\"data\":5,\"data\":{\"gpuTypes\":[1]}}",
		"{\"data\":{\"gpuTypes\":[1]},\"data\":{\"gpuTypes\":[2]}}",
		"{\"d\\u0061ta\":{\"gpuTypes\":[1,2]}}", "{\"data\":{\"gpu\\u0054ypes\":[3]}}",
		"{\"d\\u0061ta\":{},\"data\":{\"gpuTypes\":[1]}}",
		"{\"data\":{\"a\":\"gpuTypes\",\"gpuTypes\":[{\"s1\":{\"x\":\"]}\"}}]}}",
		"{\"data\":{\"gpuTypes\":[1]}", "{\"data\":{\"gpuTypes\":[1}}}",
		"{\"data\":{\"gpuTypes\":[1]]}", "{\"data\":{\"gpuTypes\":[1]},}",
		"{\"data\":{\"gpuTypes\":[{\"a\":1},{\"b\":[2,3]}]}} ", "[{\"data\":{}}]",
		"{\"data\":{\"gpuTypes\":{}}}", "{\"data\":{\"gpuTypes\":[1],\"gpuTypes\":[2]}}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++)
		agrees_everywhere_at(gpu_types_path, false, bodies[i], strlen(bodies[i]));
}

/* An object's members as the elements (Lambda's data), names and all. */
static void
test_members(void **state)
{
	static const char *const bodies[] = {
		"{\"data\":{}}", "{\"data\":{ }}", "{\"data\":{\"a\":1,\"b\":{\"c\":[2]}}}",
		"{\"data\":{\"a\":1,}}", "{\"data\":{,\"a\":1}}", "{\"data\":{\"a\" 1}}",
		"{\"data\":{\"a\":}}", "{\"data\":{1:2}}", "{\"data\":{\"a\":1]}",
		"{\"data\":{\"a\":1,\"a\":2}}", "{\"data\":{\"a,}\\\"\":\"{,\"}}",
		"{\"data\":{\"\\u00e9\":1}}", "{\"data\":{\"a\":1:2}}", "{\"data\":{\"a\"}}",
		"{\"data\":[1,2]}", "{\"data\":{\"a\":1}", "{\"d\\u0061ta\":{\"a\":1}}",
		"{\"data\":{\"a\":{\"b\":1}}} x", "{\"data\":{\"a\":1}}}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++)
		agrees_everywhere_at(data_path, true, bodies[i], strlen(bodies[i]));
}

static bool
count_elem(const cJSON *e, void *ctx)
{
	(void)e;
	(*(int *)ctx)++;
	return true;
}

/* Elements are handed over as soon as they are complete, before the reply ends (so the body
   is never held): RunPod's nested array and Lambda's members as for vast's array. */
static void
test_streams_early(void **state)
{
	static const struct {
		const char *const *path;
		bool members;
		const char *head;
	} cases[] = {
		{ offers_path, false, "{\"offers\":[{\"a\":1},{\"b\":[2]}," },
		{ gpu_types_path, false, "{\"x\":{\"gpuTypes\":[9]},\"data\":{\"gpuTypes\":[{\"a\":1},{\"b\":2}," },
		{ data_path, true, "{\"data\":{\"gpu_1x_a10\":{\"a\":1},\"gpu_8x_h100\":{\"b\":2}," },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = 0;
		struct jscan *s = jscan_new_path(cases[i].path, cases[i].members, count_elem, &n);

		assert_true(jscan_feed(s, cases[i].head, strlen(cases[i].head)));
		if (n != 2)
			fail_msg("case %zu: %d elements handed over before the end, not 2", i, n);
		jscan_free(s);
	}
}

/*
 * Cut once at every byte boundary, members picked (jscan_pick), body of any bytes; twice:
 * with "a" picked (its value then goes to cJSON too) and with nothing of the bodies picked,
 * so that the picker alone judges every value.
 */
static void
picks_everywhere(const char *b, size_t len)
{
	static const char *const names[][5] = {
		{ "id", "gpu_name", "a", "", NULL }, { "none", NULL },
	};
	size_t k, i;

	for (i = 0; i < 2; i++)
		for (k = 0; k <= len; k++)
			if (!jscan_agrees_picking(offers_path, false, names[i], b, len, &k, 1))
				fail_msg("picking %s: cut at %zu of %zu disagrees: %.*s",
				    names[i][0], k, len, (int)len, b);
}

/* The picker's own nesting limit, for callers other than the scanner (which stops first). */
static void
test_pick_depth(void **state)
{
	static const char *const names[] = { "a", NULL };
	size_t depths[] = { CJSON_NESTING_LIMIT - 1, CJSON_NESTING_LIMIT,
		CJSON_NESTING_LIMIT + 1 };
	struct jpick *k = jpick_new(names);
	size_t i, d;

	(void)state;
	for (i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		struct sb b;
		cJSON *whole, *picked;

		sb_init(&b);
		for (d = 0; d < depths[i]; d++)
			sb_adds(&b, d % 2 ? "[" : "{\"b\":");
		sb_adds(&b, "1");
		for (d = depths[i]; d-- > 0;)
			sb_adds(&b, d % 2 ? "]" : "}");
		whole = cJSON_ParseWithLength(b.buf, b.len);
		picked = jpick_parse(k, b.buf, b.len);
		if ((whole == NULL) != (picked == NULL))
			fail_msg("depth %zu: cJSON %s, the picker %s", depths[i],
			    whole ? "accepts" : "refuses", picked ? "accepts" : "refuses");
		cJSON_Delete(whole);
		cJSON_Delete(picked);
		sb_release(&b);
	}
	jpick_free(k);
}

/*
 * Members picked by name (jpick.c): every shape above, and the corners of cJSON's grammar
 * that the picker judges without cJSON (numbers as strtod takes them, string escapes,
 * whitespace, a byte order mark inside the array), accepted or refused exactly as a
 * whole-body parse, the picked members the first of each name.
 */
static void
test_pick(void **state)
{
	static const char *const bodies[] = {
		"{\"offers\":[{\"id\":1,\"x\":[1,{\"id\":9}],\"id\":2,\"gpu_name\":\"A\"}]}",
		"{\"offers\":[{\"g\\u0070u_name\":\"esc\",\"gpu_name\":\"plain\"}]}",
		"{\"offers\":[{\"\":0,\"a\":{\"b\":[true,false,null]}},[1],\"s\",3]}",
		"{\"offers\":[{}, { } ,{\"z\":1}]}", "{\"offers\":[{\"a\":1,}]}",
		"{\"offers\":[{\"a\" 1}]}", "{\"offers\":[{\"a\":}]}", "{\"offers\":[{a:1}]}",
		"{\"offers\":[{\"a\":1 \"b\":2}]}", "{\"offers\":[{\"a\":[1,]}]}",
		"{\"offers\":[{\"a\":[,1]}]}", "{\"offers\":[{\"a\":[1 2]}]}",
		"{\"offers\":[{\"a\":tru}]}", "{\"offers\":[{\"a\":nulll}]}",
		"{\"offers\":[{\"a\":falsey}]}", "{\"offers\":[{\"a\":falsy}]}",
		"{\"offers\":[{\"a\":trux}]}", "{\"offers\":[{\"a\":nulx}]}", "{\"offers\":[{\"id\":1}x]}",
		/* numbers: what strtod takes of a run of [0-9+-eE.] (older cJSON: of its first 63
		   bytes, which the 64-byte numbers below tell apart) */
		"{\"offers\":[{\"a\":1.}]}", "{\"offers\":[{\"a\":-.5}]}",
		"{\"offers\":[{\"a\":1.e5}]}", "{\"offers\":[{\"a\":1e}]}",
		"{\"offers\":[{\"a\":1e+}]}", "{\"offers\":[{\"a\":1E-7}]}",
		"{\"offers\":[{\"a\":-}]}", "{\"offers\":[{\"a\":--1}]}",
		"{\"offers\":[{\"a\":-+1}]}", "{\"offers\":[{\"a\":01}]}",
		"{\"offers\":[{\"a\":1.2.3}]}", "{\"offers\":[{\"a\":.5}]}",
		"{\"offers\":[{\"a\":+1}]}", "{\"offers\":[{\"a\":-0}]}", "{\"offers\":[{\"a\":1-2}]}",
		"{\"offers\":[{\"a\":-.}]}", "{\"offers\":[{\"a\":1e99999}]}",
		"{\"offers\":[{\"a\":0x1F}]}", "{\"offers\":[{\"a\":1ee5}]}",
		"{\"offers\":[{\"a\":"
		"123456789012345678901234567890123456789012345678901234567890123}]}",
		"{\"offers\":[{\"a\":"
		"1234567890123456789012345678901234567890123456789012345678901234}]}",
		"{\"offers\":[{\"a\":"
		"1.23456789012345678901234567890123456789012345678901234567890123}]}",
		"{\"offers\":[{\"a\":1, \"b\":"
		"12345678901234567890123456789012345678901234567890123456789012e}]}",
		/* strings: cJSON's escapes, including what it lets through */
		"{\"offers\":[{\"a\":\"\\u12\"}]}", "{\"offers\":[{\"a\":\"\\uZZZZ\"}]}",
		"{\"offers\":[{\"a\":\"\\uD800\"}]}", "{\"offers\":[{\"a\":\"\\uD83D\\uDE00\"}]}",
		"{\"offers\":[{\"a\":\"\\uD800\\u0041\"}]}", "{\"offers\":[{\"a\":\"\\uDC00\"}]}",
		"{\"offers\":[{\"a\":\"\\uD800\\uZZZZ\"}]}", "{\"offers\":[{\"a\":\"\\uD800x\"}]}",
		"{\"offers\":[{\"a\":\"\\x\"}]}", "{\"offers\":[{\"a\":\"\\/\\b\\f\\n\\r\\t\"}]}",
		"{\"offers\":[{\"a\":\"\\u\\\\\\\\\"}]}", "{\"offers\":[{\"a\":\"x\\\"}]}",
		"{\"offers\":[{\"a\":\"\\uD800\\\\uDC00\"}]}", "{\"offers\":[{\"id\":\"\\u0000x\"}]}",
		/* whitespace is any byte up to ' '; a byte order mark is not */
		"{\"offers\":[\x01{\"a\"\x1f:\x02 1\x7f}]}", "{\"offers\":[\t{\"a\":1}\n]}",
		"{\"offers\":[{\"a\"\x1f:\x02 1\x01,\x03\"b\":[\x04]\x05}]}",
		"{\"offers\":[\xef\xbb\xbf{\"a\":1}]}", "{\"offers\":[1,\xef\xbb\xbf{\"a\":12}]}",
		"{\"offers\":[{\"a\":\"\xef\xbb\xbf\xe4\xb8\xad\"}]}",
		/* an object picked where it lies in a chunk: what may follow it */
		"{\"offers\":[{\"a\":1} x,{\"a\":2}]}", "{\"offers\":[{\"a\":1}{\"b\":2}]}",
		"{\"offers\":[{\"a\":1} , {\"a\":2} ]}", "{\"offers\":[{\"a\":1}1]}",
		"{\"offers\":[{\"a\":1}\"s\"]}", "{\"offers\":[{\"a\":1}]]}", "{\"offers\":[{\"a\":1}}]}",
		"{\"offers\":[{\"a\":{\"b\":[1,{}]}},2,{}]}", "{\"offers\":[{},]}",
		/* the array under an escaped name comes from the skeleton, picked all the same */
		"{\"off\\u0065rs\":[{\"id\":1,\"b\":2,\"id\":3}]}",
	};
	/* NULs inside: whitespace between tokens to cJSON, the end of a decoded name */
	static const char nul_ws[] = "{\"offers\":[{\"a\":1\0,\"id\":2}]}";
	static const char nul_name[] = "{\"offers\":[{\"id\\u0000x\":1,\"id\0y\":2,\"id\":3}]}";
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++)
		picks_everywhere(bodies[i], strlen(bodies[i]));
	picks_everywhere(nul_ws, sizeof(nul_ws) - 1);
	picks_everywhere(nul_name, sizeof(nul_name) - 1);
	/* the shapes of the plain scanner, picked */
	for (k = 0; k < 2; k++) {
		const char *b = k == 0 ? "{\"offers\":[1,{\"a\":1}],\"offers\":[2]}" :
		    "{\"offers\":[{\"a\":\"],}\\\"[{\"}, \"x\\\\\"]}";

		picks_everywhere(b, strlen(b));
	}
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
	b = tdata("runpod/gpu-types.json", &len);
	agrees_everywhere_at(gpu_types_path, false, b, len);
	free(b);
	b = tdata("runpod/gpu-types-truncated.json", &len);
	agrees_everywhere_at(gpu_types_path, false, b, len);
	free(b);
	b = tdata("lambda/instance-types.json", &len);
	agrees_everywhere_at(data_path, true, b, len);
	free(b);
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
		enum offer_type type = OFFER_ON_DEMAND;
		struct offer_stream *s;

		offer_list_init(&part);
		s = offer_stream_new(&vast_offer_kind, &type, &part);
		assert_true(offer_stream_feed(s, b, k));
		assert_true(offer_stream_feed(s, b + k, len - k));
		assert_int_equal(offer_stream_finish(s, 200, &err), GR_OK);
		offer_stream_free(s);
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
		enum offer_type type = OFFER_ON_DEMAND;
		struct offer_stream *s;

		offer_list_init(&l);
		s = offer_stream_new(&vast_offer_kind, &type, &l);
		offer_stream_feed(s, cases[i].body, strlen(cases[i].body));
		assert_int_not_equal(offer_stream_finish(s, cases[i].status, &err), GR_OK);
		offer_stream_free(s);
		if (strstr(err.msg, cases[i].msg) == NULL)
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].msg);
		assert_int_equal(l.n, 0);
		offer_list_release(&l);
	}
}

/* Feed a body cut once at k, then finish: the offers stream of the named provider. */
static enum gr_err
stream_cut(const char *provider, const char *b, size_t len, size_t k, bool spot,
    struct offer_list *out, struct gr_error *err)
{
	const struct offer_stream_kind *kind = &lambda_offer_kind;
	const void *arg = NULL;
	struct offer_stream *s;
	enum gr_err e;

	if (strcmp(provider, "runpod") == 0) {
		kind = &runpod_offer_kind;
		arg = &spot;
	} else if (strcmp(provider, "ppio") == 0) {
		kind = &ppio_product_kind;
		arg = "CNY";
	}
	s = offer_stream_new(kind, arg, out);
	offer_stream_feed(s, b, k);
	offer_stream_feed(s, b + k, len - k);
	e = offer_stream_finish(s, 200, err);
	offer_stream_free(s);
	return e;
}

/* RunPod's, Lambda's and PPIO's offers streams (RunPod's with bids: 4 on-demand, 2 spot
   offers in the recording): a body split at every byte boundary gives the same offers as
   the whole body fed at once. */
static void
test_runpod_lambda_ppio_stream_cuts(void **state)
{
	static const struct {
		const char *provider, *file;
		size_t want;
	} cases[] = {
		{ "runpod", "runpod/gpu-types.json", 6 }, { "lambda", "lambda/instance-types.json", 6 },
		{ "runpod", "runpod/gpu-types-sim.json", 0 },
		{ "lambda", "lambda/instance-types-sim.json", 0 }, { "ppio", "ppio/products.json", 0 },
	};
	struct offer_list whole, part;
	struct gr_error err = { 0 };
	size_t i, len, k;
	char *b;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b = tdata(cases[i].file, &len);
		offer_list_init(&whole);
		assert_int_equal(stream_cut(cases[i].provider, b, len, len, true, &whole, &err),
		    GR_OK);
		if (cases[i].want > 0)
			assert_int_equal(whole.n, cases[i].want);
		assert_true(whole.n > 1);
		for (k = 0; k <= len; k++) {
			offer_list_init(&part);
			assert_int_equal(stream_cut(cases[i].provider, b, len, k, true, &part, &err),
			    GR_OK);
			if (part.n != whole.n)
				fail_msg("%s cut at %zu: %zu offers, not %zu", cases[i].file, k, part.n,
				    whole.n);
			assert_memory_equal(part.v, whole.v, whole.n * sizeof(*whole.v));
			offer_list_release(&part);
		}
		offer_list_release(&whole);
		free(b);
	}
}

/* Malformed, truncated and hostile bodies: the errors the whole-body path gave, nothing
   appended, at every cut. */
static void
test_runpod_lambda_ppio_stream_errors(void **state)
{
	static const struct {
		const char *provider, *body, *msg;
		enum gr_err code;
	} cases[] = {
		{ "runpod", "", "malformed reply (not JSON)", GR_EUNAVAIL },
		{ "runpod", "<html>", "malformed reply (not JSON)", GR_EUNAVAIL },
		{ "runpod", "[1]", "malformed reply (not JSON)", GR_EUNAVAIL },
		{ "runpod", "{\"data\":{\"gpuTypes\":[{\"id\":\"A\",\"s1\":{\"stockStatus\":\"High\","
		    "\"uninterruptablePrice\":1}}", "malformed reply (not JSON)", GR_EUNAVAIL },
		{ "runpod", "{\"data\":{\"gpuTypes\":{}}}", "malformed reply (no gpuTypes)",
		    GR_EUNAVAIL },
		{ "runpod", "{\"data\":null}", "malformed reply (no gpuTypes)", GR_EUNAVAIL },
		{ "runpod", "{\"data\":{\"gpuTypes\":[{\"id\":\"A\",\"s1\":{\"stockStatus\":\"High\","
		    "\"uninterruptablePrice\":1}}]},\"errors\":[{\"message\":\"Unauthorized\"}]}",
		    "API key rejected: Unauthorized", GR_EAUTH },
		{ "runpod", "{\"errors\":[{\"message\":\"Something \\u001b[2Jbroke\"}],"
		    "\"data\":{\"gpuTypes\":[]}}", "Something [2Jbroke", GR_EFAIL },
		{ "lambda", "", "empty reply from lambda", GR_EUNAVAIL },
		{ "lambda", "{\"data\":{\"gpu_1x_a10\":{\"instance_type\":{}}", 
		    "malformed reply from lambda (not JSON)", GR_EUNAVAIL },
		{ "lambda", "{\"data\":[]}", "malformed reply (no data object)", GR_EUNAVAIL },
		{ "lambda", "[{\"data\":{}}]", "malformed reply (no data object)", GR_EUNAVAIL },
		{ "lambda", "{\"data\":{\"a\":{},}}", "malformed reply from lambda (not JSON)",
		    GR_EUNAVAIL },
		{ "ppio", "", "empty reply from ppio", GR_EUNAVAIL },
		{ "ppio", "<html>", "malformed reply from ppio (not JSON)", GR_EUNAVAIL },
		{ "ppio", "{\"data\":[{\"id\":\"p\",\"gpu\":{}}", "malformed reply from ppio (not JSON)",
		    GR_EUNAVAIL },
		{ "ppio", "{\"data\":{}}", "ppio: the product list has no data array", GR_EUNAVAIL },
		{ "ppio", "[{\"data\":[]}]", "ppio: the product list has no data array", GR_EUNAVAIL },
		{ "ppio", "{\"data\":[1,]}", "malformed reply from ppio (not JSON)", GR_EUNAVAIL },
	};
	size_t i, k, len;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = strlen(cases[i].body);
		for (k = 0; k <= len; k++) {
			struct offer_list l;
			struct gr_error err = { 0 };

			offer_list_init(&l);
			assert_int_equal(stream_cut(cases[i].provider, cases[i].body, len, k, false,
			    &l, &err), cases[i].code);
			if (strstr(err.msg, cases[i].msg) == NULL)
				fail_msg("case %zu cut %zu: '%s' lacks '%s'", i, k, err.msg,
				    cases[i].msg);
			assert_int_equal(l.n, 0);
			offer_list_release(&l);
		}
	}
}

/* Deep nesting inside a RunPod element is refused at cJSON's limit, as a whole parse is. */
static void
test_runpod_deep(void **state)
{
	struct offer_list l;
	struct gr_error err = { 0 };
	struct sb b;
	size_t d;

	(void)state;
	sb_init(&b);
	sb_adds(&b, "{\"data\":{\"gpuTypes\":[");
	for (d = 0; d < 5000; d++)
		sb_addc(&b, '[');
	for (d = 0; d < 5000; d++)
		sb_addc(&b, ']');
	sb_adds(&b, "]}}");
	offer_list_init(&l);
	assert_int_equal(runpod_parse_gpu_types(b.buf, b.len, false, &l, &err), GR_EUNAVAIL);
	assert_non_null(strstr(err.msg, "malformed reply (not JSON)"));
	offer_list_release(&l);
	sb_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_nested_path),
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_streams_early),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_pick_depth),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_vast_stream_cuts),
		cmocka_unit_test(test_vast_stream_errors),
		cmocka_unit_test(test_runpod_lambda_ppio_stream_cuts),
		cmocka_unit_test(test_runpod_lambda_ppio_stream_errors),
		cmocka_unit_test(test_runpod_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
