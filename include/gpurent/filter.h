/*
 * filter.h - the offer filter language and sort keys.
 *
 *   gpu=h100,h200 gpus>=8 vram>=80 price<=25 region=eu reliability>=0.98
 *   interconnect=nvlink type=interruptible type=reserved term>=3mo
 *
 * Terms are `field op value`, AND-ed; ops are = != < <= > >=; a comma list means "any of"
 * (with != it means "none of"). Values are parsed exactly, per field: money as micro-dollars,
 * reliability as basis points. Each term may be given as one argument or as several.
 *
 * Currencies: price terms are in US dollars. An offer priced in another currency is
 * compared only through a rate the user configured (filter_apply_fx, sort_offers_fx with
 * config_fx's rates); without one its price is unknown to a term (it does not match), and
 * a price sort puts each currency's offers together instead of comparing their numbers.
 * offers_money_check says beforehand whether that is so, for the command to refuse or say.
 */
#ifndef GPURENT_FILTER_H
#define GPURENT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalogue.h"
#include "error.h"
#include "model.h"

enum filter_field {
	FF_GPU,			/* name, family or alias from the catalogue, or a
				   provider's own name of a GPU the catalogue lacks */
	FF_GPUS,		/* GPU count */
	FF_VRAM,		/* per-GPU GB */
	FF_TOTAL_VRAM,		/* GB over all GPUs */
	FF_PRICE,		/* $/hour, whole offer */
	FF_GPU_PRICE,		/* $/GPU-hour */
	FF_TFLOP_PRICE,		/* $/TFLOP-hour */
	FF_REGION,		/* region prefix ("eu", "eu-west") or country code */
	FF_RELIABILITY,		/* 0..1 */
	FF_INTERCONNECT,	/* pcie, nvlink, infiniband */
	FF_TYPE,		/* on-demand, interruptible */
	FF_PROVIDER,
	FF_CPU,
	FF_RAM,
	FF_DISK,
	FF_NET,			/* download Mb/s */
	FF_TFLOPS,		/* dense BF16 TFLOPS of the whole offer */
	FF_VENDOR,		/* the GPU's vendor, from the catalogue */
	FF_TERM,		/* a term offer's months: 1mo, 3mo, 1y */
	FF__COUNT,
};

enum filter_op { FOP_EQ, FOP_NE, FOP_LT, FOP_LE, FOP_GT, FOP_GE };

#define FILTER_MAX_VALUES 16
#define FILTER_MAX_TERMS 32

struct filter_term {
	enum filter_field field;
	enum filter_op op;
	size_t n;
	int64_t num[FILTER_MAX_VALUES];		/* numeric fields, in the field's unit */
	char str[FILTER_MAX_VALUES][32];	/* text fields, as given */
	struct catalogue_set models;		/* FF_GPU: every model any value selects */
};

struct filter {
	size_t n;
	struct filter_term t[FILTER_MAX_TERMS];
};

/*
 * Whether `provider=NAME` names a known provider. core/ cannot see the backends registry,
 * so the layer above that can (src/session/, in session_init) hands this down; until then
 * the name is not checked.
 */
void filter_set_provider_known(bool (*known)(const char *name));

/*
 * Whether `gpu=NAME`, which no catalogue model answers to, names a GPU a provider was seen
 * selling (the state database's names seen, above core/): handed down like the provider
 * check, for the calling thread's parses only. Until then, and when it says no, such a name
 * is an error (a typo, most likely).
 */
void filter_set_gpu_seen(bool (*seen)(void *ctx, const char *name), void *ctx);

/* Parse argv-style terms; "gpu = h100" split over three arguments is accepted too. */
enum gr_err filter_parse(struct filter *f, int argc, char *const argv[], struct gr_error *err);
/* Parse one string of space-separated terms (config defaults, the dashboard's filter line). */
enum gr_err filter_parse_str(struct filter *f, const char *s, struct gr_error *err);

bool filter_match(const struct filter *f, const struct offer *o);
/* filter_match with prices compared through fx's rates (NULL: dollars only). */
bool filter_match_fx(const struct filter *f, const struct offer *o, const struct fx_rates *fx);

/* Keep only the offers that match, in place; _fx compares prices through fx's rates. */
void filter_apply(const struct filter *f, struct offer_list *l);
void filter_apply_fx(const struct filter *f, struct offer_list *l, const struct fx_rates *fx);

/*
 * Whether f asks for term offers (type=reserved, or a term on `term`): only then do
 * backends fetch them and does an OFFER_RESERVED offer match, so that a plain search lists
 * what can be rented by the hour, as before terms.
 */
bool filter_wants_terms(const struct filter *f);

/* The term for a field, or NULL: backends use this to push filters down. */
const struct filter_term *filter_find(const struct filter *f, enum filter_field field);

const char *filter_field_name(enum filter_field f);
/* Human list of fields, for error messages and help: "gpu, gpus, vram, ...". */
const char *filter_fields_help(void);

/* Sort keys: "price,reliability-" ('-' suffix: descending). */
#define SORT_MAX_KEYS 8
enum sort_key {
	SK_PRICE, SK_GPU_PRICE, SK_TFLOP_PRICE, SK_VRAM, SK_GPUS, SK_RELIABILITY, SK_GPU,
	SK_REGION, SK_NET, SK_TFLOPS, SK_PROVIDER, SK_ID, SK__COUNT,
};
struct sort_spec {
	size_t n;
	enum sort_key key[SORT_MAX_KEYS];
	bool desc[SORT_MAX_KEYS];
};
enum gr_err sort_parse(struct sort_spec *s, const char *text, struct gr_error *err);
/* Stable order: the keys in turn, then id, so output is reproducible. */
void sort_offers(struct offer_list *l, const struct sort_spec *s);
void sort_offers_fx(struct offer_list *l, const struct sort_spec *s, const struct fx_rates *fx);

/* What offers_money_check found. */
struct offers_money {
	bool mixed;			/* offers in more than one currency */
	bool converted;			/* a price term or sort compares through a rate */
	bool grouped;			/* a price sort puts each currency together (no rate) */
	char missing[CURRENCY_MAX];	/* a currency with no rate ("" none) */
	char rated[CURRENCY_MAX];	/* a currency converted at a rate ("" none) */
};
/*
 * Whether l can be filtered by f and sorted by s as to price (f, s may be NULL). GR_EUSAGE,
 * naming the rate to set, when a price term meets an offer not in US dollars, or (with
 * strict_sort: the user asked for the sort) a price sort meets several currencies, and no
 * rate is configured; a default sort is grouped by currency instead (out->grouped).
 */
enum gr_err offers_money_check(const struct offer_list *l, const struct filter *f,
    const struct sort_spec *s, bool strict_sort, const struct fx_rates *fx,
    struct offers_money *out, struct gr_error *err);
const char *sort_keys_help(void);

#endif
