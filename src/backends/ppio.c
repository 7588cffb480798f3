/*
 * ppio.c - the PPIO 派欧云 backend over GPU instance API v2 (../shared/providers/ppio.md).
 *
 * Offers: GET /gpus/v2/products (one offer per product, region, GPU count and billing
 * method). Instances: create, list (cursor pages), get, start, stop and delete. Prices are
 * in the account's currency, which the payload never names (§10): ppio.currency, CNY by
 * default. The API reports no per-instance price, so an instance's rate is its product's
 * price times its GPUs, from the product list (fetched once per process); an instance whose
 * product is no longer listed has no known price, never a made-up one. No metrics and no
 * account endpoints: those slots stay NULL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpurent/backend.h"
#include "backends_parse.h"
#include "gpurent/config.h"
#include "gpurent/filter.h"
#include "gpurent/http.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/util.h"

#include "backends_int.h"

#define PPIO_URL "https://api.ppio.com"
/* Instances asked for per list page, and the most pages one list follows. */
#define PAGE_LIMIT 50
#define MAX_PAGES 1000
#define CURSOR_MAX 1025

struct ppio {
	struct bk_http h;
	char currency[CURRENCY_MAX];
	char image[256];		/* ppio.image, "" none */
	int disk_gb;			/* ppio.disk, 0 none */
	struct offer_list products;	/* for instance rates; loaded once */
	bool have_products;
};

static struct ppio *
priv(struct backend *b)
{
	return b->priv;
}

static enum gr_err
ppio_init(struct backend *b, struct gr_error *err)
{
	struct ppio *p = priv(b);
	const char *s;

	offer_list_init(&p->products);
	money_currency_set(p->currency, "CNY");
	if (b->env.config != NULL) {
		config_get_currency(b->env.config, "ppio.currency", p->currency);
		if ((s = config_get(b->env.config, "ppio.image")) != NULL)
			strlcpy_(p->image, s, sizeof(p->image));
		p->disk_gb = (int)config_get_int(b->env.config, "ppio.disk", 0);
	}
	/* Every v2 operation needs the key, the product list included (§2). */
	return bk_http_init(&p->h, b, PPIO_URL, true, ppio_parse_error, err);
}

static void
ppio_cleanup(struct backend *b)
{
	if (b->priv == NULL)
		return;
	bk_http_free(&priv(b)->h);
	offer_list_release(&priv(b)->products);
}

static enum gr_err
fetch_products(struct backend *b, bool terms, struct offer_list *out, struct gr_error *err)
{
	struct ppio *pp = priv(b);

	/* Both parameters are required (§4.1): instances of GPUs. */
	return bk_offers_read(&pp->h, HTTP_GET, "/gpus/v2/products?type=gpu&category=instance",
	    NULL, terms ? &ppio_product_terms_kind : &ppio_product_kind, pp->currency, out, err);
}

static enum gr_err
ppio_offers(struct backend *b, const struct filter *f, struct offer_list *out,
    bool *pushed_all, struct gr_error *err)
{
	/* One small catalogue: nothing to push down, the core filters it all; prepaid terms
	   only when asked for (filter.h). */
	*pushed_all = bk_only_provider_type(f);
	return fetch_products(b, filter_wants_terms(f), out, err);
}

/*
 * The instance's rate: its product's price per GPU times its GPUs, by its billing mode,
 * from the product list. Left unknown when the product is not listed.
 */
static void
add_rate(struct backend *b, struct instance *in)
{
	struct ppio *p = priv(b);
	char product[64], region[32], want[64], have[64];
	int count;
	bool spot;
	size_t i;

	money_currency_set(in->currency, p->currency);
	if (!p->have_products) {
		if (fetch_products(b, false, &p->products, &(struct gr_error){ 0 }) != GR_OK)
			return;
		p->have_products = true;
	}
	if (in->gpu_count <= 0 || in->offer_id[0] == '\0' ||
	    !ppio_offer_id_parse(in->offer_id + 5, want, sizeof(want), region, sizeof(region),
	    &count, &spot))
		return;
	for (i = 0; i < p->products.n; i++) {
		const struct offer *o = &p->products.v[i];
		bool ospot;
		int ocount;

		if (!ppio_offer_id_parse(o->id + 5, have, sizeof(have), product, sizeof(product),
		    &ocount, &ospot) || strcmp(have, want) != 0 || ospot != spot ||
		    !(o->valid & OV_PRICE) || o->gpu_count <= 0)
			continue;
		in->price_hour = o->price_hour / o->gpu_count * in->gpu_count;
		in->valid |= IV_PRICE;
		in->gpu = o->gpu;
		if (in->gpu_raw[0] == '\0')
			strlcpy_(in->gpu_raw, o->gpu_raw, sizeof(in->gpu_raw));
		return;
	}
}

