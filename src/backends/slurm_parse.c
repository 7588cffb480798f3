/*
 * slurm_parse.c - slurmrestd replies onto the model (see slurm_parse.h).
 *
 * Pure functions: the transport is in slurm.c. Nothing here trusts a reply: every member may
 * be missing, of another type, huge or full of escape sequences.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backends_parse.h"
#include "gpurent/i18n.h"
#include "gpurent/catalogue.h"
#include "gpurent/http.h"
#include "slurm_parse.h"
#include "gpurent/util.h"

#define P "slurm"

const char *const slurm_api_versions[SLURM_API_COUNT] = {
	"v0.0.41", "v0.0.40", "v0.0.39", "v0.0.38",
};

int
slurm_api_minor(int api)
{
	return 41 - api;
}

static const cJSON *
member(const cJSON *o, const char *k)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

bool
slurm_num(const cJSON *v, long long *out)
{
	const cJSON *set, *inf;

	if (cJSON_IsObject(v)) {
		set = member(v, "set");
		inf = member(v, "infinite");
		if ((set != NULL && !cJSON_IsTrue(set)) || cJSON_IsTrue(inf))
			return false;
		v = member(v, "number");
	}
	if (!cJSON_IsNumber(v) || v->valuedouble != v->valuedouble ||
	    v->valuedouble > 9.0e15 || v->valuedouble < -9.0e15)
		return false;
	*out = (long long)v->valuedouble;
	return true;
}

static long long
num_at(const cJSON *o, const char *k, long long def)
{
	long long v;

	return slurm_num(member(o, k), &v) ? v : def;
}

static void
str_at(const cJSON *o, const char *k, char *dst, size_t n)
{
	const cJSON *v = member(o, k);

	if (cJSON_IsString(v) && v->valuestring != NULL)
		text_sanitize(dst, n, v->valuestring);
	else
		dst[0] = '\0';
}

/*
 * A finished job's exit status: v0.0.38 gives the wait status as a number (exit 3 is 768,
 * signal 9 is 9); v0.0.39 on an object {"status": [...], "return_code": N, "signal":
 * {"id": N}} with wrapped numbers. -1 when absent or out of range.
 */
static int
exit_code_at(const cJSON *o)
{
	const cJSON *v = member(o, "exit_code"), *sig;
	long long w;

	if (member(v, "return_code") != NULL || member(v, "status") != NULL) {
		sig = member(v, "signal");
		if (cJSON_IsObject(sig) && (w = num_at(sig, "id", 0)) > 0 && w < 128)
			return 128 + (int)w;
		w = num_at(v, "return_code", -1);
		return w >= 0 && w <= 255 ? (int)w : -1;
	}
	if (!slurm_num(v, &w) || w < 0 || w > 0xFFFF)
		return -1;
	if ((w & 0x7F) != 0)
		return 128 + (int)(w & 0x7F);
	return (int)((w >> 8) & 0xFF);
}

/* A state that is a string ("idle") or an array of words (["IDLE", "DRAIN"]), as words
   joined with '+' in lower case. */
static void
state_at(const cJSON *o, const char *k, char *dst, size_t n)
{
	const cJSON *v = member(o, k), *w;
	struct sb sb;
	size_t i;

	dst[0] = '\0';
	sb_init(&sb);
	if (cJSON_IsString(v) && v->valuestring != NULL) {
		sb_adds(&sb, v->valuestring);
	} else if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(w, v) {
			if (!cJSON_IsString(w) || w->valuestring == NULL)
				continue;
			if (sb.len > 0)
				sb_addc(&sb, '+');
			sb_adds(&sb, w->valuestring);
			if (sb.len > 256)
				break;
		}
	}
	if (sb.buf != NULL) {
		text_sanitize(dst, n, sb.buf);
		for (i = 0; dst[i] != '\0'; i++)
			dst[i] = (char)tolower((unsigned char)dst[i]);
	}
	sb_release(&sb);
}

static enum gr_err
parse_list(const char *body, size_t len, const char *key, cJSON **root, const cJSON **arr,
    struct gr_error *err)
{
	enum gr_err e = bj_parse(P, body, len, root, err);

	if (e != GR_OK)
		return e;
	*arr = member(*root, key);
	if (!cJSON_IsArray(*arr)) {
		cJSON_Delete(*root);
		*root = NULL;
		return gr_fail(err, GR_EUNAVAIL, "malformed reply from slurm (no %s list)", key);
	}
	return GR_OK;
}

int
slurm_parse_openapi(const char *body, size_t len, struct gr_error *err)
{
	cJSON *root;
	const cJSON *paths;
	char want[64];
	int i;
	enum gr_err e = bj_parse(P, body, len, &root, err);

	if (e != GR_OK)
		return -1;
	paths = member(root, "paths");
	for (i = 0; i < SLURM_API_COUNT && cJSON_IsObject(paths); i++) {
		snprintf(want, sizeof(want), "/slurm/%s/jobs", slurm_api_versions[i]);
		if (member(paths, want) != NULL)
			break;
	}
	if (!cJSON_IsObject(paths))
		i = SLURM_API_COUNT;
	cJSON_Delete(root);
	if (i == SLURM_API_COUNT) {
		gr_fail(err, GR_EUNSUPPORTED, "slurmrestd offers none of the OpenAPI versions "
		    "gpurent speaks (v0.0.38 to v0.0.41): start it with -s openapi/v0.0.38 or newer");
		return -1;
	}
	return i;
}

