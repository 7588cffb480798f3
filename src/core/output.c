/*
 * output.c - printing tables, JSON, CSV and plain text to the terminal or a pipe.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/columns.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/output.h"
#include "gpurent/util.h"

struct out_opts out_global = { OUT_TABLE, false, false, 0, NULL, NULL };

bool
out_format_parse(const char *s, enum out_format *f)
{
	static const char *const names[] = { "table", "json", "csv", "tsv", "ids" };
	int i = names_index(names, ARRAY_LEN(names), s, false);

	if (i < 0)
		return false;
	*f = (enum out_format)i;
	return true;
}

int
out_terminal_width(void)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");
	long long n;

	if (cols != NULL && parse_int(cols, 20, 10000, &n))
		return (int)n;
	if (!isatty(STDOUT_FILENO))
		return 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

const char *
out_color_seq(enum out_color c)
{
	switch (c) {
	case OC_GOOD: return "\033[32m";
	case OC_WARN: return "\033[33m";
	case OC_BAD: return "\033[31m";
	case OC_DIM: return "\033[2m";
	case OC_ACCENT: return "\033[36m";
	default: return "";
	}
}

/* Decimal digits of v into buf (at least 21 bytes); returns the length. */
static size_t
fmt_u64(char *buf, uint64_t v)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

static size_t
fmt_i64(char *buf, int64_t v)
{
	if (v < 0) {
		buf[0] = '-';
		return 1 + fmt_u64(buf + 1, (uint64_t)(-(v + 1)) + 1);
	}
	return fmt_u64(buf, (uint64_t)v);
}

/* v / 10^decimals as a plain decimal without trailing zeros ("2.49", "3", "-0.5"). */
static size_t
fmt_scaled(char *buf, int64_t v, int decimals)
{
	uint64_t a = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v, scale = 1, frac;
	size_t n = 0;
	int i;

	for (i = 0; i < decimals; i++)
		scale *= 10;
	if (v < 0)
		buf[n++] = '-';
	n += fmt_u64(buf + n, a / scale);
	frac = a % scale;
	if (frac != 0) {
		buf[n++] = '.';
		for (i = decimals - 1; i >= 0; i--) {
			buf[n + (size_t)i] = (char)('0' + frac % 10);
			frac /= 10;
		}
		n += (size_t)decimals;
		while (buf[n - 1] == '0')
			n--;
	}
	buf[n] = '\0';
	return n;
}

/* Trim trailing zeros of a fixed-point decimal ("2.490000" -> "2.49", "3.000000" -> "3"). */
static void
trim_zeros(char *s)
{
	char *dot = strchr(s, '.'), *end;

	if (dot == NULL)
		return;
	end = s + strlen(s) - 1;
	while (end > dot && *end == '0')
		*end-- = '\0';
	if (end == dot)
		*end = '\0';
}

static void
format_fixed(char *buf, size_t n, int64_t v, int decimals)
{
	int64_t scale = 1;
	int i;
	const char *sign = v < 0 ? "-" : "";
	uint64_t a = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;

	for (i = 0; i < decimals; i++)
		scale *= 10;
	if (decimals == 0)
		snprintf(buf, n, "%s%llu", sign, (unsigned long long)a);
	else
		snprintf(buf, n, "%s%llu.%0*llu", sign, (unsigned long long)(a / (uint64_t)scale),
		    decimals, (unsigned long long)(a % (uint64_t)scale));
}

/* The lines of s, each sanitized, joined with commas into buf. */
static void
join_lines(char *buf, size_t n, const char *s)
{
	char line[1024];
	size_t len, o = 0;

	buf[0] = '\0';
	while (*s != '\0' && o + 1 < n) {
		len = strcspn(s, "\n");
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, s, len);
		line[len] = '\0';
		text_sanitize(buf + o, n - o, line);
		o += strlen(buf + o);
		s += strcspn(s, "\n");
		if (*s == '\n' && *++s != '\0' && o + 1 < n) {
			buf[o++] = ',';
			buf[o] = '\0';
		}
	}
}

