/*
 * dialect_vast.c - the simulated world in vast.ai's REST protocol (providers/vast.md):
 * search with vast's query language, create, list (keyset pages), get, stop/start, destroy,
 * the current user; vast's error bodies and statuses.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpurent/catalogue.h"
#include "gpurent/sim.h"
#include "gpurent/util.h"

#include "../backends/backends_parse.h"
#include "serve_int.h"

static void
vast_fail(struct serve_reply *rp, int status, const char *code, const char *msg)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddFalseToObject(j, "success");
	cJSON_AddStringToObject(j, "error", code);
	cJSON_AddStringToObject(j, "msg", msg);
	serve_reply_json(rp, status, j);
}

static double
dollars(int64_t micros)
{
	return (double)micros / 1e6;
}

/* A stable pseudo-random figure for machine `m` (salt picks which one), for the fields the
 * simulator has no model of but a real offer carries (CPU model, disk speed, PCIe, ...). */
static unsigned
machine_draw(long long m, unsigned salt)
{
	uint64_t x = (uint64_t)m * UINT64_C(0x9e3779b97f4a7c15) + salt * UINT64_C(0xbf58476d1ce4e5b9);

	x ^= x >> 31;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 29;
	return (unsigned)(x & 0x7fffffff);
}

/* The cost breakdown objects ("search", "instance") a real offer carries. */
static void
add_cost_object(cJSON *j, const char *name, double gpu_h, double disk_h, double discount)
{
	cJSON *c = cJSON_AddObjectToObject(j, name);

	cJSON_AddNumberToObject(c, "gpuCostPerHour", gpu_h);
	cJSON_AddNumberToObject(c, "diskHour", disk_h);
	cJSON_AddNumberToObject(c, "totalHour", gpu_h + disk_h);
	cJSON_AddNumberToObject(c, "discountTotalHour", 0);
	cJSON_AddNumberToObject(c, "discountedTotalPerHour", (gpu_h + disk_h) * (1 - discount));
}

static const char *const cpu_names[] = {
	"AMD EPYC 7543 32-Core Processor", "AMD EPYC 9354 32-Core Processor",
	"Intel Xeon Platinum 8480+", "AMD Ryzen Threadripper PRO 5975WX 32-Cores",
	"Intel Xeon Gold 6342 CPU @ 2.80GHz", "AMD EPYC 7B13 64-Core Processor",
};
static const char *const mobo_names[] = {
	"ROMED8-2T", "H12SSL-i", "X13DEG-OAD", "WRX80 Creator", "MZ73-LM0", "ROME2D32GM-2T",
};
static const char *const disk_names[] = {
	"SAMSUNG MZQL23T8HCLS-00A07", "KIOXIA KCD81RUG3T84", "Micron_7450_MTFDKCC3T8TFR",
	"WDC WDS200T2B0C",
};

/*
 * One offer with the full field set of a real search reply (providers/vast.md §2.4), so that
 * clients that read any of it work and reply sizes match the real service (~2.4 KB/offer).
 * Fields the simulator models come from the offer; the rest are stable per machine.
 */
