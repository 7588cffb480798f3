/*
 * view_metrics.c - the metrics view: one instance's GPUs, each as sparklines of
 * utilisation, memory, temperature and power over the last samples (the first from the
 * sample history, so they start full), and every field of the selected GPU's last sample.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/columns.h"
#include "gpurent/i18n.h"
#include "gpurent/money.h"
#include "gpurent/util.h"
#include "ui.h"

/* One line of the field list: a label of 13 columns (up to 4 bytes each) and a value. */
#define FIELD_LINE_MAX 128

void
ui_metrics_watch(struct ui *u, const char *id)
{
	if (strcmp(u->mv.watch, id) == 0)
		return;
	strlcpy_(u->mv.watch, id, sizeof(u->mv.watch));
	memset(u->mv.ring, 0, sizeof(u->mv.ring));
	memset(u->mv.last, 0, sizeof(u->mv.last));
	u->mv.n_gpus = 0;
	u->mv.gpu_top = 0;
	u->mv.want_history = true;
	u->ctx->request(u, UJ_METRICS);
}

/*
 * The place of a GPU on the view: by its index on one machine, by its node and index on
 * an instance of several (a multi-node Slurm job, each node's GPU 0 its own), in the
 * order first seen; -1 past UI_MAX_GPUS or for a node's no-sample row (index -1).
 */
static int
gpu_slot(struct ui *u, const struct gpu_sample *g)
{
	int k;

	if (g->index < 0)
		return -1;
	if (g->node[0] == '\0')
		return g->index < UI_MAX_GPUS && (g->index >= u->mv.n_gpus ||
		    u->mv.last[g->index].node[0] == '\0') ? g->index : -1;
	for (k = 0; k < u->mv.n_gpus; k++)
		if (u->mv.last[k].index == g->index && strcmp(u->mv.last[k].node, g->node) == 0)
			return k;
	return u->mv.n_gpus < UI_MAX_GPUS ? u->mv.n_gpus : -1;
}

/* The newest sample of each GPU, without a point on the sparklines. */
static void
push_samples_last(struct ui *u, const struct sample_list *l)
{
	size_t i;
	int k;

	for (i = 0; i < l->n; i++)
		if ((k = gpu_slot(u, &l->v[i])) >= 0) {
			u->mv.last[k] = l->v[i];
			if (k + 1 > u->mv.n_gpus)
				u->mv.n_gpus = k + 1;
		}
}

static void
push_samples(struct ui *u, const struct sample_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct gpu_sample *g = &l->v[i];
		int k = gpu_slot(u, g);

		if (k < 0)
			continue;
		ui_ring_push(&u->mv.ring[k][UM_UTIL], g->valid & MV_UTIL ? g->util_pct : -1);
		ui_ring_push(&u->mv.ring[k][UM_MEM], (g->valid & MV_MEM) && g->mem_total_mib > 0 ?
		    (int)((int64_t)g->mem_used_mib * 100 / g->mem_total_mib) : -1);
		ui_ring_push(&u->mv.ring[k][UM_TEMP], g->valid & MV_TEMP ? g->temp_c : -1);
		ui_ring_push(&u->mv.ring[k][UM_POWER], g->valid & MV_POWER ? g->power_w : -1);
		u->mv.last[k] = *g;
		if (k + 1 > u->mv.n_gpus)
			u->mv.n_gpus = k + 1;
	}
}

/*
 * The watched instance's newest samples; asked with the history (the first request for an
 * instance), the history with them, from which the sparklines start over.
 */
static void
metrics_take(struct ui *u, struct ui_result *r)
{
	if (r->job != UJ_METRICS || strcmp(r->req.id, u->mv.watch) != 0)
		return;
	/* The history comes even when the sample did not (lanes.c). */
	if (r->code != GR_OK && !(r->req.history && r->history.n > 0))
		return;
	if (!r->req.history) {
		push_samples(u, &r->samples);
		return;
	}
	/* With no live sample (Slurm has none) the history is all there is: asked again at
	   each refresh, for what ssh recorded since. */
	u->mv.want_history = r->code != GR_OK;
	memset(u->mv.ring, 0, sizeof(u->mv.ring));
	/* The history holds the sample already (it was stored first); the sample names the
	   newest figures. */
	push_samples(u, r->history.n > 0 ? &r->history : &r->samples);
	if (r->history.n > 0)
		push_samples_last(u, &r->samples);
}

