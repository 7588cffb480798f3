/*
 * money.c - money as int64 micro-units of a currency: parsing, formatting, scaling,
 * accrual and currency codes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/money.h"
#include "gpurent/util.h"

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

int64_t
money_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

void
money_accrue_days(int64_t per_hour, int64_t start, int64_t end,
    void (*fn)(int64_t day, int64_t amount, void *ctx), void *ctx)
{
	int64_t day, cut, before = 0, upto;

	for (day = start - (start % 86400 + 86400) % 86400; day < end; day += 86400) {
		cut = day + 86400 < end ? day + 86400 : end;
		upto = money_accrue(per_hour, cut - start);
		fn(day, upto - before, ctx);
		before = upto;
	}
}

const char *
money_currency(const char *code)
{
	return code == NULL || *code == '\0' ? CURRENCY_DEFAULT : code;
}

/*
 * ISO 4217's codes in use (List One): Debian's iso-codes 4.15 with the amendments since (ZWG
 * 2024, XCG 2025 added; HRK, ZWL and ANG withdrawn), without XTS and XXX, the codes for
 * testing and for no currency (XXX marks a record whose currency is unknown). Sorted, for
 * bsearch.
 */
static const char iso4217[][CURRENCY_MAX] = {
	"AED", "AFN", "ALL", "AMD", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT",
	"BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN",
	"BZD", "CAD", "CDF", "CHE", "CHF", "CHW", "CLF", "CLP", "CNY", "COP", "COU", "CRC",
	"CUC", "CUP", "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ERN", "ETB", "EUR",
	"FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL",
	"HTG", "HUF", "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES",
	"KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD",
	"LSL", "LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR",
	"MWK", "MXN", "MXV", "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "OMR",
	"PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB", "RWF",
	"SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SLL", "SOS", "SRD", "SSP",
	"STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TND", "TOP", "TRY", "TTD", "TWD",
	"TZS", "UAH", "UGX", "USD", "USN", "UYI", "UYU", "UYW", "UZS", "VED", "VES", "VND",
	"VUV", "WST", "XAF", "XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XCD", "XCG", "XDR",
	"XOF", "XPD", "XPF", "XPT", "XSU", "XUA", "YER", "ZAR", "ZMW", "ZWG",
};

static int
code_cmp(const void *a, const void *b)
{
	return memcmp(a, b, 3);
}

bool
money_currency_parse(const char *s, size_t n, char *code)
{
	char up[CURRENCY_MAX];
	size_t i;

	if (s == NULL || n != 3)
		return false;
	for (i = 0; i < 3; i++) {
		if (s[i] >= 'a' && s[i] <= 'z')
			up[i] = (char)(s[i] - 'a' + 'A');
		else if (s[i] >= 'A' && s[i] <= 'Z')
			up[i] = s[i];
		else
			return false;
	}
	up[3] = '\0';
	if (bsearch(up, iso4217, ARRAY_LEN(iso4217), sizeof(iso4217[0]), code_cmp) == NULL)
		return false;
	if (code != NULL)
		memcpy(code, up, CURRENCY_MAX);
	return true;
}

bool
money_currency_valid(const char *code)
{
	char parsed[CURRENCY_MAX];

	return code != NULL && strlen(code) == 3 && money_currency_parse(code, 3, parsed) &&
	    strcmp(parsed, code) == 0;
}

bool
money_same_currency(const char *a, const char *b)
{
	return strcmp(money_currency(a), money_currency(b)) == 0;
}

void
money_currency_set(char dst[CURRENCY_MAX], const char *code)
{
	code = money_currency(code);
	if (!money_currency_valid(code))
		code = "XXX";	/* ISO 4217's "no currency": never silently dollars */
	memcpy(dst, code, CURRENCY_MAX);
}

int
money_currency_order(const char *a, const char *b)
{
	a = money_currency(a);
	b = money_currency(b);
	if (strcmp(a, b) == 0)
		return 0;
	if (strcmp(a, "USD") == 0 || strcmp(b, "USD") == 0)
		return strcmp(a, "USD") == 0 ? -1 : 1;
	return strcmp(a, b);
}

