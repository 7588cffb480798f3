#!/usr/bin/env bash
# gpurent exporter over real HTTP: the exposition parses (promtool check metrics), one
# DCGM series per GPU of each running instance and none for a stopped one, unknown figures
# left out rather than 0, a hostile label kept inside its quotes, the gpurent_* series with
# the ledger's figures, a full probe sample from the history rendered under every DCGM
# name, bearer authentication, and SIGTERM ending it with status 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/exporter.sh"
export GPURENT_SIM_TIME=1796119200	# 2026-12-01T10:00:00Z

four=$(g offers type=on-demand 'gpus>=4' -o ids -n 1)
one=$(g offers type=on-demand 'gpus=1' -o ids -n 2 | tail -1)
spare=$(g offers type=on-demand 'gpus=1' -o ids -n 1)
hostile='q"uo\te},x="y {évil} 1'
a=$(g launch "$four" --label fleet) || fail "launch $four"
b=$(g launch "$one" --label "$hostile") || fail "launch hostile label"
c=$(g launch "$spare" --label parked) || fail "launch $spare"
expect_ok g sim advance 2m
expect_ok g stop --no-wait "$c"
expect_ok g sim advance 1m
expect_ok g sim advance 1h

start_exporter
wait_scrape '^gpurent_instance_up'
check "200 with the exposition's content type" '[ "$CODE" = 200 ]'
check "promtool accepts the exposition" promtool_metrics_ok
util=$(grep '^DCGM_FI_DEV_GPU_UTIL{' <<<"$OUT")
check "one utilisation series per GPU of the running instances (4 + 1)" '[ "$(wc -l <<<"$util")" -eq 5 ]'
check "GPUs 0-3 of the four-GPU instance" \
	'[ "$(grep -c "instance_id=\"$a\"" <<<"$util")" -eq 4 ] && grep -q "gpu=\"3\",UUID=\"\",modelName=\"RTX3090-24GB\",Hostname=\"[^\"]*\",instance_id=\"$a\",provider=\"sim\",label=\"fleet\"} [0-9]" <<<"$util"'
check "no GPU series for the stopped instance" '! grep -q "^DCGM.*instance_id=\"$c\"" <<<"$OUT"'
check "instance_up: 1 running, 0 stopped" \
	'grep -q "^gpurent_instance_up{instance_id=\"$a\",provider=\"sim\",label=\"fleet\"} 1$" <<<"$OUT" && grep -q "^gpurent_instance_up{instance_id=\"$c\",provider=\"sim\",label=\"parked\"} 0$" <<<"$OUT"'
check "the hostile label escaped inside its quotes" \
	'grep -qF "label=\"q\\\"uo\\\\te},x=\\\"y {évil} 1\"}" <<<"$OUT"'
# Parsed as the exposition format says: name="value" pairs with \\ and \" escapes.
labels_of() {
	python3 -c '
import re, sys
line = sys.stdin.read().strip()
body = line[line.index("{") + 1:line.rindex("}")]
pairs = re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=\"((?:[^\"\\]|\\.)*)\",?", body)
assert ",".join("%s=\"%s\"" % p for p in pairs) == body, body
for k, v in pairs:
    print(k + "=" + re.sub(r"\\(.)", r"\1", v))'
}
line=$(grep "^DCGM_FI_DEV_GPU_UTIL{.*instance_id=\"$b\"" <<<"$OUT")
check "the hostile label parses back to itself, and adds no label" \
	'[ "$(labels_of <<<"$line" | cut -d= -f1 | tr "\n" " ")" = "gpu UUID modelName Hostname instance_id provider label " ] && [ "$(labels_of <<<"$line" | sed -n "s/^label=//p")" = "$hostile" ]'
# What the provider's API does not report is absent, not 0.
check "no SM clock, Xid or fan figure from an API sample" \
	'! grep -q "^DCGM_FI_DEV_SM_CLOCK{\|^DCGM_FI_DEV_XID_ERRORS{\|^DCGM_FI_DEV_FAN_SPEED{" <<<"$OUT"'
check "but their families are declared" 'grep -q "^# TYPE DCGM_FI_DEV_XID_ERRORS gauge$" <<<"$OUT"'
check "free memory is total less used" \
	'u=$(sed -n "s/^DCGM_FI_DEV_FB_USED{.*instance_id=\"$b\".*} //p" <<<"$OUT"); t=$(sed -n "s/^DCGM_FI_DEV_FB_TOTAL{.*instance_id=\"$b\".*} //p" <<<"$OUT"); f=$(sed -n "s/^DCGM_FI_DEV_FB_FREE{.*instance_id=\"$b\".*} //p" <<<"$OUT"); [ -n "$u" ] && [ $((t - u)) -eq "$f" ]'
check "the GPU figures are the sampled ones (history holds them)" \
	'[ "$(sqlite3 -cmd ".timeout 10000" "$DB" "SELECT count(*) FROM samples s JOIN sample_series ss ON ss.id = s.series WHERE ss.instance_id = '"'"'$a'"'"'")" -ge 4 ]'