enum gr_err
slurm_parse_errors(long status, const char *body, size_t len, struct gr_error *err)
{
	cJSON *root = NULL;
	const cJSON *errs, *it;
	struct sb sb;
	char one[420], desc[200], what[200];
	enum gr_err code = GR_OK;
	bool unspecified = false;

	if (body != NULL && len > 0)
		root = cJSON_ParseWithLength(body, len);
	errs = member(root, "errors");
	sb_init(&sb);
	cJSON_ArrayForEach(it, (cJSON_IsArray(errs) ? errs : NULL)) {
		long long no;

		str_at(it, "description", desc, sizeof(desc));
		str_at(it, "error", what, sizeof(what));
		if (desc[0] == '\0' && what[0] == '\0')
			continue;
		if (desc[0] != '\0' && what[0] != '\0' && strcmp(desc, what) != 0)
			snprintf(one, sizeof(one), "%s (%s)", desc, what);
		else
			snprintf(one, sizeof(one), "%s", desc[0] != '\0' ? desc : what);
		if (sb.len > 0)
			sb_adds(&sb, "; ");
		sb_adds(&sb, one);
		/* v0.0.38 names Slurm's error number three ways. */
		if (!slurm_num(member(it, "error_number"), &no) &&
		    !slurm_num(member(it, "error_code"), &no) &&
		    !slurm_num(member(it, "errno"), &no))
			no = 0;
		if (strcmp(what, "Unspecified error") == 0 && no == -1)
			unspecified = true;
		if (code == GR_OK && strstr(what, "Invalid job id") != NULL)
			code = GR_ENOTFOUND;
		/* ESLURM_* (2000 on): Slurm refused the request, whatever the HTTP status. */
		if (code == GR_OK && no >= 2000 && no < 3000)
			code = GR_EUSAGE;
		if (sb.len > 400)
			break;
	}
	if (status == 401 || status == 403 || unspecified)
		code = GR_EAUTH;
	else if (code == GR_OK && sb.len > 0)
		code = status >= 500 ? GR_EUNAVAIL : status >= 400 ? GR_EUSAGE : GR_EFAIL;
	else if (code == GR_OK && (status < 200 || status > 299))
		code = status >= 500 || status == 0 ? GR_EUNAVAIL : GR_EUSAGE;
	if (code != GR_OK) {
		if (sb.len == 0 && root == NULL)
			http_body_snippet(one, sizeof(one), body, len);
		else
			one[0] = '\0';
		if (code == GR_EAUTH)
			gr_fail(err, code, "the cluster refused the token: %s%s (get a new "
			    "one with 'scontrol token' and export it as SLURM_JWT, or 'gpurent "
			    "login slurm')", sb.len ? sb.buf : one[0] ? one : _("authentication failure"),
			    unspecified ? _(": expired, or not this user's") : "");
		else
			gr_fail(err, code, "%s (HTTP %ld)", sb.len ? sb.buf :
			    one[0] ? one : "error", status);
	}
	sb_release(&sb);
	cJSON_Delete(root);
	return code;
}

/* The next comma-separated entry of s outside parentheses; NULL at the end. */
static const char *
next_entry(const char *s, char *buf, size_t n)
{
	size_t k = 0;
	int depth = 0;

	if (*s == '\0')
		return NULL;
	for (; *s != '\0' && !(*s == ',' && depth == 0); s++) {
		if (*s == '(')
			depth++;
		else if (*s == ')' && depth > 0)
			depth--;
		else if (depth == 0 && k + 1 < n)
			buf[k++] = *s;
	}
	buf[k] = '\0';
	return *s == ',' ? s + 1 : s;
}

size_t
slurm_gres_gpus(const char *s, struct slurm_gres *out, size_t max)
{
	char e[128], *f[4], *p;
	size_t n = 0, nf;
	long long count;

	if (s == NULL)
		return 0;
	while ((s = next_entry(s, e, sizeof(e))) != NULL && n < max) {
		p = e;
		if (strncmp(p, "gres:", 5) == 0 || strncmp(p, "gres/", 5) == 0)
			p += 5;
		for (char *q = p; *q != '\0'; q++)
			if (*q == '=')
				*q = ':';
		nf = 0;
		f[nf++] = p;
		while (nf < 4 && (p = strchr(p, ':')) != NULL) {
			*p++ = '\0';
			f[nf++] = p;
		}
		if (strcmp(f[0], "gpu") != 0)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		/* gpu | gpu:N | gpu:TYPE | gpu:TYPE:N */
		if (nf >= 3) {
			text_sanitize(out[n].type, sizeof(out[n].type), f[1]);
			count = parse_int(f[2], 0, 1000000, &count) ? count : -1;
		} else if (nf == 2 && parse_int(f[1], 0, 1000000, &count)) {
			;
		} else {
			if (nf == 2)
				text_sanitize(out[n].type, sizeof(out[n].type), f[1]);
			count = 1;
		}
		if (count < 0)
			continue;
		/* The type names an offer id: keep it to what a GRES type may hold. */
		for (p = out[n].type; *p != '\0'; p++)
			if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
				*p = '_';
		out[n].count = (int)count;
		n++;
	}
	return n;
}

static int
gres_count_of(const struct slurm_gres *g, size_t n, const char *type)
{
	size_t i;
	int c = 0;

	for (i = 0; i < n; i++)
		if (strcmp(g[i].type, type) == 0)
			c += g[i].count;
	return c;
}

/*
 * The GPUs of the type of nd's g-th GRES entry, counted over all its entries (a type may be
 * listed twice): false when an earlier entry has GPUs of the type (counted there) or there are
 * none; else its total in *have and its allocated ones in *used.
 */
static bool
gres_type_counts(const struct slurm_node *nd, size_t g, int *have, int *used)
{
	const char *type = nd->gres[g].type;

	if (gres_count_of(nd->gres, g, type) > 0)
		return false;
	*have = gres_count_of(nd->gres, nd->n_gres, type);
	*used = gres_count_of(nd->used, nd->n_used, type);
	return *have > 0;
}

