/*
 * test_parse_ppio.c - PPIO GPU API v2 parsers on payloads shaped after the documented
 * examples (../shared/providers/ppio.md), malformed and hostile ones included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "backends_parse.h"
#include "tdata.h"

static void
test_scaled(void **state)
{
	cJSON *j = cJSON_Parse("[12600, \"12600\", 12.5, -1, 1e300, \"12.6\", \"\", "
	    "\"99999999999999999999\", 9007199254740993, 1]");
	int64_t m;

	(void)state;
	/* 12600 at precision 3 is 12.600: 12,600,000 micro-units, exactly. */
	assert_true(ppio_scaled(cJSON_GetArrayItem(j, 0), 3, &m));
	assert_int_equal(m, 12600000);
	assert_true(ppio_scaled(cJSON_GetArrayItem(j, 1), 3, &m));
	assert_int_equal(m, 12600000);
	assert_true(ppio_scaled(cJSON_GetArrayItem(j, 0), 0, &m));
	assert_int_equal(m, INT64_C(12600000000));
	assert_true(ppio_scaled(cJSON_GetArrayItem(j, 0), 8, &m));	/* 0.000126 */
	assert_int_equal(m, 126);
	assert_false(ppio_scaled(cJSON_GetArrayItem(j, 2), 3, &m));	/* not whole */
	assert_false(ppio_scaled(cJSON_GetArrayItem(j, 3), 3, &m));	/* negative */
	assert_false(ppio_scaled(cJSON_GetArrayItem(j, 4), 3, &m));	/* not exact */
	assert_false(ppio_scaled(cJSON_GetArrayItem(j, 5), 3, &m));	/* a decimal string */
	assert_false(ppio_scaled(cJSON_GetArrayItem(j, 6), 3, &m));
	assert_false(ppio_scaled(cJSON_GetArrayItem(j, 7), 3, &m));	/* overflows */
	assert_false(ppio_scaled(cJSON_GetArrayItem(j, 8), 3, &m));	/* past 2^53 */
	assert_false(ppio_scaled(cJSON_GetArrayItem(j, 9), -1, &m));
	assert_false(ppio_scaled(cJSON_GetArrayItem(j, 9), 13, &m));
	assert_false(ppio_scaled(NULL, 3, &m));
	/* The largest whole number that fits at precision 0 overflows micro-units: refused. */
	cJSON_Delete(j);
	j = cJSON_Parse("[\"9223372036854775807\"]");
	assert_false(ppio_scaled(cJSON_GetArrayItem(j, 0), 0, &m));
	cJSON_Delete(j);
}

