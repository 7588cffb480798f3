/* fuzz_ppio.c - libFuzzer target: every PPIO GPU API v2 parser on arbitrary bytes. */
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
	struct gr_error err = { 0 };
	char id[64], cursor[1025], prod[64], region[32], t[128];
	bool more, spot;
	int count;

	offer_list_init(&ol);
	ppio_parse_products(b, size, size % 2 ? "CNY" : "USD", &ol, &err);
	offer_list_release(&ol);
	instance_list_init(&il);
	ppio_parse_instances(b, size, &il, cursor, sizeof(cursor), &more, &err);
	instance_list_release(&il);
	ppio_parse_instance(b, size, &in, &err);
	ppio_parse_create(b, size, id, sizeof(id), &err);
	ppio_parse_error(size % 3 ? 400 : 500, b, size, &err);
	if (size < sizeof(t)) {
		memcpy(t, b, size);
		t[size] = '\0';
		ppio_offer_id_parse(t, prod, sizeof(prod), region, sizeof(region), &count, &spot);
		ppio_region_location(t, prod, sizeof(prod));
	}
	return 0;
}
