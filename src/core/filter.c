/*
 * filter.c - the filter language of offers (gpu=H100 price<2 ...): parsing, matching,
 * sorting.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpurent/catalogue.h"
#include "gpurent/filter.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/util.h"

enum value_kind {
	VK_INT, VK_FIXED, VK_MONEY, VK_GPU, VK_TEXT, VK_IC, VK_TYPE, VK_PROVIDER, VK_VENDOR,
	VK_MONTHS,
};

static const struct field_def {
	const char *name;
	const char *alias;
	enum value_kind kind;
	int decimals;		/* VK_FIXED */
	const char *help;
} fields[FF__COUNT] = {
	[FF_GPU] = { "gpu", "model", VK_GPU, 0, N_("GPU model, family or alias (h100, a100-80gb), or a provider's name") },
	[FF_GPUS] = { "gpus", "num_gpus", VK_INT, 0, N_("number of GPUs") },
	[FF_VRAM] = { "vram", "gpu_ram", VK_INT, 0, N_("GB of memory per GPU") },
	[FF_TOTAL_VRAM] = { "total_vram", NULL, VK_INT, 0, N_("GB of GPU memory in all") },
	[FF_PRICE] = { "price", "dph", VK_MONEY, 0, N_("$/hour for the whole offer") },
	[FF_GPU_PRICE] = { "gpu_price", "price_per_gpu", VK_MONEY, 0, N_("$/GPU-hour") },
	[FF_TFLOP_PRICE] = { "tflop_price", NULL, VK_MONEY, 0, N_("$/dense-BF16-TFLOP-hour") },
	[FF_REGION] = { "region", "country", VK_TEXT, 0, N_("region prefix (eu, na-east, cn-south), country code, cn, or a place named in Chinese (华南)") },
	[FF_RELIABILITY] = { "reliability", "rel", VK_FIXED, 4, N_("0 to 1") },
	[FF_INTERCONNECT] = { "interconnect", "ic", VK_IC, 0, N_("pcie, nvlink, infiniband") },
	[FF_TYPE] = { "type", NULL, VK_TYPE, 0, N_("on-demand, interruptible or reserved") },
	[FF_PROVIDER] = { "provider", NULL, VK_PROVIDER, 0, N_("backend name") },
	[FF_CPU] = { "cpu", "cpus", VK_INT, 0, N_("CPU cores") },
	[FF_RAM] = { "ram", NULL, VK_INT, 0, N_("GB of system memory") },
	[FF_DISK] = { "disk", NULL, VK_INT, 0, N_("GB of disk") },
	[FF_NET] = { "net", "inet_down", VK_INT, 0, N_("download Mb/s") },
	[FF_TFLOPS] = { "tflops", NULL, VK_INT, 0, N_("dense BF16 TFLOPS of the whole offer") },
	[FF_VENDOR] = { "vendor", NULL, VK_VENDOR, 0, N_("GPU vendor (nvidia, amd, huawei)") },
	[FF_TERM] = { "term", NULL, VK_MONTHS, 0, N_("months of a term paid ahead (1mo, 3mo, 1y)") },
};

static bool (*provider_known)(const char *name);
/* Each thread's own: a dashboard lane's thread asks its own session, never another's. */
static _Thread_local bool (*gpu_seen)(void *ctx, const char *name);
static _Thread_local void *gpu_seen_ctx;

void
filter_set_provider_known(bool (*known)(const char *name))
{
	provider_known = known;
}

void
filter_set_gpu_seen(bool (*seen)(void *ctx, const char *name), void *ctx)
{
	gpu_seen = seen;
	gpu_seen_ctx = ctx;
}

const char *
filter_field_name(enum filter_field f)
{
	return fields[f].name;
}

const char *
filter_fields_help(void)
{
	return "gpu, gpus, vram, total_vram, price, gpu_price, tflop_price, region, reliability, "
	    "interconnect, type, provider, cpu, ram, disk, net, tflops, vendor";
}


