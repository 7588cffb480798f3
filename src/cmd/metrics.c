/*
 * gpurent metrics: per-GPU figures of one or more instances, from the provider's API or
 * from the machine itself over ssh (session_sample, session_node_samplers).
 * Every sample taken is also kept in the history; --since prints it (metrics_history.c).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurent/columns.h"
#include "gpurent/i18n.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"
#include "metrics_history.h"

struct args {
	bool follow, host;
	long long interval, count;
	const char *label;
	enum metrics_source source;
	const char *since, *until;	/* parsed once the session's clock is known */
	int step;			/* -1: auto */
};

enum { M_COUNT = 1, M_SOURCE, M_STEP };

static const struct cmd_opt opts[] = {
	{ "follow", 'f', NULL, N_("keep printing samples until interrupted (over ssh: one connection per machine, each node of a multi-node job)"), OPT_AT(struct args, follow), CPL_NONE, OPT_TRUE },
	{ "interval", 'i', "SECONDS", N_("with --follow: seconds between samples (default 2)"), OPT_AT(struct args, interval), CPL_NONE, OPT_INTERVAL },
	{ "count", 'c', "N", N_("with --follow: stop after N samples of each instance"), M_COUNT, CPL_NONE, 0 },
	{ "source", 's', "auto|api|ssh", N_("where samples come from: the machine over ssh, the provider's API, or auto (ssh where it answers, else the API; the default)"), M_SOURCE, CPL_NONE, 0 },
	{ "label", 'l', "LABEL", N_("every running instance with this label"), OPT_AT(struct args, label), CPL_NONE, OPT_STR },
	{ "host", 0, NULL, N_("the machine instead of its GPUs: CPU, load, memory, disk, network (ssh only)"), OPT_AT(struct args, host), CPL_NONE, OPT_TRUE },
	{ "since", 0, "WHEN", N_("print the history from WHEN: a duration back (1h, 30d) or a UTC date or time (2026-12-01T10:00, RFC 3339)"), OPT_AT(struct args, since), CPL_NONE, OPT_STR },
	{ "until", 'u', "WHEN", N_("with --since: end of the history (default now)"), OPT_AT(struct args, until), CPL_NONE, OPT_STR },
	{ "step", 0, "STEP", N_("with --since: raw, auto (default) or a bucket of whole minutes (5m, 1h)"), M_STEP, CPL_NONE, 0 },
	{ NULL, 0, NULL, NULL, 0, CPL_NONE, 0 },
};

static int
handle(struct cmd_ctx *c, int id, const char *arg, void *data)
{
	struct args *a = data;

	switch (id) {
	case M_COUNT:
		if (!parse_int(arg, 1, 1000000000, &a->count))
			return cmd_usage_error(c, "--count needs a positive number");
		break;
	case M_SOURCE:
		if (!metrics_source_parse(arg, &a->source))
			return cmd_usage_error(c, "--source is auto, api or ssh, not '%s'", arg);
		break;
	case M_STEP: {
		long long d;

		if (strcmp(arg, "raw") == 0)
			a->step = 0;
		else if (strcmp(arg, "auto") == 0)
			a->step = -1;
		else if ((d = parse_duration(arg)) > 0 && d % 60 == 0 && d <= 86400 * 31)
			a->step = (int)d;
		else
			return cmd_usage_error(c, "--step is raw, auto or whole minutes (5m, 1h), "
			    "not '%s'", arg);
		break;
	}
	}
	return 0;
}

/* ---------------------------------------------------------------- the host's columns */

struct host_row {
	char instance_id[ID_MAX];
	struct host_sample h;
};

enum host_col {
	HCOL_INSTANCE, HCOL_TIME, HCOL_CPU, HCOL_LOAD, HCOL_MEM_USED, HCOL_MEM_TOTAL, HCOL_DISK_USED,
	HCOL_DISK_TOTAL, HCOL_NET_RX, HCOL_NET_TX, HCOL__COUNT,
};

