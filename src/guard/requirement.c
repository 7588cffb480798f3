/*
 * requirement.c - launch by requirement: rank, rent the best, fail over (requirement.h).
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/config.h"
#include "gpurent/filter.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/requirement.h"
#include "gpurent/session.h"
#include "gpurent/util.h"

enum gr_err
requirement_price(const struct offer *o, const struct req_pricing *p, struct req_candidate *c,
    struct gr_error *err)
{
	char a[32], b[32];
	bool has_bid = p->has_bid && o->type == OFFER_INTERRUPTIBLE;
	int64_t in_max;
	int disk;

	memset(c, 0, sizeof(*c));
	c->offer = *o;
	if (launch_plan_make(o, has_bid, p->bid, p->disk_gb, p->margin_pct, &c->plan, err) !=
	    GR_OK)
		return err->code;
	/* The provider's default disk is rented too when none is asked for. */
	disk = p->disk_gb > 0 ? p->disk_gb : o->disk_default_gb;
	if (disk > 0 && (o->valid & OV_STORAGE))
		c->storage_hour = money_scale(o->storage_gb_month, disk, 730);
	c->all_in_hour = c->plan.price_hour + c->storage_hour;
	c->rank_hour = c->all_in_hour;
	if (p->max_all_in < 0)
		return GR_OK;
	/* In --max-price's currency: the same, or at the configured rate, or not at all. */
	if (!money_convert(p->fx, c->all_in_hour, o->currency, money_currency(p->max_currency),
	    &in_max))
		return gr_fail(err, GR_EUSAGE, "offer '%s' is priced in %s and --max-price is in "
		    "%s, with no rate configured to compare them", o->id,
		    money_currency(o->currency), money_currency(p->max_currency));
	if (in_max > p->max_all_in)
		return gr_fail(err, GR_EUSAGE, "offer '%s' costs %s/h all in, more than the "
		    "--max-price %s/h", o->id, money_format_in(a, sizeof(a), c->all_in_hour, 3,
		    o->currency), money_format_in(b, sizeof(b), p->max_all_in, 3, p->max_currency));
	return GR_OK;
}

/* The first non-USD of two currencies that fx has no rate for; NULL when fx has both. */
static const char *
missing_rate(const struct fx_rates *fx, const char *a, const char *b)
{
	int64_t r;

	if (strcmp(a, "USD") != 0 && !fx_rate(fx, a, &r))
		return a;
	if (strcmp(b, "USD") != 0 && !fx_rate(fx, b, &r))
		return b;
	return NULL;
}

enum gr_err
requirement_money_check(const struct offer_list *l, const struct req_pricing *p,
    struct req_money *out, struct gr_error *err)
{
	const char *first = NULL, *max = money_currency(p->max_currency), *miss;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < l->n; i++) {
		const char *c = money_currency(l->v[i].currency);

		if (!(l->v[i].valid & OV_PRICE))
			continue;
		if (p->max_all_in >= 0 && strcmp(c, max) != 0) {
			if ((miss = missing_rate(p->fx, c, max)) != NULL)
				return gr_fail(err, GR_EUSAGE, "--max-price is in %s and some offers "
				    "are priced in %s, with no rate configured to compare them: set "
				    "one with 'gpurent config set fx.%s RATE' (US dollars per %s), give "
				    "--max-price in %s, or choose providers with -p", max, c, miss,
				    miss, c);
			out->converted = true;
			money_currency_set(out->rated, strcmp(c, "USD") != 0 ? c : max);
		}
		if (first == NULL)
			first = c;
		else if (strcmp(first, c) != 0) {
			if ((miss = missing_rate(p->fx, first, c)) != NULL)
				return gr_fail(err, GR_EUSAGE, "the matching offers are priced in %s "
				    "and %s, and a launch by requirement ranks them by price only at a "
				    "rate you configure: set one with 'gpurent config set fx.%s RATE' "
				    "(US dollars per %s), or choose providers with -p", first, c, miss,
				    miss);
			out->converted = true;
			if (out->rated[0] == '\0')
				money_currency_set(out->rated, strcmp(c, "USD") != 0 ? c : first);
		}
	}
	return GR_OK;
}

