/*
 * Loading libmicrohttpd at run time (see libmhd.h for why).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpurent/i18n.h"
#include "gpurent/util.h"
#include "gpurent/dlbind.h"
#include "libmhd.h"

struct libmhd libmhd;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[256];

static void
load(void)
{
	static const char *const files[] = { "libmicrohttpd.so.12" };
	static const struct dl_sym syms[] = {
#define SYM(field) { "MHD_" #field, offsetof(struct libmhd, field) }
		SYM(start_daemon), SYM(stop_daemon), SYM(get_daemon_info),
		SYM(lookup_connection_value), SYM(get_connection_values),
		SYM(basic_auth_get_username_password), SYM(free),
		SYM(create_response_from_callback), SYM(create_response_from_buffer),
		SYM(add_response_header), SYM(queue_response), SYM(destroy_response),
#undef SYM
	};
	const char *missing;

	if (dl_bind(files, ARRAY_LEN(files), syms, ARRAY_LEN(syms), &libmhd, &missing))
		loaded = true;
	else if (missing == NULL)
		snprintf(why, sizeof(why), _("cannot load libmicrohttpd (install libmicrohttpd12): "
		    "%s"), dlerror());
	else
		snprintf(why, sizeof(why), _("libmicrohttpd has no %s"), missing);
}

const char *
libmhd_load(void)
{
	pthread_once(&once, load);
	return loaded ? NULL : why;
}

enum gr_err
libmhd_can_listen(const struct sockaddr *sa, socklen_t len, const char *shown,
    struct gr_error *err)
{
	int fd, one = 1, e = 0;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* As libmicrohttpd binds: a port left in TIME_WAIT is free. */
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, sa, len) != 0)
		e = errno;
	if (fd >= 0)
		close(fd);
	if (e == 0)
		return GR_OK;
	if (e == EADDRNOTAVAIL)
		return gr_fail(err, GR_EFAIL, "cannot listen on %s: no interface of this machine "
		    "has that address", shown);
	return gr_fail(err, GR_EFAIL, "cannot listen on %s: %s", shown, strerror(e));
}