/* One graph row: label, the last samples as bars, the value now. */
/* old: the figures are an instance's last before it stopped: graph and value dimmed. */
static void
draw_spark(struct ui *u, int y, int w, const char *label, const struct ui_ring *r, int max,
    const char *value, enum ui_color color, bool old)
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
	ui_put(y, 10, gw, line, ui_attr(old ? UC_DIM : color), false);
	ui_put(y, 10 + gw + 1, 23, value, ui_attr(old ? UC_DIM : UC_NORMAL), true);
}

/*
 * Every field of one sample, "N/A" where it is unknown; returns the number of lines. Labels
 * are padded by display width, since a translated one may be CJK.
 */
static size_t
field_lines(const struct gpu_sample *s, int64_t now, char lines[][FIELD_LINE_MAX], size_t max)
{
	char lab[64];
	size_t n = 0;

#define LINE(...) do { if (n < max) snprintf(lines[n++], FIELD_LINE_MAX, __VA_ARGS__); } while (0)
#define LABEL(label) ui_text_fit(lab, sizeof(lab), _(label), 13, false)
#define FIELD(bit, label, fmt, ...) do { \
		if (s->valid & (bit)) \
			LINE("%s " fmt, LABEL(label), __VA_ARGS__); \
		else \
			LINE("%s N/A", LABEL(label)); \
	} while (0)
#define TEXT(label, str) LINE("%s %.49s", LABEL(label), (str)[0] ? (str) : "N/A")
	TEXT(N_("name"), s->name);
	TEXT(N_("uuid"), s->uuid);
	TEXT(N_("driver"), s->driver);
	FIELD(MV_UTIL, N_("utilisation"), "%d %%", s->util_pct);
	FIELD(MV_MEM_UTIL, N_("memory bw"), "%d %%", s->mem_util_pct);
	FIELD(MV_MEM, N_("memory used"), "%d MiB", s->mem_used_mib);
	FIELD(MV_MEM, N_("memory total"), "%d MiB", s->mem_total_mib);
	FIELD(MV_MEM_FREE, N_("memory free"), "%d MiB", s->mem_free_mib);
	FIELD(MV_TEMP, N_("temperature"), "%d C", s->temp_c);
	FIELD(MV_TEMP_MEM, N_("memory temp"), "%d C", s->temp_mem_c);
	FIELD(MV_POWER, N_("power"), "%d W", s->power_w);
	FIELD(MV_POWER_LIMIT, N_("power limit"), "%d W", s->power_limit_w);
	FIELD(MV_POWER_ENFORCED, N_("enforced lim"), "%d W", s->power_enforced_w);
	FIELD(MV_CLK_SM, N_("SM clock"), "%d MHz", s->clk_sm_mhz);
	FIELD(MV_CLK_SM_MAX, N_("SM clock max"), "%d MHz", s->clk_sm_max_mhz);
	FIELD(MV_CLK_MEM, N_("mem clock"), "%d MHz", s->clk_mem_mhz);
	FIELD(MV_FAN, N_("fan"), "%d %%", s->fan_pct);
	FIELD(MV_PSTATE, N_("pstate"), "P%d", s->pstate);
	FIELD(MV_PCIE_GEN, N_("PCIe gen"), "%d", s->pcie_gen);
	FIELD(MV_PCIE_WIDTH, N_("PCIe width"), "x%d", s->pcie_width);
	FIELD(MV_ENC, N_("encoder"), "%d %%", s->enc_pct);
	FIELD(MV_DEC, N_("decoder"), "%d %%", s->dec_pct);
	FIELD(MV_ECC_UNCORR, N_("ECC uncorr"), "%lld", (long long)s->ecc_uncorrected);
	FIELD(MV_XID, N_("last Xid"), "%d", s->xid);
	FIELD(MV_XID_COUNT, N_("Xid count"), "%d", s->xid_count);
	TEXT(N_("PCI bus"), s->pci_bus_id);
	FIELD(MV_THROTTLE, N_("throttle"), "0x%llx", (unsigned long long)s->throttle);
	FIELD(MV_COMPUTE_MODE, N_("compute mode"), "%d", s->compute_mode);
	FIELD(MV_MIG, N_("MIG"), "%s", s->mig ? "on" : "off");
	LINE(_("%s %s, %llds ago"), LABEL(N_("source")), s->source == SAMPLE_SSH ? "ssh" : "api",
	    (long long)(now > s->at ? now - s->at : 0));
