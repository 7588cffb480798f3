/* The transport's pure parts: provider field checks, argv shape, quoting for the remote
 * shell (checked by a real sh), socket paths, and the Jupyter listing parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../tmpdir.h"

#include "gpurent/remote.h"
#include "gpurent/remote_forward.h"

static void
endpoint(struct remote_endpoint *ep, const char *host, const char *user, int port)
{
	memset(ep, 0, sizeof(*ep));
	strlcpy_(ep->name, "sim:i-000001", sizeof(ep->name));
	strlcpy_(ep->host, host, sizeof(ep->host));
	strlcpy_(ep->user, user, sizeof(ep->user));
	ep->port = port;
	strlcpy_(ep->state_dir, "/tmp", sizeof(ep->state_dir));
}

static void
checks(void **state)
{
	static const char *const bad_hosts[] = {
		"", "-oProxyCommand=x", "a b", "$(touch x)", "a;b", "host\n", "a'b", "a@b", "%h",
	};
	static const char *const bad_users[] = { "-l", "root@x", "a b", "$(id)", "r`x`" };
	struct remote_endpoint ep;
	struct gr_error err;
	size_t i;

	(void)state;
	endpoint(&ep, "ssh5.vast.ai", "root", 22);
	assert_int_equal(remote_endpoint_check(&ep, &err), GR_OK);
	endpoint(&ep, "2001:db8::1", "ubuntu", 65535);
	assert_int_equal(remote_endpoint_check(&ep, &err), GR_OK);
	endpoint(&ep, "1.2.3.4", "a1b2c3-64410b4c", 1);
	assert_int_equal(remote_endpoint_check(&ep, &err), GR_OK);
	for (i = 0; i < sizeof(bad_hosts) / sizeof(bad_hosts[0]); i++) {
		memset(&err, 0, sizeof(err));
		endpoint(&ep, bad_hosts[i], "root", 22);
		assert_int_not_equal(remote_endpoint_check(&ep, &err), GR_OK);
	}
	for (i = 0; i < sizeof(bad_users) / sizeof(bad_users[0]); i++) {
		memset(&err, 0, sizeof(err));
		endpoint(&ep, "1.2.3.4", bad_users[i], 22);
		assert_int_not_equal(remote_endpoint_check(&ep, &err), GR_OK);
		assert_non_null(strstr(err.msg, "not a user name"));
	}
	memset(&err, 0, sizeof(err));
	endpoint(&ep, "1.2.3.4", "root", 0);
	assert_int_not_equal(remote_endpoint_check(&ep, &err), GR_OK);
}

/* What sh makes of a quoted word: printf's output, through a pipe. */
static char *
through_sh(const char *quoted)
{
	static char out[4096];
	char script[4200];
	int fd[2];
	ssize_t n;
	size_t len = 0;
	pid_t pid;

	snprintf(script, sizeof(script), "printf %%s %s", quoted);
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	out[len] = '\0';
	return out;
}

static void
shell_quote(void **state)
{
	static const char *const words[] = {
		"plain", "with space", "it's", "\"dq\"", "$(touch /tmp/pwned)", "`id`", "-leading",
		"new\nline", "tab\there", "ünïcödé ✓", "*?[a]", "back\\slash", "'", "''", "a;b|c&d",
		"$HOME", "~", "!x",
	};
	struct sb sb;
	size_t i;

	(void)state;
	sb_init(&sb);
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		sb_reset(&sb);
		remote_shell_quote(&sb, words[i]);
		assert_string_equal(through_sh(sb.buf), words[i]);
	}
	sb_reset(&sb);
	remote_shell_quote(&sb, "");
	assert_string_equal(sb.buf, "''");
	sb_reset(&sb);
	remote_rsync_quote(&sb, "it's a b");
	assert_string_equal(sb.buf, "'it''s a b'");
	sb_release(&sb);
}

static void
argv_shape(void **state)
{
	const char *words[] = { "printf", "%s", "$(touch x)" };
	struct remote_endpoint ep;
	struct remote_argv a;
	struct gr_error err = { 0 };
	size_t i, dest = 0;

	(void)state;
	endpoint(&ep, "127.0.0.1", "root", 2222);
	remote_argv_init(&a);
	assert_int_equal(remote_ssh_argv(&ep, REMOTE_OWN_CONNECTION, words, 3, &a, &err), GR_OK);
	for (i = 0; i < a.n; i++)
		if (strcmp(a.v[i], "root@127.0.0.1") == 0)
			dest = i;
	assert_true(dest > 0);
	assert_string_equal(a.v[dest + 1], "--");
	assert_string_equal(a.v[dest + 2], "printf");
	assert_string_equal(a.v[dest + 3], "%s");
	assert_string_equal(a.v[dest + 4], "'$(touch x)'");
	assert_null(a.v[dest + 5]);
	remote_argv_release(&a);
	remote_argv_init(&a);
	assert_int_equal(remote_ssh_argv(&ep, REMOTE_OWN_CONNECTION | REMOTE_RAW, words, 3, &a,
	    &err), GR_OK);
	assert_string_equal(a.v[a.n - 1], "$(touch x)");
	remote_argv_release(&a);
}

