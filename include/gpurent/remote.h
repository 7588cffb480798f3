/*
 * remote.h - the one way onto a rented machine: the system's OpenSSH (and rsync over it).
 *
 * The caller (a command) asks its backend where ssh listens and hands this layer an endpoint;
 * this layer never includes backends or the session. Every connection to one endpoint goes
 * through one shared OpenSSH master (the socket in the state directory under a short
 * hash-based name so that it fits the 104-byte unix socket limit), with host keys pinned per
 * instance in <state>/hostkeys/<id> (remote_pin_path): the first contact records the key
 * (StrictHostKeyChecking=accept-new on that file); a key that changes later is taken only
 * when the provider says the instance was (re)started since it was last seen, else the
 * connection is refused (remote_connect says why). A master lives while a gpurent
 * uses it: a watchdog ends it when the last user has gone, however that one ended, or when
 * its socket was removed (transport.c says how).
 *
 * Safety contract:
 * - ssh, rsync and tar run from argv vectors (fork + execvp), never through a local shell;
 * - provider fields (host, user) are checked by remote_endpoint_check: nothing starting with
 *   '-', nothing outside the characters a host name or a user name can have;
 * - the destination and a literal "--" come before every remote word; each remote word is
 *   quoted for the remote POSIX shell unless the caller asks for REMOTE_RAW (the user's own
 *   command line of `gpurent ssh ID -- CMD`, joined as ssh itself joins it);
 * - BatchMode=yes only when stdin is not a terminal, so a script never hangs on a prompt.
 *
 * Exit statuses follow ssh: the remote command's own status, REMOTE_EXIT_CONN (255) when
 * the connection failed, 128+N when the local ssh died of signal N.
 */
#ifndef GPURENT_REMOTE_H
#define GPURENT_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"
#include "model.h"
#include "util.h"

#define REMOTE_EXIT_CONN 255

/* Where ssh listens on an instance, and the local files that go with it. */
struct remote_endpoint {
	char name[ID_MAX];	/* the instance id: messages and the master's socket name */
	char host[64];		/* from the provider */
	int port;		/* from the provider */
	char user[32];		/* from the provider */
	char identity[4096];	/* private key (config ssh.identity); "" lets ssh choose */
	char config_file[4096];	/* ssh -F (config ssh.config); "": ssh's own */
	char state_dir[4096];	/* host keys and the master sockets live here */
	int64_t started_at;	/* when the provider says this run of the instance began, on
				   its own clock; 0 unknown (a changed host key is refused) */
	int connect_timeout;	/* seconds; 0: 15 */
	bool proxy_only;	/* a shell-only proxy (RunPod's): no copies or forwards */
	bool batch;		/* never prompt, even with a terminal (samplers run unattended) */
	char node[64];		/* which machine of an instance that spans several (a Slurm
				   job's node): the samples say it; "" for a one-machine one */
};

