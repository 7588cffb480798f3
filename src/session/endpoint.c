/*
 * endpoint.c - where ssh reaches an instance, from what its provider said and the config:
 * what session_endpoint hands the transport and what the ssh include file names.
 */
#include <string.h>

#include "gpurent/config.h"
#include "gpurent/paths.h"
#include "gpurent/session.h"
#include "gpurent/util.h"

enum gr_err
session_endpoint_of(const struct config *cfg, const struct instance *in,
    struct remote_endpoint *ep, struct gr_error *err)
{
	const char *v;

	memset(ep, 0, sizeof(*ep));
	strlcpy_(ep->name, in->id, sizeof(ep->name));
	if (in->state != ST_RUNNING)
		return gr_fail(err, GR_EFAIL, "'%s' is %s, not running: there is no ssh to it",
		    in->id, inst_state_name(in->state));
	if (!(in->valid & IV_SSH))
		return gr_fail(err, GR_EFAIL, "'%s' is running but its provider reports no ssh "
		    "endpoint yet; try again in a moment", in->id);
	/* RunPod's proxy speaks only interactive shells: no scp, sftp, rsync or forwards. */
	if (strcmp(in->ssh_host, "ssh.runpod.io") == 0)
		ep->proxy_only = true;
	strlcpy_(ep->host, in->ssh_host, sizeof(ep->host));
	strlcpy_(ep->user, in->ssh_user[0] ? in->ssh_user : "root", sizeof(ep->user));
	ep->port = in->ssh_port;
	ep->started_at = in->state_since;
	if (cfg != NULL && (v = config_get(cfg, "ssh.identity")) != NULL)
		strlcpy_(ep->identity, v, sizeof(ep->identity));
	if (cfg != NULL && (v = config_get(cfg, "ssh.config")) != NULL)
		strlcpy_(ep->config_file, v, sizeof(ep->config_file));
	strlcpy_(ep->state_dir, paths_state_dir(), sizeof(ep->state_dir));
	return remote_endpoint_check(ep, err);
}
