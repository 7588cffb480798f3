/*
 * reconcile_marks.h - what `gpurent reconcile` keeps of an instance in the state database
 * (src/store/reconcile.c, table reconcile_marks): that it was adopted (brought under gpurent
 * though not launched by it), and which findings the watcher has reported of it, so that
 * each is reported once while it lasts.
 */
#ifndef GPURENT_RECONCILE_MARKS_H
#define GPURENT_RECONCILE_MARKS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

struct state;

/* The adopted_at of an instance whose local record the user forgot: never listed vanished. */
#define RECONCILE_FORGOTTEN (-1)

struct reconcile_mark {
	char instance_id[ID_MAX];
	char provider[PROVIDER_MAX];
	int64_t adopted_at;	/* UTC seconds, 0: not adopted, RECONCILE_FORGOTTEN: its
				   record forgotten (reconcile --forget) */
	unsigned reported;	/* findings reported (reconcile.h RF_*) */
};

/* Every mark. Caller frees *out. */
enum gr_err reconcile_marks_load(struct state *st, struct reconcile_mark **out, size_t *n,
    struct gr_error *err);
/* Write m in place of the instance's mark; a mark with nothing to keep is deleted. */
enum gr_err reconcile_mark_put(struct state *st, const struct reconcile_mark *m,
    struct gr_error *err);

#endif
