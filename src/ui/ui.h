/*
 * ui.h - the dashboard's shared state (not a public contract; src/ui only).
 *
 * One struct ui holds what the screen shows: each view's own state (struct offers_view,
 * ...: the data last received from the lanes, gpurent/lanes.h, and the tables built from
 * it, grid.h), what the views share, and the interaction state. Drawing reads it; key
 * handlers and arriving results change it and set `dirty`; the loop draws once per
 * wake-up when dirty is set (htop's and tmux's redraw flags).
 */
#ifndef GPURENT_UI_UI_H
#define GPURENT_UI_UI_H

#include <stdbool.h>
#include <stdint.h>

#include "gpurent/costs.h"
#include "gpurent/dashboard.h"
#include "gpurent/events.h"
#include "gpurent/filter.h"
#include "gpurent/model.h"
#include "gpurent/util.h"
#include "fetch.h"
#include "grid.h"
#include "layout.h"

enum ui_view {
	UV_OFFERS, UV_INSTANCES, UV_METRICS, UV_COSTS, UV_EVENTS, UV_CLUSTER, UV_JOBS, UV__COUNT
};

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
	bool is_cluster;		/* CAP_CLUSTER: the cluster view asks it */
	struct cluster_state cluster;	/* its last answer (have_cluster) */
	bool have_cluster;
	char err[UJ__COUNT][200];	/* the last failure of each job, "" when it worked */
};

struct ui_idle {
	char id[ID_MAX];
	int64_t since;			/* provider clock when utilisation fell below 5% */
};

/* Recorded running jobs of one instance (gpurent run), from the state database. */
struct ui_jobs_count {
	char id[ID_MAX];
	int running;
};

enum ui_dialog { UD_NONE, UD_CONFIRM, UD_PAGER };

struct ui;

/*
 * What a view may ask of the dashboard around it, handed down as callbacks so that no
 * view calls back up into the dashboard (host.c fills it in).
 */
