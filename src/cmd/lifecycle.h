/*
 * lifecycle.h - what stop, start and destroy share.
 */
#ifndef GPURENT_CMD_LIFECYCLE_H
#define GPURENT_CMD_LIFECYCLE_H

#include "gpurent/cmd.h"

/*
 * The run of stop, start and destroy: parse the command line and apply the command's
 * operation to every id. stop.c, start.c and destroy.c hold each one's table entry.
 */
int lifecycle_run(struct cmd_ctx *c, int argc, char **argv);
/*
 * Destroy ids as `destroy` does: without yes, refused when stdin is not a terminal, else
 * said and asked first; no waiting. Returns the exit status as for_each_id does (the
 * caller finishes the output).
 */
int lifecycle_destroy(struct cmd_ctx *c, int n, char **ids, bool yes);

extern const struct command cmd_stop, cmd_start, cmd_destroy;

extern const struct cmd_opt stop_opts[];
extern const struct cmd_opt start_opts[];
extern const struct cmd_opt destroy_opts[];

#endif
