/*
 * The dashboard loop: wait for a key, a result or the next due refresh; apply it; draw
 * once. Also setting the screen up and getting the terminal back on every way out. The
 * keys are input.c's, the frame around the views frame.c's, each view a view_*.c.
 */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/config.h"
#include "gpurent/dashboard.h"
#include "gpurent/i18n.h"
#include "gpurent/launch.h"
#include "gpurent/money.h"
#include "gpurent/session.h"
#include "gpurent/state.h"
#include "gpurent/team.h"
#include "gpurent/util.h"
#include "ui.h"

/* What the fatal-signal handler needs to give the terminal back. */
static volatile sig_atomic_t curses_on;
static int saved_stderr = -1;

/* Merge one provider's result into the screen's data. */
static void
apply_result(struct ui *u, struct ui_result *r)
{
	struct ui_prov *p = r->provider >= 0 ? &u->prov[r->provider] : NULL;
	char price[32];
	size_t i;

	u->dirty = true;
	if (p != NULL && r->job < UJ_ACTION)
		text_sanitize(p->err[r->job], sizeof(p->err[r->job]),
		    r->code == GR_OK ? "" : r->err.msg);
	switch (r->job) {
	case UJ_OFFERS:
		if (r->code != GR_OK)
			break;
		if (r->unasked) {	/* what the view has is the provider's market still */
			u->ov.merged = "unasked";
			break;
		}
		offer_list_release(&p->offers);
		p->offers = r->offers;
		offer_list_init(&r->offers);
		p->have_offers = true;
		ui_offers_merge(u);
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
		ui_instances_details_update(u);
		/* Opened on the metrics view (--view metrics): watch the first running one. */
		if (u->view == UV_METRICS && u->mv.watch[0] == '\0')
			for (i = 0; i < u->iv.grid.n_order; i++) {
				const struct instance *in = (const void *)(u->iv.grid.rows +
				    u->iv.grid.order[i] * u->iv.grid.size);

				if (in->state == ST_RUNNING) {
					ui_metrics_watch(u, in->id);
					break;
				}
			}
		break;
	case UJ_ACTION:
		if (r->code != GR_OK) {
			ui_message(u, UC_BAD, "%s: %s", r->req.id, r->err.msg);
			break;
		}
		if (r->req.action == UA_LAUNCH)
			ui_message(u, UC_GOOD, "launched %s at %s/hour", r->launched.id,
			    money_format_in(price, sizeof(price), r->launched.price_hour, 3,
			    r->launched.currency));
		else
			ui_message(u, UC_GOOD, r->req.action == UA_STOP ? N_("%s: stopping") :
			    r->req.action == UA_START ? N_("%s: starting") :
			    r->req.action == UA_CANCEL ? N_("%s: cancelling") :
			    N_("%s: destroying"), r->req.id);
		ui_request(u, UJ_INSTANCES);
		ui_request(u, UJ_COSTS);
		break;
	case UJ_CLUSTER:
		/* Its error is the view's to show; the data it had stays on screen. */
		text_sanitize(p->err[UJ_CLUSTER], sizeof(p->err[UJ_CLUSTER]),
		    r->code == GR_OK ? "" : r->err.msg);
		if (r->code != GR_OK)
			break;
		cluster_state_release(&p->cluster);
		p->cluster = r->cluster;
		cluster_state_init(&r->cluster);
		p->have_cluster = true;
		break;
	case UJ_COSTS:
		if (r->code != GR_OK) {
			ui_message(u, UC_BAD, _("costs: %s"), r->err.msg);
			break;
		}
		cost_set_release(&u->costs);
		u->costs = r->costs;
		memset(&r->costs, 0, sizeof(r->costs));
		u->have_costs = true;
		break;
	default:
		break;
	}
	/* What only a view keeps (metrics, an instance's jobs, the costs' lines, events). */
	ui_views_take(u, r);
}

/* job, requested when interval seconds have passed since its last request; *next is
 * lowered to the seconds until it falls due again. */
static void
request_due(struct ui *u, enum ui_job job, double interval, double now, double *next)
{
	double left = u->last_req[job] + interval - now;

	if (left <= 0) {
		ui_request(u, job);
		left = interval;
	}
	if (left < *next)
		*next = left;
}

