/*
 * login.c - `gpurent login PROVIDER`: check an API key and keep it in the sealed store;
 * `gpurent login --list`: which providers of which profile have a key (never the key);
 * `gpurent login --rekey passphrase|keyfile`: reseal the store another way;
 * `gpurent login state`: the password of a team's PostgreSQL state;
 * `gpurent login --team PROVIDER`: a team key, sealed for the team's watchers, in the state;
 * `gpurent login --team-watcher`: make this machine one of them (its key pair).
 *
 * The key is read without echo from the terminal, or from stdin with --stdin; never from
 * the command line, where other users could see it in ps and it would reach shell history.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/backend.h"
#include "gpurent/cmd.h"
#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/observed.h"
#include "gpurent/output.h"
#include "gpurent/session.h"
#include "gpurent/state.h"
#include "gpurent/team.h"
#include "gpurent/team_keys.h"
#include "gpurent/util.h"
#include "gpurent/vault.h"
#include "login_int.h"

struct login_args {
	bool from_stdin;
	bool no_verify;
	bool list;
	bool team;
	bool team_watcher;
	const char *rekey;
};

static const struct cmd_opt login_opts[] = {
	{ "stdin", 0, NULL, N_("read the key from standard input, not the terminal"),
	    OPT_AT(struct login_args, from_stdin), CPL_NONE, OPT_TRUE },
	{ "no-verify", 0, NULL, N_("store the key without checking it with the provider"),
	    OPT_AT(struct login_args, no_verify), CPL_NONE, OPT_TRUE },
	{ "list", 'l', NULL, N_("list who has a key, per profile, and a team's keys (never the "
	    "keys)"),
	    OPT_AT(struct login_args, list), CPL_NONE, OPT_TRUE },
	{ "rekey", 0, "MODE", N_("reseal the store: 'passphrase' (a new one) or 'keyfile'"),
	    0, CPL_NONE, 0 },
	{ "team", 0, NULL, N_("store it as the team's key, for the team's watcher only (a team "
	    "profile)"), OPT_AT(struct login_args, team), CPL_NONE, OPT_TRUE },
	{ "team-watcher", 0, NULL, N_("make this machine a watcher of the team: a key pair whose "
	    "public half team keys are sealed to"), OPT_AT(struct login_args, team_watcher),
	    CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
login_opt(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct login_args *a = data;

	(void)id;	/* --rekey, the one option cmd_parse does not store */
	if (strcmp(arg, "passphrase") != 0 && strcmp(arg, "keyfile") != 0)
		return cmd_usage_error(c, "--rekey takes 'passphrase' or 'keyfile', not '%s'", arg);
	a->rekey = arg;
	return 0;
}

void
login_env_names(const char *provider, char *gpurent_var, char *plain_var, size_t n)
{
	char up[64];
	size_t i;

	for (i = 0; provider[i] != '\0' && i + 1 < sizeof(up); i++)
		up[i] = (char)toupper((unsigned char)provider[i]);
	up[i] = '\0';
	snprintf(gpurent_var, n, "GPURENT_%s_API_KEY", up);
	snprintf(plain_var, n, "%s_API_KEY", up);
}

const char *
login_env_key(const char *provider)
{
	static char var[96];
	char g[96], p[96];
	const char *v;

	login_env_names(provider, g, p, sizeof(g));
	if ((v = getenv(g)) != NULL && v[0] != '\0') {
		strlcpy_(var, g, sizeof(var));
		return var;
	}
	if ((v = getenv(p)) != NULL && v[0] != '\0') {
		strlcpy_(var, p, sizeof(var));
		return var;
	}
	return NULL;
}

/* How the store is opened and sealed: the session's config, asking on a terminal or not. */
static enum gr_err
store_opts(struct session *s, bool may_prompt, struct vault_opts *o, struct gr_error *err)
{
	struct config *cfg = NULL;
	enum gr_err rc;

	memset(o, 0, sizeof(*o));
	if ((rc = session_config(s, &cfg, err)) != GR_OK)
		return rc;
	o->config = cfg;
	o->may_prompt = may_prompt;
	return GR_OK;
}

