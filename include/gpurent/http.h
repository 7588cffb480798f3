/*
 * http.h - the one HTTP client of gpurent (src/http/, the only libcurl user).
 *
 * A struct http_client wraps one libcurl easy handle, so connections (and TLS sessions) are
 * reused across requests. A client is used by one thread at a time: each backend owns one,
 * and the core's fan-out runs backends on separate threads, so they query in parallel.
 *
 * Every request has a connect timeout and a total timeout; TLS peer and host verification
 * are always on; plain http:// is accepted only for loopback hosts (127.0.0.0/8, ::1,
 * localhost), so a test can point a backend at `gpurent sim serve` but a typo cannot send an
 * API key in clear over the network. Proxies come from the environment (libcurl's
 * http_proxy, https_proxy, no_proxy). The User-Agent is "gpurent/<version>".
 *
 * Retries: an idempotent request is retried on 429, 502, 503, 504 and on connection errors,
 * with exponential backoff and full jitter, honouring Retry-After (seconds or HTTP date),
 * bounded both in count (opts.max_retries) and in total time (opts.retry_budget_ms).
 * A read (rq.read: a GET, a search, a GraphQL query) is also retried on 500: it changes
 * nothing, so a crash of the provider's application is worth another try. An idempotent
 * change (stop, terminate) is not retried on 500, since the provider may have acted on it
 * half way; the caller looks first. A non-idempotent request (a launch) is never retried
 * here: the caller gets the outcome, with `maybe_sent` telling whether the provider may
 * have acted on it.
 *
 * Debug tracing (opts.debug) writes requests and responses to stderr with Authorization,
 * API-key and X-SLURM-USER-TOKEN headers, api_key query parameters and the client's own key redacted.
 *
 * Status mapping: http_do() succeeds whenever a complete response arrived, whatever its
 * status; the backend parses the provider's error body for a message and calls
 * http_fail_status() to turn status + message into an enum gr_err.
 */
#ifndef GPURENT_HTTP_H
#define GPURENT_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

enum http_method {
	HTTP_GET,
	HTTP_POST,
	HTTP_PUT,
	HTTP_PATCH,
	HTTP_DELETE,
};

/* Client-wide settings; zero fields take the defaults noted. Strings are copied. */
struct http_opts {
	const char *provider;		/* for messages: "vast: connection refused" */
	const char *api_key;		/* redacted wherever it appears in traces; may be NULL */
	int debug;			/* trace to stderr */
	long timeout_ms;		/* total per attempt; 0: 30000 */
	long connect_timeout_ms;	/* 0: 10000 */
	int max_retries;		/* retries after the first attempt; 0: 4; -1: none */
	long retry_budget_ms;		/* no retry starts after this much time; 0: 60000 */
	long backoff_base_ms;		/* first backoff cap; 0: 250 (doubles each retry) */
	long backoff_max_ms;		/* largest single wait, Retry-After included; 0: 20000 */
	const char *unix_socket;	/* NULL: TCP; else every request goes through this
					   AF_UNIX socket (libcurl's CURLOPT_UNIX_SOCKET_PATH) and
					   the URL only names the path: "http://localhost/..." */
};

/*
 * Reading a body as it arrives (rq.stream): at the first body byte of each attempt whose
 * status is 2xx, begin(ctx, status, content_type) is asked whether to stream it; when it
 * says yes, every chunk goes to data(ctx, bytes, n) as libcurl receives it and is not kept
 * (rs->body stays empty, rs->streamed is set, rs->stream_len counts the bytes, still
 * bounded like a kept body). begin must also start afresh: an attempt cut off half way is
 * retried like any other, and the reader then sees the reply again from its first byte.
 * When data returns false the transfer stops and http_do fails with GR_EUNAVAIL (the
 * reader has its own, better message). Other statuses (an error's body, a 5xx to retry)
 * and bodies that begin declined are kept in rs->body as usual.
 */
struct http_stream {
	bool (*begin)(void *ctx, long status, const char *content_type);
	bool (*data)(void *ctx, const char *p, size_t n);
	void *ctx;
};

struct http_request {
	enum http_method method;
	const char *url;		/* absolute; see http_url() */
	const char *const *headers;	/* "Name: value" lines, NULL-terminated, or NULL */
	const char *body;		/* NULL: no body */
	size_t body_len;		/* 0 with a body: strlen(body) */
	const char *content_type;	/* with a body; NULL: "application/json" */
	bool idempotent;		/* may be retried (GET, stop, list ...; never a launch) */
	bool read;			/* changes nothing (GET, search, query): retried on 500 too;
					   implies idempotent */
	long timeout_ms;		/* 0: the client's */
	const struct http_stream *stream;	/* NULL: keep the body in rs->body */
};

