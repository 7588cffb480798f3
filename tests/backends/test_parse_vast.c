/*
 * test_parse_vast.c - vast.ai parsers on recorded payloads, malformed ones included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "backends_parse.h"
#include "gpurent/filter.h"
#include "tdata.h"

static void
test_offers(void **state)
{
	struct offer_list l;
	struct gr_error err = { 0 };
	const struct offer *o;
	size_t len;
	char *b = tdata("vast/offers.json", &len);

	(void)state;
	offer_list_init(&l);
	assert_int_equal(vast_parse_offers(b, len, OFFER_ON_DEMAND, &l, &err), GR_OK);
	/* Entries without an id, without GPUs or not objects are skipped. */
	assert_int_equal(l.n, 5);
	o = find_offer(&l, "vast:4242");
	assert_non_null(o);
	assert_non_null(o->gpu);
	assert_string_equal(o->gpu->id, "H100-SXM-80GB");
	assert_string_equal(o->gpu_raw, "H100 SXM");
	assert_int_equal(o->gpu_count, 8);
	assert_int_equal(o->vram_gb, 80);
	assert_true(o->valid & OV_PRICE);
	assert_int_equal(o->price_hour, 17602083);	/* dph_total, storage included */
	assert_int_equal(o->storage_gb_month, 150000);
	assert_string_equal(o->region, "na");
	assert_string_equal(o->location, "Texas, US");
	assert_int_equal(o->reliability_bp, 9953);
	assert_int_equal(o->cpu_cores, 192);
	assert_int_equal(o->ram_gb, 2064);
	assert_int_equal(o->disk_gb, 1500);
	assert_int_equal(o->net_down_mbps, 9501);
	assert_int_equal(o->interconnect, IC_NVLINK);
	assert_int_equal(o->available, 1);

	o = find_offer(&l, "vast:17");
	assert_non_null(o);
	assert_string_equal(o->gpu->id, "A100-SXM-40GB");	/* split by gpu_ram */
	assert_int_equal(o->price_hour, 410000);		/* a decimal string */
	assert_string_equal(o->location, "");
	assert_int_equal(o->available, 0);
	assert_false(o->valid & OV_NET);			/* unknown, not zero */
	assert_false(o->valid & OV_RAM);
	assert_int_equal(o->interconnect, IC_UNKNOWN);

	o = find_offer(&l, "vast:18");
	assert_string_equal(o->gpu->id, "V100-SXM2-16GB");
	assert_false(o->valid & OV_RELIABILITY);		/* 1.5 is not a reliability */
	assert_string_equal(o->region, "na");
	assert_int_equal(o->interconnect, IC_PCIE);

	o = find_offer(&l, "vast:19");
	assert_string_equal(o->gpu->id, "RTX4090D");		/* RTX 4090D is not a 4090 */
	assert_string_equal(o->gpu_raw, "RTX 4090D");

	o = find_offer(&l, "vast:20");
	assert_null(strchr(o->gpu_raw, '\033'));		/* sanitized */
	assert_false(o->valid & OV_PRICE);			/* a negative price is no price */
	offer_list_release(&l);
	free(b);
}

static void
test_offers_sim(void **state)
{
	struct offer_list l;
	struct gr_error err = { 0 };
	size_t len, i;
	char *b = tdata("vast/offers-sim.json", &len);

	(void)state;
	offer_list_init(&l);
	assert_int_equal(vast_parse_offers(b, len, OFFER_ON_DEMAND, &l, &err), GR_OK);
	assert_int_equal(l.n, 3);
	for (i = 0; i < l.n; i++) {
		assert_non_null(l.v[i].gpu);
		assert_int_equal(l.v[i].gpu_count, 8);
		assert_true(l.v[i].valid & OV_PRICE);
	}
	offer_list_release(&l);
	free(b);
}

/*
 * The stream parses each offer with only the members vast_offer_from_json reads (jpick): the
 * same offers as mapping each element of a whole parse, on replies with every field a real
 * offer has. A member read but not picked would go missing here.
 */
