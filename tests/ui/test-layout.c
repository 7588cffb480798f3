/*
 * The dashboard's pure layout logic, without a terminal: screen regions, column fitting,
 * scrolling, text fitting with wide characters, wrapping, levels, the ring buffer, view
 * names, the stable sort and the table model.
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpurent/catalogue.h"
#include "gpurent/columns.h"
#include "gpurent/filter.h"
#include "gpurent/util.h"
#include "../../src/ui/grid.h"
#include "../../src/ui/layout.h"

static void
test_regions(void **state)
{
	struct ui_layout l;

	(void)state;
	ui_layout_compute(80, 24, &l);
	assert_false(l.too_small);
	assert_int_equal(l.header.y, 0);
	assert_int_equal(l.tabs.y, 1);
	assert_int_equal(l.body.y, 2);
	assert_int_equal(l.body.h, 20);
	assert_int_equal(l.status.y, 22);
	assert_int_equal(l.keys.y, 23);
	assert_int_equal(l.body.w, 80);
	/* Every row is used once: header + tabs + body + status + keys. */
	assert_int_equal(l.header.h + l.tabs.h + l.body.h + l.status.h + l.keys.h, 24);
	ui_layout_compute(200, 60, &l);
	assert_int_equal(l.body.h, 56);
	assert_int_equal(l.keys.y, 59);
	ui_layout_compute(79, 24, &l);
	assert_true(l.too_small);
	ui_layout_compute(80, 23, &l);
	assert_true(l.too_small);
	ui_layout_compute(0, 0, &l);
	assert_true(l.too_small);
}

static void
test_dialog(void **state)
{
	struct ui_rect area = { 2, 0, 20, 80 }, r;

	(void)state;
	r = ui_layout_dialog(&area, 40, 6);
	assert_int_equal(r.w, 40);
	assert_int_equal(r.h, 6);
	assert_int_equal(r.x, 20);
	assert_int_equal(r.y, 2 + 7);
	r = ui_layout_dialog(&area, 200, 50);	/* clipped, with a margin */
	assert_int_equal(r.w, 78);
	assert_int_equal(r.h, 18);
	assert_int_equal(r.x, 1);
	assert_int_equal(r.y, 3);
}

/* The dashboard fits its grids by the columns' priorities, as `offers` does. */
static void
test_fit_columns(void **state)
{
	static const size_t show[] = {
		OCOL_ID, OCOL_PROVIDER, OCOL_GPU, OCOL_GPUS, OCOL_VRAM, OCOL_PRICE, OCOL_GPU_PRICE,
		OCOL_TFLOP_PRICE, OCOL_TYPE, OCOL_REGION, OCOL_LOCATION, OCOL_RELIABILITY,
		OCOL_INTERCONNECT,
	};
	struct offer o;
	struct ui_grid g;
	int width[UI_GRID_MAX_COLS], t = 0, shown = 0;
	size_t k;

	(void)state;
	memset(&o, 0, sizeof(o));
	strlcpy_(o.id, "sim:o-000123", sizeof(o.id));
	strlcpy_(o.provider, "sim", sizeof(o.provider));
	strlcpy_(o.region, "eu-central", sizeof(o.region));
	strlcpy_(o.location, "Frankfurt am Main, Germany", sizeof(o.location));
	o.gpu = catalogue_by_id("A100-PCIE-40GB");
	assert_non_null(o.gpu);
	o.gpu_count = 8;
	o.price_hour = 12345678;
	o.reliability_bp = 9876;
	o.vram_gb = 320;
	o.valid = OV_PRICE | OV_RELIABILITY | OV_VRAM;
	ui_grid_init(&g, offer_columns, show, ARRAY_LEN(show), offer_cell, NULL);
	ui_grid_rebuild(&g, &o, 1, sizeof(o), NULL, NULL);
	/* An 80-column screen (78 inside the margins): GPU whole, PROVIDER gone first. */
	ui_grid_fit(&g, 78, 2, width);
	assert_int_equal(width[2], (int)strlen("A100-PCIE-40GB"));
	assert_int_equal(width[1], 0);
	assert_true(width[0] > 0 && width[5] > 0);
	for (k = 0; k < g.nshow; k++)
		if (width[k] > 0) {
			t += width[k];
			shown++;
		}
	assert_true(t + 2 * (shown - 1) <= 78);
	ui_grid_release(&g);
}

