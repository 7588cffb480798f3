/*
 * model.c - the domain model's names and rules: offer types, interconnects, instance
 * states, what an instance bills.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/i18n.h"
#include "gpurent/model.h"
#include "gpurent/money.h"
#include "gpurent/util.h"

static const char *const offer_type_names[] = {
	[OFFER_ON_DEMAND] = "on-demand",
	[OFFER_INTERRUPTIBLE] = "interruptible",
	[OFFER_RESERVED] = "reserved",
};

static const char *const term_end_names[] = {
	[TERM_END_UNKNOWN] = "unknown",
	[TERM_END_RENEWS] = "renews",
	[TERM_END_ON_DEMAND] = "on-demand",
};

static const char *const ic_names[] = {
	[IC_UNKNOWN] = "unknown",
	[IC_PCIE] = "pcie",
	[IC_NVLINK] = "nvlink",
	[IC_INFINIBAND] = "infiniband",
};

static const char *const state_names[] = {
	[ST_UNKNOWN] = "unknown",
	[ST_PROVISIONING] = "provisioning",
	[ST_RUNNING] = "running",
	[ST_STOPPING] = "stopping",
	[ST_STOPPED] = "stopped",
	[ST_STARTING] = "starting",
	[ST_DESTROYING] = "destroying",
	[ST_DESTROYED] = "destroyed",
	[ST_FAILED] = "failed",
};

const char *
offer_type_name(enum offer_type t)
{
	return (size_t)t < ARRAY_LEN(offer_type_names) ? offer_type_names[t] : "unknown";
}

bool
term_parse(const char *v, int *out)
{
	long long n;
	char num[16];
	size_t len = strspn(v, "0123456789");
	const char *unit = v + len;

	if (len == 0 || len >= sizeof(num))
		return false;
	memcpy(num, v, len);
	num[len] = '\0';
	if (!parse_int(num, 1, 120, &n))
		return false;
	if (streq_ci(unit, "y"))
		n *= 12;
	else if (*unit != '\0' && !streq_ci(unit, "mo"))
		return false;
	if (n > 120)
		return false;
	*out = (int)n;
	return true;
}

const char *
term_end_name(enum term_end e)
{
	return (size_t)e < ARRAY_LEN(term_end_names) ? term_end_names[e] : "unknown";
}

bool
offer_type_parse(const char *s, enum offer_type *out)
{
	/* vast's word, and what the others call a term paid ahead. */
	if (streq_ci(s, "reserved") || streq_ci(s, "term") || streq_ci(s, "prepaid")) {
		*out = OFFER_RESERVED;
		return true;
	}
	if (streq_ci(s, "on-demand") || streq_ci(s, "ondemand") || streq_ci(s, "on_demand")) {
		*out = OFFER_ON_DEMAND;
		return true;
	}
	if (streq_ci(s, "interruptible") || streq_ci(s, "spot") || streq_ci(s, "bid")) {
		*out = OFFER_INTERRUPTIBLE;
		return true;
	}
	return false;
}

const char *
interconnect_name(enum interconnect ic)
{
	return (size_t)ic < ARRAY_LEN(ic_names) ? ic_names[ic] : "unknown";
}

bool
interconnect_parse(const char *s, enum interconnect *out)
{
	/* From 1: "unknown" is shown for IC_UNKNOWN but never read as a value. */
	int i = names_index(ic_names + 1, ARRAY_LEN(ic_names) - 1, s, true);

	if (i >= 0) {
		*out = (enum interconnect)(i + 1);
		return true;
	}
	if (streq_ci(s, "ib")) {
		*out = IC_INFINIBAND;
		return true;
	}
	return false;
}

const char *
inst_state_name(enum inst_state s)
{
	return (size_t)s < ARRAY_LEN(state_names) ? state_names[s] : "unknown";
}

enum inst_state
instance_billing_state(const struct instance *in)
{
	if ((in->state == ST_PROVISIONING || in->state == ST_STARTING) &&
	    in->intended == ST_STOPPED)
		return ST_STOPPING;
	if (in->state == ST_STOPPING && in->intended == ST_RUNNING)
		return ST_STARTING;
	return in->state;
}

int64_t
instance_saving_hour(const struct instance *in)
{
	switch (instance_billing_state(in)) {
	case ST_RUNNING:
	case ST_PROVISIONING:
	case ST_STARTING:
		return in->valid & IV_PRICE ? in->price_hour : 0;
	case ST_STOPPED:
	case ST_STOPPING:
		return in->valid & IV_STORAGE ? in->storage_hour : 0;
	default:
		return 0;
	}
}

bool
inst_state_parse(const char *s, enum inst_state *out)
{
	int i = names_index(state_names, ARRAY_LEN(state_names), s, true);

	if (i < 0)
		return false;
	*out = (enum inst_state)i;
	return true;
}

bool
inst_state_billed(enum inst_state s)
{
	return s == ST_RUNNING;
}

int64_t
offer_price_per_gpu(const struct offer *o)
{
	if (!(o->valid & OV_PRICE) || o->gpu_count <= 0)
		return -1;
	return money_scale(o->price_hour, 1, o->gpu_count);
}

int64_t
term_hourly(int64_t term_price, int months)
{
	return months > 0 ? money_scale(term_price, 1, (int64_t)months * TERM_MONTH_HOURS) : -1;
}

int
offer_term_discount_bp(const struct offer *o)
{
	int64_t whole;

	if (o->type != OFFER_RESERVED || o->term_months <= 0 || !(o->valid & OV_ONDEMAND) ||
	    o->ondemand_hour <= 0)
		return -1;
	/* Against the whole term on demand, not against the rounded hourly equivalent. */
	whole = o->ondemand_hour * o->term_months * TERM_MONTH_HOURS;
	return (int)(10000 - money_scale(o->term_price, 10000, whole));
}

