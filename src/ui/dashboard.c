/*
 * The dashboard loop: wait for a key, a result or the next due refresh; apply it; draw
 * once. Also the chrome around the views (header, tabs, status line, key hints), the
 * input line, dialogs, and getting the terminal back on every way out.
 */
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <langinfo.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "gpurent/cmd.h"
#include "gpurent/config.h"
#include "gpurent/dashboard.h"
#include "gpurent/money.h"
#include "gpurent/util.h"
#include "ui.h"

static const char *const view_names[UV__COUNT] = { "offers", "instances", "metrics", "costs" };
static const char *const view_titles[UV__COUNT] = { "Offers", "Instances", "Metrics", "Costs" };
static const char *const job_names[UJ__COUNT] = { "offers", "instances", "metrics", "action",
	"costs" };

/* What the fatal-signal handler needs to give the terminal back. */
static volatile sig_atomic_t curses_on;
static int saved_stderr = -1;

double
ui_clock(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void
ui_message(struct ui *u, int color, const char *fmt, ...)
{
	char raw[sizeof(u->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* Messages quote providers: strip anything that could steer the terminal. */
	text_sanitize(u->msg, sizeof(u->msg), raw);
	u->msg_color = color;
	u->msg_until = ui_clock() + 6;
	u->dirty = true;
}

void
ui_put(int y, int x, int w, const char *text, int attr, bool right)
{
	char buf[1024];

	if (w <= 0)
		return;
	ui_text_fit(buf, sizeof(buf), text, w, right);
	attrset(attr);
	mvaddstr(y, x, buf);
	attrset(A_NORMAL);
}

int
ui_provider_of(const struct ui *u, const char *id)
{
	char name[PROVIDER_MAX];
	size_t i;

	if (!backend_split_id(id, name, sizeof(name), NULL))
		return -1;
	for (i = 0; i < u->n_prov; i++)
		if (strcmp(u->prov[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Ask every provider's lane for a job now (metrics: the watched instance's provider). */
void
ui_request(struct ui *u, enum ui_job job)
{
	struct ui_request req;
	size_t i;
	int p;

	memset(&req, 0, sizeof(req));
	u->last_req[job] = ui_clock();
	switch (job) {
	case UJ_OFFERS:
		req.filter = u->filter;
		for (i = 0; i < u->n_prov; i++)
			ui_fetch_request(u->fetch, job, (int)i, &req);
		break;
	case UJ_INSTANCES:
		for (i = 0; i < u->n_prov; i++)
			ui_fetch_request(u->fetch, job, (int)i, &req);
		break;
	case UJ_METRICS:
		if (u->watch[0] == '\0' || (p = ui_provider_of(u, u->watch)) < 0)
			break;
		strlcpy_(req.id, u->watch, sizeof(req.id));
		ui_fetch_request(u->fetch, job, p, &req);
		break;
	case UJ_COSTS:
		ui_fetch_request(u->fetch, job, -1, &req);
		break;
	default:
		break;
	}
}

void
ui_confirm(struct ui *u, const char *title, const char *text, const struct ui_request *req,
    int provider)
{
	u->dialog = UD_CONFIRM;
	strlcpy_(u->dlg_title, title, sizeof(u->dlg_title));
	sb_reset(&u->dlg_text);
	sb_adds(&u->dlg_text, text);
	u->dlg_req = *req;
	u->dlg_provider = provider;
	u->dirty = true;
}

void
ui_pager(struct ui *u, const char *title, const char *text)
{
	u->dialog = UD_PAGER;
	strlcpy_(u->dlg_title, title, sizeof(u->dlg_title));
	sb_reset(&u->dlg_text);
	sb_adds(&u->dlg_text, text);
	u->dlg_top = 0;
	u->dirty = true;
}

static const char help_text[] =
    "Views\n"
    "  1 2 3 4, Tab, Shift-Tab   offers, instances, metrics, costs\n"
    "  :offers :instances :metrics :costs   the same by name (a prefix will do)\n"
    "  :quit, q                  quit; Ctrl-C and SIGTERM quit too\n"
    "\n"
    "Moving\n"
    "  Up/Down, k/j              previous/next row\n"
    "  PgUp/PgDn, Ctrl-B/Ctrl-F  a page up/down\n"
    "  Home/End, g/G             first/last row\n"
    "  r, F5                     refresh the view now; Ctrl-L redraws the screen\n"
    "\n"
    "Offers\n"
    "  /                         filter, in the language of 'gpurent offers':\n"
    "                            gpu=h100 gpus>=8 price<=25 region=eu type=on-demand\n"
    "                            Enter keeps it, Esc restores the previous one\n"
    "  < >                       sort by the column to the left/right\n"
    "  i                         reverse the sort order\n"
    "  Enter                     details of the offer\n"
    "  L                         launch the offer (asks first, with its price)\n"
    "\n"
    "Instances\n"
    "  Enter                     details of the instance\n"
    "  m                         metrics of the instance\n"
    "  s / S                     stop / start the instance\n"
    "  D                         destroy the instance (asks first)\n"
    "  < > i                     sort, as in offers\n"
    "  Rows of instances idle (under 5% GPU) for dashboard.idle_minutes are highlighted.\n"
    "\n"
    "Metrics\n"
    "  Up/Down, k/j              scroll through the GPUs\n"
    "  n / p                     next / previous running instance\n"
    "\n"
    "Dialogs\n"
    "  y                         yes; n, Esc or q: no\n"
    "\n"
    "--readonly turns off L, s, S and D.";

static void
set_view(struct ui *u, enum ui_view v)
{
	if (u->view == v)
		return;
	u->view = v;
	u->need_clear = true;
	u->dirty = true;
	/* Data for the new view may be stale: fetch it now if it is due. */
	if (v == UV_OFFERS && ui_clock() - u->last_req[UJ_OFFERS] > u->interval[UJ_OFFERS])
		ui_request(u, UJ_OFFERS);
	if (v == UV_METRICS && u->watch[0] == '\0') {
		const struct instance *in = ui_grid_selected(&u->ig);

		if (in != NULL)
			ui_metrics_watch(u, in->id);
	}
}

/* ":name" commands. */
static void
run_command(struct ui *u, const char *line)
{
	static const char *const extra[] = { "quit", "help", "q", "ls" };
	char word[64];
	int v;

	while (*line == ' ')
		line++;
	strlcpy_(word, line, sizeof(word));
	word[strcspn(word, " ")] = '\0';
	if (strcmp(word, "q") == 0 || ui_name_lookup(extra, 1, word) == 0) {
		u->quit = true;
		return;
	}
	if (ui_name_lookup(extra + 1, 1, word) == 0) {
		ui_pager(u, "Keys", help_text);
		return;
	}
	if (strcmp(word, "ls") == 0) {
		set_view(u, UV_INSTANCES);
		return;
	}
	v = ui_name_lookup(view_names, UV__COUNT, word);
	if (v >= 0) {
		set_view(u, (enum ui_view)v);
		return;
	}
	snprintf(u->input_err, sizeof(u->input_err), v == -2 ? "'%s' is ambiguous" :
	    "unknown command '%s' (offers, instances, metrics, costs, help, quit)", word);
}

/* Parse the filter as it is typed; the table follows every valid state. */
static void
live_filter(struct ui *u)
{
	struct gr_error err = { 0 };
	struct filter f;

	/* filter_parse_str adds to what f holds: start from nothing. */
	memset(&f, 0, sizeof(f));
	if (filter_parse_str(&f, u->input, &err) != GR_OK) {
		text_sanitize(u->input_err, sizeof(u->input_err), err.msg);
		return;
	}
	u->input_err[0] = '\0';
	u->filter = f;
	strlcpy_(u->filter_text, u->input, sizeof(u->filter_text));
	ui_offers_rebuild(u);
}

static void
input_key(struct ui *u, int key)
{
	size_t len = strlen(u->input);
	bool is_char = UI_IS_CHAR(key);

	u->dirty = true;
	if (key == UI_FKEY(KEY_BACKSPACE) || key == UI_FKEY(KEY_DC))
		key = 127;
	if (key == 27) {		/* Esc: back to what was there */
		if (u->input_kind == '/') {
			strlcpy_(u->input, u->saved_filter, sizeof(u->input));
			live_filter(u);
		}
		u->input_kind = 0;
		return;
	}
	if (key == '\n' || key == '\r' || key == UI_FKEY(KEY_ENTER)) {
		if (u->input_kind == '/') {
			live_filter(u);
			if (u->input_err[0] != '\0')
				return;		/* the error stays in place until fixed */
			u->input_kind = 0;
			ui_request(u, UJ_OFFERS);
			return;
		}
		u->input_err[0] = '\0';
		run_command(u, u->input);
		if (u->input_err[0] == '\0')
			u->input_kind = 0;
		return;
	}
	if (key == 127 || key == 8) {
		if (len == 0) {
			if (u->input_kind == ':')
				u->input_kind = 0;
			return;
		}
		/* Drop one whole UTF-8 character. */
		while (len > 0 && ((unsigned char)u->input[len - 1] & 0xc0) == 0x80)
			len--;
		if (len > 0)
			len--;
		u->input[len] = '\0';
	} else if (key == 21) {		/* Ctrl-U */
		u->input[0] = '\0';
	} else if (key == 23) {		/* Ctrl-W: the last word */
		while (len > 0 && u->input[len - 1] == ' ')
			len--;
		while (len > 0 && u->input[len - 1] != ' ')
			len--;
		u->input[len] = '\0';
	} else if (is_char && key >= ' ') {
		char mb[MB_LEN_MAX];
		mbstate_t st;
		size_t n;

		memset(&st, 0, sizeof(st));
		n = wcrtomb(mb, (wchar_t)key, &st);
		if (n == (size_t)-1 || len + n + 1 >= sizeof(u->input))
			return;
		memcpy(u->input + len, mb, n);
		u->input[len + n] = '\0';
	} else
		return;
	if (u->input_kind == '/')
		live_filter(u);
	else
		u->input_err[0] = '\0';
}

static void
dialog_key(struct ui *u, int key)
{
	size_t lines = 1, i;
	long page = u->lay.body.h - 2;

	u->dirty = true;
	if (u->dialog == UD_CONFIRM) {
		if (key == 'y' || key == 'Y') {
			ui_fetch_request(u->fetch, UJ_ACTION, u->dlg_provider, &u->dlg_req);
			ui_message(u, UC_ACCENT, "%s %s ...", u->dlg_req.action == UA_LAUNCH ?
			    "launching" : "destroying", u->dlg_req.id);
			u->dialog = UD_NONE;
		} else if (key == 'n' || key == 'N' || key == 'q' || key == 27) {
			ui_message(u, UC_DIM, "cancelled; nothing changed");
			u->dialog = UD_NONE;
		}
		u->need_clear = u->dialog == UD_NONE;
		return;
	}
	for (i = 0; i < u->dlg_text.len; i++)
		lines += u->dlg_text.buf[i] == '\n';
	switch (key) {
	case UI_FKEY(KEY_DOWN): case 'j': u->dlg_top++; break;
	case UI_FKEY(KEY_UP): case 'k': if (u->dlg_top > 0) u->dlg_top--; break;
	case UI_FKEY(KEY_NPAGE): case ' ': case 6: u->dlg_top += (size_t)page; break;
	case UI_FKEY(KEY_PPAGE): case 2: u->dlg_top = u->dlg_top > (size_t)page ? u->dlg_top - (size_t)page : 0; break;
	case UI_FKEY(KEY_HOME): case 'g': u->dlg_top = 0; break;
	case UI_FKEY(KEY_END): case 'G': u->dlg_top = lines; break;
	case 'q': case 27: case '\n': case '\r': case UI_FKEY(KEY_ENTER): case '?':
		u->dialog = UD_NONE;
		u->need_clear = true;
		break;
	}
	if (u->lay.body.h > 1 && u->dlg_top + (size_t)(u->lay.body.h - 1) > lines)
		u->dlg_top = lines > (size_t)(u->lay.body.h - 1) ? lines - (size_t)(u->lay.body.h - 1) : 0;
}

static void
handle_key(struct ui *u, int key)
{
	if (key == UI_FKEY(KEY_RESIZE)) {
		ui_layout_compute(COLS, LINES, &u->lay);
		u->need_clear = true;
		u->dirty = true;
		return;
	}
	if (key == 12) {		/* Ctrl-L */
		u->need_clear = true;
		u->dirty = true;
		return;
	}
	if (u->input_kind != 0) {
		input_key(u, key);
		return;
	}
	if (u->dialog != UD_NONE) {
		dialog_key(u, key);
		return;
	}
	if (u->lay.too_small) {
		if (key == 'q')
			u->quit = true;
		return;
	}
	u->dirty = true;
	if (key >= '1' && key < '1' + UV__COUNT) {
		set_view(u, (enum ui_view)(key - '1'));
		return;
	}
	switch (key) {
	case 'q':
		u->quit = true;
		return;
	case '?':
		ui_pager(u, "Keys", help_text);
		return;
	case '\t':
		set_view(u, (enum ui_view)((u->view + 1) % UV__COUNT));
		return;
	case ':':
		u->input_kind = ':';
		u->input[0] = u->input_err[0] = '\0';
		return;
	case 'r':
		ui_request(u, UJ_INSTANCES);
		ui_request(u, UJ_COSTS);
		if (u->view == UV_OFFERS)
			ui_request(u, UJ_OFFERS);
		if (u->view == UV_METRICS)
			ui_request(u, UJ_METRICS);
		ui_message(u, UC_DIM, "refreshing");
		return;
	}
	if (key == UI_FKEY(KEY_BTAB)) {
		set_view(u, (enum ui_view)((u->view + UV__COUNT - 1) % UV__COUNT));
		return;
	}
	if (key == UI_FKEY(KEY_F(5))) {
		handle_key(u, 'r');
		return;
	}
	if (key == '/' && u->view == UV_OFFERS) {
		u->input_kind = '/';
		strlcpy_(u->input, u->filter_text, sizeof(u->input));
		strlcpy_(u->saved_filter, u->filter_text, sizeof(u->saved_filter));
		u->input_err[0] = '\0';
		return;
	}
	if (!ui_view_key(u, key))
		u->dirty = false;
}

/* Seconds a lane of job has waited for any provider, the longest; -1 when none. */
static double
busy_for(struct ui *u, enum ui_job job, size_t *who)
{
	double b, worst = -1;
	size_t i;

	for (i = 0; i < u->n_prov; i++) {
		b = ui_fetch_busy(u->fetch, job, (int)i);
		if (b > worst) {
			worst = b;
			if (who != NULL)
				*who = i;
		}
	}
	return worst;
}

static void
draw_header(struct ui *u)
{
	const struct ui_rect *r = &u->lay.header;
	char left[256], right[96], a[32], b[32], c[32], d[32];
	size_t i, running = 0;
	struct tm tm;
	time_t t = (time_t)u->now;

	for (i = 0; i < u->insts.n; i++)
		running += u->insts.v[i].state == ST_RUNNING;
	if (u->have_costs)
		snprintf(left, sizeof(left), " burn %s/h | today %s | month %s, projected %s | "
		    "%zu running", money_format(a, sizeof(a), u->total.burn_hour, 3,
		    true), money_format(b, sizeof(b), u->total.spent_today, 2, true),
		    money_format(c, sizeof(c), u->total.spent_month, 2, true),
		    money_format(d, sizeof(d), u->total.projected_month, 2, true), running);
	else
		snprintf(left, sizeof(left), " burn ... | %zu running", running);
	right[0] = '\0';
	if (u->now > 0) {
		localtime_r(&t, &tm);
		strftime(right, sizeof(right), "%Y-%m-%d %H:%M ", &tm);
	}
	ui_put(r->y, r->x, r->w, left, ui_attr(UC_HEADER), false);
	if (text_width(left) + text_width(right) < r->w)
		ui_put(r->y, r->w - text_width(right), text_width(right), right,
		    ui_attr(UC_HEADER), false);
}

static void
draw_tabs(struct ui *u)
{
	const struct ui_rect *r = &u->lay.tabs;
	char buf[64], info[128];
	int x = 0, w;
	size_t i;
	static const enum ui_job view_job[UV__COUNT] = { UJ_OFFERS, UJ_INSTANCES, UJ_METRICS,
		UJ_COSTS };
	double busy;

	ui_put(r->y, 0, r->w, "", A_NORMAL, false);
	for (i = 0; i < UV__COUNT; i++) {
		snprintf(buf, sizeof(buf), " %zu %s ", i + 1, view_titles[i]);
		w = text_width(buf);
		ui_put(r->y, x, w, buf, ui_attr(i == (size_t)u->view ? UC_TAB_ACTIVE : UC_TAB),
		    false);
		x += w + 1;
	}
	info[0] = '\0';
	switch (u->view) {
	case UV_OFFERS:
		snprintf(info, sizeof(info), "%zu of %zu offers", u->og.n_order, u->offers.n);
		break;
	case UV_INSTANCES:
		snprintf(info, sizeof(info), "%zu instance%s", u->ig.n_order,
		    u->ig.n_order == 1 ? "" : "s");
		break;
	case UV_METRICS:
		snprintf(info, sizeof(info), "%s", u->watch[0] ? u->watch : "no instance");
		break;
	default:
		break;
	}
	busy = view_job[u->view] == UJ_COSTS ? ui_fetch_busy(u->fetch, UJ_COSTS, -1) :
	    busy_for(u, view_job[u->view], NULL);
	if (busy >= 0)
		strlcpy_(info + strlen(info), u->utf8 ? "  \xe2\x9f\xb3 " : "  * ",
		    sizeof(info) - strlen(info));
	else
		strlcpy_(info + strlen(info), " ", sizeof(info) - strlen(info));
	w = text_width(info);
	if (x + w < r->w)
		ui_put(r->y, r->w - w, w, info, ui_attr(UC_DIM), false);
}

/* Providers in trouble, for the status line: hanging lanes first, then failures. */
static void
provider_trouble(struct ui *u, char *buf, size_t n)
{
	struct sb sb;
	size_t i;
	int j;
	double b;

	sb_init(&sb);
	for (i = 0; i < u->n_prov; i++) {
		double worst = -1;

		for (j = 0; j < UJ_COSTS; j++) {
			b = ui_fetch_busy(u->fetch, (enum ui_job)j, (int)i);
			if (b > worst)
				worst = b;
		}
		if (worst >= 5) {
			sb_addf(&sb, "%s%s: no answer for %.0fs", sb.len ? " | " : "",
			    u->prov[i].name, worst);
			continue;
		}
		for (j = 0; j < UJ_ACTION; j++)
			if (u->prov[i].err[j][0] != '\0') {
				sb_addf(&sb, "%s%s: %s (%s)", sb.len ? " | " : "", u->prov[i].name,
				    u->prov[i].err[j], job_names[j]);
				break;
			}
	}
	strlcpy_(buf, sb.buf, n);
	sb_release(&sb);
}

static void
draw_status(struct ui *u)
{
	const struct ui_rect *r = &u->lay.status;
	char buf[768];

	if (u->input_kind != 0) {
		int w;

		snprintf(buf, sizeof(buf), "%c%s", u->input_kind, u->input);
		w = text_width(buf);
		if (u->input_err[0] != '\0' && w + 4 < r->w) {
			ui_put(r->y, 0, w + 2, buf, ui_attr(UC_ACCENT), false);
			ui_put(r->y, w + 2, r->w - w - 2, u->input_err, ui_attr(UC_BAD), false);
		} else
			ui_put(r->y, 0, r->w, buf, ui_attr(UC_ACCENT), false);
		move(r->y, w < r->w ? w : r->w - 1);
		return;
	}
	if (u->msg[0] != '\0' && ui_clock() < u->msg_until) {
		ui_put(r->y, 0, r->w, u->msg, ui_attr((enum ui_color)u->msg_color), false);
		return;
	}
	provider_trouble(u, buf, sizeof(buf));
	ui_put(r->y, 0, r->w, buf, ui_attr(UC_BAD), false);
}

static void
draw_keys(struct ui *u)
{
	const struct ui_rect *r = &u->lay.keys;
	char buf[512];

	if (u->dialog == UD_CONFIRM)
		snprintf(buf, sizeof(buf), " y yes   n/Esc no");
	else if (u->dialog == UD_PAGER)
		snprintf(buf, sizeof(buf), " j/k scroll   q/Esc close");
	else if (u->input_kind == '/')
		snprintf(buf, sizeof(buf), " Enter keep   Esc restore   Ctrl-U clear   fields: %s",
		    filter_fields_help());
	else if (u->input_kind == ':')
		snprintf(buf, sizeof(buf), " offers instances metrics costs help quit");
	else
		snprintf(buf, sizeof(buf), " %s  ? help  q quit%s", ui_view_keys(u),
		    u->opts.readonly ? "  [read-only]" : "");
	ui_put(r->y, 0, r->w, buf, ui_attr(UC_KEY), false);
}

static void
draw_frame_box(const struct ui_rect *b, const char *title)
{
	int i;

	attrset(ui_attr(UC_DIALOG));
	for (i = 0; i < b->h; i++)
		mvhline(b->y + i, b->x, ' ', b->w);
	mvhline(b->y, b->x, ACS_HLINE, b->w);
	mvhline(b->y + b->h - 1, b->x, ACS_HLINE, b->w);
	mvvline(b->y, b->x, ACS_VLINE, b->h);
	mvvline(b->y, b->x + b->w - 1, ACS_VLINE, b->h);
	mvaddch(b->y, b->x, ACS_ULCORNER);
	mvaddch(b->y, b->x + b->w - 1, ACS_URCORNER);
	mvaddch(b->y + b->h - 1, b->x, ACS_LLCORNER);
	mvaddch(b->y + b->h - 1, b->x + b->w - 1, ACS_LRCORNER);
	attrset(A_NORMAL);
	ui_put(b->y, b->x + 2, text_width(title) + 2 < b->w - 4 ? text_width(title) + 2 :
	    b->w - 4, title, ui_attr(UC_DIALOG) | A_BOLD, false);
}

static void
draw_dialog(struct ui *u)
{
	const struct ui_rect *body = &u->lay.body;
	size_t start[64], len[64], n, i;
	char line[512], title[128];
	struct ui_rect b;

	if (u->dialog == UD_CONFIRM) {
		int w = body->w - 10 < 72 ? body->w - 10 : 72;

		n = ui_wrap(u->dlg_text.buf, w - 4, start, len, 60);
		b = ui_layout_dialog(body, w, (int)n + 4);
		snprintf(title, sizeof(title), " %s ", u->dlg_title);
		draw_frame_box(&b, title);
		for (i = 0; i < n && (int)i < b.h - 3; i++) {
			snprintf(line, sizeof(line), "%.*s", (int)len[i], u->dlg_text.buf + start[i]);
			ui_put(b.y + 1 + (int)i, b.x + 2, b.w - 4, line, ui_attr(UC_DIALOG), false);
		}
		ui_put(b.y + b.h - 2, b.x + 2, b.w - 4, "[y] yes    [n] no", ui_attr(UC_DIALOG) |
		    A_BOLD, false);
		return;
	}
	/* The pager covers the body: a title row and the lines from dlg_top. */
	ui_put(body->y, 0, body->w, u->dlg_title, ui_attr(UC_COLHEAD), false);
	{
		const char *p = u->dlg_text.buf;
		size_t skip = u->dlg_top;
		int y = body->y + 1;

		while (skip > 0 && (p = strchr(p, '\n')) != NULL) {
			p++;
			skip--;
		}
		for (; y < body->y + body->h; y++) {
			size_t l = p ? strcspn(p, "\n") : 0;

			snprintf(line, sizeof(line), " %.*s", (int)l, p ? p : "");
			ui_put(y, 0, body->w, line, A_NORMAL, false);
			if (p != NULL)
				p = p[l] == '\n' ? p + l + 1 : NULL;
		}
	}
}

static void
draw(struct ui *u)
{
	if (u->need_clear) {
		clear();
		u->need_clear = false;
	} else
		erase();
	curs_set(0);
	if (u->lay.too_small) {
		char buf[160];

		snprintf(buf, sizeof(buf), "terminal too small: %dx%d; the dashboard needs at "
		    "least %dx%d (q quits)", u->lay.cols, u->lay.rows, UI_MIN_COLS, UI_MIN_ROWS);
		mvaddnstr(u->lay.rows / 2, 0, buf, u->lay.cols > 0 ? u->lay.cols : 0);
	} else {
		draw_header(u);
		draw_tabs(u);
		if (u->dialog == UD_PAGER)
			draw_dialog(u);
		else {
			ui_view_draw(u);
			if (u->dialog == UD_CONFIRM)
				draw_dialog(u);
		}
		draw_keys(u);
		draw_status(u);		/* last: it places the cursor of the input line */
		if (u->input_kind != 0)
			curs_set(1);
	}
	wnoutrefresh(stdscr);
	doupdate();
	u->dirty = false;
}

/* Merge one provider's result into the screen's data. */
static void
apply_result(struct ui *u, struct ui_result *r)
{
	struct ui_prov *p = r->provider >= 0 ? &u->prov[r->provider] : NULL;
	char price[32];
	size_t i;

	u->dirty = true;
	if (p != NULL && r->job != UJ_ACTION)
		text_sanitize(p->err[r->job], sizeof(p->err[r->job]),
		    r->code == GR_OK ? "" : r->err.msg);
	switch (r->job) {
	case UJ_OFFERS:
		if (r->code != GR_OK)
			break;
		offer_list_release(&p->offers);
		p->offers = r->offers;
		offer_list_init(&r->offers);
		p->have_offers = true;
		u->offers.n = 0;
		for (i = 0; i < u->n_prov; i++)
			offer_list_append(&u->offers, &u->prov[i].offers);
		ui_offers_rebuild(u);
		break;
	case UJ_INSTANCES:
		if (r->code != GR_OK)
			break;
		instance_list_release(&p->insts);
		p->insts = r->instances;
		instance_list_init(&r->instances);
		p->have_insts = true;
		if (r->now > u->now)
			u->now = r->now;
		u->insts.n = 0;
		for (i = 0; i < u->n_prov; i++) {
			size_t k;

			for (k = 0; k < u->prov[i].insts.n; k++)
				*instance_list_add(&u->insts) = u->prov[i].insts.v[k];
		}
		ui_instances_rebuild(u);
		/* Opened on the metrics view (--view metrics): watch the first running one. */
		if (u->view == UV_METRICS && u->watch[0] == '\0')
			for (i = 0; i < u->ig.n_order; i++) {
				const struct instance *in = (const void *)(u->ig.rows +
				    u->ig.order[i] * u->ig.size);

				if (in->state == ST_RUNNING) {
					ui_metrics_watch(u, in->id);
					break;
				}
			}
		break;
	case UJ_METRICS:
		if (r->code == GR_OK && strcmp(r->req.id, u->watch) == 0)
			ui_metrics_add(u, &r->samples);
		break;
	case UJ_ACTION:
		if (r->code != GR_OK) {
			ui_message(u, UC_BAD, "%s: %s", r->req.id, r->err.msg);
			break;
		}
		if (r->req.action == UA_LAUNCH)
			ui_message(u, UC_GOOD, "launched %s at %s/hour", r->launched.id,
			    money_format(price, sizeof(price), r->launched.price_hour, 3, true));
		else
			ui_message(u, UC_GOOD, "%s: %s", r->req.id, r->req.action == UA_STOP ?
			    "stopping" : r->req.action == UA_START ? "starting" : "destroying");
		ui_request(u, UJ_INSTANCES);
		ui_request(u, UJ_COSTS);
		break;
	case UJ_COSTS:
		if (r->code != GR_OK) {
			ui_message(u, UC_BAD, "costs: %s", r->err.msg);
			break;
		}
		cost_summary_release(&u->total);
		cost_summary_release(&u->by_provider);
		cost_summary_release(&u->by_label);
		u->total = r->total;
		u->by_provider = r->by_provider;
		u->by_label = r->by_label;
		memset(&r->total, 0, sizeof(r->total));
		memset(&r->by_provider, 0, sizeof(r->by_provider));
		memset(&r->by_label, 0, sizeof(r->by_label));
		u->have_costs = true;
		break;
	default:
		break;
	}
}

/* Request what is due; returns milliseconds until the next job falls due. */
static int
schedule(struct ui *u)
{
	static const enum ui_job jobs[] = { UJ_OFFERS, UJ_INSTANCES, UJ_METRICS, UJ_COSTS };
	double now = ui_clock(), next = 60, left;
	size_t i;

	for (i = 0; i < ARRAY_LEN(jobs); i++) {
		enum ui_job j = jobs[i];

		/* Offers only while they are on screen; metrics only while one is watched. */
		if ((j == UJ_OFFERS && u->view != UV_OFFERS) || (j == UJ_METRICS &&
		    u->watch[0] == '\0'))
			continue;
		left = u->last_req[j] + u->interval[j] - now;
		if (left <= 0) {
			ui_request(u, j);
			left = u->interval[j];
		}
		if (left < next)
			next = left;
	}
	/* Keep the "no answer for Ns" and message timers moving while they matter. */
	if (busy_for(u, UJ_OFFERS, NULL) >= 1 || busy_for(u, UJ_INSTANCES, NULL) >= 1 ||
	    busy_for(u, UJ_METRICS, NULL) >= 1) {
		if (next > 1)
			next = 1;
		u->dirty = true;
	}
	if (u->msg[0] != '\0' && u->msg_until > now && u->msg_until - now < next)
		next = u->msg_until - now + 0.01;
	else if (u->msg[0] != '\0' && u->msg_until <= now) {
		u->msg[0] = '\0';
		u->dirty = true;
	}
	return (int)(next * 1000) + 1;
}

static void
on_fatal(int sig)
{
	/* Give the terminal back before the default action dumps or prints. */
	if (curses_on)
		endwin();
	if (saved_stderr >= 0)
		dup2(saved_stderr, STDERR_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
init_ui(struct ui *u, struct session *s, const struct ui_opts *o, struct config *cfg)
{
	size_t i;
	double iv;

	memset(u, 0, sizeof(*u));
	u->s = s;
	u->opts = *o;
	sb_init(&u->dlg_text);
	u->n_prov = s->n_backends;
	for (i = 0; i < u->n_prov; i++) {
		u->prov[i].name = s->backends[i]->ops->name;
		offer_list_init(&u->prov[i].offers);
		instance_list_init(&u->prov[i].insts);
	}
	offer_list_init(&u->offers);
	instance_list_init(&u->insts);
	u->interval[UJ_OFFERS] = (double)parse_duration(config_get(cfg,
	    "dashboard.offers_interval"));
	u->interval[UJ_INSTANCES] = (double)parse_duration(config_get(cfg,
	    "dashboard.instances_interval"));
	u->interval[UJ_METRICS] = (double)parse_duration(config_get(cfg,
	    "dashboard.metrics_interval"));
	for (i = 0; i < UJ__COUNT; i++) {
		if (o->refresh > 0)
			u->interval[i] = o->refresh;
		if (u->interval[i] <= 0)
			u->interval[i] = 5;
		u->last_req[i] = -1e9;
	}
	/* Offers move slowly; metrics fast. --refresh sets the pace of all but offers. */
	iv = (double)parse_duration(config_get(cfg, "dashboard.offers_interval"));
	if (o->refresh > 0 && iv > o->refresh)
		u->interval[UJ_OFFERS] = iv;
	u->interval[UJ_COSTS] = u->interval[UJ_INSTANCES];
	u->idle_minutes = (int)config_get_int(cfg, "dashboard.idle_minutes", 10);
	u->budget_month = config_get_money(cfg, "budget.month");
	u->bid_margin = (int)config_get_int(cfg, "spot.bid_margin", 0);
	u->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	ui_views_init(u);
}

static void
release_ui(struct ui *u)
{
	size_t i;

	ui_views_release(u);
	for (i = 0; i < u->n_prov; i++) {
		offer_list_release(&u->prov[i].offers);
		instance_list_release(&u->prov[i].insts);
	}
	offer_list_release(&u->offers);
	instance_list_release(&u->insts);
	cost_summary_release(&u->total);
	cost_summary_release(&u->by_provider);
	cost_summary_release(&u->by_label);
	sb_release(&u->dlg_text);
	free(u->idle);
}

/* Draw bench_frames full frames (filter, sort and format every row, then draw). */
static void
bench(struct ui *u, char *report, size_t n)
{
	double t0, t1;
	long i;

	t0 = ui_clock();
	for (i = 0; i < u->opts.bench_frames; i++) {
		ui_offers_rebuild(u);
		u->need_clear = false;
		draw(u);
	}
	t1 = ui_clock();
	snprintf(report, n, "dashboard: %ld frames of %zu rows (%dx%d): %.3f ms per frame\n",
	    u->opts.bench_frames, u->og.n_order, COLS, LINES,
	    (t1 - t0) * 1000 / (double)u->opts.bench_frames);
}

static enum gr_err
loop(struct ui *u)
{
	struct pollfd pfd[2];
	wint_t wc;
	int rc, timeout;
	struct ui_result *r, *next;

	pfd[0].fd = STDIN_FILENO;
	pfd[0].events = POLLIN;
	pfd[1].fd = ui_fetch_fd(u->fetch);
	pfd[1].events = POLLIN;
	u->dirty = true;
	while (!u->quit && !cmd_interrupted) {
		for (r = ui_fetch_take(u->fetch); r != NULL; r = next) {
			next = r->next;
			apply_result(u, r);
			ui_result_free(r);
		}
		if (u->opts.bench_frames > 0 && u->prov[0].have_offers)
			return GR_OK;
		timeout = schedule(u);
		if (u->dirty)
			draw(u);
		/* Sleep until a key, a result, a signal (SIGWINCH, SIGTERM) or the next job. */
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			break;
		while ((rc = get_wch(&wc)) != ERR)
			handle_key(u, rc == KEY_CODE_YES ? UI_FKEY((int)wc) : (int)wc);
	}
	return cmd_interrupted ? GR_EINTERRUPTED : GR_OK;
}

/* The providers to show: --provider, else the config's; validated before curses starts. */
static enum gr_err
prepare(struct session *s, struct config **cfg, struct gr_error *err)
{
	if (session_config(s, cfg, err) != GR_OK || session_backends(s, err) != GR_OK)
		return err->code;
	if (s->n_backends == 0)
		return gr_fail(err, GR_EUSAGE, "no provider to show");
	return GR_OK;
}

/* Replay what was written to stderr while curses was on. */
static void
restore_stderr(FILE *captured)
{
	char buf[4096];
	size_t n;

	fflush(stderr);
	if (saved_stderr >= 0) {
		dup2(saved_stderr, STDERR_FILENO);
		close(saved_stderr);
		saved_stderr = -1;
	}
	if (captured == NULL)
		return;
	rewind(captured);
	while ((n = fread(buf, 1, sizeof(buf), captured)) > 0)
		if (fwrite(buf, 1, n, stderr) != n)
			break;
	fclose(captured);
}

enum gr_err
ui_dashboard_run(struct session *s, const struct ui_opts *o, struct gr_error *err)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa, old[ARRAY_LEN(fatal)];
	const char *names[SESSION_MAX_PROVIDERS];
	struct config *cfg;
	struct ui *u;
	SCREEN *scr;
	FILE *captured;
	char report[256] = "";
	enum gr_err rc;
	size_t i;
	int v = UV_OFFERS;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return gr_fail(err, GR_EUSAGE, "the dashboard needs a terminal; scripts can use "
		    "'gpurent offers', 'ls', 'metrics' and 'costs'");
	if (o->view != NULL && (v = ui_name_lookup(view_names, UV__COUNT, o->view)) < 0)
		return gr_fail(err, GR_EUSAGE, "no view '%s' (offers, instances, metrics, costs)",
		    o->view);
	if (prepare(s, &cfg, err) != GR_OK)
		return err->code;
	u = xcalloc(1, sizeof(*u));
	init_ui(u, s, o, cfg);
	u->view = (enum ui_view)v;
	for (i = 0; i < u->n_prov; i++)
		names[i] = u->prov[i].name;
	u->fetch = ui_fetch_new(names, u->n_prov, s->profile);
	if (u->fetch == NULL) {
		release_ui(u);
		free(u);
		return gr_fail(err, GR_EFAIL, "cannot start the dashboard's workers");
	}
	/* Nothing may reach the terminal behind curses' back: park stderr in a file. */
	fflush(stderr);
	captured = tmpfile();
	if (captured != NULL && (saved_stderr = dup(STDERR_FILENO)) >= 0)
		dup2(fileno(captured), STDERR_FILENO);
	scr = newterm(NULL, stdout, stdin);
	if (scr == NULL) {
		restore_stderr(captured);
		ui_fetch_free(u->fetch);
		release_ui(u);
		free(u);
		return gr_fail(err, GR_EUSAGE, "cannot drive this terminal (TERM=%s)",
		    getenv("TERM") ? getenv("TERM") : "");
	}
	curses_on = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_LEN(fatal); i++)
		sigaction(fatal[i], &sa, &old[i]);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	ui_palette_init(o->color);
	ui_layout_compute(COLS, LINES, &u->lay);
	u->need_clear = true;
	if (o->bench_frames > 0)
		u->view = UV_OFFERS;
	rc = loop(u);
	if (rc == GR_OK && o->bench_frames > 0)
		bench(u, report, sizeof(report));
	endwin();
	delscreen(scr);
	curses_on = 0;
	for (i = 0; i < ARRAY_LEN(fatal); i++)
		sigaction(fatal[i], &old[i], NULL);
	restore_stderr(captured);
	ui_fetch_free(u->fetch);
	release_ui(u);
	free(u);
	if (report[0] != '\0')
		fputs(report, stdout);
	if (rc == GR_EINTERRUPTED)
		gr_fail(err, rc, "interrupted");
	return rc;
}
