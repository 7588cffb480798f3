/*
 * The dashboard's lane jobs that need the guard (lanes.h, struct lane_ops): the launch and
 * the other actions, admitted as the CLI's are, the costs view's audit line and the jobs
 * view's managed jobs.
 */
#include <string.h>
#include <time.h>

#include "gpurent/audit.h"
#include "gpurent/config.h"
#include "gpurent/idcache.h"
#include "gpurent/launch.h"
#include "gpurent/managed.h"
#include "gpurent/observed.h"
#include "gpurent/util.h"
#include "fetch.h"

/* The checks, bid and budget of `gpurent launch` (launch.h), from what the view saw. */
static enum gr_err
do_launch(struct session *s, struct backend *b, const struct lane_request *req,
    struct instance *out, struct gr_error *err)
{
	struct launch_req lr;
	struct launch_plan plan;
	struct offer o;
	struct config *cfg;
	struct state *st;

	if (session_config(s, &cfg, err) != GR_OK || session_state(s, &st, err) != GR_OK)
		return err->code;
	memset(&o, 0, sizeof(o));
	strlcpy_(o.id, req->id, sizeof(o.id));
	o.type = req->interruptible ? OFFER_INTERRUPTIBLE : OFFER_ON_DEMAND;
	o.price_hour = req->price_hour;
	money_currency_set(o.currency, req->currency);
	o.valid = OV_PRICE;
	if (launch_plan_make(&o, false, 0, 0, (int)config_get_int(cfg, "spot.bid_margin",
	    0), &plan, err) != GR_OK)
		return err->code;
	memset(&lr, 0, sizeof(lr));
	lr.offer_id = req->id;
	lr.image = config_get(cfg, "launch.image");
	lr.disk_gb = (int)config_get_int(cfg, "launch.disk", 50);
	lr.interruptible = req->interruptible;
	lr.bid_hour = plan.bid_hour;
	if (guard_launch(s, b, &lr, plan.price_hour, req->currency, 0, out, err) != GR_OK)
		return err->code;
	idcache_put_instances(st, out, 1, false, NULL);
	return GR_OK;
}

static enum gr_err
do_action(struct session *s, struct ui_result *r)
{
	struct backend *b;
	struct gr_error *err = &r->err;

	enum managed_turn turn;
	char holder[300];

	/* Through the engine's door, as 'gpurent kill mN' does; a controller that holds the
	   job ends it at its next round. */
	if (r->req.action == UA_CANCEL) {
		managed_holder(holder, sizeof(holder));
		return managed_cancel(s, r->req.id, holder, NULL, &turn, err);
	}
	if (session_backend_for(s, r->req.id, &b, err) != GR_OK)
		return err->code;
	switch (r->req.action) {
	case UA_LAUNCH:
		return do_launch(s, b, &r->req, &r->launched, err);
	case UA_STOP:
	case UA_START:
		if (backend_require(b->ops, CAP_STOP, NULL, err) != GR_OK)
			return err->code;
		/* A start bills again: admitted as a launch is, budgets and all. */
		return r->req.action == UA_STOP ? observed_stop(b, r->req.id, err) :
		    guard_start(s, b, r->req.id, false, err);
	case UA_DESTROY:
		return observed_destroy(b, r->req.id, err);
	case UA_CANCEL:
		break;
	}
	return gr_fail(err, GR_EUSAGE, "unknown action");
}

/* How long the advise line stands before it is worked out again: it reads 30 days of
   ledger and history, which barely move between two refreshes of the costs lane. */
#define ADVISE_STANDS_S 600

/*
 * The costs view's advise line: the savings of `gpurent advise --offline` over the last 30
 * days (the listing would cost a round of provider calls each refresh). Worked out at most
 * every ADVISE_STANDS_S, not at every refresh of the costs lane: two 30-day audits each time
 * would be most of the dashboard's idle CPU. The costs lane is one thread, the cache's only
 * user.
 */
static enum gr_err
advise_summary(struct state *st, const struct config *cfg, const struct audit_opts *ao,
    struct ui_audit *a, struct gr_error *err)
{
	static struct ui_audit last;
	static time_t last_at;
	struct advise_term t[ADVISE_TERMS_MAX];
	struct advise_opts o;
	struct advise_report rep;
	time_t now = time(NULL);
	size_t i;

	if (last_at != 0 && now >= last_at && now - last_at < ADVISE_STANDS_S) {
		memcpy(a->saving, last.saving, sizeof(a->saving));
		a->n_saving = last.n_saving;
		a->advised = last.advised;
		return GR_OK;
	}
	memset(&o, 0, sizeof(o));
	o.audit = *ao;
	o.audit.span_s = 30 * 86400;
	o.terms = t;
	o.n_terms = advise_terms(cfg, t);
	if (advise_compute(st, &o, &rep, err) != GR_OK)
		return err->code;
	a->n_saving = advise_savings(&rep, a->saving, UI_MAX_CURRENCIES);
	for (i = 0; i < rep.n; i++)
		a->advised |= rep.groups[i].base > 0;
	advise_report_release(&rep);
	memcpy(last.saving, a->saving, sizeof(last.saving));
	last.n_saving = a->n_saving;
	last.advised = a->advised;
	last_at = now;
	return GR_OK;
}

/* The costs view's audit line: the last 7 days in total, from the ledger and history. */
static enum gr_err
audit_summary(struct session *s, struct state *st, const struct cost_clock *clk,
    struct ui_result *r)
{
	struct ui_audit *a = r->audit = xcalloc(1, sizeof(*r->audit));
	struct audit_opts o;
	struct audit_report rep;
	struct config *cfg;
	struct fx_rates fx;

	if (session_config(s, &cfg, &r->err) != GR_OK)
		return r->err.code;
	memset(&o, 0, sizeof(o));
	o.span_s = 7 * 86400;
	o.clock = clk;
	o.idle_pct = (int)config_get_int(cfg, "idle.threshold", 5);
	o.target_pct = a->target = (int)config_get_int(cfg, "audit.target", 85);
	o.grid = config_get(cfg, "audit.grid");
	o.by = AG_PROVIDER;
	config_fx(cfg, &fx);
	o.fx = &fx;
	if (audit_compute(st, &o, &rep, &r->err) != GR_OK)
		return r->err.code;
	a->total = rep.total;
	for (a->n_per = 0; a->n_per < rep.n_totals && a->n_per < UI_MAX_CURRENCIES; a->n_per++)
		a->per[a->n_per] = rep.totals[a->n_per];
	audit_report_release(&rep);
	return advise_summary(st, cfg, &o, a, &r->err);
}

/* The jobs view's managed jobs, as 'gpurent jobs --managed' lists them. */
static enum gr_err
managed_list(struct session *s, struct ui_result *r)
{
	return managed_rows(s, NULL, time(NULL), &r->managed, &r->n_managed, &r->err);
}

const struct lane_ops ui_lane_ops = { do_action, audit_summary, managed_list };
