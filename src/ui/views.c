/*
 * The four views: what each draws in the body, and the keys it answers.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/columns.h"
#include "gpurent/money.h"
#include "gpurent/util.h"
#include "ui.h"

static const size_t offer_show[] = {
	OCOL_ID, OCOL_PROVIDER, OCOL_GPU, OCOL_GPUS, OCOL_VRAM, OCOL_PRICE, OCOL_GPU_PRICE,
	OCOL_TFLOP_PRICE, OCOL_TYPE, OCOL_REGION, OCOL_LOCATION, OCOL_RELIABILITY,
	OCOL_INTERCONNECT,
};
static const size_t inst_show[] = {
	ICOL_ID, ICOL_PROVIDER, ICOL_LABEL, ICOL_STATE, ICOL_GPU, ICOL_GPUS, ICOL_PRICE, ICOL_COST,
	ICOL_UTIL, ICOL_UPTIME, ICOL_REGION,
};

void
ui_views_init(struct ui *u)
{
	ui_grid_init(&u->og, offer_columns, offer_show, ARRAY_LEN(offer_show), offer_cell, NULL);
	u->og.sort = 5;		/* $/H, cheapest first, as `gpurent offers` */
	ui_grid_init(&u->ig, instance_columns, inst_show, ARRAY_LEN(inst_show), instance_cell,
	    &u->now);
}

void
ui_views_release(struct ui *u)
{
	ui_grid_release(&u->og);
	ui_grid_release(&u->ig);
}

static bool
keep_offer(const void *row, void *ctx)
{
	return filter_match(ctx, row);
}

void
ui_offers_rebuild(struct ui *u)
{
	ui_grid_rebuild(&u->og, u->offers.v, u->offers.n, sizeof(*u->offers.v), keep_offer,
	    &u->filter);
	u->dirty = true;
}

static struct ui_idle *
idle_find(struct ui *u, const char *id)
{
	size_t i;

	for (i = 0; i < u->n_idle; i++)
		if (strcmp(u->idle[i].id, id) == 0)
			return &u->idle[i];
	return NULL;
}

/* Whether an instance has run under 5% GPU for dashboard.idle_minutes. */
static bool
is_idle(struct ui *u, const struct instance *in)
{
	struct ui_idle *e = idle_find(u, in->id);

	return e != NULL && u->now - e->since >= (int64_t)u->idle_minutes * 60;
}

void
ui_instances_rebuild(struct ui *u)
{
	struct ui_idle *e;
	size_t i, k;

	/* Follow each running instance's utilisation to know how long it has been idle. */
	for (i = 0; i < u->insts.n; i++) {
		const struct instance *in = &u->insts.v[i];
		bool low = in->state == ST_RUNNING && (in->valid & IV_UTIL) && in->util_pct < 5;

		e = idle_find(u, in->id);
		if (low && e == NULL) {
			u->idle = xreallocarray(u->idle, u->n_idle + 1, sizeof(*u->idle));
			e = &u->idle[u->n_idle++];
			strlcpy_(e->id, in->id, sizeof(e->id));
			e->since = u->now;
		} else if (!low && e != NULL)
			*e = u->idle[--u->n_idle];
	}
	/* Forget instances that are gone. */
	for (k = 0; k < u->n_idle;) {
		for (i = 0; i < u->insts.n; i++)
			if (strcmp(u->insts.v[i].id, u->idle[k].id) == 0)
				break;
		if (i == u->insts.n)
			u->idle[k] = u->idle[--u->n_idle];
		else
			k++;
	}
	ui_grid_rebuild(&u->ig, u->insts.v, u->insts.n, sizeof(*u->insts.v), NULL, NULL);
	u->dirty = true;
}

