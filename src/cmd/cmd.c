/*
 * Command lookup, option parsing, help, and the one place errors are reported.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "gpurent/cmd.h"
#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/util.h"

volatile int cmd_interrupted;
const struct cmd_shell_ops *cmd_shell_ops;

enum {
	G_OUTPUT = 1000, G_FIELDS, G_NO_HEADER, G_PROVIDER, G_PROFILE, G_VERBOSE, G_DEBUG,
	G_COLOR, G_HELP, G_VERSION,
};

const struct cmd_opt global_opts[] = {
	{ "output", 'o', "FORMAT", N_("table, json, csv, tsv or ids"), G_OUTPUT, CPL_FORMAT, 0 },
	{ "fields", 0, "A,B,...", N_("columns to print, in this order"), G_FIELDS, CPL_FIELD, 0 },
	{ "no-header", 0, NULL, N_("omit the header line of tables, CSV and TSV"), G_NO_HEADER, CPL_NONE, 0 },
	{ "provider", 'p', "NAME", N_("use these providers, NAME[,NAME...] (repeatable)"), G_PROVIDER, CPL_PROVIDER, OPT_REPEAT },
	{ "profile", 0, "NAME", N_("use this config profile"), G_PROFILE, CPL_PROFILE, 0 },
	{ "verbose", 'v', NULL, N_("say more on stderr"), G_VERBOSE, CPL_NONE, OPT_REPEAT },
	{ "debug", 0, NULL, N_("trace provider requests on stderr (keys redacted)"), G_DEBUG, CPL_NONE, 0 },
	{ "color", 0, "WHEN", N_("auto, always or never"), G_COLOR, CPL_NONE, 0 },
	{ "help", 'h', NULL, N_("show help"), G_HELP, CPL_NONE, 0 },
	{ "version", 'V', NULL, N_("print the version and exit"), G_VERSION, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

const struct command *
cmd_find(const char *name)
{
	size_t i;

	for (i = 0; commands[i] != NULL; i++)
		if (strcmp(commands[i]->name, name) == 0 ||
		    (commands[i]->alias != NULL && strcmp(commands[i]->alias, name) == 0))
			return commands[i];
	return NULL;
}

const char *
cmd_suggest(const char *name)
{
	const char *best = NULL;
	int best_d = 3, d;
	size_t i;

	for (i = 0; commands[i] != NULL; i++) {
		if (commands[i]->flags & CMD_HIDDEN)
			continue;
		d = edit_distance(name, commands[i]->name);
		if (d < best_d || (strlen(name) >= 2 &&
		    strncmp(commands[i]->name, name, strlen(name)) == 0 && best == NULL)) {
			best_d = d < best_d ? d : best_d;
			best = commands[i]->name;
		}
	}
	return best;
}

void
cmd_warn(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("gpurent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, _(fmt), ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
cmd_error(struct cmd_ctx *c, const struct gr_error *e)
{
	char clean[sizeof(e->msg)];

	(void)c;
	fflush(stdout);
	/* Messages may quote a provider: keep its bytes from steering the terminal. */
	fprintf(stderr, "gpurent: %s\n", text_sanitize(clean, sizeof(clean),
	    e->msg[0] ? e->msg : gr_err_name(e->code)));
	return gr_exit_code(e->code);
}

int
cmd_usage_error(struct cmd_ctx *c, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "gpurent %s: ", c->cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, _(fmt), ap);
	va_end(ap);
	fputc('\n', stderr);
	fprintf(stderr, _("see 'gpurent %s --help'\n"), c->cmd->name);
	return EXIT_USAGE;
}

static void
print_opts(FILE *fp, const struct cmd_opt *opts)
{
	char left[64];

	for (; opts != NULL && opts->name != NULL; opts++) {
		if (opts->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", opts->short_name, opts->name,
			    opts->arg ? " " : "", opts->arg ? opts->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", opts->name,
			    opts->arg ? " " : "", opts->arg ? opts->arg : "");
		fprintf(fp, "  %-28s %s\n", left, _(opts->help));
	}
}

