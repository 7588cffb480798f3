/*
 * audit.c - spend against use, from the ledger and the sample history (audit.h).
 *
 * Money is added and scaled only here (money_accrue, money_scale), and only within one
 * currency: an instance's row is keyed by its id and the currency of its ledger segments,
 * a group's by its key and that currency, and amounts of different currencies meet only in
 * the total, through the user's rates (money_convert) or not at all.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/audit.h"
#include "gpurent/catalogue.h"
#include "gpurent/ledger.h"
#include "gpurent/money.h"
#include "gpurent/history.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

/*
 * Grid carbon intensity, g CO2e per kWh of electricity generated, by region prefix of the
 * simulator's and the providers' region names (the longest prefix wins). Sources: Ember,
 * "Yearly electricity data" 2023 (ember-energy.org/data/yearly-electricity-data, CC-BY-4.0),
 * country averages; a region stands for the country or mix named beside it, so a figure is
 * a regional approximation, not the figure of the data centre: override it with audit.grid
 * where you know better.
 */
static const struct grid {
	const char *prefix;
	int g_per_kwh;
	const char *src;
} grid_table[] = {
	{ "af", 560, "Ember 2023, South Africa 700 / Africa mix" },
	{ "as", 560, "Ember 2023, Asia mix" },
	{ "as-east", 540, "Ember 2023, China 580, Japan 480, Korea 430" },
	{ "as-south", 630, "Ember 2023, India 710, Singapore 470" },
	{ "au", 500, "Ember 2023, Australia" },
	{ "ca", 130, "Ember 2023, Canada" },
	{ "cn", 580, "Ember 2023, China" },
	{ "eu", 240, "Ember 2023, EU-27" },
	{ "eu-central", 380, "Ember 2023, Germany" },
	{ "eu-north", 40, "Ember 2023, Sweden 40, Norway 30, Finland 80" },
	{ "eu-south", 250, "Ember 2023, Italy 330, Spain 150" },
	{ "eu-west", 160, "Ember 2023, France 56, Netherlands 270, UK 240" },
	{ "na", 370, "Ember 2023, United States" },
	{ "na-east", 370, "Ember 2023, United States" },
	{ "na-west", 240, "Ember 2023, California and the Pacific Northwest" },
	{ "oc", 500, "Ember 2023, Australia" },
	{ "sa", 110, "Ember 2023, Brazil 100, Chile 250" },
	{ "sa-east", 100, "Ember 2023, Brazil" },
	{ "us", 370, "Ember 2023, United States" },
};

/* Whether prefix is region or a leading '-'-separated part of it ("eu" of "eu-west-1"). */
static bool
region_has_prefix(const char *region, const char *prefix, size_t len)
{
	return strncmp(region, prefix, len) == 0 && (region[len] == '\0' || region[len] == '-');
}

bool
audit_grid(const char *region, const char *overrides, int *g_per_kwh, const char **src)
{
	size_t i, best = 0;
	const char *p;
	bool found = false;

	if (region == NULL || *region == '\0')
		return false;
	for (p = overrides; p != NULL && *p != '\0'; ) {
		size_t item = strcspn(p, ","), key = strcspn(p, "=,");
		long long g;
		char num[16];

		if (key < item && key > best && item - key - 1 < sizeof(num) &&
		    region_has_prefix(region, p, key)) {
			memcpy(num, p + key + 1, item - key - 1);
			num[item - key - 1] = '\0';
			if (parse_int(num, 0, 100000, &g)) {
				*g_per_kwh = (int)g;
				*src = "audit.grid";
				best = key;
				found = true;
			}
		}
		p += item + (p[item] == ',');
	}
	if (found)
		return true;
	for (i = 0; i < ARRAY_LEN(grid_table); i++) {
		size_t len = strlen(grid_table[i].prefix);

		if (len > best && region_has_prefix(region, grid_table[i].prefix, len)) {
			*g_per_kwh = grid_table[i].g_per_kwh;
			*src = grid_table[i].src;
			best = len;
			found = true;
		}
	}
	return found;
}

int64_t
audit_eff_gpu_hour(const struct audit_row *r)
{
	if (r->unpriced || !r->util_known || !r->gpus_known || r->util_gpu_hours <= 0)
		return -1;
	return (int64_t)((double)r->spend / r->util_gpu_hours + 0.5);
}

