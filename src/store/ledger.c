/*
 * ledger.c - the cost ledger in the database: billed segments, their sums, and what a
 * provider's report of an instance means for them (ledger.h).
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "store_int.h"

static enum gr_err
exec_bound(struct state *st, const char *sql, const char *what, struct gr_error *err,
    const char *id, int64_t ts)
{
	struct db_stmt *s;
	int rc;

	if (db_prepare_v2(state_db(st), sql, -1, &s, NULL) != DB_OK)
		return state_fail(st, err, what);
	db_bind_int64(s, 1, ts);
	db_bind_text(s, 2, id, -1, DB_STATIC);
	rc = db_step(s);
	db_finalize(s);
	return rc == DB_DONE ? GR_OK : state_fail(st, err, what);
}

enum gr_err
ledger_end(struct state *st, const char *instance_id, int64_t end, struct gr_error *err)
{
	/* A segment never ends before it starts, whatever clock the caller has. */
	return exec_bound(st, "UPDATE ledger SET end_ts = max(?1, start_ts) "
	    "WHERE instance_id = ?2 AND end_ts = 0", N_("cannot update the ledger"), err,
	    instance_id, end);
}

/* Close the instance's open billing segments at `end`, leaving a reservation open. */
static enum gr_err
end_billing(struct state *st, const char *instance_id, int64_t end, struct gr_error *err)
{
	struct db_stmt *s;
	int rc;

	if (db_prepare_v2(state_db(st), "UPDATE ledger SET end_ts = max(?1, start_ts) "
	    "WHERE instance_id = ?2 AND end_ts = 0 AND kind != ?3", -1, &s, NULL) != DB_OK)
		return state_fail(st, err, "cannot update the ledger");
	db_bind_int64(s, 1, end);
	db_bind_text(s, 2, instance_id, -1, DB_STATIC);
	db_bind_int(s, 3, LEDGER_PROVISIONING);
	rc = db_step(s);
	db_finalize(s);
	return rc == DB_DONE ? GR_OK : state_fail(st, err, "cannot update the ledger");
}

static enum gr_err
insert_seg(struct state *st, const struct ledger_seg *seg, struct gr_error *err)
{
	struct db_stmt *s;
	int rc;

	/* Its who and team: seg->who's of this store's team when given (a payment's payer),
	   else those of the instance's latest launch or start (state.h). */
	if (db_prepare_v2(state_db(st), "INSERT INTO ledger(instance_id, provider, label, "
	    "gpu, kind, rate_hour, start_ts, end_ts, currency, who, team) VALUES(?1, ?2, ?3, ?4, "
	    "?5, ?6, ?7, ?8, ?9, coalesce(?10, (SELECT who FROM launch_journal WHERE instance_id "
	    "= ?1 ORDER BY id DESC LIMIT 1)), CASE WHEN ?10 IS NULL THEN (SELECT team FROM "
	    "launch_journal WHERE instance_id = ?1 ORDER BY id DESC LIMIT 1) ELSE ?11 END)",
	    -1, &s, NULL) != DB_OK)
		return state_fail(st, err, "cannot write the ledger");
	db_bind_text(s, 1, seg->instance_id, -1, DB_STATIC);
	db_bind_text(s, 2, seg->provider, -1, DB_STATIC);
	db_bind_text(s, 3, seg->label, -1, DB_STATIC);
	db_bind_text(s, 4, seg->gpu, -1, DB_STATIC);
	db_bind_int(s, 5, seg->kind);
	db_bind_int64(s, 6, seg->rate_hour);
	db_bind_int64(s, 7, seg->start);
	db_bind_int64(s, 8, seg->end);
	db_bind_text(s, 9, money_currency(seg->currency), -1, DB_STATIC);
	db_bind_text(s, 10, seg->who[0] != '\0' ? seg->who : NULL, -1, DB_STATIC);
	db_bind_text(s, 11, state_team(st), -1, DB_STATIC);
	rc = db_step(s);
	db_finalize(s);
	return rc == DB_DONE ? GR_OK : state_fail(st, err, "cannot write the ledger");
}

