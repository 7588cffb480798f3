/*
 * The workload model behind simulated GPU metrics. Everything is a pure function of the seed,
 * the instance, the GPU and the second, so two calls (or two processes) asking about the
 * same moment get the same numbers, and consecutive samples look like one real job.
 *
 * An instance's workload is chosen by its SIM_WORKLOAD environment variable at launch, or
 * else from the seed and its id: long training runs, training jobs that finish after one
 * to eight hours and leave the GPU idle (the machine that bills until morning), inference
 * that follows a daily tide (busiest mid-afternoon UTC, quietest at night, peak over trough
 * GPURENT_SIM_TIDE, default 7), and machines nobody uses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/util.h"
#include "sim_int.h"

enum workload { WL_TRAINING, WL_INFERENCE, WL_IDLE, WL_JOB, WL_UNREPORTED, WL_DARK };

/* Noise in [-amp, amp], steady over `period` seconds. */
static int
noise(uint64_t h, int64_t t, int period, int amp)
{
	if (amp == 0)
		return 0;
	return (int)(hash_mix(h, (uint64_t)(t / period)) % (uint64_t)(2 * amp + 1)) - amp;
}

/* The daily tide at t: 1 at 14:00 UTC, 1/ratio at 02:00 UTC, a cosine between. */
static double
tide(int64_t t, int ratio)
{
	double trough = 1.0 / (ratio > 0 ? ratio : 1);
	double phase = (double)((t - 14 * 3600) % 86400) / 86400.0;

	return trough + (1.0 - trough) * (1.0 + cos(2.0 * M_PI * phase)) / 2.0;
}

static int
util_at(uint64_t h, enum workload wl, int64_t job_len, int tide_ratio, int64_t run_since,
    int64_t t)
{
	int64_t up = t - run_since;
	int u;

	if (up < 0)
		return 0;
	if (wl == WL_JOB && up >= job_len)
		wl = WL_IDLE;
	switch (wl) {
	case WL_TRAINING:
	case WL_JOB:
		/* Loading data for the first minute, then busy, with a checkpoint dip every 20 min. */
		if (up < 60)
			return 5 + (int)(up * 60 / 60);
		if (up % 1200 < 45)
			return 10 + noise(h, t, 5, 5);
		u = 95 + noise(h, t, 3, 4);
		break;
	case WL_INFERENCE:
		/* Requests follow the day: the tide scales a busy 91 %. */
		u = (int)lround(91.0 * tide(t, tide_ratio)) + noise(h, t, 2, 2);
		break;
	default:
		u = noise(h, t, 10, 1) + 1;
		break;
	}
	return u < 0 ? 0 : u > 100 ? 100 : u;
}

/* The workload an instance runs: its SIM_WORKLOAD, else one chosen from the seed. */
static enum workload
choose(uint64_t seed, const char *instance_id, const char *spec, int64_t *len)
{
	uint64_t h = hash_mix(seed, hash_str(instance_id)), b = h % 20;
	long long n;

	*len = 0;
	if (spec != NULL && *spec != '\0') {
		if (strcmp(spec, "training") == 0)
			return WL_TRAINING;
		if (strcmp(spec, "inference") == 0 || strcmp(spec, "tidal") == 0)
			return WL_INFERENCE;
		if (strcmp(spec, "idle") == 0)
			return WL_IDLE;
		if (strcmp(spec, "unreported") == 0)
			return WL_UNREPORTED;
		if (strncmp(spec, "job:", 4) == 0 && (n = parse_duration(spec + 4)) > 0) {
			*len = n;
			return WL_JOB;
		}
		if (strncmp(spec, "dark:", 5) == 0 && (n = parse_duration(spec + 5)) > 0) {
			*len = n;
			return WL_DARK;
		}
	}
	if (b < 9)
		return WL_TRAINING;
	if (b < 12) {
		*len = 3600 + (int64_t)(hash_mix(h, 0x10b) % (7 * 3600));
		return WL_JOB;
	}
	return b < 18 ? WL_INFERENCE : WL_IDLE;
}

bool
workload_reports(uint64_t seed, const char *instance_id, const char *spec, int64_t run_since,
    int64_t t, bool *util)
{
	int64_t len;
	enum workload wl = choose(seed, instance_id, spec, &len);

	*util = wl != WL_UNREPORTED && !(wl == WL_DARK && t - run_since >= len);
	return !(wl == WL_DARK && t - run_since >= len);
}

void
workload_sample(uint64_t seed, const char *instance_id, const char *spec, int tide_ratio,
    const struct gpu_model *gpu, int index, int64_t run_since, int64_t t,
    struct gpu_sample *out)
{
	uint64_t h = hash_mix(hash_mix(seed, hash_str(instance_id)), (uint64_t)index);
	int64_t len;
	enum workload wl = choose(seed, instance_id, spec, &len);
	int tdp = gpu && gpu->tdp_w > 0 ? gpu->tdp_w : 300;
	int vram = gpu ? gpu->vram_gb : 24;
	int avg, mem_pct, i;
	int64_t up = t - run_since;

	memset(out, 0, sizeof(*out));
	strlcpy_(out->instance_id, instance_id, sizeof(out->instance_id));
	out->index = index;
	out->at = t;
	out->util_pct = util_at(h, wl, len, tide_ratio, run_since, t);
	/* Temperature lags load: follow the mean utilisation of the last two minutes. */
	avg = 0;
	for (i = 0; i < 4; i++)
		avg += util_at(h, wl, len, tide_ratio, run_since, t - i * 30);
	avg /= 4;
	out->temp_c = 32 + avg * 48 / 100 + noise(h ^ 0x7e, t, 7, 1);
	out->power_limit_w = tdp;
	out->power_w = tdp / 8 + (tdp - tdp / 8) * out->util_pct / 100 + noise(h ^ 0x90, t, 1, 3);
	if (out->power_w > tdp)
		out->power_w = tdp;
	out->mem_total_mib = vram * 1000 * 1000 / 1049 - 512;	/* GB as sold, less the reserve */
	switch (wl == WL_JOB && up >= len ? WL_IDLE : wl) {
	case WL_TRAINING:
	case WL_JOB:
		mem_pct = up < 300 ? (int)(up * 88 / 300) : 88 + (int)(h % 8);
		break;
	case WL_INFERENCE:
		mem_pct = 62 + (int)(h % 6);
		break;
	default:
		mem_pct = 0;
		break;
	}
	out->mem_used_mib = (int)((int64_t)out->mem_total_mib * mem_pct / 100) + 3;
	out->valid = MV_UTIL | MV_MEM | MV_TEMP | MV_POWER | MV_POWER_LIMIT;
	if (wl == WL_UNREPORTED)
		out->valid &= ~(unsigned)MV_UTIL;
}
