/*
 * store.c - the sealed credential file: format, permissions, sealing and atomic replacement.
 *
 * File layout (all integers little-endian):
 *
 *   off len
 *     0   8  magic "gpurentV"
 *     8   1  format version (1)
 *     9   1  mode: 1 passphrase, 2 key file
 *    10   6  zero
 *    16   8  argon2id opslimit (passphrase mode; zero otherwise)
 *    24   8  argon2id memlimit in bytes (passphrase mode; zero otherwise)
 *    32  16  salt (passphrase mode; zero otherwise)
 *    48  16  key check: BLAKE2b-128 of the key under a fixed label
 *    64  24  XChaCha20 nonce, fresh for every write
 *    88   -  XChaCha20-Poly1305 ciphertext and tag of the body; bytes 0-87 are its
 *            additional data, so the header is authenticated too
 *
 * The key check tells a wrong passphrase or key file (check differs) from a damaged body
 * (check matches, tag fails); it costs an attacker a full argon2id run like any other guess.
 *
 * Body (padded to 256 bytes with sodium_pad, so the file size says little about the keys):
 *   u32 count, then per entry: u16 len + profile ("" for the top level), u16 len + provider,
 *   u32 len + key, i64 time stored.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "gpurent/config.h"
#include "gpurent/atomic.h"
#include "gpurent/i18n.h"
#include "gpurent/paths.h"
#include "gpurent/util.h"
#include "gpurent/vault.h"
#include "vault_int.h"

#define MAGIC		"gpurentV"
#define VERSION		1
#define HDR_LEN		88
#define KEY_LEN		crypto_aead_xchacha20poly1305_ietf_KEYBYTES
#define NONCE_LEN	crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define TAG_LEN		crypto_aead_xchacha20poly1305_ietf_ABYTES
#define SALT_LEN	16
#define CHECK_LEN	16
#define PAD_BLOCK	256
#define FILE_MAX	(4u << 20)
#define NAME_MAX_	64
#define KEYSTR_MAX	8192
#define ENTRIES_MAX	4096
/* Bounds on the KDF parameters read from a file, so a doctored header cannot hang us. */
#define OPS_MAX		64ull
#define MEM_MAX		(4ull << 30)

struct entry {
	char profile[NAME_MAX_ + 1];	/* "" for the top level */
	char provider[NAME_MAX_ + 1];
	char *key;			/* sodium_malloc'd */
	int64_t stored;
};

struct vault {
	enum vault_mode mode;		/* VAULT_NONE until first saved */
	unsigned char *key;		/* sodium_malloc'd KEY_LEN bytes, NULL before save */
	unsigned char salt[SALT_LEN];
	uint64_t opslimit;
	uint64_t memlimit;
	struct entry *e;
	size_t n;
};

static unsigned long long test_ops;
static size_t test_mem;

void
vault_test_kdf(unsigned long long opslimit, size_t memlimit)
{
	test_ops = opslimit;
	test_mem = memlimit;
}

const char *
vault_path(void)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/credentials", paths_config_dir());
	return buf;
}

const char *
vault_keyfile_path(void)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/credentials.key", paths_config_dir());
	return buf;
}

bool
vault_exists(void)
{
	struct stat st;

	return lstat(vault_path(), &st) == 0;
}

/* The file's integers: n bytes, little-endian. */
static void
put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

static uint64_t
get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* profile NULL, "" and "default" all name the top level. */
static const char *
norm_profile(const char *profile)
{
	if (profile == NULL || strcmp(profile, VAULT_DEFAULT_PROFILE) == 0)
		return "";
	return profile;
}

static void
key_check(const unsigned char *key, unsigned char out[CHECK_LEN])
{
	static const unsigned char label[] = "gpurent vault key check v1";

	crypto_generichash(out, CHECK_LEN, label, sizeof(label) - 1, key, KEY_LEN);
}

/*
 * Refuse a directory that others can read or write, or that another user owns: anyone who
 * can write there can swap the store, and anyone who can read it learns what it holds.
 */