int64_t
offer_price_per_tflop(const struct offer *o)
{
	int64_t tflops_x10;

	if (!(o->valid & OV_PRICE) || catalogue_tensor_tflops_x10(o->gpu) <= 0 ||
	    o->gpu_count <= 0)
		return -1;
	tflops_x10 = (int64_t)catalogue_tensor_tflops_x10(o->gpu) * o->gpu_count;
	return money_scale(o->price_hour, 10, tflops_x10);
}

int
offer_vram_total(const struct offer *o)
{
	if (!(o->valid & OV_VRAM) || o->gpu_count <= 0)
		return -1;
	return o->vram_gb * o->gpu_count;
}

void
offer_list_init(struct offer_list *l)
{
	memset(l, 0, sizeof(*l));
}

void
offer_list_release(struct offer_list *l)
{
	free(l->v);
	offer_list_init(l);
}

struct offer *
offer_list_add(struct offer_list *l)
{
	return XPUSH(l->v, l->n, l->cap, 64);
}

void
offer_list_append(struct offer_list *dst, const struct offer_list *src)
{
	if (src->n == 0)
		return;
	if (dst->n + src->n > dst->cap) {
		dst->cap = dst->n + src->n;
		dst->v = xreallocarray(dst->v, dst->cap, sizeof(*dst->v));
	}
	memcpy(dst->v + dst->n, src->v, src->n * sizeof(*src->v));
	dst->n += src->n;
}

void
instance_list_init(struct instance_list *l)
{
	memset(l, 0, sizeof(*l));
}

void
instance_list_release(struct instance_list *l)
{
	free(l->v);
	instance_list_init(l);
}

struct instance *
instance_list_add(struct instance_list *l)
{
	return XPUSH(l->v, l->n, l->cap, 64);
}

void
charge_list_init(struct charge_list *l)
{
	memset(l, 0, sizeof(*l));
}

void
charge_list_release(struct charge_list *l)
{
	free(l->v);
	charge_list_init(l);
}

struct charge *
charge_list_add(struct charge_list *l)
{
	return XPUSH(l->v, l->n, l->cap, 64);
}

static int
charge_cmp(const void *a, const void *b)
{
	const struct charge *x = a, *y = b;
	int c = strcmp(x->instance_id, y->instance_id);

	if (c != 0)
		return c;
	if (x->day != y->day)
		return x->day < y->day ? -1 : 1;
	return strcmp(money_currency(x->currency), money_currency(y->currency));
}

void
charge_list_fold(struct charge_list *l)
{
	size_t i, k = 0;

	if (l->n == 0)
		return;
	qsort(l->v, l->n, sizeof(*l->v), charge_cmp);
	for (i = 1; i < l->n; i++) {
		struct charge *d = &l->v[k];

		if (charge_cmp(d, &l->v[i]) != 0) {
			l->v[++k] = l->v[i];
			continue;
		}
		d->amount = money_add(d->amount, l->v[i].amount);
		d->storage = d->storage < 0 || l->v[i].storage < 0 ? -1 :
		    money_add(d->storage, l->v[i].storage);
	}
	l->n = k + 1;
}

void
cluster_state_init(struct cluster_state *c)
{
	memset(c, 0, sizeof(*c));
}

void
cluster_state_release(struct cluster_state *c)
{
	free(c->pools);
	free(c->jobs);
	cluster_state_init(c);
}

struct cluster_pool *
cluster_pool_add(struct cluster_state *c)
{
	return XPUSH(c->pools, c->n_pools, c->cap_pools, 8);
}

struct cluster_job *
cluster_job_add(struct cluster_state *c)
{
	return XPUSH(c->jobs, c->n_jobs, c->cap_jobs, 8);
}

void
sample_list_init(struct sample_list *l)
{
	memset(l, 0, sizeof(*l));
}

void
sample_list_release(struct sample_list *l)
{
	free(l->v);
	sample_list_init(l);
}

bool
xid_fatal(int code)
{
	static const int fatal[] = { 48, 62, 64, 74, 79, 95, 119, 120, 140 };
	size_t i;

	for (i = 0; i < ARRAY_LEN(fatal); i++)
		if (fatal[i] == code)
			return true;
	return false;
}

struct gpu_sample *
sample_list_add(struct sample_list *l)
{
	return XPUSH(l->v, l->n, l->cap, 64);
}

bool
label_check(const char *s, char *why, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0, len;

	for (; *p != '\0'; p += len) {
		chars++;
		if (*p < 0x20 || *p == 0x7f) {
			const char *name = *p == '\n' ? "newline" : *p == 0x1b ? "ESC" :
			    *p == '\t' ? "tab" : NULL;

			if (name != NULL)
				snprintf(why, n, _("a label cannot hold a control character (%s, "
				    "character %zu)"), name, chars);
			else
				snprintf(why, n, _("a label cannot hold a control character (0x%02x, "
				    "character %zu)"), *p, chars);
			return false;
		}
		if ((len = utf8_seq(p)) == 0) {
			snprintf(why, n, _("a label must be printable UTF-8 (byte 0x%02x at character "
			    "%zu is not)"), *p, chars);
			return false;
		}
	}
	if (chars > LABEL_MAX_CHARS) {
		snprintf(why, n, _("a label has at most %d characters, this one has %zu"),
		    LABEL_MAX_CHARS, chars);
		return false;
	}
	return true;
}
