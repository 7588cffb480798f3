/* fuzz_runpod.c - libFuzzer target: every RunPod GraphQL parser on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backends_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *b = (const char *)data;
	struct offer_list ol;
	struct instance_list il;
	struct instance in;
	struct sample_list sl;
	struct account a;
	struct charge_list cl;
	struct gr_error err = { 0 };
	char tid[96], id[128];
	bool s, sp;
	int n;

	offer_list_init(&ol);
	runpod_parse_gpu_types(b, size, true, &ol, &err);
	offer_list_release(&ol);
	instance_list_init(&il);
	runpod_parse_pods(b, size, &il, &err);
	instance_list_release(&il);
	runpod_parse_pod(b, size, &in, &err);
	runpod_parse_mutation(b, size, NULL, &in, &err);
	sample_list_init(&sl);
	runpod_parse_metrics(b, size, "runpod:x", &sl, &err);
	sample_list_release(&sl);
	runpod_parse_myself(b, size, &a, &err);
	charge_list_init(&cl);
	runpod_parse_billing(b, size, &cl, &err);
	charge_list_fold(&cl);
	charge_list_release(&cl);
	runpod_parse_error(size % 2 ? 500 : 200, b, size, &err);
	if (size < sizeof(id)) {
		memcpy(id, b, size);
		id[size] = '\0';
		runpod_offer_id_parse(id, &s, &n, &sp, tid, sizeof(tid));
	}
	return 0;
}
