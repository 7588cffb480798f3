/*
 * gpurent cp: copy files to, from and between instances (ID:PATH on either side).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/config.h"
#include "gpurent/i18n.h"
#include "gpurent/remote_copy.h"
#include "gpurent/util.h"
#include "common.h"

struct cp_args {
	struct remote_copy_opts o;
	const char *excludes[64];
};

enum { C_EXCLUDE = 1, C_BWLIMIT };

static const struct cmd_opt opts[] = {
	{ "recursive", 'r', NULL, N_("copy directories and what they hold"), OPT_AT(struct cp_args, o.recursive), CPL_NONE, OPT_TRUE },
	{ "exclude", 0, "PATTERN", N_("leave out files matching PATTERN (repeatable)"), C_EXCLUDE, CPL_NONE, OPT_REPEAT },
	{ "resume", 0, NULL, N_("finish an interrupted copy, sending only what is missing"), OPT_AT(struct cp_args, o.resume), CPL_NONE, OPT_TRUE },
	{ "bwlimit", 0, "RATE", N_("at most RATE per second (KiB, or with a K, M or G suffix)"), C_BWLIMIT, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct cp_args *a = data;
	size_t i;

	switch (id) {
	case C_EXCLUDE:
		if (a->o.n_excludes == ARRAY_LEN(a->excludes))
			return cmd_usage_error(c, "too many --exclude patterns");
		a->excludes[a->o.n_excludes++] = arg;
		break;
	case C_BWLIMIT:
		i = strspn(arg, "0123456789");
		if (i == 0 || (arg[i] != '\0' && (strchr("kKmMgG", arg[i]) == NULL ||
		    arg[i + 1] != '\0')))
			return cmd_usage_error(c, "--bwlimit wants a number of KiB, or one with a "
			    "K, M or G suffix, not '%s'", arg);
		a->o.bwlimit = arg;
		break;
	}
	return 0;
}

/* "sim:i-000001:path" -> the id and the path; false for a local path. An id is a provider
 * name, a colon and the provider's own id, so the path starts after the second colon. */
static bool
split_remote(const char *arg, char *id, size_t n, const char **path)
{
	const char *colon = strchr(arg, ':'), *second;
	char provider[64];

	if (colon == NULL || (size_t)(colon - arg) >= sizeof(provider))
		return false;
	snprintf(provider, sizeof(provider), "%.*s", (int)(colon - arg), arg);
	if (backend_find_ops(provider) == NULL)
		return false;
	second = strchr(colon + 1, ':');
	if (second == NULL || (size_t)(second - arg) >= n)
		return false;
	snprintf(id, n, "%.*s", (int)(second - arg), arg);
	*path = second + 1;
	return true;
}

struct side {
	char id[ID_MAX];
	struct remote_place place;
	struct remote_endpoint *ep;	/* owned by the side that looked it up first */
};

static int
cp_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct gr_error err = { 0 };
	struct cp_args a;
	struct side *sides;
	struct remote_place *batch;
	struct config *cfg;
	size_t nsrc, i, j, nb;
	int n, rc = 0;

	memset(&a, 0, sizeof(a));
	a.o.excludes = a.excludes;
	rc = cmd_parse(c, argc, argv, handle, &a, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (n < 2)
		return cmd_usage_error(c, "give a source and a destination, either of them ID:PATH");
	nsrc = (size_t)n - 1;
	sides = xcalloc((size_t)n, sizeof(*sides));
	batch = xcalloc((size_t)n, sizeof(*batch));
	for (i = 0; i < (size_t)n; i++) {
		struct side *s = &sides[i];

		if (!split_remote(argv[i], s->id, sizeof(s->id), &s->place.path)) {
			s->place.path = argv[i];
			continue;
		}
		/* One look-up per instance, shared by every side on it. */
		for (j = 0; j < i; j++)
			if (sides[j].ep != NULL && strcmp(sides[j].id, s->id) == 0)
				break;
		if (j < i) {
			s->place.ep = sides[j].ep;
			continue;
		}
		s->ep = xcalloc(1, sizeof(*s->ep));
		if (cmd_endpoint(c, s->id, s->ep, &err) != GR_OK ||
		    cmd_endpoint_full(s->ep, &err) != GR_OK) {
			rc = cmd_error(c, &err);
			goto out;
		}
		s->place.ep = s->ep;
	}
	for (i = 0; i < nsrc; i++)
		if (sides[i].place.ep == NULL && sides[nsrc].place.ep == NULL) {
			rc = cmd_usage_error(c, "neither '%s' nor '%s' is on an instance (ID:PATH); "
			    "a local path that looks like one is written ./PATH", argv[i],
			    argv[nsrc]);
			goto out;
		}
	a.o.progress = isatty(STDERR_FILENO) && !c->in_shell;
	if (session_config(c->s, &cfg, &err) != GR_OK) {
		rc = cmd_error(c, &err);
		goto out;
	}
	a.o.rsync_path = config_get(cfg, "ssh.rsync_path");
	a.o.stats = c->s->verbose > 0;
	/* As rsync reads a destination: a directory when it ends in '/' or takes several. */
	a.o.dst_dir = nsrc > 1 || (sides[nsrc].place.path[0] != '\0' &&
	    sides[nsrc].place.path[strlen(sides[nsrc].place.path) - 1] == '/');
	/* Runs of sources that one rsync can take (all local, or all on one instance and the
	 * destination here) go together; a source on an instance bound for an instance is
	 * streamed on its own. */
	for (i = 0; i < nsrc && rc == 0; i = j) {
		const struct remote_endpoint *ep = sides[i].place.ep;

		if (ep != NULL && sides[nsrc].place.ep != NULL) {
			rc = remote_copy_stream(&sides[i].place, &sides[nsrc].place, &a.o, &err);
			j = i + 1;
			continue;
		}
		nb = 0;
		for (j = i; j < nsrc && sides[j].place.ep == ep; j++)
			batch[nb++] = sides[j].place;
		rc = remote_copy_rsync(batch, nb, &sides[nsrc].place, &a.o, &err);
	}
	if (rc != 0 && err.code != GR_OK)
		cmd_error(c, &err);
out:
	for (i = 0; i < (size_t)n; i++)
		free(sides[i].ep);
	free(sides);
	free(batch);
	return rc;
}

const struct command cmd_cp = {
	.name = "cp",
	.args = "SRC... DST",
	.summary = N_("copy files to, from or between instances (ID:PATH)"),
	.help =
	    N_("Either side may be ID:PATH; a relative PATH is relative to the remote home.\n"
	    "Between this machine and an instance, rsync runs over the instance's shared ssh\n"
	    "connection: modes, times and links are kept, names go inside rsync's protocol,\n"
	    "files are sent whole, and an interrupted file waits in a .gpurent-partial\n"
	    "directory; --resume then sends only what the destination lacks. As with rsync,\n"
	    "a source directory ending in '/' copies what it holds, and a destination ending\n"
	    "in '/' (or taking several sources) is a directory, made when missing (its last\n"
	    "name only). Files that already match in size and time are skipped. Between two\n"
	    "instances, tar streams through this machine without a copy here. An instance\n"
	    "without rsync gets scp (SFTP) instead, without --exclude or --resume. Progress\n"
	    "shows on stderr on a terminal; -v adds rsync's statistics. Exit status: 0, 1\n"
	    "when the copy failed, 130 when interrupted, 255 when a connection failed."),
	.opts = opts,
	.complete_args = CPL_FILE,
	.run = cp_run,
};
