/*
 * The exposition the exporter writes, checked line by line: label values with quotes,
 * backslashes, newlines, escape sequences and invalid UTF-8 stay inside their quotes;
 * unknown figures are left out; money is exact; ages count from the snapshot's clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpurent/exporter.h"
#include "gpurent/util.h"

static void
snapshot(struct exporter_snapshot *s, const char *label)
{
	struct instance *in;
	struct gpu_sample *g;

	exporter_snapshot_init(s);
	s->taken = 1000;
	in = instance_list_add(&s->instances);
	strlcpy_(in->id, "sim:i-000001", sizeof(in->id));
	strlcpy_(in->provider, "sim", sizeof(in->provider));
	strlcpy_(in->label, label, sizeof(in->label));
	strlcpy_(in->gpu_raw, "H100", sizeof(in->gpu_raw));
	in->state = ST_RUNNING;
	in->price_hour = 2490001;	/* $2.490001 */
	in->valid = IV_PRICE;
	in = instance_list_add(&s->instances);
	strlcpy_(in->id, "sim:i-000002", sizeof(in->id));
	strlcpy_(in->provider, "sim", sizeof(in->provider));
	in->state = ST_STOPPED;
	g = sample_list_add(&s->samples);
	strlcpy_(g->instance_id, "sim:i-000001", sizeof(g->instance_id));
	g->index = 0;
	g->at = 990;
	g->util_pct = 42;
	g->mem_used_mib = 100;
	g->mem_total_mib = 1000;
	g->valid = MV_UTIL | MV_MEM;
	s->spent = xcalloc(2, sizeof(*s->spent));
	s->spent[0] = 1500000;
	s->spent[1] = -1;
	s->burn_known = true;
	s->burn_hour = 2490001;
	s->n_providers = 1;
	strlcpy_(s->providers[0].name, "sim", sizeof(s->providers[0].name));
	s->providers[0].up = true;
}

static char *
render(const struct exporter_snapshot *s, int64_t now)
{
	struct sb out;

	sb_init(&out);
	exporter_render(s, now, &out);
	return sb_detach(&out);
}

static void
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return;
	fail_msg("no line '%s' in:\n%s", line, text);
}

static void
series_and_money(void **state)
{
	struct exporter_snapshot s;
	char *text;

	(void)state;
	snapshot(&s, "train");
	text = render(&s, 1005);
	has_line(text, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"\",modelName=\"H100\","
	    "Hostname=\"sim:i-000001\",instance_id=\"sim:i-000001\",provider=\"sim\","
	    "label=\"train\"} 42");
	has_line(text, "DCGM_FI_DEV_FB_FREE{gpu=\"0\",UUID=\"\",modelName=\"H100\","
	    "Hostname=\"sim:i-000001\",instance_id=\"sim:i-000001\",provider=\"sim\","
	    "label=\"train\"} 900");
	/* Unknown: declared, no sample. */
	has_line(text, "# TYPE DCGM_FI_DEV_GPU_TEMP gauge");
	assert_null(strstr(text, "DCGM_FI_DEV_GPU_TEMP{"));
	assert_null(strstr(text, "DCGM_FI_DEV_POWER_USAGE{"));
	has_line(text, "gpurent_instance_up{instance_id=\"sim:i-000001\",provider=\"sim\","
	    "label=\"train\"} 1");
	has_line(text, "gpurent_instance_up{instance_id=\"sim:i-000002\",provider=\"sim\","
	    "label=\"\"} 0");
	has_line(text, "gpurent_instance_price_dollars_per_hour{instance_id=\"sim:i-000001\","
	    "provider=\"sim\",label=\"train\"} 2.490001");
	has_line(text, "gpurent_spend_dollars_total{instance_id=\"sim:i-000001\","
	    "provider=\"sim\",label=\"train\"} 1.500000");
	assert_null(strstr(text, "gpurent_spend_dollars_total{instance_id=\"sim:i-000002\""));
	has_line(text, "gpurent_burn_rate_dollars_per_hour 2.490001");
	has_line(text, "gpurent_sample_age_seconds{instance_id=\"sim:i-000001\","
	    "provider=\"sim\",label=\"train\"} 15");
	assert_null(strstr(text, "gpurent_sample_age_seconds{instance_id=\"sim:i-000002\""));
	has_line(text, "gpurent_provider_up{provider=\"sim\"} 1");
	free(text);
	exporter_snapshot_release(&s);
}

static void
hostile_labels_stay_inside_their_quotes(void **state)
{
	struct exporter_snapshot s;
	char *text;
	const char *p;

	(void)state;
	snapshot(&s, "a\"b\\c\nevil=\"1\"}\x1b[2J\xff\xfez");
	strlcpy_(s.samples.v[0].uuid, "GPU-\"}\n", sizeof(s.samples.v[0].uuid));
	strlcpy_(s.samples.v[0].name, "\x9b" "31mRed", sizeof(s.samples.v[0].name));
	text = render(&s, 1000);
	/* A newline made a space, escapes dropped, quote and backslash escaped, bad bytes '?'. */
	has_line(text, "gpurent_instance_up{instance_id=\"sim:i-000001\",provider=\"sim\","
	    "label=\"a\\\"b\\\\c evil=\\\"1\\\"}[2J??z\"} 1");
	has_line(text, "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-\\\"} \",modelName=\"?31mRed\","
	    "Hostname=\"sim:i-000001\",instance_id=\"sim:i-000001\",provider=\"sim\","
	    "label=\"a\\\"b\\\\c evil=\\\"1\\\"}[2J??z\"} 42");
	/* No control byte anywhere but the line ends. */
	for (p = text; *p != '\0'; p++)
		assert_true((unsigned char)*p >= 0x20 || *p == '\n');
	free(text);
	exporter_snapshot_release(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(series_and_money),
		cmocka_unit_test(hostile_labels_stay_inside_their_quotes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
