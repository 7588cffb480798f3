/*
 * model.h - the common shapes every backend maps its provider's data onto.
 *
 * Records are flat structs with inline strings so that a list of 10,000 offers is one
 * allocation. Strings are copied in (truncated to fit) and sanitized by the backend that
 * fills them. A field a provider does not report has its bit clear in `valid`, and is
 * shown as N/A or JSON null, never as a made-up zero.
 */
#ifndef GPURENT_MODEL_H
#define GPURENT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalogue.h"
#include "money.h"
#include "team.h"

/*
 * A label is at most LABEL_MAX_CHARS characters (not bytes) of printable UTF-8: no control
 * characters, so what a user typed is what every output shows. LABEL_MAX holds the longest
 * (four bytes a character) with its NUL.
 */
#define LABEL_MAX_CHARS 63
#define LABEL_MAX (LABEL_MAX_CHARS * 4 + 1)

#define ID_MAX 64
#define PROVIDER_MAX 16

enum offer_type {
	OFFER_ON_DEMAND,
	OFFER_INTERRUPTIBLE,
	OFFER_RESERVED,		/* a term: months paid ahead at a discount (struct offer) */
};

/* What a term does when its months are over. */
enum term_end {
	TERM_END_UNKNOWN,
	TERM_END_RENEWS,	/* paid again for another term */
	TERM_END_ON_DEMAND,	/* the machine stays, billed by the hour again */
};

/* The terms a prepayment of a running instance is priced for (vast: discount_rate for a
   month, credit_discount_max, the largest, taken as three months'). */
#define PREPAY_MONTHS { 1, 3 }

/* A term's month is 30 days: PPIO prices one at 720 times the hourly (providers/ppio.md). */
#define TERM_MONTH_HOURS 720

enum interconnect {
	IC_UNKNOWN,
	IC_PCIE,
	IC_NVLINK,
	IC_INFINIBAND,	/* NVLink inside the machine and InfiniBand between machines */
};

enum inst_state {
	ST_UNKNOWN,
	ST_PROVISIONING,
	ST_RUNNING,
	ST_STOPPING,
	ST_STOPPED,
	ST_STARTING,
	ST_DESTROYING,
	ST_DESTROYED,
	ST_FAILED,
	ST__COUNT,
};

const char *offer_type_name(enum offer_type t);
const char *term_end_name(enum term_end e);
/* A term's length: "3mo", "3" (months) or "1y" (twelve months), 1 to 120 months. */
bool term_parse(const char *s, int *months);
bool offer_type_parse(const char *s, enum offer_type *out);
const char *interconnect_name(enum interconnect ic);
bool interconnect_parse(const char *s, enum interconnect *out);
const char *inst_state_name(enum inst_state s);
bool inst_state_parse(const char *s, enum inst_state *out);
/* Whether an instance in this state is billed for compute: only while it runs. */
bool inst_state_billed(enum inst_state s);

/* Validity bits of struct offer. */
enum {
	OV_PRICE = 1u << 0,
	OV_RELIABILITY = 1u << 1,
	OV_CPU = 1u << 2,
	OV_RAM = 1u << 3,
	OV_DISK = 1u << 4,
	OV_NET = 1u << 5,
	OV_AVAILABLE = 1u << 6,
	OV_STORAGE = 1u << 7,
	OV_VRAM = 1u << 8,
	OV_NODES = 1u << 9,
	OV_TIME_LIMIT = 1u << 10,
	OV_QUEUE = 1u << 11,
	OV_ONDEMAND = 1u << 12,
};