/* A decimal number with at most `decimals` digits after the point, scaled by 10^decimals. */
static bool
parse_fixed(const char *s, int decimals, int64_t *out)
{
	int64_t v = 0;
	int fd = 0, digits = 0;

	for (; isdigit((unsigned char)*s); s++, digits++) {
		if (v > INT64_MAX / 100)
			return false;
		v = v * 10 + (*s - '0');
	}
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++, fd++) {
			if (fd >= decimals)
				return false;
			v = v * 10 + (*s - '0');
		}
	}
	if (*s != '\0' || (digits == 0 && fd == 0))
		return false;
	for (; fd < decimals; fd++)
		v *= 10;
	*out = v;
	return true;
}

static enum gr_err
parse_value(struct filter_term *t, const char *v, struct gr_error *err)
{
	const struct field_def *d = &fields[t->field];
	size_t i = t->n;
	enum interconnect ic;
	enum offer_type type;
	int months;

	if (i == FILTER_MAX_VALUES)
		return gr_fail(err, GR_EUSAGE, "too many values for '%s' (at most %d)", d->name,
		    FILTER_MAX_VALUES);
	if (*v == '\0')
		return gr_fail(err, GR_EUSAGE, "missing value for '%s'", d->name);
	switch (d->kind) {
	case VK_INT:
		if (!parse_fixed(v, 0, &t->num[i]))
			return gr_fail(err, GR_EUSAGE, "bad value '%s' for '%s': expected a whole "
			    "number (%s)", v, d->name, _(d->help));
		break;
	case VK_FIXED:
		if (!parse_fixed(v, d->decimals, &t->num[i]) || t->num[i] > 10000)
			return gr_fail(err, GR_EUSAGE, "bad value '%s' for '%s': expected a number "
			    "from 0 to 1 with at most %d decimals", v, d->name, d->decimals);
		break;
	case VK_MONEY:
		if (!money_parse(v, &t->num[i]))
			return gr_fail(err, GR_EUSAGE, "bad value '%s' for '%s': expected dollars "
			    "such as 2.50", v, d->name);
		break;
	case VK_GPU:
		catalogue_select(v, &t->models);
		if (!catalogue_known(v) && (gpu_seen == NULL || !gpu_seen(gpu_seen_ctx, v)))
			return gr_fail(err, GR_EUSAGE, "unknown GPU '%s': try a family such as "
			    "h100, h200, a100, l40s, rtx4090, mi300x (see 'gpurent gpus', and "
			    "'gpurent gpus --unknown' for the providers' names it lacks)", v);
		break;
	case VK_VENDOR:
		if (!catalogue_vendor_known(v))
			return gr_fail(err, GR_EUSAGE, "unknown GPU vendor '%s' (vendors: %s)", v,
			    catalogue_vendors_help());
		break;
	case VK_IC:
		if (!interconnect_parse(v, &ic))
			return gr_fail(err, GR_EUSAGE, "bad value '%s' for 'interconnect': "
			    "expected pcie, nvlink or infiniband", v);
		t->num[i] = ic;
		break;
	case VK_TYPE:
		if (!offer_type_parse(v, &type))
			return gr_fail(err, GR_EUSAGE, "bad value '%s' for 'type': expected "
			    "on-demand, interruptible or reserved", v);
		t->num[i] = type;
		break;
	case VK_MONTHS:
		if (!term_parse(v, &months))
			return gr_fail(err, GR_EUSAGE, "bad value '%s' for 'term': expected months "
			    "such as 1mo or 3mo, or years such as 1y", v);
		t->num[i] = months;
		break;
	case VK_PROVIDER:
		if (provider_known != NULL && !provider_known(v))
			return gr_fail(err, GR_EUSAGE, "unknown provider '%s' (see 'gpurent "
			    "providers')", v);
		break;
	case VK_TEXT:
		break;
	}
	if (strlen(v) >= sizeof(t->str[i]))
		return gr_fail(err, GR_EUSAGE, "value '%.40s...' for '%s' is too long", v, d->name);
	strlcpy_(t->str[i], v, sizeof(t->str[i]));
	t->n++;
	return GR_OK;
}

static int
find_field(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < FF__COUNT; i++) {
		if (strlen(fields[i].name) == len && strncasecmp(fields[i].name, name, len) == 0)
			return (int)i;
		if (fields[i].alias != NULL && strlen(fields[i].alias) == len &&
		    strncasecmp(fields[i].alias, name, len) == 0)
			return (int)i;
	}
	return -1;
}

