/*
 * nvidia.c - NVIDIA GPUs through nvidia-smi's CSV query.
 *
 * The command asks the driver once per sampler (the shell variables persist in the
 * sampler's loop) which of our fields it knows, from `nvidia-smi --help-query-gpu`, so that
 * an older driver (no clocks_event_reasons.active, no mig.mode.current) answers the fields
 * it has instead of failing the whole query. It prints that list and the CUDA version from
 * nvidia-smi's banner as two comment lines before the CSV rows:
 *
 *	# fields=index,uuid,name,...
 *	# cuda=12.4
 *	0, GPU-5b2c..., NVIDIA H100 80GB HBM3, 550.90.07, 2, 0, 81559, 72790, ...
 *
 * Without a "# fields=" line the rows are read in the order of the full list below.
 * Columns are separated by ", " (comma and space), so a decimal comma ("69,05") stays
 * inside its value.
 *
 * After the rows come the driver's Xid errors from the kernel log, read where the user may
 * (`dmesg`, else `journalctl -k`, whichever answers without root; chosen on the first
 * sample), counted per PCI bus on the instance (NV_XID_AWK) over the whole log, so that a
 * storm on one GPU does not hide another's:
 *
 *	# klog=dmesg
 *	# xid_mark=14397.322674
 *	# xid_count 0000:0a:00 9
 *	# xid [14397.322674] NVRM: Xid (PCI:0000:0a:00): 45, pid='<unknown>', name=<unknown>, ...
 *
 * "# klog=none" (or no klog line) leaves the Xid figures unknown, never 0. Each GPU is
 * matched by its PCI bus (pci.bus_id "00000000:0A:00.0" against the log's "0000:0a:00"):
 * xid is the code of its newest Xid line (0 when the log has none) and xid_count its
 * "# xid_count", the Xids logged after the newest one there was when the sampler's loop
 * began, or, in a loop the sampler resumed after a lost connection, after the newest one
 * the last loop had counted (xid_mark, passed back through $gr_resume: see sampler.h), so
 * that Xids logged while the connection was down count, once. Without a "# xid_mark=" the
 * count is unknown.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/probe.h"
#include "gpurent/util.h"
#include "fields.h"

/* Our fields, in the order the query asks for them. */
enum nv_field {
	NF_INDEX, NF_UUID, NF_NAME, NF_DRIVER, NF_UTIL, NF_MEM_UTIL, NF_MEM_TOTAL, NF_MEM_USED,
	NF_MEM_FREE, NF_TEMP, NF_TEMP_MEM, NF_POWER, NF_POWER_LIMIT, NF_POWER_ENFORCED, NF_CLK_SM,
	NF_CLK_MEM, NF_CLK_SM_MAX, NF_FAN, NF_PSTATE, NF_PCIE_GEN, NF_PCIE_WIDTH, NF_ENC, NF_DEC,
	NF_ECC_UNCORR, NF_EVENT_REASONS, NF_THROTTLE_REASONS, NF_COMPUTE_MODE, NF_MIG, NF_PCI_BUS,
	NF__COUNT,
	NF_IGNORED = NF__COUNT,	/* a column whose name we do not read */
};

/* With nounits nvidia-smi prints bare numbers; a unit it may still print is one of these. */
#define NV_UNITS "W MiB MHz %"
#define FIG(m, bit, lo, hi) { offsetof(struct gpu_sample, m), bit, NV_UNITS, lo, hi }

/*
 * Each column: its name in --query-gpu, and for a plain figure where it goes and its range
 * (fields.h's table row; bit 0: read by set_field's own case). MV_MEM needs both used and
 * total: the caller clears it when one is missing.
 */
