/*
 * test_parse_slurm.c - the slurmrestd parsers on replies recorded from Slurm 22.05.8
 * (tests/slurm/cluster, OpenAPI v0.0.38), on v0.0.40-shaped replies, and on malformed and
 * hostile ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "slurm_parse.h"
#include "tdata.h"

static bool
price_h100(void *ctx, const char *type, int64_t *rate)
{
	(void)ctx;
	if (strcmp(type, "h100") != 0)
		return false;
	*rate = 2100000;
	return true;
}

/* Offers from the recorded cluster: n1 runs a 2-GPU job, two jobs wait for 4 GPUs each. */
static void
test_offers_recorded(void **state)
{
	size_t ln, lp, lj, nn, np, nj;
	char *bn = tdata("slurm/nodes.json", &ln), *bp = tdata("slurm/partitions.json", &lp),
	    *bj = tdata("slurm/jobs.json", &lj);
	struct slurm_node *nodes;
	struct slurm_partition *parts;
	struct slurm_job *jobs;
	struct gr_error err = { 0 };
	struct offer_list l;
	const struct offer *o;

	(void)state;
	assert_int_equal(slurm_parse_nodes(bn, ln, &nodes, &nn, &err), GR_OK);
	assert_int_equal(slurm_parse_partitions(bp, lp, &parts, &np, &err), GR_OK);
	assert_int_equal(slurm_parse_jobs(bj, lj, &jobs, &nj, &err), GR_OK);
	assert_int_equal(nn, 2);
	assert_string_equal(nodes[0].name, "n1");
	assert_string_equal(nodes[0].hostname, "localhost");
	assert_true(nodes[0].usable);
	assert_int_equal(nodes[0].gres[0].count, 4);
	assert_int_equal(nodes[0].used[0].count, 2);
	assert_int_equal(np, 2);
	assert_int_equal(parts[0].max_time_min, 240);
	assert_int_equal(nj, 3);

	offer_list_init(&l);
	slurm_build_offers(nodes, nn, parts, np, jobs, nj, "lab", price_h100, NULL, &l);
	assert_int_equal(l.n, 2);
	o = find_offer(&l, "slurm:gpu/h100");
	assert_non_null(o);
	assert_int_equal(o->gpu_count, 4);
	assert_int_equal(o->available, 6);	/* 8 - the running job's 2 */
	assert_int_equal(o->nodes, 2);
	assert_int_equal(o->queued, 2);
	assert_int_equal(o->time_limit_s, 240 * 60);
	assert_int_equal(o->price_hour, 4 * 2100000);
	assert_true(o->valid & OV_PRICE);
	/* "h100" names three models; the one SXM among them (catalogue_gpu_type), its memory
	   told, and the GRES type kept. */
	assert_non_null(o->gpu);
	assert_string_equal(o->gpu->id, "H100-SXM-80GB");
	assert_int_equal(o->vram_gb, 80);
	assert_true(o->valid & OV_VRAM);
	assert_string_equal(o->gpu_raw, "h100");
	assert_string_equal(o->location, "lab");
	o = find_offer(&l, "slurm:short/h100");
	assert_non_null(o);
	assert_int_equal(o->available, 4);
	assert_int_equal(o->queued, 0);
	assert_int_equal(o->time_limit_s, 30 * 60);
	offer_list_release(&l);

	/* Without a configured rate the price is unknown, never 0. */
	offer_list_init(&l);
	slurm_build_offers(nodes, nn, parts, np, jobs, nj, NULL, NULL, NULL, &l);
	assert_false(l.v[0].valid & OV_PRICE);
	offer_list_release(&l);
	free(nodes);
	free(parts);
	slurm_jobs_free(jobs, nj);
	free(bn);
	free(bp);
	free(bj);
}

static void
test_jobs_recorded(void **state)
{
	size_t len, n;
	char *b = tdata("slurm/jobs.json", &len);
	struct slurm_job *jobs;
	struct gr_error err = { 0 };
	struct instance in;

	(void)state;
	assert_int_equal(slurm_parse_jobs(b, len, &jobs, &n, &err), GR_OK);
	slurm_job_to_instance(&jobs[0], &in);
	assert_string_equal(in.id, "slurm:1");
	assert_int_equal(in.state, ST_RUNNING);
	assert_string_equal(in.label, "train-a");
	assert_int_equal(in.gpu_count, 2);
	assert_string_equal(in.offer_id, "slurm:gpu/h100");
	assert_string_equal(jobs[0].first_node, "n1");
	slurm_job_to_instance(&jobs[1], &in);
	assert_int_equal(in.state, ST_PROVISIONING);
	assert_string_equal(in.status_msg, "PENDING (Resources)");
	assert_int_equal(in.gpu_count, 8);	/* 4 per node on 2 nodes */
	slurm_job_to_instance(&jobs[2], &in);
	assert_string_equal(in.status_msg, "PENDING (Priority)");
	slurm_jobs_free(jobs, n);
	free(b);
}