static void
test_products(void **state)
{
	struct offer_list l;
	struct gr_error err = { 0 };
	const struct offer *o;
	size_t len, i;
	char *b = tdata("ppio/products.json", &len);

	(void)state;
	offer_list_init(&l);
	assert_int_equal(ppio_parse_products(b, len, "CNY", &l, &err), GR_OK);
	/* A100: 2 regions x 4 counts x (postpaid, spot) = 16; H20 postpaid 2 and 4 = 2;
	   4090D 1; the hostile product's one good region 1 x 4 counts. */
	o = find_offer(&l, "ppio:prod-a100-80g@c-east-1:1");
	assert_non_null(o);
	assert_int_equal(o->price_hour, 12600000);
	assert_string_equal(o->currency, "CNY");
	assert_int_equal(o->type, OFFER_ON_DEMAND);
	assert_null(o->gpu);			/* "A100" at 80 GB is SXM or PCIe: unknown */
	assert_string_equal(o->gpu_raw, "A100");
	assert_int_equal(o->vram_gb, 80);
	assert_string_equal(o->region, "c-east-1");
	assert_non_null(strstr(o->location, ", CN"));
	assert_int_equal(o->available, 1);
	assert_int_equal(o->cpu_cores, 16);
	o = find_offer(&l, "ppio:prod-a100-80g@cn-south-1:8");
	assert_non_null(o);
	assert_int_equal(o->price_hour, 8 * 12600000);	/* per GPU-hour, times 8 */
	assert_int_equal(o->available, 0);		/* 8 > max_available 6 */
	assert_int_equal(o->cpu_cores, 128);
	assert_int_equal(o->ram_gb, 1024);
	assert_int_equal(o->disk_gb, 500);
	assert_string_equal(o->location, "\xe5\x8d\x8e\xe5\x8d\x97 cn-south-1, CN");	/* 华南 */
	o = find_offer(&l, "ppio:prod-a100-80g@cn-south-1:2s");
	assert_non_null(o);
	assert_int_equal(o->type, OFFER_INTERRUPTIBLE);
	assert_int_equal(o->price_hour, 2 * 6300000);
	/* H20: precision 4 and a string price; min 2, max 4; no spot. */
	o = find_offer(&l, "ppio:prod-h20@cn-north-1:2");
	assert_non_null(o);
	assert_int_equal(o->price_hour, 2 * 12345600);
	assert_non_null(o->gpu);
	assert_string_equal(o->gpu->id, "H20");
	assert_null(find_offer(&l, "ppio:prod-h20@cn-north-1:1"));
	assert_null(find_offer(&l, "ppio:prod-h20@cn-north-1:2s"));
	o = find_offer(&l, "ppio:prod-4090d@cn-southwest-1:1");
	assert_non_null(o);
	assert_int_equal(o->price_hour, 2000000);
	assert_int_equal(o->available, 0);		/* not deployable */
	/* Prices that are not exact whole numbers, and ids unsafe in a URL, make no offer. */
	for (i = 0; i < l.n; i++) {
		assert_null(strstr(l.v[i].id, "fraction"));
		assert_null(strstr(l.v[i].id, "negative"));
		assert_null(strstr(l.v[i].id, "huge"));
		assert_null(strstr(l.v[i].id, "bigprec"));
		assert_null(strstr(l.v[i].id, "prod-string"));
		assert_null(strstr(l.v[i].id, "evil"));
		assert_null(strchr(l.v[i].id, '\033'));
		assert_null(strchr(l.v[i].gpu_raw, '\033'));
		assert_null(strchr(l.v[i].gpu_raw, '\007'));
		assert_null(strchr(l.v[i].location, '\033'));
		assert_null(strchr(l.v[i].region, '/'));
	}
	assert_int_equal(l.n, 16 + 2 + 1);
	offer_list_release(&l);
	free(b);
}

static void
test_offer_ids(void **state)
{
	char p[64], r[32], id[80];
	int n;
	bool spot;

	(void)state;
	ppio_offer_id(id, sizeof(id), "prod-a", "cn-east-1", 4, true);
	assert_string_equal(id, "ppio:prod-a@cn-east-1:4s");
	assert_true(ppio_offer_id_parse(id + 5, p, sizeof(p), r, sizeof(r), &n, &spot));
	assert_string_equal(p, "prod-a");
	assert_string_equal(r, "cn-east-1");
	assert_int_equal(n, 4);
	assert_true(spot);
	assert_true(ppio_offer_id_parse("prod-a:2", p, sizeof(p), r, sizeof(r), &n, &spot));
	assert_string_equal(r, "");
	assert_false(spot);
	assert_false(ppio_offer_id_parse("prod-a", p, sizeof(p), r, sizeof(r), &n, &spot));
	assert_false(ppio_offer_id_parse("prod-a:0", p, sizeof(p), r, sizeof(r), &n, &spot));
	assert_false(ppio_offer_id_parse("prod-a:2x", p, sizeof(p), r, sizeof(r), &n, &spot));
	assert_false(ppio_offer_id_parse(":2", p, sizeof(p), r, sizeof(r), &n, &spot));
	assert_false(ppio_offer_id_parse("@r:2", p, sizeof(p), r, sizeof(r), &n, &spot));
	assert_false(ppio_offer_id_parse("p@:2", p, sizeof(p), r, sizeof(r), &n, &spot));
	assert_false(ppio_offer_id_parse("../x:2", p, sizeof(p), r, sizeof(r), &n, &spot));
	assert_false(ppio_offer_id_parse("p@a/b:2", p, sizeof(p), r, sizeof(r), &n, &spot));
	assert_false(ppio_offer_id_parse("p:99999", p, sizeof(p), r, sizeof(r), &n, &spot));
}