enum gr_err
ledger_begin(struct state *st, const struct ledger_seg *seg, struct gr_error *err)
{
	/* One transaction: another process's segment cannot open between the end and the insert. */
	if (state_begin(st, err) != GR_OK)
		return err->code;
	if (ledger_end(st, seg->instance_id, seg->start, err) != GR_OK ||
	    insert_seg(st, seg, err) != GR_OK) {
		state_rollback(st);
		return err->code;
	}
	return state_commit(st, err);
}

enum gr_err
ledger_add_term(struct state *st, const struct ledger_seg *seg, struct gr_error *err)
{
	struct db_stmt *q;
	int rc;

	/* Looked for and inserted in one transaction: two recorders add it once. */
	if (state_begin(st, err) != GR_OK)
		return err->code;
	q = store_prepare(st, "SELECT 1 FROM ledger WHERE instance_id = ? AND kind = ? AND "
	    "start_ts = ?", "tiI", seg->instance_id, LEDGER_TERM, seg->start);
	rc = q != NULL ? db_step(q) : DB_ERROR;
	db_finalize(q);
	if (rc != DB_ROW && (rc != DB_DONE || insert_seg(st, seg, err) != GR_OK)) {
		if (rc != DB_DONE)
			state_fail(st, err, "cannot read the ledger");
		state_rollback(st);
		return err->code;
	}
	return state_commit(st, err);
}

int64_t
ledger_term_end(struct state *st, const char *instance_id, int64_t at)
{
	struct db_stmt *q = store_prepare(st, "SELECT max(end_ts) FROM ledger WHERE "
	    "instance_id = ? AND kind = ? AND start_ts <= ?", "tiI", instance_id, LEDGER_TERM, at);
	int64_t end = 0;

	if (q != NULL && db_step(q) == DB_ROW)
		end = db_column_int64(q, 0);
	db_finalize(q);
	return end;
}

int64_t
ledger_spent(struct state *st, const char *provider, const char *instance_id, int64_t now,
    int64_t *burn_hour)
{
	struct db_stmt *q;
	int64_t total = 0, burn = 0;

	/*
	 * Plans: ledger_closed by its primary key (one instance) or ledger_closed_provider;
	 * the open rows by ledger_open (instance_id, end_ts=0) or ledger_end (end_ts=0).
	 */
	q = store_prepare(st, instance_id != NULL ?
	    "SELECT sum(spent) FROM ledger_closed WHERE instance_id = ?1 AND kind != ?3" :
	    "SELECT sum(spent) FROM ledger_closed WHERE provider = ?2 AND kind != ?3", "tti",
	    instance_id, provider, LEDGER_PROVISIONING);
	if (q != NULL) {
		if (db_step(q) == DB_ROW)
			total = db_column_int64(q, 0);
		db_finalize(q);
	}
	q = store_prepare(st, instance_id != NULL ?
	    "SELECT rate_hour, start_ts FROM ledger WHERE instance_id = ?1 AND end_ts = 0 AND "
	    "kind != ?3" :
	    "SELECT rate_hour, start_ts FROM ledger WHERE end_ts = 0 AND provider = ?2 AND "
	    "kind != ?3", "tti", instance_id, provider, LEDGER_PROVISIONING);
	if (q != NULL) {
		while (db_step(q) == DB_ROW) {
			total += money_accrue(db_column_int64(q, 0),
			    now - db_column_int64(q, 1));
			burn += db_column_int64(q, 0);
		}
		db_finalize(q);
	}
	if (burn_hour != NULL)
		*burn_hour = burn;
	return total;
}

/* Every instance's ledger_spent at one `now`, sorted by id for ledger_spent_of. */
struct ledger_spent_all {
	struct spent_entry {
		char id[ID_MAX];
		int64_t total;
	} *v;
	size_t len, cap;
};

static void
spent_add(struct ledger_spent_all *a, const unsigned char *id, int64_t amount)
{
	a->v = xgrow(a->v, a->len, &a->cap, sizeof(*a->v), 256);
	strlcpy_(a->v[a->len].id, id != NULL ? (const char *)id : "", sizeof(a->v[0].id));
	a->v[a->len++].total = amount;
}

static int
cmp_spent(const void *pa, const void *pb)
{
	return strcmp(((const struct spent_entry *)pa)->id, ((const struct spent_entry *)pb)->id);
}