static enum gr_err
check_dir(const char *dir, struct gr_error *err)
{
	struct stat st;

	if (stat(dir, &st) != 0)
		return gr_fail(err, GR_ESTATE, "cannot use directory '%s': %s", dir,
		    strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return gr_fail(err, GR_ESTATE, "'%s' is not a directory", dir);
	if (st.st_uid != geteuid())
		return gr_fail(err, GR_ESTATE,
		    "directory '%s' belongs to another user; refusing to keep credentials there",
		    dir);
	if (st.st_mode & (S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH))
		return gr_fail(err, GR_ESTATE,
		    "directory '%s' is open to other users (mode %04o); "
		    "refusing to use the credential store; run 'chmod 700 %s'",
		    dir, (unsigned)(st.st_mode & 07777), dir);
	return GR_OK;
}

/* A store or key file must be a regular file of ours that only we can read and write. */
static enum gr_err
check_file(const char *path, const struct stat *st, struct gr_error *err)
{
	if (!S_ISREG(st->st_mode))
		return gr_fail(err, GR_ESTATE, "'%s' is not a regular file", path);
	if (st->st_uid != geteuid())
		return gr_fail(err, GR_ESTATE, "'%s' belongs to another user; refusing to use it",
		    path);
	if (st->st_mode & 077)
		return gr_fail(err, GR_ESTATE,
		    "'%s' is readable or writable by other users (mode %04o); "
		    "refusing to use it; run 'chmod 600 %s' and consider the keys in it exposed",
		    path, (unsigned)(st->st_mode & 07777), path);
	return GR_OK;
}

/*
 * Open and read a whole private file into a buffer of the given allocator. ENOENT is
 * reported as GR_ENOTFOUND with no message, so callers can decide what absence means.
 */
static enum gr_err
read_private(const char *path, bool secure, unsigned char **out, size_t *n,
    struct gr_error *err)
{
	struct stat st;
	unsigned char *buf;
	size_t len = 0;
	ssize_t r;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return GR_ENOTFOUND;
		if (errno == ELOOP)
			return gr_fail(err, GR_ESTATE, "'%s' is a symbolic link; refusing to use it",
			    path);
		return gr_fail(err, GR_ESTATE, "cannot open '%s': %s", path, strerror(errno));
	}
	if (fstat(fd, &st) != 0) {
		close(fd);
		return gr_fail(err, GR_ESTATE, "cannot stat '%s': %s", path, strerror(errno));
	}
	if (check_file(path, &st, err) != GR_OK) {
		close(fd);
		return GR_ESTATE;
	}
	if ((uint64_t)st.st_size > FILE_MAX) {
		close(fd);
		return gr_fail(err, GR_ESTATE, "'%s' is too large to be a credential store", path);
	}
	buf = secure ? (unsigned char *)vault_secure_alloc((size_t)st.st_size + 1) :
	    xmalloc((size_t)st.st_size + 1);
	while (len < (size_t)st.st_size) {
		r = read(fd, buf + len, (size_t)st.st_size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (len != (size_t)st.st_size) {
		if (secure)
			sodium_free(buf);
		else
			free(buf);
		return gr_fail(err, GR_ESTATE, "cannot read '%s': short read", path);
	}
	*out = buf;
	*n = len;
	return GR_OK;
}

static void
fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Serialize the entries into a padded, sodium_malloc'd buffer. */
static unsigned char *
body_encode(const struct vault *v, size_t *len_out)
{
	size_t need = 4, cap, padded;
	unsigned char *buf, *p;

	for (size_t i = 0; i < v->n; i++)
		need += 2 + strlen(v->e[i].profile) + 2 + strlen(v->e[i].provider) + 4 +
		    strlen(v->e[i].key) + 8;
	cap = need + PAD_BLOCK;
	buf = (unsigned char *)vault_secure_alloc(cap);
	p = buf;
	put_le(p, v->n, 4);
	p += 4;
	for (size_t i = 0; i < v->n; i++) {
		const struct entry *e = &v->e[i];
		size_t l;

		l = strlen(e->profile);
		put_le(p, l, 2);
		memcpy(p + 2, e->profile, l);
		p += 2 + l;
		l = strlen(e->provider);
		put_le(p, l, 2);
		memcpy(p + 2, e->provider, l);
		p += 2 + l;
		l = strlen(e->key);
		put_le(p, l, 4);
		memcpy(p + 4, e->key, l);
		p += 4 + l;
		put_le(p, (uint64_t)e->stored, 8);
		p += 8;
	}
	if (sodium_pad(&padded, buf, need, PAD_BLOCK, cap) != 0)
		abort();	/* cap always leaves room for a block */
	*len_out = padded;
	return buf;
}

static void
entries_free(struct entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		vault_key_free(e[i].key);
	free(e);
}

/* Copy a length-prefixed name out of the body; false when it does not fit. */
static bool
take_name(const unsigned char **p, const unsigned char *end, char *dst)
{
	size_t l;

	if (end - *p < 2)
		return false;
	l = get_le(*p, 2);
	*p += 2;
	if (l > NAME_MAX_ || (size_t)(end - *p) < l || memchr(*p, '\0', l) != NULL)
		return false;
	memcpy(dst, *p, l);
	dst[l] = '\0';
	*p += l;
	return true;
}

/* Parse an unsealed, unpadded body into v->e. */
static bool
body_decode(struct vault *v, const unsigned char *buf, size_t len)
{
	const unsigned char *p = buf, *end = buf + len;
	struct entry *e = NULL;
	uint32_t count;
	size_t n = 0;

	if (len < 4)
		return false;
	count = (uint32_t)get_le(p, 4);
	p += 4;
	if (count > ENTRIES_MAX)
		return false;
	e = xcalloc(count ? count : 1, sizeof(*e));
	for (; n < count; n++) {
		size_t kl;

		if (!take_name(&p, end, e[n].profile) || !take_name(&p, end, e[n].provider))
			goto bad;
		if (end - p < 4)
			goto bad;
		kl = get_le(p, 4);
		p += 4;
		if (kl == 0 || kl > KEYSTR_MAX || (size_t)(end - p) < kl + 8 ||
		    memchr(p, '\0', kl) != NULL)
			goto bad;
		e[n].key = vault_secure_alloc(kl + 1);
		memcpy(e[n].key, p, kl);
		p += kl;
		e[n].stored = (int64_t)get_le(p, 8);
		p += 8;
	}
	if (p != end)
		goto bad;
	entries_free(v->e, v->n);
	v->e = e;
	v->n = n;
	return true;
bad:
	entries_free(e, count);
	return false;
}

static void
vault_reset_key(struct vault *v)
{
	if (v->key != NULL)
		sodium_free(v->key);
	v->key = NULL;
}

/* Derive the key from a passphrase with the store's salt and limits. */
static enum gr_err
derive(struct vault *v, const char *pass, unsigned char *key, struct gr_error *err)
{
	if (crypto_pwhash(key, KEY_LEN, pass, strlen(pass), v->salt, v->opslimit,
	    (size_t)v->memlimit, crypto_pwhash_ALG_ARGON2ID13) != 0)
		return gr_fail(err, GR_EFAIL,
		    "cannot derive the key: argon2id needs %llu MiB of memory",
		    (unsigned long long)(v->memlimit >> 20));
	return GR_OK;
}

static const char *
passphrase_command(const struct vault_opts *o)
{
	const char *cmd;

	if (o == NULL || o->config == NULL)
		return NULL;
	cmd = config_get(o->config, "vault.passphrase_command");
	return cmd != NULL && cmd[0] != '\0' ? cmd : NULL;
}

/* Whether a passphrase can be had without a prompt. */
static bool
passphrase_unattended(const struct vault_opts *o)
{
	const char *env = getenv("GPURENT_PASSPHRASE");

	return (env != NULL && env[0] != '\0') || passphrase_command(o) != NULL;
}

/*
 * Get the passphrase: GPURENT_PASSPHRASE, else the configured command, else a prompt.
 * For a new passphrase the prompt asks twice, and an empty answer (only allowed when
 * allow_empty) returns GR_OK with *out NULL: the user chose the key file.
 * *prompted says whether the answer came from a person (so a retry makes sense).
 */
static enum gr_err
get_passphrase(const struct vault_opts *o, bool new_pass, bool allow_empty, char **out,
    bool *prompted, struct gr_error *err)
{
	const char *env = getenv("GPURENT_PASSPHRASE"), *cmd = passphrase_command(o);
	struct gr_error e2 = { 0 };
	char *again = NULL;
	enum gr_err rc;

	*out = NULL;
	*prompted = false;
	if (env != NULL && env[0] != '\0') {
		*out = vault_strdup(env);
		return GR_OK;
	}
	if (cmd != NULL)
		return vault_run_command(cmd, out, err);
	if (o == NULL || !o->may_prompt || !vault_have_tty())
		return gr_fail(err, GR_EAUTH,
		    "the credential store needs a passphrase: set GPURENT_PASSPHRASE, "
		    "set vault.passphrase_command in the config, or run on a terminal");
	*prompted = true;
	rc = vault_read_secret(new_pass ? (allow_empty ?
	    _("New passphrase for the gpurent credential store (empty: use a key file): ") :
	    _("New passphrase for the gpurent credential store: ")) :
	    _("Passphrase for the gpurent credential store: "), false, out, &e2);
	if (rc == GR_EUSAGE && allow_empty && new_pass && strcmp(e2.msg, "empty secret") == 0)
		return GR_OK;
	if (rc != GR_OK)
		return gr_fail(err, rc, "%s", e2.msg);
	if (!new_pass)
		return GR_OK;
	rc = vault_read_secret(_("Repeat the passphrase: "), false, &again, &e2);
	if (rc != GR_OK) {
		vault_key_free(*out);
		*out = NULL;
		return gr_fail(err, rc == GR_EUSAGE ? GR_EAUTH : rc, "%s",
		    rc == GR_EUSAGE ? _("the passphrases do not match") : e2.msg);
	}
	if (strlen(*out) != strlen(again) || sodium_memcmp(*out, again, strlen(again)) != 0) {
		vault_key_free(*out);
		vault_key_free(again);
		*out = NULL;
		return gr_fail(err, GR_EAUTH, "the passphrases do not match");
	}
	vault_key_free(again);
	return GR_OK;
}

/* Read the key file (checking its permissions) into a fresh sodium buffer. */
static enum gr_err
load_keyfile(unsigned char **key, struct gr_error *err)
{
	const char *path = vault_keyfile_path();
	unsigned char *buf;
	size_t n;
	enum gr_err rc;

	*key = NULL;
	rc = read_private(path, true, &buf, &n, err);
	if (rc == GR_ENOTFOUND)
		return gr_fail(err, GR_EAUTH,
		    "the credential store is sealed with the key file '%s', which is missing",
		    path);
	if (rc != GR_OK)
		return rc;
	if (n != KEY_LEN) {
		sodium_free(buf);
		return gr_fail(err, GR_EAUTH, "'%s' is not a gpurent key file (wrong size)", path);
	}
	*key = buf;
	return GR_OK;
}

/* Unseal the file bytes into v, trying the passphrase (or key file) it needs. */
static enum gr_err
unseal(struct vault *v, const unsigned char *file, size_t n, const struct vault_opts *o,
    struct gr_error *err)
{
	const char *path = vault_path();
	unsigned char check[CHECK_LEN], *key, *plain;
	unsigned long long plen;
	size_t unpadded;
	enum gr_err rc;
	int tries = 0;

	if (n < HDR_LEN + TAG_LEN || memcmp(file, MAGIC, 8) != 0)
		return gr_fail(err, GR_ESTATE, "'%s' is not a gpurent credential store", path);
	if (file[8] != VERSION)
		return gr_fail(err, GR_ESTATE,
		    "'%s' has format version %d; this gpurent reads version %d", path, file[8],
		    VERSION);
	v->mode = file[9];
	v->opslimit = get_le(file + 16, 8);
	v->memlimit = get_le(file + 24, 8);
	memcpy(v->salt, file + 32, SALT_LEN);
	if (v->mode == VAULT_PASSPHRASE) {
		if (v->opslimit < crypto_pwhash_OPSLIMIT_MIN || v->opslimit > OPS_MAX ||
		    v->memlimit < crypto_pwhash_MEMLIMIT_MIN || v->memlimit > MEM_MAX)
			return gr_fail(err, GR_ESTATE,
			    "'%s' is damaged or was tampered with (unreasonable key derivation "
			    "parameters)", path);
	} else if (v->mode != VAULT_KEYFILE)
		return gr_fail(err, GR_ESTATE, "'%s' is damaged or was tampered with (unknown mode)",
		    path);

	key = (unsigned char *)vault_secure_alloc(KEY_LEN);
	for (;;) {
		if (v->mode == VAULT_KEYFILE) {
			unsigned char *kf;

			if ((rc = load_keyfile(&kf, err)) != GR_OK)
				goto fail;
			memcpy(key, kf, KEY_LEN);
			sodium_free(kf);
		} else {
			char *pass;
			bool prompted;

			if ((rc = get_passphrase(o, false, false, &pass, &prompted, err)) != GR_OK)
				goto fail;
			rc = derive(v, pass, key, err);
			vault_key_free(pass);
			if (rc != GR_OK)
				goto fail;
			tries++;
			key_check(key, check);
			if (sodium_memcmp(check, file + 48, CHECK_LEN) != 0 && prompted &&
			    tries < 3) {
				fputs(_("gpurent: wrong passphrase, try again\n"), stderr);
				continue;
			}
		}
		break;
	}
	key_check(key, check);
	if (sodium_memcmp(check, file + 48, CHECK_LEN) != 0) {
		if (v->mode == VAULT_KEYFILE)
			rc = gr_fail(err, GR_EAUTH,
			    "the key file '%s' does not belong to the credential store '%s'",
			    vault_keyfile_path(), path);
		else
			rc = gr_fail(err, GR_EAUTH,
			    "wrong passphrase for the credential store '%s'", path);
		goto fail;
	}
	plain = (unsigned char *)vault_secure_alloc(n - HDR_LEN);
	if (crypto_aead_xchacha20poly1305_ietf_decrypt(plain, &plen, NULL, file + HDR_LEN,
	    n - HDR_LEN, file, HDR_LEN, file + 64, key) != 0) {
		sodium_free(plain);
		rc = gr_fail(err, GR_ESTATE,
		    "the credential store '%s' is damaged or was tampered with "
		    "(authentication failed); it was left as it is", path);
		goto fail;
	}
	if (sodium_unpad(&unpadded, plain, (size_t)plen, PAD_BLOCK) != 0 ||
	    !body_decode(v, plain, unpadded)) {
		sodium_free(plain);
		rc = gr_fail(err, GR_ESTATE, "the credential store '%s' is malformed", path);
		goto fail;
	}
	sodium_free(plain);
	vault_reset_key(v);
	v->key = key;
	return GR_OK;
fail:
	sodium_free(key);
	v->mode = VAULT_NONE;
	return rc;
}

enum gr_err
vault_open(struct vault **out, const struct vault_opts *o, struct gr_error *err)
{
	struct vault *v;
	unsigned char *file;
	size_t n;
	enum gr_err rc;

	*out = NULL;
	if (vault_init(err) != GR_OK)
		return GR_EFAIL;
	v = xcalloc(1, sizeof(*v));
	if (access(paths_config_dir(), F_OK) == 0 &&
	    (rc = check_dir(paths_config_dir(), err)) != GR_OK) {
		free(v);
		return rc;
	}
	rc = read_private(vault_path(), false, &file, &n, err);
	if (rc == GR_ENOTFOUND) {
		*out = v;	/* no store yet: an empty one, created on save */
		return GR_OK;
	}
	if (rc != GR_OK) {
		free(v);
		return rc;
	}
	rc = unseal(v, file, n, o, err);
	free(file);
	if (rc != GR_OK) {
		vault_close(v);
		return rc;
	}
	*out = v;
	return GR_OK;
}

void
vault_close(struct vault *v)
{
	if (v == NULL)
		return;
	entries_free(v->e, v->n);
	vault_reset_key(v);
	free(v);
}

enum vault_mode
vault_get_mode(const struct vault *v)
{
	return v->mode;
}

static struct entry *
find(const struct vault *v, const char *profile, const char *provider)
{
	profile = norm_profile(profile);
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->e[i].profile, profile) == 0 &&
		    strcmp(v->e[i].provider, provider) == 0)
			return &v->e[i];
	return NULL;
}

