/*
 * The dashboard's tables: filter and sort per data change, in place or in the grid's own
 * worker thread, and format only the rows that are drawn.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/i18n.h"
#include "gpurent/util.h"
#include "grid.h"
#include "layout.h"

/* One filter-and-sort over a set of rows, and its result. */
struct grid_job {
	unsigned long gen;
	struct ui_grid spec;		/* columns, cell function, sort: the grid's when made;
					   rows/size/n from `rows`; nothing else of it is used */
	struct ui_rows *rows;		/* NULL: the caller's borrowed spec.rows */
	bool (*keep)(const void *row, void *kctx);
	void *kctx;			/* the job's own copy */
	char sel_id[ID_MAX];		/* the selection when submitted */

	size_t *order, n_order;
	int want[UI_GRID_MAX_COLS];
	size_t sel;
	bool sel_found;
};

struct ui_grid_worker {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int refs;			/* the grid, and the thread while it runs */
	bool stop;
	int pipe[2];
	unsigned long gen;		/* of the newest submission (written under mu) */
	struct grid_job *pending;	/* submitted, not started */
	struct grid_job *done;		/* finished, not collected */
	char *gate;			/* a job starts once this file exists (tests) */
	struct ui_rows *latest;		/* the rows of the newest submission (UI thread) */
};

/* The sort key of one row: the cell's value, read once per row instead of per comparison. */
struct sort_key {
	const char *s;		/* the text; of money, its currency */
	int64_t i;
	int64_t usd;		/* money: i in US dollars at the grid's rates, when has_usd */
	bool null, str, money, has_usd;
};

struct sort_ctx {
	const struct sort_key *keys;
	bool desc;
};

/* Seconds on the clock the dashboard's ui_clock reads. */
static double
clock_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void
ui_grid_init(struct ui_grid *g, const struct column *cols, const size_t *show, size_t nshow,
    cell_fn get, void *ctx)
{
	memset(g, 0, sizeof(*g));
	g->cols = cols;
	if (nshow > UI_GRID_MAX_COLS)
		nshow = UI_GRID_MAX_COLS;
	memcpy(g->show, show, nshow * sizeof(*show));
	g->nshow = nshow;
	g->get = get;
	g->ctx = ctx;
	g->sort = -1;
}

struct ui_rows *
ui_rows_new(void *v, size_t n, size_t size, void (*release)(void *v))
{
	struct ui_rows *r = xcalloc(1, sizeof(*r));

	r->refs = 1;
	r->v = v;
	r->n = n;
	r->size = size;
	r->release = release;
	return r;
}

static struct ui_rows *
rows_ref(struct ui_rows *r)
{
	if (r != NULL)
		__atomic_add_fetch(&r->refs, 1, __ATOMIC_RELAXED);
	return r;
}

static void
rows_put(struct ui_rows *r)
{
	if (r == NULL || __atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (r->release != NULL)
		r->release(r->v);
	free(r->width);
	free(r);
}

static void
job_free(struct grid_job *j)
{
	if (j == NULL)
		return;
	rows_put(j->rows);
	free(j->kctx);
	free(j->order);
	free(j);
}

static void
worker_free(struct ui_grid_worker *w)
{
	job_free(w->pending);
	job_free(w->done);
	close(w->pipe[0]);
	close(w->pipe[1]);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->mu);
	free(w->gate);
	free(w);
}

void
ui_grid_release(struct ui_grid *g)
{
	struct ui_grid_worker *w = g->worker;
	bool last;

	if (w != NULL) {
		pthread_mutex_lock(&w->mu);
		__atomic_store_n(&w->stop, true, __ATOMIC_RELAXED);
		pthread_cond_signal(&w->cond);
		rows_put(w->latest);
		last = --w->refs == 0;
		pthread_mutex_unlock(&w->mu);
		/* A thread in the middle of a job notices `stop` and frees what is left. */
		if (last)
			worker_free(w);
		g->worker = NULL;
	}
	rows_put(g->held);
	g->held = NULL;
	free(g->order);
	free(g->text);
	free(g->color);
	g->order = NULL;
	g->text = NULL;
	g->color = NULL;
	g->n_order = g->cap = g->win_n = 0;
}

