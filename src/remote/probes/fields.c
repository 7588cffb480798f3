/*
 * fields.c - reading what the vendor tools print (fields.h).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpurent/util.h"

#include "fields.h"

/* No tool prints a longer line; a bounded line bounds every scan of it. */
#define LINE_MAX_BYTES 4096

struct pf_span
pf_span(const char *p, size_t n)
{
	struct pf_span s = { p, n };

	return s;
}

static bool
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

struct pf_span
pf_trim(struct pf_span s)
{
	while (s.n > 0 && blank(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n > 0 && blank(s.p[s.n - 1]))
		s.n--;
	return s;
}

bool
pf_starts(struct pf_span s, const char *t)
{
	size_t i, n = strlen(t);

	if (s.n < n)
		return false;
	for (i = 0; i < n; i++)
		if (lower(s.p[i]) != lower(t[i]))
			return false;
	return true;
}

bool
pf_eq(struct pf_span s, const char *t)
{
	return s.n == strlen(t) && pf_starts(s, t);
}

long
pf_find(struct pf_span s, const char *t)
{
	size_t i, n = strlen(t);

	if (n == 0 || s.n < n)
		return -1;
	for (i = 0; i + n <= s.n; i++)
		if (memcmp(s.p + i, t, n) == 0)
			return (long)i;
	return -1;
}

bool
pf_line(struct pf_span *rest, struct pf_span *line)
{
	const char *nl;

	if (rest->n == 0)
		return false;
	nl = memchr(rest->p, '\n', rest->n);
	line->p = rest->p;
	line->n = nl ? (size_t)(nl - rest->p) : rest->n;
	rest->p += line->n + (nl ? 1 : 0);
	rest->n -= line->n + (nl ? 1 : 0);
	if (line->n > LINE_MAX_BYTES)
		line->n = LINE_MAX_BYTES;
	return true;
}

struct pf_span
pf_whole_lines(struct pf_span t)
{
	while (t.n > 0 && t.p[t.n - 1] != '\n')
		t.n--;
	return t;
}

bool
pf_kv(struct pf_span line, char sep, struct pf_span *key, struct pf_span *val)
{
	const char *c = memchr(line.p, sep, line.n);

	if (c == NULL)
		return false;
	*key = pf_trim(pf_span(line.p, (size_t)(c - line.p)));
	*val = pf_trim(pf_span(c + 1, line.n - (size_t)(c - line.p) - 1));
	return key->n > 0;
}

bool
pf_field(struct pf_span *rest, const char *sep, struct pf_span *field)
{
	long at;
	size_t sl = strlen(sep);

	if (rest->p == NULL)
		return false;
	at = pf_find(*rest, sep);
	if (at < 0) {
		*field = pf_trim(*rest);
		rest->p = NULL;
		rest->n = 0;
		return true;
	}
	*field = pf_trim(pf_span(rest->p, (size_t)at));
	rest->p += (size_t)at + sl;
	rest->n -= (size_t)at + sl;
	return true;
}

bool
pf_word(struct pf_span *rest, struct pf_span *w)
{
	*rest = pf_trim(*rest);
	if (rest->n == 0)
		return false;
	w->p = rest->p;
	for (w->n = 0; w->n < rest->n && !blank(rest->p[w->n]); w->n++)
		;
	rest->p += w->n;
	rest->n -= w->n;
	return true;
}

size_t
pf_cells(struct pf_span line, struct pf_span *c, size_t max)
{
	struct pf_span r;
	size_t n = 0;

	line = pf_trim(line);
	if (line.n < 2 || line.p[0] != '|' || line.p[line.n - 1] != '|')
		return 0;
	r = pf_span(line.p + 1, line.n - 2);
	while (r.p != NULL) {
		struct pf_span f;

		if (!pf_field(&r, "|", &f) || n == max)
			return 0;
		c[n++] = f;
	}
	return n;
}

bool
pf_unknown(struct pf_span v)
{
	static const char *const words[] = {
		"-", "--", "NA", "None", "null", "unknown", "Not Supported", "Unknown Error",
		"Not Available", "invalid",
	};
	size_t i;

	v = pf_trim(v);
	if (v.n == 0 || pf_starts(v, "N/A") || pf_starts(v, "[N/A"))
		return true;
	/* nvidia-smi's and its clones' bracketed messages: [Not Supported], [Unknown Error]. */
	if (v.p[0] == '[' && v.p[v.n - 1] == ']')
		return true;
	for (i = 0; i < ARRAY_LEN(words); i++)
		if (pf_eq(v, words[i]))
			return true;
	return false;
}

/* Whether u is one of the space-separated units (ignoring case). */
static bool
unit_ok(struct pf_span u, const char *units)
{
	const char *w = units;

	while (*w != '\0') {
		size_t n;

		while (*w == ' ')
			w++;
		n = strcspn(w, " ");
		if (n > 0 && n == u.n) {
			size_t i;

			for (i = 0; i < n && lower(u.p[i]) == lower(w[i]); i++)
				;
			if (i == n)
				return true;
		}
		w += n;
	}
	return false;
}

bool
pf_int(struct pf_span v, const char *units, int64_t min, int64_t max, int64_t *out)
{
	size_t i = 0, digits = 0;
	bool neg = false, up = false;
	int64_t x = 0;

	v = pf_trim(v);
	if (v.n == 0)
		return false;
	if (v.p[0] == '-' || v.p[0] == '+') {
		neg = v.p[0] == '-';
		i++;
	}
	for (; i < v.n && v.p[i] >= '0' && v.p[i] <= '9'; i++) {
		/* Fifteen digits keep every sum below in range; no tool prints more. */
		if (++digits > 15)
			return false;
		x = x * 10 + (v.p[i] - '0');
	}
	if (digits == 0)
		return false;
	if (i < v.n && (v.p[i] == '.' || v.p[i] == ',')) {
		size_t f = ++i;

		for (; i < v.n && v.p[i] >= '0' && v.p[i] <= '9'; i++)
			;
		if (i == f)
			return false;
		up = v.p[f] >= '5';
	}
	if (up)
		x++;
	if (neg)
		x = -x;
	/* What follows may only be a unit the caller allows. */
	if (i < v.n) {
		struct pf_span u = pf_trim(pf_span(v.p + i, v.n - i));

		if (u.n > 0 && !unit_ok(u, units))
			return false;
	}
	if (x < min || x > max)
		return false;
	*out = x;
	return true;
}

/*
 * A GPU at 0 °C is a sensor the tool could not read (npu-smi and hy-smi print 0 for one),
 * not a reading: temperatures start at 1.
 */
const struct pf_figure_def pf_figures[] = {
	[PF_UTIL] = { offsetof(struct gpu_sample, util_pct), MV_UTIL, "%", 0, 100 },
	[PF_MEM_UTIL] = { offsetof(struct gpu_sample, mem_util_pct), MV_MEM_UTIL, "%", 0, 100 },
	[PF_TEMP] = { offsetof(struct gpu_sample, temp_c), MV_TEMP, "C °C", 1, 150 },
	[PF_TEMP_MEM] = { offsetof(struct gpu_sample, temp_mem_c), MV_TEMP_MEM, "C °C", 1, 150 },
	[PF_POWER] = { offsetof(struct gpu_sample, power_w), MV_POWER, "W", 0, 5000 },
	[PF_POWER_LIMIT] = { offsetof(struct gpu_sample, power_limit_w), MV_POWER_LIMIT, "W", 1,
	    5000 },
	[PF_CLK_SM] = { offsetof(struct gpu_sample, clk_sm_mhz), MV_CLK_SM, "MHz", 1, 10000 },
	[PF_CLK_MEM] = { offsetof(struct gpu_sample, clk_mem_mhz), MV_CLK_MEM, "MHz", 1, 50000 },
	[PF_FAN] = { offsetof(struct gpu_sample, fan_pct), MV_FAN, "%", 0, 100 },
};

void
pf_set_def(struct gpu_sample *s, const struct pf_figure_def *d, struct pf_span v)
{
	int64_t x;

	if (pf_int(v, d->units, d->min, d->max, &x)) {
		*(int *)(void *)((char *)s + d->member) = (int)x;
		s->valid |= d->bit;
	}
}

void
pf_set(struct gpu_sample *s, enum pf_figure f, struct pf_span v)
{
	pf_set_def(s, &pf_figures[f], v);
}

/* 16 TiB per device: far above any card, far below int overflow. */
#define MIB_MAX (16LL * 1024 * 1024)

void
pf_set_mem(struct gpu_sample *s, int64_t used_mib, int64_t total_mib)
{
	if (used_mib < 0 || total_mib <= 0 || total_mib > MIB_MAX || used_mib > total_mib)
		return;
	s->mem_used_mib = (int)used_mib;
	s->mem_total_mib = (int)total_mib;
	s->valid |= MV_MEM;
}

int64_t
pf_mib(struct pf_span v, const char *units)
{
	int64_t x;

	return pf_int(v, units, 0, MIB_MAX, &x) ? x : -1;
}

int64_t
pf_bytes_to_mib(struct pf_span v)
{
	int64_t x;

	if (!pf_int(v, "B", 0, MIB_MAX * 1024 * 1024, &x))
		return -1;
	return (x + 512 * 1024) / (1024 * 1024);
}

void
pf_text(char *dst, size_t n, struct pf_span v)
{
	char buf[256];
	size_t i, o = 0;

	if (n == 0)
		return;
	dst[0] = '\0';
	v = pf_trim(v);
	if (pf_unknown(v))
		return;
	for (i = 0; i < v.n && o + 1 < sizeof(buf); i++)
		if (v.p[i] != '\0')
			buf[o++] = v.p[i];
	buf[o] = '\0';
	text_sanitize(dst, n, buf);
	/* What stripping left at the ends (a tab turned space) is not part of a name. */
	o = strlen(dst);
	while (o > 0 && dst[o - 1] == ' ')
		dst[--o] = '\0';
	for (i = 0; dst[i] == ' '; i++)
		;
	if (i > 0)
		memmove(dst, dst + i, o - i + 1);
}

struct gpu_sample *
pf_device(struct sample_list *out, size_t first, int index)
{
	struct gpu_sample *s;
	size_t i;

	for (i = first; i < out->n; i++)
		if (out->v[i].index == index)
			return &out->v[i];
	if (out->n - first >= PF_MAX_DEVICES)
		return NULL;
	s = sample_list_add(out);
	s->index = index;
	return s;
}

static int
by_index(const void *a, const void *b)
{
	const struct gpu_sample *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

enum gr_err
pf_finish(struct sample_list *out, size_t first, const char *tool, struct gr_error *err)
{
	/*
	 * A device the tool listed counts even when it knows none of its figures: a GPU whose
	 * every field reads N/A is still a GPU the instance has (and that `verify` must count).
	 */
	if (out->n == first)
		return gr_fail(err, PF_BAD, "no device in %s output", tool);
	qsort(out->v + first, out->n - first, sizeof(out->v[0]), by_index);
	return GR_OK;
}

enum gr_err
pf_json_devices(cJSON *j, const cJSON *list, pf_json_device_fn device, struct sample_list *out,
    size_t first, const char *tool, struct gr_error *err)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, list) {
		if (cJSON_IsObject(d))
			device(d, out, first);
	}
	cJSON_Delete(j);
	return pf_finish(out, first, tool, err);
}