struct ledger_spent_all *
ledger_spent_all(struct state *st, int64_t now)
{
	struct ledger_spent_all *a = xcalloc(1, sizeof(*a));
	struct db_stmt *q;
	size_t i, j;

	/*
	 * The same two sums as ledger_spent's for one instance, for every instance at once:
	 * SCAN ledger_closed (two rows an instance at most) and SEARCH ledger USING INDEX
	 * ledger_end (end_ts=?), the open rows; then one sort. Two statements instead of two
	 * per instance: preparing them 1,000 times was most of the simulator's listing.
	 */
	q = store_prepare(st, "SELECT instance_id, spent FROM ledger_closed WHERE kind != ?1",
	    "i", LEDGER_PROVISIONING);
	if (q != NULL) {
		while (db_step(q) == DB_ROW)
			spent_add(a, db_column_text(q, 0), db_column_int64(q, 1));
		db_finalize(q);
	}
	q = store_prepare(st, "SELECT instance_id, rate_hour, start_ts FROM ledger WHERE "
	    "end_ts = 0 AND kind != ?1", "i", LEDGER_PROVISIONING);
	if (q != NULL) {
		while (db_step(q) == DB_ROW)
			spent_add(a, db_column_text(q, 0), money_accrue(
			    db_column_int64(q, 1), now - db_column_int64(q, 2)));
		db_finalize(q);
	}
	if (a->len > 0)
		qsort(a->v, a->len, sizeof(*a->v), cmp_spent);
	/* One entry an instance: the sums of its kinds and open rows. */
	for (i = j = 0; i < a->len; i++) {
		if (j > 0 && strcmp(a->v[j - 1].id, a->v[i].id) == 0)
			a->v[j - 1].total += a->v[i].total;
		else
			a->v[j++] = a->v[i];
	}
	a->len = j;
	return a;
}

int64_t
ledger_spent_of(const struct ledger_spent_all *a, const char *instance_id)
{
	struct spent_entry key;
	const struct spent_entry *e;

	if (a->len == 0)
		return 0;	/* and no bsearch of a NULL array */
	strlcpy_(key.id, instance_id, sizeof(key.id));
	e = bsearch(&key, a->v, a->len, sizeof(*a->v), cmp_spent);
	return e != NULL ? e->total : 0;
}

void
ledger_spent_all_free(struct ledger_spent_all *a)
{
	if (a == NULL)
		return;
	free(a->v);
	free(a);
}

int64_t
ledger_burn(struct state *st, const char *provider, int64_t now, const char *currency)
{
	struct db_stmt *q;
	int64_t burn = 0;
	const unsigned char *cur;

	/*
	 * Plan: SEARCH ledger USING INDEX ledger_end (end_ts=? and end_ts>?): the open rows
	 * only (one per running instance) and the terms that cover now (spread over their
	 * period, as costs_compute spreads them), not the month's window it reads.
	 */
	q = store_prepare(st, "SELECT rate_hour, currency FROM ledger WHERE provider = ?1 AND "
	    "start_ts <= ?3 AND ((end_ts = 0 AND kind != ?2) OR (end_ts > ?3 AND kind = ?4))",
	    "tiIi", provider, LEDGER_PROVISIONING, now, LEDGER_TERM);
	if (q == NULL)
		return 0;
	while (db_step(q) == DB_ROW) {
		cur = db_column_text(q, 1);
		if (money_same_currency(cur != NULL ? (const char *)cur : "", currency))
			burn += db_column_int64(q, 0);
	}
	db_finalize(q);
	return burn;
}

enum gr_err
ledger_each_currency(struct state *st, int64_t since,
    void (*fn)(const char *currency, void *ctx), void *ctx, struct gr_error *err)
{
	struct db_stmt *s;
	const unsigned char *cur;
	int rc;

	/*
	 * The closed rows ending after `since` from their days' totals (every such row is in a
	 * total with max_end > since, and every such total has one), the open rows themselves.
	 * Plan: SEARCH ledger_day USING INDEX ledger_day_end (max_end>?), SEARCH ledger USING
	 * INDEX ledger_end (end_ts=?), a temp b-tree for the UNION: a month of the bench's
	 * 1,000 instances is 3,000 totals and 1,000 open rows instead of 29,000 rows.
	 */
	s = store_prepare(st, "SELECT currency FROM ledger_day WHERE max_end > ?1 "
	    "UNION SELECT currency FROM ledger WHERE end_ts = 0", "I", since);
	if (s == NULL)
		return state_fail(st, err, "cannot read the ledger");
	while ((rc = db_step(s)) == DB_ROW) {
		cur = db_column_text(s, 0);
		fn(cur != NULL ? (const char *)cur : "", ctx);
	}
	db_finalize(s);
	return rc == DB_DONE ? GR_OK : state_fail(st, err, "cannot read the ledger");
}

