/*
 * File copies over the transport: rsync through the shared master between this machine and
 * an instance, and a tar stream through this machine between two instances.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpurent/i18n.h"
#include "gpurent/remote.h"
#include "gpurent/remote_copy.h"

/* Where an interrupted file waits for --resume, inside the destination directory. */
#define PARTIAL_DIR ".gpurent-partial"

/* An rsync location: ./ before relative local paths (no leading '-', no "host:" reading),
 * user@host:PATH (brackets around an IPv6 address) for remote ones. */
static void
add_place(struct remote_argv *a, const struct remote_place *p)
{
	if (p->ep == NULL) {
		if (p->path[0] == '/')
			remote_argv_add(a, p->path);
		else
			remote_argv_addf(a, "./%s", p->path);
		return;
	}
	remote_argv_addf(a, strchr(p->ep->host, ':') ? "%s@[%s]:%s" : "%s@%s:%s", p->ep->user,
	    p->ep->host, p->path);
}

static int
rsync_status(int rc, struct gr_error *err)
{
	switch (rc) {
	case 0:
		return 0;
	case 20:
	case 128 + 2:
	case 128 + 15:
		gr_fail(err, GR_EINTERRUPTED, "copy interrupted; run it again with --resume to "
		    "finish it");
		return 130;
	case 12:
	case 255:
		gr_fail(err, GR_EUNAVAIL, "the connection broke during the copy (rsync exit %d)",
		    rc);
		return REMOTE_EXIT_CONN;
	case 127:
		gr_fail(err, GR_EFAIL, "rsync is not installed here or on the instance");
		return 1;
	default:
		gr_fail(err, GR_EFAIL, "rsync failed (exit %d)", rc);
		return 1;
	}
}

/* Whether the instance has the rsync that o names (asked only after rsync failed). */
static bool
rsync_on(const struct remote_endpoint *ep, const struct remote_copy_opts *o)
{
	const char *words[] = { "command", "-v", o->rsync_path ? o->rsync_path : "rsync" };
	struct gr_error e = { 0 };
	struct sb out;
	int rc;

	sb_init(&out);
	rc = remote_capture(ep, words, 3, &out, 4096, &e);
	sb_release(&out);
	return rc != 1 && rc != 127;
}

/* Exit statuses of DEST_SCRIPT (written as numbers there). */
enum { DEST_NO_DIR = 90, DEST_NOT_DIR = 91 };

/*
 * Run first where the copy lands, with $1 the destination, $2 the directory it is in and $3
 * "d" when the destination must be a directory: makes that directory when missing (its last
 * name only, as rsync does), exits DEST_NO_DIR when the directory that should hold the
 * destination is not there, DEST_NOT_DIR when the destination must be a directory and is
 * something else.
 */
#define DEST_SCRIPT \
    "if [ \"$3\" = d ] && [ ! -d \"$1\" ]; then [ -e \"$1\" ] && exit 91; " \
    "[ -d \"$2\" ] || exit 90; mkdir -- \"$1\" || exit 1; fi; " \
    "[ -d \"$1\" ] || [ -d \"$2\" ] || exit 90; "

/* "a/b/c/" -> dir "a/b", base "c"; "c" -> ".", "c"; "/c" -> "/", "c"; "" -> ".", ".". */
static void
split_path(const char *path, char **dir, char **base)
{
	char *p = xstrdup(path), *slash;
	size_t len = strlen(p);

	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	slash = strrchr(p, '/');
	if (len == 0 || strcmp(p, "/") == 0) {
		*dir = xstrdup(len ? "/" : ".");
		*base = xstrdup(".");
	} else if (slash == NULL) {
		*dir = xstrdup(".");
		*base = xstrdup(p);
	} else {
		*base = xstrdup(slash + 1);
		*dir = slash == p ? xstrdup("/") : xasprintf("%.*s", (int)(slash - p), p);
	}
	free(p);
}

/* split_path's halves joined again: the path without its trailing slashes. */
static char *
join_path(const char *dir, const char *base)
{
	if (strcmp(base, ".") == 0)
		return xstrdup(dir);
	if (strcmp(dir, ".") == 0)
		return xstrdup(base);
	return xasprintf("%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", base);
}

/* DEST_SCRIPT's statuses (and a local check's) in gpurent's words; other statuses pass. */
static int
dest_status(int rc, const struct remote_place *dst, struct gr_error *err)
{
	char *dir, *base, *path;

	if (rc != DEST_NO_DIR && rc != DEST_NOT_DIR)
		return rc;
	split_path(dst->path, &dir, &base);
	path = join_path(dir, base);
	if (rc == DEST_NO_DIR && dst->ep != NULL)
		gr_fail(err, GR_EFAIL, "no directory '%s' on %s", dir, dst->ep->name);
	else if (rc == DEST_NO_DIR)
		gr_fail(err, GR_EFAIL, "no directory '%s' here", dir);
	else if (dst->ep != NULL)
		gr_fail(err, GR_EFAIL, "'%s' on %s is not a directory", path, dst->ep->name);
	else
		gr_fail(err, GR_EFAIL, "'%s' is not a directory", path);
	free(dir);
	free(base);
	free(path);
	return 1;
}

