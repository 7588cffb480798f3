/*
 * dlbind.c - the functions of a library loaded with dlopen, bound into a table of pointers
 * (dlbind.h).
 */
#include <dlfcn.h>

#include "gpurent/dlbind.h"

bool
dl_bind(const char *const *files, size_t n_files, const struct dl_sym *syms, size_t n_syms,
    void *table, const char **missing)
{
	void *h = NULL, *f;
	size_t i;

	*missing = NULL;
	for (i = 0; i < n_files && h == NULL; i++)
		h = dlopen(files[i], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		return false;
	for (i = 0; i < n_syms; i++) {
		if ((f = dlsym(h, syms[i].name)) == NULL) {
			*missing = syms[i].name;
			return false;
		}
		/* POSIX guarantees a function pointer survives the trip through void *. */
		*(void **)((char *)table + syms[i].off) = f;
	}
	return true;
}
