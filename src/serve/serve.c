/*
 * serve.c - libmicrohttpd glue for `gpurent sim serve`: bind, authenticate, inject faults,
 * hand each request to the dialect, and send its reply.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../backends/backends_parse.h"
#include "../http/libmhd.h"

#include "gpurent/serve.h"
#include "gpurent/sim.h"
#include "gpurent/util.h"

#include "serve_int.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_Result_;
#else
typedef enum MHD_Result MHD_Result_;
#endif

#define BODY_LIMIT ((size_t)16 << 20)

struct server {
	struct serve_ctx ctx;
	const struct serve_opts *o;
	void (*dialect)(struct serve_ctx *, const struct serve_req *, struct serve_reply *);
	uint64_t rng;
	unsigned long requests;
	int scripted;			/* matching requests seen, for the scripted faults */
	/* Each connection has a thread, so that one held by --latency or the hold gate keeps no
	   other waiting, as a provider's servers do not; the world is answered under this. */
	pthread_mutex_t lock;
};

/* Per-connection upload buffer. */
struct upload {
	struct sb body;
	bool too_big;
};

static uint64_t
rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The key a client presented: Bearer, Basic (key as user name) or ?api_key=. */
static void
presented_key(struct MHD_Connection *conn, char *out, size_t n)
{
	const char *a = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	char *user = NULL;

	out[0] = '\0';
	if (a != NULL && strncasecmp(a, "Bearer ", 7) == 0) {
		strlcpy_(out, a + 7, n);
		return;
	}
	if (a != NULL && strncasecmp(a, "Basic ", 6) == 0) {
		user = MHD_basic_auth_get_username_password(conn, NULL);
		if (user != NULL) {
			strlcpy_(out, user, n);
			MHD_free(user);
		}
		return;
	}
	a = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "api_key");
	if (a != NULL)
		strlcpy_(out, a, n);
}

/* Constant-time enough for a test server: compare every byte. */
static bool
key_matches(const char *want, const char *got)
{
	size_t a = strlen(want), b = strlen(got), i;
	unsigned diff = (unsigned)(a ^ b);

	for (i = 0; i < a; i++)
		diff |= (unsigned char)want[i] ^ (unsigned char)(i < b ? got[i] : 0);
	return diff == 0;
}

/* A body that only looks complete: cut, then closed with a stray brace. */
static void
malform(struct sb *b)
{
	size_t keep = b->len / 2;

	b->len = keep;
	b->buf[keep] = '\0';
	sb_adds(b, "}}]\"");
}

struct trunc_state {
	char *buf;
	size_t len;	/* bytes really sent */
};

static ssize_t
trunc_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct trunc_state *t = cls;
	size_t n;

	if (pos >= t->len)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	n = t->len - (size_t)pos;
	if (n > max)
		n = max;
	memcpy(buf, t->buf + pos, n);
	return (ssize_t)n;
}

static void
trunc_free(void *cls)
{
	struct trunc_state *t = cls;

	free(t->buf);
	free(t);
}