static enum gr_err
parse_term(struct filter *f, const char **pp, struct gr_error *err)
{
	const char *p = *pp, *name = p, *vstart;
	struct filter_term *t;
	char value[256], *comma, *v;
	size_t nlen, vlen;
	int field;
	enum value_kind kind;
	char quote;

	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	nlen = (size_t)(p - name);
	if (nlen == 0)
		return gr_fail(err, GR_EUSAGE, "expected a field name at '%.20s' (fields: %s)",
		    name, filter_fields_help());
	field = find_field(name, nlen);
	if (field < 0)
		return gr_fail(err, GR_EUSAGE, "unknown filter field '%.*s' (fields: %s)",
		    (int)nlen, name, filter_fields_help());
	if (f->n == FILTER_MAX_TERMS)
		return gr_fail(err, GR_EUSAGE, "too many filter terms (at most %d)",
		    FILTER_MAX_TERMS);
	t = &f->t[f->n];
	memset(t, 0, sizeof(*t));
	t->field = (enum filter_field)field;
	while (*p == ' ')
		p++;
	if (p[0] == '<' && p[1] == '=') { t->op = FOP_LE; p += 2; }
	else if (p[0] == '>' && p[1] == '=') { t->op = FOP_GE; p += 2; }
	else if (p[0] == '!' && p[1] == '=') { t->op = FOP_NE; p += 2; }
	else if (p[0] == '=' && p[1] == '=') { t->op = FOP_EQ; p += 2; }
	else if (p[0] == '<') { t->op = FOP_LT; p++; }
	else if (p[0] == '>') { t->op = FOP_GT; p++; }
	else if (p[0] == '=') { t->op = FOP_EQ; p++; }
	else
		return gr_fail(err, GR_EUSAGE, "expected an operator after '%.*s' "
		    "(one of = != < <= > >=)", (int)nlen, name);
	while (*p == ' ')
		p++;
	/* A value runs to the next space; quotes keep spaces ("H100 SXM"). */
	vlen = 0;
	vstart = p;
	quote = 0;
	while (*p != '\0' && (quote != 0 || *p != ' ')) {
		if ((*p == '"' || *p == '\'') && (quote == 0 || quote == *p)) {
			quote = quote ? 0 : *p;
			p++;
			continue;
		}
		if (vlen + 1 >= sizeof(value))
			return gr_fail(err, GR_EUSAGE, "value for '%s' is too long",
			    fields[field].name);
		value[vlen++] = *p++;
	}
	value[vlen] = '\0';
	if (quote != 0)
		return gr_fail(err, GR_EUSAGE, "unterminated quote in '%s'", vstart);
	kind = fields[field].kind;
	if (t->op != FOP_EQ && t->op != FOP_NE &&
	    (kind == VK_GPU || kind == VK_TEXT || kind == VK_IC || kind == VK_TYPE ||
	    kind == VK_PROVIDER || kind == VK_VENDOR))
		return gr_fail(err, GR_EUSAGE, "'%s' takes only = or !=", fields[field].name);
	for (v = value;; v = comma + 1) {
		comma = strchr(v, ',');
		if (comma != NULL)
			*comma = '\0';
		if (parse_value(t, v, err) != GR_OK)
			return err->code;
		if (comma == NULL)
			break;
	}
	if (t->n > 1 && t->op != FOP_EQ && t->op != FOP_NE)
		return gr_fail(err, GR_EUSAGE, "a list of values for '%s' needs = or !=",
		    fields[field].name);
	f->n++;
	*pp = p;
	return GR_OK;
}

enum gr_err
filter_parse_str(struct filter *f, const char *s, struct gr_error *err)
{
	const char *p = s;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (parse_term(f, &p, err) != GR_OK)
			return err->code;
	}
	return GR_OK;
}

enum gr_err
filter_parse(struct filter *f, int argc, char *const argv[], struct gr_error *err)
{
	struct sb sb;
	enum gr_err rc;
	int i;

	sb_init(&sb);
	for (i = 0; i < argc; i++) {
		if (i > 0)
			sb_addc(&sb, ' ');
		/* An argument with a space came quoted from the shell: keep it one value. */
		if (strchr(argv[i], ' ') != NULL && strpbrk(argv[i], "=<>") == NULL) {
			sb_addc(&sb, '"');
			sb_adds(&sb, argv[i]);
			sb_addc(&sb, '"');
		} else
			sb_adds(&sb, argv[i]);
	}
	rc = filter_parse_str(f, sb.buf, err);
	sb_release(&sb);
	return rc;
}

