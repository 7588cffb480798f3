/*
 * output.h - one way to print records: table, json, csv, tsv or ids.
 *
 * A command describes its columns once (name = JSON key and --fields name, header, kind)
 * and supplies a getter; this module does formatting, --fields, --no-header, colour and
 * sizing to the terminal. Text cells are sanitized here, at the last step before the
 * terminal, whatever the backend did.
 *
 * JSON is an array of objects with every column unless --fields narrows it; unknown values
 * are null. Money is a JSON number in its currency's units with six decimals (exact
 * micro-units); records with money have a "currency" member (ISO 4217) beside it.
 */
#ifndef GPURENT_OUTPUT_H
#define GPURENT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

enum out_format { OUT_TABLE, OUT_JSON, OUT_CSV, OUT_TSV, OUT_IDS };

enum cell_kind {
	CELL_NULL,	/* unknown: "-" in text, null in JSON */
	CELL_STR,
	CELL_INT,
	CELL_MONEY,	/* micro-units of the currency whose ISO 4217 code is s (NULL, "": USD) */
	CELL_BOOL,
	CELL_TIME,	/* UTC seconds: local time in a table, RFC 3339 in JSON/CSV */
	CELL_FIXED,	/* int scaled by 10^decimals: reliability 9850 with decimals 4 -> 0.985 */
	CELL_DURATION,	/* seconds: "2h 05m" in a table, a number elsewhere */
	CELL_LIST,	/* s: items one a line; a JSON array of strings, "a,b" elsewhere */
	CELL_MAP,	/* s: K=V lines; a JSON object of strings, "K=V,K2=V2" elsewhere */
};

struct cell {
	enum cell_kind kind;
	const char *s;	/* CELL_STR: the text; CELL_MONEY: the currency code */
	int64_t i;
	int decimals;	/* CELL_FIXED digits; CELL_MONEY digits shown in a table (default 2) */
	int color;	/* a semantic colour for tables (enum out_color), 0 none */
};

enum out_color { OC_NONE, OC_GOOD, OC_WARN, OC_BAD, OC_DIM, OC_ACCENT };

/*
 * How a table fits a narrow terminal (out_fit_widths), the same on the command line and
 * in the dashboard: a column of priority 0 is essential (identity, GPU, price); a higher
 * priority is less important and goes first. A column with a min is free text that may be
 * cut, with an ellipsis, down to min cells; min 0: shown whole or not at all.
 */
struct column {
	const char *name;	/* JSON key and --fields name */
	const char *header;	/* table header; numeric headers carry their unit */
	bool right;		/* right-align in tables */
	bool hidden;		/* not shown in tables unless named in --fields */
	int prio;		/* 0: essential; higher: cut (if min) and dropped earlier */
	int min;		/* cells a cut may leave; 0: never cut */
};

/* Most columns one table shows. */
#define OUT_MAX_COLS 48

/*
 * Widths that carry over from one table to the next (metrics --follow prints a table per
 * round): each column is at least as wide as its header and as in every earlier round, so
 * the rounds stay aligned under one header.
 */
struct out_widths {
	int want[OUT_MAX_COLS];
	size_t n;
};

struct out_opts {
	enum out_format format;
	bool no_header;
	bool color;
	int width;		/* terminal columns; 0: do not size to a terminal */
	const char *fields;	/* "a,b,c" or NULL */
	struct out_widths *keep;	/* tables in rounds; NULL: each table sized alone */
};

/* Global output options, set once by main from -o, --fields, --no-header, --color. */
extern struct out_opts out_global;

bool out_format_parse(const char *s, enum out_format *f);

/* Fill a cell for row r, column c; out arrives zeroed (unknown), so a column without a value
 * sets nothing. */
typedef void (*cell_fn)(const void *row, size_t c, struct cell *out, void *ctx);

/* A text cell, or unknown when s is NULL or empty (a record's "" says it has none). */
static inline void
cell_str(struct cell *c, const char *s)
{
	c->kind = s != NULL && *s != '\0' ? CELL_STR : CELL_NULL;
	c->s = s;
}

/*
 * Print rows (an array of n items of `size` bytes) with the given columns to fp.
 * id_col is the column printed by -o ids. Fails (GR_EUSAGE) on an unknown --fields name.
 */
enum gr_err out_print(FILE *fp, const struct out_opts *o, const struct column *cols, size_t ncols,
    size_t id_col, const void *rows, size_t n, size_t size, cell_fn get, void *ctx,
    struct gr_error *err);

/* JSON helpers for commands that print one object or stream lines (metrics --follow). */
void json_write_str(FILE *fp, const char *s);
void json_write_cell(FILE *fp, const struct cell *c);

/* A single "key: value" list for `show` in table mode, JSON object otherwise. */
enum gr_err out_print_record(FILE *fp, const struct out_opts *o, const struct column *cols,
    size_t ncols, const void *row, cell_fn get, void *ctx, struct gr_error *err);

/*
 * Fit n columns (want[i]: the widest cell, header included) into avail cells with gap
 * cells between shown columns, never exceeding avail. In order, until it fits: cut the
 * cuttable non-essential columns to their min, least important first; drop non-essential
 * columns, least important (then rightmost) first; cut essential columns to their min;
 * drop essential columns from the right, never the first; cut the first to avail. Room
 * that dropping freed goes back to cut columns, the most important first. width[i]
 * receives each width, 0 for a dropped column. Returns the number of columns shown.
 */
size_t out_fit_widths(const int *want, const int *min, const int *prio, size_t n, int avail,
    int gap, int *width);

/* Format a cell as plain text (no colour, sanitized) into buf. */
const char *cell_text(const struct cell *c, char *buf, size_t n, bool for_table);

/* Columns of the terminal on stdout, or 0 when stdout is not a terminal. COLUMNS wins. */
int out_terminal_width(void);

/* ANSI sequence for a semantic colour ("" when colour is off). */
const char *out_color_seq(enum out_color c);

#endif
