/*
 * ssh_hosts.h - the ssh include file (gpurent ssh-config): one Host entry per running
 * instance, so that `ssh ALIAS` and VS Code's Remote-SSH reach it with no gpurent in the
 * loop.
 *
 * An entry names the instance by its label, else its id, made safe for ssh_config (only
 * [A-Za-z0-9._-]); when two instances would share a name, each gets NAME.ID instead, so a
 * name never reaches another machine than it did. Each entry carries the address, port and
 * user the provider reports, ssh.identity, and the instance's pinned host keys
 * (remote_pin_path) with StrictHostKeyChecking yes.
 *
 * The file is kept only once the user has asked for it (ssh_hosts_enable, remembered in
 * the state directory, so that no other GPURENT_HOME, a test's, ever writes it): from then
 * on every answer of a provider about an instance (observed.h: launch, start, stop,
 * destroy, and every get and list) brings its entry up to date, written whole
 * (atomic_write) and only when it changes, until the user turns it off (ssh_hosts_disable,
 * remembered in the same place: `gpurent code` does not turn it on again).
 */
#ifndef GPURENT_SSH_HOSTS_H
#define GPURENT_SSH_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "error.h"
#include "model.h"
#include "util.h"

/* One entry as the file holds it. */
struct ssh_host {
	char alias[LABEL_MAX + ID_MAX + 2];
	char id[ID_MAX];
	char host[64];
	int port;
	char user[32];
};

struct ssh_host_list {
	struct ssh_host *v;
	size_t n, cap;
};
void ssh_host_list_release(struct ssh_host_list *l);

/* The file ssh-config keeps: config ssh.hosts_file, else ~/.ssh/config.d/gpurent. */
enum gr_err ssh_hosts_default_path(const struct config *cfg, char *out, size_t n,
    struct gr_error *err);

/* The file kept for this state directory into path (unless NULL); false when none is. */
bool ssh_hosts_enabled(char *path, size_t n);

/* Keep path from now on: remembered in the state directory, made (empty) when missing. */
enum gr_err ssh_hosts_enable(const char *path, struct gr_error *err);
/* Keep no file from now on (the file stays as it is), until ssh_hosts_enable. */
enum gr_err ssh_hosts_disable(struct gr_error *err);
/* Whether the user turned the file off (ssh_hosts_disable), rather than never on. */
bool ssh_hosts_turned_off(void);

/*
 * The provider's answer about the n instances v, into the kept file (nothing when none is
 * kept): a running instance with an ssh endpoint gets its entry, any other loses it; with
 * full, v is every instance of provider, and an entry of provider not in v goes too.
 */
void ssh_hosts_follow(const struct config *cfg, const char *provider, const struct instance *v,
    size_t n, bool full);

/* The entries of the file at path, in its order (by id). */
enum gr_err ssh_hosts_read(const char *path, struct ssh_host_list *out, struct gr_error *err);

/* The file as it would be for the n instances v and nothing else (ssh-config --print). */
void ssh_hosts_render(const struct config *cfg, const struct instance *v, size_t n,
    struct sb *out);

/*
 * ~/.ssh/config with "Include PATH" as its first line, unless a line already includes
 * path; *added says whether it was added. Written whole, through a link to where it
 * points, with its mode kept.
 */
enum gr_err ssh_hosts_install_include(const char *path, bool *added, struct gr_error *err);

/* Whether ~/.ssh/config includes path (a line "Include PATH", as ssh-config writes it). */
bool ssh_hosts_included(const char *path);

#endif