static cJSON *
offer_json(const struct offer *o, long long num, int disk, int64_t now)
{
	cJSON *j = cJSON_CreateObject(), *ids;
	const char *name = vast_gpu_name_of(o->gpu);
	long long machine = num / 4 + 1000;
	int machine_gpus = o->gpu_count <= 8 ? 8 : o->gpu_count, i, cc;
	double storage_h = dollars(o->storage_gb_month) * disk / 720.0;
	double dph_base = dollars(o->price_hour);
	double dph_total = (double)llround((dph_base + storage_h) * 1e6) / 1e6;
	double flops = o->gpu != NULL ? catalogue_tensor_tflops_x10(o->gpu) / 10.0 * o->gpu_count :
	    0;
	double dlperf = flops * 0.25 + o->gpu_count * 3.5;
	double up_cost = (machine_draw(machine, 1) % 20 + 1) / 1000.0;
	double down_cost = (machine_draw(machine, 2) % 10) / 1000.0;
	/* The simulator's prepay discounts (sim.h): a month's, and the largest, three months'. */
	double discount = sim_term_discount_pct(3) / 100.0;
	double reserved_h = dollars(sim_term_rate(o->price_hour, 3));
	int64_t listed = now - 86400 * (int64_t)(machine_draw(machine, 4) % 90 + 1);
	int64_t until = now + 86400 * (int64_t)(machine_draw(machine, 5) % 120 + 7);
	bool amd = o->gpu != NULL && strcmp(o->gpu->vendor, "AMD") == 0;
	char ip[32];

	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", 23 + machine_draw(machine, 6) % 170,
	    machine_draw(machine, 7) % 256, machine_draw(machine, 8) % 256,
	    1 + machine_draw(machine, 9) % 254);
	/* Hopper-class BF16 throughput reads as compute capability 9.0, the rest as 8.9. */
	cc = amd ? 0 : o->gpu != NULL && catalogue_tensor_tflops_x10(o->gpu) >= 5000 ? 900 : 890;

	cJSON_AddBoolToObject(j, "is_bid", o->type == OFFER_INTERRUPTIBLE);
	cJSON_AddNumberToObject(j, "inet_up_billed", 0);
	cJSON_AddNumberToObject(j, "inet_down_billed", 0);
	cJSON_AddBoolToObject(j, "external", false);
	cJSON_AddStringToObject(j, "webpage", "");
	cJSON_AddNullToObject(j, "logo");
	cJSON_AddBoolToObject(j, "rentable", o->available > 0);
	cJSON_AddNumberToObject(j, "compute_cap", cc);
	cJSON_AddNumberToObject(j, "credit_balance", 0);
	cJSON_AddNumberToObject(j, "credit_discount", 0);
	cJSON_AddNumberToObject(j, "credit_discount_max", discount);
	cJSON_AddStringToObject(j, "driver_version", amd ? "6.2.4" : "570.133.07");
	cJSON_AddNumberToObject(j, "driver_vers", amd ? 6002004 : 570133007);
	cJSON_AddNumberToObject(j, "cuda_max_good", amd ? 0 : 12.8);
	cJSON_AddNumberToObject(j, "machine_id", (double)machine);
	cJSON_AddNumberToObject(j, "hosting_type", machine_draw(machine, 10) % 2);
	cJSON_AddStringToObject(j, "public_ipaddr", ip);
	cJSON_AddStringToObject(j, "geolocation", o->location);
	cJSON_AddNumberToObject(j, "geolocode", machine_draw(machine, 11) % 1000000);
	cJSON_AddNumberToObject(j, "flops_per_dphtotal", dph_total > 0 ? flops / dph_total : 0);
	cJSON_AddNumberToObject(j, "dlperf_per_dphtotal", dph_total > 0 ? dlperf / dph_total : 0);
	cJSON_AddNumberToObject(j, "reliability", o->reliability_bp / 10000.0);
	cJSON_AddNumberToObject(j, "reliability2", o->reliability_bp / 10000.0);
	cJSON_AddNumberToObject(j, "reliability_mult", 1.0);
	cJSON_AddNumberToObject(j, "expected_reliability", o->reliability_bp / 10000.0);
	cJSON_AddNumberToObject(j, "host_run_time", 86400.0 * 30);
	cJSON_AddNumberToObject(j, "host_id", (double)(machine_draw(machine, 12) % 300000));
	cJSON_AddNumberToObject(j, "id", (double)num);
	cJSON_AddNumberToObject(j, "ask_contract_id", (double)num);
	cJSON_AddNumberToObject(j, "bundle_id", (double)(num * 7 + 100000000));
	cJSON_AddNullToObject(j, "bundled_results");
	cJSON_AddNumberToObject(j, "num_gpus", o->gpu_count);
	cJSON_AddNumberToObject(j, "total_flops", flops);
	cJSON_AddNumberToObject(j, "min_bid", dph_base);
	cJSON_AddNumberToObject(j, "dph_base", dph_base);
	cJSON_AddNumberToObject(j, "dph_total", dph_total);
	cJSON_AddNumberToObject(j, "dph_total_adj", dph_total);
	cJSON_AddNumberToObject(j, "discount_rate", sim_term_discount_pct(1) / 100.0);
	cJSON_AddNumberToObject(j, "discounted_hourly", reserved_h);
	cJSON_AddNumberToObject(j, "discounted_dph_total",
	    (double)llround((reserved_h + storage_h) * 1e6) / 1e6);
	cJSON_AddStringToObject(j, "gpu_name", name != NULL ? name : o->gpu_raw);
	cJSON_AddStringToObject(j, "gpu_arch", amd ? "amd" : "nvidia");
	cJSON_AddNumberToObject(j, "gpu_ram", o->vram_gb * 1024);
	cJSON_AddNumberToObject(j, "gpu_total_ram", o->vram_gb * 1024 * o->gpu_count);
	cJSON_AddNumberToObject(j, "gpu_frac", (double)o->gpu_count / machine_gpus);
	cJSON_AddNumberToObject(j, "gpu_mem_bw", o->gpu != NULL ? o->gpu->bw_gbs : 0);
	cJSON_AddNumberToObject(j, "gpu_max_power", o->gpu != NULL ? o->gpu->tdp_w : 0);
	cJSON_AddNumberToObject(j, "gpu_max_temp", 83);
	cJSON_AddNumberToObject(j, "gpu_lanes", 16);
	cJSON_AddBoolToObject(j, "gpu_display_active", false);
	cJSON_AddNumberToObject(j, "gpu_occupancy", 0);
	ids = cJSON_AddArrayToObject(j, "gpu_ids");
	for (i = 0; i < o->gpu_count && i < 64; i++)
		cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)(machine * 100 + i)));
	cJSON_AddNumberToObject(j, "bw_nvlink", o->interconnect == IC_PCIE ? 0 : 600);
	cJSON_AddNumberToObject(j, "pci_gen", 4);
	cJSON_AddNumberToObject(j, "pcie_bw", 24.3);
	cJSON_AddStringToObject(j, "cpu_name", cpu_names[machine_draw(machine, 13) %
	    ARRAY_LEN(cpu_names)]);
	cJSON_AddStringToObject(j, "cpu_arch", "amd64");
	cJSON_AddNumberToObject(j, "cpu_cores", o->cpu_cores * 2);
	cJSON_AddNumberToObject(j, "cpu_cores_effective", o->cpu_cores);
	cJSON_AddNumberToObject(j, "cpu_ghz", 2.8 + (machine_draw(machine, 14) % 10) / 10.0);
	cJSON_AddNumberToObject(j, "cpu_ram", (double)o->ram_gb * 1000.0 * 2);
	cJSON_AddNumberToObject(j, "has_avx", 1);
	cJSON_AddStringToObject(j, "mobo_name", mobo_names[machine_draw(machine, 15) %
	    ARRAY_LEN(mobo_names)]);
	cJSON_AddStringToObject(j, "os_version", "22.04");
	cJSON_AddNumberToObject(j, "disk_space", o->disk_gb);
	cJSON_AddNumberToObject(j, "disk_bw", 2000 + machine_draw(machine, 16) % 4000);
	cJSON_AddStringToObject(j, "disk_name", disk_names[machine_draw(machine, 17) %
	    ARRAY_LEN(disk_names)]);
	cJSON_AddNumberToObject(j, "avail_vol_ask_id", 0);
	cJSON_AddNumberToObject(j, "avail_vol_dph", 0);
	cJSON_AddNumberToObject(j, "avail_vol_size", 0);
	cJSON_AddNumberToObject(j, "nw_disk_min_bw", 0);
	cJSON_AddNumberToObject(j, "nw_disk_max_bw", 0);
	cJSON_AddNumberToObject(j, "nw_disk_avg_bw", 0);
	cJSON_AddNumberToObject(j, "direct_port_count", 100 + machine_draw(machine, 18) % 900);
	cJSON_AddNumberToObject(j, "inet_up", o->net_up_mbps);
	cJSON_AddNumberToObject(j, "inet_down", o->net_down_mbps);
	cJSON_AddNumberToObject(j, "inet_up_cost", up_cost);
	cJSON_AddNumberToObject(j, "inet_down_cost", down_cost);
	cJSON_AddNumberToObject(j, "internet_up_cost_per_tb", up_cost * 1024);
	cJSON_AddNumberToObject(j, "internet_down_cost_per_tb", down_cost * 1024);
	cJSON_AddNumberToObject(j, "storage_cost", dollars(o->storage_gb_month));
	cJSON_AddNumberToObject(j, "storage_total_cost", storage_h);
	cJSON_AddNumberToObject(j, "vram_costperhour", o->vram_gb > 0 ?
	    dph_total / (o->vram_gb * 1024.0 * o->gpu_count) : 0);
	cJSON_AddBoolToObject(j, "verified", true);
	cJSON_AddStringToObject(j, "verification", "verified");
	cJSON_AddNumberToObject(j, "vericode", 1);
	cJSON_AddBoolToObject(j, "rented", false);
	cJSON_AddBoolToObject(j, "datacenter", machine_draw(machine, 10) % 2 == 1);
	cJSON_AddBoolToObject(j, "static_ip", machine_draw(machine, 19) % 3 != 0);
	cJSON_AddBoolToObject(j, "vms_enabled", false);
	cJSON_AddBoolToObject(j, "is_vm_deverified", false);
	cJSON_AddStringToObject(j, "resource_type", "gpu");
	cJSON_AddNullToObject(j, "cluster_id");
	cJSON_AddNullToObject(j, "hostname");
	cJSON_AddNumberToObject(j, "start_date", (double)listed);
	cJSON_AddNumberToObject(j, "end_date", (double)until);
	cJSON_AddNumberToObject(j, "duration", (double)(until - now));
	cJSON_AddNullToObject(j, "time_remaining");
	cJSON_AddStringToObject(j, "time_remaining_isbid", "");
	cJSON_AddNumberToObject(j, "dlperf", dlperf);
	cJSON_AddNumberToObject(j, "score", dlperf / (dph_total > 0 ? dph_total : 1) *
	    o->reliability_bp / 10000.0);
	add_cost_object(j, "search", dph_base, storage_h, 0);
	add_cost_object(j, "instance", dph_base, storage_h, 0);
	return j;
}

