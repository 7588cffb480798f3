/*
 * registry.c - the probe vendors gpurent knows, in the order the sampler tries their tools.
 */
#include <string.h>

#include "gpurent/probe.h"

extern const struct probe_vendor probe_vendor_hygon, probe_vendor_amd, probe_vendor_ascend,
    probe_vendor_iluvatar, probe_vendor_mthreads, probe_vendor_cambricon, probe_vendor_metax;

static const struct probe_vendor *const vendors[] = {
	&probe_vendor_nvidia,
	/* Hygon before AMD: Hygon's DTK ships a rocm-smi too. */
	&probe_vendor_hygon,
	&probe_vendor_amd,
	&probe_vendor_ascend,
	&probe_vendor_iluvatar,
	&probe_vendor_mthreads,
	&probe_vendor_cambricon,
	&probe_vendor_metax,
	NULL,
};

const struct probe_vendor *const *
probe_vendors(void)
{
	return vendors;
}

const struct probe_vendor *
probe_vendor_find(const char *name)
{
	size_t i;

	for (i = 0; vendors[i]; i++)
		if (strcmp(vendors[i]->name, name) == 0)
			return vendors[i];
	return NULL;
}
