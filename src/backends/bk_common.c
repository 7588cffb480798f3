/*
 * bk_common.c - what the HTTP backends share: base URL and key resolution, the launch-date memory,
 * country codes and regions.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "gpurent/catalogue.h"
#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

#include "backends_int.h"
#include "backends_parse.h"

static const char *const cc_eu[] = { "AT", "BE", "BG", "CH", "CY", "CZ", "DE", "DK", "EE",
	"ES", "FI", "FR", "GB", "GR", "HR", "HU", "IE", "IS", "IT", "LT", "LU", "LV", "MT", "NL",
	"NO", "PL", "PT", "RO", "RS", "SE", "SI", "SK", "UA", "UK", NULL };
static const char *const cc_na[] = { "US", "CA", "MX", NULL };
static const char *const cc_sa[] = { "AR", "BR", "CL", "CO", "PE", "UY", NULL };
static const char *const cc_asia[] = { "CN", "HK", "ID", "IN", "JP", "KR", "MY", "PH", "SG",
	"TH", "TW", "VN", NULL };
static const char *const cc_oc[] = { "AU", "NZ", NULL };
static const char *const cc_me[] = { "AE", "IL", "QA", "SA", "TR", NULL };
static const char *const cc_af[] = { "EG", "KE", "MA", "NG", "ZA", NULL };

static const struct {
	const char *region;
	const char *const *ccs;
} continents[] = {
	{ "eu", cc_eu }, { "na", cc_na }, { "sa", cc_sa }, { "as", cc_asia }, { "asia", cc_asia },
	{ "ap", cc_asia },
	{ "oc", cc_oc }, { "me", cc_me }, { "af", cc_af },
};

const char *
bk_region_of_cc(const char *cc)
{
	size_t i, k;

	for (i = 0; i < ARRAY_LEN(continents); i++)
		for (k = 0; continents[i].ccs[k] != NULL; k++)
			if (streq_ci(continents[i].ccs[k], cc))
				return continents[i].region;
	return "";
}

const char *const *
bk_ccs_of_region(const char *region)
{
	size_t i, len;

	for (i = 0; i < ARRAY_LEN(continents); i++) {
		len = strlen(continents[i].region);
		if (strncasecmp(region, continents[i].region, len) == 0 &&
		    (region[len] == '\0' || region[len] == '-'))
			return continents[i].ccs;
	}
	return NULL;
}

/* GPURENT_VAST_URL style names: upper-cased provider. */
static const char *
env_for(const char *provider, const char *prefix, const char *suffix, char *buf, size_t n)
{
	size_t i, len;

	snprintf(buf, n, "%s%s%s", prefix, provider, suffix);
	len = strlen(prefix);
	for (i = len; buf[i] != '\0' && i < len + strlen(provider); i++)
		buf[i] = (char)toupper((unsigned char)buf[i]);
	return getenv(buf);
}

enum gr_err
bk_need_key(const struct bk_http *h, const char *provider, struct gr_error *err)
{
	char up[32];
	size_t n;

	if (h->auth != NULL)
		return GR_OK;
	for (n = 0; provider[n] != '\0' && n + 1 < sizeof(up); n++)
		up[n] = (char)toupper((unsigned char)provider[n]);
	up[n] = '\0';
	return gr_fail(err, GR_EAUTH, "%s: no API key: run 'gpurent login %s', or set "
	    "GPURENT_%s_API_KEY or %s_API_KEY", provider, provider, up, up);
}

enum gr_err
bk_http_init(struct bk_http *h, const struct backend *b, const char *def_url, bool need_key,
    bk_error_fn parse_error, struct gr_error *err)
{
	const char *name = b->ops->name, *url, *key;
	struct http_opts o;
	char ename[64], ckey[64];
	size_t n;

	memset(h, 0, sizeof(*h));
	h->parse_error = parse_error;
	url = b->env.base_url;
	if (url == NULL || url[0] == '\0')
		url = env_for(name, "GPURENT_", "_URL", ename, sizeof(ename));
	if ((url == NULL || url[0] == '\0') && b->env.config != NULL) {
		snprintf(ckey, sizeof(ckey), "%s.url", name);
		url = config_get(b->env.config, ckey);
	}
	if (url == NULL || url[0] == '\0')
		url = def_url;
	/* Only scheme://host[:port]: paths stay exactly the real API's. */
	n = strlen(url);
	while (n > 0 && url[n - 1] == '/')
		n--;
	h->base = xasprintf("%.*s", (int)n, url);
	if (!http_url_allowed(h->base))
		return gr_fail(err, GR_EUSAGE, "%s: refusing base URL '%s': use https, or plain http "
		    "only to 127.0.0.1, ::1 or localhost", name, h->base);

	key = b->env.api_key;
	if (key == NULL || key[0] == '\0')
		key = env_for(name, "GPURENT_", "_API_KEY", ename, sizeof(ename));
	if (key == NULL || key[0] == '\0')
		key = env_for(name, "", "_API_KEY", ename, sizeof(ename));
	if (key != NULL && key[0] != '\0') {
		if (strpbrk(key, "\r\n") != NULL)
			return gr_fail(err, GR_EAUTH, "%s: the API key contains a line break", name);
		h->auth = xasprintf("Authorization: Bearer %s", key);
		h->hdrs[0] = h->auth;
		/* A process holding a key writes no core dump and cannot be read by ptrace. */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	} else if (need_key)
		return bk_need_key(h, name, err);
	memset(&o, 0, sizeof(o));
	o.provider = name;
	o.api_key = key;
	o.debug = b->env.debug;
	o.timeout_ms = b->env.timeout_ms;
	o.connect_timeout_ms = b->env.connect_timeout_ms;
	h->http = http_client_new(&o);
	if (h->http == NULL)
		return gr_fail(err, GR_EFAIL, "%s: cannot create an HTTP client%s%s", name,
		    http_unavailable() ? ": " : "", http_unavailable() ? http_unavailable() : "");
	return GR_OK;
}