enum gr_err
login_open_store(struct session *s, bool may_prompt, struct vault **out, struct gr_error *err)
{
	struct vault_opts o;
	enum gr_err rc;

	if ((rc = store_opts(s, may_prompt, &o, err)) != GR_OK)
		return rc;
	return vault_shared(&o, out, err);
}

enum gr_err
login_save_store(struct session *s, struct vault *v, struct gr_error *err)
{
	struct vault_opts o;
	enum gr_err rc;

	if ((rc = store_opts(s, true, &o, err)) != GR_OK)
		return rc;
	if ((rc = vault_save(v, &o, err)) != GR_OK)
		vault_forget();	/* memory no longer matches the file */
	return rc;
}

/* A provider name from the registry, or a usage error listing them. */
static const struct backend_ops *
find_provider(const char *name, struct gr_error *err)
{
	const struct backend_ops *const *all, *ops;
	struct sb names;
	size_t n;

	if ((ops = backend_find_ops(name)) != NULL)
		return ops;
	all = backend_registry(&n);
	sb_init(&names);
	for (size_t i = 0; i < n; i++)
		sb_addf(&names, "%s%s", i ? ", " : "", all[i]->name);
	gr_fail(err, GR_ENOTFOUND, "unknown provider '%s' (known: %s)", name, names.buf);
	sb_release(&names);
	return NULL;
}

/*
 * Check a key with the provider's cheapest authenticated request: the account when the
 * backend reports one, else the instance list. The key goes only into backend_env.
 */
static enum gr_err
verify_key(struct session *s, const struct backend_ops *ops, const char *key,
    struct gr_error *err)
{
	struct backend_env env = { 0 };
	struct config *cfg = NULL;
	struct state *st = NULL;
	struct backend *b;
	struct gr_error e = { 0 };
	enum gr_err rc;

	if ((rc = session_config(s, &cfg, err)) != GR_OK)
		return rc;
	if ((rc = session_state(s, &st, err)) != GR_OK)
		return rc;
	env.name = ops->name;
	env.api_key = key;
	env.config = cfg;
	env.state = st;
	env.debug = s->debug;
	env.timeout_ms = config_get_int(cfg, "http.timeout", 30) * 1000;
	env.connect_timeout_ms = config_get_int(cfg, "http.connect_timeout", 10) * 1000;
	b = backend_create(ops, &env);
	if (!b->ready) {
		rc = gr_fail(err, b->init_err.code ? b->init_err.code : GR_EFAIL, "%s",
		    b->init_err.msg);
		backend_destroy(b);
		return rc;
	}
	if (ops->account != NULL && (ops->caps & CAP_ACCOUNT)) {
		struct account acct = { 0 };

		rc = ops->account(b, &acct, &e);
	} else if (ops->instances != NULL) {
		struct instance_list list;

		instance_list_init(&list);
		rc = observed_instances(b, &list, &e);
		instance_list_release(&list);
	} else
		rc = GR_OK;
	backend_destroy(b);
	if (rc == GR_EAUTH)
		return gr_fail(err, GR_EAUTH, "'%s' rejected the key (%s); nothing was stored",
		    ops->name, e.msg);
	if (rc != GR_OK)
		return gr_fail(err, rc, "cannot check the key with '%s': %s; nothing was stored "
		    "(use --no-verify to store it unchecked)", ops->name, e.msg);
	return GR_OK;
}

static const char *
profile_name(const struct session *s)
{
	return s->profile != NULL && s->profile[0] != '\0' ? s->profile : VAULT_DEFAULT_PROFILE;
}

/* Rows of `login --list`: a key in this machine's store or the environment, or, in a team
   profile, a watcher key the team published or a team key sealed to one. */
struct key_row {
	char profile[72];
	char provider[72];
	const char *source;	/* "store", "environment", "team-watcher", "team" */
	char variable[96];
	int64_t stored;
	bool active;		/* the selected profile's; for a team's: this machine's watcher */
	char team[TEAM_NAME_MAX + 1];
	char stored_by[TEAM_NAME_MAX + 1];
	char watcher_key[TEAM_KEY_FINGERPRINT + 1];
	char watcher_host[256];
};

