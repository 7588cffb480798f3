/*
 * bjson.c - small cJSON helpers shared by the provider parsers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backends_parse.h"
#include "gpurent/http.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/util.h"

enum gr_err
bj_parse(const char *provider, const char *body, size_t len, cJSON **out,
    struct gr_error *err)
{
	cJSON *j;

	*out = NULL;
	if (body == NULL || len == 0)
		return gr_fail(err, GR_EUNAVAIL, "empty reply from %s", provider);
	j = cJSON_ParseWithLength(body, len);
	if (j == NULL)
		return gr_fail(err, GR_EUNAVAIL, "malformed reply from %s (not JSON)", provider);
	*out = j;
	return GR_OK;
}

/* Largest dollar amount accepted: far above any price, far below int64 micro-dollars. */
#define MONEY_MAX_DOLLARS 1e8

bool
bj_money(const cJSON *n, int64_t *out)
{
	double v;
	char *end;

	if (n == NULL)
		return false;
	if (cJSON_IsNumber(n)) {
		v = n->valuedouble;
	} else if (cJSON_IsString(n) && n->valuestring != NULL) {
		/* Exact when it fits money_parse ("0.74"), else via strtod like a number. */
		if (money_parse(n->valuestring, out))
			return true;
		v = strtod(n->valuestring, &end);
		if (end == n->valuestring || *end != '\0')
			return false;
	} else
		return false;
	if (!isfinite(v) || v < 0 || v > MONEY_MAX_DOLLARS)
		return false;
	*out = (int64_t)llround(v * 1e6);
	return true;
}

bool
bj_money_at(const cJSON *obj, const char *key, int64_t *out)
{
	return bj_money(cJSON_GetObjectItemCaseSensitive(obj, key), out);
}

bool
bj_num(const cJSON *obj, const char *key, double *out)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(obj, key);
	char *end;
	double v;

	if (cJSON_IsNumber(n)) {
		v = n->valuedouble;
	} else if (cJSON_IsString(n) && n->valuestring != NULL && n->valuestring[0] != '\0') {
		v = strtod(n->valuestring, &end);
		if (*end != '\0')
			return false;
	} else
		return false;
	if (!isfinite(v))
		return false;
	*out = v;
	return true;
}

bool
bj_started_from_uptime(const cJSON *obj, const char *key, double scale, int64_t now,
    int64_t *out)
{
	int64_t start;
	double v;

	if (!bj_num(obj, key, &v) || v < 0 || v * scale > 10.0 * 366 * 86400)
		return false;
	start = (now - (int64_t)llround(v * scale) + 30) / 60 * 60;
	if (start <= 0)
		return false;
	*out = start;
	return true;
}

bool
bj_int(const cJSON *obj, const char *key, long long *out)
{
	double v;

	if (!bj_num(obj, key, &v) || v < -9e15 || v > 9e15)
		return false;
	*out = llround(v);
	return true;
}

bool
bj_bool(const cJSON *obj, const char *key, bool *out)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!cJSON_IsBool(n))
		return false;
	*out = cJSON_IsTrue(n);
	return true;
}

const char *
bj_strp(const cJSON *obj, const char *key)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(n) ? n->valuestring : NULL;
}

bool
bj_str(const cJSON *obj, const char *key, char *dst, size_t n)
{
	const char *s = bj_strp(obj, key);

	if (s == NULL) {
		if (n > 0)
			dst[0] = '\0';
		return false;
	}
	text_sanitize(dst, n, s);
	return true;
}

const char *
bj_first_str(const cJSON *obj, const char *const *keys)
{
	const char *s;

	for (; *keys != NULL; keys++) {
		s = bj_strp(obj, *keys);
		if (s != NULL && s[0] != '\0')
			return s;
	}
	return NULL;
}