/*
 * Index just past the JSON string whose opening quote is at i, or 0 when it does not end
 * within its line or LINE_MAX_BYTES: no key or value is longer, and the bound keeps a line of
 * escaped quotes from being rescanned from each of them to its end.
 */
static size_t
string_end(struct pf_span t, size_t i)
{
	size_t end = t.n - i > LINE_MAX_BYTES ? i + LINE_MAX_BYTES : t.n;

	for (i++; i < end; i++) {
		if (t.p[i] == '\\')
			i++;
		else if (t.p[i] == '"')
			return i + 1;
		else if (t.p[i] == '\n')
			return 0;
	}
	return 0;
}

static size_t
skip_blank(struct pf_span t, size_t i)
{
	while (i < t.n && blank(t.p[i]))
		i++;
	return i;
}

/* Index past the object or array opening at i (strings honoured), or t.n. */
static size_t
skip_nested(struct pf_span t, size_t i)
{
	int depth = 0;

	for (; i < t.n; i++) {
		char c = t.p[i];

		if (c == '"') {
			size_t e = string_end(t, i);

			if (e == 0)
				return t.n;
			i = e - 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth == 0)
				return i + 1;
		}
	}
	return t.n;
}

/* "card12" -> 12, "system" -> -1; -2 for any other name. */
static int
card_of(struct pf_span name)
{
	size_t i;
	int n = 0;

	if (pf_eq(name, "system"))
		return -1;
	if (name.n < 5 || name.n > 8 || memcmp(name.p, "card", 4) != 0)
		return -2;
	for (i = 4; i < name.n; i++) {
		if (name.p[i] < '0' || name.p[i] > '9')
			return -2;
		n = n * 10 + (name.p[i] - '0');
	}
	return n;
}