static void
test_offers_picked(void **state)
{
	static const char *const files[] = {
		"vast/offers-full.json", "vast/offers.json", "vast/offers-sim.json",
		"vast/offers-names.json", NULL,
	};
	/* no dph_total: the price from min_bid or dph_base and storage_total_cost */
	static const char composed[] = "{\"offers\":[{\"id\":7,\"num_gpus\":1,\"gpu_name\":"
	    "\"RTX 4090\",\"min_bid\":0.2,\"dph_base\":0.3,\"storage_total_cost\":0.01}]}";
	static const enum offer_type types[] = { OFFER_ON_DEMAND, OFFER_INTERRUPTIBLE };
	size_t f, t, i, len;

	(void)state;
	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char *b = files[f] != NULL ? tdata(files[f], &len) : strdup(composed);

		if (files[f] == NULL)
			len = strlen(b);
		cJSON *whole = cJSON_ParseWithLength(b, len), *e;

		assert_non_null(whole);
		for (t = 0; t < 2; t++) {
			struct offer_list l;
			struct gr_error err = { 0 };

			offer_list_init(&l);
			assert_int_equal(vast_parse_offers(b, len, types[t], &l, &err), GR_OK);
			i = 0;
			cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(whole, "offers")) {
				struct offer want;

				if (!cJSON_IsObject(e))
					continue;
				memset(&want, 0, sizeof(want));
				vast_offer_from_json(e, types[t], &want);
				if (want.id[0] == '\0' || want.gpu_count <= 0)
					continue;
				assert_true(i < l.n);
				if (memcmp(&want, &l.v[i], sizeof(want)) != 0)
					fail_msg("%s: offer %s maps otherwise when picked",
					    files[f] != NULL ? files[f] : "composed", want.id);
				i++;
			}
			assert_int_equal(i, l.n);
			assert_true(l.n > 0);
			offer_list_release(&l);
		}
		cJSON_Delete(whole);
		free(b);
	}
}

static void
test_offers_malformed(void **state)
{
	static const char *const files[] = { "vast/offers-malformed.json",
		"vast/offers-wrongshape.json", "vast/error-429.txt" };
	struct offer_list l;
	size_t len, i;
	char *b;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct gr_error err = { 0 };

		b = tdata(files[i], &len);
		offer_list_init(&l);
		assert_int_equal(vast_parse_offers(b, len, OFFER_ON_DEMAND, &l, &err), GR_EUNAVAIL);
		assert_int_equal(l.n, 0);
		assert_true(strlen(err.msg) > 0);
		offer_list_release(&l);
		free(b);
	}
	{
		struct gr_error err = { 0 };

		offer_list_init(&l);
		assert_int_equal(vast_parse_offers("", 0, OFFER_ON_DEMAND, &l, &err), GR_EUNAVAIL);
		offer_list_release(&l);
	}
}

static void
test_errors(void **state)
{
	struct gr_error err = { 0 };
	size_t len;
	char *b;

	(void)state;
	b = tdata("vast/error-429.txt", &len);
	assert_int_equal(vast_parse_error(429, b, len, &err), GR_ERATELIMIT);
	free(b);
	gr_error_clear(&err);
	/* "Invalid user key" is an authentication failure whatever the status. */
	b = tdata("vast/error-invalid-key.json", &len);
	assert_int_equal(vast_parse_error(404, b, len, &err), GR_EAUTH);
	assert_non_null(strstr(err.msg, "Invalid user key"));
	free(b);
	gr_error_clear(&err);
	b = tdata("vast/error-no-such-ask.json", &len);
	assert_int_equal(vast_parse_error(404, b, len, &err), GR_ECAPACITY);
	free(b);
	gr_error_clear(&err);
	assert_int_equal(vast_parse_error(200, "{\"success\": true}", 17, &err), GR_OK);
	assert_int_equal(vast_parse_error(200, "{\"success\": false, \"msg\": \"nope\"}", 33, &err),
	    GR_EFAIL);
	gr_error_clear(&err);
	assert_int_equal(vast_parse_error(502, "<html>", 6, &err), GR_EUNAVAIL);
	gr_error_clear(&err);
	assert_int_equal(vast_parse_error(404, "{\"success\": false, \"error\": \"no_such_instance\"}",
	    47, &err), GR_ENOTFOUND);
	/* 409 is a state conflict, unless vast says the machine has no room (capacity). */
	gr_error_clear(&err);
	{
		static const char busy[] = "{\"success\": false, \"error\": \"resources_unavailable\"}";
		static const char conflict[] = "{\"success\": false, \"error\": \"state_conflict\"}";

		assert_int_equal(vast_parse_error(409, busy, sizeof(busy) - 1, &err), GR_ECAPACITY);
		gr_error_clear(&err);
		assert_int_equal(vast_parse_error(409, conflict, sizeof(conflict) - 1, &err),
		    GR_ECONFLICT);
	}
}