/* Draw a grid in r: a header row, then rows from the scroll position. */
static void
draw_grid(struct ui *u, struct ui_grid *g, const struct ui_rect *r, const char *empty,
    bool (*marked)(struct ui *, const void *))
{
	int width[UI_GRID_MAX_COLS], x, attr;
	char head[64];
	size_t k, i, h = r->h > 1 ? (size_t)(r->h - 1) : 0;
	const char *up = u->utf8 ? "\xe2\x96\xb2" : "^", *down = u->utf8 ? "\xe2\x96\xbc" : "v";

	ui_grid_fit(g, r->w - 2, 2, width);
	ui_put(r->y, 0, r->w, "", ui_attr(UC_COLHEAD), false);
	for (k = 0, x = 2; k < g->nshow; k++) {
		if (width[k] == 0)
			continue;
		snprintf(head, sizeof(head), "%s%s", g->cols[g->show[k]].header,
		    g->sort == (int)k ? (g->desc ? down : up) : "");
		ui_put(r->y, x, width[k], head, ui_attr(UC_COLHEAD), g->cols[g->show[k]].right);
		x += width[k] + 2;
	}
	if (g->n_order == 0) {
		ui_put(r->y + 2, 2, r->w - 4, empty, ui_attr(UC_DIM), false);
		return;
	}
	g->top = ui_scroll(g->top, g->sel, g->n_order, h);
	for (i = g->top; i < g->n_order && i < g->top + h; i++) {
		int y = r->y + 1 + (int)(i - g->top);
		bool sel = i == g->sel;
		bool mark = marked != NULL && marked(u, g->rows + g->order[i] * g->size);
		int row_attr = sel ? ui_attr(UC_SELECT) : mark ? ui_attr(UC_IDLE) : (int)A_NORMAL;

		ui_put(y, 0, r->w, mark ? " *" : "", row_attr, false);
		for (k = 0, x = 2; k < g->nshow; k++) {
			if (width[k] == 0)
				continue;
			attr = sel || mark ? row_attr :
			    ui_attr(ui_color_of(ui_grid_color(g, i, k)));
			ui_put(y, x, width[k], ui_grid_text(g, i, k), attr,
			    g->cols[g->show[k]].right);
			x += width[k] + 2;
		}
	}
}

static bool
marked_idle(struct ui *u, const void *row)
{
	return is_idle(u, row);
}

/* Details of one record: every column, hidden ones included, as "HEADER  value". */
static void
show_details(struct ui *u, const char *title, const struct column *cols, size_t n,
    cell_fn get, const void *row, void *ctx)
{
	char val[256];
	struct cell c;
	struct sb sb;
	size_t i;

	sb_init(&sb);
	for (i = 0; i < n; i++) {
		memset(&c, 0, sizeof(c));
		get(row, i, &c, ctx);
		sb_addf(&sb, "%-14s %s\n", cols[i].header, cell_text(&c, val, sizeof(val), true));
	}
	if (sb.len > 0)
		sb.buf[--sb.len] = '\0';
	ui_pager(u, title, sb.buf);
	sb_release(&sb);
}

/* Keys shared by the two tables; true when used. */
static bool
grid_key(struct ui *u, struct ui_grid *g, int key)
{
	long page = u->lay.body.h > 2 ? u->lay.body.h - 2 : 1;

	switch (key) {
	case 'j': case UI_FKEY(KEY_DOWN): return ui_grid_move(g, 1) || true;
	case 'k': case UI_FKEY(KEY_UP): return ui_grid_move(g, -1) || true;
	case 6: case ' ': case UI_FKEY(KEY_NPAGE): return ui_grid_move(g, page) || true;
	case 2: case UI_FKEY(KEY_PPAGE): return ui_grid_move(g, -page) || true;
	case 'g': case UI_FKEY(KEY_HOME): return ui_grid_move(g, -(long)g->n_order) || true;
	case 'G': case UI_FKEY(KEY_END): return ui_grid_move(g, (long)g->n_order) || true;
	case '<': case '>':
		if (g->sort < 0)
			g->sort = 0;
		else
			g->sort = (g->sort + (key == '>' ? 1 : (int)g->nshow - 1)) % (int)g->nshow;
		g->desc = false;
		break;
	case 'i':
		if (g->sort < 0)
			g->sort = 0;
		g->desc = !g->desc;
		break;
	default:
		return false;
	}
	if (g == &u->og)
		ui_offers_rebuild(u);
	else
		ui_instances_rebuild(u);
	ui_message(u, UC_DIM, "sorted by %s, %s", g->cols[g->show[g->sort]].header,
	    g->desc ? "descending" : "ascending");
	return true;
}

