/*
 * http.c - the libcurl client: one reused easy handle per client, retries with backoff and
 * jitter, loopback-only plain http, redacted debug traces. See include/gpurent/http.h.
 */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "libcurl.h"

#include "gpurent/http.h"
#include "gpurent/i18n.h"
#include "gpurent/util.h"

#define BODY_MAX	((size_t)512 << 20)	/* refuse replies larger than this */
#define TRACE_BODY_MAX	4096			/* bytes of each body shown by --debug */

struct http_client {
	CURL *h;
	char *provider;
	char *api_key;
	char *unix_socket;
	int debug;
	long timeout_ms;
	long connect_timeout_ms;
	int max_retries;
	long retry_budget_ms;
	long backoff_base_ms;
	long backoff_max_ms;
	uint64_t rng;
	char errbuf[CURL_ERROR_SIZE];
	size_t traced_in, traced_out;	/* body bytes traced in this attempt */
};

/* One transfer's sink. */
struct sink {
	struct http_response *rs;
	size_t cap;
	bool too_big;
	CURL *h;
	const struct http_stream *stream;	/* NULL: keep every body */
	bool started;		/* this attempt's first body byte has been seen */
	bool refused;		/* the stream's reader refused the body */
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static volatile int *cancel_flag;

static void
global_init_once(void)
{
	if (libcurl_load() == NULL)
		curl_global_init(CURL_GLOBAL_DEFAULT);
}

void
http_global_init(void)
{
	pthread_once(&global_once, global_init_once);
}

const char *
http_unavailable(void)
{
	return libcurl_load();
}

void
http_set_cancel(volatile int *flag)
{
	cancel_flag = flag;
}

static bool
cancelled(void)
{
	return cancel_flag != NULL && *cancel_flag != 0;
}

/* xorshift64*: jitter needs no cryptographic quality, only independence between clients. */
static uint64_t
rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(2685821657736338717);
}

struct http_client *
http_client_new(const struct http_opts *o)
{
	struct http_client *c;
	struct timespec ts;

	http_global_init();
	if (libcurl_load() != NULL)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->h = curl_easy_init();
	if (c->h == NULL) {
		free(c);
		return NULL;
	}
	c->provider = xstrdup(o->provider != NULL ? o->provider : "http");
	c->api_key = o->api_key != NULL && o->api_key[0] != '\0' ? xstrdup(o->api_key) : NULL;
	c->unix_socket = o->unix_socket != NULL ? xstrdup(o->unix_socket) : NULL;
	c->debug = o->debug;
	c->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 30000;
	c->connect_timeout_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 10000;
	c->max_retries = o->max_retries == 0 ? 4 : o->max_retries < 0 ? 0 : o->max_retries;
	c->retry_budget_ms = o->retry_budget_ms > 0 ? o->retry_budget_ms : 60000;
	c->backoff_base_ms = o->backoff_base_ms > 0 ? o->backoff_base_ms : 250;
	c->backoff_max_ms = o->backoff_max_ms > 0 ? o->backoff_max_ms : 20000;
	clock_gettime(CLOCK_REALTIME, &ts);
	c->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)c;
	if (c->rng == 0)
		c->rng = 0x9e3779b97f4a7c15u;
	return c;
}

void
http_client_free(struct http_client *c)
{
	if (c == NULL)
		return;
	curl_easy_cleanup(c->h);
	free(c->provider);
	secret_free(c->api_key);
	free(c->unix_socket);
	free(c);
}

void
http_response_init(struct http_response *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->retry_after_s = -1;
}

void
http_response_release(struct http_response *rs)
{
	free(rs->body);
	http_response_init(rs);
}

/* Empty the body for a new attempt, keeping the buffer. */
static void
response_reset(struct http_response *rs, struct sink *sk)
{
	rs->status = 0;
	rs->len = 0;
	if (rs->body != NULL)
		rs->body[0] = '\0';
	rs->content_type[0] = '\0';
	rs->retry_after_s = -1;
	rs->streamed = false;
	rs->stream_len = 0;
	sk->too_big = false;
	sk->started = false;
	sk->refused = false;
}