/* A node that can take jobs: responding, not drained, draining, down, failing or off. */
static bool
node_usable(const char *state)
{
	static const char *const bad[] = { "down", "drain", "drained", "draining", "fail",
		"failing", "future", "unknown", "not_responding", "maint", "maintenance",
		"power_down", "powered_down", "powering_down", "powering_up", "reboot_issued",
		"reboot_requested", "inval", "invalid", "error", "no_respond" };
	char w[64];
	const char *s = state;
	size_t i, k;
	bool base = false;

	while (*s != '\0') {
		for (k = 0; *s != '\0' && *s != '+' && k + 1 < sizeof(w); s++)
			w[k++] = *s;
		w[k] = '\0';
		while (*s != '\0' && *s != '+')
			s++;
		if (*s == '+')
			s++;
		for (i = 0; i < ARRAY_LEN(bad); i++)
			if (strcmp(w, bad[i]) == 0)
				return false;
		if (strcmp(w, "idle") == 0 || strcmp(w, "mixed") == 0 ||
		    strcmp(w, "allocated") == 0 || strcmp(w, "completing") == 0)
			base = true;
	}
	return base;
}

/* One element of /nodes onto nd; false when it is no node (not an object, no name). */
/*
 * Every member of a node that slurm_node_from_json reads: a /nodes reply is parsed for these
 * only (jpick; a node has about sixty). test_parse_slurm maps the recorded nodes both ways.
 */
static const char *const node_members[] = {
	"name", "hostname", "state", "state_flags", "partitions", "gres", "gres_used", "cpus",
	"real_memory", NULL,
};

bool
slurm_node_from_json(const cJSON *it, struct slurm_node *nd)
{
	const cJSON *parts, *p, *flags;
	char gres[512], flagstr[256];

	memset(nd, 0, sizeof(*nd));
	if (!cJSON_IsObject(it))
		return false;
	str_at(it, "name", nd->name, sizeof(nd->name));
	if (nd->name[0] == '\0')
		return false;
	str_at(it, "hostname", nd->hostname, sizeof(nd->hostname));
	state_at(it, "state", nd->state, sizeof(nd->state));
	/* v0.0.38 keeps DRAIN, NOT_RESPONDING ... apart from the state. */
	state_at(it, "state_flags", flagstr, sizeof(flagstr));
	flags = member(it, "state_flags");
	if (flagstr[0] != '\0' && cJSON_IsArray(flags) &&
	    strlen(nd->state) + strlen(flagstr) + 2 < sizeof(nd->state)) {
		strcat(nd->state, "+");
		strcat(nd->state, flagstr);
	}
	nd->usable = node_usable(nd->state);
	nd->partitions[0] = ',';
	nd->partitions[1] = '\0';
	parts = member(it, "partitions");
	cJSON_ArrayForEach(p, (cJSON_IsArray(parts) ? parts : NULL)) {
		char pn[64];

		if (!cJSON_IsString(p) || p->valuestring == NULL)
			continue;
		text_sanitize(pn, sizeof(pn), p->valuestring);
		if (strlen(nd->partitions) + strlen(pn) + 2 < sizeof(nd->partitions)) {
			strcat(nd->partitions, pn);
			strcat(nd->partitions, ",");
		}
	}
	str_at(it, "gres", gres, sizeof(gres));
	nd->n_gres = slurm_gres_gpus(gres, nd->gres, SLURM_GRES_MAX);
	str_at(it, "gres_used", gres, sizeof(gres));
	nd->n_used = slurm_gres_gpus(gres, nd->used, SLURM_GRES_MAX);
	nd->cpus = (int)num_at(it, "cpus", 0);
	nd->memory_mb = num_at(it, "real_memory", 0);
	return true;
}

/*
 * A list reply read as it arrives: each element of its list ("nodes" or "jobs") parsed on
 * its own by jscan and converted into v, elements that are no record skipped.
 */
struct slurm_stream {
	enum slurm_list what;
	struct jscan *scan;
	struct jpick *pick;	/* nodes: node_members */
	void *v;
	size_t n, cap, size;
};

static bool job_from_json(const cJSON *it, struct slurm_job *j);

static bool
take_elem(const cJSON *it, void *ctx)
{
	struct slurm_stream *s = ctx;
	void *slot;
	bool kept;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = xreallocarray(s->v, s->cap, s->size);
	}
	slot = (char *)s->v + s->n * s->size;
	kept = s->what == SLURM_NODES ? slurm_node_from_json(it, slot) :
	    job_from_json(it, slot);
	if (kept)
		s->n++;
	return true;
}

struct slurm_stream *
slurm_stream_new(enum slurm_list what)
{
	struct slurm_stream *s = xcalloc(1, sizeof(*s));

	s->what = what;
	s->size = what == SLURM_NODES ? sizeof(struct slurm_node) : sizeof(struct slurm_job);
	s->scan = jscan_new(what == SLURM_NODES ? "nodes" : "jobs", take_elem, s);
	if (what == SLURM_NODES) {
		s->pick = jpick_new(node_members);
		jscan_pick(s->scan, s->pick);
	}
	return s;
}

bool
slurm_stream_feed(struct slurm_stream *s, const char *p, size_t n)
{
	return jscan_feed(s->scan, p, n);
}

/* The scan's verdict, then the errors array; the array (ownership passes) in *out. */
static enum gr_err
stream_finish(struct slurm_stream *s, long status, void **out, size_t *n,
    struct gr_error *err)
{
	cJSON *skeleton = NULL;
	enum gr_err e;
	char *text;

