/*
 * backends_int.h - helpers shared by the HTTP backends (vast, runpod, lambda, ppio, slurm);
 * internal to src/backends/.
 */
#ifndef GPURENT_BACKENDS_INT_H
#define GPURENT_BACKENDS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpurent/backend.h"
#include "gpurent/error.h"
#include "gpurent/filter.h"
#include "gpurent/http.h"
#include "gpurent/model.h"

/* A continent-level region ("eu", "na", "as", ...: the prefixes the
   simulator and the filter language use) for a two-letter country code, or "". */
const char *bk_region_of_cc(const char *cc);
/* Country codes of a region prefix ("eu", "na-east" -> its continent); NULL when unknown. */
const char *const *bk_ccs_of_region(const char *region);

/* The provider's verdict on a reply (its status and body): its error, or GR_OK. */
typedef enum gr_err (*bk_error_fn)(long status, const char *body, size_t len,
    struct gr_error *err);

/* What every HTTP backend keeps. */
struct bk_http {
	struct http_client *http;
	char *base;			/* scheme://host[:port], no trailing '/' */
	char *auth;			/* "Authorization: Bearer <key>" or NULL; wiped at free */
	const char *hdrs[3];		/* auth header, NULL-terminated */
	bk_error_fn parse_error;	/* how the provider says a request failed */
};

/*
 * Resolve the base URL (env->base_url, else GPURENT_<P>_URL, else config "<p>.url", else
 * def) and the key (env->api_key, else GPURENT_<P>_API_KEY, else <P>_API_KEY), and create the
 * HTTP client. need_key: fail with GR_EAUTH when no key is found. parse_error reads the
 * provider's errors (bk_check).
 */
enum gr_err bk_http_init(struct bk_http *h, const struct backend *b, const char *def_url,
    bool need_key, bk_error_fn parse_error, struct gr_error *err);
void bk_http_free(struct bk_http *h);
/* GR_EAUTH, saying how to give one, when the backend has no key. */
enum gr_err bk_need_key(const struct bk_http *h, const char *provider, struct gr_error *err);
/* An absolute URL for a path; malloc'd. */
char *bk_url(const struct bk_http *h, const char *path);
/* GET path, or send json to it with method m (idempotent: may be retried), into rs. */
enum gr_err bk_request(const struct bk_http *h, enum http_method m, const char *path,
    const char *json, bool idempotent, struct http_response *rs, struct gr_error *err);
/* A transport error e stays; after a reply, the provider's verdict on it (h->parse_error). */
enum gr_err bk_check(const struct bk_http *h, enum gr_err e, const struct http_response *rs,
    struct gr_error *err);
/* A reply not streamed (http_do's, with its transport error herr): bk_check's verdict, the
   transport's message kept in err. */
enum gr_err bk_kept(const struct bk_http *h, enum gr_err e, const struct http_response *rs,
    const struct gr_error *herr, struct gr_error *err);
/* bk_request, then bk_check: rs holds a reply the provider calls a success, on GR_OK. */
enum gr_err bk_call(const struct bk_http *h, enum http_method m, const char *path,
    const char *json, bool idempotent, struct http_response *rs, struct gr_error *err);

/*
 * An offers list read as it arrives (http.h's stream), asked with method m at path (body:
 * JSON or NULL; a read, which may be retried): an offer_stream of kind k (arg: its own) is
 * opened at the first body byte of each 2xx attempt (a retried attempt forgets what a
 * cut-off one appended), fed every chunk and finished at the end; its verdict is the error
 * when it stopped the transfer or the transfer ended well, while a transfer cut off for good
 * keeps the transport's message, as a kept body would. A reply not streamed (an error status)
 * is checked (bk_kept) and, when good, what was kept is parsed the same way. On any error
 * nothing stays appended to out.
 */
struct offer_stream_kind;
enum gr_err bk_offers_read(const struct bk_http *h, enum http_method m, const char *path,
    const char *body, const struct offer_stream_kind *k, const void *arg,
    struct offer_list *out, struct gr_error *err);

/*
 * A bill read whole days at a time (backend.h, charges): of the charges from out->v[n0] on,
 * keep those of the days of [since, until) (until 0: no bound), then fold the list.
 */
void bk_charges_window(struct charge_list *out, size_t n0, int64_t since, int64_t until);

/* Record/read the launch time of an instance the provider does not date (Lambda). */

/* The id part after "<provider>:"; NULL (with GR_ENOTFOUND in err) for another provider's id. */
const char *bk_local_id(const struct backend *b, const char *id, struct gr_error *err);

