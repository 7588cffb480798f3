/*
 * test_http.c - the HTTP layer against a libmicrohttpd server on 127.0.0.1 started here:
 * connection reuse, User-Agent, retries with Retry-After, no retry of a non-idempotent
 * request, timeouts, refused connections, URL rules, redaction and status mapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>

#include <cmocka.h>
#include <microhttpd.h>

#include "gpurent/http.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_Result_;
#else
typedef enum MHD_Result MHD_Result_;
#endif

static struct MHD_Daemon *daemon_;
static int port;
static int flaky_count, post_count, hits, crash_count, cut_count;

/* The /cut body: its first reply stops half way through (a truncated transfer). */
static const char cut_body[] = "{\"offers\":[{\"id\":1},{\"id\":2},{\"id\":3},{\"id\":4}]}";

static ssize_t
cut_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	size_t half = sizeof(cut_body) / 2, n;

	(void)cls;
	if (pos >= half)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	n = half - (size_t)pos < max ? half - (size_t)pos : max;
	memcpy(buf, cut_body + pos, n);
	return (ssize_t)n;
}
static unsigned short last_client_port, first_client_port;
static char last_ua[128], last_auth[128];

static MHD_Result_
reply(struct MHD_Connection *c, unsigned status, const char *body, const char *retry_after)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
	    MHD_RESPMEM_MUST_COPY);
	MHD_Result_ ret;

	MHD_add_response_header(r, "Content-Type", "application/json");
	if (retry_after != NULL)
		MHD_add_response_header(r, "Retry-After", retry_after);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static MHD_Result_
handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
    const char *version, const char *data, size_t *size, void **con)
{
	const union MHD_ConnectionInfo *ci;
	const char *ua, *auth;

	if (*con == NULL) {
		*con = (void *)1;
		return MHD_YES;
	}
	if (*size > 0) {
		*size = 0;
		return MHD_YES;
	}
	hits++;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci != NULL)
		last_client_port = ntohs(((const struct sockaddr_in *)ci->client_addr)->sin_port);
	ua = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "User-Agent");
	snprintf(last_ua, sizeof(last_ua), "%s", ua ? ua : "");
	auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	snprintf(last_auth, sizeof(last_auth), "%s", auth ? auth : "");
	if (strcmp(url, "/ok") == 0)
		return reply(c, 200, "{\"ok\":true}", NULL);
	if (strcmp(url, "/flaky") == 0)
		return ++flaky_count < 3 ? reply(c, 503, "busy", "0") : reply(c, 200, "{}", NULL);
	/* The application crashes on the first two requests, then answers. */
	if (strcmp(url, "/crash") == 0)
		return ++crash_count <= 2 ? reply(c, 500, "<h1>500</h1>", NULL) :
		    reply(c, 200, "{}", NULL);
	if (strcmp(url, "/429") == 0)
		return reply(c, 429, "too frequent", NULL);
	if (strcmp(url, "/post503") == 0) {
		post_count++;
		return reply(c, 503, "oops", NULL);
	}
	if (strcmp(url, "/slow") == 0) {
		struct timespec ts = { 1, 500000000L };

		nanosleep(&ts, NULL);
		return reply(c, 200, "{}", NULL);
	}
	if (strcmp(url, "/big") == 0) {
		static char *big;

		if (big == NULL) {
			big = malloc(3000001);
			memset(big, 'x', 3000000);
			big[3000000] = '\0';
		}
		return reply(c, 200, big, NULL);
	}
	if (strcmp(url, "/drop") == 0)
		return MHD_NO;
	if (strcmp(url, "/cut") == 0) {
		struct MHD_Response *r;
		MHD_Result_ ret;

		if (++cut_count > 1)
			return reply(c, 200, cut_body, NULL);
		r = MHD_create_response_from_callback(sizeof(cut_body) - 1, 64, cut_reader, NULL,
		    NULL);
		MHD_add_response_header(r, "Content-Type", "application/json");
		ret = MHD_queue_response(c, 200, r);
		MHD_destroy_response(r);
		return ret;
	}
	return reply(c, 404, "{\"error\":\"nope\"}", NULL);
}