char *
vault_get(const struct vault *v, const char *profile, const char *provider)
{
	struct entry *e = find(v, profile, provider);

	return e != NULL ? vault_strdup(e->key) : NULL;
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->profile, y->profile);

	return c != 0 ? c : strcmp(x->provider, y->provider);
}

enum gr_err
vault_set(struct vault *v, const char *profile, const char *provider, const char *key,
    struct gr_error *err)
{
	struct entry *e;
	size_t kl = strlen(key);

	profile = norm_profile(profile);
	if (strlen(profile) > NAME_MAX_ || provider[0] == '\0' || strlen(provider) > NAME_MAX_)
		return gr_fail(err, GR_EUSAGE, "profile or provider name too long");
	if (kl == 0 || kl > KEYSTR_MAX)
		return gr_fail(err, GR_EUSAGE, "an API key must have 1 to %d bytes", KEYSTR_MAX);
	if ((e = find(v, profile, provider)) != NULL) {
		vault_key_free(e->key);
	} else {
		if (v->n >= ENTRIES_MAX)
			return gr_fail(err, GR_EUSAGE, "too many stored keys");
		v->e = xreallocarray(v->e, v->n + 1, sizeof(*v->e));
		e = &v->e[v->n++];
		memset(e, 0, sizeof(*e));
		strlcpy_(e->profile, profile, sizeof(e->profile));
		strlcpy_(e->provider, provider, sizeof(e->provider));
	}
	e->key = vault_strdup(key);
	e->stored = (int64_t)time(NULL);
	qsort(v->e, v->n, sizeof(*v->e), entry_cmp);
	return GR_OK;
}

