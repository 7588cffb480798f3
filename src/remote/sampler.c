/*
 * sampler.c - one long-lived sh loop on the instance, read frame by frame (sampler.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpurent/sampler.h"
#include "gpurent/util.h"

#define BACKOFF_FIRST 1
#define BACKOFF_MAX 30
/* A frame larger than this is no tool's output: the buffer is cut, the frame lost. */
#define FRAME_MAX (4u << 20)
#define TOKEN_LEN 16
/* GPUs whose Xid count is carried over a reconnection (by index). */
#define XID_GPUS 64

struct sampler {
	struct remote_endpoint ep;
	int interval;
	bool once;
	char tok[TOKEN_LEN + 1];
	int pid;		/* the ssh client of the loop; -1 while down */
	int fd;			/* its stdout; -1 while down */
	struct sb buf;		/* what arrived and is not yet a whole frame */
	bool got_frame;		/* since the current connection began */
	int64_t last_frame;	/* UTC seconds of the last frame, 0 none yet */
	int64_t gap_from;	/* set on a reconnection, carried by the next frame */
	int backoff;		/* seconds before the next attempt */
	int64_t retry_at;	/* monotonic seconds of the next attempt, 0 up */
	/*
	 * Each loop on the instance counts the Xids logged since it began (nvidia.c); a
	 * reconnection starts a new loop, which counts from the resume point of the last
	 * frame received (the Xids logged while down count once), so the counts of the loops
	 * before it are carried here and added, and a count stays one "since the sampler
	 * started". Within a loop a count never goes down (the highest one is kept), nor does
	 * a GPU's last Xid go back to none when its lines leave the kernel's log.
	 */
	int xid_carry[XID_GPUS];
	int xid_loop[XID_GPUS];	/* the current loop's highest count */
	int xid_last[XID_GPUS];	/* the last Xid code seen, 0 none */
	char resume[SAMPLER_RESUME_MAX];	/* the last frame's resume point, "" none */
};

void
probe_snapshot_init(struct probe_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	sample_list_init(&s->gpus);
}

void
probe_snapshot_release(struct probe_snapshot *s)
{
	sample_list_release(&s->gpus);
	memset(s, 0, sizeof(*s));
	sample_list_init(&s->gpus);
}

static int64_t
mono_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec;
}

char *
sampler_script(void)
{
	const struct probe_vendor *const *v = probe_vendors();
	struct sb sb;
	size_t i;

	sb_init(&sb);
	/*
	 * $1 the token, $2 the interval, $3 1 for a single frame, $4 the resume point of the
	 * last loop's last frame ("-": none), which a vendor command reads and updates in
	 * gr_resume; each frame carries it after the vendor's part.
	 */
	sb_adds(&sb, "m=\"@@gpurent $1\"; iv=$2; once=$3; gr_resume=$4; LC_ALL=C; export LC_ALL; ");
	/* A first reading of the CPU counters, so that the first frame has a CPU share. */
	sb_addf(&sb, "{ %s; } >/dev/null 2>&1; ", probe_host_command);
	sb_adds(&sb, "v=none; ");
	for (i = 0; v[i] != NULL; i++) {
		size_t t;

		/* Any one of the vendor's tools selects it. */
		sb_adds(&sb, i ? "elif " : "if ");
		for (t = 0; t < PROBE_TOOLS_MAX && v[i]->tools[t] != NULL; t++)
			sb_addf(&sb, "%scommand -v %s >/dev/null 2>&1", t ? " || " : "",
			    v[i]->tools[t]);
		sb_addf(&sb, "; then v=%s; ", v[i]->name);
	}
	if (i > 0)
		sb_adds(&sb, "fi; ");
	sb_adds(&sb, "seq=0; while :; do "
	    "printf '%s begin %s\\n%s vendor %s\\n' \"$m\" \"$seq\" \"$m\" \"$v\"; "
	    "case $v in ");
	for (i = 0; v[i] != NULL; i++)
		sb_addf(&sb, "%s) { %s; } 2>&1 </dev/null;; ", v[i]->name, v[i]->command);
	sb_adds(&sb, "esac; printf '\\n%s resume %s\\n' \"$m\" \"$gr_resume\"; ");
	sb_addf(&sb, "printf '\\n%%s host\\n' \"$m\"; { %s; } 2>/dev/null </dev/null; ",
	    probe_host_command);
	sb_adds(&sb, "printf '\\n%s end %s\\n' \"$m\" \"$seq\" || exit 0; "
	    "[ \"$once\" = 1 ] && exit 0; seq=$((seq + 1)); sleep \"$iv\"; done");
	return sb_detach(&sb);
}