/* GET /api/v0/charges/ (providers/vast.md §5.2), then what a hostile reply may hold. */
static void
test_charges(void **state)
{
	static const char *const bad[] = {
		"", "[]", "{}", "null", "{\"results\": {}}",
		"{\"success\": false, \"msg\": \"invalid date range\", \"results\": []}",
		"{\"results\": [{\"source\": \"instance-1\", \"start\": 0}]}",
		"{\"results\": [{\"source\": \"instance-1\", \"start\": 0, \"amount\": -2}]}",
		"{\"results\": [{\"source\": \"instance-1\", \"start\": 0, \"amount\": 1e300}]}",
		"{\"results\": [{\"source\": \"instance-1\", \"start\": -5, \"amount\": 1}]}",
		"{\"results\": [{\"source\": \"instance-1\", \"start\": 1e30, \"amount\": 1}]}",
		"{\"results\": [{\"source\": \"instance-\", \"start\": 0, \"amount\": 1}]}",
		"{\"results\": [{\"source\": \"instance-1x\", \"start\": 0, \"amount\": 1}]}",
		"{\"results\": [{\"source\": \"instance-99999999999999999999\", \"start\": 0, \"amount\": 1}]}",
		"{\"results\": [{\"source\": \"instance-1\", \"start\": \"x\", \"amount\": 1}]}",
		"{\"results\": [{\"source\": \"instance-1\", \"start\": 0, \"amount\": \"NaN\"}]}",
		"{\"results\": [{\"source\": \"instance-1\", \"start\": 0, \"amount\": 1}",
	};
	struct gr_error err = { 0 };
	struct charge_list l;
	char tok[64];
	size_t len, i;
	char *b;
	const char *one;

	(void)state;
	charge_list_init(&l);
	b = tdata("vast/charges.json", &len);
	assert_int_equal(vast_parse_charges(b, len, &l, tok, sizeof(tok), &err), GR_OK);
	free(b);
	assert_string_equal(tok, "eyJpZCI6IDk5fQ==");
	/* The volume is no instance; the rest in order, each on the UTC day of its start. */
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].instance_id, "vast:7835610");
	assert_int_equal(l.v[0].day, 1796083200);
	assert_int_equal(l.v[0].amount, 3840000);
	assert_int_equal(l.v[0].storage, 240000);	/* both disk items, not the GPU's */
	assert_string_equal(l.v[0].currency, "USD");
	assert_int_equal(l.v[1].day, 1796169600);	/* half a second into the day */
	assert_int_equal(l.v[1].amount, 1250000);
	assert_int_equal(l.v[1].storage, 0);		/* items, none of them disk */
	assert_string_equal(l.v[2].instance_id, "vast:42");
	assert_int_equal(l.v[2].amount, 1);
	assert_int_equal(l.v[2].storage, -1);		/* no items: not said */
	/* A disk item that cannot be read makes the storage unknown, never 0. */
	one = "{\"results\": [{\"source\": \"instance-3\", \"start\": 0, \"amount\": 1, "
	    "\"items\": [{\"type\": \"disk\", \"amount\": -1}]}]}";
	assert_int_equal(vast_parse_charges(one, strlen(one), &l, tok, sizeof(tok), &err), GR_OK);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.v[3].storage, -1);
	assert_string_equal(tok, "");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gr_error_clear(&err);
		assert_int_equal(vast_parse_charges(bad[i], strlen(bad[i]), &l, tok, sizeof(tok),
		    &err), GR_EUNAVAIL);
		assert_int_equal(l.n, 4);	/* nothing appended from a bad reply */
	}
	/* Two pages of one instance and day fold into one charge. */
	l.v[1].day = l.v[0].day;
	charge_list_fold(&l);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].instance_id, "vast:3");	/* by id, then day */
	assert_string_equal(l.v[2].instance_id, "vast:7835610");
	assert_int_equal(l.v[2].amount, 5090000);
	assert_int_equal(l.v[2].storage, 240000);
	/* An unknown storage part stays unknown in the sum. */
	l.v[1] = l.v[0];
	l.v[1].storage = 7;
	charge_list_fold(&l);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.v[0].amount, 2000000);
	assert_int_equal(l.v[0].storage, -1);
	charge_list_release(&l);
}

