/*
 * The workload model behind simulated GPU metrics. Everything is a pure function of the seed,
 * the instance, the GPU and the second, so two calls (or two processes) asking about the
 * same moment get the same numbers, and consecutive samples look like one real job.
 */
#include <string.h>

#include "gpurent/util.h"
#include "sim_internal.h"

enum workload { WL_TRAINING, WL_INFERENCE, WL_IDLE };

/* Noise in [-amp, amp], steady over `period` seconds. */
static int
noise(uint64_t h, int64_t t, int period, int amp)
{
	if (amp == 0)
		return 0;
	return (int)(hash_mix(h, (uint64_t)(t / period)) % (uint64_t)(2 * amp + 1)) - amp;
}

static int
util_at(uint64_t h, enum workload wl, int64_t run_since, int64_t t)
{
	int64_t up = t - run_since;
	int u;

	if (up < 0)
		return 0;
	switch (wl) {
	case WL_TRAINING:
		/* Loading data for the first minute, then busy, with a checkpoint dip every 20 min. */
		if (up < 60)
			return 5 + (int)(up * 60 / 60);
		if (up % 1200 < 45)
			return 10 + noise(h, t, 5, 5);
		u = 95 + noise(h, t, 3, 4);
		break;
	case WL_INFERENCE: {
		/* Traffic rises and falls over a 15-minute cycle. */
		int64_t phase = up % 900;
		int tri = (int)(phase < 450 ? phase : 900 - phase);

		u = 30 + tri * 50 / 450 + noise(h, t, 2, 8);
		break;
	}
	default:
		u = noise(h, t, 10, 1) + 1;
		break;
	}
	return u < 0 ? 0 : u > 100 ? 100 : u;
}

void
workload_sample(uint64_t seed, const char *instance_id, const struct gpu_model *gpu, int index,
    int64_t run_since, int64_t t, struct gpu_sample *out)
{
	uint64_t h = hash_mix(hash_mix(seed, hash_str(instance_id)), (uint64_t)index);
	enum workload wl = (enum workload)(hash_mix(seed, hash_str(instance_id)) % 10 < 6 ?
	    WL_TRAINING : hash_mix(seed, hash_str(instance_id)) % 10 < 9 ? WL_INFERENCE : WL_IDLE);
	int tdp = gpu && gpu->tdp_w > 0 ? gpu->tdp_w : 300;
	int vram = gpu ? gpu->vram_gb : 24;
	int avg, mem_pct, i;
	int64_t up = t - run_since;

	memset(out, 0, sizeof(*out));
	strlcpy_(out->instance_id, instance_id, sizeof(out->instance_id));
	out->index = index;
	out->at = t;
	out->util_pct = util_at(h, wl, run_since, t);
	/* Temperature lags load: follow the mean utilisation of the last two minutes. */
	avg = 0;
	for (i = 0; i < 4; i++)
		avg += util_at(h, wl, run_since, t - i * 30);
	avg /= 4;
	out->temp_c = 32 + avg * 48 / 100 + noise(h ^ 0x7e, t, 7, 1);
	out->power_limit_w = tdp;
	out->power_w = tdp / 8 + (tdp - tdp / 8) * out->util_pct / 100 + noise(h ^ 0x90, t, 1, 3);
	if (out->power_w > tdp)
		out->power_w = tdp;
	out->mem_total_mib = vram * 1000 * 1000 / 1049 - 512;	/* GB as sold, less the reserve */
	switch (wl) {
	case WL_TRAINING:
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
}