/* Whether the line s (n bytes) is the marker "@@gpurent TOK WORD", alone or with words after. */
static bool
is_marker(const char *s, size_t n, const char *tok, const char *word)
{
	char pre[64];
	size_t l = (size_t)snprintf(pre, sizeof(pre), "@@gpurent %s %s", tok, word);

	return n >= l && memcmp(s, pre, l) == 0 && (n == l || s[l] == ' ');
}

/* The value of a "resume" marker line (after its word): kept when it is a plain token. */
static void
read_resume(const char *s, size_t n, char *out)
{
	size_t i;

	out[0] = '\0';
	if (n == 0 || n >= SAMPLER_RESUME_MAX)
		return;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '.' || s[i] == '@' || s[i] == '-'))
			return;
	memcpy(out, s, n);
	out[n] = '\0';
}

void
sampler_parse_frame(const char *frame, size_t len, const char *tok, struct probe_snapshot *out)
{
	const struct probe_vendor *vendor = NULL;
	const char *vstart = NULL, *vend = NULL, *hstart = NULL, *p = frame, *end = frame + len;
	struct gr_error err = { 0 };

	out->vendor[0] = '\0';
	out->gpus.n = 0;
	out->gpu_code = GR_OK;
	out->gpu_error[0] = '\0';
	out->host_ok = false;
	out->resume[0] = '\0';
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *next = nl ? nl + 1 : end;

		if (is_marker(p, n, tok, "vendor")) {
			char name[16];
			size_t l = strlen("@@gpurent ") + strlen(tok) + strlen(" vendor ");

			if (n > l && n - l < sizeof(name)) {
				memcpy(name, p + l, n - l);
				name[n - l] = '\0';
				vendor = probe_vendor_find(name);
				if (vendor != NULL)
					strlcpy_(out->vendor, vendor->name, sizeof(out->vendor));
			}
			vstart = next;
		} else if (is_marker(p, n, tok, "resume")) {
			size_t l = strlen("@@gpurent ") + strlen(tok) + strlen(" resume ");

			if (vend == NULL || vend < vstart)
				vend = p;
			if (n > l)
				read_resume(p + l, n - l, out->resume);
		} else if (is_marker(p, n, tok, "host")) {
			if (vend == NULL || vend < vstart)
				vend = p;
			hstart = next;
		}
		p = next;
	}
	if (vendor != NULL && vstart != NULL) {
		if (vend == NULL || vend < vstart)
			vend = end;
		out->gpu_code = vendor->parse(vstart, (size_t)(vend - vstart), &out->gpus, &err);
		if (out->gpu_code != GR_OK)
			text_sanitize(out->gpu_error, sizeof(out->gpu_error), err.msg);
	}
	if (hstart != NULL)
		out->host_ok = probe_host_parse(hstart, (size_t)(end - hstart), &out->host,
		    &err) == GR_OK;
}

