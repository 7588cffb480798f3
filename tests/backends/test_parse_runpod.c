/*
 * test_parse_runpod.c - RunPod GraphQL parsers on recorded payloads, malformed ones included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "backends_parse.h"
#include "gpurent/filter.h"
#include "tdata.h"

static void
test_gpu_types(void **state)
{
	struct offer_list l;
	struct gr_error err = { 0 };
	const struct offer *o;
	size_t len;
	char *b = tdata("runpod/gpu-types.json", &len);

	(void)state;
	offer_list_init(&l);
	assert_int_equal(runpod_parse_gpu_types(b, len, false, &l, &err), GR_OK);
	/* In stock: H100 s1, s8; A4500 s1; MI300X c2. Not: c1 (null stock), c8 (null),
	   "unknown", MI300X s2 ("None"), the 4090 with a negative price. */
	assert_int_equal(l.n, 4);
	o = find_offer(&l, "runpod:s8-NVIDIA+H100+80GB+HBM3");
	assert_non_null(o);
	assert_string_equal(o->gpu->id, "H100-SXM-80GB");
	assert_int_equal(o->gpu_count, 8);
	assert_int_equal(o->price_hour, 8 * 2990000);		/* per GPU times count */
	assert_int_equal(o->available, 1);
	o = find_offer(&l, "runpod:s1-NVIDIA+H100+80GB+HBM3");
	assert_int_equal(o->cpu_cores, 16);
	assert_int_equal(o->ram_gb, 125);
	assert_string_equal(o->region, "na");
	assert_int_equal(o->available, 24);
	o = find_offer(&l, "runpod:s1-NVIDIA++RTX+A4500");	/* the doubled space survives */
	assert_non_null(o);
	assert_string_equal(o->gpu->id, "RTXA4500");		/* and counts as one */
	assert_string_equal(o->gpu_raw, "NVIDIA  RTX A4500");
	assert_int_equal(o->price_hour, 250000);
	assert_int_equal(o->vram_gb, 20);			/* RunPod's figure: the catalogue has none */
	o = find_offer(&l, "runpod:c2-AMD+Instinct+MI300X+OAM");
	assert_string_equal(o->gpu->id, "MI300X-192GB");
	assert_string_equal(o->region, "eu");
	offer_list_release(&l);

	offer_list_init(&l);
	assert_int_equal(runpod_parse_gpu_types(b, len, true, &l, &err), GR_OK);
	o = find_offer(&l, "runpod:s1b-NVIDIA+H100+80GB+HBM3");
	assert_non_null(o);
	assert_int_equal(o->type, OFFER_INTERRUPTIBLE);
	assert_int_equal(o->price_hour, 1750000);
	offer_list_release(&l);
	free(b);

	b = tdata("runpod/gpu-types-truncated.json", &len);
	offer_list_init(&l);
	assert_int_equal(runpod_parse_gpu_types(b, len, false, &l, &err), GR_EUNAVAIL);
	offer_list_release(&l);
	free(b);
}

static void
test_offer_ids(void **state)
{
	char id[128], tid[96];
	bool sec, spot;
	int n;

	(void)state;
	runpod_offer_id(id, sizeof(id), false, 4, true, "NVIDIA  A30+x%");
	assert_string_equal(id, "runpod:c4b-NVIDIA++A30%2Bx%25");
	assert_true(runpod_offer_id_parse(id, &sec, &n, &spot, tid, sizeof(tid)));
	assert_false(sec);
	assert_int_equal(n, 4);
	assert_true(spot);
	assert_string_equal(tid, "NVIDIA  A30+x%");
	assert_false(runpod_offer_id_parse("runpod:x1-A", &sec, &n, &spot, tid, sizeof(tid)));
	assert_false(runpod_offer_id_parse("runpod:s0-A", &sec, &n, &spot, tid, sizeof(tid)));
	assert_false(runpod_offer_id_parse("runpod:s1-", &sec, &n, &spot, tid, sizeof(tid)));
	assert_false(runpod_offer_id_parse("runpod:s1-A%G1", &sec, &n, &spot, tid, sizeof(tid)));
}

