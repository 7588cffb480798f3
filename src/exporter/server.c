/*
 * server.c - the exporter's HTTP face: libmicrohttpd serving the last published snapshot.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "gpurent/exporter.h"
#include "../http/libmhd.h"

struct exporter {
	struct MHD_Daemon *d;
	char address[80];
	char *token;			/* NULL: no authentication */
	pthread_mutex_t lock;		/* guards page, taken, have, published */
	struct exporter_page page;	/* the last snapshot, rendered when it was published */
	int64_t taken;			/* its clock */
	bool have;
	struct timespec published;	/* CLOCK_MONOTONIC at exporter_publish */
};

static const char content_type[] = "text/plain; version=0.0.4; charset=utf-8";

/* Equal strings, in time that depends only on their lengths. */
static bool
token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char diff = la != lb;

	for (i = 0; i < la && i < lb; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

static enum MHD_Result
reply(struct MHD_Connection *conn, unsigned int status, const char *type, char *body,
    size_t len, bool owned)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	r = MHD_create_response_from_buffer(len, body, owned ? MHD_RESPMEM_MUST_FREE :
	    MHD_RESPMEM_PERSISTENT);
	if (r == NULL) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer realm=\"gpurent\"");
	rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result
reply_text(struct MHD_Connection *conn, unsigned int status, const char *text)
{
	return reply(conn, status, "text/plain; charset=utf-8", (char *)text, strlen(text),
	    false);
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_len, void **con_cls)
{
	struct exporter *e = cls;
	struct timespec mono;
	struct sb out;
	int64_t now;

	(void)version;
	(void)upload;
	(void)con_cls;
	if (*upload_len != 0) {
		*upload_len = 0;	/* a scrape has no body; drop whatever came */
		return MHD_YES;
	}
	if (e->token != NULL) {
		const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
		    "Authorization");

		if (auth == NULL || strncmp(auth, "Bearer ", 7) != 0 ||
		    !token_equal(auth + 7, e->token))
			return reply_text(conn, MHD_HTTP_UNAUTHORIZED, "unauthorized\n");
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "GET /metrics\n");
	if (strcmp(url, "/") == 0)
		return reply_text(conn, MHD_HTTP_OK, "gpurent exporter: metrics at /metrics\n");
	if (strcmp(url, "/metrics") != 0)
		return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found; metrics at /metrics\n");

	sb_init(&out);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	pthread_mutex_lock(&e->lock);
	if (!e->have) {
		pthread_mutex_unlock(&e->lock);
		sb_release(&out);
		return reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
		    "no sample taken yet; try again in a moment\n");
	}
	now = e->taken + (int64_t)(mono.tv_sec - e->published.tv_sec);
	exporter_page_render(&e->page, now, &out);
	pthread_mutex_unlock(&e->lock);
	{
		size_t len = out.len;

		return reply(conn, MHD_HTTP_OK, content_type, sb_detach(&out), len, true);
	}
}

/* "host:port" or "[v6]:port" into a socket address. */
static bool
parse_listen(const char *s, struct sockaddr_storage *ss, bool *v6)
{
	char host[64];
	const char *colon, *end;
	long long port;
	size_t n;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		if ((end = strchr(s, ']')) == NULL || end[1] != ':')
			return false;
		n = (size_t)(end - s - 1);
		colon = end + 1;
		s++;
	} else {
		if ((colon = strrchr(s, ':')) == NULL)
			return false;
		n = (size_t)(colon - s);
	}
	if (n >= sizeof(host) || !parse_int(colon + 1, 0, 65535, &port))
		return false;
	memcpy(host, s, n);
	host[n] = '\0';
	if (strcmp(host, "") == 0 || strcmp(host, "localhost") == 0)
		strlcpy_(host, "127.0.0.1", sizeof(host));
	*v6 = strchr(host, ':') != NULL;
	if (*v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		return inet_pton(AF_INET6, host, &a->sin6_addr) == 1;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		return inet_pton(AF_INET, host, &a->sin_addr) == 1;
	}
}

enum gr_err
exporter_start(struct exporter **out, const char *listen, const char *token,
    struct gr_error *err)
{
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	struct exporter *e;
	const char *why;
	char host[INET6_ADDRSTRLEN];
	bool v6;
	int port;

	if (!parse_listen(listen, &ss, &v6))
		return gr_fail(err, GR_EUSAGE, "--listen takes HOST:PORT with an IP address "
		    "(127.0.0.1:9400, [::1]:9400), not '%s'", listen);
	if ((why = libmhd_load()) != NULL)
		return gr_fail(err, GR_EFAIL, "%s", why);
	if (libmhd_can_listen((struct sockaddr *)&ss, v6 ? sizeof(struct sockaddr_in6) :
	    sizeof(struct sockaddr_in), listen, err) != GR_OK)
		return err->code;
	e = xcalloc(1, sizeof(*e));
	pthread_mutex_init(&e->lock, NULL);
	exporter_page_init(&e->page);
	if (token != NULL)
		e->token = xstrdup(token);
	/* One polling thread: a scrape is a render from memory, well under a millisecond. */
	e->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
	    (v6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL, handler, e,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
	    MHD_OPTION_END);
	if (e->d == NULL) {
		exporter_stop(e);
		return gr_fail(err, GR_EFAIL, "cannot listen on %s", listen);
	}
	info = MHD_get_daemon_info(e->d, MHD_DAEMON_INFO_BIND_PORT);
	port = info != NULL ? (int)info->port : 0;
	if (v6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
	snprintf(e->address, sizeof(e->address), v6 ? "[%s]:%d" : "%s:%d", host, port);
	*out = e;
	return GR_OK;
}

const char *
exporter_address(const struct exporter *e)
{
	return e->address;
}

void
exporter_publish(struct exporter *e, struct exporter_snapshot *s)
{
	struct exporter_page page, old;
	struct timespec mono;

	/* Rendered here, in the publisher's thread: a scrape only copies the text. */
	exporter_page_init(&page);
	exporter_page_build(s, &page);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	pthread_mutex_lock(&e->lock);
	old = e->page;
	e->page = page;
	e->taken = s->taken;
	e->have = true;
	e->published = mono;
	pthread_mutex_unlock(&e->lock);
	exporter_snapshot_release(s);
	/* Freed outside the lock: a scrape waits for a swap, nothing more. */
	exporter_page_release(&old);
}

void
exporter_stop(struct exporter *e)
{
	if (e == NULL)
		return;
	if (e->d != NULL)
		MHD_stop_daemon(e->d);
	exporter_page_release(&e->page);
	pthread_mutex_destroy(&e->lock);
	secret_free(e->token);
	free(e);
}