static const struct nv_column {
	const char *name;
	struct pf_figure_def fig;
} nv_columns[NF__COUNT] = {
	[NF_INDEX] = { "index", { 0 } },
	[NF_UUID] = { "uuid", { 0 } },
	[NF_NAME] = { "name", { 0 } },
	[NF_DRIVER] = { "driver_version", { 0 } },
	[NF_UTIL] = { "utilization.gpu", FIG(util_pct, MV_UTIL, 0, 100) },
	[NF_MEM_UTIL] = { "utilization.memory", FIG(mem_util_pct, MV_MEM_UTIL, 0, 100) },
	[NF_MEM_TOTAL] = { "memory.total", FIG(mem_total_mib, MV_MEM, 1, 1 << 30) },
	[NF_MEM_USED] = { "memory.used", { 0 } },
	[NF_MEM_FREE] = { "memory.free", FIG(mem_free_mib, MV_MEM_FREE, 0, 1 << 30) },
	[NF_TEMP] = { "temperature.gpu", FIG(temp_c, MV_TEMP, -60, 200) },
	[NF_TEMP_MEM] = { "temperature.memory", FIG(temp_mem_c, MV_TEMP_MEM, -60, 200) },
	[NF_POWER] = { "power.draw", FIG(power_w, MV_POWER, 0, 100000) },
	[NF_POWER_LIMIT] = { "power.limit", FIG(power_limit_w, MV_POWER_LIMIT, 1, 100000) },
	[NF_POWER_ENFORCED] = { "enforced.power.limit",
	    FIG(power_enforced_w, MV_POWER_ENFORCED, 1, 100000) },
	[NF_CLK_SM] = { "clocks.sm", FIG(clk_sm_mhz, MV_CLK_SM, 0, 100000) },
	[NF_CLK_MEM] = { "clocks.mem", FIG(clk_mem_mhz, MV_CLK_MEM, 0, 100000) },
	[NF_CLK_SM_MAX] = { "clocks.max.sm", FIG(clk_sm_max_mhz, MV_CLK_SM_MAX, 1, 100000) },
	[NF_FAN] = { "fan.speed", FIG(fan_pct, MV_FAN, 0, 100) },
	[NF_PSTATE] = { "pstate", { 0 } },
	[NF_PCIE_GEN] = { "pcie.link.gen.current", FIG(pcie_gen, MV_PCIE_GEN, 1, 9) },
	[NF_PCIE_WIDTH] = { "pcie.link.width.current", FIG(pcie_width, MV_PCIE_WIDTH, 1, 64) },
	[NF_ENC] = { "utilization.encoder", FIG(enc_pct, MV_ENC, 0, 100) },
	[NF_DEC] = { "utilization.decoder", FIG(dec_pct, MV_DEC, 0, 100) },
	[NF_ECC_UNCORR] = { "ecc.errors.uncorrected.volatile.total", { 0 } },
	[NF_EVENT_REASONS] = { "clocks_event_reasons.active", { 0 } },
	/* drivers before 535 */
	[NF_THROTTLE_REASONS] = { "clocks_throttle_reasons.active", { 0 } },
	[NF_COMPUTE_MODE] = { "compute_mode", { 0 } },
	[NF_MIG] = { "mig.mode.current", { 0 } },
	[NF_PCI_BUS] = { "pci.bus_id", { 0 } },
};

/* Fields every driver since the CSV query began knows: asked when --help-query-gpu fails. */
#define NV_BASIC_FIELDS "index,uuid,name,driver_version,utilization.gpu,memory.total," \
	"memory.used,temperature.gpu,power.draw,power.limit"

#define NV_ALL_FIELDS "index uuid name driver_version utilization.gpu utilization.memory " \
	"memory.total memory.used memory.free temperature.gpu temperature.memory power.draw " \
	"power.limit enforced.power.limit clocks.sm clocks.mem clocks.max.sm fan.speed pstate " \
	"pcie.link.gen.current pcie.link.width.current utilization.encoder utilization.decoder " \
	"ecc.errors.uncorrected.volatile.total clocks_event_reasons.active " \
	"clocks_throttle_reasons.active compute_mode mig.mode.current pci.bus_id"

/*
 * The Xid lines of the kernel log, counted per PCI bus on the instance, where every line
 * is seen (a storm on one GPU cannot push another's out of what is sent). st, the state
 * the loop keeps between samples: "MARK BUS COUNT BUS COUNT ...", MARK the log time of
 * the newest Xid counted; empty on a loop's first sample (count nothing, start at the
 * newest), or MARK alone on a loop resumed by the sampler (count what came after it: the
 * Xids logged while the connection was down). A line counts when its time is after MARK;
 * a line without a monotonic time (dmesg --ctime), or with more than 12 digits of seconds,
 * never counts. Two Xids at the same microsecond as MARK, one logged after the sample
 * that read the other, count as one. At most 64 buses. Prints
 * "# xid_mark=MARK", "# xid_count BUS COUNT" per bus and each bus's newest line after
 * "# xid ". POSIX awk (mawk, busybox): no interval expressions.
 */
