/*
 * advise.c - the load shape, the cheapest mix of terms and on-demand for it, and the
 * compute balance sheet, from the ledger and the audit (advise.h).
 *
 * GPU counts, spend per model and utilisation come from audit_compute, so that advise and
 * audit never disagree on them; the ledger is read again only for when each GPU ran.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/advise.h"
#include "gpurent/catalogue.h"
#include "gpurent/config.h"
#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/util.h"

size_t
advise_terms(const struct config *cfg, struct advise_term *t)
{
	t[0] = (struct advise_term){ "1mo", 1, (int)config_get_int(cfg, "advise.term_1mo", 20) };
	t[1] = (struct advise_term){ "3mo", 3, (int)config_get_int(cfg, "advise.term_3mo", 30) };
	return 2;
}

int
advise_percentile(const int64_t *dur, size_t n, int pct)
{
	int64_t total = 0, cum = 0;
	size_t l;

	for (l = 0; l < n; l++)
		total += dur[l];
	if (total <= 0)
		return -1;
	for (l = 0; l < n; l++) {
		cum += dur[l];
		if (cum * 100 >= (int64_t)pct * total)
			return (int)l;
	}
	return (int)n - 1;
}

double
advise_break_even_hours(int discount_pct)
{
	return ADVISE_MONTH_H * (100 - discount_pct) / 100.0;
}

struct advise_plan
advise_plan(int64_t paid, int64_t gpu_s, int64_t base_gpu_s, int base, int64_t span_s,
    int discount_pct)
{
	struct advise_plan p = { 0 };

	p.discount_pct = discount_pct;
	if (gpu_s <= 0)
		return p;
	p.term_cost = money_scale(paid, (int64_t)base * span_s * (100 - discount_pct),
	    gpu_s * 100);
	p.demand_cost = money_scale(paid, gpu_s - base_gpu_s, gpu_s);
	p.saving = paid - p.term_cost - p.demand_cost;
	return p;
}

void
advise_report_release(struct advise_report *r)
{
	free(r->groups);
	r->groups = NULL;
	r->n = 0;
}

size_t
advise_savings(const struct advise_report *r, struct advise_saving *v, size_t max)
{
	size_t i, k, n = 0;

	for (i = 0; i < r->n; i++) {
		const struct advise_group *g = &r->groups[i];

		for (k = 0; k < n && strcmp(v[k].currency, g->currency) != 0; k++)
			;
		if (k == n) {
			if (n == max)
				continue;
			memset(&v[n], 0, sizeof(v[n]));
			money_currency_set(v[n++].currency, g->currency);
		}
		v[k].paid += g->paid;
		if (g->best >= 0)
			v[k].saving += g->plans[g->best].saving;
	}
	return n;
}

/* What the audit knows of one instance in one currency. */
struct inst {
	char id[ID_MAX];
	char currency[CURRENCY_MAX];
	int gpus;		/* 0: unknown */
	bool interruptible;
};

static int
by_id(const void *a, const void *b)
{
	const struct inst *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c != 0 ? c : strcmp(x->currency, y->currency);
}

/* A compute segment, cut to the window, of a sized on-demand instance. */
struct span {
	size_t group;
	int64_t start, end;
	int gpus;
};

struct work {
	struct advise_group *g;
	size_t n, cap;
	int64_t *first, *now;	/* per group: the first billed second, the clock's now */
	struct span *s;
	size_t ns, caps;
	struct inst *inst;
	size_t ninst;
	const struct advise_opts *o;
};

static size_t
group_of(struct work *w, const char *gpu, const char *currency)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (strcmp(w->g[i].gpu, gpu) == 0 && strcmp(w->g[i].currency, currency) == 0)
			return i;
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 8;
		w->g = xreallocarray(w->g, w->cap, sizeof(*w->g));
		w->first = xreallocarray(w->first, w->cap, sizeof(*w->first));
		w->now = xreallocarray(w->now, w->cap, sizeof(*w->now));
	}
	memset(&w->g[w->n], 0, sizeof(w->g[w->n]));
	strlcpy_(w->g[w->n].gpu, gpu, sizeof(w->g[w->n].gpu));
	money_currency_set(w->g[w->n].currency, currency);
	w->g[w->n].base = -1;
	w->g[w->n].best = -1;
	w->g[w->n].per_tflop_hour = w->g[w->n].per_tflop_hour_target = -1;
	w->g[w->n].offer_per_tflop_hour = -1;
	w->first[w->n] = 0;
	w->now[w->n] = 0;
	return w->n++;
}

/* GPU-seconds of [start, end) x gpus into the hour-of-day and weekday buckets (UTC). */
static void
bucket(struct advise_group *g, int64_t start, int64_t end, int gpus)
{
	int64_t t, next;

	for (t = start; t < end; t = next) {
		next = (t / 3600 + 1) * 3600;
		if (next > end)
			next = end;
		g->by_hour[t % 86400 / 3600] += (next - t) * gpus;
		/* 1970-01-01 was a Thursday: day 0 is weekday 3 counting from Monday. */
		g->by_weekday[(t / 86400 + 3) % 7] += (next - t) * gpus;
	}
}

