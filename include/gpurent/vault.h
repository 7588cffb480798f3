/*
 * vault.h - the sealed credential store: API keys per (profile, provider).
 *
 * One file, <config_dir>/credentials, mode 0600, replaced atomically on every change
 * (temporary file in the same directory, fsync, rename, fsync of the directory). Its body is
 * sealed with XChaCha20-Poly1305; the header (format, mode, KDF parameters, salt, nonce) is
 * authenticated with it, so no byte can change unnoticed. The key comes either
 *
 *  - from a passphrase through argon2id (crypto_pwhash; parameters and salt in the header),
 *    taken from GPURENT_PASSPHRASE, the `vault.passphrase_command` config key (run by
 *    /bin/sh, first line of its output), or a no-echo prompt on the terminal; or
 *  - from a separate key file, <config_dir>/credentials.key (32 random bytes, mode 0600),
 *    when the user chose no passphrase.
 *
 * A store or key file that is not a regular file owned by the user with mode 0600, or a
 * directory that others can read or write, is refused before anything is read or written.
 * Every secret (passphrase, derived key, plaintext, API keys) lives in sodium_malloc'd
 * memory and is wiped when freed. Only src/vault includes sodium.h.
 *
 * Profiles: a key stored for the profile "work" is used when "work" is selected; with no key
 * there, the key stored without a profile (profile NULL, shown as "default") is used, the
 * same way a [profile] section of the config overrides the top level.
 */
#ifndef GPURENT_VAULT_H
#define GPURENT_VAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct config;
struct vault;

/* The profile name under which keys stored without --profile are listed. */
#define VAULT_DEFAULT_PROFILE "default"

enum vault_mode {
	VAULT_NONE = 0,		/* no store yet */
	VAULT_PASSPHRASE = 1,
	VAULT_KEYFILE = 2,
};

/* How a store is opened or created. Everything is borrowed. */
struct vault_opts {
	const struct config *config;	/* vault.passphrase_command, vault.mode; may be NULL */
	bool may_prompt;		/* a terminal prompt is allowed (false in scripts) */
	/*
	 * For a new store: VAULT_NONE asks the config (`vault.mode`: auto, passphrase,
	 * keyfile); auto uses a passphrase when one can be had (environment, command, or a
	 * prompt where an empty answer chooses the key file) and the key file otherwise.
	 */
	enum vault_mode create_mode;
};

/* Initialise libsodium once; GR_EFAIL when it cannot. Every vault_ function calls it. */
enum gr_err vault_init(struct gr_error *err);

/* <config_dir>/credentials and <config_dir>/credentials.key (static strings). */
const char *vault_path(void);
const char *vault_keyfile_path(void);
/* Whether a store file exists (no permission checks, opens nothing). */
bool vault_exists(void);

/*
 * Open the store, unsealing it. When there is no store yet, *out is an empty store that
 * vault_save creates (the mode is chosen then). Errors: GR_EAUTH for a wrong passphrase or
 * key file, GR_ESTATE for a damaged or tampered store or unsafe permissions.
 */
enum gr_err vault_open(struct vault **out, const struct vault_opts *o, struct gr_error *err);
/* Wipe and free everything. NULL is allowed. */
void vault_close(struct vault *v);

enum vault_mode vault_get_mode(const struct vault *v);

/*
 * Look up the key for (profile, provider) in an open store, without the default-profile
 * fallback. profile NULL or "default": the top level. Returns a sodium_malloc'd copy or NULL.
 */
char *vault_get(const struct vault *v, const char *profile, const char *provider);
/* Store (replace) a key. Takes a copy; the caller still owns key. Saved by vault_save. */
enum gr_err vault_set(struct vault *v, const char *profile, const char *provider,
    const char *key, struct gr_error *err);
/* Forget a key; false when there was none. Saved by vault_save. */
bool vault_remove(struct vault *v, const char *profile, const char *provider);

/* Every stored (profile, provider) with the time it was stored; never the key. */
void vault_each(const struct vault *v, void (*fn)(const char *profile, const char *provider,
    int64_t stored, void *ctx), void *ctx);
size_t vault_count(const struct vault *v);

/* Seal and write the store atomically. On any error the previous file is left intact. */
enum gr_err vault_save(struct vault *v, const struct vault_opts *o, struct gr_error *err);

