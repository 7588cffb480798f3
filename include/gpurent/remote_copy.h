/*
 * remote_copy.h - file copies to, from and between instances, over the transport (remote.h).
 *
 * Between this machine and an instance: rsync through the instance's shared master, names
 * inside rsync's protocol (--protect-args), modes, mtimes and links kept, files sent whole;
 * an interrupted file is kept in a .gpurent-partial directory next to its destination, and
 * with resume set rsync's delta transfer uses it (or an older destination file) as the
 * basis, so only what is missing travels. When the instance turns out to have no rsync,
 * scp in its SFTP mode copies instead (no excludes, no resume). Between two instances: tar on each side,
 * joined by a pipe through this machine (no temporary copy here); the paths reach fixed
 * sh -c scripts as quoted positional parameters.
 *
 * Both return 0, 130 when interrupted, 255 when a connection failed, 1 otherwise; err says
 * what happened (rsync and ssh have printed their own words on stderr already).
 */
#ifndef GPURENT_REMOTE_COPY_H
#define GPURENT_REMOTE_COPY_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "remote.h"

struct remote_copy_opts {
	bool recursive;			/* directories too */
	bool resume;			/* send only what the destination lacks (delta transfer) */
	bool progress;			/* bytes, rate and ETA on stderr */
	bool stats;			/* rsync's transfer statistics on stderr */
	const char *const *excludes;	/* patterns, rsync/tar --exclude syntax */
	size_t n_excludes;
	const char *bwlimit;		/* rsync --bwlimit value, NULL: none */
	const char *rsync_path;		/* rsync on the instance (config ssh.rsync_path) */
	bool dst_dir;			/* the destination is a directory (it ends in '/', or
					 * several sources go there): made when missing, its
					 * last name only, as rsync makes it */
};

/* One side of a copy: a local path (ep NULL) or a path on an instance (relative: to home). */
struct remote_place {
	const struct remote_endpoint *ep;
	const char *path;
};

/* Copy n sources to dst with rsync; every remote place is on the same endpoint. */
int remote_copy_rsync(const struct remote_place *src, size_t n, const struct remote_place *dst,
    const struct remote_copy_opts *o, struct gr_error *err);

/*
 * Whole copies of a local directory kept in dir on ep (relative: to its home), as a managed
 * job's --store keeps its checkpoints. remote_keep_put copies what local_dir holds into
 * dir/.partial-SEQ (six digits), then renames it dir/SEQ and removes dir/SEQ-2: dir holds
 * the last two whole copies, and a copy cut short is never one of them. remote_keep_get
 * copies what dir/SEQ holds into local_dir (made when missing). With o's rsync settings.
 */
int remote_keep_put(const struct remote_endpoint *ep, const char *dir, int seq,
    const char *local_dir, const struct remote_copy_opts *o, struct gr_error *err);
int remote_keep_get(const struct remote_endpoint *ep, const char *dir, int seq,
    const char *local_dir, const struct remote_copy_opts *o, struct gr_error *err);

/* Copy one source on an instance to a place on another (or the same) instance. */
int remote_copy_stream(const struct remote_place *src, const struct remote_place *dst,
    const struct remote_copy_opts *o, struct gr_error *err);

#endif
