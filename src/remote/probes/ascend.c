/*
 * ascend.c - Huawei Ascend NPUs (910B, 910C, 310P) through npu-smi, which has no
 * machine-readable mode (../shared/providers/accelerators.md, "Huawei Ascend").
 *
 * The command lists the NPUs (npu-smi info -l), prints the chip names (info -m), then for
 * each NPU a line of ours, "gpurent-npu: N", its "key : value" blocks (info -t usages, power,
 * temp, board) and a closing "gpurent-npu-end: N". Those key names changed between CANN
 * versions, hence the aliases below (the third-party exporter's lists quoted in
 * accelerators.md). Where the NPUs cannot be listed the command prints the box table of plain
 * `npu-smi info` instead, read by position (its header text changed between versions, its
 * columns did not).
 *
 * Only chip 0 of each NPU is asked for (the 910 series has one chip per NPU).
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/probe.h"
#include "gpurent/util.h"

#include "fields.h"

#define MARK "gpurent-npu:"
#define END_MARK "gpurent-npu-end:"

struct npu {
	int id;
	char name[64];
};

struct ascend {
	struct sample_list *out;
	size_t first;
	struct npu names[PF_MAX_DEVICES];
	size_t n_names;
	/* Per device, by position after first. */
	unsigned char util_rank[PF_MAX_DEVICES];
	int64_t hbm_mib[PF_MAX_DEVICES], hbm_pct[PF_MAX_DEVICES];
	int64_t ddr_mib[PF_MAX_DEVICES], ddr_pct[PF_MAX_DEVICES];
};

/* An `npu-smi info -m` row: "3   0   0   Ascend 910B3" (chip 0's name; Mcu rows skipped). */
static void
chip_name_row(struct ascend *a, struct pf_span line)
{
	struct pf_span rest = line, npu, chip, logic;
	int64_t id, c;

	if (a->n_names >= PF_MAX_DEVICES || !pf_word(&rest, &npu) || !pf_word(&rest, &chip) ||
	    !pf_word(&rest, &logic) || !pf_int(npu, "", 0, 1023, &id) ||
	    !pf_int(chip, "", 0, 1023, &c) || c != 0)
		return;
	rest = pf_trim(rest);
	if (rest.n == 0 || pf_eq(rest, "Mcu"))
		return;
	a->names[a->n_names].id = (int)id;
	pf_text(a->names[a->n_names].name, sizeof(a->names[0].name), rest);
	a->n_names++;
}

/*
 * Whether key is one of the aliases, ignoring case and spaces: 25.5 prints "NPU Temperature
 * (C)" where older versions print "NPU Temperature(C)".
 */
static bool
key_in(struct pf_span key, const char *const *aliases)
{
	for (; *aliases != NULL; aliases++) {
		const char *a = *aliases;
		size_t i = 0;

		for (;;) {
			while (i < key.n && key.p[i] == ' ')
				i++;
			while (*a == ' ')
				a++;
			if (i == key.n || *a == '\0' ||
			    (key.p[i] | 0x20) != (*a | 0x20))
				break;
			i++;
			a++;
		}
		if (i == key.n && *a == '\0')
			return true;
	}
	return false;
}

static bool
key_is(struct pf_span key, const char *name)
{
	const char *const one[] = { name, NULL };

	return key_in(key, one);
}

static const char *const util_npu[] = {
	"NPU Utilization(%)", "NPU Real-time Utilization(%)", NULL,
};
static const char *const util_aicore[] = {
	"Aicore Usage Rate(%)", "AI Core Usage Rate(%)", "AICore Usage Rate(%)", NULL,
};
static const char *const power_keys[] = {
	"Power(W)", "NPU Real-time Power(W)", "Chip Power(W)", NULL,
};
static const char *const temp_keys[] = {
	"Temperature(C)", "NPU Temperature(C)", NULL,
};