/* One vast operator test of a field value. */
static bool
op_match(const char *field, const cJSON *v, const char *op, const cJSON *arg)
{
	const cJSON *a;
	double x, y;
	char cc[3] = "";

	if (strcmp(field, "geolocation") == 0 && cJSON_IsString(v)) {
		const char *c = strrchr(v->valuestring, ',');

		if (c != NULL && strlen(c) == 4) {
			cc[0] = c[2];
			cc[1] = c[3];
		}
	}
	if (strcmp(op, "in") == 0 || strcmp(op, "notin") == 0) {
		bool found = false;

		cJSON_ArrayForEach(a, arg)
			if (op_match(field, v, "eq", a))
				found = true;
		return strcmp(op, "in") == 0 ? found : !found;
	}
	if (strcmp(op, "eq") == 0 || strcmp(op, "neq") == 0) {
		bool eq;

		if (cJSON_IsNull(arg))
			eq = v == NULL || cJSON_IsNull(v);
		else if (cJSON_IsBool(arg))
			eq = cJSON_IsBool(v) && cJSON_IsTrue(v) == cJSON_IsTrue(arg);
		else if (cJSON_IsString(arg) && cc[0] != '\0')
			eq = strcmp(cc, arg->valuestring) == 0 ||
			    strcmp(v->valuestring, arg->valuestring) == 0;
		else if (cJSON_IsString(arg) && cJSON_IsString(v))
			eq = strcmp(v->valuestring, arg->valuestring) == 0;
		else if (cJSON_IsNumber(v))
			eq = v->valuedouble == (cJSON_IsNumber(arg) ? arg->valuedouble :
			    cJSON_IsString(arg) ? strtod(arg->valuestring, NULL) : NAN);
		else
			eq = false;
		return strcmp(op, "eq") == 0 ? eq : !eq;
	}
	if (!cJSON_IsNumber(v))
		return false;
	x = v->valuedouble;
	y = cJSON_IsNumber(arg) ? arg->valuedouble : cJSON_IsString(arg) ?
	    strtod(arg->valuestring, NULL) : NAN;
	if (strcmp(op, "gt") == 0)
		return x > y;
	if (strcmp(op, "gte") == 0)
		return x >= y;
	if (strcmp(op, "lt") == 0)
		return x < y;
	if (strcmp(op, "lte") == 0)
		return x <= y;
	return false;
}

static bool
is_meta(const char *k)
{
	return strcmp(k, "order") == 0 || strcmp(k, "type") == 0 || strcmp(k, "limit") == 0 ||
	    strcmp(k, "allocated_storage") == 0 || strcmp(k, "disable_bundling") == 0;
}

/* Whether an offer object passes the query; *bad names an unknown key. */
static bool
query_match(const cJSON *q, const cJSON *o, const char **bad)
{
	const cJSON *f, *op;

	for (f = q->child; f != NULL; f = f->next) {
		const cJSON *v;

		if (is_meta(f->string))
			continue;
		v = cJSON_GetObjectItemCaseSensitive(o, f->string);
		if (v == NULL) {
			*bad = f->string;
			return false;
		}
		if (!cJSON_IsObject(f)) {
			if (!op_match(f->string, v, "eq", f))
				return false;
			continue;
		}
		for (op = f->child; op != NULL; op = op->next)
			if (!op_match(f->string, v, op->string, op))
				return false;
	}
	return true;
}

static const char *sort_key = "dph_total";
static int sort_desc;

static int
cmp_offer(const void *a, const void *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(*(cJSON *const *)a, sort_key);
	const cJSON *y = cJSON_GetObjectItemCaseSensitive(*(cJSON *const *)b, sort_key);
	double dx = cJSON_IsNumber(x) ? x->valuedouble : 0, dy = cJSON_IsNumber(y) ? y->valuedouble : 0;
	int c = dx < dy ? -1 : dx > dy;

	return sort_desc ? -c : c;
}

static void
search(struct serve_ctx *c, const char *qtext, struct serve_reply *rp)
{
	struct offer_list all;
	struct gr_error err = { 0 };
	cJSON *q, *res, *arr, **keep;
	const cJSON *t, *ord;
	const char *bad = NULL;
	bool bid;
	size_t i, n = 0;
	long long limit = 1000;
	int disk = 5;
	int64_t now = sim_now(c->sim);
	double d;

	q = cJSON_Parse(qtext);
	if (!cJSON_IsObject(q)) {
		cJSON_Delete(q);
		vast_fail(rp, 400, "invalid_request", "Invalid json body");
		return;
	}
	t = cJSON_GetObjectItemCaseSensitive(q, "type");
	bid = cJSON_IsString(t) && (strcmp(t->valuestring, "bid") == 0 ||
	    strcmp(t->valuestring, "interruptible") == 0);
	if (bj_num(q, "limit", &d) && d > 0)
		limit = (long long)d;
	if (bj_num(q, "allocated_storage", &d) && d > 0 && d < 100000)
		disk = (int)d;
	ord = cJSON_GetObjectItemCaseSensitive(q, "order");
	sort_key = "dph_total";
	sort_desc = 0;
	if (cJSON_IsArray(ord) && cJSON_IsArray(ord->child) &&
	    cJSON_IsString(cJSON_GetArrayItem(ord->child, 0))) {
		sort_key = cJSON_GetArrayItem(ord->child, 0)->valuestring;
		t = cJSON_GetArrayItem(ord->child, 1);
		sort_desc = cJSON_IsString(t) && strcmp(t->valuestring, "desc") == 0;
	}
	offer_list_init(&all);
	if (sim_offers(c->sim, &all, &err) != GR_OK) {
		cJSON_Delete(q);
		offer_list_release(&all);
		vast_fail(rp, 500, "internal_error", err.msg);
		return;
	}
	keep = xcalloc(all.n + 1, sizeof(*keep));
	for (i = 0; i < all.n; i++) {
		cJSON *o;
		long long num;

		if ((all.v[i].type == OFFER_INTERRUPTIBLE) != bid)
			continue;
		num = serve_sim_num(all.v[i].id);
		if (num < 0)
			continue;
		o = offer_json(&all.v[i], num, disk, now);
		if (query_match(q, o, &bad))
			keep[n++] = o;
		else
			cJSON_Delete(o);
		if (bad != NULL)
			break;
	}
	if (bad != NULL) {
		char msg[160];

		for (i = 0; i < n; i++)
			cJSON_Delete(keep[i]);
		free(keep);
		snprintf(msg, sizeof(msg), "%.60s is not a valid search key", bad);
		cJSON_Delete(q);
		offer_list_release(&all);
		vast_fail(rp, 400, "invalid_request", msg);
		return;
	}
	qsort(keep, n, sizeof(*keep), cmp_offer);
	res = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(res, "offers");
	for (i = 0; i < n; i++) {
		if ((long long)i < limit) {
			cJSON_AddNumberToObject(keep[i], "rn", (double)i + 1);
			cJSON_AddItemToArray(arr, keep[i]);
		}
		else
			cJSON_Delete(keep[i]);
	}
	free(keep);
	cJSON_Delete(q);
	offer_list_release(&all);
	serve_reply_json(rp, 200, res);
}

/*
 * The machine's state and what the user last asked for (providers/vast.md section 4.3):
 * vast records a stop or start at any time in intended_status, and actual_status follows.
 */
