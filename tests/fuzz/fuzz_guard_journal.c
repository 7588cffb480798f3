/* fuzz_guard_journal.c - libFuzzer target: the instance guard's journal, as a rented machine
 * might answer its read, on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/guard_agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
clean(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* Each decision comes past the one before it, its words free of control characters. */
static void
check(const struct guard_decision *d, void *ctx)
{
	long long *prev = ctx;

	if (d->seq <= *prev || d->at < 0 || !clean(d->kind) || !clean(d->policy) ||
	    !clean(d->msg))
		__builtin_trap();
	*prev = d->seq;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct guard_journal j;
	char *text = malloc(size + 1);
	long long last = 3, prev = 3;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (guard_journal_parse(text, &last, &j, check, &prev)) {
		if (j.heartbeat_age < -1 || j.util < -1 || j.util > 100 || j.spent < -1 ||
		    j.next_in < -1 || !clean(j.verdict) || !clean(j.next) || last != prev)
			__builtin_trap();
	} else if (j.installed || j.events != 0) {
		__builtin_trap();
	}
	free(text);
	return 0;
}
