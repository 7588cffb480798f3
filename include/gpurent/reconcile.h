/*
 * reconcile.h - the account as each provider bills it, against what gpurent knows
 * (src/guard/reconcile.c): `gpurent reconcile` and the watcher's periodic pass.
 *
 * gpurent knows an instance it launched or started (the launch journal, state.h) or one
 * adopted (reconcile_marks.h). Against each provider's list (the session's fan-out, which
 * observes it into the ledger as `ls` does) it finds:
 *   RF_FOREIGN   an instance the provider lists that gpurent does not know: made in the
 *                provider's console, by another tool or another machine, or left by a
 *                launch whose answer a crash lost;
 *   RF_STORAGE   a stopped instance (known or not) whose disk still bills, at its storage
 *                rate, or at a rate the provider does not say (unknown, never 0);
 *   RF_VANISHED  a local record of an instance the provider no longer has: the ledger's
 *                newest segment of it was closed because its provider stopped listing it
 *                (ledger_each_gone), not by a destroy through gpurent.
 * Money stays in each instance's currency; nothing here adds amounts.
 */
#ifndef GPURENT_RECONCILE_H
#define GPURENT_RECONCILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

struct session;
struct fanout_result;

enum { RF_FOREIGN = 1u << 0, RF_STORAGE = 1u << 1, RF_VANISHED = 1u << 2 };

/* Hours in the month the storage figure is of: the 730 of every monthly price. */
#define RECONCILE_MONTH_HOURS 730

struct reconcile_finding {
	unsigned what;		/* RF_* */
	struct instance in;	/* as its provider lists it; RF_VANISHED: id, provider, label
				   and currency of the ledger's last segment of it */
	int64_t age;		/* seconds since it was created, on its provider's clock;
				   -1 unknown */
	int64_t storage_month;	/* RF_STORAGE: its storage rate for a month of
				   RECONCILE_MONTH_HOURS, in its currency; -1 unknown */
	int64_t gone_at;	/* RF_VANISHED: when gpurent found it no longer listed */
};

struct reconcile_list {
	struct reconcile_finding *v;
	size_t n, cap;
};
void reconcile_list_release(struct reconcile_list *l);

/* What a month of a stopped instance's disk costs in its currency; -1 when unknown. */
int64_t reconcile_storage_month(const struct instance *in);

/*
 * List every selected provider's instances (session_instances, res as it fills them) and
 * compare: the findings in out (initialised by the caller), foreign first, then stopped,
 * then vanished. GR_EPARTIAL when some provider could not list (its instances are not
 * compared; its vanished records still are); the first error when none could.
 */
enum gr_err reconcile_run(struct session *s, struct reconcile_list *out,
    struct fanout_result *res, struct gr_error *err);
/* The same comparison of a listing made already (l, from session_instances). */
enum gr_err reconcile_compare(struct session *s, const struct instance_list *l,
    struct reconcile_list *out, struct gr_error *err);

/*
 * Instance id as its provider has it now (observed_get), with its findings: what 0 when
 * there is none (gpurent's own, running). GR_ENOTFOUND when the provider has no such
 * instance.
 */
enum gr_err reconcile_one(struct session *s, const char *id, struct reconcile_finding *out,
    struct gr_error *err);

/*
 * Bring foreign instance id under gpurent: marked adopted, and billed in the ledger from
 * its start where its provider says it (observed_adopt). GR_ECONFLICT when gpurent
 * launched it; adopting one twice observes it again.
 */
enum gr_err reconcile_adopt(struct session *s, const char *id, struct instance *out,
    struct gr_error *err);

/*
 * Forget the local record of instance id: reconcile no longer lists it as vanished (its
 * ledger stays, for costs). GR_ECONFLICT while its provider still has it.
 */
enum gr_err reconcile_forget(struct session *s, const char *id, struct gr_error *err);

/* A finding the watcher has not reported before, as its event says it. */
struct reconcile_news {
	const struct reconcile_finding *finding;
	const char *kind;	/* "foreign-instance", "stopped-storage", "vanished-instance" */
	bool warn;		/* money is going: a warning, else a note */
	char message[384];
};

/*
 * The watcher's periodic comparison of its pass's listing l (failed[i] set for each
 * selected backend i that could not list): every `interval` seconds of the wall clock,
 * counted from the first call on this database, fn is handed each finding not reported
 * before, one call per finding of an instance (reconcile_marks.h keeps what was; a
 * finding that ends, at a provider that listed, and comes back is new again).
 */
enum gr_err reconcile_periodic(struct session *s, const struct instance_list *l,
    const bool *failed, int64_t interval, void (*fn)(void *ctx,
    const struct reconcile_news *n), void *ctx, struct gr_error *err);

#endif
