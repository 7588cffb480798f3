/*
 * The simulator's world: instances and their lifecycle, billing into the ledger, and the
 * clock. See sim.h for the contract.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/sim.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "sim_int.h"
#include "../store/store_int.h"

#define SIM_DEFAULT_OFFERS 400
#define SIM_MAX_OFFERS 1000000
#define SIM_START_CREDIT (500 * MICROS_PER_DOLLAR)
#define SIM_MAX_TIME 253402300799LL	/* 9999-12-31T23:59:59Z */

struct sim {
	struct state *st;
	struct state *ledger;	/* where transitions bill: st, or sim_set_ledger's */
	uint64_t seed;
	int64_t n_offers;
	int64_t fixed_time;	/* GPURENT_SIM_TIME, 0: real time */
	int64_t speed;
	int64_t epoch;		/* when this world was created, for GPURENT_SIM_SPEED */
	int ssh_port;		/* GPURENT_SIM_SSH_PORT */
	int tide_ratio;		/* GPURENT_SIM_TIDE: daily peak over trough of the load */
	int delay_pct;		/* GPURENT_SIM_DELAY: boots, stops and destroys take this % */
	struct market_cache market;	/* the last market sim_offers built */
	struct sim_preemption preempt;	/* sim serve's, for what this sim launches */
	bool disk_in_price;	/* sim serve's: what this sim launches bills its disk running */
	int64_t running_disk_gb_month;	/* sim serve's: the price of its disks while they run */
	int64_t storage_gb_month;	/* sim serve's: its dialect's disk price, 0: the offer's,
					   SIM_STORAGE_NONE: nothing */
};

/* The words an instance taken away is left with: sim_fault_of reads them back. */
static const char *const fault_msg[] = {
	[SIM_FAULT_OUTBID] = "outbid: the market price rose above the bid",
	[SIM_FAULT_HOST_FAILURE] = "host failure: the machine went down",
	[SIM_FAULT_UNREACHABLE] = "unreachable: the machine stopped answering",
};
static const char *const fault_names[] = {
	[SIM_FAULT_OUTBID] = "outbid",
	[SIM_FAULT_HOST_FAILURE] = "host-failure",
	[SIM_FAULT_UNREACHABLE] = "unreachable",
};

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS sim_instances("
	"  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  id TEXT UNIQUE NOT NULL, offer_idx INTEGER NOT NULL, type INTEGER NOT NULL,"
	"  state INTEGER NOT NULL, state_since INTEGER NOT NULL, next_at INTEGER NOT NULL,"
	"  run_since INTEGER NOT NULL DEFAULT 0, checked_until INTEGER NOT NULL DEFAULT 0,"
	"  price_hour INTEGER NOT NULL, bid_hour INTEGER NOT NULL, storage_hour INTEGER NOT NULL,"
	"  label TEXT NOT NULL, image TEXT NOT NULL, disk_gb INTEGER NOT NULL,"
	"  env TEXT NOT NULL, ports TEXT NOT NULL, onstart TEXT NOT NULL,"
	"  client_token TEXT NOT NULL, created_at INTEGER NOT NULL,"
	"  status_msg TEXT NOT NULL DEFAULT '',"
	"  fault INTEGER NOT NULL DEFAULT 0, fault_at INTEGER NOT NULL DEFAULT 0,"
	"  intended INTEGER NOT NULL DEFAULT 0, term_until INTEGER NOT NULL DEFAULT 0,"
	"  term_open INTEGER NOT NULL DEFAULT 0, term_months INTEGER NOT NULL DEFAULT 0,"
	"  disk_in_price INTEGER NOT NULL DEFAULT 0,"
	"  running_disk_hour INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX IF NOT EXISTS sim_instances_next ON sim_instances(next_at);"
	/* What the simulated provider billed beyond its instances' seconds (sim_bill_extra). */
	"CREATE TABLE IF NOT EXISTS sim_bill_extra("
	"  id TEXT NOT NULL, at INTEGER NOT NULL, amount INTEGER NOT NULL,"
	"  storage INTEGER NOT NULL);";

/*
 * What a world made before lacks: before `sim preempt`, an instance's fault and when it
 * comes; before intents, what the user last asked for (0: as its state); before terms,
 * what is paid ahead (none); before the disk was billed running, whether it is (0: it is
 * not); before a running disk had a price of its own, that price (none).
 */
static const struct store_column sim_columns[] = {
	{ "sim_instances", "fault", "INTEGER NOT NULL DEFAULT 0" },
	{ "sim_instances", "fault_at", "INTEGER NOT NULL DEFAULT 0" },
	{ "sim_instances", "intended", "INTEGER NOT NULL DEFAULT 0" },
	{ "sim_instances", "term_until", "INTEGER NOT NULL DEFAULT 0" },
	{ "sim_instances", "term_open", "INTEGER NOT NULL DEFAULT 0" },
	{ "sim_instances", "term_months", "INTEGER NOT NULL DEFAULT 0" },
	{ "sim_instances", "disk_in_price", "INTEGER NOT NULL DEFAULT 0" },
	{ "sim_instances", "running_disk_hour", "INTEGER NOT NULL DEFAULT 0" },
	{ NULL, NULL, NULL },
};

/* An integer setting from the environment: def when unset or empty, refused when bad. */
static enum gr_err
env_ll(const char *name, long long min, long long max, long long def, long long *out,
    struct gr_error *err)
{
	const char *v = getenv(name);
	char shown[48];

	*out = def;
	if (v == NULL || *v == '\0')
		return GR_OK;
	if (!parse_int(v, min, max, out))
		return gr_fail(err, GR_EUSAGE, "%s='%s' is not a whole number from %lld to %lld",
		    name, text_sanitize(shown, sizeof(shown), v), min, max);
	return GR_OK;
}

void
sim_each_live_id(struct state *st, size_t max, void (*fn)(const char *id, void *ctx), void *ctx)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "SELECT id FROM sim_instances WHERE state NOT IN (%d, %d) "
	    "ORDER BY seq DESC", ST_DESTROYED, ST_FAILED);
	store_each_text(st, sql, NULL, max, fn, ctx);
}

enum gr_err
sim_open(struct sim **out, struct state *st, struct gr_error *err)
{
	struct sim *s;
	char buf[32];
	long long n;

	/* A second try finds the columns that another gpurent, opening the same world from
	   before at the same moment, added after this one looked. */
	if (db_exec(state_db(st), schema, NULL, NULL, NULL) != DB_OK ||
	    (!store_add_columns(state_db(st), sim_columns) &&
	    !store_add_columns(state_db(st), sim_columns)))
		return state_fail(st, err, "cannot create the simulator's tables");
	s = xcalloc(1, sizeof(*s));
	s->st = st;
	s->ledger = st;
	if (env_ll("GPURENT_SIM_SEED", 0, INT64_MAX, 1, &n, err) != GR_OK)
		goto bad_env;
	s->seed = (uint64_t)n;
	if (env_ll("GPURENT_SIM_OFFERS", 1, SIM_MAX_OFFERS, SIM_DEFAULT_OFFERS, &n, err) != GR_OK)
		goto bad_env;
	s->n_offers = n;
	/* UTC seconds up to the end of year 9999, which RFC 3339 can still write. */
	if (env_ll("GPURENT_SIM_TIME", 1, SIM_MAX_TIME, 0, &n, err) != GR_OK)
		goto bad_env;
	s->fixed_time = n;
	if (env_ll("GPURENT_SIM_SPEED", 1, 100000, 1, &n, err) != GR_OK)
		goto bad_env;
	s->speed = n;
	if (env_ll("GPURENT_SIM_SSH_PORT", 1, 65535, 22, &n, err) != GR_OK)
		goto bad_env;
	s->ssh_port = (int)n;
	if (env_ll("GPURENT_SIM_TIDE", 1, 100, 7, &n, err) != GR_OK)
		goto bad_env;
	s->tide_ratio = (int)n;
	if (env_ll("GPURENT_SIM_DELAY", 1, 100, 100, &n, err) != GR_OK)
		goto bad_env;
	s->delay_pct = (int)n;
	if (state_meta_get(st, "sim.epoch", buf, sizeof(buf)) && parse_int(buf, 0, INT64_MAX, &n))
		s->epoch = n;
	else {
		s->epoch = (int64_t)time(NULL);
		snprintf(buf, sizeof(buf), "%lld", (long long)s->epoch);
		if (state_meta_set(st, "sim.epoch", buf, err) != GR_OK) {
			free(s);
			return err->code;
		}
	}
	*out = s;
	return GR_OK;
bad_env:
	free(s);
	return err->code;
}

