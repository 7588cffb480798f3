/*
 * jscan.c - find the elements of one container of a JSON reply as its bytes arrive.
 *
 * The scanner does not parse JSON: it tracks strings (and their escapes) and the nesting of
 * brackets, which is all it takes to see where each element of the container begins and
 * ends. The container is found by a path of member names from the top-level object
 * ({"data": {"gpuTypes": [...]}}); it is an array, or an object whose members are the
 * elements ({"data": {"gpu_1x_a10": {...}, ...}}). Each element is handed over whole, to be
 * parsed with cJSON on its own; everything else of the reply (the "skeleton", with the
 * container left empty) is kept and parsed once at the end.
 * The reply is valid JSON exactly when the skeleton and every element are, so a streamed
 * reply is accepted or refused as cJSON_ParseWithLength would the whole body, while memory
 * holds one element and the skeleton, never the body.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "backends_parse.h"
#include "gpurent/i18n.h"
#include "gpurent/util.h"

enum where {
	W_START,	/* before the first byte of the top-level value */
	W_SKELETON,	/* in the top-level value, outside the streamed array */
	W_ARRAY,	/* inside the streamed array */
	W_AFTER,	/* the top-level value is complete: cJSON ignores the rest */
	W_SCALAR,	/* the top-level value is no container: nothing to stream */
};

struct jscan {
	const char *path[JSCAN_PATH_MAX];
	int npath;
	bool members;		/* the container is an object: its members are the elements */
	jscan_elem_fn fn;
	void *ctx;
	const struct jpick *pick;	/* set: elements parsed with jpick_parse */

	enum where where;
	int depth;		/* containers open, the top-level one included */
	bool in_string, escape;
	bool failed;		/* malformed, or the callback refused an element */
	bool streamed;		/* the array was found (and maybe not yet closed) */
	size_t total;		/* bytes fed */

	/*
	 * Skeleton state. The objects named by the path so far are open, the deepest at
	 * path_depth (the top-level value is 1); the last string at that depth and what
	 * followed it say whether the next value is the path's next step.
	 */
	int path_depth;
	char last[32];
	size_t last_len;	/* > sizeof(last): longer than any key looked for */
	bool in_key_string, after_string, after_colon;
	int keys[JSCAN_PATH_MAX];	/* members seen of each object on the path */
	bool taken[JSCAN_PATH_MAX];	/* its member named path[i] was seen (cJSON takes the
					   first one, whatever its value) */
	int index[JSCAN_PATH_MAX];	/* which member that was */

	/* Array state. */
	int array_depth;	/* depth inside the array (the array itself counts) */
	bool elem_empty;	/* only whitespace so far in the current element */
	bool elem_taken;	/* the current element was picked whole from one chunk: only
				   whitespace may follow it before the comma or the end */
	bool had_comma;

	struct sb skel;		/* the reply without the array's elements */
	char *elem;		/* the current element, when it spans chunks */
	size_t elem_len, elem_cap;
	struct sb member;	/* a member element wrapped in braces, to parse it */
};

/* The bytes that can change the scanner's state outside a string, inside an element. */
static const bool structural[256] = {
	['"'] = true, ['{'] = true, ['}'] = true, ['['] = true, [']'] = true, [','] = true,
};

struct jscan *
jscan_new_path(const char *const *path, bool members, jscan_elem_fn fn, void *ctx)
{
	struct jscan *s = xcalloc(1, sizeof(*s));

	while (s->npath < JSCAN_PATH_MAX && path[s->npath] != NULL) {
		s->path[s->npath] = path[s->npath];
		s->npath++;
	}
	s->members = members;
	s->fn = fn;
	s->ctx = ctx;
	sb_init(&s->skel);
	sb_init(&s->member);
	return s;
}

struct jscan *
jscan_new(const char *key, jscan_elem_fn fn, void *ctx)
{
	const char *path[] = { key, NULL };

	return jscan_new_path(path, false, fn, ctx);
}

void
jscan_pick(struct jscan *s, const struct jpick *k)
{
	s->pick = k;
}

