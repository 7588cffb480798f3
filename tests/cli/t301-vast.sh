#!/bin/bash
# vast backend end to end against `gpurent sim serve --dialect vast`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key test-key-vast
use_provider vast test-key-vast

# Offers with filters pushed into vast's query language.
expect_ok g --provider vast -o json offers gpu=h100 gpus=8 price'<=40'
check "offers are vast's" '[ "$(jq -r ".[0].provider" <<<"$OUT")" = vast ]'
check "only 8x H100" '[ "$(jq "[.[] | select(.gpus != 8 or (.gpu | test(\"H100\") | not))] | length" <<<"$OUT")" = 0 ]'
check "prices in range" '[ "$(jq "[.[] | select(.price_hour > 40)] | length" <<<"$OUT")" = 0 ]'
check "no pushdown note" '! grep -q "applied after" <<<"$ERR"'
offer=$(jq -r '.[0].id' <<<"$OUT")
check "vast offer id" '[[ $offer == vast:[0-9]* ]]'

# Launch, list, stop, start, destroy.
expect_ok g launch "$offer" --label t301
id=$OUT
check "vast instance id" '[[ $id == vast:[0-9]* ]]'
expect_ok g --provider vast -o json ls
check "listed" '[ "$(jq -r ".[] | select(.id == \"$id\") | .label" <<<"$OUT")" = t301 ]'
expect_ok serve_g vast sim advance 10m
expect_ok g -o json show "$id"
check "running" '[ "$(jq -r .state <<<"$OUT")" = running ]'
expect_ok g stop --no-wait "$id"
expect_ok serve_g vast sim advance 5m
expect_ok g -o json show "$id"
check "stopped" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_ok g start "$id"
expect_ok serve_g vast sim advance 5m
expect_ok g -o json show "$id"
check "running again" '[ "$(jq -r .state <<<"$OUT")" = running ]'
# A start while still stopping is recorded at once (vast's intended status): the instance
# starts once it has stopped (a stop takes at most 15 s, a start at least 20 s).
expect_ok g stop --no-wait "$id"
expect_ok g start "$id" --timeout 30
expect_ok g -o json show "$id"
check "meant to run again" '[ "$(jq -r .intended_state <<<"$OUT")" = running ]'
expect_ok serve_g vast sim advance 16s
expect_ok g -o json show "$id"
check "started after it had stopped" '[ "$(jq -r .state <<<"$OUT")" = starting ]'
expect_ok g destroy --yes "$id"
expect_ok g --provider vast -o json ls
check "gone" '[ "$(jq "[.[] | select(.id == \"$id\")] | length" <<<"$OUT")" = 0 ]'

# Errors: unknown id, bad key, offer gone.
expect_rc 3 g show vast:99999999
expect_rc 3 g show vast:notanumber
GPURENT_VAST_API_KEY=wrong expect_rc 4 g --provider vast ls
check "auth message" 'grep -q "Invalid user key" <<<"$ERR"'
check "key not echoed" '! grep -q "wrong" <<<"$ERR"'
expect_rc 7 g launch vast:987654321
pass