static const struct column host_columns[HCOL__COUNT] = {
	[HCOL_INSTANCE] = { "instance_id", N_("INSTANCE"), false, false, 0, 12 },
	[HCOL_TIME] = { "time", N_("TIME"), false, true, 3, 0 },
	[HCOL_CPU] = { "cpu_pct", N_("CPU %"), true, false, 0, 0 },
	[HCOL_LOAD] = { "load1", N_("LOAD"), true, false, 1, 0 },
	[HCOL_MEM_USED] = { "memory_used_mib", N_("MEM MiB"), true, false, 1, 0 },
	[HCOL_MEM_TOTAL] = { "memory_total_mib", N_("TOTAL MiB"), true, false, 2, 0 },
	[HCOL_DISK_USED] = { "disk_used_mib", N_("DISK MiB"), true, false, 1, 0 },
	[HCOL_DISK_TOTAL] = { "disk_total_mib", N_("DTOTAL MiB"), true, false, 2, 0 },
	[HCOL_NET_RX] = { "net_rx_bytes", N_("RX B"), true, false, 3, 0 },
	[HCOL_NET_TX] = { "net_tx_bytes", N_("TX B"), true, false, 3, 0 },
};

static void
host_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct host_row *r = row;
	const struct host_sample *h = &r->h;

	c->kind = CELL_INT;
	switch ((enum host_col)col) {
	case HCOL_INSTANCE: c->kind = CELL_STR; c->s = r->instance_id; return;
	case HCOL_TIME: c->kind = CELL_TIME; c->i = h->at; return;
	case HCOL_CPU: c->i = h->cpu_pct; if (!(h->valid & HV_CPU)) c->kind = CELL_NULL; return;
	case HCOL_LOAD:
		c->kind = h->valid & HV_LOAD ? CELL_FIXED : CELL_NULL;
		c->i = h->load1_centi;
		c->decimals = 2;
		return;
	case HCOL_MEM_USED: c->i = h->mem_used_mib; break;
	case HCOL_MEM_TOTAL: c->i = h->mem_total_mib; break;
	case HCOL_DISK_USED: c->i = h->disk_used_mib; break;
	case HCOL_DISK_TOTAL: c->i = h->disk_total_mib; break;
	case HCOL_NET_RX: c->i = h->net_rx_bytes; break;
	case HCOL_NET_TX: c->i = h->net_tx_bytes; break;
	default: c->kind = CELL_NULL; return;
	}
	if ((col <= HCOL_MEM_TOTAL && !(h->valid & HV_MEM)) ||
	    ((col == HCOL_DISK_USED || col == HCOL_DISK_TOTAL) && !(h->valid & HV_DISK)) ||
	    ((col == HCOL_NET_RX || col == HCOL_NET_TX) && !(h->valid & HV_NET)))
		c->kind = CELL_NULL;
}

/* ---------------------------------------------------------------- printing */

struct printer {
	struct cmd_ctx *c;
	struct out_opts o;
	struct out_widths widths;
	bool stream;		/* --follow: JSON lines, tables under one header */
	bool host;
	bool store_warned;	/* said once that the history could not keep samples */
	bool nodes;		/* --follow of some multi-node job: tables name the node */
	char node_fields[512];
};

static void show_nodes(struct out_opts *o, bool always, const struct sample_list *l, char *buf,
    size_t size);

/* Say once that samples were not kept in the history (a busy or unwritable database). */
static void
warn_unkept(struct printer *p, const struct gr_error *store_err)
{
	if (store_err->code == GR_OK || p->store_warned)
		return;
	cmd_warn("warning: the samples were not kept in the history: %s", store_err->msg);
	p->store_warned = true;
}

/* Print the samples (or the host) of one snapshot. */
static enum gr_err
print_snapshot(struct printer *p, const char *id, const struct probe_snapshot *s,
    struct gr_error *err)
{
	struct host_row hr;
	enum gr_err rc = GR_OK;
	size_t i;