const struct filter_term *
filter_find(const struct filter *f, enum filter_field field)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->t[i].field == field)
			return &f->t[i];
	return NULL;
}

static bool
cmp_num(enum filter_op op, int64_t a, int64_t b)
{
	switch (op) {
	case FOP_EQ: return a == b;
	case FOP_NE: return a != b;
	case FOP_LT: return a < b;
	case FOP_LE: return a <= b;
	case FOP_GT: return a > b;
	case FOP_GE: return a >= b;
	}
	return false;
}

/* The country code a location ends in ("Frankfurt, DE" -> "DE"), or "". */
static const char *
location_country(const struct offer *o)
{
	const char *comma = strrchr(o->location, ',');

	if (comma == NULL)
		return "";
	for (comma++; *comma == ' '; comma++)
		;
	return comma;
}

/*
 * Mainland China (issue 18): "cn", "china" and "中国" name the regions whose id begins
 * "cn-" (PPIO's cluster names, cn-south-1) and the machines whose location's country is CN;
 * those are in Asia ("as", "asia", "ap") too.
 */
static bool
in_china(const struct offer *o)
{
	return strncasecmp(o->region, "cn-", 3) == 0 || streq_ci(location_country(o), "CN");
}

static bool
region_matches(const struct offer *o, const char *want)
{
	size_t len = strlen(want);

	if (strncasecmp(o->region, want, len) == 0 &&
	    (o->region[len] == '\0' || o->region[len] == '-'))
		return true;
	if (streq_ci(location_country(o), want))
		return true;
	if ((streq_ci(want, "cn") || streq_ci(want, "china") ||
	    strcmp(want, "\xe4\xb8\xad\xe5\x9b\xbd") == 0) && in_china(o))
		return true;
	if ((streq_ci(want, "as") || streq_ci(want, "asia") || streq_ci(want, "ap")) &&
	    in_china(o))
		return true;
	/* A name in Chinese (华南, 北京) matches the location it appears in, whole. */
	if ((unsigned char)want[0] >= 0x80 && strstr(o->location, want) != NULL)
		return true;
	return false;
}

/* The rates the current filter_apply_fx or sort_offers_fx compares prices at (NULL: none). */
static _Thread_local const struct fx_rates *cur_fx;

/* A price of o in US dollars, the unit of price terms; false when no rate converts it. */
static bool
in_usd(const struct offer *o, int64_t v, bool known, int64_t *out)
{
	return known && money_convert(cur_fx, v, o->currency, "USD", out);
}

/* The offer's value for a numeric field; false when it is unknown. */
static bool
offer_num(const struct offer *o, enum filter_field f, int64_t *v)
{
	switch (f) {
	case FF_GPUS: *v = o->gpu_count; return o->gpu_count > 0;
	case FF_VRAM: *v = o->vram_gb; return o->valid & OV_VRAM;
	case FF_TOTAL_VRAM: *v = offer_vram_total(o); return *v >= 0;
	case FF_PRICE: return in_usd(o, o->price_hour, o->valid & OV_PRICE, v);
	case FF_GPU_PRICE: *v = offer_price_per_gpu(o); return in_usd(o, *v, *v >= 0, v);
	case FF_TFLOP_PRICE: *v = offer_price_per_tflop(o); return in_usd(o, *v, *v >= 0, v);
	case FF_RELIABILITY: *v = o->reliability_bp; return o->valid & OV_RELIABILITY;
	case FF_CPU: *v = o->cpu_cores; return o->valid & OV_CPU;
	case FF_RAM: *v = o->ram_gb; return o->valid & OV_RAM;
	case FF_DISK: *v = o->disk_gb; return o->valid & OV_DISK;
	case FF_NET: *v = o->net_down_mbps; return o->valid & OV_NET;
	case FF_TFLOPS:
		if (catalogue_tensor_tflops_x10(o->gpu) <= 0)
			return false;
		*v = (int64_t)catalogue_tensor_tflops_x10(o->gpu) * o->gpu_count / 10;
		return true;
	case FF_INTERCONNECT: *v = o->interconnect; return true;
	case FF_TYPE: *v = o->type; return true;
	case FF_TERM: *v = o->term_months; return o->term_months > 0;
	default: return false;
	}
}