static void
test_scroll(void **state)
{
	(void)state;
	assert_int_equal(ui_scroll(0, 0, 100, 10), 0);
	assert_int_equal(ui_scroll(0, 9, 100, 10), 0);
	assert_int_equal(ui_scroll(0, 10, 100, 10), 1);
	assert_int_equal(ui_scroll(50, 40, 100, 10), 40);
	assert_int_equal(ui_scroll(95, 99, 100, 10), 90);
	assert_int_equal(ui_scroll(5, 3, 8, 10), 0);	/* everything fits */
	assert_int_equal(ui_scroll(90, 99, 100, 0), 0);
	/* After the list shrank under the window, the window moves up. */
	assert_int_equal(ui_scroll(40, 45, 50, 20), 30);
}

static void
test_text_fit(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(ui_text_fit(buf, sizeof(buf), "abc", 6, false), "abc   ");
	assert_string_equal(ui_text_fit(buf, sizeof(buf), "abc", 6, true), "   abc");
	assert_string_equal(ui_text_fit(buf, sizeof(buf), "abcdef", 6, false), "abcdef");
	/* Cut with an ellipsis, exactly w columns wide. */
	ui_text_fit(buf, sizeof(buf), "abcdefgh", 6, false);
	assert_string_equal(buf, "abcde\xe2\x80\xa6");
	assert_int_equal(text_width(buf), 6);
	/* Wide characters: never split, the gap padded. */
	ui_text_fit(buf, sizeof(buf), "\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd", 6, false);
	assert_string_equal(buf, "\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd");
	ui_text_fit(buf, sizeof(buf), "\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd", 5, false);
	assert_int_equal(text_width(buf), 5);
	assert_string_equal(buf, "\xe6\x9d\xb1\xe4\xba\xac\xe2\x80\xa6");
	ui_text_fit(buf, sizeof(buf), "\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd", 4, false);
	assert_int_equal(text_width(buf), 4);
	assert_string_equal(buf, "\xe6\x9d\xb1\xe2\x80\xa6 ");
	ui_text_fit(buf, sizeof(buf), "Montr\xc3\xa9" "al", 9, false);
	assert_string_equal(buf, "Montr\xc3\xa9" "al ");
	assert_string_equal(ui_text_fit(buf, sizeof(buf), "abc", 0, false), "");
	/* A small buffer is never overrun. */
	ui_text_fit(buf, 4, "abcdefgh", 20, false);
	assert_true(strlen(buf) < 4);
}

static void
test_head_line(void **state)
{
	const struct ui_head heads[] = {
		{ "JOB", 5, false }, { "COST", 6, true }, { "\xe6\x9d\xb1\xe4\xba\xac", 5, false },
		{ "NOTE", 0, false },
	};
	char line[64];

	(void)state;
	/* Each fitted by display width, the last as it is. */
	assert_string_equal(ui_head_line(line, sizeof(line), heads, ARRAY_LEN(heads)),
	    "JOB     COST \xe6\x9d\xb1\xe4\xba\xac  NOTE");
	/* Cut at the buffer's end, never overrun. */
	ui_head_line(line, 8, heads, ARRAY_LEN(heads));
	assert_string_equal(line, "JOB    ");
}

