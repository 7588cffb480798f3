/*
 * host.c - the machine around the GPUs: CPU, load, memory, the home filesystem, network.
 *
 * Our own fixed command, read from /proc and `df -Pk` (POSIX output: one line per
 * filesystem, sizes in KiB), run inside the sampler's loop. The CPU share is the busy part
 * of the jiffies since the previous sample, worked out on the instance from the shell
 * variables the loop keeps (gr_busy0, gr_all0), so the parser stays a function of one
 * sample's text. It prints:
 *
 *	cpu 37				(absent on the first sample: nothing to compare)
 *	load 0.52 0.58 0.59 2/345 12345
 *	MemTotal:       263758976 kB
 *	MemAvailable:   240104428 kB
 *	df /dev/nvme0n1p1 1031018628 45200320 933339604 5% /
 *	(the whole of /proc/net/dev)
 */
#include <stdint.h>
#include <string.h>

#include "gpurent/probe.h"
#include "gpurent/util.h"

const char probe_host_command[] =
	"read -r gr_c gr_u gr_n gr_s gr_i gr_w gr_q gr_sq gr_st gr_rest </proc/stat; "
	"gr_busy=$((gr_u + gr_n + gr_s + gr_q + gr_sq + gr_st)); gr_all=$((gr_busy + gr_i + gr_w)); "
	"if [ -n \"$gr_all0\" ] && [ \"$gr_all\" -gt \"$gr_all0\" ]; then "
	"echo \"cpu $(((gr_busy - gr_busy0) * 100 / (gr_all - gr_all0)))\"; fi; "
	"gr_busy0=$gr_busy; gr_all0=$gr_all; "
	"echo \"load $(cat /proc/loadavg)\"; "
	"grep -E '^(MemTotal|MemAvailable):' /proc/meminfo; "
	"echo \"df $(df -Pk \"$HOME\" 2>/dev/null | tail -n 1)\"; "
	"cat /proc/net/dev";

#define HOST_LINE_MAX 1024
#define HOST_WORDS 24

/* An unsigned decimal (at most 18 digits) into *out. */
static bool
read_u64(const char *s, int64_t *out)
{
	int64_t x = 0;
	int n = 0;

	for (; *s >= '0' && *s <= '9'; s++, n++) {
		if (n >= 18)
			return false;
		x = x * 10 + (*s - '0');
	}
	if (n == 0 || *s != '\0')
		return false;
	*out = x;
	return true;
}

/* "0.52" as 52. */
static bool
read_centi(const char *s, int *out)
{
	int64_t whole;
	char buf[24];
	const char *dot = strchr(s, '.');
	size_t n = dot ? (size_t)(dot - s) : strlen(s);
	int frac = 0;

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!read_u64(buf, &whole) || whole > 1000000)
		return false;
	if (dot != NULL) {
		const char *p = dot + 1;

		if (*p < '0' || *p > '9')
			return false;
		frac = (p[0] - '0') * 10;
		if (p[1] >= '0' && p[1] <= '9')
			frac += p[1] - '0';
		for (; *p >= '0' && *p <= '9'; p++)
			;
		if (*p != '\0')
			return false;
	}
	*out = (int)(whole * 100 + frac);
	return true;
}

/* Split at spaces and tabs in place; returns the number of words (at most HOST_WORDS). */
static size_t
split_words(char *s, char **w)
{
	size_t n = 0;

	while (*s != '\0' && n < HOST_WORDS) {
		while (*s == ' ' || *s == '\t')
			*s++ = '\0';
		if (*s == '\0')
			break;
		w[n++] = s;
		while (*s != '\0' && *s != ' ' && *s != '\t')
			s++;
	}
	return n;
}

struct host_read {
	int64_t mem_total_kb, mem_avail_kb;
	int64_t rx, tx;
	bool mem_total, mem_avail, net;
};

/* One line of the host command's output. */
static void
read_line(char *line, struct host_sample *h, struct host_read *r)
{
	char *w[HOST_WORDS], *colon;
	size_t n;
	int64_t a, b;

	/* /proc/net/dev: "  eth0: 1234 5 0 0 0 0 0 0 5678 9 ..." (the name may touch the
	 * first number: "eth0:1234"). */
	if ((colon = strchr(line, ':')) != NULL && strncmp(line, "Mem", 3) != 0) {
		char *name = line;

		*colon = '\0';
		while (*name == ' ')
			name++;
		n = split_words(colon + 1, w);
		if (n >= 9 && *name != '\0' && strcmp(name, "lo") != 0 &&
		    read_u64(w[0], &a) && read_u64(w[8], &b)) {
			r->rx += a;
			r->tx += b;
			r->net = true;
		}
		return;
	}
	n = split_words(line, w);
	if (n == 0)
		return;
	if (strcmp(w[0], "cpu") == 0 && n == 2 && read_u64(w[1], &a) && a <= 100) {
		h->cpu_pct = (int)a;
		h->valid |= HV_CPU;
	} else if (strcmp(w[0], "load") == 0 && n >= 2 && read_centi(w[1], &h->load1_centi))
		h->valid |= HV_LOAD;
	else if (strcmp(w[0], "df") == 0 && n == 7 && read_u64(w[2], &a) && read_u64(w[3], &b) &&
	    a > 0 && b <= a) {
		h->disk_total_mib = a / 1024;
		h->disk_used_mib = b / 1024;
		h->valid |= HV_DISK;
	}
}

/* "MemTotal:" and "MemAvailable:" lines, which the net/dev reading above leaves alone. */
static void
read_mem(char *line, struct host_read *r)
{
	char *w[HOST_WORDS];
	size_t n = split_words(line, w);
	int64_t kb;

	if (n != 3 || strcmp(w[2], "kB") != 0 || !read_u64(w[1], &kb))
		return;
	if (strcmp(w[0], "MemTotal:") == 0) {
		r->mem_total_kb = kb;
		r->mem_total = true;
	} else if (strcmp(w[0], "MemAvailable:") == 0) {
		r->mem_avail_kb = kb;
		r->mem_avail = true;
	}
}

enum gr_err
probe_host_parse(const char *text, size_t len, struct host_sample *out, struct gr_error *err)
{
	struct host_read r;
	char line[HOST_LINE_MAX];
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		const char *s = text + pos;

		pos += n + 1;
		if (n == 0 || n >= sizeof(line) || memchr(s, '\0', n) != NULL)
			continue;
		memcpy(line, s, n);
		line[n] = '\0';
		if (strncmp(line, "Mem", 3) == 0)
			read_mem(line, &r);
		else
			read_line(line, out, &r);
	}
	if (r.mem_total && r.mem_avail && r.mem_avail_kb <= r.mem_total_kb && r.mem_total_kb > 0) {
		out->mem_total_mib = r.mem_total_kb / 1024;
		out->mem_used_mib = (r.mem_total_kb - r.mem_avail_kb) / 1024;
		out->valid |= HV_MEM;
	}
	if (r.net) {
		out->net_rx_bytes = r.rx;
		out->net_tx_bytes = r.tx;
		out->valid |= HV_NET;
	}
	if (out->valid == 0)
		return gr_fail(err, GR_EFAIL, "the host probe printed nothing gpurent reads");
	return GR_OK;
}
