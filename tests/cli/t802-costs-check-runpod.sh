#!/bin/bash
# Issue 29.3: `costs --check` against `gpurent sim serve --dialect runpod`, whose simulated
# provider serves its bill as REST v2's GET /v2/billing/pods (a day's bucket per pod). All is
# well for the cheapest pod; then the provider bills a pod gpurent never saw and its disk.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/bill.sh"

start_serve runpod --api-key test-key-runpod
use_provider runpod test-key-runpod
expect_ok g config set providers runpod

rent_cheapest
num=$((10#${id#runpod:sp}))
sim_id=$(printf 'sim:i-%06d' "$num")
expect_ok serve_g runpod sim advance 2m
expect_ok g show "$id" -o json
check "running" '[ "$(jq -r .state <<<"$OUT")" = running ]'
expect_ok g costs --check -o json
check_matches

expect_ok serve_g runpod sim bill-extra "$sim_id" 0.40 storage
expect_ok serve_g runpod sim bill-extra sim:i-000066 3.25
expect_rc 14 g costs --check -o json
check_unseen runpod:sp000000000066 3250000
check_storage 400000
pass
