/*
 * gpurent: global options, then the command from the table.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/cmd.h"
#include "gpurent/http.h"
#include "gpurent/i18n.h"
#include "gpurent/paths.h"
#include "gpurent/remote.h"
#include "gpurent/session.h"
#include "gpurent/shell.h"

static enum gr_err
split_words(const char *line, int *argc, char ***argv, struct gr_error *err)
{
	return shell_split(line, false, argc, argv, NULL, err);
}

/* The shell is above the command table; the table reaches it through these. */
static const struct cmd_shell_ops shell_ops = {
	.run = shell_run,
	.complete = shell_complete,
	.words_free = shell_argv_free,
	.split = split_words,
};

int
main(int argc, char **argv)
{
	struct session s;
	int i, rc;

	/* The fast path scripts and benchmarks hit: no locale, no files, no libraries. */
	if (argc == 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
		puts("gpurent " GPURENT_VERSION);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	setlocale(LC_ALL, "");
	/* GPURENT_LOCALEDIR lets an uninstalled build (the tests) use the catalogues in build/po. */
	{
		const char *dir = getenv("GPURENT_LOCALEDIR");

		bindtextdomain(GPURENT_TEXTDOMAIN, dir != NULL && dir[0] != '\0' ? dir :
		    GPURENT_LOCALEDIR);
		textdomain(GPURENT_TEXTDOMAIN);
	}
	cmd_shell_ops = &shell_ops;
	session_init(&s);
	cmd_install_signals();
	/* Ctrl-C ends transfers and backoff waits too, not only our own loops. */
	http_set_cancel(&cmd_interrupted);
	/* Global options may come before the command; they are kept for cmd_parse. */
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			cmd_print_overview(stdout);
			return fflush(stdout) == 0 ? 0 : 1;
		}
		if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
			puts("gpurent " GPURENT_VERSION);
			return fflush(stdout) == 0 ? 0 : 1;
		}
		{
			const struct cmd_opt *o;
			const char *arg = NULL, *name = argv[i], *eq;
			size_t len;

			for (o = global_opts; o->name != NULL; o++) {
				if (name[1] == '-') {
					eq = strchr(name + 2, '=');
					len = eq ? (size_t)(eq - name - 2) : strlen(name + 2);
					if (strlen(o->name) == len && strncmp(o->name, name + 2,
					    len) == 0) {
						arg = eq ? eq + 1 : NULL;
						break;
					}
				} else if (o->short_name == name[1]) {
					arg = name[2] ? name + 2 : NULL;
					break;
				}
			}
			if (o->name == NULL) {
				fprintf(stderr, _("gpurent: unknown option '%s'; see 'gpurent help'\n"),
				    argv[i]);
				return EXIT_USAGE;
			}
			if (o->arg != NULL && arg == NULL) {
				if (i + 1 >= argc) {
					fprintf(stderr, _("gpurent: option '%s' needs %s\n"), argv[i],
					    o->arg);
					return EXIT_USAGE;
				}
				arg = argv[++i];
			}
			rc = cmd_global_option(&s, o->id, arg);
			if (rc != 0)
				return rc;
		}
	}
	/* No command is a usage error, as any other: the overview on stderr, status 2. */
	if (i >= argc) {
		cmd_print_overview(stderr);
		return EXIT_USAGE;
	}
	remote_sweep_masters(paths_state_dir());
	rc = cmd_run(&s, argc - i, argv + i, false);
	session_release(&s);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (rc == 0)
			fputs(_("gpurent: write failure on standard output\n"), stderr);
		return rc ? rc : 1;
	}
	return rc;
}
