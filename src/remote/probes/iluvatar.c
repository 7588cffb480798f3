/*
 * iluvatar.c - Iluvatar CoreX (MR-V50, MR-V100, BI-V100, BI-V150) through ixsmi, an
 * nvidia-smi clone (../shared/providers/accelerators.md; smicsv.c reads its CSV).
 *
 * The first query adds to gpustack's documented columns those an nvidia-smi clone is
 * expected to know (power, uuid, driver, bus); should this ixsmi reject one, the documented
 * query runs instead, and its header tells the parser which columns came.
 */
#include "gpurent/probe.h"

#include "fields.h"

static enum gr_err
iluvatar_parse(const char *text, size_t len, struct sample_list *out, struct gr_error *err)
{
	return pf_smi_csv(pf_span(text, len), "ixsmi", out, err);
}

const struct probe_vendor probe_vendor_iluvatar = {
	.name = "iluvatar",
	.tools = { "ixsmi" },
	.command = "ixsmi --query-gpu=index,name,memory.total,memory.used,utilization.gpu,"
	    "temperature.gpu,power.draw,power.limit,uuid,driver_version,pci.bus_id "
	    "--format=csv 2>/dev/null || "
	    "ixsmi --query-gpu=index,name,memory.total,memory.used,utilization.gpu,"
	    "temperature.gpu --format=csv",
	.parse = iluvatar_parse,
};