void
sim_set_ledger(struct sim *s, struct state *ledger)
{
	s->ledger = ledger;
}

enum gr_err
sim_ledger_ready(struct sim *s, struct gr_error *err)
{
	return state_open_wait(s->ledger, err);
}

void
sim_close(struct sim *s)
{
	if (s == NULL)
		return;
	market_cache_release(&s->market);
	free(s);
}

uint64_t
sim_seed(const struct sim *s)
{
	return s->seed;
}

/*
 * A count of the changes to sim_instances that can change the offers' availability (a
 * launch, any change of an instance's state), bumped in the transaction that makes each:
 * the part of sim_offers_stamp that the rentals are.
 */
#define RENTALS_KEY "sim.rentals"

/* A number kept in meta: 0 when absent or not a number, as meta_int reads it. */
static enum gr_err
meta_read(struct sim *s, const char *key, int64_t *out, struct gr_error *err)
{
	struct db_stmt *q;
	long long n;
	int rc;

	*out = 0;
	if (db_prepare_v2(state_db(s->st), "SELECT value FROM meta WHERE key = ?", -1, &q,
	    NULL) != DB_OK)
		return state_fail(s->st, err, "cannot read meta");
	db_bind_text(q, 1, key, -1, DB_STATIC);
	rc = db_step(q);
	if (rc == DB_ROW && db_column_text(q, 0) != NULL &&
	    parse_int((const char *)db_column_text(q, 0), INT64_MIN / 2, INT64_MAX / 2, &n))
		*out = n;
	db_finalize(q);
	return rc == DB_ROW || rc == DB_DONE ? GR_OK : state_fail(s->st, err,
	    "cannot read meta");
}

static int64_t
meta_int(struct sim *s, const char *key)
{
	int64_t n;

	return meta_read(s, key, &n, NULL) == GR_OK ? n : 0;
}

/* The simulated clock at the real second `real`, before the offset `sim advance` stored. */
static int64_t
clock_base(const struct sim *s, int64_t real)
{
	if (s->fixed_time != 0)
		return s->fixed_time;
	return s->epoch + (real - s->epoch) * s->speed;
}

int64_t
sim_pace(const struct sim *s)
{
	return s->fixed_time != 0 ? 0 : s->speed;
}

int64_t
sim_time_at(struct sim *s, int64_t real)
{
	return clock_base(s, real) + meta_int(s, "sim.offset");
}

int64_t
sim_now(struct sim *s)
{
	return sim_time_at(s, (int64_t)time(NULL));
}

static enum gr_err
rentals_changed(struct sim *s, struct gr_error *err)
{
	char buf[32];
	int64_t n;

	/* A count that could not be read is not taken as 0: the stamp would go back. */
	if (meta_read(s, RENTALS_KEY, &n, err) != GR_OK)
		return err->code;
	snprintf(buf, sizeof(buf), "%lld", (long long)(n + 1));
	return state_meta_set(s->st, RENTALS_KEY, buf, err);
}

enum gr_err
sim_advance(struct sim *s, int64_t seconds, struct gr_error *err)
{
	char buf[32];

	if (seconds < 0)
		return gr_fail(err, GR_EUSAGE, "the simulated clock only moves forward");
	if (state_begin(s->st, err) != GR_OK)
		return err->code;
	snprintf(buf, sizeof(buf), "%lld", (long long)(meta_int(s, "sim.offset") + seconds));
	if (state_meta_set(s->st, "sim.offset", buf, err) != GR_OK) {
		state_rollback(s->st);
		return err->code;
	}
	if (state_commit(s->st, err) != GR_OK)
		return err->code;
	return sim_tick(s, err);
}

/* Delays in seconds, varied per instance so a fleet does not move in lockstep. */
static int64_t
delay_full(struct sim *s, const char *id, enum inst_state to, int64_t salt)
{
	uint64_t h = hash_mix(hash_mix(s->seed, hash_str(id)), (uint64_t)(to * 7919 + salt));

	switch (to) {
	case ST_RUNNING: return 20 + (int64_t)(h % 70);		/* boot, pull the image */
	case ST_STOPPED: return 8 + (int64_t)(h % 8);
	case ST_DESTROYED: return 3 + (int64_t)(h % 6);
	default: return 10;
	}
}

/* Shortened by GPURENT_SIM_DELAY, to a second at least: a short run's world moves on the
   real clock, which its providers' bills and gpurent's ledger share. */
static int64_t
delay(struct sim *s, const char *id, enum inst_state to, int64_t salt)
{
	int64_t d = delay_full(s, id, to, salt) * s->delay_pct / 100;

	return d > 0 ? d : 1;
}

struct row {
	int64_t seq;
	char id[ID_MAX];
	int64_t offer_idx;
	enum offer_type type;
	enum inst_state state;
	int64_t state_since, next_at, run_since, checked_until;
	int64_t price_hour, bid_hour, storage_hour;
	char label[LABEL_MAX];
	char image[128];
	int disk_gb;
	int64_t created_at;
	char status_msg[128];
	char workload[64];	/* SIM_WORKLOAD from its launch environment, "" when none */
	enum sim_fault fault;	/* to come at fault_at (an unreachable one: has come by then) */
	int64_t fault_at;
	enum inst_state intended;	/* ST_RUNNING or ST_STOPPED: the machine follows it */
	int64_t term_until;	/* paid ahead up to here (a term, a prepayment), 0: never */
	bool term_open;		/* its hourly price still waits for term_until */
	int term_months;	/* rented on a term of this many months, 0: by the hour */
	bool disk_in_price;	/* its disk billed while it runs too, not only when stopped */
	int64_t running_disk_hour;	/* its disks' own price while it runs (RunPod's) */
};

#define ROW_COLS "seq, id, offer_idx, type, state, state_since, next_at, run_since, " \
	"checked_until, price_hour, bid_hour, storage_hour, label, image, disk_gb, created_at, " \
	"status_msg, env, fault, fault_at, intended, term_until, term_open, term_months, " \
	"disk_in_price, running_disk_hour"

/* The value of SIM_WORKLOAD in an instance's launch environment (lines of K=V). */
static void
workload_of(const unsigned char *env, char *dst, size_t n)
{
	const char *p = (const char *)env, *end;

	dst[0] = '\0';
	for (; p != NULL && *p != '\0'; p = end + (*end != '\0')) {
		end = p + strcspn(p, "\n");
		if (strncmp(p, "SIM_WORKLOAD=", 13) == 0 && (size_t)(end - p - 13) < n) {
			memcpy(dst, p + 13, (size_t)(end - p - 13));
			dst[end - p - 13] = '\0';
		}
	}
}

/* One row of ROW_COLS into a zeroed struct row (store_rows' reader). */
static void
read_row(struct db_stmt *q, void *row)
{
	struct row *r = row;

	store_cols(q, "ItI--IIIIIIIttiIt--I-I-i", &r->seq, r->id, sizeof(r->id), &r->offer_idx,
	    &r->state_since, &r->next_at, &r->run_since, &r->checked_until, &r->price_hour,
	    &r->bid_hour, &r->storage_hour, r->label, sizeof(r->label), r->image, sizeof(r->image),
	    &r->disk_gb, &r->created_at, r->status_msg, sizeof(r->status_msg), &r->fault_at,
	    &r->term_until, &r->term_months);
	r->type = (enum offer_type)db_column_int(q, 3);
	r->state = (enum inst_state)db_column_int(q, 4);
	workload_of(db_column_text(q, 17), r->workload, sizeof(r->workload));
	r->fault = (enum sim_fault)db_column_int(q, 18);
	r->intended = (enum inst_state)db_column_int(q, 20);
	r->term_open = db_column_int(q, 22) != 0;
	r->disk_in_price = db_column_int(q, 24) != 0;
	r->running_disk_hour = db_column_int64(q, 25);
	/* A row from before intents: the user wanted what it is or is heading for. */
	if (r->intended != ST_RUNNING && r->intended != ST_STOPPED)
		r->intended = r->state == ST_STOPPED || r->state == ST_STOPPING ? ST_STOPPED :
		    ST_RUNNING;
}

