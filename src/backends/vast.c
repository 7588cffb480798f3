/*
 * vast.c - the vast.ai backend over its REST API (../shared/providers/vast.md).
 *
 * Offers: POST /api/v0/bundles/ with the filter pushed into vast's query language.
 * Instances: GET /api/v1/instances/ (keyset pages), GET /api/v0/instances/{id}/.
 * Launch: PUT /api/v0/asks/{offer}/, never blindly retried: after an unclear outcome the
 * instance is looked up by its label first (bk_launch_run).
 */
#include <ctype.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpurent/backend.h"
#include "backends_parse.h"
#include "gpurent/catalogue.h"
#include "gpurent/config.h"
#include "gpurent/filter.h"
#include "gpurent/http.h"
#include "gpurent/util.h"

#include "backends_int.h"

#define VAST_URL "https://console.vast.ai"
#define VAST_DEFAULT_DISK 10
#define VAST_DEFAULT_IMAGE "pytorch/pytorch:latest"
#define VAST_SEARCH_LIMIT 10000

struct vast {
	struct bk_http h;
	struct bk_http h_bid;	/* a second connection: both searches run at once */
	int disk_gb;
	int limit;
	char image[128];
};

const char *
vast_gpu_name_of(const struct gpu_model *m)
{
	static const int hints[] = { 10, 16, 32, 40, 80, 96, 144 };

	return bk_gpu_name_of("vast", m, hints, ARRAY_LEN(hints));
}

static struct vast *
priv(struct backend *b)
{
	return b->priv;
}

static enum gr_err
vast_init(struct backend *b, struct gr_error *err)
{
	struct vast *v = priv(b);
	const char *s;
	enum gr_err e;

	/* Search works without a key; everything else asks for one when it runs. */
	if ((e = bk_http_init(&v->h, b, VAST_URL, false, vast_parse_error, err)) != GR_OK ||
	    (e = bk_http_init(&v->h_bid, b, VAST_URL, false, vast_parse_error, err)) != GR_OK)
		return e;
	v->disk_gb = VAST_DEFAULT_DISK;
	v->limit = VAST_SEARCH_LIMIT;
	strlcpy_(v->image, VAST_DEFAULT_IMAGE, sizeof(v->image));
	if (b->env.config != NULL) {
		v->disk_gb = (int)config_get_int(b->env.config, "vast.disk", VAST_DEFAULT_DISK);
		v->limit = (int)config_get_int(b->env.config, "vast.limit", VAST_SEARCH_LIMIT);
		if ((s = config_get(b->env.config, "vast.image")) != NULL && s[0] != '\0')
			strlcpy_(v->image, s, sizeof(v->image));
	}
	if (v->disk_gb <= 0)
		v->disk_gb = VAST_DEFAULT_DISK;
	if (v->limit <= 0)
		v->limit = VAST_SEARCH_LIMIT;
	return GR_OK;
}

static void
vast_cleanup(struct backend *b)
{
	if (b->priv != NULL) {
		bk_http_free(&priv(b)->h);
		bk_http_free(&priv(b)->h_bid);
	}
}

/* The field's operator object in the query, created on first use. */
static cJSON *
field(cJSON *q, const char *name)
{
	cJSON *f = cJSON_GetObjectItemCaseSensitive(q, name);

	if (f == NULL)
		f = cJSON_AddObjectToObject(q, name);
	return f;
}

static const char *
vast_op(enum filter_op op, size_t n)
{
	switch (op) {
	case FOP_EQ:
		return n > 1 ? "in" : "eq";
	case FOP_NE:
		return n > 1 ? "notin" : "neq";
	case FOP_LT:
		return "lt";
	case FOP_LE:
		return "lte";
	case FOP_GT:
		return "gt";
	case FOP_GE:
		return "gte";
	}
	return "eq";
}