static void
npu_value(struct ascend *a, struct gpu_sample *s, struct pf_span key, struct pf_span val)
{
	size_t pos = (size_t)(s - a->out->v) - a->first;

	if (key_in(key, util_npu)) {
		/* The whole NPU's figure (newer CANN) rather than the AI cores'. */
		pf_set(s, PF_UTIL, val);
		if (s->valid & MV_UTIL)
			a->util_rank[pos] = 2;
	} else if (key_in(key, util_aicore)) {
		if (a->util_rank[pos] < 2)
			pf_set(s, PF_UTIL, val);
	} else if (key_is(key, "HBM Bandwidth Usage Rate(%)")) {
		pf_set(s, PF_MEM_UTIL, val);
	} else if (key_is(key, "HBM Capacity(MB)")) {
		/* npu-smi's MB are MiB: a 64 GiB 910B says 65536. */
		a->hbm_mib[pos] = pf_mib(val, "MB");
	} else if (key_is(key, "HBM Usage Rate(%)")) {
		if (!pf_int(val, "%", 0, 100, &a->hbm_pct[pos]))
			a->hbm_pct[pos] = -1;
	} else if (key_is(key, "DDR Capacity(MB)")) {
		a->ddr_mib[pos] = pf_mib(val, "MB");
	} else if (key_is(key, "DDR Usage Rate(%)")) {
		if (!pf_int(val, "%", 0, 100, &a->ddr_pct[pos]))
			a->ddr_pct[pos] = -1;
	} else if (key_in(key, power_keys)) {
		pf_set(s, PF_POWER, val);
	} else if (key_in(key, temp_keys)) {
		pf_set(s, PF_TEMP, val);
	} else if (key_is(key, "HBM Temperature(C)")) {
		pf_set(s, PF_TEMP_MEM, val);
	} else if (key_is(key, "Software Version")) {
		pf_text(s->driver, sizeof(s->driver), val);
	} else if (key_is(key, "PCIe Bus Info")) {
		pf_text(s->uuid, sizeof(s->uuid), val);
	}
}

/* Memory used from capacity × usage rate: HBM where the NPU has it, else its DDR. */
static void
npu_memory(struct ascend *a, struct gpu_sample *s)
{
	size_t pos = (size_t)(s - a->out->v) - a->first;
	int64_t cap = a->hbm_mib[pos], pct = a->hbm_pct[pos];

	if (cap <= 0) {
		cap = a->ddr_mib[pos];
		pct = a->ddr_pct[pos];
	}
	if (cap > 0 && pct >= 0)
		pf_set_mem(s, (cap * pct + 50) / 100, cap);
}

/* The key : value lines of one NPU's section. */
static void
section(struct ascend *a, struct pf_span text, int id)
{
	struct pf_span rest = text, line, key, val;
	struct gpu_sample *s = pf_device(a->out, a->first, id);

	while (s != NULL && pf_line(&rest, &line))
		if (pf_kv(pf_trim(line), ':', &key, &val))
			npu_value(a, s, key, val);
}

/*
 * Our marks frame each NPU's blocks; a section counts only once its closing mark is there,
 * so that a reply cut inside it cannot pass a part for the whole (the DDR figure of a 910B
 * taken for its memory because the HBM lines after it were lost).
 */
static enum gr_err
blocks(struct ascend *a, struct pf_span text, struct gr_error *err)
{
	struct pf_span rest = text, line;
	const char *start = NULL;
	bool seen_mark = false;
	int64_t id, open_id = -1;
	size_t i, j;

	while (pf_line(&rest, &line)) {
		struct pf_span t = pf_trim(line);

		if (pf_starts(t, MARK)) {
			seen_mark = true;
			start = NULL;
			if (pf_int(pf_span(t.p + strlen(MARK), t.n - strlen(MARK)), "", 0, 1023, &id)) {
				start = rest.p;
				open_id = id;
			}
			continue;
		}
		if (pf_starts(t, END_MARK)) {
			if (start != NULL && pf_int(pf_span(t.p + strlen(END_MARK),
			    t.n - strlen(END_MARK)), "", 0, 1023, &id) && id == open_id)
				section(a, pf_span(start, (size_t)(line.p - start)), (int)id);
			start = NULL;
			continue;
		}
		if (!seen_mark)
			chip_name_row(a, t);
	}
	for (i = a->first; i < a->out->n; i++) {
		struct gpu_sample *d = &a->out->v[i];

		npu_memory(a, d);
		for (j = 0; j < a->n_names && d->name[0] == '\0'; j++)
			if (a->names[j].id == d->index)
				strlcpy_(d->name, a->names[j].name, sizeof(d->name));
	}
	return pf_finish(a->out, a->first, "npu-smi", err);
}