static void
test_pods(void **state)
{
	struct instance_list l;
	struct gr_error err = { 0 };
	size_t len;
	char *b = tdata("runpod/pods.json", &len);

	(void)state;
	instance_list_init(&l);
	assert_int_equal(runpod_parse_pods(b, len, &l, &err), GR_OK);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0].id, "runpod:xedezhzb9la3ye");
	assert_int_equal(l.v[0].state, ST_RUNNING);
	assert_string_equal(l.v[0].gpu->id, "H100-SXM-80GB");
	assert_int_equal(l.v[0].price_hour, 5980000);
	assert_string_equal(l.v[0].ssh_host, "194.68.245.12");	/* the public port */
	assert_int_equal(l.v[0].ssh_port, 22045);
	assert_int_equal(l.v[0].util_pct, 80);
	assert_int_equal(l.v[0].disk_gb, 70);
	/* Its 70 GB of disks at $0.10 a GB-month of 730 h: 9,589.04 micro-dollars an hour. */
	assert_int_equal(l.v[0].disk_running_hour, 9589);
	assert_string_equal(l.v[0].region, "eu");
	assert_int_equal(l.v[1].state, ST_PROVISIONING);	/* RUNNING without runtime */
	assert_int_equal(l.v[1].type, OFFER_INTERRUPTIBLE);
	assert_int_equal(l.v[1].price_hour, 740000);		/* "0.74" as a string */
	assert_false(l.v[1].valid & IV_SSH);
	assert_int_equal(l.v[2].state, ST_STOPPED);
	assert_int_equal(l.v[3].state, ST_FAILED);
	assert_false(l.v[3].valid & IV_PRICE);
	instance_list_release(&l);
	free(b);
}

static void
test_errors(void **state)
{
	struct gr_error err = { 0 };
	struct instance in;
	struct account a;
	size_t len;
	char *b;

	(void)state;
	b = tdata("runpod/deploy-nocapacity.json", &len);
	assert_int_equal(runpod_parse_error(200, b, len, &err), GR_ECAPACITY);
	assert_non_null(strstr(err.msg, "no longer any instances"));
	free(b);
	gr_error_clear(&err);
	b = tdata("runpod/terminate-unknown.json", &len);
	assert_int_equal(runpod_parse_error(200, b, len, &err), GR_ENOTFOUND);
	free(b);
	gr_error_clear(&err);
	b = tdata("runpod/unauthorized.json", &len);
	assert_int_equal(runpod_parse_error(200, b, len, &err), GR_EAUTH);
	free(b);
	gr_error_clear(&err);
	assert_int_equal(runpod_parse_error(401, "", 0, &err), GR_EAUTH);
	gr_error_clear(&err);
	b = tdata("runpod/error-502.html", &len);
	assert_int_equal(runpod_parse_error(502, b, len, &err), GR_EUNAVAIL);
	free(b);
	gr_error_clear(&err);
	b = tdata("runpod/pod-null.json", &len);
	assert_int_equal(runpod_parse_error(200, b, len, &err), GR_OK);
	assert_int_equal(runpod_parse_pod(b, len, &in, &err), GR_ENOTFOUND);
	free(b);
	gr_error_clear(&err);
	b = tdata("runpod/deploy.json", &len);
	assert_int_equal(runpod_parse_mutation(b, len, NULL, &in, &err), GR_OK);
	assert_string_equal(in.id, "runpod:newpod00000001");
	assert_int_equal(in.state, ST_PROVISIONING);
	free(b);
	{
		static const char number[] = "{\"data\": {\"pod\": 7}}";

		gr_error_clear(&err);
		assert_int_equal(runpod_parse_pod(number, sizeof(number) - 1, &in, &err),
		    GR_EUNAVAIL);
		assert_string_equal(err.msg, "malformed reply (pod)");
	}
	b = tdata("runpod/myself.json", &len);
	assert_int_equal(runpod_parse_myself(b, len, &a, &err), GR_OK);
	assert_int_equal(a.balance, -3250000);
	assert_int_equal(a.spend_hour, 6123456);
	free(b);
}

