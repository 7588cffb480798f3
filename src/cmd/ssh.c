/*
 * gpurent ssh: run the system ssh against an instance's endpoint.
 *
 * ssh re-reads options after the destination (`ssh host -oProxyCommand=x` is an option), so
 * the argv is "ssh OPTIONS DESTINATION -- REMOTE...": the "--" after the destination ends
 * ssh's options for good, and nothing from the provider may start with '-'.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/config.h"
#include "gpurent/paths.h"
#include "gpurent/util.h"
#include "common.h"

enum { S_PRINT = 1 };

#define MAX_REMOTE_WORDS 40

static const struct cmd_opt opts[] = {
	{ "print", 0, NULL, "print the ssh command line instead of running it", S_PRINT, CPL_NONE, false },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, false },
};

/* Bytes a word may hold unquoted: on the remote shell ('=' could make an assignment) ... */
static const char SAFE_REMOTE[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "0123456789@%+:,./-_";
/* ... and in the --print line, where the first word is always ssh. */
static const char SAFE_PRINT[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "0123456789@%+=:,./-_";

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	(void)c; (void)id; (void)arg;
	*(bool *)data = true;
	return 0;
}

/*
 * Append s quoted for a POSIX shell: as it is when every byte is in safe, else in single
 * quotes.
 */
static void
shell_quote(struct sb *out, const char *s, const char *safe)
{
	if (*s != '\0' && strspn(s, safe) == strlen(s)) {
		sb_adds(out, s);
		return;
	}
	sb_addc(out, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			sb_adds(out, "'\\''");
		else
			sb_addc(out, *s);
	}
	sb_addc(out, '\'');
}

/* Whether s is non-empty, does not start with '-' and holds only bytes of allowed. */
static bool
endpoint_word_ok(const char *s, const char *allowed)
{
	return s[0] != '\0' && s[0] != '-' && strspn(s, allowed) == strlen(s);
}

/* Refuse an endpoint ssh could read as an option or that names more than one host. */
static enum gr_err
check_endpoint(const struct instance *in, struct gr_error *err)
{
	static const char host_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789.-_:[]%";
	static const char user_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789.-_";
	char shown[80];

	if (!endpoint_word_ok(in->ssh_host, host_chars))
		return gr_fail(err, GR_EFAIL, "refusing the ssh host '%s' that the provider "
		    "reports for '%s': a host name is letters, digits, '.', '-', ':' and does "
		    "not start with '-'", text_sanitize(shown, sizeof(shown), in->ssh_host), in->id);
	if (in->ssh_user[0] != '\0' && !endpoint_word_ok(in->ssh_user, user_chars))
		return gr_fail(err, GR_EFAIL, "refusing the ssh user '%s' that the provider "
		    "reports for '%s': a user name is letters, digits, '.', '_', '-' and does not "
		    "start with '-'", text_sanitize(shown, sizeof(shown), in->ssh_user), in->id);
	if (in->ssh_port < 1 || in->ssh_port > 65535)
		return gr_fail(err, GR_EFAIL, "refusing the ssh port %d that the provider reports "
		    "for '%s'", in->ssh_port, in->id);
	return GR_OK;
}

/* Whether ssh could ask for a passphrase: a controlling terminal, as ssh itself opens. */
static bool
have_terminal(void)
{
	int fd;

	if (isatty(STDIN_FILENO))
		return true;
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int
ssh_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct backend *b;
	struct instance in;
	struct config *cfg;
	struct sb line, remote[MAX_REMOTE_WORDS];
	bool print = false;
	const char *args[32 + MAX_REMOTE_WORDS], *identity;
	char port[16], target[128], known[4200], identity_buf[4096];
	int n, rc, k = 0, i, nr;

	rc = cmd_parse(c, argc, argv, handle, &print, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (n == 0)
		return cmd_usage_error(c, "which instance? give an ID from 'gpurent ls'");
	nr = n - 1;
	if (nr > MAX_REMOTE_WORDS)
		return cmd_usage_error(c, "too many words in the remote command (at most %d)",
		    MAX_REMOTE_WORDS);
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
	if (check_endpoint(&in, &err) != GR_OK)
		return cmd_error(c, &err);
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
	/* Without a terminal a script must never hang on a prompt; with one, ssh may ask. */
	if (!have_terminal()) {
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
	/*
	 * ssh joins the remote words with spaces for the remote shell. One word is a command
	 * line for that shell (pipes work); several are an argv, each quoted so the shell
	 * hands it over as it was typed.
	 */
	for (i = 0; i < nr; i++) {
		sb_init(&remote[i]);
		/* sshd runs "$SHELL -c LINE": a LINE starting with '-' would be an option. */
		if (nr > 1)
			shell_quote(&remote[i], argv[1 + i], i == 0 && argv[1][0] == '-' ? "" :
			    SAFE_REMOTE);
		else {
			if (argv[1][0] == '-')
				sb_addc(&remote[i], ' ');
			sb_adds(&remote[i], argv[1]);
		}
	}
	if (nr > 0)
		args[k++] = "--";
	for (i = 0; i < nr; i++)
		args[k++] = remote[i].buf;
	args[k] = NULL;
	if (print) {
		sb_init(&line);
		for (i = 0; i < k; i++) {
			if (i)
				sb_addc(&line, ' ');
			shell_quote(&line, args[i], SAFE_PRINT);
		}
		fprintf(c->out, "%s\n", line.buf);
		sb_release(&line);
		rc = finish_output(c, 0);
		goto done;
	}
	if (c->in_shell) {
		gr_fail(&err, GR_EUSAGE, "use 'ssh %s --print' inside the shell", in.id);
		rc = cmd_error(c, &err);
		goto done;
	}
	fflush(NULL);
	if (paths_mkdir(paths_state_dir(), &err) != GR_OK) {
		rc = cmd_error(c, &err);
		goto done;
	}
	session_release(c->s);
	execvp("ssh", (char *const *)args);
	fprintf(stderr, "gpurent: cannot run ssh: %s\n", strerror(errno));
	rc = errno == ENOENT ? 127 : 126;
done:
	for (i = 0; i < nr; i++)
		sb_release(&remote[i]);
	return rc;
}

const struct command cmd_ssh = {
	.name = "ssh",
	.args = "ID [-- COMMAND...]",
	.summary = "open a shell on an instance, or run a command there",
	.help =
	    "Runs the system ssh with the host, port and user the provider reports, and\n"
	    "'-i' from the ssh.identity config key. Host keys go to a known_hosts file in the\n"
	    "state directory. One COMMAND word is a command line for the remote shell\n"
	    "(-- 'nvidia-smi | head'); several are passed as they are, each quoted for the\n"
	    "remote shell (-- echo 'a b; c' prints a b; c). BatchMode=yes only when there is\n"
	    "no terminal to ask on. --print prints the command line, quoted for a POSIX shell.",
	.opts = opts,
	.complete_args = CPL_INSTANCE,
	.run = ssh_run,
};