struct key_rows {
	struct key_row *r;
	size_t n;
	const char *active_profile;
	const char *team;
	char mine[VAULT_TEAM_PUBLIC_HEX];	/* this machine's watcher key, "" none */
};

static struct key_row *
add_row(struct key_rows *rows, const char *source)
{
	struct key_row *r;

	rows->r = xreallocarray(rows->r, rows->n + 1, sizeof(*rows->r));
	r = &rows->r[rows->n++];
	memset(r, 0, sizeof(*r));
	r->source = source;
	return r;
}

static void
add_stored(const char *profile, const char *provider, int64_t stored, void *ctx)
{
	struct key_rows *rows = ctx;
	struct key_row *r = add_row(rows, "store");

	strlcpy_(r->profile, profile, sizeof(r->profile));
	strlcpy_(r->provider, provider, sizeof(r->provider));
	r->stored = stored;
	r->active = strcmp(profile, rows->active_profile) == 0;
}

/* A row of the team's: who published or stored it, when, and its watcher key. */
static struct key_row *
add_team_row(struct key_rows *rows, const char *source, const char *by, int64_t at,
    const char *public_hex)
{
	struct key_row *r = add_row(rows, source);

	strlcpy_(r->team, rows->team, sizeof(r->team));
	strlcpy_(r->stored_by, by, sizeof(r->stored_by));
	r->stored = at;
	/* Its first bytes, as the watcher's own messages name it. */
	strlcpy_(r->watcher_key, public_hex, sizeof(r->watcher_key));
	r->active = rows->mine[0] != '\0' && strcmp(public_hex, rows->mine) == 0;
	return r;
}

static void
add_watcher_row(const struct team_watcher *w, void *ctx)
{
	struct key_row *r = add_team_row(ctx, "team-watcher", w->added_by, w->added_at,
	    w->public_hex);

	strlcpy_(r->watcher_host, w->host, sizeof(r->watcher_host));
}

static void
add_team_key_row(const struct team_key *k, void *ctx)
{
	struct key_rows *rows = ctx;
	struct key_row *r;
	size_t i;

	r = add_team_row(rows, "team", k->stored_by, k->stored_at, k->public_hex);
	strlcpy_(r->provider, k->provider, sizeof(r->provider));
	/* The host of its watcher, listed before it. */
	for (i = 0; i + 1 < rows->n; i++)
		if (strcmp(rows->r[i].source, "team-watcher") == 0 &&
		    strcmp(rows->r[i].watcher_key, r->watcher_key) == 0)
			strlcpy_(r->watcher_host, rows->r[i].watcher_host, sizeof(r->watcher_host));
}

enum { L_PROFILE, L_PROVIDER, L_SOURCE, L_VARIABLE, L_STORED, L_ACTIVE, L_TEAM, L_STORED_BY,
	L_WATCHER_KEY, L_WATCHER_HOST };

/* A personal profile's table ends at L_ACTIVE; a team profile's has the team's columns. */
static const struct column list_cols[] = {
	[L_PROFILE] = { "profile", N_("PROFILE"), false, false, 0, 0 },
	[L_PROVIDER] = { "provider", N_("PROVIDER"), false, false, 0, 0 },
	[L_SOURCE] = { "source", N_("SOURCE"), false, false, 0, 0 },
	[L_VARIABLE] = { "variable", N_("VARIABLE"), false, false, 1, 8 },
	[L_STORED] = { "stored", N_("STORED"), false, false, 2, 8 },
	[L_ACTIVE] = { "active", N_("ACTIVE"), false, true, 0, 0 },
	[L_TEAM] = { "team", N_("TEAM"), false, true, 0, 0 },
	[L_STORED_BY] = { "stored_by", N_("BY"), false, false, 1, 0 },
	[L_WATCHER_KEY] = { "watcher_key", N_("WATCHER KEY"), false, false, 0, 0 },
	[L_WATCHER_HOST] = { "watcher_host", N_("HOST"), false, false, 2, 8 },
};