/* Push a numeric term, each value scaled (value * mul). */
static void
push_num(cJSON *q, const char *name, const struct filter_term *t, double mul)
{
	cJSON *f = field(q, name), *arr;
	size_t i;

	if (t->n == 1) {
		cJSON_AddNumberToObject(f, vast_op(t->op, 1), (double)t->num[0] * mul);
		return;
	}
	arr = cJSON_AddArrayToObject(f, vast_op(t->op, t->n));
	for (i = 0; i < t->n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)t->num[i] * mul));
}

/*
 * Push a term on a field vast only knows approximately (VRAM in driver MB): widen the bound
 * so the provider returns a superset, which the core filter then narrows exactly.
 */
static bool
push_approx(cJSON *q, const char *name, const struct filter_term *t, double lo, double hi)
{
	cJSON *f;
	int64_t v;

	if (t->n != 1 || t->op == FOP_NE)
		return false;
	v = t->num[0];
	f = field(q, name);
	switch (t->op) {
	case FOP_GT:
	case FOP_GE:
		cJSON_AddNumberToObject(f, "gte", (double)v * lo);
		break;
	case FOP_LT:
	case FOP_LE:
		cJSON_AddNumberToObject(f, "lte", (double)v * hi);
		break;
	case FOP_EQ:
		cJSON_AddNumberToObject(f, "gte", (double)v * lo);
		cJSON_AddNumberToObject(f, "lte", (double)v * hi);
		break;
	default:
		break;
	}
	return true;
}

/* vast gpu_name values selected by a user's GPU query. */
static void
gpu_names_for(const char *query, cJSON *arr)
{
	static const int hints[] = { 10, 16, 32, 40, 80, 96, 144 };
	const struct gpu_model *m;
	const char *name;
	size_t i, k;

	for (i = 0; (name = catalogue_provider_name("vast", i)) != NULL; i++) {
		for (k = 0; k < ARRAY_LEN(hints); k++) {
			m = catalogue_resolve("vast", name, hints[k]);
			if (m != NULL && catalogue_matches(m, query)) {
				cJSON_AddItemToArray(arr, cJSON_CreateString(name));
				break;
			}
		}
	}
}

static bool
push_gpu(cJSON *q, const struct filter_term *t)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	if (t->op != FOP_EQ && t->op != FOP_NE) {
		cJSON_Delete(arr);
		return false;
	}
	/* A name the catalogue lacks matches offers by vast's own name: filter after. */
	for (i = 0; i < t->n; i++)
		if (!catalogue_known(t->str[i])) {
			cJSON_Delete(arr);
			return false;
		}
	for (i = 0; i < t->n; i++)
		gpu_names_for(t->str[i], arr);
	if (cJSON_GetArraySize(arr) == 0 && t->op == FOP_NE) {
		cJSON_Delete(arr);
		return true;	/* excludes nothing vast knows */
	}
	/* An empty "in" list is what we want too: nothing vast has can match. */
	cJSON_AddItemToObject(field(q, "gpu_name"), t->op == FOP_EQ ? "in" : "notin", arr);
	return true;
}

static bool
push_region(cJSON *q, const struct filter_term *t)
{
	cJSON *arr;
	const char *const *ccs;
	char cc[3];
	size_t i, k;

	if (t->op != FOP_EQ && t->op != FOP_NE)
		return false;
	arr = cJSON_CreateArray();
	for (i = 0; i < t->n; i++) {
		if (strlen(t->str[i]) == 2 && bk_ccs_of_region(t->str[i]) == NULL) {
			cc[0] = (char)toupper((unsigned char)t->str[i][0]);
			cc[1] = (char)toupper((unsigned char)t->str[i][1]);
			cc[2] = '\0';
			cJSON_AddItemToArray(arr, cJSON_CreateString(cc));
		} else if (t->op == FOP_EQ && (ccs = bk_ccs_of_region(t->str[i])) != NULL) {
			for (k = 0; ccs[k] != NULL; k++)
				cJSON_AddItemToArray(arr, cJSON_CreateString(ccs[k]));
		} else {
			cJSON_Delete(arr);
			return false;
		}
	}
	cJSON_AddItemToObject(field(q, "geolocation"), t->op == FOP_EQ ? "in" : "notin", arr);
	return true;
}

