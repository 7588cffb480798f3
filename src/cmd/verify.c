/*
 * gpurent verify: what the machine really has, from its own GPU tool over ssh, against what
 * the instance record (from its offer) promised, line by line.
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/i18n.h"
#include "gpurent/observed.h"
#include "gpurent/output.h"
#include "gpurent/util.h"
#include "common.h"
#include "verify.h"

enum vresult { VR_OK, VR_MISMATCH, VR_UNKNOWN, VR_NOT_PROMISED };

static const char *const result_names[] = { "ok", "mismatch", "unknown", "not promised" };

struct vcheck {
	char instance_id[ID_MAX];
	const char *check;
	char promised[96];	/* "" when nothing was promised */
	char found[160];	/* "" when the machine did not say */
	enum vresult result;
};

enum vcol { VCOL_INSTANCE, VCOL_CHECK, VCOL_PROMISED, VCOL_FOUND, VCOL_RESULT, VCOL__COUNT };

static const struct column vcolumns[VCOL__COUNT] = {
	[VCOL_INSTANCE] = { "instance_id", N_("INSTANCE"), false, true, 3, 12 },
	[VCOL_CHECK] = { "check", N_("CHECK"), false, false, 0, 0 },
	[VCOL_PROMISED] = { "promised", N_("PROMISED"), false, false, 1, 10 },
	[VCOL_FOUND] = { "found", N_("FOUND"), false, false, 0, 16 },
	[VCOL_RESULT] = { "result", N_("RESULT"), false, false, 0, 0 },
};

static void
vcell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct vcheck *v = row;
	const char *s = NULL;

	switch ((enum vcol)col) {
	case VCOL_INSTANCE: s = v->instance_id; break;
	case VCOL_CHECK: s = v->check; break;
	case VCOL_PROMISED: s = v->promised; break;
	case VCOL_FOUND: s = v->found; break;
	case VCOL_RESULT:
		s = result_names[v->result];
		c->color = v->result == VR_OK ? OC_GOOD : v->result == VR_MISMATCH ? OC_BAD :
		    OC_DIM;
		break;
	default: break;
	}
	c->kind = s != NULL && *s != '\0' ? CELL_STR : CELL_NULL;
	c->s = s;
}

/* The catalogue's model for what the tool calls a GPU with mib of memory, or NULL. */
static const struct gpu_model *
tool_model(const char *name, int mib)
{
	const struct gpu_model *m;
	int gb = (mib + 512) / 1024;

	if ((m = catalogue_resolve("smi", name, gb)) != NULL ||
	    (m = catalogue_resolve("runpod", name, gb)) != NULL)	/* nvidia-smi's own names */
		return m;
	if (strncmp(name, "NVIDIA ", 7) == 0)
		return catalogue_resolve("vast", name + 7, gb);
	return NULL;
}

/* Whether a device the tool named is the promised model. */
static bool
same_model(const struct gpu_model *promised, const struct gpu_sample *g)
{
	const struct gpu_model *m = tool_model(g->name, g->valid & MV_MEM ? g->mem_total_mib : 0);

	if (m != NULL)
		return m == promised;
	return g->name[0] != '\0' && catalogue_matches(promised, g->name);
}

static struct vcheck *
add(struct vcheck *v, size_t *n, const char *id, const char *check)
{
	struct vcheck *r = &v[(*n)++];

	memset(r, 0, sizeof(*r));
	strlcpy_(r->instance_id, id, sizeof(r->instance_id));
	r->check = check;
	r->result = VR_NOT_PROMISED;
	return r;
}

