/*
 * gpurent forward: local ports to ports on an instance (Jupyter, TensorBoard, a model server).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/i18n.h"
#include "gpurent/observed.h"
#include "gpurent/output.h"
#include "gpurent/paths.h"
#include "gpurent/remote_forward.h"
#include "gpurent/util.h"
#include "common.h"

struct fwd_args {
	bool background, list, jupyter;
	const char *stop;
};

static const struct cmd_opt opts[] = {
	{ "background", 0, NULL, N_("leave the forward running and return"), OPT_AT(struct fwd_args, background), CPL_NONE, OPT_TRUE },
	{ "list", 0, NULL, N_("show the background forwards that still run"), OPT_AT(struct fwd_args, list), CPL_NONE, OPT_TRUE },
	{ "jupyter", 0, NULL, N_("find the Jupyter server on the instance and forward it"), OPT_AT(struct fwd_args, jupyter), CPL_NONE, OPT_TRUE },
	{ "stop", 0, "ID|all", N_("end the background forwards of an instance, or all"), OPT_AT(struct fwd_args, stop), CPL_INSTANCE, OPT_STR },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static const struct column cols[] = {
	{ "instance", N_("INSTANCE"), false, false, 0, 0 },
	{ "remote_port", N_("REMOTE"), true, false, 0, 0 },
	{ "local_port", N_("LOCAL"), true, false, 0, 0 },
	{ "url", N_("URL"), false, false, 0, 0 },
	{ "pid", N_("PID"), true, true, 1, 0 },
	{ "started", N_("STARTED"), false, false, 1, 0 },
};

static void
cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct remote_forward *f = row;
	static _Thread_local char url[64];

	switch (col) {
	case 0: c->kind = CELL_STR; c->s = f->instance_id; break;
	case 1: c->kind = CELL_INT; c->i = f->remote_port; break;
	case 2: c->kind = CELL_INT; c->i = f->local_port; break;
	case 3:
		snprintf(url, sizeof(url), "http://127.0.0.1:%d", f->local_port);
		c->kind = CELL_STR;
		c->s = url;
		break;
	case 4: c->kind = CELL_INT; c->i = f->pid; break;
	default: c->kind = CELL_TIME; c->i = f->started_at; break;
	}
}

/* Why a recorded forward should end now, or NULL while its instance still runs. */
static const char *
stale_reason(struct cmd_ctx *c, const struct remote_forward *f, char *buf, size_t n)
{
	struct gr_error err = { 0 };
	struct backend *b;
	struct instance in;

	if (!remote_forward_alive(f))
		return _("its ssh is gone");
	if (session_backend_for(c->s, f->instance_id, &b, &err) != GR_OK)
		return NULL;
	if (observed_get(b, f->instance_id, &in, &err) != GR_OK) {
		if (err.code != GR_ENOTFOUND)
			return NULL;	/* the provider did not answer: keep it, say nothing */
		return _("the instance is gone");
	}
	if (in.state == ST_RUNNING)
		return NULL;
	snprintf(buf, n, _("the instance is %s"), inst_state_name(in.state));
	return buf;
}

