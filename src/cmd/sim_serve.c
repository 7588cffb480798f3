/*
 * sim_serve.c - `gpurent sim serve --dialect vast|runpod|lambda|ppio`: the simulated marketplace
 * over HTTP in a provider's protocol, for end-to-end tests and rehearsing scripts.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "gpurent/i18n.h"
#include "gpurent/serve.h"
#include "gpurent/session.h"
#include "gpurent/sim.h"
#include "gpurent/util.h"

#include "sim_serve.h"

const char cmd_sim_serve_usage[] =
    "usage: gpurent sim serve --dialect vast|runpod|lambda|ppio [--port N] [--bind ADDR]\n"
    "         [--api-key KEY] [--latency MS] [--fail-429 PCT] [--fail-5xx PCT]\n"
    "         [--fail-drop PCT] [--fail-truncate PCT] [--fail-malformed PCT]\n"
    "         [--retry-after S] [--fault-seed N] [--fail-first N]\n"
    "         [--fail-first-acted N] [--fail-match TEXT] [--ignore-stop N]\n"
    "         [--fail-launch LIST] [--preempt-after DURATION [--preempt-seed N]\n"
    "         [--preempt-reason outbid|host-failure|unreachable]] [--gone PREFIX]\n"
    "         [--log-requests FILE]\n";

static void
on_term(int sig)
{
	(void)sig;
	cmd_interrupted = 1;
}

/* "--name=value" or "--name value"; advances *i past a separate value. */
static const char *
optval(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != '\0' || *i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
usage(const char *fmt, ...)
{
	va_list ap;

	fputs("gpurent sim serve: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(cmd_sim_serve_usage, stderr);
	return EXIT_USAGE;
}

int
cmd_sim_serve(struct cmd_ctx *c, int argc, char **argv)
{
	static const struct {
		const char *name;
		size_t off;		/* of a const char * in struct serve_opts */
		const char *if_empty;	/* the usage error for an empty value; NULL: allowed */
	} strs[] = {
		{ "--dialect", offsetof(struct serve_opts, dialect), NULL },
		{ "--api-key", offsetof(struct serve_opts, api_key), NULL },
		{ "--fail-match", offsetof(struct serve_opts, fail_match),
		    N_("--fail-match needs some text") },
		{ "--fail-launch", offsetof(struct serve_opts, fail_launch), NULL },
		{ "--gone", offsetof(struct serve_opts, gone), N_("--gone needs a path prefix") },
		{ "--bind", offsetof(struct serve_opts, bind), NULL },
	};
	static const struct {
		const char *name;
		size_t off;
		long long min, max;
	} nums[] = {
		{ "--port", offsetof(struct serve_opts, port), 0, 65535 },
		{ "--fail-429", offsetof(struct serve_opts, p429), 0, 100 },
		{ "--fail-5xx", offsetof(struct serve_opts, p5xx), 0, 100 },
		{ "--fail-drop", offsetof(struct serve_opts, pdrop), 0, 100 },
		{ "--fail-truncate", offsetof(struct serve_opts, ptrunc), 0, 100 },
		{ "--fail-malformed", offsetof(struct serve_opts, pmalformed), 0, 100 },
		{ "--retry-after", offsetof(struct serve_opts, retry_after_s), 0, 3600 },
		{ "--fail-first", offsetof(struct serve_opts, fail_first), 0, 1000000 },
		{ "--fail-first-acted", offsetof(struct serve_opts, fail_first_acted), 0, 1000000 },
		{ "--ignore-stop", offsetof(struct serve_opts, ignore_stops), 0, 1000000 },
	};
	struct serve_opts o;
	struct gr_error err = { 0 };
	struct state *st;
	struct sigaction sa;
	const char *v, *log_path = NULL;
	long long n;
	int rc = 0;
	size_t k;
	int i;

	memset(&o, 0, sizeof(o));
	o.retry_after_s = -1;
	o.seed = 1;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(cmd_sim_serve_usage, c->out);
			return 0;
		}
		for (k = 0; k < ARRAY_LEN(strs); k++)
			if ((v = optval(argc, argv, &i, strs[k].name)) != NULL)
				break;
		if (k < ARRAY_LEN(strs)) {
			if (*v == '\0' && strs[k].if_empty != NULL)
				return usage("%s", _(strs[k].if_empty));
			*(const char **)((char *)&o + strs[k].off) = v;
			continue;
		}
		if ((v = optval(argc, argv, &i, "--log-requests")) != NULL) {
			if (*v == '\0')
				return usage("%s", _("--log-requests needs a file name"));
			log_path = v;
			continue;
		}
		if ((v = optval(argc, argv, &i, "--latency")) != NULL) {
			if (!parse_int(v, 0, 600000, &n))
				return usage(_("bad --latency '%s' (milliseconds)"), v);
			o.latency_ms = (long)n;
			continue;
		}
		if ((v = optval(argc, argv, &i, "--preempt-after")) != NULL) {
			n = parse_duration(v);
			if (n <= 0 || n > 366LL * 86400)
				return usage(_("bad --preempt-after '%s' (a duration from 1s to 366d)"),
				    v);
			o.preempt.after = n;
			continue;
		}
		if ((v = optval(argc, argv, &i, "--preempt-seed")) != NULL) {
			if (!parse_int(v, 0, INT64_MAX, &n))
				return usage(_("bad --preempt-seed '%s'"), v);
			o.preempt.seed = (uint64_t)n;
			o.preempt.seeded = true;
			continue;
		}
		if ((v = optval(argc, argv, &i, "--preempt-reason")) != NULL) {
			if (!sim_fault_parse(v, &o.preempt.fault))
				return usage(_("bad --preempt-reason '%s' (outbid, host-failure or "
				    "unreachable)"), v);
			continue;
		}
		if ((v = optval(argc, argv, &i, "--fault-seed")) != NULL) {
			if (!parse_int(v, 0, INT64_MAX, &n))
				return usage(_("bad --fault-seed '%s'"), v);
			o.seed = (uint64_t)n;
			continue;
		}
		for (k = 0; k < ARRAY_LEN(nums); k++) {
			if ((v = optval(argc, argv, &i, nums[k].name)) != NULL) {
				if (!parse_int(v, nums[k].min, nums[k].max, &n))
					return usage(_("bad value '%s'"), v);
				*(int *)((char *)&o + nums[k].off) = (int)n;
				break;
			}
		}
		if (k == ARRAY_LEN(nums))
			return usage(_("unknown option '%s'"), argv[i]);
	}
	if ((o.preempt.seeded || o.preempt.fault != SIM_FAULT_NONE) && o.preempt.after == 0)
		return usage("%s", _("--preempt-seed and --preempt-reason go with --preempt-after"));
	if (o.dialect == NULL)
		return usage("%s", _("--dialect is required (vast, runpod, lambda or ppio)"));
	if (session_sim_state(c->s, &st, &err) != GR_OK) {
		fprintf(stderr, "gpurent: %s\n", err.msg);
		return gr_exit_code(err.code);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	o.stop = &cmd_interrupted;
	o.ready = c->out;
	o.hold = getenv("GPURENT_SERVE_HOLD");
	if (log_path != NULL && (o.log = fopen(log_path, "a")) == NULL) {
		fprintf(stderr, _("gpurent: cannot open '%s' for the request log: %s\n"), log_path,
		    strerror(errno));
		return EXIT_ERROR;
	}
	if (serve_run(st, &o, &err) != GR_OK) {
		fprintf(stderr, "gpurent: %s\n", err.msg);
		rc = gr_exit_code(err.code);
	}
	if (o.log != NULL)
		fclose(o.log);
	return rc;
}