/* Fill the checks (at most VERIFY_CHECKS) of `in` against snapshot s. */
#define VERIFY_CHECKS 8
static size_t
compare(const struct instance *in, const struct probe_snapshot *s, struct vcheck *v)
{
	const struct gpu_sample *g = s->gpus.v;
	size_t n = 0, i, ng = s->gpus.n;
	struct vcheck *r;
	int min_mib = -1;
	bool all_same = true, names_differ = false;

	/* The model. */
	r = add(v, &n, in->id, "gpu_model");
	if (in->gpu != NULL)
		strlcpy_(r->promised, in->gpu->id, sizeof(r->promised));
	else
		strlcpy_(r->promised, in->gpu_raw, sizeof(r->promised));
	for (i = 0; i < ng; i++) {
		if (in->gpu != NULL && !same_model(in->gpu, &g[i]))
			all_same = false;
		if (strcmp(g[i].name, g[0].name) != 0)
			names_differ = true;
	}
	if (ng > 0) {
		const struct gpu_model *m = tool_model(g[0].name, g[0].valid & MV_MEM ?
		    g[0].mem_total_mib : 0);

		snprintf(r->found, sizeof(r->found), "%s%s%s%s%s", m != NULL ? m->id : "",
		    m != NULL ? " (" : "", g[0].name[0] ? g[0].name : "unnamed",
		    m != NULL ? ")" : "", names_differ ? " and others" : "");
	}
	if (r->promised[0] == '\0')
		r->result = VR_NOT_PROMISED;
	else if (ng == 0)
		r->result = VR_UNKNOWN;
	else if (in->gpu == NULL)	/* a model the catalogue lacks: compare the names */
		r->result = streq_ci(in->gpu_raw, g[0].name) && !names_differ ? VR_OK : VR_UNKNOWN;
	else
		r->result = all_same ? VR_OK : VR_MISMATCH;

	/* How many. */
	r = add(v, &n, in->id, "gpu_count");
	snprintf(r->found, sizeof(r->found), "%zu", ng);
	if (in->gpu_count > 0) {
		snprintf(r->promised, sizeof(r->promised), "%d", in->gpu_count);
		r->result = (int)ng >= in->gpu_count ? VR_OK : VR_MISMATCH;
	}

	/* Memory of each: tools count MiB and what is usable; a model is sold in GB. An
	 * 80 GB H100 shows 81559 MiB, a 40 GB A100 40536 MiB: at least 95% of GB x 10^9. */
	r = add(v, &n, in->id, "memory_per_gpu");
	for (i = 0; i < ng; i++)
		if ((g[i].valid & MV_MEM) && (min_mib < 0 || g[i].mem_total_mib < min_mib))
			min_mib = g[i].mem_total_mib;
	if (min_mib >= 0)
		snprintf(r->found, sizeof(r->found), "%d MiB%s", min_mib, ng > 1 ? " (least)" : "");
	if (in->gpu != NULL && in->gpu->vram_gb > 0) {
		snprintf(r->promised, sizeof(r->promised), "%d GB", in->gpu->vram_gb);
		r->result = min_mib < 0 ? VR_UNKNOWN :
		    (double)min_mib * 1048576.0 >= in->gpu->vram_gb * 1e9 * 0.95 ? VR_OK :
		    VR_MISMATCH;
	}

	/* What no offer of ours promises, shown so that a renter sees it: link, driver, CUDA. */
	r = add(v, &n, in->id, "pcie_link");
	if (ng > 0 && (g[0].valid & MV_PCIE_GEN) && (g[0].valid & MV_PCIE_WIDTH))
		snprintf(r->found, sizeof(r->found), "gen %d x%d", g[0].pcie_gen, g[0].pcie_width);
	r = add(v, &n, in->id, "driver");
	if (ng > 0)
		strlcpy_(r->found, g[0].driver, sizeof(r->found));
	r = add(v, &n, in->id, "cuda");
	if (ng > 0)
		strlcpy_(r->found, g[0].cuda, sizeof(r->found));

	/* The disk: the home filesystem's size against the instance's disk (within 10%, for
	 * the filesystem's own overhead); its free space shown beside it. */
	r = add(v, &n, in->id, "disk");
	if (s->host_ok && (s->host.valid & HV_DISK))
		snprintf(r->found, sizeof(r->found), "%lld GB, %lld GB free",
		    (long long)(s->host.disk_total_mib * 1048576 / 1000000000),
		    (long long)((s->host.disk_total_mib - s->host.disk_used_mib) * 1048576 /
		    1000000000));
	if (in->disk_gb > 0) {
		snprintf(r->promised, sizeof(r->promised), "%d GB", in->disk_gb);
		r->result = !(s->host_ok && (s->host.valid & HV_DISK)) ? VR_UNKNOWN :
		    (double)s->host.disk_total_mib * 1048576.0 >= in->disk_gb * 1e9 * 0.9 ? VR_OK :
		    VR_MISMATCH;
	}
	return n;
}

