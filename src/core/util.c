/*
 * util.c - small helpers every layer uses: allocation that never fails, string
 * builders, text sanitizing and parsing of numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "gpurent/util.h"

static void
oom(void)
{
	fputs("gpurent: out of memory\n", stderr);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
xcalloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb ? nmemb : 1, n ? n : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

void *
xreallocarray(void *p, size_t nmemb, size_t n)
{
	if (n != 0 && nmemb > SIZE_MAX / n)
		oom();
	return xrealloc(p, nmemb * n);
}

void *
xgrow(void *p, size_t n, size_t *cap, size_t size, size_t first)
{
	if (n == *cap) {
		*cap = *cap ? *cap * 2 : first;
		p = xreallocarray(p, *cap, size);
	}
	memset((char *)p + n * size, 0, size);
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		oom();
	return p;
}

void
secret_free(char *s)
{
	if (s == NULL)
		return;
	/* Not memset: a store the compiler can see is never read again may be left out. */
	explicit_bzero(s, strlen(s));
	free(s);
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	struct sb sb;

	sb_init(&sb);
	sb_vaddf(&sb, fmt, ap);
	return sb_detach(&sb);
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void
sb_init(struct sb *sb)
{
	sb->cap = 64;
	sb->len = 0;
	sb->buf = xmalloc(sb->cap);
	sb->buf[0] = '\0';
}

void
sb_release(struct sb *sb)
{
	XRELEASE(sb->buf, sb->len, sb->cap);
}

void
sb_reset(struct sb *sb)
{
	sb->len = 0;
	sb->buf[0] = '\0';
}

void
sb_grow(struct sb *sb, size_t extra)
{
	size_t need;

	if (extra > SIZE_MAX - sb->len - 1)
		oom();
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return;
	if (sb->cap == 0)
		sb->cap = 64;	/* a detached buffer grows again from scratch */
	while (sb->cap < need)
		sb->cap = sb->cap < SIZE_MAX / 2 ? sb->cap * 2 : need;
	sb->buf = xrealloc(sb->buf, sb->cap);
}