static void
test_create_and_user(void **state)
{
	struct gr_error err = { 0 };
	struct account a;
	long long c = 0;
	size_t len;
	char *b;

	(void)state;
	b = tdata("vast/create.json", &len);
	assert_int_equal(vast_parse_create(b, len, &c, &err), GR_OK);
	assert_int_equal(c, 7835610);
	free(b);
	assert_int_equal(vast_parse_create("{\"success\": true}", 17, &c, &err), GR_EUNAVAIL);
	b = tdata("vast/user.json", &len);
	assert_int_equal(vast_parse_user(b, len, &a, &err), GR_OK);
	assert_true(a.valid & AV_BALANCE);
	assert_int_equal(a.balance, 42125000);
	assert_false(a.valid & AV_SPEND);
	free(b);
}

static void
test_instances(void **state)
{
	struct instance_list l;
	struct gr_error err = { 0 };
	char tok[128];
	size_t len;
	char *b = tdata("vast/instances-page1.json", &len);

	(void)state;
	instance_list_init(&l);
	assert_int_equal(vast_parse_instances(b, len, &l, tok, sizeof(tok), &err), GR_OK);
	assert_string_equal(tok, "eyJpZCI6IDc4MzU2MTJ9");
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].id, "vast:7835610");
	assert_int_equal(l.v[0].state, ST_RUNNING);
	assert_string_equal(l.v[0].gpu->id, "H100-SXM-80GB");
	assert_int_equal(l.v[0].price_hour, 17620000);
	assert_true(l.v[0].valid & IV_SSH);
	assert_string_equal(l.v[0].ssh_host, "203.0.113.7");	/* direct */
	assert_int_equal(l.v[0].ssh_port, 41234);
	assert_string_equal(l.v[0].ssh_user, "root");
	assert_int_equal(l.v[0].util_pct, 88);
	assert_int_equal(l.v[0].created_at, 1764400000);
	assert_string_equal(l.v[0].region, "na");

	assert_int_equal(l.v[1].state, ST_PROVISIONING);
	assert_string_equal(l.v[1].label, "");
	assert_string_equal(l.v[1].ssh_host, "ssh5.vast.ai");	/* proxy, +1 for jupyter */
	assert_int_equal(l.v[1].ssh_port, 35612);
	assert_false(l.v[1].valid & IV_UTIL);
	assert_false(l.v[1].valid & IV_CREATED);

	assert_int_equal(l.v[2].state, ST_STOPPED);
	assert_int_equal(l.v[2].type, OFFER_INTERRUPTIBLE);
	assert_string_equal(l.v[2].status_msg, "outbid");	/* BEL stripped */
	assert_string_equal(l.v[2].gpu->id, "A100-PCIE-80GB");
	instance_list_release(&l);
	free(b);
}

static void
test_instance(void **state)
{
	struct instance in;
	struct gr_error err = { 0 };
	struct sample_list sl;
	size_t len;
	char *b;

	(void)state;
	b = tdata("vast/instance-null.json", &len);
	assert_int_equal(vast_parse_instance(b, len, &in, &err), GR_ENOTFOUND);
	free(b);
	gr_error_clear(&err);
	b = tdata("vast/instance-exited.json", &len);
	assert_int_equal(vast_parse_instance(b, len, &in, &err), GR_OK);
	assert_int_equal(in.state, ST_FAILED);
	assert_false(in.valid & IV_UTIL);			/* -1 is unknown */
	sample_list_init(&sl);
	assert_int_equal(vast_parse_metrics(b, len, &sl, &err), GR_OK);
	assert_int_equal(sl.n, 1);
	assert_false(sl.v[0].valid & MV_UTIL);
	assert_false(sl.v[0].valid & MV_TEMP);
	sample_list_release(&sl);
	free(b);
}

