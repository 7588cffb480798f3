/*
 * Port forwards: one ssh -N -L process per `gpurent forward`, and their records.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/i18n.h"
#include "gpurent/remote_forward.h"

/* Bind 127.0.0.1:port; the socket, or -1 with errno set. */
static int
bind_loopback(int port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
remote_free_port(int want)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd, port = -1;

	if (want > 0 && (fd = bind_loopback(want)) >= 0) {
		close(fd);
		return want;
	}
	if ((fd = bind_loopback(0)) < 0)
		return -1;
	if (getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The last line of a small file, sanitized, into buf. */
static void
last_line(const char *path, char *buf, size_t n)
{
	char line[512] = "";
	FILE *fp = fopen(path, "r");

	buf[0] = '\0';
	if (fp == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (line[0] != '\n')
			text_sanitize(buf, n, line);
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
}

enum gr_err
remote_forward_start(const struct remote_endpoint *ep, struct remote_forward *f, size_t n,
    bool background, const char *log_path, int64_t now, struct gr_error *err)
{
	struct remote_argv a;
	char said[300];
	size_t i, bound;
	int null, logfd = -1, pid, status, waited, limit;

	remote_argv_init(&a);
	if (remote_ssh_options(ep, REMOTE_OWN_CONNECTION | REMOTE_NO_TTY, &a, err) != GR_OK) {
		remote_argv_release(&a);
		return err->code;
	}
	remote_argv_add(&a, "-N");
	remote_argv_add(&a, "-o");
	remote_argv_add(&a, "ExitOnForwardFailure=yes");
	for (i = 0; i < n; i++) {
		remote_argv_add(&a, "-L");
		remote_argv_addf(&a, "127.0.0.1:%d:127.0.0.1:%d", f[i].local_port,
		    f[i].remote_port);
	}
	remote_add_destination(&a, ep);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	logfd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (logfd < 0) {
		remote_argv_release(&a);
		if (null >= 0)
			close(null);
		return gr_fail(err, GR_ESTATE, "cannot write '%s': %s", log_path, strerror(errno));
	}
	pid = remote_spawn(a.v, null, background ? null : -1, logfd, background, err);
	remote_argv_release(&a);
	if (null >= 0)
		close(null);
	close(logfd);
	if (pid < 0)
		return err->code;
	/* Listening on every port means connected and authenticated (ExitOnForwardFailure). */
	limit = ((ep->connect_timeout > 0 ? ep->connect_timeout : 15) * 2 + 10) * 10;
	for (waited = 0; waited < limit; waited++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			last_line(log_path, said, sizeof(said));
			return gr_fail(err, GR_EUNAVAIL, "the forward to %s ended at once: %s",
			    ep->name, said[0] ? said : _("ssh exited"));
		}
		for (bound = 0, i = 0; i < n; i++) {
			int fd = bind_loopback(f[i].local_port);

			if (fd >= 0)
				close(fd);
			else if (errno == EADDRINUSE)
				bound++;
		}
		if (bound == n)
			break;
		sleep_ms(100);
	}
	if (waited == limit) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		return gr_fail(err, GR_ETIMEOUT, "the forward to %s did not come up in time",
		    ep->name);
	}
	for (i = 0; i < n; i++) {
		f[i].pid = pid;
		f[i].started_at = now;
		strlcpy_(f[i].instance_id, ep->name, sizeof(f[i].instance_id));
	}
	return GR_OK;
}

bool
remote_forward_alive(const struct remote_forward *f)
{
	char path[64], args[8192], want[64];
	size_t len, i;
	FILE *fp;

	if (f->pid <= 0 || kill(f->pid, 0) != 0)
		return false;
	/* A reused pid is not our ssh: its command line must still carry this -L. */
	snprintf(path, sizeof(path), "/proc/%d/cmdline", f->pid);
	if ((fp = fopen(path, "r")) == NULL)
		return access("/proc/self/cmdline", R_OK) != 0;
	len = fread(args, 1, sizeof(args) - 1, fp);
	fclose(fp);
	for (i = 0; i < len; i++)
		if (args[i] == '\0')
			args[i] = ' ';
	args[len] = '\0';
	snprintf(want, sizeof(want), "127.0.0.1:%d:127.0.0.1:%d", f->local_port, f->remote_port);
	return strstr(args, want) != NULL;
}

void
remote_forward_end(const struct remote_forward *f)
{
	int i;

	if (!remote_forward_alive(f))
		return;
	kill(f->pid, SIGTERM);
	for (i = 0; i < 30 && kill(f->pid, 0) == 0; i++) {
		/* Our own child (a foreground forward) must be reaped to disappear. */
		waitpid(f->pid, NULL, WNOHANG);
		sleep_ms(100);
	}
	if (kill(f->pid, 0) == 0)
		kill(f->pid, SIGKILL);
}