bool
vault_remove(struct vault *v, const char *profile, const char *provider)
{
	struct entry *e = find(v, profile, provider);
	size_t i;

	if (e == NULL)
		return false;
	i = (size_t)(e - v->e);
	vault_key_free(e->key);
	memmove(&v->e[i], &v->e[i + 1], (v->n - i - 1) * sizeof(*v->e));
	v->n--;
	return true;
}

void
vault_each(const struct vault *v, void (*fn)(const char *, const char *, int64_t, void *),
    void *ctx)
{
	for (size_t i = 0; i < v->n; i++)
		fn(v->e[i].profile[0] != '\0' ? v->e[i].profile : VAULT_DEFAULT_PROFILE,
		    v->e[i].provider, v->e[i].stored, ctx);
}

size_t
vault_count(const struct vault *v)
{
	return v->n;
}

/* Create the key file with a fresh random key, atomically. */
static enum gr_err
make_keyfile(unsigned char *key, struct gr_error *err)
{
	randombytes_buf(key, KEY_LEN);
	return atomic_write(vault_keyfile_path(), key, KEY_LEN, 0600, err);
}

/* Choose the mode of a new store and set up its key (prompting when it must). */
static enum gr_err
setup_key(struct vault *v, const struct vault_opts *o, enum vault_mode mode,
    struct gr_error *err)
{
	const char *cfg = NULL;
	unsigned char *key;
	char *pass = NULL;
	bool prompted;
	enum gr_err rc;

