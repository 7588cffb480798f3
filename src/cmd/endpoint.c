/*
 * From an instance id to a remote endpoint: the one place where commands ask a backend
 * where ssh listens and hand that to the transport (src/remote/), which knows no backends.
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/config.h"
#include "gpurent/paths.h"
#include "gpurent/util.h"
#include "common.h"

enum gr_err
cmd_endpoint(struct cmd_ctx *c, const char *id, struct remote_endpoint *ep, struct gr_error *err)
{
	struct backend *b;
	struct instance in;
	struct config *cfg;
	const char *identity;	/* and then the ssh config file */

	memset(ep, 0, sizeof(*ep));
	if (session_config(c->s, &cfg, err) != GR_OK ||
	    session_backend_for(c->s, id, &b, err) != GR_OK ||
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
	identity = config_get(cfg, "ssh.identity");
	if (identity != NULL)
		strlcpy_(ep->identity, identity, sizeof(ep->identity));
	if ((identity = config_get(cfg, "ssh.config")) != NULL)
		strlcpy_(ep->config_file, identity, sizeof(ep->config_file));
	strlcpy_(ep->state_dir, paths_state_dir(), sizeof(ep->state_dir));
	return remote_endpoint_check(ep, err);
}

enum gr_err
cmd_endpoint_full(const struct remote_endpoint *ep, struct gr_error *err)
{
	if (!ep->proxy_only)
		return GR_OK;
	return gr_fail(err, GR_EUNSUPPORTED, "'%s' is reachable only through RunPod's ssh proxy, "
	    "which carries interactive shells but no file copies or port forwards; expose TCP "
	    "port 22 on the pod (launch it with a public IP and port 22 in its ports) to use "
	    "them", ep->name);
}