static int
rank_cmp(const void *x, const void *y)
{
	const struct req_candidate *a = x, *b = y;
	int ra = (a->offer.valid & OV_RELIABILITY) ? a->offer.reliability_bp : -1;
	int rb = (b->offer.valid & OV_RELIABILITY) ? b->offer.reliability_bp : -1;

	int cur;

	/* Those without a rate after the rest, each currency together, then by amount. */
	if ((a->rank_hour < 0) != (b->rank_hour < 0))
		return a->rank_hour < 0 ? 1 : -1;
	if (a->rank_hour < 0 && (cur = strcmp(money_currency(a->offer.currency),
	    money_currency(b->offer.currency))) != 0)
		return cur;
	if (a->rank_hour != b->rank_hour)
		return a->rank_hour < b->rank_hour ? -1 : 1;
	if (a->all_in_hour != b->all_in_hour)
		return a->all_in_hour < b->all_in_hour ? -1 : 1;
	if (ra != rb)
		return ra > rb ? -1 : 1;	/* unknown reliability ranks last */
	return strcmp(a->offer.id, b->offer.id);
}

void
requirement_rank(const struct offer_list *l, const struct req_pricing *p,
    struct req_candidate **out, size_t *n, size_t *skipped)
{
	struct req_candidate *v = xcalloc(l->n ? l->n : 1, sizeof(*v));
	size_t i, j, k = 0;

	for (i = 0; i < l->n; i++) {
		struct gr_error e = { 0 };

		/* Without a known price an offer cannot be ranked, nor its cost shown. */
		if (!(l->v[i].valid & OV_PRICE))
			continue;
		if (requirement_price(&l->v[i], p, &v[k], &e) == GR_OK)
			k++;
	}
	for (i = 1; i < k; i++)
		if (!money_same_currency(v[i].offer.currency, v[0].offer.currency))
			break;
	/* Several currencies: ranked in US dollars at the configured rates. */
	for (j = 0; i < k && j < k; j++)
		if (!money_convert(p->fx, v[j].all_in_hour, v[j].offer.currency, "USD",
		    &v[j].rank_hour))
			v[j].rank_hour = -1;
	if (k > 1)	/* v may be NULL when no offer matched: not for qsort */
		qsort(v, k, sizeof(*v), rank_cmp);
	*out = v;
	*n = k;
	*skipped = l->n - k;
}

const char *
req_outcome_name(enum req_outcome o)
{
	static const char *const names[] = { "rented", "gone", "price-changed", "unavailable",
		"changed", "unreadable", "failed" };

	return (size_t)o < ARRAY_LEN(names) ? names[o] : "failed";
}

/* Note an attempt's end; returns it for the caller to fill further. */
static struct req_attempt *
note(struct req_attempt *v, size_t *n, const struct req_candidate *c, enum req_outcome o,
    const struct gr_error *e)
{
	struct req_attempt *a = &v[(*n)++];

	memset(a, 0, sizeof(*a));
	strlcpy_(a->offer_id, c->offer.id, sizeof(a->offer_id));
	a->ranked_hour = c->all_in_hour;
	money_currency_set(a->currency, c->offer.currency);
	a->now_hour = -1;
	a->outcome = o;
	a->code = e != NULL ? e->code : GR_OK;
	if (e != NULL)
		strlcpy_(a->why, e->msg, sizeof(a->why));
	return a;
}

enum gr_err
requirement_launch(const struct req_candidate *cands, size_t n, const struct req_pricing *p,
    size_t max_attempts, const struct req_ops *ops, void *ctx, struct instance *out,
    struct req_attempt *attempts, size_t *n_attempts, struct gr_error *err)
{
	struct req_pricing now_pricing = *p;
	size_t i;