static int
setup(void **state)
{
	const union MHD_DaemonInfo *di;
	struct sockaddr_in sin;

	(void)state;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	daemon_ = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION,
	    0, NULL, NULL, handler, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin,
	    MHD_OPTION_END);
	if (daemon_ == NULL)
		return -1;
	di = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
	port = di->port;
	http_global_init();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	MHD_stop_daemon(daemon_);
	return 0;
}

static char *
url(const char *path)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "http://127.0.0.1:%d%s", port, path);
	return buf;
}

static struct http_client *
client(const char *key)
{
	struct http_opts o = { .provider = "test", .api_key = key, .backoff_base_ms = 10,
		.timeout_ms = 500, .max_retries = 3 };

	return http_client_new(&o);
}

static void
test_get_reuse_ua(void **state)
{
	struct http_client *c = client("s3cr3t-key");
	struct http_response rs;
	struct gr_error err = { 0 };
	const char *hdrs[] = { "Authorization: Bearer s3cr3t-key", NULL };

	(void)state;
	assert_int_equal(http_get(c, url("/ok"), hdrs, &rs, &err), GR_OK);
	assert_int_equal(rs.status, 200);
	assert_string_equal(rs.body, "{\"ok\":true}");
	assert_int_equal(rs.len, 11);
	assert_string_equal(rs.content_type, "application/json");
	assert_string_equal(last_ua, "gpurent/" GPURENT_VERSION);
	assert_string_equal(last_auth, "Bearer s3cr3t-key");
	first_client_port = last_client_port;
	http_response_release(&rs);
	assert_int_equal(http_get(c, url("/ok"), NULL, &rs, &err), GR_OK);
	/* The same client port: the connection was reused. */
	assert_int_equal(last_client_port, first_client_port);
	http_response_release(&rs);
	http_client_free(c);
}

static void
test_retry(void **state)
{
	struct http_client *c = client(NULL);
	struct http_response rs;
	struct gr_error err = { 0 };

	(void)state;
	flaky_count = 0;
	assert_int_equal(http_get(c, url("/flaky"), NULL, &rs, &err), GR_OK);
	assert_int_equal(rs.status, 200);
	assert_int_equal(rs.attempts, 3);
	http_response_release(&rs);
	/* 429 until the retries run out: the last reply is returned, bounded in count. */
	assert_int_equal(http_get(c, url("/429"), NULL, &rs, &err), GR_OK);
	assert_int_equal(rs.status, 429);
	assert_int_equal(rs.attempts, 4);
	assert_int_equal(http_status_code(rs.status), GR_ERATELIMIT);
	http_response_release(&rs);
	/* Never retried when not idempotent, and flagged as possibly acted on. */
	post_count = 0;
	assert_int_equal(http_send_json(c, HTTP_POST, url("/post503"), NULL, "{}", false, &rs,
	    &err), GR_OK);
	assert_int_equal(rs.status, 503);
	assert_int_equal(rs.attempts, 1);
	assert_int_equal(post_count, 1);
	assert_true(rs.maybe_sent);
	http_response_release(&rs);
	http_client_free(c);
}

/* A 500 is retried for a read only: a change the provider may have half made is not. */
static void
test_retry_500(void **state)
{
	struct http_client *c = client(NULL);
	struct http_response rs;
	struct gr_error err = { 0 };

	(void)state;
	crash_count = 0;
	assert_int_equal(http_get(c, url("/crash"), NULL, &rs, &err), GR_OK);
	assert_int_equal(rs.status, 200);
	assert_int_equal(rs.attempts, 3);
	http_response_release(&rs);
	/* A POSTed query (GraphQL, a search) reads like a GET. */
	crash_count = 0;
	assert_int_equal(http_read_json(c, HTTP_POST, url("/crash"), NULL, "{\"query\":\"q\"}",
	    &rs, &err), GR_OK);
	assert_int_equal(rs.status, 200);
	assert_int_equal(rs.attempts, 3);
	http_response_release(&rs);
	/* An idempotent change (stop) and a create (launch): one attempt, the 500 returned. */
	crash_count = 0;
	assert_int_equal(http_send_json(c, HTTP_POST, url("/crash"), NULL, "{}", true, &rs,
	    &err), GR_OK);
	assert_int_equal(rs.status, 500);
	assert_int_equal(rs.attempts, 1);
	assert_true(rs.maybe_sent);
	http_response_release(&rs);
	crash_count = 0;
	assert_int_equal(http_send_json(c, HTTP_POST, url("/crash"), NULL, "{}", false, &rs,
	    &err), GR_OK);
	assert_int_equal(rs.status, 500);
	assert_int_equal(rs.attempts, 1);
	assert_int_equal(crash_count, 1);
	http_response_release(&rs);
	http_client_free(c);
}