	if (p->host) {
		if (!s->host_ok)
			return GR_OK;
		strlcpy_(hr.instance_id, id, sizeof(hr.instance_id));
		hr.h = s->host;
		if (p->stream && p->o.format == OUT_JSON)
			return out_print_record(p->c->out, &p->o, host_columns, HCOL__COUNT, &hr,
			    host_cell, NULL, err);
		rc = out_print(p->c->out, &p->o, host_columns, HCOL__COUNT, HCOL_INSTANCE, &hr, 1,
		    sizeof(hr), host_cell, NULL, err);
	} else if (p->stream && p->o.format == OUT_JSON) {
		/* A stream: one JSON object per line, one line per GPU sample. */
		for (i = 0; i < s->gpus.n && rc == GR_OK; i++)
			rc = out_print_record(p->c->out, &p->o, sample_columns, SCOL__COUNT,
			    &s->gpus.v[i], sample_cell, NULL, err);
		return rc;
	} else {
		struct out_opts o = p->o;

		show_nodes(&o, p->nodes, &s->gpus, p->node_fields, sizeof(p->node_fields));
		rc = out_print(p->c->out, &o, sample_columns, SCOL__COUNT, SCOL_INSTANCE,
		    s->gpus.v, s->gpus.n, sizeof(*s->gpus.v), sample_cell, NULL, err);
	}
	if (p->stream)
		p->o.no_header = true;
	return rc;
}

/*
 * A table of samples from several machines of one instance (a multi-node Slurm job)
 * names each GPU's node after the instance; JSON always carries it. Other tables, and
 * any --fields, are as they were.
 */
static void
show_nodes(struct out_opts *o, bool always, const struct sample_list *l, char *buf, size_t size)
{
	size_t i, k = 0;

	if (o->fields != NULL || o->format == OUT_JSON)
		return;
	for (i = 0; i < l->n && l->v[i].node[0] == '\0'; i++)
		;
	if (i == l->n && !always)
		return;
	buf[0] = '\0';
	for (i = 0; i < SCOL__COUNT; i++) {
		if (sample_columns[i].hidden)
			continue;
		k += (size_t)snprintf(buf + k, k < size ? size - k : 0, "%s%s", k > 0 ? "," : "",
		    sample_columns[i].name);
		if (i == SCOL_INSTANCE)
			k += (size_t)snprintf(buf + k, k < size ? size - k : 0, ",%s",
			    sample_columns[SCOL_NODE].name);
	}
	if (k < size)
		o->fields = buf;
}

/* A reconnection's hole, in the stream where the samples are missing. */
static void
print_gap(struct printer *p, const char *id, int64_t from, int64_t to)
{
	struct cell c = { CELL_TIME, NULL, 0, 0, 0 };
	char a[64], b[64];

	if (p->o.format == OUT_JSON) {
		fputs("{\"instance_id\":", p->c->out);
		json_write_str(p->c->out, id);
		fputs(",\"gap\":{\"from\":", p->c->out);
		c.i = from;
		json_write_cell(p->c->out, &c);
		fputs(",\"to\":", p->c->out);
		c.i = to;
		json_write_cell(p->c->out, &c);
		fputs(",\"reason\":\"connection lost\"}}\n", p->c->out);
	} else if (p->o.format == OUT_TABLE) {
		c.i = from;
		cell_text(&c, a, sizeof(a), true);
		c.i = to;
		cell_text(&c, b, sizeof(b), true);
		fprintf(p->c->out, _("-- %s: no samples from %s to %s (connection lost) --\n"), id, a,
		    b);
	}
}

/* ---------------------------------------------------------------- the instances */

struct target {
	char id[ID_MAX];
	char node[64];			/* one machine of a multi-node instance; "" */
	enum metrics_source src;	/* METRICS_SSH with a sampler, else METRICS_API */
	struct sampler *sm;
	long long frames;
	bool failed;
	char last_error[160];		/* not repeated while it stays the same */
};

/* The ids of argv and of --label. */
static int
collect_targets(struct cmd_ctx *c, const struct args *a, int argc, char **argv,
    struct target **out, size_t *n)
{
	struct instance_list l;
	struct fanout_result res[SESSION_MAX_PROVIDERS];
	struct gr_error err = { 0 };
	size_t i, cap = (size_t)argc;
	struct target *t;

