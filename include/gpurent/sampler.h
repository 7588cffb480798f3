/*
 * sampler.h - GPU and host samples from a rented machine over ONE ssh connection.
 *
 * A sampler runs one long-lived sh loop of our own on the instance (through the transport's
 * shared master: one TCP connection, one session). The loop finds the first vendor of
 * probe_vendors() any of whose tools is on the instance's PATH, then every interval prints
 * one frame: the vendor's command output and the host probe's, between marker lines that
 * carry a random token of this connection, so nothing a tool prints can end or forge a
 * frame. The client parses each frame with the vendor's parser and probe_host_parse.
 *
 * When the connection drops, the sampler reconnects with a bounded backoff (1, 2, 4, … 30 s)
 * and the first frame after it carries the gap (gap_from, gap_to), so that output can show
 * where samples are missing instead of joining across the hole. A GPU's Xid count (the
 * Xids its loop saw logged since the loop began) is carried over a reconnection, so it
 * stays the count since the sampler started; Xids logged while it was down and before the
 * new loop began are in the last Xid, not in the count.
 *
 * Everything here is non-blocking except a (re)connection, which is bounded by the
 * endpoint's connect timeout. Only the sampler's own ssh processes are ever signalled.
 */
#ifndef GPURENT_SAMPLER_H
#define GPURENT_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "probe.h"
#include "remote.h"

/* One frame: every GPU the vendor tool reported, and the host. */
#define SAMPLER_RESUME_MAX 64

struct probe_snapshot {
	int64_t at;			/* UTC seconds when the frame arrived */
	char vendor[16];		/* the vendor whose tool answered; "" when none */
	struct sample_list gpus;	/* source SAMPLE_SSH, instance_id and at set */
	enum gr_err gpu_code;		/* GR_OK, or the vendor parser's error */
	char gpu_error[160];		/* its message, sanitized */
	struct host_sample host;
	bool host_ok;
	int64_t gap_from, gap_to;	/* non-zero: no frames between these (a reconnection) */
	/*
	 * Where the loop's vendor command has read the machine's logs up to (nvidia.c: the
	 * boot and the time of the newest Xid counted), "" when it said none or something
	 * other than [0-9A-Za-z.@-]: passed to the loop started after a reconnection.
	 */
	char resume[SAMPLER_RESUME_MAX];
	char unanswered[256];		/* an instance of several machines: those that gave no
					   sample and why ("n2: ...; n5: ..."), sanitized; "" */
};
void probe_snapshot_init(struct probe_snapshot *s);
void probe_snapshot_release(struct probe_snapshot *s);

struct sampler;

/*
 * Connect to ep and start the loop, a frame every interval seconds (>= 1); with once, the
 * loop prints one frame and ends. ep is copied. NULL with err set when the first connection
 * fails (the transport's message: key refused, timed out, …).
 */
struct sampler *sampler_start(const struct remote_endpoint *ep, int interval, bool once,
    struct gr_error *err);

/* The descriptor to poll for input, or -1 while the connection is down. */
int sampler_fd(const struct sampler *s);

/* What one call of sampler_poll found. */
enum sampler_event {
	SAMPLER_NOTHING,	/* no whole frame yet */
	SAMPLER_FRAME,		/* *out holds a frame */
	SAMPLER_DOWN,		/* the connection just dropped; err says why, retry planned */
	SAMPLER_RECONNECTED,	/* a new connection runs (its first frame carries the gap) */
	SAMPLER_ENDED,		/* a once sampler finished, or the remote loop ended */
};

/*
 * Read what has arrived without blocking and return the first event; reconnects when the
 * backoff has passed (blocking for at most the connect timeout). out must be initialised;
 * its lists are reset for each frame. Call again after SAMPLER_FRAME: more may be queued.
 */
enum sampler_event sampler_poll(struct sampler *s, struct probe_snapshot *out,
    struct gr_error *err);

/* Stop the remote loop (by ending its ssh client) and free s. NULL is fine. */
void sampler_free(struct sampler *s);

/* The sh script the sampler runs (for tests and the docs): vendor tools from the table. */
char *sampler_script(void);

/*
 * Parse one frame's text (between the begin and end markers, markers excluded, with token
 * tok) into out; what sampler_poll does with each frame, exposed for the tests and fuzzers.
 */
void sampler_parse_frame(const char *frame, size_t len, const char *tok,
    struct probe_snapshot *out);

#endif
