/*
 * reconcile.c - each provider's account against what gpurent knows (reconcile.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/columns.h"
#include "gpurent/costs.h"
#include "gpurent/i18n.h"
#include "gpurent/ledger.h"
#include "gpurent/observed.h"
#include "gpurent/reconcile.h"
#include "gpurent/reconcile_marks.h"
#include "gpurent/session.h"
#include "gpurent/state.h"
#include "gpurent/util.h"

void
reconcile_list_release(struct reconcile_list *l)
{
	XRELEASE(l->v, l->n, l->cap);
}

int64_t
reconcile_storage_month(const struct instance *in)
{
	return in->valid & IV_STORAGE ? in->storage_hour * RECONCILE_MONTH_HOURS : -1;
}

/* What gpurent knows: the launch journal, and the marks of the adopted. */
struct known {
	struct state *st;
	struct reconcile_mark *marks;
	size_t n;
};

static enum gr_err
known_load(struct session *s, struct known *k, struct gr_error *err)
{
	memset(k, 0, sizeof(*k));
	if (session_state(s, &k->st, err) != GR_OK)
		return err->code;
	return reconcile_marks_load(k->st, &k->marks, &k->n, err);
}

static struct reconcile_mark *
mark_of(const struct known *k, const char *id)
{
	return find_by_id(k->marks, k->n, sizeof(*k->marks),
	    offsetof(struct reconcile_mark, instance_id), id);
}

static unsigned
classify(const struct known *k, const struct instance *in)
{
	const struct reconcile_mark *m;
	unsigned what = 0;

	if (in->state == ST_DESTROYED)
		return 0;
	if (!state_journal_has(k->st, in->id) && ((m = mark_of(k, in->id)) == NULL ||
	    m->adopted_at == 0))
		what |= RF_FOREIGN;
	/* Unknown storage is a finding (its bill unknown); a rate of 0 bills nothing. */
	if ((in->state == ST_STOPPED || in->state == ST_STOPPING) &&
	    reconcile_storage_month(in) != 0)
		what |= RF_STORAGE;
	return what;
}

static void
fill(struct reconcile_finding *f, unsigned what, const struct instance *in,
    const struct cost_clock *clk)
{
	int64_t now = cost_clock_now(clk, in->provider);

	f->what = what;
	f->in = *in;
	f->age = -1;
	/* A provider's clock a little ahead of this machine's makes no negative age. */
	if (in->valid & IV_CREATED)
		f->age = now > in->created_at ? now - in->created_at : 0;
	f->storage_month = what & RF_STORAGE ? reconcile_storage_month(in) : -1;
}

struct gone_ctx {
	struct session *s;
	const struct known *k;
	struct reconcile_list *out;
};

static void
gone_one(const struct ledger_seg *g, void *ctx)
{
	struct gone_ctx *c = ctx;
	struct reconcile_finding *f;
	const struct reconcile_mark *m;
	size_t i;

	for (i = 0; i < c->s->n_backends; i++)
		if (strcmp(c->s->backends[i]->ops->name, g->provider) == 0)
			break;
	if (i == c->s->n_backends || ((m = mark_of(c->k, g->instance_id)) != NULL &&
	    m->adopted_at == RECONCILE_FORGOTTEN))
		return;
	f = XPUSH(c->out->v, c->out->n, c->out->cap, 16);
	f->what = RF_VANISHED;
	strlcpy_(f->in.id, g->instance_id, sizeof(f->in.id));
	strlcpy_(f->in.provider, g->provider, sizeof(f->in.provider));
	strlcpy_(f->in.label, g->label, sizeof(f->in.label));
	strlcpy_(f->in.gpu_raw, g->gpu, sizeof(f->in.gpu_raw));
	money_currency_set(f->in.currency, g->currency);
	f->in.state = ST_UNKNOWN;
	f->age = f->storage_month = -1;
	f->gone_at = g->end;
}

enum gr_err
reconcile_compare(struct session *s, const struct instance_list *l,
    struct reconcile_list *out, struct gr_error *err)
{
	struct cost_clock clk;
	struct known k;
	struct gone_ctx g = { s, &k, out };
	size_t i;
	unsigned what;
	enum gr_err rc;

	if (known_load(s, &k, err) != GR_OK)
		return err->code;
	session_clock(s, &clk);
	for (i = 0; i < l->n; i++)
		if ((what = classify(&k, &l->v[i])) != 0)
			fill(XPUSH(out->v, out->n, out->cap, 16), what, &l->v[i], &clk);
	rc = ledger_each_gone(k.st, gone_one, &g, err);
	free(k.marks);
	return rc;
}

