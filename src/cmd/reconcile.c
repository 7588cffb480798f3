/*
 * gpurent reconcile: each provider's account against what gpurent knows (reconcile.h);
 * --adopt and --destroy settle one finding.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/catalogue.h"
#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/reconcile.h"
#include "gpurent/util.h"
#include "common.h"
#include "lifecycle.h"

struct args {
	const char *adopt;
	const char *destroy;
	bool forget;
	bool yes;
};

static const struct cmd_opt opts[] = {
	{ "adopt", 0, "ID", N_("bring this instance under gpurent: its ledger from its start, where the provider says it"), OPT_AT(struct args, adopt), CPL_INSTANCE, OPT_STR },
	{ "destroy", 0, "ID", N_("destroy this instance that reconcile lists (asks first)"), OPT_AT(struct args, destroy), CPL_INSTANCE, OPT_STR },
	{ "forget", 0, NULL, N_("forget the local records of the instances named (ID...) that their provider no longer has (asks first)"), OPT_AT(struct args, forget), CPL_NONE, OPT_TRUE },
	{ "yes", 'y', NULL, N_("do not ask before --destroy or --forget; needed when stdin is not a terminal"), OPT_AT(struct args, yes), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

enum {
	C_ID, C_PROVIDER, C_FINDINGS, C_STATE, C_GPU, C_PRICE, C_AGE, C_STORAGE_MONTH, C_LABEL,
	C_CREATED, C_GONE, C_CURRENCY,
};

static const struct column cols[] = {
	[C_ID] = { "id", N_("ID"), false, false, 0, 0 },
	[C_PROVIDER] = { "provider", N_("PROVIDER"), false, false, 2, 0 },
	[C_FINDINGS] = { "findings", N_("FINDING"), false, false, 0, 0 },
	[C_STATE] = { "state", N_("STATE"), false, false, 1, 0 },
	[C_GPU] = { "gpu", N_("GPU"), false, false, 2, 8 },
	[C_PRICE] = { "price_hour", N_("PRICE/H"), true, false, 0, 0 },
	[C_AGE] = { "age_s", N_("AGE"), true, false, 1, 0 },
	[C_STORAGE_MONTH] = { "storage_month", N_("STORAGE/MO"), true, false, 0, 0 },
	[C_LABEL] = { "label", N_("LABEL"), false, false, 3, 8 },
	[C_CREATED] = { "created_at", N_("CREATED"), false, true, 4, 0 },
	[C_GONE] = { "gone_at", N_("GONE"), false, true, 4, 0 },
	[C_CURRENCY] = { "currency", N_("CUR"), false, true, 4, 0 },
};

/* The findings' names, one a line (CELL_LIST), for each set of RF_* bits. */
static const char *const finding_names[] = {
	"", "foreign", "storage", "foreign\nstorage", "vanished", "foreign\nvanished",
	"storage\nvanished", "foreign\nstorage\nvanished",
};

static void
money_cell(struct cell *out, int64_t amount, bool known, const char *currency, int decimals)
{
	if (!known)
		return;
	out->kind = CELL_MONEY;
	out->i = amount;
	out->s = money_currency(currency);
	out->decimals = decimals;
}

static void
cell(const void *row, size_t c, struct cell *out, void *ctx)
{
	const struct reconcile_finding *f = row;
	const struct instance *in = &f->in;
	char *gpu = ctx;

	switch (c) {
	case C_ID: cell_str(out, in->id); break;
	case C_PROVIDER: cell_str(out, in->provider); break;
	case C_FINDINGS:
		out->kind = CELL_LIST;
		out->s = finding_names[f->what & 7];
		out->color = f->what & (RF_FOREIGN | RF_STORAGE) ? OC_WARN : OC_DIM;
		break;
	case C_STATE:
		if (in->state != ST_UNKNOWN)
			cell_str(out, inst_state_name(in->state));
		break;
	case C_GPU:
		cell_str(out, catalogue_display(in->gpu, in->gpu_raw, gpu, 64));
		break;
	case C_PRICE:
		money_cell(out, in->price_hour, in->valid & IV_PRICE, in->currency, 3);
		break;
	case C_AGE:
		if (f->age >= 0) {
			out->kind = CELL_DURATION;
			out->i = f->age;
		}
		break;
	case C_STORAGE_MONTH:
		money_cell(out, f->storage_month, f->storage_month >= 0, in->currency, 2);
		break;
	case C_LABEL: cell_str(out, in->label); break;
	case C_CREATED:
		if (in->valid & IV_CREATED) {
			out->kind = CELL_TIME;
			out->i = in->created_at;
		}
		break;
	case C_GONE:
		if (f->what & RF_VANISHED) {
			out->kind = CELL_TIME;
			out->i = f->gone_at;
		}
		break;
	default: cell_str(out, money_currency(in->currency)); break;
	}
}

static int
adopt(struct cmd_ctx *c, const char *id)
{
	struct gr_error err = { 0 };
	struct instance in;
	struct cell at = { CELL_TIME, NULL, 0, 0, 0 };
	char when[64];

	if (reconcile_adopt(c->s, id, &in, &err) != GR_OK)
		return cmd_error(c, &err);
	fprintf(c->out, "%s\n", in.id);
	if (inst_state_billed(in.state) && (in.valid & IV_CREATED)) {
		at.i = in.created_at;
		cell_text(&at, when, sizeof(when), true);
		fprintf(stderr, _("adopted %s: its ledger bills it from %s, when its provider "
		    "says it was created\n"), in.id, when);
	} else
		fprintf(stderr, _("adopted %s: its ledger bills it from now (its provider does not "
		    "say when it started billing)\n"), in.id);
	return finish_output(c, 0);
}