#define SEG_COLUMNS "instance_id, provider, label, gpu, kind, rate_hour, start_ts, end_ts, " \
	"gone, currency, who"

/*
 * Each row of a query of SEG_COLUMNS, prepared and bound by store_prepare (NULL: it did not
 * prepare), to fn; finalizes s.
 */
static enum gr_err
step_rows(struct state *st, struct db_stmt *s, void (*fn)(const struct ledger_seg *seg,
    void *ctx), void *ctx, struct gr_error *err)
{
	struct ledger_seg g;
	int rc;

	if (s == NULL)
		return state_fail(st, err, "cannot read the ledger");
	while ((rc = db_step(s)) == DB_ROW) {
		memset(&g, 0, sizeof(g));
		store_col_text(s, 0, g.instance_id, sizeof(g.instance_id));
		store_col_text(s, 1, g.provider, sizeof(g.provider));
		store_col_text(s, 2, g.label, sizeof(g.label));
		store_col_text(s, 3, g.gpu, sizeof(g.gpu));
		g.kind = (enum ledger_kind)db_column_int(s, 4);
		g.rate_hour = db_column_int64(s, 5);
		g.start = db_column_int64(s, 6);
		g.end = db_column_int64(s, 7);
		g.gone = db_column_int(s, 8) != 0;
		store_col_text(s, 9, g.currency, sizeof(g.currency));
		store_col_text(s, 10, g.who, sizeof(g.who));
		fn(&g, ctx);
	}
	db_finalize(s);
	return rc == DB_DONE ? GR_OK : state_fail(st, err, "cannot read the ledger");
}

static enum gr_err
each_row(struct state *st, int64_t since, int64_t until, bool ordered,
    void (*fn)(const struct ledger_seg *seg, void *ctx), void *ctx, struct gr_error *err)
{
	/*
	 * Query plan (EXPLAIN QUERY PLAN, bench/scale.sh): MULTI-INDEX OR over ledger_end
	 * (end_ts=? for the open rows, end_ts>? for those ending inside the window), then a temp
	 * b-tree for ORDER BY. The '+' keeps the planner from walking ledger_time instead to
	 * save that sort: that reads every row of the ledger's whole history (730,000 rows for
	 * a year of 1,000 instances, 37 s on a loaded machine) to return this month's 29,000.
	 * Unordered, the same MULTI-INDEX OR without the temp b-tree: the sort of the window's
	 * rows, every column of them, was a third of `costs`.
	 */
	return step_rows(st, store_prepare(st, ordered ? "SELECT " SEG_COLUMNS " FROM ledger "
	    "WHERE (end_ts = 0 OR end_ts > ?1) AND (?2 = 0 OR start_ts < ?2) ORDER BY +start_ts, "
	    "id" : "SELECT " SEG_COLUMNS " FROM ledger WHERE (end_ts = 0 OR end_ts > ?1) AND "
	    "(?2 = 0 OR start_ts < ?2)", "II", since, until), fn, ctx, err);
}

