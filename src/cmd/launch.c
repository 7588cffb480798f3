/*
 * gpurent launch: rent an offer, optionally wait until it runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/catalogue.h"
#include "gpurent/columns.h"
#include "gpurent/config.h"
#include "gpurent/costs.h"
#include "gpurent/filter.h"
#include "gpurent/i18n.h"
#include "gpurent/idcache.h"
#include "gpurent/launch.h"
#include "gpurent/money.h"
#include "gpurent/observed.h"
#include "gpurent/output.h"
#include "gpurent/requirement.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "common.h"
#include "verify.h"

enum { L_IMAGE = 1, L_DISK, L_LABEL, L_ENV, L_PORT, L_ONSTART, L_BID, L_DRY_RUN, L_WAIT,
	L_TIMEOUT, L_FORCE, L_VERIFY, L_GUARD, L_NODES, L_MAX_RUNTIME, L_GPU, L_COUNT, L_MAX_PRICE, L_REGION,
	L_INTERRUPTIBLE, L_MIN_REL, L_ATTEMPTS, L_TERM };

#define MAX_ENV 64
#define MAX_PORTS 32
/* Terms a requirement's options add to its filter. */
#define MAX_REQ_TERMS 8
#define MAX_ATTEMPTS 100

static const struct cmd_opt opts[] = {
	{ "image", 'i', "IMAGE", N_("container or OS image to run"), L_IMAGE, CPL_NONE, 0 },
	{ "disk", 'd', "GB", N_("disk size in GB (default: launch.disk, else the provider's default: 50 GB on sim)"), L_DISK, CPL_NONE, 0 },
	{ "label", 'l', "LABEL", N_("a name for the instance, used by ls --label and costs"), L_LABEL, CPL_NONE, 0 },
	{ "env", 'e', "K=V", N_("environment variable for the instance (repeatable)"), L_ENV, CPL_NONE, OPT_REPEAT },
	{ "port", 0, "PORT", N_("port to expose (repeatable)"), L_PORT, CPL_NONE, OPT_REPEAT },
	{ "onstart", 0, "CMD", N_("command to run when the instance starts"), L_ONSTART, CPL_NONE, 0 },
	{ "bid", 'b', "PRICE", N_("interruptible: bid per hour in the offer's currency (default: the price + spot.bid_margin)"), L_BID, CPL_NONE, 0 },
	{ "dry-run", 'n', NULL, N_("make every check of a launch and show what it costs; rent nothing"), L_DRY_RUN, CPL_NONE, 0 },
	{ "wait", 'w', NULL, N_("wait until the instance runs"), L_WAIT, CPL_NONE, 0 },
	{ "timeout", 't', "SECONDS", N_("with --wait: give up after this long (default 600)"), L_TIMEOUT, CPL_NONE, 0 },
	{ "verify", 0, NULL, N_("with --wait: check the machine against the offer (gpurent verify) once it runs"), L_VERIFY, CPL_NONE, 0 },
	{ "guard", 0, NULL, N_("with --wait: put the instance guard on it once it runs (gpurent guard install)"), L_GUARD, CPL_NONE, 0 },
	{ "force", 'f', NULL, N_("launch even when a configured budget would be exceeded"), L_FORCE, CPL_NONE, 0 },
	{ "gpu", 'g', "GPU", N_("by requirement: this GPU (a catalogue name, family or alias; a comma list means any of)"), L_GPU, CPL_GPU, 0 },
	{ "count", 'c', "N", N_("exactly N GPUs (by requirement); on a cluster (slurm), GPUs per node to hold (default 1)"), L_COUNT, CPL_NONE, 0 },
	{ "max-price", 0, "PRICE", N_("at most this much per hour, all in (bid and disk storage included): 2.5 is US dollars, '90 CNY' yuan; with an OFFER_ID, that offer only at this price or less"), L_MAX_PRICE, CPL_NONE, 0 },
	{ "region", 'r', "REGION", N_("by requirement: in this region (a prefix such as eu or eu-west, or a country code; a comma list means any of)"), L_REGION, CPL_NONE, 0 },
	{ "interruptible", 0, NULL, N_("by requirement: interruptible offers (default: on-demand ones)"), L_INTERRUPTIBLE, CPL_NONE, 0 },
	{ "min-reliability", 0, "R", N_("by requirement: reliability at least R (0 to 1)"), L_MIN_REL, CPL_NONE, 0 },
	{ "attempts", 0, "N", N_("by requirement: try at most N offers before giving up (default 5)"), L_ATTEMPTS, CPL_NONE, 0 },
	{ "nodes", 0, "N", N_("a cluster (slurm): nodes to hold (default 1)"), L_NODES, CPL_NONE, 0 },
	{ "term", 0, "MONTHS", N_("rent on a term paid ahead at creation, such as 1mo or 3mo, where the provider sells one that way (ppio)"), L_TERM, CPL_NONE, 0 },
	{ "max-runtime", 0, "DURATION", N_("a cluster (slurm): time limit of the job, such as 90m (default: the partition's)"), L_MAX_RUNTIME, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

struct args {
	const char *image, *label, *onstart;
	long long disk;
	const char *env[MAX_ENV + 1];
	size_t n_env;
	int ports[MAX_PORTS];
	size_t n_ports;
	int64_t bid;
	bool has_bid, dry_run, wait, force, verify, guard;
	long long timeout;
	long long count, nodes, max_runtime;
	/* By requirement: the filter terms the options make, and the all-in bound. */
	char *terms[MAX_REQ_TERMS];
	size_t n_terms;
	bool has_type;		/* --interruptible */
	int64_t max_price;	/* -1 none */
	char max_currency[CURRENCY_MAX];
	long long attempts;
	int term;		/* --term: months, 0 none */
};

/* Add the filter term "field op value" that a requirement option stands for. */
static int
add_term(struct cmd_ctx *c, struct args *a, const char *field, const char *op, const char *v)
{
	if (a->n_terms == MAX_REQ_TERMS)
		return cmd_usage_error(c, "too many requirement options");
	a->terms[a->n_terms++] = xasprintf("%s%s%s", field, op, v);
	return 0;
}

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;
	char why[128];
	long long n;

	switch (id) {
	case L_IMAGE: a->image = arg; break;
	case L_LABEL:
		if (!label_check(arg, why, sizeof(why)))
			return cmd_usage_error(c, "--label: %s", why);
		a->label = arg;
		break;
	case L_ONSTART: a->onstart = arg; break;
	case L_DISK:
		if (!parse_int(arg, 1, 100000, &a->disk))
			return cmd_usage_error(c, "--disk needs a size in GB from 1 to 100000");
		break;
	case L_ENV:
		if (strchr(arg, '=') == NULL || arg[0] == '=')
			return cmd_usage_error(c, "--env needs KEY=VALUE, not '%s'", arg);
		if (a->n_env == MAX_ENV)
			return cmd_usage_error(c, "at most %d --env options", MAX_ENV);
		a->env[a->n_env++] = arg;
		break;
	case L_PORT:
		if (!parse_int(arg, 1, 65535, &n))
			return cmd_usage_error(c, "--port needs a port from 1 to 65535");
		if (a->n_ports == MAX_PORTS)
			return cmd_usage_error(c, "at most %d --port options", MAX_PORTS);
		a->ports[a->n_ports++] = (int)n;
		break;
	case L_BID:
		if (!money_parse(arg, &a->bid) || a->bid == 0)
			return cmd_usage_error(c, "--bid needs a price per hour in the offer's "
			    "currency, such as 1.25");
		a->has_bid = true;
		break;
	case L_DRY_RUN: a->dry_run = true; break;
	case L_WAIT: a->wait = true; break;
	case L_TIMEOUT:
		if ((a->timeout = parse_duration(arg)) <= 0)
			return cmd_usage_error(c, "--timeout needs a duration such as 600 or 10m");
		break;
	case L_FORCE: a->force = true; break;
	case L_VERIFY: a->verify = true; break;
	case L_GUARD: a->guard = true; break;
	case L_NODES:
		if (!parse_int(arg, 1, 100000, &a->nodes))
			return cmd_usage_error(c, "--nodes needs a number of nodes from 1 to 100000");
		break;
	case L_MAX_RUNTIME:
		if ((a->max_runtime = parse_duration(arg)) <= 0)
			return cmd_usage_error(c, "--max-runtime needs a duration such as 3600, 90m "
			    "or 2h");
		break;
	case L_GPU: return add_term(c, a, "gpu", "=", arg);
	case L_COUNT:
		if (!parse_int(arg, 1, 1024, &a->count))
			return cmd_usage_error(c, "--count needs a number of GPUs from 1 to 1024");
		break;
	case L_MAX_PRICE:
		/* Not a price term: those are in dollars, and this one may be in yuan. */
		if (!money_parse_in(arg, &a->max_price, a->max_currency) || a->max_price <= 0)
			return cmd_usage_error(c, "--max-price needs a price per hour such as 2.5 "
			    "(US dollars) or '90 CNY'");
		break;
	case L_REGION: return add_term(c, a, "region", "=", arg);
	case L_INTERRUPTIBLE:
		a->has_type = true;
		return add_term(c, a, "type", "=", "interruptible");
	case L_MIN_REL: return add_term(c, a, "reliability", ">=", arg);
	case L_TERM:
		if (!term_parse(arg, &a->term))
			return cmd_usage_error(c, "--term needs months such as 1mo or 3mo, or years "
			    "such as 1y");
		break;
	case L_ATTEMPTS:
		if (!parse_int(arg, 1, MAX_ATTEMPTS, &a->attempts))
			return cmd_usage_error(c, "--attempts needs a number from 1 to %d",
			    MAX_ATTEMPTS);
		break;
	}
	return 0;
}

static int
print_dry_run(struct cmd_ctx *c, const struct offer *o, const struct launch_plan *p)
{
	char h[32], d[32], m[32], g[64];
	int64_t price = p->price_hour;

	if (out_global.format == OUT_JSON) {
		struct cell mc = { CELL_MONEY, NULL, price, 0, 0 };

		fprintf(c->out, "{\"offer_id\":");
		json_write_str(c->out, o->id);
		fprintf(c->out, ",\"gpu\":");
		json_write_str(c->out, catalogue_display(o->gpu, o->gpu_raw, g, sizeof(g)));
		fprintf(c->out, ",\"gpus\":%d,\"type\":\"%s\",\"price_hour\":", o->gpu_count,
		    offer_type_name(o->type));
		json_write_cell(c->out, &mc);
		mc.i = price * 24;
		fputs(",\"price_day\":", c->out);
		json_write_cell(c->out, &mc);
		mc.i = price * 730;
		fputs(",\"price_month\":", c->out);
		json_write_cell(c->out, &mc);
		mc.kind = o->type == OFFER_INTERRUPTIBLE ? CELL_MONEY : CELL_NULL;
		mc.i = p->bid_hour;
		fputs(",\"bid_hour\":", c->out);
		json_write_cell(c->out, &mc);
		fprintf(c->out, ",\"currency\":\"%s\",\"dry_run\":true}\n",
		    money_currency(o->currency));
	} else if (out_global.format == OUT_IDS)
		fprintf(c->out, "%s\n", o->id);
	else {
		char loc[64];

		fprintf(c->out, _("would rent %s: %d x %s, %s, %s\n"), o->id, o->gpu_count,
		    o->gpu ? o->gpu->name : catalogue_display(NULL, o->gpu_raw, g, sizeof(g)),
		    offer_type_name(o->type), text_sanitize(loc, sizeof(loc), o->location));
		fprintf(c->out, _("cost: %s/hour, %s/day, %s/month (730 h)\n"),
		    money_format_in(h, sizeof(h), price, 3, o->currency),
		    money_format_in(d, sizeof(d), price * 24, 2, o->currency),
		    money_format_in(m, sizeof(m), price * 730, 2, o->currency));
		fputs(_("nothing was rented (--dry-run)\n"), c->out);
	}
	return finish_output(c, 0);
}

/* Say on stderr what an interruptible launch bids and what that protects it against. */
static void
explain_bid(const struct offer *o, const struct launch_plan *p)
{
	char bid[32], market[32];

	if (o->type != OFFER_INTERRUPTIBLE)
		return;
	money_format_in(bid, sizeof(bid), p->bid_hour, 3, o->currency);
	money_format_in(market, sizeof(market), p->market_hour, 3, o->currency);
	if (!p->bid_given)
		cmd_warn("bidding %s/h on %s: %d%% over its current price %s/h "
		    "(spot.bid_margin), so it is outbid only when the market rises above %s/h; "
		    "an interruptible instance bills at its bid; --bid names another",
		    bid, o->id, p->margin_pct, market, bid);
	else if (p->thin_bid)
		cmd_warn("warning: the bid %s/h is less than %d%% (spot.bid_margin) over the "
		    "current price %s/h of %s: a repricing above %s/h outbids it", bid,
		    p->margin_pct, market, o->id, bid);
}

/* The create request as the options ask (the offer, its type and bid are the caller's). */
static void
fill_request(struct launch_req *req, const struct args *a)
{
	memset(req, 0, sizeof(*req));
	req->image = a->image;
	req->disk_gb = (int)a->disk;
	req->label = a->label;
	req->env = a->n_env ? a->env : NULL;
	req->ports = a->ports;
	req->n_ports = a->n_ports;
	req->onstart = a->onstart;
	req->gpus_per_node = (int)a->count;
	req->nodes = (int)a->nodes;
	req->max_runtime_s = a->max_runtime;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * On a terminal, where the wait stands: the state (with a cluster's reason: Slurm's
 * "PENDING (Priority)") and the seconds waited, redrawn in place at each poll, and kept as
 * a line of its own when the state changes. Nothing without a terminal: scripts read
 * stdout and the status.
 */
static void
show_wait(const struct instance *in, long long waited, bool changed)
{
	if (changed)
		fputc('\n', stderr);
	fputs("\r\033[K", stderr);
	fprintf(stderr, _("%s: %s%s%s%s, %llds"), in->id, inst_state_name(in->state),
	    in->status_msg[0] ? " (" : "", in->status_msg, in->status_msg[0] ? ")" : "", waited);
	fflush(stderr);
}

/* Poll until running. Returns 0, EXIT_TIMEOUT, EXIT_INTERRUPTED or an error status. */
static int
wait_running(struct cmd_ctx *c, struct backend *b, struct instance *in, long long timeout)
{
	struct timespec t0, t;
	struct gr_error err = { 0 };
	enum inst_state last = in->state;
	char last_msg[sizeof(in->status_msg)];
	bool shown = false;
	int rc;

	strlcpy_(last_msg, in->status_msg, sizeof(last_msg));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (c->s->interactive) {
			show_wait(in, (long long)(t.tv_sec - t0.tv_sec), shown &&
			    (in->state != last || strcmp(in->status_msg, last_msg) != 0));
			shown = true;
		}
		last = in->state;
		strlcpy_(last_msg, in->status_msg, sizeof(last_msg));
		rc = -1;
		if (in->state == ST_RUNNING)
			rc = 0;
		else if (in->state == ST_FAILED || in->state == ST_DESTROYED ||
		    in->state == ST_STOPPED)
			rc = EXIT_ERROR;
		else if (t.tv_sec - t0.tv_sec >= timeout)
			rc = EXIT_TIMEOUT;
		else {
			sleep_ms(500);
			if (cmd_interrupted)
				rc = EXIT_INTERRUPTED;
		}
		if (rc >= 0 && shown)
			fputc('\n', stderr);
		switch (rc) {
		case 0:
			return 0;
		case EXIT_ERROR:
			cmd_warn("%s is %s%s%s", in->id, inst_state_name(in->state),
			    in->status_msg[0] ? ": " : "", in->status_msg);
			return EXIT_ERROR;
		case EXIT_TIMEOUT:
			cmd_warn("%s is still %s%s%s%s after %llds; it keeps running and billing "
			    "('gpurent destroy %s' ends it)", in->id, inst_state_name(in->state),
			    in->status_msg[0] ? " (" : "", in->status_msg,
			    in->status_msg[0] ? ")" : "", timeout, in->id);
			return EXIT_TIMEOUT;
		case EXIT_INTERRUPTED:
			cmd_warn("interrupted; %s is %s and was not destroyed", in->id,
			    inst_state_name(in->state));
			return EXIT_INTERRUPTED;
		default:
			break;
		}
		if (observed_get(b, in->id, in, &err) != GR_OK) {
			if (shown)
				fputc('\n', stderr);
			return cmd_error(c, &err);
		}
	}
}

/* The columns of a by-requirement --dry-run: the candidates in the order they would be tried. */
enum { RC_RANK, RC_ID, RC_GPU, RC_GPUS, RC_TYPE, RC_REGION, RC_RELIABILITY, RC_PRICE, RC_BID,
	RC_STORAGE, RC_ALL_IN, RC_CURRENCY, RC__COUNT };

static const struct column cand_columns[RC__COUNT] = {
	[RC_RANK] = { "rank", N_("#"), true, false, 0, 0 },
	[RC_ID] = { "id", N_("OFFER"), false, false, 0, 0 },
	[RC_GPU] = { "gpu", N_("GPU"), false, false, 0, 9 },
	[RC_GPUS] = { "gpus", N_("N"), true, false, 0, 0 },
	[RC_TYPE] = { "type", N_("TYPE"), false, false, 3, 0 },
	[RC_REGION] = { "region", N_("REGION"), false, false, 4, 0 },
	[RC_RELIABILITY] = { "reliability", N_("REL"), true, false, 3, 0 },
	[RC_PRICE] = { "price_hour", N_("PRICE/H"), true, false, 2, 0 },
	[RC_BID] = { "bid_hour", N_("BID/H"), true, false, 2, 0 },
	[RC_STORAGE] = { "storage_hour", N_("DISK/H"), true, false, 2, 0 },
	[RC_ALL_IN] = { "all_in_hour", N_("ALL-IN/H"), true, false, 0, 0 },
	[RC_CURRENCY] = { "currency", N_("CURRENCY"), false, true, 6, 0 },	/* the sign says it */
};

static void
cand_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct req_candidate *k = row, *first = ctx;
	static const size_t offer_col[RC__COUNT] = {
		[RC_ID] = OCOL_ID, [RC_GPU] = OCOL_GPU, [RC_GPUS] = OCOL_GPUS,
		[RC_TYPE] = OCOL_TYPE, [RC_REGION] = OCOL_REGION,
		[RC_RELIABILITY] = OCOL_RELIABILITY, [RC_PRICE] = OCOL_PRICE,
		[RC_CURRENCY] = OCOL_CURRENCY,
	};

	switch (col) {
	case RC_RANK:
		c->kind = CELL_INT;
		c->i = k - first + 1;
		break;
	case RC_BID:
		c->kind = k->offer.type == OFFER_INTERRUPTIBLE ? CELL_MONEY : CELL_NULL;
		c->s = money_currency(k->offer.currency);
		c->i = k->plan.bid_hour;
		c->decimals = 3;
		break;
	case RC_STORAGE:
	case RC_ALL_IN:
		c->kind = CELL_MONEY;
		c->s = money_currency(k->offer.currency);
		c->i = col == RC_STORAGE ? k->storage_hour : k->all_in_hour;
		c->decimals = 3;
		break;
	default:
		offer_cell(&k->offer, offer_col[col], c, NULL);
	}
}