/* What came back. Owned by the caller; release with http_response_release(). */
struct http_response {
	long status;			/* 0 when no response arrived */
	char *body;			/* NUL-terminated (not counted in len); never NULL after http_do */
	size_t len;
	char content_type[128];		/* "" when absent */
	long retry_after_s;		/* from Retry-After, -1 when absent */
	int attempts;			/* 1 + retries made */
	bool maybe_sent;		/* a failure after the request may have reached the provider
					   (timeout, reset, 5xx): a launch must look before retrying */
	double seconds;			/* wall time including retries */
	bool streamed;			/* the body went to rq.stream, not to body */
	size_t stream_len;		/* bytes streamed (of the last attempt) */
};

struct http_client;

/* Process-wide libcurl setup; safe to call many times and from several threads. */
void http_global_init(void);
/* Why no client can be made (libcurl cannot be loaded), or NULL when it can. */
const char *http_unavailable(void);

/*
 * A flag (e.g. set by SIGINT) that aborts transfers and backoff waits when it becomes
 * non-zero; http_do then returns GR_EINTERRUPTED. NULL: none.
 */
void http_set_cancel(volatile int *flag);

struct http_client *http_client_new(const struct http_opts *opts);
void http_client_free(struct http_client *c);

/*
 * Perform a request, retrying as described above. Returns GR_OK when a complete response
 * arrived (any status, 429 and 5xx after the retries ran out included: check rs->status),
 * else GR_EUNAVAIL (connect, DNS, TLS, reset, truncated body, timeout), GR_EUSAGE (a URL
 * that is not https and not loopback http) or GR_EINTERRUPTED (the cancel flag was set).
 * rs is initialised here; release it even on failure.
 */
enum gr_err http_do(struct http_client *c, const struct http_request *rq,
    struct http_response *rs, struct gr_error *err);

void http_response_init(struct http_response *rs);
void http_response_release(struct http_response *rs);

/*
 * Shorthands: GET (a read), a JSON body with a method, and a JSON body that only reads
 * (a POSTed search or GraphQL query).
 */
enum gr_err http_get(struct http_client *c, const char *url, const char *const *headers,
    struct http_response *rs, struct gr_error *err);
enum gr_err http_send_json(struct http_client *c, enum http_method m, const char *url,
    const char *const *headers, const char *json, bool idempotent, struct http_response *rs,
    struct gr_error *err);
enum gr_err http_read_json(struct http_client *c, enum http_method m, const char *url,
    const char *const *headers, const char *json, struct http_response *rs,
    struct gr_error *err);

/*
 * Map a final HTTP status and the provider's message (may be NULL) onto an error:
 * 401/403 auth, 404/410 not found, 402 funds, 409 conflict (the resource's state does not
 * allow it), 429 rate limited, 5xx and 408 unavailable, other 4xx usage. Writes "<msg> (HTTP <status>)" into err and returns the code (the
 * caller's report names the provider or the id; provider is kept for future use).
 * A backend overrides the code first when the body says more (out of stock, no funds).
 */
enum gr_err http_fail_status(struct gr_error *err, const char *provider, long status,
    const char *msg);

/* The error code alone for a status (GR_OK for 2xx). */
enum gr_err http_status_code(long status);

/*
 * Build "<base><path>" where base is scheme://host[:port] (a trailing '/' is dropped) and
 * path starts with '/'. base NULL or "" uses def. Returns a malloc'd string.
 */
char *http_url(const char *base, const char *def, const char *path);

/* Percent-encode s for a query string (RFC 3986 unreserved kept). Returns a malloc'd string. */
char *http_escape(const char *s);

/* Whether a URL may be used: https anywhere, http only to a loopback host. */
bool http_url_allowed(const char *url);

/*
 * Copy text into out (size n) with secrets redacted: the value of any Authorization,
 * Proxy-Authorization, X-Api-Key or Api-Key header line, any api_key= / apikey= query
 * parameter, and every occurrence of secret (may be NULL). Used by the debug trace;
 * exposed for tests. Returns the length written.
 */
size_t http_redact(char *out, size_t n, const char *text, size_t len, const char *secret);

/*
 * A small, cJSON-free message from a body that is not JSON: the first line, sanitized; of
 * an HTML page only its title ("" without one), so the caller says the status instead.
 */
void http_body_snippet(char *out, size_t n, const char *body, size_t len);

#endif