/* Signs users know; JPY is "JP¥" so that a yen is never read as a yuan. */
static const struct {
	const char *code, *sign;
} signs[] = {
	{ "USD", "$" }, { "CNY", "\xc2\xa5" }, { "EUR", "\xe2\x82\xac" }, { "GBP", "\xc2\xa3" },
	{ "JPY", "JP\xc2\xa5" },
};

char *
money_format_in(char *buf, size_t n, int64_t micros, int decimals, const char *code)
{
	char num[40];
	const char *sign = NULL, *minus = "";
	size_t i;

	code = money_currency(code);
	for (i = 0; i < sizeof(signs) / sizeof(signs[0]); i++)
		if (strcmp(signs[i].code, code) == 0)
			sign = signs[i].sign;
	money_format(num, sizeof(num), micros, decimals, false);
	if (num[0] == '-')
		minus = "-";
	if (sign != NULL)
		snprintf(buf, n, "%s%s%s", minus, sign, num + (*minus != '\0'));
	else
		snprintf(buf, n, "%s%s %s", minus, money_currency_valid(code) ? code : "XXX",
		    num + (*minus != '\0'));
	return buf;
}

bool
money_parse_in(const char *s, int64_t *out, char *code)
{
	char num[64], cur[8] = "";
	const char *p, *end;
	size_t len;

	if (s == NULL)
		return false;
	while (*s == ' ')
		s++;
	if (*s == '$') {
		strcpy(cur, "USD");
		s++;
	} else if (strncmp(s, "\xc2\xa5", 2) == 0) {
		strcpy(cur, "CNY");
		s += 2;
	} else if ((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')) { /* "CNY 300" */
		for (len = 0; len < 3 && ((s[len] >= 'A' && s[len] <= 'Z') ||
		    (s[len] >= 'a' && s[len] <= 'z')); len++)
			cur[len] = s[len];
		cur[len] = '\0';
		s += len;
		while (*s == ' ')
			s++;
	}
	for (p = s; (*p >= '0' && *p <= '9') || *p == '.'; p++)
		;
	if ((size_t)(p - s) >= sizeof(num))
		return false;
	memcpy(num, s, (size_t)(p - s));
	num[p - s] = '\0';
	end = p;
	while (*end == ' ')
		end++;
	if (*end != '\0') {	/* "300 CNY" */
		if (cur[0] != '\0' || strlen(end) > 3)
			return false;
		strcpy(cur, end);
		for (len = strlen(cur); len > 0 && cur[len - 1] == ' '; len--)
			cur[len - 1] = '\0';
	}
	if (cur[0] == '\0')
		strcpy(cur, CURRENCY_DEFAULT);
	if (!money_currency_parse(cur, strlen(cur), cur) || !money_parse(num, out))
		return false;
	memcpy(code, cur, CURRENCY_MAX);
	return true;
}

bool
fx_rate(const struct fx_rates *fx, const char *code, int64_t *usd_micros)
{
	size_t i;

	code = money_currency(code);
	if (strcmp(code, "USD") == 0) {
		*usd_micros = MICROS_PER_DOLLAR;
		return true;
	}
	for (i = 0; fx != NULL && i < fx->n; i++)
		if (strcmp(fx->r[i].code, code) == 0) {
			*usd_micros = fx->r[i].usd_micros;
			return true;
		}
	return false;
}

bool
fx_set(struct fx_rates *fx, const char *code, int64_t usd_micros)
{
	size_t i;

	if (usd_micros <= 0 || !money_currency_valid(code))
		return false;
	for (i = 0; i < fx->n; i++)
		if (strcmp(fx->r[i].code, code) == 0)
			break;
	if (i == FX_MAX)
		return false;
	memcpy(fx->r[i].code, code, CURRENCY_MAX);
	fx->r[i].usd_micros = usd_micros;
	if (i == fx->n)
		fx->n++;
	return true;
}

bool
money_convert(const struct fx_rates *fx, int64_t amount, const char *from, const char *to,
    int64_t *out)
{
	int64_t rf, rt;

	if (money_same_currency(from, to)) {
		*out = amount;
		return true;
	}
	if (!fx_rate(fx, from, &rf) || !fx_rate(fx, to, &rt))
		return false;
	*out = money_scale(amount, rf, rt);
	return true;
}