	instance_list_init(&l);
	if (a->label != NULL) {
		enum gr_err rc = session_instances(c->s, &l, res, &err);

		if (rc != GR_OK && rc != GR_EPARTIAL) {
			instance_list_release(&l);
			return cmd_error(c, &err);
		}
		if (rc == GR_EPARTIAL)
			report_fanout(c, res, c->s->n_backends);
		cap += l.n;
	}
	t = xcalloc(cap + 1, sizeof(*t));
	*n = 0;
	for (i = 0; i < (size_t)argc; i++)
		strlcpy_(t[(*n)++].id, argv[i], sizeof(t->id));
	for (i = 0; i < l.n; i++)
		if (strcmp(l.v[i].label, a->label) == 0 && l.v[i].state == ST_RUNNING)
			strlcpy_(t[(*n)++].id, l.v[i].id, sizeof(t->id));
	instance_list_release(&l);
	*out = t;
	if (*n == 0) {
		free(t);
		if (a->label != NULL) {
			gr_fail(&err, GR_ENOTFOUND, "no running instance has the label '%s'", a->label);
			return cmd_error(c, &err);
		}
		return cmd_usage_error(c, "which instance? give an ID from 'gpurent ls' or --label");
	}
	return 0;
}

/* Report a target's error on stderr, once until it changes. */
static void
report(struct target *t, const struct gr_error *err)
{
	if (strcmp(t->last_error, err->msg) == 0)
		return;
	strlcpy_(t->last_error, err->msg, sizeof(t->last_error));
	if (t->node[0] != '\0')
		cmd_warn("%s (node %s)", err->msg, t->node);
	else
		cmd_warn("%s", err->msg);
}

/* The exit status of a run where `failed` of n targets failed with last as the last error. */
static int
status_of(size_t failed, size_t n, const struct gr_error *last)
{
	if (failed == 0)
		return 0;
	if (failed < n)
		return EXIT_PARTIAL;
	return n == 1 ? gr_exit_code(last->code) : EXIT_PARTIAL;
}

static int
metrics_once(struct cmd_ctx *c, const struct args *a, struct target *t, size_t n,
    struct printer *p)
{
	struct probe_snapshot all, one;
	struct gr_error err = { 0 }, last = { 0 }, store_err = { 0 };
	struct host_row *hosts = xcalloc(n + 1, sizeof(*hosts));
	size_t i, k, failed = 0, nhosts = 0;
	enum gr_err rc;

	probe_snapshot_init(&all);
	probe_snapshot_init(&one);
	for (i = 0; i < n && !cmd_interrupted; i++) {
		memset(&err, 0, sizeof(err));
		if (session_sample(c->s, t[i].id, a->source, &one, &err, &store_err) != GR_OK) {
			cmd_warn("%s", err.msg);
			last = err;
			failed++;
			continue;
		}
		if (one.unanswered[0] != '\0')
			cmd_warn("warning: %s: no sample from %s", t[i].id, one.unanswered);
		warn_unkept(p, &store_err);
		for (k = 0; k < one.gpus.n; k++)
			*sample_list_add(&all.gpus) = one.gpus.v[k];
		if (one.host_ok) {
			strlcpy_(hosts[nhosts].instance_id, t[i].id, sizeof(hosts->instance_id));
			hosts[nhosts++].h = one.host;
		} else if (a->host) {
			gr_fail(&last, GR_EUNSUPPORTED, "%s: no host sample (the host figures come "
			    "only over ssh)", t[i].id);
			cmd_warn("%s", last.msg);
			failed++;
		}
	}
	if (failed == n)
		rc = GR_OK;	/* nothing to show: the errors said why */
	else if (a->host)
		rc = out_print(c->out, &p->o, host_columns, HCOL__COUNT, HCOL_INSTANCE, hosts,
		    nhosts, sizeof(*hosts), host_cell, NULL, &err);
	else {
		char fields[512];
		struct out_opts o = p->o;

		show_nodes(&o, false, &all.gpus, fields, sizeof(fields));
		rc = out_print(c->out, &o, sample_columns, SCOL__COUNT, SCOL_INSTANCE, all.gpus.v,
		    all.gpus.n, sizeof(*all.gpus.v), sample_cell, NULL, &err);
	}
	probe_snapshot_release(&all);
	probe_snapshot_release(&one);
	free(hosts);
	if (rc != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	if (cmd_interrupted)
		return finish_output(c, EXIT_INTERRUPTED);
	return finish_output(c, status_of(failed, n, &last));
}

/* Sleep in small steps so Ctrl-C ends the wait at once. */
static void
pause_ms(long long ms)
{
	struct timespec step = { 0, 100000000L };
	long long i;

	for (i = 0; i < ms / 100 && !cmd_interrupted; i++)
		nanosleep(&step, NULL);
}

/* One round of the API targets. */
static int
api_round(struct cmd_ctx *c, const struct args *a, struct target *t, size_t n, struct printer *p,
    struct probe_snapshot *snap)
{
	struct gr_error err = { 0 }, store_err = { 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].src != METRICS_API || t[i].failed ||
		    (a->count > 0 && t[i].frames >= a->count))
			continue;
		memset(&err, 0, sizeof(err));
		if (session_sample(c->s, t[i].id, METRICS_API, snap, &err, &store_err) != GR_OK) {
			report(&t[i], &err);
			continue;
		}
		warn_unkept(p, &store_err);
		t[i].last_error[0] = '\0';
		t[i].frames++;
		if (print_snapshot(p, t[i].id, snap, &err) != GR_OK)
			return cmd_usage_error(c, "%s", err.msg);
	}
	return 0;
}

