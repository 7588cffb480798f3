/*
 * gpurent exporter: its options, and the scrape token from the credential store; the
 * sampling rounds and the /metrics face are src/exporter/'s (exporter.h).
 */
#include <string.h>

#include "gpurent/config.h"
#include "gpurent/exporter.h"
#include "gpurent/i18n.h"
#include "gpurent/util.h"
#include "gpurent/vault.h"
#include "common.h"
#include "login_int.h"

/* How long an instance whose ssh failed is sampled by the API alone, at first (--ssh-retry). */
#define SSH_RETRY_DEFAULT 60

struct args {
	const char *listen;
	long long interval;
	long long ssh_retry;
	bool auth;
};

static const struct cmd_opt opts[] = {
	{ "listen", 'l', "HOST:PORT", N_("address to serve /metrics on (default 127.0.0.1:9400; port 0: any free one)"), OPT_AT(struct args, listen), CPL_NONE, OPT_STR },
	{ "interval", 'i', "SECONDS", N_("seconds between sampling rounds (default 10)"), OPT_AT(struct args, interval), CPL_NONE, OPT_INTERVAL },
	{ "ssh-retry", 0, "SECONDS", N_("sample an instance whose ssh failed by its API this long before trying ssh again; doubles after each further failure (default 60; 0: every round)"), 0, CPL_NONE, 0 },
	{ "auth", 0, NULL, N_("require 'Authorization: Bearer TOKEN' with the token stored by 'gpurent login exporter'"), OPT_AT(struct args, auth), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;

	/* --ssh-retry, the one option cmd_parse does not store: a day at most, so that the
	 * longest wait (16 times it) stays far inside int64 ms. */
	(void)id;
	a->ssh_retry = parse_duration(arg);
	if (a->ssh_retry < 0 || a->ssh_retry > 86400)
		return cmd_usage_error(c, "--ssh-retry needs a number of seconds, at most a day");
	return 0;
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
	struct args a = { "127.0.0.1:9400", 10, SSH_RETRY_DEFAULT, false };
	struct gr_error err = { 0 };
	struct exporter_rounds o;
	char *token = NULL;
	enum gr_err e;
	int rc;

	if (!cmd_parse_options(c, argc, argv, handle, &a, N_("the exporter takes no arguments; it "
	    "serves every instance of the selected providers"), &rc))
		return rc;
	if (a.auth && (token = stored_token(c, &err)) == NULL)
		return cmd_error(c, &err);
	memset(&o, 0, sizeof(o));
	o.listen = a.listen;
	o.token = token;
	o.interval = a.interval;
	o.ssh_retry = a.ssh_retry;
	o.interrupted = &cmd_interrupted;
	o.warn = cmd_warn;
	e = exporter_serve(c->s, &o, &err);
	vault_key_free(token);
	return e == GR_OK ? 0 : cmd_error(c, &err);
}

const struct command cmd_exporter = {
	.name = "exporter",
	.args = "",
	.summary = N_("serve GPU metrics, spend and instance state to Prometheus"),
	.help =
	    N_("Samples every running instance of the selected providers every --interval seconds\n"
	    "(each sample is kept in the history, as with 'gpurent metrics'): over ssh where\n"
	    "the machine answers, eight at a time, else from the provider's API; one whose ssh\n"
	    "failed is sampled from the API alone for --ssh-retry seconds, twice as long after\n"
	    "each further failure, before ssh is tried again. It serves\n"
	    "/metrics in the Prometheus text format: GPU figures under dcgm-exporter's names\n"
	    "(DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_POWER_USAGE, ...) with its\n"
	    "labels (gpu, UUID, modelName, Hostname) plus instance_id, provider and label; and\n"
	    "gpurent_instance_up, gpurent_instance_price_dollars_per_hour,\n"
	    "gpurent_spend_dollars_total, gpurent_burn_rate_dollars_per_hour,\n"
	    "gpurent_sample_age_seconds and gpurent_provider_up. A figure the provider or probe\n"
	    "does not report is left out, never 0. Each provider is sampled in a lane of its\n"
	    "own, so one that hangs does not hold the others; a scrape is answered from the\n"
	    "last snapshot at once, however slow a provider is. Listens on loopback unless\n"
	    "--listen says otherwise; --auth requires a bearer token (store it with 'gpurent\n"
	    "login exporter').\n"
	    "Runs until interrupted (Ctrl-C or SIGTERM, status 0)."),
	.opts = opts,
	.flags = CMD_NOT_IN_SHELL,
	.run = exporter_run,
};
