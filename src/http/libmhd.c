/*
 * Loading libmicrohttpd at run time (see libmhd.h for why).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "gpurent/i18n.h"
#include "libmhd.h"

struct libmhd libmhd;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[256];

static void
load(void)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(field) { "MHD_" #field, offsetof(struct libmhd, field) }
		SYM(start_daemon), SYM(stop_daemon), SYM(get_daemon_info),
		SYM(lookup_connection_value), SYM(get_connection_values),
		SYM(basic_auth_get_username_password), SYM(free),
		SYM(create_response_from_callback), SYM(create_response_from_buffer),
		SYM(add_response_header), SYM(queue_response), SYM(destroy_response),
#undef SYM
	};
	void *h, *f;
	size_t i;

	h = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		snprintf(why, sizeof(why), _("cannot load libmicrohttpd (install libmicrohttpd12): "
		    "%s"), dlerror());
		return;
	}
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if ((f = dlsym(h, syms[i].name)) == NULL) {
			snprintf(why, sizeof(why), _("libmicrohttpd has no %s"), syms[i].name);
			return;
		}
		/* POSIX guarantees a function pointer survives the trip through void *. */
		*(void **)((char *)&libmhd + syms[i].off) = f;
	}
	loaded = true;
}

bool
libmhd_load(void)
{
	pthread_once(&once, load);
	return loaded;
}

const char *
libmhd_why(void)
{
	return why;
}
