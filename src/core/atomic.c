/*
 * atomic.c - writing a file whole or not at all (a temporary file renamed over it).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpurent/atomic.h"
#include "gpurent/util.h"

int (*atomic_test_before_rename)(const char *tmp_path);

enum gr_err
atomic_write(const char *path, const void *data, size_t len, mode_t mode, struct gr_error *err)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	int fd, dfd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp))
		return gr_fail(err, GR_ESTATE, "path too long: '%s'", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return gr_fail(err, GR_ESTATE, "cannot write '%s': %s", path, strerror(errno));
	/* A passphrase command run later must not inherit it. */
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (fchmod(fd, mode) != 0)
		goto fail;
	if (!write_all(fd, data, len) || fsync(fd) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (atomic_test_before_rename != NULL && atomic_test_before_rename(tmp) != 0) {
		errno = EIO;
		goto fail;
	}
	if (rename(tmp, path) != 0)
		goto fail;
	/* The rename is durable only once the directory is synced. */
	strlcpy_(dir, path, sizeof(dir));
	dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return GR_OK;
fail:
	gr_fail(err, GR_ESTATE, "cannot write '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return GR_ESTATE;
}
