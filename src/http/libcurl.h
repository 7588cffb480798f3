/*
 * libcurl.h - libcurl, loaded on first use.
 *
 * libcurl and its dependencies (TLS, HTTP/2, GSSAPI, LDAP...) cost about 10 ms of start-up
 * when linked, paid by every command, the simulator's and completion's included. The HTTP
 * layer loads it with dlopen when it first makes a client, and calls it through this table;
 * the names below keep http.c reading like ordinary libcurl code. Only src/http includes it.
 */
#ifndef GPURENT_HTTP_LIBCURL_H
#define GPURENT_HTTP_LIBCURL_H

#include <stdbool.h>

/* The type-checking macros wrap curl_easy_setopt, which becomes a table entry here. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

struct libcurl {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *h);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *h);
	void (*easy_reset)(CURL *h);
	const char *(*easy_strerror)(CURLcode code);
	void (*free)(void *p);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	CURLU *(*url)(void);
	void (*url_cleanup)(CURLU *u);
	CURLUcode (*url_get)(const CURLU *u, CURLUPart what, char **part, unsigned int flags);
	CURLUcode (*url_set)(CURLU *u, CURLUPart what, const char *part, unsigned int flags);
};

extern struct libcurl libcurl;

/* Load libcurl once (thread-safe): NULL when it is loaded, else why it cannot be. */
const char *libcurl_load(void);

#define curl_global_init libcurl.global_init
#define curl_easy_init libcurl.easy_init
#undef curl_easy_setopt	/* curl.h's own pass-through macro */
#define curl_easy_setopt libcurl.easy_setopt
#define curl_easy_perform libcurl.easy_perform
#undef curl_easy_getinfo
#define curl_easy_getinfo libcurl.easy_getinfo
#define curl_easy_cleanup libcurl.easy_cleanup
#define curl_easy_reset libcurl.easy_reset
#define curl_easy_strerror libcurl.easy_strerror
#define curl_free libcurl.free
#define curl_slist_append libcurl.slist_append
#define curl_slist_free_all libcurl.slist_free_all
#define curl_url libcurl.url
#define curl_url_cleanup libcurl.url_cleanup
#define curl_url_get libcurl.url_get
#define curl_url_set libcurl.url_set

#endif
