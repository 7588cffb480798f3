/*
 * team_keys.h - a team's watcher keys and the team keys sealed to them (src/store/team_keys.c,
 * tables team_watchers and team_keys; issue 31). The store keeps only public halves and
 * sealed bytes: the secret half of each watcher's key pair is in that machine's vault, and
 * sealing and opening are the vault's (vault.h, vault_team_*).
 */
#ifndef GPURENT_TEAM_KEYS_H
#define GPURENT_TEAM_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct state;

/* A watcher's public half (hex) published for team, from host by user; again: renewed. */
enum gr_err team_watcher_add(struct state *st, const char *team, const char *public_hex,
    const char *host, const char *user, int64_t at, struct gr_error *err);
/* Each public half (hex) published for team, oldest first, with the host it came from. */
enum gr_err team_watchers_each(struct state *st, const char *team,
    void (*fn)(const char *public_hex, const char *host, void *ctx), void *ctx,
    struct gr_error *err);
/* The key of provider for team, sealed to the watcher key public_hex, stored (replaced). */
enum gr_err team_key_put(struct state *st, const char *team, const char *provider,
    const char *public_hex, const unsigned char *sealed, size_t n, const char *user,
    int64_t at, struct gr_error *err);
/* That sealed key: *out malloc'd, *n bytes; *out NULL when there is none. */
enum gr_err team_key_get(struct state *st, const char *team, const char *provider,
    const char *public_hex, unsigned char **out, size_t *n, struct gr_error *err);

#endif