static void
status_of(const struct instance *in, const char **actual, const char **intended,
    const char **cur, const char **next)
{
	bool stop = in->intended == ST_STOPPED;

	*intended = *next = stop ? "stopped" : "running";
	*cur = "running";
	switch (in->state) {
	case ST_PROVISIONING:
		*actual = "loading";
		break;
	case ST_RUNNING:
	case ST_STOPPING:
		*actual = "running";
		break;
	case ST_STOPPED:
		*actual = "stopped";
		*cur = *next = "stopped";
		/* Outbid, the contract stops while the user still wants it running (vast.md
		   section 4.3): the intent says so, and it does not resume by itself. */
		break;
	case ST_STARTING:
		*actual = "stopped";
		*cur = "stopped";
		break;
	case ST_FAILED:
		/* A dead host is offline; one that went quiet has no heartbeat (unknown). */
		*actual = sim_fault_of(in) == SIM_FAULT_HOST_FAILURE ? "offline" :
		    sim_fault_of(in) == SIM_FAULT_UNREACHABLE ? "unknown" : "exited";
		break;
	default:
		*actual = "offline";
		*intended = *cur = *next = "stopped";
		break;
	}
}

/* What an instance row repeats of the machine it runs on (providers/vast.md §4.3). */
static const char *const machine_keys[] = {
	"machine_id", "host_id", "hosting_type", "gpu_frac", "gpu_arch", "gpu_mem_bw",
	"gpu_max_power", "gpu_max_temp", "gpu_lanes", "gpu_display_active", "bw_nvlink",
	"pci_gen", "pcie_bw", "compute_cap", "cuda_max_good", "driver_version", "driver_vers",
	"cpu_name", "cpu_arch", "cpu_cores", "cpu_cores_effective", "cpu_ghz", "cpu_ram",
	"has_avx", "mobo_name", "os_version", "disk_bw", "disk_name", "inet_up", "inet_down",
	"inet_up_cost", "inet_down_cost", "internet_up_cost_per_tb", "internet_down_cost_per_tb",
	"storage_cost", "min_bid", "credit_discount_max", "discount_rate", "verification",
	"reliability2",
	"total_flops", "dlperf", "dlperf_per_dphtotal", "flops_per_dphtotal", "static_ip",
	"vms_enabled", "datacenter", "geolocode", "webpage", "logo", "bundle_id", "end_date",
	"host_run_time", "resource_type", "cluster_id", "hostname", "gpu_ids",
};

/*
 * One instance row with every field the official client and gpurent read, with vast's names,
 * types and nesting: state, connection, launch config, metrics (null when not running), and
 * the hardware and prices of its machine.
 */
static cJSON *
instance_json(struct serve_ctx *c, const struct instance *in)
{
	cJSON *j = cJSON_CreateObject(), *ports, *p22, *m, *mach = NULL, *v;
	const char *actual, *intended, *cur, *next, *name = vast_gpu_name_of(in->gpu);
	struct offer o;
	struct gr_error err = { 0 };
	long long num = serve_sim_num(in->id), onum = serve_sim_num(in->offer_id);
	int64_t now = sim_now(c->sim);
	double dph_base = dollars(in->price_hour), disk_h = dollars(in->storage_hour);
	bool running = in->state == ST_RUNNING, have_offer;
	char port[16];
	size_t k;

	have_offer = sim_offer(c->sim, in->offer_id, &o, &err) == GR_OK;
	if (have_offer && onum >= 0)
		mach = offer_json(&o, onum, in->disk_gb, now);
	status_of(in, &actual, &intended, &cur, &next);
	cJSON_AddNumberToObject(j, "id", (double)num);
	cJSON_AddStringToObject(j, "actual_status", actual);
	cJSON_AddStringToObject(j, "intended_status", intended);
	cJSON_AddStringToObject(j, "cur_state", cur);
	cJSON_AddStringToObject(j, "next_state", next);
	cJSON_AddStringToObject(j, "status_msg", in->status_msg);
	if (in->label[0] != '\0')
		cJSON_AddStringToObject(j, "label", in->label);
	else
		cJSON_AddNullToObject(j, "label");
	cJSON_AddNumberToObject(j, "start_date", (double)in->created_at);
	if (mach != NULL && (v = cJSON_GetObjectItemCaseSensitive(mach, "end_date")) != NULL)
		cJSON_AddNumberToObject(j, "duration", v->valuedouble - (double)now);
	else
		cJSON_AddNullToObject(j, "duration");
	if (running && in->state_since > 0)
		cJSON_AddNumberToObject(j, "uptime_mins", (double)(now - in->state_since) / 60.0);
	else
		cJSON_AddNullToObject(j, "uptime_mins");
	cJSON_AddNumberToObject(j, "client_run_time", (double)(now - in->created_at) / 3600.0);
	cJSON_AddStringToObject(j, "gpu_name", name != NULL ? name : in->gpu_raw);
	cJSON_AddNumberToObject(j, "num_gpus", in->gpu_count);
	if (in->gpu != NULL) {
		cJSON_AddNumberToObject(j, "gpu_ram", in->gpu->vram_gb * 1024);
		cJSON_AddNumberToObject(j, "gpu_totalram", in->gpu->vram_gb * 1024 * in->gpu_count);
	} else {
		cJSON_AddNullToObject(j, "gpu_ram");
		cJSON_AddNullToObject(j, "gpu_totalram");
	}
	for (k = 0; mach != NULL && k < ARRAY_LEN(machine_keys); k++)
		if ((v = cJSON_GetObjectItemCaseSensitive(mach, machine_keys[k])) != NULL)
			cJSON_AddItemToObject(j, machine_keys[k], cJSON_Duplicate(v, true));
	cJSON_AddBoolToObject(j, "is_bid", in->type == OFFER_INTERRUPTIBLE);
	cJSON_AddNumberToObject(j, "dph_base", dph_base);
	cJSON_AddNumberToObject(j, "storage_total_cost", disk_h);
	cJSON_AddNumberToObject(j, "dph_total", (double)llround((dph_base + disk_h) * 1e6) / 1e6);
	add_cost_object(j, "search", dph_base, disk_h, 0);
	add_cost_object(j, "instance", dph_base, disk_h, 0);
	if (have_offer)
		cJSON_AddStringToObject(j, "geolocation", o.location);
	else
		cJSON_AddNullToObject(j, "geolocation");
	cJSON_AddNumberToObject(j, "disk_space", in->disk_gb);
	cJSON_AddStringToObject(j, "image_uuid", in->image);
	cJSON_AddNullToObject(j, "image_args");
	cJSON_AddStringToObject(j, "image_runtype", "ssh_direc ssh_proxy");
	cJSON_AddNullToObject(j, "onstart");
	cJSON_AddNullToObject(j, "template_id");
	cJSON_AddNullToObject(j, "template_hash_id");
	cJSON_AddNullToObject(j, "template_name");
	/* [name, value] pairs; the official client turns them into an object. */
	cJSON_AddArrayToObject(j, "extra_env");
	cJSON_AddStringToObject(j, "jupyter_token", "");
	cJSON_AddNumberToObject(j, "ssh_idx", (double)(num % 10));
	cJSON_AddStringToObject(j, "local_ipaddrs", "10.0.0.2\n");
	if (in->valid & IV_SSH) {
		cJSON_AddStringToObject(j, "public_ipaddr", in->ssh_host);
		ports = cJSON_AddObjectToObject(j, "ports");
		p22 = cJSON_AddArrayToObject(ports, "22/tcp");
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "HostIp", "0.0.0.0");
		snprintf(port, sizeof(port), "%d", in->ssh_port);
		cJSON_AddStringToObject(m, "HostPort", port);
		cJSON_AddItemToArray(p22, m);
		cJSON_AddStringToObject(j, "ssh_host", "ssh4.vast.ai");
		cJSON_AddNumberToObject(j, "ssh_port", 20000 + (double)(num % 10000));
		cJSON_AddNumberToObject(j, "machine_dir_ssh_port", in->ssh_port);
		cJSON_AddNumberToObject(j, "direct_port_start", in->ssh_port);
		cJSON_AddNumberToObject(j, "direct_port_end", in->ssh_port);
		cJSON_AddNumberToObject(j, "direct_port_count", 1);
	} else {
		if ((v = mach != NULL ? cJSON_GetObjectItemCaseSensitive(mach, "public_ipaddr") :
		    NULL) != NULL)
			cJSON_AddItemToObject(j, "public_ipaddr", cJSON_Duplicate(v, true));
		else
			cJSON_AddNullToObject(j, "public_ipaddr");
		cJSON_AddObjectToObject(j, "ports");
		cJSON_AddNullToObject(j, "ssh_host");
		cJSON_AddNullToObject(j, "ssh_port");
		cJSON_AddNullToObject(j, "machine_dir_ssh_port");
		cJSON_AddNumberToObject(j, "direct_port_start", -1);
		cJSON_AddNumberToObject(j, "direct_port_end", -1);
		cJSON_AddNumberToObject(j, "direct_port_count", 0);
	}
	if ((in->valid & IV_UTIL) && running) {
		cJSON_AddNumberToObject(j, "gpu_util", in->util_pct);
		cJSON_AddNumberToObject(j, "gpu_temp", 40 + in->util_pct / 3);
		cJSON_AddNumberToObject(j, "vmem_usage", in->gpu != NULL ?
		    in->gpu->vram_gb * in->gpu_count * in->util_pct / 100.0 : 0);
		cJSON_AddNumberToObject(j, "cpu_util", in->util_pct / 400.0);
		cJSON_AddNumberToObject(j, "mem_usage", 4.2);
		cJSON_AddNumberToObject(j, "mem_limit", have_offer ? o.ram_gb : 0);
		cJSON_AddNumberToObject(j, "disk_usage", in->disk_gb * 0.2);
		cJSON_AddNumberToObject(j, "disk_util", 0.2);
	} else {
		static const char *const metric_keys[] = { "gpu_util", "gpu_temp", "vmem_usage",
			"cpu_util", "mem_usage", "mem_limit", "disk_usage", "disk_util" };

		for (k = 0; k < ARRAY_LEN(metric_keys); k++)
			cJSON_AddNullToObject(j, metric_keys[k]);
	}
	cJSON_AddNumberToObject(j, "inet_up_billed", 0);
	cJSON_AddNumberToObject(j, "inet_down_billed", 0);
	cJSON_Delete(mach);
	return j;
}