enum gr_err
ledger_each_day_total(struct state *st, int64_t since,
    void (*fn)(const struct ledger_day_total *d, void *ctx), void *ctx, struct gr_error *err)
{
	struct db_stmt *s;
	struct ledger_day_total d;
	int rc;

	/*
	 * Plan: SEARCH ledger_day USING INDEX ledger_day_end (max_end>?): the days of the
	 * window (and the few before it whose segments end inside it), about one row per day
	 * and label; a month of the bench's 1,000 instances is 3,000 rows for 29,000 segments.
	 */
	if (db_prepare_v2(state_db(st), "SELECT day, provider, label, gpu, kind, currency, "
	    "n, spent, min_end, max_end FROM ledger_day WHERE max_end > ?1", -1, &s, NULL) !=
	    DB_OK)
		return state_fail(st, err, "cannot read the ledger");
	db_bind_int64(s, 1, since);
	while ((rc = db_step(s)) == DB_ROW) {
		memset(&d, 0, sizeof(d));
		d.day = db_column_int64(s, 0);
		store_col_text(s, 1, d.key.provider, sizeof(d.key.provider));
		store_col_text(s, 2, d.key.label, sizeof(d.key.label));
		store_col_text(s, 3, d.key.gpu, sizeof(d.key.gpu));
		d.key.kind = (enum ledger_kind)db_column_int(s, 4);
		store_col_text(s, 5, d.key.currency, sizeof(d.key.currency));
		d.n = db_column_int64(s, 6);
		d.spent = db_column_int64(s, 7);
		d.min_end = db_column_int64(s, 8);
		d.max_end = db_column_int64(s, 9);
		fn(&d, ctx);
	}
	db_finalize(s);
	return rc == DB_DONE ? GR_OK : state_fail(st, err, "cannot read the ledger");
}

enum gr_err
ledger_each_closed_started(struct state *st, const char *provider, int64_t from, int64_t to,
    int64_t since, void (*fn)(const struct ledger_seg *seg, void *ctx), void *ctx,
    struct gr_error *err)
{
	/*
	 * Plan: SEARCH ledger USING INDEX ledger_time (start_ts>? AND start_ts<?): one day's
	 * rows. The '+'s keep the planner off ledger_end (end_ts>?), which is the whole window.
	 */
	return step_rows(st, store_prepare(st, "SELECT " SEG_COLUMNS " FROM ledger WHERE "
	    "start_ts >= ?1 AND start_ts < ?2 AND +provider = ?3 AND +end_ts != 0 AND "
	    "+end_ts > ?4", "IItI", from, to, provider, since), fn, ctx, err);
}

enum gr_err
ledger_each_gone(struct state *st, void (*fn)(const struct ledger_seg *seg, void *ctx),
    void *ctx, struct gr_error *err)
{
	/* Plan: ledger_gone's few rows, each checked against its instance's newest. */
	return step_rows(st, store_prepare(st, "SELECT " SEG_COLUMNS " FROM ledger AS l WHERE "
	    "gone = 1 AND id = (SELECT max(id) FROM ledger WHERE instance_id = l.instance_id)",
	    ""), fn, ctx, err);
}

enum gr_err
ledger_each_open(struct state *st, void (*fn)(const struct ledger_seg *seg, void *ctx),
    void *ctx, struct gr_error *err)
{
	/* Plan: SEARCH ledger USING INDEX ledger_end (end_ts=?): one row per running instance. */
	return step_rows(st, store_prepare(st, "SELECT " SEG_COLUMNS " FROM ledger WHERE "
	    "end_ts = 0", ""), fn, ctx, err);
}

enum gr_err
ledger_each(struct state *st, int64_t since, int64_t until,
    void (*fn)(const struct ledger_seg *seg, void *ctx), void *ctx, struct gr_error *err)
{
	return each_row(st, since, until, true, fn, ctx, err);
}

enum gr_err
ledger_each_unordered(struct state *st, int64_t since, int64_t until,
    void (*fn)(const struct ledger_seg *seg, void *ctx), void *ctx, struct gr_error *err)
{
	return each_row(st, since, until, false, fn, ctx, err);
}

struct seg_vec {
	struct ledger_seg *v;
	size_t len, cap;
};

static void
seg_keep(const struct ledger_seg *g, void *ctx)
{
	struct seg_vec *sv = ctx;

	*XPUSH(sv->v, sv->len, sv->cap, 64) = *g;
}

enum gr_err
ledger_load(struct state *st, int64_t since, int64_t until, struct ledger_seg **out, size_t *n,
    struct gr_error *err)
{
	struct seg_vec sv = { NULL, 0, 0 };

	if (ledger_each(st, since, until, seg_keep, &sv, err) != GR_OK) {
		free(sv.v);
		return err->code;
	}
	*out = sv.v;
	*n = sv.len;
	return GR_OK;
}

