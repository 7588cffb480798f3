/*
 * jscan.c - find the elements of one array member of a JSON reply as its bytes arrive.
 *
 * The scanner does not parse JSON: it tracks strings (and their escapes) and the nesting of
 * brackets, which is all it takes to see where each element of the array begins and ends.
 * Each element is handed over whole, to be parsed with cJSON on its own; everything else of
 * the reply (the "skeleton", with the array left empty) is kept and parsed once at the end.
 * The reply is valid JSON exactly when the skeleton and every element are, so a streamed
 * reply is accepted or refused as cJSON_ParseWithLength would the whole body, while memory
 * holds one element and the skeleton, never the body.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/backends_parse.h"
#include "gpurent/util.h"

enum where {
	W_START,	/* before the first byte of the top-level value */
	W_SKELETON,	/* in the top-level value, outside the streamed array */
	W_ARRAY,	/* inside the streamed array */
	W_AFTER,	/* the top-level value is complete: cJSON ignores the rest */
	W_SCALAR,	/* the top-level value is no container: nothing to stream */
};

struct jscan {
	const char *key;
	size_t key_len;
	jscan_elem_fn fn;
	void *ctx;

	enum where where;
	int depth;		/* containers open, the top-level one included */
	bool in_string, escape;
	bool failed;		/* malformed, or the callback refused an element */
	bool streamed;		/* the array was found (and maybe not yet closed) */
	size_t total;		/* bytes fed */

	/* Skeleton state: the last string at depth 1 and what followed it. */
	char last[32];
	size_t last_len;	/* > sizeof(last): longer than any key looked for */
	bool in_key_string, after_string, after_colon;
	int keys;		/* members of the top-level object seen */
	int streamed_index;	/* which of them is the streamed array */

	/* Array state. */
	int array_depth;	/* depth inside the array (the array itself counts) */
	bool elem_empty;	/* only whitespace so far in the current element */
	bool had_comma;

	struct sb skel;		/* the reply without the array's elements */
	char *elem;		/* the current element, when it spans chunks */
	size_t elem_len, elem_cap;
};

/* The bytes that can change the scanner's state outside a string, inside an element. */
static const bool structural[256] = {
	['"'] = true, ['{'] = true, ['}'] = true, ['['] = true, [']'] = true, [','] = true,
};

struct jscan *
jscan_new(const char *key, jscan_elem_fn fn, void *ctx)
{
	struct jscan *s = xcalloc(1, sizeof(*s));

	s->key = key;
	s->key_len = strlen(key);
	s->fn = fn;
	s->ctx = ctx;
	sb_init(&s->skel);
	return s;
}

void
jscan_free(struct jscan *s)
{
	if (s == NULL)
		return;
	sb_release(&s->skel);
	free(s->elem);
	free(s);
}

static void
elem_add(struct jscan *s, const char *p, size_t n)
{
	if (n == 0)
		return;
	if (s->elem_len + n > s->elem_cap) {
		size_t cap = s->elem_cap ? s->elem_cap : 4096;

		while (cap < s->elem_len + n)
			cap *= 2;
		s->elem = xrealloc(s->elem, cap);
		s->elem_cap = cap;
	}
	memcpy(s->elem + s->elem_len, p, n);
	s->elem_len += n;
}

/* One element: valid JSON with nothing but whitespace after it, then the callback. */
static bool
elem_done(struct jscan *s, const char *p, size_t n)
{
	const char *end = NULL;
	cJSON *j;
	bool ok;

	j = cJSON_ParseWithLengthOpts(p, n, &end, false);
	if (j == NULL)
		return false;
	for (; end < p + n; end++)
		if ((unsigned char)*end > ' ') {
			cJSON_Delete(j);
			return false;
		}
	ok = s->fn(j, s->ctx);
	cJSON_Delete(j);
	return ok;
}

/* The element that ends at p[i] (exclusive), begun at p[start] or earlier in s->elem. */
static bool
elem_end(struct jscan *s, const char *p, size_t start, size_t i)
{
	bool ok;

	if (s->elem_len == 0)
		return elem_done(s, p + start, i - start);
	elem_add(s, p + start, i - start);
	ok = elem_done(s, s->elem, s->elem_len);
	s->elem_len = 0;
	return ok;
}

/* Whether the string just closed at depth 1 is the key looked for, and comes first. */
static bool
key_matches(const struct jscan *s)
{
	return !s->streamed && s->last_len == s->key_len && memcmp(s->last, s->key,
	    s->key_len) == 0;
}

/* A byte of a string outside the array (skeleton). */
static void
skel_string_byte(struct jscan *s, char c)
{
	if (s->escape) {
		s->escape = false;
		s->last_len = sizeof(s->last) + 1;	/* escaped keys are not looked for */
		return;
	}
	if (c == '\\') {
		s->escape = true;
		return;
	}
	if (c == '"') {
		s->in_string = false;
		if (s->in_key_string) {
			s->in_key_string = false;
			s->after_string = true;
		}
		return;
	}
	if (s->in_key_string && s->last_len < sizeof(s->last))
		s->last[s->last_len++] = c;
	else if (s->in_key_string)
		s->last_len = sizeof(s->last) + 1;
}

