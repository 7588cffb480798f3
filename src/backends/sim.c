/*
 * The `sim` backend: the simulated marketplace behind the provider interface, with no
 * network in between. It is always built and is the default provider.
 */
#include <string.h>

#include "gpurent/backend.h"
#include "gpurent/filter.h"
#include "gpurent/sim.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

struct sim_priv {
	struct sim *sim;
};

static struct sim *
sim_of(struct backend *b)
{
	return ((struct sim_priv *)b->priv)->sim;
}

/*
 * The world, once the state that its bills go to is open: a team's is opened on a thread
 * while the world's work goes on, and a state that did not open fails the call with why.
 * The listing waits inside, after the world's own reads.
 */
static struct sim *
sim_ready(struct backend *b, struct gr_error *err)
{
	return sim_ledger_ready(sim_of(b), err) == GR_OK ? sim_of(b) : NULL;
}

static enum gr_err
simb_init(struct backend *b, struct gr_error *err)
{
	struct sim_priv *p = b->priv;
	struct state *st = backend_state(b, err), *ledger;

	if (st == NULL || sim_open(&p->sim, st, err) != GR_OK)
		return err->code;
	/* The world stays in the file; its billing goes where gpurent's records go. */
	if ((ledger = backend_store(b, err)) == NULL) {
		sim_close(p->sim);
		p->sim = NULL;
		return err->code;
	}
	sim_set_ledger(p->sim, ledger);
	return GR_OK;
}

static void
simb_cleanup(struct backend *b)
{
	struct sim_priv *p = b->priv;

	sim_close(p->sim);
	p->sim = NULL;
}

static enum gr_err
simb_offers(struct backend *b, const struct filter *f, struct offer_list *out, bool *pushed_all,
    struct gr_error *err)
{
	struct sim *s = sim_ready(b, err);
	size_t before = out->n, i, o;
	enum gr_err rc;

	if (s == NULL)
		return err->code;
	rc = sim_offers(s, out, err);
	if (rc != GR_OK)
		return rc;
	/* Each machine sold on demand is sold on the simulator's terms too, when asked. */
	if (filter_wants_terms(f)) {
		static const int months[] = SIM_TERM_MONTHS;
		size_t n = out->n, k;
		struct offer t;

		for (i = before; i < n; i++)
			for (k = 0; out->v[i].type == OFFER_ON_DEMAND && k < ARRAY_LEN(months); k++) {
				sim_term_offer(&out->v[i], months[k], &t);
				*offer_list_add(out) = t;
			}
	}
	/* The whole market is local, so the filter is applied right here, in place. */
	for (i = o = before; i < out->n; i++)
		if (filter_match(f, &out->v[i])) {
			if (o != i)
				out->v[o] = out->v[i];
			o++;
		}
	out->n = o;
	*pushed_all = true;
	return GR_OK;
}

/* The filter is applied here to the whole market, so the market's stamp is its answer's. */
static enum gr_err
simb_offers_stamp(struct backend *b, const struct filter *f, uint64_t *stamp,
    struct gr_error *err)
{
	struct sim *s = sim_ready(b, err);

	(void)f;
	return s != NULL ? sim_offers_stamp(s, stamp, err) : err->code;
}

static enum gr_err
simb_instances(struct backend *b, struct instance_list *out, struct gr_error *err)
{
	return sim_instances(sim_of(b), false, out, err);
}

static enum gr_err
simb_get(struct backend *b, const char *id, struct instance *out, struct gr_error *err)
{
	struct sim *s = sim_ready(b, err);

	return s != NULL ? sim_get(s, id, out, err) : err->code;
}

static enum gr_err
simb_launch(struct backend *b, const struct launch_req *req, struct instance *out,
    struct gr_error *err)
{
	struct sim *s = sim_ready(b, err);

	return s != NULL ? sim_launch(s, req, out, err) : err->code;
}

static enum gr_err
simb_stop(struct backend *b, const char *id, struct gr_error *err)
{
	struct sim *s = sim_ready(b, err);

	return s != NULL ? sim_stop(s, id, err) : err->code;
}

static enum gr_err
simb_start(struct backend *b, const char *id, struct gr_error *err)
{
	struct sim *s = sim_ready(b, err);

	return s != NULL ? sim_start(s, id, err) : err->code;
}

static enum gr_err
simb_destroy(struct backend *b, const char *id, struct gr_error *err)
{
	struct sim *s = sim_ready(b, err);

	return s != NULL ? sim_destroy(s, id, err) : err->code;
}

static enum gr_err
simb_metrics(struct backend *b, const char *id, struct sample_list *out, struct gr_error *err)
{
	struct sim *s = sim_ready(b, err);

	return s != NULL ? sim_metrics(s, id, out, err) : err->code;
}

static enum gr_err
simb_account(struct backend *b, struct account *out, struct gr_error *err)
{
	struct sim *s = sim_ready(b, err);

	return s != NULL ? sim_account(s, out, err) : err->code;
}

static enum gr_err
simb_charges(struct backend *b, int64_t since, int64_t until, struct charge_list *out,
    struct gr_error *err)
{
	struct sim *s = sim_ready(b, err);

	return s != NULL ? sim_bill(s, since, until, out, err) : err->code;
}

const struct backend_ops backend_sim = {
	.name = "sim",
	.description = "built-in simulated marketplace (no account needed)",
	.caps = CAP_STOP | CAP_METRICS | CAP_INTERRUPTIBLE | CAP_ACCOUNT | CAP_SSH | CAP_COST,
	.own_ledger = true,
	.priv_size = sizeof(struct sim_priv),
	.init = simb_init,
	.cleanup = simb_cleanup,
	.offers = simb_offers,
	.offers_stamp = simb_offers_stamp,
	.instances = simb_instances,
	.get = simb_get,
	.launch = simb_launch,
	.stop = simb_stop,
	.start = simb_start,
	.destroy = simb_destroy,
	.metrics = simb_metrics,
	.account = simb_account,
	.charges = simb_charges,
};
