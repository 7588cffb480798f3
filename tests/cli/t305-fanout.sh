#!/bin/bash
# Parallel fan-out: three providers, each answering after 300 ms, are queried at once; one
# that fails leaves the others' results intact and the exit status says partial failure.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

for p in vast runpod lambda; do
	start_serve "$p" --api-key k --latency 300
	use_provider "$p" k
done
# How long the fan-out takes against the sum is measured in bench/providers.sh, not here.
expect_ok g --provider vast --provider runpod --provider lambda -o json offers gpus=1
check "three providers answered" '[ "$(jq "[.[].provider] | unique | length" <<<"$OUT")" = 3 ]'

# A provider that is down: the others still answer, it is named, exit 10.
export GPURENT_RUNPOD_URL=http://127.0.0.1:1
expect_rc 10 g --provider vast --provider runpod --provider lambda -o json offers gpus=1
check "others intact" '[ "$(jq "[.[].provider] | unique | join(\",\")" -r <<<"$OUT")" = lambda,vast ]'
check "failed one named" 'grep -q "runpod" <<<"$ERR"'
pass
