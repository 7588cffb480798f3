/* fuzz_probe_host.c - libFuzzer target: the host probe's parser on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>

#include "gpurent/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct host_sample h;
	struct gr_error err = { 0 };

	if (probe_host_parse((const char *)data, size, &h, &err) == GR_OK) {
		/* Known figures stay in their ranges. */
		if (((h.valid & HV_CPU) && (h.cpu_pct < 0 || h.cpu_pct > 100)) ||
		    ((h.valid & HV_MEM) && h.mem_used_mib > h.mem_total_mib) ||
		    ((h.valid & HV_DISK) && h.disk_used_mib > h.disk_total_mib))
			__builtin_trap();
	} else if (h.valid != 0)
		__builtin_trap();
	return 0;
}