int
verify_instance(struct cmd_ctx *c, const char *id, FILE *fp, const struct out_opts *o)
{
	struct gr_error err = { 0 };
	struct probe_snapshot s;
	struct vcheck v[VERIFY_CHECKS];
	struct backend *b;
	struct instance in;
	size_t n, i;
	bool mismatch = false;

	if (session_backend_for(c->s, id, &b, &err) != GR_OK || observed_get(b, id, &in, &err) !=
	    GR_OK)
		return cmd_error(c, &err);
	probe_snapshot_init(&s);
	if (session_sample(c->s, in.id, METRICS_SSH, &s, &err, NULL) != GR_OK) {
		probe_snapshot_release(&s);
		return cmd_error(c, &err);
	}
	/* A job with a node that did not answer cannot be checked against what it holds. */
	if (s.unanswered[0] != '\0') {
		gr_fail(&err, GR_EUNAVAIL, "%s cannot be verified: no sample from %s", in.id,
		    s.unanswered);
		probe_snapshot_release(&s);
		return cmd_error(c, &err);
	}
	n = compare(&in, &s, v);
	probe_snapshot_release(&s);
	for (i = 0; i < n; i++)
		if (v[i].result == VR_MISMATCH)
			mismatch = true;
	if (out_print(fp, o, vcolumns, VCOL__COUNT, VCOL_CHECK, v, n, sizeof(*v), vcell, NULL,
	    &err) != GR_OK)
		return cmd_usage_error(c, "%s", err.msg);
	if (mismatch)
		cmd_warn("%s is not what it was rented as (see the mismatch lines)", in.id);
	return mismatch ? EXIT_MISMATCH : 0;
}

static int
verify_run(struct cmd_ctx *c, int argc, char **argv)
{
	int n, rc;

	rc = cmd_parse(c, argc, argv, NULL, NULL, &n);
	if (rc != 0 || n < 0)
		return rc;
	if (n != 1)
		return cmd_usage_error(c, n == 0 ? N_("which instance? give an ID from 'gpurent ls'") :
		    N_("one instance at a time"));
	rc = verify_instance(c, argv[0], c->out, &out_global);
	return finish_output(c, rc);
}

const struct command cmd_verify = {
	.name = "verify",
	.args = "ID",
	.summary = N_("check that an instance has the GPUs, memory and disk it was rented with"),
	.help =
	    N_("Runs the GPU vendor's own tool on the machine over ssh (nvidia-smi, ...) and the\n"
	    "host probe, and compares, line by line, what the machine has with what the\n"
	    "instance's offer promised: the GPU model (the tool's name mapped through the\n"
	    "catalogue), how many, the memory of each, and the disk. The PCIe link, the driver\n"
	    "and the CUDA version are shown as found (no offer promises them); a figure the\n"
	    "offer did not state is 'not promised', never a failure. Exit status 0 when\n"
	    "everything promised is there, 14 when something is not (a wrong model, fewer\n"
	    "GPUs, less memory or disk)."),
	.opts = NULL,
	.complete_args = CPL_INSTANCE,
	.run = verify_run,
};