void
vast_types_wanted(const struct filter *f, bool *od, bool *bid)
{
	const struct filter_term *t = f != NULL ? filter_find(f, FF_TYPE) : NULL;
	size_t i;

	*od = true;
	*bid = false;
	if (t == NULL)
		return;
	*od = *bid = false;
	for (i = 0; i < t->n; i++) {
		bool is_bid = t->num[i] == OFFER_INTERRUPTIBLE;

		/* Terms have a search of their own (vast_offers). */
		if (t->op == FOP_EQ && t->num[i] != OFFER_RESERVED) {
			*od |= !is_bid;
			*bid |= is_bid;
		}
	}
	if (t->op == FOP_NE) {
		*od = true;
		*bid = true;
		for (i = 0; i < t->n; i++) {
			if (t->num[i] == OFFER_INTERRUPTIBLE)
				*bid = false;
			else
				*od = false;
		}
	}
}

char *
vast_build_query(const struct filter *f, enum offer_type type, int disk_gb, int limit,
    bool *pushed_all)
{
	cJSON *q = cJSON_CreateObject(), *order, *pair;
	const struct filter_term *t;
	bool ok;
	size_t i;
	char *s;

	*pushed_all = true;
	cJSON_AddItemToObject(field(q, "verified"), "eq", cJSON_CreateTrue());
	cJSON_AddItemToObject(field(q, "external"), "eq", cJSON_CreateFalse());
	cJSON_AddItemToObject(field(q, "rentable"), "eq", cJSON_CreateTrue());
	cJSON_AddItemToObject(field(q, "rented"), "eq", cJSON_CreateFalse());
	for (i = 0; f != NULL && i < f->n; i++) {
		t = &f->t[i];
		ok = true;
		switch (t->field) {
		case FF_GPU:
			ok = push_gpu(q, t);
			break;
		case FF_GPUS:
			push_num(q, "num_gpus", t, 1);
			break;
		case FF_VRAM:
			/* gpu_ram is driver MB: 80 GB cards read 79,600-81,920. */
			ok = push_approx(q, "gpu_ram", t, 930, 1100);
			break;
		case FF_TOTAL_VRAM:
			ok = push_approx(q, "gpu_total_ram", t, 930, 1100);
			break;
		case FF_PRICE:
			push_num(q, "dph_total", t, 1e-6);
			break;
		case FF_RELIABILITY:
			push_num(q, "reliability", t, 1e-4);
			break;
		case FF_CPU:
			push_num(q, "cpu_cores_effective", t, 1);
			break;
		case FF_DISK:
			push_num(q, "disk_space", t, 1);
			break;
		case FF_NET:
			push_num(q, "inet_down", t, 1);
			break;
		case FF_REGION:
			ok = push_region(q, t);
			break;
		case FF_INTERCONNECT:
			if (t->n == 1 && t->op == FOP_EQ && t->num[0] == IC_NVLINK)
				cJSON_AddNumberToObject(field(q, "bw_nvlink"), "gt", 0);
			else if (t->n == 1 && t->op == FOP_EQ && t->num[0] == IC_PCIE)
				cJSON_AddNumberToObject(field(q, "bw_nvlink"), "eq", 0);
			else
				ok = false;
			break;
		case FF_TYPE:
		case FF_PROVIDER:
			break;	/* the search type; the core routes providers */
		default:
			ok = false;
			break;
		}
		if (!ok)
			*pushed_all = false;
	}
	order = cJSON_AddArrayToObject(q, "order");
	pair = cJSON_CreateArray();
	cJSON_AddItemToArray(pair, cJSON_CreateString("dph_total"));
	cJSON_AddItemToArray(pair, cJSON_CreateString("asc"));
	cJSON_AddItemToArray(order, pair);
	cJSON_AddStringToObject(q, "type", type == OFFER_INTERRUPTIBLE ? "bid" :
	    type == OFFER_RESERVED ? "reserved" : "on-demand");
	cJSON_AddNumberToObject(q, "allocated_storage", disk_gb);
	cJSON_AddNumberToObject(q, "limit", limit);
	s = cJSON_PrintUnformatted(q);
	cJSON_Delete(q);
	return s;
}