static MHD_Result_
send_reply(struct server *sv, struct MHD_Connection *conn, struct serve_reply *rp, bool trunc)
{
	struct MHD_Response *r;
	MHD_Result_ ret;

	if (trunc && rp->body.len > 1) {
		struct trunc_state *t = xmalloc(sizeof(*t));

		t->len = rp->body.len / 2;
		t->buf = sb_detach(&rp->body);
		r = MHD_create_response_from_callback(strlen(t->buf), 4096, trunc_reader, t,
		    trunc_free);
	} else {
		size_t len = rp->body.len;

		r = MHD_create_response_from_buffer(len, sb_detach(&rp->body),
		    MHD_RESPMEM_MUST_FREE);
	}
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", rp->ctype != NULL ? rp->ctype :
	    "application/json");
	if ((rp->status == 429 || rp->status == 503) &&
	    (sv->o->retry_after_s >= 0 || sv->dialect == dialect_runpod)) {
		char ra[16];

		snprintf(ra, sizeof(ra), "%d", sv->o->retry_after_s > 0 ? sv->o->retry_after_s : 1);
		MHD_add_response_header(r, "Retry-After", ra);
	}
	ret = MHD_queue_response(conn, (unsigned)rp->status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Whether a request counts for the scripted faults (serve.h). */
static bool
scripted_match(const struct serve_opts *o, const char *method, const char *url,
    const struct sb *body)
{
	const char *m = o->fail_match;

	return m == NULL || strstr(method, m) != NULL || strstr(url, m) != NULL ||
	    (body->len > 0 && strstr(body->buf, m) != NULL);
}

static MHD_Result_
add_query_pair(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	cJSON *pair = cJSON_CreateArray();

	(void)kind;
	cJSON_AddItemToArray(pair, cJSON_CreateString(key));
	cJSON_AddItemToArray(pair, value != NULL ? cJSON_CreateString(value) : cJSON_CreateNull());
	cJSON_AddItemToArray(cls, pair);
	return MHD_YES;
}

/* One line of the request log (serve.h): what came in, in the order it came. */
static void
log_request(FILE *f, struct MHD_Connection *conn, const char *method, const char *url,
    const struct sb *body, bool key)
{
	cJSON *j = cJSON_CreateObject(), *q;
	char *s;

	cJSON_AddStringToObject(j, "method", method);
	cJSON_AddStringToObject(j, "path", url);
	q = cJSON_AddArrayToObject(j, "query");
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_query_pair, q);
	if (body->len > 0) {
		char *b = xmalloc(body->len + 1);

		memcpy(b, body->buf, body->len);
		b[body->len] = '\0';
		cJSON_AddStringToObject(j, "body", b);
		free(b);
	} else
		cJSON_AddStringToObject(j, "body", "");
	cJSON_AddBoolToObject(j, "key", key);
	s = cJSON_PrintUnformatted(j);
	if (s != NULL) {
		fprintf(f, "%s\n", s);
		fflush(f);
	}
	free(s);
	cJSON_Delete(j);
}

/*
 * Wait out --latency (ms) in steps of at most 50 ms, cut short once *stop is set: a request
 * held by a long latency must not keep a server that was told to stop (SIGTERM) from
 * stopping, since stopping waits for the request in hand. False when cut short.
 */
static bool
latency_wait(long ms, volatile int *stop)
{
	struct timespec now, end, step;
	long long left_ns;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		if (stop != NULL && *stop)
			return false;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left_ns = (long long)(end.tv_sec - now.tv_sec) * 1000000000LL +
		    (end.tv_nsec - now.tv_nsec);
		if (left_ns <= 0)
			return true;
		step.tv_sec = 0;
		step.tv_nsec = left_ns < 50000000LL ? (long)left_ns : 50000000L;
		nanosleep(&step, NULL);
	}
}

/* Wait until the file at path exists, or *stop is set (then false). */
static bool
hold_wait(const char *path, volatile int *stop)
{
	struct timespec step = { 0, 20 * 1000000L };

	while (stop == NULL || !*stop) {
		if (access(path, F_OK) == 0)
			return true;
		nanosleep(&step, NULL);
	}
	return false;
}

static MHD_Result_ answer(struct server *sv, struct MHD_Connection *conn, const char *url,
    const char *method, struct upload *up);

static MHD_Result_
handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
    const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct server *sv = cls;
	struct upload *up = *con_cls;
	char key[256];
	bool held;
	MHD_Result_ ret;

	if (up == NULL) {
		up = xcalloc(1, sizeof(*up));
		sb_init(&up->body);
		*con_cls = up;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (up->body.len + *upload_size > BODY_LIMIT)
			up->too_big = true;
		else
			sb_add(&up->body, upload_data, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&sv->lock);
	sv->requests++;
	if (sv->o->log != NULL) {
		presented_key(conn, key, sizeof(key));
		log_request(sv->o->log, conn, method, url, &up->body, key[0] != '\0');
	}
	held = sv->o->hold != NULL && scripted_match(sv->o, method, url, &up->body);
	pthread_mutex_unlock(&sv->lock);
	/* Stopping: the held request is dropped (closed without a reply). */
	if (sv->o->latency_ms > 0 && !latency_wait(sv->o->latency_ms, sv->o->stop))
		return MHD_NO;
	if (held && !hold_wait(sv->o->hold, sv->o->stop))
		return MHD_NO;
	pthread_mutex_lock(&sv->lock);
	ret = answer(sv, conn, url, method, up);
	pthread_mutex_unlock(&sv->lock);
	return ret;
}

/* The reply to a request, its faults drawn: under sv->lock. */
static MHD_Result_
answer(struct server *sv, struct MHD_Connection *conn, const char *url, const char *method,
    struct upload *up)
{
	struct serve_req rq;
	struct serve_reply rp;
	char key[256];
	uint64_t draw;
	int roll, faultcut;
	bool after5xx = false, drop = false, trunc = false, bad = false, acted500 = false;
	MHD_Result_ ret;