/* Slurm 23-24 shapes: wrapped numbers, state arrays, drained and down nodes, shards. */
static void
test_v0040_shapes(void **state)
{
	size_t ln, lp, lj, nn, np, nj;
	char *bn = tdata("slurm/nodes-v0040.json", &ln), *bp = tdata("slurm/partitions-v0040.json",
	    &lp), *bj = tdata("slurm/jobs-v0040.json", &lj);
	struct slurm_node *nodes;
	struct slurm_partition *parts;
	struct slurm_job *jobs;
	struct gr_error err = { 0 };
	struct offer_list l;
	const struct offer *o;
	struct instance in;

	(void)state;
	assert_int_equal(slurm_parse_nodes(bn, ln, &nodes, &nn, &err), GR_OK);
	assert_int_equal(slurm_parse_partitions(bp, lp, &parts, &np, &err), GR_OK);
	assert_int_equal(slurm_parse_jobs(bj, lj, &jobs, &nj, &err), GR_OK);
	assert_true(nodes[0].usable);
	assert_false(nodes[1].usable);		/* IDLE+DRAIN */
	assert_false(nodes[3].usable);		/* DOWN */
	assert_int_equal(nodes[2].n_gres, 1);	/* the shard is no GPU */
	assert_int_equal(parts[0].max_time_min, 2880);
	assert_int_equal(parts[1].max_time_min, -1);	/* infinite */
	assert_false(parts[2].up);

	offer_list_init(&l);
	slurm_build_offers(nodes, nn, parts, np, jobs, nj, NULL, NULL, NULL, &l);
	o = find_offer(&l, "slurm:batch/a100");
	assert_non_null(o);
	assert_int_equal(o->nodes, 2);			/* gpu001 and gpu003; 002 drained, 004 down */
	assert_int_equal(o->available, 3 + 4);
	assert_int_equal(o->queued, 1);			/* 102; 103 wants h100_sxm, 104 ended */
	o = find_offer(&l, "slurm:batch/h100_sxm");
	assert_non_null(o);
	assert_int_equal(o->available, 0);
	assert_non_null(o->gpu);
	assert_string_equal(o->gpu->id, "H100-SXM-80GB");
	o = find_offer(&l, "slurm:long/a100");
	assert_non_null(o);
	assert_false(o->valid & OV_TIME_LIMIT);		/* unlimited */
	assert_int_equal(o->queued, 1);			/* 102 names long too */
	assert_null(find_offer(&l, "slurm:closed/a100"));
	offer_list_release(&l);

	slurm_job_to_instance(&jobs[0], &in);
	assert_int_equal(in.state, ST_RUNNING);
	assert_int_equal(in.gpu_count, 4);		/* 2 per node x 2 nodes */
	assert_int_equal(in.created_at, 1796000000);
	assert_int_equal(in.state_since, 1796000100);
	slurm_job_to_instance(&jobs[1], &in);
	assert_string_equal(in.status_msg, "PENDING (QOSMaxGRESPerUser)");
	slurm_job_to_instance(&jobs[3], &in);
	assert_int_equal(in.state, ST_FAILED);
	assert_string_equal(in.status_msg, "OUT_OF_MEMORY (OutOfMemory)");
	assert_string_equal(in.gpu_raw, "gpu");
	free(nodes);
	free(parts);
	slurm_jobs_free(jobs, nj);
	free(bn);
	free(bp);
	free(bj);
}

static const struct cluster_pool *
find_pool(const struct cluster_state *c, const char *part, const char *type)
{
	size_t i;

	for (i = 0; i < c->n_pools; i++)
		if (strcmp(c->pools[i].partition, part) == 0 && strcmp(c->pools[i].gpu_raw, type) == 0)
			return &c->pools[i];
	return NULL;
}

/* The cluster view: GPUs in total, used and free per partition and type, counting nodes
   down or drained in the total only; the user's live jobs with state and reason. */