static bool
refuse_readonly(struct ui *u)
{
	if (u->opts.readonly)
		ui_message(u, UC_WARN, "read-only: --readonly turns off launch, stop, start and "
		    "destroy");
	return u->opts.readonly;
}

static void
ask_launch(struct ui *u, const struct offer *o)
{
	struct ui_request req;
	char text[1024], h[32], d[32], m[32], loc[64], month[64] = "";
	int64_t price = o->price_hour;

	if (!(o->valid & OV_PRICE)) {
		ui_message(u, UC_BAD, "%s has no known price; launch it with 'gpurent launch'",
		    o->id);
		return;
	}
	if (u->budget_month >= 0 && u->have_costs) {
		char p[32], b[32];

		snprintf(month, sizeof(month), "\nThis month would then project to %s of the %s "
		    "budget.", money_format(p, sizeof(p), u->total.projected_month +
		    money_scale(price, month_end(u->total.now) - u->total.now, 3600), 2, true),
		    money_format(b, sizeof(b), u->budget_month, 2, true));
	}
	snprintf(text, sizeof(text), "Rent %s: %d x %s, %s, %s.\nIt costs %s per hour, %s per "
	    "day (%s per 730-hour month), billed per second while it runs.%s%s", o->id,
	    o->gpu_count, o->gpu ? o->gpu->name : "unknown GPU", offer_type_name(o->type),
	    text_sanitize(loc, sizeof(loc), o->location),
	    money_format(h, sizeof(h), price, 3, true),
	    money_format(d, sizeof(d), price * 24, 2, true),
	    money_format(m, sizeof(m), price * 730, 2, true),
	    o->type == OFFER_INTERRUPTIBLE ? "\nInterruptible: it stops when outbid." : "", month);
	memset(&req, 0, sizeof(req));
	req.action = UA_LAUNCH;
	strlcpy_(req.id, o->id, sizeof(req.id));
	req.interruptible = o->type == OFFER_INTERRUPTIBLE;
	req.price_hour = price;
	ui_confirm(u, "Launch?", text, &req, ui_provider_of(u, o->id));
}

static bool
offers_key(struct ui *u, int key)
{
	const struct offer *o = ui_grid_selected(&u->og);

	if (grid_key(u, &u->og, key))
		return true;
	if (o == NULL)
		return false;
	if (key == '\r' || key == '\n' || key == UI_FKEY(KEY_ENTER)) {
		show_details(u, o->id, offer_columns, OCOL__COUNT, offer_cell, o, NULL);
		return true;
	}
	if (key == 'L' && !refuse_readonly(u)) {
		ask_launch(u, o);
		return true;
	}
	return key == 'L';
}

static void
ask_destroy(struct ui *u, const struct instance *in)
{
	struct ui_request req;
	char text[1024], h[32], d[32];
	int64_t saves = in->state == ST_RUNNING ? in->price_hour :
	    in->state == ST_STOPPED && (in->valid & IV_STORAGE) ? in->storage_hour : 0;

	snprintf(text, sizeof(text), "Destroy %s (%s, %s, %d x %s)?\nIts disk and everything on "
	    "it are deleted; this cannot be undone.\nIt saves %s per hour (%s per day).", in->id,
	    in->label[0] ? in->label : "no label", inst_state_name(in->state), in->gpu_count,
	    in->gpu ? in->gpu->id : "unknown GPU", money_format(h, sizeof(h), saves, 3, true),
	    money_format(d, sizeof(d), saves * 24, 2, true));
	memset(&req, 0, sizeof(req));
	req.action = UA_DESTROY;
	strlcpy_(req.id, in->id, sizeof(req.id));
	ui_confirm(u, "Destroy?", text, &req, ui_provider_of(u, in->id));
}