static const void *
row_at(const struct ui_grid *g, size_t i)
{
	return g->rows + i * g->size;
}

/* The text of a row's id cell, as the table shows it. */
static const char *
row_id(const struct ui_grid *g, size_t row, char *buf)
{
	struct cell c;

	memset(&c, 0, sizeof(c));
	g->get(row_at(g, row), g->show[0], &c, g->ctx);
	return cell_text(&c, buf, UI_CELL_MAX, true);
}

/* Unknown values last in either direction, numbers by value, text by bytes. */
static int
cmp_keys(size_t a, size_t b, void *ctx)
{
	const struct sort_ctx *sc = ctx;
	const struct sort_key *ka = &sc->keys[a], *kb = &sc->keys[b];
	int r;

	if (ka->null || kb->null)
		return ka->null - kb->null;
	if (ka->money && kb->money && !money_same_currency(ka->s, kb->s)) {
		/* No rate: never the numbers; one currency after the other, as offers does. */
		if (!ka->has_usd || !kb->has_usd)
			return money_currency_order(ka->s, kb->s);
		r = ka->usd < kb->usd ? -1 : ka->usd > kb->usd;
	} else if (ka->str && kb->str)
		r = strcmp(ka->s ? ka->s : "", kb->s ? kb->s : "");
	else
		r = ka->i < kb->i ? -1 : ka->i > kb->i;
	return sc->desc ? -r : r;
}

/* Whether a newer submission (or the end) made the job pointless. */
static bool
superseded(struct ui_grid_worker *w, const struct grid_job *j)
{
	return w != NULL && (__atomic_load_n(&w->gen, __ATOMIC_RELAXED) != j->gen ||
	    __atomic_load_n(&w->stop, __ATOMIC_RELAXED));
}

/* The text width of every shown cell of every row, once per set of rows. */
static bool
measure_rows(struct ui_grid_worker *w, const struct grid_job *j, unsigned char *width)
{
	const struct ui_grid *g = &j->spec;
	char buf[UI_CELL_MAX];
	struct cell c;
	size_t i, k;
	int tw;

	for (i = 0; i < g->n; i++) {
		if ((i & 4095) == 0 && superseded(w, j))
			return false;
		for (k = 0; k < g->nshow; k++) {
			memset(&c, 0, sizeof(c));
			g->get(row_at(g, i), g->show[k], &c, g->ctx);
			tw = text_width(cell_text(&c, buf, sizeof(buf), true));
			width[i * g->nshow + k] = (unsigned char)(tw > 255 ? 255 : tw);
		}
	}
	return true;
}

/*
 * Filter, measure and sort: the whole of a rebuild but the drawing. w is NULL on the
 * calling thread; in the worker the job stops early (false) when superseded.
 */
