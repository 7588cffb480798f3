/*
 * fuzz_serve.c - libFuzzer target: the simulator's HTTP dialects on arbitrary requests.
 *
 * The first byte picks the dialect and the method, the bytes up to the first newline are the
 * path, and the rest is the body: the vast search query, RunPod's GraphQL documents,
 * Lambda's launch bodies and PPIO's create bodies are all parsed from what a client sends.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/sim.h"
#include "gpurent/state.h"
#include "gpurent/util.h"
#include "../../src/serve/serve_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct serve_ctx ctx;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const methods[] = { "GET", "POST", "PUT", "DELETE" };
	struct serve_req rq;
	struct serve_reply rp;
	char path[256];
	const uint8_t *nl;
	size_t plen;

	if (ctx.sim == NULL) {
		struct state *st;

		/* One in-memory world for the whole run, as one server has. */
		setenv("GPURENT_SIM_TIME", "1790000000", 1);
		setenv("GPURENT_SIM_OFFERS", "50", 1);
		if (state_open(&st, ":memory:", NULL) != GR_OK || sim_open(&ctx.sim, st, NULL) !=
		    GR_OK)
			abort();
	}
	if (size < 1)
		return 0;
	nl = memchr(data + 1, '\n', size - 1);
	plen = nl != NULL ? (size_t)(nl - data - 1) : size - 1;
	if (plen >= sizeof(path))
		plen = sizeof(path) - 1;
	memcpy(path, data + 1, plen);
	path[plen] = '\0';
	memset(&rq, 0, sizeof(rq));
	rq.method = methods[data[0] & 3];
	rq.path = path;
	rq.body = nl != NULL ? (const char *)nl + 1 : "";
	rq.len = nl != NULL ? size - (size_t)(nl - data) - 1 : 0;
	rq.auth = "";
	rq.auth_ok = true;
	memset(&rp, 0, sizeof(rp));
	sb_init(&rp.body);
	switch ((data[0] >> 2) % 4) {
	case 0: dialect_vast(&ctx, &rq, &rp); break;
	case 1: dialect_runpod(&ctx, &rq, &rp); break;
	case 2: dialect_lambda(&ctx, &rq, &rp); break;
	default: dialect_ppio(&ctx, &rq, &rp); break;
	}
	sb_release(&rp.body);
	return 0;
}