static void
test_cluster_view(void **state)
{
	size_t ln, lp, lj, nn, np, nj;
	char *bn = tdata("slurm/nodes-v0040.json", &ln), *bp = tdata("slurm/partitions-v0040.json",
	    &lp), *bj = tdata("slurm/jobs-v0040.json", &lj);
	struct slurm_node *nodes;
	struct slurm_partition *parts;
	struct slurm_job *jobs;
	struct gr_error err = { 0 };
	struct cluster_state c;
	const struct cluster_pool *p;

	(void)state;
	assert_int_equal(slurm_parse_nodes(bn, ln, &nodes, &nn, &err), GR_OK);
	assert_int_equal(slurm_parse_partitions(bp, lp, &parts, &np, &err), GR_OK);
	assert_int_equal(slurm_parse_jobs(bj, lj, &jobs, &nj, &err), GR_OK);
	cluster_state_init(&c);
	slurm_build_cluster(nodes, nn, parts, np, jobs, nj, "ada", &c);
	p = find_pool(&c, "batch", "a100");
	assert_non_null(p);
	assert_int_equal(p->total, 16);		/* gpu001-004, the drained and down ones too */
	assert_int_equal(p->used, 1);
	assert_int_equal(p->free, 3 + 4);	/* gpu001 and gpu003 only */
	assert_int_equal(p->nodes, 4);
	assert_int_equal(p->pending, 1);
	p = find_pool(&c, "batch", "h100_sxm");
	assert_non_null(p);
	assert_int_equal(p->total, 4);
	assert_int_equal(p->used, 4);
	assert_int_equal(p->free, 0);
	p = find_pool(&c, "long", "a100");
	assert_non_null(p);
	assert_int_equal(p->total, 4);
	assert_int_equal(p->free, 3);
	assert_int_equal(p->pending, 1);
	assert_null(find_pool(&c, "closed", "a100"));
	assert_null(find_pool(&c, "batch", "shard"));
	/* ada's jobs that squeue shows: 101 running, 102 pending; 104 ended, 103 is bob's. */
	assert_int_equal(c.n_jobs, 2);
	assert_string_equal(c.jobs[0].id, "slurm:101");
	assert_string_equal(c.jobs[0].state, "RUNNING");
	assert_string_equal(c.jobs[0].reason, "");
	assert_int_equal(c.jobs[0].gpus, 4);
	assert_int_equal(c.jobs[0].nodes, 2);
	assert_string_equal(c.jobs[0].node_list, "gpu[001,003]");
	assert_string_equal(c.jobs[0].gpu_raw, "a100");
	assert_int_equal(c.jobs[0].since, 1796000100);
	assert_string_equal(c.jobs[1].state, "PENDING");
	assert_string_equal(c.jobs[1].reason, "QOSMaxGRESPerUser");
	assert_string_equal(c.jobs[1].partition, "batch,long");
	cluster_state_release(&c);

	/* A partition that is down has GPUs but none free. */
	parts[0].up = false;
	cluster_state_init(&c);
	slurm_build_cluster(nodes, nn, parts, np, jobs, nj, "nobody", &c);
	p = find_pool(&c, "batch", "a100");
	assert_non_null(p);
	assert_int_equal(p->total, 16);
	assert_int_equal(p->free, 0);
	assert_int_equal(c.n_jobs, 0);
	cluster_state_release(&c);
	free(nodes);
	free(parts);
	slurm_jobs_free(jobs, nj);
	free(bn);
	free(bp);
	free(bj);
}

/* /nodes fed in two chunks cut at k (len: whole); *n nodes into *out. */
static enum gr_err
nodes_cut(const char *b, size_t len, size_t k, long status, struct slurm_node **out, size_t *n,
    struct gr_error *err)
{
	struct slurm_stream *s = slurm_stream_new(SLURM_NODES);
	enum gr_err e;

	slurm_stream_feed(s, b, k);
	slurm_stream_feed(s, b + k, len - k);
	e = slurm_stream_nodes(s, status, out, n, err);
	slurm_stream_free(s);
	return e;
}

/*
 * The /nodes stream parses each node with only the members slurm_node_from_json reads
 * (jpick): the same nodes as mapping each element of a whole parse, in both versions'
 * shapes. A member read but not picked would go missing here.
 */
static void
test_nodes_picked(void **state)
{
	static const char *const files[] = { "slurm/nodes.json", "slurm/nodes-v0040.json" };
	struct slurm_node *got, want;
	struct gr_error err = { 0 };
	size_t i, len, n, k;
	cJSON *whole, *e;
	char *b;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		b = tdata(files[i], &len);
		whole = cJSON_ParseWithLength(b, len);
		assert_non_null(whole);
		assert_int_equal(slurm_parse_nodes(b, len, &got, &n, &err), GR_OK);
		k = 0;
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(whole, "nodes")) {
			if (!slurm_node_from_json(e, &want))
				continue;
			assert_true(k < n);
			if (memcmp(&want, &got[k], sizeof(want)) != 0)
				fail_msg("%s: node %s maps otherwise when picked", files[i], want.name);
			k++;
		}
		assert_int_equal(k, n);
		free(got);
		cJSON_Delete(whole);
		free(b);
	}
}

/* The streamed /nodes: cut at every byte boundary, the nodes of the whole body, both
   versions' shapes; malformed and erroring bodies refused at every cut, nothing returned. */