static void
lifecycle(struct ui *u, const struct instance *in, enum ui_action a)
{
	struct ui_request req;
	char buf[32];

	if ((a == UA_STOP && in->state != ST_RUNNING) ||
	    (a == UA_START && in->state != ST_STOPPED)) {
		ui_message(u, UC_WARN, "%s is %s; only a %s instance can be %s", in->id,
		    inst_state_name(in->state), a == UA_STOP ? "running" : "stopped",
		    a == UA_STOP ? "stopped" : "started");
		return;
	}
	memset(&req, 0, sizeof(req));
	req.action = a;
	strlcpy_(req.id, in->id, sizeof(req.id));
	ui_fetch_request(u->fetch, UJ_ACTION, ui_provider_of(u, in->id), &req);
	if (a == UA_STOP && (in->valid & IV_STORAGE))
		ui_message(u, UC_ACCENT, "stopping %s; its disk still bills %s/hour", in->id,
		    money_format(buf, sizeof(buf), in->storage_hour, 4, true));
	else
		ui_message(u, UC_ACCENT, "%s %s ...", a == UA_STOP ? "stopping" : "starting",
		    in->id);
}

static bool
instances_key(struct ui *u, int key)
{
	const struct instance *in = ui_grid_selected(&u->ig);

	if (grid_key(u, &u->ig, key))
		return true;
	if (in == NULL)
		return false;
	switch (key) {
	case '\r': case '\n': case UI_FKEY(KEY_ENTER):
		show_details(u, in->id, instance_columns, ICOL__COUNT, instance_cell, in, &u->now);
		return true;
	case 'm':
		ui_metrics_watch(u, in->id);
		u->view = UV_METRICS;
		u->need_clear = true;
		return true;
	case 's': case 'S': case 'D':
		if (refuse_readonly(u))
			return true;
		if (key == 'D')
			ask_destroy(u, in);
		else
			lifecycle(u, in, key == 's' ? UA_STOP : UA_START);
		return true;
	}
	return false;
}

void
ui_metrics_watch(struct ui *u, const char *id)
{
	if (strcmp(u->watch, id) == 0)
		return;
	strlcpy_(u->watch, id, sizeof(u->watch));
	memset(u->ring, 0, sizeof(u->ring));
	memset(u->last, 0, sizeof(u->last));
	u->n_gpus = 0;
	u->gpu_top = 0;
	ui_request(u, UJ_METRICS);
}

void
ui_metrics_add(struct ui *u, const struct sample_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct gpu_sample *g = &l->v[i];
		int k = g->index;

		if (k < 0 || k >= UI_MAX_GPUS)
			continue;
		ui_ring_push(&u->ring[k][UM_UTIL], g->valid & MV_UTIL ? g->util_pct : -1);
		ui_ring_push(&u->ring[k][UM_MEM], (g->valid & MV_MEM) && g->mem_total_mib > 0 ?
		    (int)((int64_t)g->mem_used_mib * 100 / g->mem_total_mib) : -1);
		ui_ring_push(&u->ring[k][UM_TEMP], g->valid & MV_TEMP ? g->temp_c : -1);
		ui_ring_push(&u->ring[k][UM_POWER], g->valid & MV_POWER ? g->power_w : -1);
		u->last[k] = *g;
		if (k + 1 > u->n_gpus)
			u->n_gpus = k + 1;
	}
	u->dirty = true;
}

/* The instance being watched, from the last instance list. */
static const struct instance *
watched(struct ui *u)
{
	size_t i;

	for (i = 0; i < u->insts.n; i++)
		if (strcmp(u->insts.v[i].id, u->watch) == 0)
			return &u->insts.v[i];
	return NULL;
}