/* --list and --stop: read the records, end what is stale or asked for, print the rest. */
static int
manage(struct cmd_ctx *c, const struct fwd_args *a)
{
	struct gr_error err = { 0 };
	struct remote_forward *v = NULL, *live;
	struct state *st;
	size_t n, nlive = 0, i, stopped = 0;
	char why[64], log_path[4200];
	const char *reason;
	int rc;

	if (session_state(c->s, &st, &err) != GR_OK ||
	    remote_forward_load(st, &v, &n, &err) != GR_OK)
		return cmd_error(c, &err);
	live = xcalloc(n + 1, sizeof(*live));
	for (i = 0; i < n; i++) {
		reason = stale_reason(c, &v[i], why, sizeof(why));
		if (reason == NULL && a->stop != NULL && (strcmp(a->stop, "all") == 0 ||
		    strcmp(a->stop, v[i].instance_id) == 0)) {
			reason = "stopped";
			stopped++;
		}
		if (reason == NULL) {
			live[nlive++] = v[i];
			continue;
		}
		remote_forward_end(&v[i]);
		if (remote_forward_forget(st, v[i].local_port, &err) != GR_OK)
			break;
		snprintf(log_path, sizeof(log_path), "%s/forward-%d.log", paths_state_dir(),
		    v[i].local_port);
		unlink(log_path);
		if (strcmp(reason, "stopped") == 0)
			cmd_warn("stopped the forward 127.0.0.1:%d -> %s port %d", v[i].local_port,
			    v[i].instance_id, v[i].remote_port);
		else
			cmd_warn("ended the forward 127.0.0.1:%d -> %s port %d: %s",
			    v[i].local_port, v[i].instance_id, v[i].remote_port, reason);
	}
	free(v);
	if (err.code != GR_OK) {
		free(live);
		return cmd_error(c, &err);
	}
	if (a->stop != NULL) {
		free(live);
		if (stopped == 0 && strcmp(a->stop, "all") != 0) {
			gr_fail(&err, GR_ENOTFOUND, "no forward to '%s' runs", a->stop);
			return cmd_error(c, &err);
		}
		return 0;
	}
	rc = out_print(c->out, &out_global, cols, ARRAY_LEN(cols), 3, live, nlive, sizeof(*live),
	    cell, NULL, &err) == GR_OK ? 0 : cmd_error(c, &err);
	free(live);
	return rc != 0 ? rc : finish_output(c, 0);
}

/* "8888" or "8888:9000" -> remote 8888, local 8888 or 9000. */
static bool
parse_spec(const char *s, int *remote, int *local)
{
	char buf[32], *colon;
	long long r, l;

	strlcpy_(buf, s, sizeof(buf));
	colon = strchr(buf, ':');
	if (colon != NULL)
		*colon = '\0';
	if (!parse_int(buf, 1, 65535, &r))
		return false;
	l = r;
	if (colon != NULL && !parse_int(colon + 1, 0, 65535, &l))
		return false;
	*remote = (int)r;
	*local = (int)l;
	return true;
}