static void
test_wrap(void **state)
{
	size_t start[16], len[16], n;
	const char *t = "Destroy sim:i-000001?\nIts disk is deleted; this cannot be undone.";

	(void)state;
	n = ui_wrap(t, 20, start, len, 16);
	assert_int_equal(n, 5);		/* the 21-column id line breaks at its space */
	assert_int_equal(len[0], strlen("Destroy"));
	assert_memory_equal(t + start[2], "Its disk is deleted;", len[2]);
	n = ui_wrap(t, 30, start, len, 16);
	assert_int_equal(n, 3);
	assert_memory_equal(t + start[0], "Destroy sim:i-000001?", len[0]);
	assert_memory_equal(t + start[1], "Its disk is deleted; this", len[1]);
	assert_memory_equal(t + start[2], "cannot be undone.", len[2]);
	/* A word longer than the line is cut, and a too-narrow line still moves on. */
	n = ui_wrap("abcdefghij", 4, start, len, 16);
	assert_int_equal(n, 3);
	assert_int_equal(len[0], 4);
	n = ui_wrap("\xe6\x9d\xb1\xe4\xba\xac", 1, start, len, 16);
	assert_int_equal(n, 2);
	assert_int_equal(ui_wrap("", 10, start, len, 16), 1);
	assert_int_equal(ui_wrap("a\nb\nc\nd", 10, start, len, 2), 2);
}

static void
test_level_ring(void **state)
{
	struct ui_ring r;
	size_t i;

	(void)state;
	assert_int_equal(ui_level(0, 100, 8), 0);
	assert_int_equal(ui_level(100, 100, 8), 7);
	assert_int_equal(ui_level(150, 100, 8), 7);
	assert_int_equal(ui_level(-5, 100, 8), 0);
	assert_int_equal(ui_level(50, 100, 8), 4);
	assert_int_equal(ui_level(50, 0, 8), 0);
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 10; i++)
		ui_ring_push(&r, (int)i);
	assert_int_equal(r.n, 10);
	assert_int_equal(ui_ring_get(&r, 0), 0);
	assert_int_equal(ui_ring_get(&r, 9), 9);
	for (i = 10; i < UI_RING_MAX + 5; i++)
		ui_ring_push(&r, (int)i);
	assert_int_equal(r.n, UI_RING_MAX);
	assert_int_equal(ui_ring_get(&r, 0), 5);	/* the oldest five fell off */
	assert_int_equal(ui_ring_get(&r, UI_RING_MAX - 1), UI_RING_MAX + 4);
}

static void
test_names(void **state)
{
	static const char *const v[] = { "offers", "instances", "metrics", "costs" };

	(void)state;
	assert_int_equal(ui_name_lookup(v, 4, "offers"), 0);
	assert_int_equal(ui_name_lookup(v, 4, "inst"), 1);
	assert_int_equal(ui_name_lookup(v, 4, "m"), 2);
	assert_int_equal(ui_name_lookup(v, 4, "c"), 3);
	assert_int_equal(ui_name_lookup(v, 4, "x"), -1);
	assert_int_equal(ui_name_lookup(v, 4, ""), -1);
	{
		static const char *const amb[] = { "costs", "cost-lines" };

		assert_int_equal(ui_name_lookup(amb, 2, "cost"), -2);
		assert_int_equal(ui_name_lookup(amb, 2, "costs"), 0);
	}
}

static int
cmp_tens(size_t a, size_t b, void *ctx)
{
	const int *v = ctx;

	return v[a] / 10 - v[b] / 10;
}

static void
test_stable_sort(void **state)
{
	int v[] = { 31, 12, 35, 10, 33, 11, 20 };
	size_t idx[7], i;

	(void)state;
	for (i = 0; i < 7; i++)
		idx[i] = i;
	ui_sort_index(idx, 7, cmp_tens, v);
	/* By tens, keeping the original order among equals. */
	assert_int_equal(v[idx[0]], 12);
	assert_int_equal(v[idx[1]], 10);
	assert_int_equal(v[idx[2]], 11);
	assert_int_equal(v[idx[3]], 20);
	assert_int_equal(v[idx[4]], 31);
	assert_int_equal(v[idx[5]], 35);
	assert_int_equal(v[idx[6]], 33);
}

static void
make_offer(struct offer *o, const char *id, int64_t price, const char *loc)
{
	memset(o, 0, sizeof(*o));
	strlcpy_(o->id, id, sizeof(o->id));
	strlcpy_(o->provider, "sim", sizeof(o->provider));
	strlcpy_(o->location, loc, sizeof(o->location));
	o->gpu_count = 1;
	o->price_hour = price;
	o->valid = OV_PRICE;
}