void
ledger_seg_of(struct ledger_seg *seg, const struct instance *in, const char *provider,
    enum ledger_kind kind)
{
	memset(seg, 0, sizeof(*seg));
	strlcpy_(seg->instance_id, in->id, sizeof(seg->instance_id));
	strlcpy_(seg->provider, provider, sizeof(seg->provider));
	strlcpy_(seg->label, in->label, sizeof(seg->label));
	strlcpy_(seg->gpu, in->gpu ? in->gpu->id : in->gpu_raw, sizeof(seg->gpu));
	seg->kind = kind;
}

/* The segment an observation of `in` opens: kind and rate, start `now`. */
static void
seg_of(struct ledger_seg *seg, const struct instance *in, enum ledger_kind kind, int64_t rate,
    int64_t now)
{
	ledger_seg_of(seg, in, in->provider, kind);
	seg->rate_hour = rate;
	money_currency_set(seg->currency, in->currency);
	seg->start = now;
}

/* The start of the instance's open compute segment at rate 0 (a term's), INT64_MAX: none. */
static int64_t
zero_since(struct state *st, const char *instance_id)
{
	struct db_stmt *q = store_prepare(st, "SELECT start_ts FROM ledger WHERE instance_id = ? "
	    "AND end_ts = 0 AND kind = ? AND rate_hour = 0", "ti", instance_id, LEDGER_COMPUTE);
	int64_t at = INT64_MAX;

	if (q != NULL && db_step(q) == DB_ROW)
		at = db_column_int64(q, 0);
	db_finalize(q);
	return at;
}

/* What an observation bills (ledger_observe): a kind (-1: nothing), its rate, from when. */
struct billing {
	int kind;
	int64_t rate, start;
};

static struct billing
billing_of(struct state *st, const struct instance *in, enum inst_state state, int64_t now)
{
	struct billing b = { -1, 0, now };
	int64_t term_end = ledger_term_end(st, in->id, now);

	/* What the provider says is paid ahead counts as much as what gpurent paid. */
	if (in->term_until > term_end)
		term_end = in->term_until;

	if (inst_state_billed(state) && (in->valid & IV_PRICE)) {
		b.kind = LEDGER_COMPUTE;
		/* Paid ahead: the hourly price starts again where the term ends. */
		b.rate = term_end > now ? 0 : money_add(in->price_hour, in->disk_running_hour);
		if (term_end != 0 && term_end <= now && zero_since(st, in->id) < term_end)
			b.start = term_end;
	} else if (state == ST_STOPPED && (in->valid & IV_STORAGE)) {
		b.kind = LEDGER_STORAGE;
		b.rate = in->storage_hour;
	} else if (state == ST_STARTING && (in->valid & IV_PRICE)) {
		/* Starting again: about to bill at its price, a reservation as at launch. */
		b.kind = LEDGER_PROVISIONING;
		b.rate = in->price_hour;
	}
	return b;
}

/* Whether the instance has the billing's segment open: 1 yes, 0 no, -1 the read failed. */
static int
billing_open(struct state *st, const struct instance *in, const struct billing *b)
{
	struct db_stmt *s = store_prepare(st, "SELECT 1 FROM ledger WHERE instance_id = ? AND "
	    "end_ts = 0 AND kind = ? AND rate_hour = ? AND currency = ?", "tiIt", in->id, b->kind,
	    b->rate, money_currency(in->currency));
	int rc = s != NULL ? db_step(s) : DB_ERROR;

	db_finalize(s);
	return rc == DB_ROW ? 1 : rc == DB_DONE ? 0 : -1;
}

/* ledger_observe's look and writes, inside its transaction. */
static enum gr_err
observe(struct state *st, const struct instance *in, int64_t now, struct gr_error *err)
{
	struct ledger_seg seg;
	/* A machine still loading that was told to stop reserves nothing: it never runs. */
	enum inst_state state = instance_billing_state(in);
	struct billing b = billing_of(st, in, state, now);
	int open;

	/*
	 * Still provisioning: billing stops, and a reservation stands, the one made at launch
	 * or, for an instance launched elsewhere and never seen before, one made now.
	 */
	if (b.kind < 0 && state == ST_PROVISIONING) {
		if (end_billing(st, in->id, now, err) != GR_OK)
			return err->code;
		if (!(in->valid & IV_PRICE))
			return GR_OK;
		seg_of(&seg, in, LEDGER_PROVISIONING, in->price_hour, now);
		return ledger_reserve(st, &seg, err);
	}
	if (b.kind < 0)
		return ledger_end(st, in->id, now, err);
	if ((open = billing_open(st, in, &b)) != 0)
		return open > 0 ? GR_OK : state_fail(st, err, "cannot read the ledger");
	seg_of(&seg, in, (enum ledger_kind)b.kind, b.rate, b.start);
	return ledger_begin(st, &seg, err);
}