static enum gr_err
save_row(struct sim *s, const struct row *r, struct gr_error *err)
{
	struct db_stmt *q;
	int rc;

	if (db_prepare_v2(state_db(s->st), "UPDATE sim_instances SET state = ?, "
	    "state_since = ?, next_at = ?, run_since = ?, checked_until = ?, status_msg = ?, "
	    "price_hour = ?, fault = ?, fault_at = ?, intended = ?, term_until = ?, term_open = ? "
	    "WHERE seq = ?", -1, &q,
	    NULL) != DB_OK)
		return state_fail(s->st, err, "cannot update an instance");
	db_bind_int(q, 1, r->state);
	db_bind_int64(q, 2, r->state_since);
	db_bind_int64(q, 3, r->next_at);
	db_bind_int64(q, 4, r->run_since);
	db_bind_int64(q, 5, r->checked_until);
	db_bind_text(q, 6, r->status_msg, -1, DB_STATIC);
	db_bind_int64(q, 7, r->price_hour);
	db_bind_int(q, 8, r->fault);
	db_bind_int64(q, 9, r->fault_at);
	db_bind_int(q, 10, r->intended);
	db_bind_int64(q, 11, r->term_until);
	db_bind_int(q, 12, r->term_open);
	db_bind_int64(q, 13, r->seq);
	rc = db_step(q);
	db_finalize(q);
	return rc == DB_DONE ? GR_OK : state_fail(s->st, err, "cannot update an instance");
}

static void
ledger_seg_for(struct sim *s, const struct row *r, enum ledger_kind kind, int64_t at,
    struct ledger_seg *seg)
{
	struct offer o;

	market_offer(s->seed, r->offer_idx, at, &o);
	memset(seg, 0, sizeof(*seg));
	strlcpy_(seg->instance_id, r->id, sizeof(seg->instance_id));
	strlcpy_(seg->provider, "sim", sizeof(seg->provider));
	strlcpy_(seg->label, r->label, sizeof(seg->label));
	strlcpy_(seg->gpu, o.gpu ? o.gpu->id : "", sizeof(seg->gpu));
	seg->kind = kind;
	/* Paid ahead: no hourly price until the term's end. */
	seg->rate_hour = kind == LEDGER_STORAGE ? r->storage_hour : at < r->term_until ? 0 :
	    r->price_hour;
	if (kind != LEDGER_STORAGE && r->disk_in_price)
		seg->rate_hour = money_add(seg->rate_hour, r->storage_hour);
	if (kind != LEDGER_STORAGE)
		seg->rate_hour = money_add(seg->rate_hour, r->running_disk_hour);
	seg->start = at;
}

/* Whether an instance in state st holds a machine that can be taken away. */
static bool
has_machine(enum inst_state st)
{
	return st == ST_PROVISIONING || st == ST_STARTING || st == ST_RUNNING;
}

/* Move r into state `to` at time `at`, billing as the new state requires. */
static enum gr_err
transition(struct sim *s, struct row *r, enum inst_state to, int64_t at, struct gr_error *err)
{
	struct ledger_seg seg;

	if (rentals_changed(s, err) != GR_OK)
		return err->code;
	r->state = to;
	r->state_since = at;
	r->next_at = 0;
	/* Leaving its machine (stopped, destroyed, failed) ends a fault still to come. */
	if (!has_machine(to)) {
		r->fault = SIM_FAULT_NONE;
		r->fault_at = 0;
	}
	switch (to) {
	case ST_RUNNING:
		r->run_since = at;
		r->checked_until = at;
		r->status_msg[0] = '\0';
		ledger_seg_for(s, r, LEDGER_COMPUTE, at, &seg);
		return ledger_begin(s->ledger, &seg, err);
	case ST_STOPPED:
		if (r->storage_hour <= 0)
			return ledger_end(s->ledger, r->id, at, err);
		ledger_seg_for(s, r, LEDGER_STORAGE, at, &seg);
		return ledger_begin(s->ledger, &seg, err);
	case ST_STOPPING:
		r->next_at = at + delay(s, r->id, ST_STOPPED, at);
		return ledger_end(s->ledger, r->id, at, err);
	case ST_STARTING:
		/* Not billing yet, but about to at its price: budgets and projections count it. */
		r->next_at = at + delay(s, r->id, ST_RUNNING, at);
		ledger_seg_for(s, r, LEDGER_PROVISIONING, at, &seg);
		return ledger_begin(s->ledger, &seg, err);
	case ST_DESTROYING:
		r->next_at = at + delay(s, r->id, ST_DESTROYED, at);
		return ledger_end(s->ledger, r->id, at, err);
	default:
		return ledger_end(s->ledger, r->id, at, err);
	}
}

/*
 * The first hour boundary in (from, to] at which the market clears above the bid, or 0.
 * Bounded: a world left alone for over a year is checked for its last year only.
 */
static int64_t
outbid_at(struct sim *s, const struct row *r, int64_t from, int64_t to)
{
	int64_t floor = market_spot_floor(s->seed, r->offer_idx), h;

	if (to - from > 366 * 86400)
		from = to - 366 * 86400;
	for (h = (from / 3600 + 1) * 3600; h <= to; h += 3600)
		if (market_spot_price(s->seed, r->offer_idx, floor, h) > r->bid_hour)
			return h;
	return 0;
}

/* When r's fault takes its machine: an unreachable one fails a while after it went quiet. */
static int64_t
fault_due(const struct row *r)
{
	if (r->fault == SIM_FAULT_NONE)
		return 0;
	return r->fault_at + (r->fault == SIM_FAULT_UNREACHABLE ? SIM_UNREACHABLE_FAILS_AFTER : 0);
}

/* Whether r's ssh has stopped answering at t. */
static bool
unreachable_at(const struct row *r, int64_t t)
{
	return r->fault == SIM_FAULT_UNREACHABLE && r->fault_at <= t;
}

/* r loses its machine at `at` as its fault says: outbid stops it, the others fail it. */
static enum gr_err
take_away(struct sim *s, struct row *r, int64_t at, struct gr_error *err)
{
	enum sim_fault f = r->fault;

	if (transition(s, r, f == SIM_FAULT_OUTBID ? ST_STOPPED : ST_FAILED, at, err) != GR_OK)
		return err->code;
	strlcpy_(r->status_msg, fault_msg[f], sizeof(r->status_msg));
	return GR_OK;
}