static void
list_cell(const void *row, size_t col, struct cell *out, void *ctx)
{
	const struct key_row *r = row;

	switch (col) {
	case L_PROFILE: cell_str(out, r->profile); break;
	case L_PROVIDER: cell_str(out, r->provider); break;
	case L_SOURCE:
		cell_str(out, r->source);
		out->color = r->active ? OC_GOOD : OC_DIM;
		break;
	case L_VARIABLE: cell_str(out, r->variable); break;
	case L_STORED:
		if (r->stored > 0) {
			out->kind = CELL_TIME;
			out->i = r->stored;
		}
		break;
	case L_ACTIVE:
		out->kind = CELL_BOOL;
		out->i = r->active;
		break;
	case L_TEAM: cell_str(out, r->team); break;
	case L_STORED_BY: cell_str(out, r->stored_by); break;
	case L_WATCHER_KEY: cell_str(out, r->watcher_key); break;
	case L_WATCHER_HOST: cell_str(out, r->watcher_host); break;
	}
}

/* This machine's watcher key (public half) into mine, "" none or damaged. */
static void
my_watcher_key(struct cmd_ctx *c, struct vault *v, char mine[VAULT_TEAM_PUBLIC_HEX])
{
	char *secret = vault_get(v, c->s->profile, VAULT_TEAM_WATCHER);

	if (secret == NULL || !vault_team_public(secret, mine))
		mine[0] = '\0';
	vault_key_free(secret);
}

static int
login_list(struct cmd_ctx *c)
{
	const struct backend_ops *const *all;
	struct key_rows rows = { 0 };
	struct gr_error err = { 0 };
	struct config *cfg;
	struct state *st;
	struct vault *v;
	size_t n;
	enum gr_err rc;
	int status = 0;

	if (session_config(c->s, &cfg, &err) != GR_OK)
		return cmd_error(c, &err);
	rows.active_profile = profile_name(c->s);
	rows.team = team_name(cfg);
	if (vault_exists()) {
		if ((rc = login_open_store(c->s, true, &v, &err)) != GR_OK)
			return cmd_error(c, &err);
		vault_each(v, add_stored, &rows);
		if (rows.team != NULL)
			my_watcher_key(c, v, rows.mine);
	}
	/* Keys in the environment win over the store for every profile. */
	all = backend_registry(&n);
	for (size_t i = 0; i < n; i++) {
		const char *var = login_env_key(all[i]->name);
		struct key_row *r;

		if (var == NULL)
			continue;
		r = add_row(&rows, "environment");
		strlcpy_(r->provider, all[i]->name, sizeof(r->provider));
		strlcpy_(r->variable, var, sizeof(r->variable));
		r->active = true;
	}
	/* The team's: its watcher keys, then the keys sealed to them (never their bytes). A
	   state out of reach leaves this machine's keys listed, and says so. */
	if (rows.team != NULL && (session_state(c->s, &st, &err) != GR_OK ||
	    team_watchers_each(st, rows.team, add_watcher_row, &rows, &err) != GR_OK ||
	    team_keys_each(st, rows.team, add_team_key_row, &rows, &err) != GR_OK)) {
		cmd_warn("the team's keys are not listed: %s", err.msg);
		status = gr_exit_code(err.code);
		gr_error_clear(&err);
	}
	if (rows.n == 0 && isatty(STDERR_FILENO))
		cmd_warn("no API keys stored; add one with 'gpurent login PROVIDER'");
	if (out_print(c->out, &out_global, list_cols, rows.team != NULL ? ARRAY_LEN(list_cols) :
	    L_ACTIVE + 1, L_PROVIDER, rows.r, rows.n, sizeof(*rows.r), list_cell, NULL, &err) !=
	    GR_OK)
		status = cmd_error(c, &err);
	free(rows.r);
	return status;
}

