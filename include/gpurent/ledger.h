/*
 * ledger.h - the cost ledger: what each instance billed, segment by segment, in the local
 * database (state.h); written by the session from what providers report and by the simulator.
 */
#ifndef GPURENT_LEDGER_H
#define GPURENT_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "team.h"

struct state;

/*
 * The cost ledger: billed segments. A segment bills rate_hour from start to end (end 0:
 * still open). Cost of a segment = money_accrue(rate_hour, end - start).
 *
 * A provisioning segment bills nothing: it says that a launch was accepted at rate_hour and
 * the instance does not bill yet, so that budgets and projections count it from now. The
 * instance's first billing segment closes it, as does its end.
 *
 * Times are on the clock of the segment's provider: the simulator's own clock for "sim",
 * the wall clock for every real provider (see costs.h).
 */
/*
 * A term segment (LEDGER_TERM) is a payment ahead for a period (a term rented at creation,
 * a prepayment): the lump sum spread over [start, end) at rate_hour, written closed when it
 * is paid (ledger_add_term), so that the instance's and the account's spend count it whole
 * from then, `costs` spreads it over its period for spend, burn and projection, and the
 * bill's day of its start shows it whole (ledger_days). While a term covers an instance,
 * its compute segments bill nothing (ledger_observe).
 */
enum ledger_kind { LEDGER_COMPUTE, LEDGER_STORAGE, LEDGER_PROVISIONING, LEDGER_TERM };

struct ledger_seg {
	char instance_id[ID_MAX];
	char provider[PROVIDER_MAX];
	char label[LABEL_MAX];
	char gpu[32];
	enum ledger_kind kind;
	int64_t rate_hour;	/* micro-units of currency per hour */
	int64_t start;
	int64_t end;		/* 0: open */
	char currency[CURRENCY_MAX];	/* ISO 4217; "" when written: USD; rows of databases
					   older than currencies read back as "USD" */
	bool gone;		/* closed because the provider stopped listing the instance */
	char who[TEAM_NAME_MAX + 1];	/* read: whose it is ("": unknown); written: this
					   person's if set (a term's payer), else who
					   launched or started it (the launch journal,
					   state.h) */
};

/*
 * A segment of instance `in` at `provider`, of `kind`: the instance's id, label and GPU,
 * all else zero (the rate, its currency and the times are the caller's to set).
 */
void ledger_seg_of(struct ledger_seg *seg, const struct instance *in, const char *provider,
    enum ledger_kind kind);
/* Close any open segment of the instance at seg->start, then open seg. */
enum gr_err ledger_begin(struct state *st, const struct ledger_seg *seg, struct gr_error *err);
/*
 * Record a payment ahead: seg (kind LEDGER_TERM, end > start) as it is, leaving the
 * instance's other segments alone; nothing when a term of the instance starting at
 * seg->start is already recorded (the same payment seen again).
 */
enum gr_err ledger_add_term(struct state *st, const struct ledger_seg *seg,
    struct gr_error *err);
/* The end of the latest term of the instance that started by `at`, 0: none. */
int64_t ledger_term_end(struct state *st, const char *instance_id, int64_t at);
/* Close the instance's open segments at `end`. */
enum gr_err ledger_end(struct state *st, const char *instance_id, int64_t end,
    struct gr_error *err);
/* Every segment that overlaps [since, until) (until 0: no bound). Caller frees *out. */
/*
 * Spend of the closed segments (all history, provisioning excluded) of one instance, or of
 * every instance of a provider when instance_id is NULL, from the totals the database keeps
 * as segments close (schema.c, ledger_closed); plus, with now > 0, the open segments' spend
 * up to now. The same sum as money_accrue over every row, without reading every row.
 */
int64_t ledger_spent(struct state *st, const char *provider, const char *instance_id,
    int64_t now, int64_t *burn_hour);
/*
 * ledger_spent (by instance) of every instance in the ledger at one `now`, read with two
 * statements (a listing of 1,000 instances prepared two for each), then looked up by id:
 * ledger_spent_of gives 0 for an id the ledger does not have.
 */
struct ledger_spent_all;
struct ledger_spent_all *ledger_spent_all(struct state *st, int64_t now);
int64_t ledger_spent_of(const struct ledger_spent_all *a, const char *instance_id);
void ledger_spent_all_free(struct ledger_spent_all *a);
/*
 * The rate of a provider's open billing segments (provisioning excluded) that started by
 * `now` (its clock) and are in `currency`: the burn costs_compute gives that provider's
 * line, from the open rows alone.
 */
int64_t ledger_burn(struct state *st, const char *provider, int64_t now, const char *currency);
/* The currency of each distinct kind among the segments open or ending after `since`
 * ("" for USD as written), handed to fn. */
enum gr_err ledger_each_currency(struct state *st, int64_t since,
    void (*fn)(const char *currency, void *ctx), void *ctx, struct gr_error *err);
