/*
 * secret.c - getting a secret into sodium_malloc'd memory: a no-echo terminal prompt,
 * standard input, or a password manager's command. Nothing passes through stdio buffers.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <sodium.h>

#include "gpurent/util.h"
#include "gpurent/vault.h"
#include "vault_int.h"

#define SECRET_MAX 8192

static volatile sig_atomic_t got_sigint;

static void
on_sigint(int sig)
{
	(void)sig;
	got_sigint = 1;
}

/* Drop leading and trailing white space in place, and cut at the first line end. */
static void
trim_secret(char *s)
{
	char *p = s, *nl;
	size_t n, total;

	if ((nl = strpbrk(s, "\r\n")) != NULL)
		*nl = '\0';
	total = strlen(s);
	while (*p == ' ' || *p == '\t')
		p++;
	n = strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	memmove(s, p, n);
	sodium_memzero(s + n, total - n);
}

/*
 * Read from fd into buf (cap bytes, NUL-terminated) until a line end or end of file.
 * Returns 0, -1 on an error, -2 when the input is too long, -3 on SIGINT.
 */
static int
read_line_fd(int fd, char *buf, size_t cap, bool stop_at_eol)
{
	size_t len = 0;
	ssize_t r;
	char scratch[256];

	buf[0] = '\0';
	for (;;) {
		if (len + 1 >= cap) {
			/* Drain the rest so a writer is not left blocked, but keep nothing. */
			while ((r = read(fd, scratch, sizeof(scratch))) > 0)
				sodium_memzero(scratch, sizeof(scratch));
			sodium_memzero(scratch, sizeof(scratch));
			return -2;
		}
		r = read(fd, buf + len, cap - 1 - len);
		if (r < 0) {
			if (errno == EINTR) {
				if (got_sigint)
					return -3;
				continue;
			}
			return -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		buf[len] = '\0';
		if (stop_at_eol && memchr(buf, '\n', len) != NULL)
			break;
	}
	buf[len] = '\0';
	return 0;
}

bool
vault_have_tty(void)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * Read a line from fd with echo off when fd is a terminal. Ctrl-C is caught for the
 * duration so the terminal's echo is always restored.
 */
static int
read_noecho(int fd, const char *prompt, char *buf, size_t cap, bool stop_at_eol)
{
	struct termios old, raw;
	struct sigaction sa, old_int, old_term, old_quit;
	bool tty = isatty(fd), restore = false;
	int r;

	got_sigint = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: read() must return on Ctrl-C */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGQUIT, &sa, &old_quit);

	if (tty && tcgetattr(fd, &old) == 0) {
		raw = old;
		raw.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		raw.c_lflag |= ICANON | ISIG;
		if (tcsetattr(fd, TCSAFLUSH, &raw) == 0)
			restore = true;
	}
	if (prompt != NULL)
		write_all(fd, prompt, strlen(prompt));
	r = read_line_fd(fd, buf, cap, stop_at_eol);
	if (restore) {
		tcsetattr(fd, TCSAFLUSH, &old);
		write_all(fd, "\n", 1);
	}
	sodium_memzero(&raw, sizeof(raw));

	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (got_sigint)
		r = -3;
	return r;
}

enum gr_err
vault_read_secret(const char *prompt, bool from_stdin, char **out, struct gr_error *err)
{
	char *buf;
	int fd, r;

	*out = NULL;
	if (vault_init(err) != GR_OK)
		return GR_EFAIL;
	buf = vault_secure_alloc(SECRET_MAX);
	if (from_stdin) {
		fd = STDIN_FILENO;
		/* A key typed on a terminal with --stdin is still not echoed. */
		r = isatty(fd) ? read_noecho(fd, NULL, buf, SECRET_MAX, true) :
		    read_line_fd(fd, buf, SECRET_MAX, true);
	} else {
		fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			sodium_free(buf);
			return gr_fail(err, GR_EUSAGE,
			    "no terminal to read the secret from (use --stdin)");
		}
		r = read_noecho(fd, prompt, buf, SECRET_MAX, true);
		close(fd);
	}
	switch (r) {
	case 0:
		break;
	case -2:
		sodium_free(buf);
		return gr_fail(err, GR_EUSAGE, "secret too long (more than %d bytes)",
		    SECRET_MAX - 2);
	case -3:
		sodium_free(buf);
		return gr_fail(err, GR_EINTERRUPTED, "interrupted");
	default:
		sodium_free(buf);
		return gr_fail(err, GR_EFAIL, "cannot read the secret: %s", strerror(errno));
	}
	trim_secret(buf);
	if (buf[0] == '\0') {
		sodium_free(buf);
		return gr_fail(err, GR_EUSAGE, "empty secret");
	}
	*out = buf;
	return GR_OK;
}

enum gr_err
vault_run_command(const char *cmd, char **out, struct gr_error *err)
{
	int pfd[2], status, r;
	pid_t pid;
	char *buf;

	*out = NULL;
	if (vault_init(err) != GR_OK)
		return GR_EFAIL;
	if (pipe(pfd) != 0)
		return gr_fail(err, GR_EFAIL, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return gr_fail(err, GR_EFAIL, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* stdin and stderr stay, so a pinentry or `op signin` can talk to the user. */
		close(pfd[0]);
		if (dup2(pfd[1], STDOUT_FILENO) < 0)
			_exit(127);
		if (pfd[1] != STDOUT_FILENO)
			close(pfd[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	buf = vault_secure_alloc(SECRET_MAX);
	got_sigint = 0;
	r = read_line_fd(pfd[0], buf, SECRET_MAX, false);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		sodium_free(buf);
		if (status != -1 && WIFEXITED(status))
			return gr_fail(err, GR_EAUTH,
			    "passphrase command '%s' failed (exit status %d)", cmd,
			    WEXITSTATUS(status));
		return gr_fail(err, GR_EAUTH, "passphrase command '%s' did not finish", cmd);
	}
	if (r != 0) {
		sodium_free(buf);
		return gr_fail(err, GR_EAUTH, "cannot read the output of passphrase command '%s'",
		    cmd);
	}
	trim_secret(buf);
	if (buf[0] == '\0') {
		sodium_free(buf);
		return gr_fail(err, GR_EAUTH, "passphrase command '%s' printed nothing", cmd);
	}
	*out = buf;
	return GR_OK;
}
