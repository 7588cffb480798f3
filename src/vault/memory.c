/*
 * memory.c - what both halves of the vault stand on: libsodium's start-up and the
 * sodium_malloc'd memory every secret lives in (guarded pages, wiped when freed).
 * secret.c reads secrets into it and store.c seals them; neither calls back into the other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "gpurent/vault.h"
#include "vault_int.h"

enum gr_err
vault_init(struct gr_error *err)
{
	static int done;

	if (done)
		return GR_OK;
	if (sodium_init() < 0)
		return gr_fail(err, GR_EFAIL, "cannot initialise libsodium");
	done = 1;
	return GR_OK;
}

char *
vault_strdup(const char *s)
{
	size_t n = strlen(s);
	char *p = sodium_malloc(n + 1);

	if (p == NULL) {
		fputs("gpurent: out of secure memory\n", stderr);
		abort();
	}
	memcpy(p, s, n + 1);
	return p;
}

void
vault_key_free(char *key)
{
	if (key != NULL)
		sodium_free(key);	/* sodium_free wipes before unmapping */
}

char *
vault_secure_alloc(size_t n)
{
	char *p = sodium_malloc(n);

	if (p == NULL) {
		fputs("gpurent: out of secure memory\n", stderr);
		abort();
	}
	sodium_memzero(p, n);
	return p;
}
