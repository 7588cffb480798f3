/*
 * fuzz_jscan.c - libFuzzer target: the streaming scanner of provider replies against a
 * whole-body cJSON parse (jscan_oracle.h), on arbitrary bytes cut at arbitrary places.
 * The first two bytes choose the cuts; the rest is the body, scanned for each kind of
 * container the backends stream: vast's array, RunPod's nested array, Lambda's object;
 * and vast's array again with members picked by name (jpick.c, judged without cJSON).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "jscan_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const gpu_types[] = { "data", "gpuTypes", NULL };
	static const char *const lambda_data[] = { "data", NULL };
	static const char *const offers[] = { "offers", NULL };
	static const char *const picked[] = { "a", "id", "", NULL };
	size_t cuts[2], len;
	const char *b;

	if (size < 2)
		return 0;
	b = (const char *)data + 2;
	len = size - 2;
	cuts[0] = len * data[0] / 256;
	cuts[1] = cuts[0] + (len - cuts[0]) * data[1] / 256;
	if (!jscan_agrees(b, len, cuts, 2) || !jscan_agrees_at(gpu_types, false, b, len, cuts, 2) ||
	    !jscan_agrees_at(lambda_data, true, b, len, cuts, 2) ||
	    !jscan_agrees_picking(offers, false, picked, b, len, cuts, 2))
		abort();
	return 0;
}