enum gr_err
bj_error(long status, const char *body, size_t len, bj_error_of_fn of, struct gr_error *err)
{
	cJSON *j = NULL;
	enum gr_err e;

	if (body != NULL && len > 0)
		j = cJSON_ParseWithLength(body, len);
	e = of(status, j, body, len, err);
	cJSON_Delete(j);
	return e;
}

enum gr_err
bj_fail_coded(struct gr_error *err, const char *provider, long status, enum gr_err c,
    const char *msg, const char *code, const char *sugg)
{
	char m[256];

	if (c == GR_OK)
		c = http_status_code(status);
	if (c == GR_OK)
		c = GR_EFAIL;
	if (msg[0] == '\0' && code[0] == '\0')
		return http_fail_status(err, provider, status, NULL);
	if (msg[0] == '\0')
		strlcpy_(m, code, sizeof(m));
	else if (code[0] != '\0')
		snprintf(m, sizeof(m), "%s [%s]", msg, code);
	else
		strlcpy_(m, msg, sizeof(m));
	if (sugg[0] != '\0')
		return gr_fail(err, c, "%s (HTTP %ld); %s", m, status, sugg);
	return gr_fail(err, c, "%s (HTTP %ld)", m, status);
}

enum gr_err
bj_code_of(const struct bj_code *t, size_t n, const char *code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(code, t[i].code) == 0)
			return t[i].err;
	return GR_OK;
}

void
bj_figures(const cJSON *obj, const struct bj_figure *f, size_t n, unsigned *valid)
{
	long long v;
	size_t i;

	for (i = 0; i < n; i++) {
		if (bj_int(obj, f[i].key, &v) && v > 0 && v < f[i].below) {
			*f[i].to = (int)v;
			*valid |= f[i].bit;
		}
	}
}

void
bj_instances_add(const cJSON *arr, bj_instance_fn from_json, struct instance_list *out)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, arr) {
		struct instance tmp;

		if (!cJSON_IsObject(x))
			continue;
		memset(&tmp, 0, sizeof(tmp));
		from_json(x, &tmp);
		if (tmp.id[0] != '\0')
			*instance_list_add(out) = tmp;
	}
}

enum gr_err
bj_instances_read(cJSON *j, const cJSON *arr, bj_instance_fn from_json, const char *no_list,
    struct instance_list *out, struct gr_error *err)
{
	bool list = cJSON_IsArray(arr);

	if (list)
		bj_instances_add(arr, from_json, out);
	cJSON_Delete(j);
	return list ? GR_OK : gr_fail(err, GR_EUNAVAIL, "%s", _(no_list));
}

enum gr_err
bj_instance_read(cJSON *j, const cJSON *o, bj_instance_fn from_json, const char *not_object,
    const char *no_id, struct instance *out, struct gr_error *err)
{
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(j);
		return gr_fail(err, GR_EUNAVAIL, "%s", _(not_object));
	}
	memset(out, 0, sizeof(*out));
	from_json(o, out);
	cJSON_Delete(j);
	if (out->id[0] == '\0')
		return gr_fail(err, GR_EUNAVAIL, "%s", _(no_id));
	return GR_OK;
}

enum inst_state
bj_state_of(const struct bj_state *t, size_t n, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < n; i++)
		if (strcmp(name, t[i].name) == 0)
			return t[i].st;
	return ST_UNKNOWN;
}

void
bj_env_object(struct cJSON *obj, const char *const *env, const char *client_token)
{
	cJSON *o = cJSON_AddObjectToObject(obj, "env");
	const char *eq;
	char k[128];
	size_t i;

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		eq = strchr(env[i], '=');
		if (eq == NULL || eq == env[i] || (size_t)(eq - env[i]) >= sizeof(k))
			continue;
		memcpy(k, env[i], (size_t)(eq - env[i]));
		k[eq - env[i]] = '\0';
		cJSON_AddStringToObject(o, k, eq + 1);
	}
	if (client_token != NULL)
		cJSON_AddStringToObject(o, "GPURENT_CLIENT_TOKEN", client_token);
}
