/*
 * Jobs on an instance: fixed sh scripts run through the transport, and their records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/remote_job.h"

/* Under $HOME, which is the login directory but for a test server that moves it. */
#define JOBS_DIR "\"$HOME/.gpurent/jobs\""

/*
 * $1: the start's key ("": none). Take the next free N by mkdir (atomic on the instance) and
 * print it and its directory; a job that already holds the key is printed instead, with a
 * third line "started" once its start began.
 */
static const char create_script[] =
	"umask 077\n"
	"mkdir -p " JOBS_DIR " && cd " JOBS_DIR " || exit 90\n"
	"if [ -n \"$1\" ]; then for n in *; do\n"
	"  if [ -f \"$n/key\" ] && [ \"$(cat \"$n/key\")\" = \"$1\" ]; then\n"
	"    echo \"$n\"; cd \"$n\" && pwd; [ -d started ] && echo started; exit 0\n"
	"  fi\n"
	"done; fi\n"
	"n=$(($(ls | wc -l) + 1))\n"
	"i=0\n"
	"while ! mkdir \"$n\" 2>/dev/null; do\n"
	"  n=$((n + 1)); i=$((i + 1))\n"
	"  [ \"$i\" -lt 10000 ] || exit 91\n"
	"done\n"
	"mkdir \"$n/work\" || exit 91\n"
	"[ -z \"$1\" ] || printf '%s\\n' \"$1\" >\"$n/key\" || exit 91\n"
	"echo \"$n\"; cd \"$n\" && pwd\n";

/*
 * $1: the job's number, $2: how many K=V follow, then they, then the command words.
 * The wrapper records its pid (the session leader), runs the command in work/, and writes
 * the status under a temporary name first. Its TERM trap lets it outlive a kill's TERM to
 * write the status (a handler, unlike an ignored signal, is not inherited by the command).
 * The mkdir of started lets one start through: a second only waits for the first's pid.
 */
static const char start_script[] =
	"d=$1; k=$2; shift 2\n"
	"cd " JOBS_DIR "/\"$d\" || exit 92\n"
	"if mkdir started 2>/dev/null; then\n"
	"i=0\n"
	"while [ \"$i\" -lt \"$k\" ]; do export \"$1\" || exit 93; shift; i=$((i + 1)); done\n"
	"w='echo $$ >pid.tmp && mv -f pid.tmp pid || exit 94\n"
	"trap : TERM INT\n"
	"cd work || exit 95\n"
	"if [ $# -eq 1 ]; then sh -c \"$1\"; else \"$@\"; fi\n"
	"rc=$?\n"
	"echo \"$rc\" >../status.tmp && mv -f ../status.tmp ../status'\n"
	"exec </dev/null >>log 2>&1\n"
	"if command -v setsid >/dev/null 2>&1; then setsid sh -c \"$w\" gpurent-job \"$@\" &\n"
	"else set -m; sh -c \"$w\" gpurent-job \"$@\" & fi\n"
	"fi\n"
	"i=0\n"
	"while [ ! -f pid ] && [ \"$i\" -lt 200 ]; do sleep 0.05 2>/dev/null || sleep 1; i=$((i + 1)); done\n"
	"[ -f pid ] || exit 96\n";

/* One line per job number: running, exited N, killed [N] or lost. The status is read again
 * after the liveness check, for a job that ends between the two. */
static const char poll_script[] =
	"for n; do\n"
	"  d=" JOBS_DIR "/$n; s=\n"
	"  if [ -f \"$d/status\" ]; then s=$(cat \"$d/status\")\n"
	"  elif [ -f \"$d/pid\" ] && kill -0 \"$(cat \"$d/pid\")\" 2>/dev/null; then echo running; continue\n"
	"  elif [ -f \"$d/status\" ]; then s=$(cat \"$d/status\"); fi\n"
	"  if [ -f \"$d/killed\" ]; then echo \"killed $s\"\n"
	"  elif [ -n \"$s\" ]; then echo \"exited $s\"\n"
	"  else echo lost; fi\n"
	"done\n";

/*
 * $1: the job's number, $2: lines (-1: all), $3: 1 to follow. Following prints what the log
 * grew by since the last look, until the job ends or this ssh session's parent is gone
 * (the connection dropped: no poller is left behind for the job's lifetime).
 */
