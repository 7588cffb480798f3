/*
 * gpurent offers: search every selected provider at once, filter, sort, print.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/columns.h"
#include "gpurent/config.h"
#include "gpurent/filter.h"
#include "gpurent/gpunames.h"
#include "gpurent/i18n.h"
#include "gpurent/idcache.h"
#include "gpurent/state.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	const char *sort;
	long long limit;
	bool limit_set;
	bool no_defaults;
	long long max_age;	/* seconds; -1: always ask the providers */
};

enum { O_LIMIT = 1, O_MAX_AGE };

static const struct cmd_opt opts[] = {
	{ "sort", 's', "KEYS", N_("sort by these keys, 'price,reliability-' ('-' before or after a key: descending)"), OPT_AT(struct args, sort), CPL_SORT, OPT_STR },
	{ "limit", 'n', "N", N_("print at most N offers (0: all)"), O_LIMIT, CPL_NONE, 0 },
	{ "no-defaults", 0, NULL, N_("ignore offers.filter from the config"), OPT_AT(struct args, no_defaults), CPL_NONE, OPT_TRUE },
	{ "max-age", 0, "DURATION", N_("answer from offers fetched at most DURATION ago (30s, 5m) when kept; default: ask every provider"), O_MAX_AGE, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;

	switch (id) {
	case O_LIMIT:
		if (!parse_int(arg, 0, 100000000, &a->limit))
			return cmd_usage_error(c, "--limit needs a whole number, not '%s'", arg);
		a->limit_set = true;
		break;
	case O_MAX_AGE:
		if ((a->max_age = parse_duration(arg)) < 0)
			return cmd_usage_error(c, "--max-age needs a duration (90s, 5m, 2h), not '%s'",
			    arg);
		break;
	}
	return 0;
}

/*
 * Remember the GPU names the catalogue lacks (gpus --unknown, over every offer found) and
 * the ids of the first shown ones for completion, in one transaction; a failure here must
 * not fail the search.
 */
static void
remember(struct cmd_ctx *c, const struct offer_list *l, size_t shown)
{
	/* Best effort: what is not remembered is asked for again; the failures read err. */
	struct gr_error ignored = { 0 };
	struct state *st;
	bool tx;

	if (session_state(c->s, &st, &ignored) != GR_OK)
		return;
	tx = state_begin(st, &ignored) == GR_OK;
	gpunames_record(st, l->v, l->n, (int64_t)time(NULL), &ignored);
	idcache_put_offers(st, l->v, shown, &ignored);
	if (tx)
		(void)state_commit(st, &ignored);
}

/* A table from the cache says how old its prices are (the oldest answer used). */
static void
say_cached(struct cmd_ctx *c, const struct fanout_result *res)
{
	int64_t oldest = 0, now = (int64_t)time(NULL);
	time_t t;
	struct tm tm;
	char hms[16];
	size_t i;

	for (i = 0; i < c->s->n_backends; i++)
		if (res[i].code == GR_OK && res[i].from_cache &&
		    (oldest == 0 || res[i].fetched_at < oldest))
			oldest = res[i].fetched_at;
	if (oldest == 0)
		return;
	t = (time_t)oldest;
	if (localtime_r(&t, &tm) == NULL || strftime(hms, sizeof(hms), "%H:%M:%S", &tm) == 0)
		return;
	fprintf(stderr, _("prices as of %s (%lld s ago)\n"), hms,
	    (long long)(now > oldest ? now - oldest : 0));
}

/*
 * A cluster's offers (Slurm) have a price only where configured: when a price filter or an
 * explicit price sort meets offers without one, say what happens to them and why.
 */
static void
warn_unpriced(struct cmd_ctx *c, const struct offer_list *l, const struct filter *f,
    const struct sort_spec *sort)
{
	bool price_term = false;
	size_t i, unpriced = 0;
	const char *provider = NULL;

	for (i = 0; i < f->n; i++)
		if (f->t[i].field == FF_PRICE || f->t[i].field == FF_GPU_PRICE ||
		    f->t[i].field == FF_TFLOP_PRICE)
			price_term = true;
	for (i = 0; sort != NULL && i < sort->n; i++)
		if (sort->key[i] == SK_PRICE || sort->key[i] == SK_GPU_PRICE ||
		    sort->key[i] == SK_TFLOP_PRICE)
			price_term = true;
	if (!price_term)
		return;
	for (i = 0; i < l->n; i++)
		if (!(l->v[i].valid & OV_PRICE) && strcmp(l->v[i].provider, "slurm") == 0) {
			unpriced++;
			provider = l->v[i].provider;
		}
	if (unpriced > 0)
		cmd_warn("%s: %zu offer%s no price (a cluster's GPU-hour is priced only by "
		    "slurm.price.GPU): a price filter leaves them out, a price sort puts them "
		    "last", provider, unpriced, unpriced == 1 ? " has" : "s have");
}

/* The columns of a table: a search for terms shows the term, its price and discount. */
static const struct column *
columns_for(const struct filter *f, struct column *cols)
{
	static const enum offer_col term_cols[] = {
		OCOL_TERM, OCOL_TERM_PRICE, OCOL_ONDEMAND, OCOL_DISCOUNT, OCOL_TERM_END,
	};
	size_t i;

	memcpy(cols, offer_columns, sizeof(offer_columns));
	for (i = 0; filter_wants_terms(f) && i < ARRAY_LEN(term_cols); i++)
		cols[term_cols[i]].hidden = false;
	return cols;
}

static int
offers_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { NULL, 0, false, false, -1 };
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct gr_error err = { 0 };
	struct offer_list list;
	struct filter f;
	struct sort_spec sort;
	struct fx_rates fx;
	struct offers_money money;
	struct config *cfg;
	struct column cols[OCOL__COUNT];
	size_t total, i;
	int n, rc, status = 0;
	enum gr_err frc;

	rc = cmd_parse(c, argc, argv, handle, &a, &n);
	if (rc != 0 || n < 0)
		return rc;
	memset(&f, 0, sizeof(f));
	if (session_config(c->s, &cfg, &err) != GR_OK)
		return cmd_error(c, &err);
	if (!a.no_defaults && config_get(cfg, "offers.filter") != NULL &&
	    filter_parse_str(&f, config_get(cfg, "offers.filter"), &err) != GR_OK)
		return cmd_error(c, &err);
	if (filter_parse(&f, n, argv, &err) != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	if (sort_parse(&sort, a.sort ? a.sort : config_get(cfg, "offers.sort"), &err) != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	if (!a.limit_set && config_get(cfg, "offers.limit") != NULL) {
		a.limit = config_get_int(cfg, "offers.limit", 0);
		a.limit_set = true;
	}
	offer_list_init(&list);
	/* On a terminal, a provider that is slow to answer is named while it is waited for. */
	c->s->say_waits = c->s->interactive;
	frc = session_offers_aged(c->s, &f, a.max_age, &list, res, &err);
	c->s->say_waits = false;
	report_timing(c, res, c->s->n_backends);
	if (frc != GR_OK && frc != GR_EPARTIAL) {
		offer_list_release(&list);
		if (c->s->n_backends > 1)
			report_fanout(c, res, c->s->n_backends);
		return c->s->n_backends > 1 ? gr_exit_code(frc) : cmd_error(c, &err);
	}
	if (frc == GR_EPARTIAL) {
		report_fanout(c, res, c->s->n_backends);
		status = EXIT_PARTIAL;
	}
	/* The whole filter is applied here again: the result is the same, so only -v says. */
	for (i = 0; i < c->s->n_backends && c->s->verbose > 0; i++)
		if (res[i].code == GR_OK && !res[i].pushed_all && f.n > 0)
			cmd_warn("%s: some filters were applied after fetching every offer",
			    res[i].b->ops->name);
	warn_unpriced(c, &list, &f, a.sort != NULL ? &sort : NULL);
	/* Prices in several currencies are compared only at the user's rates (money.h). */
	config_fx(cfg, &fx);
	if (offers_money_check(&list, &f, &sort, a.sort != NULL, &fx, &money, &err) != GR_OK) {
		offer_list_release(&list);
		return cmd_usage_error(c, "%s", err.msg);
	}
	if (money.converted)
		cmd_warn("prices in %s compared in US dollars, converted at your configured rate "
		    "(fx.%s)", money.rated, money.rated);
	if (money.grouped)
		cmd_warn("offers priced in different currencies are sorted by price within each "
		    "currency; set fx.%s (US dollars per %s) to compare them", money.missing,
		    money.missing);
	/* Backends may push down only part of the filter: apply all of it again. */
	filter_apply_fx(&f, &list, &fx);
	sort_offers_fx(&list, &sort, &fx);
	total = list.n;
	if (!a.limit_set && out_global.format == OUT_TABLE && isatty(STDOUT_FILENO))
		a.limit = 40;
	remember(c, &list, a.limit > 0 && (size_t)a.limit < list.n ? (size_t)a.limit : list.n);
	if (a.limit > 0 && (size_t)a.limit < list.n)
		list.n = (size_t)a.limit;
	if (out_print(c->out, &out_global, columns_for(&f, cols), OCOL__COUNT, OCOL_ID, list.v,
	    list.n, sizeof(*list.v), offer_cell, NULL, &err) != GR_OK) {
		offer_list_release(&list);
		return cmd_usage_error(c, "%s", err.msg);
	}
	if (out_global.format == OUT_TABLE && isatty(STDERR_FILENO) && list.n < total)
		fprintf(stderr, _("(%zu of %zu offers; --limit 0 shows all)\n"), list.n, total);
	if (out_global.format == OUT_TABLE && isatty(STDERR_FILENO) && total == 0)
		fputs(_("no offers match\n"), stderr);
	if (out_global.format == OUT_TABLE)
		say_cached(c, res);
	offer_list_release(&list);
	return finish_output(c, status);
}

const struct command cmd_offers = {
	.name = "offers",
	.alias = "search",
	.args = "[FILTER...]",
	.summary = N_("search GPU offers across providers"),
	.help =
	    N_("A filter is 'field op value' terms, AND-ed; op is one of = != < <= > >=, and a\n"
	    "comma list means any of (with != none of). Fields:\n"
	    "  gpu, gpus, vram, total_vram, price, gpu_price, tflop_price, region, reliability,\n"
	    "  interconnect, type, provider, cpu, ram, disk, net, tflops, vendor, term\n"
	    "Money is in dollars per hour; vram in GB per GPU; reliability from 0 to 1.\n"
	    "Terms paid ahead are listed only when asked for (type=reserved, term=1mo,\n"
	    "term>=3mo): each with its months, whole price, hourly equivalent (price),\n"
	    "the same machine on demand, the discount against it, and what happens at\n"
	    "its end (renews, or on-demand: billed by the hour again).\n\n"
	    "examples:\n"
	    "  gpurent offers gpu=h100,h200 gpus>=8 price<=25 --sort gpu_price\n"
	    "  gpurent offers gpu=a100-80gb region=eu reliability>=0.98 -o json\n"
	    "  gpurent offers type=interruptible interconnect=nvlink -o ids --limit 1\n"
	    "  gpurent offers type=reserved term>=3mo gpu=h100 --sort price\n"
	    "  gpurent offers gpu=h100 --max-age 5m    # prices at most 5 minutes old\n\n"
	    "Every offer carries fetched_at, when its provider answered (RFC 3339 in JSON).\n"
	    "Answers are kept in the state database; with --max-age a provider whose answer\n"
	    "to the same filter is recent enough is not asked again, and the table ends with\n"
	    "'prices as of HH:MM:SS (N s ago)' on stderr."),
	.opts = opts,
	.complete_args = CPL_FILTER,
	.run = offers_run,
};
