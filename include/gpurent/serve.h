/*
 * serve.h - `gpurent sim serve`: the simulated marketplace over HTTP, speaking vast.ai's,
 * RunPod's or Lambda's protocol (src/serve/serve.c), with fault injection for tests.
 */
#ifndef GPURENT_SERVE_H
#define GPURENT_SERVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "sim.h"

struct state;

struct serve_opts {
	const char *dialect;		/* "vast", "runpod", "lambda" or "ppio" */
	const char *bind;		/* address; NULL: 127.0.0.1 */
	int port;			/* 0: any free port */
	const char *api_key;		/* NULL: any key (or none) accepted */
	long latency_ms;		/* added to every reply */
	/* Fault shares in percent of requests (0..100 in total). */
	int p429;			/* 429 with Retry-After: retry_after_s */
	int p5xx;			/* 500/502/503: half before acting, half after */
	int pdrop;			/* connection closed without a reply (after acting) */
	int ptrunc;			/* body cut short of its Content-Length (after acting) */
	int pmalformed;			/* a complete reply whose JSON is broken (after acting) */
	/*
	 * The Retry-After of 429 and 503 answers, in seconds; -1: as the provider does (RunPod
	 * sends one, of 1 s; vast.ai and Lambda document none and send none).
	 */
	int retry_after_s;
	uint64_t seed;			/* fault draws */
	/*
	 * Scripted faults, before the random ones: the first fail_first requests that match
	 * get a 500 without being acted on, the next fail_first_acted are acted on and then
	 * answered 500. A request matches when fail_match (NULL: every request) occurs in its
	 * method, path or body, e.g. "mutation Deploy" or "query Pods".
	 */
	int fail_first;
	int fail_first_acted;
	const char *fail_match;
	/* The first ignore_stops stop requests are answered as done and not acted on. */
	int ignore_stops;
	/*
	 * Scripted refusals of creates: a comma list of "gone" (the offer was rented away since
	 * it was listed) and "capacity" (no machine of it is free); the next creates are refused
	 * in turn, each in the dialect's own words for it, without being acted on, and the
	 * creates after the list go through. NULL: none.
	 */
	const char *fail_launch;
	/* Instances taken away a while after their launch (sim.h; after 0: none). */
	struct sim_preemption preempt;
	/*
	 * A retired API: every request whose path begins with gone (e.g. "/v2/pods") is answered
	 * 410 Gone as problem+json, without being acted on. NULL: none.
	 */
	const char *gone;
	/*
	 * When set, every request is appended to it as one line of JSON before it is answered:
	 * {"method", "path", "query": [[name, value], ...], "body", "key": whether one was
	 * presented} (never the key itself), so that a real client's calls can be recorded once
	 * and replayed by the conformance tests.
	 */
	FILE *log;
	/*
	 * A test's gate (GPURENT_SERVE_HOLD): each request that fail_match selects (each one when
	 * it is NULL) waits, after its log line, until this file exists; the others are answered
	 * meanwhile. NULL: none.
	 */
	const char *hold;
	FILE *ready;			/* where "listening on URL" is printed; NULL: stdout */
	volatile int *stop;		/* serve until this becomes non-zero */
};

/* Serve until *o->stop is set. The world is the simulator in st. */
enum gr_err serve_run(struct state *st, const struct serve_opts *o, struct gr_error *err);

#endif
