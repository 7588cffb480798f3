/*
 * gpurent launch: rent an offer, optionally wait until it runs.
 */
#include <fcntl.h>
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
#include "gpurent/idcache.h"
#include "gpurent/launch_policy.h"
#include "gpurent/money.h"
#include "gpurent/output.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "common.h"
#include "verify.h"

enum { L_IMAGE = 1, L_DISK, L_LABEL, L_ENV, L_PORT, L_ONSTART, L_BID, L_DRY_RUN, L_WAIT,
	L_TIMEOUT, L_FORCE, L_VERIFY, L_COUNT, L_NODES, L_MAX_RUNTIME };

#define MAX_ENV 64
#define MAX_PORTS 32

static const struct cmd_opt opts[] = {
	{ "image", 'i', "IMAGE", "container or OS image to run", L_IMAGE, CPL_NONE, false },
	{ "disk", 'd', "GB", "disk size in GB (default: launch.disk, else the provider's default: 50 GB on sim)", L_DISK, CPL_NONE, false },
	{ "label", 'l', "LABEL", "a name for the instance, used by ls --label and costs", L_LABEL, CPL_NONE, false },
	{ "env", 'e', "K=V", "environment variable for the instance (repeatable)", L_ENV, CPL_NONE, true },
	{ "port", 0, "PORT", "port to expose (repeatable)", L_PORT, CPL_NONE, true },
	{ "onstart", 0, "CMD", "command to run when the instance starts", L_ONSTART, CPL_NONE, false },
	{ "bid", 'b', "PRICE", "interruptible: bid per hour in the offer's currency (default: the price + spot.bid_margin)", L_BID, CPL_NONE, false },
	{ "dry-run", 'n', NULL, "make every check of a launch and show what it costs; rent nothing", L_DRY_RUN, CPL_NONE, false },
	{ "wait", 'w', NULL, "wait until the instance runs", L_WAIT, CPL_NONE, false },
	{ "timeout", 't', "SECONDS", "with --wait: give up after this long (default 600)", L_TIMEOUT, CPL_NONE, false },
	{ "verify", 0, NULL, "with --wait: check the machine against the offer (gpurent verify) once it runs", L_VERIFY, CPL_NONE, false },
	{ "force", 'f', NULL, "launch even when a configured budget would be exceeded", L_FORCE, CPL_NONE, false },
	{ "count", 0, "N", "a cluster (slurm): GPUs per node to hold (default 1)", L_COUNT, CPL_NONE, false },
	{ "nodes", 0, "N", "a cluster (slurm): nodes to hold (default 1)", L_NODES, CPL_NONE, false },
	{ "max-runtime", 0, "DURATION", "a cluster (slurm): time limit of the job, such as 90m (default: the partition's)", L_MAX_RUNTIME, CPL_NONE, false },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, false },
};

struct args {
	const char *image, *label, *onstart;
	long long disk;
	const char *env[MAX_ENV + 1];
	size_t n_env;
	int ports[MAX_PORTS];
	size_t n_ports;
	int64_t bid;
	bool has_bid, dry_run, wait, force, verify;
	long long timeout;
	long long count, nodes, max_runtime;
};

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
			return cmd_usage_error(c, "--bid needs a price in dollars per hour such "
			    "as 1.25");
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
	case L_COUNT:
		if (!parse_int(arg, 1, 1024, &a->count))
			return cmd_usage_error(c, "--count needs a number of GPUs from 1 to 1024");
		break;
	case L_NODES:
		if (!parse_int(arg, 1, 100000, &a->nodes))
			return cmd_usage_error(c, "--nodes needs a number of nodes from 1 to 100000");
		break;
	case L_MAX_RUNTIME:
		if ((a->max_runtime = parse_duration(arg)) <= 0)
			return cmd_usage_error(c, "--max-runtime needs a duration such as 3600, 90m "
			    "or 2h");
		break;
	}
	return 0;
}

/* Find the offer through the provider's own search. */
static enum gr_err
find_offer(struct backend *b, const char *id, struct offer *out, struct gr_error *err)
{
	struct offer_list l;
	struct filter f;
	bool pushed;
	size_t i;
	enum gr_err rc;

	memset(&f, 0, sizeof(f));
	offer_list_init(&l);
	rc = b->ops->offers(b, &f, &l, &pushed, err);
	if (rc == GR_OK) {
		/*
		 * No provider tells a rented offer from one that never was: either way it is
		 * not on the market, the race a parallel launch loses (exit 7, search again).
		 */
		rc = gr_fail(err, GR_ECAPACITY, "offer '%s' is not on the market (rented by "
		    "someone else, or gone); search again", id);
		for (i = 0; i < l.n; i++)
			if (strcmp(l.v[i].id, id) == 0) {
				*out = l.v[i];
				gr_error_clear(err);
				rc = GR_OK;
				break;
			}
	}
	offer_list_release(&l);
	return rc;
}