/* Read every sampler that has something; switch an auto target without a tool to the API. */
static int
ssh_round(struct cmd_ctx *c, const struct args *a, struct target *t, size_t n, struct printer *p,
    struct probe_snapshot *snap)
{
	struct gr_error err = { 0 }, store_err = { 0 };
	enum sampler_event ev;
	size_t i;

	for (i = 0; i < n; i++) {
		while (t[i].sm != NULL && (a->count == 0 || t[i].frames < a->count)) {
			memset(&err, 0, sizeof(err));
			ev = sampler_poll(t[i].sm, snap, &err);
			if (ev == SAMPLER_NOTHING)
				break;
			if (ev == SAMPLER_DOWN) {
				report(&t[i], &err);
				continue;
			}
			if (ev == SAMPLER_RECONNECTED) {
				cmd_warn("%s: reconnected", t[i].id);
				t[i].last_error[0] = '\0';
				continue;
			}
			if (ev == SAMPLER_ENDED) {
				sampler_free(t[i].sm);
				t[i].sm = NULL;
				t[i].failed = true;
				break;
			}
			session_stamp_frame(c->s, t[i].id, snap);
			if (a->source == METRICS_AUTO && (snap->vendor[0] == '\0' ||
			    snap->gpu_code != GR_OK) && !a->host) {
				/* Nothing to read there: the provider's figures, as auto says. */
				sampler_free(t[i].sm);
				t[i].sm = NULL;
				t[i].src = METRICS_API;
				break;
			}
			if (snap->gap_from != 0)
				print_gap(p, t[i].id, snap->gap_from, snap->gap_to);
			if (!a->host && snap->gpu_code != GR_OK) {
				gr_fail(&err, snap->gpu_code, "%s: %s", t[i].id, snap->gpu_error);
				report(&t[i], &err);
				continue;
			}
			if (!a->host && snap->vendor[0] == '\0') {
				gr_fail(&err, GR_EUNSUPPORTED, "%s answers ssh but has no GPU tool "
				    "gpurent knows on its PATH", t[i].id);
				report(&t[i], &err);
				continue;
			}
			t[i].frames++;
			session_record(c->s, snap->gpus.v, snap->gpus.n, &store_err);
			warn_unkept(p, &store_err);
			if (print_snapshot(p, t[i].id, snap, &err) != GR_OK)
				return cmd_usage_error(c, "%s", err.msg);
		}
	}
	return 0;
}

/*
 * The targets to follow: over ssh, one per machine of each instance (a multi-node Slurm
 * job's nodes each have their sampler); an instance without ssh under auto falls to the
 * API, as does a one-machine instance whose sampler did not start. Counts the failed.
 */
