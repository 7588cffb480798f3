/*
 * columns.c - the columns of offers and instances as cells (the table model output.c
 * prints and the dashboard draws).
 */
#include <stdio.h>
#include <string.h>

#include "gpurent/catalogue.h"
#include "gpurent/columns.h"
#include "gpurent/i18n.h"
#include "gpurent/model.h"
#include "gpurent/money.h"

/* Priorities: identity, GPU and price first; long free text (location) last and cut. */
const struct column offer_columns[OCOL__COUNT] = {
	[OCOL_ID] = { "id", N_("ID"), false, false, 0, 0 },
	[OCOL_PROVIDER] = { "provider", N_("PROVIDER"), false, false, 6, 0 },	/* the id says it too */
	[OCOL_GPU] = { "gpu", N_("GPU"), false, false, 0, 9 },
	[OCOL_GPUS] = { "gpus", N_("N"), true, false, 0, 0 },
	[OCOL_VRAM] = { "vram_gb", N_("VRAM GB"), true, false, 1, 0 },
	[OCOL_PRICE] = { "price_hour", N_("PRICE/H"), true, false, 0, 0 },
	[OCOL_GPU_PRICE] = { "price_per_gpu_hour", N_("PER GPU-H"), true, false, 2, 0 },
	[OCOL_TFLOP_PRICE] = { "price_per_tflop_hour", N_("PER TFLOP-H"), true, false, 5, 0 },
	[OCOL_TYPE] = { "type", N_("TYPE"), false, false, 3, 0 },
	[OCOL_REGION] = { "region", N_("REGION"), false, false, 4, 0 },
	[OCOL_LOCATION] = { "location", N_("LOCATION"), false, false, 7, 8 },
	[OCOL_RELIABILITY] = { "reliability", N_("REL"), true, false, 3, 0 },
	[OCOL_INTERCONNECT] = { "interconnect", N_("LINK"), false, false, 5, 0 },
	[OCOL_CPU] = { "cpu_cores", N_("CPU"), true, true, 4, 0 },
	[OCOL_RAM] = { "ram_gb", N_("RAM GB"), true, true, 4, 0 },
	[OCOL_DISK] = { "disk_gb", N_("DISK GB"), true, true, 4, 0 },
	[OCOL_NET_DOWN] = { "net_down_mbps", N_("DOWN Mb/s"), true, true, 5, 0 },
	[OCOL_NET_UP] = { "net_up_mbps", N_("UP Mb/s"), true, true, 5, 0 },
	[OCOL_AVAILABLE] = { "available", N_("AVAIL"), true, true, 5, 0 },
	[OCOL_GPU_RAW] = { "gpu_name", N_("GPU NAME"), false, true, 7, 8 },
	[OCOL_TFLOPS] = { "tflops", N_("TFLOPS"), true, true, 5, 0 },
	[OCOL_STORAGE] = { "storage_gb_month", N_("PER GB-MO"), true, true, 5, 0 },
	[OCOL_GPU_KNOWN] = { "gpu_known", N_("KNOWN"), false, true, 7, 0 },
	[OCOL_VENDOR] = { "vendor", N_("VENDOR"), false, true, 6, 0 },
	[OCOL_FETCHED_AT] = { "fetched_at", N_("FETCHED"), false, true, 7, 0 },
	[OCOL_CURRENCY] = { "currency", N_("CURRENCY"), false, true, 6, 0 },	/* the sign says it */
	/* A cluster's offers (Slurm): its nodes, longest run and the jobs queued in front. */
	[OCOL_NODES] = { "nodes", N_("NODES"), true, true, 5, 0 },
	[OCOL_TIME_LIMIT] = { "time_limit_s", N_("LIMIT S"), true, true, 5, 0 },
	[OCOL_QUEUE] = { "queued", N_("QUEUED"), true, true, 5, 0 },
	/* A term's (type=reserved): shown in a table when the filter asks for terms. */
	[OCOL_TERM] = { "term_months", N_("TERM MO"), true, true, 0, 0 },
	[OCOL_TERM_PRICE] = { "term_price", N_("TERM PRICE"), true, true, 0, 0 },
	[OCOL_ONDEMAND] = { "ondemand_price_hour", N_("ON DEMAND/H"), true, true, 3, 0 },
	[OCOL_DISCOUNT] = { "discount_pct", N_("OFF %"), true, true, 1, 0 },
	[OCOL_TERM_END] = { "term_end", N_("AT END"), false, true, 2, 0 },
};


