/*
 * error.h - the error enum every layer returns, and the message that travels with it.
 *
 * A function that can fail returns an enum gr_err and fills a caller-owned struct gr_error.
 * The first message written wins (as curl's failf): the innermost, most specific cause is
 * what the user sees. Messages follow git's style: lower case, no full stop, subject quoted.
 */
#ifndef GPURENT_ERROR_H
#define GPURENT_ERROR_H

#include <stddef.h>

enum gr_err {
	GR_OK = 0,
	GR_EFAIL,		/* anything not listed below */
	GR_EUSAGE,		/* bad command line, filter or config value */
	GR_ENOTFOUND,		/* unknown instance, offer or provider */
	GR_EAUTH,		/* missing or rejected API key */
	GR_EUNAVAIL,		/* provider unreachable, 5xx, network error */
	GR_ERATELIMIT,		/* provider said 429 and retries ran out */
	GR_ECAPACITY,		/* offer gone or out of stock */
	GR_EFUNDS,		/* insufficient balance */
	GR_EBUDGET,		/* refused by the configured budget */
	GR_EPARTIAL,		/* some of several operations failed */
	GR_ETIMEOUT,		/* --wait ran out of time */
	GR_EUNSUPPORTED,	/* the provider cannot do this */
	GR_ECONFLICT,		/* the instance's state does not allow it (start a failed one) */
	GR_ESTATE,		/* local database or files unusable */
	GR_EINTERRUPTED,	/* Ctrl-C */
	GR_ELOCKED,		/* another process holds a lock that allows only one (watch) */
};

struct gr_error {
	enum gr_err code;
	char msg[512];
};

/* Empty the error; a fresh struct gr_error = {0} is already clear. */
void gr_error_clear(struct gr_error *e);

/*
 * Record a failure unless one is recorded already, and return code so callers can write
 * `return gr_fail(e, GR_ENOTFOUND, "no instance '%s'", id);`. e may be NULL.
 * fmt is translated (gettext) before formatting, so call sites pass the English literal and
 * xgettext finds it through the keyword gr_fail:3; a translation keeps the conversions in
 * order (msgfmt -c checks).
 */
enum gr_err gr_fail(struct gr_error *e, enum gr_err code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The process exit status for an error (documented under EXIT STATUS in gpurent(1)). */
int gr_exit_code(enum gr_err code);

/* A short stable name ("not_found", "auth", ...) used in JSON error objects. */
const char *gr_err_name(enum gr_err code);

/* Exit statuses; see gpurent(1). */
enum gr_exit {
	EXIT_OK_ = 0,
	EXIT_ERROR = 1,
	EXIT_USAGE = 2,
	EXIT_NOTFOUND = 3,
	EXIT_AUTH = 4,
	EXIT_UNAVAIL = 5,
	EXIT_RATELIMIT = 6,
	EXIT_CAPACITY = 7,
	EXIT_FUNDS = 8,
	EXIT_BUDGET = 9,
	EXIT_PARTIAL = 10,
	EXIT_TIMEOUT = 11,
	EXIT_UNSUPPORTED = 12,
	EXIT_CONFLICT = 13,
	EXIT_MISMATCH = 14,	/* verify: the machine is not what it was rented as */
	EXIT_LOCKED = 15,
	EXIT_INTERRUPTED = 130,
};

#endif
