/*
 * gpurent prepay: pay a running instance's hours ahead at its provider's prepay discount
 * (vast), after saying what it buys and that it is not refunded.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/i18n.h"
#include "gpurent/launch.h"
#include "gpurent/money.h"
#include "gpurent/observed.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	int term;		/* --term: months, 0 none */
	bool yes, force;
};

enum { P_TERM = 1 };

static const struct cmd_opt opts[] = {
	{ "term", 0, "MONTHS", N_("pay this many months ahead at their discount (1mo, 3mo) instead of an AMOUNT"), P_TERM, CPL_NONE, 0 },
	{ "yes", 'y', NULL, N_("do not ask; needed when stdin is not a terminal"), OPT_AT(struct args, yes), CPL_NONE, OPT_TRUE },
	{ "force", 'f', NULL, N_("pay even when a configured budget would be exceeded"), OPT_AT(struct args, force), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;

	if (id == P_TERM && !term_parse(arg, &a->term))
		return cmd_usage_error(c, "--term needs months such as 1mo or 3mo");
	return 0;
}

/* What a prepayment buys, quoted before it is made and answered after. */
struct quote {
	char id[ID_MAX];
	char currency[CURRENCY_MAX];
	int64_t amount;
	int discount_bp;
	int64_t covered_s;
	int64_t until;
};

enum { Q_ID, Q_AMOUNT, Q_DISCOUNT, Q_COVERED, Q_UNTIL, Q__COUNT };

static const struct column quote_columns[Q__COUNT] = {
	[Q_ID] = { "id", N_("ID"), false, false, 0, 0 },
	[Q_AMOUNT] = { "amount", N_("PAID"), true, false, 0, 0 },
	[Q_DISCOUNT] = { "discount_pct", N_("OFF %"), true, false, 0, 0 },
	[Q_COVERED] = { "covered_s", N_("COVERS"), true, false, 0, 0 },
	[Q_UNTIL] = { "paid_until", N_("PAID UNTIL"), false, false, 0, 0 },
};

static void
quote_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct quote *q = row;

	switch (col) {
	case Q_ID: cell_str(c, q->id); break;
	case Q_AMOUNT:
		c->kind = CELL_MONEY;
		c->s = money_currency(q->currency);
		c->i = q->amount;
		break;
	case Q_DISCOUNT: c->kind = CELL_FIXED; c->i = q->discount_bp; c->decimals = 2; break;
	case Q_COVERED: c->kind = CELL_DURATION; c->i = q->covered_s; break;
	case Q_UNTIL: c->kind = CELL_TIME; c->i = q->until; break;
	default: c->kind = CELL_NULL; break;
	}
}

/*
 * The provider's prepay terms for `in` (IV_PREPAY): --term's months priced whole, or the
 * largest term an amount reaches setting its discount (none below a month), as vast prices
 * a prepayment; covered_s: how long the amount lasts at that discount.
 */
static enum gr_err
quote_of(const struct instance *in, int term, int64_t amount, struct quote *q,
    struct gr_error *err)
{
	static const int months[] = PREPAY_MONTHS;
	int64_t rate = in->price_hour;
	size_t i;

	if (!(in->valid & IV_PRICE) || in->price_hour <= 0 || !(in->valid & IV_PREPAY))
		return gr_fail(err, GR_EUNSUPPORTED, "%s says no price or prepay discount for '%s'",
		    in->provider, in->id);
	if (in->type == OFFER_INTERRUPTIBLE)
		return gr_fail(err, GR_EUSAGE, "'%s' is interruptible: only an on-demand instance "
		    "can be prepaid", in->id);
	q->discount_bp = 0;
	for (i = 0; i < ARRAY_LEN(months); i++) {
		int64_t r = money_scale(in->price_hour, 10000 - in->prepay_bp[i], 10000);

		if (term == months[i])
			amount = r * months[i] * TERM_MONTH_HOURS;
		if (amount >= r * months[i] * TERM_MONTH_HOURS) {
			q->discount_bp = in->prepay_bp[i];
			rate = r;
		}
	}
	if (term > 0 && amount <= 0)
		return gr_fail(err, GR_EUSAGE, "%s prepays 1 or 3 months, not %d", in->provider,
		    term);
	strlcpy_(q->id, in->id, sizeof(q->id));
	money_currency_set(q->currency, in->currency);
	q->amount = amount;
	q->covered_s = money_scale(amount, 3600, rate);
	return GR_OK;
}