/* Say on stderr what each attempt did, and why it failed. */
static void
report_attempts(const struct req_attempt *v, size_t n, const struct instance *in)
{
	char p[32], why[256];
	size_t i;

	for (i = 0; i < n; i++) {
		money_format_in(p, sizeof(p), v[i].ranked_hour, 3, v[i].currency);
		if (v[i].outcome == REQ_RENTED)
			cmd_warn("attempt %zu: rented %s (%s/h all in) as %s", i + 1, v[i].offer_id,
			    p, in->id);
		else
			cmd_warn("attempt %zu: %s (%s/h all in): %s: %s", i + 1, v[i].offer_id, p,
			    req_outcome_name(v[i].outcome), text_sanitize(why, sizeof(why),
			    v[i].why));
	}
}

/* -o json: {"instance": the instance or null, "attempts": [...]}. */
static enum gr_err
print_attempts_json(struct cmd_ctx *c, const struct req_attempt *v, size_t n, size_t ranked,
    const struct instance *in, struct gr_error *err)
{
	struct cell mc = { CELL_MONEY, NULL, 0, 0, 0 };
	size_t i;

	fputs("{\"instance\":", c->out);
	if (in != NULL) {
		int64_t now = session_now(c->s);

		if (cmd_print_nested(c->out, instance_columns, ICOL__COUNT, 0, in, 1, sizeof(*in),
		    instance_cell, &now, true, err) != GR_OK)
			return err->code;
	} else
		fputs("null", c->out);
	fprintf(c->out, ",\"candidates\":%zu,\"attempts\":[", ranked);
	for (i = 0; i < n; i++) {
		fputs(i ? ",{\"offer_id\":" : "{\"offer_id\":", c->out);
		json_write_str(c->out, v[i].offer_id);
		fputs(",\"outcome\":", c->out);
		json_write_str(c->out, req_outcome_name(v[i].outcome));
		mc.kind = CELL_MONEY;
		mc.s = v[i].currency;
		mc.i = v[i].ranked_hour;
		fputs(",\"ranked_all_in_hour\":", c->out);
		json_write_cell(c->out, &mc);
		mc.kind = v[i].now_hour >= 0 ? CELL_MONEY : CELL_NULL;
		mc.i = v[i].now_hour;
		fputs(",\"all_in_hour\":", c->out);
		json_write_cell(c->out, &mc);
		fputs(",\"currency\":", c->out);
		json_write_str(c->out, v[i].currency);
		fputs(",\"error\":", c->out);
		if (v[i].outcome == REQ_RENTED)
			fputs("null,\"reason\":null}", c->out);
		else {
			json_write_str(c->out, gr_err_name(v[i].code));
			fputs(",\"reason\":", c->out);
			json_write_str(c->out, v[i].why);
			fputc('}', c->out);
		}
	}
	fputs("]}\n", c->out);
	return GR_OK;
}