	*out = NULL;
	*n = 0;
	e = jscan_end_error(jscan_finish(s->scan, &skeleton), P, s->what == SLURM_NODES ?
	    N_("malformed reply from slurm (no nodes list)") :
	    N_("malformed reply from slurm (no jobs list)"), err);
	/* Slurm's errors array sits in the skeleton, beside the emptied list: a few bytes. */
	if (skeleton != NULL) {
		text = cJSON_PrintUnformatted(skeleton);
		if (e == GR_OK && text != NULL)
			e = slurm_parse_errors(status, text, strlen(text), err);
		cJSON_free(text);
	}
	cJSON_Delete(skeleton);
	if (e != GR_OK)
		return e;
	*out = s->v != NULL ? s->v : xcalloc(1, s->size);
	*n = s->n;
	s->v = NULL;
	s->n = s->cap = 0;
	return GR_OK;
}

enum gr_err
slurm_stream_nodes(struct slurm_stream *s, long status, struct slurm_node **out, size_t *n,
    struct gr_error *err)
{
	return stream_finish(s, status, (void **)out, n, err);
}

enum gr_err
slurm_stream_jobs(struct slurm_stream *s, long status, struct slurm_job **out, size_t *n,
    struct gr_error *err)
{
	return stream_finish(s, status, (void **)out, n, err);
}

/* A whole reply of 200 (OK), a list of what, through a stream: stream_finish's *out. */
static enum gr_err
parse_whole(enum slurm_list what, const char *body, size_t len, void **out, size_t *n,
    struct gr_error *err)
{
	struct slurm_stream *s = slurm_stream_new(what);
	enum gr_err e;

	slurm_stream_feed(s, body, len);
	e = stream_finish(s, 200, out, n, err);
	slurm_stream_free(s);
	return e;
}

void
slurm_stream_free(struct slurm_stream *s)
{
	if (s == NULL)
		return;
	jscan_free(s->scan);
	jpick_free(s->pick);
	if (s->what == SLURM_JOBS)
		slurm_jobs_free(s->v, s->n);
	else
		free(s->v);
	free(s);
}

void
slurm_jobs_free(struct slurm_job *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		free(v[i].nodes);
	free(v);
}

enum gr_err
slurm_parse_nodes(const char *body, size_t len, struct slurm_node **out, size_t *n,
    struct gr_error *err)
{
	return parse_whole(SLURM_NODES, body, len, (void **)out, n, err);
}

enum gr_err
slurm_parse_partitions(const char *body, size_t len, struct slurm_partition **out, size_t *n,
    struct gr_error *err)
{
	cJSON *root;
	const cJSON *arr, *it, *t;
	struct slurm_partition *v;
	char st[64];
	size_t k = 0, cap;
	long long m;
	enum gr_err e;

	*out = NULL;
	*n = 0;
	if ((e = parse_list(body, len, "partitions", &root, &arr, err)) != GR_OK)
		return e;
	cap = (size_t)cJSON_GetArraySize(arr);
	v = xcalloc(cap ? cap : 1, sizeof(*v));
	cJSON_ArrayForEach(it, arr) {
		struct slurm_partition *pt = &v[k];

		if (!cJSON_IsObject(it) || k == cap)
			continue;
		str_at(it, "name", pt->name, sizeof(pt->name));
		if (pt->name[0] == '\0')
			continue;
		/* v0.0.38: "state": "UP"; v0.0.40: "partition": {"state": ["UP"]}. */
		state_at(it, "state", st, sizeof(st));
		if (st[0] == '\0')
			state_at(member(it, "partition"), "state", st, sizeof(st));
		pt->up = st[0] == '\0' || strncmp(st, "up", 2) == 0;
		/* v0.0.38: "max_time_limit" minutes; v0.0.40: "maximums": {"time": {...}}. */
		t = member(it, "max_time_limit");
		if (t == NULL)
			t = member(member(it, "maximums"), "time");
		pt->max_time_min = slurm_num(t, &m) && m >= 0 && m < 0xFFFFFFF ? m : -1;
		k++;
	}
	cJSON_Delete(root);
	*out = v;
	*n = k;
	return GR_OK;
}

void
slurm_hostlist_first(const char *list, char *out, size_t n)
{
	char raw[128];
	size_t k = 0;
	const char *s = list;

	if (n == 0)
		return;
	for (; *s != '\0' && *s != ',' && *s != '['; s++)
		if (k + 1 < sizeof(raw))
			raw[k++] = *s;
	if (*s == '[') {
		/* The first number of the range, leading zeros kept ("gpu[001-004]"). */
		for (s++; isdigit((unsigned char)*s); s++)
			if (k + 1 < sizeof(raw))
				raw[k++] = *s;
	}
	raw[k] = '\0';
	text_sanitize(out, n, raw);
}

/*
 * The hostlist expander. A pattern is expanded into the names it stands for, left to right:
 * its first bracket group's values, each spliced in and the rest of the pattern expanded
 * in turn ("r[1-2]-n[1-2]" is four names). Nothing here grows with a range's width: a
 * range is walked only until max names are out.
 */
struct hostlist_out {
	char (*v)[SLURM_HOST_MAX];
	int n, max;
};

/* Digits of s up to stop (at most 9, so an unsigned long holds them); false if none. */
static bool
hostlist_number(const char *s, const char *stop, unsigned long *out, int *digits)
{
	const char *p;

	if (s >= stop || stop - s > 9)
		return false;
	*out = 0;
	for (p = s; p < stop; p++) {
		if (!isdigit((unsigned char)*p))
			return false;
		*out = *out * 10 + (unsigned long)(*p - '0');
	}
	*digits = (int)(stop - s);
	return true;
}

static bool hostlist_pattern(struct hostlist_out *o, const char *done, const char *p,
    const char *end);

