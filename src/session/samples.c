/*
 * samples.c - GPU samples of an instance from where they can be had: the provider's API or
 * the sampler over ssh (sampler.h). The CLI, and later the exporter and the watcher, share
 * these, so "auto" means the same everywhere.
 */
#include <poll.h>
#include <string.h>
#include <time.h>

#include "gpurent/config.h"
#include "gpurent/paths.h"
#include "gpurent/session.h"
#include "gpurent/util.h"

/* How long a one-shot sample may take: connecting, and nvidia-smi on a busy 8-GPU box. */
#define SNAPSHOT_TIMEOUT_MS 60000
/* With auto, a machine that does not answer ssh quickly falls back to the API. */
#define AUTO_CONNECT_TIMEOUT 5

static const char *const source_names[] = { "auto", "api", "ssh" };

bool
metrics_source_parse(const char *s, enum metrics_source *out)
{
	size_t i;

	for (i = 0; i < sizeof(source_names) / sizeof(*source_names); i++)
		if (strcmp(s, source_names[i]) == 0) {
			*out = (enum metrics_source)i;
			return true;
		}
	return false;
}

enum gr_err
session_endpoint(struct session *s, const char *id, struct remote_endpoint *ep,
    struct gr_error *err)
{
	struct backend *b;
	struct instance in;
	struct config *cfg;
	const char *v;

	memset(ep, 0, sizeof(*ep));
	if (session_config(s, &cfg, err) != GR_OK ||
	    session_backend_for(s, id, &b, err) != GR_OK ||
	    backend_require(b->ops, CAP_SSH, NULL, err) != GR_OK ||
	    b->ops->get(b, id, &in, err) != GR_OK)
		return err->code;
	strlcpy_(ep->name, in.id, sizeof(ep->name));
	if (in.state != ST_RUNNING)
		return gr_fail(err, GR_EFAIL, "'%s' is %s, not running: there is no ssh to it",
		    in.id, inst_state_name(in.state));
	if (!(in.valid & IV_SSH))
		return gr_fail(err, GR_EFAIL, "'%s' is running but its provider reports no ssh "
		    "endpoint yet; try again in a moment", in.id);
	/* RunPod's proxy speaks only interactive shells: no scp, sftp, rsync or forwards. */
	if (strcmp(in.ssh_host, "ssh.runpod.io") == 0)
		ep->proxy_only = true;
	strlcpy_(ep->host, in.ssh_host, sizeof(ep->host));
	strlcpy_(ep->user, in.ssh_user[0] ? in.ssh_user : "root", sizeof(ep->user));
	ep->port = in.ssh_port;
	if ((v = config_get(cfg, "ssh.identity")) != NULL)
		strlcpy_(ep->identity, v, sizeof(ep->identity));
	if ((v = config_get(cfg, "ssh.config")) != NULL)
		strlcpy_(ep->config_file, v, sizeof(ep->config_file));
	strlcpy_(ep->state_dir, paths_state_dir(), sizeof(ep->state_dir));
	return remote_endpoint_check(ep, err);
}

/* The provider's figures into out->gpus (source api). */
static enum gr_err
api_snapshot(struct session *s, const char *id, struct probe_snapshot *out, struct gr_error *err)
{
	struct backend *b;
	size_t i;

	if (session_backend_for(s, id, &b, err) != GR_OK ||
	    backend_require(b->ops, CAP_METRICS, NULL, err) != GR_OK)
		return err->code;
	out->gpus.n = 0;
	if (b->ops->metrics(b, id, &out->gpus, err) != GR_OK)
		return err->code;
	for (i = 0; i < out->gpus.n; i++)
		out->gpus.v[i].source = SAMPLE_API;
	out->at = out->gpus.n > 0 ? out->gpus.v[0].at : session_now(s);
	out->vendor[0] = '\0';
	return GR_OK;
}

/* One frame of a once sampler, waiting at most SNAPSHOT_TIMEOUT_MS. */
static enum gr_err
ssh_snapshot(const struct remote_endpoint *ep, struct probe_snapshot *out, struct gr_error *err)
{
	struct sampler *sm = sampler_start(ep, 1, true, err);
	struct timespec t0, t;
	enum sampler_event ev;
	long spent;

	if (sm == NULL)
		return err->code;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = sampler_fd(sm), .events = POLLIN };

		ev = sampler_poll(sm, out, err);
		if (ev == SAMPLER_FRAME || ev == SAMPLER_ENDED || ev == SAMPLER_DOWN)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		spent = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (spent >= SNAPSHOT_TIMEOUT_MS) {
			sampler_free(sm);
			return gr_fail(err, GR_ETIMEOUT, "no sample from %s within %d s", ep->name,
			    SNAPSHOT_TIMEOUT_MS / 1000);
		}
		if (p.fd >= 0)
			poll(&p, 1, (int)(SNAPSHOT_TIMEOUT_MS - spent));
	}
	sampler_free(sm);
	if (ev != SAMPLER_FRAME)
		return gr_fail(err, GR_EUNAVAIL, "the sampler on %s ended without a sample",
		    ep->name);
	if (out->vendor[0] == '\0')
		return gr_fail(err, GR_EUNSUPPORTED, "%s answers ssh but has no GPU tool gpurent "
		    "knows (nvidia-smi, ...) on its PATH", ep->name);
	if (out->gpu_code != GR_OK)
		return gr_fail(err, out->gpu_code, "%s: %s", ep->name, out->gpu_error);
	return GR_OK;
}

enum gr_err
session_snapshot(struct session *s, const char *id, enum metrics_source src,
    struct probe_snapshot *out, struct gr_error *err)
{
	struct remote_endpoint ep;
	struct gr_error ssh_err = { 0 };

	if (src == METRICS_API)
		return api_snapshot(s, id, out, err);
	if (session_endpoint(s, id, &ep, src == METRICS_SSH ? err : &ssh_err) != GR_OK) {
		if (src == METRICS_SSH)
			return err->code;
		return api_snapshot(s, id, out, err);
	}
	ep.batch = true;
	if (src == METRICS_AUTO)
		ep.connect_timeout = AUTO_CONNECT_TIMEOUT;
	if (ssh_snapshot(&ep, out, src == METRICS_SSH ? err : &ssh_err) == GR_OK)
		return GR_OK;
	if (src == METRICS_SSH)
		return err->code;
	/* auto: the machine did not answer or has no tool; the provider may still know. */
	{
		struct host_sample host = out->host;
		bool host_ok = out->host_ok;

		if (api_snapshot(s, id, out, err) != GR_OK) {
			if (err->code == GR_EUNSUPPORTED)	/* no API metrics: say why ssh failed */
				*err = ssh_err;
			return err->code;
		}
		out->host = host;
		out->host_ok = host_ok;
	}
	return GR_OK;
}

struct sampler *
session_sampler(struct session *s, const char *id, enum metrics_source src, int interval,
    struct gr_error *err)
{
	struct remote_endpoint ep;

	if (src == METRICS_API) {
		gr_fail(err, GR_EUSAGE, "no sampler for the API source");
		return NULL;
	}
	if (session_endpoint(s, id, &ep, err) != GR_OK)
		return NULL;
	ep.batch = true;
	if (src == METRICS_AUTO)
		ep.connect_timeout = AUTO_CONNECT_TIMEOUT;
	return sampler_start(&ep, interval, false, err);
}