const char *
cell_text(const struct cell *c, char *buf, size_t n, bool for_table)
{
	struct tm tm;
	time_t t;

	switch (c->kind) {
	case CELL_NULL:
		strlcpy_(buf, for_table ? "-" : "", n);
		break;
	case CELL_STR:
		text_sanitize(buf, n, c->s ? c->s : "");
		break;
	case CELL_INT:
		if (n >= 24)
			fmt_i64(buf, c->i);
		else
			snprintf(buf, n, "%lld", (long long)c->i);
		break;
	case CELL_MONEY:
		if (for_table)
			money_format_in(buf, n, c->i, c->decimals ? c->decimals : 2, c->s);
		else if (n >= 32)
			fmt_scaled(buf, c->i, 6);
		else {
			money_format(buf, n, c->i, 6, false);
			trim_zeros(buf);
		}
		break;
	case CELL_BOOL:
		strlcpy_(buf, c->i ? "true" : "false", n);
		break;
	case CELL_TIME:
		t = (time_t)c->i;
		if (for_table) {
			localtime_r(&t, &tm);
			strftime(buf, n, "%Y-%m-%d %H:%M", &tm);
		} else {
			gmtime_r(&t, &tm);
			strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
		}
		break;
	case CELL_DURATION:
		if (for_table)
			format_uptime(buf, n, (long long)c->i);
		else
			snprintf(buf, n, "%lld", (long long)c->i);
		break;
	case CELL_FIXED:
		format_fixed(buf, n, c->i, c->decimals);
		if (!for_table)
			trim_zeros(buf);
		break;
	case CELL_LIST:
	case CELL_MAP:
		if (c->s == NULL || c->s[0] == '\0')
			strlcpy_(buf, for_table ? "-" : "", n);
		else
			join_lines(buf, n, c->s);
		break;
	}
	return buf;
}

static void
json_add_str(struct sb *sb, const char *s)
{
	size_t n = strlen(s) + 1;
	char small[256], *clean = n <= sizeof(small) ? small : xcalloc(n, 1);
	const char *p, *q;

	/* Sanitizing first keeps the JSON valid UTF-8 and free of terminal controls; the
	 * whole string, however long: a script gets every byte the provider sent. */
	text_sanitize(clean, n, s);
	sb_addc(sb, '"');
	for (p = clean; (q = strpbrk(p, "\"\\")) != NULL; p = q + 1) {
		sb_add(sb, p, (size_t)(q - p));
		sb_addc(sb, '\\');
		sb_addc(sb, *q);
	}
	sb_adds(sb, p);
	sb_addc(sb, '"');
	if (clean != small)
		free(clean);
}

/* Lines as a JSON array of strings, or K=V lines as an object (a line without '=': K ""). */
static void
json_add_lines(struct sb *sb, const char *s, bool map)
{
	size_t len, k, i = 0;
	char *line;

	sb_addc(sb, map ? '{' : '[');
	while (*s != '\0') {
		len = strcspn(s, "\n");
		line = xcalloc(len + 1, 1);
		memcpy(line, s, len);
		if (i++ > 0)
			sb_addc(sb, ',');
		if (map) {
			k = strcspn(line, "=");
			if (line[k] == '=')
				line[k++] = '\0';
			json_add_str(sb, line);
			sb_addc(sb, ':');
			json_add_str(sb, line + k);
		} else
			json_add_str(sb, line);
		free(line);
		s += len;
		if (*s == '\n')
			s++;
	}
	sb_addc(sb, map ? '}' : ']');
}

static void
json_add_cell(struct sb *sb, const struct cell *c)
{
	char buf[64];

	switch (c->kind) {
	case CELL_NULL:
		sb_add(sb, "null", 4);
		break;
	case CELL_STR:
		json_add_str(sb, c->s ? c->s : "");
		break;
	case CELL_TIME:
		sb_addc(sb, '"');
		sb_adds(sb, cell_text(c, buf, sizeof(buf), false));
		sb_addc(sb, '"');
		break;
	case CELL_LIST:
	case CELL_MAP:
		json_add_lines(sb, c->s ? c->s : "", c->kind == CELL_MAP);
		break;
	default:
		sb_adds(sb, cell_text(c, buf, sizeof(buf), false));
		break;
	}
}