enum gr_err
reconcile_run(struct session *s, struct reconcile_list *out, struct fanout_result *res,
    struct gr_error *err)
{
	struct gr_error cerr = { 0 };
	struct instance_list l;
	enum gr_err rc;

	instance_list_init(&l);
	rc = session_instances(s, &l, res, err);
	if ((rc == GR_OK || rc == GR_EPARTIAL) &&
	    reconcile_compare(s, &l, out, &cerr) != GR_OK) {
		*err = cerr;
		rc = cerr.code;
	}
	instance_list_release(&l);
	return rc;
}

enum gr_err
reconcile_one(struct session *s, const char *id, struct reconcile_finding *out,
    struct gr_error *err)
{
	struct cost_clock clk;
	struct instance in;
	struct backend *b;
	struct known k;

	memset(out, 0, sizeof(*out));
	if (session_backend_for(s, id, &b, err) != GR_OK ||
	    observed_get(b, id, &in, err) != GR_OK || known_load(s, &k, err) != GR_OK)
		return err->code;
	session_clock(s, &clk);
	fill(out, classify(&k, &in), &in, &clk);
	free(k.marks);
	return GR_OK;
}

enum gr_err
reconcile_adopt(struct session *s, const char *id, struct instance *out,
    struct gr_error *err)
{
	struct reconcile_mark m, *was;
	struct backend *b;
	struct known k;
	enum gr_err rc;

	if (session_backend_for(s, id, &b, err) != GR_OK || known_load(s, &k, err) != GR_OK)
		return err->code;
	if (state_journal_has(k.st, id))
		rc = gr_fail(err, GR_ECONFLICT, "'%s' was launched through gpurent: it is "
		    "gpurent's already", id);
	else
		rc = observed_adopt(b, id, out, err);
	if (rc == GR_OK) {
		memset(&m, 0, sizeof(m));
		if ((was = mark_of(&k, out->id)) != NULL)
			m = *was;
		strlcpy_(m.instance_id, out->id, sizeof(m.instance_id));
		strlcpy_(m.provider, out->provider, sizeof(m.provider));
		if (m.adopted_at == 0)
			m.adopted_at = (int64_t)time(NULL);
		rc = reconcile_mark_put(k.st, &m, err);
	}
	free(k.marks);
	return rc;
}

enum gr_err
reconcile_forget(struct session *s, const char *id, struct gr_error *err)
{
	struct reconcile_mark m, *was;
	struct instance in;
	struct backend *b;
	struct known k;
	enum gr_err rc;

	if (session_backend_for(s, id, &b, err) != GR_OK)
		return err->code;
	memset(&in, 0, sizeof(in));
	rc = observed_get(b, id, &in, err);
	if (rc == GR_OK && in.state != ST_DESTROYED)
		return gr_fail(err, GR_ECONFLICT, "'%s' is still at its provider (%s): destroy it "
		    "with 'gpurent destroy', or keep it", id, inst_state_name(in.state));
	if (rc != GR_OK && rc != GR_ENOTFOUND)
		return rc;
	gr_error_clear(err);
	if (known_load(s, &k, err) != GR_OK)
		return err->code;
	memset(&m, 0, sizeof(m));
	if ((was = mark_of(&k, id)) != NULL)
		m = *was;
	strlcpy_(m.instance_id, id, sizeof(m.instance_id));
	strlcpy_(m.provider, b->ops->name, sizeof(m.provider));
	m.adopted_at = RECONCILE_FORGOTTEN;
	rc = reconcile_mark_put(k.st, &m, err);
	free(k.marks);
	return rc;
}

/* Whether provider is one of the session's backends that listed (failed: as for news). */
static bool
listed_by(const struct session *s, const bool *failed, const char *provider)
{
	size_t i;

	for (i = 0; i < s->n_backends; i++)
		if (strcmp(s->backends[i]->ops->name, provider) == 0)
			return !failed[i];
	return false;
}

static const struct reconcile_finding *
finding_of(const struct reconcile_list *l, const char *id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].in.id, id) == 0)
			return &l->v[i];
	return NULL;
}

/*
 * The findings not reported before: news[i] gets the bits of l->v[i] that are new, and the
 * marks remember l's findings in place of the earlier ones (of the providers that listed),
 * so that a finding that ends and comes back is new again. One transaction.
 */
static enum gr_err
news_of(struct session *s, const struct reconcile_list *l, const bool *failed, unsigned *news,
    struct gr_error *err)
{
	struct reconcile_mark m, *was;
	struct known k;
	size_t i;