/* How the options price an offer: disk, bid, --max-price in its currency, the fx rates
   (fx is filled, and pointed to). */
static void
pricing_of(const struct args *a, const struct config *cfg, struct fx_rates *fx,
    struct req_pricing *p)
{
	memset(p, 0, sizeof(*p));
	p->disk_gb = (int)a->disk;
	p->margin_pct = (int)config_get_int(cfg, "spot.bid_margin", 0);
	p->has_bid = a->has_bid;
	p->bid = a->bid;
	p->max_all_in = a->max_price;
	money_currency_set(p->max_currency, a->max_currency);
	config_fx(cfg, fx);
	p->fx = fx;
}

/*
 * launch by requirement: search every selected provider with the requirement's filter, rank
 * what matches (requirement.h), and rent the best, failing over to the next candidates.
 */

/*
 * After --wait (status: wait_running's): --verify and --guard on the running instance.
 * Their reports go to stderr: stdout stays the id (or the JSON) that scripts read. The
 * guard goes on even where verify found the machine short, as it is left running.
 */
static int
once_running(struct cmd_ctx *c, const struct args *a, int status, const char *id)
{
	struct gr_error err = { 0 };
	int rc = status;

	if (status == 0 && a->verify) {
		struct out_opts vo = out_global;

		vo.format = OUT_TABLE;
		vo.fields = NULL;
		vo.color = false;
		rc = verify_instance(c, id, stderr, &vo);
	}
	if (status == 0 && a->guard && cmd_guard_install(c, id, 0, 0, "USD", 0, &err) !=
	    GR_OK) {
		cmd_warn("%s runs without its guard: %s", id, err.msg);
		if (rc == 0)
			rc = gr_exit_code(err.code);
	}
	return rc;
}