static void
test_nodes_stream_cuts(void **state)
{
	static const char *const files[] = { "slurm/nodes.json", "slurm/nodes-v0040.json" };
	static const char *const bad[] = {
		"{\"nodes\": [{\"name\": \"n1\"}",			/* truncated */
		"{\"nodes\": {\"name\": \"n1\"}}",			/* no list */
		"{\"nodes\": [{\"name\": \"n1\"},]}",			/* not JSON */
		"{\"errors\": [{\"error\": \"\\u001b[2Jboom\"}], \"nodes\": []}",
		"",
	};
	struct slurm_node *whole, *part;
	struct gr_error err = { 0 };
	size_t i, k, len, nw, np;
	char *b;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		b = tdata(files[i], &len);
		assert_int_equal(slurm_parse_nodes(b, len, &whole, &nw, &err), GR_OK);
		assert_true(nw >= 2);
		for (k = 0; k <= len; k++) {
			assert_int_equal(nodes_cut(b, len, k, 200, &part, &np, &err), GR_OK);
			if (np != nw)
				fail_msg("%s cut at %zu: %zu nodes, not %zu", files[i], k, np, nw);
			assert_memory_equal(part, whole, nw * sizeof(*whole));
			free(part);
		}
		free(whole);
		free(b);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = strlen(bad[i]);
		for (k = 0; k <= len; k++) {
			part = (struct slurm_node *)&err;
			gr_error_clear(&err);
			assert_int_not_equal(nodes_cut(bad[i], len, k, 200, &part, &np, &err), GR_OK);
			assert_null(part);
			assert_int_equal(np, 0);
			assert_null(strchr(err.msg, '\033'));
		}
	}
	/* The errors array reaches the message, stripped; a 500 with an empty one fails too. */
	len = strlen(bad[3]);
	gr_error_clear(&err);
	assert_int_not_equal(nodes_cut(bad[3], len, 5, 200, &part, &np, &err), GR_OK);
	assert_non_null(strstr(err.msg, "boom"));
	assert_int_not_equal(nodes_cut("{\"nodes\": []}", 14, 3, 500, &part, &np, &err), GR_OK);
}

/* n jobs alike: every field, the node list (held apart) by its text. */
static void
assert_jobs_equal(const struct slurm_job *a, const struct slurm_job *b, size_t n)
{
	struct slurm_job x, y;
	size_t i;

	for (i = 0; i < n; i++) {
		assert_true((a[i].nodes == NULL) == (b[i].nodes == NULL));
		if (a[i].nodes != NULL)
			assert_string_equal(a[i].nodes, b[i].nodes);
		memcpy(&x, &a[i], sizeof(x));
		memcpy(&y, &b[i], sizeof(y));
		x.nodes = y.nodes = NULL;
		assert_memory_equal(&x, &y, sizeof(x));
	}
}

/* /jobs fed in two chunks cut at k (len: whole); *n jobs into *out. */
static enum gr_err
jobs_cut(const char *b, size_t len, size_t k, long status, struct slurm_job **out, size_t *n,
    struct gr_error *err)
{
	struct slurm_stream *s = slurm_stream_new(SLURM_JOBS);
	enum gr_err e;

	slurm_stream_feed(s, b, k);
	slurm_stream_feed(s, b + k, len - k);
	e = slurm_stream_jobs(s, status, out, n, err);
	slurm_stream_free(s);
	return e;
}

/* The streamed /jobs: cut at every byte boundary, the jobs of the whole body (both versions'
   shapes, elements that are no job skipped); malformed, truncated and erroring bodies
   refused at every cut with the message the whole body gets, nothing returned. */
