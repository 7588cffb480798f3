/*
 * atomic.h - replace a file so that a crash leaves either the old or the new contents.
 */
#ifndef GPURENT_ATOMIC_H
#define GPURENT_ATOMIC_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"

/* Write to a temporary file beside path, fsync, rename over path, fsync the directory. */
enum gr_err atomic_write(const char *path, const void *data, size_t len, mode_t mode,
    struct gr_error *err);

/*
 * For tests: when set, called with the temporary file's path after it is written and synced
 * and before the rename; a non-zero return fails the write as if the disk had.
 */
extern int (*atomic_test_before_rename)(const char *tmp_path);

#endif