struct offer {
	char id[ID_MAX];		/* "sim:o-000123", "vast:4242" */
	char provider[PROVIDER_MAX];
	const struct gpu_model *gpu;	/* NULL: unknown model */
	char gpu_raw[64];		/* the provider's own name for the GPU */
	int gpu_count;
	int vram_gb;			/* per GPU (OV_VRAM) */
	enum offer_type type;
	int64_t price_hour;		/* micro-units of currency per hour for the whole offer; for an
					   interruptible offer, the lowest accepted bid (OV_PRICE) */
	int64_t storage_gb_month;	/* micro-dollars per GB-month of disk (OV_STORAGE) */
	char region[32];		/* "eu-west", "na-east", ... */
	char location[48];		/* "Frankfurt, DE" */
	int reliability_bp;		/* basis points: 9850 = 0.985 (OV_RELIABILITY) */
	int cpu_cores;			/* OV_CPU */
	int ram_gb;			/* OV_RAM */
	int disk_gb;			/* OV_DISK */
	int disk_default_gb;		/* the disk a launch that names none gets, when its
					   storage (OV_STORAGE) bills on top of price_hour;
					   0: none, or already in price_hour */
	int net_down_mbps;		/* OV_NET */
	int net_up_mbps;
	enum interconnect interconnect;
	int available;			/* machines of this kind free now (OV_AVAILABLE); for a
					   cluster partition (Slurm), GPUs free now */
	int nodes;			/* machines behind a cluster offer (OV_NODES) */
	int64_t time_limit_s;		/* longest run a cluster allows (OV_TIME_LIMIT) */
	int queued;			/* jobs waiting in front for this offer (OV_QUEUE) */
	char currency[CURRENCY_MAX];	/* of price_hour and storage_gb_month; "": USD */
	/*
	 * A term offer (OFFER_RESERVED): the machine for term_months months (of
	 * TERM_MONTH_HOURS), term_price paid for the whole term; price_hour is its hourly
	 * equivalent. ondemand_hour: the same machine on demand (OV_ONDEMAND), against which
	 * the discount is told.
	 */
	int term_months;
	int64_t term_price;
	int64_t ondemand_hour;
	enum term_end term_end;
	unsigned valid;
	int64_t fetched_at;		/* UTC seconds when the provider answered with it; 0:
					   unknown (set by the session, kept by the offer cache) */
};

/* Derived figures: price per GPU-hour and per dense BF16 TFLOP-hour; -1 when unknown. */
int64_t offer_price_per_gpu(const struct offer *o);
int64_t offer_price_per_tflop(const struct offer *o);
/* A term offer's discount against the same machine on demand, in basis points; -1 unknown. */
int offer_term_discount_bp(const struct offer *o);
/* The hourly equivalent of a whole term's price: price / (months × TERM_MONTH_HOURS). */
int64_t term_hourly(int64_t term_price, int months);
/* Total VRAM of the offer in GB, or -1. */
int offer_vram_total(const struct offer *o);

struct offer_list {
	struct offer *v;
	size_t n, cap;
};
void offer_list_init(struct offer_list *l);
void offer_list_release(struct offer_list *l);
/* Append a zeroed record and return it (the list may move). */
struct offer *offer_list_add(struct offer_list *l);
void offer_list_append(struct offer_list *dst, const struct offer_list *src);

/* Validity bits of struct instance. */
enum {
	IV_PRICE = 1u << 0,
	IV_COST = 1u << 1,
	IV_SSH = 1u << 2,
	IV_CREATED = 1u << 3,
	IV_STORAGE = 1u << 4,
	IV_UTIL = 1u << 5,
	IV_EXIT = 1u << 6,
	IV_BILLED = 1u << 7,
	IV_PREPAY = 1u << 8,
};

