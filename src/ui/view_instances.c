/*
 * view_instances.c - the instances view: every provider's instances in one table, idle
 * ones marked, with details, metrics, stop, start and destroy (after a confirmation).
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/columns.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/remote_job.h"
#include "gpurent/session.h"
#include "gpurent/state.h"
#include "gpurent/team.h"
#include "gpurent/util.h"
#include "ui.h"

/* The instance columns and, after them, the running jobs of each (gpurent run). */
#define COL_JOBS ICOL__COUNT
static struct column inst_cols[ICOL__COUNT + 1];

static const size_t inst_show[] = {
	ICOL_ID, ICOL_PROVIDER, ICOL_LABEL, ICOL_STATE, COL_JOBS, ICOL_GPU, ICOL_GPUS, ICOL_PRICE,
	ICOL_COST, ICOL_UTIL, ICOL_UPTIME, ICOL_REGION,
};

static int
running_jobs(const struct ui *u, const char *id)
{
	size_t i;

	for (i = 0; i < u->iv.n_jobs; i++)
		if (strcmp(u->iv.jobs[i].id, id) == 0)
			return u->iv.jobs[i].running;
	return 0;
}

static void
inst_cell(const void *row, size_t c, struct cell *out, void *ctx)
{
	struct ui *u = ctx;

	if (c < ICOL__COUNT) {
		instance_cell(row, c, out, &u->now);
		return;
	}
	out->kind = CELL_INT;
	out->i = running_jobs(u, ((const struct instance *)row)->id);
}

static void
instances_init(struct ui *u)
{
	memcpy(inst_cols, instance_columns, sizeof(instance_columns));
	inst_cols[COL_JOBS] = (struct column){ "jobs", N_("JOBS"), true, false, 1, 0 };
	ui_grid_init(&u->iv.grid, inst_cols, inst_show, ARRAY_LEN(inst_show), inst_cell, u);
}

/* Count the recorded running jobs per instance: a read of the state database only (the
 * instances are asked by 'gpurent jobs' and 'logs --follow', never from the screen). */
static void
count_jobs(struct ui *u)
{
	struct remote_job *v = NULL;
	struct state *st;
	size_t n = 0, i, k;

	u->iv.n_jobs = 0;
	if (session_state(u->s, &st, NULL) != GR_OK || remote_job_load(st, NULL, &v, &n, NULL)
	    != GR_OK)
		return;
	for (i = 0; i < n; i++) {
		if (v[i].state != JOB_RUNNING)
			continue;
		for (k = 0; k < u->iv.n_jobs && strcmp(u->iv.jobs[k].id, v[i].instance_id) != 0;
		    k++)
			;
		if (k == u->iv.n_jobs) {
			u->iv.jobs = xreallocarray(u->iv.jobs, u->iv.n_jobs + 1,
			    sizeof(*u->iv.jobs));
			strlcpy_(u->iv.jobs[k].id, v[i].instance_id, sizeof(u->iv.jobs[k].id));
			u->iv.jobs[k].running = 0;
			u->iv.n_jobs++;
		}
		u->iv.jobs[k].running++;
	}
	free(v);
}

/* "exited 3", "killed", "running": a job's state as the pane and the J list say it. */
static void
job_state(const struct remote_job *j, char *buf, size_t n)
{
	if (j->state == JOB_EXITED || (j->state == JOB_KILLED && j->exit_code >= 0))
		snprintf(buf, n, "%s %d", remote_job_state_name(j->state), j->exit_code);
	else
		snprintf(buf, n, "%s", remote_job_state_name(j->state));
}