static void
test_jobs_stream_cuts(void **state)
{
	static const char *const files[] = { "slurm/jobs.json", "slurm/jobs-v0040.json" };
	static const struct {
		const char *body, *msg;
	} bad[] = {
		{ "{\"jobs\": [{\"job_id\": 1}", "malformed reply from slurm (not JSON)" },
		{ "{\"jobs\": {\"job_id\": 1}}", "malformed reply from slurm (no jobs list)" },
		{ "{\"jobs\": [{\"job_id\": 1},]}", "malformed reply from slurm (not JSON)" },
		{ "{\"job\": [{\"job_id\": 1}]}", "malformed reply from slurm (no jobs list)" },
		{ "{\"errors\": [{\"error\": \"\\u001b[2Jboom\"}], \"jobs\": []}", "boom" },
		{ "[{\"jobs\": []}]", "malformed reply from slurm (no jobs list)" },
		{ "", "empty reply from slurm" },
	};
	static const char mixed[] = "{\"jobs\": [1, \"x\", null, {\"job_id\": -1}, "
	    "{\"job_id\": 7, \"name\": \"a\\u001b]0;pwn\\u0007b\", \"job_state\": \"PENDING\"}, "
	    "[{\"job_id\": 8}], {\"job_id\": {\"set\": true, \"number\": 9}}], \"errors\": []}";
	struct slurm_job *whole, *part;
	struct gr_error err = { 0 };
	size_t i, k, len, nw, np;
	char *b;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		b = tdata(files[i], &len);
		assert_int_equal(slurm_parse_jobs(b, len, &whole, &nw, &err), GR_OK);
		assert_true(nw >= 2);
		for (k = 0; k <= len; k++) {
			assert_int_equal(jobs_cut(b, len, k, 200, &part, &np, &err), GR_OK);
			if (np != nw)
				fail_msg("%s cut at %zu: %zu jobs, not %zu", files[i], k, np, nw);
			assert_jobs_equal(part, whole, nw);
			slurm_jobs_free(part, np);
		}
		slurm_jobs_free(whole, nw);
		free(b);
	}
	len = strlen(mixed);
	for (k = 0; k <= len; k++) {
		assert_int_equal(jobs_cut(mixed, len, k, 200, &part, &np, &err), GR_OK);
		assert_int_equal(np, 2);
		assert_int_equal(part[0].id, 7);
		assert_string_equal(part[0].name, "a]0;pwnb");
		assert_string_equal(part[0].state, "PENDING");
		assert_int_equal(part[1].id, 9);
		slurm_jobs_free(part, np);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = strlen(bad[i].body);
		for (k = 0; k <= len; k++) {
			part = (struct slurm_job *)&err;
			gr_error_clear(&err);
			assert_int_not_equal(jobs_cut(bad[i].body, len, k, 200, &part, &np, &err),
			    GR_OK);
			assert_null(part);
			assert_int_equal(np, 0);
			assert_null(strchr(err.msg, '\033'));
			if (strstr(err.msg, bad[i].msg) == NULL)
				fail_msg("body %zu cut at %zu: \"%s\"", i, k, err.msg);
		}
	}
	/* A 500 with an empty errors array fails too. */
	assert_int_not_equal(jobs_cut("{\"jobs\": []}", 13, 3, 500, &part, &np, &err), GR_OK);
}

static void
test_errors(void **state)
{
	size_t len;
	char *b;
	struct gr_error err = { 0 };

	(void)state;
	b = tdata("slurm/error-partition.json", &len);
	assert_int_equal(slurm_parse_errors(500, b, len, &err), GR_EUSAGE);	/* 2000 */
	assert_non_null(strstr(err.msg, "Invalid partition name specified"));
	gr_error_clear(&err);
	assert_int_equal(slurm_parse_errors(500, "{\"errors\":[{\"error\":\"Unable to contact "
	    "slurm controller\",\"error_number\":1001}]}", 79, &err), GR_EUNAVAIL);
	free(b);
	gr_error_clear(&err);
	b = tdata("slurm/error-token.json", &len);
	assert_int_equal(slurm_parse_errors(500, b, len, &err), GR_EAUTH);
	assert_non_null(strstr(err.msg, "scontrol token"));
	free(b);
	gr_error_clear(&err);
	b = tdata("slurm/error-no-job.json", &len);
	assert_int_equal(slurm_parse_errors(500, b, len, &err), GR_ENOTFOUND);
	assert_non_null(strstr(err.msg, "Unable to find JobId=999"));
	free(b);
	gr_error_clear(&err);
	assert_int_equal(slurm_parse_errors(401, "Authentication failure", 22, &err), GR_EAUTH);
	gr_error_clear(&err);
	b = tdata("slurm/submit.json", &len);
	assert_int_equal(slurm_parse_errors(200, b, len, &err), GR_OK);
	free(b);
	assert_int_equal(slurm_parse_errors(200, "", 0, &err), GR_OK);
}

/* The errors array reaches the user verbatim, with every control character gone. */
static void
test_errors_hostile(void **state)
{
	size_t len, i;
	char *b = tdata("slurm/errors-hostile.json", &len);
	struct gr_error err = { 0 };

	(void)state;
	assert_int_not_equal(slurm_parse_errors(400, b, len, &err), GR_OK);
	for (i = 0; err.msg[i] != '\0'; i++)
		assert_false((unsigned char)err.msg[i] < 0x20 || err.msg[i] == 0x7f);
	assert_non_null(strstr(err.msg, "rejected"));
	assert_non_null(strstr(err.msg, "partition"));
	assert_non_null(strstr(err.msg, "second"));
	free(b);
}