static void
socket_path(void **state)
{
	struct remote_endpoint ep;
	struct gr_error err = { 0 };
	char path[4300], dir[256], *outer_tmpdir;

	(void)state;
	outer_tmpdir = getenv("TMPDIR") == NULL ? NULL : strdup(getenv("TMPDIR"));
	assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "remote"), 0);
	/*
	 * The fallback directory goes under TMPDIR: this test's own. The code
	 * ignores a TMPDIR over 40 bytes (its sockets would not fit), so under
	 * a long TMPDIR the test's directory goes under /tmp instead.
	 */
	if (strlen(dir) > 40) {
		assert_int_equal(test_tmpdir_remove(dir), 0);
		unsetenv("TMPDIR");
		assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "remote"), 0);
	}
	setenv("TMPDIR", dir, 1);
	endpoint(&ep, "127.0.0.1", "root", 22);
	snprintf(ep.state_dir, sizeof(ep.state_dir), "%s/%s", dir,
	    "a-state-directory-far-too-deep-for-a-unix-socket-path-of-104-bytes-at-most");
	assert_int_equal(remote_control_path(&ep, path, sizeof(path), &err), GR_OK);
	assert_true(strlen(path) + 17 < 104);
	assert_null(strstr(path, "far-too-deep"));
	assert_ptr_equal(strstr(path, dir), path);
	snprintf(ep.state_dir, sizeof(ep.state_dir), "%s", dir);
	assert_int_equal(remote_control_path(&ep, path, sizeof(path), &err), GR_OK);
	assert_ptr_equal(strstr(path, dir), path);
	assert_int_equal(test_tmpdir_remove(dir), 0);
	if (outer_tmpdir != NULL)
		setenv("TMPDIR", outer_tmpdir, 1);
	else
		unsetenv("TMPDIR");
	free(outer_tmpdir);
}

static void
jupyter(void **state)
{
	struct remote_jupyter j;

	(void)state;
	/* jupyter server list --json (jupyter_server 2.x): one object per line. */
	assert_true(remote_jupyter_parse("{\"base_url\": \"/lab/\", \"hostname\": \"localhost\", "
	    "\"password\": false, \"pid\": 77, \"port\": 8890, \"root_dir\": \"/root\", "
	    "\"secure\": false, \"sock\": \"\", \"token\": \"f00d\", \"url\": "
	    "\"http://localhost:8890/lab/\", \"version\": \"2.14.2\"}\n"
	    "{\"port\": 8891, \"token\": \"second\"}\n", &j));
	assert_int_equal(j.port, 8890);
	assert_string_equal(j.token, "f00d");
	assert_string_equal(j.base_url, "/lab/");
	/* notebook 6: no base_url slash, no token. */
	assert_true(remote_jupyter_parse("garbage\n{\"port\": 8888, \"base_url\": \"x\"}", &j));
	assert_int_equal(j.port, 8888);
	assert_string_equal(j.token, "");
	assert_string_equal(j.base_url, "/");
	assert_false(remote_jupyter_parse("", &j));
	assert_false(remote_jupyter_parse("{\"port\": 0}\n{\"port\": \"8888\"}\n[]", &j));
}

static volatile sig_atomic_t got_term;

static void
on_term(int sig)
{
	got_term = sig;
}

/*
 * A SIGTERM that arrives while a child runs ends the child and then reaches the handler the
 * caller had: before, remote_wait kept it, and the exporter's loop never stopped.
 */
static void
signal_reaches_caller(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	struct gr_error err = { 0 };
	struct sigaction sa, old;
	pid_t killer;
	int child, status;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old);
	got_term = 0;
	child = remote_spawn(argv, -1, -1, -1, false, &err);
	assert_true(child > 0);
	/* SIGTERM to this process once it waits (the child sleeps far longer). */
	killer = fork();
	assert_true(killer >= 0);
	if (killer == 0) {
		usleep(500 * 1000);
		kill(getppid(), SIGTERM);
		_exit(0);
	}
	status = remote_wait(child);
	waitpid(killer, NULL, 0);
	sigaction(SIGTERM, &old, NULL);
	assert_int_equal(status, 128 + SIGTERM);
	assert_int_equal(got_term, SIGTERM);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checks),
		cmocka_unit_test(shell_quote),
		cmocka_unit_test(argv_shape),
		cmocka_unit_test(socket_path),
		cmocka_unit_test(jupyter),
		cmocka_unit_test(signal_reaches_caller),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