	if (mode == VAULT_NONE && o != NULL && o->config != NULL)
		cfg = config_get(o->config, "vault.mode");
	if (mode == VAULT_NONE && cfg != NULL) {
		if (strcmp(cfg, "passphrase") == 0)
			mode = VAULT_PASSPHRASE;
		else if (strcmp(cfg, "keyfile") == 0)
			mode = VAULT_KEYFILE;
		else if (strcmp(cfg, "auto") != 0)
			return gr_fail(err, GR_EUSAGE,
			    "vault.mode must be auto, passphrase or keyfile, not '%s'", cfg);
	}
	if (mode == VAULT_NONE && !passphrase_unattended(o) &&
	    (o == NULL || !o->may_prompt || !vault_have_tty()))
		mode = VAULT_KEYFILE;	/* auto with no way to get a passphrase */

	key = (unsigned char *)vault_secure_alloc(KEY_LEN);
	if (mode != VAULT_KEYFILE) {
		rc = get_passphrase(o, true, mode == VAULT_NONE, &pass, &prompted, err);
		if (rc != GR_OK)
			goto fail;
		if (pass == NULL)
			mode = VAULT_KEYFILE;	/* an empty answer chose the key file */
	}
	if (mode == VAULT_KEYFILE) {
		if ((rc = make_keyfile(key, err)) != GR_OK)
			goto fail;
		v->opslimit = v->memlimit = 0;
		memset(v->salt, 0, sizeof(v->salt));
	} else {
		v->opslimit = test_ops ? test_ops : crypto_pwhash_OPSLIMIT_MODERATE;
		v->memlimit = test_mem ? test_mem : crypto_pwhash_MEMLIMIT_INTERACTIVE;
		randombytes_buf(v->salt, sizeof(v->salt));
		rc = derive(v, pass, key, err);
		vault_key_free(pass);
		if (rc != GR_OK)
			goto fail;
	}
	vault_reset_key(v);
	v->key = key;
	v->mode = mode == VAULT_KEYFILE ? VAULT_KEYFILE : VAULT_PASSPHRASE;
	return GR_OK;
fail:
	sodium_free(key);
	return rc;
}