/* vast's actual/intended pair (vast.md section 4.3): the state, and the intent kept apart. */
static void
test_instance_intended(void **state)
{
	static const struct {
		const char *actual, *intended, *cur, *next;
		enum inst_state want, intent;
	} cases[] = {
		/* Told to stop while it loads: still provisioning, stopped once loaded. */
		{ "loading", "stopped", "running", "stopped", ST_PROVISIONING, ST_STOPPED },
		{ "loading", "running", "running", "running", ST_PROVISIONING, ST_RUNNING },
		{ "created", "stopped", "running", "stopped", ST_PROVISIONING, ST_STOPPED },
		{ "running", "stopped", "running", "stopped", ST_STOPPING, ST_STOPPED },
		{ "stopped", "stopped", "stopped", "stopped", ST_STOPPED, ST_STOPPED },
		{ "stopped", "running", "stopped", "running", ST_STARTING, ST_RUNNING },
		/* Outbid: meant to run, stopped, and it does not resume by itself. */
		{ "stopped", "running", "stopped", "stopped", ST_STOPPED, ST_RUNNING },
		{ "exited", "running", "running", "running", ST_FAILED, ST_RUNNING },
		/* Neither word vast uses: no intent, not a guess. */
		{ "running", "paused", "running", "running", ST_RUNNING, ST_UNKNOWN },
	};
	struct instance in;
	struct gr_error err = { 0 };
	char body[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(body, sizeof(body), "{\"instances\": {\"id\": 7, \"actual_status\": "
		    "\"%s\", \"intended_status\": \"%s\", \"cur_state\": \"%s\", "
		    "\"next_state\": \"%s\"}}", cases[i].actual, cases[i].intended, cases[i].cur,
		    cases[i].next);
		memset(&in, 0, sizeof(in));
		assert_int_equal(vast_parse_instance(body, strlen(body), &in, &err), GR_OK);
		assert_int_equal(in.state, cases[i].want);
		assert_int_equal(in.intended, cases[i].intent);
	}
	/* Without intended_status: none. */
	snprintf(body, sizeof(body), "{\"instances\": {\"id\": 7, \"actual_status\": "
	    "\"loading\"}}");
	memset(&in, 0, sizeof(in));
	assert_int_equal(vast_parse_instance(body, strlen(body), &in, &err), GR_OK);
	assert_int_equal(in.state, ST_PROVISIONING);
	assert_int_equal(in.intended, ST_UNKNOWN);
}

/* The start of a row whose uptime_mins is up (a JSON value), parsed between two clocks. */
static int64_t
started_with_uptime(const char *up, const char *actual, int64_t *before, int64_t *after)
{
	struct instance in;
	struct gr_error err = { 0 };
	char body[512];

	snprintf(body, sizeof(body), "{\"instances\": {\"id\": 7, \"actual_status\": \"%s\", "
	    "\"intended_status\": \"running\", \"cur_state\": \"running\", "
	    "\"next_state\": \"running\", \"uptime_mins\": %s}}", actual, up);
	memset(&in, 0, sizeof(in));
	*before = (int64_t)time(NULL);
	assert_int_equal(vast_parse_instance(body, strlen(body), &in, &err), GR_OK);
	*after = (int64_t)time(NULL);
	return in.state_since;
}

