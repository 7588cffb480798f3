/*
 * Scratch directories for the C tests.
 *
 * Each test makes its directory under $TMPDIR (/tmp when unset or empty), so
 * that runs sharing a machine, or a CI that points TMPDIR at a private place,
 * do not write to one shared /tmp; and removes it without a shell, so that a
 * TMPDIR with a space or a quote in it is removed, not mangled.
 */
#ifndef GPURENT_TESTS_TMPDIR_H
#define GPURENT_TESTS_TMPDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Make "$TMPDIR/gpurent-test-NAME.XXXXXX" into dir (size bytes). Returns 0,
 * or -1 with a message on stderr when it does not fit or cannot be made.
 */
static inline int
test_tmpdir_make(char *dir, size_t size, const char *name)
{
	const char *base = getenv("TMPDIR");
	int n;

	if (base == NULL || base[0] == '\0')
		base = "/tmp";
	n = snprintf(dir, size, "%s/gpurent-test-%s.XXXXXX", base, name);
	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "test_tmpdir_make: %s/gpurent-test-%s.XXXXXX is too long\n",
		    base, name);
		return -1;
	}
	if (mkdtemp(dir) == NULL) {
		perror(dir);
		return -1;
	}
	return 0;
}

static inline int
test_tmpdir_remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	if (remove(path) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

/*
 * Remove dir and everything under it, not following symbolic links. Returns 0,
 * or -1 with a message on stderr. An empty dir (never made) is left alone.
 */
static inline int
test_tmpdir_remove(const char *dir)
{
	if (dir == NULL || dir[0] == '\0')
		return 0;
	return nftw(dir, test_tmpdir_remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

#endif