/* The sim instance for a vast instance id; false when it does not exist. */
static bool
find_instance(struct serve_ctx *c, const char *num, struct instance *out)
{
	struct gr_error err = { 0 };
	char id[ID_MAX];
	long long n;

	if (!parse_int(num, 0, INT64_MAX / 4, &n))
		return false;
	snprintf(id, sizeof(id), "sim:i-%06lld", n);
	return sim_get(c->sim, id, out, &err) == GR_OK && out->state != ST_DESTROYED &&
	    out->state != ST_DESTROYING;
}

/*
 * The instance list: v1 pages keyset-wise (25 a page), the legacy v0 list (all) answers
 * without paging. Both count what matched and the labels among them.
 */
static void
list(struct serve_ctx *c, const struct serve_req *rq, bool legacy, struct serve_reply *rp)
{
	struct instance_list l;
	struct gr_error err = { 0 };
	const char *tok = serve_query(rq, "after_token"), *lim = serve_query(rq, "limit");
	const char *sf = serve_query(rq, "select_filters"), *bad = NULL;
	cJSON *res, *arr, *filters = NULL, *row, *labels;
	long long limit = 25, after = -1, start, n;
	size_t i, found = 0, total = 0;
	char next[32] = "";

	if (lim != NULL && parse_int(lim, -1000, 1000, &n))
		limit = n <= 0 ? 5 : n > 25 ? 25 : n;
	if (legacy) {
		limit = LLONG_MAX;
		tok = NULL;
	}
	if (tok != NULL && tok[0] != '\0' && !parse_int(tok, 0, INT64_MAX / 4, &after)) {
		vast_fail(rp, 400, "invalid_token", "invalid after_token");
		return;
	}
	start = after;
	if (sf != NULL && (filters = cJSON_Parse(sf)) != NULL && !cJSON_IsObject(filters)) {
		cJSON_Delete(filters);
		vast_fail(rp, 400, "invalid_args", "select_filters must be an object");
		return;
	}
	instance_list_init(&l);
	if (sim_instances(c->sim, false, &l, &err) != GR_OK) {
		cJSON_Delete(filters);
		instance_list_release(&l);
		vast_fail(rp, 500, "internal_error", err.msg);
		return;
	}
	res = cJSON_CreateObject();
	cJSON_AddTrueToObject(res, "success");
	arr = cJSON_CreateArray();
	labels = cJSON_CreateObject();
	for (i = 0; i < l.n; i++) {
		long long num = serve_sim_num(l.v[i].id);
		const char *lab = l.v[i].label;
		cJSON *count;

		if (num <= start || l.v[i].state == ST_DESTROYED ||
		    l.v[i].state == ST_DESTROYING)
			continue;
		row = instance_json(c, &l.v[i]);
		if (filters != NULL && !query_match(filters, row, &bad)) {
			cJSON_Delete(row);
			continue;
		}
		total++;
		if ((count = cJSON_GetObjectItemCaseSensitive(labels, lab)) != NULL)
			cJSON_SetNumberValue(count, count->valuedouble + 1);
		else
			cJSON_AddNumberToObject(labels, lab, 1);
		if ((long long)found == limit) {
			cJSON_Delete(row);
			if (next[0] == '\0')
				snprintf(next, sizeof(next), "%lld", after);
			continue;
		}
		cJSON_AddItemToArray(arr, row);
		found++;
		after = num;
	}
	cJSON_AddNumberToObject(res, "instances_found", (double)found);
	if (!legacy) {
		cJSON_AddNumberToObject(res, "total_instances", (double)total);
		cJSON_AddItemToObject(res, "label_counts", labels);
		labels = NULL;
		if (next[0] != '\0')
			cJSON_AddStringToObject(res, "next_token", next);
		else
			cJSON_AddNullToObject(res, "next_token");
	}
	cJSON_Delete(labels);
	cJSON_AddItemToObject(res, "instances", arr);
	cJSON_Delete(filters);
	instance_list_release(&l);
	serve_reply_json(rp, 200, res);
}