void
cmd_print_help(FILE *fp, const struct command *cmd)
{
	/* TRANSLATORS: %s are the command, " [OPTIONS]", a space and its arguments. */
	fprintf(fp, _("usage: gpurent %s%s%s%s\n"), cmd->name,
	    cmd->opts && cmd->opts[0].name ? " [OPTIONS]" : "", cmd->args ? " " : "",
	    cmd->args ? cmd->args : "");
	fprintf(fp, "\n%s\n", _(cmd->summary));
	if (cmd->alias != NULL)
		fprintf(fp, _("alias: %s\n"), cmd->alias);
	if (cmd->help != NULL)
		fprintf(fp, "\n%s\n", _(cmd->help));
	if (cmd->opts != NULL && cmd->opts[0].name != NULL) {
		fputs(_("\noptions:\n"), fp);
		print_opts(fp, cmd->opts);
	}
	fputs(_("\nglobal options:\n"), fp);
	print_opts(fp, global_opts);
}

void
cmd_print_overview(FILE *fp)
{
	size_t i;

	fputs(_("usage: gpurent [GLOBAL OPTIONS] COMMAND [ARGS]\n\n"
	    "Find, rent and watch GPUs across providers.\n\ncommands:\n"), fp);
	for (i = 0; commands[i] != NULL; i++)
		if (!(commands[i]->flags & CMD_HIDDEN))
			fprintf(fp, "  %-12s %s\n", commands[i]->name, _(commands[i]->summary));
	fputs(_("\nglobal options:\n"), fp);
	print_opts(fp, global_opts);
	fputs(_("\n'gpurent help COMMAND' or 'gpurent COMMAND --help' tells more; "
	    "man gpurent tells all.\n"), fp);
}

int
cmd_global_option(struct session *s, int id, const char *arg)
{
	switch (id) {
	case G_OUTPUT:
		if (!out_format_parse(arg, &out_global.format)) {
			fprintf(stderr, _("gpurent: unknown output format '%s' (table, json, csv, "
			    "tsv, ids)\n"), arg);
			return EXIT_USAGE;
		}
		s->format_set = true;
		break;
	case G_FIELDS:
		out_global.fields = arg;
		break;
	case G_NO_HEADER:
		out_global.no_header = true;
		break;
	case G_PROVIDER: {
		/* "vast,runpod" names two; the strings live as long as argv. */
		char *list = (char *)arg, *tok, *save = NULL;
		size_t before = s->n_providers;

		for (tok = strtok_r(list, ",", &save); tok != NULL;
		    tok = strtok_r(NULL, ",", &save)) {
			if (s->n_providers == SESSION_MAX_PROVIDERS) {
				fprintf(stderr, _("gpurent: too many providers\n"));
				return EXIT_USAGE;
			}
			s->providers[s->n_providers++] = tok;
		}
		/* An empty name must not quietly mean "the configured providers". */
		if (s->n_providers == before) {
			fprintf(stderr, _("gpurent: --provider needs a provider name such as 'sim' "
			    "(see 'gpurent providers')\n"));
			return EXIT_USAGE;
		}
		break;
	}
	case G_PROFILE:
		s->profile = arg;
		break;
	case G_VERBOSE:
		s->verbose++;
		break;
	case G_DEBUG:
		s->debug = 1;
		break;
	case G_COLOR:
		s->color_set = true;
		if (strcmp(arg, "always") == 0)
			out_global.color = true;
		else if (strcmp(arg, "never") == 0)
			out_global.color = false;
		else if (strcmp(arg, "auto") == 0)
			out_global.color = isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL;
		else {
			fprintf(stderr, _("gpurent: --color is auto, always or never\n"));
			return EXIT_USAGE;
		}
		break;
	default:
		return EXIT_USAGE;
	}
	return 0;
}

static const struct cmd_opt *
match_long(const struct cmd_opt *opts, const char *name, size_t len)
{
	for (; opts != NULL && opts->name != NULL; opts++)
		if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0)
			return opts;
	return NULL;
}

static const struct cmd_opt *
match_short(const struct cmd_opt *opts, char ch)
{
	for (; opts != NULL && opts->name != NULL; opts++)
		if (opts->short_name == ch)
			return opts;
	return NULL;
}

const struct cmd_opt *
cmd_opt_long(const struct command *cmd, const char *name, size_t len, bool *global)
{
	const struct cmd_opt *o = match_long(cmd != NULL ? cmd->opts : NULL, name, len);

	if (global != NULL)
		*global = o == NULL;
	return o != NULL ? o : match_long(global_opts, name, len);
}

