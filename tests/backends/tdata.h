/*
 * tdata.h - reading recorded provider payloads from tests/data/ in unit tests.
 */
#ifndef GPURENT_TESTS_TDATA_H
#define GPURENT_TESTS_TDATA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/model.h"

#ifndef DATA_DIR
#error "DATA_DIR must name tests/data"
/* The offer with this id in a parsed list, or NULL. */
static inline const struct offer *
find_offer(const struct offer_list *l, const char *id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].id, id) == 0)
			return &l->v[i];
	return NULL;
}

#endif

/* The whole file (NUL-terminated, length in *len); aborts the test run when unreadable. */
static char *
tdata(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", DATA_DIR, name);
	f = fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, "cannot open %s\n", path);
		abort();
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* The offer with this id in a parsed list, or NULL. */
static inline const struct offer *
find_offer(const struct offer_list *l, const char *id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].id, id) == 0)
			return &l->v[i];
	return NULL;
}

#endif