static void
test_openapi(void **state)
{
	size_t len;
	char *b = tdata("slurm/openapi.json", &len);
	const char *j;
	struct gr_error err = { 0 };

	(void)state;
	assert_int_equal(slurm_parse_openapi(b, len, &err), 3);	/* v0.0.38 */
	assert_int_equal(slurm_api_minor(3), 38);
	free(b);

	j = "{\"paths\":{\"/slurm/v0.0.40/jobs\":{},\"/slurm/v0.0.38/jobs\":{}}}";
	assert_int_equal(slurm_parse_openapi(j, strlen(j), &err), 1);
	j = "{\"paths\":{\"/slurm/v0.0.36/jobs\":{}}}";
	assert_int_equal(slurm_parse_openapi(j, strlen(j), &err), -1);
	assert_int_equal(err.code, GR_EUNSUPPORTED);
}

static void
test_gres(void **state)
{
	struct slurm_gres g[SLURM_GRES_MAX];

	(void)state;
	assert_int_equal(slurm_gres_gpus("gpu:h100:4(S:0-1)", g, SLURM_GRES_MAX), 1);
	assert_string_equal(g[0].type, "h100");
	assert_int_equal(g[0].count, 4);
	assert_int_equal(slurm_gres_gpus("gpu:2", g, SLURM_GRES_MAX), 1);
	assert_string_equal(g[0].type, "");
	assert_int_equal(g[0].count, 2);
	assert_int_equal(slurm_gres_gpus("gres/gpu:a100=3", g, SLURM_GRES_MAX), 1);
	assert_string_equal(g[0].type, "a100");
	assert_int_equal(g[0].count, 3);
	assert_int_equal(slurm_gres_gpus("gpu:a100:2(IDX:0,2),gpu:h100:1(IDX:5)", g,
	    SLURM_GRES_MAX), 2);
	assert_int_equal(g[1].count, 1);
	assert_int_equal(slurm_gres_gpus("gpu:x:-1,gpu:y:99999999999,mps:100,", g,
	    SLURM_GRES_MAX), 0);
	/* A type is a word: nothing that could break an offer id or a terminal. */
	assert_int_equal(slurm_gres_gpus("gpu:a/b\033[2J:1", g, SLURM_GRES_MAX), 1);
	assert_null(strchr(g[0].type, '/'));
	assert_null(strchr(g[0].type, '\033'));
}

static void
test_hostlist(void **state)
{
	char b[16];

	(void)state;
	slurm_hostlist_first("n[3-4,7]", b, sizeof(b));
	assert_string_equal(b, "n3");
	slurm_hostlist_first("gpu[001-004]", b, sizeof(b));
	assert_string_equal(b, "gpu001");
	slurm_hostlist_first("a,b", b, sizeof(b));
	assert_string_equal(b, "a");
	slurm_hostlist_first("averyveryverylongnodename", b, sizeof(b));
	assert_int_equal(strlen(b), 15);
	slurm_hostlist_first("[", b, sizeof(b));
	assert_string_equal(b, "");
}

/* Every host of a job's hostlist, in order, bounded; malformed lists are refused whole. */
static void
test_hostlist_expand(void **state)
{
	static const struct {
		const char *list;
		int want;
		const char *names;	/* joined with spaces */
	} cases[] = {
		{ "n1", 1, "n1" },
		{ "n[1-2]", 2, "n1 n2" },
		{ "gpu[01-03,07]", 4, "gpu01 gpu02 gpu03 gpu07" },
		{ "n[1-2],gpu[01-03,07]", 6, "n1 n2 gpu01 gpu02 gpu03 gpu07" },
		{ "a,b,c", 3, "a b c" },
		{ "r[1-2]-n[8-9]", 4, "r1-n8 r1-n9 r2-n8 r2-n9" },
		{ "node[098-101]x", 4, "node098x node099x node100x node101x" },
		{ "[1-2]", 2, "1 2" },
		{ "", 0, "" },
		/* Malformed: refused, not half-read. */
		{ "n[1-2", -1, "" }, { "n1-2]", -1, "" }, { "n[]", -1, "" }, { "n[2-1]", -1, "" },
		{ "n[a-b]", -1, "" }, { "n[1-]", -1, "" }, { "n[-1]", -1, "" }, { "a,,b", -1, "" },
		{ "a,", -1, "" }, { ",a", -1, "" }, { "n[1234567890]", -1, "" }, { "n[[1]]", -1, "" },
		{ "n[1,,2]", -1, "" }, { "n[1,]", -1, "" }, { "n[,1]", -1, "" },
		{ "averyveryveryveryveryveryveryveryveryveryveryveryveryverylongname", -1, "" },
	};
	char names[8][SLURM_HOST_MAX], joined[512];
	char (*many)[SLURM_HOST_MAX];
	size_t i;
	int n, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		n = slurm_hostlist_expand(cases[i].list, names, 8);
		if (n != cases[i].want)
			fail_msg("'%s': %d names, not %d", cases[i].list, n, cases[i].want);
		joined[0] = '\0';
		for (k = 0; k < n; k++)
			snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s",
			    k > 0 ? " " : "", names[k]);
		assert_string_equal(joined, cases[i].names);
	}
	/* Bounded: a billion-wide range and a product of ranges stop at max. */
	assert_int_equal(slurm_hostlist_expand("n[0-999999999]", names, 8), 8);
	assert_string_equal(names[7], "n7");
	assert_int_equal(slurm_hostlist_expand("a[0-999999999]b[0-999999999]c[0-99999]", names,
	    8), 8);
	assert_string_equal(names[7], "a0b0c7");
	assert_int_equal(slurm_hostlist_expand("n[1-2]", names, 1), 1);
	assert_int_equal(slurm_hostlist_expand("n[1-2]", names, 0), 0);
	/* Many: a 1,000-node job in one expression. */
	many = calloc(2000, sizeof(*many));
	assert_non_null(many);
	assert_int_equal(slurm_hostlist_expand("gpu[0001-1000],cpu[1-24]", many, 2000), 1024);
	assert_string_equal(many[999], "gpu1000");
	assert_string_equal(many[1023], "cpu24");
	free(many);
}

