/*
 * view_cluster.c - the cluster view: for each provider that is a shared cluster (Slurm),
 * its partitions with the GPUs of each type in total, used, free and down, a gauge, and the
 * pending jobs asking for them; then the user's own jobs with the scheduler's state and
 * its reason (PENDING: Resources, Priority ...). Arrows and page keys scroll.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpurent/i18n.h"
#include "gpurent/util.h"
#include "ui.h"

/* Lines of the view, counted from its top; those from cl_top on that fit are drawn. */
struct lines {
	const struct ui_rect *r;
	size_t top, n;
};

static void
emit(struct lines *l, const char *text, int attr)
{
	int y = (int)(l->n - l->top);

	if (l->n >= l->top && y < l->r->h)
		ui_put(l->r->y + y, 1, l->r->w - 2, text, attr, false);
	l->n++;
}

/* "3m", "2h05m", "1d04h": how long a job has been in its state. */
static void
age(char *buf, size_t n, int64_t since, int64_t now)
{
	long long s = since > 0 && now > since ? (long long)(now - since) : 0;

	if (since <= 0)
		snprintf(buf, n, "-");
	else if (s < 3600)
		snprintf(buf, n, "%lldm", s / 60);
	else if (s < 86400)
		snprintf(buf, n, "%lldh%02lldm", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, n, "%lldd%02lldh", s / 86400, s % 86400 / 3600);
}

/* Used, then free, then down, as a bar of w cells. */
static void
gauge(const struct ui *u, char *buf, size_t n, const struct cluster_pool *p, int w)
{
	int used = ui_level(p->used, p->total, w + 1), free_ = ui_level(p->free, p->total, w + 1);
	size_t len = 0;
	int i;

	for (i = 0; i < w && len + 4 < n; i++) {
		const char *ch = i < used ? (u->utf8 ? "\xe2\x96\x88" : "#") :
		    i < used + free_ ? (u->utf8 ? "\xc2\xb7" : ".") : (u->utf8 ? "\xe2\x95\xb3" : "x");

		memcpy(buf + len, ch, strlen(ch));
		len += strlen(ch);
	}
	buf[len] = '\0';
}

static void
draw_pools(struct ui *u, struct lines *l, const struct cluster_state *c)
{
	char line[512], part[24], gpu[24], bar[128];
	size_t i;

	snprintf(line, sizeof(line), "  %-20s %-14s %6s %6s %6s %6s %6s %8s  %s", _("PARTITION"),
	    _("GPU"), _("TOTAL"), _("USED"), _("FREE"), _("DOWN"), _("NODES"), _("PENDING"),
	    _("USED/FREE"));
	emit(l, line, ui_attr(UC_COLHEAD));
	if (c->n_pools == 0)
		emit(l, _("  no partition with GPUs"), ui_attr(UC_DIM));
	for (i = 0; i < c->n_pools; i++) {
		const struct cluster_pool *p = &c->pools[i];
		int down = p->total - p->used - p->free;

		ui_text_fit(part, sizeof(part), p->partition, 20, false);
		ui_text_fit(gpu, sizeof(gpu), p->gpu_raw, 14, false);
		gauge(u, bar, sizeof(bar), p, 20);
		snprintf(line, sizeof(line), "  %s %s %6d %6d %6d %6d %6d %8d  %s", part, gpu,
		    p->total, p->used, p->free, down > 0 ? down : 0, p->nodes, p->pending, bar);
		emit(l, line, ui_attr(p->free == 0 ? UC_WARN : UC_NORMAL));
	}
}

static void
draw_jobs(struct ui *u, struct lines *l, const struct cluster_state *c, int64_t now)
{
	char line[768], id[24], name[24], state[14], reason[26], part[14], gpus[24], nodes[24];
	char t[32];
	size_t i;

	(void)u;
	snprintf(line, sizeof(line), "  %-16s %-20s %-12s %-24s %-12s %-14s %-16s %s", _("JOB"),
	    _("NAME"), _("STATE"), _("REASON"), _("PARTITION"), _("GPUS"), _("NODES"), _("TIME"));
	emit(l, line, ui_attr(UC_COLHEAD));
	if (c->n_jobs == 0)
		emit(l, _("  no jobs of yours in the queue"), ui_attr(UC_DIM));
	for (i = 0; i < c->n_jobs; i++) {
		const struct cluster_job *j = &c->jobs[i];
		char g[64];

		if (j->gpus > 0)
			snprintf(g, sizeof(g), "%d x %s", j->gpus, j->gpu_raw);
		else
			snprintf(g, sizeof(g), "-");
		/* Everything here came from the cluster: stripped by the backend, cut to fit. */
		ui_text_fit(id, sizeof(id), j->id, 16, false);
		ui_text_fit(name, sizeof(name), j->name[0] ? j->name : "-", 20, false);
		ui_text_fit(state, sizeof(state), j->state, 12, false);
		ui_text_fit(reason, sizeof(reason), j->reason[0] ? j->reason : "-", 24, false);
		ui_text_fit(part, sizeof(part), j->partition, 12, false);
		ui_text_fit(gpus, sizeof(gpus), g, 14, false);
		ui_text_fit(nodes, sizeof(nodes), j->node_list[0] ? j->node_list : "-", 16, false);
		age(t, sizeof(t), j->since, now);
		snprintf(line, sizeof(line), "  %s %s %s %s %s %s %s %s", id, name, state, reason,
		    part, gpus, nodes, t);
		emit(l, line, ui_attr(strcmp(j->state, "RUNNING") == 0 ? UC_GOOD :
		    strcmp(j->state, "PENDING") == 0 ? UC_WARN : UC_NORMAL));
	}
}

static void
draw_cluster(struct ui *u, const struct ui_rect *r)
{
	struct lines l = { r, u->clv.top, 0 };
	char line[512], clean[256];
	int64_t now = (int64_t)time(NULL);
	size_t i, shown = 0;

	for (i = 0; i < u->n_prov; i++) {
		const struct ui_prov *p = &u->prov[i];

		if (!p->is_cluster)
			continue;
		if (shown++ > 0)
			emit(&l, "", A_NORMAL);
		snprintf(line, sizeof(line), _("%s: partitions"), p->name);
		emit(&l, line, ui_attr(UC_ACCENT));
		if (p->err[UJ_CLUSTER][0] != '\0') {
			text_sanitize(clean, sizeof(clean), p->err[UJ_CLUSTER]);
			emit(&l, clean, ui_attr(UC_BAD));
		}
		if (!p->have_cluster) {
			emit(&l, _("  asking the cluster ..."), ui_attr(UC_DIM));
			continue;
		}
		draw_pools(u, &l, &p->cluster);
		emit(&l, "", A_NORMAL);
		snprintf(line, sizeof(line), _("%s: your jobs"), p->name);
		emit(&l, line, ui_attr(UC_ACCENT));
		draw_jobs(u, &l, &p->cluster, now);
	}
	if (shown == 0)
		emit(&l, _("  no cluster among the providers shown (a Slurm cluster is one: "
		    "--provider slurm)"), ui_attr(UC_DIM));
	u->clv.lines = l.n;
}

static bool
cluster_key(struct ui *u, int key)
{
	return ui_scroll_key(u, key, &u->clv.top, u->clv.lines);
}

const struct ui_view_ops ui_view_cluster = {
	.name = "cluster",
	.title = N_("Cluster"),
	.draw = draw_cluster,
	.key = cluster_key,
	.keys = N_("j/k scroll  g top  r refresh  1-6 views"),
};
