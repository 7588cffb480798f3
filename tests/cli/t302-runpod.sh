#!/bin/bash
# RunPod backend end to end against `gpurent sim serve --dialect runpod` (GraphQL).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve runpod --api-key test-key-runpod
use_provider runpod test-key-runpod

expect_ok g --provider runpod -o json offers gpu=h100 gpus=2
check "runpod offers" '[ "$(jq -r ".[0].provider" <<<"$OUT")" = runpod ]'
check "2x H100 only" '[ "$(jq "[.[] | select(.gpus != 2)] | length" <<<"$OUT")" = 0 ]'
offer=$(jq -r '.[0].id' <<<"$OUT")
check "offer id" '[[ $offer == runpod:[sc]2-* ]]'

expect_ok g launch "$offer" --label t302
id=$OUT
check "pod id" '[[ $id == runpod:* ]]'
expect_ok g sim advance 10m
expect_ok g -o json show "$id"
check "running" '[ "$(jq -r .state <<<"$OUT")" = running ]'
expect_ok g --provider runpod -o json ls
check "listed" '[ "$(jq -r ".[] | select(.id == \"$id\") | .label" <<<"$OUT")" = t302 ]'
expect_ok g stop --no-wait "$id"
expect_ok g sim advance 5m
expect_ok g -o json show "$id"
check "stopped" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_ok g start "$id"
expect_ok g sim advance 5m
expect_ok g metrics "$id"
expect_ok g destroy --yes "$id"
expect_rc 3 g show "$id"

expect_rc 3 g show runpod:nosuchpod
RUNPOD_API_KEY=x GPURENT_RUNPOD_API_KEY=wrong expect_rc 4 g --provider runpod ls
# No capacity: a GPU count no machine has.
expect_rc 7 g launch runpod:s64-NVIDIA+H100+80GB+HBM3
pass