/* A search reply read as it arrives (see http.h): offers are mapped element by element. */
struct search_reader {
	enum offer_type type;
	struct offer_list *out;
	size_t n0;			/* offers in out before this search */
	struct offer_stream *parse;
};

static bool
search_begin(void *ctx, long status, const char *content_type)
{
	struct search_reader *r = ctx;

	/* Only exactly application/json is a search result (as the official CLI checks). */
	if (strncmp(content_type, "application/json", 16) != 0)
		return false;	/* kept, and refused below with its type */
	/* A retried attempt: forget what the cut-off one delivered. */
	offer_stream_free(r->parse);
	r->out->n = r->n0;
	r->parse = offer_stream_new(&vast_offer_kind, &r->type, r->out);
	return true;
}

static bool
search_data(void *ctx, const char *p, size_t n)
{
	struct search_reader *r = ctx;

	return offer_stream_feed(r->parse, p, n);
}

static enum gr_err
vast_search(struct backend *b, struct bk_http *h, const struct filter *f, enum offer_type type,
    struct offer_list *out, bool *pushed_all, struct gr_error *err)
{
	struct vast *v = priv(b);
	struct http_response rs;
	struct http_request rq = { 0 };
	struct search_reader r = { type, out, out->n, NULL };
	struct http_stream stream = { search_begin, search_data, &r };
	struct gr_error herr = { 0 };
	char *q, *url;
	bool all;
	enum gr_err e;

	q = vast_build_query(f, type, v->disk_gb, v->limit, &all);
	if (!all)
		*pushed_all = false;
	url = bk_url(h, "/api/v0/bundles/");
	rq.method = HTTP_POST;
	rq.url = url;
	rq.headers = h->hdrs;
	rq.body = q;
	rq.idempotent = true;	/* a search changes nothing */
	rq.read = true;
	rq.stream = &stream;
	e = http_do(h->http, &rq, &rs, &herr);
	free(url);
	free(q);
	if (rs.streamed) {
		/* The reader's own verdict is the better message, even when it stopped the transfer. */
		enum gr_err pe = offer_stream_finish(r.parse, rs.status, err);

		if (pe != GR_OK || e == GR_OK)
			e = pe;
		else
			gr_fail(err, e, "%s", herr.msg);
	} else {
		e = bk_kept(h, e, &rs, &herr, err);
		if (e == GR_OK && strncmp(rs.content_type, "application/json", 16) != 0)
			e = gr_fail(err, GR_EUNAVAIL, "unexpected reply type '%s'", rs.content_type);
		else if (e == GR_OK)
			e = vast_parse_offers(rs.body, rs.len, type, out, err);
	}
	if (e != GR_OK)
		out->n = r.n0;
	offer_stream_free(r.parse);
	http_response_release(&rs);
	return e;
}

struct bid_search {
	struct backend *b;
	const struct filter *f;
	struct offer_list out;
	bool pushed_all;
	enum gr_err e;
	struct gr_error err;
};

static void *
bid_search_run(void *arg)
{
	struct bid_search *j = arg;

	j->e = vast_search(j->b, &priv(j->b)->h_bid, j->f, OFFER_INTERRUPTIBLE, &j->out,
	    &j->pushed_all, &j->err);
	return NULL;
}

static enum gr_err
vast_offers(struct backend *b, const struct filter *f, struct offer_list *out, bool *pushed_all,
    struct gr_error *err)
{
	bool od, bid;
	enum gr_err e = GR_OK;