struct ui_view_ctx {
	/* Show a message on the status line for a while (provider text is stripped); fmt is
	 * translated by the host, so views pass the English literal. */
	void (*message)(struct ui *u, int color, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
	/* Ask the lanes for a job now (metrics: the watched instance's provider). */
	void (*request)(struct ui *u, enum ui_job job);
	/* Ask y/N over the body; yes sends req to the provider's action lane. */
	void (*confirm)(struct ui *u, const char *title, const char *text,
	    const struct lane_request *req, int provider);
	/* Show text in the pager over the body. */
	void (*pager)(struct ui *u, const char *title, const char *text);
	/* The index of an id's provider among u->prov, -1 when not shown. */
	int (*provider_of)(const struct ui *u, const char *id);
};

/*
 * Each view's own state, in struct ui. The view (view_*.c) sets it up and frees it; the
 * dashboard writes what the lanes bring into it.
 */

/* The offers view (view_offers.c). */
struct offers_view {
	struct offer_list offers;	/* every provider's, merged: owned by the grid's rows
					   (ui_offers_merge), not freed here */
	const char *merged;		/* what the last merge did, for GPURENT_UI_TRACE:
					   "same", "taken" or "copied"; "unasked": no
					   answer to merge (lanes.h) */
	struct ui_grid grid;
	struct filter filter;
	char filter_text[256];
};

/* The instances view (view_instances.c). */
struct instances_view {
	struct ui_grid grid;
	struct ui_idle *idle;
	size_t n_idle;
	struct ui_jobs_count *jobs;
	size_t n_jobs;
	/* The detail pane of one instance (Enter): its jobs and their logs, from UJ_JOBLOGS. */
	char detail_id[ID_MAX];		/* the instance whose pane is or was open */
	struct remote_job *djobs;
	size_t n_djobs;
	struct ui_job_log dlogs[UI_JOB_LOGS];
	size_t n_dlogs;
	bool dlogs_pending;		/* asked, no answer yet */
	bool dlogs_have;		/* an answer came for detail_id */
	char dlogs_err[200];		/* why the instance could not be asked, stripped */
	/* The Jupyter key: the last answer, for jup_id. */
	char jup_id[ID_MAX];
	char jup_text[700];		/* the URL, or why there is none (stripped) */
	bool jup_ok, jup_pending;
};

/* The metrics view (view_metrics.c): one instance's. */
struct metrics_view {
	char watch[ID_MAX];
	struct ui_ring ring[UI_MAX_GPUS][UM__COUNT];
	struct gpu_sample last[UI_MAX_GPUS];
	int n_gpus;
	size_t gpu_top;			/* the selected GPU: shown first, with every field */
	bool want_history;		/* the next metrics request also reads the history */
};

/* The costs view (view_costs.c). */
struct costs_view {
	struct cost_set by_provider, by_label;	/* each currency, and converted */
	struct ui_audit audit;		/* the last 7 days (fetch.h) */
};

/* The events view (view_events.c): the watcher's newest (they come with the costs: the
   same lane reads the database). */
struct events_view {
	struct event *events;
	size_t n_events;
	size_t top;			/* first shown, counted from the newest */
};

/* The cluster view (view_cluster.c): its first line shown, and how many it had when last
   drawn. */
struct cluster_view {
	size_t top, lines;
};

/* The jobs view (view_jobs.c): the managed jobs (they come with the costs), one selected. */
struct jobs_view {
	struct managed_row *rows;
	size_t n;
	size_t sel;
};

struct ui {
	const struct ui_view_ctx *ctx;
	struct session *s;
	struct lanes *fetch;
	struct ui_opts opts;
	struct ui_prov prov[SESSION_MAX_PROVIDERS];
	size_t n_prov;
	double interval[UJ__COUNT];	/* seconds between refreshes */
	double last_req[UJ__COUNT];	/* monotonic seconds of the last request */
	int idle_minutes;
	/* budget.day and budget.month as configured, each in its own currency (the bars). */
	struct ui_budget {
		bool day;
		int64_t amount;
		char currency[CURRENCY_MAX];
	} budgets[2];
	size_t n_budgets;
	int bid_margin;			/* spot.bid_margin, percent */
	struct fx_rates fx;		/* fx.CODE: prices of several currencies compared */
	bool utf8;

	enum ui_view view;
	struct ui_layout lay;
	bool dirty, need_clear, quit;