/* One graph row: label, the last samples as bars, the value now. */
static void
draw_spark(struct ui *u, int y, int w, const char *label, const struct ui_ring *r, int max,
    const char *value, enum ui_color color)
{
	static const char *const bars[] = { "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
		"\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88" };
	static const char ascii[] = "_.-:=+*#";
	int gw = w - 10 - 24, i, start;
	char line[1024];
	size_t len = 0;

	ui_put(y, 2, 8, label, ui_attr(UC_DIM), false);
	if (gw < 4)
		gw = 4;
	start = (int)r->n - gw;
	for (i = 0; i < gw && len + 4 < sizeof(line); i++) {
		int v = start + i >= 0 ? ui_ring_get(r, (size_t)(start + i)) : -1;
		int lvl = ui_level(v, max, 8);

		if (v < 0)
			line[len++] = ' ';
		else if (u->utf8) {
			memcpy(line + len, bars[lvl], 3);
			len += 3;
		} else
			line[len++] = ascii[lvl];
	}
	line[len] = '\0';
	ui_put(y, 10, gw, line, ui_attr(color), false);
	ui_put(y, 10 + gw + 1, 23, value, ui_attr(UC_NORMAL), true);
}

static void
draw_metrics(struct ui *u, const struct ui_rect *r)
{
	const struct instance *in = watched(u);
	char line[512], v[64], price[32];
	int y = r->y, p, g;

	if (u->watch[0] == '\0') {
		ui_put(y + 1, 2, r->w - 4, "No instance chosen: select one in Instances (2) and "
		    "press m.", ui_attr(UC_DIM), false);
		return;
	}
	if (in != NULL)
		snprintf(line, sizeof(line), "%s  %d x %s  %s  %s/h  %s", in->id, in->gpu_count,
		    in->gpu ? in->gpu->id : "unknown", inst_state_name(in->state),
		    money_format(price, sizeof(price), in->price_hour, 3, true),
		    in->label[0] ? in->label : "");
	else
		snprintf(line, sizeof(line), "%s", u->watch);
	ui_put(y++, 0, r->w, line, ui_attr(UC_COLHEAD), false);
	p = ui_provider_of(u, u->watch);
	if (u->n_gpus == 0) {
		const char *why = p >= 0 && u->prov[p].err[UJ_METRICS][0] ? u->prov[p].err[UJ_METRICS] :
		    in != NULL && in->state != ST_RUNNING ? "metrics come from running instances" :
		    "waiting for the first sample";

		ui_put(y + 1, 2, r->w - 4, why, ui_attr(UC_DIM), false);
		return;
	}
	if (u->gpu_top >= (size_t)u->n_gpus)
		u->gpu_top = (size_t)u->n_gpus - 1;
	for (g = (int)u->gpu_top; g < u->n_gpus && y + 5 <= r->y + r->h; g++) {
		const struct gpu_sample *s = &u->last[g];
		enum ui_color tc = !(s->valid & MV_TEMP) ? UC_DIM : s->temp_c >= 85 ? UC_BAD :
		    s->temp_c >= 75 ? UC_WARN : UC_GOOD;

		snprintf(line, sizeof(line), "GPU %d", g);
		ui_put(y++, 1, r->w - 2, line, ui_attr(UC_ACCENT), false);
		snprintf(v, sizeof(v), s->valid & MV_UTIL ? "%d %%" : "N/A", s->util_pct);
		draw_spark(u, y++, r->w, "util", &u->ring[g][UM_UTIL], 100, v,
		    (s->valid & MV_UTIL) && s->util_pct < 5 ? UC_IDLE : UC_GOOD);
		if (s->valid & MV_MEM)
			snprintf(v, sizeof(v), "%d / %d MiB", s->mem_used_mib, s->mem_total_mib);
		else
			snprintf(v, sizeof(v), "N/A");
		draw_spark(u, y++, r->w, "memory", &u->ring[g][UM_MEM], 100, v, UC_ACCENT);
		snprintf(v, sizeof(v), s->valid & MV_TEMP ? "%d C" : "N/A", s->temp_c);
		draw_spark(u, y++, r->w, "temp", &u->ring[g][UM_TEMP], 100, v, tc);
		if ((s->valid & MV_POWER) && (s->valid & MV_POWER_LIMIT))
			snprintf(v, sizeof(v), "%d / %d W", s->power_w, s->power_limit_w);
		else if (s->valid & MV_POWER)
			snprintf(v, sizeof(v), "%d W", s->power_w);
		else
			snprintf(v, sizeof(v), "N/A");
		draw_spark(u, y++, r->w, "power", &u->ring[g][UM_POWER],
		    s->valid & MV_POWER_LIMIT ? s->power_limit_w : 700, v, UC_WARN);
	}
	if (g < u->n_gpus)
		ui_put(r->y + r->h - 1, 2, r->w - 4, "more GPUs below (j)", ui_attr(UC_DIM), false);
}

