#include <stdio.h>
#include <string.h>

#include "gpurent/money.h"

bool
money_parse(const char *s, int64_t *out)
{
	int64_t whole = 0, frac = 0;
	int digits = 0, fd = 0;

	if (s == NULL)
		return false;
	if (*s == '$')
		s++;
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (whole > (INT64_MAX / MICROS_PER_DOLLAR - 9) / 10)
			return false;
		whole = whole * 10 + (*s - '0');
	}
	if (*s == '.') {
		s++;
		for (; *s >= '0' && *s <= '9'; s++, fd++) {
			if (fd == 6)
				return false;
			frac = frac * 10 + (*s - '0');
		}
		if (fd == 0 && digits == 0)
			return false;
	}
	if (*s != '\0' || (digits == 0 && fd == 0))
		return false;
	for (; fd < 6; fd++)
		frac *= 10;
	*out = whole * MICROS_PER_DOLLAR + frac;
	return true;
}

char *
money_format(char *buf, size_t n, int64_t micros, int decimals, bool dollar_sign)
{
	static const int64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	const char *sign = "";
	uint64_t v, unit, whole, frac;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	if (micros < 0) {
		sign = "-";
		v = (uint64_t)(-(micros + 1)) + 1;
	} else
		v = (uint64_t)micros;
	unit = (uint64_t)pow10[6 - decimals];
	v = (v + unit / 2) / unit;	/* half away from zero */
	if (v == 0)
		sign = "";	/* what rounds to zero is "$0.00", never "-$0.00" */
	whole = v / (uint64_t)pow10[decimals];
	frac = v % (uint64_t)pow10[decimals];
	if (decimals == 0)
		snprintf(buf, n, "%s%s%llu", sign, dollar_sign ? "$" : "",
		    (unsigned long long)whole);
	else
		snprintf(buf, n, "%s%s%llu.%0*llu", sign, dollar_sign ? "$" : "",
		    (unsigned long long)whole, decimals, (unsigned long long)frac);
	return buf;
}

int64_t
money_scale(int64_t amount, int64_t num, int64_t den)
{
	__int128 p;

	if (den == 0)
		return 0;
	p = (__int128)amount * num;
	/* Round half away from zero. */
	if ((p < 0) != (den < 0))
		p -= den / 2 * (den < 0 ? -1 : 1);
	else
		p += den / 2 * (den < 0 ? -1 : 1);
	p /= den;
	if (p > INT64_MAX)
		return INT64_MAX;
	if (p < INT64_MIN)
		return INT64_MIN;
	return (int64_t)p;
}

int64_t
money_accrue(int64_t per_hour, int64_t seconds)
{
	if (seconds <= 0)
		return 0;
	return money_scale(per_hour, seconds, 3600);
}
