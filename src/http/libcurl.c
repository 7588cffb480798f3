/*
 * Loading libcurl at run time (see libcurl.h for why).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "gpurent/i18n.h"
#include "gpurent/util.h"
#include "gpurent/dlbind.h"
#include "libcurl.h"

struct libcurl libcurl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[256];

static void
load(void)
{
	/* Debian ships the OpenSSL build as libcurl.so.4 and the GnuTLS one beside it. */
	static const char *const files[] = { "libcurl.so.4", "libcurl-gnutls.so.4",
		"libcurl.so" };
	static const struct dl_sym syms[] = {
#define SYM(field) { "curl_" #field, offsetof(struct libcurl, field) }
		SYM(global_init), SYM(easy_init), SYM(easy_setopt), SYM(easy_perform),
		SYM(easy_getinfo), SYM(easy_cleanup), SYM(easy_reset), SYM(easy_strerror),
		SYM(free), SYM(slist_append), SYM(slist_free_all), SYM(url), SYM(url_cleanup),
		SYM(url_get), SYM(url_set),
#undef SYM
	};
	const char *missing;

	if (dl_bind(files, ARRAY_LEN(files), syms, ARRAY_LEN(syms), &libcurl, &missing))
		loaded = true;
	else if (missing == NULL)
		snprintf(why, sizeof(why), _("cannot load libcurl (install libcurl4): %s"),
		    dlerror());
	else
		snprintf(why, sizeof(why), _("libcurl has no %s: it is older than 7.62"), missing);
}

const char *
libcurl_load(void)
{
	pthread_once(&once, load);
	return loaded ? NULL : why;
}
