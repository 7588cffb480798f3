/*
 * cmd.h - the command table: one const struct command per file under src/cmd/.
 *
 * The same table drives dispatch, `gpurent help`, `COMMAND --help`, the shell's completion,
 * the shell-completion helper (`gpurent __complete`) and the test that keeps the man page
 * and completions in step. A command returns its exit status; it never calls exit(), so the
 * shell can run it in-process.
 */
#ifndef GPURENT_CMD_H
#define GPURENT_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"
#include "session.h"

/* What an option's argument completes to, for the shell and the completion scripts. */
enum opt_complete {
	CPL_NONE, CPL_OFFER, CPL_INSTANCE, CPL_PROVIDER, CPL_FIELD, CPL_SORT, CPL_STATE,
	CPL_FORMAT, CPL_GPU, CPL_CONFIG_KEY, CPL_FILE, CPL_COMMAND, CPL_PROFILE, CPL_FILTER,
	CPL_JOB, CPL_GROUP, CPL_GROUP_ARGS, CPL_AUDIT_BY, CPL_COSTS_BY, CPL_BURST,
	CPL_PREEMPT_REASON, CPL_STATE_ARGS,
};

/*
 * How an option is taken (struct cmd_opt's how, OR-ed). An option that only stores its
 * value (OPT_TRUE, OPT_FALSE, OPT_STR, OPT_INTERVAL, OPT_WHEN) is stored by cmd_parse
 * itself at offset id of the args struct the command passed as data (OPT_AT), as git's
 * OPT_BOOL does; any other is handed to the command's handler, which validates (with its
 * own messages) and stores.
 */
enum {
	OPT_REPEAT = 1u << 0,	/* may be given more than once */
	OPT_TRUE = 1u << 1,	/* a flag: sets the bool at id */
	OPT_FALSE = 1u << 2,	/* a flag: clears the bool at id (--no-wait) */
	OPT_STR = 1u << 3,	/* stores its argument (a const char *) at id */
	OPT_INTERVAL = 1u << 4,	/* stores parse_interval's seconds (a long long) at id */
	OPT_WHEN = 1u << 5,	/* checks a WHEN (cmd_when) and stores it as given (a const
				   char *) at id, for the command to resolve on its clock */
};
/* The id of an option that cmd_parse stores: where in the command's args struct. */
#define OPT_AT(type, member) ((int)offsetof(type, member))

struct cmd_opt {
	const char *name;	/* long name without dashes */
	char short_name;	/* 0: none */
	const char *arg;	/* argument placeholder; NULL: a flag */
	const char *help;
	int id;			/* handed to the command's option handler, or OPT_AT */
	enum opt_complete complete;
	unsigned how;		/* OPT_*; 0: once, by the handler */
};

enum {
	CMD_SENSITIVE = 1u << 0,	/* never written to shell history */
	CMD_NOT_IN_SHELL = 1u << 1,	/* makes no sense inside `gpurent shell` */
	CMD_HIDDEN = 1u << 2,		/* not listed in help (internal helpers) */
	CMD_ANY_CONFIG = 1u << 3,	/* runs with a config line it cannot read (to mend it) */
};

struct cmd_ctx;

struct command {
	const char *name;
	const char *alias;		/* NULL: none (destroy has none on purpose) */
	const char *args;		/* positional synopsis, "ID..." */
	const char *summary;		/* one line */
	const char *help;		/* paragraphs for --help, may be NULL */
	const struct cmd_opt *opts;	/* terminated by a zero entry; may be NULL */
	enum opt_complete complete_args;	/* what positionals complete to */
	unsigned flags;
	int (*run)(struct cmd_ctx *c, int argc, char **argv);
};

/* What every command gets. */
struct cmd_ctx {
	const struct command *cmd;
	struct session *s;
	FILE *out;			/* stdout */
	bool in_shell;
};

/* The table, NULL-terminated, sorted by name. */
extern const struct command *const commands[];

const struct command *cmd_find(const char *name);
/* The closest command name to a typo, or NULL. */
const char *cmd_suggest(const char *name);

/* Global options, accepted before or after the command name. */
extern const struct cmd_opt global_opts[];

/*
 * The option a command-line word names, by the first len bytes of name (a long option)
 * or by its letter: cmd's own first (cmd may be NULL), then the global ones; NULL when
 * neither has it. *global (unless NULL) says it is a global one.
 */
