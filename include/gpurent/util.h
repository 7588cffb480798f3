/*
 * util.h - allocation that cannot fail, a growable string buffer, and terminal-safe text.
 */
#ifndef GPURENT_UTIL_H
#define GPURENT_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Abort with a message on out-of-memory, so callers never check for NULL (tmux, git). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t n);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t nmemb, size_t n);
/*
 * Room for element n of an array p of *cap elements of size bytes: when full, *cap doubles
 * (first when 0) and p moves. Element n is zeroed; returns p.
 */
void *xgrow(void *p, size_t n, size_t *cap, size_t size, size_t first);
/*
 * xgrow for an array v of n elements with room for cap, members of one struct: appends a
 * zeroed element and gives its address. It names v, n and cap more than once.
 */
#define XPUSH(v, n, cap, first) \
	((v) = xgrow((v), (n), &(cap), sizeof(*(v)), (first)), &(v)[(n)++])
/* Frees such an array and leaves it empty. */
#define XRELEASE(v, n, cap) (free(v), (v) = NULL, (n) = (cap) = 0)
char *xstrdup(const char *s);
/* Frees a secret (a key, a token, a header that carries one) zeroed first; NULL: nothing. */
void secret_free(char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/*
 * A growable, always NUL-terminated buffer. buf is never NULL after sb_init.
 * sb_detach hands the string to the caller and leaves the buffer released (sb_init it
 * again to reuse it).
 */
struct sb {
	char *buf;
	size_t len;
	size_t cap;
};
void sb_init(struct sb *sb);
void sb_release(struct sb *sb);
void sb_reset(struct sb *sb);
void sb_grow(struct sb *sb, size_t extra);
void sb_add(struct sb *sb, const void *data, size_t n);
void sb_adds(struct sb *sb, const char *s);
void sb_addc(struct sb *sb, char c);
void sb_addf(struct sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct sb *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
char *sb_detach(struct sb *sb);

/*
 * Length of the valid UTF-8 sequence at s (1..4), or 0 when it is invalid, overlong, a
 * surrogate or a C1 control (which acts like ESC on some terminals).
 */
size_t utf8_seq(const unsigned char *s);

/*
 * Copy src into dst (size n), dropping C0/C1 control characters and DEL and replacing
 * invalid UTF-8 with '?', so that text from a provider cannot move the cursor or change
 * colours. Always NUL-terminates; never splits a UTF-8 sequence. Returns dst.
 */
char *text_sanitize(char *dst, size_t n, const char *src);

/* strlcpy semantics: copy at most n-1 bytes and terminate; returns strlen(src). */
size_t strlcpy_(char *dst, const char *src, size_t n);

/* Display width in terminal columns of a UTF-8 string (wcwidth per character). */
int text_width(const char *s);

/* Case-insensitive ASCII compare, and "s starts with prefix" ignoring case. */
bool streq_ci(const char *a, const char *b);
bool prefix_ci(const char *s, const char *prefix);
/* The index of s among the n names (ignoring ASCII case when fold), or -1: an enum's parser. */
int names_index(const char *const *names, size_t n, const char *s, bool fold);
/*
 * The element of v (n elements of size bytes) whose string member at offset off (an id) is
 * id; NULL when there is none. A search of a short array of records keyed by an id.
 */
void *find_by_id(const void *v, size_t n, size_t size, size_t off, const char *id);
/* Whether s is 1 to max letters, digits, '-', '_' or '.': a name safe in a path or a URL. */
bool name_safe(const char *s, size_t max);

/* This machine's host name into buf (n bytes, NUL-terminated even when cut), or fallback
   when it has none to give. */
void host_name(char *buf, size_t n, const char *fallback);

/* All n bytes of buf to fd, across short writes and EINTR; false when a write fails
 * (errno says why) or writes nothing. */
bool write_all(int fd, const void *buf, size_t n);

/* FNV-1a over a string: a stable hash for deterministic simulation. */
uint64_t hash_str(const char *s);
uint64_t hash_mix(uint64_t a, uint64_t b);
/* bytes of the system's randomness as lowercase hex in out (2 * bytes + 1 long); false, out
 * "", when there is none. */
bool random_hex(char *out, size_t bytes);

/* Levenshtein distance, for did-you-mean suggestions. */
int edit_distance(const char *a, const char *b);

/* Parse a whole decimal integer in [min, max]; false (and errno-free) on anything else. */
bool parse_int(const char *s, long long min, long long max, long long *out);

/*
 * Parse a duration: "90", "90s", "15m", "2h", "1d". Returns seconds or -1.
 */
long long parse_duration(const char *s);

/*
 * Every interval (watch, metrics --follow, the exporter, the dashboard's refresh, and the
 * config keys that hold one) is a duration from a second to a day: the one check for all.
 */
#define INTERVAL_MIN 1
#define INTERVAL_MAX 86400
/*
 * Parse an interval (parse_duration) within [INTERVAL_MIN, INTERVAL_MAX]: seconds, or -1.
 * The messages that refuse one say "from 1s to 1d".
 */
long long parse_interval(const char *s);

/*
 * Parse a point in time, the one parser of every option that takes one (--since, --until):
 * a duration back from now ("7d", "36h", parse_duration), or a date and time in UTC
 * ("2026-12-01", "2026-12-01T10:00", "2026-12-01 10:00:30"), or RFC 3339 with its offset
 * or Z ("2026-12-01T10:00:00+08:00", "2026-12-01T02:00:00.5Z", the fraction dropped).
 * false when it is none of these or names a day or time that does not exist.
 */
bool parse_when(const char *s, int64_t now, int64_t *out);
/*
 * A point in time to come, for the options that name one (--until, --at): a duration
 * forward from now ("8h"), else a date or time as parse_when reads them. false when it is
 * neither; the caller says how far back it may be.
 */
bool parse_ahead(const char *s, int64_t now, int64_t *out);

/* Milliseconds on the monotonic clock: for spans and deadlines, never for dates. */
int64_t monotonic_ms(void);
/* Milliseconds of the Unix clock: for times that other hosts read (a lease's expiry). */
int64_t wall_ms(void);
/* Unix time t (seconds) in RFC 3339, UTC ("2026-12-06T08:30:00Z"), into buf; returns buf. */
char *utc_rfc3339(char *buf, size_t n, int64_t t);

/*
 * Where the last `lines` lines of an open file start; 0: its end (nothing); lines < 0: the
 * whole file. A newline that ends the file does not count as a line. For `logs --tail`.
 */
long file_tail_start(FILE *fp, long lines);

#endif
