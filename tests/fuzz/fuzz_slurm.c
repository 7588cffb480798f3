/* fuzz_slurm.c - libFuzzer target: every slurmrestd parser on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "slurm_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A list stream fed in two chunks, cut where the first two bytes say. */
static void
stream_cut(enum slurm_list what, const uint8_t *data, size_t size)
{
	struct slurm_stream *s = slurm_stream_new(what);
	struct slurm_node *nodes = NULL;
	struct slurm_job *jobs = NULL;
	struct gr_error err = { 0 };
	size_t cut = size >= 2 ? ((size_t)data[0] << 8 | data[1]) % (size + 1) : 0, n = 0;

	slurm_stream_feed(s, (const char *)data, cut);
	slurm_stream_feed(s, (const char *)data + cut, size - cut);
	if (what == SLURM_NODES)
		(void)slurm_stream_nodes(s, 200, &nodes, &n, &err);
	else
		(void)slurm_stream_jobs(s, 200, &jobs, &n, &err);
	slurm_stream_free(s);
	free(nodes);
	slurm_jobs_free(jobs, what == SLURM_JOBS ? n : 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *b = (const char *)data;
	struct slurm_node *nodes = NULL;
	struct slurm_partition *parts = NULL;
	struct slurm_job *jobs = NULL;
	struct slurm_gres g[SLURM_GRES_MAX];
	struct gr_error err = { 0 };
	struct offer_list ol;
	struct cluster_state cs;
	struct instance in;
	size_t nn = 0, np = 0, nj = 0, i;
	long long id;
	int64_t exp;
	char t[512], host[64], hosts[64][SLURM_HOST_MAX];

	(void)slurm_parse_nodes(b, size, &nodes, &nn, &err);
	(void)slurm_parse_partitions(b, size, &parts, &np, &err);
	(void)slurm_parse_jobs(b, size, &jobs, &nj, &err);
	stream_cut(SLURM_NODES, data, size);
	stream_cut(SLURM_JOBS, data, size);
	/* One reply as all three lists: a node, partition and job list in one body. */
	offer_list_init(&ol);
	slurm_build_offers(nodes, nn, parts, np, jobs, nj, "c", NULL, NULL, &ol);
	offer_list_release(&ol);
	cluster_state_init(&cs);
	slurm_build_cluster(nodes, nn, parts, np, jobs, nj, "root", &cs);
	cluster_state_release(&cs);
	for (i = 0; i < nj; i++)
		slurm_job_to_instance(&jobs[i], &in);
	free(nodes);
	free(parts);
	slurm_jobs_free(jobs, nj);
	(void)slurm_parse_submit(b, size, &id, &err);
	(void)slurm_parse_openapi(b, size, &err);
	(void)slurm_parse_errors(size % 2 ? 500 : 200, b, size, &err);
	if (size < sizeof(t)) {
		memcpy(t, b, size);
		t[size] = '\0';
		(void)slurm_gres_gpus(t, g, SLURM_GRES_MAX);
		slurm_hostlist_first(t, host, sizeof(host));
		(void)slurm_hostlist_expand(t, hosts, sizeof(hosts) / sizeof(*hosts));
		(void)slurm_jwt_expiry(t, &exp);
		(void)catalogue_gpu_type(t);
	}
	return 0;
}