static int
login_rekey(struct cmd_ctx *c, const char *mode)
{
	struct vault_opts o;
	struct gr_error err = { 0 };
	struct vault *v;

	if (!vault_exists())
		return cmd_usage_error(c, "there is no credential store yet; "
		    "'gpurent login PROVIDER' creates one");
	if (login_open_store(c->s, true, &v, &err) != GR_OK)
		return cmd_error(c, &err);
	if (store_opts(c->s, true, &o, &err) != GR_OK)
		return cmd_error(c, &err);
	if (vault_rekey(v, &o, strcmp(mode, "keyfile") == 0 ? VAULT_KEYFILE : VAULT_PASSPHRASE,
	    &err) != GR_OK) {
		vault_forget();
		return cmd_error(c, &err);
	}
	if (vault_get_mode(v) == VAULT_KEYFILE)
		cmd_warn("the credential store is now sealed with the key file '%s'",
		    vault_keyfile_path());
	else
		cmd_warn("the credential store is now sealed with the new passphrase");
	return 0;
}

int
login_team_of(struct cmd_ctx *c, const char *option, const char **team)
{
	struct gr_error err = { 0 };
	struct config *cfg;

	if (session_config(c->s, &cfg, &err) != GR_OK)
		return cmd_error(c, &err);
	if (!team_profile(cfg))
		return cmd_usage_error(c, "%s needs a team profile (team.name and state.url)",
		    option);
	*team = team_name(cfg);
	return 0;
}

/* The public halves of a team's watchers (hex), for sealing a team key to each. */
struct watchers {
	char (*pub)[VAULT_TEAM_PUBLIC_HEX];
	size_t n;
};

static void
add_watcher(const struct team_watcher *tw, void *ctx)
{
	struct watchers *w = ctx;

	w->pub = xreallocarray(w->pub, w->n + 1, sizeof(*w->pub));
	strlcpy_(w->pub[w->n++], tw->public_hex, sizeof(*w->pub));
}

/* key sealed to each of the team's watchers, and stored in one transaction. */
static enum gr_err
store_team_key(struct session *s, const char *team, const char *provider, const char *key,
    const struct watchers *w, struct gr_error *err)
{
	char user[TEAM_NAME_MAX + 1];
	struct state *st;
	enum gr_err rc;

	if ((rc = session_state(s, &st, err)) != GR_OK || (rc = state_begin(st, err)) != GR_OK)
		return rc;
	team_user(s->config, user, sizeof(user));
	for (size_t i = 0; i < w->n && rc == GR_OK; i++) {
		unsigned char *sealed;
		size_t n;

		if ((rc = vault_team_seal(w->pub[i], key, &sealed, &n, err)) == GR_OK)
			rc = team_key_put(st, team, provider, w->pub[i], sealed, n, user,
			    (int64_t)time(NULL), err);
		free(sealed);
	}
	if (rc != GR_OK) {
		state_rollback(st);
		return rc;
	}
	return state_commit(st, err);
}

/*
 * `login --team-watcher`: this machine's watcher key pair, made once (its secret half in
 * this machine's store, for the selected profile) and its public half published, again, in
 * the team's state.
 */
static int
login_team_watcher(struct cmd_ctx *c)
{
	char public_hex[VAULT_TEAM_PUBLIC_HEX], host[256], user[TEAM_NAME_MAX + 1];
	struct gr_error err = { 0 };
	const char *team;
	struct state *st;
	struct vault *v;
	char *secret;
	bool made = false;
	int status;

	if ((status = login_team_of(c, "--team-watcher", &team)) != 0)
		return status;
	if (login_open_store(c->s, true, &v, &err) != GR_OK)
		return cmd_error(c, &err);
	if ((secret = vault_get(v, c->s->profile, VAULT_TEAM_WATCHER)) != NULL) {
		if (!vault_team_public(secret, public_hex)) {
			vault_key_free(secret);
			gr_fail(&err, GR_ESTATE, "the watcher key in this machine's credential store "
			    "is damaged: remove it with 'gpurent logout %s' and make a new one",
			    VAULT_TEAM_WATCHER);
			return cmd_error(c, &err);
		}
	} else {
		made = true;
		if (vault_team_keypair(&secret, public_hex, &err) != GR_OK ||
		    vault_set(v, c->s->profile, VAULT_TEAM_WATCHER, secret, &err) != GR_OK ||
		    login_save_store(c->s, v, &err) != GR_OK) {
			vault_key_free(secret);
			return cmd_error(c, &err);
		}
	}
	vault_key_free(secret);
	host_name(host, sizeof(host), "unknown");
	if (session_state(c->s, &st, &err) != GR_OK ||
	    team_watcher_add(st, team, public_hex, host, team_user(c->s->config, user,
	    sizeof(user)), (int64_t)time(NULL), &err) != GR_OK)
		return cmd_error(c, &err);
	if (made)
		cmd_warn("this machine is now a watcher of team '%s' (key %.16s); team keys stored "
		    "before now are not sealed for it: store each again with 'gpurent login --team "
		    "PROVIDER'", team, public_hex);
	else
		cmd_warn("this machine is a watcher of team '%s' (key %.16s), published again", team,
		    public_hex);
	return 0;
}

