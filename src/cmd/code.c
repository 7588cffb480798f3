/*
 * gpurent code: VS Code's Remote-SSH on an instance, through its entry in the ssh include
 * file (ssh_hosts.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/i18n.h"
#include "gpurent/ssh_hosts.h"
#include "gpurent/util.h"
#include "common.h"

/* Whether program is an executable in a directory of PATH (an empty one: the current). */
static bool
on_path(const char *program)
{
	const char *path = getenv("PATH"), *p, *end;
	char file[4200];

	if (path == NULL)
		return false;
	for (p = path;; p = end + 1) {
		end = p + strcspn(p, ":");
		snprintf(file, sizeof(file), "%.*s/%s", end > p ? (int)(end - p) : 1,
		    end > p ? p : ".", program);
		if (access(file, X_OK) == 0)
			return true;
		if (*end == '\0')
			return false;
	}
}

static int
code_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct ssh_host_list hosts = { 0 };
	struct remote_endpoint ep;
	struct remote_argv a;
	struct config *cfg;
	char path[4200];
	const char *alias = NULL;
	size_t i;
	int n, rc;

	rc = cmd_parse(c, argc, argv, NULL, NULL, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (n == 0 || n > 2)
		return cmd_usage_error(c, "give one ID from 'gpurent ls', and the remote folder to "
		    "open if any");
	if (!on_path("code")) {
		gr_fail(&err, GR_EFAIL, "VS Code's 'code' command is not on PATH: install "
		    "VS Code, its shell command ('Shell Command: Install code command in PATH') "
		    "and its Remote - SSH extension");
		return cmd_error(c, &err);
	}
	if (ssh_hosts_turned_off()) {
		gr_fail(&err, GR_ECONFLICT, "VS Code reaches the instance through its ssh-config "
		    "entry, and ssh-config is off ('gpurent ssh-config --off'): 'gpurent "
		    "ssh-config' turns it on again");
		return cmd_error(c, &err);
	}
	/* The entry first: kept from now on, and written by the endpoint's answer. */
	if (session_config(c->s, &cfg, &err) != GR_OK ||
	    ssh_hosts_default_path(cfg, path, sizeof(path), &err) != GR_OK ||
	    ssh_hosts_enable(path, &err) != GR_OK ||
	    cmd_endpoint(c, argv[0], &ep, &err) != GR_OK)
		return cmd_error(c, &err);
	/* The entry says StrictHostKeyChecking yes: the key is pinned by this first contact. */
	ep.batch = true;
	if (remote_connect(&ep, &err) != GR_OK || ssh_hosts_read(path, &hosts, &err) != GR_OK)
		return cmd_error(c, &err);
	for (i = 0; i < hosts.n && alias == NULL; i++)
		if (strcmp(hosts.v[i].id, ep.name) == 0)
			alias = hosts.v[i].alias;
	if (alias == NULL) {
		ssh_host_list_release(&hosts);
		gr_fail(&err, GR_ESTATE, "'%s' has no entry in %s", ep.name, path);
		return cmd_error(c, &err);
	}
	if (!ssh_hosts_included(path))
		cmd_warn("~/.ssh/config does not include %s, so VS Code cannot find '%s': run "
		    "'gpurent ssh-config --install-include' once", path, alias);
	remote_argv_init(&a);
	remote_argv_add(&a, "code");
	remote_argv_add(&a, "--remote");
	remote_argv_addf(&a, "ssh-remote+%s", alias);
	if (n == 2)
		remote_argv_add(&a, argv[1]);
	ssh_host_list_release(&hosts);
	rc = remote_spawn_wait(a.v, -1, &err);
	remote_argv_release(&a);
	if (err.code != GR_OK)
		return cmd_error(c, &err);
	return rc;
}

const struct command cmd_code = {
	.name = "code",
	.args = "ID [PATH]",
	.summary = N_("open VS Code on an instance through Remote-SSH"),
	.help =
	    N_("Makes sure the instance has its entry in the ssh include file (as ssh-config\n"
	    "writes it, and kept up to date from then on, as ssh-config keeps it) and its host\n"
	    "key pinned, then runs 'code --remote ssh-remote+ALIAS PATH' (PATH: the remote\n"
	    "folder to open; none opens an empty window). After 'gpurent ssh-config --off' it\n"
	    "refuses (status 13) rather than turn the updates on again. Needs VS\n"
	    "Code's 'code' command on PATH and its Remote - SSH extension, and ~/.ssh/config\n"
	    "including the file ('gpurent ssh-config --install-include'). The exit status is\n"
	    "code's."),
	.complete_args = CPL_INSTANCE,
	.run = code_run,
};