struct instance {
	char id[ID_MAX];		/* "sim:i-000042" */
	char provider[PROVIDER_MAX];
	char offer_id[ID_MAX];
	const struct gpu_model *gpu;
	char gpu_raw[64];
	int gpu_count;
	enum inst_state state;
	enum offer_type type;
	int64_t price_hour;		/* what it costs per hour while running (IV_PRICE) */
	int64_t bid_hour;		/* interruptible: the bid */
	int64_t storage_hour;		/* what it costs per hour while stopped (IV_STORAGE) */
	int64_t disk_running_hour;	/* what its disks cost per hour while it runs, beside
					   price_hour (RunPod's, whose price leaves them out);
					   0: nothing, or in price_hour */
	int64_t cost_so_far;		/* micro-dollars billed since launch (IV_COST) */
	char label[LABEL_MAX];
	char image[128];
	char region[32];
	int disk_gb;
	int64_t created_at;		/* UTC seconds (IV_CREATED) */
	int64_t state_since;		/* when it entered its current state, 0 unknown */
	char ssh_host[64];		/* IV_SSH */
	int ssh_port;
	char ssh_user[32];
	int util_pct;			/* mean GPU utilisation now (IV_UTIL) */
	char status_msg[128];		/* provider's own words on the state, e.g. "outbid" */
	enum inst_state intended;	/* what the user last asked it to be, where the provider
					   keeps that apart from the state and the machine follows
					   when it can (vast's intended_status, the simulator):
					   ST_RUNNING or ST_STOPPED; ST_UNKNOWN where it keeps none */
	int exit_code;			/* a batch job's exit status once it ended (IV_EXIT);
					   128 + N when signal N ended it */
	char currency[CURRENCY_MAX];	/* of every amount above; "": USD */
	int64_t billed_from;		/* the provider dates its own billing (a Slurm job gpurent
					   submitted): from here (IV_BILLED) ... */
	int64_t billed_until;		/* ... to here, 0 while it runs */
	int64_t term_until;		/* paid ahead (a term, a prepayment) up to here: no
					   hourly price is billed before it; 0: nothing paid ahead */
	int term_months;		/* the months of the term it was rented on, 0: none */
	int prepay_bp[2];		/* IV_PREPAY: what a prepayment of PREPAY_MONTHS[i] months
					   takes off its price, in basis points (vast) */
	char user[TEAM_NAME_MAX + 1];	/* who launched or last started it through gpurent
					   (state_journal_users); "": unknown */
	unsigned valid;
};

/*
 * What destroying the instance saves per hour, in its currency: what it bills in its state
 * or the one it is heading for: its price while running, provisioning or starting, its
 * disk's storage while stopped or stopping (0 where the provider gives none), else 0.
 * The CLI's destroy and the dashboard's say this one figure.
 */
int64_t instance_saving_hour(const struct instance *in);
/*
 * The state an instance bills as: its own, except that one still provisioning or starting
 * that was told to stop bills as one stopping (it ends stopped without running), and one
 * stopping that was told to start as one starting.
 */
enum inst_state instance_billing_state(const struct instance *in);

struct instance_list {
	struct instance *v;
	size_t n, cap;
};
void instance_list_init(struct instance_list *l);
void instance_list_release(struct instance_list *l);
struct instance *instance_list_add(struct instance_list *l);

/*
 * A scheduled cluster as its users see it (backend op cluster, CAP_CLUSTER; the dashboard's
 * cluster view): GPUs per partition and type, and the user's own jobs with the scheduler's
 * words for their state. Strings are stripped of control characters by the backend.
 */
struct cluster_pool {
	char partition[64];
	char gpu_raw[32];		/* the scheduler's GPU type; "gpu" when untyped */
	int total;			/* GPUs of the type on the partition's nodes */
	int used;			/* allocated to jobs now */
	int free;			/* not allocated, on nodes that can take jobs (what a
					   job can get now; total - used - free are on nodes
					   down or drained) */
	int nodes;			/* nodes with the type */
	int pending;			/* pending jobs of the partition asking for the type */
};

struct cluster_job {
	char id[ID_MAX];		/* as the provider's instances: "slurm:123" */
	char name[LABEL_MAX];
	char state[32];			/* the scheduler's word: PENDING, RUNNING ... */
	char reason[64];		/* why it is in that state (Resources, Priority ...);
					   "" when none */
	char partition[64];
	char gpu_raw[32];		/* "" when the job asks for no GPU */
	int gpus;			/* in total, over its nodes */
	int nodes;
	char node_list[128];		/* where it runs; "" while pending */
	int64_t since;			/* UTC seconds: submitted while pending, else started */
};