static void
set_int(struct cell *c, int64_t v, bool known)
{
	c->kind = known ? CELL_INT : CELL_NULL;
	c->i = v;
}

static void
set_money(struct cell *c, int64_t v, bool known, int decimals, const char *currency)
{
	c->kind = known ? CELL_MONEY : CELL_NULL;
	c->s = money_currency(currency);
	c->i = v;
	c->decimals = decimals;
}

/* A model the catalogue knows is its id; one it lacks is the provider's own name. */
static void
set_gpu(struct cell *c, const struct gpu_model *m, const char *raw)
{
	cell_str(c, m != NULL ? m->id : raw);
}

void
offer_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct offer *o = row;
	int64_t v;

	switch ((enum offer_col)col) {
	case OCOL_ID: cell_str(c, o->id); break;
	case OCOL_PROVIDER: cell_str(c, o->provider); break;
	case OCOL_GPU: set_gpu(c, o->gpu, o->gpu_raw); break;
	case OCOL_GPUS: set_int(c, o->gpu_count, o->gpu_count > 0); break;
	case OCOL_VRAM: set_int(c, o->vram_gb, o->valid & OV_VRAM); break;
	case OCOL_PRICE: set_money(c, o->price_hour, o->valid & OV_PRICE, 3, o->currency); break;
	case OCOL_GPU_PRICE:
		v = offer_price_per_gpu(o);
		set_money(c, v, v >= 0, 3, o->currency);
		break;
	case OCOL_TFLOP_PRICE:
		v = offer_price_per_tflop(o);
		set_money(c, v, v >= 0, 5, o->currency);
		break;
	case OCOL_TYPE:
		cell_str(c, offer_type_name(o->type));
		if (o->type == OFFER_INTERRUPTIBLE)
			c->color = OC_WARN;
		break;
	case OCOL_REGION: cell_str(c, o->region); break;
	case OCOL_LOCATION: cell_str(c, o->location); break;
	case OCOL_RELIABILITY:
		c->kind = o->valid & OV_RELIABILITY ? CELL_FIXED : CELL_NULL;
		c->i = o->reliability_bp;	/* the 4 decimals that filters and sorts use */
		c->decimals = 4;
		if (o->reliability_bp < 9500)
			c->color = OC_WARN;
		break;
	case OCOL_INTERCONNECT:
		if (o->interconnect == IC_UNKNOWN)
			c->kind = CELL_NULL;
		else
			cell_str(c, interconnect_name(o->interconnect));
		break;
	case OCOL_CPU: set_int(c, o->cpu_cores, o->valid & OV_CPU); break;
	case OCOL_RAM: set_int(c, o->ram_gb, o->valid & OV_RAM); break;
	case OCOL_DISK: set_int(c, o->disk_gb, o->valid & OV_DISK); break;
	case OCOL_NET_DOWN: set_int(c, o->net_down_mbps, o->valid & OV_NET); break;
	case OCOL_NET_UP: set_int(c, o->net_up_mbps, o->valid & OV_NET); break;
	case OCOL_AVAILABLE: set_int(c, o->available, o->valid & OV_AVAILABLE); break;
	case OCOL_GPU_RAW: cell_str(c, o->gpu_raw); break;
	case OCOL_TFLOPS:
		c->kind = catalogue_tensor_tflops_x10(o->gpu) > 0 ? CELL_FIXED : CELL_NULL;
		c->i = (int64_t)catalogue_tensor_tflops_x10(o->gpu) * o->gpu_count;
		c->decimals = 1;
		break;
	case OCOL_STORAGE:
		set_money(c, o->storage_gb_month, o->valid & OV_STORAGE, 3, o->currency);
		break;
	case OCOL_GPU_KNOWN: c->kind = CELL_BOOL; c->i = o->gpu != NULL; break;
	case OCOL_VENDOR: cell_str(c, o->gpu ? o->gpu->vendor : NULL); break;
	case OCOL_FETCHED_AT:
		c->kind = o->fetched_at > 0 ? CELL_TIME : CELL_NULL;
		c->i = o->fetched_at;
		break;
	case OCOL_CURRENCY: cell_str(c, money_currency(o->currency)); break;
	case OCOL_NODES: set_int(c, o->nodes, o->valid & OV_NODES); break;
	case OCOL_TIME_LIMIT: set_int(c, o->time_limit_s, o->valid & OV_TIME_LIMIT); break;
	case OCOL_QUEUE: set_int(c, o->queued, o->valid & OV_QUEUE); break;
	case OCOL_TERM: set_int(c, o->term_months, o->term_months > 0); break;
	case OCOL_TERM_PRICE:
		set_money(c, o->term_price, o->term_months > 0, 2, o->currency);
		break;
	case OCOL_ONDEMAND:
		set_money(c, o->ondemand_hour, o->valid & OV_ONDEMAND, 3, o->currency);
		break;
	case OCOL_DISCOUNT:
		v = offer_term_discount_bp(o);
		c->kind = v >= 0 ? CELL_FIXED : CELL_NULL;
		c->i = v;	/* basis points: 2000 -> 20.00 */
		c->decimals = 2;
		break;
	case OCOL_TERM_END:
		if (o->term_months > 0 && o->term_end != TERM_END_UNKNOWN)
			cell_str(c, term_end_name(o->term_end));
		else
			c->kind = CELL_NULL;
		break;
	default: c->kind = CELL_NULL; break;
	}
}