static void
sink_reserve(struct sink *sk, size_t need)
{
	struct http_response *rs = sk->rs;
	size_t cap;

	if (need + 1 <= sk->cap)
		return;
	cap = sk->cap ? sk->cap : 4096;
	while (cap < need + 1)
		cap = cap < SIZE_MAX / 2 ? cap * 2 : need + 1;
	rs->body = xrealloc(rs->body, cap);
	sk->cap = cap;
}

/* At an attempt's first body byte: whether its body goes to the stream's reader. */
static void
stream_start(struct sink *sk)
{
	long status = 0;
	char *ct = NULL;

	sk->started = true;
	if (sk->stream == NULL)
		return;
	curl_easy_getinfo(sk->h, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(sk->h, CURLINFO_CONTENT_TYPE, &ct);
	if (status >= 200 && status < 300)
		sk->rs->streamed = sk->stream->begin(sk->stream->ctx, status, ct != NULL ? ct : "");
}

static size_t
write_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct sink *sk = ud;
	struct http_response *rs = sk->rs;
	size_t n = size * nmemb;

	if (!sk->started)
		stream_start(sk);
	if (rs->streamed) {
		/* Counted, not kept: the reader holds what it needs. */
		if (rs->stream_len + n > BODY_MAX) {
			sk->too_big = true;
			return 0;
		}
		rs->stream_len += n;
		if (!sk->stream->data(sk->stream->ctx, ptr, n)) {
			sk->refused = true;
			return 0;
		}
		return n;
	}
	if (rs->len + n > BODY_MAX) {
		sk->too_big = true;
		return 0;
	}
	sink_reserve(sk, rs->len + n);
	memcpy(rs->body + rs->len, ptr, n);
	rs->len += n;
	rs->body[rs->len] = '\0';
	return n;
}

/* Headers: pre-size the body from Content-Length so a large reply is not copied while it grows. */
static size_t
header_cb(char *ptr, size_t size, size_t nmemb, void *ud)
{
	struct sink *sk = ud;
	size_t n = size * nmemb;
	static const char cl[] = "content-length:";
	char num[32];
	size_t i, j;
	long long v;

	if (n > sizeof(cl) && strncasecmp(ptr, cl, sizeof(cl) - 1) == 0) {
		for (i = sizeof(cl) - 1; i < n && (ptr[i] == ' ' || ptr[i] == '\t'); i++)
			;
		for (j = 0; i < n && j + 1 < sizeof(num) && isdigit((unsigned char)ptr[i]); i++)
			num[j++] = ptr[i];
		num[j] = '\0';
		if (j > 0 && parse_int(num, 0, (long long)BODY_MAX, &v))
			sink_reserve(sk, (size_t)v);
	}
	return n;
}

static int
xferinfo_cb(void *ud, curl_off_t dlt, curl_off_t dln, curl_off_t ult, curl_off_t uln)
{
	return cancelled() ? 1 : 0;
}

/* Append redacted text to the trace. */
static void
trace_write(struct http_client *c, const char *prefix, const char *data, size_t len)
{
	char *buf;
	size_t cap = len * 2 + 64, i, start;

	buf = xmalloc(cap);
	http_redact(buf, cap, data, len, c->api_key);
	start = 0;
	for (i = 0;; i++) {
		if (buf[i] == '\n' || buf[i] == '\0') {
			if (i > start || buf[i] == '\n')
				fprintf(stderr, "%s%.*s\n", prefix, (int)(i - start), buf + start);
			if (buf[i] == '\0')
				break;
			start = i + 1;
		}
	}
	free(buf);
}