struct cluster_state {
	struct cluster_pool *pools;
	size_t n_pools, cap_pools;
	struct cluster_job *jobs;
	size_t n_jobs, cap_jobs;
};
void cluster_state_init(struct cluster_state *c);
void cluster_state_release(struct cluster_state *c);
struct cluster_pool *cluster_pool_add(struct cluster_state *c);
struct cluster_job *cluster_job_add(struct cluster_state *c);

/*
 * Validity bits of struct gpu_sample: a field whose bit is clear is unknown (N/A, JSON null),
 * never zero. The probes of src/remote/probes/ fill as many as their tool reports; a
 * provider's API usually only the first five.
 */
enum {
	MV_UTIL = 1u << 0,
	MV_MEM = 1u << 1,		/* mem_used_mib and mem_total_mib */
	MV_TEMP = 1u << 2,
	MV_POWER = 1u << 3,
	MV_POWER_LIMIT = 1u << 4,
	MV_MEM_UTIL = 1u << 5,		/* memory-controller (bandwidth) utilisation */
	MV_MEM_FREE = 1u << 6,
	MV_TEMP_MEM = 1u << 7,
	MV_POWER_ENFORCED = 1u << 8,
	MV_CLK_SM = 1u << 9,
	MV_CLK_MEM = 1u << 10,
	MV_CLK_SM_MAX = 1u << 11,
	MV_FAN = 1u << 12,
	MV_PSTATE = 1u << 13,
	MV_PCIE_GEN = 1u << 14,
	MV_PCIE_WIDTH = 1u << 15,
	MV_ENC = 1u << 16,
	MV_DEC = 1u << 17,
	MV_ECC_UNCORR = 1u << 18,
	MV_THROTTLE = 1u << 19,		/* clocks_event_reasons bitmask */
	MV_COMPUTE_MODE = 1u << 20,
	MV_MIG = 1u << 21,
	MV_XID = 1u << 22,		/* last Xid error in the kernel log (0: none there) */
	MV_XID_COUNT = 1u << 23,	/* Xid errors logged since the sampler began (nvidia.c) */
};

/* Where a sample's figures came from (JSON "source"). */
enum sample_source {
	SAMPLE_API,	/* the provider's API */
	SAMPLE_SSH,	/* a probe run on the instance over the ssh transport */
};

struct gpu_sample {
	char instance_id[ID_MAX];
	int index;
	int64_t at;		/* UTC seconds */
	enum sample_source source;
	int util_pct;
	int mem_used_mib;
	int mem_total_mib;
	int temp_c;
	int power_w;
	int power_limit_w;
	/* What a probe adds; strings are "" when unknown. */
	char uuid[64];
	char name[64];		/* the tool's own name for the device, sanitized */
	char driver[32];
	char cuda[16];		/* the CUDA version the driver supports ("12.4"), "" unknown */
	char vendor[16];	/* the probe vendor whose tool reported it (probe.h), "" from an API */
	int mem_util_pct;
	int mem_free_mib;
	int temp_mem_c;
	int power_enforced_w;
	int clk_sm_mhz, clk_mem_mhz, clk_sm_max_mhz;
	int fan_pct;
	int pstate;		/* P0..P15 as 0..15 */
	int pcie_gen, pcie_width;
	int enc_pct, dec_pct;
	int64_t ecc_uncorrected;
	uint64_t throttle;	/* NVIDIA clocks_event_reasons.active bits */
	int compute_mode;	/* 0 default, 1 exclusive thread, 2 prohibited, 3 exclusive process */
	int mig;		/* 1 MIG enabled, 0 disabled */
	int xid;
	int xid_count;
	char pci_bus_id[20];	/* nvidia-smi's pci.bus_id ("00000000:3B:00.0"), "" unknown */
	char node[64];		/* the machine of an instance that spans several (a Slurm
				   job's node), sanitized; "" for a one-machine instance */
	uint32_t valid;		/* 0 with index -1: the node did not answer (all unknown) */
};

