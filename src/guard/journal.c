/*
 * journal.c - what the instance guard's journal read printed, parsed (guard_agent.h). The
 * text comes from a rented machine: every figure is bounded, every word sanitised, and a
 * line that is not a decision is passed over.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/guard_agent.h"
#include "gpurent/money.h"
#include "gpurent/util.h"

/* The value of key in the state lines (a copy, at most n bytes), or "" when absent. */
static void
state_value(const char *state, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	const char *p = state;

	out[0] = '\0';
	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
			const char *end = strchr(p + kl + 1, '\n');
			size_t l = end != NULL ? (size_t)(end - p - kl - 1) : strlen(p + kl + 1);

			snprintf(out, n, "%.*s", (int)l, p + kl + 1);
			return;
		}
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
}

/* A figure of the state: a whole number from 0, else none (absent, negative, not a number). */
static int64_t
state_num(const char *state, const char *key, int64_t none)
{
	char v[32];
	long long n;

	state_value(state, key, v, sizeof(v));
	return parse_int(v, 0, INT64_MAX / 4, &n) ? n : none;
}

/* A decision of the agent's log: "SEQ TIME KIND POLICY MESSAGE". */
static bool
decision_parse(char *line, struct guard_decision *d)
{
	char *f[4], *p = line;
	size_t i;

	for (i = 0; i < 4; i++) {
		f[i] = p;
		if ((p = strchr(p, ' ')) == NULL)
			return false;
		*p++ = '\0';
	}
	if (!parse_int(f[0], 1, INT64_MAX / 4, &d->seq) ||
	    !parse_int(f[1], 0, INT64_MAX / 4, &d->at))
		return false;
	text_sanitize(d->kind, sizeof(d->kind), f[2]);
	text_sanitize(d->policy, sizeof(d->policy), strcmp(f[3], "-") == 0 ? "" : f[3]);
	text_sanitize(d->msg, sizeof(d->msg), p);
	return true;
}

bool
guard_journal_parse(char *text, long long *last, struct guard_journal *out,
    void (*fn)(const struct guard_decision *d, void *ctx), void *ctx)
{
	char v[32], *state, *log, *line, *save = NULL;
	long long now;
	int64_t hb, util;

	memset(out, 0, sizeof(*out));
	out->heartbeat_age = out->next_in = out->spent = -1;
	out->util = -1;
	if (strncmp(text, "@@now ", 6) != 0)
		return false;
	out->installed = true;
	state = strchr(text, '\n');
	if (state != NULL)
		*state++ = '\0';
	if (!parse_int(text + 6, 0, INT64_MAX / 4, &now))
		now = -1;
	if (state == NULL)
		return true;
	/* The markers stand at the start of a line: before the state's own lines. */
	out->alive = strncmp(state, "@@alive\n", 8) == 0;
	if (out->alive)
		state += 8;
	/* From the newline that ends "@@state", so that an empty state still meets "@@log". */
	if (strncmp(state, "@@state\n", 8) != 0 || (log = strstr(state + 7, "\n@@log\n")) == NULL)
		return true;
	state += 7;
	*log = '\0';
	log += 7;
	hb = state_num(state, "heartbeat", -1);
	out->heartbeat_age = hb >= 0 && now >= hb ? now - hb : -1;
	out->interval = state_num(state, "interval", 0);
	util = state_num(state, "util", -1);
	out->util = util <= 100 ? (int)util : -1;
	state_value(state, "verdict", v, sizeof(v));
	text_sanitize(out->verdict, sizeof(out->verdict), v);
	state_value(state, "next", v, sizeof(v));
	text_sanitize(out->next, sizeof(out->next), v);
	out->next_in = state_num(state, "next_in", -1);
	out->spent = state_num(state, "spent", -1);
	state_value(state, "currency", v, sizeof(v));
	if (money_currency_valid(v))
		money_currency_set(out->currency, v);
	for (line = strtok_r(log, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		struct guard_decision d;

		if (!decision_parse(line, &d) || d.seq <= *last)
			continue;
		fn(&d, ctx);
		*last = d.seq;
		out->events++;
	}
	return true;
}