const struct cmd_opt *
cmd_opt_short(const struct command *cmd, char ch, bool *global)
{
	const struct cmd_opt *o = match_short(cmd != NULL ? cmd->opts : NULL, ch);

	if (global != NULL)
		*global = o == NULL;
	return o != NULL ? o : match_short(global_opts, ch);
}

/* The config's output and color keys, unless flags said otherwise; table width. */
static int
apply_defaults(struct cmd_ctx *c)
{
	struct gr_error err = { 0 };
	struct config *cfg;
	const char *v;

	if (((c->cmd->flags & CMD_ANY_CONFIG) ? session_config_any(c->s, &cfg, &err) :
	    session_config(c->s, &cfg, &err)) != GR_OK)
		return cmd_error(c, &err);
	if (!c->s->format_set && (v = config_get(cfg, "output")) != NULL)
		out_format_parse(v, &out_global.format);
	if (!c->s->color_set) {
		v = config_get(cfg, "color");
		out_global.color = v != NULL && strcmp(v, "always") == 0 ? true :
		    v != NULL && strcmp(v, "never") == 0 ? false :
		    isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL;
	}
	/* NO_COLOR wins over everything but an explicit --color always. */
	if (getenv("NO_COLOR") != NULL && *getenv("NO_COLOR") != '\0' && !c->s->color_set)
		out_global.color = false;
	out_global.width = out_global.format == OUT_TABLE ? out_terminal_width() : 0;
	return 0;
}

int
cmd_when(struct cmd_ctx *c, const char *option, const char *arg, int64_t now, int64_t *out)
{
	if (parse_when(arg, now, out))
		return 0;
	return cmd_usage_error(c, "%s needs a duration back from now (7d, 36h) or a UTC date or "
	    "time (2026-12-01, 2026-12-01T10:00, RFC 3339 with Z or an offset), not '%s'",
	    option, arg);
}

/* Store a command option that only stores, or hand it to the command's handler. */
static int
take(struct cmd_ctx *c, const struct cmd_opt *o, const char *arg, opt_handler handle,
    void *data)
{
	char *at = (char *)data + o->id;

	if (o->how & (OPT_TRUE | OPT_FALSE))
		*(bool *)at = (o->how & OPT_TRUE) != 0;
	else if (o->how & OPT_STR)
		*(const char **)at = arg;
	else if (o->how & (OPT_INTERVAL | OPT_WHEN)) {
		char option[64];
		int64_t ignored;

		snprintf(option, sizeof(option), "--%s", o->name);
		if (o->how & OPT_WHEN) {
			/* Only checked here: the command resolves it once its clock is known. */
			if (cmd_when(c, option, arg, 0, &ignored) != 0)
				return EXIT_USAGE;
			*(const char **)at = arg;
		} else if ((*(long long *)at = parse_interval(arg)) < 0)
			return cmd_usage_error(c, "%s needs a duration from 1s to 1d (such as 30s or "
			    "5m), not '%s'", option, arg);
	} else
		return handle(c, o->id, arg, data);
	return 0;
}

int
cmd_parse(struct cmd_ctx *c, int argc, char **argv, opt_handler handle, void *data, int *npos)
{
	char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	int i, n = 0, rc = 0;
	bool only_pos = false;

	for (i = 1; i < argc && rc == 0; i++) {
		const char *a = argv[i], *arg = NULL, *eq;
		const struct cmd_opt *o;
		bool global = false;

		if (only_pos || a[0] != '-' || a[1] == '\0' ||
		    (a[1] >= '0' && a[1] <= '9')) {
			pos[n++] = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_pos = true;
			continue;
		}
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			o = cmd_opt_long(c->cmd, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2),
			    &global);
			if (o == NULL) {
				rc = cmd_usage_error(c, "unknown option '%s'", a);
				break;
			}
			if (o->arg != NULL && eq != NULL)
				arg = eq + 1;
			else if (o->arg != NULL) {
				if (i + 1 >= argc) {
					rc = cmd_usage_error(c, "option '--%s' needs %s", o->name,
					    o->arg);
					break;
				}
				arg = argv[++i];
			} else if (eq != NULL) {
				rc = cmd_usage_error(c, "option '--%s' takes no value", o->name);
				break;
			}
		} else {
			o = cmd_opt_short(c->cmd, a[1], &global);
			if (o == NULL) {
				rc = cmd_usage_error(c, "unknown option '%s'", a);
				break;
			}
			if (o->arg != NULL) {
				if (a[2] != '\0')
					arg = a + 2;
				else if (i + 1 < argc)
					arg = argv[++i];
				else {
					rc = cmd_usage_error(c, "option '-%c' needs %s", a[1],
					    o->arg);
					break;
				}
			} else if (a[2] != '\0') {
				rc = cmd_usage_error(c, "option '-%c' takes no value", a[1]);
				break;
			}
		}
		if (global && o->id == G_VERSION) {
			fprintf(c->out, "gpurent %s\n", GPURENT_VERSION);
			free(pos);
			*npos = -1;
			return 0;
		}
		if (global && o->id == G_HELP) {
			cmd_print_help(c->out, c->cmd);
			free(pos);
			*npos = -1;
			return 0;
		}
		rc = global ? cmd_global_option(c->s, o->id, arg) : take(c, o, arg, handle, data);
	}
	for (i = 0; i < n; i++)
		argv[i] = pos[i];
	argv[n] = NULL;
	free(pos);
	*npos = n;
	if (rc == 0)
		rc = apply_defaults(c);
	return rc;
}