#define NV_XID_AWK \
	"BEGIN { n = split(st, e, \" \"); init = n == 0 || e[1] !~ /^[0-9]+(\\.[0-9]+)?$/; " \
	"mark = init ? 0 : e[1]; newest = mark; nb = 0; " \
	"for (i = 2; i + 1 <= n && nb < 64; i += 2) if (e[i] ~ /^[0-9a-f:.]+$/ && !(e[i] in cnt)) " \
	"{ bus[++nb] = e[i]; cnt[e[i]] = e[i + 1] + 0 } } " \
	"{ s = $0; t = \"\"; " \
	"if (match(s, /^\\[ *[0-9]+\\.[0-9]+\\]/)) { t = substr(s, RSTART + 1, RLENGTH - 2); " \
	"gsub(/ /, \"\", t) } " \
	"i = index(s, \"NVRM: Xid (\"); if (i == 0) next; r = substr(s, i + 11); " \
	"if (substr(r, 1, 4) == \"PCI:\") r = substr(r, 5); " \
	"j = index(r, \"): \"); if (j < 2 || j > 17) next; b = tolower(substr(r, 1, j - 1)); " \
	"if (b !~ /^[0-9a-f]+:[0-9a-f][0-9a-f]?:([0-9a-f]|[01][0-9a-f])(\\.[0-7])?$/ || " \
	"index(b, \":\") > 9) next; " \
	"c = substr(r, j + 3); if (!match(c, /^[0-9]+/) || RLENGTH > 4) next; " \
	"x = substr(c, RLENGTH + 1, 1); c = substr(c, 1, RLENGTH) + 0; " \
	"if (c == 0 || (x != \",\" && x != \" \" && x != \"\")) next; " \
	"if (!(b in cnt)) { if (nb >= 64) next; bus[++nb] = b; cnt[b] = 0 } " \
	"last[b] = s; " \
	"if (t != \"\" && index(t, \".\") <= 13) { if (!init && t + 0 > mark + 0) cnt[b]++; " \
	"if (t + 0 > newest + 0) newest = t } } " \
	"END { print \"# xid_mark=\" newest; " \
	"for (i = 1; i <= nb; i++) { print \"# xid_count \" bus[i] \" \" cnt[bus[i]]; " \
	"if (bus[i] in last) print \"# xid \" last[bus[i]] } }"

/*
 * Run inside the sampler's loop: gr_nv_fields and gr_nv_cuda are asked for on the first
 * sample only. A field the help names in quotes ("clocks.sm") is one this driver answers.
 */
static const char nv_command[] =
	"if [ -z \"$gr_nv_fields\" ]; then "
	"gr_nv_help=$(nvidia-smi --help-query-gpu 2>/dev/null); "
	"for gr_f in " NV_ALL_FIELDS "; do "
	"case $gr_nv_help in *\"\\\"$gr_f\\\"\"*) "
	"gr_nv_fields=\"$gr_nv_fields${gr_nv_fields:+,}$gr_f\";; esac; done; "
	"[ -n \"$gr_nv_fields\" ] || gr_nv_fields=" NV_BASIC_FIELDS "; "
	"gr_nv_cuda=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\\([0-9.]*\\).*/\\1/p' "
	"| head -n 1); "
	"fi; "
	"echo \"# fields=$gr_nv_fields\"; echo \"# cuda=$gr_nv_cuda\"; "
	"nvidia-smi --query-gpu=\"$gr_nv_fields\" --format=csv,noheader,nounits 2>&1; "
	/* The kernel log: dmesg where kernel.dmesg_restrict allows it, else the journal when
	 * this user may read it (journalctl answers nothing, not an error, when it may not). */
	"if [ -z \"$gr_kl\" ]; then "
	"if dmesg >/dev/null 2>&1; then gr_kl=dmesg; "
	"elif [ -n \"$(journalctl -k -q --no-pager -n 1 2>/dev/null)\" ]; then gr_kl=journal; "
	"else gr_kl=none; fi; "
	/* The loop's first sample: where to count from (NV_XID_AWK). $gr_resume is what the
	 * sampler passed from the last frame of the loop before this one, "BOOT@MARK". */
	"gr_boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null); "
	"case $gr_resume in \"$gr_boot\"@*) gr_xid_st=${gr_resume#*@};; *@*) gr_xid_st=0;; "
	"*) gr_xid_st=;; esac; fi; "
	"echo \"# klog=$gr_kl\"; "
	"if [ \"$gr_kl\" != none ]; then "
	"gr_xid_out=$(case $gr_kl in "
	"dmesg) dmesg 2>/dev/null;; "
	"journal) journalctl -k -q --no-pager -o short-monotonic 2>/dev/null;; "
	"esac | grep -F 'NVRM: Xid' | awk -v st=\"$gr_xid_st\" '" NV_XID_AWK "'); "
	"printf '%s\\n' \"$gr_xid_out\"; "
	"gr_xid_st=$(printf '%s\\n' \"$gr_xid_out\" | sed -n 's/^# xid_mark=//p; s/^# xid_count //p' "
	"| tr '\\n' ' '); "
	"gr_resume=\"$gr_boot@${gr_xid_st%% *}\"; fi";

