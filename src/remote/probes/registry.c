/*
 * registry.c - the probe vendors gpurent knows, in the order the sampler tries their tools.
 */
#include <string.h>

#include "gpurent/probe.h"

static const struct probe_vendor *const vendors[] = {
	&probe_vendor_nvidia,
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