bool
cmd_parse_options(struct cmd_ctx *c, int argc, char **argv, opt_handler handle, void *data,
    const char *why, int *rc)
{
	int n;

	if ((*rc = cmd_parse(c, argc, argv, handle, data, &n)) != 0 || n < 0)
		return false;
	if (n > 0) {
		*rc = why != NULL ? cmd_usage_error(c, "%s", _(why)) :
		    cmd_usage_error(c, "unexpected argument '%s'", argv[0]);
		return false;
	}
	return true;
}

bool
cmd_parse_args(struct cmd_ctx *c, int argc, char **argv, opt_handler handle, void *data,
    const char *none, int *npos, int *rc)
{
	if ((*rc = cmd_parse(c, argc, argv, handle, data, npos)) != 0 || *npos < 0)
		return false;
	if (*npos == 0) {
		*rc = cmd_usage_error(c, "%s", _(none));
		return false;
	}
	return true;
}

static void
on_signal(int sig)
{
	(void)sig;
	cmd_interrupted = 1;
}

void
cmd_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

bool
cmd_confirm(const char *fmt, ...)
{
	char line[32];
	va_list ap;
	FILE *tty;

	if (!isatty(STDIN_FILENO))
		return false;
	tty = stderr;
	va_start(ap, fmt);
	vfprintf(tty, _(fmt), ap);
	va_end(ap);
	/* TRANSLATORS: the answer is read as y or Y whatever the language. */
	fputs(_(" [y/N] "), tty);
	fflush(tty);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

int
cmd_run(struct session *s, int argc, char **argv, bool in_shell)
{
	const struct command *cmd;
	struct cmd_ctx c;
	const char *hint;

	if (argc < 1)
		return EXIT_USAGE;
	cmd = cmd_find(argv[0]);
	if (cmd == NULL) {
		hint = cmd_suggest(argv[0]);
		fprintf(stderr, _("gpurent: '%s' is not a gpurent command"), argv[0]);
		if (hint != NULL)
			fprintf(stderr, _("; did you mean '%s'?\n"), hint);
		else
			fputs(_("; see 'gpurent help'\n"), stderr);
		return EXIT_USAGE;
	}
	if (in_shell && (cmd->flags & CMD_NOT_IN_SHELL)) {
		fprintf(stderr, _("gpurent: '%s' is not available inside the shell\n"), cmd->name);
		return EXIT_USAGE;
	}
	memset(&c, 0, sizeof(c));
	c.cmd = cmd;
	c.s = s;
	c.out = stdout;
	c.in_shell = in_shell;
	if (!in_shell)
		return cmd->run(&c, argc, argv);
	session_state_retry(s);
	/* In the shell, options given to one command do not stick to the next. */
	{
		struct out_opts saved = out_global;
		size_t n_providers = s->n_providers;
		const char *profile = s->profile;
		bool format_set = s->format_set, color_set = s->color_set;
		int debug = s->debug, rc;

		rc = cmd->run(&c, argc, argv);
		out_global = saved;
		s->format_set = format_set;
		s->color_set = color_set;
		s->debug = debug;
		if (s->n_providers != n_providers || s->profile != profile) {
			s->n_providers = n_providers;
			s->profile = profile;
			session_drop_backends(s);
			config_free(s->config);
			s->config = NULL;
		}
		return rc;
	}
}