static int
forward_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct remote_endpoint ep;
	struct remote_forward f[16];
	struct fwd_args a = { 0 };
	struct remote_jupyter j;
	struct state *st;
	char log_path[4200];
	size_t nf, i;
	int n, rc, want;

	rc = cmd_parse(c, argc, argv, NULL, &a, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (a.list || a.stop != NULL) {
		if (n > 0 || (a.list && a.stop != NULL) || a.background)
			return cmd_usage_error(c, "--list and --stop take no other arguments");
		return manage(c, &a);
	}
	if (a.jupyter && n != 1)
		return cmd_usage_error(c, "--jupyter takes the instance only");
	if (n < 2 && !a.jupyter)
		return cmd_usage_error(c, "give an instance and at least one PORT[:LOCAL_PORT]");
	if ((size_t)n - 1 > ARRAY_LEN(f))
		return cmd_usage_error(c, "at most %zu ports at once", ARRAY_LEN(f));
	memset(f, 0, sizeof(f));
	memset(&j, 0, sizeof(j));
	nf = a.jupyter ? 1 : (size_t)n - 1;
	for (i = 0; i < nf && !a.jupyter; i++)
		if (!parse_spec(argv[i + 1], &f[i].remote_port, &f[i].local_port))
			return cmd_usage_error(c, "'%s' is not PORT or PORT:LOCAL_PORT", argv[i + 1]);
	if (cmd_endpoint(c, argv[0], &ep, &err) != GR_OK || cmd_endpoint_full(&ep, &err) != GR_OK)
		return cmd_error(c, &err);
	if (remote_connect(&ep, &err) != GR_OK) {
		cmd_error(c, &err);
		return REMOTE_EXIT_CONN;
	}
	if (a.jupyter) {
		if (remote_jupyter_find(&ep, &j, &err) != GR_OK) {
			cmd_error(c, &err);
			return err.code == GR_EUNAVAIL ? REMOTE_EXIT_CONN : gr_exit_code(err.code);
		}
		f[0].remote_port = f[0].local_port = j.port;
	}
	for (i = 0; i < nf; i++) {
		size_t k;

		want = f[i].local_port;
		/* Two forwards of one run must not get the same free port either. */
		for (k = 0; k < i; k++)
			if (f[k].local_port == want)
				want = 0;
		f[i].local_port = remote_free_port(want);
		if (f[i].local_port < 0) {
			gr_fail(&err, GR_EFAIL, "no free local port");
			return cmd_error(c, &err);
		}
		if (want != 0 && f[i].local_port != want)
			cmd_warn("local port %d is taken; using %d", want, f[i].local_port);
	}
	snprintf(log_path, sizeof(log_path), "%s/forward-%d.log", paths_state_dir(),
	    f[0].local_port);
	if (remote_forward_start(&ep, f, nf, a.background, log_path, session_now(c->s), &err)
	    != GR_OK)
		return cmd_error(c, &err);
	for (i = 0; i < nf; i++) {
		fprintf(c->out, "http://127.0.0.1:%d", f[i].local_port);
		if (a.jupyter) {
			char clean[600];

			text_sanitize(clean, sizeof(clean), j.base_url);
			fputs(clean, c->out);
			text_sanitize(clean, sizeof(clean), j.token);
			if (clean[0] != '\0')
				fprintf(c->out, "?token=%s", clean);
		}
		fputc('\n', c->out);
	}
	fflush(c->out);
	if (a.background) {
		if (session_state(c->s, &st, &err) != GR_OK)
			goto fail;
		for (i = 0; i < nf; i++)
			if (remote_forward_record(st, &f[i], &err) != GR_OK)
				goto fail;
		if (isatty(STDERR_FILENO))
			cmd_warn("forwarding in the background; 'gpurent forward --stop %s' ends it",
			    ep.name);
		return finish_output(c, 0);
	}
	if (isatty(STDERR_FILENO))
		cmd_warn("forwarding to %s; Ctrl-C ends it", ep.name);
	rc = remote_wait(f[0].pid);
	unlink(log_path);
	/* Ctrl-C (or TERM) is how a foreground forward is meant to end. */
	if (rc == 128 + 2 || rc == 128 + 15)
		return 0;
	gr_fail(&err, GR_EUNAVAIL, "the forward to %s ended (ssh exit %d)", ep.name, rc);
	cmd_error(c, &err);
	return REMOTE_EXIT_CONN;
fail:
	remote_forward_end(&f[0]);
	return cmd_error(c, &err);
}

const struct command cmd_forward = {
	.name = "forward",
	.args = "ID PORT[:LOCAL_PORT]...",
	.summary = N_("forward local ports to ports on an instance"),
	.help =
	    N_("Forwards 127.0.0.1:LOCAL_PORT (default: the same number) to PORT on the\n"
	    "instance's loopback, over ssh, and prints http://127.0.0.1:LOCAL_PORT for each.\n"
	    "A LOCAL_PORT of 0, or one that is taken, gets a free port (and a note saying\n"
	    "which). It binds to loopback only. In the foreground Ctrl-C ends it (exit 0);\n"
	    "--background leaves it running, recorded in the state database. --list shows\n"
	    "the background forwards and --stop ID|all ends them; both end and report the\n"
	    "forwards whose instance is no longer running. --jupyter asks the instance for\n"
	    "its running Jupyter server ('jupyter server list --json', or the older notebook\n"
	    "list), forwards its port and prints the URL with its token, or says how to\n"
	    "start one when none runs (exit 3). Background forwards need a key\n"
	    "that asks for no passphrase (or an ssh agent). Exit status 255 when the\n"
	    "connection failed or broke."),
	.opts = opts,
	.complete_args = CPL_INSTANCE,
	.run = forward_run,
};
