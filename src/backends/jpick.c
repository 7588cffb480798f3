/*
 * jpick.c - one JSON value judged as cJSON judges it, and of an object only the members a
 * caller names parsed.
 *
 * A real vast.ai offer has about a hundred members, of which gpurent reads twenty: building
 * the whole tree of each offer (a node, a key copy and a strtod per member) was most of the
 * time of a search. Here the value is walked once without allocating, with the rules of the
 * cJSON gpurent is built with (1.7.15 as Debian patches it: whitespace is any byte up to
 * ' ', a number is what strtod takes of a run of [0-9+-eE.], however long, "\u" escapes are
 * checked as cJSON checks them, at most CJSON_NESTING_LIMIT containers), so that what it
 * accepts is exactly what cJSON_ParseWithLength accepts (test_jscan and fuzz_jscan hold it
 * to that); only the named members' values are then given to cJSON.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends_parse.h"
#include "gpurent/util.h"

enum { PICK_SLOTS = 2 * JPICK_MAX };	/* a power of two, at most half full */

struct jpick {
	const char *names[JPICK_MAX];
	size_t lens[JPICK_MAX];
	int n;
	unsigned char slot[PICK_SLOTS];	/* name index + 1, 0: empty */
};

/* Most member names are looked up and not found: a hash of the length and the first and
   last bytes rejects them without reading the rest. */
static uint32_t
name_hash(const unsigned char *p, size_t n)
{
	return n == 0 ? 0 : (uint32_t)n * 31u + p[0] * 7u + p[n - 1];
}

struct jpick *
jpick_new(const char *const *names)
{
	struct jpick *k = xcalloc(1, sizeof(*k));

	for (; *names != NULL && k->n < JPICK_MAX; names++) {
		size_t len = strlen(*names);
		uint32_t h = name_hash((const unsigned char *)*names, len);

		while (k->slot[h & (PICK_SLOTS - 1)] != 0)
			h++;
		k->slot[h & (PICK_SLOTS - 1)] = (unsigned char)(k->n + 1);
		k->names[k->n] = *names;
		k->lens[k->n] = len;
		k->n++;
	}
	return k;
}

void
jpick_free(struct jpick *k)
{
	free(k);
}

/* Which name p[0..n) is, or -1. */
static int
name_index(const struct jpick *k, const unsigned char *p, size_t n)
{
	uint32_t h = name_hash(p, n);
	int i;

	while ((i = k->slot[h & (PICK_SLOTS - 1)]) != 0) {
		i--;
		if (k->lens[i] == n && memcmp(k->names[i], p, n) == 0)
			return i;
		h++;
	}
	return -1;
}

struct walk {
	const unsigned char *p;
	size_t n, i;
	size_t depth;		/* containers open */
	size_t limit;		/* at most this many (cJSON's limit, less those around p) */
};

static void
skip_ws(struct walk *w)
{
	while (w->i < w->n && w->p[w->i] <= ' ')
		w->i++;
}