/* done's name with the value, zero-padded to width, in front of the rest [p, end). */
static bool
hostlist_value(struct hostlist_out *o, const char *done, unsigned long v, int width,
    const char *p, const char *end)
{
	char next[SLURM_HOST_MAX];
	int k = snprintf(next, sizeof(next), "%s%0*lu", done, width, v);

	if (k < 0 || (size_t)k >= sizeof(next))
		return false;
	return hostlist_pattern(o, next, p, end);
}

/* The names of the pattern [p, end) after the fixed text done; false when malformed. */
static bool
hostlist_pattern(struct hostlist_out *o, const char *done, const char *p, const char *end)
{
	char name[SLURM_HOST_MAX];
	const char *open, *close, *item, *stop, *dash;
	size_t k = strlen(done);
	unsigned long lo, hi, v;
	int wl, wh;

	memcpy(name, done, k + 1);
	for (open = p; open < end && *open != '['; open++)
		if (*open == ']' || k + 1 >= sizeof(name))
			return false;
		else
			name[k++] = *open;
	name[k] = '\0';
	if (open == end) {
		if (k == 0)
			return false;
		if (o->n < o->max)
			strlcpy_(o->v[o->n++], name, sizeof(*o->v));
		return true;
	}
	close = memchr(open, ']', (size_t)(end - open));
	if (close == NULL)
		return false;
	for (item = open + 1; o->n < o->max; item = stop + 1) {
		stop = memchr(item, ',', (size_t)(close - item));
		if (stop == NULL)
			stop = close;
		dash = memchr(item, '-', (size_t)(stop - item));
		if (!hostlist_number(item, dash != NULL ? dash : stop, &lo, &wl))
			return false;
		hi = lo;
		if (dash != NULL && (!hostlist_number(dash + 1, stop, &hi, &wh) || hi < lo))
			return false;
		for (v = lo; v <= hi && o->n < o->max; v++)
			if (!hostlist_value(o, name, v, wl, close + 1, end))
				return false;
		if (stop == close)
			break;
	}
	return true;
}

int
slurm_hostlist_expand(const char *list, char (*out)[SLURM_HOST_MAX], int max)
{
	struct hostlist_out o = { out, 0, max };
	const char *p = list, *q;
	int depth;

	if (list == NULL || max <= 0)
		return 0;
	while (*p != '\0' && o.n < max) {
		/* One pattern: up to a comma outside brackets. */
		for (q = p, depth = 0; *q != '\0' && (*q != ',' || depth > 0); q++)
			if (*q == '[')
				depth++;
			else if (*q == ']' && --depth < 0)
				return -1;
		if (depth != 0 || !hostlist_pattern(&o, "", p, q))
			return -1;
		p = *q == ',' ? q + 1 : q;
		if (*q == ',' && *p == '\0')
			return -1;
	}
	return o.n;
}

/* One element of /jobs onto j; false when it is no job (not an object, no job_id). */
static bool
job_from_json(const cJSON *it, struct slurm_job *j)
{
	char tres[256], st[64], *plus;
	struct slurm_gres g[SLURM_GRES_MAX];
	size_t ng;
	const cJSON *detail, *v;

	memset(j, 0, sizeof(*j));
	if (!cJSON_IsObject(it))
		return false;
	j->id = num_at(it, "job_id", -1);
	if (j->id < 0)
		return false;
	str_at(it, "name", j->name, sizeof(j->name));
	state_at(it, "job_state", st, sizeof(st));
	if ((plus = strchr(st, '+')) != NULL)
		*plus = '\0';
	for (size_t i = 0; st[i] != '\0'; i++)
		st[i] = (char)toupper((unsigned char)st[i]);
	strlcpy_(j->state, st, sizeof(j->state));
	str_at(it, "state_reason", j->reason, sizeof(j->reason));
	str_at(it, "partition", j->partition, sizeof(j->partition));
	/* Whole: a list of a thousand nodes Slurm cannot fold into ranges is kilobytes. */
	v = member(it, "nodes");
	if (cJSON_IsString(v) && v->valuestring != NULL && v->valuestring[0] != '\0') {
		size_t n = strlen(v->valuestring) + 1;

		j->nodes = text_sanitize(xmalloc(n), n, v->valuestring);
	}
	str_at(it, "batch_host", j->first_node, sizeof(j->first_node));
	if (j->first_node[0] == '\0' && j->nodes != NULL)
		slurm_hostlist_first(j->nodes, j->first_node, sizeof(j->first_node));
	str_at(it, "user_name", j->user, sizeof(j->user));
	str_at(it, "comment", j->comment, sizeof(j->comment));
	j->node_count = (int)num_at(it, "node_count", 0);
	j->submit_time = num_at(it, "submit_time", 0);
	j->start_time = num_at(it, "start_time", 0);
	j->end_time = num_at(it, "end_time", 0);
	j->time_limit_min = num_at(it, "time_limit", -1);
	j->exit_code = exit_code_at(it);
	/* What the job asks per node; v0.0.38 says it in tres_per_node too. */
	str_at(it, "tres_per_node", tres, sizeof(tres));
	ng = slurm_gres_gpus(tres, g, SLURM_GRES_MAX);
	if (ng == 0) {
		detail = member(it, "gres_detail");
		if (cJSON_IsArray(detail) && cJSON_IsString(cJSON_GetArrayItem(detail, 0))) {
			const char *d = cJSON_GetArrayItem(detail, 0)->valuestring;

			ng = d != NULL ? slurm_gres_gpus(d, g, SLURM_GRES_MAX) : 0;
		}
	}
	if (ng > 0)
		j->gpus = g[0];
	return true;
}

