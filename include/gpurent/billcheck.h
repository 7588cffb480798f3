/*
 * billcheck.h - the local ledger checked against what each provider says it charged
 * (`gpurent costs --check`, and the watcher once a day).
 *
 * Both sides are cut into instance × UTC day: the ledger's billed segments of a provider
 * (provisioning excluded) by money_accrue_days, the provider's bill as its backend's
 * charges op reads it. A pair whose amounts differ by more than the tolerance (micro-units of
 * the pair's own currency: money is never converted here) is a difference, with the likely
 * cause. Each provider is compared on its own clock (costs.h).
 */
#ifndef GPURENT_BILLCHECK_H
#define GPURENT_BILLCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "costs.h"
#include "error.h"
#include "model.h"

/* costs.check_tolerance's default: a cent (or fen) per instance and day. */
#define BILL_TOLERANCE 10000

struct backend;
struct session;

enum bill_cause {
	BILL_MATCH,		/* within the tolerance */
	BILL_UNSEEN,		/* billed, and the ledger has nothing of the instance */
	BILL_STORAGE,		/* its disk billed beyond what the ledger counts for storage */
	BILL_STOPPED,		/* billed on a day the ledger has it not computing (stopped) */
	BILL_PRICE,		/* both count it, at different amounts: a price that changed */
	BILL_UNBILLED,		/* the ledger counts what the provider did not bill */
	BILL_CURRENCY,		/* billed in another currency than the ledger's: not compared */
};

/* One instance on one day, both sides. */
struct bill_row {
	char instance_id[ID_MAX];
	char provider[PROVIDER_MAX];
	int64_t day;			/* UTC midnight on the provider's clock */
	char currency[CURRENCY_MAX];
	int64_t ledger;			/* what the ledger counts; -1: nothing that day */
	int64_t ledger_storage;		/* of it, storage segments; -1 likewise */
	int64_t billed;			/* what the provider billed; -1: nothing */
	int64_t billed_storage;		/* of it, the disk's; -1: not billed or not said */
	int64_t difference;		/* billed - ledger, an absent side as 0 */
	enum bill_cause cause;
};

/* What became of one provider. */
struct bill_provider {
	char name[PROVIDER_MAX];
	bool has_bill;			/* false: its API exposes no bill (nothing compared) */
	enum gr_err error;		/* GR_OK, or why its bill could not be read */
	char msg[256];
	int64_t since, until;		/* the window compared, on its clock */
	size_t matches, differences;
};

struct bill_report {
	struct bill_row *rows;		/* by provider, instance, day */
	size_t n, cap;
	struct bill_provider prov[16];	/* SESSION_MAX_PROVIDERS */
	size_t n_prov;
	size_t differences;		/* rows with a cause other than BILL_MATCH */
};

/*
 * Compare each of the session's backends' bills with the ledger over the UTC days from the
 * one holding `since` (0: six days before today) to `until` (0: now; else its midnight
 * before) on each provider's clock. Fills out (bill_report_release it); GR_OK even when
 * providers failed or differ: the report says which. Fails only when the session or the
 * ledger cannot be read.
 */
enum gr_err bill_check(struct session *s, int64_t since, int64_t until, int64_t tolerance,
    struct bill_report *out, struct gr_error *err);
/* The same for one backend of the session, appended to out (zeroed by the caller first). */
enum gr_err bill_check_backend(struct session *s, struct backend *be, int64_t since,
    int64_t until, int64_t tolerance, struct bill_report *out, struct gr_error *err);
void bill_report_release(struct bill_report *r);

/*
 * costs.source = provider: the provider's bill where it differs. Each row of rep that is a
 * difference (not BILL_MATCH, not BILL_CURRENCY) puts the bill's figure for that instance and
 * day in place of the ledger's: the difference is added to the summary of its currency in
 * set (spent; spent_today, spent_month and the projections where the day is in them, on the
 * provider's clock), to the converted total through fx where set has one, and to the line of
 * the instance, provider or day with --by (by label or gpu, lines are left as the ledger
 * has them). A currency set has no summary of is left alone. Returns the rows applied.
 */
size_t bill_apply(const struct bill_report *rep, const struct cost_clock *clk, enum cost_group by,
    const struct fx_rates *fx, struct cost_set *set);

/* "match", "unseen", "storage", "stopped", "price", "unbilled", "currency". */
const char *bill_cause_name(enum bill_cause c);
/* The cause in words, for a person (translated). */
const char *bill_cause_text(enum bill_cause c);

#endif