/* Priorities: identity, state, GPU and money first; a label is free text, cut before GPU. */
const struct column instance_columns[ICOL__COUNT] = {
	[ICOL_ID] = { "id", N_("ID"), false, false, 0, 0 },
	[ICOL_PROVIDER] = { "provider", N_("PROVIDER"), false, true, 6, 0 },	/* the id says it too */
	[ICOL_LABEL] = { "label", N_("LABEL"), false, false, 2, 10 },
	[ICOL_STATE] = { "state", N_("STATE"), false, false, 0, 0 },
	[ICOL_GPU] = { "gpu", N_("GPU"), false, false, 0, 9 },
	[ICOL_GPUS] = { "gpus", N_("N"), true, false, 1, 0 },
	[ICOL_PRICE] = { "price_hour", N_("PRICE/H"), true, false, 1, 0 },
	[ICOL_COST] = { "cost", N_("COST"), true, false, 1, 0 },
	[ICOL_UTIL] = { "util_pct", N_("UTIL %"), true, false, 3, 0 },
	[ICOL_UPTIME] = { "uptime_s", N_("UPTIME"), true, false, 3, 0 },
	[ICOL_TYPE] = { "type", N_("TYPE"), false, true, 4, 0 },
	[ICOL_REGION] = { "region", N_("REGION"), false, false, 4, 0 },
	[ICOL_IMAGE] = { "image", N_("IMAGE"), false, true, 5, 10 },
	[ICOL_CREATED] = { "created_at", N_("CREATED"), false, true, 5, 0 },
	[ICOL_SINCE] = { "state_since", N_("SINCE"), false, true, 5, 0 },
	[ICOL_OFFER] = { "offer_id", N_("OFFER"), false, true, 5, 0 },
	[ICOL_BID] = { "bid_hour", N_("BID/H"), true, true, 5, 0 },
	[ICOL_STORAGE] = { "storage_hour", N_("STORAGE/H"), true, true, 5, 0 },
	[ICOL_DISK] = { "disk_gb", N_("DISK GB"), true, true, 5, 0 },
	[ICOL_SSH_HOST] = { "ssh_host", N_("SSH HOST"), false, true, 5, 10 },
	[ICOL_SSH_PORT] = { "ssh_port", N_("SSH PORT"), true, true, 5, 0 },
	[ICOL_SSH_USER] = { "ssh_user", N_("SSH USER"), false, true, 5, 8 },
	[ICOL_STATUS] = { "status", N_("STATUS"), false, true, 7, 10 },
	[ICOL_GPU_RAW] = { "gpu_name", N_("GPU NAME"), false, true, 7, 8 },
	[ICOL_GPU_KNOWN] = { "gpu_known", N_("KNOWN"), false, true, 7, 0 },
	[ICOL_VENDOR] = { "vendor", N_("VENDOR"), false, true, 6, 0 },
	[ICOL_CURRENCY] = { "currency", N_("CURRENCY"), false, true, 6, 0 },	/* the sign says it */
	[ICOL_INTENDED] = { "intended_state", N_("INTENT"), false, true, 7, 0 },
};

void
format_uptime(char *buf, size_t n, long long s)
{
	if (s >= 86400)
		snprintf(buf, n, "%lldd %lldh", s / 86400, s % 86400 / 3600);
	else if (s >= 3600)
		snprintf(buf, n, "%lldh %02lldm", s / 3600, s % 3600 / 60);
	else if (s >= 60)
		snprintf(buf, n, "%lldm", s / 60);
	else
		snprintf(buf, n, "%llds", s < 0 ? 0 : s);
}

