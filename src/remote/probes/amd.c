/*
 * amd.c - AMD Instinct and Radeon through rocm-smi --json (rsmi.c reads the reply).
 *
 * The flags ask for what gpu_sample holds: product name, unique id and bus, use, memory
 * controller activity, VRAM in bytes, temperatures, power and its cap, clocks, fan, driver.
 * Every flag exists in rocm-smi since ROCm 5; an unknown flag would fail the whole command.
 */
#include "gpurent/probe.h"

#include "fields.h"

static enum gr_err
amd_parse(const char *text, size_t len, struct sample_list *out, struct gr_error *err)
{
	return pf_rsmi(pf_span(text, len), "rocm-smi", out, err);
}

const struct probe_vendor probe_vendor_amd = {
	.name = "amd",
	.tool = "rocm-smi",
	.command = "rocm-smi --showproductname --showuniqueid --showbus --showuse --showmemuse "
	    "--showmeminfo vram --showtemp --showpower --showmaxpower --showclocks --showfan "
	    "--showdriverversion --json",
	.parse = amd_parse,
};
