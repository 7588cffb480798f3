/*
 * Screen geometry, column fitting and text fitting for the dashboard; no curses here.
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/util.h"
#include "layout.h"

void
ui_layout_compute(int cols, int rows, struct ui_layout *out)
{
	memset(out, 0, sizeof(*out));
	out->cols = cols;
	out->rows = rows;
	out->too_small = cols < UI_MIN_COLS || rows < UI_MIN_ROWS;
	if (out->too_small)
		return;
	out->header = (struct ui_rect){ 0, 0, 1, cols };
	out->tabs = (struct ui_rect){ 1, 0, 1, cols };
	out->body = (struct ui_rect){ 2, 0, rows - 4, cols };
	out->status = (struct ui_rect){ rows - 2, 0, 1, cols };
	out->keys = (struct ui_rect){ rows - 1, 0, 1, cols };
}

struct ui_rect
ui_layout_dialog(const struct ui_rect *area, int want_w, int want_h)
{
	struct ui_rect r;

	r.w = want_w < area->w - 2 ? want_w : area->w - 2;
	r.h = want_h < area->h - 2 ? want_h : area->h - 2;
	if (r.w < 1)
		r.w = 1;
	if (r.h < 1)
		r.h = 1;
	r.x = area->x + (area->w - r.w) / 2;
	r.y = area->y + (area->h - r.h) / 2;
	return r;
}

size_t
ui_scroll(size_t top, size_t sel, size_t n, size_t h)
{
	if (h == 0 || n <= h)
		return 0;
	if (sel >= n)
		sel = n - 1;
	if (sel < top)
		top = sel;
	else if (sel >= top + h)
		top = sel - h + 1;
	if (top + h > n)
		top = n - h;
	return top;
}

static size_t
utf8_len(unsigned char c)
{
	return c < 0x80 ? 1 : c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* Width of the character at s and its length in bytes. */
static int
char_width(const char *s, size_t *len)
{
	char one[5];
	size_t i, l = utf8_len((unsigned char)*s);

	for (i = 0; i < l && s[i] != '\0'; i++)
		one[i] = s[i];
	one[i] = '\0';
	*len = i ? i : 1;
	return text_width(one);
}

char *
ui_text_fit(char *dst, size_t n, const char *s, int w, bool right)
{
	const char *ell = MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : "~";
	size_t used = 0, cut = 0, l, el = strlen(ell);
	int width = 0, cw, total = text_width(s), pad;
	bool trunc = total > w;

	if (n == 0)
		return dst;
	if (w <= 0) {
		dst[0] = '\0';
		return dst;
	}
	/* Copy whole characters while they fit, leaving a cell for the ellipsis. */
	while (s[cut] != '\0') {
		cw = char_width(s + cut, &l);
		if (width + cw > (trunc ? w - 1 : w) || used + l + el + 1 > n)
			break;
		width += cw;
		cut += l;
		used += l;
	}
	pad = w - width - (trunc ? 1 : 0);
	if (right && !trunc) {
		size_t p = (size_t)pad < n - used - 1 ? (size_t)pad : n - used - 1;

		memset(dst, ' ', p);
		memcpy(dst + p, s, cut);
		dst[p + cut] = '\0';
		return dst;
	}
	memcpy(dst, s, cut);
	if (trunc) {
		memcpy(dst + cut, ell, el);
		cut += el;
	}
	while (pad-- > 0 && cut + 1 < n)
		dst[cut++] = ' ';
	dst[cut] = '\0';
	return dst;
}

char *
ui_head_line(char *line, size_t size, const struct ui_head *cols, size_t n)
{
	char fit[128];
	size_t i, len = 0;

	if (size == 0)
		return line;
	line[0] = '\0';
	for (i = 0; i < n && len < size; i++) {
		const char *t = cols[i].w > 0 ?
		    ui_text_fit(fit, sizeof(fit), cols[i].title, cols[i].w, cols[i].right) :
		    cols[i].title;

		len += (size_t)snprintf(line + len, size - len, "%s%s", i > 0 ? " " : "", t);
	}
	return line;
}

size_t
ui_wrap(const char *text, int w, size_t *start, size_t *len, size_t max)
{
	size_t nl = 0, i = 0, line = 0, last_space = 0, l;
	int width = 0;
	bool have_space = false;

	if (w < 1)
		w = 1;
	while (nl < max) {
		if (text[i] == '\0' && i == line && nl > 0 && text[i - 1] != '\n')
			break;		/* the last line ended exactly at the width */
		if (text[i] == '\0' || text[i] == '\n') {
			start[nl] = line;
			len[nl++] = i - line;
			if (text[i] == '\0')
				break;
			line = ++i;
			width = 0;
			have_space = false;
			continue;
		}
		if (text[i] == ' ') {
			last_space = i;
			have_space = true;
		}
		width += char_width(text + i, &l);
		if (width > w) {
			/* Break at the last space, or mid-word when the word alone is too long. */
			size_t end = have_space && last_space > line ? last_space : i;
			size_t next = end == last_space && have_space ? end + 1 : end;

			if (end == line)	/* one character wider than the line */
				end = next = i + l;
			start[nl] = line;
			len[nl++] = end - line;
			line = i = next;
			width = 0;
			have_space = false;
			continue;
		}
		i += l;
	}
	return nl;
}

int
ui_level(long long v, long long max, int levels)
{
	long long l;

	if (max <= 0 || v <= 0 || levels <= 1)
		return 0;
	if (v >= max)
		return levels - 1;
	l = (v * (levels - 1) + max / 2) / max;
	return (int)(l < 0 ? 0 : l >= levels ? levels - 1 : l);
}

void
ui_ring_push(struct ui_ring *r, int v)
{
	r->v[r->head] = v;
	r->head = (r->head + 1) % UI_RING_MAX;
	if (r->n < UI_RING_MAX)
		r->n++;
}

int
ui_ring_get(const struct ui_ring *r, size_t i)
{
	return r->v[(r->head + UI_RING_MAX - r->n + i) % UI_RING_MAX];
}

int
ui_name_lookup(const char *const *names, size_t n, const char *s)
{
	size_t i, len = strlen(s);
	int found = -1;

	if (len == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (strcmp(names[i], s) == 0)
			return (int)i;
		if (strncmp(names[i], s, len) == 0)
			found = found == -1 ? (int)i : -2;
	}
	return found;
}

static void
merge_sort(size_t *idx, size_t *tmp, size_t n, int (*cmp)(size_t, size_t, void *), void *ctx)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	merge_sort(idx, tmp, mid, cmp, ctx);
	merge_sort(idx + mid, tmp, n - mid, cmp, ctx);
	while (i < mid && j < n)
		tmp[k++] = cmp(idx[j], idx[i], ctx) < 0 ? idx[j++] : idx[i++];
	while (i < mid)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, n * sizeof(*idx));
}

void
ui_sort_index(size_t *idx, size_t n, int (*cmp)(size_t a, size_t b, void *ctx), void *ctx)
{
	size_t *tmp;

	if (n < 2)
		return;
	tmp = xreallocarray(NULL, n, sizeof(*tmp));
	merge_sort(idx, tmp, n, cmp, ctx);
	free(tmp);
}