void
sb_add(struct sb *sb, const void *data, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void
sb_adds(struct sb *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void
sb_addc(struct sb *sb, char c)
{
	sb_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void
sb_vaddf(struct sb *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->cap - sb->len) {
		sb_grow(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void
sb_addf(struct sb *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *
sb_detach(struct sb *sb)
{
	char *s = sb->buf;

	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return s;
}

size_t
utf8_seq(const unsigned char *s)
{
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	/* C1 controls (U+0080..U+009F) act like ESC sequences on some terminals. */
	if (cp >= 0x80 && cp <= 0x9f)
		return 0;
	return len;
}

char *
text_sanitize(char *dst, size_t n, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0, len;

	if (n == 0)
		return dst;
	while (*s != '\0' && o + 1 < n) {
		if (*s < 0x20 || *s == 0x7f) {
			/* Tabs and newlines become spaces; other controls vanish. */
			if (*s == '\t' || *s == '\n' || *s == '\r')
				dst[o++] = ' ';
			s++;
			continue;
		}
		len = utf8_seq(s);
		if (len == 0) {
			dst[o++] = '?';
			s++;
			continue;
		}
		if (o + len >= n)
			break;
		memcpy(dst + o, s, len);
		o += len;
		s += len;
	}
	dst[o] = '\0';
	return dst;
}

size_t
strlcpy_(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);

	if (n != 0) {
		size_t c = len < n - 1 ? len : n - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return len;
}

bool
random_hex(char *out, size_t bytes)
{
	unsigned char raw[64];
	size_t i;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && bytes <= sizeof(raw) && read(fd, raw, bytes) == (ssize_t)bytes;

	if (fd >= 0)
		close(fd);
	out[0] = '\0';
	for (i = 0; ok && i < bytes; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return ok;
}

int
text_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int w = 0, cw;

	/* Decode UTF-8 here, so widths are right even under the C locale. */
	while (*p != '\0') {
		size_t len = utf8_seq(p), i;
		unsigned cp;

		if (len == 0) {
			w++;
			p++;
			continue;
		}
		cp = len == 1 ? p[0] : (unsigned)(p[0] & (0xff >> (len + 1)));
		for (i = 1; i < len; i++)
			cp = (cp << 6) | (p[i] & 0x3f);
		cw = wcwidth((wchar_t)cp);
		if (cw < 0)
			cw = (cp >= 0x1100 && (cp <= 0x115f || (cp >= 0x2e80 && cp <= 0xa4cf) ||
			    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
			    (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0x1f300 && cp <= 0x1faff) ||
			    (cp >= 0x20000 && cp <= 0x3fffd))) ? 2 : 1;
		w += cw;
		p += len;
	}
	return w;
}

bool
streq_ci(const char *a, const char *b)
{
	while (*a != '\0' && tolower((unsigned char)*a) == tolower((unsigned char)*b)) {
		a++;
		b++;
	}
	return tolower((unsigned char)*a) == tolower((unsigned char)*b);
}

int
names_index(const char *const *names, size_t n, const char *s, bool fold)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fold ? streq_ci(s, names[i]) : strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

void *
find_by_id(const void *v, size_t n, size_t size, size_t off, const char *id)
{
	const char *p = v;
	size_t i;

	for (i = 0; i < n; i++, p += size)
		if (strcmp(p + off, id) == 0)
			return (void *)p;	/* as bsearch: the caller's array, its constness */
	return NULL;
}

bool
name_safe(const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '.') ||
		    i >= max)
			return false;
	return i > 0;
}

void
host_name(char *buf, size_t n, const char *fallback)
{
	if (gethostname(buf, n) != 0)
		strlcpy_(buf, fallback, n);
	buf[n - 1] = '\0';
}

bool
write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	ssize_t w;

	while (n > 0) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

bool
prefix_ci(const char *s, const char *prefix)
{
	while (*prefix != '\0') {
		if (tolower((unsigned char)*s) != tolower((unsigned char)*prefix))
			return false;
		s++;
		prefix++;
	}
	return true;
}

uint64_t
hash_str(const char *s)
{
	uint64_t h = UINT64_C(1469598103934665603);

	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= UINT64_C(1099511628211);
	}
	return h;
}

uint64_t
hash_mix(uint64_t a, uint64_t b)
{
	/* splitmix64 finaliser over the combination: well spread, cheap, stable. */
	uint64_t z = a ^ (b + UINT64_C(0x9e3779b97f4a7c15) + (a << 6) + (a >> 2));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

int
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int *row, prev, tmp, best;

	if (la > 64 || lb > 64)
		return 1000;
	row = xcalloc(lb + 1, sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			best = prev + (tolower((unsigned char)a[i - 1]) !=
			    tolower((unsigned char)b[j - 1]));
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	best = row[lb];
	free(row);
	return best;
}

bool
parse_int(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

long long
parse_duration(const char *s)
{
	char num[32];
	size_t len;
	long long v, mult = 1;

	if (s == NULL)
		return -1;
	len = strlen(s);
	if (len == 0 || len >= sizeof(num))
		return -1;
	memcpy(num, s, len + 1);
	switch (num[len - 1]) {
	case 's': mult = 1; num[--len] = '\0'; break;
	case 'm': mult = 60; num[--len] = '\0'; break;
	case 'h': mult = 3600; num[--len] = '\0'; break;
	case 'd': mult = 86400; num[--len] = '\0'; break;
	default: break;
	}
	if (!parse_int(num, 0, LLONG_MAX / 86400, &v))
		return -1;
	return v * mult;
}

long long
parse_interval(const char *s)
{
	long long v = parse_duration(s);

	return v >= INTERVAL_MIN && v <= INTERVAL_MAX ? v : -1;
}

/* n decimal digits at *p into *out, *p moved past them. */
static bool
take_digits(const char **p, int n, int *out)
{
	int i, v = 0;

	for (i = 0; i < n; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return false;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return true;
}

/* Whether *p is ch, *p moved past it when it is. */
static bool
take_char(const char **p, char ch)
{
	if (**p != ch)
		return false;
	(*p)++;
	return true;
}

bool
parse_ahead(const char *s, int64_t now, int64_t *out)
{
	long long d = parse_duration(s);

	if (d >= 0) {
		*out = now + d;
		return true;
	}
	return parse_when(s, now, out);
}

bool
parse_when(const char *s, int64_t now, int64_t *out)
{
	long long ago = parse_duration(s);
	int year, mon, day, hour = 0, min = 0, sec = 0, oh, om;
	int64_t offset = 0;
	bool zoned = false;
	const char *p = s;
	struct tm tm, back;
	time_t t;

	if (ago >= 0) {
		*out = now - ago;
		return true;
	}
	if (s == NULL || !take_digits(&p, 4, &year) || !take_char(&p, '-') ||
	    !take_digits(&p, 2, &mon) || !take_char(&p, '-') || !take_digits(&p, 2, &day))
		return false;
	if (take_char(&p, 'T') || take_char(&p, 't') || take_char(&p, ' ')) {
		if (!take_digits(&p, 2, &hour) || !take_char(&p, ':') || !take_digits(&p, 2, &min))
			return false;
		if (take_char(&p, ':')) {
			if (!take_digits(&p, 2, &sec))
				return false;
			if (take_char(&p, '.')) {
				if (*p < '0' || *p > '9')
					return false;
				while (*p >= '0' && *p <= '9')
					p++;
			}
		}
		if (*p == '+' || *p == '-') {
			bool east = *p++ == '+';

			if (!take_digits(&p, 2, &oh) || !take_char(&p, ':') ||
			    !take_digits(&p, 2, &om) || oh > 23 || om > 59)
				return false;
			offset = (int64_t)(oh * 3600 + om * 60) * (east ? 1 : -1);
			zoned = true;
		}
	}
	/* Z says what a bare date or time means anyway: UTC. */
	if (!zoned && (*p == 'Z' || *p == 'z'))
		p++;
	if (*p != '\0')
		return false;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	t = timegm(&tm);
	/* timegm quietly makes 2026-02-30 March 2, and 25:00 the next day. */
	if (gmtime_r(&t, &back) == NULL || back.tm_year != year - 1900 ||
	    back.tm_mon != mon - 1 || back.tm_mday != day || back.tm_hour != hour ||
	    back.tm_min != min || back.tm_sec != sec)
		return false;
	*out = (int64_t)t - offset;
	return true;
}

long
file_tail_start(FILE *fp, long lines)
{
	char buf[65536];
	long size, start, end, i;
	long seen = 0;
	size_t want;

	if (lines < 0 || fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) <= 0)
		return 0;
	if (lines == 0)
		return size;
	/* Back from the end a block at a time (a byte at a time threw stdio's buffer away). */
	for (end = size; end > 0; end = start) {
		start = end > (long)sizeof(buf) ? end - (long)sizeof(buf) : 0;
		want = (size_t)(end - start);
		if (fseek(fp, start, SEEK_SET) != 0 || fread(buf, 1, want, fp) != want)
			return 0;
		/* The newline that ends the last line does not count. */
		for (i = (long)want - 1; i >= 0; i--)
			if (buf[i] == '\n' && start + i != size - 1 && ++seen == lines)
				return start + i + 1;
	}
	return 0;
}

/* Milliseconds of clock c. */
static int64_t
clock_ms(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int64_t
monotonic_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

int64_t
wall_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

char *
utc_rfc3339(char *buf, size_t n, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL || strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, n, "%lld", (long long)t);
	return buf;
}