/* Apply every event due for r up to now, in time order. */
static enum gr_err
advance_row(struct sim *s, struct row *r, int64_t now, struct gr_error *err)
{
	bool changed = false;
	int guard;

	for (guard = 0; guard < 16; guard++) {
		int64_t when = r->next_at, due = fault_due(r);
		/* The market is read up to a fault that comes first, then the fault acts. */
		int64_t upto = due != 0 && due < now ? due : now;
		enum inst_state to = ST_UNKNOWN;

		if (r->state == ST_RUNNING && r->type == OFFER_INTERRUPTIBLE &&
		    r->checked_until < upto) {
			int64_t lost = outbid_at(s, r, r->checked_until, upto);

			if (lost != 0) {
				if (transition(s, r, ST_STOPPED, lost, err) != GR_OK)
					return err->code;
				strlcpy_(r->status_msg, fault_msg[SIM_FAULT_OUTBID],
				    sizeof(r->status_msg));
				changed = true;
				continue;
			}
			r->checked_until = upto;
			changed = true;
		}
		/* The term ends first when it ends first: a running machine bills again. */
		if (r->term_open && r->term_until <= now && (when == 0 || r->term_until <= when) &&
		    (due == 0 || r->term_until <= due)) {
			struct ledger_seg seg;

			r->term_open = false;
			changed = true;
			if (r->state == ST_RUNNING) {
				ledger_seg_for(s, r, LEDGER_COMPUTE, r->term_until, &seg);
				if (ledger_begin(s->ledger, &seg, err) != GR_OK)
					return err->code;
			}
			continue;
		}
		if (due != 0 && due <= now && (when == 0 || due <= when)) {
			if (take_away(s, r, due, err) != GR_OK)
				return err->code;
			changed = true;
			continue;
		}
		if (when == 0 || when > now)
			break;
		/* A step under way finishes, then the machine goes where it was last told. */
		switch (r->state) {
		case ST_PROVISIONING:
		case ST_STARTING:
			to = r->intended == ST_STOPPED ? ST_STOPPED : ST_RUNNING;
			break;
		case ST_STOPPING:
			to = r->intended == ST_RUNNING ? ST_STARTING : ST_STOPPED;
			break;
		case ST_DESTROYING: to = ST_DESTROYED; break;
		default: r->next_at = 0; continue;
		}
		if (transition(s, r, to, when, err) != GR_OK)
			return err->code;
		changed = true;
	}
	return changed ? save_row(s, r, err) : GR_OK;
}

static enum gr_err
tick_locked(struct sim *s, int64_t now, struct gr_error *err)
{
	/* Rows with a due event, running interruptible rows (they can be outbid), rows
	   with a fault come (an unreachable one fails a while later), and terms ended. */
	struct db_stmt *q = store_prepare(s->st, "SELECT " ROW_COLS " FROM sim_instances WHERE "
	    "(next_at > 0 AND next_at <= ?1) OR (state = ?2 AND type = ?3 AND "
	    "checked_until < ?1) OR (fault > 0 AND fault_at <= ?1) OR (term_open = 1 AND "
	    "term_until <= ?1)", "Iii", now,
	    (int)ST_RUNNING, (int)OFFER_INTERRUPTIBLE);
	struct row *rows;
	size_t n, i;

	if (!store_rows(q, (void **)&rows, &n, sizeof(*rows), read_row))
		return state_fail(s->st, err, "cannot read instances");
	for (i = 0; i < n; i++)
		if (advance_row(s, &rows[i], now, err) != GR_OK)
			break;
	free(rows);
	return err != NULL && err->code != GR_OK ? err->code : GR_OK;
}

enum gr_err
sim_tick(struct sim *s, struct gr_error *err)
{
	if (state_begin(s->st, err) != GR_OK)
		return err->code;
	if (tick_locked(s, sim_now(s), err) != GR_OK) {
		state_rollback(s->st);
		return err->code;
	}
	return state_commit(s->st, err);
}

/* Instances holding each offer's machines now: counts[idx] for idx < n. */
static enum gr_err
rented_counts(struct sim *s, int *counts, int64_t n, struct gr_error *err)
{
	struct db_stmt *q;
	int rc;

	if (db_prepare_v2(state_db(s->st), "SELECT offer_idx, count(*) FROM sim_instances "
	    "WHERE state NOT IN (?, ?, ?) GROUP BY offer_idx", -1, &q, NULL) != DB_OK)
		return state_fail(s->st, err, "cannot read instances");
	db_bind_int(q, 1, ST_DESTROYED);
	db_bind_int(q, 2, ST_FAILED);
	db_bind_int(q, 3, ST_STOPPED);
	while ((rc = db_step(q)) == DB_ROW) {
		int64_t idx = db_column_int64(q, 0);

		if (idx >= 0 && idx < n)
			counts[idx] = db_column_int(q, 1);
	}
	db_finalize(q);
	return rc == DB_DONE ? GR_OK : state_fail(s->st, err, "cannot read instances");
}

enum gr_err
sim_offers(struct sim *s, struct offer_list *out, struct gr_error *err)
{
	const struct offer *market;
	int *counts;
	int64_t now, i;
	enum gr_err rc;

	if (sim_tick(s, err) != GR_OK)
		return err->code;
	now = sim_now(s);
	counts = xcalloc((size_t)s->n_offers, sizeof(*counts));
	rc = rented_counts(s, counts, s->n_offers, err);
	/* From the second ask on, the market before rentals is kept and built again only when
	 * the clock leaves its ten minutes; rentals change between any two asks, so they are
	 * read every time. */
	market = rc == GR_OK ? market_kept(&s->market, s->seed, s->n_offers, now) : NULL;
	for (i = 0; rc == GR_OK && i < s->n_offers; i++) {
		struct offer *o;

		out->v = xgrow(out->v, out->n, &out->cap, sizeof(*out->v), (size_t)s->n_offers);
		o = &out->v[out->n];
		if (market != NULL)
			*o = market[i];
		else
			market_offer(s->seed, i, now, o);
		o->available -= counts[i];
		if (o->available > 0)
			out->n++;
	}
	free(counts);
	return rc;
}

enum gr_err
sim_offers_stamp(struct sim *s, uint64_t *out, struct gr_error *err)
{
	int64_t offset, rentals;

	/* Instances whose delays ended by now change state first, as in sim_offers. An offer
	 * reads the clock only through its ten minutes (market.c: prices by the hour are
	 * whole multiples of them). */
	if (sim_tick(s, err) != GR_OK || meta_read(s, "sim.offset", &offset, err) != GR_OK ||
	    meta_read(s, RENTALS_KEY, &rentals, err) != GR_OK)
		return err->code;
	*out = hash_mix(hash_mix(hash_mix(s->seed, (uint64_t)s->n_offers),
	    (uint64_t)((clock_base(s, (int64_t)time(NULL)) + offset) / MARKET_AVAIL_PERIOD)), (uint64_t)rentals);
	return GR_OK;
}

enum gr_err
sim_offer(struct sim *s, const char *id, struct offer *out, struct gr_error *err)
{
	enum offer_type type;
	int64_t idx;
	int *counts, months;
	enum gr_err rc;

	if (!market_parse_offer_id(id, &idx, &type, &months) || idx >= s->n_offers)
		return gr_fail(err, GR_ENOTFOUND, "no offer '%s'", id);
	market_offer(s->seed, idx, sim_now(s), out);
	/* A term is sold of every machine sold on demand. */
	if (type == OFFER_RESERVED && out->type == OFFER_ON_DEMAND) {
		struct offer od = *out;

		sim_term_offer(&od, months, out);
	}
	if (out->type != type)
		return gr_fail(err, GR_ENOTFOUND, "no offer '%s'", id);
	counts = xcalloc((size_t)s->n_offers, sizeof(*counts));
	rc = rented_counts(s, counts, s->n_offers, err);
	out->available -= counts[idx];
	if (out->available < 0)
		out->available = 0;
	free(counts);
	return rc;
}

