/*
 * test-vault.c - the sealed credential store: round trips, wrong passphrase, tampering,
 * permissions, a crash before the rename, rekeying, passphrase commands and lookups.
 *
 * Every case runs in a fresh temporary GPURENT_HOME with cheap argon2id limits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../tmpdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpurent/config.h"
#include "gpurent/error.h"
#include "gpurent/paths.h"
#include "gpurent/atomic.h"
#include "gpurent/vault.h"

static char home[256];

static int
setup(void **state)
{
	(void)state;
	if (test_tmpdir_make(home, sizeof(home), "vault") != 0)
		return -1;
	setenv("GPURENT_HOME", home, 1);
	unsetenv("GPURENT_PASSPHRASE");
	paths_reset();
	vault_forget();
	vault_test_kdf(1, 8192);
	atomic_test_before_rename = NULL;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	vault_forget();
	chmod(home, 0700);
	return test_tmpdir_remove(home);
}

static unsigned char *
slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf;
	long len;

	if (fp == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)len + 1);
	*n = fread(buf, 1, (size_t)len, fp);
	fclose(fp);
	return buf;
}

static void
spit(const char *path, const unsigned char *buf, size_t n)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
}

static bool
contains(const unsigned char *buf, size_t n, const char *s)
{
	size_t l = strlen(s);

	for (size_t i = 0; i + l <= n; i++)
		if (memcmp(buf + i, s, l) == 0)
			return true;
	return false;
}

static mode_t
mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* Create a store with two keys in the given mode. */
static void
make_store(enum vault_mode mode)
{
	struct vault_opts o = { .create_mode = mode };
	struct gr_error err = { 0 };
	struct vault *v;

	assert_int_equal(vault_open(&v, &o, &err), GR_OK);
	assert_int_equal(vault_count(v), 0);
	assert_int_equal(vault_set(v, NULL, "vast", "vast-key-1234", &err), GR_OK);
	assert_int_equal(vault_set(v, "work", "runpod", "rp key with spaces", &err), GR_OK);
	assert_int_equal(vault_save(v, &o, &err), GR_OK);
	if (mode != VAULT_NONE)
		assert_int_equal(vault_get_mode(v), mode);
	vault_close(v);
}

static void
expect_keys(const struct vault_opts *o)
{
	struct gr_error err = { 0 };
	struct vault *v;
	char *k;

	assert_int_equal(vault_open(&v, o, &err), GR_OK);
	assert_int_equal(vault_count(v), 2);
	k = vault_get(v, "default", "vast");
	assert_non_null(k);
	assert_string_equal(k, "vast-key-1234");
	vault_key_free(k);
	k = vault_get(v, "work", "runpod");
	assert_non_null(k);
	assert_string_equal(k, "rp key with spaces");
	vault_key_free(k);
	assert_null(vault_get(v, "work", "vast"));
	assert_null(vault_get(v, NULL, "lambda"));
	vault_close(v);
}

static void
test_roundtrip_keyfile(void **state)
{
	(void)state;
	make_store(VAULT_KEYFILE);
	assert_int_equal(mode_of(vault_path()), 0600);
	assert_int_equal(mode_of(vault_keyfile_path()), 0600);
	assert_int_equal(mode_of(home), 0700);
	expect_keys(NULL);
}

static void
test_roundtrip_passphrase(void **state)
{
	struct vault_opts o = { 0 };
	size_t n;
	unsigned char *buf;

	(void)state;
	setenv("GPURENT_PASSPHRASE", "correct horse battery staple", 1);
	make_store(VAULT_PASSPHRASE);
	assert_int_equal(mode_of(vault_path()), 0600);
	assert_int_equal(access(vault_keyfile_path(), F_OK), -1);
	expect_keys(&o);
	/* Neither the keys nor the passphrase are in the file in the clear. */
	buf = slurp(vault_path(), &n);
	assert_non_null(buf);
	assert_false(contains(buf, n, "vast-key-1234"));
	assert_false(contains(buf, n, "correct horse"));
	assert_false(contains(buf, n, "runpod"));
	free(buf);
}