/* cJSON's parse_hex4: an invalid digit makes the whole sequence 0, which it accepts. */
static unsigned
hex4(const unsigned char *p)
{
	unsigned h = 0;
	int i;

	for (i = 0; i < 4; i++) {
		unsigned c = p[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return 0;
		h = h << 4 | d;
	}
	return h;
}

/* The escapes of a string's content p[from..to), as cJSON decodes them. */
static bool
escapes_ok(const unsigned char *p, size_t from, size_t to)
{
	size_t q = from;

	while (q < to) {
		unsigned first, second;

		if (p[q] != '\\') {
			q++;
			continue;
		}
		switch (p[q + 1]) {	/* at most the closing quote */
		case 'b': case 'f': case 'n': case 'r': case 't': case '"': case '\\': case '/':
			q += 2;
			break;
		case 'u':
			if (to - q < 6)
				return false;
			first = hex4(p + q + 2);
			if (first >= 0xDC00 && first <= 0xDFFF)
				return false;
			if (first >= 0xD800 && first <= 0xDBFF) {
				if (to - (q + 6) < 6 || p[q + 6] != '\\' || p[q + 7] != 'u')
					return false;
				second = hex4(p + q + 8);
				if (second < 0xDC00 || second > 0xDFFF)
					return false;
				q += 12;
			} else {
				q += 6;
			}
			break;
		default:
			return false;
		}
	}
	return true;
}

/* The bytes a string's first pass stops at. */
static const bool in_string_special[256] = { ['"'] = true, ['\\'] = true, ['\0'] = true };

/*
 * A string at p[i] == '"': its content is p[*from..*to), and *plain is set when it holds
 * neither an escape nor a NUL (then the content is its value as it stands).
 */
static bool
string(struct walk *w, size_t *from, size_t *to, bool *plain)
{
	size_t e = w->i + 1;
	bool esc = false, nul = false;

	for (;;) {
		while (e < w->n && !in_string_special[w->p[e]])
			e++;
		if (e >= w->n || w->p[e] == '"')
			break;
		if (w->p[e] == '\\') {
			if (e + 1 >= w->n)
				return false;
			esc = true;
			e++;
		} else {
			nul = true;
		}
		e++;
	}
	if (e >= w->n)
		return false;
	if (esc && !escapes_ok(w->p, w->i + 1, e))
		return false;
	*from = w->i + 1;
	*to = e;
	*plain = !esc && !nul;
	w->i = e + 1;
	return true;
}

static bool
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* What strtod takes of the number at p[0..avail): cJSON hands it the run of [0-9+-eE.] there,
   and what strtod leaves of that run is the next token's, as here; 0 when nothing. */
static size_t
number_len(const unsigned char *p, size_t avail)
{
	size_t i = 0, j, digits;

	if (p[0] == '-')	/* a value starts with '-' or a digit */
		i++;
	for (j = i; j < avail && is_digit(p[j]); j++)
		;
	digits = j - i;
	i = j;
	if (i < avail && p[i] == '.') {
		for (j = i + 1; j < avail && is_digit(p[j]); j++)
			;
		digits += j - i - 1;
		i = j;
	}
	if (digits == 0)
		return 0;
	if (i < avail && (p[i] == 'e' || p[i] == 'E')) {
		j = i + 1;
		if (j < avail && (p[j] == '+' || p[j] == '-'))
			j++;
		if (j < avail && is_digit(p[j])) {
			while (j < avail && is_digit(p[j]))
				j++;
			i = j;
		}
	}
	return i;
}

struct picked {
	const struct jpick *k;
	cJSON *obj;
	uint64_t taken;		/* names already given a member: cJSON reads the first */
};

static bool value(struct walk *w, struct picked *pick);

/* A member's name, decoded as cJSON decodes it, when it has escapes or a NUL. */
static int
escaped_name_index(const struct jpick *k, const unsigned char *quoted, size_t n)
{
	cJSON *s = cJSON_ParseWithLength((const char *)quoted, n);
	int i = -1;

	if (cJSON_IsString(s))
		i = name_index(k, (const unsigned char *)s->valuestring, strlen(s->valuestring));
	cJSON_Delete(s);
	return i;
}

/* One member's value, picked: parsed on its own (already known to be valid). */
static bool
pick_member(struct picked *pick, int idx, const unsigned char *v, size_t n)
{
	cJSON *item;

	if (idx < 0 || (pick->taken & (UINT64_C(1) << idx)) != 0)
		return true;
	pick->taken |= UINT64_C(1) << idx;
	item = cJSON_ParseWithLength((const char *)v, n);
	if (item == NULL)
		return false;
	cJSON_AddItemToObjectCS(pick->obj, pick->k->names[idx], item);
	return true;
}

/* A member's name and its colon; *idx which picked name it is (-1: none, or no pick). */
static bool
member_name(struct walk *w, const struct picked *pick, int *idx)
{
	size_t from, to;
	bool plain;

	if (w->i >= w->n || w->p[w->i] != '"' || !string(w, &from, &to, &plain))
		return false;
	if (pick != NULL)
		*idx = plain ? name_index(pick->k, w->p + from, to - from) :
		    escaped_name_index(pick->k, w->p + from - 1, to - from + 2);
	skip_ws(w);
	if (w->i >= w->n || w->p[w->i] != ':')
		return false;
	w->i++;
	return true;
}

/* An array, or with members an object, at p[i]; pick, when set, collects the object's
   members. */
static bool
container(struct walk *w, bool members, struct picked *pick)
{
	unsigned char closer = members ? '}' : ']';

	if (w->depth >= w->limit)
		return false;
	w->depth++;
	w->i++;
	skip_ws(w);
	if (w->i < w->n && w->p[w->i] == closer) {
		w->i++;
		w->depth--;
		return true;
	}
	for (;;) {
		size_t v0;
		int idx = -1;

		skip_ws(w);
		if (members && !member_name(w, pick, &idx))
			return false;
		skip_ws(w);
		v0 = w->i;
		if (!value(w, NULL))
			return false;
		if (pick != NULL && !pick_member(pick, idx, w->p + v0, w->i - v0))
			return false;
		skip_ws(w);
		if (w->i < w->n && w->p[w->i] == ',') {
			w->i++;
			continue;
		}
		break;
	}
	if (w->i >= w->n || w->p[w->i] != closer)
		return false;
	w->i++;
	w->depth--;
	return true;
}

/* One value at p[i]; pick, when set and the value is an object, collects its members. */
static bool
value(struct walk *w, struct picked *pick)
{
	size_t left = w->n - w->i, from, to, len;
	const unsigned char *c = w->p + w->i;
	bool plain;

	if (left == 0)
		return false;
	if (left >= 4 && memcmp(c, "null", 4) == 0) {
		w->i += 4;
		return true;
	}
	if (left >= 5 && memcmp(c, "false", 5) == 0) {
		w->i += 5;
		return true;
	}
	if (left >= 4 && memcmp(c, "true", 4) == 0) {
		w->i += 4;
		return true;
	}
	switch (*c) {
	case '"':
		return string(w, &from, &to, &plain);
	case '[':
		return container(w, false, NULL);
	case '{':
		return container(w, true, pick);
	default:
		if (*c != '-' && !is_digit(*c))
			return false;
		if ((len = number_len(c, left)) == 0)
			return false;
		w->i += len;
		return true;
	}
}

void
jpick_filter(const struct jpick *k, cJSON *obj)
{
	uint64_t taken = 0;
	cJSON *m, *next;
	int idx;

	if (!cJSON_IsObject(obj))
		return;
	for (m = obj->child; m != NULL; m = next) {
		next = m->next;
		idx = m->string != NULL ?
		    name_index(k, (const unsigned char *)m->string, strlen(m->string)) : -1;
		if (idx >= 0 && (taken & (UINT64_C(1) << idx)) == 0) {
			taken |= UINT64_C(1) << idx;
			continue;
		}
		cJSON_Delete(cJSON_DetachItemViaPointer(obj, m));
	}
}

cJSON *
jpick_object_prefix(const struct jpick *k, const char *p, size_t n, size_t limit, size_t *used)
{
	struct walk w = { (const unsigned char *)p, n, 0, 0, limit };
	struct picked pick = { k, NULL, 0 };

	if (n == 0 || p[0] != '{')
		return NULL;
	pick.obj = cJSON_CreateObject();
	if (!container(&w, true, &pick)) {
		cJSON_Delete(pick.obj);
		return NULL;
	}
	*used = w.i;
	return pick.obj;
}

cJSON *
jpick_parse(const struct jpick *k, const char *p, size_t n)
{
	struct walk w = { (const unsigned char *)p, n, 0, 0, CJSON_NESTING_LIMIT };
	struct picked pick = { k, NULL, 0 };
	bool is_object;

	skip_ws(&w);
	is_object = w.i < n && p[w.i] == '{';
	if (is_object)
		pick.obj = cJSON_CreateObject();
	if (!value(&w, is_object ? &pick : NULL))
		goto refused;
	for (; w.i < n; w.i++)
		if (w.p[w.i] > ' ')
			goto refused;
	if (is_object)
		return pick.obj;
	return cJSON_ParseWithLength(p, n);
refused:
	cJSON_Delete(pick.obj);
	return NULL;
}