enum gr_err
slurm_parse_jobs(const char *body, size_t len, struct slurm_job **out, size_t *n,
    struct gr_error *err)
{
	return parse_whole(SLURM_JOBS, body, len, (void **)out, n, err);
}

enum gr_err
slurm_parse_submit(const char *body, size_t len, long long *job_id, struct gr_error *err)
{
	cJSON *root;
	enum gr_err e = bj_parse(P, body, len, &root, err);

	if (e != GR_OK)
		return e;
	if (!slurm_num(member(root, "job_id"), job_id) || *job_id < 0)
		e = gr_fail(err, GR_EUNAVAIL, "malformed reply from slurm (no job_id)");
	cJSON_Delete(root);
	return e;
}

void
slurm_offer_gpu(struct offer *o, const struct gpu_model *m)
{
	o->gpu = m;
	o->vram_gb = m != NULL ? m->vram_gb : 0;
	if (o->vram_gb > 0)
		o->valid |= OV_VRAM;
	else
		o->valid &= ~OV_VRAM;
}

static bool
in_partition(const struct slurm_node *nd, const char *part)
{
	char key[72];

	snprintf(key, sizeof(key), ",%s,", part);
	return strstr(nd->partitions, key) != NULL;
}

static bool
job_in_partition(const struct slurm_job *j, const char *part)
{
	char list[72], key[72];

	/* A pending job may name several partitions: "gpu,short". */
	snprintf(list, sizeof(list), ",%s,", j->partition);
	snprintf(key, sizeof(key), ",%s,", part);
	return strstr(list, key) != NULL;
}

/* The pending jobs of partition part that ask for GPUs of type gpu_raw ("gpu": any). */
static int
pending_jobs(const struct slurm_job *jobs, size_t n_jobs, const char *part,
    const char *gpu_raw)
{
	const char *type = strcmp(gpu_raw, "gpu") == 0 ? "" : gpu_raw;
	size_t i;
	int n = 0;

	for (i = 0; i < n_jobs; i++)
		if (strcmp(jobs[i].state, "PENDING") == 0 && jobs[i].gpus.count > 0 &&
		    job_in_partition(&jobs[i], part) && (jobs[i].gpus.type[0] == '\0' ||
		    strcmp(jobs[i].gpus.type, type) == 0))
			n++;
	return n;
}

void
slurm_build_offers(const struct slurm_node *nodes, size_t n_nodes,
    const struct slurm_partition *parts, size_t n_parts, const struct slurm_job *jobs,
    size_t n_jobs, const char *cluster, slurm_price_fn price, void *ctx,
    struct offer_list *out)
{
	size_t p, i, g, k, first;
	int64_t rate;

	for (p = 0; p < n_parts; p++) {
		const struct slurm_partition *pt = &parts[p];

		if (!pt->up)
			continue;
		first = out->n;
		for (i = 0; i < n_nodes; i++) {
			const struct slurm_node *nd = &nodes[i];

			if (!nd->usable || !in_partition(nd, pt->name))
				continue;
			for (g = 0; g < nd->n_gres; g++) {
				const char *type = nd->gres[g].type;
				struct offer *o = NULL;
				int have, used;

				if (!gres_type_counts(nd, g, &have, &used))
					continue;
				for (k = first; k < out->n; k++)
					if (strcmp(out->v[k].gpu_raw, type[0] ? type : "gpu") == 0)
						o = &out->v[k];
				if (o == NULL) {
					o = offer_list_add(out);
					snprintf(o->id, sizeof(o->id), "slurm:%.30s/%.26s", pt->name,
					    type[0] ? type : "gpu");
					strlcpy_(o->provider, "slurm", sizeof(o->provider));
					strlcpy_(o->gpu_raw, type[0] ? type : "gpu",
					    sizeof(o->gpu_raw));
					slurm_offer_gpu(o, catalogue_gpu_type(type));
					o->type = OFFER_ON_DEMAND;
					strlcpy_(o->region, pt->name, sizeof(o->region));
					if (cluster != NULL)
						text_sanitize(o->location, sizeof(o->location), cluster);
					if (pt->max_time_min >= 0) {
						o->time_limit_s = pt->max_time_min * 60;
						o->valid |= OV_TIME_LIMIT;
					}
					o->valid |= OV_AVAILABLE | OV_NODES | OV_QUEUE;
				}
				o->nodes++;
				if (have > o->gpu_count)
					o->gpu_count = have;
				if (have > used)
					o->available += have - used;
				if (nd->cpus > 0 && (!(o->valid & OV_CPU) || nd->cpus < o->cpu_cores)) {
					o->cpu_cores = nd->cpus;
					o->valid |= OV_CPU;
				}
				if (nd->memory_mb > 0 && (!(o->valid & OV_RAM) ||
				    nd->memory_mb / 1000 < o->ram_gb)) {
					o->ram_gb = (int)(nd->memory_mb / 1000);
					o->valid |= OV_RAM;
				}
			}
		}
		for (k = first; k < out->n; k++) {
			struct offer *o = &out->v[k];

			o->queued = pending_jobs(jobs, n_jobs, pt->name, o->gpu_raw);
			if (price != NULL && price(ctx, o->gpu_raw, &rate) && o->gpu_count > 0) {
				o->price_hour = rate * o->gpu_count;
				o->valid |= OV_PRICE;
			}
		}
	}
}