/* What DEST_SCRIPT does, for scp, which makes no directory itself: here, or on dst's
 * instance. Returns 0 or an exit status (err set). */
static int
make_dest_dir(const struct remote_place *dst, struct gr_error *err)
{
	const char *words[] = { "sh", "-c", DEST_SCRIPT "exit 0", "sh", NULL, NULL, "d" };
	char *dir, *base, *path;
	struct stat st;
	struct sb out;
	int rc;

	split_path(dst->path, &dir, &base);
	path = join_path(dir, base);
	if (dst->ep != NULL) {
		words[4] = path;
		words[5] = dir;
		sb_init(&out);
		rc = remote_capture(dst->ep, words, ARRAY_LEN(words), &out, 0, err);
		sb_release(&out);
		if (rc != 0 && rc != DEST_NO_DIR && rc != DEST_NOT_DIR && err->code == GR_OK)
			gr_fail(err, GR_EFAIL, "cannot make the directory '%s' on %s", path,
			    dst->ep->name);
	} else if (stat(path, &st) == 0) {
		rc = S_ISDIR(st.st_mode) ? 0 : DEST_NOT_DIR;
	} else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		rc = DEST_NO_DIR;
	} else if (mkdir(path, 0777) != 0) {
		gr_fail(err, GR_EFAIL, "cannot make the directory '%s': %s", path,
		    strerror(errno));
		rc = 1;
	} else {
		rc = 0;
	}
	free(dir);
	free(base);
	free(path);
	return dest_status(rc, dst, err);
}

/*
 * The fallback for an instance without rsync: scp in its SFTP mode (-s), so names never
 * pass through the remote shell. It cannot exclude or resume, and copies whole files.
 */
static int
copy_scp(const struct remote_place *src, size_t n, const struct remote_place *dst,
    const struct remote_copy_opts *o, struct gr_error *err)
{
	const struct remote_endpoint *ep = dst->ep != NULL ? dst->ep : src[0].ep;
	struct remote_argv ssh, a;
	size_t i;
	int rc;

	if (o->n_excludes > 0 || o->resume)
		return gr_fail(err, GR_EUNSUPPORTED, "%s has no rsync: --exclude and --resume "
		    "need it there (install rsync on the instance)", ep->name), 1;
	fprintf(stderr, _("gpurent: %s has no rsync; copying with scp\n"), ep->name);
	if (o->dst_dir && (rc = make_dest_dir(dst, err)) != 0)
		return rc;
	remote_argv_init(&ssh);
	if (remote_ssh_options(ep, 0, &ssh, err) != GR_OK) {
		remote_argv_release(&ssh);
		return REMOTE_EXIT_CONN;
	}
	remote_argv_init(&a);
	remote_argv_add(&a, "scp");
	remote_argv_add(&a, "-s");
	remote_argv_add(&a, "-p");
	if (o->recursive)
		remote_argv_add(&a, "-r");
	if (!o->progress)
		remote_argv_add(&a, "-q");
	/* ssh's options, but scp spells the port -P. */
	for (i = 1; i < ssh.n; i++)
		remote_argv_add(&a, strcmp(ssh.v[i], "-p") == 0 ? "-P" : ssh.v[i]);
	remote_argv_release(&ssh);
	remote_argv_add(&a, "--");
	for (i = 0; i < n; i++)
		add_place(&a, &src[i]);
	add_place(&a, dst);
	rc = remote_spawn_wait(a.v, -1, err);
	remote_argv_release(&a);
	if (err->code != GR_OK)
		return 127;
	if (rc == 0)
		return 0;
	if (rc == 128 + 2 || rc == 128 + 15)
		return gr_fail(err, GR_EINTERRUPTED, "copy interrupted"), 130;
	if (rc == REMOTE_EXIT_CONN)
		return gr_fail(err, GR_EUNAVAIL, "scp to %s failed: the connection, or the "
		    "instance's sftp server", ep->name), REMOTE_EXIT_CONN;
	return gr_fail(err, GR_EFAIL, "scp failed (exit %d)", rc), 1;
}

/* words made anew: sh -c script sh, the script's own arguments ($1, ...) to follow. */
static void
script_words(struct remote_argv *words, const char *script)
{
	remote_argv_init(words);
	remote_argv_add(words, "sh");
	remote_argv_add(words, "-c");
	remote_argv_add(words, script);
	remote_argv_add(words, "sh");
}