static void
test_instance(void **state)
{
	struct instance in;
	struct gr_error err = { 0 };
	size_t len;
	char *b = tdata("ppio/instance.json", &len);

	(void)state;
	assert_int_equal(ppio_parse_instance(b, len, &in, &err), GR_OK);
	assert_string_equal(in.id, "ppio:ca338f12f3");
	assert_string_equal(in.label, "my-inst");
	assert_int_equal(in.state, ST_RUNNING);
	assert_int_equal(in.type, OFFER_INTERRUPTIBLE);
	assert_int_equal(in.gpu_count, 2);
	assert_int_equal(in.disk_gb, 100);
	assert_string_equal(in.region, "cn-south-1");
	assert_string_equal(in.offer_id, "ppio:prod-a100-80g@cn-south-1:2s");
	assert_true(in.valid & IV_SSH);
	assert_string_equal(in.ssh_host, "proxy.cn-south-nas-1.gpu-instance.ppinfra.com");
	assert_int_equal(in.ssh_port, 51039);
	assert_string_equal(in.ssh_user, "root");
	assert_int_equal(in.created_at, 1714464000);
	assert_int_equal(in.state_since, 1714464100);
	assert_false(in.valid & IV_PRICE);	/* v2 reports none: the backend adds it */
	free(b);
	/* Wrapped in "data", and no id at all. */
	assert_int_equal(ppio_parse_instance("{\"data\":{\"id\":\"x1\"}}", 20, &in, &err), GR_OK);
	assert_string_equal(in.id, "ppio:x1");
	assert_int_equal(in.state, ST_UNKNOWN);
	assert_int_equal(ppio_parse_instance("{\"name\":\"x\"}", 12, &in, &err), GR_EUNAVAIL);
	gr_error_clear(&err);
	assert_int_equal(ppio_parse_instance("{\"id\":", 6, &in, &err), GR_EUNAVAIL);
	gr_error_clear(&err);
	/* A hostile ssh command: no shell metacharacters reach the host or the user. */
	{
		const char *h = "{\"id\":\"y\",\"status\":{\"status\":\"running\"},\"tools\":{\"ssh\":"
		    "{\"command\":\"ssh -p 22 -oProxyCommand=x@evil;rm\"}}}";

		assert_int_equal(ppio_parse_instance(h, strlen(h), &in, &err), GR_OK);
		assert_false(in.valid & IV_SSH);
		h = "{\"id\":\"y\",\"tools\":{\"ssh\":{\"command\":\"ssh -p 99999 root@h\"}}}";
		assert_int_equal(ppio_parse_instance(h, strlen(h), &in, &err), GR_OK);
		assert_false(in.valid & IV_SSH);
	}
}

static void
test_instances_and_states(void **state)
{
	struct instance_list l;
	struct gr_error err = { 0 };
	char cursor[64];
	bool more;
	size_t len;
	char *b = tdata("ppio/instances-page1.json", &len);

	(void)state;
	instance_list_init(&l);
	assert_int_equal(ppio_parse_instances(b, len, &l, cursor, sizeof(cursor), &more, &err),
	    GR_OK);
	assert_int_equal(l.n, 4);
	assert_true(more);
	assert_string_equal(cursor, "eyJvZmZzZXQiOjV9");
	assert_int_equal(l.v[0].state, ST_PROVISIONING);	/* pulling, never started */
	assert_string_equal(l.v[0].offer_id, "ppio:prod-h20:1");
	assert_int_equal(l.v[1].state, ST_STARTING);		/* pulling after a start */
	assert_int_equal(l.v[2].state, ST_FAILED);
	assert_non_null(strstr(l.v[2].status_msg, "image pull failed"));
	assert_int_equal(l.v[3].state, ST_UNKNOWN);
	assert_non_null(strstr(l.v[3].status_msg, "hibernating"));	/* the raw status */
	/* A cursor too long for the buffer is refused, never cut. */
	assert_int_equal(ppio_parse_instances(b, len, &l, cursor, 8, &more, &err), GR_EUNAVAIL);
	gr_error_clear(&err);
	/* has_more without a cursor is the last page. */
	assert_int_equal(ppio_parse_instances("{\"data\":[],\"has_more\":true}", 27, &l, cursor,
	    sizeof(cursor), &more, &err), GR_OK);
	assert_false(more);
	assert_int_equal(ppio_parse_instances("{\"data\":{}}", 11, &l, cursor, sizeof(cursor),
	    &more, &err), GR_EUNAVAIL);
	instance_list_release(&l);
	free(b);
	assert_int_equal(ppio_state("toStop", "", 1), ST_STOPPING);
	assert_int_equal(ppio_state("exited", NULL, 1), ST_STOPPED);
	assert_int_equal(ppio_state("removed", "", 1), ST_DESTROYED);
	assert_int_equal(ppio_state("freezing", "", 1), ST_STOPPING);
	assert_int_equal(ppio_state("migrating", "", 1), ST_PROVISIONING);
	assert_int_equal(ppio_state("running", "oom", 1), ST_FAILED);
}

