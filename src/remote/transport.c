/*
 * The ssh transport: one OpenSSH master per endpoint, argv-only command lines, quoting for
 * the remote shell and for rsync's -e, and local child processes that get our signals.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/i18n.h"
#include "gpurent/paths.h"
#include "gpurent/remote.h"

/* How long an idle master stays up after its last user: long enough for a script's next
 * command, short enough not to hold a connection to a machine nobody uses. */
#define CONTROL_PERSIST "60"
/* ssh binds the master socket under a temporary name: path + ".%016llx" (17 bytes). */
#define CONTROL_SUFFIX 17
/* The portable unix socket path limit (macOS and the BSDs; Linux allows 108). */
#define SUN_PATH_PORTABLE 104

void
remote_argv_init(struct remote_argv *a)
{
	a->v = xcalloc(8, sizeof(*a->v));
	a->n = 0;
	a->cap = 8;
}

void
remote_argv_release(struct remote_argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

void
remote_argv_add(struct remote_argv *a, const char *word)
{
	if (a->n + 2 > a->cap) {
		a->cap *= 2;
		a->v = xreallocarray(a->v, a->cap, sizeof(*a->v));
	}
	a->v[a->n++] = xstrdup(word);
	a->v[a->n] = NULL;
}

void
remote_argv_addf(struct remote_argv *a, const char *fmt, ...)
{
	struct sb sb;
	va_list ap;

	sb_init(&sb);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	remote_argv_add(a, sb.buf ? sb.buf : "");
	sb_release(&sb);
}

static bool
only_chars(const char *s, const char *allowed)
{
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr(allowed, *s) != NULL))
			return false;
	return true;
}

enum gr_err
remote_endpoint_check(const struct remote_endpoint *ep, struct gr_error *err)
{
	char shown[200];

	if (ep->host[0] == '\0')
		return gr_fail(err, GR_EFAIL, "'%s' has no ssh endpoint yet", ep->name);
	if (ep->host[0] == '-' || !only_chars(ep->host, ".:-_")) {
		text_sanitize(shown, sizeof(shown), ep->host);
		return gr_fail(err, GR_EFAIL, "the provider gave '%s' the ssh host '%s', which is "
		    "not a host name; refusing to pass it to ssh", ep->name, shown);
	}
	if (ep->user[0] != '\0' && (ep->user[0] == '-' || !only_chars(ep->user, "._-"))) {
		text_sanitize(shown, sizeof(shown), ep->user);
		return gr_fail(err, GR_EFAIL, "the provider gave '%s' the ssh user '%s', which is "
		    "not a user name; refusing to pass it to ssh", ep->name, shown);
	}
	if (ep->port < 1 || ep->port > 65535)
		return gr_fail(err, GR_EFAIL, "the provider gave '%s' the ssh port %d", ep->name,
		    ep->port);
	return GR_OK;
}

/* A directory of our own for sockets when the state directory is too deep for one. */
static enum gr_err
short_socket_dir(char *out, size_t n, struct gr_error *err)
{
	struct stat st;
	const char *tmp = getenv("TMPDIR");

	if (tmp == NULL || *tmp == '\0' || strlen(tmp) > 40)
		tmp = "/tmp";
	snprintf(out, n, "%s/gpurent-%u", tmp, (unsigned)getuid());
	if (mkdir(out, 0700) != 0 && errno != EEXIST)
		return gr_fail(err, GR_ESTATE, "cannot create '%s': %s", out, strerror(errno));
	/* Someone else's directory, or a link planted there, would get our sockets. */
	if (lstat(out, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077) != 0)
		return gr_fail(err, GR_ESTATE, "'%s' is not a private directory of this user; "
		    "set TMPDIR or GPURENT_HOME to a shorter path", out);
	return GR_OK;
}