/* The start of a running pod with these members (JSON), 0 when it has none. */
static int64_t
pod_started(const char *members)
{
	struct instance in;
	char body[512];
	cJSON *pod;

	snprintf(body, sizeof(body), "{\"id\": \"p1\", \"desiredStatus\": \"RUNNING\", %s}",
	    members);
	pod = cJSON_Parse(body);
	assert_non_null(pod);
	memset(&in, 0, sizeof(in));
	runpod_pod_from_json(pod, &in);
	cJSON_Delete(pod);
	return in.state_since;
}

/*
 * When a running pod last started: lastStartedAt in each of RunPod's formats, else now less
 * the runtime's uptime to the minute; a bad value is unknown (0), never a guess.
 */
static void
test_pod_started(void **state)
{
	static const char *const bad[] = { "\"\"", "\"yesterday\"", "\"5m\"", "\"-5\"",
		"\"2024-02-30T10:00:00Z\"", "\"2024-07-12T19:14:40.144Z junk\"",
		"\"1969-12-31T23:59:59Z\"", "\"2026-10-04 11:09:24.633 +0000 CET\"", "null",
		"12345", "\"99999999999999999999\"" };
	char members[128];
	int64_t before, since;
	size_t i;

	(void)state;
	/* 2024-07-12T19:14:40Z is 1720811680 (date -ud @1720811680). */
	assert_int_equal(pod_started("\"runtime\": {}, \"lastStartedAt\": "
	    "\"2024-07-12T19:14:40.144Z\""), 1720811680);
	assert_int_equal(pod_started("\"runtime\": {}, \"lastStartedAt\": "
	    "\"2024-07-12 19:14:40.633 +0000 UTC\""), 1720811680);
	assert_int_equal(pod_started("\"runtime\": {}, \"lastStartedAt\": "
	    "\"2024-07-12 21:14:40 +0200 CEST\""), 0);
	assert_int_equal(pod_started("\"runtime\": {}, \"lastStartedAt\": "
	    "\"2024-07-12 21:14:40.5 +0200\""), 1720811680);
	assert_int_equal(pod_started("\"runtime\": {}, \"lastStartedAt\": \"1720811680\""),
	    1720811680);
	/* lastStartedAt wins over the uptime. */
	assert_int_equal(pod_started("\"runtime\": {\"uptimeInSeconds\": 60}, "
	    "\"lastStartedAt\": \"1720811680\""), 1720811680);
	/* No lastStartedAt: the runtime's uptime, 3600 s, to the minute. */
	before = (int64_t)time(NULL);
	since = pod_started("\"runtime\": {\"uptimeInSeconds\": 3600}");
	assert_true(since == (before - 3600 + 30) / 60 * 60 ||
	    since == ((int64_t)time(NULL) - 3600 + 30) / 60 * 60);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(members, sizeof(members), "\"runtime\": {}, \"lastStartedAt\": %s",
		    bad[i]);
		assert_int_equal(pod_started(members), 0);
	}
	assert_int_equal(pod_started("\"runtime\": {\"uptimeInSeconds\": -3}"), 0);
	assert_int_equal(pod_started("\"runtime\": {\"uptimeInSeconds\": 1e15}"), 0);
	/* A pod without a runtime is not running: no start, whatever lastStartedAt says. */
	assert_int_equal(pod_started("\"lastStartedAt\": \"1720811680\""), 0);
}

static void
test_query(void **state)
{
	struct filter f;
	struct gr_error err = { 0 };
	bool all;
	char *q;

	(void)state;
	assert_int_equal(filter_parse_str(&f, "gpu=h100 gpus=8", &err), GR_OK);
	q = runpod_build_offers_query(&f, &all);
	assert_true(all);
	assert_non_null(strstr(q, "s8: lowestPrice(input: {gpuCount: 8, secureCloud: true})"));
	assert_null(strstr(q, "s1:"));
	assert_non_null(strstr(q, "\"NVIDIA H100 80GB HBM3\""));
	free(q);
	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_parse_str(&f, "ram>=64", &err), GR_OK);
	q = runpod_build_offers_query(&f, &all);
	assert_false(all);
	assert_non_null(strstr(q, "c4: lowestPrice"));
	free(q);
}