static const struct bj_state job_states[] = {
	{ "PENDING", ST_PROVISIONING }, { "CONFIGURING", ST_PROVISIONING },
	{ "REQUEUED", ST_PROVISIONING }, { "REQUEUE_HOLD", ST_PROVISIONING },
	{ "REQUEUE_FED", ST_PROVISIONING }, { "RESV_DEL_HOLD", ST_PROVISIONING },
	{ "RUNNING", ST_RUNNING }, { "RESIZING", ST_RUNNING }, { "SIGNALING", ST_RUNNING },
	{ "STAGE_OUT", ST_DESTROYING }, { "COMPLETING", ST_DESTROYING },
	{ "SUSPENDED", ST_STOPPED }, { "STOPPED", ST_STOPPED },
	{ "COMPLETED", ST_DESTROYED }, { "CANCELLED", ST_DESTROYED }, { "TIMEOUT", ST_DESTROYED },
	{ "DEADLINE", ST_DESTROYED }, { "PREEMPTED", ST_DESTROYED }, { "REVOKED", ST_DESTROYED },
	{ "FAILED", ST_FAILED }, { "NODE_FAIL", ST_FAILED }, { "BOOT_FAIL", ST_FAILED },
	{ "OUT_OF_MEMORY", ST_FAILED },
};

void
slurm_job_to_instance(const struct slurm_job *j, struct instance *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->id, sizeof(out->id), "slurm:%lld", j->id);
	strlcpy_(out->provider, "slurm", sizeof(out->provider));
	out->state = bj_state_of(job_states, ARRAY_LEN(job_states), j->state);
	strlcpy_(out->label, j->name, sizeof(out->label));
	strlcpy_(out->region, j->partition, sizeof(out->region));
	if (j->gpus.count > 0) {
		const char *type = j->gpus.type[0] ? j->gpus.type : "gpu";

		strlcpy_(out->gpu_raw, type, sizeof(out->gpu_raw));
		out->gpu = catalogue_gpu_type(j->gpus.type);
		out->gpu_count = j->gpus.count * (j->node_count > 0 ? j->node_count : 1);
		snprintf(out->offer_id, sizeof(out->offer_id), "slurm:%.30s/%.26s", j->partition,
		    type);
	}
	out->type = OFFER_ON_DEMAND;
	if (j->submit_time > 0) {
		out->created_at = j->submit_time;
		out->valid |= IV_CREATED;
	}
	if (out->state == ST_RUNNING && j->start_time > 0)
		out->state_since = j->start_time;
	else if (out->state == ST_PROVISIONING)
		out->state_since = j->submit_time;
	else if ((out->state == ST_DESTROYED || out->state == ST_FAILED) && j->end_time > 0)
		out->state_since = j->end_time;
	if (j->reason[0] != '\0' && strcmp(j->reason, "None") != 0)
		snprintf(out->status_msg, sizeof(out->status_msg), "%s (%.60s)", j->state,
		    j->reason);
	else
		strlcpy_(out->status_msg, j->state, sizeof(out->status_msg));
	if ((out->state == ST_DESTROYED || out->state == ST_FAILED) && j->exit_code >= 0) {
		out->exit_code = j->exit_code;
		out->valid |= IV_EXIT;
	}
}

/* A state squeue shows by default: the job still waits, runs or is being cleaned up. */
static bool
job_live(const char *state)
{
	enum inst_state st = bj_state_of(job_states, ARRAY_LEN(job_states), state);

	return st != ST_UNKNOWN && st != ST_DESTROYED && st != ST_FAILED;
}

static bool
pool_matches(const struct cluster_pool *p, const char *part, const char *type)
{
	return strcmp(p->partition, part) == 0 && strcmp(p->gpu_raw, type[0] ? type : "gpu") == 0;
}

void
slurm_build_cluster(const struct slurm_node *nodes, size_t n_nodes,
    const struct slurm_partition *parts, size_t n_parts, const struct slurm_job *jobs,
    size_t n_jobs, const char *user, struct cluster_state *out)
{
	size_t p, i, g, k, first;

	for (p = 0; p < n_parts; p++) {
		const struct slurm_partition *pt = &parts[p];

		first = out->n_pools;
		for (i = 0; i < n_nodes; i++) {
			const struct slurm_node *nd = &nodes[i];

			if (!in_partition(nd, pt->name))
				continue;
			for (g = 0; g < nd->n_gres; g++) {
				const char *type = nd->gres[g].type;
				struct cluster_pool *cp = NULL;
				int have, used;

				if (!gres_type_counts(nd, g, &have, &used))
					continue;
				for (k = first; k < out->n_pools && cp == NULL; k++)
					if (pool_matches(&out->pools[k], pt->name, type))
						cp = &out->pools[k];
				if (cp == NULL) {
					cp = cluster_pool_add(out);
					strlcpy_(cp->partition, pt->name, sizeof(cp->partition));
					strlcpy_(cp->gpu_raw, type[0] ? type : "gpu",
					    sizeof(cp->gpu_raw));
				}
				if (used > have)
					used = have;
				if (used < 0)
					used = 0;
				cp->nodes++;
				cp->total += have;
				cp->used += used;
				if (nd->usable && pt->up)
					cp->free += have - used;
			}
		}
		for (k = first; k < out->n_pools; k++) {
			struct cluster_pool *cp = &out->pools[k];

			cp->pending = pending_jobs(jobs, n_jobs, pt->name, cp->gpu_raw);
		}
	}
	for (i = 0; i < n_jobs; i++) {
		const struct slurm_job *j = &jobs[i];
		struct cluster_job *cj;

		if (user == NULL || strcmp(j->user, user) != 0 || !job_live(j->state))
			continue;
		cj = cluster_job_add(out);
		snprintf(cj->id, sizeof(cj->id), "slurm:%lld", j->id);
		strlcpy_(cj->name, j->name, sizeof(cj->name));
		strlcpy_(cj->state, j->state, sizeof(cj->state));
		if (strcmp(j->reason, "None") != 0)
			strlcpy_(cj->reason, j->reason, sizeof(cj->reason));
		strlcpy_(cj->partition, j->partition, sizeof(cj->partition));
		cj->nodes = j->node_count > 0 ? j->node_count : 1;
		if (j->gpus.count > 0) {
			strlcpy_(cj->gpu_raw, j->gpus.type[0] ? j->gpus.type : "gpu",
			    sizeof(cj->gpu_raw));
			cj->gpus = j->gpus.count * cj->nodes;
		}
		strlcpy_(cj->node_list, j->nodes != NULL ? j->nodes : "", sizeof(cj->node_list));
		cj->since = strcmp(j->state, "PENDING") == 0 || j->start_time <= 0 ?
		    j->submit_time : j->start_time;
	}
}