void
json_write_str(FILE *fp, const char *s)
{
	struct sb sb;

	sb_init(&sb);
	json_add_str(&sb, s);
	fwrite(sb.buf, 1, sb.len, fp);
	sb_release(&sb);
}

void
json_write_cell(FILE *fp, const struct cell *c)
{
	struct sb sb;

	sb_init(&sb);
	json_add_cell(&sb, c);
	fwrite(sb.buf, 1, sb.len, fp);
	sb_release(&sb);
}

/* Resolve --fields (or the default table columns) to a list of column indexes. */
static enum gr_err
select_columns(const struct out_opts *o, const struct column *cols, size_t ncols, size_t *sel,
    size_t *nsel, struct gr_error *err)
{
	char buf[512], *tok, *save = NULL;
	size_t i;

	*nsel = 0;
	if (o->fields == NULL || *o->fields == '\0' || strcmp(o->fields, "all") == 0) {
		for (i = 0; i < ncols; i++)
			if (o->format != OUT_TABLE || !cols[i].hidden || o->fields != NULL)
				sel[(*nsel)++] = i;
		return GR_OK;
	}
	strlcpy_(buf, o->fields, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ncols; i++)
			if (strcmp(tok, cols[i].name) == 0)
				break;
		if (i == ncols) {
			struct sb sb;

			sb_init(&sb);
			for (i = 0; i < ncols; i++)
				sb_addf(&sb, "%s%s", i ? ", " : "", cols[i].name);
			gr_fail(err, GR_EUSAGE, "unknown field '%s' (fields: %s)", tok, sb.buf);
			sb_release(&sb);
			return GR_EUSAGE;
		}
		if (*nsel < ncols)
			sel[(*nsel)++] = i;
	}
	return GR_OK;
}

/* Copy s into dst cut to `width` columns, ending in "…" when cut. */
static void
truncate_to(char *dst, size_t n, const char *s, int width)
{
	size_t i = 0, o = 0;
	int w = 0;

	if (text_width(s) <= width) {
		strlcpy_(dst, s, n);
		return;
	}
	while (s[i] != '\0') {
		size_t len = 1;
		char ch[8];
		int cw;

		while (s[i + len] != '\0' && ((unsigned char)s[i + len] & 0xc0) == 0x80 && len < 4)
			len++;
		memcpy(ch, s + i, len);
		ch[len] = '\0';
		cw = text_width(ch);
		if (w + cw > width - 1 || o + len + 4 >= n)
			break;
		memcpy(dst + o, ch, len);
		o += len;
		w += cw;
		i += len;
	}
	memcpy(dst + o, "\xe2\x80\xa6", 3);	/* … */
	dst[o + 3] = '\0';
}

/* Whether column k is the last one shown (no padding after it). */
static bool
last_shown(const int *width, size_t k, size_t n)
{
	for (k++; k < n; k++)
		if (width[k] > 0)
			return false;
	return true;
}

static void
print_padded(FILE *fp, const char *s, int width, bool right, bool last)
{
	int pad = width - text_width(s);

	if (right)
		for (; pad > 0; pad--)
			putc(' ', fp);
	fputs(s, fp);
	if (!right && !last)
		for (; pad > 0; pad--)
			putc(' ', fp);
}

static int
shown_width(const int *width, size_t n, int gap)
{
	int t = 0, shown = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (width[i] > 0) {
			t += width[i];
			shown++;
		}
	return t + (shown > 1 ? (shown - 1) * gap : 0);
}

/* The shown column that goes next among those with essential == (prio == 0): the highest
 * priority, rightmost among equals; never column 0 when keep_first. -1 when none. */
