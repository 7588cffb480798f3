/*
 * launch.c - the launch door (launch.h): a launch's plan and bid, its admission by the
 * budgets under the launch lock, its journal and client token, and the launch or start itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/backend.h"
#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/launch.h"
#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/observed.h"
#include "gpurent/session.h"
#include "gpurent/state.h"
#include "gpurent/team.h"
#include "gpurent/util.h"

/* The current price plus margin_pct percent, rounded up to a tenth of a cent. */
static int64_t
margin_bid(int64_t price_hour, int margin_pct)
{
	int64_t bid = money_scale(price_hour, 100 + margin_pct, 100);

	return (bid + 999) / 1000 * 1000;
}

enum gr_err
launch_plan_make(const struct offer *o, bool has_bid, int64_t bid, int disk_gb, int margin_pct,
    struct launch_plan *out, struct gr_error *err)
{
	char a[32], b[32];

	memset(out, 0, sizeof(*out));
	out->market_hour = o->price_hour;
	out->margin_pct = margin_pct;
	if (has_bid && o->type != OFFER_INTERRUPTIBLE)
		return gr_fail(err, GR_EUSAGE, "offer '%s' is on-demand; --bid needs an offer with "
		    "type=interruptible (it would never be rented on demand instead)", o->id);
	/* A cluster queues a job for GPUs that are busy now (OV_QUEUE): that is no refusal. */
	if ((o->valid & OV_AVAILABLE) && o->available <= 0 && !(o->valid & OV_QUEUE))
		return gr_fail(err, GR_ECAPACITY, "offer '%s' is no longer available: every "
		    "machine of it is rented; search again", o->id);
	if (disk_gb > 0 && (o->valid & OV_DISK) && disk_gb > o->disk_gb)
		return gr_fail(err, GR_EUSAGE, "offer '%s' has %d GB of disk; %d GB asked", o->id,
		    o->disk_gb, disk_gb);
	if (o->type != OFFER_INTERRUPTIBLE) {
		out->price_hour = o->price_hour;
		return GR_OK;
	}
	if (has_bid && (o->valid & OV_PRICE) && bid < o->price_hour)
		return gr_fail(err, GR_EUSAGE, "bid %s/h is below the current price %s/h of offer "
		    "'%s'", money_format_in(a, sizeof(a), bid, 3, o->currency),
		    money_format_in(b, sizeof(b), o->price_hour, 3, o->currency), o->id);
	out->bid_given = has_bid;
	if (has_bid) {
		out->bid_hour = bid;
		/* Within the margin: the next repricing may well outbid it. */
		out->thin_bid = (o->valid & OV_PRICE) && margin_pct > 0 &&
		    bid < margin_bid(o->price_hour, margin_pct);
	} else
		out->bid_hour = margin_bid(o->price_hour, margin_pct);
	out->price_hour = out->bid_hour;
	return GR_OK;
}

#define LOCK_WAIT_MS (120 * 1000)
#define LOCK_POLL_MS 50
/* What lock_launches returns for a lock held in a PostgreSQL database, not a file. */
#define LOCK_IN_STATE INT_MAX

/* Take the launch lock beside the database (in it, for PostgreSQL); the descriptor, or -1
 * with err set. */