/* The instance's recorded jobs, newest last, in the pager. */
static void
show_jobs(struct ui *u, const struct instance *in)
{
	struct gr_error err = { 0 };
	struct remote_job *v = NULL;
	struct state *st;
	struct sb text;
	char title[ID_MAX + 16], state[32], name[128], line[1024];
	size_t n = 0, i;

	if (session_state(u->s, &st, &err) != GR_OK ||
	    remote_job_load(st, in->id, &v, &n, &err) != GR_OK) {
		u->ctx->message(u, UC_BAD, "%s", err.msg);
		return;
	}
	sb_init(&text);
	for (i = 0; i < n; i++) {
		job_state(&v[i], state, sizeof(state));
		/* Names, commands and accounts hold what users and providers wrote. */
		text_sanitize(name, sizeof(name), v[i].name);
		text_sanitize(line, sizeof(line), v[i].command);
		sb_addf(&text, "%s  %-10s  %s%s%s%s\n    %s\n", v[i].id, state, name,
		    name[0] ? "  " : "", v[i].then_action[0] ? "then " : "", v[i].then_action,
		    line);
		text_sanitize(line, sizeof(line), v[i].account);
		if (line[0])
			sb_addf(&text, _("    after: %s\n"), line);
	}
	if (n == 0)
		sb_adds(&text, _("no jobs recorded; start one with: gpurent run ID -- COMMAND\n"));
	else
		sb_adds(&text, "\n'gpurent logs JOB --follow' shows a job's output.\n");
	snprintf(title, sizeof(title), _("Jobs on %s"), in->id);
	u->ctx->pager(u, title, text.buf);
	sb_release(&text);
	free(v);
}

/* One job's log lines, each stripped: a log holds whatever the job printed. */
static void
add_log(struct sb *text, const struct ui_job_log *lg)
{
	char line[512];
	const char *p = lg->text, *end;

	if (lg->err[0] != '\0') {
		text_sanitize(line, sizeof(line), lg->err);
		sb_addf(text, "  (%s)\n", line);
		return;
	}
	if (*p == '\0')
		sb_adds(text, _("  (nothing written yet)\n"));
	for (; *p != '\0'; p = *end ? end + 1 : end) {
		char raw[512];
		size_t len;

		end = p + strcspn(p, "\n");
		len = (size_t)(end - p) < sizeof(raw) - 1 ? (size_t)(end - p) : sizeof(raw) - 1;
		memcpy(raw, p, len);
		raw[len] = '\0';
		text_sanitize(line, sizeof(line), raw);
		sb_addf(text, "  | %s\n", line);
	}
}

/* The pane's text: the instance's fields, its jobs with their last log lines, Jupyter. */
static void
details_text(struct ui *u, const struct instance *in, struct sb *text)
{
	char val[256], state[32], name[128], cmd[1024], age[32], head[64];
	struct instance whose = *in;
	struct config *cfg;
	struct state *st;
	struct cell c;
	size_t i, k;
	bool team = session_config(u->s, &cfg, NULL) == GR_OK && team_profile(cfg);

	/* USER in a team profile only, as ls shows it: who launched or last started it. */
	if (team && session_state(u->s, &st, NULL) == GR_OK)
		state_journal_users(st, &whose, 1);
	for (i = 0; i < ICOL__COUNT; i++) {
		if (i == ICOL_USER && !team)
			continue;
		memset(&c, 0, sizeof(c));
		instance_cell(&whose, i, &c, &u->now);
		sb_addf(text, "%s %s\n", ui_text_fit(head, sizeof(head),
		    _(instance_columns[i].header), 14, false), cell_text(&c, val, sizeof(val), true));
	}
	sb_adds(text, _("\nJobs"));
	if (u->iv.dlogs_pending)
		sb_adds(text, _("  (fetching their state and logs over ssh ...)"));
	sb_adds(text, "\n");
	/* "None" only once the records came (or were never asked for). */
	if (u->iv.n_djobs == 0 && (u->iv.dlogs_have || !u->iv.dlogs_pending))
		sb_adds(text, _("  none recorded; start one with: gpurent run ID -- COMMAND\n"));
	for (i = 0; i < u->iv.n_djobs; i++) {
		const struct remote_job *j = &u->iv.djobs[i];

		job_state(j, state, sizeof(state));
		memset(&c, 0, sizeof(c));
		c.kind = CELL_DURATION;
		c.i = u->now > j->started_at ? u->now - j->started_at : 0;
		cell_text(&c, age, sizeof(age), true);
		text_sanitize(name, sizeof(name), j->name);
		text_sanitize(cmd, sizeof(cmd), j->command);
		sb_addf(text, "  %s  %-10s  %8s ago  %s\n      %s\n", j->id, state, age, name,
		    cmd);
	}
	if (u->iv.dlogs_err[0] != '\0')
		sb_addf(text, _("  (no logs: %s)\n"), u->iv.dlogs_err);
	for (k = 0; k < u->iv.n_dlogs; k++) {
		sb_addf(text, _("\nLast lines of %s\n"), u->iv.dlogs[k].job_id);
		add_log(text, &u->iv.dlogs[k]);
	}
	sb_adds(text, _("\nJupyter        "));
	if (strcmp(u->iv.jup_id, in->id) != 0)
		sb_adds(text, _("press u on the instance to forward its Jupyter server\n"));
	else if (u->iv.jup_pending)
		sb_adds(text, _("looking for the server over ssh ...\n"));
	else
		sb_addf(text, "%s\n", u->iv.jup_text);
}

