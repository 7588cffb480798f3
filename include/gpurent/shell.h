/*
 * shell.h - `gpurent shell`: a readline prompt over the same command table as the command
 * line. Only src/shell includes readline; the helpers below are plain functions so that
 * tests can drive them without a terminal.
 */
#ifndef GPURENT_SHELL_H
#define GPURENT_SHELL_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct session;

/*
 * Run the shell on the terminal until `exit`, `quit` or Ctrl-D. When stdin is not a
 * terminal, read commands line by line with no prompt, editing or history (a script) and
 * return the status of the last command that failed, else 0.
 */
int shell_run(struct session *s);

/*
 * Split a line into words the way sh does for simple commands: blanks separate words,
 * '...' is literal, "..." allows \" \\ \$ \` escapes, a backslash outside quotes escapes
 * the next character, and # at the start of a word begins a comment. *argv is a
 * NULL-terminated malloc'd array of malloc'd strings (free with shell_argv_free).
 * An unterminated quote is GR_EUSAGE, unless lenient, which is for completion: then the
 * open word is returned as it stands and *open_quote receives the quote character
 * (0 when none; open_quote may be NULL).
 */
enum gr_err shell_split(const char *line, bool lenient, int *argc, char ***argv,
    char *open_quote, struct gr_error *err);
void shell_argv_free(char **argv);

/*
 * Whether a line must stay out of the history file: a command flagged CMD_SENSITIVE, a
 * line whose first word is not a command (a pasted key, a typo), a word that names a
 * secret (key, token, password, passphrase, secret) or that equals the value of a secret
 * environment variable (*_API_KEY, *_TOKEN, GPURENT_PASSPHRASE).
 */
bool shell_line_private(const char *line);

/*
 * Completion candidates for the word being typed. words[0..nwords-1] are the complete
 * words before it; partial is its start. Returns a NULL-terminated malloc'd array of
 * malloc'd strings, sorted and without duplicates (free with shell_argv_free), or NULL
 * when file names should be completed instead.
 */
char **shell_complete(struct session *s, char **words, int nwords, const char *partial);

/* The built-in words of the shell (exit, quit, help), for completion. */
bool shell_is_builtin(const char *word);

#endif
