/*
 * error.c - errors with a reason: the first writer's message, exit codes and names.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpurent/error.h"
#include "gpurent/i18n.h"

void
gr_error_clear(struct gr_error *e)
{
	e->code = GR_OK;
	e->msg[0] = '\0';
}

enum gr_err
gr_fail(struct gr_error *e, enum gr_err code, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL || e->code != GR_OK)
		return code;
	e->code = code;
	va_start(ap, fmt);
	/* Translated here so that no call site needs a mark (xgettext keyword gr_fail:3). */
	vsnprintf(e->msg, sizeof(e->msg), _(fmt), ap);
	va_end(ap);
	return code;
}

static const struct {
	const char *name;
	int exit;
} err_table[] = {
	[GR_OK] = { "ok", EXIT_OK_ },
	[GR_EFAIL] = { "error", EXIT_ERROR },
	[GR_EUSAGE] = { "usage", EXIT_USAGE },
	[GR_ENOTFOUND] = { "not_found", EXIT_NOTFOUND },
	[GR_EAUTH] = { "auth", EXIT_AUTH },
	[GR_EUNAVAIL] = { "unavailable", EXIT_UNAVAIL },
	[GR_ERATELIMIT] = { "rate_limited", EXIT_RATELIMIT },
	[GR_ECAPACITY] = { "no_capacity", EXIT_CAPACITY },
	[GR_EFUNDS] = { "insufficient_funds", EXIT_FUNDS },
	[GR_EBUDGET] = { "budget", EXIT_BUDGET },
	[GR_EPARTIAL] = { "partial", EXIT_PARTIAL },
	[GR_ETIMEOUT] = { "timeout", EXIT_TIMEOUT },
	[GR_EUNSUPPORTED] = { "unsupported", EXIT_UNSUPPORTED },
	[GR_ECONFLICT] = { "conflict", EXIT_CONFLICT },
	[GR_ESTATE] = { "state", EXIT_ERROR },
	[GR_EINTERRUPTED] = { "interrupted", EXIT_INTERRUPTED },
	[GR_ELOCKED] = { "locked", EXIT_LOCKED },
};

int
gr_exit_code(enum gr_err code)
{
	if ((size_t)code >= sizeof(err_table) / sizeof(err_table[0]))
		return EXIT_ERROR;
	return err_table[code].exit;
}

const char *
gr_err_name(enum gr_err code)
{
	if ((size_t)code >= sizeof(err_table) / sizeof(err_table[0]))
		return "error";
	return err_table[code].name;
}