/* Seal v with its key and write it. */
static enum gr_err
seal_write(struct vault *v, struct gr_error *err)
{
	unsigned char *body, *file;
	unsigned long long clen;
	size_t blen, flen;
	enum gr_err rc;

	body = body_encode(v, &blen);
	flen = HDR_LEN + blen + TAG_LEN;
	file = xcalloc(1, flen);
	memcpy(file, MAGIC, 8);
	file[8] = VERSION;
	file[9] = (unsigned char)v->mode;
	put_le(file + 16, v->opslimit, 8);
	put_le(file + 24, v->memlimit, 8);
	memcpy(file + 32, v->salt, SALT_LEN);
	key_check(v->key, file + 48);
	randombytes_buf(file + 64, NONCE_LEN);
	crypto_aead_xchacha20poly1305_ietf_encrypt(file + HDR_LEN, &clen, body, blen, file,
	    HDR_LEN, NULL, file + 64, v->key);
	sodium_free(body);
	rc = atomic_write(vault_path(), file, HDR_LEN + (size_t)clen, 0600, err);
	free(file);
	return rc;
}

/* The directory must exist and be private, and an existing store must be ours. */
static enum gr_err
prepare_dir(struct gr_error *err)
{
	struct stat st;
	enum gr_err rc;

	if ((rc = paths_mkdir(paths_config_dir(), err)) != GR_OK)
		return rc;
	if ((rc = check_dir(paths_config_dir(), err)) != GR_OK)
		return rc;
	if (lstat(vault_path(), &st) == 0 && check_file(vault_path(), &st, err) != GR_OK)
		return GR_ESTATE;
	return GR_OK;
}

