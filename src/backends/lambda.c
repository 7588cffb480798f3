/*
 * lambda.c - the Lambda Cloud backend over API v1 (../shared/providers/lambda.md).
 *
 * Offers: GET /api/v1/instance-types (one offer per type and region with capacity).
 * Lambda cannot stop or start an instance, has no spot, metrics or account endpoints: those
 * slots stay NULL and the core says so. It reports no creation time, so the launch records
 * one in the local database.
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
#include "gpurent/util.h"

#include "backends_int.h"

#define LAMBDA_URL "https://cloud.lambda.ai"

struct lambda {
	struct bk_http h;
	char ssh_key[65];		/* configured key name, "" for none */
};

static struct lambda *
priv(struct backend *b)
{
	return b->priv;
}

static enum gr_err
lambda_init(struct backend *b, struct gr_error *err)
{
	struct lambda *l = priv(b);
	const char *s;

	/* Every Lambda endpoint needs the key, offers included. */
	if (b->env.config != NULL && (s = config_get(b->env.config, "lambda.ssh_key")) != NULL)
		strlcpy_(l->ssh_key, s, sizeof(l->ssh_key));
	return bk_http_init(&l->h, b, LAMBDA_URL, true, lambda_parse_error, err);
}

static void
lambda_cleanup(struct backend *b)
{
	if (b->priv != NULL)
		bk_http_free(&priv(b)->h);
}

static enum gr_err
lambda_offers(struct backend *b, const struct filter *f, struct offer_list *out,
    bool *pushed_all, struct gr_error *err)
{
	/* One small price list: nothing to push down, the core filters it all. */
	*pushed_all = bk_only_provider_type(f);
	return bk_offers_read(&priv(b)->h, HTTP_GET, "/api/v1/instance-types", NULL,
	    &lambda_offer_kind, NULL, out, err);
}

static enum gr_err
lambda_get_local(struct backend *b, const char *lid, struct instance *out, struct gr_error *err)
{
	struct http_response rs;
	char path[96];
	enum gr_err e;

	snprintf(path, sizeof(path), "/api/v1/instances/%s", lid);
	e = bk_request(&priv(b)->h, HTTP_GET, path, NULL, true, &rs, err);
	if (e == GR_OK && rs.status == 404)
		e = gr_fail(err, GR_ENOTFOUND, "no instance 'lambda:%s'", lid);
	e = bk_check(&priv(b)->h, e, &rs, err);
	if (e == GR_OK)
		e = lambda_parse_instance(rs.body, rs.len, out, err);
	http_response_release(&rs);
	return e;
}

/* Lambda ids are 32 lowercase hex characters; anything else cannot exist. */
static const char *
local_hex(struct backend *b, const char *id, struct gr_error *err)
{
	const char *l = bk_local_id(b, id, err), *p;

	if (l == NULL)
		return NULL;
	for (p = l; *p != '\0'; p++) {
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')) || p - l > 64) {
			gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
			return NULL;
		}
	}
	return l;
}

static enum gr_err
lambda_get(struct backend *b, const char *id, struct instance *out, struct gr_error *err)
{
	const char *l;

	if ((l = local_hex(b, id, err)) == NULL)
		return GR_ENOTFOUND;
	return lambda_get_local(b, l, out, err);
}

static enum gr_err
lambda_list(struct backend *b, struct instance_list *out, struct gr_error *err)
{
	struct http_response rs;
	enum gr_err e;

	e = bk_call(&priv(b)->h, HTTP_GET, "/api/v1/instances", NULL, true, &rs, err);
	if (e == GR_OK)
		e = lambda_parse_instances(rs.body, rs.len, out, err);
	http_response_release(&rs);
	return e;
}

/* The SSH key to launch with: the configured one, else the only one registered. */
static enum gr_err
pick_ssh_key(struct backend *b, char *out, size_t n, struct gr_error *err)
{
	struct lambda *l = priv(b);
	struct http_response rs;
	char names[8][65];
	size_t count = 0, i;
	struct sb list;
	enum gr_err e;

	if (l->ssh_key[0] != '\0') {
		strlcpy_(out, l->ssh_key, n);
		return GR_OK;
	}
	e = bk_call(&priv(b)->h, HTTP_GET, "/api/v1/ssh-keys", NULL, true, &rs, err);
	if (e == GR_OK)
		e = lambda_parse_ssh_keys(rs.body, rs.len, names, ARRAY_LEN(names), &count, err);
	http_response_release(&rs);
	if (e != GR_OK)
		return e;
	if (count == 1) {
		strlcpy_(out, names[0], n);
		return GR_OK;
	}
	if (count == 0)
		return gr_fail(err, GR_EUSAGE, "launching needs an SSH key and the account "
		    "has none: add one in the Lambda console (SSH keys), then retry");
	sb_init(&list);
	for (i = 0; i < count && i < ARRAY_LEN(names); i++)
		sb_addf(&list, "%s'%s'", i ? ", " : "", names[i]);
	if (count > ARRAY_LEN(names))
		sb_adds(&list, ", ...");
	gr_fail(err, GR_EUSAGE, "the account has %zu SSH keys (%s); choose one with "
	    "'gpurent config set lambda.ssh_key NAME'", count, list.buf);
	sb_release(&list);
	return GR_EUSAGE;
}

