/*
 * money.h - money as an int64 count of micro-dollars. No float ever holds a ledger amount.
 *
 * Prices are per hour; cost accrues per second of billed time.
 */
#ifndef GPURENT_MONEY_H
#define GPURENT_MONEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MICROS_PER_DOLLAR INT64_C(1000000)

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

/* Cost of `seconds` at `per_hour` micro-dollars per hour, rounded to the nearest micro-dollar. */
int64_t money_accrue(int64_t per_hour, int64_t seconds);

/* per_hour * num / den, rounded to nearest; saturates instead of overflowing. */
int64_t money_scale(int64_t amount, int64_t num, int64_t den);

#endif