	*n_attempts = 0;
	/* A price rise is judged against the ranked price, not against --max-price alone. */
	now_pricing.max_all_in = -1;
	for (i = 0; i < n && *n_attempts < max_attempts; i++) {
		const struct req_candidate *c = &cands[i];
		struct req_candidate now;
		struct offer listed;
		struct gr_error e = { 0 };
		struct req_attempt *a;
		enum gr_err rc;

		rc = ops->reread(ctx, c, &listed, &e);
		if (rc == GR_ECAPACITY || rc == GR_ENOTFOUND) {
			note(attempts, n_attempts, c, REQ_GONE, &e);
			continue;
		}
		if (rc != GR_OK) {
			/* Only a search failed: nothing was created, the next one is safe. */
			note(attempts, n_attempts, c, REQ_UNREADABLE, &e);
			continue;
		}
		rc = requirement_price(&listed, &now_pricing, &now, &e);
		if (rc != GR_OK) {
			note(attempts, n_attempts, c, rc == GR_ECAPACITY ? REQ_NO_CAPACITY :
			    REQ_CHANGED, &e);
			continue;
		}
		if (now.all_in_hour > c->all_in_hour) {
			char was[32], is[32];

			gr_fail(&e, GR_ECAPACITY, "its price rose from %s/h to %s/h all in since "
			    "it was ranked", money_format_in(was, sizeof(was), c->all_in_hour, 3,
			    c->offer.currency), money_format_in(is, sizeof(is), now.all_in_hour, 3,
			    c->offer.currency));
			note(attempts, n_attempts, c, REQ_PRICE_CHANGED, &e)->now_hour =
			    now.all_in_hour;
			continue;
		}
		rc = ops->rent(ctx, &now, out, &e);
		if (rc == GR_OK) {
			note(attempts, n_attempts, c, REQ_RENTED, NULL)->now_hour = now.all_in_hour;
			return GR_OK;
		}
		a = note(attempts, n_attempts, c, rc == GR_ECAPACITY ? REQ_NO_CAPACITY :
		    REQ_FAILED, &e);
		a->now_hour = now.all_in_hour;
		if (rc != GR_ECAPACITY)
			/* Budget, funds, key, or an unclear outcome: never try another offer. */
			return gr_fail(err, rc, "%s", e.msg);
	}
	if (*n_attempts == 0)
		return gr_fail(err, GR_ECAPACITY, "no offer meets the requirement");
	return gr_fail(err, GR_ECAPACITY, "none of the %zu offers tried could be rented%s",
	    *n_attempts, i < n ? _(" (the attempts ran out; --attempts allows more)") : "");
}

/* What requirement_launch calls back for requirement_rent. */
struct renting {
	struct session *s;
	const struct launch_req *base;
	bool force;
};

static enum gr_err
renting_reread(void *ctx, const struct req_candidate *k, struct offer *now,
    struct gr_error *err)
{
	return session_offer_find(((struct renting *)ctx)->s, k->offer.id, now, err);
}

static enum gr_err
renting_rent(void *ctx, const struct req_candidate *k, struct instance *out,
    struct gr_error *err)
{
	struct renting *r = ctx;
	struct launch_req req = *r->base;
	struct backend *b;

	if (session_backend_for(r->s, k->offer.id, &b, err) != GR_OK)
		return err->code;
	req.offer_id = k->offer.id;
	req.interruptible = k->offer.type == OFFER_INTERRUPTIBLE;
	req.bid_hour = k->plan.bid_hour;
	/* Candidates may differ in currency: each is checked against the budgets in its own. */
	return guard_launch(r->s, b, &req, k->plan.price_hour, k->offer.currency,
	    r->force ? GUARD_FORCE : 0, out, err);
}

enum gr_err
requirement_rent(struct session *s, const struct req_candidate *cands, size_t n,
    const struct req_pricing *p, size_t max_attempts, const struct launch_req *base,
    bool force, struct instance *out, struct req_attempt *attempts, size_t *n_attempts,
    struct gr_error *err)
{
	const struct req_ops ops = { renting_reread, renting_rent };
	struct launch_req req = *base;
	struct renting r = { s, &req, force };
	char token[GUARD_TOKEN_MAX];

	if (req.client_token == NULL) {
		guard_client_token(token, sizeof(token));
		req.client_token = token;
	}
	memset(out, 0, sizeof(*out));
	return requirement_launch(cands, n, p, max_attempts, &ops, &r, out, attempts, n_attempts,
	    err);
}

