/*
 * ssh_retry.c - the back-off of ssh attempts on instances that refused them (ssh_retry.h).
 */
#include <stdlib.h>
#include <string.h>

#include "gpurent/ssh_retry.h"
#include "gpurent/util.h"

void
ssh_retry_init(struct ssh_retry *r, int64_t first_ms)
{
	memset(r, 0, sizeof(*r));
	r->first_ms = first_ms > 0 ? first_ms : 0;
}

void
ssh_retry_release(struct ssh_retry *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static struct ssh_retry_entry *
find(const struct ssh_retry *r, const char *id)
{
	return find_by_id(r->v, r->n, sizeof(*r->v), offsetof(struct ssh_retry_entry, id), id);
}

bool
ssh_retry_due(const struct ssh_retry *r, const char *id, int64_t now)
{
	const struct ssh_retry_entry *e = find(r, id);

	return e == NULL || now >= e->retry_at;
}

void
ssh_retry_note(struct ssh_retry *r, const char *id, bool answered, int64_t now)
{
	struct ssh_retry_entry *e = find(r, id);
	int64_t most = r->first_ms * SSH_RETRY_GROWTH;

	if (answered || r->first_ms == 0) {
		if (e != NULL)
			*e = r->v[--r->n];
		return;
	}
	if (e == NULL) {
		if (r->n == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 16;
			r->v = xreallocarray(r->v, r->cap, sizeof(*r->v));
		}
		e = &r->v[r->n++];
		memset(e, 0, sizeof(*e));
		strlcpy_(e->id, id, sizeof(e->id));
		e->wait = r->first_ms;
	} else {
		e->wait = e->wait > most / 2 ? most : e->wait * 2;
	}
	e->retry_at = now + e->wait;
}

void
ssh_retry_prune(struct ssh_retry *r, bool (*keep)(const char *id, void *data), void *data)
{
	size_t i = 0;

	while (i < r->n) {
		if (keep(r->v[i].id, data))
			i++;
		else
			r->v[i] = r->v[--r->n];
	}
}