/* A random token that lets the provider (and we) recognise a retried launch. */
static void
make_token(char *buf, size_t n)
{
	unsigned char raw[12];
	size_t i;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, raw, sizeof(raw)) != (ssize_t)sizeof(raw)) {
		uint64_t h = hash_mix((uint64_t)time(NULL), (uint64_t)getpid());

		memcpy(raw, &h, sizeof(h));
		memset(raw + sizeof(h), 0, sizeof(raw) - sizeof(h));
	}
	if (fd >= 0)
		close(fd);
	for (i = 0; i < sizeof(raw) && 2 * i + 2 < n; i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
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

		fprintf(c->out, "would rent %s: %d x %s, %s, %s\n", o->id, o->gpu_count,
		    o->gpu ? o->gpu->name : catalogue_display(NULL, o->gpu_raw, g, sizeof(g)),
		    offer_type_name(o->type), text_sanitize(loc, sizeof(loc), o->location));
		fprintf(c->out, "cost: %s/hour, %s/day, %s/month (730 h)\n",
		    money_format_in(h, sizeof(h), price, 3, o->currency),
		    money_format_in(d, sizeof(d), price * 24, 2, o->currency),
		    money_format_in(m, sizeof(m), price * 730, 2, o->currency));
		fputs("nothing was rented (--dry-run)\n", c->out);
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

/* What launch_admit calls back. */
struct launching {
	struct cmd_ctx *c;
	struct backend *b;
	const struct launch_req *req;
};

static void
launching_clock(void *ctx, struct cost_clock *out)
{
	session_clock(((struct launching *)ctx)->c->s, out);
}

static enum gr_err
launching_run(void *ctx, struct instance *out, struct gr_error *err)
{
	struct launching *l = ctx;

	return l->b->ops->launch(l->b, l->req, out, err);
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Poll until running. Returns 0, EXIT_TIMEOUT, EXIT_INTERRUPTED or an error status. */
static int
wait_running(struct cmd_ctx *c, struct backend *b, struct instance *in, long long timeout)
{
	struct timespec t0, t;
	struct gr_error err = { 0 };
	enum inst_state last = in->state;
	char last_msg[sizeof(in->status_msg)];

	strlcpy_(last_msg, in->status_msg, sizeof(last_msg));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (in->state == ST_RUNNING)
			return 0;
		if (in->state == ST_FAILED || in->state == ST_DESTROYED || in->state == ST_STOPPED) {
			cmd_warn("%s is %s%s%s", in->id, inst_state_name(in->state),
			    in->status_msg[0] ? ": " : "", in->status_msg);
			return EXIT_ERROR;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= timeout) {
			cmd_warn("%s is still %s%s%s%s after %llds; it keeps running and billing "
			    "('gpurent destroy %s' ends it)", in->id, inst_state_name(in->state),
			    in->status_msg[0] ? " (" : "", in->status_msg,
			    in->status_msg[0] ? ")" : "", timeout, in->id);
			return EXIT_TIMEOUT;
		}
		sleep_ms(500);
		if (cmd_interrupted) {
			cmd_warn("interrupted; %s is %s and was not destroyed", in->id,
			    inst_state_name(in->state));
			return EXIT_INTERRUPTED;
		}
		if (b->ops->get(b, in->id, in, &err) != GR_OK)
			return cmd_error(c, &err);
		/* A cluster's queue says why a job waits (Slurm: "PENDING (Priority)"). */
		if ((in->state != last || strcmp(in->status_msg, last_msg) != 0) &&
		    c->s->interactive)
			fprintf(stderr, "%s: %s%s%s%s\n", in->id, inst_state_name(in->state),
			    in->status_msg[0] ? " (" : "", in->status_msg,
			    in->status_msg[0] ? ")" : "");
		last = in->state;
		strlcpy_(last_msg, in->status_msg, sizeof(last_msg));
	}
}

static int
launch_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a;
	struct gr_error err = { 0 };
	struct launch_req req;
	struct launch_plan plan;
	struct launch_budget budget;
	struct launching ctx;
	struct launch_ops ops = { launching_clock, launching_run };
	struct instance in;
	struct offer o;
	struct backend *b;
	struct config *cfg;
	struct state *st;
	char token[32] = "", price[32];
	int n, rc;

	memset(&a, 0, sizeof(a));
	a.timeout = 600;
	rc = cmd_parse(c, argc, argv, handle, &a, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (n != 1)
		return cmd_usage_error(c, n == 0 ? "which offer? give an OFFER_ID from 'gpurent "
		    "offers'" : "one offer at a time");
	if (a.verify && !a.wait)
		return cmd_usage_error(c, "--verify needs --wait: a machine is checked once it runs");
	if (session_config(c->s, &cfg, &err) != GR_OK ||
	    session_backend_for(c->s, argv[0], &b, &err) != GR_OK)
		return cmd_error(c, &err);
	if (a.has_bid && backend_require(b->ops, CAP_INTERRUPTIBLE, NULL, &err) != GR_OK)
		return cmd_error(c, &err);
	if ((a.count || a.nodes || a.max_runtime) &&
	    backend_require(b->ops, CAP_ALLOC, NULL, &err) != GR_OK)
		return cmd_error(c, &err);
	if (find_offer(b, argv[0], &o, &err) != GR_OK)
		return cmd_error(c, &err);
	if (a.image == NULL)
		a.image = config_get(cfg, "launch.image");
	if (a.disk == 0)
		a.disk = config_get_int(cfg, "launch.disk", 0);	/* 0: the provider's default */
	/* From here on a dry run takes exactly the steps of a launch, short of renting. */
	if (launch_plan_make(&o, a.has_bid, a.bid, (int)a.disk, (int)config_get_int(cfg,
	    "spot.bid_margin", 0), &plan, &err) != GR_OK)
		return cmd_error(c, &err);
	explain_bid(&o, &plan);
	launch_budget_from_config(&budget, cfg, o.currency, a.force);
	if (session_state(c->s, &st, &err) != GR_OK)
		return cmd_error(c, &err);
	make_token(token, sizeof(token));
	memset(&req, 0, sizeof(req));
	req.offer_id = o.id;
	req.image = a.image;
	req.disk_gb = (int)a.disk;
	req.label = a.label;
	req.env = a.n_env ? a.env : NULL;
	req.ports = a.ports;
	req.n_ports = a.n_ports;
	req.onstart = a.onstart;
	req.interruptible = o.type == OFFER_INTERRUPTIBLE;
	req.bid_hour = plan.bid_hour;
	req.client_token = token;
	req.gpus_per_node = (int)a.count;
	req.nodes = (int)a.nodes;
	req.max_runtime_s = a.max_runtime;
	ctx.c = c;
	ctx.b = b;
	ctx.req = &req;
	if (a.dry_run)
		ops.launch = NULL;
	memset(&in, 0, sizeof(in));
	if (launch_admit(st, &budget, b->ops->name, plan.price_hour, &ops, &ctx, &in, &err) !=
	    GR_OK)
		return cmd_error(c, &err);
	if (a.dry_run)
		return print_dry_run(c, &o, &plan);
	idcache_put_instances(st, &in, 1, false, NULL);
	if (c->s->interactive && out_global.format == OUT_TABLE && (in.valid & IV_PRICE))
		fprintf(stderr, "launched %s at %s/hour\n", in.id,
		    money_format_in(price, sizeof(price), in.price_hour, 3, in.currency));
	else if (c->s->interactive && out_global.format == OUT_TABLE)
		fprintf(stderr, "launched %s (no price known)\n", in.id);
	rc = a.wait ? wait_running(c, b, &in, a.timeout) : 0;
	/* The report goes to stderr: stdout stays the id (or the JSON) that scripts read. */
	if (rc == 0 && a.verify) {
		struct out_opts vo = out_global;

		vo.format = OUT_TABLE;
		vo.fields = NULL;
		vo.color = false;
		rc = verify_instance(c, in.id, stderr, &vo);
	}
	if (out_global.format == OUT_JSON) {
		int64_t now = session_now(c->s);

		if (out_print_record(c->out, &out_global, instance_columns, ICOL__COUNT, &in,
		    instance_cell, &now, &err) != GR_OK)
			return cmd_usage_error(c, "%s", err.msg);
	} else
		fprintf(c->out, "%s\n", in.id);
	return finish_output(c, rc);
}

const struct command cmd_launch = {
	.name = "launch",
	.alias = "rent",
	.args = "OFFER_ID",
	.summary = "rent an offer as a new instance",
	.help =
	    "Prints the new instance's id (with -o json, the whole instance). An interruptible\n"
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
	    "(the instance is left running).",
	.opts = opts,
	.complete_args = CPL_OFFER,
	.run = launch_run,
};