/* "65099/ 65536" or "0    / 0": used and total MiB. */
static void
used_total(struct pf_span *rest, int64_t *used, int64_t *total)
{
	struct pf_span r = pf_trim(*rest), u, t;
	long slash = pf_find(r, "/");
	size_t i;

	*used = *total = -1;
	if (slash < 0)
		return;
	u = pf_trim(pf_span(r.p, (size_t)slash));
	r = pf_trim(pf_span(r.p + slash + 1, r.n - (size_t)slash - 1));
	for (i = 0; i < r.n && r.p[i] != ' ' && r.p[i] != '\t'; i++)
		;
	t = pf_span(r.p, i);
	rest->p = r.p + i;
	rest->n = r.n - i;
	*used = pf_mib(u, "");
	*total = pf_mib(t, "");
}

/*
 * The box table: per NPU a row "| 0  910B1 | OK | 271.1  41  0 / 0 |" (id, name, health,
 * power W, temperature C, hugepages) and a row "| 0 | 0000:C1:00.0 | 55  0 / 0  65099/ 65536 |"
 * (chip, bus id, AI core %, DDR used/total, HBM used/total MiB).
 */
static enum gr_err
table(struct ascend *a, struct pf_span text, struct gr_error *err)
{
	struct pf_span rest = text, line, c[3];
	struct gpu_sample *s = NULL;

	while (pf_line(&rest, &line)) {
		struct pf_span r, w;
		int64_t id, du, dt, hu, ht;

		if (pf_cells(line, c, 3) != 3) {
			s = NULL;
			continue;
		}
		r = c[0];
		if (s == NULL) {
			/* The first row of an NPU: its id, then a name, then the health word. */
			if (!pf_word(&r, &w) || !pf_int(w, "", 0, 1023, &id) || pf_trim(r).n == 0 ||
			    pf_find(c[1], ":") >= 0 || pf_trim(c[1]).n == 0)
				continue;
			if ((s = pf_device(a->out, a->first, (int)id)) == NULL)
				continue;
			pf_text(s->name, sizeof(s->name), r);
			r = c[2];
			if (pf_word(&r, &w))
				pf_set(s, PF_POWER, w);
			if (pf_word(&r, &w))
				pf_set(s, PF_TEMP, w);
			continue;
		}
		/* Its second row: chip [device], bus id, AI core %, DDR and HBM. */
		if (pf_find(c[1], ":") < 0) {
			s = NULL;
			continue;
		}
		pf_text(s->uuid, sizeof(s->uuid), c[1]);
		r = c[2];
		if (pf_word(&r, &w))
			pf_set(s, PF_UTIL, w);
		used_total(&r, &du, &dt);
		used_total(&r, &hu, &ht);
		if (ht > 0)
			pf_set_mem(s, hu, ht);
		else if (dt > 0)
			pf_set_mem(s, du, dt);
		s = NULL;
	}
	return pf_finish(a->out, a->first, "npu-smi", err);
}

static enum gr_err
ascend_parse(const char *text, size_t len, struct sample_list *out, struct gr_error *err)
{
	struct ascend *a = xcalloc(1, sizeof(*a));
	struct pf_span t = pf_whole_lines(pf_span(text, len));
	enum gr_err e;
	size_t i;

	a->out = out;
	a->first = out->n;
	for (i = 0; i < PF_MAX_DEVICES; i++)
		a->hbm_mib[i] = a->hbm_pct[i] = a->ddr_mib[i] = a->ddr_pct[i] = -1;
	if (pf_find(t, MARK) >= 0)
		e = blocks(a, t, err);
	else
		e = table(a, t, err);
	free(a);
	return e;
}

const struct probe_vendor probe_vendor_ascend = {
	.name = "ascend",
	.tools = { "npu-smi" },
	.command = "ids=$(npu-smi info -l 2>/dev/null | "
	    "awk -F: '/NPU ID/ { gsub(/[^0-9]/, \"\", $2); print $2 }'); "
	    "if [ -z \"$ids\" ]; then npu-smi info; else npu-smi info -m; "
	    "for i in $ids; do echo \"" MARK " $i\"; "
	    "npu-smi info -t usages -i \"$i\" -c 0; npu-smi info -t power -i \"$i\" -c 0; "
	    "npu-smi info -t temp -i \"$i\" -c 0; npu-smi info -t board -i \"$i\"; "
	    "echo \"" END_MARK " $i\"; done; fi",
	.parse = ascend_parse,
};