static int
destroy(struct cmd_ctx *c, const char *id, bool yes)
{
	struct reconcile_finding f;
	struct gr_error err = { 0 };
	char *ids[1];

	if (reconcile_one(c->s, id, &f, &err) != GR_OK)
		return cmd_error(c, &err);
	if (!(f.what & (RF_FOREIGN | RF_STORAGE))) {
		gr_fail(&err, GR_ECONFLICT, "'%s' is gpurent's own and not stopped: reconcile "
		    "destroys only what it lists ('gpurent destroy' destroys any instance)", id);
		return cmd_error(c, &err);
	}
	ids[0] = f.in.id;
	return finish_output(c, lifecycle_destroy(c, 1, ids, yes));
}

/* --forget ID...: asked first (refused without a terminal) unless --yes; each forgotten id
 * on stdout. */
static int
forget(struct cmd_ctx *c, int n, char **ids, bool yes)
{
	struct gr_error err;
	int i, status = 0, done = 0;

	if (!yes && !isatty(STDIN_FILENO)) {
		fprintf(stderr, _("gpurent reconcile: refusing to forget without --yes when stdin "
		    "is not a terminal\n"));
		return EXIT_USAGE;
	}
	if (!yes) {
		for (i = 0; i < n; i++)
			fprintf(stderr, "  %s\n", ids[i]);
		fputs(_("Forgetting drops gpurent's record of each: reconcile lists it no more; "
		    "its costs stay.\n"), stderr);
		if (!cmd_confirm("Forget %d record%s?", n, n == 1 ? "" : "s")) {
			fputs(_("nothing forgotten\n"), stderr);
			return EXIT_ERROR;
		}
	}
	for (i = 0; i < n; i++) {
		err = (struct gr_error){ 0 };
		if (reconcile_forget(c->s, ids[i], &err) != GR_OK) {
			status = cmd_error(c, &err);
			continue;
		}
		fprintf(c->out, "%s\n", ids[i]);
		done++;
	}
	return finish_output(c, done > 0 && status != 0 ? EXIT_PARTIAL : status);
}

static int
reconcile_cmd(struct cmd_ctx *c, int argc, char **argv)
{
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct reconcile_list l = { NULL, 0, 0 };
	struct gr_error err = { 0 };
	struct args a;
	char gpu[64];
	int rc, status, npos;
	enum gr_err frc;

	memset(&a, 0, sizeof(a));
	if ((rc = cmd_parse(c, argc, argv, NULL, &a, &npos)) != 0 || npos < 0)
		return npos < 0 ? 0 : rc;
	if ((a.adopt != NULL) + (a.destroy != NULL) + a.forget > 1)
		return cmd_usage_error(c, "give one of --adopt, --destroy and --forget");
	if (a.forget && npos == 0)
		return cmd_usage_error(c, "--forget needs the ids to forget");
	if (!a.forget && npos > 0)
		return cmd_usage_error(c, "ids go with --forget (--adopt ID and --destroy ID take "
		    "one each)");
	if (a.yes && a.destroy == NULL && !a.forget)
		return cmd_usage_error(c, "--yes answers the question of --destroy or --forget: "
		    "give it with one of them");
	if (a.forget)
		return forget(c, npos, argv, a.yes);
	if (a.adopt != NULL)
		return adopt(c, a.adopt);
	if (a.destroy != NULL)
		return destroy(c, a.destroy, a.yes);
	memset(res, 0, sizeof(res));
	frc = reconcile_run(c->s, &l, res, &err);
	if ((rc = fanout_outcome(c, res, frc, &err, &status)) >= 0) {
		reconcile_list_release(&l);
		return rc;
	}
	rc = cmd_print(c, cols, ARRAY_LEN(cols), C_ID, l.v, l.n, sizeof(*l.v), cell, gpu, status);
	reconcile_list_release(&l);
	return rc;
}

const struct command cmd_reconcile = {
	.name = "reconcile",
	.args = "[--forget ID...]",
	.summary = N_("find what the providers bill that gpurent does not watch"),
	.help =
	    N_("Compares each selected provider's instances with what gpurent knows (what it\n"
	    "launched or adopted) and lists: instances the provider bills that gpurent did not\n"
	    "launch (made in its console, by another tool, or left by a crash), with their price\n"
	    "and age (FINDING foreign); stopped instances whose disk still bills, with what a\n"
	    "month of it costs, 730 hours at the storage rate (storage); and local records of\n"
	    "instances the provider no longer has (vanished). Amounts are in each instance's\n"
	    "currency and never added up; what a provider does not say is shown as '-'.\n"
	    "--adopt ID brings one under gpurent: it counts in costs, budgets and audit from\n"
	    "when its provider says it was created (vast, PPIO; else from now). --destroy ID\n"
	    "destroys a foreign or stopped one as 'gpurent destroy' does, asking first on a\n"
	    "terminal. --forget ID... drops the local record of each instance its provider no\n"
	    "longer has (vanished), asking first: reconcile lists it no more, its costs stay.\n"
	    "'gpurent watch' compares every reconcile.interval (15m) and raises an\n"
	    "event for each new finding."),
	.opts = opts,
	.run = reconcile_cmd,
};
