/*
 * libmhd.h - libmicrohttpd, loaded on first use by `gpurent sim serve` and `gpurent exporter`.
 *
 * Linked, libmicrohttpd and its GnuTLS would cost every gpurent command start-up time for
 * the sake of two subcommands. They load it with dlopen and call it through this table;
 * the names below keep their code reading like ordinary libmicrohttpd code.
 */
#ifndef GPURENT_SIM_LIBMHD_H
#define GPURENT_SIM_LIBMHD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "gpurent/error.h"

struct libmhd {
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
	    MHD_AcceptPolicyCallback apc, void *apc_cls, MHD_AccessHandlerCallback dh,
	    void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *d);
	const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *d,
	    enum MHD_DaemonInfoType type, ...);
	const char *(*lookup_connection_value)(struct MHD_Connection *c, enum MHD_ValueKind kind,
	    const char *key);
	int (*get_connection_values)(struct MHD_Connection *c, enum MHD_ValueKind kind,
	    MHD_KeyValueIterator iterator, void *iterator_cls);
	char *(*basic_auth_get_username_password)(struct MHD_Connection *c, char **password);
	void (*free)(void *p);
	struct MHD_Response *(*create_response_from_callback)(uint64_t size, size_t block_size,
	    MHD_ContentReaderCallback crc, void *crc_cls, MHD_ContentReaderFreeCallback crfc);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
	    enum MHD_ResponseMemoryMode mode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *r, const char *header,
	    const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *c, unsigned int status,
	    struct MHD_Response *r);
	void (*destroy_response)(struct MHD_Response *r);
};

extern struct libmhd libmhd;

/* Load libmicrohttpd once: NULL when it is loaded, else why it cannot be. */
const char *libmhd_load(void);

/*
 * Whether a daemon can listen on sa (len bytes), asked of the kernel before the daemon
 * starts: libmicrohttpd would say only "Failed to bind to port 0" on stderr. GR_OK, or
 * GR_EFAIL (a local failure, exit 1) with err naming the address as shown and the reason.
 */
enum gr_err libmhd_can_listen(const struct sockaddr *sa, socklen_t len, const char *shown,
    struct gr_error *err);

#define MHD_start_daemon libmhd.start_daemon
#define MHD_stop_daemon libmhd.stop_daemon
#define MHD_get_daemon_info libmhd.get_daemon_info
#define MHD_lookup_connection_value libmhd.lookup_connection_value
#define MHD_get_connection_values libmhd.get_connection_values
#define MHD_basic_auth_get_username_password libmhd.basic_auth_get_username_password
#define MHD_free libmhd.free
#define MHD_create_response_from_callback libmhd.create_response_from_callback
#define MHD_create_response_from_buffer libmhd.create_response_from_buffer
#define MHD_add_response_header libmhd.add_response_header
#define MHD_queue_response libmhd.queue_response
#define MHD_destroy_response libmhd.destroy_response

#endif
