/*
 * The simulated market: offers generated from the seed, one at a time, so any offer can be
 * rebuilt from its index alone and 10,000 of them cost no storage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/money.h"
#include "gpurent/sim.h"
#include "gpurent/util.h"
#include "sim_int.h"

struct gpu_mix {
	const char *id;
	int64_t lo, hi;		/* on-demand micro-dollars per GPU-hour */
	int weight;
	unsigned counts;	/* bit n: machines with 2^n GPUs exist */
	bool datacentre;
};

#define C1 1u
#define C2 2u
#define C4 4u
#define C8 8u

static const struct gpu_mix mix[] = {
	{ "H200-SXM-141GB", 3200000, 4600000, 4, C1 | C2 | C4 | C8, true },
	{ "H100-SXM-80GB", 1800000, 3500000, 10, C1 | C2 | C4 | C8, true },
	{ "H100-PCIE-80GB", 1600000, 2900000, 5, C1 | C2 | C4, true },
	{ "A100-SXM-80GB", 900000, 1800000, 7, C1 | C2 | C4 | C8, true },
	{ "A100-SXM-40GB", 600000, 1300000, 3, C1 | C8, true },
	{ "A100-PCIE-80GB", 800000, 1600000, 4, C1 | C2 | C4, true },
	{ "A100-PCIE-40GB", 500000, 1100000, 3, C1 | C2, true },
	{ "L40S-48GB", 700000, 1200000, 6, C1 | C2 | C4 | C8, true },
	{ "RTX6000ADA-48GB", 650000, 1100000, 4, C1 | C2 | C4, false },
	{ "RTXA6000-48GB", 450000, 900000, 6, C1 | C2 | C4 | C8, false },
	{ "RTX4090-24GB", 300000, 700000, 12, C1 | C2 | C4 | C8, false },
	{ "RTX3090-24GB", 160000, 350000, 9, C1 | C2 | C4, false },
	{ "L4-24GB", 350000, 700000, 4, C1 | C2 | C4 | C8, true },
	{ "A10-24GB", 500000, 1000000, 3, C1, true },
	{ "T4-16GB", 150000, 450000, 3, C1 | C2 | C4, true },
	{ "MI300X-192GB", 2000000, 3500000, 2, C1 | C8, true },
};

static const struct {
	const char *region;
	const char *location;
} places[] = {
	{ "na-east", "Ashburn, US" },
	{ "na-east", "Montréal, CA" },
	{ "na-central", "Dallas, US" },
	{ "na-west", "San Jose, US" },
	{ "na-west", "Portland, US" },
	{ "eu-west", "Amsterdam, NL" },
	{ "eu-west", "London, GB" },
	{ "eu-west", "Paris, FR" },
	{ "eu-central", "Frankfurt, DE" },
	{ "eu-central", "Warsaw, PL" },
	{ "eu-north", "Stockholm, SE" },
	{ "eu-north", "Helsinki, FI" },
	{ "as-east", "Tokyo, JP" },
	{ "as-east", "Seoul, KR" },
	{ "as-south", "Singapore, SG" },
	{ "as-south", "Mumbai, IN" },
	{ "oc-east", "Sydney, AU" },
	{ "sa-east", "São Paulo, BR" },
};

/* A uniform draw in [0, n) from the seed, the offer and a purpose tag. */
static uint64_t
draw(uint64_t seed, int64_t idx, uint64_t tag, uint64_t n)
{
	return n ? hash_mix(hash_mix(seed, (uint64_t)idx), tag) % n : 0;
}

static int
total_weight(void)
{
	int w = 0;
	size_t i;

	for (i = 0; i < ARRAY_LEN(mix); i++)
		w += mix[i].weight;
	return w;
}

int64_t
market_spot_price(uint64_t seed, int64_t idx, int64_t floor_hour, int64_t t)
{
	int64_t hour = t / MARKET_PRICE_PERIOD;
	/* Demand moves by the hour: from the floor up to 45% above it, in tenths of a cent. */
	uint64_t wave = draw(seed, idx, UINT64_C(0x5107) + (uint64_t)hour, 46);

	return money_scale(floor_hour, 100 + (int64_t)wave, 100) / 1000 * 1000;
}

