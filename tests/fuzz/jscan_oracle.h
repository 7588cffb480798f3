/*
 * jscan_oracle.h - the streaming scanner (src/backends/jscan.c) against one whole-body
 * cJSON_ParseWithLength, for the unit test and the fuzzer.
 *
 * jscan_agrees(body, len, cuts, ncuts) feeds the body in pieces cut at the given offsets
 * and checks that the scanner accepts exactly what cJSON accepts whole, finds the array
 * exactly when cJSON does, and hands over the same elements in the same order.
 */
#ifndef GPURENT_TESTS_JSCAN_ORACLE_H
#define GPURENT_TESTS_JSCAN_ORACLE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpurent/backends_parse.h"

struct oracle_got {
	char **v;
	size_t n, cap;
};

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
	g->v[g->n++] = cJSON_PrintUnformatted(e);
	return true;
}

/* Members of a parsed object that cJSON would find under "offers". */
static int
oracle_offers_members(const cJSON *j)
{
	const cJSON *m;
	int n = 0;

	if (!cJSON_IsObject(j))
		return 0;
	for (m = j->child; m != NULL; m = m->next)
		n += m->string != NULL && strcmp(m->string, "offers") == 0;
	return n;
}

static bool
jscan_agrees(const char *b, size_t len, const size_t *cuts, size_t ncuts)
{
	struct oracle_got got = { 0 };
	struct jscan *s = jscan_new("offers", oracle_collect, &got);
	cJSON *whole = len > 0 ? cJSON_ParseWithLength(b, len) : NULL;
	cJSON *skel = NULL, *arr, *e;
	enum jscan_end end, want;
	size_t i, from = 0;
	bool ok = true;

	for (i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : len;

		if (to < from || to > len)
			continue;
		if (!jscan_feed(s, b + from, to - from))
			break;
		from = to;
	}
	end = jscan_finish(s, &skel);
	arr = cJSON_GetObjectItemCaseSensitive(whole, "offers");
	if (len == 0)
		want = JSCAN_EMPTY;
	else if (whole == NULL)
		want = JSCAN_MALFORMED;
	else
		want = cJSON_IsArray(arr) ? JSCAN_OK : JSCAN_NO_ARRAY;
	if (oracle_offers_members(whole) > 1 && want == JSCAN_OK)
		ok = end == JSCAN_OK || end == JSCAN_NO_ARRAY;	/* an escaped duplicate */
	else
		ok = end == want;
	if (ok && end == JSCAN_OK && oracle_offers_members(whole) == 1) {
		i = 0;
		cJSON_ArrayForEach(e, arr) {
			char *t = cJSON_PrintUnformatted(e);

			ok = ok && i < got.n && strcmp(t, got.v[i]) == 0;
			free(t);
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
	return ok;
}

#endif