static int
debug_cb(CURL *h, curl_infotype type, char *data, size_t size, void *ud)
{
	struct http_client *c = ud;
	char pfx[48];
	size_t n = size, *traced;

	/* Strip CR so lines trace cleanly. */
	switch (type) {
	case CURLINFO_TEXT:
		snprintf(pfx, sizeof(pfx), "%s: * ", c->provider);
		break;
	case CURLINFO_HEADER_OUT:
		snprintf(pfx, sizeof(pfx), "%s: > ", c->provider);
		break;
	case CURLINFO_HEADER_IN:
		snprintf(pfx, sizeof(pfx), "%s: < ", c->provider);
		break;
	case CURLINFO_DATA_OUT:
	case CURLINFO_DATA_IN:
		traced = type == CURLINFO_DATA_IN ? &c->traced_in : &c->traced_out;
		if (*traced >= TRACE_BODY_MAX)
			return 0;
		if (n > TRACE_BODY_MAX - *traced)
			n = TRACE_BODY_MAX - *traced;
		*traced += n;
		snprintf(pfx, sizeof(pfx), "%s: %s ", c->provider,
		    type == CURLINFO_DATA_IN ? "<<" : ">>");
		break;
	default:
		return 0;
	}
	{
		char *tmp = xmalloc(n + 1);
		size_t i, j = 0;

		for (i = 0; i < n; i++)
			if (data[i] != '\r')
				tmp[j++] = data[i];
		tmp[j] = '\0';
		trace_write(c, pfx, tmp, j);
		if ((type == CURLINFO_DATA_IN || type == CURLINFO_DATA_OUT) && n < size)
			fprintf(stderr, "%s[... body truncated in trace]\n", pfx);
		free(tmp);
	}
	return 0;
}

static const char *
method_name(enum http_method m)
{
	switch (m) {
	case HTTP_GET:
		return "GET";
	case HTTP_POST:
		return "POST";
	case HTTP_PUT:
		return "PUT";
	case HTTP_PATCH:
		return "PATCH";
	case HTTP_DELETE:
		return "DELETE";
	}
	return "GET";
}

static bool
is_loopback_host(const char *host)
{
	const char *p;
	int dots = 0;

	if (strcasecmp(host, "localhost") == 0 || strcasecmp(host, "localhost.") == 0)
		return true;
	if (strcmp(host, "[::1]") == 0 || strcmp(host, "::1") == 0)
		return true;
	if (strncmp(host, "127.", 4) != 0)
		return false;
	for (p = host; *p != '\0'; p++) {
		if (*p == '.')
			dots++;
		else if (!isdigit((unsigned char)*p))
			return false;
	}
	return dots == 3;
}

bool
http_url_allowed(const char *url)
{
	CURLU *u;
	char *scheme = NULL, *host = NULL;
	bool ok = false;

	if (url == NULL || libcurl_load() != NULL)
		return false;
	u = curl_url();
	if (u == NULL)
		return false;
	if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
		if (strcasecmp(scheme, "https") == 0)
			ok = true;
		else if (strcasecmp(scheme, "http") == 0)
			ok = is_loopback_host(host);
	}
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return ok;
}

static bool
url_is_plain_http(const char *url)
{
	return strncasecmp(url, "http://", 7) == 0;
}

/* Parse a Retry-After header value: delta-seconds or an HTTP date. -1 when unusable. */
static long
parse_retry_after(CURL *h)
{
	curl_off_t ra = -1;

	if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra) != CURLE_OK || ra < 0)
		return -1;
	/* curl returns 0 for an absent header as well as for "0"; both mean "no wait". */
	return ra > 86400 ? 86400 : (long)ra;
}

static bool
retryable_status(const struct http_request *rq, long status)
{
	if (rq->read && status == 500)
		return true;
	return status == 429 || status == 502 || status == 503 || status == 504;
}

/* The wait before retry number `attempt` (1-based): base * 2^(attempt-1), equal jitter. */
static long
backoff_ms(struct http_client *c, int attempt, long retry_after_s)
{
	long cap = c->backoff_base_ms, half;
	int i;

	if (retry_after_s > 0) {
		long ra = retry_after_s * 1000;

		/* A little jitter over Retry-After so parallel clients do not stampede. */
		ra += (long)(rng_next(&c->rng) % 250);
		return ra > c->backoff_max_ms ? c->backoff_max_ms : ra;
	}
	for (i = 1; i < attempt && cap < c->backoff_max_ms; i++)
		cap *= 2;
	if (cap > c->backoff_max_ms)
		cap = c->backoff_max_ms;
	half = cap / 2;
	return half + (long)(rng_next(&c->rng) % (uint64_t)(cap - half + 1));
}