/*
 * A job's node list is held whole: 100 nodes Slurm cannot fold into ranges ("rack1-a,
 * rack2-b, ..."), some 900 bytes, every one of them expanded, none dropped at a buffer's end.
 */
static void
test_job_nodes_whole(void **state)
{
	char (*names)[SLURM_HOST_MAX], list[2048], body[4096], want[16];
	struct slurm_job *jobs;
	struct gr_error err = { 0 };
	size_t n, len = 0;
	int i;

	(void)state;
	for (i = 0; i < 100; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%srack%d-%c",
		    i ? "," : "", i, 'a' + i % 26);
	assert_true(len > 800);
	snprintf(body, sizeof(body), "{\"jobs\": [{\"job_id\": 5, \"job_state\": \"RUNNING\", "
	    "\"nodes\": \"%s\", \"node_count\": 100}], \"errors\": []}", list);
	assert_int_equal(slurm_parse_jobs(body, strlen(body), &jobs, &n, &err), GR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(jobs[0].nodes, list);
	assert_string_equal(jobs[0].first_node, "rack0-a");
	names = calloc(128, sizeof(*names));
	assert_non_null(names);
	assert_int_equal(slurm_hostlist_expand(jobs[0].nodes, names, 128), 100);
	snprintf(want, sizeof(want), "rack99-%c", 'a' + 99 % 26);
	assert_string_equal(names[99], want);
	free(names);
	slurm_jobs_free(jobs, n);
}

/* A finished job's exit status in either form; hostile values are unknown (-1). */
static void
test_exit_codes(void **state)
{
	static const struct {
		const char *exit_code;
		int want;
	} cases[] = {
		{ "0", 0 }, { "768", 3 }, { "9", 137 }, { "15", 143 }, { "-1", -1 },
		{ "70000", -1 }, { "\"768\"", -1 }, { "null", -1 }, { "1e300", -1 },
		{ "{\"set\":true,\"infinite\":false,\"number\":512}", 2 },
		{ "{\"status\":[\"EXITED\"],\"return_code\":{\"set\":true,\"number\":5}}", 5 },
		{ "{\"status\":[\"SIGNALED\"],\"return_code\":0,\"signal\":{\"id\":9}}", 137 },
		{ "{\"status\":[\"EXITED\"],\"return_code\":9999}", -1 },
		{ "{\"status\":[\"PENDING\"]}", -1 },
	};
	struct gr_error err = { 0 };
	struct slurm_job *jobs = NULL;
	struct instance in;
	char body[512];
	size_t n, i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(body, sizeof(body), "{\"jobs\":[{\"job_id\":7,\"job_state\":"
		    "\"FAILED\",\"exit_code\":%s}]}", cases[i].exit_code);
		assert_int_equal(slurm_parse_jobs(body, strlen(body), &jobs, &n, &err), GR_OK);
		assert_int_equal(n, 1);
		assert_int_equal(jobs[0].exit_code, cases[i].want);
		slurm_job_to_instance(&jobs[0], &in);
		assert_int_equal(!!(in.valid & IV_EXIT), cases[i].want >= 0);
		if (cases[i].want >= 0)
			assert_int_equal(in.exit_code, cases[i].want);
		slurm_jobs_free(jobs, n);
		jobs = NULL;
	}
}

