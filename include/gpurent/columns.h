/*
 * columns.h - the printable columns of offers, instances and GPU samples.
 *
 * One description serves `offers`, `ls`, `show`, `metrics`, the dashboard and the man page's
 * JSON schema: a column's name is its JSON key and its --fields name, and never changes.
 */
#ifndef GPURENT_COLUMNS_H
#define GPURENT_COLUMNS_H

#include <stddef.h>

#include "output.h"

enum offer_col {
	OCOL_ID, OCOL_PROVIDER, OCOL_GPU, OCOL_GPUS, OCOL_VRAM, OCOL_PRICE, OCOL_GPU_PRICE, OCOL_TFLOP_PRICE,
	OCOL_TYPE, OCOL_REGION, OCOL_LOCATION, OCOL_RELIABILITY, OCOL_INTERCONNECT, OCOL_CPU, OCOL_RAM,
	OCOL_DISK, OCOL_NET_DOWN, OCOL_NET_UP, OCOL_AVAILABLE, OCOL_GPU_RAW, OCOL_TFLOPS, OCOL_STORAGE,
	OCOL_GPU_KNOWN, OCOL_VENDOR, OCOL_FETCHED_AT, OCOL_CURRENCY, OCOL_NODES, OCOL_TIME_LIMIT,
	OCOL_QUEUE, OCOL_TERM, OCOL_TERM_PRICE, OCOL_ONDEMAND, OCOL_DISCOUNT, OCOL_TERM_END,
	OCOL__COUNT,
};
extern const struct column offer_columns[OCOL__COUNT];
/* cell_fn for struct offer rows. */
void offer_cell(const void *row, size_t c, struct cell *out, void *ctx);

enum instance_col {
	ICOL_ID, ICOL_PROVIDER, ICOL_LABEL, ICOL_STATE, ICOL_GPU, ICOL_GPUS, ICOL_PRICE, ICOL_COST, ICOL_UTIL,
	ICOL_UPTIME, ICOL_TYPE, ICOL_REGION, ICOL_IMAGE, ICOL_CREATED, ICOL_SINCE, ICOL_OFFER, ICOL_BID,
	ICOL_STORAGE, ICOL_DISK, ICOL_SSH_HOST, ICOL_SSH_PORT, ICOL_SSH_USER, ICOL_STATUS, ICOL_GPU_RAW,
	ICOL_GPU_KNOWN, ICOL_VENDOR, ICOL_CURRENCY, ICOL_INTENDED,
	ICOL_USER,	/* last: ls prints it in a team profile and in JSON (team_view_columns) */
	ICOL__COUNT,
};
extern const struct column instance_columns[ICOL__COUNT];
/* cell_fn for struct instance rows; ctx points to an int64_t "now" for uptime. */
void instance_cell(const void *row, size_t c, struct cell *out, void *ctx);

/* The first ten are what every source may fill; SCOL_SOURCE on are JSON-always, table
 * only by --fields (a probe's full field list: --fields all). */
enum sample_col {
	SCOL_INSTANCE, SCOL_GPU, SCOL_TIME, SCOL_UTIL, SCOL_MEM_USED, SCOL_MEM_TOTAL, SCOL_MEM_PCT, SCOL_TEMP,
	SCOL_POWER, SCOL_POWER_LIMIT, SCOL_SOURCE, SCOL_NODE, SCOL_VENDOR, SCOL_NAME, SCOL_UUID, SCOL_DRIVER, SCOL_CUDA,
	SCOL_MEM_UTIL, SCOL_MEM_FREE, SCOL_TEMP_MEM, SCOL_POWER_ENFORCED, SCOL_CLK_SM, SCOL_CLK_MEM,
	SCOL_CLK_SM_MAX, SCOL_FAN, SCOL_PSTATE, SCOL_PCIE_GEN, SCOL_PCIE_WIDTH, SCOL_ENC, SCOL_DEC,
	SCOL_ECC, SCOL_THROTTLE, SCOL_COMPUTE_MODE, SCOL_MIG, SCOL_PCI_BUS, SCOL_XID, SCOL_XID_COUNT,
	SCOL__COUNT,
};
extern const struct column sample_columns[SCOL__COUNT];
void sample_cell(const void *row, size_t c, struct cell *out, void *ctx);

/* "3d 4h", "2h 05m", "12m", "40s" */
void format_uptime(char *buf, size_t n, long long seconds);

#endif