static struct target *
start_followers(struct cmd_ctx *c, const struct args *a, const struct target *in, size_t nin,
    size_t *n, size_t *failed, struct gr_error *last)
{
	struct target *t = xcalloc(nin + 1, sizeof(*t));
	struct node_sampler *ns;
	struct gr_error err;
	size_t i, k, nn, cap = nin + 1;
	char note[256];

	*n = *failed = 0;
	for (i = 0; i < nin; i++) {
		ns = NULL;
		nn = 0;
		memset(&err, 0, sizeof(err));
		note[0] = '\0';
		if (a->source != METRICS_API && session_node_samplers(c->s, in[i].id, a->source,
		    (int)a->interval, &ns, &nn, note, sizeof(note), &err) != GR_OK)
			nn = 0;
		/* Not a failure: the nodes followed are; what is left out is said. */
		if (note[0] != '\0')
			cmd_warn("warning: %s: not followed: %s", in[i].id, note);
		if (*n + (nn > 0 ? nn : 1) > cap) {
			cap = (*n + nn + 1) * 2;
			t = xrealloc(t, cap * sizeof(*t));
		}
		if (nn == 1 && ns[0].node[0] == '\0' && ns[0].sm == NULL) {
			err = ns[0].err;	/* one machine: as a sampler that did not start */
			nn = 0;
		}
		if (nn == 0) {
			t[*n] = in[i];
			t[*n].src = METRICS_API;
			if (a->source == METRICS_SSH || a->host) {
				cmd_warn("%s", err.msg);
				*last = err;
				t[*n].failed = true;
				(*failed)++;
			}
			(*n)++;
		}
		for (k = 0; k < nn; k++, (*n)++) {
			t[*n] = in[i];
			strlcpy_(t[*n].node, ns[k].node, sizeof(t[*n].node));
			t[*n].sm = ns[k].sm;
			t[*n].src = METRICS_SSH;
			if (ns[k].sm == NULL) {
				cmd_warn("%s", ns[k].err.msg);
				*last = ns[k].err;
				t[*n].failed = true;
				(*failed)++;
			}
		}
		free(ns);
	}
	return t;
}

static int
metrics_follow(struct cmd_ctx *c, const struct args *a, struct target *t, size_t n,
    struct printer *p)
{
	struct probe_snapshot snap;
	struct gr_error last = { 0 };
	struct pollfd fds[SESSION_NODES_MAX * 4];
	int64_t next_api = 0, now;
	size_t i, k, failed = 0, done;
	int rc = 0, wait;

	t = start_followers(c, a, t, n, &n, &failed, &last);
	if (failed == n) {
		free(t);
		return finish_output(c, status_of(failed, n, &last));
	}
	for (i = 0; i < n; i++)
		p->nodes |= t[i].node[0] != '\0';
	probe_snapshot_init(&snap);
	while (!cmd_interrupted && rc == 0) {
		now = monotonic_ms();
		if (now >= next_api) {
			rc = api_round(c, a, t, n, p, &snap);
			next_api = now + a->interval * 1000;
		}
		if (rc == 0)
			rc = ssh_round(c, a, t, n, p, &snap);
		if (fflush(c->out) != 0 || ferror(c->out)) {
			rc = finish_output(c, EXIT_ERROR);
			break;
		}
		for (i = done = 0; i < n; i++)
			if (t[i].failed || (a->count > 0 && t[i].frames >= a->count))
				done++;
		if (done == n || rc != 0)
			break;
		for (i = k = 0; i < n && k < sizeof(fds) / sizeof(*fds); i++)
			if (t[i].sm != NULL && sampler_fd(t[i].sm) >= 0) {
				fds[k].fd = sampler_fd(t[i].sm);
				fds[k++].events = POLLIN;
			}
		/* Wake for the next API round, a reconnection due, or Ctrl-C (checked often). */
		wait = (int)(next_api - monotonic_ms());
		if (wait > 200)
			wait = 200;
		if (wait < 0)
			wait = 0;
		if (k > 0)
			poll(fds, k, wait);
		else
			pause_ms(wait);
	}
	for (i = 0; i < n; i++)
		sampler_free(t[i].sm);
	probe_snapshot_release(&snap);
	for (i = failed = 0; i < n; i++)
		failed += t[i].failed;
	free(t);
	if (rc != 0)
		return rc;
	return finish_output(c, status_of(failed, n, &last));
}