/* REST v2's billing buckets per pod and day, then what a hostile reply may hold. */
static void
test_billing(void **state)
{
	static const char *const bad[] = {
		"", "{}", "null", "{\"data\": []}", "[1]", "{\"records\": {}}",
		"{\"records\": [1]}",
		"[{\"startTime\": \"2026-12-01T00:00:00Z\", \"totalAmount\": 1}]",
		"[{\"podId\": \"\", \"startTime\": \"2026-12-01T00:00:00Z\", \"totalAmount\": 1}]",
		"[{\"podId\": \"a/../b\", \"startTime\": \"2026-12-01T00:00:00Z\", \"totalAmount\": 1}]",
		"[{\"podId\": \"a\\u001b[2J\", \"startTime\": \"2026-12-01T00:00:00Z\", \"totalAmount\": 1}]",
		"[{\"podId\": \"abc\", \"startTime\": \"7d\", \"totalAmount\": 1}]",
		"[{\"podId\": \"abc\", \"startTime\": \"yesterday\", \"totalAmount\": 1}]",
		"[{\"podId\": \"abc\", \"startTime\": \"2026-12-01T00:00:00Z\", \"totalAmount\": -1}]",
		"[{\"podId\": \"abc\", \"startTime\": \"2026-12-01T00:00:00Z\", \"totalAmount\": 1e300}]",
		"[{\"podId\": \"abc\", \"startTime\": \"2026-12-01T00:00:00Z\"}]",
		"[{\"podId\": \"abcdefghijklmnopqrstuvwxyz0123456789\", \"startTime\": \"2026-12-01T00:00:00Z\", \"totalAmount\": 1}]",
		"[{\"podId\": \"abc\", \"startTime\": \"2026-12-01T00:00:00Z\", \"totalAmount\": 1}",
	};
	struct gr_error err = { 0 };
	struct charge_list l;
	size_t len, i;
	char *b;

	(void)state;
	charge_list_init(&l);
	b = tdata("runpod/billing-pods.json", &len);
	assert_int_equal(runpod_parse_billing(b, len, &l, &err), GR_OK);
	free(b);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0].instance_id, "runpod:abc123xyz789");
	assert_int_equal(l.v[0].day, 1796083200);
	assert_int_equal(l.v[0].amount, 4320000);
	assert_int_equal(l.v[0].storage, 120000);
	assert_string_equal(l.v[0].currency, "USD");
	assert_int_equal(l.v[1].day, 1796169600);	/* Go's time format, as RunPod writes it */
	assert_int_equal(l.v[1].amount, 500000);
	assert_int_equal(l.v[1].storage, -1);		/* no diskAmount: not said */
	assert_string_equal(l.v[2].instance_id, "runpod:q9");
	assert_int_equal(l.v[2].amount, 0);
	assert_int_equal(l.v[2].storage, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gr_error_clear(&err);
		assert_int_equal(runpod_parse_billing(bad[i], strlen(bad[i]), &l, &err),
		    GR_EUNAVAIL);
		assert_int_equal(l.n, 3);	/* nothing appended from a bad reply */
	}
	/* v2's wrapped records read as the bare list does. */
	{
		static const char wrapped[] = "{\"records\": [{\"podId\": \"w1\", \"startTime\": "
		    "\"2026-12-01T00:00:00Z\", \"totalAmount\": 1.25, \"diskAmount\": 0.25}]}";

		assert_int_equal(runpod_parse_billing(wrapped, strlen(wrapped), &l, &err), GR_OK);
		assert_int_equal(l.n, 4);
		assert_string_equal(l.v[3].instance_id, "runpod:w1");
		assert_int_equal(l.v[3].amount, 1250000);
		assert_int_equal(l.v[3].storage, 250000);
	}
	/* The error reader takes a bare list for no reply at all (the billing op reads its own
	   2xx replies), and an error status for an error. */
	assert_int_equal(runpod_parse_error(200, "[]", 2, &err), GR_EUNAVAIL);
	gr_error_clear(&err);
	assert_int_not_equal(runpod_parse_error(500, "[]", 2, &err), GR_OK);
	charge_list_release(&l);
}