static const char log_script[] =
	"cd " JOBS_DIR "/\"$1\" || exit 92\n"
	"off=$(($(wc -c <log)))\n"
	"if [ \"$2\" -ge 0 ]; then head -c \"$off\" log | tail -n \"$2\"; else head -c \"$off\" log; fi\n"
	"[ \"$3\" = 1 ] || exit 0\n"
	"p=$PPID\n"
	"while :; do\n"
	"  ended=1\n"
	"  if [ ! -f status ] && [ -f pid ] && kill -0 \"$(cat pid)\" 2>/dev/null; then ended=0; fi\n"
	"  size=$(($(wc -c <log)))\n"
	"  if [ \"$size\" -gt \"$off\" ]; then\n"
	"    tail -c +\"$((off + 1))\" log | head -c \"$((size - off))\"; off=$size\n"
	"  fi\n"
	"  [ \"$ended\" = 1 ] && exit 0\n"
	"  kill -0 \"$p\" 2>/dev/null || exit 0\n"
	"  sleep 0.5 2>/dev/null || sleep 1\n"
	"done\n";

/* $1: the job's number, $2: seconds of grace. Exit 3 when the job no longer runs. */
static const char kill_script[] =
	"cd " JOBS_DIR "/\"$1\" || exit 92\n"
	"[ ! -f status ] && [ -f pid ] && p=$(cat pid) && kill -0 \"$p\" 2>/dev/null || exit 3\n"
	": >killed\n"
	"kill -TERM \"-$p\" 2>/dev/null || kill -TERM \"$p\"\n"
	"i=0\n"
	"while [ \"$i\" -lt \"$(($2 * 10))\" ] && kill -0 \"-$p\" 2>/dev/null; do\n"
	"  sleep 0.1 2>/dev/null || sleep 1; i=$((i + 1))\n"
	"done\n"
	"kill -KILL \"-$p\" 2>/dev/null\n"
	"exit 0\n";

const char *
remote_job_state_name(enum remote_job_state s)
{
	switch (s) {
	case JOB_RUNNING: return "running";
	case JOB_EXITED: return "exited";
	case JOB_KILLED: return "killed";
	default: return "lost";
	}
}

bool
remote_job_split(const char *job_id, char *instance_id, size_t n, int *seq)
{
	const char *slash = strrchr(job_id, '/');
	long long v;

	if (slash == NULL || slash == job_id || (size_t)(slash - job_id) >= n ||
	    !parse_int(slash + 1, 0, 1000000000, &v))
		return false;
	snprintf(instance_id, n, "%.*s", (int)(slash - job_id), job_id);
	*seq = (int)v;
	return true;
}

void
remote_job_path(const struct remote_job *j, const char *path, char *out, size_t n)
{
	if (path[0] == '/')
		snprintf(out, n, "%s", path);
	else
		snprintf(out, n, "%s/work/%s", j->dir, path);
}

/* sh -c SCRIPT gpurent-job ARGS...: the words for the transport, each quoted there. */
static void
script_words(struct remote_argv *a, const char *script)
{
	remote_argv_init(a);
	remote_argv_add(a, "sh");
	remote_argv_add(a, "-c");
	remote_argv_add(a, script);
	remote_argv_add(a, "gpurent-job");
}

static void
add_dir(struct remote_argv *a, int seq)
{
	remote_argv_addf(a, "%d", seq);
}

int
remote_job_create(const struct remote_endpoint *ep, struct remote_job *j, const char *key,
    bool *started, struct gr_error *err)
{
	struct remote_argv a;
	struct sb out;
	char *dir, *rest;
	long long v;
	int rc;

	*started = false;
	script_words(&a, create_script);
	remote_argv_add(&a, key != NULL ? key : "");
	sb_init(&out);
	rc = remote_capture(ep, (const char *const *)a.v, a.n, &out, 8192, err);
	remote_argv_release(&a);
	if (rc == 0) {
		dir = out.buf + strcspn(out.buf, "\n");
		if (*dir != '\0')
			*dir++ = '\0';
		rest = dir + strcspn(dir, "\n");
		if (*rest != '\0')
			*rest++ = '\0';
		*started = strcmp(rest, "started\n") == 0;
		if (!parse_int(out.buf, 1, 1000000000, &v) || dir[0] != '/' ||
		    strlen(dir) >= sizeof(j->dir))
			rc = 1;
		else {
			j->seq = (int)v;
			strlcpy_(j->dir, dir, sizeof(j->dir));
		}
	}
	sb_release(&out);
	if (rc != 0 && rc != REMOTE_EXIT_CONN)
		gr_fail(err, GR_EFAIL, "cannot make a job directory under ~/.gpurent/jobs on %s "
		    "(exit %d)", ep->name, rc);
	return rc;
}