static void
stop_child(struct sampler *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->pid > 0) {
		kill((pid_t)s->pid, SIGTERM);
		while (waitpid((pid_t)s->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	s->pid = -1;
}

/* Connect (the transport's master) and start the loop. */
static enum gr_err
start_child(struct sampler *s, struct gr_error *err)
{
	char *script = sampler_script(), interval[16];
	const char *words[8];
	struct remote_argv a;
	int pipefd[2], null;

	snprintf(interval, sizeof(interval), "%d", s->interval);
	words[0] = "sh";
	words[1] = "-c";
	words[2] = script;
	words[3] = "gpurent-sampler";
	words[4] = s->tok;
	words[5] = interval;
	words[6] = s->once ? "1" : "0";
	words[7] = s->resume[0] != '\0' ? s->resume : "-";
	remote_argv_init(&a);
	if (remote_connect(&s->ep, err) != GR_OK ||
	    remote_ssh_argv(&s->ep, REMOTE_NO_TTY, words, 8, &a, err) != GR_OK) {
		free(script);
		remote_argv_release(&a);
		return err->code;
	}
	free(script);
	if (remote_pipe(pipefd) != 0) {
		remote_argv_release(&a);
		return gr_fail(err, GR_EFAIL, "pipe: %s", strerror(errno));
	}
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	/* Its own session: a Ctrl-C meant for gpurent does not end the loop under it. */
	s->pid = remote_spawn(a.v, null, pipefd[1], null, true, err);
	close(pipefd[1]);
	if (null >= 0)
		close(null);
	remote_argv_release(&a);
	if (s->pid < 0) {
		close(pipefd[0]);
		return err->code;
	}
	s->fd = pipefd[0];
	s->got_frame = false;
	sb_reset(&s->buf);
	return GR_OK;
}

static void
new_token(char *tok)
{
	_Static_assert(TOKEN_LEN == 16, "one 64-bit hash when there is no randomness");

	/* No randomness: still unique to this process. */
	if (!random_hex(tok, TOKEN_LEN / 2))
		snprintf(tok, TOKEN_LEN + 1, "%016llx",
		    (unsigned long long)hash_mix((uint64_t)getpid(), (uint64_t)time(NULL)));
}

struct sampler *
sampler_start(const struct remote_endpoint *ep, int interval, bool once, struct gr_error *err)
{
	struct sampler *s = xcalloc(1, sizeof(*s));

	s->ep = *ep;
	s->interval = interval < 1 ? 1 : interval;
	s->once = once;
	s->pid = s->fd = -1;
	s->backoff = BACKOFF_FIRST;
	sb_init(&s->buf);
	new_token(s->tok);
	if (start_child(s, err) != GR_OK) {
		sampler_free(s);
		return NULL;
	}
	return s;
}

int
sampler_fd(const struct sampler *s)
{
	return s->fd;
}

/* The first n-byte needle in the len bytes at hay, or NULL. */
static const char *
find(const char *hay, size_t len, const char *needle, size_t n)
{
	const char *p = hay, *end = hay + len;

	while (n > 0 && (size_t)(end - p) >= n) {
		p = memchr(p, needle[0], (size_t)(end - p) - n + 1);
		if (p == NULL)
			return NULL;
		if (memcmp(p, needle, n) == 0)
			return p;
		p++;
	}
	return NULL;
}

static void
carry_xids(struct sampler *s, struct gpu_sample *g)
{
	if (g->index < 0 || g->index >= XID_GPUS)
		return;
	if (g->valid & MV_XID) {
		if (g->xid != 0)
			s->xid_last[g->index] = g->xid;
		else
			g->xid = s->xid_last[g->index];
	}
	if (!(g->valid & MV_XID_COUNT))
		return;
	if (g->xid_count < s->xid_loop[g->index])
		g->xid_count = s->xid_loop[g->index];
	s->xid_loop[g->index] = g->xid_count;
	g->xid_count += s->xid_carry[g->index];
}

/* The first whole frame in the buffer into out; false when there is none yet. */
static bool
take_frame(struct sampler *s, struct probe_snapshot *out)
{
	char begin[64], endm[64];
	const char *b, *e, *eol, *body;
	size_t lb = (size_t)snprintf(begin, sizeof(begin), "@@gpurent %s begin ", s->tok);
	size_t le = (size_t)snprintf(endm, sizeof(endm), "\n@@gpurent %s end ", s->tok);

	if (s->buf.len == 0)
		return false;
	b = find(s->buf.buf, s->buf.len, begin, lb);
	if (b == NULL)
		return false;
	e = find(b, s->buf.len - (size_t)(b - s->buf.buf), endm, le);
	if (e == NULL)
		return false;
	eol = memchr(e + 1, '\n', s->buf.len - (size_t)(e + 1 - s->buf.buf));
	if (eol == NULL)
		return false;
	body = memchr(b, '\n', (size_t)(e - b));
	body = body != NULL ? body + 1 : e;
	out->at = (int64_t)time(NULL);
	sampler_parse_frame(body, (size_t)(e + 1 - body), s->tok, out);
	out->gap_from = out->gap_to = 0;
	if (s->gap_from != 0) {
		out->gap_from = s->gap_from;
		out->gap_to = out->at;
		s->gap_from = 0;
	}
	for (size_t i = 0; i < out->gpus.n; i++) {
		strlcpy_(out->gpus.v[i].instance_id, s->ep.name, sizeof(out->gpus.v[i].instance_id));
		strlcpy_(out->gpus.v[i].node, s->ep.node, sizeof(out->gpus.v[i].node));
		out->gpus.v[i].at = out->at;
		out->gpus.v[i].source = SAMPLE_SSH;
		strlcpy_(out->gpus.v[i].vendor, out->vendor, sizeof(out->gpus.v[i].vendor));
		carry_xids(s, &out->gpus.v[i]);
	}
	out->host.at = out->at;
	if (out->resume[0] != '\0')
		memcpy(s->resume, out->resume, sizeof(s->resume));
	s->last_frame = out->at;
	s->got_frame = true;
	/* Drop what the frame used. */
	{
		size_t used = (size_t)(eol + 1 - s->buf.buf);

		memmove(s->buf.buf, eol + 1, s->buf.len - used);
		s->buf.len -= used;
		s->buf.buf[s->buf.len] = '\0';
	}
	return true;
}

enum sampler_event
sampler_poll(struct sampler *s, struct probe_snapshot *out, struct gr_error *err)
{
	char chunk[8192];
	ssize_t r;

	if (take_frame(s, out))
		return SAMPLER_FRAME;
	if (s->fd < 0) {
		if (s->once || mono_now() < s->retry_at)
			return s->once ? SAMPLER_ENDED : SAMPLER_NOTHING;
		if (start_child(s, err) != GR_OK) {
			s->backoff = s->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : s->backoff * 2;
			s->retry_at = mono_now() + s->backoff;
			return SAMPLER_NOTHING;
		}
		s->backoff = BACKOFF_FIRST;
		s->retry_at = 0;
		return SAMPLER_RECONNECTED;
	}
	for (;;) {
		r = read(s->fd, chunk, sizeof(chunk));
		if (r > 0) {
			if (s->buf.len + (size_t)r > FRAME_MAX)
				sb_reset(&s->buf);	/* a flood, not a frame */
			sb_add(&s->buf, chunk, (size_t)r);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	if (take_frame(s, out))
		return SAMPLER_FRAME;
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return SAMPLER_NOTHING;
	/* End of the stream: the loop ended or the connection dropped. */
	stop_child(s);
	if (s->once)
		return SAMPLER_ENDED;
	s->gap_from = s->last_frame != 0 ? s->last_frame : (int64_t)time(NULL);
	for (int i = 0; i < XID_GPUS; i++) {
		s->xid_carry[i] += s->xid_loop[i];
		s->xid_loop[i] = 0;
	}
	s->retry_at = mono_now() + s->backoff;
	gr_fail(err, GR_EUNAVAIL, "the connection to %s dropped; reconnecting in %d s", s->ep.name,
	    s->backoff);
	return SAMPLER_DOWN;
}

void
sampler_free(struct sampler *s)
{
	if (s == NULL)
		return;
	stop_child(s);
	sb_release(&s->buf);
	free(s);
}