/* ledger_load's rows, in its order, handed to fn one at a time (seg is reused). */
enum gr_err ledger_each(struct state *st, int64_t since, int64_t until,
    void (*fn)(const struct ledger_seg *seg, void *ctx), void *ctx, struct gr_error *err);
/* The same rows in no particular order: for sums, which need no sort. */
enum gr_err ledger_each_unordered(struct state *st, int64_t since, int64_t until,
    void (*fn)(const struct ledger_seg *seg, void *ctx), void *ctx, struct gr_error *err);
enum gr_err ledger_load(struct state *st, int64_t since, int64_t until, struct ledger_seg **out,
    size_t *n, struct gr_error *err);

/*
 * The spend the database keeps per UTC day of the closed segments that started on it
 * (schema.c, ledger_day): one total per day, provider, label, GPU, kind and currency, always
 * the fold of the rows (kept by triggers as rows are written, closed, edited or deleted).
 */
struct ledger_day_total {
	int64_t day;		/* UTC midnight of the segments' start */
	struct ledger_seg key;	/* provider, label, gpu, kind, currency; the rest unset */
	int64_t n;		/* segments */
	int64_t spent;		/* money_accrue(rate, end - start) of each, summed */
	int64_t min_end, max_end;	/* the earliest and latest end among them */
};
/* The days' totals with a segment that ends after `since` (max_end > since), to fn. */
enum gr_err ledger_each_day_total(struct state *st, int64_t since,
    void (*fn)(const struct ledger_day_total *d, void *ctx), void *ctx, struct gr_error *err);
/* The closed segments of `provider` that started in [from, to) and end after `since`. */
enum gr_err ledger_each_closed_started(struct state *st, const char *provider, int64_t from,
    int64_t to, int64_t since, void (*fn)(const struct ledger_seg *seg, void *ctx), void *ctx,
    struct gr_error *err);
/*
 * The billed segments of `provider` (provisioning excluded) over [since, until) cut at each
 * UTC midnight (money_accrue_days): a charge per segment and day, a storage segment's part
 * as its storage, a term's whole sum on the day it starts, appended to out unfolded. What the ledger counts per instance and day,
 * set beside a provider's bill (billcheck.h); the simulator's own bill is the same cut of
 * the rows its world wrote (sim.h).
 */
enum gr_err ledger_days(struct state *st, const char *provider, int64_t since, int64_t until,
    struct charge_list *out, struct gr_error *err);
/* The instances with a segment open or ending after `since`, at most max, to fn. */
void ledger_each_instance_id(struct state *st, int64_t since, size_t max,
    void (*fn)(const char *id, void *ctx), void *ctx);
/*
 * The newest segment of each instance whose newest segment was closed as gone
 * (ledger_close_unlisted): the provider stopped listing it while gpurent saw it billing,
 * and nothing has been seen of it since.
 */
enum gr_err ledger_each_gone(struct state *st, void (*fn)(const struct ledger_seg *seg,
    void *ctx), void *ctx, struct gr_error *err);
/* Every open segment. */
enum gr_err ledger_each_open(struct state *st, void (*fn)(const struct ledger_seg *seg,
    void *ctx), void *ctx, struct gr_error *err);

/*
 * Record what a real provider reports about an instance at time `now`: opens a compute
 * segment when it is billed and none is open at its price, a storage segment when stopped
 * with a storage price, and closes segments when it stops being billed. While the instance
 * is provisioning, its provisioning segment stays open, and one is made (ledger_reserve)
 * for an instance the ledger has never seen (launched elsewhere); while it is starting again
 * after a stop, a provisioning segment at its price is open. While a term paid ahead covers
 * it (ledger_term_end), it bills at 0, and its price again from the term's end. Idempotent.
 */
enum gr_err ledger_observe(struct state *st, const struct instance *in, int64_t now,
    struct gr_error *err);

/*
 * An instance whose provider dates its own billing (a Slurm job: its start and end times)
 * and bills in->price_hour (IV_PRICE; else nothing is done): one compute segment from
 * start to end (0: still running). The ledger's first compute segment of it, opened later
 * when gpurent first saw it running, starts at `start` instead; none, one is opened there
 * (closing a reservation); a closed one stays as it is. Idempotent. One transaction.
 */
enum gr_err ledger_observe_span(struct state *st, const struct instance *in, int64_t start,
    int64_t end, struct gr_error *err);

/*
 * A launch was accepted: open seg (kind LEDGER_PROVISIONING) unless the ledger already has
 * a segment of the instance (it may have begun billing, or even ended, before this is
 * called). One transaction.
 */
enum gr_err ledger_reserve(struct state *st, const struct ledger_seg *seg,
    struct gr_error *err);

/*
 * A provider answered, successfully and in full, a list of its instances that was asked
 * for at `asked`: every open segment of that provider whose instance is not among ids[n]
 * and that began before `asked` is closed at `now` and marked gone. Segments that began
 * after the question are left alone (the list may predate the instance). One transaction.
 */
enum gr_err ledger_close_unlisted(struct state *st, const char *provider,
    const char *const *ids, size_t n, int64_t asked, int64_t now, struct gr_error *err);

#endif