static int
metrics_run(struct cmd_ctx *c, int argc, char **argv)
{
	struct args a = { false, false, 2, 0, NULL, METRICS_AUTO, NULL, NULL, -1 };
	struct printer p;
	struct target *t = NULL;
	struct gr_error err = { 0 };
	struct backend *b;
	int n, rc;
	size_t nt;

	rc = cmd_parse(c, argc, argv, handle, &a, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (a.since != NULL || a.until != NULL || a.step != -1) {
		int64_t now, since, until = 0;

		if (n != 1)
			return cmd_usage_error(c, n == 0 ? N_("which instance? give an ID from "
			    "'gpurent ls'") : N_("--since: one instance at a time"));

		if (a.since == NULL)
			return cmd_usage_error(c, "--until and --step go with --since");
		if (a.follow)
			return cmd_usage_error(c, "--since prints history; --follow samples now: "
			    "one or the other");
		/* The id must name a provider, even though only the database is read. */
		if (session_backend_for(c->s, argv[0], &b, &err) != GR_OK)
			return cmd_error(c, &err);
		now = session_now(c->s);
		if (cmd_when(c, "--since", a.since, now, &since) != 0 ||
		    (a.until != NULL && cmd_when(c, "--until", a.until, now, &until) != 0))
			return EXIT_USAGE;
		return metrics_history(c, argv[0], since, until, a.step);
	}
	if (a.host && a.source == METRICS_API)
		return cmd_usage_error(c, "--host figures come only over ssh, not from the API");
	if ((rc = collect_targets(c, &a, n, argv, &t, &nt)) != 0)
		return rc;
	memset(&p, 0, sizeof(p));
	p.c = c;
	p.o = out_global;
	p.host = a.host;
	p.stream = a.follow;
	if (a.follow)
		p.o.keep = &p.widths;	/* every round in the first round's columns */
	rc = a.follow ? metrics_follow(c, &a, t, nt, &p) : metrics_once(c, &a, t, nt, &p);
	free(t);
	return rc;
}

const struct command cmd_metrics = {
	.name = "metrics",
	.args = "ID...",
	.summary = N_("show GPU metrics of running instances"),
	.help =
	    N_("One sample per GPU: utilisation, memory used and total (MiB), temperature (C),\n"
	    "power draw and limit (W). Over ssh (--source ssh, or auto where the instance\n"
	    "answers) gpurent runs the GPU vendor's own tool on the machine, the first found of\n"
	    "nvidia-smi, hy-smi, rocm-smi or amd-smi, npu-smi, ixsmi, mthreads-gmi, cnmon and\n"
	    "mx-smi, and adds what it reports: clocks, PCIe link, fan, ECC errors, clock event\n"
	    "reasons, MIG mode, driver and CUDA version, and NVIDIA's Xid errors from the\n"
	    "kernel log (xid, xid_count). -o json has every field (null when\n"
	    "unknown), its 'source' and 'vendor';\n"
	    "--fields all shows them in the table. --host shows the machine instead.\n"
	    "--follow prints a sample every --interval seconds, over one ssh connection per\n"
	    "instance that is re-established after a drop, with the gap marked in the output;\n"
	    "with -o json each sample is one JSON object on its own line. Ctrl-C ends it\n"
	    "(status 0).\n"
	    "\n"
	    "Every sample taken is kept in the state database: raw samples for 24 hours,\n"
	    "one-minute aggregates (min, mean, max) for 30 days. --since prints that history\n"
	    "(mean, min and max per row); within the last 24 hours raw samples, further back\n"
	    "buckets of whole minutes sized to at most 1500 rows per GPU, of an hour or more\n"
	    "for a range over two days (--step chooses)."),
	.opts = opts,
	.complete_args = CPL_INSTANCE,
	.run = metrics_run,
};