/* rsync only warns about a directory it skips; a copy that leaves one out has failed. */
static int
refuse_directories(const struct remote_place *src, size_t n, struct gr_error *err)
{
	static const char any_dir[] = "for p; do [ -d \"$p\" ] && exit 3; done; exit 0";
	struct remote_argv words;
	struct stat st;
	struct sb out;
	size_t i;
	int rc;

	if (src[0].ep == NULL) {
		for (i = 0; i < n; i++)
			if (stat(src[i].path, &st) == 0 && S_ISDIR(st.st_mode))
				return gr_fail(err, GR_EFAIL, "'%s' is a directory (use -r)",
				    src[i].path), 1;
		return 0;
	}
	script_words(&words, any_dir);
	for (i = 0; i < n; i++)
		remote_argv_add(&words, src[i].path[0] ? src[i].path : ".");
	sb_init(&out);
	rc = remote_capture(src[0].ep, (const char *const *)words.v, words.n, &out, 0, err);
	sb_release(&out);
	remote_argv_release(&words);
	if (rc == 3)
		return gr_fail(err, GR_EFAIL, "a source on %s is a directory (use -r)",
		    src[0].ep->name), 1;
	return rc == REMOTE_EXIT_CONN ? REMOTE_EXIT_CONN : 0;
}

int
remote_copy_rsync(const struct remote_place *src, size_t n, const struct remote_place *dst,
    const struct remote_copy_opts *o, struct gr_error *err)
{
	const struct remote_endpoint *ep = dst->ep != NULL ? dst->ep : src[0].ep;
	struct remote_argv ssh, a;
	struct sb e;
	size_t i;
	int rc;

	if (remote_connect(ep, err) != GR_OK)
		return REMOTE_EXIT_CONN;
	if (!o->recursive && (rc = refuse_directories(src, n, err)) != 0)
		return rc;
	remote_argv_init(&ssh);
	if (remote_ssh_options(ep, REMOTE_NO_TTY, &ssh, err) != GR_OK) {
		remote_argv_release(&ssh);
		return REMOTE_EXIT_CONN;
	}
	/* rsync splits -e itself (no shell): every word quoted for that splitting. */
	sb_init(&e);
	for (i = 0; i < ssh.n; i++) {
		if (i)
			sb_addc(&e, ' ');
		remote_rsync_quote(&e, ssh.v[i]);
	}
	remote_argv_release(&ssh);
	remote_argv_init(&a);
	remote_argv_add(&a, "rsync");
	/* Names travel inside rsync's protocol, never through the remote shell. */
	remote_argv_add(&a, "--protect-args");
	remote_argv_add(&a, "--links");
	remote_argv_add(&a, "--perms");
	remote_argv_add(&a, "--times");
	if (o->recursive)
		remote_argv_add(&a, "--recursive");
	remote_argv_add(&a, "--partial-dir=" PARTIAL_DIR);
	/* Whole files are the fastest on a fresh copy; --resume makes what is there already
	 * (the part kept aside, an older version) the basis, so only the rest travels. rsync
	 * checks each finished file against the sender's checksum either way. */
	if (!o->resume)
		remote_argv_add(&a, "--whole-file");
	for (i = 0; i < o->n_excludes; i++)
		remote_argv_addf(&a, "--exclude=%s", o->excludes[i]);
	if (o->bwlimit != NULL)
		remote_argv_addf(&a, "--bwlimit=%s", o->bwlimit);
	if (o->rsync_path != NULL)
		remote_argv_addf(&a, "--rsync-path=%s", o->rsync_path);
	if (o->progress)
		remote_argv_add(&a, "--info=progress2");
	if (o->stats)
		remote_argv_add(&a, "--stats");
	remote_argv_add(&a, "-e");
	remote_argv_add(&a, e.buf);
	sb_release(&e);
	remote_argv_add(&a, "--");
	for (i = 0; i < n; i++)
		add_place(&a, &src[i]);
	add_place(&a, dst);
	/* rsync's stdout carries only progress and statistics: they belong on stderr. */
	rc = remote_spawn_relay(a.v, err);
	remote_argv_release(&a);
	if (err->code != GR_OK)
		return 127;
	if (rc != 0 && rc != 20 && rc < 128 && !rsync_on(ep, o))
		return copy_scp(src, n, dst, o, err);
	return rsync_status(rc, err);
}

/* Fixed scripts, run by sh -c on each side; every path arrives as a positional parameter. */
static const char pack_script[] =
    "cd -- \"$1\" || exit 1; n=$2; r=$3; shift 3; "
    "if [ -d \"$n\" ] && [ \"$r\" != r ]; then "
    "echo 'gpurent: a source is a directory (use -r)' >&2; exit 1; fi; "
    "exec tar -cf - \"$@\" -- \"$n\"";