void
bk_http_free(struct bk_http *h)
{
	http_client_free(h->http);
	free(h->base);
	secret_free(h->auth);
	memset(h, 0, sizeof(*h));
}

char *
bk_url(const struct bk_http *h, const char *path)
{
	return http_url(h->base, h->base, path);
}

enum gr_err
bk_request(const struct bk_http *h, enum http_method m, const char *path, const char *json,
    bool idempotent, struct http_response *rs, struct gr_error *err)
{
	char *url = bk_url(h, path);
	enum gr_err e;

	if (m == HTTP_GET)
		e = http_get(h->http, url, h->hdrs, rs, err);
	else
		e = http_send_json(h->http, m, url, h->hdrs, json, idempotent, rs, err);
	free(url);
	return e;
}

enum gr_err
bk_check(const struct bk_http *h, enum gr_err e, const struct http_response *rs,
    struct gr_error *err)
{
	if (e != GR_OK)
		return e;
	return h->parse_error(rs->status, rs->body, rs->len, err);
}

enum gr_err
bk_kept(const struct bk_http *h, enum gr_err e, const struct http_response *rs,
    const struct gr_error *herr, struct gr_error *err)
{
	if (e != GR_OK)
		gr_fail(err, e, "%s", herr->msg);
	return bk_check(h, e, rs, err);
}

enum gr_err
bk_call(const struct bk_http *h, enum http_method m, const char *path, const char *json,
    bool idempotent, struct http_response *rs, struct gr_error *err)
{
	return bk_check(h, bk_request(h, m, path, json, idempotent, rs, err), rs, err);
}

struct offers_reader {
	const struct offer_stream_kind *kind;
	const void *arg;
	struct offer_list *out;
	size_t n0;			/* offers in out before this list */
	bool refused;			/* the stream stopped the transfer: a malformed body */
	struct offer_stream *parse;
};

static bool
offers_begin(void *ctx, long status, const char *content_type)
{
	struct offers_reader *r = ctx;

	(void)status;
	(void)content_type;
	offer_stream_free(r->parse);
	r->out->n = r->n0;
	r->refused = false;
	r->parse = offer_stream_new(r->kind, r->arg, r->out);
	return true;
}

static bool
offers_data(void *ctx, const char *p, size_t n)
{
	struct offers_reader *r = ctx;

	if (!offer_stream_feed(r->parse, p, n))
		r->refused = true;
	return !r->refused;
}

enum gr_err
bk_offers_read(const struct bk_http *h, enum http_method m, const char *path,
    const char *body, const struct offer_stream_kind *k, const void *arg,
    struct offer_list *out, struct gr_error *err)
{
	struct offers_reader r = { k, arg, out, out->n, false, NULL };
	struct http_stream stream = { offers_begin, offers_data, &r };
	char *url = bk_url(h, path);
	struct http_request rq = { .method = m, .url = url, .headers = h->hdrs, .body = body,
	    .read = true, .stream = &stream };
	struct http_response rs;
	struct gr_error herr = { 0 };
	enum gr_err e;

	e = http_do(h->http, &rq, &rs, &herr);
	free(url);
	if (rs.streamed) {
		if (e == GR_OK || r.refused)
			e = offer_stream_finish(r.parse, rs.status, err);
		else
			gr_fail(err, e, "%s", herr.msg);
	} else if ((e = bk_kept(h, e, &rs, &herr, err)) == GR_OK) {
		e = offer_stream_parse(k, arg, rs.body, rs.len, out, err);
	}
	if (e != GR_OK)
		out->n = r.n0;
	offer_stream_free(r.parse);
	http_response_release(&rs);
	return e;
}