static void
test_timeouts_and_failures(void **state)
{
	struct http_client *c = client(NULL);
	struct http_response rs;
	struct gr_error err = { 0 };
	struct http_request rq = { .method = HTTP_GET, .idempotent = false, .timeout_ms = 200 };
	char dead[64];

	(void)state;
	rq.url = url("/slow");
	assert_int_equal(http_do(c, &rq, &rs, &err), GR_EUNAVAIL);
	assert_non_null(strstr(err.msg, "timed out"));
	assert_true(rs.maybe_sent);
	http_response_release(&rs);
	gr_error_clear(&err);
	assert_int_equal(http_get(c, url("/drop"), NULL, &rs, &err), GR_EUNAVAIL);
	assert_true(rs.attempts > 1);
	http_response_release(&rs);
	gr_error_clear(&err);
	/* Nothing listens on port 1: refused, retried, reported. */
	snprintf(dead, sizeof(dead), "http://127.0.0.1:1/x");
	assert_int_equal(http_get(c, dead, NULL, &rs, &err), GR_EUNAVAIL);
	assert_false(rs.maybe_sent);
	http_response_release(&rs);
	gr_error_clear(&err);
	assert_int_equal(http_get(c, url("/big"), NULL, &rs, &err), GR_OK);
	assert_int_equal(rs.len, 3000000);
	http_response_release(&rs);
	/* Plain http away from loopback is refused before anything is sent. */
	assert_int_equal(http_get(c, "http://example.com/", NULL, &rs, &err), GR_EUSAGE);
	http_response_release(&rs);
	http_client_free(c);
}

/* A reader of streamed bodies: what begin and data saw. */
struct reader {
	int begins;
	char got[4096];
	size_t len;
	bool refuse;
};

static bool
reader_begin(void *ctx, long status, const char *content_type)
{
	struct reader *r = ctx;

	r->begins++;
	r->len = 0;	/* a retried attempt starts afresh */
	return strcmp(content_type, "application/json") == 0;
}

static bool
reader_data(void *ctx, const char *p, size_t n)
{
	struct reader *r = ctx;

	if (r->refuse || r->len + n > sizeof(r->got))
		return false;
	memcpy(r->got + r->len, p, n);
	r->len += n;
	return true;
}

/* Streamed bodies: chunks to the reader, a cut-off attempt retried from its first byte. */
static void
test_stream(void **state)
{
	struct http_client *c = client(NULL);
	struct http_response rs;
	struct gr_error err = { 0 };
	struct reader r = { 0 };
	struct http_stream st = { reader_begin, reader_data, &r };
	struct http_request rq = { .method = HTTP_GET, .read = true, .stream = &st };

	(void)state;
	cut_count = 0;
	rq.url = url("/cut");
	assert_int_equal(http_do(c, &rq, &rs, &err), GR_OK);
	assert_int_equal(rs.status, 200);
	assert_int_equal(rs.attempts, 2);
	assert_int_equal(r.begins, 2);
	assert_true(rs.streamed);
	assert_int_equal(rs.len, 0);		/* nothing kept */
	assert_int_equal(rs.stream_len, sizeof(cut_body) - 1);
	assert_int_equal(r.len, sizeof(cut_body) - 1);
	assert_memory_equal(r.got, cut_body, r.len);
	http_response_release(&rs);
	/* An error's body is kept for its message, not streamed. */
	memset(&r, 0, sizeof(r));
	rq.url = url("/nothing-here");
	assert_int_equal(http_do(c, &rq, &rs, &err), GR_OK);
	assert_int_equal(rs.status, 404);
	assert_false(rs.streamed);
	assert_int_equal(r.begins, 0);
	assert_string_equal(rs.body, "{\"error\":\"nope\"}");
	http_response_release(&rs);
	/* A reader that refuses stops the transfer, which is not retried. */
	memset(&r, 0, sizeof(r));
	r.refuse = true;
	cut_count = 1;
	rq.url = url("/cut");
	assert_int_equal(http_do(c, &rq, &rs, &err), GR_EUNAVAIL);
	assert_int_equal(rs.attempts, 1);
	http_response_release(&rs);
	http_client_free(c);
}