	memset(&rp, 0, sizeof(rp));
	sb_init(&rp.body);
	rp.status = 500;

	/* A retired API: everything under the prefix is gone, whatever the request. */
	if (sv->o->gone != NULL && strncmp(url, sv->o->gone, strlen(sv->o->gone)) == 0) {
		rp.status = 410;
		rp.ctype = "application/problem+json";
		sb_adds(&rp.body, "{\"title\":\"Gone\",\"status\":410,\"detail\":\"this API has "
		    "been retired\",\"errors\":[]}");
		return send_reply(sv, conn, &rp, false);
	}
	if (sv->scripted < sv->o->fail_first + sv->o->fail_first_acted &&
	    scripted_match(sv->o, method, url, &up->body)) {
		if (++sv->scripted <= sv->o->fail_first) {
			rp.ctype = "text/html";
			sb_adds(&rp.body, "<html><body><h1>500 Internal Server Error</h1></body>"
			    "</html>\n");
			return send_reply(sv, conn, &rp, false);
		}
		acted500 = true;
	}
	/* Faults: one draw per request decides which, if any. */
	draw = rng_next(&sv->rng);
	roll = (int)(draw % 100);
	faultcut = 0;
	if (roll < (faultcut += sv->o->p429)) {
		rp.status = 429;
		if (sv->dialect == dialect_runpod && strncmp(url, "/v2/", 4) == 0) {
			/* RunPod's v2 says everything as problem+json. */
			rp.ctype = "application/problem+json";
			sb_adds(&rp.body, "{\"title\":\"Too Many Requests\",\"status\":429,"
			    "\"detail\":\"rate limit exceeded\",\"errors\":[]}");
		} else {
			rp.ctype = "text/plain";
			sb_adds(&rp.body, "API requests too frequent endpoint threshold=1.0");
		}
		return send_reply(sv, conn, &rp, false);
	}
	if (roll < (faultcut += sv->o->p5xx)) {
		if ((draw >> 8) & 1) {
			static const int codes[] = { 500, 502, 503 };

			rp.status = codes[(draw >> 9) % 3];
			rp.ctype = "text/html";
			sb_adds(&rp.body, "<html><body><h1>Bad gateway</h1></body></html>\n");
			return send_reply(sv, conn, &rp, false);
		}
		after5xx = true;
	} else if (roll < (faultcut += sv->o->pdrop))
		drop = true;
	else if (roll < (faultcut += sv->o->ptrunc))
		trunc = true;
	else if (roll < (faultcut += sv->o->pmalformed))
		bad = true;

	if (up->too_big) {
		rp.status = 413;
		sb_adds(&rp.body, "{\"error\":\"request body too large\"}");
		return send_reply(sv, conn, &rp, false);
	}
	presented_key(conn, key, sizeof(key));
	memset(&rq, 0, sizeof(rq));
	rq.method = method;
	rq.path = url;
	rq.conn = conn;
	rq.body = up->body.buf;
	rq.len = up->body.len;
	rq.auth = key;
	rq.host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
	rq.auth_ok = sv->ctx.api_key == NULL || key_matches(sv->ctx.api_key, key);
	sv->dialect(&sv->ctx, &rq, &rp);
	memset(key, 0, sizeof(key));

	/* Faults after the world changed: the client cannot tell whether it happened. */
	if (drop) {
		sb_release(&rp.body);
		return MHD_NO;
	}
	if (after5xx || acted500) {
		sb_reset(&rp.body);
		sb_adds(&rp.body, acted500 ? "<html><body><h1>500 Internal Server Error</h1>"
		    "</body></html>\n" : "<html><body><h1>502 Bad Gateway</h1></body></html>\n");
		rp.status = acted500 ? 500 : 502;
		rp.ctype = "text/html";
	}
	if (bad && rp.body.len > 2)
		malform(&rp.body);
	ret = send_reply(sv, conn, &rp, trunc);
	sb_release(&rp.body);
	return ret;
}

static void
completed(void *cls, struct MHD_Connection *conn, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct upload *up = *con_cls;

	if (up != NULL) {
		sb_release(&up->body);
		free(up);
		*con_cls = NULL;
	}
}

