/*
 * test_parse_lambda.c - Lambda Cloud parsers on recorded payloads, malformed ones included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backends_parse.h"
#include "tdata.h"

static void
test_instance_types(void **state)
{
	struct offer_list l;
	struct gr_error err = { 0 };
	const struct offer *o;
	size_t len, i;
	char *b = tdata("lambda/instance-types.json", &len);

	(void)state;
	offer_list_init(&l);
	assert_int_equal(lambda_parse_instance_types(b, len, &l, &err), GR_OK);
	/* 8x H100 in 2 regions, 8x A100 with none, GH200 1, B200 1, the unknown type 1; no CPU. */
	assert_int_equal(l.n, 6);
	o = find_offer(&l, "lambda:gpu_8x_h100_sxm5@us-east-1");
	assert_non_null(o);
	assert_string_equal(o->gpu->id, "H100-SXM-80GB");
	assert_int_equal(o->gpu_count, 8);
	assert_int_equal(o->price_hour, 31920000);		/* cents x 10,000 */
	assert_int_equal(o->cpu_cores, 208);
	assert_int_equal(o->disk_gb, 24780);
	assert_string_equal(o->region, "na");
	assert_int_equal(o->interconnect, IC_NVLINK);
	assert_int_equal(o->available, 1);
	assert_false(o->valid & OV_RELIABILITY);
	o = find_offer(&l, "lambda:gpu_8x_h100_sxm5@europe-central-1");
	assert_string_equal(o->region, "eu");
	o = find_offer(&l, "lambda:gpu_8x_a100");		/* listed, no capacity */
	assert_non_null(o);
	assert_int_equal(o->available, 0);
	assert_string_equal(o->gpu->id, "A100-SXM-40GB");	/* the description's SXM4 wins */
	o = find_offer(&l, "lambda:gpu_1x_gh200@us-west-1");
	assert_string_equal(o->gpu->id, "GH200-96GB");		/* 1.5.x: no gpu_description */
	assert_int_equal(o->gpu_count, 1);
	for (i = 0; i < l.n; i++) {
		assert_null(strchr(l.v[i].id, '\033'));
		assert_null(strchr(l.v[i].location, '\007'));
		if (strncmp(l.v[i].id, "lambda:gpu_8x_b200_sxm6", 23) == 0)
			assert_string_equal(l.v[i].gpu->id, "B200-SXM-180GB");
		if (strncmp(l.v[i].id, "lambda:gpu_1x_future9000", 24) == 0) {
			assert_null(l.v[i].gpu);
			assert_int_equal(l.v[i].vram_gb, 999);
		}
	}
	offer_list_release(&l);
	free(b);
}

static void
test_instances(void **state)
{
	struct instance_list l;
	struct gr_error err = { 0 };
	size_t len;
	char *b = tdata("lambda/instances.json", &len);

	(void)state;
	instance_list_init(&l);
	assert_int_equal(lambda_parse_instances(b, len, &l, &err), GR_OK);
	assert_int_equal(l.n, 5);
	assert_string_equal(l.v[0].id, "lambda:0920582c7ff041399e34823a0be62549");
	assert_int_equal(l.v[0].state, ST_RUNNING);
	assert_string_equal(l.v[0].gpu->id, "H100-PCIE-80GB");
	assert_int_equal(l.v[0].price_hour, 3290000);
	assert_string_equal(l.v[0].ssh_user, "ubuntu");
	assert_int_equal(l.v[0].ssh_port, 22);
	assert_false(l.v[0].valid & IV_CREATED);		/* Lambda never says */
	assert_int_equal(l.v[1].state, ST_PROVISIONING);
	assert_string_equal(l.v[1].label, "");
	assert_false(l.v[1].valid & IV_SSH);
	assert_int_equal(l.v[2].state, ST_RUNNING);		/* unhealthy: running, with a note */
	assert_non_null(strstr(l.v[2].status_msg, "unhealthy"));
	assert_int_equal(l.v[3].state, ST_FAILED);
	assert_int_equal(l.v[4].state, ST_UNKNOWN);
	assert_string_equal(l.v[4].status_msg, "weird-new-state");
	instance_list_release(&l);
	free(b);

	b = tdata("lambda/instances-truncated.json", &len);
	instance_list_init(&l);
	assert_int_equal(lambda_parse_instances(b, len, &l, &err), GR_EUNAVAIL);
	instance_list_release(&l);
	free(b);

	/* One instance is a "data" object with an id; anything else is malformed. */
	{
		static const char list[] = "{\"data\": []}", bare[] = "{\"data\": {\"name\": \"x\"}}";
		struct instance in;

		gr_error_clear(&err);
		assert_int_equal(lambda_parse_instance(list, sizeof(list) - 1, &in, &err),
		    GR_EUNAVAIL);
		assert_string_equal(err.msg, "malformed reply (no data object)");
		gr_error_clear(&err);
		assert_int_equal(lambda_parse_instance(bare, sizeof(bare) - 1, &in, &err),
		    GR_EUNAVAIL);
		assert_string_equal(err.msg, "malformed reply (instance without id)");
	}
}

static void
test_launch_keys_errors(void **state)
{
	struct gr_error err = { 0 };
	char id[64], names[4][65];
	size_t len, n;
	char *b;
	int count;
	char tok[32];

	(void)state;
	b = tdata("lambda/launch.json", &len);
	assert_int_equal(lambda_parse_launch(b, len, id, sizeof(id), &err), GR_OK);
	assert_string_equal(id, "0920582c7ff041399e34823a0be62549");
	free(b);
	b = tdata("lambda/ssh-keys.json", &len);
	assert_int_equal(lambda_parse_ssh_keys(b, len, names, 4, &n, &err), GR_OK);
	assert_int_equal(n, 2);
	assert_string_equal(names[1], "desktop");
	free(b);
	b = tdata("lambda/error-capacity.json", &len);
	assert_int_equal(lambda_parse_error(400, b, len, &err), GR_ECAPACITY);
	assert_non_null(strstr(err.msg, "Not enough capacity"));
	free(b);
	gr_error_clear(&err);
	b = tdata("lambda/error-invalid-key.json", &len);
	assert_int_equal(lambda_parse_error(401, b, len, &err), GR_EAUTH);
	free(b);
	gr_error_clear(&err);
	b = tdata("lambda/error-429.html", &len);
	assert_int_equal(lambda_parse_error(429, b, len, &err), GR_ERATELIMIT);
	free(b);
	gr_error_clear(&err);
	assert_int_equal(lambda_parse_error(404, "{\"error\": {\"code\": "
	    "\"global/object-does-not-exist\", \"message\": \"Specified instance does not "
	    "exist.\"}}", 100, &err), GR_ENOTFOUND);
	assert_true(lambda_type_split("gpu_8x_a100_80gb_sxm4", &count, tok, sizeof(tok)));
	assert_int_equal(count, 8);
	assert_string_equal(tok, "a100_80gb_sxm4");
	assert_false(lambda_type_split("cpu_4x_general", &count, tok, sizeof(tok)));
	assert_false(lambda_type_split("gpu_x_a", &count, tok, sizeof(tok)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instance_types),
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_launch_keys_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