enum gr_err
remote_control_path(const struct remote_endpoint *ep, char *out, size_t n, struct gr_error *err)
{
	char dir[4200], key[4400];
	uint64_t h;

	/* One master per place and key: two instances behind one address share it. */
	snprintf(key, sizeof(key), "%s@%s:%d %s", ep->user, ep->host, ep->port, ep->identity);
	h = hash_str(key);
	snprintf(dir, sizeof(dir), "%s/cm", ep->state_dir);
	if (strlen(dir) + 1 + 16 + CONTROL_SUFFIX >= SUN_PATH_PORTABLE) {
		if (short_socket_dir(dir, sizeof(dir), err) != GR_OK)
			return err->code;
	} else if (paths_mkdir(dir, err) != GR_OK) {
		return err->code;
	}
	if ((size_t)snprintf(out, n, "%s/%016llx", dir, (unsigned long long)h) >= n)
		return gr_fail(err, GR_ESTATE, "control socket path too long");
	return GR_OK;
}

/* An ssh -o value: double-quoted for ssh's own word splitting, '%' doubled for its tokens. */
static void
ssh_option_path(struct remote_argv *a, const char *key, const char *path)
{
	struct sb sb;
	bool quote = strpbrk(path, " \t\"'\\") != NULL;

	sb_init(&sb);
	sb_addf(&sb, "%s=%s", key, quote ? "\"" : "");
	for (; *path != '\0'; path++) {
		if (*path == '"' || *path == '\\')
			sb_addc(&sb, '\\');
		if (*path == '%')
			sb_addc(&sb, '%');
		sb_addc(&sb, *path);
	}
	if (quote)
		sb_addc(&sb, '"');
	remote_argv_add(a, sb.buf);
	sb_release(&sb);
}

/* Append s in single quotes: inside '...' nothing is special but ' itself, which closes,
 * escapes and reopens. */
static void
shell_quote_always(struct sb *sb, const char *s)
{
	sb_addc(sb, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			sb_adds(sb, "'\\''");
		else
			sb_addc(sb, *s);
	}
	sb_addc(sb, '\'');
}

/* Whether ssh could ask for a passphrase: stdin or a controlling terminal, as ssh opens. */
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

enum gr_err
remote_ssh_options(const struct remote_endpoint *ep, unsigned flags, struct remote_argv *out,
    struct gr_error *err)
{
	char known[4200], ctl[4300];

	if (remote_endpoint_check(ep, err) != GR_OK)
		return err->code;
	remote_argv_add(out, "ssh");
	if (flags & REMOTE_TTY)
		remote_argv_add(out, "-t");
	if (flags & REMOTE_NO_TTY)
		remote_argv_add(out, "-T");
	if (ep->config_file[0] != '\0') {
		remote_argv_add(out, "-F");
		remote_argv_add(out, ep->config_file);
	}
	remote_argv_add(out, "-p");
	remote_argv_addf(out, "%d", ep->port);
	if (ep->identity[0] != '\0') {
		/* -i checks the file before expanding '%' tokens: such a path goes by -o. */
		if (strchr(ep->identity, '%') != NULL) {
			remote_argv_add(out, "-o");
			ssh_option_path(out, "IdentityFile", ep->identity);
		} else {
			remote_argv_add(out, "-i");
			remote_argv_add(out, ep->identity);
		}
		/* Only this key: an agent full of others would exhaust the server's tries. */
		remote_argv_add(out, "-o");
		remote_argv_add(out, "IdentitiesOnly=yes");
	}
	/* Rented machines change host keys with every rental: keep them out of ~/.ssh. */
	snprintf(known, sizeof(known), "%s/known_hosts", ep->state_dir);
	remote_argv_add(out, "-o");
	ssh_option_path(out, "UserKnownHostsFile", known);
	remote_argv_add(out, "-o");
	remote_argv_add(out, "StrictHostKeyChecking=accept-new");
	/* A script must never hang on a prompt; with a terminal to ask on, ssh may ask. */
	if (ep->batch || !have_terminal()) {
		remote_argv_add(out, "-o");
		remote_argv_add(out, "BatchMode=yes");
	}
	remote_argv_add(out, "-o");
	remote_argv_addf(out, "ConnectTimeout=%d", ep->connect_timeout > 0 ?
	    ep->connect_timeout : 15);
	/* A master on a machine that vanished must notice it instead of hanging its users. */
	remote_argv_add(out, "-o");
	remote_argv_add(out, "ServerAliveInterval=15");
	remote_argv_add(out, "-o");
	remote_argv_add(out, "ServerAliveCountMax=4");
	if (flags & REMOTE_OWN_CONNECTION) {
		remote_argv_add(out, "-o");
		remote_argv_add(out, "ControlMaster=no");
		remote_argv_add(out, "-o");
		remote_argv_add(out, "ControlPath=none");
	} else {
		if (remote_control_path(ep, ctl, sizeof(ctl), err) != GR_OK)
			return err->code;
		remote_argv_add(out, "-o");
		remote_argv_add(out, "ControlMaster=auto");
		remote_argv_add(out, "-o");
		ssh_option_path(out, "ControlPath", ctl);
		remote_argv_add(out, "-o");
		remote_argv_add(out, "ControlPersist=" CONTROL_PERSIST);
	}
	return GR_OK;
}