static int
lock_launches(struct state *st, struct gr_error *err)
{
	char path[4200];
	struct timespec ts = { 0, LOCK_POLL_MS * 1000000L };
	int fd, waited;

	if (state_is_postgresql(st))
		return state_lock_launches(st, LOCK_WAIT_MS, err) == GR_OK ? LOCK_IN_STATE : -1;

	snprintf(path, sizeof(path), "%s-launch.lock", state_path(st));
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		gr_fail(err, GR_ESTATE, "cannot open the launch lock '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	for (waited = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited += LOCK_POLL_MS) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= LOCK_WAIT_MS) {
			gr_fail(err, GR_ESTATE, "another gpurent has been launching for %d s (lock "
			    "'%s'); try again", LOCK_WAIT_MS / 1000, path);
			close(fd);
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	return fd;
}

/* The new instance does not bill yet: note its price so that budgets count it. */
static void
record_provisioning(struct state *st, const struct cost_clock *clk, const char *provider,
    int64_t price_hour, const char *price_currency, const struct instance *in)
{
	struct ledger_seg seg;
	struct gr_error e = { 0 };

	if (in->id[0] == '\0')
		return;
	ledger_seg_of(&seg, in, provider, LEDGER_PROVISIONING);
	/* A term's instance says its price by the hour, which it bills after the term. */
	if ((in->valid & IV_PRICE) && in->price_hour > 0 && in->term_months == 0 &&
	    in->type != OFFER_RESERVED) {
		seg.rate_hour = in->price_hour;
		money_currency_set(seg.currency, in->currency);
	} else {
		seg.rate_hour = price_hour;
		money_currency_set(seg.currency, price_currency);
	}
	seg.start = cost_clock_now(clk, provider);
	/* The instance exists whatever the ledger says; a failure here must not hide it. */
	(void)ledger_reserve(st, &seg, &e);
}

/* A term paid for instance `in`: [start, end) at rate_hour in currency (ledger.h). */
static void
record_term(struct state *st, const char *provider, const struct instance *in,
    const char *currency, int64_t rate_hour, int64_t start, int64_t end)
{
	struct ledger_seg seg;
	struct gr_error e = { 0 };

	ledger_seg_of(&seg, in, provider, LEDGER_TERM);
	seg.rate_hour = rate_hour;
	money_currency_set(seg.currency, currency);
	seg.start = start;
	seg.end = end;
	/* Whoever pays it now: a prepayment's payer, who need not be the one who launched. */
	strlcpy_(seg.who, state_who(st) != NULL ? state_who(st) : "", sizeof(seg.who));
	/* As for the reservation: what the provider took is taken, whatever the ledger says. */
	(void)ledger_add_term(st, &seg, &e);
}

/* budget.day, budget.month (with their currencies) and fx.* from the config; the price in
   price_currency; force from --force; who acts, in a team profile, whose budgets are in the
   shared state instead (limits_of). */
static void
budget_from_config(struct launch_budget *b, const struct config *cfg,
    const char *price_currency, bool force)
{
	memset(b, 0, sizeof(*b));
	b->team = team_profile(cfg);
	if (b->team) {
		b->day = b->month = -1;
		team_user(cfg, b->who, sizeof(b->who));
	} else {
		b->day = config_get_money_in(cfg, "budget.day", b->day_currency);
		b->month = config_get_money_in(cfg, "budget.month", b->month_currency);
	}
	money_currency_set(b->price_currency, price_currency);
	config_fx(cfg, &b->fx);
	b->force = force;
}

/* The meta keys of a team's budgets, and of each person's (the prefix, then the name). */
#define TEAM_BUDGET_DAY "team.budget.day"
#define TEAM_BUDGET_MONTH "team.budget.month"
#define PERSON_BUDGET_DAY "person.budget.day:"
#define PERSON_BUDGET_MONTH "person.budget.month:"

/* The budgets in meta keys day_key and month_key. */
static void
shared_budget_read(struct state *st, const char *day_key, const char *month_key,
    struct shared_budget *out)
{
	char v[64];

	out->day = out->month = -1;
	money_currency_set(out->day_currency, NULL);
	money_currency_set(out->month_currency, NULL);
	if (state_meta_get(st, day_key, v, sizeof(v)) && v[0] != '\0' &&
	    !money_parse_in(v, &out->day, out->day_currency))
		out->day = -1;
	if (state_meta_get(st, month_key, v, sizeof(v)) && v[0] != '\0' &&
	    !money_parse_in(v, &out->month, out->month_currency))
		out->month = -1;
}

void
launch_team_budget(struct state *st, struct shared_budget *out)
{
	shared_budget_read(st, TEAM_BUDGET_DAY, TEAM_BUDGET_MONTH, out);
}

void
launch_person_budget(struct state *st, const char *who, struct shared_budget *out)
{
	char day[sizeof(PERSON_BUDGET_MONTH) + TEAM_NAME_MAX], month[sizeof(day)];

	snprintf(day, sizeof(day), PERSON_BUDGET_DAY "%s", who);
	snprintf(month, sizeof(month), PERSON_BUDGET_MONTH "%s", who);
	shared_budget_read(st, day, month, out);
}

/* The names of the people with a budget key, sorted, each once. */
struct person_names {
	char (*v)[TEAM_NAME_MAX + 1];
	size_t n;
};

static void
person_name(const char *key, const char *value, void *ctx)
{
	struct person_names *p = ctx;
	const char *who = strchr(key, ':') + 1;
	size_t i;

	if (value[0] == '\0' || !team_name_valid(who))
		return;
	for (i = 0; i < p->n; i++)
		if (strcmp(p->v[i], who) == 0)
			return;
	p->v = xreallocarray(p->v, p->n + 1, sizeof(*p->v));
	strlcpy_(p->v[p->n++], who, sizeof(*p->v));
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

void
launch_person_budgets_each(struct state *st,
    void (*fn)(const char *who, const struct shared_budget *b, void *ctx), void *ctx)
{
	struct person_names p = { NULL, 0 };
	struct shared_budget b;
	size_t i;

	state_meta_each(st, PERSON_BUDGET_DAY, person_name, &p);
	state_meta_each(st, PERSON_BUDGET_MONTH, person_name, &p);
	if (p.n > 1)
		qsort(p.v, p.n, sizeof(*p.v), cmp_names);
	for (i = 0; i < p.n; i++) {
		launch_person_budget(st, p.v[i], &b);
		if (b.day >= 0 || b.month >= 0)
			fn(p.v[i], &b, ctx);
	}
	free(p.v);
}

/* Set or unset (amount NULL) the budget in meta key key. */
static enum gr_err
shared_budget_set(struct state *st, const char *key, const char *amount, struct gr_error *err)
{
	char code[CURRENCY_MAX];
	int64_t m;

	if (amount != NULL && (!money_parse_in(amount, &m, code) || m < 0))
		return gr_fail(err, GR_EUSAGE, "'%s' is not an amount of money (100, 12.50, "
		    "300 CNY)", amount);
	return state_meta_set(st, key, amount != NULL ? amount : "", err);
}

enum gr_err
launch_team_budget_set(struct state *st, bool day, const char *amount, struct gr_error *err)
{
	return shared_budget_set(st, day ? TEAM_BUDGET_DAY : TEAM_BUDGET_MONTH, amount, err);
}

enum gr_err
launch_person_budget_set(struct state *st, const char *who, bool day, const char *amount,
    struct gr_error *err)
{
	char key[sizeof(PERSON_BUDGET_MONTH) + TEAM_NAME_MAX];

	snprintf(key, sizeof(key), "%s%s", day ? PERSON_BUDGET_DAY : PERSON_BUDGET_MONTH, who);
	return shared_budget_set(st, key, amount, err);
}

/* One limit that a launch is held against. */
struct limit {
	const char *key;	/* its name in messages */
	int64_t amount;		/* -1: unset */
	const char *currency;
	bool day;		/* else the month's */
	const char *who;	/* counting only this person's spend; NULL: everyone's */
};

/* The limits of b: the person's (budget.day, budget.month: in the shared state in a team,
 * in sb[0]), then the team's (in sb[1]); returns how many (4 at most). */
static size_t
limits_of(struct state *st, const struct launch_budget *b, struct shared_budget sb[2],
    struct limit *out)
{
	if (!b->team) {
		out[0] = (struct limit){ "budget.day", b->day, b->day_currency, true, NULL };
		out[1] = (struct limit){ "budget.month", b->month, b->month_currency, false,
		    NULL };
		return 2;
	}
	launch_person_budget(st, b->who, &sb[0]);
	launch_team_budget(st, &sb[1]);
	out[0] = (struct limit){ "budget.day", sb[0].day, sb[0].day_currency, true, b->who };
	out[1] = (struct limit){ "budget.month", sb[0].month, sb[0].month_currency, false,
	    b->who };
	out[2] = (struct limit){ N_("the team's budget.day"), sb[1].day, sb[1].day_currency,
	    true, NULL };
	out[3] = (struct limit){ N_("the team's budget.month"), sb[1].month,
	    sb[1].month_currency, false, NULL };
	return 4;
}

/*
 * One limit in its own currency, counting the launches in flight (flying[0..n_flying), the
 * person's own for a person's limit) as this one: from now on at their price, and their lump.
 */
static enum gr_err
check_budget(struct state *st, const struct cost_clock *clk, const struct launch_budget *b,
    const struct launch_cost *flying, size_t n_flying, const char *provider,
    int64_t price_hour, const struct limit *l, struct gr_error *err)
{
	const char *key = _(l->key);
	const char *cur = money_currency(l->currency);
	int64_t amount = l->amount, extra, lump, h, fl;
	struct cost_summary sum;
	bool other = false;
	enum gr_err rc;
	size_t i;

	if (amount < 0)
		return GR_OK;
	if (!money_convert(&b->fx, price_hour, b->price_currency, cur, &extra) ||
	    !money_convert(&b->fx, b->term_price, b->price_currency, cur, &lump))
		return gr_fail(err, GR_EBUDGET, "refused by %s: it is in %s and this launch is "
		    "priced in %s, and no rate is configured to compare them (set one, e.g. "
		    "'gpurent config set fx.%s RATE' in US dollars per %s; --force overrides)",
		    key, cur, money_currency(b->price_currency),
		    strcmp(cur, "USD") != 0 ? cur : money_currency(b->price_currency),
		    strcmp(cur, "USD") != 0 ? cur : money_currency(b->price_currency));
	for (i = 0; i < n_flying; i++) {
		if (l->who != NULL && strcmp(flying[i].who, l->who) != 0)
			continue;
		if (!money_convert(&b->fx, flying[i].price_hour, flying[i].currency, cur, &h) ||
		    !money_convert(&b->fx, flying[i].lump, flying[i].currency, cur, &fl))
			return gr_fail(err, GR_EBUDGET, "refused by %s: it is in %s and a launch "
			    "under way is priced in %s, and no rate is configured to compare them "
			    "(set fx.CODE, US dollars per unit; --force overrides)", key, cur,
			    money_currency(flying[i].currency));
		extra = money_add(extra, h);
		lump = money_add(lump, fl);
		other |= !money_same_currency(flying[i].currency, cur);
	}
	if ((rc = costs_compute_of(st, clk, 0, CG_NONE, cur, &b->fx, l->who, &sum, err)) !=
	    GR_OK)
		return rc;
	if (sum.unconverted > 0)
		rc = gr_fail(err, GR_EBUDGET, "refused by %s: it is in %s and the ledger has "
		    "spend in another currency with no configured rate (set fx.CODE, US dollars "
		    "per unit; --force overrides)", key, cur);
	else {
		sum.converted |= other || !money_same_currency(b->price_currency, cur);
		rc = costs_check_budget(&sum, cost_clock_now(clk, provider), extra, lump,
		    l->day ? amount : -1, l->day ? -1 : amount, err);
		/* The figures are the whole team's: say so. */
		if (rc == GR_EBUDGET && err != NULL && l->who == NULL && b->team) {
			char msg[sizeof(err->msg)];

			strlcpy_(msg, err->msg, sizeof(msg));
			gr_error_clear(err);
			gr_fail(err, GR_EBUDGET, "the team's budget (gpurent budget show): %s", msg);
		}
	}
	cost_summary_release(&sum);
	return rc;
}

/* Whether b has a limit to check (a team's are read under the lock: any, in a team). */
static bool
budgeted(const struct launch_budget *b)
{
	return b->team || b->day >= 0 || b->month >= 0;
}

/*
 * Every limit of b, the person's then the team's, counting the launches in flight
 * (state_journal_inflight); the first that refuses says why.
 */
static enum gr_err
check_limits(struct state *st, const struct cost_clock *clk, const struct launch_budget *b,
    const char *provider, int64_t price_hour, struct gr_error *err)
{
	struct limit lim[4];
	struct shared_budget sb[2];
	size_t i, n = limits_of(st, b, sb, lim);
	struct launch_cost *flying;
	size_t n_flying = state_journal_inflight(st, clk->wall, &flying);
	enum gr_err rc = GR_OK;

	for (i = 0; i < n && rc == GR_OK; i++)
		rc = check_budget(st, clk, b, flying, n_flying, provider, price_hour, &lim[i], err);
	free(flying);
	return rc;
}

static void
unlock_launches(struct state *st, int fd)
{
	if (fd == LOCK_IN_STATE)
		state_unlock_launches(st);
	else if (fd >= 0)
		close(fd);	/* releases the lock */
}

enum gr_err
launch_admit(struct state *st, const struct launch_budget *b, const char *provider,
    int64_t price_hour, const struct launch_ops *ops, void *ctx, struct instance *out,
    struct gr_error *err)
{
	struct launch_cost cost = { price_hour, b->term_price, "", "" };
	struct cost_clock clk;
	int64_t row = 0;
	int fd = -1;
	enum gr_err rc = GR_OK;

	if (budgeted(b) && ops->run != NULL && (fd = lock_launches(st, err)) < 0)
		return err->code;
	ops->clock(ctx, &clk);
	if (budgeted(b) && !b->force)
		rc = check_limits(st, &clk, b, provider, price_hour, err);
	if (rc == GR_OK && ops->run != NULL) {
		money_currency_set(cost.currency, b->price_currency);
		rc = state_journal_launch(st, provider, ops->name != NULL ? ops->name : "", &cost,
		    cost_clock_now(&clk, provider), clk.wall, &row, err);
	}
	/* Admitted and journaled, it is in flight: the launches admitted while its provider
	   answers count it (check_limits), so they need not wait for that answer. */
	unlock_launches(st, fd);
	if (rc != GR_OK || ops->run == NULL)
		return rc;
	rc = ops->run(ctx, out, err);
	/* The launch took a while: its rows start on the clocks as they are now. */
	if (rc == GR_OK)
		ops->clock(ctx, &clk);
	if (rc == GR_OK && ops->record != NULL)
		ops->record(ctx, &clk, out);
	else if (rc == GR_OK) {
		record_provisioning(st, &clk, provider, price_hour, b->price_currency, out);
		/* Unless its provider's own ledger has it (the simulator's). */
		if (out->id[0] != '\0' && b->term_months > 0 &&
		    ledger_term_end(st, out->id, INT64_MAX) == 0) {
			int64_t now = cost_clock_now(&clk, provider);

			record_term(st, provider, out, b->price_currency,
			    term_hourly(b->term_price, b->term_months), now,
			    now + (int64_t)b->term_months * TERM_MONTH_HOURS * 3600);
		}
	}
	/* Settled once the ledger has it, so that no budget check in between misses it. An
	   outcome unknown (no answer, or one that could not be confirmed) stays unsettled, as
	   a killed command's does: a later listing that shows its name settles it with the
	   instance (state_journal_claim). A prepayment (ops->record) launched nothing: settled
	   with no instance, or its payer would become the one who launched it (its USER, the
	   who of its later ledger rows: state_journal_users, ledger.h) and the instance one
	   gpurent launched (state_journal_has). */
	if (rc != GR_EUNAVAIL && rc != GR_EINTERRUPTED)
		(void)state_journal_settle(st, row, rc == GR_OK && ops->record == NULL ? out->id :
		    "", NULL);
	return rc;
}

void
guard_client_token(char *buf, size_t n)
{
	char hex[25];

	/* No randomness: still unique to this process. */
	if (!random_hex(hex, 12))
		snprintf(hex, sizeof(hex), "%016llx00000000",
		    (unsigned long long)hash_mix((uint64_t)time(NULL), (uint64_t)getpid()));
	strlcpy_(buf, hex, n);
}

/* A prepayment of `amount` on `in`, and what the provider answered and the ledger recorded. */
struct prepayment {
	const struct instance *in;
	int64_t amount;
	int *discount_bp;
	int64_t *covered_s, *paid_until;
};

/* What launch_admit calls back for the doors: the session's clocks, and the create, the
   prepayment or the start. */
struct admitted {
	struct session *s;
	struct backend *b;
	const struct launch_req *req;	/* a launch; NULL: pay, or a start of `stopped` */
	const struct prepayment *pay;	/* a prepayment; NULL: a launch or a start */
	const struct instance *stopped;
};

static void
admitted_clock(void *ctx, struct cost_clock *out)
{
	session_clock(((struct admitted *)ctx)->s, out);
}

static enum gr_err
admitted_run(void *ctx, struct instance *out, struct gr_error *err)
{
	struct admitted *a = ctx;

	if (a->req != NULL)
		return session_launch(a->b, a->req, out, err);
	if (a->pay != NULL) {
		*out = *a->pay->in;
		return a->b->ops->prepay(a->b, a->pay->in->id, a->pay->amount,
		    a->pay->discount_bp, a->pay->covered_s, err);
	}
	*out = *a->stopped;
	return session_start(a->b, a->stopped->id, err);
}

/*
 * What a prepayment bought, as a term from now or the end of what is already paid (as the
 * provider stacks it); the instance's hourly price stops now (ledger_observe: covered by a
 * term).
 */
static void
admitted_record_prepayment(void *ctx, const struct cost_clock *clk, const struct instance *in)
{
	struct admitted *a = ctx;
	const struct prepayment *pay = a->pay;
	const char *provider = a->b->ops->name;
	struct gr_error e = { 0 };
	struct state *st;
	int64_t from = cost_clock_now(clk, provider);

	if (session_state(a->s, &st, &e) != GR_OK)
		return;
	if (ledger_term_end(st, in->id, from) > from)
		from = ledger_term_end(st, in->id, from);
	*pay->paid_until = from + *pay->covered_s;
	record_term(st, provider, in, in->currency, money_scale(pay->amount, 3600,
	    *pay->covered_s), from, *pay->paid_until);
	(void)ledger_observe(st, in, cost_clock_now(clk, provider), &e);
}

/* Admit what ctx holds at price_hour in currency, with the session's budgets. */
static enum gr_err
admit(struct admitted *ctx, int64_t price_hour, const char *currency, bool force, bool dry_run,
    struct instance *out, struct gr_error *err)
{
	struct launch_ops ops = { admitted_clock, dry_run ? NULL : admitted_run, NULL,
	    ctx->pay != NULL ? admitted_record_prepayment : NULL };
	char name[LABEL_MAX + 64];
	struct launch_budget budget;
	struct config *cfg;
	struct state *st;

	if (session_config(ctx->s, &cfg, err) != GR_OK ||
	    session_state(ctx->s, &st, err) != GR_OK)
		return err->code;
	budget_from_config(&budget, cfg, currency, force);
	if (ctx->req != NULL && ctx->req->term_months > 0) {
		budget.term_months = ctx->req->term_months;
		budget.term_price = ctx->req->term_price;
	}
	/* Paid at once: the budgets count it whole. */
	if (ctx->pay != NULL)
		budget.term_price = ctx->pay->amount;
	if (ctx->req != NULL) {
		bk_launch_name(ctx->req, name, sizeof(name));
		ops.name = name;
	}
	return launch_admit(st, &budget, ctx->b->ops->name, price_hour, &ops, ctx, out, err);
}

enum gr_err
guard_launch(struct session *s, struct backend *b, const struct launch_req *req,
    int64_t price_hour, const char *currency, unsigned flags, struct instance *out,
    struct gr_error *err)
{
	struct launch_req r = *req;
	struct admitted ctx = { s, b, &r, NULL, NULL };
	char token[GUARD_TOKEN_MAX];

	/* A term paid at creation bills nothing by the hour until its end. */
	if (r.term_months > 0)
		price_hour = 0;

	if (r.client_token == NULL) {
		guard_client_token(token, sizeof(token));
		r.client_token = token;
	}
	memset(out, 0, sizeof(*out));
	return admit(&ctx, price_hour, currency, flags & GUARD_FORCE, flags & GUARD_DRY_RUN, out,
	    err);
}

enum gr_err
guard_prepay(struct session *s, struct backend *b, const struct instance *in, int64_t amount,
    bool force, int *discount_bp, int64_t *covered_s, int64_t *paid_until,
    struct gr_error *err)
{
	struct prepayment pay = { in, amount, discount_bp, covered_s, paid_until };
	struct admitted ctx = { s, b, NULL, &pay, NULL };
	struct instance out;

	if (b->ops->prepay == NULL)
		return gr_fail(err, GR_EUNSUPPORTED, "%s takes no prepayment of a running "
		    "instance (a term is rented at launch there: launch OFFER --term 1mo)",
		    b->ops->name);
	/* Admitted as a launch is: the payment in flight while its provider answers. */
	return admit(&ctx, 0, in->currency, force, false, &out, err);
}

enum gr_err
guard_start(struct session *s, struct backend *b, const char *id, bool force,
    struct gr_error *err)
{
	struct admitted ctx = { s, b, NULL, NULL, NULL };
	struct instance in, out;
	enum inst_state state;

	if (observed_get(b, id, &in, err) != GR_OK)
		return err->code;
	/* One told to stop while it loads bills again too (its reservation was let go). */
	state = instance_billing_state(&in);
	if ((state != ST_STOPPED && state != ST_STOPPING) || !(in.valid & IV_PRICE))
		return session_start(b, id, err);
	ctx.stopped = &in;
	return admit(&ctx, in.price_hour, in.currency, force, false, &out, err);
}