static int
next_victim(const int *width, const int *prio, size_t n, bool essential, bool cuttable,
    const int *min, bool keep_first)
{
	int best = -1;
	size_t i;

	for (i = keep_first ? 1 : 0; i < n; i++) {
		if (width[i] == 0 || (prio[i] == 0) != essential)
			continue;
		if (cuttable && (min[i] <= 0 || width[i] <= min[i]))
			continue;
		if (best < 0 || prio[i] >= prio[best])
			best = (int)i;
	}
	return best;
}

size_t
out_fit_widths(const int *want, const int *min, const int *prio, size_t n, int avail, int gap,
    int *width)
{
	int excess, v, pass, c;
	size_t i, shown = 0;
	bool cut_any = false;

	for (i = 0; i < n; i++)
		width[i] = want[i] > 0 ? want[i] : 1;
	excess = shown_width(width, n, gap) - avail;
	/* Passes: 0 cut non-essential, 1 drop non-essential, 2 cut essential, 3 drop essential. */
	for (pass = 0; pass < 4 && excess > 0; pass++)
		while (excess > 0 &&
		    (v = next_victim(width, prio, n, pass >= 2, pass % 2 == 0, min, pass == 3)) >= 0) {
			if (pass % 2 == 0) {
				c = width[v] - min[v] < excess ? width[v] - min[v] : excess;
				width[v] -= c;
				cut_any = true;
			} else
				width[v] = 0;
			excess = shown_width(width, n, gap) - avail;
		}
	/* Dropping may have freed more than it had to: give it back, most important first. */
	for (pass = 0; cut_any && excess < 0 && pass <= OUT_MAX_COLS * 4; pass++) {
		int best = -1;

		for (i = 0; i < n; i++)
			if (width[i] > 0 && width[i] < want[i] && (best < 0 || prio[i] < prio[best]))
				best = (int)i;
		if (best < 0)
			break;
		c = want[best] - width[best] < -excess ? want[best] - width[best] : -excess;
		width[best] += c;
		excess += c;
	}
	/* The first column alone may still be too wide: cut it to the screen. */
	if (excess > 0 && n > 0 && width[0] > 0)
		width[0] = avail > 1 ? avail : 1;
	for (i = 0; i < n; i++)
		if (width[i] > 0)
			shown++;
	return shown;
}

/* The least a column may be cut to: its min, never more than it wants (0: not cuttable). */
static int
column_min(const struct column *col, int want)
{
	return col->min <= 0 ? 0 : col->min < want ? col->min : want;
}