static int
login_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct login_args a = { 0 };
	struct gr_error err = { 0 };
	const struct backend_ops *ops;
	const char *provider, *name, *var, *team = NULL;
	struct watchers watchers = { 0 };
	struct vault *v;
	char *key = NULL, prompt[128];
	bool created;
	int npos = 0, rc;

	if ((rc = cmd_parse(c, argc, argv, login_opt, &a, &npos)) != 0)
		return rc;
	if (npos < 0)
		return 0;	/* --help */
	if (a.list || a.rekey != NULL || a.team_watcher) {
		if (npos > 0)
			return cmd_usage_error(c, "--%s takes no provider", a.list ? "list" :
			    a.rekey != NULL ? "rekey" : "team-watcher");
		return a.list ? login_list(c) : a.rekey != NULL ? login_rekey(c, a.rekey) :
		    login_team_watcher(c);
	}
	if (npos != 1)
		return cmd_usage_error(c, npos == 0 ? N_("which provider? ('gpurent login vast')") :
		    N_("an API key is never taken from the command line, where 'ps' and the shell's "
		    "history see it: type it at the prompt, or pipe it in with --stdin"));
	provider = LOGIN_POS(argv, 0);
	/* Not providers: the token `gpurent exporter --auth` asks scrapers for, and the
	 * password of a PostgreSQL state. */
	if (strcmp(provider, LOGIN_EXPORTER) == 0 || strcmp(provider, VAULT_STATE_PASSWORD) == 0) {
		ops = NULL;
		if (a.team)
			return cmd_usage_error(c, "--team stores a provider's key, not the %s's",
			    provider);
	} else if ((ops = find_provider(provider, &err)) == NULL)
		return cmd_error(c, &err);
	name = ops != NULL ? ops->name : provider;
	if (!a.from_stdin && !vault_have_tty())
		return cmd_usage_error(c, "no terminal to read the key from; pipe it in with --stdin");
	if (a.team) {
		/* Who it is sealed to is known before the key is typed. */
		struct state *st;

		if ((rc = login_team_of(c, "--team", &team)) != 0)
			return rc;
		if (session_state(c->s, &st, &err) != GR_OK ||
		    team_watchers_each(st, team, add_watcher, &watchers, &err) != GR_OK)
			return cmd_error(c, &err);
		if (watchers.n == 0) {
			gr_fail(&err, GR_ENOTFOUND, "team '%s' has no watcher key to seal a team key "
			    "to: run 'gpurent login --team-watcher' on the watcher's machine first",
			    team);
			return cmd_error(c, &err);
		}
	}

	/* Unseal an existing store first, so a wrong passphrase costs no retyped key. */
	created = !vault_exists();
	if (team == NULL && login_open_store(c->s, true, &v, &err) != GR_OK)
		return cmd_error(c, &err);

	snprintf(prompt, sizeof(prompt), ops != NULL ? _("API key for %s (input is hidden): ") :
	    strcmp(name, LOGIN_EXPORTER) == 0 ? _("Bearer token for the %s (input is hidden): ") :
	    _("Password of the PostgreSQL %s (input is hidden): "), name);
	if (vault_read_secret(prompt, a.from_stdin, &key, &err) != GR_OK) {
		free(watchers.pub);
		return cmd_error(c, &err);
	}

	if (ops == NULL || strcmp(ops->name, "sim") == 0) {
		/* The simulator accepts any key, and a token or password is ours: nothing to ask. */
	} else if (!a.no_verify) {
		if (c->s->interactive)
			cmd_warn("checking the key with '%s'...", ops->name);
		if (verify_key(c->s, ops, key, &err) != GR_OK) {
			vault_key_free(key);
			free(watchers.pub);
			return cmd_error(c, &err);
		}
	}
	if (team != NULL) {
		rc = store_team_key(c->s, team, name, key, &watchers, &err);
		vault_key_free(key);
		free(watchers.pub);
		if (rc != GR_OK)
			return cmd_error(c, &err);
		cmd_warn("stored the team key for '%s' of team '%s', sealed for its watchers (%zu)",
		    name, team, watchers.n);
		return 0;
	}
	rc = vault_set(v, c->s->profile, name, key, &err);
	vault_key_free(key);
	if (rc != GR_OK || login_save_store(c->s, v, &err) != GR_OK) {
		vault_forget();
		return cmd_error(c, &err);
	}
	if (strcmp(name, VAULT_STATE_PASSWORD) == 0)
		cmd_warn("stored the password of the PostgreSQL state in profile '%s'",
		    profile_name(c->s));
	else
		cmd_warn("stored the key for '%s' in profile '%s'%s", name, profile_name(c->s),
		    a.no_verify && ops != NULL && strcmp(ops->name, "sim") != 0 ?
		    _(" (not checked)") : "");
	if (created && vault_get_mode(v) == VAULT_KEYFILE)
		cmd_warn("the credential store is sealed with the key file '%s': anyone who can "
		    "read both files can read the keys (see 'Credentials' in gpurent(1))",
		    vault_keyfile_path());
	if (ops != NULL && (var = login_env_key(ops->name)) != NULL)
		cmd_warn("%s is set and takes precedence over the stored key", var);
	return 0;
}