enum gr_err
ledger_observe(struct state *st, const struct instance *in, int64_t now, struct gr_error *err)
{
	struct billing b = billing_of(st, in, instance_billing_state(in), now);

	/*
	 * Most observations find their segment open and write nothing: found so without the
	 * writers' lock. Any other is looked at again and written under it, so that two
	 * processes observing one instance at once do not both begin a segment.
	 */
	if (b.kind >= 0 && billing_open(st, in, &b) == 1)
		return GR_OK;
	if (state_begin(st, err) != GR_OK)
		return err->code;
	if (observe(st, in, now, err) != GR_OK) {
		state_rollback(st);
		return err->code;
	}
	return state_commit(st, err);
}

/* The state of the instance's first compute segment: -1 none, 0 open, 1 closed. */
static int
first_compute(struct state *st, const char *instance_id, struct gr_error *err)
{
	struct db_stmt *s;
	int found = -1;

	if (db_prepare_v2(state_db(st), "SELECT end_ts FROM ledger WHERE instance_id = ? "
	    "AND kind = ? ORDER BY id LIMIT 1", -1, &s, NULL) != DB_OK) {
		state_fail(st, err, "cannot read the ledger");
		return -2;
	}
	db_bind_text(s, 1, instance_id, -1, DB_STATIC);
	db_bind_int(s, 2, LEDGER_COMPUTE);
	if (db_step(s) == DB_ROW)
		found = db_column_int64(s, 0) == 0 ? 0 : 1;
	db_finalize(s);
	return found;
}

static enum gr_err
observe_span(struct state *st, const struct instance *in, int64_t start, int64_t end,
    struct gr_error *err)
{
	struct ledger_seg seg;
	int first = first_compute(st, in->id, err);

	if (first == -2 || first == 1)
		return first == 1 ? GR_OK : err->code;
	if (first == -1) {
		seg_of(&seg, in, LEDGER_COMPUTE, in->price_hour, start);
		if (ledger_begin(st, &seg, err) != GR_OK)
			return err->code;
	} else if (exec_bound(st, "UPDATE ledger SET start_ts = ?1 WHERE instance_id = ?2 AND "
	    "end_ts = 0 AND kind = 0", N_("cannot update the ledger"), err, in->id, start) != GR_OK ||
	    exec_bound(st, "UPDATE ledger SET end_ts = max(?1, start_ts) WHERE instance_id = ?2 "
	    "AND end_ts = 0 AND kind = 2", N_("cannot update the ledger"), err, in->id, start) != GR_OK)
		return err->code;
	return end > 0 ? ledger_end(st, in->id, end, err) : GR_OK;
}

enum gr_err
ledger_observe_span(struct state *st, const struct instance *in, int64_t start, int64_t end,
    struct gr_error *err)
{
	if (!(in->valid & IV_PRICE) || start <= 0)
		return GR_OK;
	if (state_begin(st, err) != GR_OK)
		return err->code;
	if (observe_span(st, in, start, end, err) != GR_OK) {
		state_rollback(st);
		return err->code;
	}
	return state_commit(st, err);
}

enum gr_err
ledger_reserve(struct state *st, const struct ledger_seg *seg, struct gr_error *err)
{
	struct db_stmt *s;
	bool known;

	if (state_begin(st, err) != GR_OK)
		return err->code;
	if (db_prepare_v2(state_db(st), "SELECT 1 FROM ledger WHERE instance_id = ?", -1,
	    &s, NULL) != DB_OK) {
		state_fail(st, err, "cannot read the ledger");
		state_rollback(st);
		return err->code;
	}
	db_bind_text(s, 1, seg->instance_id, -1, DB_STATIC);
	known = db_step(s) == DB_ROW;
	db_finalize(s);
	if (!known && ledger_begin(st, seg, err) != GR_OK) {
		state_rollback(st);
		return err->code;
	}
	return state_commit(st, err);
}