static void
create(struct serve_ctx *c, const char *ask, const struct serve_req *rq, struct serve_reply *rp)
{
	struct launch_req req;
	struct instance in;
	struct offer o;
	struct gr_error err = { 0 };
	cJSON *b, *env, *e, *res;
	char oid[ID_MAX], **envv = NULL, msg[200], num[24], ikey[64];
	const char *lab;
	long long n;
	size_t ne = 0, i;
	double d;
	enum gr_err code;

	b = cJSON_ParseWithLength(rq->body, rq->len);
	if (!cJSON_IsObject(b)) {
		cJSON_Delete(b);
		vast_fail(rp, 400, "invalid_request", "Invalid json body");
		return;
	}
	if (!parse_int(ask, 0, INT64_MAX / 4, &n)) {
		cJSON_Delete(b);
		vast_fail(rp, 404, "no_such_ask", "error 404/3603: no_such_ask  Instance type is "
		    "not available.");
		return;
	}
	snprintf(oid, sizeof(oid), "sim:o-%06lld", n);
	if (sim_offer(c->sim, oid, &o, &err) != GR_OK) {
		snprintf(oid, sizeof(oid), "sim:o-%06lldi", n);
		gr_error_clear(&err);
	}
	memset(&req, 0, sizeof(req));
	req.offer_id = oid;
	req.image = bj_strp(b, "image");
	if (bj_num(b, "disk", &d) && d > 0 && d < 1e6)
		req.disk_gb = (int)d;
	lab = bj_strp(b, "label");
	req.label = lab;
	req.onstart = bj_strp(b, "onstart");
	if (bj_num(b, "price", &d) && d > 0) {
		req.interruptible = true;
		req.bid_hour = llround(d * 1e6);
	}
	env = cJSON_GetObjectItemCaseSensitive(b, "env");
	if (cJSON_IsObject(env)) {
		envv = xcalloc((size_t)cJSON_GetArraySize(env) + 1, sizeof(*envv));
		cJSON_ArrayForEach(e, env)
			if (cJSON_IsString(e) && e->string[0] != '-')
				envv[ne++] = xasprintf("%s=%s", e->string, e->valuestring);
		req.env = (const char *const *)envv;
	}
	/* Real vast has no client token: a repeated create makes a second instance. */
	switch (serve_launch_fault(c)) {
	case SLF_GONE: code = gr_fail(&err, GR_ECAPACITY, "gone"); break;
	case SLF_CAPACITY:
		for (i = 0; i < ne; i++)
			free(envv[i]);
		free(envv);
		cJSON_Delete(b);
		vast_fail(rp, 409, "resources_unavailable", "Not enough resources on the machine "
		    "to fulfill the request.");
		return;
	default: code = sim_launch(c->sim, &req, &in, &err);
	}
	for (i = 0; i < ne; i++)
		free(envv[i]);
	free(envv);
	cJSON_Delete(b);
	if (code == GR_ENOTFOUND || code == GR_ECAPACITY) {
		snprintf(msg, sizeof(msg), "error 404/3603: no_such_ask  Instance type by id %lld "
		    "is not available.", n);
		vast_fail(rp, 404, "no_such_ask", msg);
		return;
	}
	if (code == GR_EFUNDS) {
		vast_fail(rp, 402, "insufficient_credit", err.msg);
		return;
	}
	if (code != GR_OK) {
		vast_fail(rp, code == GR_EUSAGE ? 400 : 500, code == GR_EUSAGE ? "invalid_args" :
		    "internal_error", err.msg);
		return;
	}
	rp->acted = true;
	snprintf(num, sizeof(num), "%lld", serve_sim_num(in.id));
	serve_instance_env(num, "CONTAINER_ID", "CONTAINER_API_KEY", ikey, sizeof(ikey));
	res = cJSON_CreateObject();
	cJSON_AddTrueToObject(res, "success");
	cJSON_AddNumberToObject(res, "new_contract", (double)serve_sim_num(in.id));
	cJSON_AddStringToObject(res, "instance_api_key", ikey);
	serve_reply_json(rp, 200, res);
}

static void
action(struct serve_ctx *c, const char *num, const struct serve_req *rq, bool del,
    struct serve_reply *rp)
{
	struct instance in;
	struct gr_error err = { 0 };
	cJSON *b = NULL, *res;
	const char *st;
	bool labelled = false;
	enum gr_err code;

	if (!find_instance(c, num, &in)) {
		vast_fail(rp, 404, "no_such_instance", "error 404/3603: no_such_instance");
		return;
	}
	if (del) {
		code = sim_destroy(c->sim, in.id, &err);
	} else {
		b = cJSON_ParseWithLength(rq->body, rq->len);
		st = bj_strp(b, "state");
		labelled = st == NULL && cJSON_GetObjectItemCaseSensitive(b, "label") != NULL;
		if (st != NULL && strcmp(st, "stopped") == 0)
			code = serve_stop(c, in.id, &err);
		else if (st != NULL && strcmp(st, "running") == 0)
			code = sim_start(c->sim, in.id, &err);
		else if (bj_strp(b, "label") != NULL)
			code = sim_label(c->sim, in.id, bj_strp(b, "label"), &err);
		else if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(b, "label")))
			code = sim_label(c->sim, in.id, "", &err);
		else {
			cJSON_Delete(b);
			vast_fail(rp, 400, "invalid_args", "state must be running or stopped");
			return;
		}
		cJSON_Delete(b);
	}
	if (code == GR_EUSAGE && labelled) {
		vast_fail(rp, 400, "label_too_long", err.msg);
		return;
	}
	if (code != GR_OK) {
		vast_fail(rp, code == GR_ECAPACITY || code == GR_ECONFLICT ? 409 :
		    code == GR_EUSAGE ? 400 : 500, code == GR_ECAPACITY ? "resources_unavailable" :
		    code == GR_ECONFLICT ? "state_conflict" : "invalid_args", err.msg);
		return;
	}
	rp->acted = true;
	res = cJSON_CreateObject();
	cJSON_AddTrueToObject(res, "success");
	if (labelled)
		cJSON_AddStringToObject(res, "msg", "Instance label updated.");
	serve_reply_json(rp, 200, res);
}

/*
 * PUT /api/v0/instances/prepay/{id}/ {"amount": $} (providers/vast.md §4.4): credit paid
 * ahead at the prepay discount its size reaches (sim_prepay); timescale is the months it
 * covers at that discount.
 */
static void
prepay(struct serve_ctx *c, const char *num, const struct serve_req *rq, struct serve_reply *rp)
{
	struct instance in;
	struct gr_error err = { 0 };
	cJSON *b, *res;
	int64_t amount, covered;
	int pct;
	enum gr_err code;

	if (!find_instance(c, num, &in)) {
		vast_fail(rp, 404, "no_such_instance", "error 404/3603: no_such_instance");
		return;
	}
	b = cJSON_ParseWithLength(rq->body, rq->len);
	if (!bj_money_at(b, "amount", &amount) || amount <= 0) {
		cJSON_Delete(b);
		vast_fail(rp, 400, "invalid_args", "amount must be a positive number of dollars");
		return;
	}
	cJSON_Delete(b);
	code = sim_prepay(c->sim, in.id, amount, &pct, &covered, &err);
	if (code != GR_OK) {
		vast_fail(rp, code == GR_ECONFLICT ? 409 : 400, "invalid_args", err.msg);
		return;
	}
	rp->acted = true;
	res = cJSON_CreateObject();
	cJSON_AddTrueToObject(res, "success");
	cJSON_AddNumberToObject(res, "timescale", (double)covered / (TERM_MONTH_HOURS * 3600.0));
	cJSON_AddNumberToObject(res, "discount_rate", pct / 100.0);
	serve_reply_json(rp, 200, res);
}