# Money: the listed price, the ledger's spend and burn.
expect_ok g show "$a" -o json
price=$(jq -r .price_hour <<<"$OUT")
expect_ok g costs --by instance -o json
costs=$OUT
scrape
check "price per hour as listed" \
	'grep -q "^gpurent_instance_price_dollars_per_hour{instance_id=\"$a\",provider=\"sim\",label=\"fleet\"} $(printf %.6f "$price")$" <<<"$OUT"'
spent_a=$(jq -r --arg id "$a" '.rows[] | select(.key == $id) | .spent' <<<"$costs")
check "spend of an instance from the ledger" \
	'[ -n "$spent_a" ] && grep -q "^gpurent_spend_dollars_total{instance_id=\"$a\",provider=\"sim\",label=\"fleet\"} $(printf %.6f "$spent_a")$" <<<"$OUT"'
check "burn rate of everything billing" \
	'grep -q "^gpurent_burn_rate_dollars_per_hour $(printf %.6f "$(jq .burn_hour <<<"$costs")")$" <<<"$OUT"'
check "sample age per running instance" \
	'[ "$(grep -c "^gpurent_sample_age_seconds{" <<<"$OUT")" -eq 2 ]'
check "the simulated provider is up" 'grep -q "^gpurent_provider_up{provider=\"sim\"} 1$" <<<"$OUT"'
check "spend is a counter" 'grep -q "^# TYPE gpurent_spend_dollars_total counter$" <<<"$OUT"'

# A sample with every probe field, stored by another gpurent (as a probe over ssh would),
# is served under every DCGM name with its uuid and name as labels.
series=$(sqlite3 -cmd ".timeout 10000" "$DB" "SELECT id FROM sample_series WHERE instance_id = '$b' AND gpu = 0")
sqlite3 -cmd ".timeout 10000" "$DB" "UPDATE sample_series SET uuid = 'GPU-0b7e-hostile\"}', name = 'NVIDIA RTX 3090' WHERE id = $series;
	INSERT OR REPLACE INTO samples(series, at, source, util, mem_used, mem_total, mem_free, mem_util, temp,
	temp_mem, power, power_limit, power_enforced, clk_sm, clk_mem, clk_max_sm, fan, pstate, pcie_gen,
	pcie_width, enc, dec, ecc_uncorr, throttle, compute_mode, mig, xid) VALUES($series,
	$((GPURENT_SIM_TIME + 3790)), 1, 77, 20000, 24576, 4576, 41, 66, 80, 301, 350, 340, 1695, 9751, 2100,
	55, 2, 4, 16, 3, 4, 2, 4, 0, 0, 79)" || fail "insert a probe sample"
wait_scrape '^DCGM_FI_DEV_XID_ERRORS\{'
check "every DCGM family has the probe sample's figure" \
	'(for f in $(sed -n "s/^# TYPE \(DCGM_[A-Z_]*\) .*/\1/p" <<<"$OUT"); do grep -q "^$f{.*instance_id=\"$b\".*}" <<<"$OUT" || { echo "missing $f" >&2; exit 1; }; done)'
check "Xid 79, SM clock 1695, ECC 2" \
	'grep -q "^DCGM_FI_DEV_XID_ERRORS{.*} 79$" <<<"$OUT" && grep -q "^DCGM_FI_DEV_SM_CLOCK{.*} 1695$" <<<"$OUT" && grep -q "^DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{.*} 2$" <<<"$OUT"'
check "the probe's uuid and name as labels, escaped" \
	'grep -qF "gpu=\"0\",UUID=\"GPU-0b7e-hostile\\\"}\",modelName=\"NVIDIA RTX 3090\"" <<<"$OUT"'
check "promtool accepts the full exposition" promtool_metrics_ok

# Other paths; SIGTERM ends it cleanly.
CODE=$(curl -s -o /dev/null -w '%{http_code}' "${EXPORTER_URL%/metrics}/nope")
check "404 elsewhere" '[ "$CODE" = 404 ]'
CODE=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$EXPORTER_URL")
check "405 for POST" '[ "$CODE" = 405 ]'
kill -TERM "$EXPORTER_PID"
wait "$EXPORTER_PID"
rc=$?
check "SIGTERM: status 0 ($rc)" '[ "$rc" -eq 0 ]'

# Bearer token from the sealed store.
export GPURENT_PASSPHRASE=exporter-test
expect_rc 4 g exporter --listen 127.0.0.1:0 --auth
check "--auth without a token says how to store one" '[[ $ERR == *"gpurent login exporter"* ]]'
printf 's3cret-token\n' | g login exporter --stdin 2>/dev/null || fail "login exporter"
start_exporter --auth
for ((i = 0; i < 100; i++)); do
	scrape -H "Authorization: Bearer s3cret-token"
	[ "$CODE" = 200 ] && break
	sleep 0.1
done
check "the right token scrapes" '[ "$CODE" = 200 ] && grep -q "^gpurent_instance_up" <<<"$OUT"'
scrape
check "no token: 401" '[ "$CODE" = 401 ] && [ -z "$(grep gpurent_ <<<"$OUT")" ]'
scrape -H "Authorization: Bearer s3cret-tokeN"
check "a wrong token: 401" '[ "$CODE" = 401 ]'

expect_rc 2 g exporter --listen nowhere
check "a bad --listen explained" '[[ $ERR == *"--listen takes HOST:PORT"* ]]'
expect_rc 2 g exporter --interval 0
expect_rc 2 g exporter extra
pass
