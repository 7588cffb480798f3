/*
 * render.c - a snapshot in the Prometheus text exposition format (exporter.h).
 *
 * GPU figures go under the field names of NVIDIA's dcgm-exporter (its
 * etc/default-counters.csv, plus the DCGM fields for what a probe reads beyond it), in the
 * same units, with its label names, so dashboards and alerts written for dcgm-exporter
 * work on rented GPUs unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "gpurent/catalogue.h"
#include "gpurent/exporter.h"
#include "gpurent/money.h"

void
exporter_snapshot_init(struct exporter_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	instance_list_init(&s->instances);
	sample_list_init(&s->samples);
}

void
exporter_snapshot_release(struct exporter_snapshot *s)
{
	instance_list_release(&s->instances);
	sample_list_release(&s->samples);
	free(s->spent);
	exporter_snapshot_init(s);
}

/* A label value: sanitized for a terminal's sake and escaped per the exposition format. */
static void
add_label(struct sb *out, const char *name, const char *value, bool first)
{
	size_t n = strlen(value) + 1;
	char small[256], *clean = n <= sizeof(small) ? small : xcalloc(n, 1);
	const char *p;

	text_sanitize(clean, n, value);
	sb_adds(out, first ? "{" : ",");
	sb_adds(out, name);
	sb_adds(out, "=\"");
	for (p = clean; *p != '\0'; p++) {
		if (*p == '\\' || *p == '"')
			sb_addc(out, '\\');
		sb_addc(out, *p);
	}
	sb_addc(out, '"');
	if (clean != small)
		free(clean);
}