static void
user(struct serve_ctx *c, struct serve_reply *rp)
{
	struct account a;
	struct gr_error err = { 0 };
	cJSON *j;

	if (sim_account(c->sim, &a, &err) != GR_OK) {
		vast_fail(rp, 500, "internal_error", err.msg);
		return;
	}
	/* The account object of providers/vast.md §5.1, every field the official client shows. */
	j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "id", 1);
	cJSON_AddStringToObject(j, "username", "simulated");
	cJSON_AddStringToObject(j, "email", "sim@example.invalid");
	cJSON_AddStringToObject(j, "fullname", "Simulated Renter");
	cJSON_AddStringToObject(j, "api_key", "simulated-key-never-shown");
	cJSON_AddNumberToObject(j, "key_id", 1);
	cJSON_AddNumberToObject(j, "credit", dollars(a.balance));
	cJSON_AddNumberToObject(j, "balance", 0);
	cJSON_AddNumberToObject(j, "balance_threshold", 0);
	cJSON_AddBoolToObject(j, "balance_threshold_enabled", false);
	cJSON_AddNumberToObject(j, "billed_expected", 0);
	cJSON_AddNumberToObject(j, "billed_verified", 0);
	cJSON_AddNumberToObject(j, "paid_expected", 0);
	cJSON_AddNumberToObject(j, "paid_verified", 0);
	cJSON_AddBoolToObject(j, "billing_creditonly", true);
	cJSON_AddBoolToObject(j, "can_pay", true);
	cJSON_AddBoolToObject(j, "has_billing", true);
	cJSON_AddBoolToObject(j, "has_payout", false);
	cJSON_AddStringToObject(j, "last4", "4242");
	cJSON_AddBoolToObject(j, "email_verified", true);
	cJSON_AddBoolToObject(j, "got_signup_credit", true);
	cJSON_AddBoolToObject(j, "password_resettable", true);
	cJSON_AddStringToObject(j, "paypal_email", "");
	cJSON_AddStringToObject(j, "ssh_key", "");
	cJSON_AddStringToObject(j, "user", "simulated");
	cJSON_AddStringToObject(j, "sid", "simulated-session");
	cJSON_AddStringToObject(j, "billaddress_city", "");
	cJSON_AddStringToObject(j, "billaddress_country", "");
	cJSON_AddStringToObject(j, "billaddress_line1", "");
	cJSON_AddStringToObject(j, "billaddress_line2", "");
	cJSON_AddStringToObject(j, "billaddress_zip", "");
	serve_reply_json(rp, 200, j);
}

/*
 * GET /api/v0/charges/ (providers/vast.md §5.2): the simulated bill, one result per
 * instance and day, its GPU and disk as items; keyset pages of `limit` (default 100, at
 * most 500) whose token is the next result's index. The day range is required (400).
 */
static void
charges(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *f = serve_query(rq, "select_filters"), *lim = serve_query(rq, "limit");
	const char *after = serve_query(rq, "after_token");
	cJSON *q = f != NULL ? cJSON_Parse(f) : NULL, *day, *res, *arr;
	struct gr_error err = { 0 };
	struct charge_list bill;
	long long limit = 100, from = 0;
	double lo, hi;
	size_t i;

	day = cJSON_GetObjectItemCaseSensitive(q, "day");
	if (!bj_num(day, "gte", &lo) || !bj_num(day, "lte", &hi) || lo < 0 || hi < lo ||
	    hi > 253402300799.0 || (lim != NULL && !parse_int(lim, 1, 500, &limit)) ||
	    (after != NULL && !parse_int(after, 0, INT32_MAX, &from))) {
		cJSON_Delete(q);
		vast_fail(rp, 400, "invalid_args", "select_filters needs a day range "
		    "{\"day\":{\"gte\":t0,\"lte\":t1}}, limit 1..500 and a valid after_token");
		return;
	}
	cJSON_Delete(q);
	charge_list_init(&bill);
	/* The filter picks days: each day from the one holding gte to the one holding lte,
	   whole, as far as the provider's clock has come. */
	if (sim_bill(c->sim, (int64_t)lo - (int64_t)lo % 86400,
	    (int64_t)hi - (int64_t)hi % 86400 + 86400, &bill, &err) != GR_OK) {
		charge_list_release(&bill);
		vast_fail(rp, 500, "internal_error", err.msg);
		return;
	}
	res = cJSON_CreateObject();
	cJSON_AddTrueToObject(res, "success");
	cJSON_AddNumberToObject(res, "count", (double)bill.n);
	cJSON_AddNumberToObject(res, "total", (double)bill.n);
	arr = cJSON_AddArrayToObject(res, "results");
	for (i = (size_t)from; i < bill.n && i < (size_t)from + (size_t)limit; i++) {
		const struct charge *ch = &bill.v[i];
		cJSON *r = cJSON_CreateObject(), *items, *it;
		char src[48];

		snprintf(src, sizeof(src), "instance-%lld", serve_sim_num(ch->instance_id));
		cJSON_AddNumberToObject(r, "start", (double)ch->day);
		cJSON_AddNumberToObject(r, "end", (double)(ch->day + 86400));
		cJSON_AddStringToObject(r, "type", "instance");
		cJSON_AddStringToObject(r, "source", src);
		cJSON_AddStringToObject(r, "description", "Instance charges");
		cJSON_AddNumberToObject(r, "amount", dollars(ch->amount));
		cJSON_AddObjectToObject(r, "metadata");
		items = cJSON_AddArrayToObject(r, "items");
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "type", "gpu");
		cJSON_AddNumberToObject(it, "amount", dollars(ch->amount - ch->storage));
		cJSON_AddItemToArray(items, it);
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "type", "disk");
		cJSON_AddNumberToObject(it, "amount", dollars(ch->storage));
		cJSON_AddItemToArray(items, it);
		cJSON_AddItemToArray(arr, r);
	}
	if (i < bill.n) {
		char tok[24];

		snprintf(tok, sizeof(tok), "%zu", i);
		cJSON_AddStringToObject(res, "next_token", tok);
	} else
		cJSON_AddNullToObject(res, "next_token");
	charge_list_release(&bill);
	serve_reply_json(rp, 200, res);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The public list of GPU names on the market: {"gpu_names": [...]}, sorted, each once. */
static void
gpu_names(struct serve_ctx *c, struct serve_reply *rp)
{
	struct offer_list all;
	struct gr_error err = { 0 };
	const char **names;
	cJSON *res, *arr;
	size_t i, k, n = 0;

	offer_list_init(&all);
	if (sim_offers(c->sim, &all, &err) != GR_OK) {
		offer_list_release(&all);
		vast_fail(rp, 500, "internal_error", err.msg);
		return;
	}
	names = xcalloc(all.n + 1, sizeof(*names));
	for (i = 0; i < all.n; i++) {
		const char *name = vast_gpu_name_of(all.v[i].gpu);

		if (name == NULL)
			name = all.v[i].gpu_raw;
		for (k = 0; k < n && strcmp(names[k], name) != 0; k++)
			;
		if (k == n)
			names[n++] = name;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	res = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(res, "gpu_names");
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(names[i]));
	free(names);
	offer_list_release(&all);
	serve_reply_json(rp, 200, res);
}