/* Lambda's list has no name filter: the whole list, for bk_create_run. */
static enum gr_err
list_for_launch(struct backend *b, const char *name, struct instance_list *out,
    struct gr_error *err)
{
	(void)name;
	return lambda_list(b, out, err);
}

static enum gr_err
lambda_launch(struct backend *b, const struct launch_req *req, struct instance *out,
    struct gr_error *err)
{
	char type[64], region[48], key[65], name[65], *doc;
	char lid[80] = "";
	const char *l, *at;
	cJSON *o;
	enum gr_err e;
	bool labelled;

	if (req->interruptible)
		return gr_fail(err, GR_EUNSUPPORTED, "Lambda has no interruptible "
		    "instances; launch on demand without a bid");
	if ((l = bk_local_id(b, req->offer_id, err)) == NULL)
		return GR_ENOTFOUND;
	at = strchr(l, '@');
	if (at == NULL) {
		return gr_fail(err, GR_ECAPACITY, "'%s' has no capacity in any region "
		    "now; try again later or pick another type", req->offer_id);
	}
	if ((size_t)(at - l) >= sizeof(type) || strlen(at + 1) >= sizeof(region) || at == l ||
	    at[1] == '\0')
		return gr_fail(err, GR_ENOTFOUND, "no offer '%s'", req->offer_id);
	memcpy(type, l, (size_t)(at - l));
	type[at - l] = '\0';
	strlcpy_(region, at + 1, sizeof(region));
	/* The disk is fixed by the instance type (specs.storage_gib); a size asked is ignored. */
	if ((e = pick_ssh_key(b, key, sizeof(key), err)) != GR_OK)
		return e;
	labelled = bk_launch_name(req, name, sizeof(name));

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "region_name", region);
	cJSON_AddStringToObject(o, "instance_type_name", type);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "ssh_key_names"), cJSON_CreateString(key));
	cJSON_AddStringToObject(o, "name", name);
	if (req->onstart != NULL)
		cJSON_AddStringToObject(o, "user_data", req->onstart);
	if (req->image != NULL)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "image"), "family", req->image);
	doc = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);

	e = bk_create_run(&(struct bk_create){ .b = b, .h = &priv(b)->h, .m = HTTP_POST,
	    .path = "/api/v1/instance-operations/launch", .doc = doc, .name = name,
	    .name_unique = !labelled && req->client_token != NULL, .backoff_ms = 1000,
	    .parse_id = lambda_parse_launch, .list = list_for_launch }, out, lid, sizeof(lid),
	    err);
	free(doc);
	if (e != GR_OK)
		return e;
	/* Lambda never says when an instance was created: its launch is (the session keeps it). */
	{
		char full[ID_MAX];
		int64_t now = bk_now();

		snprintf(full, sizeof(full), "lambda:%.56s", lid);
		if (lambda_get_local(b, lid, out, &(struct gr_error){ 0 }) != GR_OK)
			bk_instance_from_launch(b, full, name, out);
		out->created_at = now;
		out->valid |= IV_CREATED;
	}
	strlcpy_(out->offer_id, req->offer_id, sizeof(out->offer_id));
	return GR_OK;
}

static enum gr_err
lambda_destroy(struct backend *b, const char *id, struct gr_error *err)
{
	struct http_response rs;
	const char *l;
	char *doc;
	cJSON *o;
	enum gr_err e;

	if ((l = local_hex(b, id, err)) == NULL)
		return GR_ENOTFOUND;
	o = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "instance_ids"), cJSON_CreateString(l));
	doc = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	/* Terminating twice has the effect of once, so the HTTP layer may retry it. */
	e = bk_request(&priv(b)->h, HTTP_POST, "/api/v1/instance-operations/terminate", doc,
	    true, &rs, err);
	free(doc);
	if (e == GR_OK && rs.status == 404 && rs.attempts > 1) {
		e = GR_OK;	/* an earlier attempt went through */
	} else {
		if (e == GR_OK && rs.status == 404)
			e = gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
		e = bk_check(&priv(b)->h, e, &rs, err);
	}
	http_response_release(&rs);
	return e;
}

const struct backend_ops backend_lambda = {
	.name = "lambda",
	.description = "Lambda Cloud on-demand GPU instances (API v1); no stop, only terminate",
	.caps = CAP_SSH,
	.priv_size = sizeof(struct lambda),
	.init = lambda_init,
	.cleanup = lambda_cleanup,
	.offers = lambda_offers,
	.instances = lambda_list,
	.get = lambda_get,
	.launch = lambda_launch,
	.stop = NULL,		/* Lambda can only terminate */
	.start = NULL,
	.destroy = lambda_destroy,
	.metrics = NULL,
	.account = NULL,
};