/* Request what is due; returns milliseconds until the next job falls due. */
static int
schedule(struct ui *u)
{
	static const enum ui_job jobs[] = { UJ_OFFERS, UJ_INSTANCES, UJ_METRICS, UJ_COSTS,
		UJ_CLUSTER };
	double now = ui_clock(), next = 60;
	size_t i;

	for (i = 0; i < ARRAY_LEN(jobs); i++) {
		enum ui_job j = jobs[i];

		/* Offers and the cluster only while they are on screen; metrics only while one
		   is watched. */
		if ((j == UJ_OFFERS && u->view != UV_OFFERS) || (j == UJ_METRICS &&
		    u->mv.watch[0] == '\0') || (j == UJ_CLUSTER && u->view != UV_CLUSTER))
			continue;
		request_due(u, j, u->interval[j], now, &next);
	}
	/* The open detail pane follows its instance's jobs at the pace of the instances. */
	if (u->dialog == UD_PAGER && u->iv.detail_id[0] != '\0' &&
	    strcmp(u->dlg_title, u->iv.detail_id) == 0)
		request_due(u, UJ_JOBLOGS, u->interval[UJ_INSTANCES], now, &next);
	/* Keep the "no answer for Ns" and message timers moving while they matter. */
	if (ui_busy_for(u, UJ_OFFERS, NULL) >= 1 || ui_busy_for(u, UJ_INSTANCES, NULL) >= 1 ||
	    ui_busy_for(u, UJ_METRICS, NULL) >= 1) {
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
	static volatile int never;
	size_t i;
	double iv;

	memset(u, 0, sizeof(*u));
	u->ctx = &ui_host_ctx;
	u->s = s;
	u->opts = *o;
	if (u->opts.stop == NULL)
		u->opts.stop = &never;
	sb_init(&u->dlg_text);
	u->n_prov = s->n_backends;
	for (i = 0; i < u->n_prov; i++) {
		u->prov[i].name = s->backends[i]->ops->name;
		u->prov[i].is_cluster = (s->backends[i]->ops->caps & CAP_CLUSTER) != 0;
		cluster_state_init(&u->prov[i].cluster);
		offer_list_init(&u->prov[i].offers);
		instance_list_init(&u->prov[i].insts);
	}
	offer_list_init(&u->ov.offers);
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
	u->interval[UJ_CLUSTER] = u->interval[UJ_INSTANCES];
	u->idle_minutes = (int)config_get_int(cfg, "dashboard.idle_minutes", 10);
	{
		static const char *const keys[] = { "budget.day", "budget.month" };
		struct shared_budget team;
		struct state *st;
		size_t k;
		/* A team's, beside the team's spend, are in its state (launch.h), as the launch
		   door and the watcher read them; the profile's keys are not read there. */
		bool shared = team_profile(cfg) && session_state(s, &st, NULL) == GR_OK;

		if (shared)
			launch_team_budget(st, &team);
		for (k = 0; k < 2; k++) {
			struct ui_budget *b = &u->budgets[u->n_budgets];

			if (!shared)
				b->amount = config_get_money_in(cfg, keys[k], b->currency);
			else {
				b->amount = k == 0 ? team.day : team.month;
				money_currency_set(b->currency, k == 0 ? team.day_currency :
				    team.month_currency);
			}
			b->day = k == 0;
			if (b->amount > 0)
				u->n_budgets++;
		}
	}
	u->bid_margin = (int)config_get_int(cfg, "spot.bid_margin", 0);
	config_fx(cfg, &u->fx);
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
		cluster_state_release(&u->prov[i].cluster);
	}
	/* u->ov.offers belonged to the offers grid, released with the views. */
	instance_list_release(&u->insts);
	cost_set_release(&u->costs);
	sb_release(&u->dlg_text);
}

/* CPU seconds of the calling thread: on a loaded machine the wall clock also counts the
 * waits for a core, which say nothing of what a key costs. */
static double
thread_cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorted in place); 0 when empty. */
static double
median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Answer bench_frames keys on the offers view as a user would press them: sort to the next
 * column, reverse, scroll a row, a page, to the end and back. A key's frame is the key's
 * handling and the drawing after it, on the UI thread; a sort's result is the time until
 * the worker's order was swapped in and drawn.
 */
static void
bench(struct ui *u, char *report, size_t n)
{
	static const int keys[] = { '>', 'j', 'i', ' ', '<', 'G', 'i', 'g' };
	double *frame, *cpu, *result, t0, t1, c0, worst = 0;
	size_t n_frame = 0, n_result = 0;
	long i;

	frame = xcalloc((size_t)u->opts.bench_frames, sizeof(*frame));
	cpu = xcalloc((size_t)u->opts.bench_frames, sizeof(*cpu));
	result = xcalloc((size_t)u->opts.bench_frames, sizeof(*result));
	ui_grid_wait(&u->ov.grid, 600000);
	u->need_clear = false;
	ui_draw(u);
	for (i = 0; i < u->opts.bench_frames; i++) {
		t0 = ui_clock();
		c0 = thread_cpu();
		ui_handle_key(u, keys[i % (long)ARRAY_LEN(keys)]);
		ui_draw(u);
		t1 = ui_clock();
		cpu[n_frame] = (thread_cpu() - c0) * 1000;
		frame[n_frame++] = (t1 - t0) * 1000;
		if (t1 - t0 > worst)
			worst = t1 - t0;
		if (u->ov.grid.busy && ui_grid_wait(&u->ov.grid, 600000)) {
			ui_draw(u);
			result[n_result++] = (ui_clock() - t0) * 1000;
		}
	}
	snprintf(report, n, "dashboard: %ld keys over %zu of %zu offers (%dx%d): frame median "
	    "%.3f ms (UI thread CPU %.3f ms), worst %.3f ms; sort result median %.1f ms (%zu "
	    "sorts)\n", u->opts.bench_frames, u->ov.grid.n_order, u->ov.grid.n, COLS, LINES,
	    median(frame, n_frame), median(cpu, n_frame), worst * 1000, median(result, n_result),
	    n_result);
	free(frame);
	free(cpu);
	free(result);
}

