/*
 * sim_serve.h - `gpurent sim serve`, called by src/cmd/sim.c with argv[0] == "serve".
 */
#ifndef GPURENT_CMD_SIM_SERVE_H
#define GPURENT_CMD_SIM_SERVE_H

#include "gpurent/cmd.h"

/* Parse serve's own options and serve until SIGINT or SIGTERM; returns the exit status. */
int cmd_sim_serve(struct cmd_ctx *c, int argc, char **argv);

/* The usage text of `sim serve`, for the sim command's help. */
extern const char cmd_sim_serve_usage[];

#endif