void
remote_add_destination(struct remote_argv *a, const struct remote_endpoint *ep)
{
	if (ep->user[0] != '\0')
		remote_argv_addf(a, "%s@%s", ep->user, ep->host);
	else
		remote_argv_add(a, ep->host);
}

enum gr_err
remote_ssh_argv(const struct remote_endpoint *ep, unsigned flags, const char *const *words,
    size_t n, struct remote_argv *out, struct gr_error *err)
{
	struct sb sb;
	size_t i;

	if (remote_ssh_options(ep, flags, out, err) != GR_OK)
		return err->code;
	remote_add_destination(out, ep);
	if (n == 0)
		return GR_OK;
	/* ssh reads options after the destination too: "--" ends them for good. */
	remote_argv_add(out, "--");
	sb_init(&sb);
	for (i = 0; i < n; i++) {
		sb_reset(&sb);
		/*
		 * sshd runs "$SHELL -c LINE": a LINE that starts with '-' would be an option of
		 * that shell, and a first word with '=' an assignment instead of a command.
		 */
		if (flags & REMOTE_RAW) {
			if (i == 0 && words[0][0] == '-')
				sb_addc(&sb, ' ');
			sb_adds(&sb, words[i]);
		} else if (i == 0 && (words[0][0] == '-' || strchr(words[0], '=') != NULL))
			shell_quote_always(&sb, words[0]);
		else
			remote_shell_quote(&sb, words[i]);
		remote_argv_add(out, sb.buf);
	}
	sb_release(&sb);
	return GR_OK;
}

void
remote_shell_quote(struct sb *sb, const char *s)
{
	if (*s != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789@%+=:,./_-") == strlen(s)) {
		sb_adds(sb, s);
		return;
	}
	shell_quote_always(sb, s);
}

void
remote_rsync_quote(struct sb *sb, const char *s)
{
	/* rsync splits -e at spaces outside quotes; inside '...' a doubled '' is one '. */
	sb_addc(sb, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			sb_addc(sb, '\'');
		sb_addc(sb, *s);
	}
	sb_addc(sb, '\'');
}

/* ---------------------------------------------------------------- local children */

static volatile sig_atomic_t child_pid, passed_on;

/*
 * pipe() and the FD_CLOEXEC that follows are two steps: a thread that forks between them
 * (the exporter and multi-node samples start ssh from several threads at once) hands its
 * child the pipe, and an ssh master that child becomes holds it open for as long as it
 * persists, so the reader waits that long for its end of file. Pipes for children are
 * made under this lock, which remote_spawn holds across its fork.
 */
static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;

int
remote_pipe(int fds[2])
{
	int rc;

	pthread_mutex_lock(&spawn_lock);
	rc = pipe(fds);
	if (rc == 0) {
		fcntl(fds[0], F_SETFD, FD_CLOEXEC);
		fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	}
	pthread_mutex_unlock(&spawn_lock);
	return rc;
}

