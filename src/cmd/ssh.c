/*
 * gpurent ssh: a shell or a command on an instance, through the shared transport.
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/remote.h"
#include "gpurent/util.h"
#include "common.h"

static const struct cmd_opt opts[] = {
	{ "print", 0, NULL, N_("print the ssh command line instead of running it"), 0, CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

/*
 * One COMMAND word is a command line for the remote shell (pipes work); several are an
 * argv, each word quoted so that the remote shell hands it over as it was typed.
 */
static unsigned
words_flags(int n)
{
	return n == 1 ? REMOTE_RAW : 0;
}

static int
ssh_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct remote_endpoint ep;
	struct remote_argv a;
	struct sb line;
	bool print = false;
	size_t i;
	int n, rc;

	if (!cmd_parse_args(c, argc, argv, NULL, &print,
	    N_("which instance? give an ID from 'gpurent ls'"), &n, &rc))
		return rc;
	if (cmd_endpoint(c, argv[0], &ep, &err) != GR_OK)
		return cmd_error(c, &err);
	if (print) {
		remote_argv_init(&a);
		if (remote_ssh_argv(&ep, words_flags(n - 1), (const char *const *)argv + 1,
		    (size_t)n - 1, &a, &err) != GR_OK) {
			remote_argv_release(&a);
			return cmd_error(c, &err);
		}
		sb_init(&line);
		for (i = 0; i < a.n; i++) {
			if (i)
				sb_addc(&line, ' ');
			remote_shell_quote(&line, a.v[i]);
		}
		fprintf(c->out, "%s\n", line.buf);
		sb_release(&line);
		remote_argv_release(&a);
		return finish_output(c, 0);
	}
	rc = remote_run(&ep, words_flags(n - 1), (const char *const *)argv + 1, (size_t)n - 1,
	    &err);
	if (err.code != GR_OK)
		cmd_error(c, &err);
	return rc;
}

const struct command cmd_ssh = {
	.name = "ssh",
	.args = "ID [-- COMMAND...]",
	.summary = N_("open a shell on an instance, or run a command there"),
	.help =
	    N_("Runs the system ssh with the host, port and user the provider reports, and\n"
	    "'-i' from the ssh.identity config key, through one shared connection per\n"
	    "instance (an OpenSSH master in the state directory that stays up a minute after\n"
	    "its last use). Host keys are pinned per instance in the state directory: a key\n"
	    "that changes is refused unless the provider says the instance was restarted.\n"
	    "One COMMAND word is a command line for the remote shell (-- 'nvidia-smi | head');\n"
	    "several are passed as they are, each quoted for the remote shell (-- echo 'a b; c'\n"
	    "prints a b; c). BatchMode=yes only when there is no terminal to ask on. The exit\n"
	    "status is the remote command's, or 255 when the connection failed.\n"
	    "--print prints the command line, quoted for a POSIX shell."),
	.opts = opts,
	.complete_args = CPL_INSTANCE,
	.run = ssh_run,
};
