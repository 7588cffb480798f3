/*
 * static_serve.c - the replay benchmark's server: answers every request on 127.0.0.1 with
 * one file, read into memory once, as application/json. The body is served from that
 * buffer without a copy, so the server costs next to nothing per request and the clock
 * measures the client. Prints "port N" once listening; stops on SIGTERM or SIGINT.
 *
 *   static_serve FILE
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct MHD_Response *reply;

static enum MHD_Result
answer(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size, void **state)
{
	if (*state == NULL) {	/* first call: headers only */
		*state = conn;
		return MHD_YES;
	}
	if (*upload_size > 0) {	/* the request body (a search query) is read and ignored */
		*upload_size = 0;
		return MHD_YES;
	}
	return MHD_queue_response(conn, MHD_HTTP_OK, reply);
}

int
main(int argc, char **argv)
{
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;
	sigset_t set;
	FILE *f;
	char *buf;
	long n;
	int sig;

	if (argc != 2 || (f = fopen(argv[1], "rb")) == NULL) {
		fprintf(stderr, "usage: static_serve FILE\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n)
		return 2;
	fclose(f);
	reply = MHD_create_response_from_buffer((size_t)n, buf, MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(reply, "Content-Type", "application/json");
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
	MHD_destroy_response(reply);
	free(buf);
	return 0;
}