void
jscan_free(struct jscan *s)
{
	if (s == NULL)
		return;
	sb_release(&s->skel);
	sb_release(&s->member);
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

/*
 * One member of a streamed object ("name": value, as it stood between the commas): parsed
 * inside braces, so that cJSON judges the name and the colon too; the callback gets the
 * member (its string is the name).
 */
static bool
member_done(struct jscan *s, const char *p, size_t n)
{
	cJSON *j;
	bool ok;

	s->member.len = 0;
	sb_addc(&s->member, '{');
	sb_add(&s->member, p, n);
	sb_addc(&s->member, '}');
	j = cJSON_ParseWithLength(s->member.buf, s->member.len);
	if (j == NULL)
		return false;
	ok = j->child != NULL && j->child->next == NULL && s->fn(j->child, s->ctx);
	cJSON_Delete(j);
	return ok;
}

/* One element: valid JSON with nothing but whitespace after it, then the callback. */
static bool
elem_done(struct jscan *s, const char *p, size_t n)
{
	const char *end = NULL;
	cJSON *j;
	bool ok;

	if (s->members)
		return member_done(s, p, n);
	if (s->pick != NULL) {
		if ((j = jpick_parse(s->pick, p, n)) == NULL)
			return false;
		ok = s->fn(j, s->ctx);
		cJSON_Delete(j);
		return ok;
	}
	/* cJSON skips a byte order mark at the start of what it is given; inside an array
	   a whole-body parse refuses one. */
	if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		return false;
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

/* Whether the string just closed at path_depth is the path's next name, and comes first. */
static bool
key_matches(const struct jscan *s)
{
	int level = s->path_depth - 1;

	return level >= 0 && level < s->npath && !s->taken[level] &&
	    s->last_len == strlen(s->path[level]) &&
	    memcmp(s->last, s->path[level], s->last_len) == 0;
}

/* A byte of a string outside the container (skeleton). */
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
	char closer = s->members ? '}' : ']';
	bool descend;

	for (i = 0; i < n; i++) {
		char c = p[i];

		switch (s->where) {
		case W_START:
			if ((unsigned char)c <= ' ')
				break;
			if (c == '{' || c == '[') {
				s->where = W_SKELETON;
				s->depth = 1;
				s->path_depth = 1;
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
			descend = false;
			if (s->after_colon) {
				int level = s->path_depth - 1;

				s->after_colon = false;
				if (level == s->npath - 1 && c == (s->members ? '{' : '[')) {
					/* The container itself goes to the skeleton, empty. */
					sb_add(&s->skel, p + skel_from, i + 1 - skel_from);
					skel_from = i + 1;
					s->where = W_ARRAY;
					s->streamed = true;
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
				/* A step of the path: its object's members are looked at next. */
				descend = level < s->npath - 1 && c == '{';
			}
			if (s->after_string) {
				s->after_string = false;
				if (c == ':' && s->depth == s->path_depth)
					s->keys[s->path_depth - 1]++;
				if (c == ':' && s->depth == s->path_depth && key_matches(s)) {
					int level = s->path_depth - 1;

					s->taken[level] = true;
					s->index[level] = s->keys[level] - 1;
					s->after_colon = true;
					break;
				}
			}
			if (c == '"') {
				s->in_string = true;
				s->in_key_string = s->depth == s->path_depth;
				s->last_len = 0;
			} else if (c == '{' || c == '[') {
				if (++s->depth > CJSON_NESTING_LIMIT)
					return false;
				if (descend)
					s->path_depth = s->depth;
			} else if (c == '}' || c == ']') {
				if (s->depth == s->path_depth)
					s->path_depth--;
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
			if (s->elem_taken && !(s->array_depth == 0 && (c == ',' || c == closer)))
				return false;
			if (c == '{' && s->pick != NULL && s->elem_empty && s->elem_len == 0) {
				/*
				 * An object that ends within this chunk is picked where it lies, in
				 * one pass; one cut off by the chunk's end, or not well formed, is
				 * scanned as any element (and then judged whole).
				 */
				size_t used;
				cJSON *j = jpick_object_prefix(s->pick, p + i, n - i,
				    (size_t)(CJSON_NESTING_LIMIT - s->depth), &used);

				if (j != NULL) {
					bool ok = s->fn(j, s->ctx);

					cJSON_Delete(j);
					if (!ok)
						return false;
					s->elem_empty = false;
					s->elem_taken = true;
					i += used - 1;
					break;
				}
			}
			if (!s->elem_empty && !structural[(unsigned char)c]) {
				/* Inside a number, literal or between tokens of an element. */
				while (i + 1 < n && !structural[(unsigned char)p[i + 1]])
					i++;
				break;
			}
			if (s->array_depth == 0 && (c == ',' || c == closer)) {
				if (s->elem_empty) {
					/* "[,", "[1,,", "[1,]": not JSON; "[]" is. */
					if (c == ',' || s->had_comma)
						return false;
				} else if (s->elem_taken) {
					s->elem_taken = false;
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
				skel_from = i;	/* the closing bracket */
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
		if (!s->elem_taken && (!s->elem_empty || s->elem_len > 0))
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
 * Whether the skeleton's path, as cJSON finds members (the first of a name, escapes
 * decoded), leads to the container streamed; else hand over the elements of the container
 * it leads to now, as a whole-body parse would have found them (a name spelled with
 * escapes). NO_ARRAY when there is none, or when an earlier, escaped duplicate hides the
 * streamed one (elements already handed over).
 */
static enum jscan_end
settle(struct jscan *s, cJSON *skeleton)
{
	cJSON *node = skeleton, *m, *e;
	int level, i;

	for (level = 0; level < s->npath; level++) {
		if (!cJSON_IsObject(node))
			return JSCAN_NO_ARRAY;
		for (m = node->child, i = 0; m != NULL; m = m->next, i++)
			if (m->string != NULL && strcmp(m->string, s->path[level]) == 0)
				break;
		if (m == NULL)
			return JSCAN_NO_ARRAY;
		if (s->streamed && i != s->index[level])
			return JSCAN_NO_ARRAY;
		node = m;
	}
	if (s->members ? !cJSON_IsObject(node) : !cJSON_IsArray(node))
		return JSCAN_NO_ARRAY;
	if (s->streamed)
		return JSCAN_OK;
	cJSON_ArrayForEach(e, node) {
		if (s->pick != NULL)
			jpick_filter(s->pick, e);
		if (!s->fn(e, s->ctx))
			return JSCAN_MALFORMED;
	}
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

enum gr_err
jscan_end_error(enum jscan_end end, const char *provider, const char *no_container,
    struct gr_error *err)
{
	switch (end) {
	case JSCAN_OK:
		return GR_OK;
	case JSCAN_EMPTY:
		return gr_fail(err, GR_EUNAVAIL, "empty reply from %s", provider);
	case JSCAN_NO_ARRAY:
		return gr_fail(err, GR_EUNAVAIL, "%s", _(no_container));
	case JSCAN_MALFORMED:
		break;
	}
	return gr_fail(err, GR_EUNAVAIL, "malformed reply from %s (not JSON)", provider);
}

struct offer_stream {
	const struct offer_stream_kind *kind;
	const void *arg;
	struct jscan *scan;
	struct jpick *pick;
	struct offer_list *out;
	size_t n0;		/* offers in out before this reply: an error appends none */
};

static bool
offer_elem(const cJSON *elem, void *ctx)
{
	struct offer_stream *s = ctx;

	s->kind->map(elem, s->arg, s->out);
	return true;
}

struct offer_stream *
offer_stream_new(const struct offer_stream_kind *k, const void *arg, struct offer_list *out)
{
	struct offer_stream *s = xcalloc(1, sizeof(*s));

	s->kind = k;
	s->arg = arg;
	s->out = out;
	s->n0 = out->n;
	s->scan = jscan_new_path(k->path, k->members, offer_elem, s);
	if (k->pick != NULL) {
		s->pick = jpick_new(k->pick);
		jscan_pick(s->scan, s->pick);
	}
	return s;
}

bool
offer_stream_feed(struct offer_stream *s, const char *p, size_t n)
{
	return jscan_feed(s->scan, p, n);
}

enum gr_err
offer_stream_finish(struct offer_stream *s, long status, struct gr_error *err)
{
	cJSON *skeleton;
	enum jscan_end end = jscan_finish(s->scan, &skeleton);
	enum gr_err e = s->kind->end != NULL ? s->kind->end(end, skeleton, status, err) :
	    jscan_end_error(end, s->kind->provider, s->kind->no_container, err);

	cJSON_Delete(skeleton);
	if (e != GR_OK)
		s->out->n = s->n0;
	return e;
}

void
offer_stream_free(struct offer_stream *s)
{
	if (s == NULL)
		return;
	jscan_free(s->scan);
	jpick_free(s->pick);
	free(s);
}

enum gr_err
offer_stream_parse(const struct offer_stream_kind *k, const void *arg, const char *body,
    size_t len, struct offer_list *out, struct gr_error *err)
{
	struct offer_stream *s = offer_stream_new(k, arg, out);
	enum gr_err e;

	offer_stream_feed(s, body, len);
	e = offer_stream_finish(s, 200, err);
	offer_stream_free(s);
	return e;
}