static bool
value_matches(const struct filter_term *t, const struct offer *o, size_t i)
{
	switch (t->field) {
	case FF_GPU:
		/* A GPU the catalogue lacks answers to its provider's name ("rtx3070"). */
		if (o->gpu == NULL)
			return catalogue_raw_matches(o->gpu_raw, t->str[i]);
		return catalogue_set_has(&t->models, o->gpu);
	case FF_VENDOR:
		return catalogue_vendor_matches(o->gpu, t->str[i]);
	case FF_REGION:
		return region_matches(o, t->str[i]);
	case FF_PROVIDER:
		return streq_ci(o->provider, t->str[i]);
	case FF_INTERCONNECT:
		/* Machines with InfiniBand have NVLink inside too. */
		if (t->num[i] == IC_NVLINK && o->interconnect == IC_INFINIBAND)
			return true;
		return (int64_t)o->interconnect == t->num[i];
	default: {
		int64_t v;

		return offer_num(o, t->field, &v) && v == t->num[i];
	}
	}
}

static bool
term_matches(const struct filter_term *t, const struct offer *o)
{
	size_t i;
	int64_t v;

	if (t->op == FOP_EQ || t->op == FOP_NE) {
		bool any = false;

		for (i = 0; i < t->n && !any; i++)
			any = value_matches(t, o, i);
		return t->op == FOP_EQ ? any : !any;
	}
	if (!offer_num(o, t->field, &v))
		return false;
	return cmp_num(t->op, v, t->num[0]);
}

bool
filter_wants_terms(const struct filter *f)
{
	size_t i, k;

	for (i = 0; f != NULL && i < f->n; i++) {
		if (f->t[i].field == FF_TERM)
			return true;
		for (k = 0; f->t[i].field == FF_TYPE && f->t[i].op == FOP_EQ && k < f->t[i].n; k++)
			if (f->t[i].num[k] == OFFER_RESERVED)
				return true;
	}
	return false;
}

bool
filter_match(const struct filter *f, const struct offer *o)
{
	size_t i;

	if (o->type == OFFER_RESERVED && !filter_wants_terms(f))
		return false;
	for (i = 0; i < f->n; i++)
		if (!term_matches(&f->t[i], o))
			return false;
	return true;
}

bool
filter_match_fx(const struct filter *f, const struct offer *o, const struct fx_rates *fx)
{
	const struct fx_rates *was = cur_fx;
	bool r;

	cur_fx = fx;
	r = filter_match(f, o);
	cur_fx = was;
	return r;
}

void
filter_apply(const struct filter *f, struct offer_list *l)
{
	filter_apply_fx(f, l, NULL);
}

void
filter_apply_fx(const struct filter *f, struct offer_list *l, const struct fx_rates *fx)
{
	size_t i, o = 0;

	if (f->n == 0)
		return;
	cur_fx = fx;
	for (i = 0; i < l->n; i++)
		if (filter_match(f, &l->v[i])) {
			if (o != i)
				l->v[o] = l->v[i];
			o++;
		}
	l->n = o;
	cur_fx = NULL;
}

static bool
is_money_field(enum filter_field f)
{
	return f == FF_PRICE || f == FF_GPU_PRICE || f == FF_TFLOP_PRICE;
}

static bool
is_money_key(enum sort_key k)
{
	return k == SK_PRICE || k == SK_GPU_PRICE || k == SK_TFLOP_PRICE;
}

enum gr_err
offers_money_check(const struct offer_list *l, const struct filter *f,
    const struct sort_spec *s, bool strict_sort, const struct fx_rates *fx,
    struct offers_money *out, struct gr_error *err)
{
	bool price_term = false, price_sort = false;
	const char *first = NULL;
	size_t i;
	int64_t r;