static void
row_to_instance(struct sim *s, const struct row *r, int64_t now, struct instance *in)
{
	struct offer o;
	struct gpu_sample g;
	int i, sum = 0;

	market_offer(s->seed, r->offer_idx, r->created_at, &o);
	memset(in, 0, sizeof(*in));
	strlcpy_(in->id, r->id, sizeof(in->id));
	strlcpy_(in->provider, "sim", sizeof(in->provider));
	strlcpy_(in->offer_id, o.id, sizeof(in->offer_id));
	in->gpu = o.gpu;
	strlcpy_(in->gpu_raw, o.gpu_raw, sizeof(in->gpu_raw));
	in->gpu_count = o.gpu_count;
	in->state = r->state;
	in->type = r->type;
	in->price_hour = r->price_hour;
	in->bid_hour = r->bid_hour;
	in->storage_hour = r->storage_hour;
	strlcpy_(in->label, r->label, sizeof(in->label));
	strlcpy_(in->image, r->image, sizeof(in->image));
	strlcpy_(in->region, o.region, sizeof(in->region));
	in->disk_gb = r->disk_gb;
	in->created_at = r->created_at;
	in->state_since = r->state_since;
	strlcpy_(in->status_msg, r->status_msg, sizeof(in->status_msg));
	in->intended = r->intended;
	in->term_until = r->term_until;
	in->term_months = r->term_months;
	in->valid = IV_PRICE | IV_CREATED | IV_STORAGE;
	if (r->state == ST_RUNNING) {
		const char *host = getenv("GPURENT_SIM_SSH_HOST");
		const char *user = getenv("GPURENT_SIM_SSH_USER");

		strlcpy_(in->ssh_host, host && *host ? host : "127.0.0.1", sizeof(in->ssh_host));
		in->ssh_port = unreachable_at(r, now) ? SIM_DEAD_SSH_PORT : s->ssh_port;
		strlcpy_(in->ssh_user, user && *user ? user : "root", sizeof(in->ssh_user));
		in->valid |= IV_SSH;
		bool util;

		/* A machine that stopped answering sends its provider no metrics either. */
		if (!unreachable_at(r, now) && workload_reports(s->seed, r->id, r->workload,
		    r->run_since, now, &util) && util) {
			for (i = 0; i < o.gpu_count; i++) {
				workload_sample(s->seed, r->id, r->workload, s->tide_ratio, o.gpu,
				    i, r->run_since, now, &g);
				sum += g.util_pct;
			}
			in->util_pct = o.gpu_count ? sum / o.gpu_count : 0;
			in->valid |= IV_UTIL;
		}
	}
}

/* Cost so far of an instance, from the ledger's billing segments, up to now. */
static int64_t
instance_cost(struct sim *s, const char *id, int64_t now)
{
	return ledger_spent(s->ledger, "sim", id, now, NULL);
}

static enum gr_err
load_rows(struct sim *s, const char *where, const char *arg, struct row **out, size_t *n,
    struct gr_error *err)
{
	char sql[512];
	struct db_stmt *q;

	snprintf(sql, sizeof(sql), "SELECT " ROW_COLS " FROM sim_instances %s ORDER BY seq", where);
	q = store_prepare(s->st, sql, arg != NULL ? "t" : "", arg);
	if (!store_rows(q, (void **)out, n, sizeof(**out), read_row))
		return state_fail(s->st, err, "cannot read instances");
	return GR_OK;
}

enum gr_err
sim_instances(struct sim *s, bool with_destroyed, struct instance_list *out,
    struct gr_error *err)
{
	struct row *rows = NULL;
	struct ledger_spent_all *spent;
	size_t n, i;
	int64_t now;

	if (sim_tick(s, err) != GR_OK)
		return err->code;
	now = sim_now(s);
	if (load_rows(s, with_destroyed ? "" : "WHERE state != 7", NULL, &rows, &n, err) !=
	    GR_OK)
		return err->code;
	/* The ledger's state may still be opening: waited for only now. */
	if (sim_ledger_ready(s, err) != GR_OK) {
		free(rows);
		return err->code;
	}
	spent = ledger_spent_all(s->ledger, now);
	for (i = 0; i < n; i++) {
		struct instance *in = instance_list_add(out);

		row_to_instance(s, &rows[i], now, in);
		in->cost_so_far = ledger_spent_of(spent, in->id);
		in->valid |= IV_COST;
	}
	ledger_spent_all_free(spent);
	free(rows);
	return GR_OK;
}

/* Bring the world up to now and read one instance's row; GR_ENOTFOUND when there is none. */
static enum gr_err
fresh_row(struct sim *s, const char *id, struct row *out, struct gr_error *err)
{
	struct row *rows = NULL;
	size_t n;

	if (sim_tick(s, err) != GR_OK || load_rows(s, "WHERE id = ?", id, &rows, &n, err) != GR_OK)
		return err->code;
	if (n == 0) {
		free(rows);
		return gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
	}
	*out = rows[0];
	free(rows);
	return GR_OK;
}

enum gr_err
sim_get(struct sim *s, const char *id, struct instance *out, struct gr_error *err)
{
	struct row r;
	int64_t now;

	if (fresh_row(s, id, &r, err) != GR_OK)
		return err->code;
	now = sim_now(s);
	row_to_instance(s, &r, now, out);
	out->cost_so_far = instance_cost(s, out->id, now);
	out->valid |= IV_COST;
	return GR_OK;
}

/* Everything the simulated account was billed, extras included, and its burn rate now. */
static enum gr_err
total_spend(struct sim *s, int64_t now, int64_t *spent, int64_t *burn, struct gr_error *err)
{
	struct db_stmt *q = store_prepare(s->st, "SELECT coalesce(sum(amount), 0) FROM "
	    "sim_bill_extra WHERE at <= ?", "I", now);

	if (q == NULL || db_step(q) != DB_ROW) {
		db_finalize(q);
		return state_fail(s->st, err, "cannot read the simulated bill");
	}
	*spent = money_add(ledger_spent(s->ledger, "sim", NULL, now, burn),
	    db_column_int64(q, 0));
	db_finalize(q);
	return GR_OK;
}

enum gr_err
sim_bill(struct sim *s, int64_t since, int64_t until, struct charge_list *out,
    struct gr_error *err)
{
	struct db_stmt *q;
	int64_t now;

	if (sim_tick(s, err) != GR_OK)
		return err->code;
	now = sim_now(s);
	if (until == 0 || until > now)
		until = now;
	/* The simulator bills what it wrote into the ledger as its instances moved: its
	   seconds are the provider's own, whatever another backend observed of them. */
	if (ledger_days(s->ledger, "sim", since, until, out, err) != GR_OK)
		return err->code;
	/* Up to now, what was billed this second too (a fixed clock stays on it). */
	q = store_prepare(s->st, "SELECT id, at, amount, storage FROM sim_bill_extra "
	    "WHERE at >= ? AND at < ?", "II", since, until == now ? now + 1 : until);
	while (q != NULL && db_step(q) == DB_ROW) {
		struct charge *c = charge_list_add(out);

		store_col_text(q, 0, c->instance_id, sizeof(c->instance_id));
		c->day = db_column_int64(q, 1) - db_column_int64(q, 1) % 86400;
		c->amount = db_column_int64(q, 2);
		c->storage = db_column_int(q, 3) ? c->amount : 0;
		strlcpy_(c->currency, "USD", sizeof(c->currency));
	}
	if (q == NULL || db_finalize(q) != DB_OK)
		return state_fail(s->st, err, "cannot read the simulated bill");
	charge_list_fold(out);
	return GR_OK;
}

enum gr_err
sim_bill_extra(struct sim *s, const char *id, int64_t amount, bool storage,
    struct gr_error *err)
{
	long long n;

	if (strncmp(id, "sim:i-", 6) != 0 || !parse_int(id + 6, 0, INT64_MAX / 4, &n))
		return gr_fail(err, GR_EUSAGE, "'%s' is not a simulated instance id (sim:i-NNNNNN)",
		    id);
	if (!store_run(s->st, "INSERT INTO sim_bill_extra(id, at, amount, storage) "
	    "VALUES(?, ?, ?, ?)", "tIIi", id, sim_now(s), amount, (int)storage))
		return state_fail(s->st, err, "cannot bill the simulated account");
	return GR_OK;
}

enum gr_err
sim_account(struct sim *s, struct account *out, struct gr_error *err)
{
	int64_t spent, burn;

	if (sim_tick(s, err) != GR_OK)
		return err->code;
	if (total_spend(s, sim_now(s), &spent, &burn, err) != GR_OK)
		return err->code;
	memset(out, 0, sizeof(*out));
	out->balance = SIM_START_CREDIT - spent;
	out->spend_hour = burn;
	out->valid = AV_BALANCE | AV_SPEND;
	return GR_OK;
}

static char *
join_env(const char *const *env)
{
	struct sb sb;

	sb_init(&sb);
	for (; env != NULL && *env != NULL; env++) {
		if (sb.len)
			sb_addc(&sb, '\n');
		sb_adds(&sb, *env);
	}
	return sb_detach(&sb);
}