double
audit_idle_share(const struct audit_row *r)
{
	return r->billed_s > 0 && r->covered_s > 0 ? (double)r->idle_s / (double)r->billed_s : -1;
}

bool
audit_waste_known(const struct audit_row *r)
{
	return !r->unpriced && r->covered_s > 0;
}

void
audit_report_release(struct audit_report *r)
{
	free(r->rows);
	free(r->totals);
	r->rows = NULL;
	r->totals = NULL;
	r->n = r->n_totals = 0;
}

/* The working row of one instance, made on first sight. */
struct rows {
	struct audit_row *v;
	double *util_w;		/* weight of each row's util_mean in a group */
	size_t n, cap;
};

static struct audit_row *
row_of(struct rows *r, const char *key, const char *currency)
{
	size_t i;

	for (i = r->n; i > 0; i--)
		if (strcmp(r->v[i - 1].key, key) == 0 &&
		    strcmp(r->v[i - 1].currency, currency) == 0)
			return &r->v[i - 1];
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->v = xreallocarray(r->v, r->cap, sizeof(*r->v));
		r->util_w = xreallocarray(r->util_w, r->cap, sizeof(*r->util_w));
	}
	memset(&r->v[r->n], 0, sizeof(r->v[r->n]));
	r->util_w[r->n] = 0;
	strlcpy_(r->v[r->n].key, key, sizeof(r->v[r->n].key));
	money_currency_set(r->v[r->n].currency, currency);
	return &r->v[r->n++];
}

static const struct audit_live *
live_of(const struct audit_opts *o, const char *id)
{
	return find_by_id(o->live, o->n_live, sizeof(*o->live), offsetof(struct audit_live, id),
	    id);
}

/* Bill the part of segment g inside [since, now) to its instance's row. */
static void
bill(struct rows *r, const struct ledger_seg *g, int64_t since, int64_t now)
{
	int64_t from = g->start > since ? g->start : since;
	int64_t to = g->end == 0 || g->end > now ? now : g->end;
	struct audit_row *w;
	int64_t cost;

	if (g->kind == LEDGER_PROVISIONING || to <= from)
		return;
	w = row_of(r, g->instance_id, money_currency(g->currency));
	w->instances = 1;
	strlcpy_(w->provider, g->provider, sizeof(w->provider));
	strlcpy_(w->label, g->label, sizeof(w->label));
	if (g->gpu[0] != '\0')
		strlcpy_(w->gpu, g->gpu, sizeof(w->gpu));
	strlcpy_(w->user, g->who, sizeof(w->user));
	cost = money_accrue(g->rate_hour, to - from);
	w->spend += cost;
	if (g->kind == LEDGER_COMPUTE) {
		w->billed_s += to - from;
		w->compute_spend += cost;
	}
}

/*
 * Fold an instance's samples into one of its rows. An instance billed in two currencies
 * (its provider's currency changed) has a row for each: each gets the share of the covered
 * and idle time and of the energy that its billed time is of the instance's, so that the
 * totals count them once.
 */
static void
observe(struct audit_row *w, const struct sample_summary *s, double share)
{
	int64_t idle = (int64_t)((double)s->idle_s * share);

	w->covered_s = (int64_t)((double)s->covered_s * share);
	w->observed = w->covered_s > 0;
	w->idle_s = idle < w->billed_s ? idle : w->billed_s;
	if (s->gpus > 0) {
		w->gpus_known = true;
		w->gpu_hours = (double)w->billed_s / 3600.0 * s->gpus;
	}
	w->util_known = s->util_known;
	w->util_mean = s->util_mean;
	w->util_p95 = s->util_p95;
	if (s->energy_known) {
		w->energy_known = true;
		w->energy_kwh = s->energy_wh * share / 1000.0;
	}
}

