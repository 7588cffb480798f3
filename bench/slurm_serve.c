/*
 * slurm_serve.c - the Slurm offers benchmark's server: a recorded slurmrestd on 127.0.0.1.
 * Each path gpurent's offers asks for is answered from a file read into memory once
 * (/openapi/v3, and nodes, partitions and jobs under /slurm/v0.0.38), without a copy, so
 * the clock measures the client. Other paths are 404. Prints "port N" once listening;
 * stops on SIGTERM or SIGINT.
 *
 *   slurm_serve DIR     (DIR/openapi.json, nodes.json, partitions.json, jobs.json)
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const paths[][2] = {
	{ "/openapi/v3", "openapi.json" },
	{ "/slurm/v0.0.38/nodes", "nodes.json" },
	{ "/slurm/v0.0.38/partitions", "partitions.json" },
	{ "/slurm/v0.0.38/jobs", "jobs.json" },
};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))
static struct MHD_Response *replies[NPATHS], *missing;

static enum MHD_Result
answer(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size, void **state)
{
	size_t i;

	if (*state == NULL) {
		*state = conn;
		return MHD_YES;
	}
	for (i = 0; i < NPATHS; i++)
		if (strcmp(url, paths[i][0]) == 0)
			return MHD_queue_response(conn, MHD_HTTP_OK, replies[i]);
	return MHD_queue_response(conn, MHD_HTTP_NOT_FOUND, missing);
}

int
main(int argc, char **argv)
{
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;
	char path[4096], *buf;
	sigset_t set;
	size_t i;
	FILE *f;
	long n;
	int sig;

	if (argc != 2) {
		fprintf(stderr, "usage: slurm_serve DIR\n");
		return 2;
	}
	for (i = 0; i < NPATHS; i++) {
		snprintf(path, sizeof(path), "%s/%s", argv[1], paths[i][1]);
		if ((f = fopen(path, "rb")) == NULL) {
			perror(path);
			return 2;
		}
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		buf = malloc((size_t)n + 1);
		if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n)
			return 2;
		fclose(f);
		replies[i] = MHD_create_response_from_buffer((size_t)n, buf, MHD_RESPMEM_MUST_FREE);
		MHD_add_response_header(replies[i], "Content-Type", "application/json");
	}
	missing = MHD_create_response_from_buffer(2, "{}", MHD_RESPMEM_PERSISTENT);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL,
	    answer, NULL, MHD_OPTION_SOCK_ADDR, NULL, MHD_OPTION_END);
	if (d == NULL)
		return 1;
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	printf("port %u\n", (unsigned)info->port);
	fflush(stdout);
	sigwait(&set, &sig);
	MHD_stop_daemon(d);
	for (i = 0; i < NPATHS; i++)
		MHD_destroy_response(replies[i]);
	MHD_destroy_response(missing);
	return 0;
}
