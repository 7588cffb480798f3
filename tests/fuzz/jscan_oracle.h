/*
 * jscan_oracle.h - the streaming scanner (src/backends/jscan.c) against one whole-body
 * cJSON_ParseWithLength, for the unit test and the fuzzer.
 *
 * jscan_agrees_at(path, members, body, len, cuts, ncuts) feeds the body in pieces cut at the
 * given offsets and checks that the scanner accepts exactly what cJSON accepts whole, finds
 * the container exactly when cJSON does, and hands over the same elements (for an object's
 * members, the same names too) in the same order. jscan_agrees is the array "offers".
 * jscan_agrees_picking does the same with members picked by name (jscan_pick, jpick.c).
 */
#ifndef GPURENT_TESTS_JSCAN_ORACLE_H
#define GPURENT_TESTS_JSCAN_ORACLE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "backends_parse.h"

struct oracle_got {
	char **v;
	size_t n, cap;
};

/* An element as text; a member as its name, a NUL-free separator and its value. */
static char *
oracle_print(const cJSON *e)
{
	char *v = cJSON_PrintUnformatted(e), *t;
	size_t n;

	if (e->string == NULL || v == NULL)
		return v;
	n = strlen(e->string) + strlen(v) + 2;
	t = malloc(n);
	if (t == NULL)
		abort();
	strcpy(t, e->string);
	strcat(t, "\x01");
	strcat(t, v);
	free(v);
	return t;
}

static bool
oracle_collect(const cJSON *e, void *ctx)
{
	struct oracle_got *g = ctx;

	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 16;
		g->v = realloc(g->v, g->cap * sizeof(*g->v));
		if (g->v == NULL)
			abort();
	}
	g->v[g->n++] = oracle_print(e);
	return true;
}

/*
 * Follow the path through a parsed reply as cJSON_GetObjectItemCaseSensitive does (the
 * first member of each name); *dups is set when some step has more than one member of its
 * name (then an escaped one may hide the one streamed).
 */
static cJSON *
oracle_follow(cJSON *j, const char *const *path, bool *dups)
{
	const cJSON *m;
	int n;

	*dups = false;
	for (; *path != NULL && j != NULL; path++) {
		if (!cJSON_IsObject(j))
			return NULL;
		n = 0;
		for (m = j->child; m != NULL; m = m->next)
			n += m->string != NULL && strcmp(m->string, *path) == 0;
		if (n > 1)
			*dups = true;
		j = cJSON_GetObjectItemCaseSensitive(j, *path);
	}
	return j;
}

/*
 * What jscan_pick promises of an element, built without jpick: an object keeps the first
 * member of each of the names, in their order; anything else comes as it is.
 */
static cJSON *
oracle_picked(const cJSON *e, const char *const *names)
{
	const cJSON *m, *q;
	cJSON *o;

	if (!cJSON_IsObject(e))
		return cJSON_Duplicate(e, true);
	o = cJSON_CreateObject();
	cJSON_ArrayForEach(m, e) {
		bool named = false, earlier = false;
		size_t i;

		for (i = 0; names[i] != NULL; i++)
			named = named || strcmp(names[i], m->string) == 0;
		for (q = e->child; q != m; q = q->next)
			earlier = earlier || strcmp(q->string, m->string) == 0;
		if (named && !earlier)
			cJSON_AddItemToObject(o, m->string, cJSON_Duplicate(m, true));
	}
	return o;
}

/*
 * The scanner against the whole-body parse; names, when not NULL, are picked (jscan_pick)
 * and each element is compared with what oracle_picked keeps of it.
 */
static bool
jscan_agrees_picking(const char *const *path, bool members, const char *const *names,
    const char *b, size_t len, const size_t *cuts, size_t ncuts)
{
	struct oracle_got got = { 0 };
	struct jscan *s = jscan_new_path(path, members, oracle_collect, &got);
	struct jpick *k = names != NULL ? jpick_new(names) : NULL;
	cJSON *whole = len > 0 ? cJSON_ParseWithLength(b, len) : NULL;
	cJSON *skel = NULL, *arr, *e;
	enum jscan_end end, want;
	size_t i, from = 0;
	bool ok = true, dups;

	if (k != NULL)
		jscan_pick(s, k);
	for (i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : len;

		if (to < from || to > len)
			continue;
		if (!jscan_feed(s, b + from, to - from))
			break;
		from = to;
	}
	end = jscan_finish(s, &skel);
	arr = oracle_follow(whole, path, &dups);
	if (len == 0)
		want = JSCAN_EMPTY;
	else if (whole == NULL)
		want = JSCAN_MALFORMED;
	else
		want = (members ? cJSON_IsObject(arr) : cJSON_IsArray(arr)) ? JSCAN_OK :
		    JSCAN_NO_ARRAY;
	if (dups && want == JSCAN_OK)
		ok = end == JSCAN_OK || end == JSCAN_NO_ARRAY;	/* an escaped duplicate */
	else
		ok = end == want;
	if (ok && end == JSCAN_OK && !dups) {
		i = 0;
		cJSON_ArrayForEach(e, arr) {
			cJSON *want_e = names != NULL ? oracle_picked(e, names) : NULL;
			char *t = oracle_print(want_e != NULL ? want_e : e);

			ok = ok && i < got.n && strcmp(t, got.v[i]) == 0;
			free(t);
			cJSON_Delete(want_e);
			i++;
		}
		ok = ok && i == got.n;
	}
	for (i = 0; i < got.n; i++)
		free(got.v[i]);
	free(got.v);
	cJSON_Delete(skel);
	cJSON_Delete(whole);
	jscan_free(s);
	jpick_free(k);
	return ok;
}

static bool
jscan_agrees_at(const char *const *path, bool members, const char *b, size_t len,
    const size_t *cuts, size_t ncuts)
{
	return jscan_agrees_picking(path, members, NULL, b, len, cuts, ncuts);
}

static bool
jscan_agrees(const char *b, size_t len, const size_t *cuts, size_t ncuts)
{
	static const char *const offers[] = { "offers", NULL };

	return jscan_agrees_at(offers, false, b, len, cuts, ncuts);
}

#endif
