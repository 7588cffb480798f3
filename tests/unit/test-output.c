#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpurent/output.h"
#include "gpurent/util.h"

struct row {
	const char *name;
	int64_t price;
	bool known;
};

static const struct column cols[] = {
	{ "name", "NAME", false, false, 1, 4 },
	{ "price_hour", "$/H", true, false, 0, 0 },
	{ "secret", "SECRET", false, true, 0, 0 },
};

static void
cell(const void *r, size_t c, struct cell *out, void *ctx)
{
	const struct row *row = r;

	(void)ctx;
	switch (c) {
	case 0: out->kind = CELL_STR; out->s = row->name; break;
	case 1: out->kind = row->known ? CELL_MONEY : CELL_NULL; out->i = row->price; break;
	default: out->kind = CELL_STR; out->s = "hidden"; break;
	}
}

static const struct row rows[] = {
	{ "alpha", 2490000, true },
	{ "b\"e,t\ta\033[31m", 100, true },
	{ "gamma", 0, false },
};

static char *
render(enum out_format fmt, const char *fields, bool no_header, int width)
{
	struct out_opts o = { fmt, no_header, false, width, fields, NULL };
	struct gr_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_int_equal(out_print(fp, &o, cols, 3, 0, rows, 3, sizeof(rows[0]), cell, NULL,
	    &err), GR_OK);
	fclose(fp);
	return buf;
}

static void
json(void **state)
{
	char *s = render(OUT_JSON, NULL, false, 0);

	(void)state;
	assert_string_equal(s, "[\n{\"name\":\"alpha\",\"price_hour\":2.49,\"secret\":\"hidden\"},\n"
	    "{\"name\":\"b\\\"e,t a[31m\",\"price_hour\":0.0001,\"secret\":\"hidden\"},\n"
	    "{\"name\":\"gamma\",\"price_hour\":null,\"secret\":\"hidden\"}\n]\n");
	free(s);
}

/* A long string comes out whole in JSON, escaped, however long. */
static void
json_long_string(void **state)
{
	char *in = malloc(10001), *buf = NULL;
	size_t len = 0, i;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	for (i = 0; i < 10000; i++)
		in[i] = i % 100 == 99 ? '\\' : 'a';
	in[10000] = '\0';
	json_write_str(fp, in);
	fclose(fp);
	assert_int_equal(len, 2 + 10000 + 100);	/* quotes, text, one more \ per backslash */
	assert_int_equal(buf[len - 1], '"');
	assert_memory_equal(buf + len - 3, "\\\\\"", 3);
	free(in);
	free(buf);
}

static void
table(void **state)
{
	char *s = render(OUT_TABLE, NULL, false, 0);

	(void)state;
	/* Hidden columns stay out, unknown is '-', escapes are gone, money right-aligned. */
	assert_string_equal(s, "NAME           $/H\nalpha        $2.49\nb\"e,t a[31m  $0.00\n"
	    "gamma            -\n");
	free(s);
	s = render(OUT_TABLE, NULL, false, 12);
	assert_non_null(strstr(s, "\xe2\x80\xa6"));	/* cut to fit with an ellipsis */
	free(s);
}

/* Sum of shown widths plus the gaps between them. */
static int
used(const int *width, size_t n, int gap)
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

static void
fit_widths(void **state)
{
	/* id, gpu (essential, cut to 9), provider (dropped first), label (free text, cut
	 * first to 10), region (never cut), price (essential). */
	int want[] = { 12, 14, 8, 63, 10, 6 }, min[] = { 0, 9, 0, 10, 0, 0 };
	int prio[] = { 0, 0, 6, 2, 4, 0 }, width[6], avail;

	(void)state;
	/* Everything fits: nothing changes. */
	assert_int_equal(out_fit_widths(want, min, prio, 6, 200, 2, width), 6);
	assert_int_equal(width[3], 63);
	/* 160 columns hold it all (113 + 10 gaps = 123). */
	assert_int_equal(out_fit_widths(want, min, prio, 6, 160, 2, width), 6);
	/* A long label gives way before anything else, down to its minimum; GPU stays whole. */
	assert_int_equal(out_fit_widths(want, min, prio, 6, 100, 2, width), 6);
	assert_int_equal(width[1], 14);
	assert_int_equal(width[3], 40);
	assert_int_equal(used(width, 6, 2), 100);
	assert_int_equal(out_fit_widths(want, min, prio, 6, 70, 2, width), 6);
	assert_int_equal(width[3], 10);
	/* Then whole low-priority columns go, PROVIDER first, before GPU is cut. */
	assert_int_equal(out_fit_widths(want, min, prio, 6, 62, 2, width), 5);
	assert_int_equal(width[2], 0);
	assert_int_equal(width[1], 14);
	/* The freed room goes back to the cut label: the table fills the width exactly. */
	assert_int_equal(width[3], 12);
	assert_int_equal(used(width, 6, 2), 62);
	/* Narrower: region goes, then the label; GPU is cut last of all, never below 9. */
	assert_int_equal(out_fit_widths(want, min, prio, 6, 40, 2, width), 3);
	assert_true(width[2] == 0 && width[3] == 0 && width[4] == 0);
	assert_int_equal(width[1], 14);
	assert_int_equal(out_fit_widths(want, min, prio, 6, 33, 2, width), 3);
	assert_int_equal(width[1], 11);
	/* Essential columns are dropped from the right, the first never. */
	assert_int_equal(out_fit_widths(want, min, prio, 6, 24, 2, width), 2);
	assert_int_equal(width[0], 12);
	assert_int_equal(width[5], 0);
	/* Never wider than the width, whatever the width. */
	for (avail = 1; avail <= 130; avail++) {
		out_fit_widths(want, min, prio, 6, avail, 2, width);
		assert_true(used(width, 6, 2) <= avail);
		assert_true(width[0] > 0);
	}
}