static void
add_family(struct sb *out, const char *name, const char *type, const char *help)
{
	sb_addf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
add_dollars(struct sb *out, int64_t micro)
{
	if (micro < 0) {
		sb_addc(out, '-');
		micro = -micro;
	}
	sb_addf(out, "%lld.%06lld\n", (long long)(micro / 1000000), (long long)(micro % 1000000));
}

static void
instance_labels(struct sb *out, const struct instance *in)
{
	add_label(out, "instance_id", in->id, true);
	add_label(out, "provider", in->provider, false);
	add_label(out, "label", in->label, false);
	sb_addc(out, '}');
}

/* The GPU's model as a dashboard groups it: the tool's own name, else the catalogue id. */
static const char *
model_name(const struct gpu_sample *g, const struct instance *in)
{
	if (g->name[0] != '\0')
		return g->name;
	if (in != NULL && in->gpu != NULL)
		return in->gpu->id;
	return in != NULL ? in->gpu_raw : "";
}

static void
gpu_labels(struct sb *out, const struct gpu_sample *g, const struct instance *in)
{
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", g->index);
	add_label(out, "gpu", idx, true);
	add_label(out, "UUID", g->uuid, false);
	add_label(out, "modelName", model_name(g, in), false);
	/* A multi-node job's GPU is on its node, as dcgm-exporter's Hostname says. */
	add_label(out, "Hostname", g->node[0] != '\0' ? g->node : in != NULL &&
	    (in->valid & IV_SSH) ? in->ssh_host : g->instance_id, false);
	add_label(out, "instance_id", g->instance_id, false);
	add_label(out, "provider", in != NULL ? in->provider : "", false);
	add_label(out, "label", in != NULL ? in->label : "", false);
	sb_addc(out, '}');
}

/* A figure of a sample; false when the sample does not know it. */
typedef bool (*gpu_value)(const struct gpu_sample *g, int64_t *v);

#define VALUE(fn, bit, expr) \
	static bool fn(const struct gpu_sample *g, int64_t *v) \
	{ \
		if (!(g->valid & (bit))) \
			return false; \
		*v = (int64_t)(expr); \
		return true; \
	}
VALUE(v_util, MV_UTIL, g->util_pct)
VALUE(v_mem_util, MV_MEM_UTIL, g->mem_util_pct)
VALUE(v_fb_used, MV_MEM, g->mem_used_mib)
VALUE(v_fb_total, MV_MEM, g->mem_total_mib)
VALUE(v_temp, MV_TEMP, g->temp_c)
VALUE(v_temp_mem, MV_TEMP_MEM, g->temp_mem_c)
VALUE(v_power, MV_POWER, g->power_w)
VALUE(v_power_limit, MV_POWER_LIMIT, g->power_limit_w)
VALUE(v_power_enforced, MV_POWER_ENFORCED, g->power_enforced_w)
VALUE(v_clk_sm, MV_CLK_SM, g->clk_sm_mhz)
VALUE(v_clk_mem, MV_CLK_MEM, g->clk_mem_mhz)
VALUE(v_clk_sm_max, MV_CLK_SM_MAX, g->clk_sm_max_mhz)
VALUE(v_fan, MV_FAN, g->fan_pct)
VALUE(v_pstate, MV_PSTATE, g->pstate)
VALUE(v_pcie_gen, MV_PCIE_GEN, g->pcie_gen)
VALUE(v_pcie_width, MV_PCIE_WIDTH, g->pcie_width)
VALUE(v_enc, MV_ENC, g->enc_pct)
VALUE(v_dec, MV_DEC, g->dec_pct)
VALUE(v_ecc, MV_ECC_UNCORR, g->ecc_uncorrected)
VALUE(v_throttle, MV_THROTTLE, g->throttle)
VALUE(v_compute_mode, MV_COMPUTE_MODE, g->compute_mode)
VALUE(v_mig, MV_MIG, g->mig)
VALUE(v_xid, MV_XID, g->xid)
#undef VALUE

/* Free framebuffer: as the tool said, else total less used when both are known. */
static bool
v_fb_free(const struct gpu_sample *g, int64_t *v)
{
	if (g->valid & MV_MEM_FREE)
		*v = g->mem_free_mib;
	else if ((g->valid & MV_MEM) && g->mem_total_mib >= g->mem_used_mib)
		*v = (int64_t)g->mem_total_mib - g->mem_used_mib;
	else
		return false;
	return true;
}

static const struct {
	const char *name, *type, *help;
	gpu_value get;
} dcgm[] = {
	{ "DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", v_clk_sm },
	{ "DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", v_clk_mem },
	{ "DCGM_FI_DEV_MAX_SM_CLOCK", "gauge", "Maximum SM clock frequency (in MHz).",
	    v_clk_sm_max },
	{ "DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", v_temp_mem },
	{ "DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", v_temp },
	{ "DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", v_power },
	{ "DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", "Power management limit (in W).",
	    v_power_limit },
	{ "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "gauge", "Enforced power limit (in W).",
	    v_power_enforced },
	{ "DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", v_util },
	{ "DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", v_mem_util },
	{ "DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", v_enc },
	{ "DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", v_dec },
	{ "DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", v_xid },
	{ "DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", v_fb_free },
	{ "DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", v_fb_used },
	{ "DCGM_FI_DEV_FB_TOTAL", "gauge", "Framebuffer memory total (in MiB).", v_fb_total },
	{ "DCGM_FI_DEV_FAN_SPEED", "gauge", "Fan speed (in %).", v_fan },
	{ "DCGM_FI_DEV_PSTATE", "gauge", "Performance state (0 for P0 to 15 for P15).", v_pstate },
	{ "DCGM_FI_DEV_PCIE_LINK_GEN", "gauge", "Current PCIe link generation.", v_pcie_gen },
	{ "DCGM_FI_DEV_PCIE_LINK_WIDTH", "gauge", "Current PCIe link width (lanes).",
	    v_pcie_width },
	{ "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter",
	    "Total number of uncorrected (double-bit) volatile ECC errors.", v_ecc },
	{ "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "gauge",
	    "Current clock throttle reasons (bitmask of clocks_event_reasons).", v_throttle },
	{ "DCGM_FI_DEV_COMPUTE_MODE", "gauge",
	    "Compute mode (0 default, 1 exclusive thread, 2 prohibited, 3 exclusive process).",
	    v_compute_mode },
	{ "DCGM_FI_DEV_MIG_MODE", "gauge", "MIG mode (1 enabled, 0 disabled).", v_mig },
};

static const struct instance *
find_instance(const struct exporter_snapshot *s, const char *id, size_t *at)
{
	size_t i;

	for (i = 0; i < s->instances.n; i++) {
		if (strcmp(s->instances.v[i].id, id) == 0) {
			if (at != NULL)
				*at = i;
			return &s->instances.v[i];
		}
	}
	return NULL;
}

/* One instance's age series: its labels rendered, the newest sample's time. */
struct exporter_age {
	size_t at, len;		/* of "gpurent_sample_age_seconds{...}" in page->ages_text */
	int64_t newest;
};

void
exporter_page_init(struct exporter_page *p)
{
	memset(p, 0, sizeof(*p));
	sb_init(&p->head);
	sb_init(&p->ages_text);
	sb_init(&p->tail);
}

void
exporter_page_release(struct exporter_page *p)
{
	sb_release(&p->head);
	sb_release(&p->ages_text);
	sb_release(&p->tail);
	free(p->ages);
	/* Empty and holding nothing (init would allocate again): released twice is harmless. */
	memset(p, 0, sizeof(*p));
}

void
exporter_page_build(const struct exporter_snapshot *s, struct exporter_page *p)
{
	const struct instance **owner;
	struct sb *out = &p->head;
	size_t i, k;
	int64_t v;

	/* Each sample's instance once, not once per family. */
	owner = xcalloc(s->samples.n + 1, sizeof(*owner));
	for (i = 0; i < s->samples.n; i++)
		owner[i] = find_instance(s, s->samples.v[i].instance_id, NULL);

	for (k = 0; k < ARRAY_LEN(dcgm); k++) {
		add_family(out, dcgm[k].name, dcgm[k].type, dcgm[k].help);
		for (i = 0; i < s->samples.n; i++) {
			if (!dcgm[k].get(&s->samples.v[i], &v))
				continue;
			sb_adds(out, dcgm[k].name);
			gpu_labels(out, &s->samples.v[i], owner[i]);
			sb_addf(out, " %lld\n", (long long)v);
		}
	}

	add_family(out, "gpurent_instance_up", "gauge",
	    "Whether the instance is running (1) or not (0: provisioning, stopped, failed...).");
	for (i = 0; i < s->instances.n; i++) {
		sb_adds(out, "gpurent_instance_up");
		instance_labels(out, &s->instances.v[i]);
		sb_addf(out, " %d\n", s->instances.v[i].state == ST_RUNNING);
	}
	add_family(out, "gpurent_instance_price_dollars_per_hour", "gauge",
	    "What the instance costs per hour while running.");
	for (i = 0; i < s->instances.n; i++) {
		/* Dollars only: a price in another currency is not a dollar figure (money.h). */
		if (!(s->instances.v[i].valid & IV_PRICE) ||
		    !money_same_currency(s->instances.v[i].currency, "USD"))
			continue;
		sb_adds(out, "gpurent_instance_price_dollars_per_hour");
		instance_labels(out, &s->instances.v[i]);
		sb_addc(out, ' ');
		add_dollars(out, s->instances.v[i].price_hour);
	}
	add_family(out, "gpurent_spend_dollars_total", "counter",
	    "What the instance has been billed since launch, from gpurent's ledger.");
	for (i = 0; s->spent != NULL && i < s->instances.n; i++) {
		if (s->spent[i] < 0)
			continue;
		sb_adds(out, "gpurent_spend_dollars_total");
		instance_labels(out, &s->instances.v[i]);
		sb_addc(out, ' ');
		add_dollars(out, s->spent[i]);
	}
	add_family(out, "gpurent_burn_rate_dollars_per_hour", "gauge",
	    "What everything billing now costs per hour, from gpurent's ledger.");
	if (s->burn_known) {
		sb_adds(out, "gpurent_burn_rate_dollars_per_hour ");
		add_dollars(out, s->burn_hour);
	}
	add_family(out, "gpurent_sample_age_seconds", "gauge",
	    "Seconds since the newest GPU sample of the instance was taken.");
	/* The ages depend on the scrape's clock: their series now, their values per scrape. */
	p->ages = xcalloc(s->instances.n + 1, sizeof(*p->ages));
	for (i = 0; i < s->instances.n; i++) {
		const struct instance *in = &s->instances.v[i];
		int64_t newest = -1;

		for (k = 0; k < s->samples.n; k++)
			if (owner[k] == in && s->samples.v[k].at > newest)
				newest = s->samples.v[k].at;
		if (newest < 0)
			continue;
		p->ages[p->n_ages].at = p->ages_text.len;
		sb_adds(&p->ages_text, "gpurent_sample_age_seconds");
		instance_labels(&p->ages_text, in);
		p->ages[p->n_ages].len = p->ages_text.len - p->ages[p->n_ages].at;
		p->ages[p->n_ages++].newest = newest;
	}
	out = &p->tail;
	add_family(out, "gpurent_provider_up", "gauge",
	    "Whether the provider's last listing of instances succeeded (1) or not (0).");
	for (i = 0; i < s->n_providers; i++) {
		sb_adds(out, "gpurent_provider_up");
		add_label(out, "provider", s->providers[i].name, true);
		sb_addf(out, "} %d\n", s->providers[i].up);
	}
	free(owner);
}

void
exporter_page_render(const struct exporter_page *p, int64_t now, struct sb *out)
{
	size_t i;

	/* One allocation: the fixed parts, and each age's series with up to 20 digits. */
	sb_grow(out, p->head.len + p->ages_text.len + p->n_ages * 24 + p->tail.len);
	sb_add(out, p->head.buf, p->head.len);
	for (i = 0; i < p->n_ages; i++) {
		int64_t age = now > p->ages[i].newest ? now - p->ages[i].newest : 0;

		sb_add(out, p->ages_text.buf + p->ages[i].at, p->ages[i].len);
		sb_addf(out, " %lld\n", (long long)age);
	}
	sb_add(out, p->tail.buf, p->tail.len);
}

void
exporter_render(const struct exporter_snapshot *s, int64_t now, struct sb *out)
{
	struct exporter_page p;

	exporter_page_init(&p);
	exporter_page_build(s, &p);
	exporter_page_render(&p, now, out);
	exporter_page_release(&p);
}