/* A literal and its length. */
#define LIT(s) s, strlen(s)

/* REST v2 (runpod_v2_parse.c): pods, one pod, metrics, the catalogue, problem+json errors. */
static void
test_v2_pods(void **state)
{
	struct instance_list l;
	struct instance in;
	struct gr_error err = { 0 };
	size_t len;
	char *b = tdata("runpod_v2/pods.json", &len);

	(void)state;
	instance_list_init(&l);
	assert_int_equal(runpod_v2_parse_pods(b, len, &l, &err), GR_OK);
	/* Five objects, one without an id; a string. */
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0].id, "runpod:sp000000000001");
	assert_string_equal(l.v[0].label, "train");
	assert_int_equal(l.v[0].state, ST_RUNNING);
	assert_string_equal(l.v[0].gpu->id, "H100-SXM-80GB");
	assert_int_equal(l.v[0].gpu_count, 2);
	assert_int_equal(l.v[0].price_hour, 4000000);		/* cost, the whole pod */
	assert_string_equal(l.v[0].ssh_host, "203.0.113.7");	/* ssh.direct over the proxy */
	assert_int_equal(l.v[0].ssh_port, 10341);
	assert_string_equal(l.v[0].ssh_user, "root");
	assert_int_equal(l.v[0].util_pct, 50);			/* (47 + 52) / 2, rounded */
	assert_int_equal(l.v[0].disk_gb, 50);
	assert_int_equal(l.v[0].disk_running_hour, 6849);	/* 50 GB at $0.10/GB-month */
	assert_string_equal(l.v[0].region, "eu");		/* EU-SE-1 */
	assert_int_equal(l.v[0].state_since, 1780000600);	/* startedAt */
	assert_int_equal(l.v[1].state, ST_STOPPED);		/* EXITED */
	assert_false(l.v[1].valid & IV_PRICE);			/* cost 0: no rate, not 0 */
	assert_false(l.v[1].valid & IV_SSH);			/* proxy only while running */
	assert_int_equal(l.v[1].type, OFFER_INTERRUPTIBLE);	/* rented with a bid (GraphQL) */
	assert_string_equal(l.v[1].status_msg, "outbid[0m by a higher bid");
	assert_int_equal(l.v[0].type, OFFER_ON_DEMAND);
	/* Hostile: controls stripped, a negative cost, a GPU id that is not a string, a
	   count past reason, a direct port out of range (the proxy then), one good util. */
	assert_string_equal(l.v[2].id, "runpod:sp000000000003[31m");
	assert_string_equal(l.v[2].label, "a]0;xb");
	assert_false(l.v[2].valid & IV_PRICE);
	assert_string_equal(l.v[2].gpu_raw, "");
	assert_int_equal(l.v[2].gpu_count, 0);
	assert_string_equal(l.v[2].ssh_host, "ssh.runpod.io");
	assert_string_equal(l.v[2].ssh_user, "p-1");
	assert_int_equal(l.v[2].ssh_port, 22);
	assert_int_equal(l.v[2].util_pct, 50);
	assert_string_equal(l.v[2].region, "eu");
	assert_int_equal(l.v[3].state, ST_UNKNOWN);		/* a status v2 does not name */
	assert_false(l.v[3].valid & (IV_PRICE | IV_SSH | IV_UTIL));
	instance_list_release(&l);
	free(b);

	b = tdata("runpod_v2/pod.json", &len);
	assert_int_equal(runpod_v2_parse_pod(b, len, &in, &err), GR_OK);
	assert_string_equal(in.id, "runpod:sp000000000001");
	assert_int_equal(in.ssh_port, 10341);
	free(b);
	b = tdata("runpod_v2/pods-not-array.json", &len);
	instance_list_init(&l);
	assert_int_equal(runpod_v2_parse_pods(b, len, &l, &err), GR_EUNAVAIL);
	assert_int_equal(l.n, 0);
	free(b);
	b = tdata("runpod_v2/pods-truncated.json", &len);
	assert_int_equal(runpod_v2_parse_pods(b, len, &l, &err), GR_EUNAVAIL);
	assert_int_equal(runpod_v2_parse_pod(b, len, &in, &err), GR_EUNAVAIL);
	gr_error_clear(&err);
	assert_int_equal(runpod_v2_parse_pod(LIT("[]"), &in, &err), GR_EUNAVAIL);
	assert_string_equal(err.msg, "malformed reply (pod)");
	gr_error_clear(&err);
	assert_int_equal(runpod_v2_parse_pod(LIT("{\"name\":\"x\"}"), &in, &err), GR_EUNAVAIL);
	assert_string_equal(err.msg, "malformed reply (pod without id)");
	instance_list_release(&l);
	free(b);
}