static char *
join_ports(const int *ports, size_t n)
{
	struct sb sb;
	size_t i;

	sb_init(&sb);
	for (i = 0; i < n; i++)
		sb_addf(&sb, "%s%d", i ? "," : "", ports[i]);
	return sb_detach(&sb);
}

/* sim serve's preemption for an instance launched at `now` (sim.h), into r's fault. */
static void
planned_fault(const struct sim *s, const char *id, enum offer_type type, int64_t now,
    struct row *r)
{
	const struct sim_preemption *p = &s->preempt;
	uint64_t h = hash_mix(p->seed, hash_str(id));
	bool spot = type == OFFER_INTERRUPTIBLE;

	r->fault = SIM_FAULT_NONE;
	r->fault_at = 0;
	if (p->after <= 0 || (p->fault == SIM_FAULT_OUTBID && !spot))
		return;
	r->fault = p->fault != SIM_FAULT_NONE ? p->fault : !p->seeded ?
	    (spot ? SIM_FAULT_OUTBID : SIM_FAULT_HOST_FAILURE) :
	    /* Drawn among the ways that fit it: outbid only for an interruptible one. */
	    (enum sim_fault)(spot ? 1 + (h >> 32) % 3 : 2 + (h >> 32) % 2);
	r->fault_at = now + (p->seeded ? p->after / 2 + (int64_t)(h % (uint64_t)(p->after + 1))
	    : p->after);
}

/* Bill a term paid ahead: [from, to) at rate_hour, whole now (ledger.h, LEDGER_TERM). */
static enum gr_err
pay_term(struct sim *s, const char *id, const struct gpu_model *gpu, const char *label,
    int64_t rate_hour, int64_t from, int64_t to, struct gr_error *err)
{
	struct ledger_seg seg;

	memset(&seg, 0, sizeof(seg));
	strlcpy_(seg.instance_id, id, sizeof(seg.instance_id));
	strlcpy_(seg.provider, "sim", sizeof(seg.provider));
	strlcpy_(seg.label, label ? label : "", sizeof(seg.label));
	strlcpy_(seg.gpu, gpu ? gpu->id : "", sizeof(seg.gpu));
	seg.kind = LEDGER_TERM;
	seg.rate_hour = rate_hour;
	seg.start = from;
	seg.end = to;
	return ledger_add_term(s->ledger, &seg, err);
}

static enum gr_err
launch_locked(struct sim *s, const struct launch_req *req, struct instance *out,
    struct gr_error *err)
{
	struct offer o;
	struct row *rows = NULL;
	struct row r;
	struct db_stmt *q;
	char *env = NULL, *ports = NULL;
	int64_t now = sim_now(s), spent, burn, price, storage, paid;
	size_t n;
	int rc, months;

	/* A retried launch with the same client token finds the first one. */
	if (req->client_token != NULL && *req->client_token != '\0') {
		if (db_prepare_v2(state_db(s->st), "SELECT id FROM sim_instances WHERE "
		    "client_token = ?", -1, &q, NULL) != DB_OK)
			return state_fail(s->st, err, "cannot read instances");
		db_bind_text(q, 1, req->client_token, -1, DB_STATIC);
		rc = db_step(q);
		if (rc == DB_ROW) {
			char id[ID_MAX];

			store_col_text(q, 0, id, sizeof(id));
			db_finalize(q);
			if (load_rows(s, "WHERE id = ?", id, &rows, &n, err) != GR_OK)
				return err->code;
			if (n > 0)
				row_to_instance(s, &rows[0], now, out);
			free(rows);
			return GR_OK;
		}
		db_finalize(q);
	}
	if (sim_offer(s, req->offer_id, &o, err) != GR_OK)
		return err->code;
	if (o.available <= 0)
		return gr_fail(err, GR_ECAPACITY, "offer '%s' is no longer available: every "
		    "machine of it is rented; search again", req->offer_id);
	if (req->disk_gb > o.disk_gb)
		return gr_fail(err, GR_EUSAGE, "offer '%s' has %d GB of disk; %d GB asked",
		    req->offer_id, o.disk_gb, req->disk_gb);
	price = o.price_hour;
	/* A term: the offer's, or one asked of an on-demand offer (PPIO's prepaid mode). */
	months = o.type == OFFER_RESERVED ? o.term_months : req->term_months;
	if (months > 0 && o.type == OFFER_ON_DEMAND) {
		struct offer od = o;

		if (sim_term_discount_pct(months) == 0)
			return gr_fail(err, GR_EUSAGE, "the simulator sells terms of 1 or 3 months, "
			    "not %d", months);
		sim_term_offer(&od, months, &o);
	}
	if (months > 0)
		price = o.ondemand_hour;
	if (o.type == OFFER_INTERRUPTIBLE) {
		int64_t bid = req->interruptible && req->bid_hour > 0 ? req->bid_hour : o.price_hour;

		if (bid < o.price_hour) {
			char a[32], b[32];

			return gr_fail(err, GR_EUSAGE, "bid %s/h is below the current price %s/h "
			    "of offer '%s'", money_format(a, sizeof(a), bid, 3, true),
			    money_format(b, sizeof(b), o.price_hour, 3, true), req->offer_id);
		}
		price = bid;
	} else if (req->interruptible)
		return gr_fail(err, GR_EUSAGE, "offer '%s' is on-demand and takes no bid; pick "
		    "an offer with type=interruptible", req->offer_id);
	if (total_spend(s, now, &spent, &burn, err) != GR_OK)
		return err->code;
	paid = months > 0 ? o.term_price : 0;
	if (months > 0 && SIM_START_CREDIT - spent < paid) {
		char a[32];

		return gr_fail(err, GR_EFUNDS, "the simulated account has %s left, less than "
		    "this term's price", money_format(a, sizeof(a), SIM_START_CREDIT - spent, 2,
		    true));
	}
	if (SIM_START_CREDIT - spent < price) {
		char a[32];

		return gr_fail(err, GR_EFUNDS, "the simulated account has %s left, less than an "
		    "hour of this offer", money_format(a, sizeof(a), SIM_START_CREDIT - spent, 2,
		    true));
	}
	storage = s->storage_gb_month == SIM_STORAGE_NONE ? 0 :
	    money_scale(s->storage_gb_month > 0 ? s->storage_gb_month : o.storage_gb_month,
	    req->disk_gb > 0 ? req->disk_gb :
	    SIM_DEFAULT_DISK_GB, 730);
	env = join_env(req->env);
	ports = join_ports(req->ports, req->n_ports);
	if (db_prepare_v2(state_db(s->st), "INSERT INTO sim_instances(id, offer_idx, type, "
	    "state, state_since, next_at, price_hour, bid_hour, storage_hour, label, image, "
	    "disk_gb, env, ports, onstart, client_token, created_at, intended, term_until, "
	    "term_open, term_months, disk_in_price, running_disk_hour) VALUES('', ?, ?, ?, ?, ?, "
	    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &q, NULL) != DB_OK) {
		free(env);
		free(ports);
		return state_fail(s->st, err, "cannot record the instance");
	}
	{
		int64_t idx;
		enum offer_type t;

		market_parse_offer_id(o.id, &idx, &t, NULL);
		db_bind_int64(q, 1, idx);
	}
	db_bind_int(q, 2, o.type);
	db_bind_int(q, 3, ST_PROVISIONING);
	db_bind_int64(q, 4, now);
	db_bind_int64(q, 5, 0);
	db_bind_int64(q, 6, price);
	db_bind_int64(q, 7, o.type == OFFER_INTERRUPTIBLE ? price : 0);
	db_bind_int64(q, 8, storage);
	db_bind_text(q, 9, req->label ? req->label : "", -1, DB_STATIC);
	db_bind_text(q, 10, req->image ? req->image :
	    "nvidia/cuda:12.4.1-runtime-ubuntu22.04", -1, DB_STATIC);
	db_bind_int(q, 11, req->disk_gb > 0 ? req->disk_gb : SIM_DEFAULT_DISK_GB);
	db_bind_text(q, 12, env, -1, DB_STATIC);
	db_bind_text(q, 13, ports, -1, DB_STATIC);
	db_bind_text(q, 14, req->onstart ? req->onstart : "", -1, DB_STATIC);
	db_bind_text(q, 15, req->client_token ? req->client_token : "", -1, DB_STATIC);
	db_bind_int64(q, 16, now);
	db_bind_int(q, 17, ST_RUNNING);
	db_bind_int64(q, 18, months > 0 ? now + (int64_t)months * TERM_MONTH_HOURS * 3600 : 0);
	db_bind_int(q, 19, months > 0);
	db_bind_int(q, 20, months);
	db_bind_int(q, 21, s->disk_in_price);
	db_bind_int64(q, 22, money_scale(s->running_disk_gb_month, req->disk_gb > 0 ?
	    req->disk_gb : SIM_DEFAULT_DISK_GB, 730));
	rc = db_step(q);
	db_finalize(q);
	free(env);
	free(ports);
	if (rc != DB_DONE)
		return state_fail(s->st, err, "cannot record the instance");
	memset(&r, 0, sizeof(r));
	r.seq = db_last_insert_rowid(state_db(s->st));
	snprintf(r.id, sizeof(r.id), "sim:i-%06lld", (long long)r.seq);
	planned_fault(s, r.id, o.type, now, &r);
	if (db_prepare_v2(state_db(s->st), "UPDATE sim_instances SET id = ?, next_at = ?, "
	    "fault = ?, fault_at = ? WHERE seq = ?", -1, &q, NULL) != DB_OK)
		return state_fail(s->st, err, "cannot record the instance");
	db_bind_text(q, 1, r.id, -1, DB_STATIC);
	db_bind_int64(q, 2, now + delay(s, r.id, ST_RUNNING, 0));
	db_bind_int(q, 3, r.fault);
	db_bind_int64(q, 4, r.fault_at);
	db_bind_int64(q, 5, r.seq);
	rc = db_step(q);
	db_finalize(q);
	if (rc != DB_DONE)
		return state_fail(s->st, err, "cannot record the instance");
	if (months > 0 && pay_term(s, r.id, o.gpu, req->label, o.price_hour, now,
	    now + (int64_t)months * TERM_MONTH_HOURS * 3600, err) != GR_OK)
		return err->code;
	/* Not before the row's seq was read: the meta row would be the last one inserted. */
	if (rentals_changed(s, err) != GR_OK ||
	    load_rows(s, "WHERE id = ?", r.id, &rows, &n, err) != GR_OK)
		return err->code;
	if (n > 0)
		row_to_instance(s, &rows[0], now, out);
	free(rows);
	return GR_OK;
}