static bool
run_job(struct ui_grid_worker *w, struct grid_job *j)
{
	const struct ui_grid *g = &j->spec;
	struct sort_key *keys;
	struct sort_ctx sc;
	char buf[UI_CELL_MAX];
	unsigned char *width = NULL;
	struct cell c;
	size_t i, k;
	int tw;

	if (j->rows != NULL && j->rows->width == NULL && g->n > 0 && g->nshow > 0) {
		width = xreallocarray(NULL, g->n, g->nshow);
		if (!measure_rows(w, j, width)) {
			free(width);
			return false;
		}
		j->rows->width = width;		/* only this thread reads or writes it */
	} else if (j->rows != NULL)
		width = j->rows->width;
	j->order = xreallocarray(NULL, g->n ? g->n : 1, sizeof(*j->order));
	j->n_order = 0;
	for (i = 0; i < g->n; i++) {
		if ((i & 4095) == 0 && superseded(w, j))
			return false;
		if (j->keep == NULL || j->keep(row_at(g, i), j->kctx))
			j->order[j->n_order++] = i;
	}
	for (k = 0; k < g->nshow; k++)
		j->want[k] = text_width(_(g->cols[g->show[k]].header)) + (g->sort == (int)k ? 1 : 0);
	for (i = 0; i < j->n_order; i++)
		for (k = 0; k < g->nshow; k++) {
			if (width != NULL)
				tw = width[j->order[i] * g->nshow + k];
			else {
				memset(&c, 0, sizeof(c));
				g->get(row_at(g, j->order[i]), g->show[k], &c, g->ctx);
				tw = text_width(cell_text(&c, buf, sizeof(buf), true));
			}
			if (tw > j->want[k])
				j->want[k] = tw;
		}
	if (superseded(w, j))
		return false;
	if (g->sort >= 0 && (size_t)g->sort < g->nshow && j->n_order > 1) {
		keys = xreallocarray(NULL, g->n, sizeof(*keys));
		for (i = 0; i < j->n_order; i++) {
			size_t r = j->order[i];

			memset(&c, 0, sizeof(c));
			g->get(row_at(g, r), g->show[g->sort], &c, g->ctx);
			keys[r].null = c.kind == CELL_NULL;
			keys[r].str = c.kind == CELL_STR;
			keys[r].money = c.kind == CELL_MONEY;
			keys[r].s = c.s;
			keys[r].i = c.i;
			keys[r].has_usd = keys[r].money && money_convert(&g->fx, c.i, c.s, "USD",
			    &keys[r].usd);
		}
		sc.keys = keys;
		sc.desc = g->desc;
		ui_sort_index(j->order, j->n_order, cmp_keys, &sc);
		free(keys);
	}
	/* Keep the selection on the same record when it is still listed. */
	j->sel_found = false;
	if (j->sel_id[0] != '\0' && g->nshow > 0)
		for (i = 0; i < j->n_order; i++) {
			if ((i & 4095) == 0 && superseded(w, j))
				return false;
			if (strcmp(row_id(g, j->order[i], buf), j->sel_id) == 0) {
				j->sel = i;
				j->sel_found = true;
				break;
			}
		}
	return true;
}

/* Show a finished job's order (the UI thread); the job keeps nothing of it. */
static void
apply_job(struct ui_grid *g, struct grid_job *j)
{
	char buf[UI_CELL_MAX];
	size_t i;

	free(g->order);
	g->order = j->order;
	j->order = NULL;
	g->n_order = j->n_order;
	g->cap = j->spec.n;
	memcpy(g->want, j->want, sizeof(g->want));
	if (j->rows != NULL) {
		rows_put(g->held);
		g->held = rows_ref(j->rows);
	}
	g->rows = j->spec.rows;
	g->n = j->spec.n;
	g->size = j->spec.size;
	g->win_n = 0;
	if (strcmp(j->sel_id, g->sel_id) == 0) {
		if (j->sel_found)
			g->sel = j->sel;
	} else if (g->sel_id[0] != '\0' && g->nshow > 0)
		/* The selection moved while the job ran: look for where it is now. */
		for (i = 0; i < g->n_order; i++)
			if (strcmp(row_id(g, g->order[i], buf), g->sel_id) == 0) {
				g->sel = i;
				break;
			}
	if (g->sel >= g->n_order)
		g->sel = g->n_order ? g->n_order - 1 : 0;
	if (g->n_order > 0 && g->nshow > 0)
		strlcpy_(g->sel_id, row_id(g, g->order[g->sel], buf), sizeof(g->sel_id));
}

static struct grid_job *
job_new(const struct ui_grid *g, bool (*keep)(const void *row, void *kctx), const void *kctx,
    size_t kctx_size)
{
	struct grid_job *j = xcalloc(1, sizeof(*j));

	j->spec = *g;
	j->keep = keep;
	if (kctx != NULL && kctx_size > 0) {
		j->kctx = xreallocarray(NULL, 1, kctx_size);
		memcpy(j->kctx, kctx, kctx_size);
	}
	strlcpy_(j->sel_id, g->sel_id, sizeof(j->sel_id));
	return j;
}