static void
test_v2_metrics(void **state)
{
	struct sample_list sl;
	struct gr_error err = { 0 };
	bool carried;
	size_t len;
	char *b = tdata("runpod_v2/pod.json", &len);

	(void)state;
	sample_list_init(&sl);
	assert_int_equal(runpod_v2_parse_metrics(b, len, "runpod:p", &sl, &carried, &err), GR_OK);
	assert_true(carried);
	assert_int_equal(sl.n, 2);
	assert_int_equal(sl.v[0].util_pct, 47);
	assert_int_equal(sl.v[1].util_pct, 52);
	assert_int_equal(sl.v[1].index, 1);
	sample_list_release(&sl);
	free(b);
	/* A runtime whose GPUs carry no util: samples without it, and GraphQL is asked. */
	sample_list_init(&sl);
	assert_int_equal(runpod_v2_parse_metrics(LIT("{\"id\":\"p\",\"runtime\":{\"gpus\":"
	    "[{}]}}"), "runpod:p", &sl, &carried, &err), GR_OK);
	assert_false(carried);
	assert_int_equal(sl.n, 1);
	assert_false(sl.v[0].valid & MV_UTIL);
	sample_list_release(&sl);
	/* No runtime: the pod does not run; nothing to add. */
	sample_list_init(&sl);
	assert_int_equal(runpod_v2_parse_metrics(LIT("{\"id\":\"p\",\"runtime\":null}"),
	    "runpod:p", &sl, &carried, &err), GR_OK);
	assert_true(carried);
	assert_int_equal(sl.n, 0);
	assert_int_equal(runpod_v2_parse_metrics(LIT("{\"runtime\":1}"), "runpod:p", &sl,
	    &carried, &err), GR_EUNAVAIL);
	sample_list_release(&sl);
}

