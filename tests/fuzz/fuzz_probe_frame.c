/*
 * fuzz_probe_frame.c - libFuzzer target: the sampler's frame reader (sampler_parse_frame) on
 * arbitrary bytes between a frame's markers, with the vendors' and the host's parsers under it.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpurent/sampler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_snapshot s;

	probe_snapshot_init(&s);
	sampler_parse_frame((const char *)data, size, "0123456789abcdef", &s);
	/* A vendor is one of the table's or none; an error leaves no devices. */
	if ((s.vendor[0] != '\0' && probe_vendor_find(s.vendor) == NULL) ||
	    (s.gpu_code != GR_OK && s.gpus.n != 0) || memchr(s.gpu_error, '\x1b',
	    strlen(s.gpu_error)) != NULL)
		__builtin_trap();
	probe_snapshot_release(&s);
	return 0;
}