/* Watch the next or previous running instance in the instances table. */
static void
cycle_watch(struct ui *u, int dir)
{
	size_t i, n = u->ig.n_order, cur = n, k;

	for (i = 0; i < n; i++) {
		const struct instance *in = (const void *)(u->ig.rows + u->ig.order[i] * u->ig.size);

		if (strcmp(in->id, u->watch) == 0)
			cur = i;
	}
	for (k = 1; k <= n; k++) {
		size_t j = cur == n ? (dir > 0 ? k - 1 : n - k) : (cur + n + (size_t)dir * k) % n;
		const struct instance *in = (const void *)(u->ig.rows + u->ig.order[j] * u->ig.size);

		if (in->state == ST_RUNNING) {
			ui_metrics_watch(u, in->id);
			return;
		}
	}
	ui_message(u, UC_DIM, "no other running instance");
}

static bool
metrics_key(struct ui *u, int key)
{
	switch (key) {
	case 'j': case UI_FKEY(KEY_DOWN):
		if (u->gpu_top + 1 < (size_t)u->n_gpus)
			u->gpu_top++;
		return true;
	case 'k': case UI_FKEY(KEY_UP):
		if (u->gpu_top > 0)
			u->gpu_top--;
		return true;
	case 'n':
		cycle_watch(u, 1);
		return true;
	case 'p':
		cycle_watch(u, -1);
		return true;
	}
	return false;
}

static void
draw_cost_lines(int y, int x, int w, int h, const char *title, const struct cost_summary *s)
{
	char line[256], a[32], b[32];
	size_t i;

	snprintf(line, sizeof(line), "%-*s %12s %11s", w - 26 > 4 ? w - 26 : 4, title, "SPENT",
	    "$/H NOW");
	ui_put(y, x, w, line, ui_attr(UC_COLHEAD), false);
	if (s->n_lines == 0)
		ui_put(y + 1, x, w, "  nothing billed this month", ui_attr(UC_DIM), false);
	for (i = 0; i < s->n_lines && (int)i < h - 1; i++) {
		char key[64];

		ui_text_fit(key, sizeof(key), s->lines[i].key[0] ? s->lines[i].key : "(no label)",
		    w - 26 > 4 ? w - 26 : 4, false);
		snprintf(line, sizeof(line), "%s %12s %11s", key,
		    money_format(a, sizeof(a), s->lines[i].spent, 2, true),
		    money_format(b, sizeof(b), s->lines[i].burn_hour, 3, true));
		ui_put(y + 1 + (int)i, x, w, line, A_NORMAL, false);
	}
}