/* The members of the object whose '{' is at i; returns the index where scanning resumes. */
static size_t
members(struct pf_span t, size_t i, int card, pf_member_fn fn, void *ctx)
{
	for (i++; i < t.n;) {
		struct pf_span key, val;
		size_t e;

		while (i < t.n && (blank(t.p[i]) || t.p[i] == ','))
			i++;
		if (i >= t.n || t.p[i] == '}')
			return i + 1;
		if (t.p[i] != '"' || (e = string_end(t, i)) == 0)
			return i;
		key = pf_span(t.p + i + 1, e - i - 2);
		i = skip_blank(t, e);
		if (i >= t.n || t.p[i] != ':')
			return i;
		i = skip_blank(t, i + 1);
		if (i >= t.n)
			return i;
		if (t.p[i] == '"') {
			if ((e = string_end(t, i)) == 0)
				return i;
			val = pf_span(t.p + i + 1, e - i - 2);
			i = e;
		} else if (t.p[i] == '{' || t.p[i] == '[') {
			i = skip_nested(t, i);
			continue;
		} else {
			/* hy-smi's bare values: 38.0W, 0.0 */
			e = i;
			while (e < t.n && t.p[e] != ',' && t.p[e] != '}' && t.p[e] != '\n' &&
			    t.p[e] != '"')
				e++;
			val = pf_trim(pf_span(t.p + i, e - i));
			/* Unterminated at the end of the text: cut off, maybe mid-number. */
			if (val.n == 0 || e == t.n)
				return e;
			i = e;
		}
		fn(card, key, val, ctx);
	}
	return i;
}

