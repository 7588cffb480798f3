/*
 * Whole copies of a directory kept on another machine (remote_copy.h, remote_keep_*): a
 * managed job's checkpoints on its --store.
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/remote_copy.h"
#include "gpurent/util.h"

/* $1: the directory, $2: the copy's name. Makes the directory, drops a part left before. */
static const char ready_script[] =
	"mkdir -p \"$1\" && rm -rf \"$1/.partial-$2\"\n";
/* $1: the directory, $2: the copy's name, $3: the one to drop ("": none). */
static const char whole_script[] =
	"cd \"$1\" && rm -rf \"$2\" && mv \".partial-$2\" \"$2\" || exit 1\n"
	"[ -z \"$3\" ] || rm -rf \"$3\"\n";

static int
script(const struct remote_endpoint *ep, const char *text, const char *dir, const char *name,
    const char *drop, struct gr_error *err)
{
	const char *words[] = { "sh", "-c", text, "gpurent-keep", dir, name, drop };
	struct sb out;
	int rc;

	sb_init(&out);
	rc = remote_capture(ep, words, ARRAY_LEN(words), &out, 1024, err);
	sb_release(&out);
	if (rc != 0 && err->code == GR_OK)
		gr_fail(err, GR_EFAIL, "cannot keep a copy in %s on %s (exit %d)", dir, ep->name,
		    rc);
	return rc;
}

int
remote_keep_put(const struct remote_endpoint *ep, const char *dir, int seq,
    const char *local_dir, const struct remote_copy_opts *o, struct gr_error *err)
{
	struct remote_copy_opts copy = *o;
	struct remote_place src, dst;
	char name[16], drop[16] = "", from[4200], to[4200];
	int rc;

	snprintf(name, sizeof(name), "%06d", seq);
	if (seq > 2)
		snprintf(drop, sizeof(drop), "%06d", seq - 2);
	if ((rc = script(ep, ready_script, dir, name, drop, err)) != 0)
		return rc;
	copy.recursive = true;
	snprintf(from, sizeof(from), "%s/", local_dir);
	snprintf(to, sizeof(to), "%s/.partial-%s/", dir, name);
	src = (struct remote_place){ NULL, from };
	dst = (struct remote_place){ ep, to };
	if ((rc = remote_copy_rsync(&src, 1, &dst, &copy, err)) != 0)
		return rc;
	return script(ep, whole_script, dir, name, drop, err);
}

int
remote_keep_get(const struct remote_endpoint *ep, const char *dir, int seq,
    const char *local_dir, const struct remote_copy_opts *o, struct gr_error *err)
{
	struct remote_copy_opts copy = *o;
	struct remote_place src, dst;
	char from[4200], to[4200];

	copy.recursive = true;
	snprintf(from, sizeof(from), "%s/%06d/", dir, seq);
	snprintf(to, sizeof(to), "%s/", local_dir);
	src = (struct remote_place){ ep, from };
	dst = (struct remote_place){ NULL, to };
	return remote_copy_rsync(&src, 1, &dst, &copy, err);
}