enum gr_err
vault_save(struct vault *v, const struct vault_opts *o, struct gr_error *err)
{
	enum gr_err rc;

	if (vault_init(err) != GR_OK)
		return GR_EFAIL;
	if ((rc = prepare_dir(err)) != GR_OK)
		return rc;
	if (v->key == NULL) {
		/* Never replace a store we did not unseal. */
		if (vault_exists())
			return gr_fail(err, GR_ESTATE,
			    "the credential store '%s' appeared while gpurent was running; "
			    "try again", vault_path());
		if ((rc = setup_key(v, o, o != NULL ? o->create_mode : VAULT_NONE, err)) != GR_OK)
			return rc;
	}
	return seal_write(v, err);
}

enum gr_err
vault_rekey(struct vault *v, const struct vault_opts *o, enum vault_mode mode,
    struct gr_error *err)
{
	enum vault_mode old = v->mode;
	unsigned char *old_key = v->key;
	unsigned char old_salt[SALT_LEN];
	uint64_t old_ops = v->opslimit, old_mem = v->memlimit;
	enum gr_err rc;

	if (vault_init(err) != GR_OK)
		return GR_EFAIL;
	if ((rc = prepare_dir(err)) != GR_OK)
		return rc;
	if (old == VAULT_KEYFILE && mode == VAULT_KEYFILE)
		return gr_fail(err, GR_EUSAGE, "the credential store already uses the key file");
	if (old == VAULT_NONE && vault_exists())
		return gr_fail(err, GR_ESTATE, "the credential store was not unsealed");
	memcpy(old_salt, v->salt, SALT_LEN);
	v->key = NULL;
	if ((rc = setup_key(v, o, mode, err)) != GR_OK)
		goto restore;
	if ((rc = seal_write(v, err)) != GR_OK) {
		vault_reset_key(v);
		goto restore;
	}
	if (old_key != NULL)
		sodium_free(old_key);
	if (old == VAULT_KEYFILE && v->mode == VAULT_PASSPHRASE) {
		unlink(vault_keyfile_path());
		fsync_dir(paths_config_dir());
	}
	return GR_OK;
restore:
	v->key = old_key;
	v->mode = old;
	v->opslimit = old_ops;
	v->memlimit = old_mem;
	memcpy(v->salt, old_salt, SALT_LEN);
	return rc;
}