static enum out_color
state_color(enum inst_state s)
{
	switch (s) {
	case ST_RUNNING: return OC_GOOD;
	case ST_FAILED: return OC_BAD;
	case ST_STOPPED: case ST_DESTROYED: return OC_DIM;
	default: return OC_WARN;
	}
}

void
instance_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	const struct instance *in = row;
	int64_t now = ctx ? *(const int64_t *)ctx : 0;

	switch ((enum instance_col)col) {
	case ICOL_ID: cell_str(c, in->id); break;
	case ICOL_PROVIDER: cell_str(c, in->provider); break;
	case ICOL_LABEL: cell_str(c, in->label); break;
	case ICOL_STATE:
		cell_str(c, inst_state_name(in->state));
		c->color = state_color(in->state);
		break;
	case ICOL_GPU: set_gpu(c, in->gpu, in->gpu_raw); break;
	case ICOL_GPUS: set_int(c, in->gpu_count, in->gpu_count > 0); break;
	case ICOL_PRICE: set_money(c, in->price_hour, in->valid & IV_PRICE, 3, in->currency); break;
	case ICOL_COST: set_money(c, in->cost_so_far, in->valid & IV_COST, 2, in->currency); break;
	case ICOL_UTIL:
		set_int(c, in->util_pct, in->valid & IV_UTIL);
		if ((in->valid & IV_UTIL) && in->util_pct < 5)
			c->color = OC_WARN;
		break;
	case ICOL_UPTIME:
		/* Seconds in the current running stretch; null when not running. */
		set_int(c, now - in->state_since, in->state == ST_RUNNING && in->state_since > 0 &&
		    now > 0);
		if (c->kind == CELL_INT)
			c->kind = CELL_DURATION;
		break;
	case ICOL_TYPE: cell_str(c, offer_type_name(in->type)); break;
	case ICOL_REGION: cell_str(c, in->region); break;
	case ICOL_IMAGE: cell_str(c, in->image); break;
	case ICOL_CREATED:
		c->kind = in->valid & IV_CREATED ? CELL_TIME : CELL_NULL;
		c->i = in->created_at;
		break;
	case ICOL_SINCE:
		c->kind = in->state_since > 0 ? CELL_TIME : CELL_NULL;
		c->i = in->state_since;
		break;
	case ICOL_OFFER: cell_str(c, in->offer_id); break;
	case ICOL_BID:
		set_money(c, in->bid_hour, in->type == OFFER_INTERRUPTIBLE && in->bid_hour > 0, 3,
		    in->currency);
		break;
	case ICOL_STORAGE: set_money(c, in->storage_hour, in->valid & IV_STORAGE, 4, in->currency); break;
	case ICOL_DISK: set_int(c, in->disk_gb, in->disk_gb > 0); break;
	case ICOL_SSH_HOST: cell_str(c, in->valid & IV_SSH ? in->ssh_host : NULL); break;
	case ICOL_SSH_PORT: set_int(c, in->ssh_port, in->valid & IV_SSH); break;
	case ICOL_SSH_USER: cell_str(c, in->valid & IV_SSH ? in->ssh_user : NULL); break;
	case ICOL_STATUS: cell_str(c, in->status_msg); break;
	case ICOL_GPU_RAW: cell_str(c, in->gpu_raw); break;
	case ICOL_GPU_KNOWN: c->kind = CELL_BOOL; c->i = in->gpu != NULL; break;
	case ICOL_VENDOR: cell_str(c, in->gpu ? in->gpu->vendor : NULL); break;
	case ICOL_CURRENCY: cell_str(c, money_currency(in->currency)); break;
	case ICOL_INTENDED:
		cell_str(c, in->intended != ST_UNKNOWN ? inst_state_name(in->intended) : NULL);
		break;
	default: c->kind = CELL_NULL; break;
	}
}