	/* Each view's own state (its view_*.c sets it up and frees it), and what they share. */
	struct offers_view ov;
	struct instances_view iv;
	struct metrics_view mv;
	struct costs_view cv;
	struct events_view ev;
	struct cluster_view clv;
	struct jobs_view jv;
	struct instance_list insts;	/* every provider's, for the instances and metrics */
	int64_t now;			/* provider clock of the last instance list */
	struct cost_set costs;		/* spent so far, each currency, and converted */
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
	struct lane_request dlg_req;	/* what yes does */
	int dlg_provider;
};

/* palette.c */
void ui_palette_init(bool color);
int ui_attr(enum ui_color c);
enum ui_color ui_color_of(int out_color);

/*
 * One view of the dashboard, in a file of its own (view_*.c), listed in views.c. It draws
 * the body and answers its keys from struct ui, and asks for anything else through
 * u->ctx, never by calling up into the dashboard.
 */
struct ui_view_ops {
	const char *name;			/* for ':name' and --view */
	const char *title;			/* on its tab */
	void (*init)(struct ui *u);		/* NULL: nothing to set up */
	void (*release)(struct ui *u);		/* NULL: nothing to free */
	/* A lane's result, for what the view keeps of it in its own state (NULL: nothing);
	   what it takes it leaves empty in r. */
	void (*take)(struct ui *u, struct ui_result *r);
	void (*draw)(struct ui *u, const struct ui_rect *body);
	bool (*key)(struct ui *u, int key);	/* true: used; NULL: no keys of its own */
	const char *keys;			/* the key hints of the bottom line */
};
extern const struct ui_view_ops ui_view_offers, ui_view_instances, ui_view_metrics, ui_view_costs,
    ui_view_events, ui_view_cluster, ui_view_jobs;

/* tableview.c: what the views made of a table share. */
/*
 * One figure (the int64_t at offset `field` of struct cost_summary, times `times`) of each
 * currency of s, side by side in its own money: "$0.300, ¥2.160".
 */
void ui_cost_list(char *buf, size_t n, const struct cost_set *s, size_t field, int times,
    int decimals);
void ui_table_draw(struct ui *u, struct ui_grid *g, const struct ui_rect *r, const char *empty,
    bool (*marked)(struct ui *, const void *));
bool ui_table_key(struct ui *u, struct ui_grid *g, int key, void (*rebuild)(struct ui *u));
/*
 * The keys of a view that scrolls n lines (j/k a line, PgDn/PgUp a page, g the top) on *top,
 * the first line shown; true when used. PgDn moves only while a line lies past the page.
 */
bool ui_scroll_key(struct ui *u, int key, size_t *top, size_t n);
void ui_table_details(struct ui *u, const char *title, const struct column *cols, size_t n,
    cell_fn get, const void *row, void *ctx);
bool ui_refuse_readonly(struct ui *u);
/* The instance of the last list (u->insts) with this id, NULL when it is not there. */
const struct instance *ui_instance_find(const struct ui *u, const char *id);

/* views.c: the view on screen draws its body and answers its keys (true: used). */
int ui_view_find(const char *name);	/* a name or unique prefix: the view, -1, -2 ambiguous */
const char *ui_view_title(enum ui_view v);
void ui_views_init(struct ui *u);
void ui_views_release(struct ui *u);
void ui_views_take(struct ui *u, struct ui_result *r);
void ui_view_draw(struct ui *u);
bool ui_view_key(struct ui *u, int key);
const char *ui_view_keys(const struct ui *u);
/* view_offers.c, view_instances.c: rebuild the table after new data or a new filter. */
void ui_offers_rebuild(struct ui *u);
/* view_offers.c: the providers' offers merged into a new u->ov.offers, filtered and sorted
 * off the UI thread; the descriptor to poll for the result, and taking it (true: it came). */
void ui_offers_merge(struct ui *u);
int ui_offers_fd(const struct ui *u);
bool ui_offers_collect(struct ui *u);
void ui_instances_rebuild(struct ui *u);
/* view_instances.c: write the detail pane again when its data changed (it is open). */
void ui_instances_details_update(struct ui *u);
/* A key in the detail pane that is its own (u: Jupyter); true when used. */
bool ui_instances_details_key(struct ui *u, int key);
/* view_metrics.c: follow an instance's samples. */
void ui_metrics_watch(struct ui *u, const char *id);

/* input.c: one key, from the loop. */
void ui_handle_key(struct ui *u, int key);

/* frame.c: draw the whole screen once; how long a lane of job has waited (-1: idle). */
void ui_draw(struct ui *u);
double ui_busy_for(struct ui *u, enum ui_job job, size_t *who);

/* widgets.c: drawing primitives. */
double ui_clock(void);
void ui_put(int y, int x, int w, const char *text, int attr, bool right);

/* host.c: the dashboard's side of struct ui_view_ctx, also used by its keys and loop. */
extern const struct ui_view_ctx ui_host_ctx;
void ui_message(struct ui *u, int color, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ui_request(struct ui *u, enum ui_job job);
int ui_provider_of(const struct ui *u, const char *id);
void ui_confirm(struct ui *u, const char *title, const char *text, const struct lane_request *req,
    int provider);
void ui_pager(struct ui *u, const char *title, const char *text);

#endif
