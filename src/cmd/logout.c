/*
 * logout.c - `gpurent logout PROVIDER...`: forget stored API keys of the selected profile;
 * `gpurent logout --all`: every key of the profile; in a team profile, `--team PROVIDER`:
 * the team's key of a provider, `--team-watcher`: this machine's watcher key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/cmd.h"
#include "gpurent/i18n.h"
#include "gpurent/session.h"
#include "gpurent/state.h"
#include "gpurent/team.h"
#include "gpurent/team_keys.h"
#include "gpurent/util.h"
#include "gpurent/vault.h"
#include "common.h"
#include "login_int.h"

struct logout_args {
	bool all;
	bool team;
	bool team_watcher;
};

static const struct cmd_opt logout_opts[] = {
	{ "all", 'a', NULL, N_("forget every key of the selected profile"),
	    OPT_AT(struct logout_args, all), CPL_NONE, OPT_TRUE },
	{ "team", 0, NULL, N_("remove the team's key of each PROVIDER from the shared state (a "
	    "team profile)"), OPT_AT(struct logout_args, team), CPL_NONE, OPT_TRUE },
	{ "team-watcher", 0, NULL, N_("stop being a watcher of the team: withdraw this machine's "
	    "watcher key"), OPT_AT(struct logout_args, team_watcher), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

struct collect {
	const char *profile;
	char (*names)[72];
	size_t n;
};

static void
collect_profile(const char *profile, const char *provider, int64_t stored, void *ctx)
{
	struct collect *col = ctx;

	(void)stored;
	if (strcmp(profile, col->profile) != 0)
		return;
	col->names = xreallocarray(col->names, col->n + 1, sizeof(*col->names));
	strlcpy_(col->names[col->n++], provider, sizeof(*col->names));
}

/* `logout --team PROVIDER...`: every sealed copy of each one's team key; all or none. */
static int
logout_team(struct cmd_ctx *c, char **argv, int npos)
{
	struct gr_error err = { 0 };
	const char *team;
	struct state *st;
	size_t *removed;
	int i;

	if ((i = login_team_of(c, "--team", &team)) != 0)
		return i;
	if (session_state(c->s, &st, &err) != GR_OK || state_begin(st, &err) != GR_OK)
		return cmd_error(c, &err);
	removed = xcalloc((size_t)npos, sizeof(*removed));
	for (i = 0; i < npos; i++) {
		if (team_key_remove(st, team, LOGIN_POS(argv, i), &removed[i], &err) != GR_OK)
			break;
		if (removed[i] == 0) {
			gr_fail(&err, GR_ENOTFOUND, "team '%s' has no team key for '%s'", team,
			    LOGIN_POS(argv, i));
			break;
		}
	}
	if (i < npos || state_commit(st, &err) != GR_OK) {
		if (i < npos)
			state_rollback(st);
		free(removed);
		return cmd_error(c, &err);
	}
	for (i = 0; i < npos; i++)
		cmd_warn("removed the team key for '%s' of team '%s' (sealed for %zu watcher "
		    "key(s)): the team's watcher leaves the team's instances there alone until one "
		    "is stored again", LOGIN_POS(argv, i), team, removed[i]);
	free(removed);
	return 0;
}

/*
 * `logout --team-watcher`: this machine's watcher key withdrawn from the team's state, with
 * the team keys sealed to it (nothing else could open them), and its secret half forgotten.
 */
static int
logout_team_watcher(struct cmd_ctx *c)
{
	char public_hex[VAULT_TEAM_PUBLIC_HEX];
	struct gr_error err = { 0 };
	const char *team;
	struct state *st;
	struct vault *v;
	char *secret, *sealed = NULL;
	bool known;
	int rc;

	if ((rc = login_team_of(c, "--team-watcher", &team)) != 0)
		return rc;
	if (!vault_exists() || login_open_store(c->s, true, &v, &err) != GR_OK) {
		if (err.code == GR_OK)
			gr_fail(&err, GR_ENOTFOUND, "this machine holds no watcher key");
		return cmd_error(c, &err);
	}
	if ((secret = vault_get(v, c->s->profile, VAULT_TEAM_WATCHER)) == NULL) {
		gr_fail(&err, GR_ENOTFOUND, "this machine holds no watcher key in profile '%s'",
		    c->s->profile != NULL && c->s->profile[0] != '\0' ? c->s->profile :
		    VAULT_DEFAULT_PROFILE);
		return cmd_error(c, &err);
	}
	known = vault_team_public(secret, public_hex);
	vault_key_free(secret);
	/* The public half first: a watcher key left published would have keys sealed to it
	   that nothing can open. A damaged secret names no public half to withdraw. */
	if (known && (session_state(c->s, &st, &err) != GR_OK ||
	    team_watcher_remove(st, team, public_hex, &sealed, &err) != GR_OK))
		return cmd_error(c, &err);
	vault_remove(v, c->s->profile, VAULT_TEAM_WATCHER);
	if (login_save_store(c->s, v, &err) != GR_OK) {
		free(sealed);
		return cmd_error(c, &err);
	}
	if (!known)
		cmd_warn("removed this machine's damaged watcher key; its public half, if the team "
		    "still lists it ('gpurent login --list'), cannot be named from here");
	else if (sealed[0] != '\0') {
		/* The providers' names come from the shared state, written by others. */
		char *shown = xmalloc(strlen(sealed) + 1);

		text_sanitize(shown, strlen(sealed) + 1, sealed);
		cmd_warn("this machine is no longer a watcher of team '%s' (key %.*s): the team "
		    "keys sealed to it (%s) can no longer be opened by it, and were removed with it",
		    team, TEAM_KEY_FINGERPRINT, public_hex, shown);
		free(shown);
	}
	else
		cmd_warn("this machine is no longer a watcher of team '%s' (key %.*s); no team key "
		    "was sealed to it", team, TEAM_KEY_FINGERPRINT, public_hex);
	free(sealed);
	return 0;
}

