/*
 * gpurent ls: every instance of every selected provider.
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/columns.h"
#include "gpurent/groups.h"
#include "gpurent/i18n.h"
#include "gpurent/idcache.h"
#include "gpurent/output.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	const char *label;
	const char *group;
	char group_label[LABEL_MAX];
	bool states[ST__COUNT];
	bool any_state;
	bool all;
};

enum { I_STATE = 1, I_GROUP };

static const struct cmd_opt opts[] = {
	{ "label", 'l', "LABEL", N_("only instances with this label"), OPT_AT(struct args, label), CPL_NONE, OPT_STR },
	{ "state", 's', "STATE", N_("only instances in this state (comma list)"), I_STATE, CPL_STATE, 0 },
	{ "group", 'G', "NAME", N_("only the members of this elastic group (labelled group:NAME)"), I_GROUP, CPL_GROUP, 0 },
	{ "all", 'a', NULL, N_("a cluster (slurm): every job of yours, not only those gpurent submitted"), OPT_AT(struct args, all), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;
	char buf[256], *tok, *save = NULL;
	enum inst_state st;

	switch (id) {
	case I_GROUP:
		if (!group_name_valid(arg))
			return cmd_usage_error(c, "'%s' is not a group name", text_sanitize(buf,
			    sizeof(buf), arg));
		a->group = arg;
		break;
	case I_STATE:
		strlcpy_(buf, arg, sizeof(buf));
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (!inst_state_parse(tok, &st))
				return cmd_usage_error(c, "unknown state '%s' (provisioning, "
				    "running, stopping, stopped, starting, destroying, failed)",
				    tok);
			/* Providers forget destroyed instances; ls cannot list them. */
			if (st == ST_DESTROYED)
				return cmd_usage_error(c, "ls lists the instances a provider still "
				    "has, never destroyed ones; what those cost is in 'gpurent costs "
				    "--by instance'");
			a->states[st] = true;
			a->any_state = true;
		}
		break;
	}
	return 0;
}

static int
ls_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a;
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct gr_error err = { 0 };
	struct instance_list list;
	size_t i, o;
	int rc, status;
	int64_t now;
	enum gr_err frc;

	memset(&a, 0, sizeof(a));
	if (!cmd_parse_options(c, argc, argv, handle, &a, NULL, &rc))
		return rc;
	if (a.group != NULL) {
		struct group g;
		struct state *st;

		if (a.label != NULL)
			return cmd_usage_error(c, "--group selects by the label group:NAME: give "
			    "--group or --label");
		if (session_state(c->s, &st, &err) != GR_OK || groups_get(st, a.group, &g,
		    &err) != GR_OK)
			return cmd_error(c, &err);
		a.label = group_label(a.group_label, sizeof(a.group_label), a.group);
	}
	instance_list_init(&list);
	if (a.all && session_backends(c->s, &err) != GR_OK)
		return cmd_error(c, &err);
	for (i = 0; a.all && i < c->s->n_backends; i++)
		c->s->backends[i]->list_all = true;
	frc = session_instances(c->s, &list, res, &err);
	/* The shell keeps its backends: the next ls lists gpurent's jobs again. */
	for (i = 0; a.all && i < c->s->n_backends; i++)
		c->s->backends[i]->list_all = false;
	if ((rc = fanout_outcome(c, res, frc, &err, &status)) >= 0) {
		instance_list_release(&list);
		return rc;
	}
	{
		struct state *st;

		/* Keep the ids for completion; a failure here must not fail the listing. */
		if (session_state(c->s, &st, NULL) == GR_OK)
			idcache_put_instances(st, list.v, list.n, true, NULL);
	}
	for (i = o = 0; i < list.n; i++) {
		if (a.label != NULL && strcmp(list.v[i].label, a.label) != 0)
			continue;
		if (a.any_state && !a.states[list.v[i].state])
			continue;
		list.v[o++] = list.v[i];
	}
	list.n = o;
	now = session_now(c->s);
	rc = cmd_print(c, instance_columns, ICOL__COUNT, ICOL_ID, list.v, list.n, sizeof(*list.v),
	    instance_cell, &now, status);
	instance_list_release(&list);
	return rc;
}

const struct command cmd_ls = {
	.name = "ls",
	.alias = "instances",
	.args = NULL,
	.summary = N_("list instances"),
	.help =
	    N_("Lists the instances of every selected provider that are not destroyed. Providers\n"
	    "forget destroyed instances, so --state destroyed is refused; what they cost stays\n"
	    "in 'gpurent costs --by instance'. On a cluster (slurm) it lists the jobs gpurent\n"
	    "submitted; --all lists every job of yours."),
	.opts = opts,
	.run = ls_run,
};
