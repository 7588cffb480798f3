/*
 * team.h - who acts, and for which team (issue 31).
 *
 * A profile with team.name set is a team profile: its state is shared (state.url), and what
 * a person causes there carries their name and the team's. Without team.name, gpurent is
 * one person's tool and these names are only recorded.
 */
#ifndef GPURENT_TEAM_H
#define GPURENT_TEAM_H

#include <stdbool.h>
#include <stddef.h>

struct config;

enum { TEAM_NAME_MAX = 64 };	/* longest user or team name, without its NUL */

/*
 * The person acting: team.user, else the login name (the password database, then $USER),
 * else "unknown". Written into buf (TEAM_NAME_MAX + 1 bytes or more); returns buf.
 */
const char *team_user(const struct config *cfg, char *buf, size_t n);
/* The team of a team profile (team.name), or NULL in a personal profile. */
const char *team_name(const struct config *cfg);
/* True in a team profile. */
bool team_profile(const struct config *cfg);
/* A name fit for a team or a user: 1 to TEAM_NAME_MAX printable characters, no space. */
bool team_name_valid(const char *s);

#endif
