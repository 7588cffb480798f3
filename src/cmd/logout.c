/*
 * logout.c - `gpurent logout PROVIDER...`: forget stored API keys of the selected profile;
 * `gpurent logout --all`: every key of the profile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/cmd.h"
#include "gpurent/i18n.h"
#include "gpurent/session.h"
#include "gpurent/util.h"
#include "gpurent/vault.h"
#include "common.h"
#include "login_int.h"

enum { O_ALL = 1 };

static const struct cmd_opt logout_opts[] = {
	{ "all", 'a', NULL, N_("forget every key of the selected profile"), O_ALL, CPL_NONE, 0 },
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

static int
logout_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct collect col = { 0 };
	struct vault *v;
	bool all = false;
	const char *profile, *var;
	size_t removed = 0;
	int npos = 0, rc, i;

	if ((rc = cmd_parse(c, argc, argv, cmd_flag, &all, &npos)) != 0)
		return rc;
	if (npos < 0)
		return 0;
	if (!all && npos == 0)
		return cmd_usage_error(c, "which provider? (or --all)");
	if (all && npos > 0)
		return cmd_usage_error(c, "--all takes no provider");
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
	.args = "PROVIDER...",
	.summary = N_("forget stored API keys"),
	.help =
	    N_("Removes the stored API key of each PROVIDER from the selected profile (--profile,\n"
	    "GPURENT_PROFILE; 'default' otherwise), or every key of the profile with --all. Keys\n"
	    "in the environment are not touched. Nothing is removed when one of the named\n"
	    "providers has no stored key."),
	.opts = logout_opts,
	.complete_args = CPL_PROVIDER,
	.flags = 0,
	.run = logout_run,
};
