/*
 * metrics_history.h - the history half of `gpurent metrics` (not a public contract).
 */
#ifndef GPURENT_CMD_METRICS_HISTORY_H
#define GPURENT_CMD_METRICS_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "gpurent/cmd.h"

/* The step that --step auto picks for a range (0: raw samples). */
int metrics_auto_step(int64_t since, int64_t until, int64_t now);

/*
 * Print the history of instance id over [since, until) (until 0: up to now) in buckets
 * of step seconds (0: raw samples; -1: automatic). Returns the exit status.
 */
int metrics_history(struct cmd_ctx *c, const char *id, int64_t since, int64_t until, int step);

#endif