/* Numeric headers and JSON keys carry their unit. */
const struct column sample_columns[SCOL__COUNT] = {
	[SCOL_INSTANCE] = { "instance_id", N_("INSTANCE"), false, false, 0, 12 },
	[SCOL_GPU] = { "gpu", N_("GPU"), true, false, 0, 0 },
	[SCOL_TIME] = { "time", N_("TIME"), false, true, 3, 0 },
	[SCOL_UTIL] = { "util_pct", N_("UTIL %"), true, false, 0, 0 },
	[SCOL_MEM_USED] = { "memory_used_mib", N_("MEM MiB"), true, false, 1, 0 },
	[SCOL_MEM_TOTAL] = { "memory_total_mib", N_("TOTAL MiB"), true, false, 2, 0 },
	[SCOL_MEM_PCT] = { "memory_pct", N_("MEM %"), true, false, 2, 0 },
	[SCOL_TEMP] = { "temp_c", "TEMP \xc2\xb0" "C", true, false, 1, 0 },
	[SCOL_POWER] = { "power_w", N_("POWER W"), true, false, 1, 0 },
	[SCOL_POWER_LIMIT] = { "power_limit_w", N_("LIMIT W"), true, false, 3, 0 },
	[SCOL_SOURCE] = { "source", N_("SOURCE"), false, true, 4, 0 },
	/* Which machine of a multi-node job; tables show it when some sample has one
	   (metrics.c). */
	[SCOL_NODE] = { "node", N_("NODE"), false, true, 0, 12 },
	[SCOL_VENDOR] = { "vendor", N_("VENDOR"), false, true, 4, 0 },
	[SCOL_NAME] = { "name", N_("NAME"), false, true, 2, 12 },
	[SCOL_UUID] = { "uuid", N_("UUID"), false, true, 2, 12 },
	[SCOL_DRIVER] = { "driver", N_("DRIVER"), false, true, 5, 0 },
	[SCOL_CUDA] = { "cuda", N_("CUDA"), false, true, 5, 0 },
	[SCOL_MEM_UTIL] = { "memory_util_pct", N_("MEMBW %"), true, true, 4, 0 },
	[SCOL_MEM_FREE] = { "memory_free_mib", N_("FREE MiB"), true, true, 4, 0 },
	[SCOL_TEMP_MEM] = { "memory_temp_c", "MTEMP \xc2\xb0" "C", true, true, 4, 0 },
	[SCOL_POWER_ENFORCED] = { "power_enforced_w", N_("ENF W"), true, true, 5, 0 },
	[SCOL_CLK_SM] = { "clock_sm_mhz", N_("SM MHz"), true, true, 4, 0 },
	[SCOL_CLK_MEM] = { "clock_mem_mhz", N_("MEM MHz"), true, true, 4, 0 },
	[SCOL_CLK_SM_MAX] = { "clock_sm_max_mhz", N_("MAX MHz"), true, true, 5, 0 },
	[SCOL_FAN] = { "fan_pct", N_("FAN %"), true, true, 5, 0 },
	[SCOL_PSTATE] = { "pstate", N_("PST"), false, true, 5, 0 },
	[SCOL_PCIE_GEN] = { "pcie_gen", N_("PCIE GEN"), true, true, 5, 0 },
	[SCOL_PCIE_WIDTH] = { "pcie_width", N_("PCIE x"), true, true, 5, 0 },
	[SCOL_ENC] = { "encoder_pct", N_("ENC %"), true, true, 5, 0 },
	[SCOL_DEC] = { "decoder_pct", N_("DEC %"), true, true, 5, 0 },
	[SCOL_ECC] = { "ecc_uncorrected", N_("ECC"), true, true, 4, 0 },
	[SCOL_THROTTLE] = { "clock_event_reasons", N_("REASONS"), false, true, 4, 0 },
	[SCOL_COMPUTE_MODE] = { "compute_mode", N_("MODE"), false, true, 6, 0 },
	[SCOL_MIG] = { "mig", N_("MIG"), false, true, 6, 0 },
	[SCOL_PCI_BUS] = { "pci_bus_id", N_("PCI BUS"), false, true, 7, 0 },
	[SCOL_XID] = { "xid", N_("XID"), true, true, 4, 0 },
	[SCOL_XID_COUNT] = { "xid_count", N_("XIDS"), true, true, 4, 0 },
};

static const char *const source_names[] = { [SAMPLE_API] = "api", [SAMPLE_SSH] = "ssh" };
static const char *const compute_modes[] = { "default", "exclusive_thread", "prohibited",
	"exclusive_process" };

