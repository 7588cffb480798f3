/*
 * mthreads.c - Moore Threads (MTT S80, S3000, S4000, S5000) through mthreads-gmi
 * (../shared/providers/accelerators.md): newer releases answer --query-gpu with nvidia-smi
 * style CSV (smicsv.c); older ones only the full query -q, "Key : Value" lines in sections
 * per GPU, read here:
 *
 *   GPU 00000000:2a:00.0
 *       Product Name              : MTT S4000
 *       FB Memory Usage
 *           Total                 : 49152MiB
 *           Used                  : 0MiB
 *       Utilization
 *           Gpu                   : 0%
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/probe.h"
#include "gpurent/util.h"

#include "fields.h"

/* Per device, the memory figures of its "FB Memory Usage" section. */
struct gmi {
	struct sample_list *out;
	size_t first;
	int64_t used[PF_MAX_DEVICES], total[PF_MAX_DEVICES];
	char driver[32];
};

static bool
indented(struct pf_span line)
{
	return line.n > 0 && (line.p[0] == ' ' || line.p[0] == '\t');
}

static void
gmi_value(struct gmi *g, struct gpu_sample *s, struct pf_span section, struct pf_span key,
    struct pf_span val)
{
	size_t pos = (size_t)(s - g->out->v) - g->first;

	if (pf_eq(key, "Index")) {
		return;
	} else if (pf_eq(key, "Product Name")) {
		pf_text(s->name, sizeof(s->name), val);
	} else if (pf_eq(key, "GPU UUID")) {
		pf_text(s->uuid, sizeof(s->uuid), val);
	} else if (pf_eq(section, "FB Memory Usage")) {
		if (pf_eq(key, "Total"))
			g->total[pos] = pf_mib(val, "MiB");
		else if (pf_eq(key, "Used"))
			g->used[pos] = pf_mib(val, "MiB");
	} else if (pf_eq(section, "Utilization")) {
		if (pf_eq(key, "Gpu"))
			pf_set(s, PF_UTIL, val);
		else if (pf_eq(key, "Memory"))
			pf_set(s, PF_MEM_UTIL, val);
	} else if (pf_eq(key, "GPU Current Temp")) {
		pf_set(s, PF_TEMP, val);
	} else if (pf_eq(key, "Power Draw")) {
		pf_set(s, PF_POWER, val);
	} else if (pf_eq(key, "Power Limit") || pf_eq(key, "Current Power Limit")) {
		pf_set(s, PF_POWER_LIMIT, val);
	}
}

static enum gr_err
gmi_query(struct pf_span text, struct sample_list *out, struct gr_error *err)
{
	struct gmi *g = xcalloc(1, sizeof(*g));
	struct pf_span rest = pf_whole_lines(text), line, section = { "", 0 };
	struct gpu_sample *s = NULL;
	enum gr_err e;
	size_t i;
	int ordinal = 0;

	g->out = out;
	g->first = out->n;
	for (i = 0; i < PF_MAX_DEVICES; i++)
		g->used[i] = g->total[i] = -1;
	while (pf_line(&rest, &line)) {
		struct pf_span t = pf_trim(line), key, val;

		if (t.n == 0)
			continue;
		if (!indented(line)) {
			/* "GPU 00000000:2a:00.0" or "GPU0" opens a device; top-level keys do not. */
			if (pf_starts(t, "GPU") && pf_find(t, " : ") < 0)
				s = pf_device(out, g->first, ordinal++);
			else if (pf_kv(t, ':', &key, &val) && pf_eq(key, "Driver Version")) {
				pf_text(g->driver, sizeof(g->driver), val);
			}
			section = pf_span("", 0);
			continue;
		}
		if (s == NULL)
			continue;
		if (!pf_kv(t, ':', &key, &val)) {
			section = t;
			continue;
		}
		/* A key with no value opens a section too ("FB Memory Usage :"). */
		if (val.n == 0) {
			section = key;
			continue;
		}
		gmi_value(g, s, section, key, val);
	}
	for (i = g->first; i < out->n; i++) {
		pf_set_mem(&out->v[i], g->used[i - g->first], g->total[i - g->first]);
		strlcpy_(out->v[i].driver, g->driver, sizeof(out->v[i].driver));
	}
	e = pf_finish(out, g->first, "mthreads-gmi", err);
	free(g);
	return e;
}

static enum gr_err
mthreads_parse(const char *text, size_t len, struct sample_list *out, struct gr_error *err)
{
	struct pf_span t = pf_span(text, len);

	if (pf_find(t, "Product Name") >= 0)
		return gmi_query(t, out, err);
	return pf_smi_csv(t, "mthreads-gmi", out, err);
}

const struct probe_vendor probe_vendor_mthreads = {
	.name = "mthreads",
	.tools = { "mthreads-gmi" },
	.command = "mthreads-gmi --query-gpu=index,name,uuid,driver_version,memory.total,"
	    "memory.used,utilization.gpu,temperature.gpu,power.draw --format=csv 2>/dev/null || "
	    "mthreads-gmi -q",
	.parse = mthreads_parse,
};