/* PPIO ids are opaque (§3); only what is safe in a URL path can be one of ours. */
static const char *
local_id(struct backend *b, const char *id, struct gr_error *err)
{
	const char *l = bk_local_id(b, id, err);

	if (l != NULL && !name_safe(l, 64)) {
		gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
		return NULL;
	}
	return l;
}

static enum gr_err
get_local(struct backend *b, const char *lid, struct instance *out, struct gr_error *err)
{
	struct http_response rs;
	char path[128];
	enum gr_err e;

	snprintf(path, sizeof(path), "/gpus/v2/instances/%s", lid);
	e = bk_request(&priv(b)->h, HTTP_GET, path, NULL, true, &rs, err);
	if (e == GR_OK && rs.status == 404)
		e = gr_fail(err, GR_ENOTFOUND, "no instance 'ppio:%s'", lid);
	/* RESOURCE_NOT_FOUND comes as HTTP 400 (§5.3); it says "no such instance" too. */
	if (e == GR_OK && (e = ppio_parse_error(rs.status, rs.body, rs.len,
	    &(struct gr_error){ 0 })) == GR_ENOTFOUND)
		e = gr_fail(err, GR_ENOTFOUND, "no instance 'ppio:%s'", lid);
	else if (e != GR_OK)
		e = bk_check(&priv(b)->h, GR_OK, &rs, err);
	if (e == GR_OK)
		e = ppio_parse_instance(rs.body, rs.len, out, err);
	http_response_release(&rs);
	if (e == GR_OK)
		add_rate(b, out);
	return e;
}

static enum gr_err
ppio_get(struct backend *b, const char *id, struct instance *out, struct gr_error *err)
{
	const char *l;

	if ((l = local_id(b, id, err)) == NULL)
		return GR_ENOTFOUND;
	return get_local(b, l, out, err);
}

/* Every page of the list (name: the server's fuzzy name filter, NULL none). */
static enum gr_err
list_pages(struct backend *b, const char *name, struct instance_list *out, struct gr_error *err)
{
	char *cursor = xcalloc(1, CURSOR_MAX), *next = xcalloc(1, CURSOR_MAX);
	size_t first = out->n, i;
	bool more = true;
	int page;
	enum gr_err e = GR_OK;

	for (page = 0; more && e == GR_OK; page++) {
		struct http_response rs;
		struct sb path;

		if (page == MAX_PAGES) {
			e = gr_fail(err, GR_EUNAVAIL, "ppio: the instance list goes on past %d pages",
			    MAX_PAGES);
			break;
		}
		sb_init(&path);
		sb_addf(&path, "/gpus/v2/instances?limit=%d", PAGE_LIMIT);
		if (cursor[0] != '\0') {
			char *c = http_escape(cursor);

			sb_addf(&path, "&cursor=%s", c);
			free(c);
		}
		if (name != NULL) {
			char *n = http_escape(name);

			sb_addf(&path, "&name=%s", n);
			free(n);
		}
		e = bk_call(&priv(b)->h, HTTP_GET, path.buf, NULL, true, &rs, err);
		sb_release(&path);
		if (e == GR_OK)
			e = ppio_parse_instances(rs.body, rs.len, out, next, CURSOR_MAX, &more, err);
		http_response_release(&rs);
		/* A server that hands back the cursor it was given would loop for ever. */
		if (e == GR_OK && more && strcmp(next, cursor) == 0)
			e = gr_fail(err, GR_EUNAVAIL, "ppio: the instance list repeats its cursor");
		memcpy(cursor, next, CURSOR_MAX);
	}
	free(cursor);
	free(next);
	for (i = first; e == GR_OK && i < out->n; i++)
		add_rate(b, &out->v[i]);
	return e;
}

static enum gr_err
ppio_list(struct backend *b, struct instance_list *out, struct gr_error *err)
{
	return list_pages(b, NULL, out, err);
}