static bool
listed_interruptible(const struct advise_opts *o, const char *id)
{
	size_t i;

	for (i = 0; i < o->n_interruptible; i++)
		if (strcmp(o->interruptible[i], id) == 0)
			return true;
	return false;
}

/* Place one ledger row: sized on-demand compute into the mix, the rest counted aside. */
static void
place(const struct ledger_seg *seg, void *ctx)
{
	struct work *w = ctx;
	const struct audit_opts *a = &w->o->audit;
	int64_t now = cost_clock_now(a->clock, seg->provider);
	int64_t from = seg->start > now - a->span_s ? seg->start : now - a->span_s;
	int64_t to = seg->end == 0 || seg->end > now ? now : seg->end;
	const char *cur = money_currency(seg->currency);
	struct inst key, *in;
	struct advise_group *g;
	size_t gi;
	int64_t cost;

	if (seg->kind != LEDGER_COMPUTE || to <= from)
		return;
	memset(&key, 0, sizeof(key));
	strlcpy_(key.id, seg->instance_id, sizeof(key.id));
	money_currency_set(key.currency, cur);
	in = bsearch(&key, w->inst, w->ninst, sizeof(*w->inst), by_id);
	gi = group_of(w, seg->gpu, cur);
	g = &w->g[gi];
	cost = money_accrue(seg->rate_hour, to - from);
	if (in != NULL && in->interruptible) {
		g->interruptible_s += to - from;
		g->interruptible_paid += cost;
		return;
	}
	if (in == NULL || in->gpus <= 0) {
		g->unsized_s += to - from;
		g->unsized_paid += cost;
		return;
	}
	g->paid += cost;
	g->gpu_s += (to - from) * in->gpus;
	bucket(g, from, to, in->gpus);
	if (w->first[gi] == 0 || from < w->first[gi])
		w->first[gi] = from;
	w->now[gi] = now;
	if (w->ns == w->caps) {
		w->caps = w->caps ? w->caps * 2 : 64;
		w->s = xreallocarray(w->s, w->caps, sizeof(*w->s));
	}
	w->s[w->ns++] = (struct span){ gi, from, to, in->gpus };
}

struct event {
	int64_t t;
	int delta;
};