const struct cmd_opt *cmd_opt_long(const struct command *cmd, const char *name, size_t len,
    bool *global);
const struct cmd_opt *cmd_opt_short(const struct command *cmd, char ch, bool *global);

/*
 * Parse argv (argv[0] is the command name) against the command's options and the global
 * ones. A command option that stores (OPT_TRUE ... OPT_WHEN) is stored into data; for
 * each other, handle(c, id, arg, data) is called (handle may be NULL when there is none);
 * it returns 0 or an exit status. Positionals are moved to the front of argv; *npos
 * receives their count.
 * "--" ends options. "--help" prints the command's help and returns -1 via *npos.
 * argv is rewritten in place (option words dropped, argv[*npos] = NULL): a caller that owns
 * the strings must keep its own copy of the pointers to free them.
 * Returns 0 or an exit status (usage errors are reported here).
 */
typedef int (*opt_handler)(struct cmd_ctx *c, int id, const char *arg, void *data);
int cmd_parse(struct cmd_ctx *c, int argc, char **argv, opt_handler handle, void *data,
    int *npos);
/*
 * cmd_parse for a command that takes options only: an argument is a usage error, why (an
 * N_() literal, translated here) or, when NULL, "unexpected argument". False when the
 * command ends here (--help, or an error), with its exit status in *rc.
 */
bool cmd_parse_options(struct cmd_ctx *c, int argc, char **argv, opt_handler handle,
    void *data, const char *why, int *rc);
/*
 * cmd_parse for a command that needs an argument: none is the usage error when there is
 * none (an N_() literal, translated here). False when the command ends here (--help, or an
 * error), with its exit status in *rc; else the arguments' count in *npos.
 */
bool cmd_parse_args(struct cmd_ctx *c, int argc, char **argv, opt_handler handle, void *data,
    const char *none, int *npos, int *rc);

/*
 * Parse an option's WHEN (parse_when: a duration back from now, a UTC date or time,
 * RFC 3339) into *out; 0, or a usage error that says what WHEN may be. With now 0 it only checks WHEN,
 * for an option handler that runs before the command knows its clock.
 */
int cmd_when(struct cmd_ctx *c, const char *option, const char *arg, int64_t now, int64_t *out);

/* Apply one global option (shared with main, which parses them before the command). */
int cmd_global_option(struct session *s, int id, const char *arg);

/* Report an error on stderr as "gpurent: <msg>" and return its exit status. */
int cmd_error(struct cmd_ctx *c, const struct gr_error *e);
/*
 * Printf-style usage error: "gpurent COMMAND: msg" plus "see 'gpurent COMMAND --help'".
 * cmd_usage_error, cmd_warn and cmd_confirm translate fmt themselves, as gr_fail does
 * (xgettext keywords cmd_usage_error:2, cmd_warn:1, cmd_confirm:1): pass the English literal.
 */
int cmd_usage_error(struct cmd_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Warnings and notes to stderr (progress, partial failures). */
void cmd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void cmd_print_help(FILE *fp, const struct command *cmd);
void cmd_print_overview(FILE *fp);

/* Run argv as a command (argv[0] is the command name); used by main and the shell. */
int cmd_run(struct session *s, int argc, char **argv, bool in_shell);

/*
 * The interactive shell (src/shell/) runs command lines through this table, so it sits
 * above cmd/ and nothing here includes it: the `shell` and `__complete` commands reach it
 * through these, which main.c hands down before any command runs.
 */
struct cmd_shell_ops {
	int (*run)(struct session *s);
	char **(*complete)(struct session *s, char **words, int nwords, const char *partial);
	void (*words_free)(char **words);
	/* Split a config value that names a program and its arguments into words, as the
	 * shell's command lines are split (quotes, backslashes), never run by a shell. */
	enum gr_err (*split)(const char *line, int *argc, char ***argv, struct gr_error *err);
};
extern const struct cmd_shell_ops *cmd_shell_ops;

/* Set by SIGINT; long loops (--wait, --follow) check it and stop cleanly. */
extern volatile int cmd_interrupted;
void cmd_install_signals(void);

/* Ask y/N on the terminal; false when stdin is not a terminal. */
bool cmd_confirm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