static char *
create_doc(const struct launch_req *req, const char *name, const char *product,
    const char *region, int count, bool spot, int months, const char *image, int disk)
{
	cJSON *o = cJSON_CreateObject(), *r, *arr, *x;
	size_t i;
	char *doc;

	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "product_id", product);
	cJSON_AddStringToObject(o, "image", image);
	cJSON_AddStringToObject(o, "type", "gpu");
	r = cJSON_AddObjectToObject(o, "billing");
	cJSON_AddStringToObject(r, "mode", spot ? "spot" : months > 0 ? "prepaid" : "postpaid");
	/* Prepaid for the term, not renewed: it is billed by the hour after (§5.1). */
	if (months > 0) {
		x = cJSON_AddObjectToObject(r, "prepaid");
		cJSON_AddNumberToObject(x, "months", months);
		x = cJSON_AddObjectToObject(x, "auto_renew");
		cJSON_AddFalseToObject(x, "enabled");
		cJSON_AddNumberToObject(x, "months", 0);
	}
	r = cJSON_AddObjectToObject(o, "resource");
	if (disk > 0)
		cJSON_AddNumberToObject(r, "rootfs_size_gb", disk);
	cJSON_AddNumberToObject(r, "gpu_num", count);
	cJSON_AddStringToObject(r, "min_cuda_version", "");
	if (region[0] != '\0')
		cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "candidate_regions"),
		    cJSON_CreateString(region));
	if (req->n_ports > 0) {
		arr = cJSON_AddArrayToObject(o, "ports");
		for (i = 0; i < req->n_ports; i++) {
			x = cJSON_CreateObject();
			cJSON_AddNumberToObject(x, "port", req->ports[i]);
			cJSON_AddStringToObject(x, "protocol", "tcp");
			cJSON_AddItemToArray(arr, x);
		}
	}
	if (req->env != NULL && req->env[0] != NULL) {
		arr = cJSON_AddArrayToObject(o, "envs");
		for (i = 0; req->env[i] != NULL; i++) {
			const char *eq = strchr(req->env[i], '=');
			char key[512];

			if (eq == NULL || (size_t)(eq - req->env[i]) >= sizeof(key))
				continue;
			memcpy(key, req->env[i], (size_t)(eq - req->env[i]));
			key[eq - req->env[i]] = '\0';
			x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "key", key);
			cJSON_AddStringToObject(x, "value", eq + 1);
			cJSON_AddItemToArray(arr, x);
		}
	}
	/* The container's command (§5.1 `command`): what runs on start. */
	if (req->onstart != NULL)
		cJSON_AddStringToObject(o, "command", req->onstart);
	doc = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return doc;
}

static enum gr_err
ppio_launch(struct backend *b, const struct launch_req *req, struct instance *out,
    struct gr_error *err)
{
	struct ppio *p = priv(b);
	char product[64], region[32], name[65], full[ID_MAX], *doc;
	char lid[80] = "";
	const char *l, *image;
	int count, months;
	bool spot, labelled;
	enum gr_err e;

	if ((l = bk_local_id(b, req->offer_id, err)) == NULL)
		return GR_ENOTFOUND;
	if (!ppio_offer_id_parse(l, product, sizeof(product), region, sizeof(region), &count,
	    &spot))
		return gr_fail(err, GR_ENOTFOUND, "no offer '%s'", req->offer_id);
	if (spot != req->interruptible)
		return gr_fail(err, GR_EUSAGE, "offer '%s' is %s", req->offer_id,
		    spot ? _("interruptible (spot)") : _("on demand"));
	months = ppio_offer_term(l) ? ppio_offer_term(l) : req->term_months;
	if (months > 0 && (spot || (req->term_months > 0 && req->term_months != months)))
		return gr_fail(err, GR_EUSAGE, "offer '%s' is not sold prepaid for %d months",
		    req->offer_id, req->term_months);
	image = req->image != NULL ? req->image : p->image[0] != '\0' ? p->image : NULL;
	if (image == NULL)
		return gr_fail(err, GR_EUSAGE, "PPIO launches need an image: give --image or "
		    "set ppio.image (or launch.image)");
	/* The name is required (§5.1) and is how a launch is found after an unclear failure. */
	labelled = bk_launch_name(req, name, sizeof(name));
	doc = create_doc(req, name, product, region, count, spot, months, image,
	    req->disk_gb > 0 ? req->disk_gb : p->disk_gb);
	/* Never retried by the HTTP layer: there is no idempotency key (§5.1). The server's
	   fuzzy name filter (§5.2) lists the instances a launch may have made. */
	e = bk_create_run(&(struct bk_create){ .b = b, .h = &p->h, .m = HTTP_POST,
	    .path = "/gpus/v2/instances", .doc = doc, .name = name,
	    .name_unique = !labelled && req->client_token != NULL, .backoff_ms = 1000,
	    .parse_id = ppio_parse_create, .list = list_pages }, out, lid, sizeof(lid), err);
	free(doc);
	if (e != GR_OK)
		return e;
	snprintf(full, sizeof(full), "ppio:%.58s", lid);
	if (get_local(b, lid, out, &(struct gr_error){ 0 }) != GR_OK) {
		bk_instance_from_launch(b, full, name, out);
		strlcpy_(out->offer_id, req->offer_id, sizeof(out->offer_id));
		out->gpu_count = count;
		out->type = spot ? OFFER_INTERRUPTIBLE : OFFER_ON_DEMAND;
		add_rate(b, out);
	}
	return GR_OK;
}