static int
by_time(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

/*
 * The term offer of `months` months with the largest discount for group g's GPU (or an
 * equivalent one) in its currency, NULL: none offered.
 */
static const struct offer *
term_offer(const struct advise_opts *o, const struct advise_group *g, int months)
{
	const struct gpu_model *m = catalogue_by_id(g->gpu);
	const struct offer *best = NULL;
	size_t i;

	for (i = 0; o->term_offers != NULL && m != NULL && i < o->term_offers->n; i++) {
		const struct offer *of = &o->term_offers->v[i];

		if (of->type == OFFER_RESERVED && of->term_months == months &&
		    offer_term_discount_bp(of) >= 0 && audit_equivalent(m, of->gpu) &&
		    money_same_currency(of->currency, g->currency) &&
		    (best == NULL || offer_term_discount_bp(of) > offer_term_discount_bp(best)))
			best = of;
	}
	return best;
}

/* The GPUs running at once over the group's observed time: its base, peak and plans. */
static void
shape(struct work *w, size_t gi)
{
	struct advise_group *g = &w->g[gi];
	struct event *ev = xcalloc(2 * w->ns + 1, sizeof(*ev));
	int64_t *dur, prev = w->first[gi];
	size_t i, n = 0, levels = 1;
	int level = 0;

	for (i = 0; i < w->ns; i++)
		if (w->s[i].group == gi) {
			ev[n++] = (struct event){ w->s[i].start, w->s[i].gpus };
			ev[n++] = (struct event){ w->s[i].end, -w->s[i].gpus };
			levels += (size_t)w->s[i].gpus;
		}
	if (n == 0) {
		free(ev);
		return;
	}
	qsort(ev, n, sizeof(*ev), by_time);
	dur = xcalloc(levels, sizeof(*dur));
	for (i = 0; i < n; i++) {
		dur[level] += ev[i].t - prev;
		prev = ev[i].t;
		level += ev[i].delta;
	}
	dur[level] += w->now[gi] - prev;
	g->span_s = w->now[gi] - w->first[gi];
	g->base = advise_percentile(dur, levels, ADVISE_BASE_PCT);
	for (i = 0; i < levels; i++)
		if (dur[i] > 0) {
			g->peak = (int)i;
			g->base_gpu_s += dur[i] * (int64_t)((int)i < g->base ? (int)i : g->base);
		}
	for (i = 0; i < w->o->n_terms; i++) {
		const struct offer *t = term_offer(w->o, g, w->o->terms[i].months);

		g->plans[i] = advise_plan(g->paid, g->gpu_s, g->base_gpu_s, g->base, g->span_s,
		    t != NULL ? (offer_term_discount_bp(t) + 50) / 100 :
		    w->o->terms[i].discount_pct);
		if (t != NULL)
			strlcpy_(g->plans[i].offer_id, t->id, sizeof(g->plans[i].offer_id));
		if (g->plans[i].saving > 0 &&
		    (g->best < 0 || g->plans[i].saving > g->plans[g->best].saving))
			g->best = (int)i;
	}
	free(dur);
	free(ev);
}

/* The balance sheet's prices of group g, from its audit row. */
static void
balance(struct advise_group *g, const struct advise_opts *o)
{
	const struct gpu_model *m = catalogue_by_id(g->gpu);
	const struct audit_row *r = &g->sheet;
	int64_t eff = audit_eff_gpu_hour(r), v;
	double target = o->audit.target_pct / 100.0;
	size_t i;

	g->tflops_x10 = catalogue_tensor_tflops_x10(m);
	if (g->tflops_x10 <= 0)
		return;
	if (eff >= 0)
		g->per_tflop_hour = money_scale(eff, 10, g->tflops_x10);
	if (!r->unpriced && r->gpus_known && r->gpu_hours > 0 && target > 0)
		g->per_tflop_hour_target = (int64_t)((double)r->spend /
		    (r->gpu_hours * target * g->tflops_x10 / 10.0) + 0.5);
	for (i = 0; o->offers != NULL && target > 0 && i < o->offers->n; i++) {
		const struct offer *of = &o->offers->v[i];
		int64_t per = offer_price_per_tflop(of);

		if (per < 0 || of->type != OFFER_ON_DEMAND || !audit_equivalent(m, of->gpu) ||
		    ((of->valid & OV_AVAILABLE) && of->available <= 0) ||
		    !money_convert(o->audit.fx, per, money_currency(of->currency), g->currency,
		    &v))
			continue;
		v = money_scale(v, 100, o->audit.target_pct);
		if (!g->offer_found || v < g->offer_per_tflop_hour) {
			g->offer = *of;
			g->offer_found = true;
			g->offer_converted = !money_same_currency(of->currency, g->currency);
			g->offer_per_tflop_hour = v;
		}
	}
}

/*
 * The audit per instance: the GPU counts and types the mix needs, sorted for place(), and
 * each instance counted in its group (its GPU and currency) as mixed, interruptible or
 * unsized.
 */
static void
instances(struct work *w, const struct audit_report *rep)
{
	struct inst *v = xcalloc(rep->n ? rep->n : 1, sizeof(*v));
	size_t i, gi;

	for (i = 0; i < rep->n; i++) {
		const struct audit_row *r = &rep->rows[i];
		struct advise_group *g;

		strlcpy_(v[i].id, r->key, sizeof(v[i].id));
		money_currency_set(v[i].currency, r->currency);
		/* audit_row's gpu_hours are its billed hours x the instance's GPUs */
		if (r->gpus_known && r->billed_s > 0)
			v[i].gpus = (int)(r->gpu_hours * 3600.0 / (double)r->billed_s + 0.5);
		v[i].interruptible = listed_interruptible(w->o, r->key);
		if (r->billed_s <= 0)
			continue;	/* storage alone: nothing to mix */
		gi = group_of(w, r->gpu, r->currency);
		g = &w->g[gi];
		if (v[i].interruptible)
			g->interruptible++;
		else if (v[i].gpus <= 0)
			g->unsized++;
		else
			g->instances++;
	}
	if (rep->n > 1)
		qsort(v, rep->n, sizeof(*v), by_id);
	w->inst = v;
	w->ninst = rep->n;
}

enum gr_err
advise_compute(struct state *st, const struct advise_opts *o, struct advise_report *out,
    struct gr_error *err)
{
	struct audit_opts a = o->audit;
	struct audit_report by_inst, by_gpu;
	struct work w;
	int64_t now_sim = cost_clock_now(a.clock, COST_SIM_PROVIDER);
	int64_t from = (now_sim < a.clock->wall ? now_sim : a.clock->wall) - a.span_s;
	size_t i;

	memset(out, 0, sizeof(*out));
	memset(&w, 0, sizeof(w));
	w.o = o;
	a.by = AG_GPU;
	if (audit_compute(st, &a, &by_gpu, err) != GR_OK)
		return err->code;
	/* The groups in the audit's order, each with its balance sheet. */
	for (i = 0; i < by_gpu.n; i++) {
		size_t gi = group_of(&w, by_gpu.rows[i].key, by_gpu.rows[i].currency);

		w.g[gi].sheet = by_gpu.rows[i];
	}
	audit_report_release(&by_gpu);
	a.by = AG_INSTANCE;
	if (audit_compute(st, &a, &by_inst, err) != GR_OK)
		goto fail;
	instances(&w, &by_inst);
	audit_report_release(&by_inst);
	if (ledger_each_unordered(st, from, 0, place, &w, err) != GR_OK)
		goto fail;
	for (i = 0; i < w.n; i++) {
		shape(&w, i);
		balance(&w.g[i], o);
	}
	free(w.s);
	free(w.inst);
	free(w.first);
	free(w.now);
	out->groups = w.g;
	out->n = w.n;
	return GR_OK;
fail:
	free(w.s);
	free(w.inst);
	free(w.first);
	free(w.now);
	free(w.g);
	return err->code;
}

