/*
 * rsmi.c - the rocm-smi family's --json reply: AMD's rocm-smi, Hygon's hy-smi and the rocm-smi
 * that Hygon's DTK ships (../shared/providers/accelerators.md, "Hygon DCU"). One object per
 * card, every value a string:
 *
 *   {"card0": {"Card Series": "Z100L", "DCU use (%)": "0.0",
 *              "vram Total Memory (MiB)": "32752", "Temperature (Sensor edge) (C)": "38.0", ...},
 *    "system": {"Driver version": "6.7.0"}}
 *
 * Keys differ by vendor and version, so each figure has its aliases: utilisation is
 * "GPU use (%)" on AMD, "DCU use (%)" on Hygon, "HCU use (%)" from DTK 25.04; memory is in
 * bytes on AMD ("VRAM Total Memory (B)") and in MiB on Hygon ("vram Total Memory (MiB)").
 * The scanner (pf_cards) tolerates hy-smi's invalid JSON.
 */
#include <string.h>

#include "gpurent/util.h"

#include "fields.h"

struct rsmi {
	struct sample_list *out;
	size_t first;
	/* Per device, by position after first: which source set the figure (higher wins). */
	unsigned char temp_rank[PF_MAX_DEVICES], power_rank[PF_MAX_DEVICES];
	int64_t used[PF_MAX_DEVICES], total[PF_MAX_DEVICES];
	char driver[32];
};

/* A clock as rocm-smi prints it: "(1700Mhz)". */
static struct pf_span
unparen(struct pf_span v)
{
	v = pf_trim(v);
	if (v.n >= 2 && v.p[0] == '(' && v.p[v.n - 1] == ')')
		v = pf_span(v.p + 1, v.n - 2);
	return v;
}

/* Set the temperature or power from a source of this rank unless a better one did. */
static void
ranked(struct gpu_sample *s, unsigned char *rank, unsigned char r, enum pf_figure f,
    struct pf_span v)
{
	uint32_t bit = pf_figures[f].bit, had = s->valid & bit;

	if (had && *rank > r)
		return;
	s->valid &= ~bit;
	pf_set(s, f, v);
	if (s->valid & bit)
		*rank = r;
	else
		s->valid |= had;
}

static void
member(int card, struct pf_span key, struct pf_span val, void *arg)
{
	struct rsmi *c = arg;
	struct gpu_sample *s;
	size_t pos;

	if (card < 0) {
		if (pf_eq(key, "Driver version"))
			pf_text(c->driver, sizeof(c->driver), val);
		return;
	}
	if ((s = pf_device(c->out, c->first, card)) == NULL)
		return;
	pos = (size_t)(s - c->out->v) - c->first;
	if (pf_eq(key, "GPU use (%)") || pf_eq(key, "DCU use (%)") || pf_eq(key, "HCU use (%)"))
		pf_set(s, PF_UTIL, val);
	else if (pf_eq(key, "GPU memory use (%)") ||
	    pf_eq(key, "GPU Memory Read/Write Activity (%)"))
		/* Both are the memory controller's busy share (sysfs mem_busy_percent). */
		pf_set(s, PF_MEM_UTIL, val);
	else if (pf_eq(key, "VRAM Total Memory (B)"))
		c->total[pos] = pf_bytes_to_mib(val);
	else if (pf_eq(key, "VRAM Total Used Memory (B)"))
		c->used[pos] = pf_bytes_to_mib(val);
	else if (pf_eq(key, "vram Total Memory (MiB)"))
		c->total[pos] = pf_mib(val, "MiB");
	else if (pf_eq(key, "vram Total Used Memory (MiB)"))
		c->used[pos] = pf_mib(val, "MiB");
	else if (pf_eq(key, "Temperature (Sensor edge) (C)"))
		ranked(s, &c->temp_rank[pos], 3, PF_TEMP, val);
	else if (pf_eq(key, "Temperature (Sensor junction) (C)"))
		/* MI300 reports no edge sensor, only the junction (hotspot). */
		ranked(s, &c->temp_rank[pos], 2, PF_TEMP, val);
	else if (pf_eq(key, "Temperature (Sensor core) (C)"))
		ranked(s, &c->temp_rank[pos], 1, PF_TEMP, val);
	else if (pf_eq(key, "Temperature (Sensor memory) (C)") ||
	    pf_eq(key, "Temperature (Sensor mem) (C)"))
		pf_set(s, PF_TEMP_MEM, val);
	else if (pf_eq(key, "Current Socket Graphics Package Power (W)"))
		ranked(s, &c->power_rank[pos], 2, PF_POWER, val);
	else if (pf_eq(key, "Average Graphics Package Power (W)"))
		/* "N/A (Secondary die)" on the second die of an MI250: unknown, not 0. */
		ranked(s, &c->power_rank[pos], 1, PF_POWER, val);
	else if (pf_eq(key, "Max Graphics Package Power (W)"))
		pf_set(s, PF_POWER_LIMIT, val);
	else if (pf_eq(key, "sclk clock speed:"))
		pf_set(s, PF_CLK_SM, unparen(val));
	else if (pf_eq(key, "mclk clock speed:"))
		pf_set(s, PF_CLK_MEM, unparen(val));
	else if (pf_eq(key, "Fan speed (%)"))
		pf_set(s, PF_FAN, val);
	else if ((pf_eq(key, "Card Series") || pf_eq(key, "Device Name")) && s->name[0] == '\0')
		pf_text(s->name, sizeof(s->name), val);
	else if (pf_eq(key, "Unique ID") || (pf_eq(key, "PCI Bus") && s->uuid[0] == '\0'))
		pf_text(s->uuid, sizeof(s->uuid), val);
}

enum gr_err
pf_rsmi(struct pf_span text, const char *tool, struct sample_list *out, struct gr_error *err)
{
	struct rsmi c;
	size_t i;

	memset(&c, 0, sizeof(c));
	c.out = out;
	c.first = out->n;
	for (i = 0; i < PF_MAX_DEVICES; i++)
		c.used[i] = c.total[i] = -1;
	if (pf_cards(text, member, &c) == 0) {
		out->n = c.first;
		return gr_fail(err, PF_BAD, "no card in %s output", tool);
	}
	for (i = c.first; i < out->n; i++) {
		struct gpu_sample *s = &out->v[i];

		pf_set_mem(s, c.used[i - c.first], c.total[i - c.first]);
		strlcpy_(s->driver, c.driver, sizeof(s->driver));
	}
	return pf_finish(out, c.first, tool, err);
}