int
remote_job_start(const struct remote_endpoint *ep, int seq, const char *const *env,
    size_t n_env, const char *const *words, size_t n_words, struct gr_error *err)
{
	struct remote_argv a;
	struct sb out;
	size_t i;
	int rc;

	script_words(&a, start_script);
	add_dir(&a, seq);
	remote_argv_addf(&a, "%zu", n_env);
	for (i = 0; i < n_env; i++)
		remote_argv_add(&a, env[i]);
	for (i = 0; i < n_words; i++)
		remote_argv_add(&a, words[i]);
	sb_init(&out);
	rc = remote_capture(ep, (const char *const *)a.v, a.n, &out, 4096, err);
	sb_release(&out);
	remote_argv_release(&a);
	if (rc != 0 && rc != REMOTE_EXIT_CONN)
		gr_fail(err, GR_EFAIL, "the job did not start on %s (exit %d%s)", ep->name, rc,
		    rc == 93 ? _(": an --env name the shell refuses") : "");
	return rc;
}

int
remote_job_poll(const struct remote_endpoint *ep, struct remote_job *jobs, size_t n,
    struct gr_error *err)
{
	struct remote_argv a;
	struct sb out;
	const char *line;
	size_t i;
	long long v;
	int rc;

	if (n == 0)
		return 0;
	script_words(&a, poll_script);
	for (i = 0; i < n; i++)
		add_dir(&a, jobs[i].seq);
	sb_init(&out);
	rc = remote_capture(ep, (const char *const *)a.v, a.n, &out, 64 * (n + 1), err);
	remote_argv_release(&a);
	line = out.buf;
	for (i = 0; rc == 0 && i < n && *line != '\0'; i++) {
		struct remote_job *j = &jobs[i];
		char word[16] = "", code[16] = "";

		sscanf(line, "%15s %15s", word, code);
		j->exit_code = parse_int(code, 0, 255, &v) ? (int)v : -1;
		if (strcmp(word, "running") == 0)
			j->state = JOB_RUNNING;
		else if (strcmp(word, "exited") == 0)
			j->state = JOB_EXITED;
		else if (strcmp(word, "killed") == 0)
			j->state = JOB_KILLED;
		else
			j->state = JOB_LOST;
		line += strcspn(line, "\n");
		if (*line == '\n')
			line++;
	}
	sb_release(&out);
	if (rc != 0 && rc != REMOTE_EXIT_CONN)
		gr_fail(err, GR_EFAIL, "cannot read the jobs' state on %s (exit %d)", ep->name, rc);
	return rc;
}

int
remote_job_log(const struct remote_endpoint *ep, int seq, long tail, bool follow,
    struct gr_error *err)
{
	struct remote_argv a;
	int rc;

	script_words(&a, log_script);
	add_dir(&a, seq);
	remote_argv_addf(&a, "%ld", tail);
	remote_argv_add(&a, follow ? "1" : "0");
	rc = remote_run(ep, REMOTE_NO_TTY, (const char *const *)a.v, a.n, err);
	remote_argv_release(&a);
	if (rc == 92)
		gr_fail(err, GR_ENOTFOUND, "%s has no job %d (no ~/.gpurent/jobs/%d)", ep->name,
		    seq, seq);
	/* remote_run leaves ssh's own 255 to its caller (remote_capture says it itself). */
	else if (rc == REMOTE_EXIT_CONN && err->code == GR_OK)
		gr_fail(err, GR_EUNAVAIL, "the connection to %s broke", ep->name);
	return rc;
}

int
remote_job_tail(const struct remote_endpoint *ep, int seq, long lines, struct sb *out,
    size_t max, struct gr_error *err)
{
	struct remote_argv a;
	int rc;

	script_words(&a, log_script);
	add_dir(&a, seq);
	remote_argv_addf(&a, "%ld", lines);
	remote_argv_add(&a, "0");
	rc = remote_capture(ep, (const char *const *)a.v, a.n, out, max, err);
	remote_argv_release(&a);
	if (rc == 92)
		gr_fail(err, GR_ENOTFOUND, "%s has no job %d (no ~/.gpurent/jobs/%d)", ep->name,
		    seq, seq);
	else if (rc != 0 && rc != REMOTE_EXIT_CONN)
		gr_fail(err, GR_EFAIL, "cannot read job %d's log on %s (exit %d)", seq, ep->name,
		    rc);
	return rc;
}

int
remote_job_kill(const struct remote_endpoint *ep, int seq, int grace, struct gr_error *err)
{
	struct remote_argv a;
	struct sb out;
	int rc;

	script_words(&a, kill_script);
	add_dir(&a, seq);
	remote_argv_addf(&a, "%d", grace);
	sb_init(&out);
	rc = remote_capture(ep, (const char *const *)a.v, a.n, &out, 4096, err);
	sb_release(&out);
	remote_argv_release(&a);
	if (rc == 92)
		gr_fail(err, GR_ENOTFOUND, "%s has no job %d", ep->name, seq);
	return rc;
}