/*
 * request_logs: vast answers with the URL of a file it fills a moment later; the simulator
 * serves that file itself (log_file), at once, on the address the client used.
 */
static void
request_logs(struct serve_ctx *c, const char *num, const struct serve_req *rq,
    struct serve_reply *rp)
{
	struct instance in;
	cJSON *res;
	char url[300], msg[80];

	if (!find_instance(c, num, &in)) {
		vast_fail(rp, 404, "invalid_id", "error 404/3603: no_such_instance");
		return;
	}
	snprintf(url, sizeof(url), "http://%.200s/simulated-logs/%s/",
	    rq->host != NULL && rq->host[0] != '\0' ? rq->host : "127.0.0.1", num);
	snprintf(msg, sizeof(msg), "Logs request for instance %s queued.", num);
	res = cJSON_CreateObject();
	cJSON_AddTrueToObject(res, "success");
	cJSON_AddStringToObject(res, "result_url", url);
	cJSON_AddStringToObject(res, "msg", msg);
	serve_reply_json(rp, 200, res);
}

static void
log_file(struct serve_ctx *c, const char *num, struct serve_reply *rp)
{
	struct instance in;

	rp->ctype = "text/plain";
	sb_reset(&rp->body);
	if (!find_instance(c, num, &in)) {
		rp->status = 404;
		sb_adds(&rp->body, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey"
		    "</Code><Message>The specified key does not exist.</Message></Error>\n");
		return;
	}
	rp->status = 200;
	sb_addf(&rp->body, "simulated container log of instance %s\n", num);
	sb_addf(&rp->body, "pulling image %s\n", in.image);
	sb_addf(&rp->body, "state: %s\n", inst_state_name(in.state));
	if (in.status_msg[0] != '\0')
		sb_addf(&rp->body, "%s\n", in.status_msg);
}

/* "/api/v0/instances/123/" -> "123" into buf; false when path is not prefix + id + '/'. */
static bool
path_id(const char *path, const char *prefix, char *buf, size_t n)
{
	size_t pl = strlen(prefix), i = 0;
	const char *p;

	if (strncmp(path, prefix, pl) != 0)
		return false;
	for (p = path + pl; *p != '\0' && *p != '/' && i + 1 < n; p++)
		buf[i++] = *p;
	buf[i] = '\0';
	return i > 0 && (*p == '\0' || (*p == '/' && p[1] == '\0'));
}

void
dialect_vast(struct serve_ctx *c, const struct serve_req *rq, struct serve_reply *rp)
{
	const char *m = rq->method, *p = rq->path;
	char id[32], own[32];
	bool search_path = strcmp(p, "/api/v0/bundles/") == 0 || strcmp(p, "/api/v0/bundles") == 0 ||
	    strcmp(p, "/api/v0/search/asks/") == 0;

	/* Public: the legacy client asks for the GPU names without a key as it starts. */
	if (strcmp(m, "GET") == 0 && (strcmp(p, "/api/v0/gpu_names/unique/") == 0 ||
	    strcmp(p, "/api/v0/gpu_names/unique") == 0)) {
		gpu_names(c, rp);
		return;
	}
	/* The log file a request_logs answer points at: fetched without the vast key. */
	if (strcmp(m, "GET") == 0 && path_id(p, "/simulated-logs/", id, sizeof(id))) {
		log_file(c, id, rp);
		return;
	}
	/* An instance's own key (CONTAINER_API_KEY) reads and changes that instance alone. */
	if (serve_instance_of_key("CONTAINER_API_KEY", rq->auth, own, sizeof(own))) {
		if (!path_id(p, "/api/v0/instances/", id, sizeof(id)) || strcmp(id, own) != 0 ||
		    (strcmp(m, "GET") != 0 && strcmp(m, "PUT") != 0)) {
			char msg[96];

			snprintf(msg, sizeof(msg), "this key is scoped to instance %s alone", own);
			vast_fail(rp, 403, "forbidden", msg);
			return;
		}
	} else if (!rq->auth_ok && !(search_path && rq->auth[0] == '\0')) {
		/* Search works without a key, but a wrong key is refused (as "Invalid user key"). */
		vast_fail(rp, search_path ? 404 : 401, "auth_error", "Invalid user key");
		return;
	}
	if (search_path) {
		if (strcmp(m, "GET") == 0) {
			const char *q = serve_query(rq, "q");

			search(c, q != NULL ? q : "{}", rp);
		} else if (strcmp(m, "PUT") == 0) {
			cJSON *b = cJSON_ParseWithLength(rq->body, rq->len);
			cJSON *q = cJSON_GetObjectItemCaseSensitive(b, "q");
			char *s = q != NULL ? cJSON_PrintUnformatted(q) : NULL;

			search(c, s != NULL ? s : "{}", rp);
			free(s);
			cJSON_Delete(b);
		} else {
			char *s = xmalloc(rq->len + 1);

			memcpy(s, rq->body, rq->len);
			s[rq->len] = '\0';
			search(c, s, rp);
			free(s);
		}
		return;
	}
	if (strcmp(m, "PUT") == 0 && path_id(p, "/api/v0/asks/", id, sizeof(id))) {
		create(c, id, rq, rp);
		return;
	}
	if (strcmp(m, "GET") == 0 && (strcmp(p, "/api/v1/instances/") == 0 ||
	    strcmp(p, "/api/v1/instances") == 0)) {
		list(c, rq, false, rp);
		return;
	}
	if (strcmp(m, "GET") == 0 && strcmp(p, "/api/v0/instances/") == 0) {
		list(c, rq, true, rp);
		return;
	}
	if (strcmp(m, "PUT") == 0 && path_id(p, "/api/v0/instances/request_logs/", id,
	    sizeof(id))) {
		request_logs(c, id, rq, rp);
		return;
	}
	if (strcmp(m, "PUT") == 0 && path_id(p, "/api/v0/instances/prepay/", id, sizeof(id))) {
		prepay(c, id, rq, rp);
		return;
	}
	if (path_id(p, "/api/v0/instances/", id, sizeof(id))) {
		struct instance in;
		cJSON *res;

		if (strcmp(m, "GET") == 0) {
			res = cJSON_CreateObject();
			if (find_instance(c, id, &in))
				cJSON_AddItemToObject(res, "instances", instance_json(c, &in));
			else
				cJSON_AddNullToObject(res, "instances");
			serve_reply_json(rp, 200, res);
		} else if (strcmp(m, "PUT") == 0)
			action(c, id, rq, false, rp);
		else if (strcmp(m, "DELETE") == 0)
			action(c, id, rq, true, rp);
		else
			vast_fail(rp, 405, "method_not_allowed", "method not allowed");
		return;
	}
	if (strcmp(m, "GET") == 0 && (strcmp(p, "/api/v0/users/current/") == 0 ||
	    strcmp(p, "/api/v0/users/current") == 0)) {
		user(c, rp);
		return;
	}
	if (strcmp(m, "GET") == 0 && (strcmp(p, "/api/v0/charges/") == 0 ||
	    strcmp(p, "/api/v0/charges") == 0)) {
		charges(c, rq, rp);
		return;
	}
	vast_fail(rp, 404, "not_found", "no such endpoint");
}
