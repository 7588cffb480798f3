/*
 * Loading libcurl at run time (see libcurl.h for why).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "gpurent/i18n.h"
#include "libcurl.h"

struct libcurl libcurl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[256];

static void
load(void)
{
	/* Debian ships the OpenSSL build as libcurl.so.4 and the GnuTLS one beside it. */
	static const char *const names[] = { "libcurl.so.4", "libcurl-gnutls.so.4",
		"libcurl.so" };
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(field) { "curl_" #field, offsetof(struct libcurl, field) }
		SYM(global_init), SYM(easy_init), SYM(easy_setopt), SYM(easy_perform),
		SYM(easy_getinfo), SYM(easy_cleanup), SYM(easy_reset), SYM(easy_strerror),
		SYM(free), SYM(slist_append), SYM(slist_free_all), SYM(url), SYM(url_cleanup),
		SYM(url_get), SYM(url_set),
#undef SYM
	};
	void *h = NULL, *f;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]) && h == NULL; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		snprintf(why, sizeof(why), _("cannot load libcurl (install libcurl4): %s"),
		    dlerror());
		return;
	}
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if ((f = dlsym(h, syms[i].name)) == NULL) {
			snprintf(why, sizeof(why), _("libcurl has no %s: it is older than 7.62"),
			    syms[i].name);
			return;
		}
		/* POSIX guarantees a function pointer survives the trip through void *. */
		*(void **)((char *)&libcurl + syms[i].off) = f;
	}
	loaded = true;
}

bool
libcurl_load(void)
{
	pthread_once(&once, load);
	return loaded;
}

const char *
libcurl_why(void)
{
	return why;
}
