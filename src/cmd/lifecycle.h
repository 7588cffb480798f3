/*
 * lifecycle.h - what stop, start and destroy share.
 */
#ifndef GPURENT_CMD_LIFECYCLE_H
#define GPURENT_CMD_LIFECYCLE_H

#include "gpurent/cmd.h"

enum lifecycle_op { LC_STOP, LC_START, LC_DESTROY };

/* Parse the command line and apply op to every id; used by stop.c, start.c, destroy.c. */
int lifecycle_run(struct cmd_ctx *c, int argc, char **argv, enum lifecycle_op op);

extern const struct cmd_opt stop_opts[];
extern const struct cmd_opt start_opts[];
extern const struct cmd_opt destroy_opts[];

#endif