/* GPURENT_UI_TRACE=FILE: a line per key ("key MS CPU_MS": from reading it to the end of the
 * frame that shows it, and the UI thread's CPU time in that span), per drawn frame ("frame
 * MS CPU_MS"), per swapped-in sort ("swap MS": from the submission) and per offers answer
 * taken in ("same", "taken" or "copied" MS CPU_MS: see ui_offers_merge; "unasked" when the
 * provider's market stamp said nothing changed, so nothing was fetched: session/lanes.c),
 * and per costs lane's answer ("costs MS": the lane's time on it, the state's reads).
 * bench/dashboard.sh, bench/dashboard-refresh.sh and bench/team-store.sh read it. */
static void
trace_line(FILE *fp, const char *what, double since, double cpu_since)
{
	if (fp == NULL)
		return;
	if (cpu_since >= 0)
		fprintf(fp, "%s %.3f %.3f\n", what, (ui_clock() - since) * 1000,
		    (thread_cpu() - cpu_since) * 1000);
	else
		fprintf(fp, "%s %.3f\n", what, (ui_clock() - since) * 1000);
	fflush(fp);
}

static enum gr_err
loop(struct ui *u)
{
	struct pollfd pfd[3];
	wint_t wc;
	int rc, timeout;
	struct ui_result *r, *next;
	const char *trace_path = getenv("GPURENT_UI_TRACE");
	FILE *tr = trace_path != NULL && *trace_path ? fopen(trace_path, "we") : NULL;
	double key_at = 0, key_cpu = 0, t, c;

	pfd[0].fd = STDIN_FILENO;
	pfd[0].events = POLLIN;
	pfd[1].fd = lanes_fd(u->fetch);
	pfd[1].events = POLLIN;
	pfd[2].fd = ui_offers_fd(u);	/* -1 (ignored) when the grid sorts in place */
	pfd[2].events = POLLIN;
	u->dirty = true;
	while (!u->quit && !*u->opts.stop) {
		for (r = lanes_take(u->fetch); r != NULL; r = next) {
			bool offers = r->job == UJ_OFFERS && r->code == GR_OK;

			next = r->next;
			t = ui_clock();
			c = thread_cpu();
			if (tr != NULL && r->job == UJ_COSTS && r->code == GR_OK) {
				fprintf(tr, "costs %.3f\n", r->took * 1000);
				fflush(tr);
			}
			apply_result(u, r);
			lanes_result_free(r);
			if (offers)
				trace_line(tr, u->ov.merged, t, c);
		}
		t = u->ov.grid.submitted;
		if (ui_offers_collect(u)) {
			u->dirty = true;
			trace_line(tr, "swap", t, -1);
		}
		if (u->opts.bench_frames > 0 && u->prov[0].have_offers)
			break;
		timeout = schedule(u);
		if (u->dirty) {
			t = ui_clock();
			c = thread_cpu();
			ui_draw(u);
			trace_line(tr, "frame", t, c);
		}
		if (key_at > 0)
			trace_line(tr, "key", key_at, key_cpu);
		key_at = 0;
		/* Sleep until a key, a result, a signal (SIGWINCH, SIGTERM) or the next job. */
		if (poll(pfd, 3, timeout) < 0 && errno != EINTR)
			break;
		while ((rc = get_wch(&wc)) != ERR) {
			if (key_at == 0) {
				key_at = ui_clock();
				key_cpu = thread_cpu();
			}
			ui_handle_key(u, rc == KEY_CODE_YES ? UI_FKEY((int)wc) : (int)wc);
		}
	}
	if (tr != NULL)
		fclose(tr);
	return *u->opts.stop ? GR_EINTERRUPTED : GR_OK;
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
	if (o->view != NULL && (v = ui_view_find(o->view)) < 0)
		return gr_fail(err, GR_EUSAGE, "no view '%s' (offers, instances, metrics, costs)",
		    o->view);
	if (prepare(s, &cfg, err) != GR_OK)
		return err->code;
	u = xcalloc(1, sizeof(*u));
	init_ui(u, s, o, cfg);
	u->view = (enum ui_view)v;
	for (i = 0; i < u->n_prov; i++)
		names[i] = u->prov[i].name;
	u->fetch = lanes_new(names, u->n_prov, s->profile, &ui_lane_ops);
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
		lanes_free(u->fetch);
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
	lanes_free(u->fetch);
	release_ui(u);
	free(u);
	if (report[0] != '\0')
		fputs(report, stdout);
	if (rc == GR_EINTERRUPTED)
		gr_fail(err, rc, "interrupted");
	return rc;
}
