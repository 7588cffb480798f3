/*
 * money.h - money as an int64 count of micro-units of its currency. No float ever holds a
 * ledger amount, and no amount is ever converted to another currency silently.
 *
 * Prices are per hour; cost accrues per second of billed time.
 *
 * Currency (issue 18): every amount travels with an ISO 4217 code in a char[CURRENCY_MAX]
 * beside it (struct offer, struct instance, struct ledger_seg, struct cell, the ledger and
 * launch journal tables). The empty string means USD, so a record zeroed by code written
 * before currencies existed is in dollars, as it always was; money_currency() turns "" into
 * "USD" wherever a code is shown. The micro-unit functions below (money_parse, money_format,
 * money_accrue, money_scale) are unchanged and currency-blind: they work on amounts of one
 * currency. To adopt currencies:
 *   - show an amount with money_format_in(buf, n, micros, decimals, code): "$1.85", "¥12.60";
 *   - read a user's amount with money_parse_in ("300 CNY", "¥300", "2.49": USD);
 *   - add or compare amounts only when money_same_currency(a, b), else convert with
 *     money_convert() and the user's configured rates (fx_load, config keys fx.CODE = USD per
 *     unit), and say "converted at your configured rate"; without a rate, refuse or show the
 *     currencies side by side.
 */
#ifndef GPURENT_MONEY_H
#define GPURENT_MONEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MICROS_PER_DOLLAR INT64_C(1000000)

/* An ISO 4217 code and its NUL: "USD", "CNY". */
#define CURRENCY_MAX 4
#define CURRENCY_DEFAULT "USD"

/* The code of a record's currency: code itself, or "USD" for NULL or "". */
const char *money_currency(const char *code);
/*
 * The one door through which a currency that a user or a provider wrote is read: the n bytes
 * at s are an ISO 4217 code of a currency in use (a table of them, not any three letters),
 * in any case ("usd", "Cny"). code (CURRENCY_MAX bytes, may be NULL; may be s) gets it in
 * capitals.
 */
bool money_currency_parse(const char *s, size_t n, char *code);
/* A code as gpurent keeps it: what money_currency_parse gives, capitals. */
bool money_currency_valid(const char *code);
/* Whether two records' currencies are the same ("" and "USD" are). */
bool money_same_currency(const char *a, const char *b);
/* Copy a code into a record's field (NULL or "" become "USD"). */
void money_currency_set(char dst[CURRENCY_MAX], const char *code);
/* The order of currencies where amounts cannot be compared: USD first, then by code. */
int money_currency_order(const char *a, const char *b);

/*
 * money_format with the currency's sign: "$1.85", "¥12.60" (CNY), "€3.00", "£2.00",
 * "JP¥300"; any other code is written before the number ("CHF 1.20"). Returns buf.
 */
char *money_format_in(char *buf, size_t n, int64_t micros, int decimals, const char *code);

/*
 * A user's amount with an optional currency: "300" and "$300" are USD, "¥300" is CNY,
 * "300 CNY", "300CNY", "300 cny" and "CNY 300" name theirs (money_currency_parse). code
 * (CURRENCY_MAX bytes) gets the code.
 * false on anything money_parse refuses or on a malformed code.
 */
bool money_parse_in(const char *s, int64_t *out, char *code);

/*
 * The exchange rates the user configured (config keys fx.CODE = how many US dollars one
 * unit of CODE is worth, e.g. fx.CNY = 0.14), as micro-dollars per unit. USD is always
 * 1,000,000. Nothing else ever supplies a rate: gpurent does not look rates up.
 */
#define FX_MAX 16
struct fx_rates {
	size_t n;
	struct {
		char code[CURRENCY_MAX];
		int64_t usd_micros;	/* micro-dollars per unit of code, > 0 */
	} r[FX_MAX];
};
/* The rate of code (micro-dollars per unit); false when none is configured. */
bool fx_rate(const struct fx_rates *fx, const char *code, int64_t *usd_micros);
/* Add or replace a rate; false when the table is full or the rate is not positive. */
bool fx_set(struct fx_rates *fx, const char *code, int64_t usd_micros);
/*
 * amount (in `from`) in `to`, through the configured rates, rounded to the nearest
 * micro-unit. Same currency: amount unchanged. false when either rate is missing (fx may
 * be NULL: only same-currency amounts convert).
 */
bool money_convert(const struct fx_rates *fx, int64_t amount, const char *from, const char *to,
    int64_t *out);

/*
 * Parse "2.49", "$2.49", "0.000001", "12" into micro-dollars. At most six decimals,
 * no sign, no exponent; false on anything else or on overflow.
 */
bool money_parse(const char *s, int64_t *out);

/*
 * Format micro-dollars with `decimals` (0..6) digits after the point, rounding half away
 * from zero, with a leading '$' when dollar_sign is true. Negative amounts get a '-'.
 * Returns buf.
 */
char *money_format(char *buf, size_t n, int64_t micros, int decimals, bool dollar_sign);

/* Cost of `seconds` at `per_hour` micro-units per hour, rounded to the nearest micro-dollar. */
int64_t money_accrue(int64_t per_hour, int64_t seconds);

/* a + b, saturating at INT64_MAX / INT64_MIN instead of overflowing (sums of remote data). */
int64_t money_add(int64_t a, int64_t b);

/*
 * money_accrue of [start, end) cut at each UTC midnight: fn gets each day it touches (its
 * midnight) and that day's part, found as the difference of the accruals from start to
 * each cut, so that the parts add up to money_accrue(per_hour, end - start) exactly.
 */
void money_accrue_days(int64_t per_hour, int64_t start, int64_t end,
    void (*fn)(int64_t day, int64_t amount, void *ctx), void *ctx);

/* per_hour * num / den, rounded to nearest; saturates instead of overflowing. */
int64_t money_scale(int64_t amount, int64_t num, int64_t den);

#endif