static int
launch_by_requirement(struct cmd_ctx *c, struct args *a, int npos, char **pos)
{
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct gr_error err = { 0 };
	struct req_attempt attempts[MAX_ATTEMPTS];
	struct req_candidate *cands = NULL;
	struct req_pricing pricing;
	struct req_money money;
	struct offers_money terms_money;
	struct fx_rates fx;
	struct launch_req base;
	struct offer_list list;
	struct instance in;
	struct config *cfg;
	struct filter f;
	struct state *st;
	size_t ncand = 0, skipped = 0, nat = 0;
	char price[32];
	enum gr_err frc, rc;
	int status = 0;

	if (a->verify && !a->wait)
		return cmd_usage_error(c, "--verify needs --wait: a machine is checked once it runs");
	if (a->guard && !a->wait)
		return cmd_usage_error(c, "--guard needs --wait: the guard goes on a machine once it "
		    "runs");
	/* --count with an offer id holds GPUs per node on a cluster; here it is a requirement. */
	if (a->count > 0) {
		char gpus[24];
		int bad;

		snprintf(gpus, sizeof(gpus), "%lld", a->count);
		if ((bad = add_term(c, a, "gpus", "=", gpus)) != 0)
			return bad;
	}
	memset(&f, 0, sizeof(f));
	if (filter_parse(&f, (int)a->n_terms, a->terms, &err) != GR_OK ||
	    filter_parse(&f, npos, pos, &err) != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	/* Interruptible only when asked for: an instance that can be taken back is a choice. */
	if (filter_find(&f, FF_TYPE) == NULL) {
		char *on_demand[] = { "type=on-demand", NULL };

		if (filter_parse(&f, 1, on_demand, &err) != GR_OK)
			return cmd_usage_error(c, "%s", err.msg);
	}
	if (session_config(c->s, &cfg, &err) != GR_OK)
		return cmd_error(c, &err);
	if (a->image == NULL)
		a->image = config_get(cfg, "launch.image");
	if (a->disk == 0)
		a->disk = config_get_int(cfg, "launch.disk", 0);
	pricing_of(a, cfg, &fx, &pricing);
	offer_list_init(&list);
	frc = session_offers(c->s, &f, &list, res, &err);
	report_timing(c, res, c->s->n_backends);
	if (frc != GR_OK && frc != GR_EPARTIAL) {
		offer_list_release(&list);
		if (c->s->n_backends > 1)
			report_fanout(c, res, c->s->n_backends);
		return c->s->n_backends > 1 ? gr_exit_code(frc) : cmd_error(c, &err);
	}
	if (frc == GR_EPARTIAL)
		report_fanout(c, res, c->s->n_backends);
	/* Price terms given as FILTER are in dollars, as with offers: at a rate or refused. */
	if (offers_money_check(&list, &f, NULL, false, &fx, &terms_money, &err) != GR_OK) {
		offer_list_release(&list);
		return cmd_usage_error(c, "%s", err.msg);
	}
	filter_apply_fx(&f, &list, &fx);
	if (requirement_money_check(&list, &pricing, &money, &err) != GR_OK) {
		offer_list_release(&list);
		return cmd_usage_error(c, "%s", err.msg);
	}
	if (money.converted || terms_money.converted)
		cmd_warn("prices in %s compared in US dollars, converted at your configured rate "
		    "(fx.%s)", money.converted ? money.rated : terms_money.rated,
		    money.converted ? money.rated : terms_money.rated);
	requirement_rank(&list, &pricing, &cands, &ncand, &skipped);
	offer_list_release(&list);
	if (a->dry_run || ncand == 0) {
		if (ncand == 0)
			cmd_warn("no offer meets the requirement%s", skipped ? _(" at the price, disk "
			    "or bid asked") : "");
		if (a->dry_run && out_print(c->out, &out_global, cand_columns, RC__COUNT, RC_ID,
		    cands, ncand, sizeof(*cands), cand_cell, cands, &err) != GR_OK) {
			free(cands);
			return cmd_usage_error(c, "%s", err.msg);
		}
		free(cands);
		if (a->dry_run && ncand > 0 && out_global.format == OUT_TABLE &&
		    isatty(STDERR_FILENO))
			fprintf(stderr, _("nothing was rented (--dry-run); the first that can be "
			    "had would be, trying at most %lld\n"), a->attempts);
		return finish_output(c, ncand == 0 ? EXIT_NOTFOUND : 0);
	}
	if (session_state(c->s, &st, &err) != GR_OK) {
		free(cands);
		return cmd_error(c, &err);
	}
	fill_request(&base, a);
	rc = requirement_rent(c->s, cands, ncand, &pricing, (size_t)a->attempts, &base, a->force,
	    &in, attempts, &nat, &err);
	free(cands);
	report_attempts(attempts, nat, &in);
	if (rc != GR_OK) {
		if (out_global.format == OUT_JSON && print_attempts_json(c, attempts, nat, ncand,
		    NULL, &err) != GR_OK)
			return cmd_usage_error(c, "%s", err.msg);
		return finish_output(c, cmd_error(c, &err));
	}
	idcache_put_instances(st, &in, 1, false, NULL);
	if (c->s->interactive && out_global.format == OUT_TABLE)
		fprintf(stderr, _("launched %s at %s/hour\n"), in.id,
		    money_format_in(price, sizeof(price), in.price_hour, 3, in.currency));
	if (a->wait) {
		struct backend *b;

		if (session_backend_for(c->s, in.id, &b, &err) != GR_OK)
			return cmd_error(c, &err);
		status = once_running(c, a, wait_running(c, b, &in, a->timeout), in.id);
	}
	if (out_global.format == OUT_JSON) {
		if (print_attempts_json(c, attempts, nat, ncand, &in, &err) != GR_OK)
			return cmd_usage_error(c, "%s", err.msg);
	} else
		fprintf(c->out, "%s\n", in.id);
	return finish_output(c, status);
}

/* Whether a positional is a filter term ("gpu=h100", "price<=2") rather than an offer id. */
static bool
is_filter_term(const char *s)
{
	return strpbrk(s, "=<>!") != NULL;
}

/*
 * --term with an on-demand offer: the same machine's term offer, which the provider lists
 * as the offer's id with "t<months>" (sim, PPIO); a term offer with --term: the same months.
 */
static enum gr_err
term_offer(struct cmd_ctx *c, const struct args *a, struct offer *o, struct gr_error *err)
{
	char id[ID_MAX + 8];

	if (o->type == OFFER_RESERVED && a->term > 0 && a->term != o->term_months)
		return gr_fail(err, GR_EUSAGE, "offer '%s' is a term of %d months, not %d", o->id,
		    o->term_months, a->term);
	if (o->type == OFFER_RESERVED || a->term == 0)
		return GR_OK;
	if (o->type != OFFER_ON_DEMAND)
		return gr_fail(err, GR_EUSAGE, "offer '%s' is interruptible: a term is rented on "
		    "demand", o->id);
	snprintf(id, sizeof(id), "%s" "t%d", o->id, a->term);
	if (session_offer_find(c->s, id, o, err) != GR_OK)
		return gr_fail(err, GR_EUSAGE, "'%s' is not sold on a term of %d months at "
		    "creation (gpurent offers type=reserved lists the terms; vast sells them by "
		    "'gpurent prepay' of a running instance)", id, a->term);
	return GR_OK;
}

/* Say on stderr what a term costs at once and what it saves. */
static void
explain_term(const struct offer *o)
{
	char a[32], b[32];
	int bp = offer_term_discount_bp(o);

	money_format_in(a, sizeof(a), o->term_price, 2, o->currency);
	money_format_in(b, sizeof(b), o->price_hour, 3, o->currency);
	if (bp >= 0)
		cmd_warn("a %d-month term, paid at once: %s (%s/h, %d.%02d%% off on demand)",
		    o->term_months, a, b, bp / 100, bp % 100);
	else
		cmd_warn("a %d-month term, paid at once: %s (%s/h)", o->term_months, a, b);
}

/* launch OFFER_ID: rent that offer. */
static int
launch_offer(struct cmd_ctx *c, struct args *ap, int n, char **argv)
{
	struct args a = *ap;
	struct gr_error err = { 0 };
	struct launch_req req;
	struct launch_plan plan;
	struct instance in;
	struct offer o;
	struct backend *b;
	struct config *cfg;
	struct state *st;
	char price[32];
	int rc;

	if (n != 1)
		return cmd_usage_error(c, n == 0 ? N_("which offer? give an OFFER_ID from "
		    "'gpurent offers', or a requirement such as --gpu h100 --count 8") :
		    N_("one offer at a time (or a requirement: filter terms such as gpu=h100 "
		    "gpus=8)"));
	if (a.verify && !a.wait)
		return cmd_usage_error(c, "--verify needs --wait: a machine is checked once it runs");
	if (a.guard && !a.wait)
		return cmd_usage_error(c, "--guard needs --wait: the guard goes on a machine once it "
		    "runs");
	if (session_config(c->s, &cfg, &err) != GR_OK ||
	    session_backend_for(c->s, argv[0], &b, &err) != GR_OK)
		return cmd_error(c, &err);
	if (a.has_bid && backend_require(b->ops, CAP_INTERRUPTIBLE, NULL, &err) != GR_OK)
		return cmd_error(c, &err);
	if ((a.count || a.nodes || a.max_runtime) &&
	    backend_require(b->ops, CAP_ALLOC, NULL, &err) != GR_OK)
		return cmd_error(c, &err);
	if (session_offer_find(c->s, argv[0], &o, &err) != GR_OK ||
	    term_offer(c, &a, &o, &err) != GR_OK)
		return cmd_error(c, &err);
	if (a.image == NULL)
		a.image = config_get(cfg, "launch.image");
	if (a.disk == 0)
		a.disk = config_get_int(cfg, "launch.disk", 0);	/* 0: the provider's default */
	/* From here on a dry run takes exactly the steps of a launch, short of renting. */
	if (launch_plan_make(&o, a.has_bid, a.bid, (int)a.disk, (int)config_get_int(cfg,
	    "spot.bid_margin", 0), &plan, &err) != GR_OK)
		return cmd_error(c, &err);
	/* --max-price with an offer: rented only at that all-in price or less, in its currency
	   or at the configured rate (the price may have risen since it was looked at). */
	if (a.max_price >= 0) {
		struct req_pricing pricing;
		struct req_candidate cand;
		struct fx_rates fx;

		pricing_of(&a, cfg, &fx, &pricing);
		if (requirement_price(&o, &pricing, &cand, &err) != GR_OK)
			return cmd_error(c, &err);
	}
	explain_bid(&o, &plan);
	if (session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	fill_request(&req, &a);
	req.offer_id = o.id;
	req.interruptible = o.type == OFFER_INTERRUPTIBLE;
	req.bid_hour = plan.bid_hour;
	req.term_months = o.term_months;
	req.term_price = o.term_price;
	if (o.term_months > 0)
		explain_term(&o);
	cmd_warn_profile_budget(c);
	if (guard_launch(c->s, b, &req, plan.price_hour, o.currency, (a.force ? GUARD_FORCE : 0) |
	    (a.dry_run ? GUARD_DRY_RUN : 0), &in, &err) != GR_OK)
		return cmd_error(c, &err);
	if (a.dry_run)
		return print_dry_run(c, &o, &plan);
	idcache_put_instances(st, &in, 1, false, NULL);
	if (c->s->interactive && out_global.format == OUT_TABLE && (in.valid & IV_PRICE))
		fprintf(stderr, _("launched %s at %s/hour\n"), in.id,
		    money_format_in(price, sizeof(price), in.price_hour, 3, in.currency));
	else if (c->s->interactive && out_global.format == OUT_TABLE)
		fprintf(stderr, _("launched %s (no price known)\n"), in.id);
	rc = a.wait ? once_running(c, &a, wait_running(c, b, &in, a.timeout), in.id) : 0;
	if (out_global.format == OUT_JSON) {
		int64_t now = session_now(c->s);

		if (out_print_record(c->out, &out_global, instance_columns, ICOL__COUNT, &in,
		    instance_cell, &now, &err) != GR_OK)
			return cmd_usage_error(c, "%s", err.msg);
	} else
		fprintf(c->out, "%s\n", in.id);
	return finish_output(c, rc);
}

static int
launch_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a;
	int n, rc;

	memset(&a, 0, sizeof(a));
	a.timeout = 600;
	a.max_price = -1;
	a.attempts = 5;
	rc = cmd_parse(c, argc, argv, handle, &a, &n);
	if (rc == 0 && n >= 0 && (a.n_terms > 0 || (n == 0 && (a.count > 0 || a.max_price >= 0)) ||
	    (n > 0 && is_filter_term(argv[0]))))
		rc = launch_by_requirement(c, &a, n, argv);
	else if (rc == 0 && n >= 0)
		rc = launch_offer(c, &a, n, argv);
	while (a.n_terms > 0)
		free(a.terms[--a.n_terms]);
	return rc;
}

const struct command cmd_launch = {
	.name = "launch",
	.alias = "rent",
	.args = "OFFER_ID | FILTER...",
	.summary = N_("rent an offer, or the best offer that meets a requirement"),
	.help =
	    N_("Prints the new instance's id (with -o json, the whole instance). An interruptible\n"
	    "offer is bid spot.bid_margin (default 20%) over its current price unless --bid\n"
	    "names a bid, which may not be below that price; the bid is said on stderr, with a\n"
	    "warning when a --bid is within the margin. An on-demand offer takes no bid. With\n"
	    "--wait, exits 11 when --timeout passes first; the instance is left running. A\n"
	    "launch that a configured budget.day or budget.month would not cover, counting\n"
	    "what bills now, what is still provisioning and this launch, is refused with exit\n"
	    "status 9. A budget in another currency than the offer's (budget.day = 300 CNY)\n"
	    "counts it only at a configured fx.CODE rate, and refuses it without one. --bid is\n"
	    "in the offer's currency. --dry-run makes every check a launch makes and rents\n"
	    "nothing. --wait --verify then runs 'gpurent verify' on the new instance, its\n"
	    "report on stderr, and exits 14 when the machine is not what the offer promised\n"
	    "(the instance is left running). --wait --guard then installs the instance guard\n"
	    "on it (gpurent guard install) and exits non-zero, the instance left running, when\n"
	    "that fails.\n\n"
	    "By requirement: instead of an OFFER_ID, give --gpu, --count, --max-price, --region,\n"
	    "--interruptible, --min-reliability or filter terms of 'gpurent offers' (on-demand\n"
	    "unless --interruptible or a type= term says otherwise). Every selected provider is\n"
	    "searched; the matching offers are ranked by all-in price per hour (the price or\n"
	    "bid plus the disk's storage), then by reliability, and the first that can be had\n"
	    "is rented. An offer that is gone, has no capacity or whose price rose since it\n"
	    "was ranked is passed over for the next, at most --attempts (default 5); each\n"
	    "attempt and why it failed is said on stderr (with -o json, {\"instance\",\n"
	    "\"attempts\"} on stdout). Any other failure stops at once, so one request never\n"
	    "rents two instances. Exit status 3 when no offer matches, 7 when none could be\n"
	    "rented. --dry-run lists the candidates in the order they would be tried.\n"
	    "Offers in several currencies are ranked, and --max-price ('90 CNY'; bare: US\n"
	    "dollars) meets another currency, only at your fx.CODE rates: without one the\n"
	    "request is refused (status 2).\n\n"
	    "examples:\n"
	    "  gpurent launch sim:o-000042 --wait\n"
	    "  gpurent launch --gpu h100 --count 8 --max-price 25 --region eu --dry-run\n"
	    "  gpurent launch -p vast -p runpod --gpu a100-80gb --interruptible reliability>=0.98"),
	.opts = opts,
	.complete_args = CPL_OFFER,
	.run = launch_run,
};
