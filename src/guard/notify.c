/*
 * notify.command: a program of the user's choosing, run for each action and alert with
 * the event in its environment and as JSON on its stdin. It is run as an argv, never
 * through a shell, so nothing in an event (a label, a provider's message) is ever code.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "gpurent/watch.h"

char *
watch_event_json(const struct event *ev)
{
	struct cell c = { CELL_TIME, NULL, ev->at, 0, 0 };
	char at[64], *s;
	cJSON *j = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "seq", (double)ev->seq);
	cJSON_AddStringToObject(j, "at", cell_text(&c, at, sizeof(at), false));
	cJSON_AddStringToObject(j, "level", event_level_name(ev->level));
	cJSON_AddStringToObject(j, "kind", ev->kind);
	cJSON_AddStringToObject(j, "policy", ev->policy);
	cJSON_AddStringToObject(j, "instance_id", ev->instance_id);
	cJSON_AddStringToObject(j, "label", ev->label);
	if (ev->util_pct >= 0)
		cJSON_AddNumberToObject(j, "util_pct", ev->util_pct);
	else
		cJSON_AddNullToObject(j, "util_pct");
	cJSON_AddStringToObject(j, "message", ev->message);
	if (ev->user[0] != '\0')
		cJSON_AddStringToObject(j, "user", ev->user);
	else
		cJSON_AddNullToObject(j, "user");
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (s == NULL)
		abort();
	return s;
}

enum gr_err
watch_notify_run(char *const *argv, const struct event *ev, int timeout_s,
    struct gr_error *err)
{
	struct cell c = { CELL_TIME, NULL, ev->at, 0, 0 };
	struct timespec pause = { 0, 20 * 1000000L };
	char at[64], seq[32], util[16], *json;
	struct sigaction ign, old;
	int pfd[2], status = 0, i;
	pid_t pid, got = 0;

	if (pipe(pfd) != 0)
		return gr_fail(err, GR_EFAIL, "pipe: %s", strerror(errno));
	snprintf(seq, sizeof(seq), "%lld", (long long)ev->seq);
	snprintf(util, sizeof(util), "%d", ev->util_pct);
	cell_text(&c, at, sizeof(at), false);
	json = watch_event_json(ev);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		free(json);
		return gr_fail(err, GR_EFAIL, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(pfd[1]);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(pfd[0], STDIN_FILENO) < 0)
			_exit(127);
		if (pfd[0] != STDIN_FILENO)
			close(pfd[0]);
		setenv("GPURENT_EVENT_SEQ", seq, 1);
		setenv("GPURENT_EVENT_AT", at, 1);
		setenv("GPURENT_EVENT_LEVEL", event_level_name(ev->level), 1);
		setenv("GPURENT_EVENT_KIND", ev->kind, 1);
		setenv("GPURENT_EVENT_POLICY", ev->policy, 1);
		setenv("GPURENT_EVENT_INSTANCE", ev->instance_id, 1);
		setenv("GPURENT_EVENT_LABEL", ev->label, 1);
		setenv("GPURENT_EVENT_UTIL", ev->util_pct >= 0 ? util : "", 1);
		setenv("GPURENT_EVENT_MESSAGE", ev->message, 1);
		execvp(argv[0], argv);
		fprintf(stderr, _("gpurent watch: cannot run notify.command '%s': %s\n"), argv[0],
		    strerror(errno));
		_exit(127);
	}
	close(pfd[0]);
	/* A program that exits without reading must not kill the watcher with SIGPIPE. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	/* A reader that went away is no error: the program need not read. */
	write_all(pfd[1], json, strlen(json));
	write_all(pfd[1], "\n", 1);
	close(pfd[1]);
	sigaction(SIGPIPE, &old, NULL);
	free(json);
	/* Bounded: a program that hangs is killed, and the watcher goes on. */
	for (i = 0; i < timeout_s * 50; i++) {
		got = waitpid(pid, &status, WNOHANG);
		if (got != 0 && !(got < 0 && errno == EINTR))
			break;
		nanosleep(&pause, NULL);
	}
	if (got == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return gr_fail(err, GR_ETIMEOUT, "notify.command '%s' ran over %ds and was killed",
		    argv[0], timeout_s);
	}
	if (got < 0)
		return gr_fail(err, GR_EFAIL, "notify.command: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return gr_fail(err, GR_EFAIL, "notify.command '%s' failed (status %d)", argv[0],
		    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return GR_OK;
}
