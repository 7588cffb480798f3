/*
 * login_int.h - what login.c and logout.c share.
 */
#ifndef GPURENT_LOGIN_INT_H
#define GPURENT_LOGIN_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpurent/error.h"

struct cmd_ctx;
struct session;
struct vault;

/* The name under which the exporter's bearer token is stored (not a provider). */
#define LOGIN_EXPORTER "exporter"

/* The i-th positional argument after cmd_parse. */
#define LOGIN_POS(argv, i) ((argv)[(i)])

/* "GPURENT_VAST_API_KEY" and "VAST_API_KEY" for "vast". */
void login_env_names(const char *provider, char *gpurent_var, char *plain_var, size_t n);
/* The name of the environment variable that holds a key for provider, or NULL. */
const char *login_env_key(const char *provider);

/* The process-wide store (vault_shared), with the session's config. */
enum gr_err login_open_store(struct session *s, bool may_prompt, struct vault **out,
    struct gr_error *err);
/* Save it; on failure drop it from memory so memory and file agree. */
enum gr_err login_save_store(struct session *s, struct vault *v, struct gr_error *err);

/* The team of a team profile into *team: 0, else the status of the usage error that says
   option needs one. */
int login_team_of(struct cmd_ctx *c, const char *option, const char **team);

#endif