/* A growable NULL-terminated argv that owns its strings. */
struct remote_argv {
	char **v;
	size_t n, cap;
};
void remote_argv_init(struct remote_argv *a);
void remote_argv_release(struct remote_argv *a);
void remote_argv_add(struct remote_argv *a, const char *word);
void remote_argv_addf(struct remote_argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Refuse what a provider must not be able to slip into an ssh command line: an empty host,
 * a host or user that starts with '-' or holds anything but [A-Za-z0-9._:-] (user: no ':'),
 * a port outside 1..65535. The message names the instance and the field.
 */
enum gr_err remote_endpoint_check(const struct remote_endpoint *ep, struct gr_error *err);

/* The master's control socket: <state>/cm/<16 hex> (or a private /tmp directory when the
 * state directory is too long for a unix socket). Creates the directory. */
enum gr_err remote_control_path(const struct remote_endpoint *ep, char *out, size_t n,
    struct gr_error *err);

/*
 * The known_hosts file that pins the host keys of instance id: <state_dir>/hostkeys/<id>,
 * each character outside [A-Za-z0-9._:-] as '_' and then a hash of id, so that two ids
 * never share one.
 */
void remote_pin_path(const char *state_dir, const char *id, char *out, size_t n);

/* Append path to sb as a value for ssh_config or ssh -o: double-quoted when it holds a
 * space or a quote, '%' doubled for ssh's tokens. */
void remote_config_quote(struct sb *sb, const char *path);

enum {
	REMOTE_TTY = 1u << 0,		/* -t: the remote command gets a terminal */
	REMOTE_RAW = 1u << 1,		/* remote words passed as typed (the user's command line) */
	REMOTE_OWN_CONNECTION = 1u << 2,	/* no master (a forward must end with its process) */
	REMOTE_NO_TTY = 1u << 3,	/* -T: never a terminal (data streams) */
};

/*
 * "ssh" and every option for ep (port, user, identity, known_hosts, the master), without
 * the destination: what rsync -e and the forward need before their own words.
 */
enum gr_err remote_ssh_options(const struct remote_endpoint *ep, unsigned flags,
    struct remote_argv *out, struct gr_error *err);

/* Append user@host (or host) for ep, as ssh's destination. */
void remote_add_destination(struct remote_argv *a, const struct remote_endpoint *ep);

/* The whole command line: options, user@host, "--", then the n remote words. */
enum gr_err remote_ssh_argv(const struct remote_endpoint *ep, unsigned flags,
    const char *const *words, size_t n, struct remote_argv *out, struct gr_error *err);

/* Append word to sb quoted for a POSIX shell (bare when it holds only safe characters). */
void remote_shell_quote(struct sb *sb, const char *word);

/* Append word to sb quoted for rsync's own splitting of its -e option ('' doubles a '). */
void remote_rsync_quote(struct sb *sb, const char *word);

/*
 * Make sure a master runs for ep and hold it as this process's until it ends: reuse a live
 * one, else open one (ssh -N under a watchdog) and classify a failure from ssh's own words:
 * key refused, host key changed, connection refused, timed out, unknown host. A changed host
 * key is re-pinned, with a warning on stderr, when ep->started_at is later than the start
 * recorded with the pin (the provider restarted it since); otherwise refused. Returns GR_OK
 * or an error whose message says which. A normal end of the process closes the masters it
 * was the last user of.
 */
enum gr_err remote_connect(const struct remote_endpoint *ep, struct gr_error *err);

/* Close the masters of state_dir that no gpurent holds any more and whose watchdog is gone
 * too (killed with its owner): every command does this first. */
void remote_sweep_masters(const char *state_dir);

/* Run the n words on ep through its master with stdin, stdout and stderr inherited.
 * Returns the remote status (see the top of this file); err is set when no connection
 * was made. A 255 after that is ssh's (its words on the inherited stderr) or the command's
 * own: the caller says which it takes it for. */
int remote_run(const struct remote_endpoint *ep, unsigned flags, const char *const *words,
    size_t n, struct gr_error *err);

/* As remote_run with stdout captured into out (at most max bytes kept) and stdin from
 * /dev/null; a 255 is taken for the connection, and err is set. */
int remote_capture(const struct remote_endpoint *ep, const char *const *words, size_t n,
    struct sb *out, size_t max, struct gr_error *err);

/* As remote_capture with the in_len bytes at in (at most PIPE_BUF) on the command's stdin:
 * the way a secret reaches a remote machine, never in its argv. */
int remote_capture_fed(const struct remote_endpoint *ep, const char *const *words, size_t n,
    const char *in, size_t in_len, struct sb *out, size_t max, struct gr_error *err);

/*
 * Run a local argv and wait for it. SIGINT, SIGTERM and SIGHUP that reach gpurent meanwhile
 * are passed on to the child (so rsync keeps its partial file), and once it has ended are
 * raised again for the handlers gpurent had before (cmd_interrupted). stdout_fd >= 0 replaces the
 * child's stdout. Returns its exit status, 128+N when it died of signal N (or failed after
 * gpurent passed signal N on to it), 127 when it
 * could not be started (err says why).
 */
int remote_spawn_wait(char *const argv[], int stdout_fd, struct gr_error *err);

/*
 * As remote_spawn_wait with the child's stdout and stderr relayed to gpurent's stderr
 * until a signal is passed on to it; what it says after that (its complaint about the
 * signal) is dropped, for the caller to say it was interrupted.
 */
int remote_spawn_relay(char *const argv[], struct gr_error *err);

/*
 * pipe(2) for a child's stdin, stdout or stderr, both ends close-on-exec from the start as
 * far as remote_spawn is concerned: no remote_spawn on another thread hands them to its
 * child. 0, or -1 with errno.
 */
int remote_pipe(int fds[2]);

/* Start argv with the given stdin/stdout (-1: inherit); returns its pid or -1 (err set). */
int remote_spawn(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd,
    bool new_session, struct gr_error *err);

/*
 * Wait for pid, passing signals on as remote_spawn_wait does; returns its status. Signal
 * handlers belong to the whole process, so only its main thread passes signals on; another
 * thread (the dashboard's workers) just waits, and the main thread's handlers stay put.
 */
int remote_wait(int pid);

#endif