/*
 * Change how the store is sealed: a new passphrase (obtained as for a new store) or the key
 * file. Saves. Used by `login --rekey`.
 */
enum gr_err vault_rekey(struct vault *v, const struct vault_opts *o, enum vault_mode mode,
    struct gr_error *err);

/*
 * The key for (profile, provider): the profile's own, else the top-level one. *key_out is a
 * sodium_malloc'd string, or NULL when the store has none (or there is no store): that is
 * not an error. The unsealed store is kept for the life of the process (so the shell asks
 * for the passphrase once) until vault_forget. config may be NULL; a prompt is allowed only
 * when stdin and stderr are terminals.
 */
enum gr_err vault_lookup(const char *profile, const char *provider, char **key_out,
    struct gr_error *err);
enum gr_err vault_lookup_cfg(const struct config *config, const char *profile,
    const char *provider, char **key_out, struct gr_error *err);
/* Wipe and free the process-wide unsealed store (also done at exit). */
void vault_forget(void);

/*
 * The process-wide store that vault_lookup uses, opened (unsealed) on first use; an empty
 * store when there is none yet. Do not close it: vault_forget drops it. Commands that
 * change it (login, logout) save it and call vault_forget when the save fails, so memory
 * and file agree again. In the shell this means one passphrase prompt per session.
 */
enum gr_err vault_shared(const struct vault_opts *o, struct vault **out, struct gr_error *err);

/* Secrets: sodium_malloc'd strings, wiped on free. NULL is allowed. */
char *vault_strdup(const char *s);
void vault_key_free(char *key);

/*
 * Read one secret line without echo from the terminal (/dev/tty), after printing prompt on
 * it, or from stdin (from_stdin: the whole input, first line, trailing white space dropped).
 * *out is sodium_malloc'd. An empty answer is GR_EUSAGE. GR_EINTERRUPTED on Ctrl-C.
 */
enum gr_err vault_read_secret(const char *prompt, bool from_stdin, char **out,
    struct gr_error *err);
/* Whether a terminal is there to prompt on. */
bool vault_have_tty(void);

/* Run a passphrase command (/bin/sh -c), returning the first line of its output. */
enum gr_err vault_run_command(const char *cmd, char **out, struct gr_error *err);

/* The name the password of a PostgreSQL state is stored under (`gpurent login state`). */
#define VAULT_STATE_PASSWORD "state"

/*
 * Team keys (team.c; issue 31): a provider key stored for a team's watcher is sealed to the
 * public half of a key pair whose secret half is kept, as hex, in the watcher machine's own
 * store under the name VAULT_TEAM_WATCHER. Who seals cannot open it again, and the shared
 * database holds only sealed bytes and public halves.
 */
#define VAULT_TEAM_WATCHER "team-watcher"
enum { VAULT_TEAM_PUBLIC = 32, VAULT_TEAM_PUBLIC_HEX = 2 * VAULT_TEAM_PUBLIC + 1 };
/* A new key pair: the secret half sodium_malloc'd (for vault_set), the public half as hex. */
enum gr_err vault_team_keypair(char **secret_out, char public_hex[VAULT_TEAM_PUBLIC_HEX],
    struct gr_error *err);
/* The public half (hex) of a secret half from vault_team_keypair; false when it is not one. */
bool vault_team_public(const char *secret, char public_hex[VAULT_TEAM_PUBLIC_HEX]);
/* key sealed to a public half (hex): *out malloc'd (sealed, not a secret), *n bytes. */
enum gr_err vault_team_seal(const char *public_hex, const char *key, unsigned char **out,
    size_t *n, struct gr_error *err);
/* Sealed bytes opened with a secret half: *key_out sodium_malloc'd. GR_EAUTH when they were
 * sealed to another key or altered. */
enum gr_err vault_team_open(const char *secret, const unsigned char *sealed, size_t n,
    char **key_out, struct gr_error *err);

/*
 * For tests: lower the argon2id limits of new stores (0: the defaults). A crash before the
 * rename is simulated with atomic_test_before_rename (atomic.h).
 */
void vault_test_kdf(unsigned long long opslimit, size_t memlimit);

#endif
