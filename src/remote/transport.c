/*
 * The ssh transport: one OpenSSH master per endpoint, argv-only command lines, quoting for
 * the remote shell and for rsync's -e, and local child processes that get our signals.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/atomic.h"
#include "gpurent/i18n.h"
#include "gpurent/paths.h"
#include "gpurent/remote.h"

/* A control socket's path, and the files beside it (".users", ".start", ".log"). */
#define CONTROL_PATH_MAX 4300
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
	XRELEASE(a->v, a->n, a->cap);
}

/* word, which a now owns, at the end of a, before its NULL. */
static void
argv_push(struct remote_argv *a, char *word)
{
	if (a->n + 2 > a->cap) {
		a->cap *= 2;
		a->v = xreallocarray(a->v, a->cap, sizeof(*a->v));
	}
	a->v[a->n++] = word;
	a->v[a->n] = NULL;
}

void
remote_argv_add(struct remote_argv *a, const char *word)
{
	argv_push(a, xstrdup(word));
}

void
remote_argv_addf(struct remote_argv *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	argv_push(a, xvasprintf(fmt, ap));
	va_end(ap);
}

static bool
name_char(char c, const char *allowed)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr(allowed, c) != NULL);
}

static bool
only_chars(const char *s, const char *allowed)
{
	for (; *s != '\0'; s++)
		if (!name_char(*s, allowed))
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

/* The directory of the control sockets for a state directory (created when create is set;
 * the short one in /tmp always is, and checked). */
static enum gr_err
control_dir(const char *state_dir, bool create, char *out, size_t n, struct gr_error *err)
{
	snprintf(out, n, "%s/cm", state_dir);
	if (strlen(out) + 1 + 16 + CONTROL_SUFFIX >= SUN_PATH_PORTABLE)
		return short_socket_dir(out, n, err);
	return create ? paths_mkdir(out, err) : GR_OK;
}

enum gr_err
remote_control_path(const struct remote_endpoint *ep, char *out, size_t n, struct gr_error *err)
{
	char dir[4200], key[4400];
	uint64_t h;

	/* One master per place and key: two instances behind one address share it. */
	snprintf(key, sizeof(key), "%s@%s:%d %s", ep->user, ep->host, ep->port, ep->identity);
	h = hash_str(key);
	if (control_dir(ep->state_dir, true, dir, sizeof(dir), err) != GR_OK)
		return err->code;
	if ((size_t)snprintf(out, n, "%s/%016llx", dir, (unsigned long long)h) >= n)
		return gr_fail(err, GR_ESTATE, "control socket path too long");
	return GR_OK;
}

void
remote_config_quote(struct sb *sb, const char *path)
{
	bool quote = strpbrk(path, " \t\"'\\") != NULL;

	if (quote)
		sb_addc(sb, '"');
	for (; *path != '\0'; path++) {
		if (*path == '"' || *path == '\\')
			sb_addc(sb, '\\');
		if (*path == '%')
			sb_addc(sb, '%');
		sb_addc(sb, *path);
	}
	if (quote)
		sb_addc(sb, '"');
}

/* An ssh -o value: KEY=PATH, PATH as remote_config_quote writes it. */
static void
ssh_option_path(struct remote_argv *a, const char *key, const char *path)
{
	struct sb sb;

	sb_init(&sb);
	sb_addf(&sb, "%s=", key);
	remote_config_quote(&sb, path);
	remote_argv_add(a, sb.buf);
	sb_release(&sb);
}

void
remote_pin_path(const char *state_dir, const char *id, char *out, size_t n)
{
	struct sb sb;
	bool changed = false;
	const char *p;

	sb_init(&sb);
	sb_addf(&sb, "%s/hostkeys/", state_dir);
	for (p = id; *p != '\0'; p++) {
		/* No leading '.': ".." would leave the directory. */
		bool ok = name_char(*p, "._:-") && !(p == id && *p == '.');

		sb_addc(&sb, ok ? *p : '_');
		changed |= !ok;
	}
	if (changed || *id == '\0')
		sb_addf(&sb, "-%016llx", (unsigned long long)hash_str(id));
	strlcpy_(out, sb.buf, n);
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

/* The options of remote_ssh_options, for a client of the master or for the master itself. */
static enum gr_err
ssh_options(const struct remote_endpoint *ep, unsigned flags, bool master,
    struct remote_argv *out, struct gr_error *err)
{
	char known[4400], dir[4200], ctl[CONTROL_PATH_MAX];

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
	/*
	 * Rented machines change host keys with every rental, and one address serves many
	 * instances over time: keys are pinned per instance, out of ~/.ssh.
	 */
	remote_pin_path(ep->state_dir, ep->name, known, sizeof(known));
	snprintf(dir, sizeof(dir), "%s/hostkeys", ep->state_dir);
	if (paths_mkdir(dir, err) != GR_OK)
		return err->code;
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
		/*
		 * Only remote_connect starts a master, in the foreground under its watchdog (see
		 * "the master" below); a client that finds none connects on its own rather than
		 * become a master that nobody watches.
		 */
		remote_argv_add(out, "-o");
		remote_argv_add(out, master ? "ControlMaster=yes" : "ControlMaster=no");
		remote_argv_add(out, "-o");
		ssh_option_path(out, "ControlPath", ctl);
		if (master) {
			remote_argv_add(out, "-o");
			remote_argv_add(out, "ControlPersist=no");
		}
	}
	return GR_OK;
}

enum gr_err
remote_ssh_options(const struct remote_endpoint *ep, unsigned flags, struct remote_argv *out,
    struct gr_error *err)
{
	return ssh_options(ep, flags, false, out, err);
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

/* What execvp's errno e means to the user who asked for program. */
static enum gr_err
exec_failure(const char *program, int e, struct gr_error *err)
{
	return gr_fail(err, GR_EFAIL, "cannot run %s: %s%s", program, strerror(e),
	    e == ENOENT ? _(" (is it installed?)") : "");
}

static void
pass_on(int sig)
{
	passed_on = sig;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/*
 * The child's half of a close-on-exec probe pipe: exec argv, or tell the parent why not.
 * Only system calls, so a fork of a threaded process (the watchdog's) may call it.
 */
static void
exec_or_report(char *const argv[], int probe_w)
{
	int e;
	ssize_t r;

	execvp(argv[0], argv);
	e = errno;
	r = write(probe_w, &e, sizeof(e));
	(void)r;
	_exit(127);
}

/* The parent's half: 0 once the child has exec'd, else the errno its exec failed with. */
static int
exec_outcome(int probe_r)
{
	int e = 0;
	ssize_t r;

	do
		r = read(probe_r, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(probe_r);
	return r == (ssize_t)sizeof(e) ? e : 0;
}

int
remote_spawn(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd, bool new_session,
    struct gr_error *err)
{
	int probe[2], e;
	pid_t pid;

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
		exec_or_report(argv, probe[1]);
	}
	close(probe[1]);
	if ((e = exec_outcome(probe[0])) != 0) {
		waitpid(pid, NULL, 0);
		exec_failure(argv[0], e, err);
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

/* Whether ssh refused the host because its key is not the one pinned. */
static bool
host_key_changed(const char *said)
{
	return strstr(said, "IDENTIFICATION HAS CHANGED") != NULL ||
	    strstr(said, "Host key verification failed") != NULL;
}

/* Turn what ssh said when it could not connect into the error the user needs. */
static enum gr_err
connect_failure(const struct remote_endpoint *ep, const char *said, int status,
    struct gr_error *err)
{
	char where[200], line[300], pin[4400];
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
	if (host_key_changed(said)) {
		remote_pin_path(ep->state_dir, ep->name, pin, sizeof(pin));
		return gr_fail(err, GR_EAUTH, "the host key of %s (%s) is not the one pinned for "
		    "it in '%s', and its provider %s: refusing to connect (a changed key on a "
		    "machine that was not restarted is what an attack looks like); if you know "
		    "why it changed, remove that file to trust the new key", ep->name, where, pin,
		    ep->started_at > 0 ? _("reports no restart since the key was recorded") :
		    _("does not say when it was last started"));
	}
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

/*
 * A master lives as long as some gpurent uses it, and never longer than its socket.
 *
 * Every gpurent that uses the master at CTL holds a shared flock on CTL.users until it ends;
 * the kernel drops it however the process ends, kill -9 included. The master is not left to
 * ControlPersist, whose clock starts at its last client: a master whose socket was deleted,
 * or one still holding a session, would live on with nothing to reach or end it. Instead it
 * runs in the foreground (ControlPersist=no) as the only child of a watchdog, a fork of the
 * gpurent that started it (in a session of its own once the master listens). Once a second
 * the watchdog ends the master when its socket is gone or replaced (its directory removed),
 * or when it can take CTL.users exclusively: no gpurent uses it any more. A gpurent that
 * ends normally closes at once (ssh -O exit) the masters it was the last user of, and every
 * gpurent first closes those that nobody holds and whose watchdog was killed too
 * (remote_sweep_masters). Starts are serialised by CTL.start: two masters started for one
 * socket (two exporter lanes on two instances behind one address) would leave the loser
 * running with no socket at all.
 */

/* The masters this process uses: their sockets and the descriptions holding CTL.users. */
struct used_master {
	char ctl[CONTROL_PATH_MAX];
	int users_fd;
};
static struct used_master *used;
static size_t n_used, cap_used;
static pid_t used_by;
static pthread_mutex_t used_lock = PTHREAD_MUTEX_INITIALIZER;

/* How often the watchdog looks, while the master connects and once it runs. */
#define WATCH_CONNECTING_MS 50
#define WATCH_RUNNING_MS 1000

/* Open (creating) CTL<suffix> and take how on it, waiting; the descriptor or -1 (err set). */
static int
lock_beside(const char *ctl, const char *suffix, int how, struct gr_error *err)
{
	char path[CONTROL_PATH_MAX + 16];
	int fd;

	snprintf(path, sizeof(path), "%s%s", ctl, suffix);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return gr_fail(err, GR_ESTATE, "cannot open '%s': %s", path, strerror(errno)), -1;
	while (flock(fd, how) != 0) {
		if (errno != EINTR) {
			gr_fail(err, GR_ESTATE, "cannot open '%s': %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* ssh -O exit on the master at ctl (ssh talks to the socket only: no host, no config). */
static int
master_exit(const char *ctl)
{
	struct remote_argv a;
	struct gr_error e = { 0 };
	int null, pid, status = 0;

	remote_argv_init(&a);
	remote_argv_add(&a, "ssh");
	remote_argv_add(&a, "-F");
	remote_argv_add(&a, "/dev/null");
	remote_argv_add(&a, "-o");
	ssh_option_path(&a, "ControlPath", ctl);
	remote_argv_add(&a, "-O");
	remote_argv_add(&a, "exit");
	remote_argv_add(&a, "gpurent-master");
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid = remote_spawn(a.v, null, null, null, false, &e);
	if (null >= 0)
		close(null);
	remote_argv_release(&a);
	if (pid < 0)
		return 127;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* At a normal end: let go of every master, closing those that no other gpurent uses. */
static void
close_used_masters(void)
{
	struct stat st;
	size_t i;

	/* A forked child that calls exit() owns nothing. */
	if (getpid() != used_by)
		return;
	pthread_mutex_lock(&used_lock);
	for (i = 0; i < n_used; i++) {
		/* The shared lock turns exclusive only when nobody else holds one. */
		if (flock(used[i].users_fd, LOCK_EX | LOCK_NB) == 0 &&
		    lstat(used[i].ctl, &st) == 0 && S_ISSOCK(st.st_mode))
			master_exit(used[i].ctl);
		close(used[i].users_fd);
	}
	free(used);
	used = NULL;
	n_used = cap_used = 0;
	pthread_mutex_unlock(&used_lock);
}

/* Hold ctl's master as this process's, until it ends. */
static enum gr_err
master_use(const char *ctl, struct gr_error *err)
{
	size_t i;
	int fd;

	pthread_mutex_lock(&used_lock);
	for (i = 0; i < n_used; i++) {
		if (strcmp(used[i].ctl, ctl) == 0) {
			pthread_mutex_unlock(&used_lock);
			return GR_OK;
		}
	}
	fd = lock_beside(ctl, ".users", LOCK_SH, err);
	if (fd < 0) {
		pthread_mutex_unlock(&used_lock);
		return err->code;
	}
	if (used_by != getpid()) {
		if (used_by == 0)
			atexit(close_used_masters);
		used_by = getpid();
	}
	if (n_used == cap_used) {
		cap_used = cap_used ? cap_used * 2 : 4;
		used = xreallocarray(used, cap_used, sizeof(*used));
	}
	strlcpy_(used[n_used].ctl, ctl, sizeof(used[n_used].ctl));
	used[n_used++].users_fd = fd;
	pthread_mutex_unlock(&used_lock);
	return GR_OK;
}

/* What the watchdog tells remote_connect about the master it started. */
struct master_report {
	enum { MASTER_READY, MASTER_EXITED, MASTER_TIMED_OUT, MASTER_NOT_RUN } what;
	int value;	/* MASTER_EXITED: ssh's status; MASTER_NOT_RUN: execvp's errno */
};

/* What the watchdog works with: made before the fork, as it may only make system calls. */
struct watchdog {
	char *const *argv;	/* the master's ssh command line */
	const char *ctl;
	int report, log, null, users;	/* users: a description of its own, never shared */
	int timeout_ms;
	long max_fd;
};

static volatile sig_atomic_t watchdog_stopping;

static void
watchdog_stop(int sig)
{
	watchdog_stopping = sig;
}

static long
ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void
pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

/* The watchdog's descriptors at 3, 4, 5, 6 and nothing else of its parent's (sockets it
 * listens on, other masters' locks), so that nothing outlives the parent in it. */
static void
watchdog_own_fds(struct watchdog *w)
{
	int *keep[] = { &w->report, &w->log, &w->null, &w->users };
	size_t i;
	long fd;

	/* Above every descriptor it may clobber first, then down to 3.. in order. */
	for (i = 0; i < ARRAY_LEN(keep); i++)
		*keep[i] = fcntl(*keep[i], F_DUPFD, 16);
	for (i = 0; i < ARRAY_LEN(keep); i++) {
		dup2(*keep[i], 3 + (int)i);
		*keep[i] = 3 + (int)i;
		/* Not the master's: the report pipe would stay open in it. */
		fcntl(*keep[i], F_SETFD, FD_CLOEXEC);
	}
	dup2(w->null, STDIN_FILENO);
	dup2(w->null, STDOUT_FILENO);
	dup2(w->null, STDERR_FILENO);
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3u + ARRAY_LEN(keep), ~0u, 0u) == 0)
		return;
#endif
	for (fd = 3 + (long)ARRAY_LEN(keep); fd < w->max_fd; fd++)
		close((int)fd);
}

/* End the master (the watchdog's child): SIGTERM, which removes its socket, then SIGKILL. */
static void
end_master(pid_t m)
{
	struct timespec t0;

	kill(m, SIGTERM);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (waitpid(m, NULL, WNOHANG) == 0) {
		if (ms_since(&t0) > 5000) {
			kill(m, SIGKILL);
			waitpid(m, NULL, 0);
			return;
		}
		pause_ms(WATCH_CONNECTING_MS);
	}
}

/*
 * The watchdog process: only async-signal-safe calls, as it is the fork of a threaded one.
 * While ssh logs in it stays in its parent's process group, so that a Ctrl-C there ends the
 * attempt (the master, in a session of its own, is ended by it); then it leaves.
 */
static void __attribute__((noreturn))
watchdog(struct watchdog *w)
{
	struct master_report rep = { MASTER_READY, 0 };
	struct sigaction sa;
	struct timespec t0;
	struct stat st;
	sigset_t none;
	int probe[2], e = 0, status = 0;
	dev_t dev;
	ino_t ino;
	ssize_t r;
	pid_t m;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	watchdog_own_fds(w);
	if (pipe(probe) != 0)
		_exit(1);
	fcntl(probe[0], F_SETFD, FD_CLOEXEC);
	fcntl(probe[1], F_SETFD, FD_CLOEXEC);
	m = fork();
	if (m < 0)
		_exit(1);
	if (m == 0) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		/* Like ssh -f's master: no signal of the terminal reaches it. */
		setsid();
		dup2(w->log, STDERR_FILENO);
		exec_or_report(w->argv, probe[1]);
	}
	close(probe[1]);
	if ((e = exec_outcome(probe[0])) != 0) {
		waitpid(m, NULL, 0);
		rep = (struct master_report){ MASTER_NOT_RUN, e };
		r = write(w->report, &rep, sizeof(rep));
		_exit(0);
	}
	/* Connecting: the socket appears once ssh has logged in and listens on it. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (waitpid(m, &status, WNOHANG) == m) {
			rep = (struct master_report){ MASTER_EXITED, WIFEXITED(status) ?
			    WEXITSTATUS(status) : 128 + WTERMSIG(status) };
			r = write(w->report, &rep, sizeof(rep));
			_exit(0);
		}
		if (lstat(w->ctl, &st) == 0 && S_ISSOCK(st.st_mode))
			break;
		if (watchdog_stopping || ms_since(&t0) > w->timeout_ms) {
			end_master(m);
			rep = watchdog_stopping ? (struct master_report){ MASTER_EXITED,
			    128 + watchdog_stopping } : (struct master_report){ MASTER_TIMED_OUT, 0 };
			r = write(w->report, &rep, sizeof(rep));
			_exit(0);
		}
		pause_ms(WATCH_CONNECTING_MS);
	}
	dev = st.st_dev;
	ino = st.st_ino;
	r = write(w->report, &rep, sizeof(rep));
	(void)r;
	close(w->report);
	/* Out of its parent's process group only now: a Ctrl-C while ssh logs in reaches it. */
	setsid();
	/* Running: until it ends by itself, its socket goes, or no gpurent holds it. */
	for (;;) {
		pause_ms(WATCH_RUNNING_MS);
		if (waitpid(m, NULL, WNOHANG) == m)
			_exit(0);
		if (watchdog_stopping || lstat(w->ctl, &st) != 0 || st.st_dev != dev ||
		    st.st_ino != ino || flock(w->users, LOCK_EX | LOCK_NB) == 0)
			break;
	}
	/* Holding CTL.users, if it was that: a new user waits until the master is gone. */
	end_master(m);
	_exit(0);
}

/* Start the master for ep at ctl under its watchdog, and wait until it listens or failed;
 * *key_changed says whether it failed because the host key is not the pinned one. */
static enum gr_err
master_start(const struct remote_endpoint *ep, const char *ctl, bool *key_changed,
    struct gr_error *err)
{
	char path[CONTROL_PATH_MAX + 16], said[8192];
	struct master_report rep;
	struct watchdog w;
	struct remote_argv a;
	struct rlimit rl;
	struct sb got;
	int report[2], timeout;
	ssize_t r;
	pid_t pid;

	*key_changed = false;
	remote_argv_init(&a);
	if (ssh_options(ep, 0, true, &a, err) != GR_OK) {
		remote_argv_release(&a);
		return err->code;
	}
	remote_argv_add(&a, "-N");
	remote_add_destination(&a, ep);
	/* ConnectTimeout bounds the connection, not a server that stalls after it. */
	timeout = (ep->connect_timeout > 0 ? ep->connect_timeout : 15) * 2 + 10;
	memset(&w, 0, sizeof(w));
	w.argv = a.v;
	w.ctl = ctl;
	w.timeout_ms = timeout * 1000;
	w.max_fd = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < 65536 ? (long)rl.rlim_cur : 65536;
	w.users = w.null = -1;
	/* ssh's words for a failure go to CTL.log, and so do a running master's. */
	snprintf(path, sizeof(path), "%s.log", ctl);
	w.log = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (w.log >= 0) {
		snprintf(path, sizeof(path), "%s.users", ctl);
		w.users = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (w.log < 0 || w.users < 0) {
		gr_fail(err, GR_ESTATE, "cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	w.null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (w.null < 0 || remote_pipe(report) != 0) {
		gr_fail(err, GR_EFAIL, "pipe: %s", strerror(errno));
		goto out;
	}
	w.report = report[1];
	/* Twice forked, so that the watchdog is nobody's zombie; the spawn lock as in
	 * remote_spawn. */
	pthread_mutex_lock(&spawn_lock);
	fflush(NULL);
	pid = fork();
	if (pid != 0)
		pthread_mutex_unlock(&spawn_lock);
	if (pid == 0) {
		if (fork() == 0)
			watchdog(&w);
		_exit(0);
	}
	close(report[1]);
	if (pid < 0) {
		close(report[0]);
		gr_fail(err, GR_EFAIL, "fork: %s", strerror(errno));
		goto out;
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	sb_init(&got);
	read_all(report[0], &got, sizeof(rep), (timeout + 10) * 1000);
	close(report[0]);
	if (got.len == sizeof(rep))
		memcpy(&rep, got.buf, sizeof(rep));
	else
		rep = (struct master_report){ MASTER_TIMED_OUT, 0 };
	sb_release(&got);
	if (rep.what == MASTER_NOT_RUN) {
		exec_failure(a.v[0], rep.value, err);
	} else if (rep.what != MASTER_READY) {
		r = pread(w.log, said, sizeof(said) - 1, 0);
		said[r > 0 ? r : 0] = '\0';
		*key_changed = host_key_changed(said);
		connect_failure(ep, said, rep.what == MASTER_TIMED_OUT ? -2 : rep.value, err);
	}
out:
	if (w.log >= 0)
		close(w.log);
	if (w.users >= 0)
		close(w.users);
	if (w.null >= 0)
		close(w.null);
	remote_argv_release(&a);
	return err->code;
}

/* The start of the instance's run recorded with its pin (<pin>.start); 0 when none. */
static int64_t
pin_start_read(const char *pin)
{
	char path[4500], buf[32];
	long long v = 0;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s.start", pin);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[r > 0 ? r : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return parse_int(buf, 1, INT64_MAX, &v) ? (int64_t)v : 0;
}

/*
 * Once a connection has checked the pinned key: the run it was checked in. A key may change
 * only with a later run, so this follows every start (one that kept its key too), and a
 * restart long ago never excuses a key that changes on the machine running now.
 */
static void
pin_start_note(const struct remote_endpoint *ep)
{
	struct gr_error e = { 0 };
	char pin[4400], path[4500], val[32];

	remote_pin_path(ep->state_dir, ep->name, pin, sizeof(pin));
	if (ep->started_at <= 0 || access(pin, F_OK) != 0 || pin_start_read(pin) == ep->started_at)
		return;
	snprintf(path, sizeof(path), "%s.start", pin);
	snprintf(val, sizeof(val), "%lld\n", (long long)ep->started_at);
	(void)atomic_write(path, val, strlen(val), 0600, &e);
}

/*
 * How much later than the start recorded with the pin a start must be to be another run
 * (man page: three minutes): vast.ai gives an uptime in minutes, from which the start is
 * worked out to the minute on each call, so one run's start reads up to a minute or two apart.
 */
#define PIN_START_MARGIN 180

/*
 * The host key of ep is not its pinned one: when the provider says the instance started a
 * new run since the key was last checked, set the old pin aside (<pin>.old) and say so;
 * true when it did.
 */
static bool
pin_renew(const struct remote_endpoint *ep)
{
	char pin[4400], old[4500];
	int64_t recorded;

	remote_pin_path(ep->state_dir, ep->name, pin, sizeof(pin));
	recorded = pin_start_read(pin);
	if (ep->started_at <= 0 || recorded <= 0 || ep->started_at <= recorded + PIN_START_MARGIN)
		return false;
	snprintf(old, sizeof(old), "%s.old", pin);
	if (rename(pin, old) != 0)
		return false;
	fprintf(stderr, _("gpurent: warning: the host key of %s has changed; its provider says "
	    "it was restarted since the key was pinned, so the new key is pinned (the old one "
	    "is kept in '%s')\n"), ep->name, old);
	return true;
}

/*
 * A master that another instance at the same address opened checked that instance's key:
 * this one's first contact still records its own, over a connection of its own (the key
 * is all it is for: the command's status does not matter).
 */
static void
pin_first_contact(const struct remote_endpoint *ep)
{
	static const char *const word[] = { "true" };
	struct gr_error e = { 0 };
	struct remote_argv a;
	char pin[4400];
	int null, pid;

	remote_pin_path(ep->state_dir, ep->name, pin, sizeof(pin));
	if (access(pin, F_OK) == 0)
		return;
	remote_argv_init(&a);
	if (remote_ssh_argv(ep, REMOTE_OWN_CONNECTION | REMOTE_NO_TTY, word, 1, &a, &e) == GR_OK) {
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		pid = remote_spawn(a.v, null, null, null, false, &e);
		if (pid > 0)
			remote_wait(pid);
		if (null >= 0)
			close(null);
	}
	remote_argv_release(&a);
}

enum gr_err
remote_connect(const struct remote_endpoint *ep, struct gr_error *err)
{
	char ctl[CONTROL_PATH_MAX];
	struct remote_argv a;
	struct stat st;
	bool key_changed;
	int start;

	remote_argv_init(&a);
	if (remote_ssh_options(ep, 0, &a, err) != GR_OK ||
	    paths_mkdir(ep->state_dir, err) != GR_OK ||
	    remote_control_path(ep, ctl, sizeof(ctl), err) != GR_OK ||
	    master_use(ctl, err) != GR_OK) {
		remote_argv_release(&a);
		return err->code;
	}
	if (master_check(&a, ep) != 0) {
		start = lock_beside(ctl, ".start", LOCK_EX, err);
		/* Another gpurent may have started it while this one waited (no socket: none). */
		if (start >= 0 && (lstat(ctl, &st) != 0 || master_check(&a, ep) != 0)) {
			/* Nothing answers there: a killed master's socket would stop the bind. */
			unlink(ctl);
			if (master_start(ep, ctl, &key_changed, err) != GR_OK && key_changed &&
			    pin_renew(ep)) {
				gr_error_clear(err);
				unlink(ctl);
				master_start(ep, ctl, &key_changed, err);
			}
		}
		if (start >= 0)
			close(start);
	}
	if (err->code == GR_OK) {
		pin_first_contact(ep);
		pin_start_note(ep);
	}
	remote_argv_release(&a);
	return err->code;
}

void
remote_sweep_masters(const char *state_dir)
{
	char dir[4200], path[4500];
	struct gr_error e = { 0 };
	struct dirent *de;
	struct stat st;
	size_t len;
	DIR *d;
	int fd;

	if (control_dir(state_dir, false, dir, sizeof(dir), &e) != GR_OK ||
	    (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len <= 6 || strcmp(de->d_name + len - 6, ".users") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		/* Held by nobody, yet its socket is there: its owners and its watchdog died. */
		path[strlen(path) - 6] = '\0';
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 && lstat(path, &st) == 0 &&
		    S_ISSOCK(st.st_mode) && master_exit(path) != 0)
			unlink(path);
		close(fd);
	}
	closedir(d);
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
remote_capture_fed(const struct remote_endpoint *ep, const char *const *words, size_t n,
    const char *in, size_t in_len, struct sb *out, size_t max, struct gr_error *err)
{
	struct remote_argv a;
	int pipefd[2], infd[2] = { -1, -1 }, pid, rc;

	/* At most PIPE_BUF bytes: written whole before the spawn, they never block. */
	if (in_len > PIPE_BUF)
		return gr_fail(err, GR_EUSAGE, "%zu bytes for a remote command's stdin: at most %d",
		    in_len, PIPE_BUF), REMOTE_EXIT_CONN;
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
	if (in_len > 0 ? remote_pipe(infd) != 0 || write(infd[1], in, in_len) != (ssize_t)in_len :
	    (infd[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		gr_fail(err, GR_EFAIL, "stdin of a remote command: %s", strerror(errno));
		pid = -1;
	} else {
		pid = remote_spawn(a.v, infd[0], pipefd[1], -1, false, err);
	}
	close(pipefd[1]);
	if (infd[0] >= 0)
		close(infd[0]);
	if (infd[1] >= 0)
		close(infd[1]);
	remote_argv_release(&a);
	if (pid < 0) {
		close(pipefd[0]);
		return REMOTE_EXIT_CONN;
	}
	read_all(pipefd[0], out, max, -1);
	close(pipefd[0]);
	rc = remote_wait(pid);
	/* A session whose connection died under it ends 255 without a word from ssh. */
	if (rc == REMOTE_EXIT_CONN && err->code == GR_OK)
		gr_fail(err, GR_EUNAVAIL, "the connection to %s broke", ep->name);
	return rc;
}

int
remote_capture(const struct remote_endpoint *ep, const char *const *words, size_t n,
    struct sb *out, size_t max, struct gr_error *err)
{
	return remote_capture_fed(ep, words, n, NULL, 0, out, max, err);
}
