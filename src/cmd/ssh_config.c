/*
 * gpurent ssh-config: the ssh include file with a Host entry per running instance
 * (ssh_hosts.h), and on request the Include line in ~/.ssh/config.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/i18n.h"
#include "gpurent/ssh_hosts.h"
#include "gpurent/util.h"
#include "common.h"

struct args {
	bool install_include;
	bool print;
	bool off;
};

static const struct cmd_opt opts[] = {
	{ "install-include", 0, NULL, N_("add the Include line for the file to ~/.ssh/config"), OPT_AT(struct args, install_include), CPL_NONE, OPT_TRUE },
	{ "print", 0, NULL, N_("print the entries instead of writing the file"), OPT_AT(struct args, print), CPL_NONE, OPT_TRUE },
	{ "off", 0, NULL, N_("stop keeping the file up to date (it stays as it is); ssh-config without --off turns it on again"), OPT_AT(struct args, off), CPL_NONE, OPT_TRUE },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static const struct column cols[] = {
	{ "alias", N_("ALIAS"), false, false, 0, 0 },
	{ "id", N_("ID"), false, false, 0, 0 },
	{ "host", N_("HOST"), false, false, 1, 0 },
	{ "port", N_("PORT"), true, false, 1, 0 },
	{ "user", N_("USER"), false, false, 2, 0 },
};

static void
cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct ssh_host *h = row;

	switch (col) {
	case 0: cell_str(c, h->alias); break;
	case 1: cell_str(c, h->id); break;
	case 2: cell_str(c, h->host); break;
	case 3: c->kind = CELL_INT; c->i = h->port; break;
	default: cell_str(c, h->user); break;
	}
}

/*
 * Record the host key of each running instance that has none pinned yet (the first contact,
 * as `gpurent ssh` makes it): the entries say StrictHostKeyChecking yes, so ssh alone
 * would refuse a machine it has never seen.
 */
static void
pin_first_contacts(struct cmd_ctx *c, const struct config *cfg, const struct instance_list *l)
{
	struct remote_endpoint ep;
	char pin[4400];
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct gr_error err = { 0 };

		if (session_endpoint_of(cfg, &l->v[i], &ep, &err) != GR_OK)
			continue;
		remote_pin_path(ep.state_dir, ep.name, pin, sizeof(pin));
		if (access(pin, F_OK) == 0)
			continue;
		ep.batch = true;
		ep.connect_timeout = 10;
		if (remote_connect(&ep, &err) != GR_OK)
			cmd_warn("cannot reach %s to record its host key (%s); ssh refuses its entry "
			    "until 'gpurent ssh %s' has", ep.name, err.msg, ep.name);
	}
}

static int
ssh_config_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct gr_error err = { 0 };
	struct ssh_host_list hosts = { 0 };
	struct instance_list list;
	struct args a = { 0 };
	struct config *cfg;
	char path[4200];
	enum gr_err frc;
	bool added;
	int rc, status;

	if (!cmd_parse_options(c, argc, argv, NULL, &a, N_("ssh-config takes no ID: it writes an "
	    "entry for every running instance"), &rc))
		return rc;
	if (a.print && a.install_include)
		return cmd_usage_error(c, "--print writes nothing: give --install-include without it");
	if (a.off && (a.print || a.install_include))
		return cmd_usage_error(c, "--off goes alone");
	if (a.off) {
		if (ssh_hosts_disable(&err) != GR_OK)
			return cmd_error(c, &err);
		cmd_warn("ssh-config is off: gpurent no longer updates the file (it stays as it "
		    "is), and 'gpurent code' does not turn it on; 'gpurent ssh-config' does");
		return 0;
	}
	if (session_config(c->s, &cfg, &err) != GR_OK ||
	    ssh_hosts_default_path(cfg, path, sizeof(path), &err) != GR_OK)
		return cmd_error(c, &err);
	/* Kept from now on: the listing below is the first answer it follows. */
	if (!a.print && ssh_hosts_enable(path, &err) != GR_OK)
		return cmd_error(c, &err);
	instance_list_init(&list);
	memset(res, 0, sizeof(res));
	frc = session_instances(c->s, &list, res, &err);
	if ((rc = fanout_outcome(c, res, frc, &err, &status)) >= 0) {
		instance_list_release(&list);
		return rc;
	}
	if (a.print) {
		struct sb text;

		sb_init(&text);
		ssh_hosts_render(cfg, list.v, list.n, &text);
		fputs(text.buf, c->out);
		sb_release(&text);
		instance_list_release(&list);
		return finish_output(c, status);
	}
	pin_first_contacts(c, cfg, &list);
	instance_list_release(&list);
	if (a.install_include) {
		if (ssh_hosts_install_include(path, &added, &err) != GR_OK)
			return cmd_error(c, &err);
		if (added)
			cmd_warn("added the line 'Include %s' at the top of ~/.ssh/config", path);
		else
			cmd_warn("~/.ssh/config already includes %s", path);
	} else if (!ssh_hosts_included(path))
		cmd_warn("~/.ssh/config does not include %s: ssh reads its entries once it does "
		    "(--install-include adds the line)", path);
	if (ssh_hosts_read(path, &hosts, &err) != GR_OK)
		return cmd_error(c, &err);
	rc = cmd_print(c, cols, ARRAY_LEN(cols), 1, hosts.v, hosts.n, sizeof(*hosts.v), cell,
	    NULL, status);
	ssh_host_list_release(&hosts);
	return rc;
}

const struct command cmd_ssh_config = {
	.name = "ssh-config",
	.summary = N_("keep an ssh include file with an entry per running instance"),
	.help =
	    N_("Writes a Host entry for every running instance to ~/.ssh/config.d/gpurent (config\n"
	    "ssh.hosts_file), named by its label, else its id, in the characters ssh takes\n"
	    "([A-Za-z0-9._-]; a name two instances share becomes NAME.ID for each). An entry\n"
	    "has the provider's address, port and user, ssh.identity, and the instance's pinned\n"
	    "host keys with StrictHostKeyChecking yes; a running instance whose key is not\n"
	    "pinned yet is reached once to record it. From then on gpurent keeps the file up to\n"
	    "date whenever a provider answers about an instance (launch, start, stop, destroy,\n"
	    "ls), so that 'ssh ALIAS' and VS Code's Remote-SSH work without gpurent.\n"
	    "--install-include adds 'Include FILE' at the top of ~/.ssh/config, once; without\n"
	    "it ~/.ssh/config is never touched. --print prints the file instead of writing it.\n"
	    "--off stops the updates (the file stays as it is; 'gpurent code', which turns\n"
	    "them on, then refuses) until ssh-config is run again.\n"
	    "Lists the entries written (-o json for scripts)."),
	.opts = opts,
	.run = ssh_config_run,
};