static bool
under_one_dollar(const void *row, void *ctx)
{
	(void)ctx;
	return ((const struct offer *)row)->price_hour < 1000000;
}

static void
test_grid(void **state)
{
	static const size_t show[] = { OCOL_ID, OCOL_PRICE, OCOL_LOCATION };
	struct offer o[4];
	struct ui_grid g;

	(void)state;
	make_offer(&o[0], "sim:o-1", 900000, "Paris, FR");
	make_offer(&o[1], "sim:o-2", 300000, "\x1b[31mevil\x1b[0m");
	make_offer(&o[2], "sim:o-3", 2000000, "Oslo, NO");
	make_offer(&o[3], "sim:o-4", 500000, "\xe6\x9d\xb1\xe4\xba\xac");
	ui_grid_init(&g, offer_columns, show, 3, offer_cell, NULL);
	ui_grid_rebuild(&g, o, 4, sizeof(*o), NULL, NULL);
	assert_int_equal(g.n_order, 4);
	assert_string_equal(ui_grid_text(&g, 0, 0), "sim:o-1");	/* as fetched */
	/* Provider text never carries escape sequences to the screen. */
	assert_null(strchr(ui_grid_text(&g, 1, 2), '\x1b'));
	assert_string_equal(ui_grid_text(&g, 1, 2), "[31mevil[0m");
	assert_int_equal(g.want[2], (int)strlen("[31mevil[0m"));
	/* Sort by price, then keep the selection on its record across a rebuild. */
	g.sort = 1;
	ui_grid_rebuild(&g, o, 4, sizeof(*o), NULL, NULL);
	assert_string_equal(ui_grid_text(&g, 0, 0), "sim:o-2");
	assert_string_equal(ui_grid_text(&g, 0, 1), "$0.300");
	assert_int_equal(g.sel, 2);		/* still on sim:o-1, now third */
	assert_string_equal(g.sel_id, "sim:o-1");
	assert_true(ui_grid_move(&g, -1));
	assert_string_equal(g.sel_id, "sim:o-4");
	g.desc = true;
	ui_grid_rebuild(&g, o, 4, sizeof(*o), NULL, NULL);
	assert_string_equal(ui_grid_text(&g, 0, 0), "sim:o-3");
	assert_string_equal(((const struct offer *)ui_grid_selected(&g))->id, "sim:o-4");
	/* A filter narrows the rows; the selection follows or clamps. */
	ui_grid_rebuild(&g, o, 4, sizeof(*o), under_one_dollar, NULL);
	assert_int_equal(g.n_order, 3);
	assert_string_equal(((const struct offer *)ui_grid_selected(&g))->id, "sim:o-4");
	/* A long move clamps to the first row, which counts as a move; at the top nothing moves. */
	assert_true(ui_grid_move(&g, -10));
	assert_int_equal(g.sel, 0);
	assert_string_equal(g.sel_id, "sim:o-1");
	assert_false(ui_grid_move(&g, -1));
	assert_true(ui_grid_move(&g, 10));
	assert_int_equal(g.sel, 2);
	assert_string_equal(g.sel_id, "sim:o-2");
	assert_false(ui_grid_move(&g, 1));
	assert_true(ui_grid_move(&g, -10));
	assert_int_equal(g.sel, 0);
	ui_grid_rebuild(&g, o, 0, sizeof(*o), NULL, NULL);
	assert_null(ui_grid_selected(&g));
	assert_false(ui_grid_move(&g, 1));
	ui_grid_release(&g);
}

/*
 * The offers grid sorts prices of two currencies as `gpurent offers` does: in US dollars at
 * the configured rate, and without one never by their numbers but dollars first, then
 * yuan, in either direction. And its filter meets yuan prices only at the rate.
 */
static bool
keep_under_one_dollar_fx(const void *row, void *ctx)
{
	struct filter f;
	char *term[] = { "price<1", NULL };
	struct gr_error err = { 0 };

	memset(&f, 0, sizeof(f));
	assert_int_equal(filter_parse(&f, 1, term, &err), GR_OK);
	return filter_match_fx(&f, row, ctx);
}

