/*
 * fuzz_probe.c - libFuzzer target: one accelerator probe vendor's parser (PROBE_VENDOR, set by
 * tests/probes/meson.build, which builds this file once per vendor so that each has its own
 * seeds, tests/data/probes/<vendor>/, and its own coverage floor) on arbitrary bytes, with the
 * parser contract of probe.h checked on every sample: an error appends nothing, a figure
 * known is in range, memory used is within its total, no string holds a control character.
 * A breach aborts, so the fuzzer reports it like a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/probe.h"

#define CAT(a, b) a##b
#define VENDOR(v) CAT(probe_vendor_, v)

extern const struct probe_vendor VENDOR(PROBE_VENDOR);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
no_controls(const char *s, size_t n)
{
	size_t i;

	if (memchr(s, '\0', n) == NULL)
		abort();
	for (i = 0; s[i] != '\0'; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sample_list l;
	struct gr_error err = { 0 };
	char *copy = malloc(size ? size : 1);
	size_t i;

	/* An exact-size copy, so that a read past the input is a heap overflow ASan sees. */
	memcpy(copy, data, size);
	sample_list_init(&l);
	if (VENDOR(PROBE_VENDOR).parse(copy, size, &l, &err) != GR_OK) {
		if (l.n != 0 || err.msg[0] == '\0')
			abort();
	} else if (l.n == 0) {
		abort();
	}
	for (i = 0; i < l.n; i++) {
		const struct gpu_sample *s = &l.v[i];

		if ((s->valid & MV_UTIL) && (s->util_pct < 0 || s->util_pct > 100))
			abort();
		if ((s->valid & MV_MEM) && (s->mem_used_mib < 0 || s->mem_total_mib <= 0 ||
		    s->mem_used_mib > s->mem_total_mib))
			abort();
		if ((s->valid & MV_TEMP) && (s->temp_c < 1 || s->temp_c > 150))
			abort();
		if ((s->valid & MV_POWER) && (s->power_w < 0 || s->power_w > 5000))
			abort();
		no_controls(s->name, sizeof(s->name));
		no_controls(s->uuid, sizeof(s->uuid));
		no_controls(s->driver, sizeof(s->driver));
	}
	sample_list_release(&l);
	free(copy);
	return 0;
}