	memset(out, 0, sizeof(*out));
	for (i = 0; f != NULL && i < f->n; i++)
		price_term |= is_money_field(f->t[i].field);
	for (i = 0; s != NULL && i < s->n; i++)
		price_sort |= is_money_key(s->key[i]);
	for (i = 0; i < l->n; i++) {
		const char *c = money_currency(l->v[i].currency);

		if (first == NULL)
			first = c;
		else if (strcmp(first, c) != 0)
			out->mixed = true;
		if (strcmp(c, "USD") != 0 && !fx_rate(fx, c, &r) && out->missing[0] == '\0')
			money_currency_set(out->missing, c);
		if (strcmp(c, "USD") != 0 && fx_rate(fx, c, &r) && out->rated[0] == '\0')
			money_currency_set(out->rated, c);
	}
	if (price_term && out->missing[0] != '\0')
		return gr_fail(err, GR_EUSAGE, "price filters are in US dollars and some offers "
		    "are priced in %s, with no rate configured to compare them: set one with "
		    "'gpurent config set fx.%s RATE' (US dollars per %s), or filter with "
		    "provider=", out->missing, out->missing, out->missing);
	if (price_sort && out->mixed && out->missing[0] != '\0') {
		if (strict_sort)
			return gr_fail(err, GR_EUSAGE, "cannot sort offers priced in different "
			    "currencies by price without a rate: set one with 'gpurent config "
			    "set fx.%s RATE' (US dollars per %s), or narrow to one provider",
			    out->missing, out->missing);
		out->grouped = true;
	}
	out->converted = out->rated[0] != '\0' && (price_term || (price_sort && out->mixed &&
	    !out->grouped));
	return GR_OK;
}

static const char *const sort_names[SK__COUNT] = {
	[SK_PRICE] = "price", [SK_GPU_PRICE] = "gpu_price", [SK_TFLOP_PRICE] = "tflop_price",
	[SK_VRAM] = "vram", [SK_GPUS] = "gpus", [SK_RELIABILITY] = "reliability",
	[SK_GPU] = "gpu", [SK_REGION] = "region", [SK_NET] = "net", [SK_TFLOPS] = "tflops",
	[SK_PROVIDER] = "provider", [SK_ID] = "id",
};

const char *
sort_keys_help(void)
{
	return "price, gpu_price, tflop_price, vram, gpus, reliability, gpu, region, net, "
	    "tflops, provider, id";
}

enum gr_err
sort_parse(struct sort_spec *s, const char *text, struct gr_error *err)
{
	char buf[256], *tok, *save = NULL;
	size_t len, k;

	memset(s, 0, sizeof(*s));
	if (strlen(text) >= sizeof(buf))
		return gr_fail(err, GR_EUSAGE, "sort keys too long");
	strlcpy_(buf, text, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		bool desc = false;

		/* "-price" and "price-" both mean descending, "+price" and "price+" ascending. */
		if (tok[0] == '-' || tok[0] == '+') {
			desc = tok[0] == '-';
			tok++;
		}
		len = strlen(tok);
		if (len > 0 && (tok[len - 1] == '-' || tok[len - 1] == '+')) {
			desc = tok[len - 1] == '-';
			tok[--len] = '\0';
		}
		for (k = 0; k < SK__COUNT; k++)
			if (streq_ci(tok, sort_names[k]))
				break;
		if (k == SK__COUNT)
			return gr_fail(err, GR_EUSAGE, "unknown sort key '%s' (keys: %s; add '-' "
			    "for descending)", tok, sort_keys_help());
		if (s->n == SORT_MAX_KEYS)
			return gr_fail(err, GR_EUSAGE, "too many sort keys (at most %d)",
			    SORT_MAX_KEYS);
		s->key[s->n] = (enum sort_key)k;
		s->desc[s->n] = desc;
		s->n++;
	}
	if (s->n == 0)
		return gr_fail(err, GR_EUSAGE, "no sort key given (keys: %s)", sort_keys_help());
	return GR_OK;
}

/* Numeric sort value; false when unknown (unknowns sort last either way). */
static bool
sort_num(const struct offer *o, enum sort_key k, int64_t *v)
{
	switch (k) {
	case SK_PRICE: return offer_num(o, FF_PRICE, v);
	case SK_GPU_PRICE: return offer_num(o, FF_GPU_PRICE, v);
	case SK_TFLOP_PRICE: return offer_num(o, FF_TFLOP_PRICE, v);
	case SK_VRAM: return offer_num(o, FF_VRAM, v);
	case SK_GPUS: return offer_num(o, FF_GPUS, v);
	case SK_RELIABILITY: return offer_num(o, FF_RELIABILITY, v);
	case SK_NET: return offer_num(o, FF_NET, v);
	case SK_TFLOPS: return offer_num(o, FF_TFLOPS, v);
	default: return false;
	}
}