/* The unsealed store kept for the process: the shell asks for the passphrase once. */
static struct vault *cached;
static pthread_mutex_t lookup_lock = PTHREAD_MUTEX_INITIALIZER;

void
vault_forget(void)
{
	vault_close(cached);
	cached = NULL;
}

static void
forget_at_exit(void)
{
	vault_forget();
}

enum gr_err
vault_shared(const struct vault_opts *o, struct vault **out, struct gr_error *err)
{
	static bool registered;
	enum gr_err rc;

	*out = NULL;
	if (cached == NULL) {
		if ((rc = vault_open(&cached, o, err)) != GR_OK)
			return rc;
		if (!registered) {
			atexit(forget_at_exit);
			registered = true;
		}
	}
	*out = cached;
	return GR_OK;
}

/* vault_lookup_cfg's work, with lookup_lock held, once a store is known to be there. */
static enum gr_err
lookup_locked(const struct config *config, const char *profile, const char *provider,
    char **key_out, struct gr_error *err)
{
	struct vault_opts o = { 0 };
	struct vault *v;
	enum gr_err rc;

	o.config = config;
	o.may_prompt = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
	if ((rc = vault_shared(&o, &v, err)) != GR_OK)
		return rc;
	*key_out = vault_get(v, profile, provider);
	if (*key_out == NULL && norm_profile(profile)[0] != '\0')
		*key_out = vault_get(v, NULL, provider);
	return GR_OK;
}

/* One look at a time: the unsealed store is the process's, and a team's state asks for its
   password from the thread that connects (state_open_begin). */
enum gr_err
vault_lookup_cfg(const struct config *config, const char *profile, const char *provider,
    char **key_out, struct gr_error *err)
{
	enum gr_err rc = GR_OK;

	*key_out = NULL;
	pthread_mutex_lock(&lookup_lock);
	if (cached != NULL || vault_exists())	/* no store: no key, and no prompt */
		rc = lookup_locked(config, profile, provider, key_out, err);
	pthread_mutex_unlock(&lookup_lock);
	return rc;
}

enum gr_err
vault_lookup(const char *profile, const char *provider, char **key_out, struct gr_error *err)
{
	struct config *cfg = NULL;
	enum gr_err rc = GR_OK;
	bool have;

	*key_out = NULL;
	pthread_mutex_lock(&lookup_lock);
	have = cached != NULL || vault_exists();	/* no store: no key, and no prompt */
	/* The config names the passphrase command; load it only when the store is opened. */
	if (have && cached == NULL &&
	    (rc = config_load(&cfg, paths_config_file(), err)) == GR_OK && cfg != NULL)
		rc = config_problem(cfg, err);
	if (have && rc == GR_OK)
		rc = lookup_locked(cfg, profile, provider, key_out, err);
	pthread_mutex_unlock(&lookup_lock);
	config_free(cfg);
	return rc;
}