void
ui_grid_rebuild(struct ui_grid *g, const void *rows, size_t n, size_t size,
    bool (*keep)(const void *row, void *kctx), void *kctx)
{
	struct grid_job *j = job_new(g, keep, NULL, 0);

	j->kctx = kctx;		/* borrowed: the job runs here and now */
	j->spec.rows = rows;
	j->spec.n = n;
	j->spec.size = size;
	run_job(NULL, j);
	rows_put(g->held);
	g->held = NULL;
	apply_job(g, j);
	j->kctx = NULL;
	job_free(j);
}

/*
 * Hold job j until the gate file exists, then take it away (one file, one job): a test's
 * window to see a sort running and press keys meanwhile, ended by the test, not a clock. A
 * newer submission ends the wait without taking the file; at most 120 s. Called with mu.
 */
static void
wait_gate(struct ui_grid_worker *w, const struct grid_job *j)
{
	struct timespec until;
	int i;

	for (i = 0; i < 6000 && !w->stop && w->gen == j->gen; i++) {
		if (unlink(w->gate) == 0)
			return;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 20000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->cond, &w->mu, &until);
	}
}

static void *
worker_main(void *arg)
{
	struct ui_grid_worker *w = arg;
	struct grid_job *j;
	bool ok, last;
	char b = 1;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && w->pending == NULL)
			pthread_cond_wait(&w->cond, &w->mu);
		if (w->stop)
			break;
		j = w->pending;
		w->pending = NULL;
		if (w->gate != NULL)
			wait_gate(w, j);
		pthread_mutex_unlock(&w->mu);
		ok = run_job(w, j);
		pthread_mutex_lock(&w->mu);
		if (!ok || w->stop || j->gen != w->gen) {
			job_free(j);
			continue;
		}
		job_free(w->done);
		w->done = j;
		/* Non-blocking: a full pipe already says "a result is waiting". */
		if (write(w->pipe[1], &b, 1) < 0 && errno != EAGAIN)
			break;
	}
	last = --w->refs == 0;
	pthread_mutex_unlock(&w->mu);
	if (last)
		worker_free(w);
	return NULL;
}

bool
ui_grid_async(struct ui_grid *g, const char *gate)
{
	struct ui_grid_worker *w;
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;
	int i, rc;

	if (g->worker != NULL)
		return true;
	w = xcalloc(1, sizeof(*w));
	if (pipe(w->pipe) != 0) {
		free(w);
		return false;
	}
	for (i = 0; i < 2; i++) {
		fcntl(w->pipe[i], F_SETFL, fcntl(w->pipe[i], F_GETFL) | O_NONBLOCK);
		fcntl(w->pipe[i], F_SETFD, FD_CLOEXEC);
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->gate = gate != NULL ? xstrdup(gate) : NULL;
	w->refs = 2;
	/* Signals (SIGINT, SIGWINCH) stay with the UI thread, as with the lanes. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&th, &attr, worker_main, w);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		w->refs = 1;
		worker_free(w);
		return false;
	}
	g->worker = w;
	return true;
}

int
ui_grid_fd(const struct ui_grid *g)
{
	return g->worker != NULL ? g->worker->pipe[0] : -1;
}

void
ui_grid_submit(struct ui_grid *g, struct ui_rows *rows,
    bool (*keep)(const void *row, void *kctx), const void *kctx, size_t kctx_size)
{
	struct ui_grid_worker *w = g->worker;
	struct grid_job *j;

	if (rows == NULL)
		rows = rows_ref(w != NULL && w->latest != NULL ? w->latest : g->held);
	if (rows == NULL)
		return;		/* nothing to show yet: the first rows bring the settings */
	j = job_new(g, keep, kctx, kctx_size);
	j->rows = rows;
	j->spec.rows = rows->v;
	j->spec.n = rows->n;
	j->spec.size = rows->size;
	if (w == NULL) {
		run_job(NULL, j);
		apply_job(g, j);
		job_free(j);
		return;
	}
	if (w->latest != rows) {
		rows_put(w->latest);
		w->latest = rows_ref(rows);
	}
	pthread_mutex_lock(&w->mu);
	j->gen = __atomic_add_fetch(&w->gen, 1, __ATOMIC_RELAXED);
	job_free(w->pending);
	w->pending = j;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->mu);
	g->busy = true;
	g->submitted = clock_now();
}

