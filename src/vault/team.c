/*
 * team.c - team keys (issue 31): a provider key meant for a team's watcher, sealed
 * (crypto_box_seal: X25519 and XSalsa20-Poly1305, an ephemeral sender key) to the public
 * half of a key pair whose secret half stays in the watcher machine's own vault. Whoever
 * seals cannot open again; whoever reads the shared database holds only sealed bytes.
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "gpurent/util.h"
#include "gpurent/vault.h"
#include "vault_int.h"

/* The secret half as it sits in the vault: lowercase hex. */
enum { SECRET_HEX = 2 * crypto_box_SECRETKEYBYTES + 1 };

_Static_assert(VAULT_TEAM_PUBLIC == crypto_box_PUBLICKEYBYTES, "a team public key's size");

enum gr_err
vault_team_keypair(char **secret_out, char public_hex[VAULT_TEAM_PUBLIC_HEX],
    struct gr_error *err)
{
	unsigned char pk[crypto_box_PUBLICKEYBYTES], *sk;
	enum gr_err rc;

	*secret_out = NULL;
	if ((rc = vault_init(err)) != GR_OK)
		return rc;
	sk = (unsigned char *)vault_secure_alloc(crypto_box_SECRETKEYBYTES);
	crypto_box_keypair(pk, sk);
	*secret_out = vault_secure_alloc(SECRET_HEX);
	sodium_bin2hex(*secret_out, SECRET_HEX, sk, crypto_box_SECRETKEYBYTES);
	sodium_free(sk);
	sodium_bin2hex(public_hex, VAULT_TEAM_PUBLIC_HEX, pk, sizeof(pk));
	return GR_OK;
}

/* The secret half from its hex into sk (sodium_malloc'd); NULL when secret is not one. */
static unsigned char *
secret_key(const char *secret)
{
	unsigned char *sk = (unsigned char *)vault_secure_alloc(crypto_box_SECRETKEYBYTES);
	size_t n = 0;

	if (strlen(secret) != SECRET_HEX - 1 || sodium_hex2bin(sk, crypto_box_SECRETKEYBYTES,
	    secret, SECRET_HEX - 1, NULL, &n, NULL) != 0 || n != crypto_box_SECRETKEYBYTES) {
		sodium_free(sk);
		return NULL;
	}
	return sk;
}

bool
vault_team_public(const char *secret, char public_hex[VAULT_TEAM_PUBLIC_HEX])
{
	unsigned char pk[crypto_box_PUBLICKEYBYTES], *sk;

	if (vault_init(NULL) != GR_OK || (sk = secret_key(secret)) == NULL)
		return false;
	crypto_scalarmult_base(pk, sk);
	sodium_free(sk);
	sodium_bin2hex(public_hex, VAULT_TEAM_PUBLIC_HEX, pk, sizeof(pk));
	return true;
}

enum gr_err
vault_team_seal(const char *public_hex, const char *key, unsigned char **out, size_t *n,
    struct gr_error *err)
{
	unsigned char pk[crypto_box_PUBLICKEYBYTES];
	size_t len = strlen(key), got = 0;
	enum gr_err rc;

	*out = NULL;
	*n = 0;
	if ((rc = vault_init(err)) != GR_OK)
		return rc;
	if (sodium_hex2bin(pk, sizeof(pk), public_hex, strlen(public_hex), NULL, &got, NULL) != 0 ||
	    got != sizeof(pk))
		return gr_fail(err, GR_ESTATE, "the team watcher's public key in the state database "
		    "is damaged");
	*n = crypto_box_SEALBYTES + len;
	*out = xmalloc(*n);
	crypto_box_seal(*out, (const unsigned char *)key, len, pk);
	return GR_OK;
}

enum gr_err
vault_team_open(const char *secret, const unsigned char *sealed, size_t n, char **key_out,
    struct gr_error *err)
{
	unsigned char pk[crypto_box_PUBLICKEYBYTES], *sk;
	enum gr_err rc;
	char *key;

	*key_out = NULL;
	if ((rc = vault_init(err)) != GR_OK)
		return rc;
	if ((sk = secret_key(secret)) == NULL)
		return gr_fail(err, GR_ESTATE, "the team watcher key in this machine's credential "
		    "store is damaged");
	crypto_scalarmult_base(pk, sk);
	if (n <= crypto_box_SEALBYTES) {
		sodium_free(sk);
		return gr_fail(err, GR_EAUTH, "the sealed team key is damaged");
	}
	key = vault_secure_alloc(n - crypto_box_SEALBYTES + 1);
	if (crypto_box_seal_open((unsigned char *)key, sealed, n, pk, sk) != 0) {
		sodium_free(sk);
		sodium_free(key);
		return gr_fail(err, GR_EAUTH, "the sealed team key does not open with this "
		    "watcher's key (sealed to another, or altered)");
	}
	sodium_free(sk);
	*key_out = key;	/* NUL-terminated: the allocation was zeroed one byte longer */
	return GR_OK;
}