const struct command cmd_login = {
	.name = "login",
	.alias = NULL,
	.args = "PROVIDER",
	.summary = N_("store a provider's API key in the sealed credential store"),
	.help =
	    N_("Reads the API key for PROVIDER without echo from the terminal (or the first line of\n"
	    "standard input with --stdin), checks it with one cheap authenticated request, and\n"
	    "stores it sealed in the credential store for the selected profile (--profile,\n"
	    "GPURENT_PROFILE; 'default' otherwise). A key is never taken from the command line.\n\n"
	    "A profile without its own key for a provider uses the default profile's key.\n"
	    "GPURENT_<PROVIDER>_API_KEY or <PROVIDER>_API_KEY in the environment take precedence\n"
	    "over the store.\n\n"
	    "The first login creates the store: it asks for a passphrase (GPURENT_PASSPHRASE or\n"
	    "vault.passphrase_command answer unattended); an empty passphrase seals it with a key\n"
	    "file instead.\n\n"
	    "'gpurent login exporter' stores the bearer token that 'gpurent exporter --auth'\n"
	    "requires of every scrape (Prometheus: authorization: credentials_file).\n"
	    "'gpurent login state' stores the password of the PostgreSQL state (state.url),\n"
	    "given to the server when libpq finds none in ~/.pgpass or a service file.\n\n"
	    "In a team profile, --team stores the key for the team's watcher only: sealed to\n"
	    "the watcher keys the team published ('gpurent login --team-watcher' on each\n"
	    "watcher's machine), so that nobody who reads the shared state can open it. The\n"
	    "watcher acts on the team's instances with team keys only. --list shows, in a team\n"
	    "profile, the team's watcher keys and the team keys sealed to each (never a key);\n"
	    "'gpurent logout --team' and 'gpurent logout --team-watcher' remove them."),
	.opts = login_opts,
	.complete_args = CPL_PROVIDER,
	.flags = CMD_SENSITIVE,
	.run = login_run,
};