struct sample_list {
	struct gpu_sample *v;
	size_t n, cap;
};
void sample_list_init(struct sample_list *l);
void sample_list_release(struct sample_list *l);
struct gpu_sample *sample_list_add(struct sample_list *l);
/*
 * Whether Xid code leaves its GPU unfit to run on, by NVIDIA's Xid catalogue (reset the GPU
 * or drain the node): 48 double-bit ECC, 62 internal micro-controller halt, 64 ECC page
 * retirement or row remapping failure, 74 NVLink, 79 fallen off the bus, 95 uncontained
 * ECC, 119 and 120 GSP, 140 unrecovered ECC. An application's fault (13, 31, 43, 45, ...)
 * is not.
 */
bool xid_fatal(int code);

/* What to rent and how. Strings are borrowed from the caller for the duration of the call. */
struct launch_req {
	const char *offer_id;
	const char *image;		/* NULL: the provider's default */
	int disk_gb;			/* 0: the offer's default */
	const char *label;
	const char *const *env;		/* "K=V" strings, NULL-terminated, or NULL */
	const int *ports;		/* n_ports entries */
	size_t n_ports;
	const char *onstart;
	bool interruptible;		/* bid below on demand */
	int64_t bid_hour;		/* micro-dollars for the whole instance, with interruptible */
	const char *client_token;	/* unique per launch, to find it after an unclear failure */
	int term_months;		/* rent on a term paid at creation (an OFFER_RESERVED
					   offer's); 0: none */
	int64_t term_price;		/* with term_months: the whole term's price, as offered */
	/* A cluster allocation (backends with CAP_ALLOC); 0: the default. */
	int gpus_per_node;		/* default 1 */
	int nodes;			/* default 1 */
	int64_t max_runtime_s;		/* default: the partition's limit */
	/*
	 * A batch job (backends with CAP_BATCH): run this complete sh script as the job instead
	 * of holding the allocation, its stdout and stderr to `output` ("%j": the job id;
	 * NULL: the provider's default). The caller quotes every word it splices in.
	 */
	const char *script;
	const char *output;
};

/* Account figures a provider may report. */
enum {
	AV_BALANCE = 1u << 0,
	AV_SPEND = 1u << 1,
};
struct account {
	int64_t balance;
	int64_t spend_hour;
	char currency[CURRENCY_MAX];	/* "": USD */
	unsigned valid;
};

/*
 * What a provider says it charged for one instance on one UTC day (backend.h, charges):
 * its bill, to set beside the local ledger (billcheck.h).
 */
struct charge {
	char instance_id[ID_MAX];	/* full id ("vast:123") */
	int64_t day;			/* UTC midnight of the day billed */
	int64_t amount;			/* micro-units of currency, everything billed that day */
	int64_t storage;		/* of amount, the disk's; -1 when the provider does not say */
	char currency[CURRENCY_MAX];	/* "": USD */
};

struct charge_list {
	struct charge *v;
	size_t n, cap;
};
void charge_list_init(struct charge_list *l);
void charge_list_release(struct charge_list *l);
/* Append a zeroed record and return it (the list may move). */
struct charge *charge_list_add(struct charge_list *l);
/*
 * Sort by instance, day and currency, and add up the records of one instance, day and
 * currency into one (a storage part unknown in any of them is unknown in the sum).
 */
void charge_list_fold(struct charge_list *l);

/*
 * Whether s is a valid label (LABEL_MAX_CHARS): on false, why says what is wrong with it
 * ("more than 63 characters", "a control character (newline) at character 4", ...).
 */
bool label_check(const char *s, char *why, size_t n);

#endif