	*pushed_all = true;
	vast_types_wanted(f, &od, &bid);
	if (od && bid) {
		/* Two searches, two connections, at once: the pair costs the slower one. */
		struct bid_search job = { b, f, { 0 }, true, GR_OK, { 0 } };
		pthread_t th;
		bool threaded = pthread_create(&th, NULL, bid_search_run, &job) == 0;

		if (!threaded)
			bid_search_run(&job);
		e = vast_search(b, &priv(b)->h, f, OFFER_ON_DEMAND, out, pushed_all, err);
		if (threaded)
			pthread_join(th, NULL);
		if (e == GR_OK && job.e != GR_OK)
			e = gr_fail(err, job.e, "%s", job.err.msg);
		if (e == GR_OK)
			offer_list_append(out, &job.out);
		if (!job.pushed_all)
			*pushed_all = false;
		offer_list_release(&job.out);
		return e;
	}
	if (od)
		e = vast_search(b, &priv(b)->h, f, OFFER_ON_DEMAND, out, pushed_all, err);
	if (e == GR_OK && bid)
		e = vast_search(b, &priv(b)->h_bid, f, OFFER_INTERRUPTIBLE, out, pushed_all, err);
	if (e == GR_OK && filter_wants_terms(f))
		e = vast_search(b, &priv(b)->h, f, OFFER_RESERVED, out, pushed_all, err);
	return e;
}

