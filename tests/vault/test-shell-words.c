/*
 * test-shell-words.c - the shell's pure helpers: word splitting, what stays out of history,
 * and completion from the command table (no terminal needed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../tmpdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/cmd.h"
#include "gpurent/paths.h"
#include "gpurent/session.h"
#include "gpurent/shell.h"

static void
expect_words(const char *line, int n, ...)
{
	struct gr_error err = { 0 };
	char **argv;
	int argc;
	va_list ap;

	assert_int_equal(shell_split(line, false, &argc, &argv, NULL, &err), GR_OK);
	assert_int_equal(argc, n);
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		assert_string_equal(argv[i], va_arg(ap, const char *));
	va_end(ap);
	assert_null(argv[n]);
	shell_argv_free(argv);
}

static void
test_split(void **state)
{
	struct gr_error err = { 0 };
	char **argv, q;
	int argc;

	(void)state;
	expect_words("", 0);
	expect_words("   \t ", 0);
	expect_words("offers gpu=h100  --limit 5", 4, "offers", "gpu=h100", "--limit", "5");
	expect_words("launch x --label 'my job' --env \"A=b c\"", 6, "launch", "x", "--label",
	    "my job", "--env", "A=b c");
	expect_words("a\\ b 'it''s' \"q\\\"uote\\n\"", 3, "a b", "its", "q\"uote\\n");
	expect_words("ls # a comment", 1, "ls");
	expect_words("ls a#b", 2, "ls", "a#b");
	expect_words("'' x", 2, "", "x");

	assert_int_equal(shell_split("echo 'open", false, &argc, &argv, NULL, &err), GR_EUSAGE);
	assert_non_null(strstr(err.msg, "unterminated"));
	assert_int_equal(shell_split("launch --label \"my jo", true, &argc, &argv, &q, NULL),
	    GR_OK);
	assert_int_equal(argc, 3);
	assert_string_equal(argv[2], "my jo");
	assert_int_equal(q, '"');
	shell_argv_free(argv);
}

static void
test_private(void **state)
{
	(void)state;
	unsetenv("GPURENT_VAST_API_KEY");
	assert_true(shell_line_private("login vast"));
	assert_true(shell_line_private("login --stdin runpod"));
	assert_true(shell_line_private("sk-live-abcdef0123456789"));	/* not a command */
	assert_true(shell_line_private("offers --label api_key=xyz"));
	assert_true(shell_line_private("launch o --env HF_TOKEN=abc"));
	assert_true(shell_line_private("launch o --env PASSWORD=abc"));
	assert_true(shell_line_private("echo 'unterminated"));
	assert_true(shell_line_private(""));
	assert_false(shell_line_private("offers gpu=h100 --limit 3"));
	assert_false(shell_line_private("exit"));
	setenv("GPURENT_VAST_API_KEY", "zz-secret-value-42", 1);
	assert_true(shell_line_private("offers --label zz-secret-value-42"));
	assert_false(shell_line_private("offers --label zz-other"));
	unsetenv("GPURENT_VAST_API_KEY");
}

static bool
has(char **list, const char *word)
{
	for (; list != NULL && *list != NULL; list++)
		if (strcmp(*list, word) == 0)
			return true;
	return false;
}

static void
test_complete(void **state)
{
	struct session s;
	char *w_offers[] = { "offers", NULL };
	char *w_out[] = { "offers", "--output", NULL };
	char *w_login[] = { "login", NULL };
	char *w_glob[] = { "--profile", NULL };
	char **l;

	(void)state;
	session_init(&s);

	l = shell_complete(&s, NULL, 0, "lo");
	assert_true(has(l, "login"));
	assert_true(has(l, "logout"));
	assert_false(has(l, "offers"));
	assert_false(has(l, "shell"));		/* not inside the shell */
	shell_argv_free(l);

	l = shell_complete(&s, NULL, 0, "ex");
	assert_true(has(l, "exit"));
	shell_argv_free(l);

	l = shell_complete(&s, w_offers, 1, "--");
	assert_true(has(l, "--output"));	/* a global option */
	assert_true(has(l, "--help"));
	shell_argv_free(l);

	l = shell_complete(&s, w_out, 2, "j");
	assert_true(has(l, "json"));
	assert_false(has(l, "table"));
	shell_argv_free(l);

	l = shell_complete(&s, w_offers, 1, "--output=c");
	assert_true(has(l, "--output=csv"));
	shell_argv_free(l);

	l = shell_complete(&s, w_login, 1, "");
	assert_true(has(l, "sim"));
	shell_argv_free(l);

	l = shell_complete(&s, w_login, 1, "--s");
	assert_true(has(l, "--stdin"));
	shell_argv_free(l);

	/* The value of a global option before the command. */
	l = shell_complete(&s, w_glob, 1, "");
	assert_non_null(l);
	shell_argv_free(l);

	session_release(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_private),
		cmocka_unit_test(test_complete),
	};
	char home[256];
	int rc;

	if (test_tmpdir_make(home, sizeof(home), "shell-words") != 0)
		return 1;
	setenv("GPURENT_HOME", home, 1);
	paths_reset();
	rc = cmocka_run_group_tests_name("shell-words", tests, NULL, NULL);
	if (test_tmpdir_remove(home) != 0)
		rc = rc ? rc : 1;
	return rc;
}