/* The figures that follow from the rest, for one instance. */
static void
derive(struct audit_row *w, const struct audit_opts *o)
{
	const struct audit_live *l = live_of(o, w->key);
	const struct gpu_model *m = catalogue_by_id(w->gpu);
	int g;
	const char *src;

	if (!w->gpus_known && l != NULL && l->gpus > 0) {
		w->gpus_known = true;
		w->gpu_hours = (double)w->billed_s / 3600.0 * l->gpus;
	}
	if (w->util_known && w->gpus_known)
		w->util_gpu_hours = w->gpu_hours * w->util_mean / 100.0;
	if (w->billed_s > 0)
		w->waste = money_scale(w->compute_spend, w->idle_s, w->billed_s);
	if (!w->energy_known && w->util_known && w->gpus_known && m != NULL && m->tdp_w > 0) {
		w->energy_known = w->energy_estimated = true;
		w->energy_kwh = m->tdp_w * w->gpu_hours * w->util_mean / 100.0 / 1000.0;
	}
	if (w->energy_known && l != NULL && audit_grid(l->region, o->grid, &g, &src)) {
		w->co2_known = true;
		w->co2_kg = w->energy_kwh * g / 1000.0;
	}
}

/* Add instance row w (with its utilisation weight) into group row t. */
static void
merge(struct audit_row *t, double *tw, const struct audit_row *w)
{
	double ww = w->gpus_known ? w->gpu_hours : (double)w->billed_s / 3600.0;

	t->instances += w->instances;
	t->billed_s += w->billed_s;
	t->spend += w->spend;
	t->compute_spend += w->compute_spend;
	t->idle_s += w->idle_s;
	t->waste += w->waste;
	t->covered_s += w->covered_s;
	t->observed += w->observed;
	if (w->gpus_known) {
		t->gpus_known = true;
		t->gpu_hours += w->gpu_hours;
		t->util_gpu_hours += w->util_gpu_hours;
	}
	if (w->util_known && ww > 0) {
		t->util_mean = (t->util_mean * *tw + w->util_mean * ww) / (*tw + ww);
		*tw += ww;
		if (!t->util_known || w->util_p95 > t->util_p95)
			t->util_p95 = w->util_p95;
		t->util_known = true;
	}
	if (w->energy_known) {
		t->energy_known = true;
		t->energy_estimated |= w->energy_estimated;
		t->energy_kwh += w->energy_kwh;
	}
	if (w->co2_known) {
		t->co2_known = true;
		t->co2_kg += w->co2_kg;
	}
}

/* USD first, then the other codes in order (as costs lists them). */
static int
by_currency(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return 0;
	if (strcmp(a, "USD") == 0 || strcmp(b, "USD") == 0)
		return strcmp(a, "USD") == 0 ? -1 : 1;
	return strcmp(a, b);
}

static int
by_total(const void *a, const void *b)
{
	const struct audit_row *x = a, *y = b;

	return by_currency(x->currency, y->currency);
}

/*
 * Amounts are compared only within a currency: the currencies come first, then the larger
 * amount, then the keys in order.
 */
static int
by_amount(const char *cur_a, int64_t a, const char *key_a, const char *cur_b, int64_t b,
    const char *key_b)
{
	int c = by_currency(cur_a, cur_b);

	if (c != 0)
		return c;
	if (a != b)
		return a > b ? -1 : 1;
	return strcmp(key_a, key_b);
}

static int
by_spend(const void *a, const void *b)
{
	const struct audit_row *x = a, *y = b;

	return by_amount(x->currency, x->spend, x->key, y->currency, y->spend, y->key);
}

static const char *
group_key(const struct audit_row *w, enum audit_group by)
{
	switch (by) {
	case AG_LABEL: return w->label;
	case AG_PROVIDER: return w->provider;
	case AG_GPU: return w->gpu;
	case AG_USER: return w->user;
	default: return w->key;
	}
}

/* Whether row w is (one currency's part of) the instance summary s is of, on this clock. */
static bool
row_has(const struct audit_row *w, const struct sample_summary *s, bool sim)
{
	return strcmp(w->key, s->instance_id) == 0 &&
	    (strcmp(w->provider, COST_SIM_PROVIDER) == 0) == sim;
}