/* Whether s is all digits (a vast numeric id). */
static bool
numeric(const char *s)
{
	if (*s == '\0' || strlen(s) > 18)
		return false;
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static const char *
local_numeric(const struct backend *b, const char *id, const char *what, struct gr_error *err)
{
	const char *l = bk_local_id(b, id, err);

	if (l == NULL)
		return NULL;
	if (!numeric(l)) {
		gr_fail(err, GR_ENOTFOUND, "no %s '%s' (vast ids are numbers)", what, id);
		return NULL;
	}
	return l;
}

/* The numeric id of one of our instances (for bk_instance_local). */
static const char *
instance_local(const struct backend *b, const char *id, struct gr_error *err)
{
	return local_numeric(b, id, "instance", err);
}

static enum gr_err
vast_get_local(struct backend *b, const char *l, struct instance *out, struct gr_error *err)
{
	struct vast *v = priv(b);
	struct http_response rs;
	char path[96];
	enum gr_err e;

	snprintf(path, sizeof(path), "/api/v0/instances/%s/?owner=me", l);
	e = bk_request(&v->h, HTTP_GET, path, NULL, true, &rs, err);
	if (e == GR_OK && rs.status == 404)
		e = gr_fail(err, GR_ENOTFOUND, "no instance 'vast:%s'", l);
	e = bk_check(&v->h, e, &rs, err);
	if (e == GR_OK) {
		e = vast_parse_instance(rs.body, rs.len, out, err);
		if (e == GR_ENOTFOUND) {
			/* Replace the parser's generic words with the id. */
			err->msg[0] = '\0';
			err->code = GR_OK;
			e = gr_fail(err, GR_ENOTFOUND, "no instance 'vast:%s'", l);
		}
	}
	http_response_release(&rs);
	return e;
}

static enum gr_err
vast_get(struct backend *b, const char *id, struct instance *out, struct gr_error *err)
{
	const char *l;
	enum gr_err e;

	if ((e = bk_instance_local(b, &priv(b)->h, id, instance_local, &l, err)) != GR_OK)
		return e;
	return vast_get_local(b, l, out, err);
}

/* A page's parser: its records appended to out, the next page's token into tok. */
typedef enum gr_err (*page_fn)(const char *body, size_t len, void *out, char *tok,
    size_t ntok, struct gr_error *err);

/* Every page of a keyset-paged list (next_token, sent back as after_token) at first, a
   path with its query, each page read by parse into out. */
static enum gr_err
vast_pages(struct vast *v, const char *first, page_fn parse, void *out, struct gr_error *err)
{
	struct http_response rs;
	char tok[512] = "", *esc;
	struct sb path;
	int page;
	enum gr_err e = GR_OK;

	sb_init(&path);
	for (page = 0; page < 400; page++) {
		sb_reset(&path);
		sb_adds(&path, first);
		if (tok[0] != '\0') {
			esc = http_escape(tok);
			sb_addf(&path, "&after_token=%s", esc);
			free(esc);
		}
		e = bk_call(&v->h, HTTP_GET, path.buf, NULL, true, &rs, err);
		if (e == GR_OK)
			e = parse(rs.body, rs.len, out, tok, sizeof(tok), err);
		http_response_release(&rs);
		if (e != GR_OK || tok[0] == '\0')
			break;
	}
	sb_release(&path);
	return e;
}

static enum gr_err
instances_page(const char *body, size_t len, void *out, char *tok, size_t ntok,
    struct gr_error *err)
{
	return vast_parse_instances(body, len, out, tok, ntok, err);
}

static enum gr_err
charges_page(const char *body, size_t len, void *out, char *tok, size_t ntok,
    struct gr_error *err)
{
	return vast_parse_charges(body, len, out, tok, ntok, err);
}

/* One or all pages of the instance list, optionally filtered by label. */
static enum gr_err
vast_list(struct backend *b, const char *label, struct instance_list *out, struct gr_error *err)
{
	struct sb first;
	enum gr_err e;

	sb_init(&first);
	sb_adds(&first, "/api/v1/instances/?limit=25");
	if (label != NULL) {
		cJSON *q = cJSON_CreateObject();
		char *filt, *fesc;

		cJSON_AddStringToObject(cJSON_AddObjectToObject(q, "label"), "eq", label);
		filt = cJSON_PrintUnformatted(q);
		cJSON_Delete(q);
		fesc = http_escape(filt);
		sb_addf(&first, "&select_filters=%s", fesc);
		free(filt);
		free(fesc);
	}
	e = vast_pages(priv(b), first.buf, instances_page, out, err);
	sb_release(&first);
	return e;
}

static enum gr_err
vast_instances(struct backend *b, struct instance_list *out, struct gr_error *err)
{
	enum gr_err e;

	if ((e = bk_need_key(&priv(b)->h, b->ops->name, err)) != GR_OK)
		return e;
	return vast_list(b, NULL, out, err);
}

static char *
create_body(const struct vast *v, const struct launch_req *req, const char *label)
{
	cJSON *o = cJSON_CreateObject(), *env;
	char port[48], *s;
	size_t i;

	cJSON_AddStringToObject(o, "client_id", "me");
	cJSON_AddStringToObject(o, "image", req->image != NULL ? req->image : v->image);
	cJSON_AddNumberToObject(o, "disk", req->disk_gb > 0 ? req->disk_gb : v->disk_gb);
	cJSON_AddStringToObject(o, "label", label);
	if (req->onstart != NULL)
		cJSON_AddStringToObject(o, "onstart", req->onstart);
	cJSON_AddStringToObject(o, "runtype", "ssh_direc ssh_proxy");
	bj_env_object(o, req->env, req->client_token);
	env = cJSON_GetObjectItemCaseSensitive(o, "env");
	for (i = 0; i < req->n_ports; i++) {
		snprintf(port, sizeof(port), "-p %d:%d", req->ports[i], req->ports[i]);
		cJSON_AddStringToObject(env, port, "1");
	}
	if (req->interruptible)
		cJSON_AddNumberToObject(o, "price", (double)req->bid_hour / 1e6);
	else
		cJSON_AddNullToObject(o, "price");
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

/* The new contract's id as text, for bk_create_run. */
static enum gr_err
parse_contract(const char *body, size_t len, char *id, size_t n, struct gr_error *err)
{
	long long contract;
	enum gr_err e = vast_parse_create(body, len, &contract, err);

	if (e == GR_OK)
		snprintf(id, n, "%lld", contract);
	return e;
}

static enum gr_err
vast_launch(struct backend *b, const struct launch_req *req, struct instance *out,
    struct gr_error *err)
{
	struct vast *v = priv(b);
	char path[96], label[LABEL_MAX], *body;
	char lid[32] = "";
	const char *ask;
	enum gr_err e = GR_OK;
	bool labelled;

	if ((e = bk_need_key(&priv(b)->h, b->ops->name, err)) != GR_OK)
		return e;
	if (req->term_months > 0)
		return gr_fail(err, GR_EUNSUPPORTED, "vast sells a term by prepaying a running "
		    "instance: launch the on-demand offer, then 'gpurent prepay ID --term %dmo'",
		    req->term_months);
	if ((ask = local_numeric(b, req->offer_id, "offer", err)) == NULL)
		return GR_ENOTFOUND;
	if (req->interruptible && req->bid_hour <= 0)
		return gr_fail(err, GR_EUSAGE, "an interruptible launch needs a bid");
	labelled = bk_launch_name(req, label, sizeof(label));
	body = create_body(v, req, label);
	snprintf(path, sizeof(path), "/api/v0/asks/%s/", ask);
	e = bk_create_run(&(struct bk_create){ .b = b, .h = &v->h, .m = HTTP_PUT, .path = path,
	    .doc = body, .name = label, .name_unique = !labelled && req->client_token != NULL,
	    .backoff_ms = 500, .parse_id = parse_contract, .list = vast_list }, out, lid,
	    sizeof(lid), err);
	free(body);
	if (e != GR_OK)
		return e;
	if (vast_get_local(b, lid, out, &(struct gr_error){ 0 }) != GR_OK) {
		char full[ID_MAX];

		snprintf(full, sizeof(full), "vast:%s", lid);
		bk_instance_from_launch(b, full, label, out);
		out->type = req->interruptible ? OFFER_INTERRUPTIBLE : OFFER_ON_DEMAND;
	}
	strlcpy_(out->offer_id, req->offer_id, sizeof(out->offer_id));
	return GR_OK;
}

/* PUT /api/v0/instances/{id}/ with a body; DELETE likewise. */
static enum gr_err
vast_action(struct backend *b, const char *id, enum http_method m, const char *json,
    struct gr_error *err)
{
	struct vast *v = priv(b);
	struct http_response rs;
	char path[96];
	const char *l;
	enum gr_err e;

	if ((e = bk_instance_local(b, &priv(b)->h, id, instance_local, &l, err)) != GR_OK)
		return e;
	snprintf(path, sizeof(path), "/api/v0/instances/%s/", l);
	/* Setting a state or deleting is idempotent: a repeat has the same effect. */
	e = bk_request(&v->h, m, path, json, true, &rs, err);
	if (e == GR_OK && rs.status == 404 && m == HTTP_DELETE && rs.attempts > 1) {
		/* An earlier attempt of this delete went through. */
		http_response_release(&rs);
		e = GR_OK;
	} else {
		if (e == GR_OK && rs.status == 404)
			e = gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
		e = bk_check(&v->h, e, &rs, err);
		http_response_release(&rs);
	}
	return e;
}

/* PUT /api/v0/instances/prepay/{id}/ {"amount": $} (§4.4): never repeated, money moves. */
static enum gr_err
vast_prepay(struct backend *b, const char *id, int64_t amount, int *discount_bp,
    int64_t *covered_s, struct gr_error *err)
{
	struct vast *v = priv(b);
	struct http_response rs;
	char path[96], body[64];
	const char *l;
	enum gr_err e;

	if ((e = bk_instance_local(b, &v->h, id, instance_local, &l, err)) != GR_OK)
		return e;
	snprintf(path, sizeof(path), "/api/v0/instances/prepay/%s/", l);
	snprintf(body, sizeof(body), "{\"amount\":%lld.%06lld}", (long long)(amount / 1000000),
	    (long long)(amount % 1000000));
	e = bk_request(&v->h, HTTP_PUT, path, body, false, &rs, err);
	if (e == GR_OK && rs.status == 404)
		e = gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
	e = bk_check(&v->h, e, &rs, err);
	if (e == GR_OK)
		e = vast_parse_prepay(rs.body, rs.len, discount_bp, covered_s, err);
	http_response_release(&rs);
	return e;
}

static enum gr_err
vast_stop(struct backend *b, const char *id, struct gr_error *err)
{
	return vast_action(b, id, HTTP_PUT, "{\"state\":\"stopped\"}", err);
}

static enum gr_err
vast_start(struct backend *b, const char *id, struct gr_error *err)
{
	return vast_action(b, id, HTTP_PUT, "{\"state\":\"running\"}", err);
}

static enum gr_err
vast_destroy(struct backend *b, const char *id, struct gr_error *err)
{
	return vast_action(b, id, HTTP_DELETE, "{}", err);
}

static enum gr_err
vast_metrics(struct backend *b, const char *id, struct sample_list *out, struct gr_error *err)
{
	struct vast *v = priv(b);
	struct http_response rs;
	char path[96];
	const char *l;
	enum gr_err e;
	size_t from = out->n;

	if ((e = bk_instance_local(b, &priv(b)->h, id, instance_local, &l, err)) != GR_OK)
		return e;
	snprintf(path, sizeof(path), "/api/v0/instances/%s/?owner=me", l);
	e = bk_request(&v->h, HTTP_GET, path, NULL, true, &rs, err);
	if (e == GR_OK && rs.status == 404)
		e = gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
	e = bk_check(&v->h, e, &rs, err);
	if (e == GR_OK)
		e = vast_parse_metrics(rs.body, rs.len, out, err);
	http_response_release(&rs);
	/* vast's instance record carries its GPU figures without a time: they are as of now. */
	bk_stamp_samples(out, from, bk_now());
	return e;
}

static enum gr_err
vast_account(struct backend *b, struct account *out, struct gr_error *err)
{
	struct http_response rs;
	enum gr_err e;

	if ((e = bk_need_key(&priv(b)->h, b->ops->name, err)) != GR_OK)
		return e;
	e = bk_call(&priv(b)->h, HTTP_GET, "/api/v0/users/current/", NULL, true, &rs, err);
	if (e == GR_OK)
		e = vast_parse_user(rs.body, rs.len, out, err);
	http_response_release(&rs);
	return e;
}

/* GET /api/v0/charges/ for the instances over the days of [since, until), every page. */
static enum gr_err
vast_charges(struct backend *b, int64_t since, int64_t until, struct charge_list *out,
    struct gr_error *err)
{
	char filt[160], first[640], *fesc;
	size_t n0 = out->n;
	enum gr_err e;

	if ((e = bk_need_key(&priv(b)->h, b->ops->name, err)) != GR_OK)
		return e;
	snprintf(filt, sizeof(filt), "{\"day\":{\"gte\":%lld,\"lte\":%lld},"
	    "\"type\":{\"in\":[\"instance\"]}}", (long long)since,
	    (long long)(until != 0 ? until : bk_now()));
	fesc = http_escape(filt);
	snprintf(first, sizeof(first), "/api/v0/charges/?limit=500&select_filters=%s", fesc);
	free(fesc);
	if ((e = vast_pages(priv(b), first, charges_page, out, err)) != GR_OK) {
		out->n = n0;
		return e;
	}
	/* The filter picks whole days: keep those of the window. */
	bk_charges_window(out, n0, since, until);
	return GR_OK;
}

const struct backend_ops backend_vast = {
	.name = "vast",
	.description = "vast.ai GPU marketplace (REST API)",
	.caps = CAP_STOP | CAP_METRICS | CAP_INTERRUPTIBLE | CAP_ACCOUNT | CAP_SSH,
	.priv_size = sizeof(struct vast),
	.init = vast_init,
	.cleanup = vast_cleanup,
	.offers = vast_offers,
	.instances = vast_instances,
	.get = vast_get,
	.launch = vast_launch,
	.stop = vast_stop,
	.start = vast_start,
	.destroy = vast_destroy,
	.metrics = vast_metrics,
	.account = vast_account,
	.charges = vast_charges,
	.prepay = vast_prepay,
};