/* Open the pane on in, and ask for its jobs' logs in the background. */
static void
open_details(struct ui *u, const struct instance *in)
{
	struct sb text;

	if (strcmp(u->iv.detail_id, in->id) != 0) {
		strlcpy_(u->iv.detail_id, in->id, sizeof(u->iv.detail_id));
		free(u->iv.djobs);
		u->iv.djobs = NULL;
		u->iv.n_djobs = u->iv.n_dlogs = 0;
		u->iv.dlogs_have = false;
		u->iv.dlogs_err[0] = '\0';
	}
	u->ctx->request(u, UJ_JOBLOGS);
	sb_init(&text);
	details_text(u, in, &text);
	u->ctx->pager(u, in->id, text.buf);
	sb_release(&text);
}

void
ui_instances_details_update(struct ui *u)
{
	const struct instance *in;
	struct sb text;
	size_t top = u->dlg_top;

	if (u->dialog != UD_PAGER || u->iv.detail_id[0] == '\0' ||
	    strcmp(u->dlg_title, u->iv.detail_id) != 0)
		return;
	/* Gone from its provider's list (destroyed, or a job that ended): not shown as it was. */
	if ((in = ui_instance_find(u, u->iv.detail_id)) == NULL) {
		u->dialog = UD_NONE;
		u->need_clear = true;
		u->ctx->message(u, UC_DIM, "%s is no longer listed by its provider",
		    u->iv.detail_id);
		return;
	}
	sb_init(&text);
	details_text(u, in, &text);
	u->ctx->pager(u, in->id, text.buf);
	u->dlg_top = top;
	sb_release(&text);
}

/* Find the instance's Jupyter and forward it in the background (UJ_JUPYTER). */
static void
ask_jupyter(struct ui *u, const struct instance *in)
{
	if (in == NULL)
		return;
	struct lane_request req;

	if (in->state != ST_RUNNING) {
		u->ctx->message(u, UC_WARN, "%s is %s; Jupyter needs a running instance", in->id,
		    inst_state_name(in->state));
		return;
	}
	memset(&req, 0, sizeof(req));
	strlcpy_(req.id, in->id, sizeof(req.id));
	lanes_request(u->fetch, UJ_JUPYTER, u->ctx->provider_of(u, in->id), &req);
	strlcpy_(u->iv.jup_id, in->id, sizeof(u->iv.jup_id));
	u->iv.jup_pending = true;
	u->iv.jup_text[0] = '\0';
	u->ctx->message(u, UC_ACCENT, "looking for Jupyter on %s ...", in->id);
}

bool
ui_instances_details_key(struct ui *u, int key)
{
	if (key != 'u' || u->dialog != UD_PAGER || u->iv.detail_id[0] == '\0' ||
	    strcmp(u->dlg_title, u->iv.detail_id) != 0)
		return false;
	ask_jupyter(u, ui_instance_find(u, u->iv.detail_id));
	ui_instances_details_update(u);
	return true;
}

static void
instances_release(struct ui *u)
{
	ui_grid_release(&u->iv.grid);
	free(u->iv.idle);
	free(u->iv.jobs);
	free(u->iv.djobs);
}