static void
print_table(FILE *fp, const struct out_opts *o, const struct column *cols, const size_t *sel,
    size_t nsel, const void *rows, size_t n, size_t size, cell_fn get, void *ctx)
{
	char **text = xcalloc(n * nsel + 1, sizeof(*text));
	unsigned char *colors = xcalloc(n * nsel + 1, 1);
	int want[OUT_MAX_COLS], min[OUT_MAX_COLS], prio[OUT_MAX_COLS], width[OUT_MAX_COLS];
	char buf[1024], cut[1024];
	struct cell c;
	size_t r, k;
	bool header_width = !o->no_header || o->keep != NULL;

	if (nsel > OUT_MAX_COLS)
		nsel = OUT_MAX_COLS;
	for (k = 0; k < nsel; k++) {
		want[k] = header_width ? text_width(_(cols[sel[k]].header)) : 1;
		if (o->keep != NULL && k < o->keep->n && o->keep->want[k] > want[k])
			want[k] = o->keep->want[k];
	}
	for (r = 0; r < n; r++)
		for (k = 0; k < nsel; k++) {
			memset(&c, 0, sizeof(c));
			get((const char *)rows + r * size, sel[k], &c, ctx);
			text[r * nsel + k] = xstrdup(cell_text(&c, buf, sizeof(buf), true));
			colors[r * nsel + k] = (unsigned char)c.color;
			if (text_width(text[r * nsel + k]) > want[k])
				want[k] = text_width(text[r * nsel + k]);
		}
	if (o->keep != NULL) {
		memcpy(o->keep->want, want, nsel * sizeof(*want));
		o->keep->n = nsel;
	}
	for (k = 0; k < nsel; k++) {
		min[k] = column_min(&cols[sel[k]], want[k]);
		prio[k] = cols[sel[k]].prio;
		width[k] = want[k];
	}
	if (o->width > 0)
		out_fit_widths(want, min, prio, nsel, o->width, 2, width);
	if (!o->no_header) {
		bool first = true;

		if (o->color)
			fputs("\033[1m", fp);
		for (k = 0; k < nsel; k++) {
			if (width[k] == 0)
				continue;
			if (!first)
				fputs("  ", fp);
			first = false;
			truncate_to(cut, sizeof(cut), _(cols[sel[k]].header), width[k]);
			print_padded(fp, cut, width[k], cols[sel[k]].right, last_shown(width, k, nsel));
		}
		if (o->color)
			fputs("\033[0m", fp);
		putc('\n', fp);
	}
	for (r = 0; r < n; r++) {
		bool first = true;

		for (k = 0; k < nsel; k++) {
			enum out_color col = (enum out_color)colors[r * nsel + k];

			if (width[k] == 0)
				continue;
			if (!first)
				fputs("  ", fp);
			first = false;
			truncate_to(cut, sizeof(cut), text[r * nsel + k], width[k]);
			if (o->color && col != OC_NONE)
				fputs(out_color_seq(col), fp);
			print_padded(fp, cut, width[k], cols[sel[k]].right, last_shown(width, k, nsel));
			if (o->color && col != OC_NONE)
				fputs("\033[0m", fp);
		}
		putc('\n', fp);
	}
	for (r = 0; r < n * nsel; r++)
		free(text[r]);
	free(text);
	free(colors);
}

static void
print_sv(FILE *fp, const struct out_opts *o, const struct column *cols, const size_t *sel,
    size_t nsel, const void *rows, size_t n, size_t size, cell_fn get, void *ctx, char sep)
{
	char buf[1024];
	struct cell c;
	size_t r, k;
	const char *p;

	if (!o->no_header) {
		for (k = 0; k < nsel; k++)
			fprintf(fp, "%s%s", k ? (sep == ',' ? "," : "\t") : "", cols[sel[k]].name);
		putc('\n', fp);
	}
	for (r = 0; r < n; r++) {
		for (k = 0; k < nsel; k++) {
			memset(&c, 0, sizeof(c));
			get((const char *)rows + r * size, sel[k], &c, ctx);
			cell_text(&c, buf, sizeof(buf), false);
			if (k)
				putc(sep, fp);
			if (sep == ',' && strpbrk(buf, ",\"") != NULL) {
				putc('"', fp);
				for (p = buf; *p != '\0'; p++) {
					if (*p == '"')
						putc('"', fp);
					putc(*p, fp);
				}
				putc('"', fp);
			} else
				fputs(buf, fp);
		}
		putc('\n', fp);
	}
}

static void
add_json_object(struct sb *sb, const struct column *cols, const size_t *sel, size_t nsel,
    const void *row, cell_fn get, void *ctx)
{
	struct cell c;
	size_t k;

	sb_addc(sb, '{');
	for (k = 0; k < nsel; k++) {
		memset(&c, 0, sizeof(c));
		get(row, sel[k], &c, ctx);
		if (k)
			sb_addc(sb, ',');
		sb_addc(sb, '"');
		sb_adds(sb, cols[sel[k]].name);
		sb_add(sb, "\":", 2);
		json_add_cell(sb, &c);
	}
	sb_addc(sb, '}');
}

static void
print_json_object(FILE *fp, const struct column *cols, const size_t *sel, size_t nsel,
    const void *row, cell_fn get, void *ctx)
{
	struct sb sb;

	sb_init(&sb);
	add_json_object(&sb, cols, sel, nsel, row, get, ctx);
	fwrite(sb.buf, 1, sb.len, fp);
	sb_release(&sb);
}

