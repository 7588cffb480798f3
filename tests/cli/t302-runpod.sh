#!/bin/bash
# RunPod backend end to end against `gpurent sim serve --dialect runpod`, in the API mode
# RUNPOD_API names (runpod.api: v2, graphql; unset: the default, auto). t780 and t781 run it in
# the other two.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve runpod --api-key test-key-runpod
use_provider runpod test-key-runpod
if [ -n "${RUNPOD_API-}" ]; then
	g config set runpod.api "$RUNPOD_API" >/dev/null || fail "config set runpod.api"
fi

expect_ok g --provider runpod -o json offers gpu=h100 gpus=2
check "runpod offers" '[ "$(jq -r ".[0].provider" <<<"$OUT")" = runpod ]'
check "2x H100 only" '[ "$(jq "[.[] | select(.gpus != 2 or (.gpu | startswith(\"H100\") | not))] | length" <<<"$OUT")" = 0 ]'
check "every offer priced" 'jq -e "length > 0 and all(.[]; .price_hour > 0)" <<<"$OUT" >/dev/null'
offer=$(jq -r '.[0].id' <<<"$OUT")
check "offer id" '[[ $offer == runpod:[sc]2-* ]]'

expect_ok g launch "$offer" --label t302
id=$OUT
check "pod id" '[[ $id == runpod:* ]]'
expect_ok serve_g runpod sim advance 10m
expect_ok g -o json show "$id"
check "running" '[ "$(jq -r .state <<<"$OUT")" = running ]'
expect_ok g --provider runpod -o json ls
check "listed" '[ "$(jq -r ".[] | select(.id == \"$id\") | .label" <<<"$OUT")" = t302 ]'
expect_ok g stop --no-wait "$id"
expect_ok serve_g runpod sim advance 5m
expect_ok g -o json show "$id"
check "stopped" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_ok g start "$id"
check "start names the pod" '[ "$OUT" = "$id" ]'
expect_ok serve_g runpod sim advance 5m
expect_ok g -o json show "$id"
check "running again" '[ "$(jq -r .state <<<"$OUT")" = running ]'
expect_ok g -o json metrics "$id"
# One sample per GPU of the pod, a utilisation in range, taken now (RunPod gives no time).
now=$(date -u +%s)
check "a sample per GPU" '[ "$(jq -c "[.[] | select(.instance_id == \"$id\") | .gpu]" <<<"$OUT")" = "[0,1]" ]'
check "utilisation 0-100" 'jq -e "all(.[]; .util_pct >= 0 and .util_pct <= 100)" <<<"$OUT" >/dev/null'
check "sample time is now, not the epoch" \
	'jq -e "all(.[]; (.time | fromdateiso8601) - $now | fabs < 120)" <<<"$OUT" >/dev/null'
expect_ok g destroy --yes "$id"
check "destroy names the pod" '[ "$OUT" = "$id" ]'
expect_rc 3 g show "$id"
expect_ok g --provider runpod -o json ls
check "gone from the list" '[ "$(jq "[.[] | select(.id == \"$id\")] | length" <<<"$OUT")" = 0 ]'

expect_rc 3 g show runpod:nosuchpod
check "unknown pod named" '[[ $ERR == *runpod:nosuchpod* ]]'
RUNPOD_API_KEY=x GPURENT_RUNPOD_API_KEY=wrong expect_rc 4 g --provider runpod ls
check "rejected key explained" '[[ $ERR == *"API key rejected"* ]]'
# No capacity: a GPU count no machine has.
expect_rc 7 g launch runpod:s64-NVIDIA+H100+80GB+HBM3
check "no such offer explained" '[[ $ERR == *runpod:s64-NVIDIA+H100+80GB+HBM3*"not on the market"* ]]'
pass
