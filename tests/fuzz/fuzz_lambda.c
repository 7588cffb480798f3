/* fuzz_lambda.c - libFuzzer target: every Lambda Cloud parser on arbitrary bytes. */
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
	char id[64], names[4][65], tok[32], t[128];
	size_t n;
	int c;

	offer_list_init(&ol);
	lambda_parse_instance_types(b, size, &ol, &err);
	offer_list_release(&ol);
	instance_list_init(&il);
	lambda_parse_instances(b, size, &il, &err);
	instance_list_release(&il);
	lambda_parse_instance(b, size, &in, &err);
	lambda_parse_launch(b, size, id, sizeof(id), &err);
	lambda_parse_ssh_keys(b, size, names, 4, &n, &err);
	lambda_parse_error(size % 2 ? 400 : 429, b, size, &err);
	if (size < sizeof(t)) {
		memcpy(t, b, size);
		t[size] = '\0';
		lambda_type_split(t, &c, tok, sizeof(tok));
	}
	return 0;
}
