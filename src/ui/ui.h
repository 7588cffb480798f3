/*
 * ui.h - the dashboard's shared state (not a public contract; src/ui only).
 *
 * One struct ui holds what the screen shows: the data last received from the lanes
 * (fetch.h), the tables built from it (grid.h), and the interaction state. Drawing reads
 * it; key handlers and arriving results change it and set `dirty`; the loop draws once
 * per wake-up when dirty is set (htop's and tmux's redraw flags).
 */
#ifndef GPURENT_UI_UI_H
#define GPURENT_UI_UI_H

#include <stdbool.h>
#include <stdint.h>

#include "gpurent/costs.h"
#include "gpurent/dashboard.h"
#include "gpurent/filter.h"
#include "gpurent/model.h"
#include "gpurent/util.h"
#include "fetch.h"
#include "grid.h"
#include "layout.h"

enum ui_view { UV_OFFERS, UV_INSTANCES, UV_METRICS, UV_COSTS, UV__COUNT };

/* Semantic colours (htop's ColorElements); attributes come from the palette. */
enum ui_color {
	UC_NORMAL, UC_HEADER, UC_TAB, UC_TAB_ACTIVE, UC_COLHEAD, UC_SELECT, UC_GOOD, UC_WARN,
	UC_BAD, UC_DIM, UC_ACCENT, UC_IDLE, UC_KEY, UC_DIALOG, UC__COUNT,
};

/* Keys: characters as themselves, curses' function keys (KEY_UP, ...) moved past Unicode. */
#define UI_FKEY(k) ((k) + 0x200000)
#define UI_IS_CHAR(k) ((k) < 0x200000)

#define UI_MAX_GPUS 16
enum { UM_UTIL, UM_MEM, UM_TEMP, UM_POWER, UM__COUNT };

struct ui_prov {
	const char *name;
	struct offer_list offers;
	struct instance_list insts;
	bool have_offers, have_insts;
	char err[UJ__COUNT][200];	/* the last failure of each job, "" when it worked */
};

struct ui_idle {
	char id[ID_MAX];
	int64_t since;			/* provider clock when utilisation fell below 5% */
};

enum ui_dialog { UD_NONE, UD_CONFIRM, UD_PAGER };

struct ui {
	struct session *s;
	struct ui_fetch *fetch;
	struct ui_opts opts;
	struct ui_prov prov[SESSION_MAX_PROVIDERS];
	size_t n_prov;
	double interval[UJ__COUNT];	/* seconds between refreshes */
	double last_req[UJ__COUNT];	/* monotonic seconds of the last request */
	int idle_minutes;
	int64_t budget_month;		/* -1: none */
	int bid_margin;			/* spot.bid_margin, percent */
	bool utf8;

	enum ui_view view;
	struct ui_layout lay;
	bool dirty, need_clear, quit;

	/* Offers. */
	struct offer_list offers;	/* every provider's, merged */
	struct ui_grid og;
	struct filter filter;
	char filter_text[256];

	/* Instances. */
	struct instance_list insts;
	struct ui_grid ig;
	int64_t now;			/* provider clock of the last instance list */
	struct ui_idle *idle;
	size_t n_idle;

	/* Metrics of one instance. */
	char watch[ID_MAX];
	struct ui_ring ring[UI_MAX_GPUS][UM__COUNT];
	struct gpu_sample last[UI_MAX_GPUS];
	int n_gpus;
	size_t gpu_top;

	/* Costs. */
	struct cost_summary total, by_provider, by_label;
	bool have_costs;

	/* The status line: a message for a while, else provider errors. */
	char msg[256];
	int msg_color;
	double msg_until;

	/* The input line: '/' filter or ':' command. */
	char input_kind;
	char input[256];
	char input_err[256];
	char saved_filter[256];

	/* A dialog over the body. */
	enum ui_dialog dialog;
	char dlg_title[96];
	struct sb dlg_text;		/* confirmation text, or pager lines */
	size_t dlg_top;
	struct ui_request dlg_req;	/* what yes does */
	int dlg_provider;
};

/* palette.c */
void ui_palette_init(bool color);
int ui_attr(enum ui_color c);
enum ui_color ui_color_of(int out_color);

/* views.c: the body of each view, and its keys (true: the key was used). */
void ui_views_init(struct ui *u);
void ui_views_release(struct ui *u);
void ui_view_draw(struct ui *u);
bool ui_view_key(struct ui *u, int key);
const char *ui_view_keys(const struct ui *u);
void ui_offers_rebuild(struct ui *u);
void ui_instances_rebuild(struct ui *u);
void ui_metrics_watch(struct ui *u, const char *id);
void ui_metrics_add(struct ui *u, const struct sample_list *l);

/* dashboard.c: helpers the views use. */
double ui_clock(void);
void ui_message(struct ui *u, int color, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ui_put(int y, int x, int w, const char *text, int attr, bool right);
void ui_request(struct ui *u, enum ui_job job);
int ui_provider_of(const struct ui *u, const char *id);
void ui_confirm(struct ui *u, const char *title, const char *text, const struct ui_request *req,
    int provider);
void ui_pager(struct ui *u, const char *title, const char *text);

#endif