/* Samples of one clock's window, folded into the rows of the providers on that clock. */
static enum gr_err
observe_clock(struct state *st, struct rows *r, bool sim, int64_t since, int64_t now,
    int idle_pct, struct gr_error *err)
{
	struct sample_summary *s = NULL;
	size_t n = 0, i, k;
	/*
	 * idle.threshold is "at or below", as watch judges it (guard/watch.c) and the help and
	 * gpurent-config(5) say; the history's summary counts "below". Utilisation comes in
	 * whole percents (and watch takes the whole part of a mean), so at or below p is below
	 * p + 1. The summary takes at most 100: at 100 a GPU at exactly 100 % is not counted.
	 */
	int below = idle_pct >= 100 ? 100 : idle_pct + 1;

	if (samples_summary(st, NULL, since, now, below, &s, &n, err) != GR_OK)
		return err->code;
	for (i = 0; i < n; i++) {
		int64_t billed = 0;
		size_t rows = 0;

		for (k = 0; k < r->n; k++)
			if (row_has(&r->v[k], &s[i], sim)) {
				billed += r->v[k].billed_s;
				rows++;
			}
		for (k = 0; k < r->n; k++)
			if (row_has(&r->v[k], &s[i], sim))
				observe(&r->v[k], &s[i], billed > 0 ?
				    (double)r->v[k].billed_s / (double)billed : 1.0 / (double)rows);
	}
	free(s);
	return GR_OK;
}

/*
 * The amounts of the total over every instance, from the totals per currency: the one
 * currency's; with several, their US-dollar sum when the user's rates cover each, saying
 * so; else none.
 */
static void
price_total(struct audit_row *t, const struct audit_row *per, size_t n,
    const struct fx_rates *fx)
{
	int64_t spend = 0, compute = 0, waste = 0, v;
	size_t i;

	if (n <= 1) {
		money_currency_set(t->currency, n == 1 ? per[0].currency : NULL);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!money_convert(fx, per[i].spend, per[i].currency, "USD", &v))
			break;
		spend += v;
		money_convert(fx, per[i].compute_spend, per[i].currency, "USD", &v);
		compute += v;
		money_convert(fx, per[i].waste, per[i].currency, "USD", &v);
		waste += v;
	}
	t->spend = spend;
	t->compute_spend = compute;
	t->waste = waste;
	if (i == n) {
		money_currency_set(t->currency, "USD");
		t->converted = true;
		return;
	}
	t->currency[0] = '\0';
	t->spend = t->compute_spend = t->waste = 0;
	t->unpriced = true;
}

enum gr_err
audit_compute(struct state *st, const struct audit_opts *o, struct audit_report *out,
    struct gr_error *err)
{
	int64_t now_sim = cost_clock_now(o->clock, COST_SIM_PROVIDER);
	int64_t now_wall = o->clock->wall;
	int64_t from = (now_sim < now_wall ? now_sim : now_wall) - o->span_s;
	struct ledger_seg *segs = NULL;
	struct rows inst = { 0 }, grp = { 0 }, tot = { 0 };
	double total_w = 0;
	size_t n = 0, i, k;
	bool on_sim = false, on_wall = false;
	enum gr_err rc;