void
sample_cell(const void *row, size_t col, struct cell *c, void *ctx)
{
	/* A cell is turned into text before the next is asked for (output.h). */
	static _Thread_local char pstate[8], reasons[24];
	const struct gpu_sample *g = row;

	switch ((enum sample_col)col) {
	case SCOL_INSTANCE: cell_str(c, g->instance_id); break;
	case SCOL_GPU: set_int(c, g->index, g->index >= 0); break;
	case SCOL_TIME: c->kind = CELL_TIME; c->i = g->at; break;
	case SCOL_UTIL: set_int(c, g->util_pct, g->valid & MV_UTIL); break;
	case SCOL_MEM_USED: set_int(c, g->mem_used_mib, g->valid & MV_MEM); break;
	case SCOL_MEM_TOTAL: set_int(c, g->mem_total_mib, g->valid & MV_MEM); break;
	case SCOL_MEM_PCT:
		set_int(c, g->mem_total_mib > 0 ? (int64_t)g->mem_used_mib * 100 / g->mem_total_mib :
		    0, (g->valid & MV_MEM) && g->mem_total_mib > 0);
		break;
	case SCOL_TEMP:
		set_int(c, g->temp_c, g->valid & MV_TEMP);
		if ((g->valid & MV_TEMP) && g->temp_c >= 85)
			c->color = OC_BAD;
		break;
	case SCOL_POWER: set_int(c, g->power_w, g->valid & MV_POWER); break;
	case SCOL_POWER_LIMIT: set_int(c, g->power_limit_w, g->valid & MV_POWER_LIMIT); break;
	case SCOL_SOURCE:
		cell_str(c, (unsigned)g->source < 2 ? source_names[g->source] : NULL);
		break;
	case SCOL_VENDOR: cell_str(c, g->vendor); break;
	case SCOL_NAME: cell_str(c, g->name); break;
	case SCOL_UUID: cell_str(c, g->uuid); break;
	case SCOL_DRIVER: cell_str(c, g->driver); break;
	case SCOL_CUDA: cell_str(c, g->cuda); break;
	case SCOL_MEM_UTIL: set_int(c, g->mem_util_pct, g->valid & MV_MEM_UTIL); break;
	case SCOL_MEM_FREE: set_int(c, g->mem_free_mib, g->valid & MV_MEM_FREE); break;
	case SCOL_TEMP_MEM: set_int(c, g->temp_mem_c, g->valid & MV_TEMP_MEM); break;
	case SCOL_POWER_ENFORCED:
		set_int(c, g->power_enforced_w, g->valid & MV_POWER_ENFORCED);
		break;
	case SCOL_CLK_SM: set_int(c, g->clk_sm_mhz, g->valid & MV_CLK_SM); break;
	case SCOL_CLK_MEM: set_int(c, g->clk_mem_mhz, g->valid & MV_CLK_MEM); break;
	case SCOL_CLK_SM_MAX: set_int(c, g->clk_sm_max_mhz, g->valid & MV_CLK_SM_MAX); break;
	case SCOL_FAN: set_int(c, g->fan_pct, g->valid & MV_FAN); break;
	case SCOL_PSTATE:
		if (g->valid & MV_PSTATE) {
			snprintf(pstate, sizeof(pstate), "P%d", g->pstate);
			cell_str(c, pstate);
		} else
			c->kind = CELL_NULL;
		break;
	case SCOL_PCIE_GEN: set_int(c, g->pcie_gen, g->valid & MV_PCIE_GEN); break;
	case SCOL_PCIE_WIDTH: set_int(c, g->pcie_width, g->valid & MV_PCIE_WIDTH); break;
	case SCOL_ENC: set_int(c, g->enc_pct, g->valid & MV_ENC); break;
	case SCOL_DEC: set_int(c, g->dec_pct, g->valid & MV_DEC); break;
	case SCOL_ECC: set_int(c, g->ecc_uncorrected, g->valid & MV_ECC_UNCORR); break;
	case SCOL_THROTTLE:
		if (g->valid & MV_THROTTLE) {
			snprintf(reasons, sizeof(reasons), "0x%016llx",
			    (unsigned long long)g->throttle);
			cell_str(c, reasons);
		} else
			c->kind = CELL_NULL;
		break;
	case SCOL_COMPUTE_MODE:
		cell_str(c, (g->valid & MV_COMPUTE_MODE) && g->compute_mode >= 0 &&
		    g->compute_mode < 4 ? compute_modes[g->compute_mode] : NULL);
		break;
	case SCOL_MIG:
		if (g->valid & MV_MIG) {
			c->kind = CELL_BOOL;
			c->i = g->mig != 0;
		} else
			c->kind = CELL_NULL;
		break;
	case SCOL_PCI_BUS: cell_str(c, g->pci_bus_id); break;
	case SCOL_XID: set_int(c, g->xid, g->valid & MV_XID); break;
	case SCOL_XID_COUNT: set_int(c, g->xid_count, g->valid & MV_XID_COUNT); break;
	case SCOL_NODE: cell_str(c, g->node); break;
	default: c->kind = CELL_NULL; break;
	}
}
