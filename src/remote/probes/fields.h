/*
 * fields.h - reading what the vendor tools print (nvidia, amd, hygon, ascend, iluvatar,
 * mthreads, cambricon, metax): spans of text, lines, numbers with their units, and the tolerant
 * "cardN": { "key": "value" } scanner that rocm-smi and hy-smi share. Internal to
 * src/remote/probes/; every function reads at most the bytes it is given (input may hold NUL
 * bytes and need not be terminated) and follows the parser contract of gpurent/probe.h.
 */
#ifndef GPURENT_PROBES_FIELDS_H
#define GPURENT_PROBES_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cJSON;

#include "gpurent/error.h"
#include "gpurent/model.h"

/* What a parser returns for input that is not its tool's format (probe.h's contract). */
#define PF_BAD GR_EFAIL

/* More devices than this in one sample is not a machine but garbage. */
#define PF_MAX_DEVICES 64

/* A piece of the input: not NUL-terminated. */
struct pf_span {
	const char *p;
	size_t n;
};

struct pf_span pf_span(const char *p, size_t n);
/* s without leading and trailing blanks (space, tab, CR, LF). */
struct pf_span pf_trim(struct pf_span s);
/* Whether s equals the C string t, ignoring ASCII case. */
bool pf_eq(struct pf_span s, const char *t);
/* Whether s starts with the C string t, ignoring ASCII case. */
bool pf_starts(struct pf_span s, const char *t);
/* Where t first occurs in s (exact bytes), or -1. */
long pf_find(struct pf_span s, const char *t);

/*
 * Take the next line off *rest into *line (without its LF); false when *rest is empty.
 * Lines longer than 4 KiB are cut there and the rest of them skipped: no tool prints such a
 * line, and a bounded line bounds every later scan.
 */
bool pf_line(struct pf_span *rest, struct pf_span *line);

/*
 * text up to and including its last LF: a line without one was cut off mid-way (the
 * connection dropped, the tool was killed) and may end in a cut number, "65536" read as
 * "655", so it is never read. Every tool ends its output with a newline.
 */
struct pf_span pf_whole_lines(struct pf_span text);

/*
 * Split "key : value" at the first sep into trimmed key and value; false when sep is absent
 * or the key is empty.
 */
bool pf_kv(struct pf_span line, char sep, struct pf_span *key, struct pf_span *val);

/*
 * Split the next field off *rest at the separator string sep (", " for the nvidia-smi style
 * CSV, where a decimal comma is not followed by a space); the field is trimmed. False when
 * *rest is exhausted.
 */
bool pf_field(struct pf_span *rest, const char *sep, struct pf_span *field);

/* Split the next run of non-blank bytes off *rest into *w; false when none is left. */
bool pf_word(struct pf_span *rest, struct pf_span *w);

/*
 * The cells between the bars of a box-table row "| a | b | c |", trimmed, into c[0..max);
 * their count, or 0 when line is not such a row or has more than max cells.
 */
size_t pf_cells(struct pf_span line, struct pf_span *c, size_t max);

/*
 * The JSON member obj.a (obj.a.b when b is not NULL) as text: a string as it is, a finite
 * number printed into buf[n]; with unit not NULL, also an object {"value": x, "unit": u}
 * (amd-smi), whose u must be unit when present. An empty span when absent, of another kind
 * or in another unit.
 */
struct pf_span pf_json_figure(const struct cJSON *obj, const char *a, const char *b,
    const char *unit, char *buf, size_t n);

/* Whether v is a tool's word for "no value": N/A, [N/A], [Not Supported], -, "", ... */
bool pf_unknown(struct pf_span v);

/*
 * A decimal number ("271.1", "68,52", "-3", "0.10168946267106549") followed by nothing but
 * blanks and optionally one of the space-separated units (compared ignoring case; "%" "C" "W"
 * "MiB"), rounded half away from zero, in *out when it lies in [min, max]. False for
 * anything else: N/A, words, a second number, digits past 15, out of range.
 */
bool pf_int(struct pf_span v, const char *units, int64_t min, int64_t max, int64_t *out);

/*
 * The figures every vendor fills, each one row of pf_figures (after nvtop's table of
 * fields): where it goes in struct gpu_sample, its MV_ bit, the units its value may carry and
 * its range, kept in one place.
 */
