/*
 * fuzz_probe_nvidia.c - libFuzzer target: the nvidia probe's parser on arbitrary bytes: the
 * nvidia-smi CSV rows and the kernel log's part after them (Xid lines, per-bus counts).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpurent/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sample_list l;
	struct gr_error err = { 0 };
	size_t i;

	sample_list_init(&l);
	if (probe_vendor_nvidia.parse((const char *)data, size, &l, &err) == GR_OK) {
		/* The contract: strings are terminated and free of control characters; an
		 * Xid count comes only with a last Xid, from a GPU with a bus id, and is one
		 * of at most nine digits ("# xid_count"). */
		for (i = 0; i < l.n; i++)
			if (memchr(l.v[i].name, '\x1b', strlen(l.v[i].name)) != NULL ||
			    memchr(l.v[i].cuda, '\n', strlen(l.v[i].cuda)) != NULL ||
			    memchr(l.v[i].pci_bus_id, '\x1b', strlen(l.v[i].pci_bus_id)) != NULL ||
			    ((l.v[i].valid & MV_XID_COUNT) && (!(l.v[i].valid & MV_XID) ||
			    l.v[i].xid_count < 0 || l.v[i].xid_count > 999999999)) ||
			    ((l.v[i].valid & MV_XID) && (l.v[i].pci_bus_id[0] == '\0' ||
			    l.v[i].xid < 0 || l.v[i].xid > 9999)))
				__builtin_trap();
	} else if (l.n != 0)
		__builtin_trap();	/* an error appends nothing */
	sample_list_release(&l);
	return 0;
}
