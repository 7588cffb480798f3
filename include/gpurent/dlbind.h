/*
 * dlbind.h - the functions of a library loaded with dlopen, bound into a table of pointers
 * (http's libcurl.c and libmhd.c, store's pg.c): libraries that only some commands need,
 * kept out of every command's start-up.
 */
#ifndef GPURENT_DLBIND_H
#define GPURENT_DLBIND_H

#include <stdbool.h>
#include <stddef.h>

/* A function asked of the library: its name and the offset of its pointer in the table. */
struct dl_sym {
	const char *name;
	size_t off;
};

/*
 * Opens the first of the n_files libraries files that loads and binds each of syms into
 * table. false when none loads (*missing NULL: dlerror() says why) or when the library
 * lacks a function (*missing names it).
 */
bool dl_bind(const char *const *files, size_t n_files, const struct dl_sym *syms,
    size_t n_syms, void *table, const char **missing);

#endif
