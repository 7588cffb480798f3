/*
 * split.c - turning a shell line into words, and deciding what stays out of history.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/cmd.h"
#include "gpurent/shell.h"
#include "gpurent/util.h"

extern char **environ;

struct words {
	char **v;
	int n;
};

static void
words_add(struct words *w, struct sb *word)
{
	w->v = xreallocarray(w->v, (size_t)w->n + 2, sizeof(*w->v));
	w->v[w->n++] = sb_detach(word);
	w->v[w->n] = NULL;
	sb_init(word);		/* sb_detach leaves the buffer unusable */
}

void
shell_argv_free(char **argv)
{
	if (argv == NULL)
		return;
	for (char **p = argv; *p != NULL; p++)
		free(*p);
	free(argv);
}

enum gr_err
shell_split(const char *line, bool lenient, int *argc, char ***argv, char *open_quote,
    struct gr_error *err)
{
	struct words w = { NULL, 0 };
	struct sb word;
	const char *p = line;
	bool in_word = false;
	char quote = 0;

	sb_init(&word);
	for (; *p != '\0'; p++) {
		char ch = *p;

		if (quote == '\'') {
			if (ch == '\'')
				quote = 0;
			else
				sb_addc(&word, ch);
			continue;
		}
		if (quote == '"') {
			if (ch == '"')
				quote = 0;
			else if (ch == '\\' && p[1] != '\0' && strchr("\"\\$`", p[1]) != NULL)
				sb_addc(&word, *++p);
			else
				sb_addc(&word, ch);
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
			if (in_word)
				words_add(&w, &word);
			in_word = false;
			continue;
		}
		if (ch == '#' && !in_word)
			break;
		in_word = true;
		if (ch == '\'' || ch == '"')
			quote = ch;
		else if (ch == '\\' && p[1] != '\0')
			sb_addc(&word, *++p);
		else if (ch != '\\')
			sb_addc(&word, ch);
	}
	if (quote != 0 && !lenient) {
		sb_release(&word);
		shell_argv_free(w.v);
		return gr_fail(err, GR_EUSAGE, "unterminated %s quote",
		    quote == '\'' ? "single" : "double");
	}
	if (in_word)
		words_add(&w, &word);
	sb_release(&word);
	if (w.v == NULL)
		w.v = xcalloc(1, sizeof(*w.v));
	if (open_quote != NULL)
		*open_quote = quote;
	*argc = w.n;
	*argv = w.v;
	return GR_OK;
}

bool
shell_is_builtin(const char *word)
{
	return strcmp(word, "exit") == 0 || strcmp(word, "quit") == 0 ||
	    strcmp(word, "help") == 0 || strcmp(word, "?") == 0;
}

/* Whether an environment variable's name says it holds a secret. */
static bool
secret_var(const char *name, size_t len)
{
	static const char *const suffixes[] = { "_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD",
		"_PASSPHRASE" };

	for (size_t i = 0; i < ARRAY_LEN(suffixes); i++) {
		size_t sl = strlen(suffixes[i]);

		if (len >= sl && strncmp(name + len - sl, suffixes[i], sl) == 0)
			return true;
	}
	return len == 18 && strncmp(name, "GPURENT_PASSPHRASE", 18) == 0;
}

/* Whether word contains the value of a secret environment variable. */
static bool
has_env_secret(const char *word)
{
	for (char **e = environ; e != NULL && *e != NULL; e++) {
		const char *eq = strchr(*e, '=');

		if (eq == NULL || !secret_var(*e, (size_t)(eq - *e)))
			continue;
		if (strlen(eq + 1) >= 6 && strstr(word, eq + 1) != NULL)
			return true;
	}
	return false;
}

/* Whether word names a secret: "--api-key", "token=...", "PASSWORD". */
static bool
names_secret(const char *word)
{
	static const char *const names[] = { "apikey", "api_key", "api-key", "token", "secret",
		"password", "passwd", "passphrase", "bearer", "authorization" };
	char low[128];
	size_t i;

	for (i = 0; word[i] != '\0' && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)word[i]);
	low[i] = '\0';
	for (i = 0; i < ARRAY_LEN(names); i++)
		if (strstr(low, names[i]) != NULL)
			return true;
	return false;
}

bool
shell_line_private(const char *line)
{
	const struct command *cmd;
	char **argv = NULL;
	int argc = 0;
	bool private = false;

	/* Whatever cannot be split is kept out: it may be half a key. */
	if (shell_split(line, true, &argc, &argv, NULL, NULL) != GR_OK)
		return true;
	if (argc == 0)
		private = true;
	else if (shell_is_builtin(argv[0]))
		private = false;
	else if ((cmd = cmd_find(argv[0])) == NULL || (cmd->flags & CMD_SENSITIVE))
		private = true;
	for (int i = 0; i < argc && !private; i++)
		if (names_secret(argv[i]) || has_env_secret(argv[i]))
			private = true;
	shell_argv_free(argv);
	return private;
}