#define NV_MAX_COLS 64
#define NV_LINE_MAX 4096

/* Whether the n bytes at s name field f. */
static bool
name_is(const char *s, size_t n, const char *f)
{
	return strlen(f) == n && memcmp(s, f, n) == 0;
}

/* Read "# fields=a,b,c" into cols; returns the count (0 when it names nothing). */
static size_t
read_fields(const char *s, size_t n, enum nv_field *cols)
{
	size_t ncols = 0, start = 0, i, k;

	for (i = 0; i <= n && ncols < NV_MAX_COLS; i++) {
		if (i < n && s[i] != ',')
			continue;
		while (start < i && s[start] == ' ')
			start++;
		cols[ncols] = NF_IGNORED;
		for (k = 0; k < NF__COUNT; k++)
			if (name_is(s + start, i - start, nv_columns[k].name))
				cols[ncols] = (enum nv_field)k;
		/* The other names nvidia-smi accepts for the same fields. */
		if (name_is(s + start, i - start, "gpu_uuid"))
			cols[ncols] = NF_UUID;
		if (name_is(s + start, i - start, "gpu_name"))
			cols[ncols] = NF_NAME;
		ncols++;
		start = i + 1;
	}
	return ncols;
}

/*
 * A figure in lo..hi into *out: fields.h's reader, shared with the other vendors (unknown
 * words, a decimal comma, rounding); with nounits nvidia-smi prints bare numbers, and a unit
 * it may still print after a space is one of its own.
 */
static bool
read_number(const char *v, int64_t lo, int64_t hi, int64_t *out)
{
	struct pf_span s = pf_span(v, strlen(v));

	return !pf_unknown(s) && pf_int(s, NV_UNITS, lo, hi, out);
}

/* A number in lo..hi into *out, setting bit in *valid; anything else leaves both alone. */
static void
set_int(const char *v, int64_t lo, int64_t hi, int *out, uint32_t *valid, uint32_t bit)
{
	int64_t x;

	if (read_number(v, lo, hi, &x)) {
		*out = (int)x;
		*valid |= bit;
	}
}

/* "0x0000000000000004" */
static bool
read_hex(const char *v, uint64_t *out)
{
	uint64_t x = 0;
	int n = 0;

	if (v[0] != '0' || (v[1] != 'x' && v[1] != 'X'))
		return false;
	for (v += 2; *v != '\0'; v++, n++) {
		int d;

		if (*v >= '0' && *v <= '9')
			d = *v - '0';
		else if (*v >= 'a' && *v <= 'f')
			d = *v - 'a' + 10;
		else if (*v >= 'A' && *v <= 'F')
			d = *v - 'A' + 10;
		else
			return false;
		if (n >= 16)
			return false;
		x = x << 4 | (uint64_t)d;
	}
	if (n == 0)
		return false;
	*out = x;
	return true;
}

/* A PCI address: nvidia-smi's "00000000:3B:00.0", the kernel log's "0000:3b:00". */
struct pci_addr {
	uint32_t domain;
	unsigned bus, dev;
};

