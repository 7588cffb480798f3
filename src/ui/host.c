/*
 * host.c - what the dashboard does for its views and keys: the status-line message,
 * requests to the provider lanes, the confirmation dialog and the pager. The views reach
 * these only through the context of callbacks below (ui.h, struct ui_view_ctx), so no
 * view calls back up into the dashboard.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpurent/backend.h"
#include "gpurent/i18n.h"
#include "gpurent/util.h"
#include "ui.h"

void
ui_message(struct ui *u, int color, const char *fmt, ...)
{
	char raw[sizeof(u->msg)];
	va_list ap;

	va_start(ap, fmt);
	/* Translated here, not at each call (xgettext keywords ui_message:3 and message:3). */
	vsnprintf(raw, sizeof(raw), _(fmt), ap);
	va_end(ap);
	/* Messages quote providers: strip anything that could steer the terminal. */
	text_sanitize(u->msg, sizeof(u->msg), raw);
	u->msg_color = color;
	u->msg_until = ui_clock() + 6;
	u->dirty = true;
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

/* job for the instance id, to the lane of the provider that has it; false where none has. */
static bool
request_instance(struct ui *u, enum ui_job job, const char *id, struct lane_request *req)
{
	int p;

	if (id[0] == '\0' || (p = ui_provider_of(u, id)) < 0)
		return false;
	strlcpy_(req->id, id, sizeof(req->id));
	lanes_request(u->fetch, job, p, req);
	return true;
}

/* Ask every provider's lane for a job now (metrics: the watched instance's provider). */
void
ui_request(struct ui *u, enum ui_job job)
{
	struct lane_request req;
	size_t i;

	memset(&req, 0, sizeof(req));
	u->last_req[job] = ui_clock();
	switch (job) {
	case UJ_OFFERS:
		req.filter = u->ov.filter;
		for (i = 0; i < u->n_prov; i++)
			lanes_request(u->fetch, job, (int)i, &req);
		break;
	case UJ_INSTANCES:
		for (i = 0; i < u->n_prov; i++)
			lanes_request(u->fetch, job, (int)i, &req);
		break;
	case UJ_METRICS:
		req.history = u->mv.want_history;
		request_instance(u, job, u->mv.watch, &req);
		break;
	case UJ_COSTS:
		lanes_request(u->fetch, job, -1, &req);
		break;
	case UJ_CLUSTER:
		for (i = 0; i < u->n_prov; i++)
			if (u->prov[i].is_cluster)
				lanes_request(u->fetch, job, (int)i, &req);
		break;
	case UJ_JOBLOGS:
		if (request_instance(u, job, u->iv.detail_id, &req))
			u->iv.dlogs_pending = true;
		break;
	default:
		break;
	}
}

void
ui_confirm(struct ui *u, const char *title, const char *text, const struct lane_request *req,
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

const struct ui_view_ctx ui_host_ctx = {
	.message = ui_message,
	.request = ui_request,
	.confirm = ui_confirm,
	.pager = ui_pager,
	.provider_of = ui_provider_of,
};
