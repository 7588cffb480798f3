/*
 * team_keys.c - the provider keys of a team's watcher (issue 31): the team key sealed to
 * this machine's watcher key, opened with the secret half in this machine's vault. A
 * machine without one, or a provider without one, gets no key at all: never a person's.
 */
#include <stdlib.h>

#include "gpurent/session.h"
#include "gpurent/team.h"
#include "gpurent/team_keys.h"
#include "gpurent/vault.h"

enum gr_err
session_team_key(const struct config *cfg, const char *profile, struct state *st,
    const char *provider, char **key_out, struct gr_error *err)
{
	const char *team = team_name(cfg);
	char *secret = NULL, public_hex[VAULT_TEAM_PUBLIC_HEX];
	unsigned char *sealed = NULL;
	size_t n = 0;
	enum gr_err rc;

	*key_out = NULL;
	if ((rc = vault_lookup_cfg(cfg, profile, VAULT_TEAM_WATCHER, &secret, err)) != GR_OK)
		return rc;
	if (secret == NULL)
		return gr_fail(err, GR_EAUTH, "this machine holds no watcher key of team '%s', so "
		    "its watcher acts on none of the team's instances of '%s' (on the watcher's "
		    "machine: 'gpurent login --team-watcher', then 'gpurent login --team %s')",
		    team, provider, provider);
	if (!vault_team_public(secret, public_hex))
		rc = gr_fail(err, GR_ESTATE, "the watcher key in this machine's credential store is "
		    "damaged: make a new one with 'gpurent login --team-watcher'");
	else if ((rc = team_key_get(st, team, provider, public_hex, &sealed, &n, err)) == GR_OK) {
		if (sealed == NULL)
			rc = gr_fail(err, GR_EAUTH, "no team key for '%s' in team '%s': the watcher "
			    "leaves the team's instances there alone rather than use a personal key "
			    "(store one with 'gpurent login --team %s')", provider, team, provider);
		else
			rc = vault_team_open(secret, sealed, n, key_out, err);
	}
	vault_key_free(secret);
	free(sealed);
	return rc;
}
