/*
 * gpurent ssh: run the system ssh against an instance's endpoint.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/config.h"
#include "gpurent/paths.h"
#include "gpurent/util.h"
#include "common.h"

enum { S_PRINT = 1 };

static const struct cmd_opt opts[] = {
	{ "print", 0, NULL, "print the ssh command line instead of running it", S_PRINT, CPL_NONE, false },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, false },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	(void)c; (void)id; (void)arg;
	*(bool *)data = true;
	return 0;
}

/* Quote for a POSIX shell, so --print output can be pasted or eval'd. */
static void
shell_quote(FILE *fp, const char *s)
{
	if (*s != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789@%+=:,./-_") == strlen(s)) {
		fputs(s, fp);
		return;
	}
	fputc('\'', fp);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			fputs("'\\''", fp);
		else
			fputc(*s, fp);
	}
	fputc('\'', fp);
}

static int
ssh_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct backend *b;
	struct instance in;
	struct config *cfg;
	bool print = false;
	const char *args[64], *identity;
	char port[16], target[128], known[4200], identity_buf[4096];
	int n, rc, k = 0, i;

	rc = cmd_parse(c, argc, argv, handle, &print, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (n == 0)
		return cmd_usage_error(c, "which instance? give an ID from 'gpurent ls'");
	if (n > 40)
		return cmd_usage_error(c, "too many words in the remote command");
	if (session_config(c->s, &cfg, &err) != GR_OK ||
	    session_backend_for(c->s, argv[0], &b, &err) != GR_OK ||
	    backend_require(b->ops, CAP_SSH, NULL, &err) != GR_OK ||
	    b->ops->get(b, argv[0], &in, &err) != GR_OK)
		return cmd_error(c, &err);
	if (!(in.valid & IV_SSH)) {
		gr_fail(&err, GR_EFAIL, "'%s' is %s and has no ssh endpoint yet", in.id,
		    inst_state_name(in.state));
		return cmd_error(c, &err);
	}
	/* Rented machines change host keys with every rental: keep them out of ~/.ssh. */
	snprintf(known, sizeof(known), "UserKnownHostsFile=%s/known_hosts", paths_state_dir());
	snprintf(port, sizeof(port), "%d", in.ssh_port);
	snprintf(target, sizeof(target), "%s@%s", in.ssh_user[0] ? in.ssh_user : "root",
	    in.ssh_host);
	args[k++] = "ssh";
	args[k++] = "-p";
	args[k++] = port;
	args[k++] = "-o";
	args[k++] = "StrictHostKeyChecking=accept-new";
	args[k++] = "-o";
	args[k++] = known;
	/* A script must never hang on a password prompt. */
	if (!isatty(STDIN_FILENO)) {
		args[k++] = "-o";
		args[k++] = "BatchMode=yes";
	}
	identity = config_get(cfg, "ssh.identity");
	if (identity != NULL) {
		/* Copied: the config is freed before exec. */
		strlcpy_(identity_buf, identity, sizeof(identity_buf));
		args[k++] = "-i";
		args[k++] = identity_buf;
	}
	args[k++] = target;
	for (i = 1; i < n; i++)
		args[k++] = argv[i];
	args[k] = NULL;
	if (print) {
		for (i = 0; i < k; i++) {
			if (i)
				fputc(' ', c->out);
			shell_quote(c->out, args[i]);
		}
		fputc('\n', c->out);
		return finish_output(c, 0);
	}
	if (c->in_shell) {
		gr_fail(&err, GR_EUSAGE, "use 'ssh %s --print' inside the shell", in.id);
		return cmd_error(c, &err);
	}
	fflush(NULL);
	if (paths_mkdir(paths_state_dir(), &err) != GR_OK)
		return cmd_error(c, &err);
	session_release(c->s);
	execvp("ssh", (char *const *)args);
	fprintf(stderr, "gpurent: cannot run ssh: %s\n", strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

const struct command cmd_ssh = {
	.name = "ssh",
	.args = "ID [-- COMMAND...]",
	.summary = "open a shell on an instance, or run a command there",
	.help =
	    "Runs the system ssh with the host, port and user the provider reports, and\n"
	    "'-i' from the ssh.identity config key. Host keys go to a known_hosts file in the\n"
	    "state directory. --print prints the command line, quoted for a POSIX shell.",
	.opts = opts,
	.complete_args = CPL_INSTANCE,
	.run = ssh_run,
};