static void
table_fits_width(void **state)
{
	char *s = render(OUT_TABLE, NULL, false, 9), *line, *save = NULL;

	(void)state;
	/* Too narrow for both: the non-essential NAME is dropped, never a wider line. */
	for (line = strtok_r(s, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		assert_true(text_width(line) <= 9);
	free(s);
}

static void
table_rounds_align(void **state)
{
	static const struct row round1[] = { { "a", 100000, true } };
	static const struct row round2[] = { { "a-much-longer-name", 123450000, true } };
	struct out_widths keep = { { 0 }, 0 };
	struct out_opts o = { OUT_TABLE, false, false, 0, NULL, &keep };
	struct gr_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(out_print(fp, &o, cols, 3, 0, round2, 1, sizeof(round2[0]), cell, NULL,
	    &err), GR_OK);
	o.no_header = true;
	assert_int_equal(out_print(fp, &o, cols, 3, 0, round1, 1, sizeof(round1[0]), cell, NULL,
	    &err), GR_OK);
	fclose(fp);
	/* The second round is laid out in the first round's columns. */
	assert_string_equal(buf, "NAME                    $/H\n"
	    "a-much-longer-name  $123.45\n"
	    "a                     $0.10\n");
	free(buf);
}

/* Whether s is whole UTF-8: no character cut in the middle. */
static bool
valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p != '\0') {
		size_t n = utf8_seq(p);

		if (n == 0)
			return false;
		p += n;
	}
	return true;
}

/*
 * Chinese cells cut to every width from 2 to 14: the table never splits a character, ends a
 * cut cell in an ellipsis, keeps the next column at the same display column on every line
 * and is never wider than asked.
 */
static void
table_cuts_wide_characters(void **state)
{
	static const struct row wide[] = {
		{ "\xe5\x8d\x8e\xe5\x8d\x97 cn-south-1, CN", 1000000, true },	/* 华南 ... */
		{ "\xe8\xa5\xbf\xe5\x8c\x97\xe5\x9c\xb0\xe5\x8c\xba", 2000000, true },	/* 西北地区 */
		{ "a\xe4\xb8\x8a\xe6\xb5\xb7" "b", 3000000, true },			/* a上海b */
	};
	int avail;

	(void)state;
	for (avail = 12; avail <= 24; avail++) {
		struct out_opts o = { OUT_TABLE, false, false, avail, "name,price_hour", NULL };
		struct gr_error err = { 0 };
		char *buf = NULL, *line, *save = NULL;
		size_t len = 0;
		int end = -1;
		FILE *fp = open_memstream(&buf, &len);

		assert_int_equal(out_print(fp, &o, cols, 3, 0, wide, 3, sizeof(wide[0]), cell, NULL,
		    &err), GR_OK);
		fclose(fp);
		assert_true(valid_utf8(buf));
		/* The widest cell (18 columns) and $/H (5) do not fit in 24: something is cut. */
		assert_non_null(strstr(buf, "\xe2\x80\xa6"));
		for (line = strtok_r(buf, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save)) {
			/* $/H is right-aligned and last: every line ends at one display column. */
			assert_true(text_width(line) <= avail);
			if (end < 0)
				end = text_width(line);
			assert_int_equal(text_width(line), end);
		}
		free(buf);
	}
}

static void
csv_tsv_ids(void **state)
{
	char *s = render(OUT_CSV, "price_hour,name", false, 0);

	(void)state;
	assert_string_equal(s, "price_hour,name\n2.49,alpha\n0.0001,\"b\"\"e,t a[31m\"\n,gamma\n");
	free(s);
	s = render(OUT_TSV, "name", true, 0);
	assert_string_equal(s, "alpha\nb\"e,t a[31m\ngamma\n");
	free(s);
	s = render(OUT_IDS, NULL, false, 0);
	assert_string_equal(s, "alpha\nb\"e,t a[31m\ngamma\n");
	free(s);
}

