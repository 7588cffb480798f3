/* fuzz_vast.c - libFuzzer target: every vast.ai parser on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>

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
	char tok[64];
	long long c;

	offer_list_init(&ol);
	vast_parse_offers(b, size, OFFER_ON_DEMAND, &ol, &err);
	offer_list_release(&ol);
	instance_list_init(&il);
	vast_parse_instances(b, size, &il, tok, sizeof(tok), &err);
	instance_list_release(&il);
	vast_parse_instance(b, size, &in, &err);
	sample_list_init(&sl);
	vast_parse_metrics(b, size, &sl, &err);
	sample_list_release(&sl);
	vast_parse_create(b, size, &c, &err);
	vast_parse_user(b, size, &a, &err);
	charge_list_init(&cl);
	vast_parse_charges(b, size, &cl, tok, sizeof(tok), &err);
	charge_list_fold(&cl);
	charge_list_release(&cl);
	vast_parse_error(size % 2 ? 404 : 200, b, size, &err);
	return 0;
}