static struct ui_idle *
idle_find(struct ui *u, const char *id)
{
	size_t i;

	for (i = 0; i < u->iv.n_idle; i++)
		if (strcmp(u->iv.idle[i].id, id) == 0)
			return &u->iv.idle[i];
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
			u->iv.idle = xreallocarray(u->iv.idle, u->iv.n_idle + 1,
			    sizeof(*u->iv.idle));
			e = &u->iv.idle[u->iv.n_idle++];
			strlcpy_(e->id, in->id, sizeof(e->id));
			e->since = u->now;
		} else if (!low && e != NULL)
			*e = u->iv.idle[--u->iv.n_idle];
	}
	/* Forget instances that are gone. */
	for (k = 0; k < u->iv.n_idle;) {
		for (i = 0; i < u->insts.n; i++)
			if (strcmp(u->insts.v[i].id, u->iv.idle[k].id) == 0)
				break;
		if (i == u->insts.n)
			u->iv.idle[k] = u->iv.idle[--u->iv.n_idle];
		else
			k++;
	}
	count_jobs(u);
	ui_grid_rebuild(&u->iv.grid, u->insts.v, u->insts.n, sizeof(*u->insts.v), NULL, NULL);
	u->dirty = true;
}

static bool
marked_idle(struct ui *u, const void *row)
{
	return is_idle(u, row);
}

static void
ask_destroy(struct ui *u, const struct instance *in)
{
	struct lane_request req;
	char text[1024], h[32], d[32], g[64];
	int64_t saves = instance_saving_hour(in);

	snprintf(text, sizeof(text), _("Destroy %s (%s, %s, %d x %s)?\nIts disk and everything on "
	    "it are deleted; this cannot be undone.\nIt saves %s per hour (%s per day)."), in->id,
	    in->label[0] ? in->label : _("no label"), inst_state_name(in->state), in->gpu_count,
	    catalogue_display(in->gpu, in->gpu_raw, g, sizeof(g)),
	    money_format_in(h, sizeof(h), saves, 3, in->currency),
	    money_format_in(d, sizeof(d), saves * 24, 2, in->currency));
	memset(&req, 0, sizeof(req));
	req.action = UA_DESTROY;
	strlcpy_(req.id, in->id, sizeof(req.id));
	u->ctx->confirm(u, _("Destroy?"), text, &req, u->ctx->provider_of(u, in->id));
}

/*
 * Stop asks first, as launch and destroy do: a stopped machine loses what runs on it. The
 * dialog says what stopping saves and what the disk still bills.
 */
static void
ask_stop(struct ui *u, const struct instance *in)
{
	struct lane_request req;
	char text[1024], h[32], d[32], g[64];

	if (in->valid & IV_STORAGE)
		snprintf(text, sizeof(text), _("Stop %s (%s, %d x %s)?\nWhat runs on it ends; its "
		    "disk is kept.\nIts GPUs stop billing %s per hour;\nits disk still bills %s per "
		    "hour."), in->id, in->label[0] ? in->label : _("no label"), in->gpu_count,
		    catalogue_display(in->gpu, in->gpu_raw, g, sizeof(g)),
		    money_format_in(h, sizeof(h), in->price_hour, 3, in->currency),
		    money_format_in(d, sizeof(d), in->storage_hour, 4, in->currency));
	else
		snprintf(text, sizeof(text), _("Stop %s (%s, %d x %s)?\nWhat runs on it ends; its "
		    "disk is kept.\nIts GPUs stop billing %s per hour."), in->id,
		    in->label[0] ? in->label : _("no label"), in->gpu_count,
		    catalogue_display(in->gpu, in->gpu_raw, g, sizeof(g)),
		    money_format_in(h, sizeof(h), in->price_hour, 3, in->currency));
	memset(&req, 0, sizeof(req));
	req.action = UA_STOP;
	strlcpy_(req.id, in->id, sizeof(req.id));
	u->ctx->confirm(u, _("Stop?"), text, &req, u->ctx->provider_of(u, in->id));
}