	memset(out, 0, sizeof(*out));
	if (ledger_load(st, from, 0, &segs, &n, err) != GR_OK)
		return err->code;
	for (i = 0; i < n; i++) {
		int64_t now = cost_clock_now(o->clock, segs[i].provider);

		if (o->who == NULL || strcmp(segs[i].who, o->who) == 0)
			bill(&inst, &segs[i], now - o->span_s, now);
	}
	free(segs);
	/* The history is read once per clock that a billed instance follows: reading it is
	 * the costly part of an audit (bench/audit.sh). */
	rc = GR_OK;
	for (i = 0; i < inst.n; i++)
		if (strcmp(inst.v[i].provider, COST_SIM_PROVIDER) == 0)
			on_sim = true;
		else
			on_wall = true;
	if (on_sim)
		rc = observe_clock(st, &inst, true, now_sim - o->span_s, now_sim, o->idle_pct,
		    err);
	if (rc == GR_OK && on_wall)
		rc = observe_clock(st, &inst, false, now_wall - o->span_s, now_wall, o->idle_pct,
		    err);
	if (rc != GR_OK) {
		free(inst.v);
		free(inst.util_w);
		return rc;
	}
	for (i = 0; i < inst.n; i++) {
		struct audit_row *t;

		derive(&inst.v[i], o);
		merge(&out->total, &total_w, &inst.v[i]);
		t = row_of(&tot, "total", inst.v[i].currency);
		merge(t, &tot.util_w[t - tot.v], &inst.v[i]);
		if (o->by != AG_INSTANCE) {
			struct audit_row *g = row_of(&grp, group_key(&inst.v[i], o->by),
			    inst.v[i].currency);

			merge(g, &grp.util_w[g - grp.v], &inst.v[i]);
		}
	}
	/* An instance billed in two currencies is a row in each, and one instance. */
	for (i = 0; i < inst.n; i++)
		for (k = 0; k < i; k++)
			if (strcmp(inst.v[k].key, inst.v[i].key) == 0) {
				out->total.instances--;
				if (inst.v[k].observed && inst.v[i].observed)
					out->total.observed--;
				break;
			}
	free(tot.util_w);
	if (tot.n > 1)
		qsort(tot.v, tot.n, sizeof(*tot.v), by_total);
	strlcpy_(out->total.key, "total", sizeof(out->total.key));
	price_total(&out->total, tot.v, tot.n, o->fx);
	out->totals = tot.v;
	out->n_totals = tot.n;
	if (o->by == AG_INSTANCE) {
		free(grp.v);
		grp = inst;
	} else {
		free(inst.v);
		free(inst.util_w);
	}
	free(grp.util_w);
	if (grp.n > 1)	/* no rows: v is NULL, which qsort must not be given */
		qsort(grp.v, grp.n, sizeof(*grp.v), by_spend);
	out->rows = grp.v;
	out->n = grp.n;
	return GR_OK;
}

bool
audit_equivalent(const struct gpu_model *m, const struct gpu_model *o)
{
	return o == m || (o != NULL && m != NULL && strcmp(o->family, m->family) == 0 &&
	    o->vram_gb >= m->vram_gb);
}

static int
by_saving(const void *a, const void *b)
{
	const struct audit_cheaper *x = a, *y = b;

	return by_amount(x->currency, x->saving_hour, x->instance_id, y->currency, y->saving_hour,
	    y->instance_id);
}

/*
 * What offer o costs per hour in the instance's currency: its price when the currencies are
 * the same, else through the user's rates; false when no rate joins them.
 */
static bool
price_in(const struct offer *o, const char *currency, const struct fx_rates *fx,
    int64_t *out)
{
	return money_convert(fx, o->price_hour, money_currency(o->currency), currency, out);
}

void
audit_cheaper_now(const struct instance_list *l, const struct offer_list *offers,
    const struct fx_rates *fx, struct audit_cheaper **out, size_t *n)
{
	struct audit_cheaper *v = xcalloc(l->n ? l->n : 1, sizeof(*v));
	size_t i, k, m = 0;

	for (i = 0; i < l->n; i++) {
		const struct instance *in = &l->v[i];
		const char *cur = money_currency(in->currency);
		const struct offer *best = NULL;
		int64_t best_price = 0, p;

		if (in->state != ST_RUNNING || in->gpu == NULL || !(in->valid & IV_PRICE))
			continue;
		for (k = 0; k < offers->n; k++) {
			const struct offer *o = &offers->v[k];

			if (!(o->valid & OV_PRICE) || !price_in(o, cur, fx, &p) ||
			    p >= in->price_hour || o->gpu_count != in->gpu_count ||
			    o->type != in->type ||
			    ((o->valid & OV_AVAILABLE) && o->available <= 0) ||
			    !audit_equivalent(in->gpu, o->gpu))
				continue;
			if (best == NULL || p < best_price) {
				best = o;
				best_price = p;
			}
		}
		if (best == NULL)
			continue;
		strlcpy_(v[m].instance_id, in->id, sizeof(v[m].instance_id));
		v[m].price_hour = in->price_hour;
		money_currency_set(v[m].currency, cur);
		v[m].offer = *best;
		v[m].converted = !money_same_currency(best->currency, cur);
		v[m].saving_hour = in->price_hour - best_price;
		v[m].saving_month = v[m].saving_hour * 730;
		m++;
	}
	if (m > 1)	/* v may be NULL when nothing was found: not for qsort */
		qsort(v, m, sizeof(*v), by_saving);
	*out = v;
	*n = m;
}