/* Each attempt of v as "OFFER OUTCOME: why", comma-separated, into tried. */
static void
say_tried(const struct req_attempt *v, size_t n, char *tried, size_t tried_n)
{
	size_t i, p, len;

	for (i = 0; i < n; i++) {
		const char *parts[] = { i ? ", " : "", v[i].offer_id, " ",
		    req_outcome_name(v[i].outcome), v[i].why[0] ? ": " : "", v[i].why };

		for (p = 0; p < ARRAY_LEN(parts); p++) {
			len = strlen(tried);
			strlcpy_(tried + len, parts[p], tried_n - len);
		}
	}
}

enum gr_err
requirement_find_rent(struct session *s, const struct req_need *need,
    const struct launch_req *base, size_t max_attempts, struct instance *out, char *tried,
    size_t tried_n, struct gr_error *err)
{
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct req_attempt *attempts = xcalloc(max_attempts + 1, sizeof(*attempts));
	struct req_candidate *cands = NULL;
	struct req_pricing pricing;
	struct launch_req req = *base;
	struct offer_list list;
	struct filter f;
	struct config *cfg;
	struct fx_rates fx;
	struct req_money money;
	char gpu[96], gpus[24], providers[300];
	char *terms[4];
	int nterms = 3;
	size_t ncand = 0, skipped = 0, nat = 0, len;
	enum gr_err rc;

	tried[0] = '\0';
	snprintf(gpu, sizeof(gpu), "gpu=%s", need->gpu);
	snprintf(gpus, sizeof(gpus), "gpus=%d", need->gpus);
	terms[0] = gpu;
	terms[1] = gpus;
	terms[2] = need->interruptible ? "type=interruptible" : "type=on-demand";
	if (need->providers != NULL && need->providers[0]) {
		snprintf(providers, sizeof(providers), "provider=%s", need->providers);
		terms[nterms++] = providers;
	}
	memset(&f, 0, sizeof(f));
	if ((rc = session_config(s, &cfg, err)) != GR_OK ||
	    (rc = filter_parse(&f, nterms, terms, err)) != GR_OK)
		goto out;
	memset(res, 0, sizeof(res));
	offer_list_init(&list);
	rc = session_offers(s, &f, &list, res, err);
	if (rc != GR_OK && rc != GR_EPARTIAL) {
		offer_list_release(&list);
		goto out;
	}
	memset(&pricing, 0, sizeof(pricing));
	pricing.disk_gb = (int)config_get_int(cfg, "launch.disk", 0);
	pricing.margin_pct = (int)config_get_int(cfg, "spot.bid_margin", 0);
	pricing.max_all_in = need->max_price;
	money_currency_set(pricing.max_currency, need->max_currency ? need->max_currency : "");
	config_fx(cfg, &fx);
	pricing.fx = &fx;
	filter_apply_fx(&f, &list, &fx);
	/* Offers of several currencies, or of another than the max price's: only at a rate. */
	if ((rc = requirement_money_check(&list, &pricing, &money, err)) != GR_OK) {
		offer_list_release(&list);
		goto out;
	}
	requirement_rank(&list, &pricing, &cands, &ncand, &skipped);
	offer_list_release(&list);
	if (ncand == 0) {
		rc = gr_fail(err, GR_ECAPACITY, "no %s %s offer of %d GPU%s%s", need->gpu,
		    need->interruptible ? _("interruptible") : _("on-demand"), need->gpus,
		    need->gpus == 1 ? "" : "s", skipped ? _(" at the price asked") : "");
		goto out;
	}
	if (req.image == NULL)
		req.image = config_get(cfg, "launch.image");
	req.disk_gb = pricing.disk_gb;
	req.gpus_per_node = need->gpus;
	rc = requirement_rent(s, cands, ncand, &pricing, max_attempts, &req, false, out,
	    attempts, &nat, err);
	say_tried(attempts, nat, tried, tried_n);
	if (money.converted) {
		len = strlen(tried);
		snprintf(tried + len, tried_n - len, _(" (prices in %s compared in US dollars, "
		    "converted at your configured rate fx.%s)"), money.rated, money.rated);
	}
out:
	free(cands);
	free(attempts);
	return rc;
}
