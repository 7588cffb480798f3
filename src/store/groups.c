/*
 * Elastic groups' definitions (groups.h): one table of the state database.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/groups.h"
#include "gpurent/money.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "store_int.h"

/* "window" quoted: a reserved word in PostgreSQL. */
static const char columns[] = "name, gpu, gpus, min, max, target_util, cooldown, \"window\", "
	"base, max_price, env, predict, created_at, last_scale_at, max_currency, providers";

bool
group_name_valid(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n >= GROUP_NAME_MAX || s[0] == '.' || s[0] == '-' || s[0] == '_')
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

const char *
group_label(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s%s", GROUP_LABEL_PREFIX, name);
	return buf;
}

static void
read_row(struct db_stmt *q, void *row)
{
	struct group *g = row;
	const unsigned char *t;

	memset(g, 0, sizeof(*g));
	store_cols(q, "ttiiiiIIiIt-II-t", g->name, sizeof(g->name), g->gpu, sizeof(g->gpu),
	    &g->gpus, &g->min, &g->max, &g->target_util, &g->cooldown, &g->window, &g->base,
	    &g->max_price, g->env, sizeof(g->env), &g->created_at, &g->last_scale_at,
	    g->providers, sizeof(g->providers));
	g->predict = db_column_int(q, 11) != 0;
	t = db_column_text(q, 14);
	money_currency_set(g->max_currency, t ? (const char *)t : NULL);
}

enum gr_err
groups_create(struct state *st, const struct group *g, struct gr_error *err)
{
	if (!store_run(st, "INSERT INTO groups(name, gpu, gpus, min, max, target_util, "
	    "cooldown, \"window\", base, max_price, env, predict, created_at, last_scale_at, "
	    "max_currency, providers) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?) "
	    "ON CONFLICT DO NOTHING",
	    "ttiiiiIIiItiItt", g->name, g->gpu, g->gpus, g->min, g->max, g->target_util,
	    g->cooldown, g->window, g->base, g->max_price, g->env, (int)g->predict, g->created_at,
	    money_currency(g->max_currency), g->providers))
		return state_fail(st, err, "cannot write the groups table");
	if (db_changes(state_db(st)) == 0)
		return gr_fail(err, GR_EUSAGE, "a group called '%s' exists already", g->name);
	return GR_OK;
}

enum gr_err
groups_load(struct state *st, struct group **out, size_t *n, struct gr_error *err)
{
	char sql[256];
	struct db_stmt *q;

	snprintf(sql, sizeof(sql), "SELECT %s FROM groups ORDER BY name", columns);
	q = store_prepare(st, sql, "");
	if (!store_rows(q, (void **)out, n, sizeof(**out), read_row))
		return state_fail(st, err, "cannot read the groups table");
	return GR_OK;
}

enum gr_err
groups_get(struct state *st, const char *name, struct group *out, struct gr_error *err)
{
	char sql[256];
	struct db_stmt *q;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT %s FROM groups WHERE name = ?", columns);
	if (db_prepare_v2(state_db(st), sql, -1, &q, NULL) != DB_OK)
		return state_fail(st, err, "cannot read the groups table");
	db_bind_text(q, 1, name, -1, DB_STATIC);
	rc = db_step(q);
	if (rc == DB_ROW)
		read_row(q, out);
	db_finalize(q);
	if (rc == DB_ROW)
		return GR_OK;
	if (rc != DB_DONE)
		return state_fail(st, err, "cannot read the groups table");
	return gr_fail(err, GR_ENOTFOUND, "no group called '%s'", name);
}

/* Run sql with name (and at) bound; GR_ENOTFOUND when it changed no row. */
static enum gr_err
change(struct state *st, const char *sql, const char *name, int64_t at, struct gr_error *err)
{
	bool with_at = strstr(sql, "?2") != NULL;

	if (!(with_at ? store_run(st, sql, "tI", name, at) : store_run(st, sql, "t", name)))
		return state_fail(st, err, "cannot write the groups table");
	if (db_changes(state_db(st)) == 0)
		return gr_fail(err, GR_ENOTFOUND, "no group called '%s'", name);
	return GR_OK;
}

enum gr_err
groups_remove(struct state *st, const char *name, struct gr_error *err)
{
	enum gr_err rc = change(st, "DELETE FROM groups WHERE name = ?", name, 0, err);

	if (rc == GR_OK)
		change(st, "DELETE FROM group_load WHERE name = ?", name, 0, NULL);
	return rc;
}