/* A running container's start: now less its uptime, to the nearest minute. */
static void
test_instance_started(void **state)
{
	static const char *const bad[] = { "null", "-1", "-0.5", "1e12", "\"soon\"", "\"\"",
		"true", "{}" };
	int64_t since, before, after;
	size_t i;

	(void)state;
	/* 90.4 minutes: 5424 s before now, to the minute (both ends of the parse, a minute
	   boundary may fall between them). */
	since = started_with_uptime("90.4", "running", &before, &after);
	assert_true(since == (before - 5424 + 30) / 60 * 60 ||
	    since == (after - 5424 + 30) / 60 * 60);
	assert_int_equal(since % 60, 0);
	/* A string of digits is a number to vast's clients too. */
	since = started_with_uptime("\"2\"", "running", &before, &after);
	assert_true(since == (before - 120 + 30) / 60 * 60 ||
	    since == (after - 120 + 30) / 60 * 60);
	/* Just started: 0 minutes is a start of now. */
	since = started_with_uptime("0", "running", &before, &after);
	assert_true(since == (before + 30) / 60 * 60 || since == (after + 30) / 60 * 60);
	/* Unknown, never 0 minus something or a wrapped figure. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(started_with_uptime(bad[i], "running", &before, &after), 0);
	/* A stopped container has no run; an uptime it still carries says nothing. */
	assert_int_equal(started_with_uptime("30", "stopped", &before, &after), 0);
}

/* bj_instances_add and bj_instance_read: what is not an object or has no id is no instance. */
static void
test_instances_without_id(void **state)
{
	static const char list[] = "{\"instances\": [7, {\"gpu_name\": \"RTX 4090\"}, "
	    "{\"id\": 42, \"actual_status\": \"running\"}]}";
	static const char one[] = "{\"instances\": {\"gpu_name\": \"RTX 4090\"}}";
	static const char number[] = "{\"instances\": 7}";
	struct instance_list l;
	struct instance in;
	struct gr_error err = { 0 };
	char tok[8];

	(void)state;
	instance_list_init(&l);
	assert_int_equal(vast_parse_instances(list, sizeof(list) - 1, &l, tok, sizeof(tok), &err),
	    GR_OK);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].id, "vast:42");
	instance_list_release(&l);
	assert_int_equal(vast_parse_instance(one, sizeof(one) - 1, &in, &err), GR_EUNAVAIL);
	assert_string_equal(err.msg, "malformed reply (instance without id)");
	gr_error_clear(&err);
	assert_int_equal(vast_parse_instance(number, sizeof(number) - 1, &in, &err), GR_EUNAVAIL);
	assert_string_equal(err.msg, "malformed reply (instance)");
}

static void
test_query(void **state)
{
	struct filter f;
	struct gr_error err = { 0 };
	bool all, od, bid;
	char *q;

	(void)state;
	assert_int_equal(filter_parse_str(&f, "gpu=h100 gpus>=8 price<=20 region=eu "
	    "reliability>=0.98", &err), GR_OK);
	q = vast_build_query(&f, OFFER_ON_DEMAND, 10, 100, &all);
	assert_true(all);
	assert_non_null(strstr(q, "\"gpu_name\":{\"in\":[\"H100 SXM\",\"H100 PCIE\",\"H100 NVL\"]}"));
	assert_non_null(strstr(q, "\"num_gpus\":{\"gte\":8}"));
	assert_non_null(strstr(q, "\"dph_total\":{\"lte\":20}"));
	assert_non_null(strstr(q, "\"reliability\":{\"gte\":0.98}"));
	assert_non_null(strstr(q, "\"DE\""));
	assert_non_null(strstr(q, "\"type\":\"on-demand\""));
	assert_non_null(strstr(q, "\"rentable\":{\"eq\":true}"));
	free(q);
	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_parse_str(&f, "tflops>=100 type=interruptible", &err), GR_OK);
	vast_types_wanted(&f, &od, &bid);
	assert_false(od);
	assert_true(bid);
	q = vast_build_query(&f, OFFER_INTERRUPTIBLE, 10, 100, &all);
	assert_false(all);
	assert_non_null(strstr(q, "\"type\":\"bid\""));
	free(q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offers),
		cmocka_unit_test(test_offers_sim),
		cmocka_unit_test(test_offers_picked),
		cmocka_unit_test(test_offers_malformed),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_create_and_user),
		cmocka_unit_test(test_charges),
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_instance),
		cmocka_unit_test(test_instance_intended),
		cmocka_unit_test(test_instance_started),
		cmocka_unit_test(test_instances_without_id),
		cmocka_unit_test(test_query),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