static void
lifecycle(struct ui *u, const struct instance *in, enum ui_action a)
{
	struct lane_request req;

	if ((a == UA_STOP && in->state != ST_RUNNING) ||
	    (a == UA_START && in->state != ST_STOPPED)) {
		u->ctx->message(u, UC_WARN, a == UA_STOP ?
		    N_("%s is %s; only a running instance can be stopped") :
		    N_("%s is %s; only a stopped instance can be started"), in->id,
		    inst_state_name(in->state));
		return;
	}
	if (a == UA_STOP) {
		ask_stop(u, in);
		return;
	}
	memset(&req, 0, sizeof(req));
	req.action = a;
	strlcpy_(req.id, in->id, sizeof(req.id));
	lanes_request(u->fetch, UJ_ACTION, u->ctx->provider_of(u, in->id), &req);
	u->ctx->message(u, UC_ACCENT, N_("starting %s ..."), in->id);
}

static bool
instances_key(struct ui *u, int key)
{
	const struct instance *in = ui_grid_selected(&u->iv.grid);

	if (ui_table_key(u, &u->iv.grid, key, ui_instances_rebuild))
		return true;
	if (in == NULL)
		return false;
	switch (key) {
	case '\r': case '\n': case UI_FKEY(KEY_ENTER):
		open_details(u, in);
		return true;
	case 'u':
		ask_jupyter(u, in);
		return true;
	case 'J':
		show_jobs(u, in);
		return true;
	case 'm':
		ui_metrics_watch(u, in->id);
		u->view = UV_METRICS;
		u->need_clear = true;
		return true;
	case 's': case 'S': case 'D':
		if (ui_refuse_readonly(u))
			return true;
		if (key == 'D')
			ask_destroy(u, in);
		else
			lifecycle(u, in, key == 's' ? UA_STOP : UA_START);
		return true;
	}
	return false;
}

static void
instances_draw(struct ui *u, const struct ui_rect *r)
{
	size_t i;
	bool any = false;

	for (i = 0; i < u->n_prov; i++)
		any |= u->prov[i].have_insts;
	ui_table_draw(u, &u->iv.grid, r, !any ? _("fetching instances ...") :
	    _("no instances: pick an offer in Offers (1) and press L"), marked_idle);
}

/* The open detail pane's jobs and logs, and the Jupyter key's answer. */
static void
instances_take(struct ui *u, struct ui_result *r)
{
	switch (r->job) {
	case UJ_JOBLOGS:
		/* An answer for a pane closed since, or for another instance, is dropped. */
		if (strcmp(r->req.id, u->iv.detail_id) != 0)
			break;
		free(u->iv.djobs);
		u->iv.djobs = r->jobs;
		u->iv.n_djobs = r->n_jobs;
		r->jobs = NULL;
		memcpy(u->iv.dlogs, r->logs, sizeof(u->iv.dlogs));
		u->iv.n_dlogs = r->n_logs;
		text_sanitize(u->iv.dlogs_err, sizeof(u->iv.dlogs_err), r->code == GR_OK ? "" :
		    r->err.msg);
		u->iv.dlogs_pending = false;
		u->iv.dlogs_have = true;
		ui_instances_details_update(u);
		break;
	case UJ_JUPYTER:
		strlcpy_(u->iv.jup_id, r->req.id, sizeof(u->iv.jup_id));
		u->iv.jup_pending = false;
		u->iv.jup_ok = r->code == GR_OK;
		text_sanitize(u->iv.jup_text, sizeof(u->iv.jup_text), u->iv.jup_ok ? r->url :
		    r->err.msg);
		if (u->iv.jup_ok)
			u->ctx->message(u, UC_GOOD, "Jupyter on %s: %s", r->req.id, u->iv.jup_text);
		else
			u->ctx->message(u, UC_BAD, "%s", u->iv.jup_text);
		ui_instances_details_update(u);
		break;
	default:
		break;
	}
}

const struct ui_view_ops ui_view_instances = {
	.name = "instances",
	.title = N_("Instances"),
	.init = instances_init,
	.release = instances_release,
	.take = instances_take,
	.draw = instances_draw,
	.key = instances_key,
	.keys = N_("Enter details  J jobs  u jupyter  m metrics  s stop  S start  D destroy  < > sort  * idle"),
};
