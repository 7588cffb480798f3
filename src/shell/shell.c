/*
 * shell.c - `gpurent shell`: GNU readline over the command table.
 *
 * Readline runs in its callback mode inside a select() loop, with our own SIGINT handler,
 * so Ctrl-C at the prompt clears the line and Ctrl-C during a command sets cmd_interrupted
 * (the command stops at its next check) without ever leaving the shell. Every line goes
 * through cmd_run, exactly as on the command line. History lives in
 * <state_dir>/history (mode 0600); lines that may carry a secret never reach it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "gpurent/cmd.h"
#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/paths.h"
#include "gpurent/session.h"
#include "gpurent/shell.h"
#include "gpurent/util.h"

#define HISTORY_MAX 1000

static struct session *sh_session;
static volatile sig_atomic_t got_int, got_winch;
static char *pending;		/* the line readline handed over */
static bool line_ready;
static char **cands;		/* completion candidates of the current attempt */
static size_t cand_next;

static void
on_int(int sig)
{
	(void)sig;
	got_int = 1;
	cmd_interrupted = 1;
}

static void
on_winch(int sig)
{
	(void)sig;
	got_winch = 1;
}

struct saved_signals {
	struct sigaction intr, winch, quit;
};

/* SIGINT without SA_RESTART, so select() and slow reads return and the flag is seen. */
static void
signals_install(struct saved_signals *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_int;
	sigaction(SIGINT, &sa, old ? &old->intr : NULL);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, old ? &old->winch : NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGQUIT, &sa, old ? &old->quit : NULL);
}

static void
signals_restore(const struct saved_signals *old)
{
	sigaction(SIGINT, &old->intr, NULL);
	sigaction(SIGWINCH, &old->winch, NULL);
	sigaction(SIGQUIT, &old->quit, NULL);
}

static char *
history_path(void)
{
	struct gr_error err = { 0 };

	if (paths_mkdir(paths_state_dir(), &err) != GR_OK) {
		fprintf(stderr, _("gpurent: %s; history is not kept\n"), err.msg);
		return NULL;
	}
	return xasprintf("%s/history", paths_state_dir());
}

/* Make sure the history file exists with mode 0600 before readline writes to it. */
static void
history_open(const char *path)
{
	int fd;

	if (path == NULL)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		fchmod(fd, 0600);
		close(fd);
	}
	using_history();
	stifle_history(HISTORY_MAX);
	read_history(path);
}

/*
 * Keep a line: not when it may carry a secret, not when it starts with a blank (as bash's
 * ignorespace), not twice in a row. It is appended to the file at once, so two shells
 * share their history and a crash loses nothing.
 */
static void
history_keep(const char *path, const char *line)
{
	HIST_ENTRY *last;

	if (line[0] == ' ' || line[0] == '\t' || shell_line_private(line))
		return;
	if (strncmp(line, "exit", 4) == 0 || strncmp(line, "quit", 4) == 0) {
		char next = line[4];

		if (next == '\0' || next == ' ' || next == '\t')
			return;		/* leaving is not worth recalling */
	}
	last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
	if (last != NULL && strcmp(last->line, line) == 0)
		return;
	add_history(line);
	if (path != NULL)
		append_history(1, path);
}

static void
print_help(int argc, char **argv)
{
	const struct command *cmd;

	if (argc > 1 && (cmd = cmd_find(argv[1])) != NULL) {
		cmd_print_help(stdout, cmd);
		return;
	}
	if (argc > 1)
		fprintf(stderr, _("gpurent: '%s' is not a gpurent command\n"), argv[1]);
	cmd_print_overview(stdout);
	fputs(_("\nin the shell: 'exit' or Ctrl-D leaves, Ctrl-C stops the running command, "
	    "Tab completes, a line starting with a blank is not kept in history\n"), stdout);
}

/* "--profile work offers gpu=h100" -> "offers --profile work gpu=h100" (cmd_parse takes
 * global options after the command name). Returns the index of the command word. */
static int
move_globals(int argc, char **argv)
{
	int first = 0;

	while (first < argc && argv[first][0] == '-' && argv[first][1] != '\0') {
		const struct cmd_opt *o;
		const char *w = argv[first];
		size_t len;

		for (o = global_opts; o->name != NULL; o++) {
			len = strlen(o->name);
			if ((w[1] == '-' && strncmp(w + 2, o->name, len) == 0 &&
			    (w[2 + len] == '\0' || w[2 + len] == '=')) ||
			    (w[1] != '-' && w[2] == '\0' && w[1] == o->short_name))
				break;
		}
		if (o->name == NULL)
			return 0;	/* not a global option: cmd_run will complain */
		first += o->arg != NULL && strchr(w, '=') == NULL ? 2 : 1;
	}
	if (first >= argc)
		return argc;
	if (first == 0)
		return 0;
	{
		char *cmdword = argv[first];

		memmove(argv + 1, argv, (size_t)first * sizeof(*argv));
		argv[0] = cmdword;
	}
	return 0;
}

