/*
 * layout.h - the dashboard's screen geometry and text fitting, as pure functions.
 *
 * Nothing here touches the terminal, so the arithmetic that decides where things go is
 * unit-tested without one (tests/ui/test-layout.c), as nvtop does with its layout.
 */
#ifndef GPURENT_UI_LAYOUT_H
#define GPURENT_UI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

/* The smallest screen the dashboard draws on; below it, a message says so. */
#define UI_MIN_COLS 80
#define UI_MIN_ROWS 24

struct ui_rect {
	int y, x, h, w;
};

/*
 * Rows from the top: header (burn rate, clock), tabs, the view's body, the status line
 * (errors, messages, the filter line), the key hints.
 */
struct ui_layout {
	bool too_small;
	int cols, rows;
	struct ui_rect header;
	struct ui_rect tabs;
	struct ui_rect body;
	struct ui_rect status;
	struct ui_rect keys;
};

void ui_layout_compute(int cols, int rows, struct ui_layout *out);

/* A centred box of at most want_w x want_h inside area (with a margin of one cell). */
struct ui_rect ui_layout_dialog(const struct ui_rect *area, int want_w, int want_h);

/* The first row to show so that sel is visible in a window of h rows over n rows. */
size_t ui_scroll(size_t top, size_t sel, size_t n, size_t h);

/*
 * Copy UTF-8 text s into dst (n bytes) as exactly w display columns: cut with an
 * ellipsis when longer (a wide character never straddles the edge), padded with spaces
 * when shorter, on the left when right is set. Returns dst.
 */
char *ui_text_fit(char *dst, size_t n, const char *s, int w, bool right);

/* A column of a header line: its title, translated; its width in display columns (0: the
   last column, as long as it is); aligned right or left. */
struct ui_head {
	const char *title;
	int w;
	bool right;
};

/*
 * The header line of n columns into line (size bytes), a space between them, each title
 * fitted to its width by ui_text_fit: by display width, not bytes, as a title may be
 * translated into CJK. Returns line.
 */
char *ui_head_line(char *line, size_t size, const struct ui_head *cols, size_t n);

/*
 * Split text into lines of at most w columns at spaces; '\n' forces a break. Stores the
 * start offset and byte length of each line; returns the number of lines (at most max).
 */
size_t ui_wrap(const char *text, int w, size_t *start, size_t *len, size_t max);

/* Level 0..levels-1 of v on a 0..max scale (clamped), for sparklines and gauges. */
int ui_level(long long v, long long max, int levels);

/* A fixed ring of the most recent samples, for the metric graphs. */
#define UI_RING_MAX 256
struct ui_ring {
	int v[UI_RING_MAX];
	size_t head, n;		/* next slot to write; samples held */
};
void ui_ring_push(struct ui_ring *r, int v);
/* Sample i counted from the oldest held (0 .. n-1). */
int ui_ring_get(const struct ui_ring *r, size_t i);

/*
 * The entry of names[0..n-1] that s names, exactly or as a unique prefix; -1 when none,
 * -2 when ambiguous. Used for `:offers`, `:inst`, ...
 */
int ui_name_lookup(const char *const *names, size_t n, const char *s);

/* Stable sort of idx[0..n-1] with cmp(a, b, ctx) over the values the indices name. */
void ui_sort_index(size_t *idx, size_t n, int (*cmp)(size_t a, size_t b, void *ctx),
    void *ctx);

#endif
