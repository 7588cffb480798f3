/*
 * The views, one file each (view_*.c), and what the dashboard asks of them: of each, to
 * take what the lanes brought for its own state; of the one on screen, to draw its body,
 * answer its keys, name its keys. A new view is a file and a line here.
 */
#include <stddef.h>

#include "gpurent/i18n.h"
#include "ui.h"

static const struct ui_view_ops *const views[UV__COUNT] = {
	[UV_OFFERS] = &ui_view_offers,
	[UV_INSTANCES] = &ui_view_instances,
	[UV_METRICS] = &ui_view_metrics,
	[UV_COSTS] = &ui_view_costs,
	[UV_EVENTS] = &ui_view_events,
	[UV_CLUSTER] = &ui_view_cluster,
	[UV_JOBS] = &ui_view_jobs,
};

void
ui_views_init(struct ui *u)
{
	size_t i;

	for (i = 0; i < UV__COUNT; i++)
		if (views[i]->init != NULL)
			views[i]->init(u);
}

void
ui_views_release(struct ui *u)
{
	size_t i;

	for (i = 0; i < UV__COUNT; i++)
		if (views[i]->release != NULL)
			views[i]->release(u);
}

void
ui_views_take(struct ui *u, struct ui_result *r)
{
	size_t i;

	for (i = 0; i < UV__COUNT; i++)
		if (views[i]->take != NULL)
			views[i]->take(u, r);
}

void
ui_view_draw(struct ui *u)
{
	views[u->view]->draw(u, &u->lay.body);
}

bool
ui_view_key(struct ui *u, int key)
{
	return views[u->view]->key != NULL && views[u->view]->key(u, key);
}

int
ui_view_find(const char *name)
{
	const char *names[UV__COUNT];
	size_t i;

	for (i = 0; i < UV__COUNT; i++)
		names[i] = views[i]->name;
	return ui_name_lookup(names, UV__COUNT, name);
}

const char *
ui_view_title(enum ui_view v)
{
	return _(views[v]->title);
}

const char *
ui_view_keys(const struct ui *u)
{
	return _(views[u->view]->keys);
}