static void
test_v2_catalog(void **state)
{
	struct offer_list l;
	struct gr_error err = { 0 };
	const struct offer *o;
	size_t len;
	char *b = tdata("runpod_v2/catalog-hand.json", &len);

	(void)state;
	offer_list_init(&l);
	assert_int_equal(runpod_v2_parse_catalog(b, len, &l, &err), GR_OK);
	/* H100 secure at 1, 2 and 8 GPUs (EU-RO-1 and US-TX-3 have stock; community has no
	   price); A4500 community at 1 and 2 (CA-MTL-1; EU-CZ-1 says NONE; 99, 0, -1, 1.5 and
	   "4" are no counts; secure has no stock). Not: "unknown", the 4090 (negative and
	   non-number prices), the MI300X (availability not a list), a string. */
	assert_int_equal(l.n, 5);
	o = find_offer(&l, "runpod:s8-NVIDIA+H100+80GB+HBM3");
	assert_non_null(o);
	assert_int_equal(o->price_hour, 8 * 2990000);		/* per GPU-hour times count */
	assert_int_equal(o->gpu_count, 8);
	assert_string_equal(o->gpu->id, "H100-SXM-80GB");
	assert_string_equal(o->region, "eu");			/* RO, the first with stock */
	o = find_offer(&l, "runpod:s2-NVIDIA+H100+80GB+HBM3");
	assert_non_null(o);
	assert_int_equal(o->price_hour, 5980000);
	assert_non_null(find_offer(&l, "runpod:s1-NVIDIA+H100+80GB+HBM3"));
	assert_null(find_offer(&l, "runpod:c4-NVIDIA+H100+80GB+HBM3"));
	o = find_offer(&l, "runpod:c2-NVIDIA++RTX+A4500");
	assert_non_null(o);
	assert_int_equal(o->price_hour, 380000);
	assert_int_equal(o->vram_gb, 20);
	assert_string_equal(o->region, "");			/* MTL is no country */
	assert_non_null(find_offer(&l, "runpod:c1-NVIDIA++RTX+A4500"));
	offer_list_release(&l);
	free(b);

	/* The simulator's own answer: every offer priced, none interruptible. */
	b = tdata("runpod_v2/catalog.json", &len);
	offer_list_init(&l);
	assert_int_equal(runpod_v2_parse_catalog(b, len, &l, &err), GR_OK);
	assert_true(l.n > 0);
	for (len = 0; len < l.n; len++) {
		assert_true(l.v[len].price_hour > 0);
		assert_int_equal(l.v[len].type, OFFER_ON_DEMAND);
	}
	offer_list_release(&l);
	free(b);
	offer_list_init(&l);
	assert_int_equal(runpod_v2_parse_catalog(LIT("{\"gpus\":{}}"), &l, &err), GR_EUNAVAIL);
	assert_int_equal(runpod_v2_parse_catalog(LIT("<html>"), &l, &err), GR_EUNAVAIL);
	offer_list_release(&l);
}

/* problem+json onto errors: each create failure by its status (§9), the detail shown. */
static void
test_v2_errors(void **state)
{
	struct gr_error err = { 0 };
	size_t len;
	char *b;

	(void)state;
	b = tdata("runpod_v2/create-422.json", &len);
	assert_int_equal(runpod_parse_error(422, b, len, &err), GR_EUSAGE);
	assert_non_null(strstr(err.msg, "(image: required, a string)"));
	free(b);
	gr_error_clear(&err);
	b = tdata("runpod_v2/create-400-capacity.json", &len);
	assert_int_equal(runpod_parse_error(400, b, len, &err), GR_ECAPACITY);
	free(b);
	gr_error_clear(&err);
	b = tdata("runpod_v2/action-409.json", &len);
	assert_int_equal(runpod_parse_error(409, b, len, &err), GR_ECONFLICT);
	assert_non_null(strstr(err.msg, "cannot start a pod that is RUNNING"));
	free(b);
	gr_error_clear(&err);
	assert_int_equal(runpod_parse_error(400, LIT("{\"title\":\"Bad Request\",\"status\":400,"
	    "\"detail\":\"gpu.id 'X' is not a GPU type of pods\"}"), &err), GR_EUSAGE);
	gr_error_clear(&err);
	assert_int_equal(runpod_parse_error(402, LIT("{\"title\":\"Payment Required\",\"status\":"
	    "402,\"detail\":\"\\u001b[2JYour balance is too low\"}"), &err), GR_EFUNDS);
	assert_null(strchr(err.msg, 0x1b));
	gr_error_clear(&err);
	assert_int_equal(runpod_parse_error(410, LIT("{\"title\":\"Gone\",\"status\":410}"),
	    &err), GR_ENOTFOUND);
	assert_non_null(strstr(err.msg, "Gone"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_types),
		cmocka_unit_test(test_offer_ids),
		cmocka_unit_test(test_pods),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_pod_started),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_billing),
		cmocka_unit_test(test_v2_pods),
		cmocka_unit_test(test_v2_metrics),
		cmocka_unit_test(test_v2_catalog),
		cmocka_unit_test(test_v2_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
