/*
 * The state database a store test opens: the SQLite file at path, or, when
 * GPURENT_TEST_PG_URL names a PostgreSQL database (tests/pg/with-server: the store's tests
 * run again there), a schema of that database of its own for each path, emptied the first
 * time this process opens it, so that a test that opens one path twice finds its rows.
 */
#ifndef GPURENT_TESTS_STATE_UNDER_TEST_H
#define GPURENT_TESTS_STATE_UNDER_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/state.h"
#include "../src/store/db.h"

/* Whether the store's tests run on PostgreSQL. */
static inline bool
test_state_pg(void)
{
	const char *url = getenv("GPURENT_TEST_PG_URL");

	return url != NULL && url[0] != '\0';
}

static inline enum gr_err
test_state_open(struct state **st, const char *path, struct gr_error *err)
{
	static char seen[64][24];
	static size_t nseen;
	char schema[24], url[1024], sql[128];
	unsigned long h = 5381;
	bool fresh = true;
	struct db *db;
	size_t i;

	if (!test_state_pg())
		return state_open(st, path, err);
	for (i = 0; path[i] != '\0'; i++)
		h = h * 33 + (unsigned char)path[i];
	snprintf(schema, sizeof(schema), "t%lx", h & 0xffffffffffUL);
	for (i = 0; i < nseen; i++)
		fresh = fresh && strcmp(seen[i], schema) != 0;
	snprintf(url, sizeof(url), "%s%coptions=-csearch_path%%3D%s",
	    getenv("GPURENT_TEST_PG_URL"), strchr(getenv("GPURENT_TEST_PG_URL"), '?') ? '&' : '?',
	    schema);
	if (fresh) {
		if (db_open(&db, url, err) != GR_OK)
			return err->code;
		snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s",
		    schema, schema);
		if (db_exec(db, sql, NULL, NULL, NULL) != DB_OK) {
			gr_fail(err, GR_ESTATE, "%s", db_errmsg(db));
			db_close(db);
			return GR_ESTATE;
		}
		db_close(db);
		if (nseen < 64)
			strcpy(seen[nseen++], schema);
	}
	return state_open(st, url, err);
}

#endif
