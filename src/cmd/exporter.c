/*
 * gpurent exporter: sample every running instance on a schedule and serve the figures to
 * Prometheus (src/exporter/). Sampling happens here, in this thread; the HTTP face answers
 * every scrape from the last snapshot, so a slow or hung provider never holds a scrape.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/config.h"
#include "gpurent/costs.h"
#include "gpurent/exporter.h"
#include "gpurent/history.h"
#include "gpurent/i18n.h"
#include "gpurent/samples.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "gpurent/vault.h"
#include "common.h"
#include "login-int.h"

enum { E_LISTEN = 1, E_INTERVAL, E_AUTH };

static const struct cmd_opt opts[] = {
	{ "listen", 'l', "HOST:PORT", N_("address to serve /metrics on (default 127.0.0.1:9400; port 0: any free one)"), E_LISTEN, CPL_NONE, false },
	{ "interval", 'i', "SECONDS", N_("seconds between sampling rounds (default 10)"), E_INTERVAL, CPL_NONE, false },
	{ "auth", 0, NULL, N_("require 'Authorization: Bearer TOKEN' with the token stored by 'gpurent login exporter'"), E_AUTH, CPL_NONE, false },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, false },
};

struct args {
	const char *listen;
	long long interval;
	bool auth;
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;

	switch (id) {
	case E_LISTEN: a->listen = arg; break;
	case E_INTERVAL:
		if ((a->interval = parse_duration(arg)) <= 0)
			return cmd_usage_error(c, "--interval needs a number of seconds");
		break;
	case E_AUTH: a->auth = true; break;
	}
	return 0;
}

/*
 * One round: list the instances, take a sample of each running one (kept in the history),
 * then read the newest sample of each GPU from the history (which also holds what other
 * gpurent processes sampled) and the ledger's figures.
 */
static void
sample_round(struct cmd_ctx *c, struct exporter_snapshot *snap)
{
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct gr_error err = { 0 };
	struct sample_list latest, taken;
	struct cost_summary sum;
	struct cost_clock clk;
	struct state *st;
	size_t i, k;

	memset(res, 0, sizeof(res));
	session_instances(c->s, &snap->instances, res, &err);
	for (i = 0; i < c->s->n_backends && i < EXPORTER_MAX_PROVIDERS; i++) {
		strlcpy_(snap->providers[i].name, c->s->backends[i]->ops->name,
		    sizeof(snap->providers[i].name));
		snap->providers[i].up = res[i].code == GR_OK;
		if (res[i].code != GR_OK && c->s->verbose)
			cmd_warn("%s: %s", c->s->backends[i]->ops->name, res[i].err.msg);
	}
	snap->n_providers = i;

	for (i = 0; i < snap->instances.n; i++) {
		struct instance *in = &snap->instances.v[i];

		if (in->state != ST_RUNNING)
			continue;
		struct gr_error why = { 0 };

		sample_list_init(&taken);
		/* A failure shows as the instance's samples growing old, not as an exit. */
		if (history_sample(c->s, in->id, METRICS_AUTO, &taken, &why, NULL) != GR_OK && c->s->verbose)
			cmd_warn("%s: %s", in->id, why.msg);
		sample_list_release(&taken);
	}

	snap->taken = session_now(c->s);
	memset(&err, 0, sizeof(err));
	if (session_state(c->s, &st, &err) != GR_OK)
		return;
	sample_list_init(&latest);
	if (samples_latest(st, NULL, &latest, &err) == GR_OK) {
		for (k = 0; k < latest.n; k++) {
			for (i = 0; i < snap->instances.n; i++)
				if (snap->instances.v[i].state == ST_RUNNING &&
				    strcmp(snap->instances.v[i].id, latest.v[k].instance_id) == 0)
					break;
			if (i < snap->instances.n)
				*sample_list_add(&snap->samples) = latest.v[k];
		}
	}
	sample_list_release(&latest);

	/* Spend since launch: the ledger from its first row, grouped by instance. */
	session_clock(c->s, &clk);
	if (costs_compute(st, &clk, 1, CG_INSTANCE, &sum, &err) == GR_OK) {
		snap->burn_known = true;
		snap->burn_hour = sum.burn_hour;
		snap->spent = xcalloc(snap->instances.n + 1, sizeof(*snap->spent));
		for (i = 0; i < snap->instances.n; i++) {
			snap->spent[i] = -1;
			for (k = 0; k < sum.n_lines; k++)
				if (strcmp(sum.lines[k].key, snap->instances.v[i].id) == 0)
					snap->spent[i] = sum.lines[k].spent;
		}
		cost_summary_release(&sum);
	} else if (c->s->verbose)
		cmd_warn("costs: %s", err.msg);
}

