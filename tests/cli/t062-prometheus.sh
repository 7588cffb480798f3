#!/usr/bin/env bash
# A real Prometheus scrapes gpurent exporter every second (bearer token included) and,
# through its HTTP API, answers DCGM_FI_DEV_GPU_UTIL for every GPU of every simulated
# running instance, with the labels intact (a hostile one too); the alert rules of
# contrib/prometheus load into it and evaluate without error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/exporter.sh"
command -v prometheus >/dev/null || fail "prometheus is missing: run scripts/install-deps"
export GPURENT_SIM_TIME=1796119200
export GPURENT_PASSPHRASE=t062

hostile='a"b\c},evil="1'
ids=()
for offer in $(g offers type=on-demand -o ids -n 3); do
	ids+=("$(g launch "$offer" --label "$hostile")") || fail "launch $offer"
done
expect_ok g sim advance 2m
expect_ok g ls -o json
gpus=$(jq '[.[] | select(.state == "running") | .gpus] | add' <<<"$OUT")
check "three running instances" '[ "$(jq "[.[] | select(.state == \"running\")] | length" <<<"$OUT")" -eq 3 ]'

printf 'scrape-token\n' | g login exporter --stdin 2>/dev/null || fail "login exporter"
printf 'scrape-token\n' >"$TMP/token"
start_exporter --auth
target=${EXPORTER_URL#http://}
target=${target%/metrics}

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $SRCDIR/contrib/prometheus/alerts.yml
scrape_configs:
  - job_name: gpurent
    authorization:
      credentials_file: $TMP/token
    static_configs:
      - targets: ['$target']
EOF
prometheus --config.file "$TMP/prometheus.yml" --storage.tsdb.path "$TMP/tsdb" \
	--web.listen-address "127.0.0.1:$port" >"$TMP/prometheus.log" 2>&1 &
prom=$!
CLEANUP_HOOKS+=("kill $prom 2>/dev/null; wait $prom 2>/dev/null")
api="http://127.0.0.1:$port/api/v1"

# Bounded: Prometheus starts, scrapes once a second; give it a minute on a loaded machine.
answer=
for ((i = 0; i < 600; i++)); do
	kill -0 "$prom" 2>/dev/null || { cat "$TMP/prometheus.log" >&2; fail "prometheus exited"; }
	answer=$(curl -s --max-time 2 -G "$api/query" --data-urlencode 'query=DCGM_FI_DEV_GPU_UTIL' || true)
	[ "$(jq '.data.result | length' <<<"$answer" 2>/dev/null)" = "$gpus" ] && break
	sleep 0.1
done
OUT=$answer
check "Prometheus answers one utilisation series per GPU ($gpus)" \
	'[ "$(jq ".data.result | length" <<<"$answer")" = "$gpus" ]'
for id in "${ids[@]}"; do
	check "utilisation of $id" \
		'jq -e --arg id "$id" "[.data.result[] | select(.metric.instance_id == \$id and .metric.provider == \"sim\" and (.value[1] | tonumber) >= 0)] | length > 0" <<<"$answer" >/dev/null'
done
check "the hostile label came through whole, as one label" \
	'jq -e --arg l "$hostile" "all(.data.result[]; .metric.label == \$l and (.metric | has(\"evil\") | not))" <<<"$answer" >/dev/null'
check "dcgm-exporter's labels" \
	'jq -e "all(.data.result[]; .metric | has(\"gpu\") and has(\"modelName\") and has(\"Hostname\") and .job == \"gpurent\")" <<<"$answer" >/dev/null'

OUT=$(curl -s --max-time 5 -G "$api/query" --data-urlencode 'query=up{job="gpurent"}')
check "the scrape target is up (the token was accepted)" 'jq -e ".data.result[0].value[1] == \"1\"" <<<"$OUT" >/dev/null'
OUT=$(curl -s --max-time 5 -G "$api/query" --data-urlencode 'query=sum(gpurent_instance_up)')
check "gpurent_instance_up sums to the running instances" 'jq -e ".data.result[0].value[1] == \"3\"" <<<"$OUT" >/dev/null'

OUT=$(curl -s --max-time 5 "$api/rules")
check "the alert rules loaded and evaluate without error" \
	'jq -e "[.data.groups[].rules[]] | length == 8 and all(.[]; .health == \"ok\")" <<<"$OUT" >/dev/null'
pass