/* "sim:o-000123" or "sim:o-000123i", without printf: this runs for every offer. */
static void
format_offer_id(char *buf, int64_t idx, enum offer_type type)
{
	char digits[24];
	size_t n = 0, i, o = 6;

	memcpy(buf, "sim:o-", 6);
	do {
		digits[n++] = (char)('0' + idx % 10);
		idx /= 10;
	} while (idx > 0);
	for (i = n; i < 6; i++)
		buf[o++] = '0';
	while (n > 0)
		buf[o++] = digits[--n];
	if (type == OFFER_INTERRUPTIBLE)
		buf[o++] = 'i';
	buf[o] = '\0';
}

/* The machine behind offer idx: its GPU mix row, GPU count and on-demand $/hour. */
static const struct gpu_mix *
machine(uint64_t seed, int64_t idx, int *count, int64_t *od_hour)
{
	const struct gpu_mix *g;
	uint64_t pick, counts[4], u;
	size_t i, nc = 0;
	int64_t per_gpu;
	int acc = 0;

	pick = draw(seed, idx, 1, (uint64_t)total_weight());
	for (i = 0; i < ARRAY_LEN(mix); i++) {
		acc += mix[i].weight;
		if ((int)pick < acc)
			break;
	}
	g = &mix[i < ARRAY_LEN(mix) ? i : 0];
	for (i = 0; i < 4; i++)
		if (g->counts & (1u << i))
			counts[nc++] = UINT64_C(1) << i;
	/* Data-centre GPUs come mostly in 8-GPU machines. */
	if (g->datacentre && (g->counts & C8) && draw(seed, idx, 2, 100) < 40)
		*count = 8;
	else
		*count = (int)counts[draw(seed, idx, 3, nc)];
	u = draw(seed, idx, 4, 1001);
	per_gpu = g->lo + (g->hi - g->lo) * (int64_t)u / 1000;
	per_gpu = per_gpu / 10000 * 10000;	/* whole cents per GPU-hour, as hosts price */
	*od_hour = per_gpu * *count;
	return g;
}

int64_t
market_spot_floor(uint64_t seed, int64_t idx)
{
	int64_t od_hour;
	int count;

	machine(seed, idx, &count, &od_hour);
	return money_scale(od_hour, 40 + (int64_t)draw(seed, idx, 6, 31), 100);
}

bool
market_offer(uint64_t seed, int64_t idx, int64_t now, struct offer *o)
{
	const struct gpu_mix *g;
	const struct gpu_model *m;
	int64_t od_hour;
	size_t p;
	int base_avail;

	memset(o, 0, sizeof(*o));
	g = machine(seed, idx, &o->gpu_count, &od_hour);
	m = catalogue_by_id(g->id);
	o->gpu = m;
	strlcpy_(o->gpu_raw, m->name, sizeof(o->gpu_raw));
	o->vram_gb = m->vram_gb;
	o->type = draw(seed, idx, 5, 100) < 30 ? OFFER_INTERRUPTIBLE : OFFER_ON_DEMAND;
	if (o->type == OFFER_INTERRUPTIBLE)
		o->price_hour = market_spot_price(seed, idx, market_spot_floor(seed, idx), now);
	else
		o->price_hour = od_hour;
	format_offer_id(o->id, idx, o->type);
	strlcpy_(o->provider, "sim", sizeof(o->provider));
	p = draw(seed, idx, 7, ARRAY_LEN(places));
	strlcpy_(o->region, places[p].region, sizeof(o->region));
	strlcpy_(o->location, places[p].location, sizeof(o->location));
	o->reliability_bp = g->datacentre ? 9700 + (int)draw(seed, idx, 8, 300) :
	    9000 + (int)draw(seed, idx, 8, 990);
	o->cpu_cores = o->gpu_count * (8 << draw(seed, idx, 9, 3));
	o->ram_gb = o->gpu_count * (32 << draw(seed, idx, 10, 3));
	o->disk_gb = 100 * (1 + (int)draw(seed, idx, 11, 40));
	o->disk_default_gb = SIM_DEFAULT_DISK_GB;
	o->net_down_mbps = 100 * (1 + (int)draw(seed, idx, 12, 100));
	o->net_up_mbps = o->net_down_mbps / (1 + (int)draw(seed, idx, 13, 4));
	if (!g->datacentre || strstr(g->id, "PCIE") != NULL || o->gpu_count == 1)
		o->interconnect = IC_PCIE;
	else if (o->gpu_count == 8 && draw(seed, idx, 14, 100) < 35)
		o->interconnect = IC_INFINIBAND;
	else
		o->interconnect = strstr(g->id, "SXM") != NULL || strstr(g->id, "MI300X") ?
		    IC_NVLINK : IC_PCIE;
	o->storage_gb_month = 100000 + 10000 * (int64_t)draw(seed, idx, 15, 11);
	/* Machines come and go every ten minutes; about one in ten is taken at any time. */
	base_avail = (int)draw(seed, idx, UINT64_C(0xa7a1) + (uint64_t)(now / MARKET_AVAIL_PERIOD),
	    12) - 1;
	o->available = base_avail < 0 ? 0 : 1 + base_avail / 3;
	o->valid = OV_PRICE | OV_RELIABILITY | OV_CPU | OV_RAM | OV_DISK | OV_NET |
	    OV_AVAILABLE | OV_STORAGE | OV_VRAM;
	return true;
}