/* What a command may change in the session through its global options. */
struct session_snap {
	const char *profile;
	const char *providers[SESSION_MAX_PROVIDERS];
	size_t n_providers;
	int debug;
	int verbose;
	struct out_opts out;
};

static void
snap_take(struct session_snap *snap, const struct session *s)
{
	snap->profile = s->profile;
	memcpy(snap->providers, s->providers, sizeof(snap->providers));
	snap->n_providers = s->n_providers;
	snap->debug = s->debug;
	snap->verbose = s->verbose;
	snap->out = out_global;
}

/*
 * Undo a line's global options. The backends and config were set up for the line's
 * profile and providers; when those changed they are dropped and reopened lazily.
 */
static void
snap_restore(const struct session_snap *snap, struct session *s)
{
	bool changed = s->profile != snap->profile || s->n_providers != snap->n_providers ||
	    memcmp(s->providers, snap->providers, sizeof(snap->providers)) != 0 ||
	    s->debug != snap->debug;

	if (changed)
		session_release(s);
	s->profile = snap->profile;
	memcpy(s->providers, snap->providers, sizeof(snap->providers));
	s->n_providers = snap->n_providers;
	s->debug = snap->debug;
	s->verbose = snap->verbose;
	out_global = snap->out;
}

/*
 * Run one line. Returns the command's exit status; *leave is set by exit and quit,
 * with the status they name.
 */
static int
run_line(struct session *s, const char *line, bool *leave)
{
	struct gr_error err = { 0 };
	struct session_snap snap;
	char **argv, **owned;
	int argc, status;
	long long n;

	if (shell_split(line, false, &argc, &argv, NULL, &err) != GR_OK) {
		fprintf(stderr, "gpurent: %s\n", err.msg);
		return EXIT_USAGE;
	}
	if (argc == 0) {
		shell_argv_free(argv);
		return 0;
	}
	if (strcmp(argv[0], "exit") == 0 || strcmp(argv[0], "quit") == 0) {
		status = 0;
		if (argc > 1 && !parse_int(argv[1], 0, 255, &n)) {
			fprintf(stderr, _("gpurent: %s takes a status from 0 to 255\n"), argv[0]);
			shell_argv_free(argv);
			return EXIT_USAGE;
		}
		if (argc > 1)
			status = (int)n;
		*leave = true;
		shell_argv_free(argv);
		return status;
	}
	if ((strcmp(argv[0], "help") == 0 || strcmp(argv[0], "?") == 0) &&
	    (cmd_find("help") == NULL || strcmp(argv[0], "?") == 0)) {
		print_help(argc, argv);
		shell_argv_free(argv);
		return 0;
	}
	if (move_globals(argc, argv) == argc) {
		fprintf(stderr, _("gpurent: which command? ('help' lists them)\n"));
		shell_argv_free(argv);
		return EXIT_USAGE;
	}
	/* cmd_parse reorders argv and cuts it short: free the words from a copy. */
	owned = xcalloc((size_t)argc + 1, sizeof(*owned));
	memcpy(owned, argv, (size_t)argc * sizeof(*owned));
	snap_take(&snap, s);
	cmd_interrupted = 0;
	got_int = 0;
	status = cmd_run(s, argc, argv, true);
	fflush(stdout);
	clearerr(stdout);
	if (got_int && isatty(STDERR_FILENO))
		fputc('\n', stderr);	/* after the terminal's "^C" */
	snap_restore(&snap, s);
	/* The command may have installed its own handlers; the shell's come back. */
	signals_install(NULL);
	cmd_interrupted = 0;
	got_int = 0;
	free(argv);
	shell_argv_free(owned);
	return status;
}

static char *
cand_gen(const char *text, int state)
{
	(void)text;
	if (state == 0)
		cand_next = 0;
	if (cands == NULL || cands[cand_next] == NULL)
		return NULL;
	return xstrdup(cands[cand_next++]);
}