/* Sleep ms milliseconds in slices, returning false when cancelled. */
static bool
sleep_ms(long ms)
{
	struct timespec ts;
	long slice;

	while (ms > 0) {
		if (cancelled())
			return false;
		slice = ms > 100 ? 100 : ms;
		ts.tv_sec = slice / 1000;
		ts.tv_nsec = (slice % 1000) * 1000000L;
		while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
			if (cancelled())
				return false;
		ms -= slice;
	}
	return !cancelled();
}

/* Whether a transport error happened before any byte of the request could reach the server. */
static bool
surely_unsent(CURL *h, CURLcode rc)
{
	curl_off_t pre = 0;

	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_URL_MALFORMAT:
	case CURLE_UNSUPPORTED_PROTOCOL:
		return true;
	default:
		break;
	}
	if (curl_easy_getinfo(h, CURLINFO_PRETRANSFER_TIME_T, &pre) == CURLE_OK && pre == 0)
		return true;
	return false;
}

static bool
retryable_transport(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

static struct curl_slist *
build_headers(const struct http_request *rq)
{
	struct curl_slist *l = NULL, *n;
	char ct[160];
	size_t i;

	if (rq->body != NULL) {
		snprintf(ct, sizeof(ct), "Content-Type: %s",
		    rq->content_type != NULL ? rq->content_type : "application/json");
		l = curl_slist_append(l, ct);
	}
	l = curl_slist_append(l, "Accept: application/json");
	/* No "Expect: 100-continue" round trip on larger bodies. */
	l = curl_slist_append(l, "Expect:");
	for (i = 0; rq->headers != NULL && rq->headers[i] != NULL; i++) {
		n = curl_slist_append(l, rq->headers[i]);
		if (n == NULL)
			break;
		l = n;
	}
	return l;
}

/* Set up the handle for one attempt. */
static void
setup(struct http_client *c, const struct http_request *rq, struct curl_slist *hdrs,
    struct sink *sk)
{
	CURL *h = c->h;
	long to = rq->timeout_ms > 0 ? rq->timeout_ms : c->timeout_ms;

	curl_easy_reset(h);	/* keeps live connections, TLS sessions and the DNS cache */
	curl_easy_setopt(h, CURLOPT_URL, rq->url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "gpurent/" GPURENT_VERSION);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, to);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, sk);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, sk);
	if (c->unix_socket != NULL)
		curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->unix_socket);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, xferinfo_cb);
	/*
	 * libcurl silently sends a request again when a reused connection turns out dead; for
	 * a launch that may mean renting twice, so non-idempotent requests get a fresh one.
	 */
	if (!rq->idempotent && !rq->read)
		curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
	/* Plain http goes only to loopback, and never through a proxy. */
	if (url_is_plain_http(rq->url))
		curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	if (c->debug) {
		curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
		curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, debug_cb);
		curl_easy_setopt(h, CURLOPT_DEBUGDATA, c);
		c->traced_in = c->traced_out = 0;
	}
	switch (rq->method) {
	case HTTP_GET:
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
		break;
	case HTTP_POST:
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		break;
	default:
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method_name(rq->method));
		break;
	}
	if (rq->body != NULL) {
		size_t blen = rq->body_len ? rq->body_len : strlen(rq->body);

		if (rq->method == HTTP_GET)
			curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "GET");
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)blen);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq->body);
	} else if (rq->method == HTTP_POST || rq->method == HTTP_PUT ||
	    rq->method == HTTP_PATCH) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, 0L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, "");
	}
}

enum gr_err
http_do(struct http_client *c, const struct http_request *rq, struct http_response *rs,
    struct gr_error *err)
{
	struct curl_slist *hdrs;
	struct sink sk;
	CURLcode rc = CURLE_OK;
	int64_t t0 = monotonic_ms(), elapsed;
	int attempt;
	long wait;
	char *ct;
	enum gr_err ret = GR_OK;
	bool maybe_sent = false;

