/*
 * cambricon.c - Cambricon MLU (MLU370, MLU590) through cnmon, whose JSON goes to a file,
 * cnmon_info.json in the working directory, never to stdout (../shared/providers/
 * accelerators.md, "Cambricon"). The command runs it in a private temporary directory,
 * prints the file and removes the directory.
 *
 * The keys are those gpustack's detector reads (no verbatim output was found):
 *   {"CnmonInfo": [{"CardNum": 0, "ProductName": "MLU370-X8", "UUID": "...",
 *     "PhysicalMemUsage": {"Total": 24576, "Used": 1024}, "Temperature": {"Chip": 45},
 *     "Utilization": {"MLUAverage": 30}}]}
 * Power has no documented key; "Power": {"Usage": W} is read where present (an inference,
 * accelerators.md [INF]), and otherwise power stays unknown.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "gpurent/probe.h"

#include "fields.h"

static void
card(const cJSON *c, struct sample_list *out, size_t first)
{
	struct gpu_sample *s;
	char buf[64];
	int64_t index;

	if (!pf_int(pf_json_figure(c, "CardNum", NULL, NULL, buf, sizeof(buf)), "", 0, 1023,
	    &index) || (s = pf_device(out, first, (int)index)) == NULL)
		return;
	pf_text(s->name, sizeof(s->name),
	    pf_json_figure(c, "ProductName", NULL, NULL, buf, sizeof(buf)));
	pf_text(s->uuid, sizeof(s->uuid), pf_json_figure(c, "UUID", NULL, NULL, buf, sizeof(buf)));
	pf_set(s, PF_UTIL, pf_json_figure(c, "Utilization", "MLUAverage", NULL, buf, sizeof(buf)));
	pf_set(s, PF_TEMP, pf_json_figure(c, "Temperature", "Chip", NULL, buf, sizeof(buf)));
	pf_set(s, PF_POWER, pf_json_figure(c, "Power", "Usage", NULL, buf, sizeof(buf)));
	{
		int64_t used = pf_mib(pf_json_figure(c, "PhysicalMemUsage", "Used", NULL, buf,
		    sizeof(buf)), "MiB MB");
		int64_t total = pf_mib(pf_json_figure(c, "PhysicalMemUsage", "Total", NULL, buf,
		    sizeof(buf)), "MiB MB");

		pf_set_mem(s, used, total);
	}
}

static enum gr_err
cambricon_parse(const char *text, size_t len, struct sample_list *out, struct gr_error *err)
{
	const char *open = memchr(text, '{', len);
	const cJSON *list;
	cJSON *j;
	size_t first = out->n;

	if (open == NULL ||
	    (j = cJSON_ParseWithLength(open, len - (size_t)(open - text))) == NULL)
		return gr_fail(err, PF_BAD, "cnmon printed no JSON");
	list = cJSON_GetObjectItemCaseSensitive(j, "CnmonInfo");
	return pf_json_devices(j, list, card, out, first, "cnmon", err);
}

const struct probe_vendor probe_vendor_cambricon = {
	.name = "cambricon",
	.tools = { "cnmon" },
	.command = "d=$(mktemp -d) && cd \"$d\" && { cnmon info -e -m -u -j >/dev/null 2>&1; "
	    "cat cnmon_info.json; cd /; rm -rf \"$d\"; }",
	.parse = cambricon_parse,
};
