/*
 * remote_forward.h - local port forwards to an instance, over the transport (remote.h).
 *
 * A forward is an ssh -N -L process of its own (not the shared master, whose lifetime is
 * not the forward's), bound to 127.0.0.1 only, with ExitOnForwardFailure so that a port it
 * cannot bind is an error and not a silent half-forward. Background forwards are recorded
 * in the state database (forwards.h) by local port, with the ssh pid; a
 * record counts as live only while that pid still runs ssh with that very -L argument.
 */
#ifndef GPURENT_REMOTE_FORWARD_H
#define GPURENT_REMOTE_FORWARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "forwards.h"
#include "model.h"
#include "remote.h"

/* want when 127.0.0.1:want can be bound now, else a free port the system picks (want 0:
 * always that); -1 when none can be had. */
int remote_free_port(int want);

/*
 * Start ssh forwarding 127.0.0.1:f[i].local_port to 127.0.0.1:f[i].remote_port on ep, and
 * wait (at most the connect timeout and a little) until it listens on every local port.
 * background: its own session, stdin and stdout on /dev/null, stderr to log_path.
 * Fills f[i].pid and started_at; returns GR_OK, or an error with what ssh said.
 */
enum gr_err remote_forward_start(const struct remote_endpoint *ep, struct remote_forward *f,
    size_t n, bool background, const char *log_path, int64_t now, struct gr_error *err);

/* True while the recorded ssh still runs and still forwards that port. */
bool remote_forward_alive(const struct remote_forward *f);
/* End the forward's ssh (TERM, then KILL after a moment); a dead one is left alone. */
void remote_forward_end(const struct remote_forward *f);

/* A Jupyter server found on an instance. */
struct remote_jupyter {
	int port;
	char token[256];	/* "" when it runs without one */
	char base_url[256];	/* "/" unless configured otherwise */
};

/* The remote sh script that lists the running servers as JSON lines. */
extern const char remote_jupyter_list_script[];

/* The first server in that listing; false when there is none. */
bool remote_jupyter_parse(const char *text, struct remote_jupyter *out);

/*
 * Ask ep for its running Jupyter server (the script above). GR_ENOTFOUND when none runs,
 * with the command that starts one; GR_EUNAVAIL (or the connection's error) when ssh failed.
 */
enum gr_err remote_jupyter_find(const struct remote_endpoint *ep, struct remote_jupyter *j,
    struct gr_error *err);

#endif