enum gr_err
sim_launch(struct sim *s, const struct launch_req *req, struct instance *out,
    struct gr_error *err)
{
	if (state_begin(s->st, err) != GR_OK)
		return err->code;
	if (tick_locked(s, sim_now(s), err) != GR_OK ||
	    launch_locked(s, req, out, err) != GR_OK) {
		state_rollback(s->st);
		return err->code;
	}
	return state_commit(s->st, err);
}

/* Whether an interruptible instance's bid still clears the market at now: else why not. */
static enum gr_err
bid_clears(struct sim *s, const struct row *r, int64_t now, struct gr_error *err)
{
	int64_t market;
	char a[32], b[32];

	if (r->type != OFFER_INTERRUPTIBLE)
		return GR_OK;
	market = market_spot_price(s->seed, r->offer_idx, market_spot_floor(s->seed,
	    r->offer_idx), now);
	if (market <= r->bid_hour)
		return GR_OK;
	return gr_fail(err, GR_ECAPACITY, "cannot start '%s': the market price %s/h is above "
	    "its bid %s/h", r->id, money_format(a, sizeof(a), market, 3, true),
	    money_format(b, sizeof(b), r->bid_hour, 3, true));
}

/*
 * Record what the user wants of r, a machine between two states, as vast.ai does
 * (providers/vast.md section 4.3, intended_status): the step under way finishes and the
 * machine follows (advance_row). One still provisioning or starting that is told to stop
 * lets its reservation go, for it will not run; told to start again, it takes it back.
 */
static enum gr_err
intend(struct sim *s, struct row *r, enum inst_state want, int64_t now, struct gr_error *err)
{
	struct ledger_seg seg;

	if (r->intended == want)
		return GR_OK;
	r->intended = want;
	if (r->state == ST_PROVISIONING || r->state == ST_STARTING) {
		if (want == ST_STOPPED) {
			if (ledger_end(s->ledger, r->id, now, err) != GR_OK)
				return err->code;
		} else {
			ledger_seg_for(s, r, LEDGER_PROVISIONING, now, &seg);
			if (ledger_begin(s->ledger, &seg, err) != GR_OK)
				return err->code;
		}
	}
	return save_row(s, r, err);
}

/*
 * Begin a transaction, bring the world up to *now and read instance id's row into (*rows)[0];
 * on an error (GR_ENOTFOUND: no such instance) nothing is left open or allocated.
 */
static enum gr_err
begin_on_row(struct sim *s, const char *id, struct row **rows, int64_t *now,
    struct gr_error *err)
{
	enum gr_err rc;
	size_t n = 0;

	*rows = NULL;
	if ((rc = state_begin(s->st, err)) != GR_OK)
		return rc;
	*now = sim_now(s);
	if ((rc = tick_locked(s, *now, err)) == GR_OK &&
	    (rc = load_rows(s, "WHERE id = ?", id, rows, &n, err)) == GR_OK && n == 0)
		rc = gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
	if (rc != GR_OK) {
		free(*rows);
		*rows = NULL;
		state_rollback(s->st);
	}
	return rc;
}

/* End begin_on_row's transaction: committed when rc is GR_OK, else rolled back; rows freed. */
static enum gr_err
end_on_row(struct sim *s, struct row *rows, enum gr_err rc, struct gr_error *err)
{
	free(rows);
	if (rc != GR_OK) {
		state_rollback(s->st);
		return rc;
	}
	return state_commit(s->st, err);
}

/* Apply a user action to one instance inside one transaction. */
static enum gr_err
act(struct sim *s, const char *id, enum inst_state want, struct gr_error *err)
{
	struct row *rows, *r;
	int64_t now;
	enum inst_state to = want;
	enum gr_err rc;

	if ((rc = begin_on_row(s, id, &rows, &now, err)) != GR_OK)
		return rc;
	r = &rows[0];
	if (r->state == ST_DESTROYED || r->state == ST_DESTROYING) {
		if (want == ST_DESTROYING)
			return end_on_row(s, rows, GR_OK, err);
		gr_fail(err, GR_ENOTFOUND, "instance '%s' is %s", id, inst_state_name(r->state));
		goto fail;
	}
	switch (want) {
	case ST_STOPPING:
		if (r->state == ST_FAILED) {
			gr_fail(err, GR_ECONFLICT, "instance '%s' is %s; it cannot stop, only be "
			    "destroyed", id, inst_state_name(r->state));
			goto fail;
		}
		if (r->state != ST_RUNNING) {
			if (intend(s, r, ST_STOPPED, now, err) != GR_OK)
				goto fail;
			goto done;
		}
		r->intended = ST_STOPPED;
		break;
	case ST_STARTING:
		if (r->state == ST_FAILED) {
			gr_fail(err, GR_ECONFLICT, "instance '%s' is %s; it cannot start, only be "
			    "destroyed", id, inst_state_name(r->state));
			goto fail;
		}
		if ((r->state == ST_STOPPED || r->state == ST_STOPPING) &&
		    bid_clears(s, r, now, err) != GR_OK)
			goto fail;
		if (r->state != ST_STOPPED) {
			if (intend(s, r, ST_RUNNING, now, err) != GR_OK)
				goto fail;
			goto done;
		}
		r->intended = ST_RUNNING;
		break;
	default:
		to = ST_DESTROYING;
		break;
	}
	if (transition(s, r, to, now, err) != GR_OK || save_row(s, r, err) != GR_OK)
		goto fail;
done:
	return end_on_row(s, rows, GR_OK, err);
fail:
	return end_on_row(s, rows, err->code, err);
}