enum gr_err
groups_scaled(struct state *st, const char *name, int64_t at, struct gr_error *err)
{
	return change(st, "UPDATE groups SET last_scale_at = ?2 WHERE name = ?1", name, at, err);
}

enum gr_err
groups_load_add(struct state *st, const char *name, int64_t at, double util, int members,
    struct gr_error *err)
{
	if (state_begin(st, err) != GR_OK)
		return err->code;
	if (!store_run(st, "INSERT INTO group_load(name, at, util, members) VALUES (?, ?, ?, ?) "
	    "ON CONFLICT(name, at) DO UPDATE SET util = excluded.util, "
	    "members = excluded.members", "tIdi", name, at, util, members) ||
	    !store_run(st, "DELETE FROM group_load WHERE name = ? AND at < ?", "tI", name,
	    at - GROUP_LOAD_KEEP)) {
		state_fail(st, err, "cannot write the group's load history");
		state_rollback(st);
		return err->code;
	}
	return state_commit(st, err);
}

enum gr_err
groups_load_mean(struct state *st, const char *name, int64_t since, int64_t until,
    double *mean, int *n, struct gr_error *err)
{
	struct db_stmt *q;
	int rc;

	*n = 0;
	q = store_prepare(st, "SELECT avg(util), count(*) FROM group_load WHERE name = ? AND "
	    "at > ? AND at <= ?", "tII", name, since, until);
	if (q == NULL)
		return state_fail(st, err, "cannot read the group's load history");
	rc = db_step(q);
	if (rc == DB_ROW && db_column_int(q, 1) > 0) {
		*mean = db_column_double(q, 0);
		*n = db_column_int(q, 1);
	}
	db_finalize(q);
	if (rc != DB_ROW)
		return state_fail(st, err, "cannot read the group's load history");
	return GR_OK;
}

enum gr_err
groups_load_series(struct state *st, const char *name, int64_t since, int step, size_t n,
    double *out, int64_t *first, struct gr_error *err)
{
	double *sum = xcalloc(n + 1, sizeof(*sum));
	int *cnt = xcalloc(n + 1, sizeof(*cnt));
	struct db_stmt *q;
	double last = -1;
	size_t i;
	int rc;

	*first = 0;
	if (db_prepare_v2(state_db(st), "SELECT at, util FROM group_load WHERE name = ? AND "
	    "at >= ? AND at < ? ORDER BY at", -1, &q, NULL) != DB_OK) {
		state_fail(st, err, "cannot read the group's load history");
		goto fail;
	}
	db_bind_text(q, 1, name, -1, DB_STATIC);
	db_bind_int64(q, 2, since);
	db_bind_int64(q, 3, since + (int64_t)step * (int64_t)n);
	while ((rc = db_step(q)) == DB_ROW) {
		int64_t at = db_column_int64(q, 0);

		i = (size_t)((at - since) / step);
		sum[i] += db_column_double(q, 1);
		cnt[i]++;
		if (*first == 0)
			*first = at;
	}
	db_finalize(q);
	if (rc != DB_DONE) {
		state_fail(st, err, "cannot read the group's load history");
		goto fail;
	}
	for (i = 0; i < n && last < 0; i++)
		if (cnt[i] > 0)
			last = sum[i] / cnt[i];
	for (i = 0; i < n; i++) {
		if (cnt[i] > 0)
			last = sum[i] / cnt[i];
		out[i] = last < 0 ? 0 : last;
	}
	free(sum);
	free(cnt);
	return GR_OK;
fail:
	free(sum);
	free(cnt);
	return err->code;
}

enum gr_err
groups_load_records(struct state *st, const char *name, int64_t since, int64_t until,
    struct group_load_rec **out, size_t *n, struct gr_error *err)
{
	struct db_stmt *q;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	q = store_prepare(st, "SELECT at, util, members FROM group_load WHERE name = ? AND "
	    "at >= ? AND at < ? ORDER BY at", "tII", name, since, until);
	if (q == NULL)
		return state_fail(st, err, "cannot read the group's load history");
	while ((rc = db_step(q)) == DB_ROW) {
		*out = xgrow(*out, *n, &cap, sizeof(**out), 64);
		(*out)[*n].at = db_column_int64(q, 0);
		(*out)[*n].util = db_column_double(q, 1);
		(*out)[(*n)++].members = db_column_int(q, 2);
	}
	db_finalize(q);
	if (rc != DB_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return state_fail(st, err, "cannot read the group's load history");
	}
	return GR_OK;
}