static int
logout_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct logout_args a = { false, false, false };
	struct gr_error err = { 0 };
	struct collect col = { 0 };
	struct vault *v;
	bool all;
	const char *profile, *var;
	size_t removed = 0;
	int npos = 0, rc, i;

	if ((rc = cmd_parse(c, argc, argv, NULL, &a, &npos)) != 0)
		return rc;
	if (npos < 0)
		return 0;
	all = a.all;
	if ((int)a.all + (int)a.team + (int)a.team_watcher > 1)
		return cmd_usage_error(c, "--all, --team and --team-watcher go alone");
	if (a.team_watcher) {
		if (npos > 0)
			return cmd_usage_error(c, "--team-watcher takes no provider");
		return logout_team_watcher(c);
	}
	if (!all && npos == 0)
		return cmd_usage_error(c, "which provider? (or --all)");
	if (all && npos > 0)
		return cmd_usage_error(c, "--all takes no provider");
	if (a.team)
		return logout_team(c, argv, npos);
	profile = c->s->profile != NULL && c->s->profile[0] != '\0' ? c->s->profile :
	    VAULT_DEFAULT_PROFILE;
	if (!vault_exists()) {
		gr_fail(&err, GR_ENOTFOUND, "no keys are stored");
		return cmd_error(c, &err);
	}
	if (login_open_store(c->s, true, &v, &err) != GR_OK)
		return cmd_error(c, &err);

	col.profile = profile;
	if (all)
		vault_each(v, collect_profile, &col);
	else {
		/* Check every name first, so a typo removes nothing. */
		for (i = 0; i < npos; i++) {
			const char *p = LOGIN_POS(argv, i);
			char *k = vault_get(v, profile, p);

			if (k == NULL) {
				free(col.names);
				gr_fail(&err, GR_ENOTFOUND, "no key stored for '%s' in profile '%s'",
				    p, profile);
				return cmd_error(c, &err);
			}
			vault_key_free(k);
			col.names = xreallocarray(col.names, col.n + 1, sizeof(*col.names));
			strlcpy_(col.names[col.n++], p, sizeof(*col.names));
		}
	}
	for (size_t j = 0; j < col.n; j++)
		if (vault_remove(v, profile, col.names[j]))
			removed++;
	if (removed > 0 && login_save_store(c->s, v, &err) != GR_OK) {
		free(col.names);
		return cmd_error(c, &err);
	}
	for (size_t j = 0; j < col.n; j++) {
		cmd_warn("removed the key for '%s' from profile '%s'", col.names[j], profile);
		if ((var = login_env_key(col.names[j])) != NULL)
			cmd_warn("%s is still set in the environment", var);
	}
	if (all && removed == 0)
		cmd_warn("profile '%s' had no stored keys", profile);
	free(col.names);
	return 0;
}

const struct command cmd_logout = {
	.name = "logout",
	.alias = NULL,
	.args = "PROVIDER... | --team PROVIDER... | --team-watcher",
	.summary = N_("forget stored API keys"),
	.help =
	    N_("Removes the stored API key of each PROVIDER from the selected profile (--profile,\n"
	    "GPURENT_PROFILE; 'default' otherwise), or every key of the profile with --all. Keys\n"
	    "in the environment are not touched. Nothing is removed when one of the named\n"
	    "providers has no stored key.\n\n"
	    "In a team profile, --team removes the team's key of each PROVIDER from the shared\n"
	    "state (every copy, whichever watcher it is sealed to), and --team-watcher makes\n"
	    "this machine stop being one of the team's watchers: its watcher key is withdrawn\n"
	    "from the shared state, with the team keys sealed to it, which nothing else could\n"
	    "open, and its secret half is removed from this machine's store. 'gpurent login\n"
	    "--list' shows both."),
	.opts = logout_opts,
	.complete_args = CPL_PROVIDER,
	.flags = 0,
	.run = logout_run,
};
