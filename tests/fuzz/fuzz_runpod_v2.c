/* fuzz_runpod_v2.c - libFuzzer target: every RunPod REST v2 reader on arbitrary bytes (pods,
 * one pod, its metrics, the catalogue, problem+json errors under every status class). */
#include <stddef.h>
#include <stdint.h>

#include "backends_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long statuses[] = { 200, 400, 402, 404, 409, 410, 422, 500 };
	const char *b = (const char *)data;
	struct offer_list ol;
	struct instance_list il;
	struct instance in;
	struct sample_list sl;
	struct gr_error err = { 0 };
	bool carried;

	instance_list_init(&il);
	runpod_v2_parse_pods(b, size, &il, &err);
	instance_list_release(&il);
	runpod_v2_parse_pod(b, size, &in, &err);
	sample_list_init(&sl);
	runpod_v2_parse_metrics(b, size, "runpod:x", &sl, &carried, &err);
	sample_list_release(&sl);
	offer_list_init(&ol);
	runpod_v2_parse_catalog(b, size, &ol, &err);
	offer_list_release(&ol);
	runpod_parse_error(statuses[size % 8], b, size, &err);
	return 0;
}