/* Say what the prepayment buys and that it is not refunded; true when it may go on. */
static bool
confirmed(struct cmd_ctx *c, const struct quote *q, const struct instance *in, bool yes)
{
	char a[32], p[32];

	money_format_in(a, sizeof(a), q->amount, 2, q->currency);
	money_format_in(p, sizeof(p), in->price_hour, 3, q->currency);
	fprintf(stderr, _("Prepaying %s on %s buys about %lld hours at %d.%02d%% off its %s/h.\n"
	    "A prepayment is not refunded: what it has not covered when the instance is\n"
	    "destroyed is lost.\n"), a, q->id, (long long)(q->covered_s / 3600),
	    q->discount_bp / 100, q->discount_bp % 100, p);
	if (yes)
		return true;
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr, _("gpurent %s: refusing to pay without --yes when stdin is not a "
		    "terminal\n"), c->cmd->name);
		return false;
	}
	return cmd_confirm("Pay %s?", a);
}

static int
prepay_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { 0, false, false };
	struct gr_error err = { 0 };
	struct instance in;
	struct backend *b;
	struct quote q;
	int64_t amount = 0;
	int n, rc;

	rc = cmd_parse(c, argc, argv, handle, &a, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (n != (a.term > 0 ? 1 : 2))
		return cmd_usage_error(c, "give an instance ID and an AMOUNT, or an ID and --term");
	if (a.term == 0 && (!money_parse(argv[1], &amount) || amount <= 0))
		return cmd_usage_error(c, "AMOUNT needs a sum in the instance's currency, such as 250");
	if (session_backend_for(c->s, argv[0], &b, &err) != GR_OK ||
	    observed_get(b, argv[0], &in, &err) != GR_OK ||
	    quote_of(&in, a.term, amount, &q, &err) != GR_OK)
		return cmd_error(c, &err);
	if (!confirmed(c, &q, &in, a.yes)) {
		fputs(_("nothing paid\n"), stderr);
		return isatty(STDIN_FILENO) ? EXIT_ERROR : EXIT_USAGE;
	}
	cmd_warn_profile_budget(c);
	if (guard_prepay(c->s, b, &in, q.amount, a.force, &q.discount_bp, &q.covered_s, &q.until,
	    &err) != GR_OK)
		return cmd_error(c, &err);
	if (out_print_record(c->out, &out_global, quote_columns, Q__COUNT, &q, quote_cell, NULL,
	    &err) != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	return finish_output(c, 0);
}

const struct command cmd_prepay = {
	.name = "prepay",
	.args = "ID AMOUNT | ID --term MONTHS",
	.summary = N_("pay a running instance's hours ahead at its provider's discount"),
	.help =
	    N_("Where the provider sells terms by prepaying a running instance (vast), pays\n"
	    "AMOUNT (in the instance's currency), or --term's months priced whole, ahead. The\n"
	    "amount sets the discount: vast's for a month (discount_rate) once it reaches a\n"
	    "month's price, its largest (credit_discount_max) once it reaches three months'.\n"
	    "It says what the payment buys and that it is not refunded, and asks first;\n"
	    "without --yes it refuses when stdin is not a terminal. The budgets count the\n"
	    "whole payment at once (--force overrides). The ledger records it as a term:\n"
	    "'gpurent costs' spreads it over the hours it covers, during which the instance's\n"
	    "hourly price is not counted.\n\n"
	    "examples:\n"
	    "  gpurent prepay vast:12345 --term 1mo\n"
	    "  gpurent prepay vast:12345 500 --yes -o json"),
	.opts = opts,
	.complete_args = CPL_INSTANCE,
	.run = prepay_run,
};