/* As rsync: into an existing directory (made first when DST must be one); else a file takes
 * the name DST, a directory is put inside a new directory DST, and a source ending in '/'
 * (base ".") becomes DST. $4 is DST's base name, $5 the source's. */
static const char unpack_script[] =
    DEST_SCRIPT
    "if [ -d \"$1\" ]; then cd -- \"$1\" && exec tar -xpf -; fi; "
    "cd -- \"$2\" || exit 1; t=$(mktemp -d ./.gpurent-cp.XXXXXX) || exit 1; "
    "if ! tar -C \"$t\" -xpf -; then rm -rf -- \"$t\"; exit 1; fi; "
    "if [ \"$5\" = . ]; then mv -- \"$t\" \"$4\"; exit $?; fi; "
    "if [ -d \"$t/$5\" ]; then mkdir -- \"$4\" && mv -- \"$t/$5\" \"$4/\"; "
    "else mv -f -- \"$t/$5\" \"$4\"; fi; s=$?; rm -rf -- \"$t\"; exit $s";

static int
stream_pair(const struct remote_place *src, const struct remote_place *dst,
    const struct remote_copy_opts *o, struct gr_error *err)
{
	struct remote_argv pack, unpack, words;
	char *sdir, *sbase, *ddir, *dbase, *dpath;
	int pipefd[2], null, pa = -1, pb = -1, ra, rb;
	size_t i;

	if (src->path[0] != '\0' && src->path[strlen(src->path) - 1] == '/') {
		/* "dir/": what the directory holds, as rsync reads a trailing slash. */
		sdir = xstrdup(src->path);
		sbase = xstrdup(".");
	} else {
		split_path(src->path, &sdir, &sbase);
	}
	split_path(dst->path, &ddir, &dbase);
	dpath = join_path(ddir, dbase);
	remote_argv_init(&pack);
	remote_argv_init(&unpack);
	script_words(&words, pack_script);
	remote_argv_add(&words, sdir);
	remote_argv_add(&words, sbase);
	remote_argv_add(&words, o->recursive ? "r" : "-");
	for (i = 0; i < o->n_excludes; i++)
		remote_argv_addf(&words, "--exclude=%s", o->excludes[i]);
	if (remote_ssh_argv(src->ep, REMOTE_NO_TTY, (const char *const *)words.v, words.n, &pack,
	    err) != GR_OK)
		goto out;
	remote_argv_release(&words);
	script_words(&words, unpack_script);
	remote_argv_add(&words, dpath);
	remote_argv_add(&words, ddir);
	remote_argv_add(&words, o->dst_dir ? "d" : "-");
	remote_argv_add(&words, dbase);
	remote_argv_add(&words, sbase);
	if (remote_ssh_argv(dst->ep, REMOTE_NO_TTY, (const char *const *)words.v, words.n,
	    &unpack, err) != GR_OK)
		goto out;
	if (remote_pipe(pipefd) != 0) {
		gr_fail(err, GR_EFAIL, "pipe: %s", strerror(errno));
		goto out;
	}
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* The bytes pass through this machine in the pipe, never into a file here. */
	pa = remote_spawn(pack.v, null, pipefd[1], -1, false, err);
	if (pa >= 0)
		pb = remote_spawn(unpack.v, pipefd[0], -1, -1, false, err);
	close(pipefd[0]);
	close(pipefd[1]);
	if (null >= 0)
		close(null);
out:
	free(sdir);
	free(sbase);
	free(ddir);
	free(dbase);
	free(dpath);
	remote_argv_release(&words);
	remote_argv_release(&pack);
	remote_argv_release(&unpack);
	if (pa < 0)
		return 127;
	ra = remote_wait(pa);
	if (pb < 0) {
		return 127;
	}
	rb = remote_wait(pb);
	/* Refused before reading: the source side then only saw its pipe close. */
	if (rb == DEST_NO_DIR || rb == DEST_NOT_DIR)
		return dest_status(rb, dst, err);
	if (ra == REMOTE_EXIT_CONN || rb == REMOTE_EXIT_CONN) {
		gr_fail(err, GR_EUNAVAIL, "the connection to %s broke during the copy",
		    ra == REMOTE_EXIT_CONN ? src->ep->name : dst->ep->name);
		return REMOTE_EXIT_CONN;
	}
	if (ra != 0 || rb != 0) {
		gr_fail(err, GR_EFAIL, "copy from %s to %s failed (tar exit %d on the source, %d "
		    "on the destination)", src->ep->name, dst->ep->name, ra, rb);
		return 1;
	}
	return 0;
}

int
remote_copy_stream(const struct remote_place *src, const struct remote_place *dst,
    const struct remote_copy_opts *o, struct gr_error *err)
{
	if (remote_connect(src->ep, err) != GR_OK || remote_connect(dst->ep, err) != GR_OK)
		return REMOTE_EXIT_CONN;
	return stream_pair(src, dst, o, err);
}
