/*
 * amd.c - AMD Instinct and Radeon through rocm-smi --json (rsmi.c reads the reply), or, where
 * rocm-smi fails or is gone (it is deprecated since ROCm 6), amd-smi metric --json.
 *
 * The rocm-smi flags ask for what gpu_sample holds: product name, unique id and bus, use,
 * memory controller activity, VRAM in bytes, temperatures, power and its cap, clocks, fan,
 * driver. Every flag exists in rocm-smi since ROCm 5; an unknown flag would fail the command.
 *
 * amd-smi's reply is a list of GPUs, or since ROCm 7 the same list under "gpu_data", each
 * figure a {"value": 94, "unit": "%"} object, a bare number, or "N/A":
 *   [{"gpu": 0, "usage": {"gfx_activity": {...}, "umc_activity": {...}},
 *     "power": {"socket_power": {...}}, "mem_usage": {"total_vram": {...}, "used_vram": ...},
 *     "temperature": {"edge": ..., "hotspot": ..., "mem": ...},
 *     "clock": {"gfx_0": {"clk": ...}, "mem_0": {"clk": ...}}}]
 * It names no product (that is amd-smi static), so such samples carry figures only.
 */

#include <cjson/cJSON.h>

#include "gpurent/probe.h"

#include "fields.h"

static void
amdsmi_gpu(const cJSON *g, struct sample_list *out, size_t first)
{
	const cJSON *clock = cJSON_GetObjectItemCaseSensitive(g, "clock");
	struct gpu_sample *s;
	char buf[64];
	int64_t index;

	if (!pf_int(pf_json_figure(g, "gpu", NULL, "", buf, sizeof(buf)), "", 0, 1023, &index))
		return;
	if ((s = pf_device(out, first, (int)index)) == NULL)
		return;
	pf_set(s, PF_UTIL, pf_json_figure(g, "usage", "gfx_activity", "%", buf, sizeof(buf)));
	pf_set(s, PF_MEM_UTIL, pf_json_figure(g, "usage", "umc_activity", "%", buf, sizeof(buf)));
	pf_set(s, PF_TEMP, pf_json_figure(g, "temperature", "edge", "C", buf, sizeof(buf)));
	if (!(s->valid & MV_TEMP))
		/* MI300 has no edge sensor, only the junction (hotspot). */
		pf_set(s, PF_TEMP, pf_json_figure(g, "temperature", "hotspot", "C", buf,
		    sizeof(buf)));
	pf_set(s, PF_TEMP_MEM, pf_json_figure(g, "temperature", "mem", "C", buf, sizeof(buf)));
	pf_set(s, PF_POWER, pf_json_figure(g, "power", "socket_power", "W", buf, sizeof(buf)));
	if (!(s->valid & MV_POWER))
		/* MI200 reports the average, MI300 the current socket power. */
		pf_set(s, PF_POWER, pf_json_figure(g, "power", "average_socket_power", "W", buf,
		    sizeof(buf)));
	pf_set(s, PF_CLK_SM, pf_json_figure(clock, "gfx_0", "clk", "MHz", buf, sizeof(buf)));
	pf_set(s, PF_CLK_MEM, pf_json_figure(clock, "mem_0", "clk", "MHz", buf, sizeof(buf)));
	{
		/* amd-smi's MB are MiB: an MI300X's 192 GiB is "196592". */
		int64_t used = pf_mib(pf_json_figure(g, "mem_usage", "used_vram", "MB", buf,
		    sizeof(buf)), "");
		int64_t total = pf_mib(pf_json_figure(g, "mem_usage", "total_vram", "MB", buf,
		    sizeof(buf)), "");

		pf_set_mem(s, used, total);
	}
}

/* amd-smi metric --json, after whatever warning lines it printed first. */
static enum gr_err
amdsmi_parse(struct pf_span text, struct sample_list *out, struct gr_error *err)
{
	struct pf_span rest = text, line;
	const cJSON *list;
	size_t first = out->n;
	cJSON *j = NULL;

	while (j == NULL && pf_line(&rest, &line)) {
		struct pf_span t = pf_trim(line);

		if (t.n > 0 && (t.p[0] == '[' || t.p[0] == '{'))
			j = cJSON_ParseWithLength(t.p, text.n - (size_t)(t.p - text.p));
	}
	if (j == NULL)
		return gr_fail(err, PF_BAD, "neither rocm-smi nor amd-smi printed JSON");
	list = cJSON_IsArray(j) ? j : cJSON_GetObjectItemCaseSensitive(j, "gpu_data");
	return pf_json_devices(j, list, amdsmi_gpu, out, first, "amd-smi", err);
}

static enum gr_err
amd_parse(const char *text, size_t len, struct sample_list *out, struct gr_error *err)
{
	struct pf_span t = pf_span(text, len);

	/* rocm-smi keys its devices "card0".., amd-smi has a "gpu" member in each. */
	if (pf_find(t, "\"card") >= 0 || pf_find(t, "\"gpu\"") < 0)
		return pf_rsmi(t, "rocm-smi", out, err);
	return amdsmi_parse(t, out, err);
}

const struct probe_vendor probe_vendor_amd = {
	.name = "amd",
	.tools = { "rocm-smi", "amd-smi" },
	.command = "rocm-smi --showproductname --showuniqueid --showbus --showuse --showmemuse "
	    "--showmeminfo vram --showtemp --showpower --showmaxpower --showclocks --showfan "
	    "--showdriverversion --json 2>/dev/null || amd-smi metric --json",
	.parse = amd_parse,
};
