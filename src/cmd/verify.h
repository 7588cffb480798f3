/*
 * verify.h - what verify and launch --verify share.
 */
#ifndef GPURENT_CMD_VERIFY_H
#define GPURENT_CMD_VERIFY_H

#include <stdio.h>

#include "gpurent/cmd.h"
#include "gpurent/output.h"

/*
 * Compare instance id's machine (over ssh) with what it was rented as and print the checks
 * to fp in the format of o. Returns 0 when all match, EXIT_MISMATCH when one does not, or
 * the status of the error that kept it from looking (reported on stderr).
 */
int verify_instance(struct cmd_ctx *c, const char *id, FILE *fp, const struct out_opts *o);

#endif
