/*
 * requirement.h - launch by requirement: rank the offers that meet it, rent the best, and
 * fail over to the next when one cannot be had (src/guard/requirement.c).
 *
 * `gpurent launch --gpu H100 --count 8 --max-price 25` searches every selected provider,
 * keeps the offers that match, and ranks them here: by all-in price per hour (what the
 * instance will bill: the on-demand price or the bid, plus the disk's storage), then by
 * reliability (higher first), then by id so that the order is reproducible.
 *
 * requirement_launch then tries the candidates in that order, at most max_attempts of them.
 * Before each create it reads the offer again from its provider: an offer no longer listed
 * is "gone", one whose all-in price rose above the price it was ranked at is "price
 * changed" (renting it would bill more than the user was shown), one with no machine free
 * is "no capacity". A create that the provider refuses for capacity (GR_ECAPACITY: the offer
 * was rented away between the look and the create, or is out of stock) moves on too. Every
 * other failure of a create stops the request at once: a budget refusal, missing funds, a
 * bad key, and above all an outcome the provider left unclear, since the instance may exist
 * and a second one for the same request must never be rented. Each create goes through
 * the launch door (launch.h, guard_launch), so budgets apply and the launch journal records
 * it; requirement_rent is that failover over the session's providers.
 */
#ifndef GPURENT_REQUIREMENT_H
#define GPURENT_REQUIREMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "launch.h"
#include "model.h"

/*
 * Currencies: every candidate is priced in its offer's currency. --max-price carries its own
 * (max_currency: "2.5" is dollars, "90 CNY" yuan) and meets an offer of another currency
 * only through the user's configured rates (fx); candidates of several currencies are
 * ranked by their all-in prices in US dollars at those rates. Nothing is converted without
 * a rate: requirement_money_check says beforehand whether the offers need one that is
 * missing, for the command to refuse, naming it.
 */

/* How a request prices an offer (the launch options that change what it bills). */
struct req_pricing {
	int disk_gb;		/* 0: the provider's default (offer.disk_default_gb) */
	int margin_pct;		/* spot.bid_margin */
	bool has_bid;		/* --bid: the bid for every interruptible candidate */
	int64_t bid;
	int64_t max_all_in;	/* --max-price: the most per hour, all in; -1 no bound */
	char max_currency[CURRENCY_MAX];	/* of max_all_in ("": USD) */
	const struct fx_rates *fx;	/* the configured rates; NULL: none */
};

/* One offer that meets the requirement, priced as it would be rented. */
struct req_candidate {
	struct offer offer;
	struct launch_plan plan;
	int64_t storage_hour;	/* the disk's storage per hour (0 when unknown or no disk) */
	int64_t all_in_hour;	/* plan.price_hour + storage_hour, in offer.currency */
	int64_t rank_hour;	/* what ranking compares: all_in_hour when every candidate is
				   in one currency, else it in US dollars at the rate (-1: no
				   rate; ranked after the others, each currency together) */
};

/* What requirement_money_check found. */
struct req_money {
	bool converted;			/* --max-price or the ranking compares through a rate */
	char rated[CURRENCY_MAX];	/* a currency converted at its rate ("" none) */
};

/*
 * Whether the priced offers of l can be held to p's --max-price and ranked without a
 * missing rate. GR_EUSAGE naming the rate to set when --max-price is in one currency and
 * an offer in another, or the offers are in several, and no rate converts them.
 */
enum gr_err requirement_money_check(const struct offer_list *l, const struct req_pricing *p,
    struct req_money *out, struct gr_error *err);

/*
 * Price offer o as p says. GR_OK with c filled; GR_ECAPACITY when no machine of it is free,
 * GR_EUSAGE when it cannot take the request (disk, bid) or costs more than p->max_all_in.
 */
enum gr_err requirement_price(const struct offer *o, const struct req_pricing *p,
    struct req_candidate *c, struct gr_error *err);

/*
 * The offers of l that can be rented as p says, ranked (all-in price, then reliability,
 * then id). Caller frees *out; *skipped counts the offers left out. Amounts of different
 * currencies are compared only in US dollars at p->fx's rates (rank_hour above).
 */