char *
slurm_build_submit(int api, const struct slurm_submit *s)
{
	cJSON *o = cJSON_CreateObject(), *job, *env;
	char gres[96], *doc;
	const char *type = s->gres_type != NULL ? s->gres_type : "";
	bool wrapped = slurm_api_minor(api) >= 39;
	size_t i;

	cJSON_AddStringToObject(o, "script", s->script);
	job = cJSON_AddObjectToObject(o, "job");
	cJSON_AddStringToObject(job, "name", s->name);
	if (s->partition != NULL && s->partition[0] != '\0')
		cJSON_AddStringToObject(job, "partition", s->partition);
	if (s->output != NULL) {
		cJSON_AddStringToObject(job, "standard_output", s->output);
		cJSON_AddStringToObject(job, "standard_error", s->output);
	}
	if (s->comment != NULL)
		cJSON_AddStringToObject(job, "comment", s->comment);
	if (s->gpus_per_node > 0) {
		if (wrapped) {
			/* Slurm 23+: the GRES is a TRES per node. */
			snprintf(gres, sizeof(gres), "gres/gpu%s%s:%d", type[0] ? ":" : "", type,
			    s->gpus_per_node);
			cJSON_AddStringToObject(job, "tres_per_node", gres);
		} else {
			snprintf(gres, sizeof(gres), "gpu%s%s:%d", type[0] ? ":" : "", type,
			    s->gpus_per_node);
			cJSON_AddStringToObject(job, "gres", gres);
		}
	}
	if (s->nodes > 0) {
		if (wrapped)
			cJSON_AddStringToObject(job, "nodes", (snprintf(gres, sizeof(gres), "%d",
			    s->nodes), gres));
		else
			cJSON_AddNumberToObject(job, "nodes", s->nodes);
	}
	if (s->time_limit_min > 0) {
		if (wrapped) {
			cJSON *t = cJSON_AddObjectToObject(job, "time_limit");

			cJSON_AddBoolToObject(t, "set", true);
			cJSON_AddBoolToObject(t, "infinite", false);
			cJSON_AddNumberToObject(t, "number", (double)s->time_limit_min);
		} else
			cJSON_AddNumberToObject(job, "time_limit", (double)s->time_limit_min);
	}
	cJSON_AddStringToObject(job, "current_working_directory", s->cwd);
	/* v0.0.38 takes an object of variables; v0.0.39 on an array of "K=V". */
	env = wrapped ? cJSON_AddArrayToObject(job, "environment") :
	    cJSON_AddObjectToObject(job, "environment");
	for (i = 0; s->env != NULL && s->env[i] != NULL; i++) {
		const char *eq = strchr(s->env[i], '=');
		char k[128];

		if (eq == NULL || eq == s->env[i] || (size_t)(eq - s->env[i]) >= sizeof(k))
			continue;
		if (wrapped) {
			cJSON_AddItemToArray(env, cJSON_CreateString(s->env[i]));
		} else {
			memcpy(k, s->env[i], (size_t)(eq - s->env[i]));
			k[eq - s->env[i]] = '\0';
			cJSON_DeleteItemFromObjectCaseSensitive(env, k);
			cJSON_AddStringToObject(env, k, eq + 1);
		}
	}
	if (wrapped)
		cJSON_AddItemToArray(env, cJSON_CreateString("PATH=/usr/local/bin:/usr/bin:/bin"));
	else if (cJSON_GetObjectItemCaseSensitive(env, "PATH") == NULL)
		cJSON_AddStringToObject(env, "PATH", "/usr/local/bin:/usr/bin:/bin");
	doc = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return doc;
}

/* base64url without padding into out; -1 when not base64url. */
static long
b64url_decode(const char *s, size_t len, unsigned char *out, size_t cap)
{
	unsigned v = 0;
	int bits = 0;
	size_t i, n = 0;
	int d;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			d = c - 'A';
		else if (c >= 'a' && c <= 'z')
			d = c - 'a' + 26;
		else if (c >= '0' && c <= '9')
			d = c - '0' + 52;
		else if (c == '-' || c == '+')
			d = 62;
		else if (c == '_' || c == '/')
			d = 63;
		else if (c == '=')
			break;
		else
			return -1;
		v = (v << 6) | (unsigned)d;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n == cap)
				return -1;
			out[n++] = (unsigned char)((v >> bits) & 0xff);
		}
	}
	return (long)n;
}

bool
slurm_jwt_expiry(const char *token, int64_t *exp)
{
	const char *a, *b;
	unsigned char buf[2048];
	long n;
	cJSON *j;
	long long v;
	bool ok;

	if (token == NULL || (a = strchr(token, '.')) == NULL || (b = strchr(a + 1, '.')) == NULL)
		return false;
	n = b64url_decode(a + 1, (size_t)(b - a - 1), buf, sizeof(buf));
	if (n <= 0)
		return false;
	j = cJSON_ParseWithLength((const char *)buf, (size_t)n);
	ok = slurm_num(member(j, "exp"), &v);
	cJSON_Delete(j);
	if (ok)
		*exp = (int64_t)v;
	return ok;
}