static void
test_create_and_errors(void **state)
{
	struct gr_error err = { 0 };
	char id[80];
	static const struct {
		long status;
		const char *body;
		enum gr_err want;
	} cases[] = {
		{ 400, "{\"code\":400,\"reason\":\"INSUFFICIENT_RESOURCE\",\"message\":\"no stock\"}",
		  GR_ECAPACITY },
		{ 400, "{\"code\":400,\"reason\":\"RESOURCE_NOT_FOUND\",\"message\":\"gone\"}",
		  GR_ENOTFOUND },
		{ 400, "{\"reason\":\"BALANCE_NOT_ENOUGH\"}", GR_EFUNDS },
		{ 400, "{\"reason\":\"CONFLICT\",\"message\":\"busy\"}", GR_ECONFLICT },
		{ 400, "{\"reason\":\"VALIDATOR_PARAM\",\"message\":\"bad\"}", GR_EUSAGE },
		{ 400, "{\"reason\":\"PREPAID_INSTANCE_NOT_SUPPORT_RELEASE\"}", GR_EUNSUPPORTED },
		{ 401, "{\"reason\":\"UNAUTHORIZED\"}", GR_EAUTH },
		{ 403, "{\"error\":\"forbidden\"}", GR_EAUTH },
		{ 429, "{\"reason\":\"RATE_LIMIT_EXCEEDED\"}", GR_ERATELIMIT },
		{ 502, "<html><body>Bad Gateway</body></html>", GR_EUNAVAIL },
		{ 500, "{\"reason\":\"UNKNOWN\"}", GR_EUNAVAIL },
		{ 400, "{\"error\":{\"message\":\"nested\",\"reason\":\"OPERATION_LIMIT\"}}",
		  GR_ECAPACITY },
		{ 400, "not json at all", GR_EUSAGE },
		{ 404, "", GR_ENOTFOUND },
		{ 200, "{}", GR_OK },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gr_error_clear(&err);
		assert_int_equal(ppio_parse_error(cases[i].status, cases[i].body,
		    strlen(cases[i].body), &err), cases[i].want);
	}
	gr_error_clear(&err);
	ppio_parse_error(400, "{\"reason\":\"X\",\"message\":\"a\\u001b[2Jb\"}", 38, &err);
	assert_null(strchr(err.msg, '\033'));
	gr_error_clear(&err);
	assert_int_equal(ppio_parse_create("{\"id\":\"ca338f12f3\"}", 19, id, sizeof(id), &err),
	    GR_OK);
	assert_string_equal(id, "ca338f12f3");
	assert_int_equal(ppio_parse_create("{\"id\":\"../x\"}", 13, id, sizeof(id), &err),
	    GR_EUNAVAIL);
	gr_error_clear(&err);
	assert_int_equal(ppio_parse_create("{\"id\":\"\"}", 9, id, sizeof(id), &err),
	    GR_EUNAVAIL);
	gr_error_clear(&err);
	assert_int_equal(ppio_parse_create("{}", 2, id, sizeof(id), &err), GR_EUNAVAIL);
	gr_error_clear(&err);
	assert_int_equal(ppio_parse_create("[", 1, id, sizeof(id), &err), GR_EUNAVAIL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scaled),
		cmocka_unit_test(test_products),
		cmocka_unit_test(test_offer_ids),
		cmocka_unit_test(test_instance),
		cmocka_unit_test(test_instances_and_states),
		cmocka_unit_test(test_create_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
