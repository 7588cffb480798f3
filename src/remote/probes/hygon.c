/*
 * hygon.c - Hygon DCU (Z100, K100, K100_AI, BW1000) through hy-smi --json, or the rocm-smi
 * that Hygon's DTK ships where hy-smi is absent (rsmi.c reads both, with hy-smi's invalid
 * JSON and the DCU -> HCU key rename of DTK 25.04; ../shared/providers/accelerators.md).
 *
 * The flags are those seen in use (a hy-smi collector; gpustack's rocm-smi call): hy-smi
 * rejects a flag it does not know, and --showhw/--showtopo corrupt its JSON, so nothing else
 * is asked. Listed before amd in registry.c: a DTK machine has a rocm-smi too.
 */
#include "gpurent/probe.h"

#include "fields.h"

static enum gr_err
hygon_parse(const char *text, size_t len, struct sample_list *out, struct gr_error *err)
{
	return pf_rsmi(pf_span(text, len), "hy-smi", out, err);
}

const struct probe_vendor probe_vendor_hygon = {
	.name = "hygon",
	.tools = { "hy-smi" },
	.command = "hy-smi --showuse --showmemuse --showmeminfo vram --showtemp --showpower "
	    "--showclocks --showproductname --json 2>/dev/null || "
	    "rocm-smi --showid --showmeminfo vram --showpower --showserial --showuse --showtemp "
	    "--showproductname --showuniqueid --json",
	.parse = hygon_parse,
};
