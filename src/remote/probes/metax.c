/*
 * metax.c - MetaX (C500, C550, N260) through the box table of mx-smi: its -j mode answers
 * only top-level keys (../shared/providers/accelerators.md, "MetaX"). Per GPU two rows:
 *
 *   | 0       MetaX N260             Off | 0000:01:00.0        | 0%            Native |
 *   | 37C     29W / 225W              P0 | 666/65536 MiB       | Available            |
 *
 * (index, name, persistence mode | bus id | utilisation, sGPU mode) and (temperature, power
 * draw / cap, performance state | memory used/total | state). The driver is the header's
 * "Kernel Mode Driver Version".
 */
#include <string.h>

#include "gpurent/probe.h"
#include "gpurent/util.h"

#include "fields.h"

#define DRIVER_KEY "Kernel Mode Driver Version:"

/* The name between the index and the persistence mode of a first row. */
static void
name_of(struct gpu_sample *s, struct pf_span r)
{
	struct pf_span last;
	size_t i;

	r = pf_trim(r);
	for (i = r.n; i > 0 && r.p[i - 1] != ' ' && r.p[i - 1] != '\t'; i--)
		;
	last = pf_span(r.p + i, r.n - i);
	if (i > 0 && (pf_eq(last, "Off") || pf_eq(last, "On") || pf_unknown(last)))
		r = pf_trim(pf_span(r.p, i));
	pf_text(s->name, sizeof(s->name), r);
}

/* The second row's first cell: "37C     29W / 225W              P0". */
static void
thermal(struct gpu_sample *s, struct pf_span r)
{
	struct pf_span w;
	int64_t p;

	if (pf_word(&r, &w))
		pf_set(s, PF_TEMP, w);
	if (pf_word(&r, &w))
		pf_set(s, PF_POWER, w);
	if (pf_word(&r, &w) && pf_eq(w, "/") && pf_word(&r, &w))
		pf_set(s, PF_POWER_LIMIT, w);
	if (pf_word(&r, &w) && w.n >= 2 && (w.p[0] == 'P' || w.p[0] == 'p') &&
	    pf_int(pf_span(w.p + 1, w.n - 1), "", 0, 15, &p)) {
		s->pstate = (int)p;
		s->valid |= MV_PSTATE;
	}
}

/* "666/65536 MiB" */
static void
memory(struct gpu_sample *s, struct pf_span r)
{
	long slash = pf_find(r, "/");

	if (slash < 0)
		return;
	pf_set_mem(s, pf_mib(pf_span(r.p, (size_t)slash), "MiB"),
	    pf_mib(pf_span(r.p + slash + 1, r.n - (size_t)slash - 1), "MiB"));
}

static enum gr_err
metax_parse(const char *text, size_t len, struct sample_list *out, struct gr_error *err)
{
	struct pf_span rest = pf_whole_lines(pf_span(text, len)), line, c[3];
	struct gpu_sample *s = NULL;
	size_t first = out->n, i;
	char driver[32] = "";

	while (pf_line(&rest, &line)) {
		struct pf_span r, w;
		long at = pf_find(line, DRIVER_KEY);
		int64_t id;

		if (at >= 0) {
			r = pf_span(line.p + at + strlen(DRIVER_KEY),
			    line.n - (size_t)at - strlen(DRIVER_KEY));
			if (pf_word(&r, &w))
				pf_text(driver, sizeof(driver), w);
		}
		if (pf_cells(line, c, 3) != 3) {
			s = NULL;
			continue;
		}
		r = c[0];
		if (s == NULL) {
			/* A first row has an index and a bus id ("0000:01:00.0"). */
			if (!pf_word(&r, &w) || !pf_int(w, "", 0, 1023, &id) ||
			    pf_find(c[1], ":") < 0 || (s = pf_device(out, first, (int)id)) == NULL)
				continue;
			name_of(s, r);
			pf_text(s->uuid, sizeof(s->uuid), c[1]);
			r = c[2];
			if (pf_word(&r, &w))
				pf_set(s, PF_UTIL, w);
			continue;
		}
		thermal(s, c[0]);
		memory(s, c[1]);
		s = NULL;
	}
	for (i = first; i < out->n; i++)
		strlcpy_(out->v[i].driver, driver, sizeof(out->v[i].driver));
	return pf_finish(out, first, "mx-smi", err);
}

const struct probe_vendor probe_vendor_metax = {
	.name = "metax",
	.tools = { "mx-smi" },
	.command = "mx-smi",
	.parse = metax_parse,
};