static bool
feed(struct jscan *s, const char *p, size_t n)
{
	size_t i, start = 0;	/* start: where this chunk's part of the element begins */
	size_t skel_from = 0;	/* start of this chunk's bytes still to go to the skeleton */

	for (i = 0; i < n; i++) {
		char c = p[i];

		switch (s->where) {
		case W_START:
			if ((unsigned char)c <= ' ')
				break;
			if (c == '{' || c == '[') {
				s->where = W_SKELETON;
				s->depth = 1;
			} else {
				s->where = W_SCALAR;
			}
			break;
		case W_AFTER:
		case W_SCALAR:
			break;
		case W_SKELETON:
			if (s->in_string) {
				skel_string_byte(s, c);
				break;
			}
			if ((unsigned char)c <= ' ')
				break;
			if (s->after_colon) {
				s->after_colon = false;
				if (c == '[' && s->depth == 1) {
					/* The array itself goes to the skeleton, empty. */
					sb_add(&s->skel, p + skel_from, i + 1 - skel_from);
					skel_from = i + 1;
					s->where = W_ARRAY;
					s->streamed = true;
					s->streamed_index = s->keys - 1;
					s->array_depth = 0;
					s->elem_empty = true;
					s->had_comma = false;
					s->elem_len = 0;
					start = i + 1;
					s->depth++;
					if (s->depth > CJSON_NESTING_LIMIT)
						return false;
					break;
				}
			}
			if (s->after_string) {
				s->after_string = false;
				if (c == ':' && s->depth == 1)
					s->keys++;
				if (c == ':' && key_matches(s)) {
					s->after_colon = true;
					break;
				}
			}
			if (c == '"') {
				s->in_string = true;
				s->in_key_string = s->depth == 1;
				s->last_len = 0;
			} else if (c == '{' || c == '[') {
				if (++s->depth > CJSON_NESTING_LIMIT)
					return false;
			} else if (c == '}' || c == ']') {
				if (--s->depth == 0) {
					sb_add(&s->skel, p + skel_from, i + 1 - skel_from);
					skel_from = n;
					s->where = W_AFTER;
				}
			}
			break;
		case W_ARRAY:
			if (s->in_string) {
				if (s->escape) {
					s->escape = false;
					break;
				}
				/* Most bytes of a reply are inside strings: skip to the next one that matters. */
				while (i < n && p[i] != '"' && p[i] != '\\')
					i++;
				if (i == n)
					break;
				if (p[i] == '\\')
					s->escape = true;
				else
					s->in_string = false;
				break;
			}
			if ((unsigned char)c <= ' ')
				break;
			if (!s->elem_empty && !structural[(unsigned char)c]) {
				/* Inside a number, literal or between tokens of an element. */
				while (i + 1 < n && !structural[(unsigned char)p[i + 1]])
					i++;
				break;
			}
			if (s->array_depth == 0 && (c == ',' || c == ']')) {
				if (s->elem_empty) {
					/* "[,", "[1,,", "[1,]": not JSON; "[]" is. */
					if (c == ',' || s->had_comma)
						return false;
				} else if (!elem_end(s, p, start, i)) {
					return false;
				}
				if (c == ',') {
					s->had_comma = true;
					s->elem_empty = true;
					start = i + 1;
					break;
				}
				s->depth--;
				s->where = W_SKELETON;
				skel_from = i;	/* the ']' */
				break;
			}
			s->elem_empty = false;
			if (c == '"') {
				s->in_string = true;
			} else if (c == '{' || c == '[') {
				s->array_depth++;
				if (++s->depth > CJSON_NESTING_LIMIT)
					return false;
			} else if (c == '}' || c == ']') {
				/* Closing more than the element opened: "[1}" is not JSON. */
				if (s->array_depth == 0)
					return false;
				s->array_depth--;
				s->depth--;
			}
			break;
		}
	}
	if (s->where == W_ARRAY) {
		if (!s->elem_empty || s->elem_len > 0)
			elem_add(s, p + start, n - start);
	} else if (s->where != W_AFTER && skel_from < n) {
		sb_add(&s->skel, p + skel_from, n - skel_from);
	}
	return true;
}

bool
jscan_feed(struct jscan *s, const char *p, size_t n)
{
	if (s->failed)
		return false;
	s->total += n;
	if (!feed(s, p, n))
		s->failed = true;
	return !s->failed;
}

/*
 * Whether the skeleton's first member named key, as cJSON reads names (escapes decoded), is
 * the one streamed; else hand over the elements of that member's array now, as a whole-body
 * parse would have found them (a key spelled with escapes). NO_ARRAY when there is none, or
 * when an earlier, escaped duplicate hides the streamed one.
 */
static enum jscan_end
settle(struct jscan *s, cJSON *skeleton)
{
	cJSON *m, *e;
	int i = 0;

	if (!cJSON_IsObject(skeleton))
		return JSCAN_NO_ARRAY;
	for (m = skeleton->child; m != NULL; m = m->next, i++)
		if (m->string != NULL && strcmp(m->string, s->key) == 0)
			break;
	if (m == NULL || !cJSON_IsArray(m))
		return JSCAN_NO_ARRAY;
	if (s->streamed)
		return i == s->streamed_index ? JSCAN_OK : JSCAN_NO_ARRAY;
	cJSON_ArrayForEach(e, m)
		if (!s->fn(e, s->ctx))
			return JSCAN_MALFORMED;
	return JSCAN_OK;
}

enum jscan_end
jscan_finish(struct jscan *s, struct cJSON **skeleton)
{
	cJSON *j;

	*skeleton = NULL;
	if (s->total == 0)
		return JSCAN_EMPTY;
	if (s->failed || s->where == W_ARRAY)
		return JSCAN_MALFORMED;
	j = cJSON_ParseWithLength(s->skel.buf != NULL ? s->skel.buf : "", s->skel.len);
	if (j == NULL)
		return JSCAN_MALFORMED;
	*skeleton = j;
	return settle(s, j);
}
