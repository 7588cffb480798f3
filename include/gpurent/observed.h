/*
 * observed.h - the calls that ask a provider about its instances or change one, each writing
 * what came back into the cost ledger (ledger.h). Backends report and write nothing; every
 * caller goes through these, so the ledger follows whatever gpurent saw.
 */
#ifndef GPURENT_OBSERVED_H
#define GPURENT_OBSERVED_H

#include "backend.h"
#include "error.h"
#include "model.h"

/* ops->get; the instance is observed. */
enum gr_err observed_get(struct backend *b, const char *id, struct instance *out,
    struct gr_error *err);
/*
 * ops->instances; after a full list, each instance is observed and the ledger's open rows
 * of instances no longer listed are closed as gone (a cluster listing others' jobs
 * with list_all observes only the billing its own jobs date). The ended jobs of a backend
 * with lists_ended are dropped from the list once observed.
 */
enum gr_err observed_instances(struct backend *b, struct instance_list *out,
    struct gr_error *err);
/*
 * ops->get of an instance gpurent did not launch, brought under it (reconcile --adopt):
 * observed as observed_get does and, while it runs, billed from when it was created, where
 * the provider dates that (or created_lend does) and it is not ahead of now: the ledger's
 * first compute segment of it starts there (ledger_observe_span), not when gpurent first
 * saw it.
 */
enum gr_err observed_adopt(struct backend *b, const char *id, struct instance *out,
    struct gr_error *err);
/* ops->launch; the new instance is observed. Only session_launch calls it, and
   session_start observed_start (session.h: the doors' provider calls). */
enum gr_err observed_launch(struct backend *b, const struct launch_req *req,
    struct instance *out, struct gr_error *err);
/* ops->stop, ops->start: once accepted, the instance is read again and observed. */
enum gr_err observed_stop(struct backend *b, const char *id, struct gr_error *err);
enum gr_err observed_start(struct backend *b, const char *id, struct gr_error *err);
/* ops->destroy: once accepted, the instance is observed destroyed. */
enum gr_err observed_destroy(struct backend *b, const char *id, struct gr_error *err);

#endif