static void
bad_field(void **state)
{
	struct out_opts o = { OUT_JSON, false, false, 0, "name,nope", NULL };
	struct gr_error err = { 0 };
	FILE *fp = fopen("/dev/null", "w");

	(void)state;
	assert_int_equal(out_print(fp, &o, cols, 3, 0, rows, 3, sizeof(rows[0]), cell, NULL, &err),
	    GR_EUSAGE);
	assert_non_null(strstr(err.msg, "nope"));
	fclose(fp);
}

static void
sanitize(void **state)
{
	char b[64];

	(void)state;
	assert_string_equal(text_sanitize(b, sizeof(b), "a\033]0;x\007b"), "a]0;xb");
	assert_string_equal(text_sanitize(b, sizeof(b), "tab\there"), "tab here");
	assert_string_equal(text_sanitize(b, sizeof(b), "c1\xc2\x9b" "31m"), "c1??31m");
	assert_string_equal(text_sanitize(b, sizeof(b), "bad\xff"), "bad?");
	assert_string_equal(text_sanitize(b, sizeof(b), "S\xc3\xa3o"), "S\xc3\xa3o");
	assert_string_equal(text_sanitize(b, 4, "ab\xc3\xa3"), "ab");	/* never split UTF-8 */
	assert_int_equal(text_width("S\xc3\xa3o"), 3);
	assert_int_equal(text_width("\xe6\x9d\xb1\xe4\xba\xac"), 4);	/* two wide characters */
}

/* A name safe in a path or a URL: 1 to max letters, digits, '-', '_' or '.'. */
/* random_hex: the tokens and the simulator's instance keys, lowercase hex of the asked length. */
static void
random_hexes(void **state)
{
	char a[33], b[33];
	size_t i;

	(void)state;
	assert_true(random_hex(a, 16));
	assert_true(random_hex(b, 16));
	assert_int_equal(strlen(a), 32);
	for (i = 0; i < 32; i++)
		assert_non_null(strchr("0123456789abcdef", a[i]));
	assert_string_not_equal(a, b);
	assert_false(random_hex(a, 65));	/* more than it draws at once */
	assert_string_equal(a, "");
}

static void
names_safe(void **state)
{
	(void)state;
	assert_true(name_safe("A-b_c.9", 7));
	assert_false(name_safe("A-b_c.9", 6));		/* one longer than max */
	assert_false(name_safe("", 8));
	assert_false(name_safe("a/b", 8));
	assert_false(name_safe("a b", 8));
	assert_false(name_safe("a%2f", 8));
}

/* The start of the last N lines, across the 64 KiB blocks it reads backwards. */
static void
tail_start(void **state)
{
	FILE *fp = tmpfile();
	long i, off;

	(void)state;
	assert_non_null(fp);
	assert_int_equal(file_tail_start(fp, 3), 0);	/* empty */
	fputs("one\ntwo\nthree\n", fp);
	assert_int_equal(file_tail_start(fp, 0), 14);	/* nothing: the end */
	assert_int_equal(file_tail_start(fp, 1), 8);	/* "three\n" */
	assert_int_equal(file_tail_start(fp, 2), 4);
	assert_int_equal(file_tail_start(fp, 3), 0);
	assert_int_equal(file_tail_start(fp, 9), 0);
	assert_int_equal(file_tail_start(fp, -1), 0);
	fputs("four", fp);				/* a last line without its newline */
	assert_int_equal(file_tail_start(fp, 1), 14);
	/* 200,000 lines of 9 bytes: far past one block; a line break on a block boundary. */
	rewind(fp);
	assert_int_equal(ftruncate(fileno(fp), 0), 0);
	for (i = 0; i < 200000; i++)
		fprintf(fp, "%08ld\n", i);
	fflush(fp);
	off = file_tail_start(fp, 150000);
	assert_int_equal(off, 50000L * 9);
	assert_int_equal(fseek(fp, off, SEEK_SET), 0);
	assert_int_equal(fgetc(fp), '0');
	assert_int_equal(file_tail_start(fp, 200000), 0);
	assert_int_equal(file_tail_start(fp, 65536 / 9), 1800000 - (65536 / 9) * 9);
	fclose(fp);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json),
		cmocka_unit_test(json_long_string),
		cmocka_unit_test(table),
		cmocka_unit_test(fit_widths),
		cmocka_unit_test(table_fits_width),
		cmocka_unit_test(table_cuts_wide_characters),
		cmocka_unit_test(table_rounds_align),
		cmocka_unit_test(csv_tsv_ids),
		cmocka_unit_test(bad_field),
		cmocka_unit_test(sanitize),
		cmocka_unit_test(random_hexes),
		cmocka_unit_test(names_safe),
		cmocka_unit_test(tail_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