/* Sleep in small steps so Ctrl-C or SIGTERM ends the wait at once. */
static void
pause_seconds(long long s)
{
	struct timespec step = { 0, 100000000L };
	long long i;

	for (i = 0; i < s * 10 && !cmd_interrupted; i++)
		nanosleep(&step, NULL);
}

/* The scrape token from the credential store; NULL (and an error) when there is none. */
static char *
stored_token(struct cmd_ctx *c, struct gr_error *err)
{
	struct config *cfg = NULL;
	char *key = NULL;

	if (session_config(c->s, &cfg, err) != GR_OK ||
	    vault_lookup_cfg(cfg, c->s->profile, LOGIN_EXPORTER, &key, err) != GR_OK)
		return NULL;
	if (key == NULL)
		gr_fail(err, GR_EAUTH, "--auth needs a token: store one with 'gpurent login "
		    "exporter'");
	return key;
}

static int
exporter_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { "127.0.0.1:9400", 10, false };
	struct gr_error err = { 0 };
	struct exporter_snapshot snap;
	struct exporter *e;
	char *token = NULL;
	int n, rc;

	rc = cmd_parse(c, argc, argv, handle, &a, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (n != 0)
		return cmd_usage_error(c, "the exporter takes no arguments; it serves every "
		    "instance of the selected providers");
	if (a.auth && (token = stored_token(c, &err)) == NULL)
		return cmd_error(c, &err);
	rc = exporter_start(&e, a.listen, token, &err);
	vault_key_free(token);
	if (rc != GR_OK)
		return cmd_error(c, &err);
	if (session_backends(c->s, &err) != GR_OK) {
		exporter_stop(e);
		return cmd_error(c, &err);
	}
	/* The one line a supervisor or a test waits for: where to scrape. */
	fprintf(stderr, _("gpurent exporter: serving http://%s/metrics\n"), exporter_address(e));
	fflush(stderr);
	while (!cmd_interrupted) {
		exporter_snapshot_init(&snap);
		sample_round(c, &snap);
		exporter_publish(e, &snap);
		pause_seconds(a.interval);
	}
	exporter_stop(e);
	return 0;
}

const struct command cmd_exporter = {
	.name = "exporter",
	.args = "",
	.summary = N_("serve GPU metrics, spend and instance state to Prometheus"),
	.help =
	    N_("Samples every running instance of the selected providers every --interval seconds\n"
	    "(each sample is kept in the history, as with 'gpurent metrics') and serves\n"
	    "/metrics in the Prometheus text format: GPU figures under dcgm-exporter's names\n"
	    "(DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_POWER_USAGE, ...) with its\n"
	    "labels (gpu, UUID, modelName, Hostname) plus instance_id, provider and label; and\n"
	    "gpurent_instance_up, gpurent_instance_price_dollars_per_hour,\n"
	    "gpurent_spend_dollars_total, gpurent_burn_rate_dollars_per_hour,\n"
	    "gpurent_sample_age_seconds and gpurent_provider_up. A figure the provider or probe\n"
	    "does not report is left out, never 0. A scrape is answered from the last round at\n"
	    "once, however slow a provider is. Listens on loopback unless --listen says\n"
	    "otherwise; --auth requires a bearer token (store it with 'gpurent login exporter').\n"
	    "Runs until interrupted (Ctrl-C or SIGTERM, status 0)."),
	.opts = opts,
	.flags = CMD_NOT_IN_SHELL,
	.run = exporter_run,
};