enum gr_err
sim_stop(struct sim *s, const char *id, struct gr_error *err)
{
	return act(s, id, ST_STOPPING, err);
}

enum gr_err
sim_start(struct sim *s, const char *id, struct gr_error *err)
{
	return act(s, id, ST_STARTING, err);
}

enum gr_err
sim_destroy(struct sim *s, const char *id, struct gr_error *err)
{
	return act(s, id, ST_DESTROYING, err);
}

/* A label is the one thing a user may change on an instance in any state but destroyed. */
/* What prepaying amount buys of r: the discount and its rate, and for how long. */
static void
prepay_terms(const struct row *r, int64_t amount, int *pct, int64_t *rate, int64_t *covered_s)
{
	static const int months[] = SIM_TERM_MONTHS;
	size_t i;

	*pct = 0;
	*rate = r->price_hour;
	for (i = 0; i < ARRAY_LEN(months); i++) {
		int64_t m = sim_term_rate(r->price_hour, months[i]);

		if (amount >= m * months[i] * TERM_MONTH_HOURS) {
			*pct = sim_term_discount_pct(months[i]);
			*rate = m;
		}
	}
	*covered_s = *rate > 0 ? (int64_t)((__int128)amount * 3600 / *rate) : 0;
}

enum gr_err
sim_prepay(struct sim *s, const char *id, int64_t amount, int *discount_pct,
    int64_t *covered_s, struct gr_error *err)
{
	struct row *rows, *r;
	struct offer o;
	int64_t now, rate, from;
	enum gr_err rc;

	if ((rc = begin_on_row(s, id, &rows, &now, err)) != GR_OK)
		return rc;
	r = &rows[0];
	prepay_terms(r, amount, discount_pct, &rate, covered_s);
	if (r->state == ST_DESTROYED || r->state == ST_DESTROYING || r->state == ST_FAILED)
		rc = gr_fail(err, GR_ECONFLICT, "instance '%s' is gone: nothing to prepay", id);
	else if (r->type == OFFER_INTERRUPTIBLE)
		rc = gr_fail(err, GR_EUNSUPPORTED, "instance '%s' is interruptible: only an "
		    "on-demand instance can be prepaid", id);
	else if (amount <= 0 || *covered_s <= 0)
		rc = gr_fail(err, GR_EUSAGE, "a prepayment must buy at least a second");
	if (rc != GR_OK)
		return end_on_row(s, rows, rc, err);
	/* After what is already paid, or from now. */
	from = r->term_open && r->term_until > now ? r->term_until : now;
	market_offer(s->seed, r->offer_idx, now, &o);
	rc = pay_term(s, r->id, o.gpu, r->label, rate, from, from + *covered_s, err);
	r->term_until = from + *covered_s;
	r->term_open = true;
	/* A running machine stops billing by the hour now. */
	if (rc == GR_OK && r->state == ST_RUNNING && from == now) {
		struct ledger_seg seg;

		ledger_seg_for(s, r, LEDGER_COMPUTE, now, &seg);
		rc = ledger_begin(s->ledger, &seg, err);
	}
	if (rc == GR_OK)
		rc = save_row(s, r, err);
	return end_on_row(s, rows, rc, err);
}

enum gr_err
sim_label(struct sim *s, const char *id, const char *label, struct gr_error *err)
{
	struct db_stmt *q;
	int rc;

	if (strlen(label) >= LABEL_MAX)
		return gr_fail(err, GR_EUSAGE, "a label is at most %d bytes", LABEL_MAX - 1);
	if (state_begin(s->st, err) != GR_OK)
		return err->code;
	if (db_prepare_v2(state_db(s->st), "UPDATE sim_instances SET label = ? "
	    "WHERE id = ? AND state NOT IN (?, ?)", -1, &q, NULL) != DB_OK) {
		state_fail(s->st, err, "cannot label an instance");
		state_rollback(s->st);
		return err->code;
	}
	db_bind_text(q, 1, label, -1, DB_STATIC);
	db_bind_text(q, 2, id, -1, DB_STATIC);
	db_bind_int(q, 3, ST_DESTROYED);
	db_bind_int(q, 4, ST_DESTROYING);
	rc = db_step(q);
	db_finalize(q);
	if (rc != DB_DONE) {
		state_fail(s->st, err, "cannot label an instance");
		state_rollback(s->st);
		return err->code;
	}
	if (db_changes(state_db(s->st)) == 0) {
		state_rollback(s->st);
		return gr_fail(err, GR_ENOTFOUND, "no instance '%s'", id);
	}
	return state_commit(s->st, err);
}

enum gr_err
sim_metrics(struct sim *s, const char *id, struct sample_list *out, struct gr_error *err)
{
	struct row r;
	struct offer o;
	int64_t now;
	bool util;
	int i;

	if (fresh_row(s, id, &r, err) != GR_OK)
		return err->code;
	if (r.state != ST_RUNNING)
		return gr_fail(err, GR_EFAIL, "instance '%s' is %s; metrics exist only while it runs",
		    id, inst_state_name(r.state));
	now = sim_now(s);
	if (unreachable_at(&r, now) || !workload_reports(s->seed, r.id, r.workload, r.run_since,
	    now, &util))
		return gr_fail(err, GR_EUNAVAIL, "instance '%s' reports no metrics", id);
	market_offer(s->seed, r.offer_idx, r.created_at, &o);
	for (i = 0; i < o.gpu_count; i++)
		workload_sample(s->seed, r.id, r.workload, s->tide_ratio, o.gpu, i, r.run_since,
		    now, sample_list_add(out));
	return GR_OK;
}

const char *
sim_fault_name(enum sim_fault f)
{
	return (size_t)f < ARRAY_LEN(fault_names) && fault_names[f] != NULL ? fault_names[f] : "";
}

bool
sim_fault_parse(const char *s, enum sim_fault *out)
{
	size_t i;

	for (i = 1; i < ARRAY_LEN(fault_names); i++)
		if (strcmp(s, fault_names[i]) == 0) {
			*out = (enum sim_fault)i;
			return true;
		}
	return false;
}

enum sim_fault
sim_fault_of(const struct instance *in)
{
	size_t i;

	for (i = 1; i < ARRAY_LEN(fault_msg); i++)
		if (strcmp(in->status_msg, fault_msg[i]) == 0)
			return (enum sim_fault)i;
	return SIM_FAULT_NONE;
}

void
sim_set_preemption(struct sim *s, const struct sim_preemption *p)
{
	s->preempt = *p;
}

void
sim_set_disk_in_price(struct sim *s, bool on)
{
	s->disk_in_price = on;
}

void
sim_set_storage_price(struct sim *s, int64_t gb_month)
{
	s->storage_gb_month = gb_month;
}

void
sim_set_running_disk_price(struct sim *s, int64_t gb_month)
{
	s->running_disk_gb_month = gb_month;
}

enum gr_err
sim_preempt(struct sim *s, const char *id, enum sim_fault f, int64_t at,
    struct gr_error *err)
{
	struct row *rows, *r;
	int64_t now;
	enum gr_err rc;

	if ((rc = begin_on_row(s, id, &rows, &now, err)) != GR_OK)
		return rc;
	r = &rows[0];
	if (at < now)
		rc = gr_fail(err, GR_EUSAGE, "the simulated clock is past that time already");
	else if (!has_machine(r->state))
		rc = gr_fail(err, GR_ECONFLICT, "instance '%s' is %s; only one with a machine "
		    "(provisioning, starting or running) can lose it", id,
		    inst_state_name(r->state));
	else if (f == SIM_FAULT_OUTBID && r->type != OFFER_INTERRUPTIBLE)
		rc = gr_fail(err, GR_EUSAGE, "instance '%s' is on-demand: only an interruptible one "
		    "is outbid (say --reason host-failure or unreachable)", id);
	else {
		r->fault = f;
		r->fault_at = at;
		if ((rc = save_row(s, r, err)) == GR_OK)
			rc = advance_row(s, r, now, err);
	}
	return end_on_row(s, rows, rc, err);
}