	if (known_load(s, &k, err) != GR_OK || state_begin(k.st, err) != GR_OK) {
		free(k.marks);
		return err->code;
	}
	for (i = 0; i < l->n && err->code == GR_OK; i++) {
		memset(&m, 0, sizeof(m));
		if ((was = mark_of(&k, l->v[i].in.id)) != NULL)
			m = *was;
		news[i] = l->v[i].what & ~m.reported;
		if (m.reported == l->v[i].what)
			continue;
		strlcpy_(m.instance_id, l->v[i].in.id, sizeof(m.instance_id));
		strlcpy_(m.provider, l->v[i].in.provider, sizeof(m.provider));
		m.reported = l->v[i].what;
		(void)reconcile_mark_put(k.st, &m, err);
	}
	for (i = 0; i < k.n && err->code == GR_OK; i++)
		if (k.marks[i].reported != 0 && finding_of(l, k.marks[i].instance_id) == NULL &&
		    listed_by(s, failed, k.marks[i].provider)) {
			k.marks[i].reported = 0;
			(void)reconcile_mark_put(k.st, &k.marks[i], err);
		}
	free(k.marks);
	if (err->code != GR_OK) {
		state_rollback(k.st);
		return err->code;
	}
	return state_commit(k.st, err);
}

/* The event of one new finding: its kind, level and words. */
static void
describe(const struct reconcile_finding *f, unsigned bit, struct reconcile_news *n)
{
	char price[32], month[32], age[32];

	if (f->in.valid & IV_PRICE)
		money_format_in(price, sizeof(price), f->in.price_hour, 3, f->in.currency);
	else
		strlcpy_(price, _("an unknown price"), sizeof(price));
	if (f->age >= 0)
		format_uptime(age, sizeof(age), (long long)f->age);
	else
		strlcpy_(age, _("unknown"), sizeof(age));
	n->finding = f;
	switch (bit) {
	case RF_FOREIGN:
		n->kind = "foreign-instance";
		n->warn = true;
		snprintf(n->message, sizeof(n->message), _("billing %s/hour, created %s ago, and "
		    "not launched by gpurent: 'gpurent reconcile --adopt ID' brings it under "
		    "gpurent, '--destroy ID' destroys it"), price, age);
		break;
	case RF_STORAGE:
		if (f->storage_month >= 0)
			money_format_in(month, sizeof(month), f->storage_month, 2, f->in.currency);
		else
			strlcpy_(month, _("an unknown amount"), sizeof(month));
		n->kind = "stopped-storage";
		n->warn = true;
		snprintf(n->message, sizeof(n->message), _("stopped, and its disk still bills %s "
		    "a month until it is destroyed"), month);
		break;
	default:
		n->kind = "vanished-instance";
		n->warn = false;
		snprintf(n->message, sizeof(n->message), _("its provider no longer has it: "
		    "destroyed or taken back outside gpurent; its ledger ends when that was "
		    "noticed; 'gpurent reconcile --forget ID' drops the record"));
		break;
	}
}

enum gr_err
reconcile_periodic(struct session *s, const struct instance_list *l, const bool *failed,
    int64_t interval, void (*fn)(void *ctx, const struct reconcile_news *n), void *ctx,
    struct gr_error *err)
{
	struct reconcile_list found = { NULL, 0, 0 };
	struct reconcile_news n;
	struct state *st;
	unsigned *news, bit;
	char buf[32];
	long long last;
	int64_t now = (int64_t)time(NULL);
	size_t i;

	if (session_state(s, &st, err) != GR_OK)
		return err->code;
	/* The first pass in a database starts the count: the first comparison is due then. */
	if (!state_meta_get(st, "reconcile.last", buf, sizeof(buf)) ||
	    !parse_int(buf, 0, INT64_MAX, &last)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)now);
		return state_meta_set(st, "reconcile.last", buf, err);
	}
	if (now - last < interval)
		return GR_OK;
	snprintf(buf, sizeof(buf), "%lld", (long long)now);
	if (state_meta_set(st, "reconcile.last", buf, err) != GR_OK ||
	    reconcile_compare(s, l, &found, err) != GR_OK) {
		reconcile_list_release(&found);
		return err->code;
	}
	news = xcalloc(found.n + 1, sizeof(*news));
	if (news_of(s, &found, failed, news, err) == GR_OK)
		for (i = 0; i < found.n; i++)
			for (bit = RF_FOREIGN; bit <= RF_VANISHED; bit <<= 1)
				if (news[i] & bit) {
					describe(&found.v[i], bit, &n);
					fn(ctx, &n);
				}
	free(news);
	reconcile_list_release(&found);
	return err->code;
}
