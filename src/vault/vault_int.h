/*
 * vault_int.h - what the files of src/vault share with each other and nobody else.
 */
#ifndef GPURENT_VAULT_INT_H
#define GPURENT_VAULT_INT_H

#include <stddef.h>

/* memory.c: n zeroed bytes of sodium_malloc'd memory; aborts when there is none. */
char *vault_secure_alloc(size_t n);

#endif