#undef TEXT
#undef LABEL
#undef FIELD
#undef LINE
	return n;
}

/* The field list of the selected GPU in a column at x, from y down to bottom. */
static void
draw_fields(struct ui *u, int y, int x, int w, int bottom)
{
	const struct gpu_sample *s = &u->mv.last[u->mv.gpu_top];
	char lines[32][FIELD_LINE_MAX], title[128], node[64];
	size_t n, i;

	n = field_lines(s, u->now, lines, 32);
	if (s->node[0] != '\0') {
		text_sanitize(node, sizeof(node), s->node);
		snprintf(title, sizeof(title), _("%s GPU %d, every field"), node, s->index);
	} else
		snprintf(title, sizeof(title), _("GPU %zu, every field"), u->mv.gpu_top);
	ui_put(y++, x, w, title, ui_attr(UC_COLHEAD), false);
	for (i = 0; i < n && y < bottom; i++)
		ui_put(y++, x, w, lines[i], ui_attr(strstr(lines[i], " N/A") ? UC_DIM :
		    UC_NORMAL), false);
}

static void
draw_metrics(struct ui *u, const struct ui_rect *r)
{
	const struct instance *in = ui_instance_find(u, u->mv.watch);
	char line[512], v[64], price[32], gname[64];
	int y = r->y, p, g, w;

	if (u->mv.watch[0] == '\0') {
		ui_put(y + 1, 2, r->w - 4, _("No instance chosen: select one in Instances (2) and "
		    "press m."), ui_attr(UC_DIM), false);
		return;
	}
	if (in != NULL)
		snprintf(line, sizeof(line), "%s  %d x %s  %s  %s/h  %s", in->id, in->gpu_count,
		    catalogue_display(in->gpu, in->gpu_raw, gname, sizeof(gname)),
		    inst_state_name(in->state),
		    money_format_in(price, sizeof(price), in->price_hour, 3, in->currency),
		    in->label[0] ? in->label : "");
	else
		snprintf(line, sizeof(line), "%s", u->mv.watch);
	ui_put(y++, 0, r->w, line, ui_attr(UC_COLHEAD), false);
	p = u->ctx->provider_of(u, u->mv.watch);
	if (u->mv.n_gpus == 0) {
		const char *why = p >= 0 && u->prov[p].err[UJ_METRICS][0] ? u->prov[p].err[UJ_METRICS] :
		    in != NULL && in->state != ST_RUNNING ? _("metrics come from running instances") :
		    _("waiting for the first sample");

		ui_put(y + 1, 2, r->w - 4, why, ui_attr(UC_DIM), false);
		return;
	}
	if (u->mv.gpu_top >= (size_t)u->mv.n_gpus)
		u->mv.gpu_top = (size_t)u->mv.n_gpus - 1;
	/* Wide: the selected GPU's fields in a column on the right; narrow: under its graphs. */
	if (r->w >= 100) {
		draw_fields(u, y, r->w - 34, 34, r->y + r->h);
		w = r->w - 36;
	} else
		w = r->w;
	for (g = (int)u->mv.gpu_top; g < u->mv.n_gpus && y + 5 <= r->y + r->h; g++) {
		const struct gpu_sample *s = &u->mv.last[g];
		enum ui_color tc = !(s->valid & MV_TEMP) ? UC_DIM : s->temp_c >= 85 ? UC_BAD :
		    s->temp_c >= 75 ? UC_WARN : UC_GOOD;
		/* An instance that no longer runs sends no samples: its last ones are old. */
		bool old = in == NULL || in->state != ST_RUNNING;

		if (s->node[0] != '\0') {
			text_sanitize(gname, sizeof(gname), s->node);
			snprintf(line, sizeof(line), _("%s GPU %d"), gname, s->index);
		} else
			snprintf(line, sizeof(line), _("GPU %d"), g);
		ui_put(y, 1, w - 2, line, ui_attr(UC_ACCENT), false);
		if (old) {
			char age[32], note[128];

			format_uptime(age, sizeof(age), (long long)(u->now > s->at ? u->now - s->at :
			    0));
			snprintf(note, sizeof(note), _("last sample %s ago, before the instance was %s"),
			    age, in != NULL ? inst_state_name(in->state) : _("gone"));
			ui_put(y, 3 + text_width(line), w - 4 - text_width(line), note,
			    ui_attr(UC_DIM), false);
		}
		y++;
		snprintf(v, sizeof(v), s->valid & MV_UTIL ? "%d %%" : "N/A", s->util_pct);
		draw_spark(u, y++, w, _("util"), &u->mv.ring[g][UM_UTIL], 100, v,
		    (s->valid & MV_UTIL) && s->util_pct < 5 ? UC_IDLE : UC_GOOD, old);
		if (s->valid & MV_MEM)
			snprintf(v, sizeof(v), "%d / %d MiB", s->mem_used_mib, s->mem_total_mib);
		else
			snprintf(v, sizeof(v), "N/A");
		draw_spark(u, y++, w, _("memory"), &u->mv.ring[g][UM_MEM], 100, v, UC_ACCENT, old);
		snprintf(v, sizeof(v), s->valid & MV_TEMP ? "%d C" : "N/A", s->temp_c);
		draw_spark(u, y++, w, _("temp"), &u->mv.ring[g][UM_TEMP], 100, v, tc, old);
		if ((s->valid & MV_POWER) && (s->valid & MV_POWER_LIMIT))
			snprintf(v, sizeof(v), "%d / %d W", s->power_w, s->power_limit_w);
		else if (s->valid & MV_POWER)
			snprintf(v, sizeof(v), "%d W", s->power_w);
		else
			snprintf(v, sizeof(v), "N/A");
		draw_spark(u, y++, w, _("power"), &u->mv.ring[g][UM_POWER],
		    s->valid & MV_POWER_LIMIT ? s->power_limit_w : 700, v, UC_WARN, old);
		if (w == r->w && g == (int)u->mv.gpu_top) {
			draw_fields(u, y, 2, w - 4, r->y + r->h - 1);
			g++;
			break;
		}
	}
	if (g < u->mv.n_gpus)
		ui_put(r->y + r->h - 1, 2, r->w - 4, _("more GPUs below (j)"), ui_attr(UC_DIM), false);
}