/*
 * The local part of an instance id in *local, read by local_of (bk_local_id, or a
 * provider's stricter reading), once h has the key that any request about it needs.
 */
typedef const char *(*bk_local_fn)(const struct backend *b, const char *id,
    struct gr_error *err);
enum gr_err bk_instance_local(const struct backend *b, const struct bk_http *h, const char *id,
    bk_local_fn local_of, const char **local, struct gr_error *err);

/*
 * The one launch protocol of every HTTP backend (a double launch costs money): send the
 * create; a 429 was not acted on, so wait and send again; after an unclear outcome (timeout,
 * reset, 5xx, a 2xx that cannot be read) look for the instance by name up to three times, and
 * send again only once the provider has answered that it does not exist. Never resends after
 * Ctrl-C.
 *
 * What "the instance" is after an unclear outcome: a live one (not ST_DESTROYED) whose label
 * is exactly `name` and that did not exist before the create was first sent. A name made for
 * this request alone (name_unique: "gpurent-<client token>") needs no more; any other name
 * (the user's --label, a group's "group:NAME") may already be worn by earlier instances, so
 * the ids wearing it are listed once before the first send and none of them is ever taken
 * for the new one. The outcome stays unknown (GR_EUNAVAIL, "run 'gpurent ls'"), and nothing
 * is adopted, when that list could not be had, when a look-up fails, or when more than one
 * new instance wears the name. Another client launching under the same label in the same
 * moment is not told apart: its instance would count as new.
 */
struct bk_launch {
	const char *name;	/* the name or label the instance is found by */
	bool name_unique;	/* name made for this request alone: no list before the send */
	long backoff_ms;	/* first wait before sending again; doubles each attempt */
	void *ctx;
	/* Send the create once, as http_do does. */
	enum gr_err (*send)(void *ctx, struct http_response *rs, struct gr_error *err);
	/* A clear reply: the provider's error, or success (the backend notes the new id). */
	enum gr_err (*accept)(void *ctx, const struct http_response *rs, struct gr_error *err);
	/* Append the account's instances, at least every one labelled name (others are passed
	   over): GR_OK only for a full list. */
	enum gr_err (*list)(void *ctx, struct instance_list *out, struct gr_error *err);
};
/* GR_OK when accepted (*found false) or found by name after an unclear outcome (*found). */
enum gr_err bk_launch_run(const struct bk_launch *l, struct instance *out, bool *found,
    struct gr_error *err);

/* For a small price list read whole (Lambda, PPIO): whether the filter holds no term but
   provider and type, the ones the core has already applied in choosing this backend. */
bool bk_only_provider_type(const struct filter *f);


/*
 * A launch whose create is one request (m, path, doc; never retried by the HTTP layer)
 * answered with the new id, read by parse_id once the provider's verdict (bk_http's
 * parse_error) is good; run by bk_launch_run, which after an unclear outcome finds the
 * instance through list (name: the launch's, for a server that can filter by it). lid gets
 * the new instance's id without "<provider>:". Lambda, PPIO and Vast.
 */
struct bk_create {
	struct backend *b;
	const struct bk_http *h;
	enum http_method m;
	const char *path;
	const char *doc;
	const char *name;
	bool name_unique;
	long backoff_ms;
	enum gr_err (*parse_id)(const char *body, size_t len, char *id, size_t n,
	    struct gr_error *err);
	enum gr_err (*list)(struct backend *b, const char *name, struct instance_list *out,
	    struct gr_error *err);
};
enum gr_err bk_create_run(const struct bk_create *c, struct instance *out, char *lid, size_t n,
    struct gr_error *err);
/* What a launch answers when its new instance cannot be read back yet: id, provider and
   label, provisioning; nothing else known. */
void bk_instance_from_launch(const struct backend *b, const char *id, const char *label,
    struct instance *out);

/* The provider's own name for a catalogue model: the first of its names that resolves to m
   with one of the n memory sizes hinted (GB; 0: none), or NULL. */
const char *bk_gpu_name_of(const char *provider, const struct gpu_model *m,
    const int *vram_hints, size_t n);

/* Wall-clock UTC seconds. */
int64_t bk_now(void);
/* Gives the samples from index `from` on that carry no time (the provider's reply had none)
 * the time they were fetched, so that none is shown as taken at the epoch. */
void bk_stamp_samples(struct sample_list *l, size_t from, int64_t now);
/* Sleep ms milliseconds (used between launch look-ups). */
void bk_sleep_ms(long ms);

#endif