enum gr_err
serve_run(struct state *st, const struct serve_opts *o, struct gr_error *err)
{
	struct server sv;
	struct MHD_Daemon *d;
	struct sockaddr_in sin;
	char shown[64];
	const union MHD_DaemonInfo *info;
	struct timespec ts = { 0, 50 * 1000000L };
	const char *why;
	enum gr_err e;
	int port;

	memset(&sv, 0, sizeof(sv));
	sv.o = o;
	sv.ctx.api_key = o->api_key;
	sv.ctx.ignore_stops = o->ignore_stops;
	sv.ctx.launch_faults = o->fail_launch;
	if (o->fail_launch != NULL && !serve_launch_faults_valid(o->fail_launch))
		return gr_fail(err, GR_EUSAGE, "--fail-launch takes a comma list of gone and "
		    "capacity, not '%s'", o->fail_launch);
	sv.rng = o->seed ? o->seed * UINT64_C(0x9e3779b97f4a7c15) : UINT64_C(0x2545f4914f6cdd1d);
	if (strcmp(o->dialect, "vast") == 0)
		sv.dialect = dialect_vast;
	else if (strcmp(o->dialect, "runpod") == 0)
		sv.dialect = dialect_runpod;
	else if (strcmp(o->dialect, "lambda") == 0)
		sv.dialect = dialect_lambda;
	else if (strcmp(o->dialect, "ppio") == 0)
		sv.dialect = dialect_ppio;
	else
		return gr_fail(err, GR_EUSAGE, "unknown dialect '%s' (vast, runpod, lambda or ppio)",
		    o->dialect);
	if (o->p429 + o->p5xx + o->pdrop + o->ptrunc + o->pmalformed > 100)
		return gr_fail(err, GR_EUSAGE, "fault shares add up to more than 100%%");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)o->port);
	if (inet_pton(AF_INET, o->bind != NULL ? o->bind : "127.0.0.1", &sin.sin_addr) != 1)
		return gr_fail(err, GR_EUSAGE, "cannot bind to '%s': not an IPv4 address",
		    o->bind);
	if ((why = libmhd_load()) != NULL)
		return gr_fail(err, GR_EFAIL, "%s", why);
	snprintf(shown, sizeof(shown), "%s:%d", o->bind != NULL ? o->bind : "127.0.0.1", o->port);
	if ((e = libmhd_can_listen((struct sockaddr *)&sin, sizeof(sin), shown, err)) != GR_OK)
		return e;
	if ((e = sim_open(&sv.ctx.sim, st, err)) != GR_OK)
		return e;
	sim_set_preemption(sv.ctx.sim, &o->preempt);
	/* vast's dph_total is the machine and its disk: what it bills a running instance. */
	sim_set_disk_in_price(sv.ctx.sim, sv.dialect == dialect_vast);
	/* RunPod bills a pod's disks at its own prices, running and stopped, what its client
	   counts. */
	/* PPIO keeps no disk across a stop (providers/ppio.md §6): a stopped instance bills
	   nothing, and its client counts nothing. */
	if (sv.dialect == dialect_ppio)
		sim_set_storage_price(sv.ctx.sim, SIM_STORAGE_NONE);
	if (sv.dialect == dialect_runpod) {
		sim_set_storage_price(sv.ctx.sim, RUNPOD_VOLUME_STOPPED_GB_MONTH);
		sim_set_running_disk_price(sv.ctx.sim, RUNPOD_DISK_RUNNING_GB_MONTH);
	}
	pthread_mutex_init(&sv.lock, NULL);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
	    MHD_USE_ERROR_LOG,
	    (uint16_t)o->port, NULL, NULL, handler, &sv,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, &sv,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
	    MHD_OPTION_END);
	if (d == NULL) {
		sim_close(sv.ctx.sim);
		pthread_mutex_destroy(&sv.lock);
		return gr_fail(err, GR_EFAIL, "cannot listen on %s", shown);
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	port = info != NULL ? (int)info->port : o->port;
	fprintf(o->ready != NULL ? o->ready : stdout, "listening on http://%s:%d (%s dialect)\n",
	    o->bind != NULL ? o->bind : "127.0.0.1", port, o->dialect);
	fflush(o->ready != NULL ? o->ready : stdout);
	while (o->stop == NULL || !*o->stop)
		nanosleep(&ts, NULL);
	MHD_stop_daemon(d);
	pthread_mutex_destroy(&sv.lock);
	sim_close(sv.ctx.sim);
	cJSON_Delete(sv.ctx.runpod_ssh_keys);
	return GR_OK;
}