	http_response_init(rs);
	memset(&sk, 0, sizeof(sk));
	sk.rs = rs;
	sk.h = c != NULL ? c->h : NULL;
	sk.stream = rq->stream;
	sink_reserve(&sk, 0);
	rs->body[0] = '\0';
	if (c == NULL)
		return gr_fail(err, GR_EFAIL, "http client unavailable");
	if (!http_url_allowed(rq->url))
		return gr_fail(err, GR_EUSAGE,
		    "refusing '%.200s': only https, or plain http to a loopback address",
		    rq->url != NULL ? rq->url : "");
	hdrs = build_headers(rq);

	for (attempt = 1;; attempt++) {
		response_reset(rs, &sk);
		c->errbuf[0] = '\0';
		setup(c, rq, hdrs, &sk);
		rc = curl_easy_perform(c->h);
		rs->attempts = attempt;
		if (rc == CURLE_OK) {
			curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &rs->status);
			ct = NULL;
			curl_easy_getinfo(c->h, CURLINFO_CONTENT_TYPE, &ct);
			if (ct != NULL)
				strlcpy_(rs->content_type, ct, sizeof(rs->content_type));
			rs->retry_after_s = parse_retry_after(c->h);
			if (rs->status >= 500)
				maybe_sent = true;
			if (!retryable_status(rq, rs->status) || !(rq->idempotent || rq->read))
				break;
		} else {
			if (rc == CURLE_ABORTED_BY_CALLBACK && cancelled()) {
				ret = GR_EINTERRUPTED;
				break;
			}
			if (!surely_unsent(c->h, rc))
				maybe_sent = true;
			/* A request that never left may be retried even when not idempotent. */
			if (!retryable_transport(rc) || (!rq->idempotent && !rq->read &&
			    !surely_unsent(c->h, rc)))
				break;
			if (sk.too_big)
				break;
		}
		if (attempt > c->max_retries)
			break;
		wait = backoff_ms(c, attempt, rc == CURLE_OK ? rs->retry_after_s : -1);
		elapsed = monotonic_ms() - t0;
		if (elapsed + wait > c->retry_budget_ms)
			break;
		if (c->debug)
			fprintf(stderr, "%s: * retry %d in %ld ms (%s)\n", c->provider, attempt, wait,
			    rc == CURLE_OK ? "status" : curl_easy_strerror(rc));
		if (rc == CURLE_OK && c->debug)
			fprintf(stderr, "%s: * last status %ld\n", c->provider, rs->status);
		if (!sleep_ms(wait)) {
			ret = GR_EINTERRUPTED;
			break;
		}
	}
	curl_slist_free_all(hdrs);
	rs->seconds = (double)(monotonic_ms() - t0) / 1000.0;
	rs->maybe_sent = maybe_sent;

	if (ret == GR_EINTERRUPTED)
		return gr_fail(err, GR_EINTERRUPTED, "interrupted");
	if (rc != CURLE_OK) {
		if (sk.refused)
			return gr_fail(err, GR_EUNAVAIL, "malformed reply (refused while it arrived)");
		if (sk.too_big)
			return gr_fail(err, GR_EUNAVAIL, "reply larger than %zu MB",
			    BODY_MAX >> 20);
		if (rc == CURLE_OPERATION_TIMEDOUT)
			return gr_fail(err, GR_EUNAVAIL, "request timed out%s",
			    rs->attempts > 1 ? _(" (after retries)") : "");
		return gr_fail(err, GR_EUNAVAIL, "%s%s%s",
		    c->errbuf[0] != '\0' ? c->errbuf : curl_easy_strerror(rc),
		    rs->attempts > 1 ? _(" (after retries)") : "",
		    rc == CURLE_PEER_FAILED_VERIFICATION ? _(" (TLS verification is always on)") : "");
	}
	return GR_OK;
}

enum gr_err
http_get(struct http_client *c, const char *url, const char *const *headers,
    struct http_response *rs, struct gr_error *err)
{
	return http_read_json(c, HTTP_GET, url, headers, NULL, rs, err);
}

enum gr_err
http_send_json(struct http_client *c, enum http_method m, const char *url,
    const char *const *headers, const char *json, bool idempotent, struct http_response *rs,
    struct gr_error *err)
{
	struct http_request rq = {
		.method = m, .url = url, .headers = headers, .body = json,
		.idempotent = idempotent,
	};

