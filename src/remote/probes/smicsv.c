/*
 * smicsv.c - nvidia-smi style CSV as its clones print it: Iluvatar's ixsmi and newer Moore
 * Threads mthreads-gmi (--query-gpu=... --format=csv). A header line names the columns,
 * "memory.total [MiB]"; values carry their units unless nounits was asked ("16384 MiB",
 * "0 %", "30 C"); fields are separated by ", " so that a decimal comma ("41,5 W") stays
 * inside its field.
 */
#include <string.h>

#include "gpurent/util.h"

#include "fields.h"

/* The columns the commands of iluvatar.c and mthreads.c ask for; others are skipped. */
enum col {
	C_SKIP, C_INDEX, C_UUID, C_NAME, C_DRIVER, C_BUS, C_MEM_TOTAL, C_MEM_USED, C_UTIL, C_TEMP,
	C_POWER, C_POWER_LIMIT,
};

static const struct {
	const char *name;
	enum col col;
} columns[] = {
	{ "index", C_INDEX }, { "uuid", C_UUID }, { "name", C_NAME },
	{ "driver_version", C_DRIVER }, { "pci.bus_id", C_BUS },
	{ "memory.total", C_MEM_TOTAL }, { "memory.used", C_MEM_USED },
	{ "utilization.gpu", C_UTIL }, { "temperature.gpu", C_TEMP },
	{ "power.draw", C_POWER }, { "power.limit", C_POWER_LIMIT },
};

/* The columns that are one figure each, and the figure. */
static const enum pf_figure figure_of[] = {
	[C_UTIL] = PF_UTIL, [C_TEMP] = PF_TEMP, [C_POWER] = PF_POWER,
	[C_POWER_LIMIT] = PF_POWER_LIMIT,
};

#define MAX_COLS 32

/* ixsmi's documented column order, for output without a header (gpustack's call). */
static const enum col bare_order[] = {
	C_INDEX, C_NAME, C_MEM_TOTAL, C_MEM_USED, C_UTIL, C_TEMP,
};

static enum col
col_of(struct pf_span h)
{
	long br = pf_find(h, "[");
	size_t i;

	/* "memory.total [MiB]" -> "memory.total" */
	if (br >= 0)
		h = pf_trim(pf_span(h.p, (size_t)br));
	for (i = 0; i < ARRAY_LEN(columns); i++)
		if (pf_eq(h, columns[i].name))
			return columns[i].col;
	return C_SKIP;
}

/* One device line; false when it names no device (no index). */
static bool
device_line(struct pf_span line, const enum col *cols, size_t ncols, struct sample_list *out,
    size_t first)
{
	struct pf_span rest = line, f[MAX_COLS];
	struct gpu_sample *s;
	int64_t index = -1, used = -1, total = -1;
	size_t n = 0, i;

	while (n < MAX_COLS && pf_field(&rest, ", ", &f[n]))
		n++;
	/* A short line is a cut reply: its last field may be cut too. */
	if (n != ncols)
		return false;
	for (i = 0; i < n; i++)
		if (cols[i] == C_INDEX && !pf_int(f[i], "", 0, 1023, &index))
			return false;
	if (index < 0 || (s = pf_device(out, first, (int)index)) == NULL)
		return false;
	for (i = 0; i < n; i++) {
		switch (cols[i]) {
		case C_UUID:
		case C_BUS:
			if (s->uuid[0] == '\0' || cols[i] == C_UUID)
				pf_text(s->uuid, sizeof(s->uuid), f[i]);
			break;
		case C_NAME:
			pf_text(s->name, sizeof(s->name), f[i]);
			break;
		case C_DRIVER:
			pf_text(s->driver, sizeof(s->driver), f[i]);
			break;
		case C_MEM_TOTAL:
			total = pf_mib(f[i], "MiB");
			break;
		case C_MEM_USED:
			used = pf_mib(f[i], "MiB");
			break;
		case C_UTIL:
		case C_TEMP:
		case C_POWER:
		case C_POWER_LIMIT:
			pf_set(s, figure_of[cols[i]], f[i]);
			break;
		case C_INDEX:
		case C_SKIP:
			break;
		}
	}
	pf_set_mem(s, used, total);
	return true;
}

enum gr_err
pf_smi_csv(struct pf_span text, const char *tool, struct sample_list *out,
    struct gr_error *err)
{
	enum col cols[MAX_COLS];
	struct pf_span rest = pf_whole_lines(text), line;
	size_t ncols = 0, first = out->n;

	while (pf_line(&rest, &line)) {
		line = pf_trim(line);
		if (line.n == 0)
			continue;
		if (pf_starts(line, "index") || (ncols == 0 && !(line.p[0] >= '0' &&
		    line.p[0] <= '9') && pf_find(line, ", ") >= 0)) {
			/* A header; a second one starts the reply of the fallback query. */
			struct pf_span r = line, f;

			ncols = 0;
			while (ncols < MAX_COLS && pf_field(&r, ", ", &f))
				cols[ncols++] = col_of(f);
			continue;
		}
		if (ncols == 0) {
			/* "No devices were found" and other words before a header. */
			if (!(line.p[0] >= '0' && line.p[0] <= '9'))
				continue;
			memcpy(cols, bare_order, sizeof(bare_order));
			ncols = ARRAY_LEN(bare_order);
		}
		device_line(line, cols, ncols, out, first);
	}
	return pf_finish(out, first, tool, err);
}
