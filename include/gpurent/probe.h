/*
 * probe.h - turning a GPU tool's output on a rented machine into samples.
 *
 * One module per vendor tool under src/remote/probes/ (nvidia.c, amd.c, ascend.c, hygon.c,
 * iluvatar.c, mthreads.c, cambricon.c, metax.c, host.c), each exporting one
 * `const struct probe_vendor probe_vendor_NAME`, kept apart the way nvtop keeps its vendors.
 * A vendor knows two things: the fixed command that prints one sample (our own text, run by
 * the sampler on the instance; nothing from a provider is ever put into it) and how to parse
 * what that command printed. Parsers are pure functions of their input, so they are unit-tested
 * on recorded outputs (tests/data/probes/) and fuzzed.
 *
 * Parser contract:
 * - every field the tool does not report, or reports as N/A, [Not Supported], [Unknown Error],
 *   an empty field or anything that is not a number in range, stays unknown (its MV_ bit
 *   clear), never a made-up zero;
 * - a decimal comma ("68,52") is read like a decimal point;
 * - strings (name, uuid, driver) are stripped of control characters and truncated to fit;
 * - input that is not the tool's format at all (garbage, a truncated reply, an error message)
 *   returns GR_EFAIL with a short message and appends nothing; one bad device line
 *   among good ones is skipped;
 * - the parser sets index, the fields and valid of each device; the caller sets instance_id,
 *   at and source.
 */
#ifndef GPURENT_PROBE_H
#define GPURENT_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

#define PROBE_TOOLS_MAX 3

struct probe_vendor {
	const char *name;	/* "nvidia", "amd", "ascend", …: JSON "vendor" and --vendor */
	/* The programs any one of which on PATH selects this vendor, NULL after the last: a
	 * vendor whose tool was renamed (ROCm 6+ ships amd-smi, and ROCm 7 may have no
	 * rocm-smi) lists each name, and its command tries them in the same order. */
	const char *tools[PROBE_TOOLS_MAX + 1];
	const char *command;	/* sh command line that prints one sample to stdout */
	enum gr_err (*parse)(const char *text, size_t len, struct sample_list *out,
	    struct gr_error *err);
};

/* The vendors, each defined in its own module. */
extern const struct probe_vendor probe_vendor_nvidia;

/* The vendors of registry.c, NULL-terminated, in the order the sampler tries their tools;
 * each vendor module adds its one line there. */
const struct probe_vendor *const *probe_vendors(void);

/* The vendor called name, or NULL. */
const struct probe_vendor *probe_vendor_find(const char *name);

/* Validity bits of struct host_sample. */
enum {
	HV_CPU = 1u << 0,
	HV_LOAD = 1u << 1,
	HV_MEM = 1u << 2,
	HV_DISK = 1u << 3,
	HV_NET = 1u << 4,
};

/* The machine around the GPUs. */
struct host_sample {
	int64_t at;
	int cpu_pct;			/* busy share since the previous sample */
	int load1_centi;		/* 1-minute load average ×100 */
	int64_t mem_used_mib, mem_total_mib;
	int64_t disk_used_mib, disk_total_mib;	/* the home filesystem */
	int64_t net_rx_bytes, net_tx_bytes;	/* counters, all interfaces but lo */
	uint32_t valid;
};

/*
 * The host is no GPU vendor (it is sampled beside whichever vendor answers, and on a machine
 * with none), so it is not in the vendor table: its fixed command and its parser, under the
 * same contract as the vendors' (unknown stays unknown; GR_EFAIL when nothing was read).
 */
extern const char probe_host_command[];
enum gr_err probe_host_parse(const char *text, size_t len, struct host_sample *out,
    struct gr_error *err);

#endif
