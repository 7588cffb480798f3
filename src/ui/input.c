/*
 * input.c - the dashboard's keys: switching views, the ':' command line and the '/'
 * filter line as they are typed, the dialogs' keys, and handing the rest to the view on
 * screen.
 */
#include <curses.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "gpurent/filter.h"
#include "gpurent/i18n.h"
#include "gpurent/util.h"
#include "ui.h"

static const char help_text[] =
    /* xgettext:no-c-format */
    N_("Views\n"
    "  1 2 3 4, Tab, Shift-Tab   offers, instances, metrics, costs\n"
    "  5 6                       events; cluster (a Slurm cluster's partitions, GPUs used\n"
    "                            and free, and your jobs with Slurm's reason)\n"
    "  7                         jobs: the managed jobs of 'gpurent run --managed'\n"
    "  :offers :instances :metrics :costs :events :cluster :jobs   the same by name (a\n"
    "                            prefix will do)\n"
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
    "  Enter                     details of the instance, its jobs and the last lines\n"
    "                            of their logs (read over ssh in the background)\n"
    "  J                         every recorded job of the instance\n"
    "  u                         (also in its details) forward the instance's Jupyter\n"
    "                            in the background\n"
    "                            (as 'gpurent forward --jupyter --background') and show\n"
    "                            its URL; 'gpurent forward --stop ID' ends it\n"
    "  m                         metrics of the instance\n"
    "  s / S                     stop (asks first) / start the instance\n"
    "  D                         destroy the instance (asks first)\n"
    "  < > i                     sort, as in offers\n"
    "  * idle                    rows marked * (and highlighted): running under 5% GPU\n"
    "                            for dashboard.idle_minutes (default 10)\n"
    "\n"
    "Metrics\n"
    "  Up/Down, k/j              scroll through the GPUs\n"
    "  n / p                     next / previous running instance\n"
    "\n"
    "Jobs\n"
    "  Up/Down, k/j              previous/next job\n"
    "  K                         cancel the job (asks first): a last checkpoint, then its\n"
    "                            machine destroyed, as 'gpurent kill mN'\n"
    "\n"
    "Dialogs\n"
    "  y                         yes; n, Esc or q: no\n"
    "\n"
    "--readonly turns off L, s, S, D and K.");

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
	if (v == UV_CLUSTER && ui_clock() - u->last_req[UJ_CLUSTER] > u->interval[UJ_CLUSTER])
		ui_request(u, UJ_CLUSTER);
	if (v == UV_METRICS && u->mv.watch[0] == '\0') {
		const struct instance *in = ui_grid_selected(&u->iv.grid);

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
		ui_pager(u, _("Keys"), _(help_text));
		return;
	}
	if (strcmp(word, "ls") == 0) {
		set_view(u, UV_INSTANCES);
		return;
	}
	v = ui_view_find(word);
	if (v >= 0) {
		set_view(u, (enum ui_view)v);
		return;
	}
	snprintf(u->input_err, sizeof(u->input_err), v == -2 ? _("'%s' is ambiguous") :
	    _("unknown command '%s' (offers, instances, metrics, costs, events, cluster, help, "
	    "quit)"), word);
}

/* Parse the filter as it is typed; the table follows every valid state. */
static void
live_filter(struct ui *u)
{
	struct gr_error err = { 0 };
	struct offers_money money;
	struct filter f;

	/* filter_parse_str adds to what f holds: start from nothing. */
	memset(&f, 0, sizeof(f));
	if (filter_parse_str(&f, u->input, &err) != GR_OK) {
		text_sanitize(u->input_err, sizeof(u->input_err), err.msg);
		return;
	}
	/* As offers: a price term meets another currency only at a rate, else it is refused. */
	if (offers_money_check(&u->ov.offers, &f, NULL, false, &u->fx, &money, &err) != GR_OK) {
		text_sanitize(u->input_err, sizeof(u->input_err), err.msg);
		return;
	}
	u->input_err[0] = '\0';
	u->ov.filter = f;
	strlcpy_(u->ov.filter_text, u->input, sizeof(u->ov.filter_text));
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
			lanes_request(u->fetch, UJ_ACTION, u->dlg_provider, &u->dlg_req);
			ui_message(u, UC_ACCENT, u->dlg_req.action == UA_LAUNCH ?
			    N_("launching %s ...") : u->dlg_req.action == UA_STOP ?
			    N_("stopping %s ...") : u->dlg_req.action == UA_CANCEL ?
			    N_("cancelling %s ...") : N_("destroying %s ..."), u->dlg_req.id);
			u->dialog = UD_NONE;
		} else if (key == 'n' || key == 'N' || key == 'q' || key == 27) {
			ui_message(u, UC_DIM, "cancelled; nothing changed");
			u->dialog = UD_NONE;
		}
		u->need_clear = u->dialog == UD_NONE;
		return;
	}
	if (ui_instances_details_key(u, key))
		return;
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

void
ui_handle_key(struct ui *u, int key)
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
		ui_pager(u, _("Keys"), _(help_text));
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
		if (u->view == UV_CLUSTER)
			ui_request(u, UJ_CLUSTER);
		ui_message(u, UC_DIM, "refreshing");
		return;
	}
	if (key == UI_FKEY(KEY_BTAB)) {
		set_view(u, (enum ui_view)((u->view + UV__COUNT - 1) % UV__COUNT));
		return;
	}
	if (key == UI_FKEY(KEY_F(5))) {
		ui_handle_key(u, 'r');
		return;
	}
	if (key == '/' && u->view == UV_OFFERS) {
		u->input_kind = '/';
		strlcpy_(u->input, u->ov.filter_text, sizeof(u->input));
		strlcpy_(u->saved_filter, u->ov.filter_text, sizeof(u->saved_filter));
		u->input_err[0] = '\0';
		return;
	}
	if (!ui_view_key(u, key))
		u->dirty = false;
}
