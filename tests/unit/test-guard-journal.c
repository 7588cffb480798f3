/*
 * guard_journal_parse: what the instance guard's journal read prints on a rented machine,
 * parsed. The machine is not trusted: malformed and hostile answers give what is known and
 * nothing more (unknown stays -1, not 0), and no control character reaches a terminal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpurent/guard_agent.h"

struct seen {
	struct guard_decision d[8];
	int n;
};

static void
keep(const struct guard_decision *d, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 8)
		s->d[s->n++] = *d;
}

/* Parse a copy of text (the parser writes into it). */
static bool
parse(const char *text, long long *last, struct guard_journal *j, struct seen *s)
{
	static char buf[4096];

	memset(s, 0, sizeof(*s));
	snprintf(buf, sizeof(buf), "%s", text);
	return guard_journal_parse(buf, last, j, keep, s);
}

static void
whole_answer(void **state)
{
	struct guard_journal j;
	struct seen s;
	long long last = 1000;

	(void)state;
	assert_true(parse("@@now 1000100\n@@alive\n@@state\nat=1000090\nheartbeat=1000095\n"
	    "interval=30\nutil=3\nverdict=idle\nidle_since=1000000\nnext=idle\nnext_in=120\n"
	    "spent=250000\ncurrency=USD\npid=42\n@@log\n"
	    "1000 999000 start - interval 30s\n"
	    "1001 1000050 stop-failed idle GPU at most 5% for 60s (now 3%); the provider answered 500\n"
	    "1002 1000080 unknown - no GPU reading: no idle verdict\n", &last, &j, &s));
	assert_true(j.installed);
	assert_true(j.alive);
	assert_int_equal(j.heartbeat_age, 5);		/* 1000100 - 1000095 */
	assert_int_equal(j.interval, 30);
	assert_int_equal(j.util, 3);
	assert_string_equal(j.verdict, "idle");
	assert_string_equal(j.next, "idle");
	assert_int_equal(j.next_in, 120);
	assert_int_equal(j.spent, 250000);
	assert_string_equal(j.currency, "USD");
	/* Decision 1000 was recorded before: only the two after it, in order. */
	assert_int_equal(s.n, 2);
	assert_int_equal(j.events, 2);
	assert_int_equal(last, 1002);
	assert_int_equal(s.d[0].seq, 1001);
	assert_int_equal(s.d[0].at, 1000050);
	assert_string_equal(s.d[0].kind, "stop-failed");
	assert_string_equal(s.d[0].policy, "idle");
	assert_string_equal(s.d[0].msg, "GPU at most 5% for 60s (now 3%); the provider answered 500");
	assert_string_equal(s.d[1].policy, "");		/* "-": no policy */
}

static void
empty_state_and_dead_agent(void **state)
{
	struct guard_journal j;
	struct seen s;
	long long last = 0;

	(void)state;
	assert_true(parse("@@now 50\n@@state\n@@log\n", &last, &j, &s));
	assert_true(j.installed);
	assert_false(j.alive);
	assert_int_equal(j.heartbeat_age, -1);
	assert_int_equal(j.util, -1);
	assert_int_equal(j.spent, -1);
	assert_int_equal(j.next_in, -1);
	assert_string_equal(j.currency, "");
	assert_int_equal(s.n, 0);
}

static void
malformed(void **state)
{
	struct guard_journal j;
	struct seen s;
	long long last = 0;

	(void)state;
	/* Not an answer of the read at all: nothing installed, nothing known. */
	assert_false(parse("", &last, &j, &s));
	assert_false(j.installed);
	assert_int_equal(j.util, -1);
	assert_false(parse("sh: 1: cannot create: Permission denied\n", &last, &j, &s));
	/* Cut after @@now, or without its log marker: installed, the rest unknown. */
	assert_true(parse("@@now 7", &last, &j, &s));
	assert_true(j.installed);
	assert_int_equal(j.heartbeat_age, -1);
	assert_true(parse("@@now 7\n@@state\nheartbeat=5\n", &last, &j, &s));
	assert_int_equal(j.heartbeat_age, -1);
	/* Figures out of range or not numbers are unknown; a heartbeat ahead of now has no age. */
	assert_true(parse("@@now 100\n@@state\nheartbeat=200\nutil=250\nspent=lots\n"
	    "next_in=99999999999999999999\ncurrency=US$\n@@log\n", &last, &j, &s));
	assert_int_equal(j.heartbeat_age, -1);
	assert_int_equal(j.util, -1);
	assert_int_equal(j.spent, -1);
	assert_int_equal(j.next_in, -1);
	assert_string_equal(j.currency, "");
	/* The agent writes no negative figure: one is unknown, and a utilisation that does not
	 * fit an int is not wrapped into one that looks real. */
	assert_true(parse("@@now 100\n@@state\nheartbeat=90\nnext_in=-120\nspent=-5\n"
	    "util=4294967299\n@@log\n", &last, &j, &s));
	assert_int_equal(j.heartbeat_age, 10);
	assert_int_equal(j.util, -1);
	assert_int_equal(j.spent, -1);
	assert_int_equal(j.next_in, -1);
	assert_string_equal(j.currency, "");
	/* Log lines that are not decisions are passed over; the good one after them is kept. */
	assert_true(parse("@@now 100\n@@state\n@@log\n\nx y z w v\n-1 5 start - a\n3 5 start\n"
	    "4 -5 start - a\n5 6 start - fine\n", &last, &j, &s));
	assert_int_equal(s.n, 1);
	assert_int_equal(s.d[0].seq, 5);
	assert_int_equal(last, 5);
}

static void
hostile(void **state)
{
	struct guard_journal j;
	struct seen s;
	long long last = 0;
	int i;

	(void)state;
	/* An "@@alive" or "@@log" inside the state does not make the agent alive or move the log. */
	assert_true(parse("@@now 100\n@@state\n@@alive\nverdict=\x1b[31mbusy\x07\n@@log\n"
	    "9 10 stop-\x1b]0;pwned\x07ordered idle\x1b[2J msg\x1b[1mbold\r\n", &last, &j, &s));
	assert_false(j.alive);
	for (i = 0; j.verdict[i] != '\0'; i++)
		assert_true((unsigned char)j.verdict[i] >= 0x20 && j.verdict[i] != 0x7f);
	assert_int_equal(s.n, 1);
	for (i = 0; s.d[0].kind[i] != '\0'; i++)
		assert_true((unsigned char)s.d[0].kind[i] >= 0x20);
	for (i = 0; s.d[0].policy[i] != '\0'; i++)
		assert_true((unsigned char)s.d[0].policy[i] >= 0x20);
	for (i = 0; s.d[0].msg[i] != '\0'; i++)
		assert_true((unsigned char)s.d[0].msg[i] >= 0x20);
	/* An overlong word or message is cut to its field, never past it. */
	{
		char big[3000];

		memset(big, 'k', sizeof(big));
		memcpy(big, "@@now 1\n@@state\n@@log\n11 1 ", 27);
		big[sizeof(big) - 1] = '\0';
		big[1500] = ' ';
		big[1600] = ' ';
		last = 0;
		assert_true(parse(big, &last, &j, &s));
		assert_int_equal(s.n, 1);
		assert_true(strlen(s.d[0].kind) < sizeof(s.d[0].kind));
		assert_true(strlen(s.d[0].msg) < sizeof(s.d[0].msg));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_answer),
		cmocka_unit_test(empty_state_and_dead_agent),
		cmocka_unit_test(malformed),
		cmocka_unit_test(hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