static void
test_grid_currencies(void **state)
{
	static const size_t show[] = { OCOL_ID, OCOL_PRICE };
	struct offer o[4];
	struct ui_grid g;
	struct fx_rates fx;

	(void)state;
	make_offer(&o[0], "sim:o-1", 1500000, "Paris, FR");		/* $1.50 */
	make_offer(&o[1], "ppio:a", 8000000, "Beijing, CN");		/* ¥8: $1.12 */
	make_offer(&o[2], "sim:o-2", 1000000, "Oslo, NO");		/* $1.00 */
	make_offer(&o[3], "ppio:b", 12000000, "Shanghai, CN");	/* ¥12: $1.68 */
	strlcpy_(o[1].currency, "CNY", sizeof(o[1].currency));
	strlcpy_(o[3].currency, "CNY", sizeof(o[3].currency));
	ui_grid_init(&g, offer_columns, show, 2, offer_cell, NULL);
	g.sort = 1;
	/* No rate: dollars first, then yuan, each by price; reversed within each only. */
	ui_grid_rebuild(&g, o, 4, sizeof(*o), NULL, NULL);
	assert_string_equal(ui_grid_text(&g, 0, 0), "sim:o-2");
	assert_string_equal(ui_grid_text(&g, 1, 0), "sim:o-1");
	assert_string_equal(ui_grid_text(&g, 2, 0), "ppio:a");
	assert_string_equal(ui_grid_text(&g, 3, 0), "ppio:b");
	assert_string_equal(ui_grid_text(&g, 3, 1), "\xc2\xa5" "12.000");
	g.desc = true;
	ui_grid_rebuild(&g, o, 4, sizeof(*o), NULL, NULL);
	assert_string_equal(ui_grid_text(&g, 0, 0), "sim:o-1");
	assert_string_equal(ui_grid_text(&g, 2, 0), "ppio:b");
	/* fx.CNY = 0.14: one order, in dollars. */
	memset(&fx, 0, sizeof(fx));
	assert_true(fx_set(&fx, "CNY", 140000));
	g.fx = fx;
	g.desc = false;
	ui_grid_rebuild(&g, o, 4, sizeof(*o), NULL, NULL);
	assert_string_equal(ui_grid_text(&g, 0, 0), "sim:o-2");
	assert_string_equal(ui_grid_text(&g, 1, 0), "ppio:a");
	assert_string_equal(ui_grid_text(&g, 2, 0), "sim:o-1");
	assert_string_equal(ui_grid_text(&g, 3, 0), "ppio:b");
	/* price<1 in dollars: ¥8 ($1.12) is out at the rate, and without one. */
	ui_grid_rebuild(&g, o, 4, sizeof(*o), keep_under_one_dollar_fx, &fx);
	assert_int_equal(g.n_order, 0);
	assert_true(fx_set(&fx, "CNY", 120000));	/* ¥8 = $0.96 */
	ui_grid_rebuild(&g, o, 4, sizeof(*o), keep_under_one_dollar_fx, &fx);
	assert_int_equal(g.n_order, 1);
	assert_string_equal(ui_grid_text(&g, 0, 0), "ppio:a");
	ui_grid_rebuild(&g, o, 4, sizeof(*o), keep_under_one_dollar_fx, NULL);
	assert_int_equal(g.n_order, 0);
	ui_grid_release(&g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_dialog),
		cmocka_unit_test(test_fit_columns),
		cmocka_unit_test(test_scroll),
		cmocka_unit_test(test_text_fit),
		cmocka_unit_test(test_head_line),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_level_ring),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_stable_sort),
		cmocka_unit_test(test_grid),
		cmocka_unit_test(test_grid_currencies),
	};

	/* Widths and the ellipsis assume UTF-8, as on any modern terminal. */
	if (setlocale(LC_ALL, "C.UTF-8") == NULL)
		setlocale(LC_ALL, "en_US.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
