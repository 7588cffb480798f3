#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/columns.h"
#include "gpurent/money.h"
#include "gpurent/output.h"
#include "gpurent/util.h"

struct out_opts out_global = { OUT_TABLE, false, false, 0, NULL };

bool
out_format_parse(const char *s, enum out_format *f)
{
	static const char *const names[] = { "table", "json", "csv", "tsv", "ids" };
	size_t i;

	for (i = 0; i < ARRAY_LEN(names); i++)
		if (strcmp(s, names[i]) == 0) {
			*f = (enum out_format)i;
			return true;
		}
	return false;
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
		snprintf(buf, n, "%lld", (long long)c->i);
		break;
	case CELL_MONEY:
		if (for_table)
			money_format(buf, n, c->i, c->decimals ? c->decimals : 2, true);
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
	}
	return buf;
}

void
json_write_str(FILE *fp, const char *s)
{
	char clean[1024];
	const unsigned char *p;

	/* Sanitizing first keeps the JSON valid UTF-8 and free of terminal controls. */
	text_sanitize(clean, sizeof(clean), s);
	putc('"', fp);
	for (p = (const unsigned char *)clean; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\') {
			putc('\\', fp);
			putc(*p, fp);
		} else
			putc(*p, fp);
	}
	putc('"', fp);
}

void
json_write_cell(FILE *fp, const struct cell *c)
{
	char buf[64];

	switch (c->kind) {
	case CELL_NULL:
		fputs("null", fp);
		break;
	case CELL_STR:
		json_write_str(fp, c->s ? c->s : "");
		break;
	case CELL_TIME:
		putc('"', fp);
		fputs(cell_text(c, buf, sizeof(buf), false), fp);
		putc('"', fp);
		break;
	default:
		fputs(cell_text(c, buf, sizeof(buf), false), fp);
		break;
	}
}

/* Resolve --fields (or the default table columns) to a list of column indexes. */
static enum gr_err
select_columns(const struct out_opts *o, const struct column *cols, size_t ncols, size_t *sel,
    size_t *nsel, struct gr_error *err)
{
	char buf[512], *tok, *save = NULL;
	size_t i;

	*nsel = 0;
	if (o->fields == NULL || *o->fields == '\0') {
		for (i = 0; i < ncols; i++)
			if (o->format != OUT_TABLE || !cols[i].hidden)
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

static void
print_table(FILE *fp, const struct out_opts *o, const struct column *cols, const size_t *sel,
    size_t nsel, const void *rows, size_t n, size_t size, cell_fn get, void *ctx)
{
	char **text = xcalloc(n * nsel + 1, sizeof(*text));
	unsigned char *colors = xcalloc(n * nsel + 1, 1);
	int *width = xcalloc(nsel + 1, sizeof(*width));
	char buf[1024], cut[1024];
	struct cell c;
	size_t r, k;
	int total, level;

	for (k = 0; k < nsel; k++)
		width[k] = o->no_header ? 1 : text_width(cols[sel[k]].header);
	for (r = 0; r < n; r++)
		for (k = 0; k < nsel; k++) {
			memset(&c, 0, sizeof(c));
			get((const char *)rows + r * size, sel[k], &c, ctx);
			text[r * nsel + k] = xstrdup(cell_text(&c, buf, sizeof(buf), true));
			colors[r * nsel + k] = (unsigned char)c.color;
			if (text_width(text[r * nsel + k]) > width[k])
				width[k] = text_width(text[r * nsel + k]);
		}
	/* Fit the terminal: shrink the most shrinkable columns first, never below 8. */
	if (o->width > 0) {
		total = 0;
		for (k = 0; k < nsel; k++)
			total += width[k] + (k ? 2 : 0);
		for (level = 9; level > 0 && total > o->width; level--)
			for (k = 0; k < nsel && total > o->width; k++) {
				int can;

				if (cols[sel[k]].shrink != level || width[k] <= 8)
					continue;
				can = width[k] - 8;
				if (can > total - o->width)
					can = total - o->width;
				width[k] -= can;
				total -= can;
			}
	}
	if (!o->no_header) {
		if (o->color)
			fputs("\033[1m", fp);
		for (k = 0; k < nsel; k++) {
			if (k)
				fputs("  ", fp);
			truncate_to(cut, sizeof(cut), cols[sel[k]].header, width[k]);
			print_padded(fp, cut, width[k], cols[sel[k]].right, k + 1 == nsel);
		}
		if (o->color)
			fputs("\033[0m", fp);
		putc('\n', fp);
	}
	for (r = 0; r < n; r++) {
		for (k = 0; k < nsel; k++) {
			enum out_color col = (enum out_color)colors[r * nsel + k];

			if (k)
				fputs("  ", fp);
			truncate_to(cut, sizeof(cut), text[r * nsel + k], width[k]);
			if (o->color && col != OC_NONE)
				fputs(out_color_seq(col), fp);
			print_padded(fp, cut, width[k], cols[sel[k]].right, k + 1 == nsel);
			if (o->color && col != OC_NONE)
				fputs("\033[0m", fp);
		}
		putc('\n', fp);
	}
	for (r = 0; r < n * nsel; r++)
		free(text[r]);
	free(text);
	free(colors);
	free(width);
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
print_json_object(FILE *fp, const struct column *cols, const size_t *sel, size_t nsel,
    const void *row, cell_fn get, void *ctx)
{
	struct cell c;
	size_t k;

	putc('{', fp);
	for (k = 0; k < nsel; k++) {
		memset(&c, 0, sizeof(c));
		get(row, sel[k], &c, ctx);
		if (k)
			putc(',', fp);
		fprintf(fp, "\"%s\":", cols[sel[k]].name);
		json_write_cell(fp, &c);
	}
	putc('}', fp);
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
	case OUT_JSON:
		fputs("[", fp);
		for (r = 0; r < n; r++) {
			fputs(r ? ",\n" : "\n", fp);
			print_json_object(fp, cols, sel, nsel, (const char *)rows + r * size, get, ctx);
		}
		fputs(n ? "\n]\n" : "]\n", fp);
		break;
	}
	free(sel);
	return GR_OK;
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
		if ((int)strlen(cols[sel[k]].name) > w)
			w = (int)strlen(cols[sel[k]].name);
	for (k = 0; k < nsel; k++) {
		memset(&c, 0, sizeof(c));
		get(row, sel[k], &c, ctx);
		fprintf(fp, "%-*s  %s\n", w, cols[sel[k]].name, cell_text(&c, buf, sizeof(buf), true));
	}
	free(sel);
	return GR_OK;
}