const char *
bk_local_id(const struct backend *b, const char *id, struct gr_error *err)
{
	size_t n = strlen(b->ops->name);

	if (strncmp(id, b->ops->name, n) != 0 || id[n] != ':' || id[n + 1] == '\0') {
		gr_fail(err, GR_ENOTFOUND, "'%s' is not a %s id", id,
		    b->ops->name);
		return NULL;
	}
	return id + n + 1;
}

enum gr_err
bk_instance_local(const struct backend *b, const struct bk_http *h, const char *id,
    bk_local_fn local_of, const char **local, struct gr_error *err)
{
	enum gr_err e;

	if ((e = bk_need_key(h, b->ops->name, err)) != GR_OK)
		return e;
	if ((*local = local_of(b, id, err)) == NULL)
		return GR_ENOTFOUND;
	return GR_OK;
}

int64_t
bk_now(void)
{
	return (int64_t)time(NULL);
}

void
bk_stamp_samples(struct sample_list *l, size_t from, int64_t now)
{
	size_t i;

	for (i = from; i < l->n; i++)
		if (l->v[i].at == 0)
			l->v[i].at = now;
}

void
bk_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* The ids labelled l->name before the first send: none of them is the new instance. */
struct before {
	bool taken;		/* listed in full (always for a unique name: nothing to list) */
	char (*ids)[ID_MAX];
	size_t n;
};

static void
before_take(const struct bk_launch *l, struct before *bf)
{
	struct instance_list il;
	size_t i;

	memset(bf, 0, sizeof(*bf));
	if (l->name_unique) {
		bf->taken = true;
		return;
	}
	instance_list_init(&il);
	if (l->list(l->ctx, &il, &(struct gr_error){ 0 }) == GR_OK) {
		bf->taken = true;
		bf->ids = xreallocarray(NULL, il.n + 1, sizeof(*bf->ids));
		for (i = 0; i < il.n; i++)
			if (strcmp(il.v[i].label, l->name) == 0)
				strlcpy_(bf->ids[bf->n++], il.v[i].id, sizeof(bf->ids[0]));
	}
	instance_list_release(&il);
}

static bool
before_has(const struct before *bf, const char *id)
{
	size_t i;

	for (i = 0; i < bf->n; i++)
		if (strcmp(bf->ids[i], id) == 0)
			return true;
	return false;
}

/* Look once for the instance the create made: 1 found (out filled), 0 surely none, -1 the
   list failed, -2 several new ones wear the name. */
static int
find_new(const struct bk_launch *l, const struct before *bf, struct instance *out)
{
	struct instance_list il;
	int found = 0;
	size_t i;

	instance_list_init(&il);
	if (l->list(l->ctx, &il, &(struct gr_error){ 0 }) != GR_OK) {
		instance_list_release(&il);
		return -1;
	}
	for (i = 0; i < il.n && found >= 0; i++) {
		if (strcmp(il.v[i].label, l->name) != 0 || il.v[i].state == ST_DESTROYED ||
		    before_has(bf, il.v[i].id))
			continue;
		if (found == 1)
			found = -2;
		else {
			*out = il.v[i];
			found = 1;
		}
	}
	instance_list_release(&il);
	return found;
}

enum gr_err
bk_launch_run(const struct bk_launch *l, struct instance *out, bool *found_out,
    struct gr_error *err)
{
	struct http_response rs;
	struct before bf;
	int attempt, look, found;
	enum gr_err e = GR_OK;
	bool unclear, interrupted;
	const char *why;