static void
test_submit_per_version(void **state)
{
	const char *env[] = { "A=1", "=bad", "B=x=y", NULL };
	struct slurm_submit s = { "job", "gpu", "h100", 2, 1, 90, "/tmp", "#!/bin/sh\n",
		"gpurent", env, NULL };
	char *doc;
	cJSON *j, *job;

	(void)state;
	doc = slurm_build_submit(3, &s);		/* v0.0.38 */
	j = cJSON_Parse(doc);
	job = cJSON_GetObjectItem(j, "job");
	assert_string_equal(cJSON_GetObjectItem(job, "gres")->valuestring, "gpu:h100:2");
	assert_int_equal(cJSON_GetObjectItem(job, "time_limit")->valueint, 90);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(job, "environment"),
	    "B")->valuestring, "x=y");
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(job, "environment"), "PATH"));
	cJSON_Delete(j);
	free(doc);
	doc = slurm_build_submit(1, &s);		/* v0.0.40 */
	j = cJSON_Parse(doc);
	job = cJSON_GetObjectItem(j, "job");
	assert_string_equal(cJSON_GetObjectItem(job, "tres_per_node")->valuestring,
	    "gres/gpu:h100:2");
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(job, "time_limit"),
	    "number")->valueint, 90);
	assert_true(cJSON_IsArray(cJSON_GetObjectItem(job, "environment")));
	cJSON_Delete(j);
	free(doc);
}

static void
test_jwt(void **state)
{
	int64_t exp = 0;

	(void)state;
	/* {"exp":1796169213,"iat":1796168613,"sun":"root"} from scontrol token. */
	assert_true(slurm_jwt_expiry("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE3OTYxNjkyMTMs"
	    "ImlhdCI6MTc5NjE2ODYxMywic3VuIjoicm9vdCJ9.sUBYAvYRJ_y8FO4z5TVuvFYZb9BN3-0cRYw4XGJXFjs",
	    &exp));
	assert_int_equal(exp, 1796169213);
	assert_false(slurm_jwt_expiry("not-a-jwt", &exp));
	assert_false(slurm_jwt_expiry("a.!!!.c", &exp));
	assert_false(slurm_jwt_expiry("a.e30.c", &exp));	/* {} */
}

/* Truncated, wrong-typed and empty replies fail cleanly or yield nothing. */
static void
test_malformed(void **state)
{
	static const char *const bodies[] = { "", "{", "[]", "{\"nodes\":{}}", "{\"jobs\":7}",
		"{\"partitions\":null}", "{\"nodes\":[1,\"x\",null,{\"name\":7}]}",
		"{\"jobs\":[{\"job_id\":\"x\"},{\"job_id\":-5},{\"job_id\":1e300}]}",
		/* GRES used beyond what the node has: one literal in two pieces, in parentheses. */
		("{\"nodes\":[{\"name\":\"a\",\"gres\":\"gpu:h100:4\",\"gres_used\":\"gpu:h100:9\","
		"\"state\":\"idle\",\"partitions\":[\"p\"]}]}"),
		"{\"job_id\":{\"set\":false,\"number\":3}}" };
	struct slurm_node *nodes;
	struct slurm_partition *parts;
	struct slurm_job *jobs;
	struct gr_error err = { 0 };
	long long id;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		size_t len = strlen(bodies[i]);

		if (slurm_parse_nodes(bodies[i], len, &nodes, &n, &err) == GR_OK) {
			/* More used than there are: none free, never negative. */
			struct slurm_partition p = { "p", true, -1 };
			struct offer_list l;

			offer_list_init(&l);
			slurm_build_offers(nodes, n, &p, 1, NULL, 0, NULL, NULL, NULL, &l);
			if (l.n > 0)
				assert_int_equal(l.v[0].available, 0);
			offer_list_release(&l);
		}
		free(nodes);
		(void)slurm_parse_partitions(bodies[i], len, &parts, &n, &err);
		free(parts);
		if (slurm_parse_jobs(bodies[i], len, &jobs, &n, &err) == GR_OK && i == 7)
			assert_int_equal(n, 0);
		slurm_jobs_free(jobs, n);
		assert_int_not_equal(slurm_parse_submit(bodies[i], len, &id, &err), GR_OK);
		gr_error_clear(&err);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offers_recorded),
		cmocka_unit_test(test_jobs_recorded),
		cmocka_unit_test(test_v0040_shapes),
		cmocka_unit_test(test_cluster_view),
		cmocka_unit_test(test_nodes_picked),
		cmocka_unit_test(test_nodes_stream_cuts),
		cmocka_unit_test(test_jobs_stream_cuts),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_errors_hostile),
		cmocka_unit_test(test_openapi),
		cmocka_unit_test(test_gres),
		cmocka_unit_test(test_hostlist),
		cmocka_unit_test(test_hostlist_expand),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_submit_per_version),
		cmocka_unit_test(test_jwt),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_job_nodes_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