/* Watch the next or previous running instance in the instances table. */
static void
cycle_watch(struct ui *u, int dir)
{
	size_t i, n = u->iv.grid.n_order, cur = n, k;

	for (i = 0; i < n; i++) {
		const struct instance *in = (const void *)(u->iv.grid.rows +
		    u->iv.grid.order[i] * u->iv.grid.size);

		if (strcmp(in->id, u->mv.watch) == 0)
			cur = i;
	}
	for (k = 1; k <= n; k++) {
		size_t j = cur == n ? (dir > 0 ? k - 1 : n - k) : (cur + n + (size_t)dir * k) % n;
		const struct instance *in = (const void *)(u->iv.grid.rows +
		    u->iv.grid.order[j] * u->iv.grid.size);

		if (in->state == ST_RUNNING) {
			ui_metrics_watch(u, in->id);
			return;
		}
	}
	u->ctx->message(u, UC_DIM, "no other running instance");
}

static bool
metrics_key(struct ui *u, int key)
{
	switch (key) {
	case 'j': case UI_FKEY(KEY_DOWN):
		if (u->mv.gpu_top + 1 < (size_t)u->mv.n_gpus)
			u->mv.gpu_top++;
		return true;
	case 'k': case UI_FKEY(KEY_UP):
		if (u->mv.gpu_top > 0)
			u->mv.gpu_top--;
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

const struct ui_view_ops ui_view_metrics = {
	.name = "metrics",
	.title = N_("Metrics"),
	.take = metrics_take,
	.draw = draw_metrics,
	.key = metrics_key,
	.keys = N_("j/k select GPU  n/p instance  r refresh"),
};