	*found_out = false;
	before_take(l, &bf);
	for (attempt = 1; attempt <= 4; attempt++) {
		struct gr_error terr = { 0 };

		e = l->send(l->ctx, &rs, &terr);
		unclear = (e != GR_OK && rs.maybe_sent) || (e == GR_OK && rs.status >= 500);
		interrupted = e == GR_EINTERRUPTED;
		if (e == GR_OK && rs.status == 429 && attempt < 4) {
			/* Refused before it was acted on: waiting and sending again is safe. */
			bk_sleep_ms(rs.retry_after_s > 0 ? rs.retry_after_s * 1000L :
			    l->backoff_ms << attempt);
			http_response_release(&rs);
			continue;
		}
		if (!unclear) {
			if (e != GR_OK) {
				e = gr_fail(err, terr.code, "%s", terr.msg);
				http_response_release(&rs);
				break;
			}
			e = l->accept(l->ctx, &rs, &terr);
			/* A success status whose reply cannot be read (malformed, cut short:
			 * GR_EUNAVAIL, unlike a refusal) likely means the provider acted; failing
			 * here would leave a billing instance behind, so look as for a 5xx. */
			unclear = e == GR_EUNAVAIL && rs.status >= 200 && rs.status < 300;
			if (!unclear) {
				if (e != GR_OK)
					e = gr_fail(err, terr.code, "%s", terr.msg);
				http_response_release(&rs);
				break;
			}
		}
		http_response_release(&rs);
		/* Unclear: did it happen? Look before doing anything else, unless what existed
		   before is unknown: then an instance wearing the name may be an older one. */
		found = -1;
		for (look = 0; look < 3 && bf.taken && found != 1 && found != -2; look++) {
			if (look > 0)
				bk_sleep_ms(1000);
			found = find_new(l, &bf, out);
		}
		if (found == 1) {
			*found_out = true;
			e = GR_OK;
			break;
		}
		if (found < 0 || attempt == 4 || interrupted) {
			why = !bf.taken ? _("the instances already named so could not be listed "
			    "before it was sent") : found == -2 ? _("more than one new instance "
			    "carries its name") : _("the instance list could not confirm it");
			e = gr_fail(err, interrupted ? GR_EINTERRUPTED : GR_EUNAVAIL,
			    "launch outcome unknown (%s) and %s; run 'gpurent ls' before launching "
			    "again (name '%s')", terr.msg[0] ? terr.msg : _("server error"), why,
			    l->name);
			break;
		}
		/* Confirmed absent: the create did not happen, so sending it again is safe. */
		bk_sleep_ms(l->backoff_ms << attempt);
	}
	free(bf.ids);
	return e;
}

bool
bk_only_provider_type(const struct filter *f)
{
	size_t i;

	for (i = 0; f != NULL && i < f->n; i++)
		if (f->t[i].field != FF_PROVIDER && f->t[i].field != FF_TYPE)
			return false;
	return true;
}

bool
bk_launch_name(const struct launch_req *req, char *name, size_t n)
{
	bool labelled = req->label != NULL && req->label[0] != '\0';

	if (labelled)
		text_sanitize(name, n, req->label);
	else
		snprintf(name, n, "gpurent-%.48s",
		    req->client_token != NULL ? req->client_token : "launch");
	return labelled;
}

/* One bk_create under way: its request and the id the reply gave. */
struct create_run {
	const struct bk_create *c;
	char *lid;
	size_t n;
};

static enum gr_err
create_send(void *ctx, struct http_response *rs, struct gr_error *err)
{
	const struct bk_create *c = ((struct create_run *)ctx)->c;

	return bk_request(c->h, c->m, c->path, c->doc, false, rs, err);
}

static enum gr_err
create_accept(void *ctx, const struct http_response *rs, struct gr_error *err)
{
	struct create_run *r = ctx;
	enum gr_err e = r->c->h->parse_error(rs->status, rs->body, rs->len, err);

	return e == GR_OK ? r->c->parse_id(rs->body, rs->len, r->lid, r->n, err) : e;
}

static enum gr_err
create_list(void *ctx, struct instance_list *out, struct gr_error *err)
{
	const struct bk_create *c = ((struct create_run *)ctx)->c;

	return c->list(c->b, c->name, out, err);
}

enum gr_err
bk_create_run(const struct bk_create *c, struct instance *out, char *lid, size_t n,
    struct gr_error *err)
{
	struct create_run r = { .c = c, .lid = lid, .n = n };
	bool found;
	enum gr_err e;

	e = bk_launch_run(&(struct bk_launch){ .name = c->name, .name_unique = c->name_unique,
	    .backoff_ms = c->backoff_ms, .ctx = &r, .send = create_send, .accept = create_accept,
	    .list = create_list }, out, &found, err);
	if (e == GR_OK && found)
		strlcpy_(lid, out->id + strlen(c->b->ops->name) + 1, n);
	return e;
}

void
bk_instance_from_launch(const struct backend *b, const char *id, const char *label,
    struct instance *out)
{
	memset(out, 0, sizeof(*out));
	strlcpy_(out->id, id, sizeof(out->id));
	strlcpy_(out->provider, b->ops->name, sizeof(out->provider));
	strlcpy_(out->label, label, sizeof(out->label));
	out->state = ST_PROVISIONING;
}

const char *
bk_gpu_name_of(const char *provider, const struct gpu_model *m, const int *vram_hints,
    size_t n)
{
	const char *name;
	size_t i, k;

	for (i = 0; m != NULL && (name = catalogue_provider_name(provider, i)) != NULL; i++)
		for (k = 0; k < n; k++)
			if (catalogue_resolve(provider, name, vram_hints[k]) == m)
				return name;
	return NULL;
}

void
bk_charges_window(struct charge_list *out, size_t n0, int64_t since, int64_t until)
{
	size_t i, k;

	for (i = k = n0; i < out->n; i++)
		if (out->v[i].day >= since - since % 86400 && (until == 0 ||
		    out->v[i].day < until))
			out->v[k++] = out->v[i];
	out->n = k;
	charge_list_fold(out);
}