/*
 * Offer idx reads the clock only through now / MARKET_AVAIL_PERIOD and now /
 * MARKET_PRICE_PERIOD, and the second is the first divided by a whole number (truncating
 * divisions compose), so one build serves every moment with the same first quotient.
 */
_Static_assert(MARKET_PRICE_PERIOD % MARKET_AVAIL_PERIOD == 0,
    "a market build is kept for one availability period: prices must not move inside it");

const struct offer *
market_kept(struct market_cache *c, uint64_t seed, int64_t n, int64_t now)
{
	int64_t period = now / MARKET_AVAIL_PERIOD, i;

	if (c->asks < 2)
		c->asks++;
	if (c->asks < 2)
		return NULL;
	if (c->v != NULL && c->seed == seed && c->n == n && c->period == period)
		return c->v;
	if (c->v == NULL || c->n != n) {
		free(c->v);
		c->v = xreallocarray(NULL, (size_t)n, sizeof(*c->v));
	}
	for (i = 0; i < n; i++)
		market_offer(seed, i, now, &c->v[i]);
	c->seed = seed;
	c->n = n;
	c->period = period;
	c->builds++;
	return c->v;
}

void
market_cache_release(struct market_cache *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

bool
market_parse_offer_id(const char *id, int64_t *idx, enum offer_type *type, int *months)
{
	long long n;
	char tail[4] = "";
	int used = 0;

	if (strncmp(id, "sim:o-", 6) != 0)
		return false;
	if (sscanf(id + 6, "%lld%n%3s", &n, &used, tail) < 1 || n < 0)
		return false;
	if (months != NULL)
		*months = 0;
	if (tail[0] == 't' && sim_term_discount_pct(tail[1] - '0') > 0 && tail[2] == '\0') {
		*idx = n;
		*type = OFFER_RESERVED;
		if (months != NULL)
			*months = tail[1] - '0';
		return true;
	}
	if (strcmp(tail, "") != 0 && strcmp(tail, "i") != 0)
		return false;
	*idx = n;
	*type = tail[0] == 'i' ? OFFER_INTERRUPTIBLE : OFFER_ON_DEMAND;
	return true;
}

int
sim_term_discount_pct(int months)
{
	return months == 1 ? 20 : months == 3 ? 30 : 0;
}

int64_t
sim_term_rate(int64_t price_hour, int months)
{
	return money_scale(price_hour, 100 - sim_term_discount_pct(months), 100);
}

void
sim_term_offer(const struct offer *od, int months, struct offer *out)
{
	*out = *od;
	snprintf(out->id, sizeof(out->id), "%.56st%d", od->id, months % 100);
	out->type = OFFER_RESERVED;
	out->term_months = months;
	out->price_hour = sim_term_rate(od->price_hour, months);
	out->term_price = out->price_hour * months * TERM_MONTH_HOURS;
	out->ondemand_hour = od->price_hour;
	out->term_end = TERM_END_ON_DEMAND;
	out->valid |= OV_ONDEMAND;
}