static void
draw_costs(struct ui *u, const struct ui_rect *r)
{
	const struct cost_summary *t = &u->total;
	char line[512], a[32], b[32], c[32];
	int y = r->y + 1, half;

	if (!u->have_costs) {
		ui_put(y, 2, r->w - 4, "reading the ledger ...", ui_attr(UC_DIM), false);
		return;
	}
	snprintf(line, sizeof(line), "Burn rate      %s per hour, %s per day at this rate",
	    money_format(a, sizeof(a), t->burn_hour, 3, true),
	    money_format(b, sizeof(b), t->burn_hour * 24, 2, true));
	ui_put(y++, 2, r->w - 4, line, ui_attr(UC_ACCENT), false);
	snprintf(line, sizeof(line), "Today          %s spent, %s projected by midnight (UTC)",
	    money_format(a, sizeof(a), t->spent_today, 2, true),
	    money_format(b, sizeof(b), t->projected_day, 2, true));
	ui_put(y++, 2, r->w - 4, line, A_NORMAL, false);
	snprintf(line, sizeof(line), "This month     %s spent, %s projected by the end of the "
	    "month", money_format(a, sizeof(a), t->spent_month, 2, true),
	    money_format(b, sizeof(b), t->projected_month, 2, true));
	ui_put(y++, 2, r->w - 4, line, A_NORMAL, false);
	if (u->budget_month > 0) {
		int gw = r->w - 4 - 15 - 34, fill, proj, i;
		long long pct = t->projected_month * 100 / u->budget_month;
		enum ui_color col = pct >= 100 ? UC_BAD : pct >= 80 ? UC_WARN : UC_GOOD;
		char bar[1024];
		size_t len = 0;

		if (gw < 10)
			gw = 10;
		fill = ui_level(t->spent_month, u->budget_month, gw + 1);
		proj = ui_level(t->projected_month, u->budget_month, gw + 1);
		for (i = 0; i < gw && len + 4 < sizeof(bar); i++) {
			const char *ch = i < fill ? (u->utf8 ? "\xe2\x96\x88" : "#") :
			    i < proj ? (u->utf8 ? "\xe2\x96\x92" : "+") : (u->utf8 ? "\xc2\xb7" : ".");

			memcpy(bar + len, ch, strlen(ch));
			len += strlen(ch);
		}
		bar[len] = '\0';
		ui_put(y, 2, 15, "Budget", A_NORMAL, false);
		ui_put(y, 17, gw, bar, ui_attr(col), false);
		snprintf(line, sizeof(line), "%lld%% of %s projected", pct,
		    money_format(c, sizeof(c), u->budget_month, 0, true));
		ui_put(y++, 18 + gw, r->w - 20 - gw, line, ui_attr(col), false);
	} else
		ui_put(y++, 2, r->w - 4, "Budget         none ('gpurent config set budget.month "
		    "500' sets one)", ui_attr(UC_DIM), false);
	y++;
	half = (r->w - 6) / 2;
	draw_cost_lines(y, 2, half, r->y + r->h - y, "BY PROVIDER", &u->by_provider);
	draw_cost_lines(y, 4 + half, half, r->y + r->h - y, "BY LABEL", &u->by_label);
}

void
ui_view_draw(struct ui *u)
{
	const struct ui_rect *r = &u->lay.body;
	size_t i;
	bool any = false;

	switch (u->view) {
	case UV_OFFERS:
		for (i = 0; i < u->n_prov; i++)
			any |= u->prov[i].have_offers;
		draw_grid(u, &u->og, r, !any ? "fetching offers ..." : u->filter.n ?
		    "no offer matches the filter (/ changes it)" : "no offers", NULL);
		break;
	case UV_INSTANCES:
		for (i = 0; i < u->n_prov; i++)
			any |= u->prov[i].have_insts;
		draw_grid(u, &u->ig, r, !any ? "fetching instances ..." :
		    "no instances: pick an offer in Offers (1) and press L", marked_idle);
		break;
	case UV_METRICS:
		draw_metrics(u, r);
		break;
	default:
		draw_costs(u, r);
		break;
	}
}

bool
ui_view_key(struct ui *u, int key)
{
	switch (u->view) {
	case UV_OFFERS: return offers_key(u, key);
	case UV_INSTANCES: return instances_key(u, key);
	case UV_METRICS: return metrics_key(u, key);
	default: return false;
	}
}

const char *
ui_view_keys(const struct ui *u)
{
	switch (u->view) {
	case UV_OFFERS:
		return "/ filter  < > sort  i reverse  Enter details  L launch";
	case UV_INSTANCES:
		return "Enter details  m metrics  s stop  S start  D destroy  < > sort  * idle";
	case UV_METRICS:
		return "j/k GPUs  n/p instance  r refresh";
	default:
		return "r refresh  1-4 views";
	}
}
