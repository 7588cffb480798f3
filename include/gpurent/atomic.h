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

#endif