static void
test_auto_mode_without_terminal(void **state)
{
	struct vault_opts o = { .may_prompt = false };

	(void)state;
	/* No passphrase to be had and no prompt allowed: the key file is used. */
	make_store(VAULT_NONE);
	assert_int_equal(mode_of(vault_keyfile_path()), 0600);
	expect_keys(&o);
	/* With a passphrase in the environment a new store uses it. */
	teardown(NULL);
	setup(NULL);
	setenv("GPURENT_PASSPHRASE", "pw", 1);
	make_store(VAULT_NONE);
	assert_int_equal(access(vault_keyfile_path(), F_OK), -1);
	expect_keys(&o);
}

static void
test_wrong_passphrase(void **state)
{
	struct gr_error err = { 0 };
	struct vault *v = NULL;
	unsigned char *before, *after;
	size_t n1, n2;

	(void)state;
	setenv("GPURENT_PASSPHRASE", "right", 1);
	make_store(VAULT_PASSPHRASE);
	before = slurp(vault_path(), &n1);
	setenv("GPURENT_PASSPHRASE", "wrong", 1);
	assert_int_equal(vault_open(&v, NULL, &err), GR_EAUTH);
	assert_null(v);
	assert_non_null(strstr(err.msg, "wrong passphrase"));
	/* No passphrase at all and no terminal: a clear error, not a prompt. */
	unsetenv("GPURENT_PASSPHRASE");
	gr_error_clear(&err);
	assert_int_equal(vault_open(&v, NULL, &err), GR_EAUTH);
	assert_non_null(strstr(err.msg, "GPURENT_PASSPHRASE"));
	after = slurp(vault_path(), &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(before, after, n1);
	free(before);
	free(after);
}

/* Flip each byte of a key-file store in turn: no change may go unnoticed. */
static void
test_tamper_every_byte(void **state)
{
	struct gr_error err;
	struct vault *v;
	unsigned char *orig, *buf;
	size_t n;

	(void)state;
	make_store(VAULT_KEYFILE);
	orig = slurp(vault_path(), &n);
	buf = malloc(n);
	for (size_t i = 0; i < n; i++) {
		memcpy(buf, orig, n);
		buf[i] ^= 0x01;
		spit(vault_path(), buf, n);
		gr_error_clear(&err);
		v = NULL;
		assert_int_not_equal(vault_open(&v, NULL, &err), GR_OK);
		assert_null(v);
		assert_true(err.code == GR_ESTATE || err.code == GR_EAUTH);
	}
	/* Truncated and extended files too. */
	spit(vault_path(), orig, n - 1);
	gr_error_clear(&err);
	assert_int_not_equal(vault_open(&v, NULL, &err), GR_OK);
	spit(vault_path(), orig, n);
	expect_keys(NULL);
	free(buf);
	free(orig);
}

static void
test_tamper_passphrase_store(void **state)
{
	struct gr_error err = { 0 };
	struct vault *v = NULL;
	unsigned char *buf;
	size_t n;

	(void)state;
	setenv("GPURENT_PASSPHRASE", "pw", 1);
	make_store(VAULT_PASSPHRASE);
	buf = slurp(vault_path(), &n);
	buf[n - 20] ^= 0x80;		/* one byte of the ciphertext */
	spit(vault_path(), buf, n);
	assert_int_equal(vault_open(&v, NULL, &err), GR_ESTATE);
	assert_non_null(strstr(err.msg, "tampered"));
	/* A tampered header is caught as well (the salt here: it reads as a wrong key). */
	buf[n - 20] ^= 0x80;
	buf[40] ^= 0x01;
	spit(vault_path(), buf, n);
	gr_error_clear(&err);
	assert_int_not_equal(vault_open(&v, NULL, &err), GR_OK);
	/* Absurd KDF limits are refused before any work is done. */
	buf[40] ^= 0x01;
	buf[31] = 0x7f;
	spit(vault_path(), buf, n);
	gr_error_clear(&err);
	assert_int_equal(vault_open(&v, NULL, &err), GR_ESTATE);
	free(buf);
}

static void
test_permissions(void **state)
{
	struct vault_opts o = { 0 };
	struct gr_error err = { 0 };
	struct vault *v = NULL;
	unsigned char *before, *after;
	size_t n1, n2;

	(void)state;
	make_store(VAULT_KEYFILE);
	before = slurp(vault_path(), &n1);

	chmod(vault_path(), 0644);
	assert_int_equal(vault_open(&v, NULL, &err), GR_ESTATE);
	assert_non_null(strstr(err.msg, "chmod 600"));
	chmod(vault_path(), 0640);
	gr_error_clear(&err);
	assert_int_equal(vault_open(&v, NULL, &err), GR_ESTATE);
	chmod(vault_path(), 0600);

	chmod(vault_keyfile_path(), 0604);
	gr_error_clear(&err);
	assert_int_equal(vault_open(&v, NULL, &err), GR_ESTATE);
	chmod(vault_keyfile_path(), 0600);

	chmod(home, 0755);
	gr_error_clear(&err);
	assert_int_equal(vault_open(&v, NULL, &err), GR_ESTATE);
	assert_non_null(strstr(err.msg, "chmod 700"));
	chmod(home, 0700);

	/* A store opened while all was well is not written into an open directory. */
	gr_error_clear(&err);
	assert_int_equal(vault_open(&v, NULL, &err), GR_OK);
	assert_int_equal(vault_set(v, NULL, "lambda", "l", &err), GR_OK);
	chmod(home, 0770);
	assert_int_equal(vault_save(v, &o, &err), GR_ESTATE);
	chmod(home, 0700);
	vault_close(v);

	after = slurp(vault_path(), &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(before, after, n1);
	free(before);
	free(after);
	expect_keys(NULL);
}

static void
test_symlink_refused(void **state)
{
	struct gr_error err = { 0 };
	struct vault *v = NULL;
	char target[512];

	(void)state;
	make_store(VAULT_KEYFILE);
	snprintf(target, sizeof(target), "%s/elsewhere", home);
	assert_int_equal(rename(vault_path(), target), 0);
	assert_int_equal(symlink(target, vault_path()), 0);
	assert_int_equal(vault_open(&v, NULL, &err), GR_ESTATE);
	assert_non_null(strstr(err.msg, "symbolic link"));
}

static int
fail_rename(const char *tmp)
{
	(void)tmp;
	return -1;
}

static int
crash_before_rename(const char *tmp)
{
	(void)tmp;
	_exit(9);	/* the process dies with the new file written but not renamed */
}

static size_t
count_tmp_files(void)
{
	DIR *d = opendir(home);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (strstr(de->d_name, ".tmp.") != NULL)
			n++;
	closedir(d);
	return n;
}

static void
test_crash_before_rename(void **state)
{
	struct vault_opts o = { 0 };
	struct gr_error err = { 0 };
	struct vault *v;
	int status;
	pid_t pid;

	(void)state;
	setenv("GPURENT_PASSPHRASE", "pw", 1);
	make_store(VAULT_PASSPHRASE);

	/* A failed write leaves the store and no temporary file. */
	assert_int_equal(vault_open(&v, &o, &err), GR_OK);
	assert_int_equal(vault_set(v, NULL, "vast", "NEW", &err), GR_OK);
	atomic_test_before_rename = fail_rename;
	assert_int_equal(vault_save(v, &o, &err), GR_ESTATE);
	atomic_test_before_rename = NULL;
	vault_close(v);
	assert_int_equal(count_tmp_files(), 0);
	expect_keys(&o);

	/* A crash between write and rename leaves the old store readable. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct gr_error e2 = { 0 };

		atomic_test_before_rename = crash_before_rename;
		if (vault_open(&v, &o, &e2) != GR_OK)
			_exit(1);
		vault_remove(v, "work", "runpod");
		vault_set(v, NULL, "vast", "NEW", &e2);
		vault_save(v, &o, &e2);
		_exit(2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 9);
	assert_int_equal(count_tmp_files(), 1);
	expect_keys(&o);

	/* And the next save still works beside the leftover. */
	gr_error_clear(&err);
	assert_int_equal(vault_open(&v, &o, &err), GR_OK);
	assert_int_equal(vault_set(v, NULL, "lambda", "lam", &err), GR_OK);
	assert_int_equal(vault_save(v, &o, &err), GR_OK);
	vault_close(v);
	assert_int_equal(vault_open(&v, &o, &err), GR_OK);
	assert_int_equal(vault_count(v), 3);
	vault_close(v);
}

static void
test_remove_and_replace(void **state)
{
	struct gr_error err = { 0 };
	struct vault *v;
	char *k;

	(void)state;
	make_store(VAULT_KEYFILE);
	assert_int_equal(vault_open(&v, NULL, &err), GR_OK);
	assert_true(vault_remove(v, "default", "vast"));
	assert_false(vault_remove(v, "default", "vast"));
	assert_int_equal(vault_set(v, "work", "runpod", "second", &err), GR_OK);
	assert_int_equal(vault_count(v), 1);
	assert_int_equal(vault_save(v, NULL, &err), GR_OK);
	vault_close(v);
	assert_int_equal(vault_open(&v, NULL, &err), GR_OK);
	assert_int_equal(vault_count(v), 1);
	k = vault_get(v, "work", "runpod");
	assert_string_equal(k, "second");
	vault_key_free(k);
	assert_int_equal(vault_set(v, NULL, "x", "", &err), GR_EUSAGE);
	vault_close(v);
}

static void
test_rekey(void **state)
{
	struct vault_opts o = { 0 };
	struct gr_error err = { 0 };
	struct vault *v;

	(void)state;
	make_store(VAULT_KEYFILE);
	assert_int_equal(vault_open(&v, &o, &err), GR_OK);
	setenv("GPURENT_PASSPHRASE", "new pass", 1);
	assert_int_equal(vault_rekey(v, &o, VAULT_PASSPHRASE, &err), GR_OK);
	vault_close(v);
	assert_int_equal(access(vault_keyfile_path(), F_OK), -1);
	expect_keys(&o);
	setenv("GPURENT_PASSPHRASE", "other", 1);
	assert_int_equal(vault_open(&v, &o, &err), GR_EAUTH);

	setenv("GPURENT_PASSPHRASE", "new pass", 1);
	gr_error_clear(&err);
	assert_int_equal(vault_open(&v, &o, &err), GR_OK);
	assert_int_equal(vault_rekey(v, &o, VAULT_KEYFILE, &err), GR_OK);
	vault_close(v);
	unsetenv("GPURENT_PASSPHRASE");
	assert_int_equal(mode_of(vault_keyfile_path()), 0600);
	expect_keys(&o);
}

static void
test_passphrase_command(void **state)
{
	struct gr_error err = { 0 };
	struct config *cfg = NULL;
	struct vault_opts o = { 0 };
	char path[512], *out;
	FILE *fp;

	(void)state;
	assert_int_equal(vault_run_command("printf ' s3cret \\nsecond line\\n'", &out, &err), GR_OK);
	assert_string_equal(out, "s3cret");
	vault_key_free(out);
	assert_int_equal(vault_run_command("exit 3", &out, &err), GR_EAUTH);
	assert_non_null(strstr(err.msg, "exit status 3"));
	gr_error_clear(&err);
	assert_int_equal(vault_run_command("true", &out, &err), GR_EAUTH);

	snprintf(path, sizeof(path), "%s/config", home);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("vault.passphrase_command = echo from-the-manager\n", fp);
	fclose(fp);
	gr_error_clear(&err);
	assert_int_equal(config_load(&cfg, path, &err), GR_OK);
	o.config = cfg;
	o.create_mode = VAULT_NONE;
	{
		struct vault *v;

		assert_int_equal(vault_open(&v, &o, &err), GR_OK);
		assert_int_equal(vault_set(v, NULL, "vast", "k", &err), GR_OK);
		assert_int_equal(vault_save(v, &o, &err), GR_OK);
		assert_int_equal(vault_get_mode(v), VAULT_PASSPHRASE);
		vault_close(v);
	}
	/* The same passphrase through the environment opens it. */
	setenv("GPURENT_PASSPHRASE", "from-the-manager", 1);
	{
		struct vault *v;

		assert_int_equal(vault_open(&v, NULL, &err), GR_OK);
		vault_close(v);
	}
	unsetenv("GPURENT_PASSPHRASE");
	/* vault_lookup reads the command from the config file itself. */
	assert_int_equal(vault_lookup(NULL, "vast", &out, &err), GR_OK);
	assert_non_null(out);
	assert_string_equal(out, "k");
	vault_key_free(out);
	config_free(cfg);
}

static void
test_lookup(void **state)
{
	struct gr_error err = { 0 };
	char *k = (char *)1;

	(void)state;
	/* No store: no key, no error, no prompt, and no file created. */
	assert_int_equal(vault_lookup("work", "vast", &k, &err), GR_OK);
	assert_null(k);
	assert_false(vault_exists());

	make_store(VAULT_KEYFILE);
	assert_int_equal(vault_lookup("work", "runpod", &k, &err), GR_OK);
	assert_string_equal(k, "rp key with spaces");
	vault_key_free(k);
	/* The profile has no vast key: the top-level one is used. */
	assert_int_equal(vault_lookup("work", "vast", &k, &err), GR_OK);
	assert_string_equal(k, "vast-key-1234");
	vault_key_free(k);
	/* The top level does not see a profile's key. */
	assert_int_equal(vault_lookup(NULL, "runpod", &k, &err), GR_OK);
	assert_null(k);
	vault_forget();

	/* A broken store is an error for the lookup too. */
	chmod(vault_path(), 0644);
	assert_int_equal(vault_lookup(NULL, "vast", &k, &err), GR_ESTATE);
	assert_null(k);
}

static void
test_read_secret_stdin(void **state)
{
	struct gr_error err = { 0 };
	int pfd[2], saved;
	char *k;

	(void)state;
	saved = dup(STDIN_FILENO);
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(write(pfd[1], "  abc-def\t\r\nignored\n", 20), 20);
	close(pfd[1]);
	dup2(pfd[0], STDIN_FILENO);
	close(pfd[0]);
	assert_int_equal(vault_read_secret(NULL, true, &k, &err), GR_OK);
	assert_string_equal(k, "abc-def");
	vault_key_free(k);

	assert_int_equal(pipe(pfd), 0);
	close(pfd[1]);
	dup2(pfd[0], STDIN_FILENO);
	close(pfd[0]);
	assert_int_equal(vault_read_secret(NULL, true, &k, &err), GR_EUSAGE);
	assert_null(k);
	dup2(saved, STDIN_FILENO);
	close(saved);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip_keyfile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_roundtrip_passphrase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auto_mode_without_terminal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_passphrase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tamper_every_byte, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tamper_passphrase_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_permissions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_before_rename, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_and_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rekey, setup, teardown),
		cmocka_unit_test_setup_teardown(test_passphrase_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_secret_stdin, setup, teardown),
	};

	return cmocka_run_group_tests_name("vault", tests, NULL, NULL);
}