	return http_do(c, &rq, rs, err);
}

enum gr_err
http_read_json(struct http_client *c, enum http_method m, const char *url,
    const char *const *headers, const char *json, struct http_response *rs,
    struct gr_error *err)
{
	struct http_request rq = {
		.method = m, .url = url, .headers = headers, .body = json,
		.idempotent = true, .read = true,
	};

	return http_do(c, &rq, rs, err);
}

enum gr_err
http_status_code(long status)
{
	if (status >= 200 && status < 300)
		return GR_OK;
	switch (status) {
	case 401:
	case 403:
		return GR_EAUTH;
	case 402:
		return GR_EFUNDS;
	case 404:
	case 410:
		return GR_ENOTFOUND;
	case 408:
		return GR_EUNAVAIL;
	case 409:
		return GR_ECONFLICT;	/* "conflicts with the current state of the resource" */
	case 429:
		return GR_ERATELIMIT;
	default:
		break;
	}
	if (status >= 500 || status == 0)
		return GR_EUNAVAIL;
	if (status >= 400)
		return GR_EUSAGE;
	return GR_EFAIL;
}

enum gr_err
http_fail_status(struct gr_error *err, const char *provider, long status, const char *msg)
{
	enum gr_err code = http_status_code(status);
	char clean[300];

	if (code == GR_OK)
		code = GR_EFAIL;
	if (msg != NULL && msg[0] != '\0') {
		text_sanitize(clean, sizeof(clean), msg);
		return gr_fail(err, code, "%s (HTTP %ld)", clean, status);
	}
	switch (code) {
	case GR_EAUTH:
		return gr_fail(err, code, "API key rejected (HTTP %ld)", status);
	case GR_ERATELIMIT:
		return gr_fail(err, code, "rate limited (HTTP %ld); try again later",
		    status);
	case GR_EUNAVAIL:
		return gr_fail(err, code, "provider unavailable (HTTP %ld)", status);
	case GR_ENOTFOUND:
		return gr_fail(err, code, "not found (HTTP %ld)", status);
	default:
		return gr_fail(err, code, "request failed (HTTP %ld)", status);
	}
}

char *
http_url(const char *base, const char *def, const char *path)
{
	size_t n;

	if (base == NULL || base[0] == '\0')
		base = def;
	n = strlen(base);
	while (n > 0 && base[n - 1] == '/')
		n--;
	return xasprintf("%.*s%s", (int)n, base, path);
}

char *
http_escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	struct sb sb;
	const unsigned char *p;

	sb_init(&sb);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' || *p == '~') {
			sb_addc(&sb, (char)*p);
		} else {
			sb_addc(&sb, '%');
			sb_addc(&sb, hex[*p >> 4]);
			sb_addc(&sb, hex[*p & 15]);
		}
	}
	return sb_detach(&sb);
}

/* Bounded output for http_redact. */
struct rbuf {
	char *out;
	size_t n, len;
};

static void
rb_add(struct rbuf *b, const char *s, size_t len)
{
	size_t room;

	if (b->n == 0)
		return;
	room = b->n - 1 - b->len;
	if (len > room)
		len = room;
	memcpy(b->out + b->len, s, len);
	b->len += len;
	b->out[b->len] = '\0';
}

static const char REDACTED[] = "[REDACTED]";

/* Whether the line (of length len) is a header whose value is a secret; *vstart gets the value. */
static bool
secret_header(const char *line, size_t len, size_t *vstart)
{
	static const char *const names[] = {
		"authorization:", "proxy-authorization:", "x-api-key:", "api-key:", "apikey:",
		"x-slurm-user-token:",
	};
	size_t i, k;

	for (i = 0; i < ARRAY_LEN(names); i++) {
		k = strlen(names[i]);
		if (len >= k && strncasecmp(line, names[i], k) == 0) {
			while (k < len && line[k] == ' ')
				k++;
			/* Keep the scheme word ("Bearer", "Basic"), hide the credential. */
			{
				size_t j = k;

				while (j < len && line[j] != ' ')
					j++;
				if (j < len && j - k <= 16) {
					while (j < len && line[j] == ' ')
						j++;
					k = j;
				}
			}
			*vstart = k;
			return true;
		}
	}
	return false;
}