static bool
listed(const char *id, const char *const *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return true;
	return false;
}

enum gr_err
ledger_close_unlisted(struct state *st, const char *provider, const char *const *ids, size_t n,
    int64_t asked, int64_t now, struct gr_error *err)
{
	struct db_stmt *q, *u;
	int rc;

	if (state_begin(st, err) != GR_OK)
		return err->code;
	if (db_prepare_v2(state_db(st), "SELECT id, instance_id FROM ledger WHERE "
	    "provider = ? AND end_ts = 0 AND start_ts < ?", -1, &q, NULL) != DB_OK) {
		state_fail(st, err, "cannot read the ledger");
		state_rollback(st);
		return err->code;
	}
	if (db_prepare_v2(state_db(st), "UPDATE ledger SET end_ts = max(?1, start_ts), "
	    "gone = 1 WHERE id = ?2", -1, &u, NULL) != DB_OK) {
		db_finalize(q);
		state_fail(st, err, "cannot update the ledger");
		state_rollback(st);
		return err->code;
	}
	db_bind_text(q, 1, provider, -1, DB_STATIC);
	db_bind_int64(q, 2, asked);
	while ((rc = db_step(q)) == DB_ROW) {
		const unsigned char *id = db_column_text(q, 1);

		if (id == NULL || listed((const char *)id, ids, n))
			continue;
		db_reset(u);
		db_bind_int64(u, 1, now);
		db_bind_int64(u, 2, db_column_int64(q, 0));
		if (db_step(u) != DB_DONE) {
			rc = DB_ERROR;
			break;
		}
	}
	db_finalize(q);
	db_finalize(u);
	if (rc != DB_DONE) {
		state_fail(st, err, "cannot update the ledger");
		state_rollback(st);
		return err->code;
	}
	return state_commit(st, err);
}

void
ledger_each_instance_id(struct state *st, int64_t since, size_t max,
    void (*fn)(const char *id, void *ctx), void *ctx)
{
	store_each_text(st, "SELECT DISTINCT instance_id FROM ledger WHERE end_ts = 0 OR "
	    "end_ts > ?1", &since, max, fn, ctx);
}

/* ledger_days' walk. */
struct days_walk {
	const char *provider;
	int64_t since, until;
	const struct ledger_seg *seg;
	struct charge_list *out;
};

static void
day_part(int64_t day, int64_t amount, void *ctx)
{
	struct days_walk *w = ctx;
	struct charge *c = charge_list_add(w->out);

	strlcpy_(c->instance_id, w->seg->instance_id, sizeof(c->instance_id));
	c->day = day;
	c->amount = amount;
	c->storage = w->seg->kind == LEDGER_STORAGE ? amount : 0;
	strlcpy_(c->currency, money_currency(w->seg->currency), sizeof(c->currency));
}

static void
days_seg(const struct ledger_seg *seg, void *ctx)
{
	struct days_walk *w = ctx;
	int64_t from = seg->start > w->since ? seg->start : w->since;
	int64_t to = seg->end != 0 && seg->end < w->until ? seg->end : w->until;

	if (strcmp(seg->provider, w->provider) != 0 || seg->kind == LEDGER_PROVISIONING)
		return;
	w->seg = seg;
	/* Paid whole when it starts, as the provider bills it. */
	if (seg->kind == LEDGER_TERM) {
		if (seg->start >= w->since && seg->start < w->until)
			day_part(seg->start - ((seg->start % 86400) + 86400) % 86400,
			    money_accrue(seg->rate_hour, seg->end - seg->start), w);
		return;
	}
	if (to <= from)
		return;
	money_accrue_days(seg->rate_hour, from, to, day_part, w);
}

enum gr_err
ledger_days(struct state *st, const char *provider, int64_t since, int64_t until,
    struct charge_list *out, struct gr_error *err)
{
	struct days_walk w = { provider, since, until, NULL, out };

	return ledger_each_unordered(st, since, until, days_seg, &w, err);
}
