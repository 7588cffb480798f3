/*
 * gpurent config get|set|unset|list|path
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/paths.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	bool all;
	const char *in;
};

static const struct cmd_opt opts[] = {
	{ "all", 'a', NULL, N_("list: every known key with its default"), OPT_AT(struct args, all), CPL_NONE, OPT_TRUE },
	{ "in", 0, "PROFILE", N_("set/unset in this profile's section"), OPT_AT(struct args, in), CPL_PROFILE, OPT_STR },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

struct kv {
	const char *profile, *key, *value, *help;
};

static const struct column cols[] = {
	{ "key", N_("KEY"), false, false, 0, 0 },
	{ "value", N_("VALUE"), false, false, 0, 10 },
	{ "profile", N_("PROFILE"), false, false, 0, 0 },
	{ "help", N_("DESCRIPTION"), false, true, 1, 10 },
};

static void
kv_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct kv *kv = row;
	const char *v[] = { kv->key, kv->value, kv->profile, kv->help };

	c->kind = v[col] != NULL ? CELL_STR : CELL_NULL;
	c->s = v[col];
	/* The description is read in a table; JSON, CSV and TSV keep it as scripts know it. */
	if (col == 3 && v[col] != NULL && out_global.format == OUT_TABLE)
		c->s = _(v[col]);
}

struct collect {
	struct kv *v;
	size_t n, cap;
};

static void
collect_one(const char *profile, const char *key, const char *value, void *ctx)
{
	struct collect *cl = ctx;
	const struct config_key *k = config_key_find(key);

	if (cl->n == cl->cap) {
		cl->cap = cl->cap ? cl->cap * 2 : 16;
		cl->v = xreallocarray(cl->v, cl->cap, sizeof(*cl->v));
	}
	if (k == NULL && config_label_key(key, NULL, LABEL_PATTERN_MAX) != NULL)
		k = config_key_find(config_label_key(key, NULL, LABEL_PATTERN_MAX));
	cl->v[cl->n++] = (struct kv){ profile, key, value, k ? k->help : NULL };
}

/*
 * The providers key names backends by name: refuse a name no backend has here, where the
 * registry is known, rather than have every later command fail.
 */
static enum gr_err
check_providers(const char *value, struct gr_error *err)
{
	char buf[512], *tok, *save = NULL;
	struct sb known;
	const struct backend_ops *const *all;
	size_t i, n, names = 0;

	strlcpy_(buf, value, sizeof(buf));
	for (tok = strtok_r(buf, ", ", &save); tok != NULL; tok = strtok_r(NULL, ", ", &save)) {
		names++;
		if (backend_find_ops(tok) != NULL)
			continue;
		all = backend_registry(&n);
		sb_init(&known);
		for (i = 0; i < n; i++)
			sb_addf(&known, "%s%s", i ? ", " : "", all[i]->name);
		gr_fail(err, GR_EUSAGE, "unknown provider '%s' in 'providers' (known: %s)", tok,
		    known.buf);
		sb_release(&known);
		return GR_EUSAGE;
	}
	if (names == 0)
		return gr_fail(err, GR_EUSAGE, "'providers' needs at least one provider, such as "
		    "sim");
	return GR_OK;
}

/* The subcommands but path, once the file is loaded (with lines it cannot read, if any). */
static int
config_run_on(struct cmd_ctx *c, const struct args *a, struct config *cfg, int n, char **argv)
{
	struct gr_error err = { 0 };
	struct collect cl = { NULL, 0, 0 };
	const char *v;
	size_t i;
	int rc;

	if (strcmp(argv[0], "get") == 0) {
		if (n != 2)
			return cmd_usage_error(c, "usage: gpurent config get KEY");
		if (config_key_find(argv[1]) == NULL &&
		    config_label_key(argv[1], NULL, LABEL_PATTERN_MAX) == NULL) {
			gr_fail(&err, GR_EUSAGE, "unknown config key '%s' (see 'gpurent config "
			    "list --all')", argv[1]);
			return cmd_error(c, &err);
		}
		v = config_get(cfg, argv[1]);
		if (v == NULL)
			return EXIT_NOTFOUND;
		fprintf(c->out, "%s\n", v);
		return finish_output(c, 0);
	}
	if (strcmp(argv[0], "set") == 0) {
		if (n != 3)
			return cmd_usage_error(c, "usage: gpurent config set KEY VALUE");
		if ((strcmp(argv[1], "providers") == 0 && check_providers(argv[2], &err) !=
		    GR_OK) || config_set(cfg, a->in, argv[1], argv[2], &err) != GR_OK)
			return cmd_error(c, &err);
		return finish_output(c, 0);
	}
	if (strcmp(argv[0], "unset") == 0) {
		if (n != 2)
			return cmd_usage_error(c, "usage: gpurent config unset KEY");
		if (config_unset(cfg, a->in, argv[1], &err) != GR_OK)
			return cmd_error(c, &err);
		return finish_output(c, 0);
	}
	if (strcmp(argv[0], "list") != 0)
		return cmd_usage_error(c, "unknown subcommand '%s' (get, set, unset, list, path)",
		    argv[0]);
	if (a->all) {
		const struct config_key *keys = config_keys(&i);
		size_t k, nk = i;

		for (k = 0; k < nk; k++) {
			collect_one(config_profile(cfg), keys[k].name,
			    config_get(cfg, keys[k].name), &cl);
		}
	} else
		config_each(cfg, collect_one, &cl);
	rc = cmd_print(c, cols, ARRAY_LEN(cols), 0, cl.v, cl.n, sizeof(*cl.v), kv_cell, NULL, 0);
	free(cl.v);
	return rc;
}

static int
config_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { false, NULL };
	struct gr_error err = { 0 };
	struct config *cfg;
	int n, rc;

	if (!cmd_parse_args(c, argc, argv, NULL, &a,
	    N_("say get, set, unset, list or path"), &n, &rc))
		return rc;
	if (strcmp(argv[0], "path") == 0) {
		fprintf(c->out, "%s\n", paths_config_file());
		return finish_output(c, 0);
	}
	if (session_config_any(c->s, &cfg, &err) != GR_OK)
		return cmd_error(c, &err);
	rc = config_run_on(c, &a, cfg, n, argv);
	/* Said after what the command did: a set or unset may just have mended it. */
	if (config_problem(cfg, &err) != GR_OK)
		cmd_warn("%s", err.msg);
	return rc;
}

const struct command cmd_config = {
	.name = "config",
	.args = "get KEY | set KEY VALUE | unset KEY | list | path",
	.summary = N_("read and change settings"),
	.help =
	    N_("The file is $XDG_CONFIG_HOME/gpurent/config (or $GPURENT_HOME/config): 'key = value'\n"
	    "lines, and '[profile NAME]' sections whose keys override the top level when\n"
	    "--profile NAME or GPURENT_PROFILE selects them. 'set' checks the value and rewrites\n"
	    "the file atomically, keeping comments. 'list --all' shows every key."),
	.opts = opts,
	.complete_args = CPL_CONFIG_KEY,
	.flags = CMD_ANY_CONFIG,
	.run = config_run,
};