/* Whether text at p starts a query/JSON key naming an API key; *klen gets the key length. */
static bool
secret_param(const char *p, size_t left, size_t *klen, bool *json)
{
	static const char *const keys[] = { "api_key=", "apikey=", "api-key=", "\"api_key\"",
		"\"apiKey\"", "\"instance_api_key\"" };
	size_t i, k;

	for (i = 0; i < ARRAY_LEN(keys); i++) {
		k = strlen(keys[i]);
		if (left >= k && strncasecmp(p, keys[i], k) == 0) {
			*klen = k;
			*json = keys[i][0] == '"';
			return true;
		}
	}
	return false;
}

size_t
http_redact(char *out, size_t n, const char *text, size_t len, const char *secret)
{
	struct rbuf b = { out, n, 0 };
	size_t i = 0, ls, le, vs, k, slen = secret != NULL ? strlen(secret) : 0;
	bool json;

	if (n == 0)
		return 0;
	out[0] = '\0';
	while (i < len) {
		ls = i;
		for (le = ls; le < len && text[le] != '\n'; le++)
			;
		if (secret_header(text + ls, le - ls, &vs)) {
			rb_add(&b, text + ls, vs);
			rb_add(&b, REDACTED, sizeof(REDACTED) - 1);
		} else {
			for (i = ls; i < le;) {
				if (slen >= 4 && le - i >= slen && memcmp(text + i, secret, slen) == 0) {
					rb_add(&b, REDACTED, sizeof(REDACTED) - 1);
					i += slen;
				} else if (secret_param(text + i, le - i, &k, &json)) {
					rb_add(&b, text + i, k);
					i += k;
					if (json) {
						/* "api_key": "value" */
						while (i < le && (text[i] == ' ' || text[i] == ':'))
							rb_add(&b, text + i++, 1);
						if (i < le && text[i] == '"') {
							rb_add(&b, "\"", 1);
							i++;
							while (i < le && text[i] != '"') {
								if (text[i] == '\\' && i + 1 < le)
									i++;
								i++;
							}
							rb_add(&b, REDACTED, sizeof(REDACTED) - 1);
						}
					} else {
						while (i < le && text[i] != '&' && text[i] != ' ' &&
						    text[i] != '"' && text[i] != '#')
							i++;
						rb_add(&b, REDACTED, sizeof(REDACTED) - 1);
					}
				} else {
					rb_add(&b, text + i, 1);
					i++;
				}
			}
		}
		if (le < len)
			rb_add(&b, "\n", 1);
		i = le + 1;
	}
	return b.len;
}

/*
 * A page of HTML (a proxy's or a load balancer's "502 Bad Gateway"): its <title>, spaces
 * collapsed, as the reason; none when it has no title. Never the markup.
 */
static void
html_title(char *line, size_t n, const char *body, size_t len)
{
	size_t i, j = 0;
	bool space = false;

	line[0] = '\0';
	for (i = 0; i + 7 <= len && strncasecmp(body + i, "<title>", 7) != 0; i++)
		;
	if (i + 7 > len)
		return;
	for (i += 7; i < len && body[i] != '<' && j + 1 < n; i++) {
		if (isspace((unsigned char)body[i])) {
			space = j > 0;
			continue;
		}
		if (space)
			line[j++] = ' ';
		space = false;
		if (j + 1 < n)
			line[j++] = body[i];
	}
	line[j] = '\0';
}

void
http_body_snippet(char *out, size_t n, const char *body, size_t len)
{
	char line[256];
	size_t i, j = 0;

	/* Skip leading white space, then take the first line, at most sizeof(line)-1 bytes. */
	for (i = 0; i < len && isspace((unsigned char)body[i]); i++)
		;
	if (i < len && body[i] == '<') {
		html_title(line, sizeof(line), body + i, len - i);
		text_sanitize(out, n, line);
		return;
	}
	for (; i < len && body[i] != '\n' && body[i] != '\r' && j + 1 < sizeof(line); i++)
		line[j++] = body[i];
	line[j] = '\0';
	text_sanitize(out, n, line);
}