/*
 * PUT .../{id}/start|stop (§5.4). Repeating either has the effect of once, so the HTTP layer
 * may retry it; an error on an instance already where it was sent (CONFLICT, or whatever the
 * provider answers) counts as done once a fresh read says so.
 */
static enum gr_err
transition(struct backend *b, const char *id, const char *verb, enum inst_state done,
    enum inst_state on_way, struct gr_error *err)
{
	struct http_response rs;
	struct gr_error sub = { 0 };
	struct instance in;
	char path[128];
	const char *l;
	enum gr_err e;

	if ((l = local_id(b, id, err)) == NULL)
		return GR_ENOTFOUND;
	snprintf(path, sizeof(path), "/gpus/v2/instances/%s/%s", l, verb);
	e = bk_request(&priv(b)->h, HTTP_PUT, path, NULL, true, &rs, err);
	if (e == GR_OK && rs.status == 404)
		e = gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
	else if (e == GR_OK && (e = ppio_parse_error(rs.status, rs.body, rs.len, &sub)) != GR_OK &&
	    e != GR_ENOTFOUND && get_local(b, l, &in, &(struct gr_error){ 0 }) == GR_OK &&
	    (in.state == done || in.state == on_way))
		e = GR_OK;
	else if (e != GR_OK)
		e = gr_fail(err, e, "%s", sub.msg);
	http_response_release(&rs);
	return e;
}

static enum gr_err
ppio_stop(struct backend *b, const char *id, struct gr_error *err)
{
	return transition(b, id, "stop", ST_STOPPED, ST_STOPPING, err);
}

static enum gr_err
ppio_start(struct backend *b, const char *id, struct gr_error *err)
{
	return transition(b, id, "start", ST_RUNNING, ST_STARTING, err);
}

static enum gr_err
ppio_destroy(struct backend *b, const char *id, struct gr_error *err)
{
	struct http_response rs;
	struct gr_error sub = { 0 };
	char path[128];
	const char *l;
	enum gr_err e;

	if ((l = local_id(b, id, err)) == NULL)
		return GR_ENOTFOUND;
	snprintf(path, sizeof(path), "/gpus/v2/instances/%s", l);
	/* Releasing twice has the effect of once, so the HTTP layer may retry it. */
	e = bk_request(&priv(b)->h, HTTP_DELETE, path, NULL, true, &rs, err);
	if (e == GR_OK) {
		e = rs.status == 404 ? GR_ENOTFOUND : ppio_parse_error(rs.status, rs.body, rs.len,
		    &sub);
		if (e == GR_ENOTFOUND && rs.attempts > 1)
			e = GR_OK;	/* an earlier attempt went through */
		else if (e == GR_ENOTFOUND)
			e = gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
		else if (e != GR_OK)
			e = gr_fail(err, e, "%s", sub.msg);
	}
	http_response_release(&rs);
	return e;
}

const struct backend_ops backend_ppio = {
	.name = "ppio",
	.description = "PPIO (派欧云) GPU instances (API v2), priced in CNY",
	.caps = CAP_STOP | CAP_INTERRUPTIBLE | CAP_SSH,
	.priv_size = sizeof(struct ppio),
	.init = ppio_init,
	.cleanup = ppio_cleanup,
	.offers = ppio_offers,
	.instances = ppio_list,
	.get = ppio_get,
	.launch = ppio_launch,
	.stop = ppio_stop,
	.start = ppio_start,
	.destroy = ppio_destroy,
	.metrics = NULL,	/* no metrics endpoint (§12) */
	.account = NULL,	/* no balance endpoint in v2 (§12) */
};