enum pf_figure {
	PF_UTIL,		/* 0..100 % */
	PF_MEM_UTIL,		/* 0..100 % */
	PF_TEMP,		/* 1..150 C */
	PF_TEMP_MEM,		/* 1..150 C */
	PF_POWER,		/* 0..5000 W */
	PF_POWER_LIMIT,		/* 1..5000 W */
	PF_CLK_SM,		/* 1..10000 MHz */
	PF_CLK_MEM,		/* 1..50000 MHz */
	PF_FAN,			/* 0..100 % */
};
struct pf_figure_def {
	size_t member;		/* offsetof an int of struct gpu_sample */
	uint32_t bit;		/* its MV_ bit */
	const char *units;	/* the units pf_int accepts after the number */
	int64_t min, max;
};
extern const struct pf_figure_def pf_figures[];
/* Set figure f and its MV_ bit only for a value in range; leave both alone otherwise. */
void pf_set(struct gpu_sample *s, enum pf_figure f, struct pf_span v);
/* The same by a row of a vendor's own table (nvidia.c's columns). */
void pf_set_def(struct gpu_sample *s, const struct pf_figure_def *d, struct pf_span v);

/* Memory in MiB (or in bytes with pf_set_mem_bytes); both must be known, used <= total. */
void pf_set_mem(struct gpu_sample *s, int64_t used_mib, int64_t total_mib);
/* The MiB figure of a memory field with the given units ("MiB MB"); -1 when unknown. */
int64_t pf_mib(struct pf_span v, const char *units);
/* The MiB figure of a byte count ("68702699520"); -1 when unknown. */
int64_t pf_bytes_to_mib(struct pf_span v);

/* Copy a string field: unknown words give "", controls stripped, cut to fit. */
void pf_text(char *dst, size_t n, struct pf_span v);

/*
 * The sample for device index in out->v[first..], added (index set) if not there yet; NULL
 * when PF_MAX_DEVICES are there already.
 */
struct gpu_sample *pf_device(struct sample_list *out, size_t first, int index);

/*
 * Close a parse: the devices in index order, or PF_BAD and "no device in <tool> output" when
 * the tool listed none.
 */
enum gr_err pf_finish(struct sample_list *out, size_t first, const char *tool,
    struct gr_error *err);

/*
 * A tool's JSON list of devices (list, inside the tree j, which this deletes): device reads
 * each object of it into out->v[first..], then pf_finish closes the parse.
 */
typedef void (*pf_json_device_fn)(const struct cJSON *dev, struct sample_list *out,
    size_t first);
enum gr_err pf_json_devices(struct cJSON *j, const struct cJSON *list, pf_json_device_fn device,
    struct sample_list *out, size_t first, const char *tool, struct gr_error *err);

/*
 * rocm-smi / hy-smi --json: calls fn for each "key": "value" member of every "cardN": {...}
 * object (card = N) and of "system": {...} (card = -1), in input order. Tolerant of what
 * hy-smi is known to print (missing commas, values without quotes such as 38.0W, text before
 * and after the JSON): it never needs the whole document to be valid. Nested values are
 * skipped. Returns the number of card objects seen.
 */
typedef void (*pf_member_fn)(int card, struct pf_span key, struct pf_span val, void *ctx);
int pf_cards(struct pf_span text, pf_member_fn fn, void *ctx);

/*
 * The samples of a rocm-smi style --json reply (AMD's rocm-smi, Hygon's hy-smi and the
 * rocm-smi of Hygon's DTK share their keys; rsmi.c), appended to out; tool names the tool in
 * messages.
 */
enum gr_err pf_rsmi(struct pf_span text, const char *tool, struct sample_list *out,
    struct gr_error *err);

/*
 * The samples of nvidia-smi style CSV (ixsmi, mthreads-gmi --query-gpu): with a header line
 * (--format=csv) its column names pick the fields; without one the columns are the
 * documented ixsmi order index, name, memory.total, memory.used, utilization.gpu,
 * temperature.gpu. Values may carry their units ("16384 MiB", "30 C").
 */
enum gr_err pf_smi_csv(struct pf_span text, const char *tool, struct sample_list *out,
    struct gr_error *err);

#endif