static _Thread_local const struct sort_spec *cur_sort;

static int
cmp_offers(const void *pa, const void *pb)
{
	const struct offer *a = pa, *b = pb;
	size_t i;
	int c;

	for (i = 0; i < cur_sort->n; i++) {
		enum sort_key k = cur_sort->key[i];
		const char *sa = NULL, *sb = NULL;
		bool same = money_same_currency(a->currency, b->currency);
		int64_t pa_usd = 0, pb_usd = 0;

		switch (k) {
		case SK_GPU:
			sa = a->gpu ? a->gpu->id : a->gpu_raw;
			sb = b->gpu ? b->gpu->id : b->gpu_raw;
			break;
		case SK_REGION: sa = a->region; sb = b->region; break;
		case SK_PROVIDER: sa = a->provider; sb = b->provider; break;
		case SK_ID: sa = a->id; sb = b->id; break;
		default: break;
		}
		/*
		 * Two currencies. The order must be one order over the whole list (qsort needs a
		 * strict weak ordering), so money sorts by (convertible at a configured rate
		 * first; those without a rate one currency after the other; the amount in
		 * dollars; then the currency): never by the numbers of two currencies as they
		 * stand. One currency compares its own numbers, which gives the same order.
		 */
		bool cur_tie = false;

		if (is_money_key(k) && !same) {
			bool ra = money_convert(cur_fx, a->price_hour, a->currency, "USD", &pa_usd);
			bool rb = money_convert(cur_fx, b->price_hour, b->currency, "USD", &pb_usd);

			if (ra != rb)
				return ra ? -1 : 1;
			if (!ra)
				return money_currency_order(a->currency, b->currency);
			cur_tie = true;
		}
		if (sa != NULL) {
			c = strcmp(sa, sb);
		} else if (k == SK_GPU_PRICE || k == SK_TFLOP_PRICE) {
			/* Compare price/denominator exactly by cross-multiplying: no division. */
			int64_t da = k == SK_GPU_PRICE ? a->gpu_count : a->gpu ?
			    (int64_t)catalogue_tensor_tflops_x10(a->gpu) * a->gpu_count : 0;
			int64_t db = k == SK_GPU_PRICE ? b->gpu_count : b->gpu ?
			    (int64_t)catalogue_tensor_tflops_x10(b->gpu) * b->gpu_count : 0;
			bool ka = (a->valid & OV_PRICE) && da > 0, kb = (b->valid & OV_PRICE) && db > 0;
			__int128 x, y;

			if (!ka || !kb) {
				if (ka != kb)
					return ka ? -1 : 1;
				continue;
			}
			x = (__int128)(same ? a->price_hour : pa_usd) * db;
			y = (__int128)(same ? b->price_hour : pb_usd) * da;
			c = x < y ? -1 : x > y;
		} else {
			int64_t va, vb;
			bool ka, kb;

			if (k == SK_PRICE) {
				/* One currency: its own numbers; two: dollars at the rate. */
				va = same ? a->price_hour : pa_usd;
				vb = same ? b->price_hour : pb_usd;
				ka = a->valid & OV_PRICE;
				kb = b->valid & OV_PRICE;
			} else {
				ka = sort_num(a, k, &va);
				kb = sort_num(b, k, &vb);
			}

			if (!ka || !kb) {
				if (ka != kb)
					return ka ? -1 : 1;
				continue;
			}
			c = va < vb ? -1 : va > vb;
		}
		if (c != 0)
			return cur_sort->desc[i] ? -c : c;
		if (cur_tie)	/* the same in dollars: one currency before the other */
			return money_currency_order(a->currency, b->currency);
	}
	return strcmp(a->id, b->id);
}

void
sort_offers(struct offer_list *l, const struct sort_spec *s)
{
	sort_offers_fx(l, s, NULL);
}

void
sort_offers_fx(struct offer_list *l, const struct sort_spec *s, const struct fx_rates *fx)
{
	if (l->n < 2)
		return;
	cur_sort = s;
	cur_fx = fx;
	qsort(l->v, l->n, sizeof(*l->v), cmp_offers);
	cur_sort = NULL;
	cur_fx = NULL;
}
