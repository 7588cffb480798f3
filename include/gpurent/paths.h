/*
 * paths.h - where gpurent keeps its files.
 *
 * GPURENT_HOME=DIR puts everything in DIR (config, credentials, state.db, history).
 * Otherwise: $XDG_CONFIG_HOME/gpurent/ (default ~/.config/gpurent/) for config and
 * credentials, $XDG_STATE_HOME/gpurent/ (default ~/.local/state/gpurent/) for state.db
 * and shell history, $XDG_DATA_HOME/gpurent/ (default ~/.local/share/gpurent/) for what
 * gpurent keeps of managed jobs (their checkpoints).
 */
#ifndef GPURENT_PATHS_H
#define GPURENT_PATHS_H

#include "error.h"

/* Directory for config files, without trailing slash. The string is static. */
const char *paths_config_dir(void);
/* Directory for the database and history. */
const char *paths_state_dir(void);
/* Directory for managed jobs' checkpoints. */
const char *paths_data_dir(void);
/* "<config_dir>/config" */
const char *paths_config_file(void);
/* "<state_dir>/state.db" */
const char *paths_state_db(void);

/* mkdir -p with mode 0700 for the last component; a clear error when it cannot. */
enum gr_err paths_mkdir(const char *dir, struct gr_error *err);

/* Forget cached paths (tests change the environment between cases). */
void paths_reset(void);

#endif
