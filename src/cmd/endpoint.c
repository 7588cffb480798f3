/*
 * From an instance id to a remote endpoint, for the commands: the session asks the backend
 * where ssh listens (session_endpoint) and the transport (src/remote/) knows no backends.
 */
#include "common.h"

/* The session's (snapshot.c), which the sampler needs below the commands too. */
enum gr_err
cmd_endpoint(struct cmd_ctx *c, const char *id, struct remote_endpoint *ep, struct gr_error *err)
{
	return session_endpoint(c->s, id, ep, err);
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