enum gr_err
out_print(FILE *fp, const struct out_opts *o, const struct column *cols, size_t ncols,
    size_t id_col, const void *rows, size_t n, size_t size, cell_fn get, void *ctx,
    struct gr_error *err)
{
	size_t *sel = xcalloc(ncols + 1, sizeof(*sel)), nsel, r;
	char buf[256];
	struct cell c;

	if (select_columns(o, cols, ncols, sel, &nsel, err) != GR_OK) {
		free(sel);
		return err->code;
	}
	switch (o->format) {
	case OUT_TABLE:
		print_table(fp, o, cols, sel, nsel, rows, n, size, get, ctx);
		break;
	case OUT_CSV:
		print_sv(fp, o, cols, sel, nsel, rows, n, size, get, ctx, ',');
		break;
	case OUT_TSV:
		print_sv(fp, o, cols, sel, nsel, rows, n, size, get, ctx, '\t');
		break;
	case OUT_IDS:
		for (r = 0; r < n; r++) {
			memset(&c, 0, sizeof(c));
			get((const char *)rows + r * size, id_col, &c, ctx);
			fprintf(fp, "%s\n", cell_text(&c, buf, sizeof(buf), false));
		}
		break;
	case OUT_JSON: {
		struct sb sb;

		/* Built in memory and written in large blocks: stdio per field is the slow part. */
		sb_init(&sb);
		sb_addc(&sb, '[');
		for (r = 0; r < n; r++) {
			sb_add(&sb, r ? ",\n" : "\n", r ? 2 : 1);
			add_json_object(&sb, cols, sel, nsel, (const char *)rows + r * size, get,
			    ctx);
			if (sb.len >= 65536) {
				fwrite(sb.buf, 1, sb.len, fp);
				sb_reset(&sb);
			}
		}
		sb_adds(&sb, n ? "\n]\n" : "]\n");
		fwrite(sb.buf, 1, sb.len, fp);
		sb_release(&sb);
		break;
	}
	}
	free(sel);
	return GR_OK;
}

/*
 * A record's label for a column. In English it is the column's key (what -o json and
 * --columns call it); where the language's catalogue translates the column's header, it is
 * that translation, since a key means nothing to a reader of another language.
 */
static const char *
record_label(const struct column *col)
{
	const char *t = _(col->header);

	return t != col->header ? t : col->name;
}

enum gr_err
out_print_record(FILE *fp, const struct out_opts *o, const struct column *cols, size_t ncols,
    const void *row, cell_fn get, void *ctx, struct gr_error *err)
{
	size_t *sel = xcalloc(ncols + 1, sizeof(*sel)), nsel, k;
	char buf[1024];
	struct cell c;
	int w = 0;
	struct out_opts all = *o;

	if (o->format == OUT_JSON) {
		if (select_columns(o, cols, ncols, sel, &nsel, err) == GR_OK) {
			print_json_object(fp, cols, sel, nsel, row, get, ctx);
			putc('\n', fp);
		}
		free(sel);
		return err->code;
	}
	if (o->format != OUT_TABLE) {
		free(sel);
		return out_print(fp, o, cols, ncols, 0, row, 1, 0, get, ctx, err);
	}
	all.format = OUT_JSON;	/* a record shows hidden columns too */
	if (select_columns(&all, cols, ncols, sel, &nsel, err) != GR_OK) {
		free(sel);
		return err->code;
	}
	for (k = 0; k < nsel; k++)
		if (text_width(record_label(&cols[sel[k]])) > w)
			w = text_width(record_label(&cols[sel[k]]));
	for (k = 0; k < nsel; k++) {
		const char *label = record_label(&cols[sel[k]]);

		memset(&c, 0, sizeof(c));
		get(row, sel[k], &c, ctx);
		/* Padded by display width: a Chinese label is two columns a character. */
		fprintf(fp, "%s%*s  %s\n", label, w - text_width(label), "",
		    cell_text(&c, buf, sizeof(buf), true));
	}
	free(sel);
	return GR_OK;
}