int
pf_cards(struct pf_span t, pf_member_fn fn, void *ctx)
{
	size_t i = 0;
	int cards = 0;

	while (i < t.n) {
		const char *q = memchr(t.p + i, '"', t.n - i);
		size_t at, e, j;
		int card;

		if (q == NULL)
			break;
		at = (size_t)(q - t.p);
		if ((e = string_end(t, at)) == 0) {
			/* No string ends on this line: nothing after this quote on it is one. */
			const char *nl = memchr(t.p + at, '\n', t.n - at);

			i = nl ? (size_t)(nl - t.p) + 1 : t.n;
			continue;
		}
		j = skip_blank(t, e);
		if (j >= t.n || t.p[j] != ':') {
			i = e;
			continue;
		}
		j = skip_blank(t, j + 1);
		if (j >= t.n || t.p[j] != '{') {
			i = j;
			continue;
		}
		card = card_of(pf_span(t.p + at + 1, e - at - 2));
		if (card == -2) {
			/* A wrapper object: look inside it. */
			i = j + 1;
			continue;
		}
		if (card >= 0)
			cards++;
		i = members(t, j, card, fn, ctx);
	}
	return cards;
}

struct pf_span
pf_json_figure(const cJSON *obj, const char *a, const char *b, const char *unit, char *buf,
    size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, a);

	if (b != NULL)
		v = cJSON_GetObjectItemCaseSensitive(v, b);
	if (unit != NULL && cJSON_IsObject(v)) {
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(v, "unit");

		if (u != NULL && !(cJSON_IsString(u) && strcmp(u->valuestring, unit) == 0))
			return pf_span("", 0);
		v = cJSON_GetObjectItemCaseSensitive(v, "value");
	}
	if (cJSON_IsString(v) && v->valuestring != NULL)
		return pf_span(v->valuestring, strlen(v->valuestring));
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && fabs(v->valuedouble) < 1e15) {
		snprintf(buf, n, "%.3f", v->valuedouble);
		return pf_span(buf, strlen(buf));
	}
	return pf_span("", 0);
}
