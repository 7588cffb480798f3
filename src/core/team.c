/*
 * team.c - who acts, and for which team: team.user and team.name of the profile.
 */
#include "gpurent/team.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/config.h"
#include "gpurent/util.h"

bool
team_name_valid(const char *s)
{
	size_t i;

	if (s == NULL || s[0] == '\0' || strlen(s) > TEAM_NAME_MAX)
		return false;
	for (i = 0; s[i] != '\0'; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return false;
	return true;
}

const char *
team_user(const struct config *cfg, char *buf, size_t n)
{
	const char *u = cfg != NULL ? config_get(cfg, "team.user") : NULL;
	struct passwd *pw;

	if (!team_name_valid(u)) {
		pw = getpwuid(geteuid());
		u = pw != NULL ? pw->pw_name : getenv("USER");
	}
	strlcpy_(buf, team_name_valid(u) ? u : "unknown", n);
	return buf;
}

const char *
team_name(const struct config *cfg)
{
	const char *t = cfg != NULL ? config_get(cfg, "team.name") : NULL;

	return team_name_valid(t) ? t : NULL;
}

bool
team_profile(const struct config *cfg)
{
	return team_name(cfg) != NULL;
}
