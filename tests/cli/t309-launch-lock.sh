#!/bin/bash
# Concurrent launches take turns for the budget check: with room for one instance, of
# three launches at once exactly one is accepted, even when each launch takes a while at
# the provider (vast, pointed at `gpurent sim serve` answering after 300 ms).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key test-key-vast --latency 300
use_provider vast test-key-vast

# Vast offers are one machine each: the three cheapest, with prices p1 <= p2 <= p3.
expect_ok g -p vast offers type=on-demand -o json
mapfile -t offers < <(jq -r '.[0:3][] | .id' <<<"$OUT")
mapfile -t prices < <(jq -r '.[0:3][] | .price_hour * 1000000 | round' <<<"$OUT")
check "three offers (${offers[*]} at ${prices[*]} micro-dollars/h)" \
	'[ ${#offers[@]} = 3 ] && [ "${prices[0]}" -le "${prices[2]}" ]'
# Room for any one of them until the end of this month (UTC, wall clock), not for two:
# halfway between p3 and p1 + p2.
now=$(date -u +%s)
month_end=$(date -u -d "$(date -u +%Y-%m-01) +1 month" +%s)
expect_ok g config set budget.month "$(awk "BEGIN { printf \"%.6f\", (${prices[2]} + ${prices[0]} + ${prices[1]}) / 2 * ($month_end - $now) / 3600 / 1e6 }")"

pids=()
for i in 0 1 2; do
	g launch "${offers[$i]}" --label "race$i" >"$TMP/launch.$i" 2>"$TMP/launch.$i.err" &
	pids+=($!)
done
ok=0 refused=0 other=0
for pid in "${pids[@]}"; do
	wait "$pid"
	case $? in
	0) ok=$((ok + 1)) ;;
	9) refused=$((refused + 1)) ;;
	*) other=$((other + 1)) ;;
	esac
done
ERR=$(cat "$TMP"/launch.*.err)
check "one launch accepted ($ok), two refused by budget.month ($refused), no other outcome ($other)" \
	'[ $ok = 1 ] && [ $refused = 2 ] && [ $other = 0 ]'
expect_ok g -p vast ls -o json
check "one instance at the provider" '[ "$(jq length <<<"$OUT")" = 1 ]'
expect_ok g -p vast costs -o json
check "it is counted as provisioning or billing" \
	'jq -e "(.provisioning_hour + .burn_hour) > 0" <<<"$OUT" >/dev/null'
pass