void requirement_rank(const struct offer_list *l, const struct req_pricing *p,
    struct req_candidate **out, size_t *n, size_t *skipped);

/* How one attempt ended. */
enum req_outcome {
	REQ_RENTED,		/* the instance exists */
	REQ_GONE,		/* no longer listed by its provider */
	REQ_PRICE_CHANGED,	/* listed, at a higher all-in price than it was ranked at */
	REQ_NO_CAPACITY,	/* "unavailable": no machine free, or the provider refused the
			   create for capacity (rented away since, or out of stock) */
	REQ_CHANGED,		/* listed, but no longer takes the request (disk, bid) */
	REQ_UNREADABLE,		/* its provider could not be asked (nothing was created) */
	REQ_FAILED,		/* a create failed for another reason: the request stops */
};
const char *req_outcome_name(enum req_outcome o);

struct req_attempt {
	char offer_id[ID_MAX];
	int64_t ranked_hour;	/* all-in price it was ranked at, in currency */
	char currency[CURRENCY_MAX];	/* of the offer's prices */
	int64_t now_hour;	/* all-in price when read again; -1 not read */
	enum req_outcome outcome;
	enum gr_err code;	/* GR_OK when rented */
	char why[256];		/* the provider's or our reason; "" when rented */
};

/* What requirement_launch calls back. */
struct req_ops {
	/* The offer as its provider lists it now; GR_ECAPACITY or GR_ENOTFOUND when not listed. */
	enum gr_err (*reread)(void *ctx, const struct req_candidate *c, struct offer *now,
	    struct gr_error *err);
	/* Rent c (priced on the offer as it is now) through the launch door. */
	enum gr_err (*rent)(void *ctx, const struct req_candidate *c, struct instance *out,
	    struct gr_error *err);
};

/*
 * Try cands[0..n) in order, at most max_attempts of them, as described above. Every try is
 * appended to attempts (room for max_attempts); *n_attempts says how many. Returns GR_OK
 * with out filled when one was rented (attempts[*n_attempts - 1] says which); the failure
 * that stopped the request; or GR_ECAPACITY when every candidate tried failed over.
 */
enum gr_err requirement_launch(const struct req_candidate *cands, size_t n,
    const struct req_pricing *p, size_t max_attempts, const struct req_ops *ops, void *ctx,
    struct instance *out, struct req_attempt *attempts, size_t *n_attempts,
    struct gr_error *err);

struct session;
struct launch_req;

/*
 * requirement_launch over the session's providers: each candidate read again from its
 * provider (session_offer_find) and rented through guard_launch as base asks (image, disk,
 * label, env...; offer, type and bid are the candidate's), budgets checked in the
 * candidate's own currency unless force. A base without a client token gets one, the same
 * for every attempt, so that a provider that saw an earlier create finds it again.
 */
enum gr_err requirement_rent(struct session *s, const struct req_candidate *cands, size_t n,
    const struct req_pricing *p, size_t max_attempts, const struct launch_req *base,
    bool force, struct instance *out, struct req_attempt *attempts, size_t *n_attempts,
    struct gr_error *err);

/* A requirement as the watcher's launches keep it (elastic groups, managed jobs). */
struct req_need {
	const char *gpu;		/* a catalogue name, family or alias; a comma list: any */
	int gpus;			/* exactly so many */
	bool interruptible;		/* interruptible offers; else on-demand ones */
	const char *providers;		/* "a,b": only these; "" or NULL: every selected one */
	int64_t max_price;		/* all in, per hour; -1 no bound */
	const char *max_currency;	/* of max_price ("": USD) */
};

/*
 * Search the session's providers for need, rank what matches (pricing from launch.disk,
 * spot.bid_margin and the fx.* rates) and rent as requirement_rent does, at most
 * max_attempts offers, with base's image (launch.image when NULL), label, env and client
 * token. *tried (tried_n bytes) says what each offer tried did. GR_ECAPACITY when no offer
 * meets it or none could be rented.
 */
enum gr_err requirement_find_rent(struct session *s, const struct req_need *need,
    const struct launch_req *base, size_t max_attempts, struct instance *out, char *tried,
    size_t tried_n, struct gr_error *err);

#endif
