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

/* The hex digits of its public half a watcher key is named by, in messages and listings. */
enum { TEAM_KEY_FINGERPRINT = 16 };

/* A watcher's public half (hex) published for team, from host by user; again: renewed. */
enum gr_err team_watcher_add(struct state *st, const char *team, const char *public_hex,
    const char *host, const char *user, int64_t at, struct gr_error *err);
/* A watcher key as published: its public half (hex), from which host, by whom, when. */
struct team_watcher {
	const char *public_hex, *host, *added_by;
	int64_t added_at;
};
/* Each watcher key published for team, oldest first. */
enum gr_err team_watchers_each(struct state *st, const char *team,
    void (*fn)(const struct team_watcher *w, void *ctx), void *ctx, struct gr_error *err);
/*
 * Withdraw the watcher key public_hex of team, and the team keys sealed to it, which only
 * its secret half could open; *providers (malloc'd, comma-separated, "" none) says whose.
 */
enum gr_err team_watcher_remove(struct state *st, const char *team, const char *public_hex,
    char **providers, struct gr_error *err);

/* A team key as stored: one provider's key sealed to one watcher key (never the bytes). */
struct team_key {
	const char *provider, *public_hex, *stored_by;
	int64_t stored_at;
};
/* Each team key of team, by provider, then in the order its watchers were published. */
enum gr_err team_keys_each(struct state *st, const char *team,
    void (*fn)(const struct team_key *k, void *ctx), void *ctx, struct gr_error *err);
/* Remove every sealed copy of provider's team key; *removed: how many there were. */
enum gr_err team_key_remove(struct state *st, const char *team, const char *provider,
    size_t *removed, struct gr_error *err);
/* The key of provider for team, sealed to the watcher key public_hex, stored (replaced). */
enum gr_err team_key_put(struct state *st, const char *team, const char *provider,
    const char *public_hex, const unsigned char *sealed, size_t n, const char *user,
    int64_t at, struct gr_error *err);
/* That sealed key: *out malloc'd, *n bytes; *out NULL when there is none. */
enum gr_err team_key_get(struct state *st, const char *team, const char *provider,
    const char *public_hex, unsigned char **out, size_t *n, struct gr_error *err);

#endif