/* Up to max hex digits at *p into *out (at least one); advances *p. */
static bool
read_hex_digits(const char **p, int max, uint32_t *out)
{
	uint32_t x = 0;
	int n = 0;

	for (; n < max; n++, (*p)++) {
		char c = **p;

		if (c >= '0' && c <= '9')
			x = x << 4 | (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x = x << 4 | (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			x = x << 4 | (uint32_t)(c - 'A' + 10);
		else
			break;
	}
	*out = x;
	return n > 0;
}

/* DOMAIN:BUS:DEVICE with an optional .FUNCTION at *p; advances *p past it. */
static bool
read_pci(const char **p, struct pci_addr *a)
{
	uint32_t bus, dev, fn;

	if (!read_hex_digits(p, 8, &a->domain) || **p != ':')
		return false;
	(*p)++;
	if (!read_hex_digits(p, 2, &bus) || **p != ':')
		return false;
	(*p)++;
	if (!read_hex_digits(p, 2, &dev) || dev > 0x1f)
		return false;
	if (**p == '.') {
		(*p)++;
		if (!read_hex_digits(p, 1, &fn) || fn > 7)
			return false;
	}
	a->bus = bus;
	a->dev = dev;
	return true;
}

/* Xid lines kept from one sample: the command sends one per bus, a hostile one more. */
#define NV_XID_KEEP 256
/* Counts kept from one sample: the command sends at most 64, a hostile one more. */
#define NV_XID_BUSES 256

struct nv_xid {
	struct pci_addr pci;
	int code;
};

struct nv_xid_count {
	struct pci_addr pci;
	int count;
};

/* What a sample says of the kernel log. */
struct nv_klog {
	bool readable;		/* "# klog=dmesg" or "# klog=journal" */
	bool counted;		/* "# xid_mark=" with a time: the counts are known */
	struct nv_xid v[NV_XID_KEEP];	/* a ring of the newest */
	size_t total;		/* lines read; the newest is v[(total - 1) % NV_XID_KEEP] */
	struct nv_xid_count c[NV_XID_BUSES];
	size_t nc;
};

static bool
same_gpu(const struct pci_addr *a, const struct pci_addr *b)
{
	return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev;
}

/* "12345.678901" (seconds, up to six decimals) at *p into microseconds; advances *p. */
static bool
read_seconds(const char **p, int64_t *us)
{
	int64_t sec = 0, frac = 0;
	int n = 0, d = 0;

	for (; **p >= '0' && **p <= '9'; (*p)++, n++) {
		if (n == 12)
			return false;
		sec = sec * 10 + (**p - '0');
	}
	if (n == 0)
		return false;
	if (**p == '.')
		for ((*p)++; **p >= '0' && **p <= '9'; (*p)++, d++)
			if (d < 6)
				frac = frac * 10 + (**p - '0');
	for (int k = d; k < 6; k++)
		frac *= 10;
	*us = sec * 1000000 + frac;
	return true;
}

/*
 * One kernel log line: "[ 14370.688139] NVRM: Xid (PCI:0000:0a:00): 45, ..." (dmesg), the
 * same with "host kernel: " before NVRM (journalctl -o short-monotonic), or an older
 * driver's "NVRM: Xid (0000:03:00): 14, Channel 00000001". False for anything else.
 */
static bool
read_xid_line(const char *s, struct nv_xid *x)
{
	static const char mark[] = "NVRM: Xid (";
	const char *p, *m;
	int64_t code = 0;
	int n;

	if ((m = strstr(s, mark)) == NULL)
		return false;
	p = m + strlen(mark);
	if (strncmp(p, "PCI:", 4) == 0)
		p += 4;
	if (!read_pci(&p, &x->pci) || p[0] != ')' || p[1] != ':' || p[2] != ' ')
		return false;
	for (p += 3, n = 0; *p >= '0' && *p <= '9'; p++, n++) {
		if (n == 4)
			return false;
		code = code * 10 + (*p - '0');
	}
	if (n == 0 || code == 0 || (*p != ',' && *p != '\0' && *p != ' '))
		return false;
	x->code = (int)code;
	return true;
}

/* "# xid_count BUS N" (after "# xid_count "): a bus and its count, at most 9 digits. */
static bool
read_xid_count(const char *s, struct nv_xid_count *c)
{
	const char *p = s;
	int64_t v = 0;
	int n;

	if (!read_pci(&p, &c->pci) || *p++ != ' ')
		return false;
	for (n = 0; *p >= '0' && *p <= '9'; p++, n++) {
		if (n == 9)
			return false;
		v = v * 10 + (*p - '0');
	}
	if (n == 0 || *p != '\0')
		return false;
	c->count = (int)v;
	return true;
}

/* A "# ..." line of the kernel log part into k; false when it is none of them. */
static bool
read_klog_line(const char *line, struct nv_klog *k)
{
	struct nv_xid_count c;
	struct nv_xid x;
	const char *p;
	int64_t us;
	size_t i;

	if (strncmp(line, "# klog=", 7) == 0) {
		k->readable = strcmp(line + 7, "dmesg") == 0 || strcmp(line + 7, "journal") == 0;
		return true;
	}
	if (strncmp(line, "# xid_mark=", 11) == 0) {
		p = line + 11;
		k->counted = read_seconds(&p, &us) && *p == '\0';
		return true;
	}
	if (strncmp(line, "# xid_count ", 12) == 0) {
		if (!read_xid_count(line + 12, &c))
			return true;
		/* A bus named twice (no command of ours does it) keeps its higher count. */
		for (i = 0; i < k->nc && !same_gpu(&k->c[i].pci, &c.pci); i++)
			;
		if (i < k->nc)
			k->c[i].count = c.count > k->c[i].count ? c.count : k->c[i].count;
		else if (k->nc < NV_XID_BUSES)
			k->c[k->nc++] = c;
		return true;
	}
	if (strncmp(line, "# xid ", 6) == 0) {
		if (read_xid_line(line + 6, &x))
			k->v[k->total++ % NV_XID_KEEP] = x;
		return true;
	}
	return false;
}

/* Each GPU's newest Xid and the count the instance made of its bus's Xids. */
static void
apply_xids(const struct nv_klog *k, struct gpu_sample *g, size_t n)
{
	size_t kept = k->total < NV_XID_KEEP ? k->total : NV_XID_KEEP;
	size_t first = k->total - kept, i, j;

	if (!k->readable)
		return;
	for (i = 0; i < n; i++) {
		struct pci_addr a;
		const char *p = g[i].pci_bus_id;

		if (!read_pci(&p, &a))
			continue;	/* no bus id: which Xid is whose is unknown */
		g[i].xid = 0;
		g[i].xid_count = 0;
		for (j = first; j < k->total; j++)
			if (same_gpu(&k->v[j % NV_XID_KEEP].pci, &a))
				g[i].xid = k->v[j % NV_XID_KEEP].code;
		for (j = 0; j < k->nc; j++)
			if (same_gpu(&k->c[j].pci, &a))
				g[i].xid_count = k->c[j].count;
		g[i].valid |= MV_XID;
		if (k->counted)
			g[i].valid |= MV_XID_COUNT;
	}
}

static void
set_str(char *dst, size_t n, const char *v)
{
	pf_text(dst, n, pf_span(v, strlen(v)));
}

/* One column's value into g. */
static void
set_field(struct gpu_sample *g, enum nv_field f, const char *v)
{
	struct pf_span sv = pf_span(v, strlen(v));
	uint32_t *ok = &g->valid;
	int64_t x;
	uint64_t h;

	if (f < NF__COUNT && nv_columns[f].fig.bit != 0) {
		if (!pf_unknown(sv))
			pf_set_def(g, &nv_columns[f].fig, sv);
		return;
	}
	switch (f) {
	case NF_INDEX: break;	/* read by the caller */
	case NF_UUID: set_str(g->uuid, sizeof(g->uuid), v); break;
	case NF_NAME: set_str(g->name, sizeof(g->name), v); break;
	case NF_DRIVER: set_str(g->driver, sizeof(g->driver), v); break;
	case NF_MEM_USED: break;	/* read by the caller, with its own validity */
	case NF_PSTATE:
		if (v[0] == 'P')
			set_int(v + 1, 0, 15, &g->pstate, ok, MV_PSTATE);
		break;
	case NF_ECC_UNCORR:
		if (read_number(v, 0, INT64_C(999999999999999), &x)) {
			g->ecc_uncorrected = x;
			g->valid |= MV_ECC_UNCORR;
		}
		break;
	case NF_EVENT_REASONS:
	case NF_THROTTLE_REASONS:
		if (read_hex(v, &h)) {
			g->throttle = h;
			g->valid |= MV_THROTTLE;
		}
		break;
	case NF_COMPUTE_MODE: {
		static const char *const modes[] = { "Default", "Exclusive_Thread", "Prohibited",
		    "Exclusive_Process" };
		size_t m;

		for (m = 0; m < sizeof(modes) / sizeof(*modes); m++)
			if (strcmp(v, modes[m]) == 0) {
				g->compute_mode = (int)m;
				g->valid |= MV_COMPUTE_MODE;
			}
		break;
	}
	case NF_MIG:
		if (strcmp(v, "Enabled") == 0 || strcmp(v, "Disabled") == 0) {
			g->mig = v[0] == 'E';
			g->valid |= MV_MIG;
		}
		break;
	case NF_PCI_BUS: {
		struct pci_addr a;
		const char *q = v;

		if (read_pci(&q, &a) && *q == '\0')
			set_str(g->pci_bus_id, sizeof(g->pci_bus_id), v);
		break;
	}
	default:
		break;
	}
}

/* Split one CSV row at ", " in place; returns the number of columns, 0 when too many. */
static size_t
split_row(char *line, char **vals)
{
	size_t n = 0;
	char *p = line, *sep;

	for (;;) {
		if (n == NV_MAX_COLS)
			return 0;
		vals[n++] = p;
		if ((sep = strstr(p, ", ")) == NULL)
			break;
		*sep = '\0';
		p = sep + 2;
	}
	/* nvidia-smi pads nothing, but a trailing space or CR from a pipe is no value. */
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(vals[i]);

		while (l > 0 && (vals[i][l - 1] == ' ' || vals[i][l - 1] == '\r'))
			vals[i][--l] = '\0';
		while (*vals[i] == ' ')
			vals[i]++;
	}
	return n;
}

/* One device row; returns whether it held a device. */
static bool
read_row(char *line, const enum nv_field *cols, size_t ncols, size_t ordinal, const char *cuda,
    struct sample_list *out)
{
	char *vals[NV_MAX_COLS];
	struct gpu_sample g;
	int64_t index = (int64_t)ordinal;
	uint32_t used_ok = 0;
	size_t i, n = split_row(line, vals);

	if (n != ncols)
		return false;
	memset(&g, 0, sizeof(g));
	for (i = 0; i < n; i++) {
		if (cols[i] == NF_INDEX) {
			if (!read_number(vals[i], 0, 1023, &index))
				return false;
		} else if (cols[i] == NF_MEM_USED)
			set_int(vals[i], 0, 1 << 30, &g.mem_used_mib, &used_ok, 1);
		else
			set_field(&g, cols[i], vals[i]);
	}
	/* Used and total are one figure (MV_MEM): unknown unless both are known. */
	if (!used_ok)
		g.valid &= ~(uint32_t)MV_MEM;
	if (!(g.valid & MV_MEM))
		g.mem_total_mib = g.mem_used_mib = 0;
	text_sanitize(g.cuda, sizeof(g.cuda), cuda);
	g.index = (int)index;
	*sample_list_add(out) = g;
	return true;
}

static enum gr_err
nv_parse(const char *text, size_t len, struct sample_list *out, struct gr_error *err)
{
	enum nv_field cols[NV_MAX_COLS];
	char line[NV_LINE_MAX], cuda[16] = "", first[61] = "";
	size_t ncols, pos = 0, devices = 0, start = out->n;
	struct nv_klog *klog = xcalloc(1, sizeof(*klog));

	for (ncols = 0; ncols < NF__COUNT; ncols++)
		cols[ncols] = (enum nv_field)ncols;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		const char *s = text + pos;

		pos += n + 1;
		if (n == 0)
			continue;
		if (memchr(s, '\0', n) != NULL || n >= sizeof(line))
			goto not_a_row;
		memcpy(line, s, n);
		line[n] = '\0';
		if (strncmp(line, "# fields=", 9) == 0) {
			ncols = read_fields(line + 9, n - 9, cols);
			continue;
		}
		if (strncmp(line, "# cuda=", 7) == 0) {
			strlcpy_(cuda, line + 7, sizeof(cuda));
			continue;
		}
		if (read_klog_line(line, klog))
			continue;
		if (read_row(line, cols, ncols, devices, cuda, out)) {
			devices++;
			continue;
		}
not_a_row:
		if (first[0] == '\0') {
			char raw[61];

			memcpy(raw, s, n < 60 ? n : 60);
			raw[n < 60 ? n : 60] = '\0';
			text_sanitize(first, sizeof(first), raw);
		}
	}
	if (devices > 0)
		apply_xids(klog, out->v + start, devices);
	free(klog);
	if (devices > 0)
		return GR_OK;
	out->n = start;
	return gr_fail(err, GR_EFAIL, "nvidia-smi printed no GPU%s%s", first[0] ? ": " : "",
	    first);
}

const struct probe_vendor probe_vendor_nvidia = {
	.name = "nvidia",
	.tools = { "nvidia-smi" },
	.command = nv_command,
	.parse = nv_parse,
};