static void
test_urls(void **state)
{
	char *u;

	(void)state;
	assert_true(http_url_allowed("https://console.vast.ai"));
	assert_true(http_url_allowed("http://127.0.0.1:8080/x"));
	assert_true(http_url_allowed("http://127.1.2.3/"));
	assert_true(http_url_allowed("http://localhost:1/"));
	assert_true(http_url_allowed("http://[::1]:80/"));
	assert_false(http_url_allowed("http://127.0.0.1.evil.example/"));
	assert_false(http_url_allowed("http://10.0.0.1/"));
	assert_false(http_url_allowed("ftp://127.0.0.1/"));
	assert_false(http_url_allowed("not a url"));
	assert_false(http_url_allowed(NULL));
	u = http_url("http://h:1//", "https://def", "/api/v0/x/");
	assert_string_equal(u, "http://h:1/api/v0/x/");
	free(u);
	u = http_url(NULL, "https://def", "/p");
	assert_string_equal(u, "https://def/p");
	free(u);
	u = http_escape("{\"a\": 1}&=");
	assert_string_equal(u, "%7B%22a%22%3A%201%7D%26%3D");
	free(u);
}

static void
test_redact(void **state)
{
	const char *in = "GET /x?api_key=abc123&b=1 HTTP/1.1\nAuthorization: Bearer topsecret\n"
	    "X-Other: value-with-topsecret-inside\n{\"api_key\": \"zzz\", \"n\": 1}";
	char out[512];

	(void)state;
	http_redact(out, sizeof(out), in, strlen(in), "topsecret");
	assert_null(strstr(out, "abc123"));
	assert_null(strstr(out, "topsecret"));
	assert_null(strstr(out, "zzz"));
	assert_non_null(strstr(out, "api_key=[REDACTED]&b=1"));
	assert_non_null(strstr(out, "Authorization: Bearer [REDACTED]"));
	assert_non_null(strstr(out, "\"n\": 1"));
	/* A tiny buffer still ends in NUL and never leaks the tail. */
	http_redact(out, 8, in, strlen(in), "topsecret");
	assert_int_equal(strlen(out), 7);
}

static void
test_status(void **state)
{
	struct gr_error err = { 0 };

	(void)state;
	assert_int_equal(http_status_code(200), GR_OK);
	assert_int_equal(http_status_code(401), GR_EAUTH);
	assert_int_equal(http_status_code(403), GR_EAUTH);
	assert_int_equal(http_status_code(402), GR_EFUNDS);
	assert_int_equal(http_status_code(404), GR_ENOTFOUND);
	assert_int_equal(http_status_code(429), GR_ERATELIMIT);
	assert_int_equal(http_status_code(503), GR_EUNAVAIL);
	assert_int_equal(http_status_code(400), GR_EUSAGE);
	/* 409: the resource's state does not allow it now (start while stopping). */
	assert_int_equal(http_status_code(409), GR_ECONFLICT);
	assert_int_equal(gr_exit_code(GR_ECONFLICT), EXIT_CONFLICT);
	assert_string_equal(gr_err_name(GR_ECONFLICT), "conflict");
	assert_int_equal(http_fail_status(&err, "p", 500, "boom\033[2J"), GR_EUNAVAIL);
	assert_null(strchr(err.msg, '\033'));
	assert_non_null(strstr(err.msg, "HTTP 500"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_reuse_ua),
		cmocka_unit_test(test_retry),
		cmocka_unit_test(test_retry_500),
		cmocka_unit_test(test_timeouts_and_failures),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_status),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