static void
pass_on(int sig)
{
	passed_on = sig;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

int
remote_spawn(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd, bool new_session,
    struct gr_error *err)
{
	int probe[2], e = 0;
	pid_t pid;
	ssize_t r;

	/* A close-on-exec pipe tells the parent whether execvp worked. */
	pthread_mutex_lock(&spawn_lock);
	if (pipe(probe) != 0) {
		pthread_mutex_unlock(&spawn_lock);
		return gr_fail(err, GR_EFAIL, "pipe: %s", strerror(errno)), -1;
	}
	fcntl(probe[0], F_SETFD, FD_CLOEXEC);
	fcntl(probe[1], F_SETFD, FD_CLOEXEC);
	fflush(NULL);
	pid = fork();
	if (pid != 0)
		pthread_mutex_unlock(&spawn_lock);
	if (pid < 0) {
		close(probe[0]);
		close(probe[1]);
		return gr_fail(err, GR_EFAIL, "fork: %s", strerror(errno)), -1;
	}
	if (pid == 0) {
		sigset_t none;

		close(probe[0]);
		/* gpurent ignores SIGPIPE; ssh, rsync and tar expect the default. */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (new_session)
			setsid();
		if (stdin_fd >= 0 && dup2(stdin_fd, STDIN_FILENO) < 0)
			_exit(127);
		if (stdout_fd >= 0 && dup2(stdout_fd, STDOUT_FILENO) < 0)
			_exit(127);
		if (stderr_fd >= 0 && dup2(stderr_fd, STDERR_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		r = write(probe[1], &e, sizeof(e));
		(void)r;
		_exit(127);
	}
	close(probe[1]);
	do
		r = read(probe[0], &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(probe[0]);
	if (r == (ssize_t)sizeof(e)) {
		waitpid(pid, NULL, 0);
		gr_fail(err, GR_EFAIL, "cannot run %s: %s%s", argv[0], strerror(e),
		    e == ENOENT ? _(" (is it installed?)") : "");
		return -1;
	}
	return (int)pid;
}

/*
 * Copy what the child writes into relay to out until it has ended (EOF, or it exited and
 * nothing more is readable: a process it left behind may hold the pipe); with drop, none
 * of what comes once a signal was passed on to it: a child's complaint about the Ctrl-C it
 * was given ("rsync error: unexplained error") is gpurent's to say, in its words.
 */
static void
relay_until_exit(int relay, int out, pid_t pid, bool drop, int *status, bool *reaped)
{
	struct pollfd p = { .fd = relay, .events = POLLIN };
	char buf[4096];
	ssize_t r, w;
	int n;

	for (;;) {
		n = poll(&p, 1, *reaped ? 0 : 100);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0) {
			r = read(relay, buf, sizeof(buf));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			for (w = 0; !(drop && passed_on != 0) && w < r; ) {
				ssize_t k = write(out, buf + w, (size_t)(r - w));

				if (k < 0 && errno != EINTR)
					break;
				w += k > 0 ? k : 0;
			}
			continue;
		}
		if (*reaped)
			break;
		if (n == 0 && waitpid(pid, status, WNOHANG) == pid)
			*reaped = true;
	}
}

/* remote_wait, relaying the child's output from relay (-1: none) as relay_until_exit. */
static int
wait_relaying(int pid, int relay, int out)
{
	struct sigaction sa, old_int, old_term, old_hup;
	int status = 0;
	bool reaped = false;
	pid_t r = pid;

	/* Dispositions are the whole process's: only its main thread may swap them. */
	if ((pid_t)syscall(SYS_gettid) != getpid()) {
		if (relay >= 0)
			relay_until_exit(relay, out, pid, false, &status, &reaped);
		while (!reaped && (r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (r < 0)
			return 127;
		return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pass_on;
	sigemptyset(&sa.sa_mask);
	child_pid = pid;
	passed_on = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	if (relay >= 0)
		relay_until_exit(relay, out, pid, true, &status, &reaped);
	while (!reaped && (r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	child_pid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	/*
	 * The signal was gpurent's too: hand it to the handlers it had, or a loop that spawns
	 * ssh (the exporter, a follow) never learns it was asked to stop.
	 */
	if (passed_on != 0)
		raise(passed_on);
	if (r < 0)
		return 127;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	/* ssh exits 255 on SIGINT: say it was the signal, not the connection. */
	if (passed_on != 0 && WEXITSTATUS(status) != 0)
		return 128 + passed_on;
	return WEXITSTATUS(status);
}

int
remote_wait(int pid)
{
	return wait_relaying(pid, -1, -1);
}

int
remote_spawn_wait(char *const argv[], int stdout_fd, struct gr_error *err)
{
	int pid = remote_spawn(argv, -1, stdout_fd, -1, false, err);

	return pid < 0 ? 127 : remote_wait(pid);
}

int
remote_spawn_relay(char *const argv[], struct gr_error *err)
{
	int fds[2], pid, rc;

	if (remote_pipe(fds) != 0)
		return gr_fail(err, GR_EFAIL, "pipe: %s", strerror(errno)), 127;
	pid = remote_spawn(argv, -1, fds[1], fds[1], false, err);
	close(fds[1]);
	rc = pid < 0 ? 127 : wait_relaying(pid, fds[0], STDERR_FILENO);
	close(fds[0]);
	return rc;
}

/* ---------------------------------------------------------------- the master */

/* Turn what ssh said when it could not connect into the error the user needs. */
static enum gr_err
connect_failure(const struct remote_endpoint *ep, const char *said, int status,
    struct gr_error *err)
{
	char where[200], line[300];
	const char *last, *end;

	snprintf(where, sizeof(where), "%s%s%s port %d", ep->user, ep->user[0] ? "@" : "",
	    ep->host, ep->port);
	/* ssh's last line is its verdict. */
	end = said + strlen(said);
	while (end > said && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	for (last = end; last > said && last[-1] != '\n'; last--)
		;
	snprintf(line, sizeof(line), "%.*s", (int)(end - last), last);
	text_sanitize(line, sizeof(line), line);
	if (strstr(said, "Permission denied") != NULL)
		return gr_fail(err, GR_EAUTH, "%s (%s) refused the key %s%s%s: %s", ep->name, where,
		    ep->identity[0] ? "'" : "", ep->identity[0] ? ep->identity : "ssh offered",
		    ep->identity[0] ? "'" : "", line);
	if (strstr(said, "IDENTIFICATION HAS CHANGED") != NULL ||
	    strstr(said, "Host key verification failed") != NULL)
		return gr_fail(err, GR_EAUTH, "the host key of %s (%s) is not the one recorded in "
		    "'%s/known_hosts'; if the machine was re-rented, remove its line there",
		    ep->name, where, ep->state_dir);
	if (strstr(said, "timed out") != NULL || status == -2)
		return gr_fail(err, GR_ETIMEOUT, "connecting to %s (%s) timed out", ep->name,
		    where);
	if (strstr(said, "Connection refused") != NULL)
		return gr_fail(err, GR_EUNAVAIL, "nothing accepts ssh on %s (%s) yet: connection "
		    "refused (the machine may still be booting)", ep->name, where);
	if (strstr(said, "Could not resolve") != NULL)
		return gr_fail(err, GR_EUNAVAIL, "the ssh host of %s (%s) does not resolve",
		    ep->name, where);
	return gr_fail(err, GR_EUNAVAIL, "cannot connect to %s (%s): %s", ep->name, where,
	    line[0] ? line : _("ssh failed"));
}

/* Read fd to the end into sb (at most max bytes kept), waiting at most deadline_ms. */
static bool
read_all(int fd, struct sb *sb, size_t max, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec t0, t;
	char buf[4096];
	ssize_t r;
	long spent;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		spent = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (timeout_ms >= 0 && spent >= timeout_ms)
			return false;
		if (poll(&p, 1, timeout_ms < 0 ? -1 : (int)(timeout_ms - spent)) < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return true;
		if (sb->len < max)
			sb_add(sb, buf, (size_t)r < max - sb->len ? (size_t)r : max - sb->len);
	}
}

/* 0 when a master for ep answers on its socket. */
static int
master_check(struct remote_argv *opts, const struct remote_endpoint *ep)
{
	struct remote_argv a;
	struct gr_error e = { 0 };
	size_t i;
	int null, pid, rc;

	remote_argv_init(&a);
	for (i = 0; i < opts->n; i++)
		remote_argv_add(&a, opts->v[i]);
	remote_argv_add(&a, "-O");
	remote_argv_add(&a, "check");
	remote_add_destination(&a, ep);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid = remote_spawn(a.v, null, null, null, false, &e);
	rc = pid < 0 ? 127 : remote_wait(pid);
	if (null >= 0)
		close(null);
	remote_argv_release(&a);
	return rc;
}

enum gr_err
remote_connect(const struct remote_endpoint *ep, struct gr_error *err)
{
	struct remote_argv a;
	struct sb said;
	int pipefd[2], null, pid, rc, timeout;
	bool done;

	remote_argv_init(&a);
	if (remote_ssh_options(ep, 0, &a, err) != GR_OK ||
	    paths_mkdir(ep->state_dir, err) != GR_OK) {
		remote_argv_release(&a);
		return err->code;
	}
	if (master_check(&a, ep) == 0) {
		remote_argv_release(&a);
		return GR_OK;
	}
	/* -N -f: authenticate, then leave the master in the background (ControlPersist). */
	remote_argv_add(&a, "-N");
	remote_argv_add(&a, "-f");
	remote_add_destination(&a, ep);
	if (remote_pipe(pipefd) != 0) {
		remote_argv_release(&a);
		return gr_fail(err, GR_EFAIL, "pipe: %s", strerror(errno));
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid = remote_spawn(a.v, null, null, pipefd[1], false, err);
	close(pipefd[1]);
	if (null >= 0)
		close(null);
	remote_argv_release(&a);
	if (pid < 0) {
		close(pipefd[0]);
		return err->code;
	}
	sb_init(&said);
	/* ConnectTimeout bounds the connection, not a server that stalls after it. */
	timeout = (ep->connect_timeout > 0 ? ep->connect_timeout : 15) * 2 + 10;
	done = read_all(pipefd[0], &said, 8192, timeout * 1000);
	close(pipefd[0]);
	if (!done)
		kill(pid, SIGTERM);
	rc = remote_wait(pid);
	if (!done || rc != 0)
		connect_failure(ep, said.buf ? said.buf : "", done ? rc : -2, err);
	sb_release(&said);
	return err->code != GR_OK ? err->code : GR_OK;
}

int
remote_run(const struct remote_endpoint *ep, unsigned flags, const char *const *words, size_t n,
    struct gr_error *err)
{
	struct remote_argv a;
	int pid;

	if (!(flags & REMOTE_OWN_CONNECTION) && remote_connect(ep, err) != GR_OK)
		return REMOTE_EXIT_CONN;
	remote_argv_init(&a);
	if (remote_ssh_argv(ep, flags, words, n, &a, err) != GR_OK) {
		remote_argv_release(&a);
		return REMOTE_EXIT_CONN;
	}
	pid = remote_spawn(a.v, -1, -1, -1, false, err);
	remote_argv_release(&a);
	return pid < 0 ? REMOTE_EXIT_CONN : remote_wait(pid);
}

int
remote_capture(const struct remote_endpoint *ep, const char *const *words, size_t n,
    struct sb *out, size_t max, struct gr_error *err)
{
	struct remote_argv a;
	int pipefd[2], null, pid;

	if (remote_connect(ep, err) != GR_OK)
		return REMOTE_EXIT_CONN;
	remote_argv_init(&a);
	if (remote_ssh_argv(ep, REMOTE_NO_TTY, words, n, &a, err) != GR_OK) {
		remote_argv_release(&a);
		return REMOTE_EXIT_CONN;
	}
	if (remote_pipe(pipefd) != 0) {
		remote_argv_release(&a);
		gr_fail(err, GR_EFAIL, "pipe: %s", strerror(errno));
		return REMOTE_EXIT_CONN;
	}
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	pid = remote_spawn(a.v, null, pipefd[1], -1, false, err);
	close(pipefd[1]);
	if (null >= 0)
		close(null);
	remote_argv_release(&a);
	if (pid < 0) {
		close(pipefd[0]);
		return REMOTE_EXIT_CONN;
	}
	read_all(pipefd[0], out, max, -1);
	close(pipefd[0]);
	return remote_wait(pid);
}