/* Readline's completion hook: split what is before the word and ask shell_complete. */
static char **
attempt_completion(const char *text, int start, int end)
{
	char *before, **words, **matches, q = 0;
	size_t n;
	int nwords;

	(void)end;
	rl_attempted_completion_over = 1;
	before = xmalloc((size_t)start + 1);
	memcpy(before, rl_line_buffer, (size_t)start);
	before[start] = '\0';
	/* Inside quotes, readline's start is just after the opening quote. */
	if (start > 0 && rl_completion_quote_character != 0 &&
	    before[start - 1] == rl_completion_quote_character)
		before[start - 1] = '\0';
	if (shell_split(before, true, &nwords, &words, &q, NULL) != GR_OK) {
		free(before);
		return NULL;
	}
	free(before);
	shell_argv_free(cands);
	cands = shell_complete(sh_session, words, nwords, text);
	shell_argv_free(words);
	if (cands == NULL) {
		rl_attempted_completion_over = 0;	/* file names */
		return NULL;
	}
	for (n = 0; cands[n] != NULL; n++)
		;
	if (n == 1) {
		size_t l = strlen(cands[0]);

		/* "gpu=" and "--output=" go on without a space. */
		if (l > 0 && (cands[0][l - 1] == '=' || cands[0][l - 1] == ','))
			rl_completion_suppress_append = 1;
	}
	matches = rl_completion_matches(text, cand_gen);
	return matches;
}

static void
line_handler(char *line)
{
	rl_callback_handler_remove();
	pending = line;
	line_ready = true;
}

static const char *
make_prompt(const struct session *s, char *buf, size_t n)
{
	if (s->profile != NULL && s->profile[0] != '\0')
		snprintf(buf, n, "gpurent[%s]> ", s->profile);
	else
		snprintf(buf, n, "gpurent> ");
	return buf;
}

/* Commands from a pipe or file: no prompt, no editing, no history. */
static int
run_script(struct session *s)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int status, last_fail = 0;
	bool leave = false;

	while (!leave && (len = getline(&line, &cap, stdin)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		status = run_line(s, line, &leave);
		if (leave) {
			last_fail = status;
			break;
		}
		if (status != 0)
			last_fail = status;
	}
	free(line);
	return last_fail;
}

int
shell_run(struct session *s)
{
	struct saved_signals old;
	char prompt[96], *hist;
	int status = 0, fd = STDIN_FILENO;
	bool leave = false;

	sh_session = s;
	signals_install(&old);
	if (!isatty(STDIN_FILENO)) {
		status = run_script(s);
		signals_restore(&old);
		return status;
	}

	rl_readline_name = "gpurent";
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_attempted_completion_function = attempt_completion;
	rl_completer_word_break_characters = (char *)" \t\n";
	rl_completer_quote_characters = "'\"";
	/* Before readline reads ~/.inputrc, so the user's own setting wins. */
	rl_variable_bind("completion-ignore-case", "on");
	hist = history_path();
	history_open(hist);
	fputs(_("gpurent shell: 'help' lists commands, Tab completes, 'exit' or Ctrl-D "
	    "leaves\n"), stderr);

	while (!leave) {
		fd_set rfds;
		int r;

		line_ready = false;
		pending = NULL;
		got_int = 0;
		cmd_interrupted = 0;
		rl_callback_handler_install(make_prompt(s, prompt, sizeof(prompt)), line_handler);
		while (!line_ready) {
			if (got_winch) {
				got_winch = 0;
				rl_resize_terminal();
			}
			if (got_int) {
				/* Ctrl-C at the prompt: drop the line, start a fresh one. */
				got_int = 0;
				cmd_interrupted = 0;
				rl_free_line_state();
				rl_callback_sigcleanup();
				rl_replace_line("", 0);
				fputs("^C\n", rl_outstream ? rl_outstream : stdout);
				rl_on_new_line();
				rl_redisplay();
				continue;
			}
			FD_ZERO(&rfds);
			FD_SET(fd, &rfds);
			r = select(fd + 1, &rfds, NULL, NULL, NULL);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				leave = true;
				break;
			}
			rl_callback_read_char();
		}
		if (!line_ready) {
			rl_callback_handler_remove();
			break;
		}
		if (pending == NULL) {		/* Ctrl-D */
			fputc('\n', stdout);
			break;
		}
		history_keep(hist, pending);
		status = run_line(s, pending, &leave);
		free(pending);
		pending = NULL;
	}
	if (hist != NULL)
		history_truncate_file(hist, HISTORY_MAX);
	free(hist);
	shell_argv_free(cands);
	cands = NULL;
	rl_callback_handler_remove();
	signals_restore(&old);
	return leave ? status : 0;
}
