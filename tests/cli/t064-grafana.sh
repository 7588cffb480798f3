#!/usr/bin/env bash
# contrib/grafana/gpurent.json: valid JSON, and every metric its panels and variables
# query is in the exporter's output with a sample (from the API, and from a probe sample
# in the history for the figures only a probe reads).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/exporter.sh"
export GPURENT_SIM_TIME=1796119200
dash=$SRCDIR/contrib/grafana/gpurent.json
check "the dashboard is JSON with panels" 'jq -e ".panels | length > 5" "$dash" >/dev/null'

id=$(launch_fresh type=on-demand -- --label graf) || fail "launch"
expect_ok g sim advance 2m
g metrics "$id" >/dev/null || fail "first sample"
series=$(sqlite3 -cmd ".timeout 10000" "$DB" "SELECT id FROM sample_series WHERE instance_id = '$id' AND gpu = 0")
# One sample with every figure a probe reads, a little after the simulator's now.
sqlite3 -cmd ".timeout 10000" "$DB" "INSERT INTO samples(series, at, source, util, mem_used, mem_total, mem_free, mem_util,
	temp, temp_mem, power, power_limit, power_enforced, clk_sm, clk_mem, clk_max_sm, fan, pstate,
	pcie_gen, pcie_width, enc, dec, ecc_uncorr, throttle, compute_mode, mig, xid) VALUES($series,
	$((GPURENT_SIM_TIME + 130)), 1, 50, 1000, 16384, 15384, 10, 60, 70, 150, 300, 300, 1500, 5000,
	1800, 40, 0, 4, 16, 0, 0, 0, 0, 0, 0, 0)" || fail "insert a probe sample"
start_exporter
wait_scrape '^DCGM_FI_DEV_SM_CLOCK\{'
metrics=$(jq -r '[.panels[].targets[].expr, .templating.list[].query.query? // empty] | .[]' "$dash" |
	grep -o -E '\b(DCGM_FI_[A-Z_]+|gpurent_[a-z_]+)\b' | sort -u)
check "the dashboard queries DCGM and gpurent series" \
	'[ "$(grep -c ^DCGM <<<"$metrics")" -ge 6 ] && [ "$(grep -c ^gpurent <<<"$metrics")" -ge 5 ]'
for m in $metrics; do
	check "$m has a sample in the exporter's output" 'grep -q -E "^$m(\{| )" <<<"$OUT"'
done
check "the names a dcgm-exporter dashboard uses" \
	'(for m in DCGM_FI_DEV_GPU_UTIL DCGM_FI_DEV_FB_USED DCGM_FI_DEV_FB_FREE DCGM_FI_DEV_GPU_TEMP DCGM_FI_DEV_POWER_USAGE; do grep -qx "$m" <<<"$metrics" || exit 1; done)'
pass
