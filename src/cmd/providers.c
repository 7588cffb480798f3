/*
 * gpurent providers: the backends, what they can do, and whether they answer.
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/observed.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"

struct prow {
	const struct backend_ops *ops;
	bool selected;
	bool has_key;
	const char *status;
	char detail[256];
	struct account acct;
};

static const struct column cols[] = {
	{ "name", N_("NAME"), false, false, 0, 0 },
	{ "selected", N_("USED"), false, false, 0, 0 },
	{ "status", N_("STATUS"), false, false, 0, 0 },
	{ "capabilities", N_("CAN"), false, false, 3, 8 },
	{ "balance", N_("BALANCE"), true, false, 0, 0 },
	{ "detail", N_("DETAIL"), false, false, 2, 10 },
	{ "description", N_("DESCRIPTION"), false, true, 4, 10 },
};

static void
caps_text(unsigned caps, char *buf, size_t n)
{
	static const struct { unsigned bit; const char *word; } words[] = {
		{ CAP_STOP, "stop" }, { CAP_METRICS, "metrics" }, { CAP_INTERRUPTIBLE, "spot" },
		{ CAP_ACCOUNT, "account" }, { CAP_SSH, "ssh" }, { CAP_COST, "cost" },
		{ CAP_ALLOC, "alloc" },
	};
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_LEN(words); i++)
		if (caps & words[i].bit) {
			if (buf[0])
				strlcpy_(buf + strlen(buf), ",", n - strlen(buf));
			strlcpy_(buf + strlen(buf), words[i].word, n - strlen(buf));
		}
}

static void
cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct prow *p = row;
	static _Thread_local char caps[128];

	switch (col) {
	case 0: c->kind = CELL_STR; c->s = p->ops->name; break;
	case 1: c->kind = CELL_BOOL; c->i = p->selected; break;
	case 2:
		c->kind = CELL_STR;
		c->s = p->status;
		c->color = strcmp(p->status, "ok") == 0 ? OC_GOOD : strcmp(p->status,
		    "not used") == 0 ? OC_DIM : OC_BAD;
		break;
	case 3:
		caps_text(p->ops->caps, caps, sizeof(caps));
		c->kind = CELL_STR;
		c->s = caps;
		break;
	case 4:
		c->kind = p->acct.valid & AV_BALANCE ? CELL_MONEY : CELL_NULL;
		c->i = p->acct.balance;
		break;
	case 5: cell_str(c, p->detail); break;
	default: c->kind = CELL_STR; c->s = p->ops->description; break;
	}
}

static int
providers_run(struct cmd_ctx *c, int argc, char **argv)
{
	const struct backend_ops *const *all;
	struct gr_error err = { 0 };
	struct prow rows[SESSION_MAX_PROVIDERS];
	size_t n_all, i, k;
	int n, rc;

	rc = cmd_parse(c, argc, argv, NULL, NULL, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (session_backends(c->s, &err) != GR_OK)
		return cmd_error(c, &err);
	all = backend_registry(&n_all);
	memset(rows, 0, sizeof(rows));
	for (i = 0; i < n_all && i < SESSION_MAX_PROVIDERS; i++) {
		struct prow *p = &rows[i];

		p->ops = all[i];
		p->status = "not used";
		for (k = 0; k < c->s->n_backends; k++) {
			struct backend *b = c->s->backends[k];
			struct gr_error e = { 0 };
			enum gr_err r;

			if (b->ops != all[i])
				continue;
			p->selected = true;
			if (!b->ready) {
				p->status = gr_err_name(b->init_err.code);
				strlcpy_(p->detail, b->init_err.msg, sizeof(p->detail));
				break;
			}
			/* Reachability: the cheapest call that proves the key and the address. */
			if (b->ops->account != NULL)
				r = b->ops->account(b, &p->acct, &e);
			else {
				struct instance_list l;

				instance_list_init(&l);
				r = observed_instances(b, &l, &e);
				instance_list_release(&l);
			}
			p->status = r == GR_OK ? "ok" : gr_err_name(r);
			if (r != GR_OK)
				strlcpy_(p->detail, e.msg, sizeof(p->detail));
			else if (b->env.base_url != NULL)
				strlcpy_(p->detail, b->env.base_url, sizeof(p->detail));
		}
	}
	return cmd_print(c, cols, ARRAY_LEN(cols), 0, rows, i, sizeof(rows[0]), cell, NULL, 0);
}

const struct command cmd_providers = {
	.name = "providers",
	.summary = N_("list providers, their capabilities and whether they answer"),
	.help =
	    N_("The providers in use come from --provider, else the 'providers' config key, else\n"
	    "the built-in simulator 'sim'. Each one in use is asked for its account (or its\n"
	    "instances) to show that the address and the key work."),
	.run = providers_run,
};