bool
ui_grid_collect(struct ui_grid *g)
{
	struct ui_grid_worker *w = g->worker;
	struct grid_job *j;
	char buf[64];

	if (w == NULL)
		return false;
	pthread_mutex_lock(&w->mu);
	while (read(w->pipe[0], buf, sizeof(buf)) > 0)
		;
	j = w->done;
	w->done = NULL;
	pthread_mutex_unlock(&w->mu);
	if (j == NULL)
		return false;
	if (j->gen != w->gen) {
		/* Finished just before a newer submission: never shown. */
		job_free(j);
		return false;
	}
	apply_job(g, j);
	job_free(j);
	g->busy = false;
	return true;
}

bool
ui_grid_wait(struct ui_grid *g, long timeout_ms)
{
	struct pollfd p;

	if (g->worker == NULL || !g->busy)
		return false;
	p.fd = g->worker->pipe[0];
	p.events = POLLIN;
	while (g->busy && poll(&p, 1, (int)timeout_ms) > 0)
		ui_grid_collect(g);
	return !g->busy;
}

const void *
ui_grid_selected(const struct ui_grid *g)
{
	return g->n_order > 0 ? row_at(g, g->order[g->sel]) : NULL;
}

bool
ui_grid_move(struct ui_grid *g, long delta)
{
	char buf[UI_CELL_MAX];
	size_t old = g->sel;
	long s = (long)g->sel + delta;

	if (g->n_order == 0)
		return false;
	if (s < 0)
		s = 0;
	if ((size_t)s >= g->n_order)
		s = (long)g->n_order - 1;
	g->sel = (size_t)s;
	if (g->nshow > 0)
		strlcpy_(g->sel_id, row_id(g, g->order[g->sel], buf), sizeof(g->sel_id));
	return g->sel != old;
}

size_t
ui_grid_fit(const struct ui_grid *g, int avail, int gap, int *width)
{
	int min[UI_GRID_MAX_COLS], prio[UI_GRID_MAX_COLS];
	size_t k;

	for (k = 0; k < g->nshow; k++) {
		const struct column *c = &g->cols[g->show[k]];

		min[k] = c->min <= 0 ? 0 : c->min < g->want[k] ? c->min : g->want[k];
		prio[k] = c->prio;
	}
	return out_fit_widths(g->want, min, prio, g->nshow, avail, gap, width);
}

/* Format the window of rows around r: what the next frames draw. */
static void
window_fill(struct ui_grid *g, size_t r)
{
	size_t i, k, nshow = g->nshow ? g->nshow : 1;
	struct cell c;

	if (g->text == NULL) {
		g->text = xreallocarray(NULL, UI_GRID_WINDOW * nshow, sizeof(*g->text));
		g->color = xreallocarray(NULL, UI_GRID_WINDOW, nshow);
	}
	g->win_top = r > UI_GRID_WINDOW / 4 ? r - UI_GRID_WINDOW / 4 : 0;
	g->win_n = g->n_order - g->win_top < UI_GRID_WINDOW ? g->n_order - g->win_top :
	    UI_GRID_WINDOW;
	for (i = 0; i < g->win_n; i++)
		for (k = 0; k < g->nshow; k++) {
			memset(&c, 0, sizeof(c));
			g->get(row_at(g, g->order[g->win_top + i]), g->show[k], &c, g->ctx);
			cell_text(&c, g->text[i * g->nshow + k], UI_CELL_MAX, true);
			g->color[i * g->nshow + k] = (unsigned char)c.color;
		}
}

const char *
ui_grid_text(struct ui_grid *g, size_t r, size_t c)
{
	if (r < g->win_top || r >= g->win_top + g->win_n)
		window_fill(g, r);
	return g->text[(r - g->win_top) * g->nshow + c];
}

int
ui_grid_color(struct ui_grid *g, size_t r, size_t c)
{
	if (r < g->win_top || r >= g->win_top + g->win_n)
		window_fill(g, r);
	return g->color[(r - g->win_top) * g->nshow + c];
}
