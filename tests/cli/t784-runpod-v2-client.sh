#!/bin/bash
# A RunPod REST v2 client written from the documented shapes alone (tests/clients/runpod-v2.py,
# python3's standard library) runs a pod's whole life against `sim serve --dialect runpod`:
# catalogue, create, get, list, stop, start, logs, billing, ssh keys, delete, and the create
# failures by status. What it did is what gpurent sees.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

command -v python3 >/dev/null || { echo "# SKIP $TEST_NAME: no python3"; exit 77; }
# The pod's provisioning and stop take simulated minutes: a fast clock for the client.
GPURENT_SIM_SPEED=600 start_serve runpod --api-key client-key
run python3 "$SRCDIR/tests/clients/runpod-v2.py" "$SERVE_URL" client-key
CHECKS=$((CHECKS + 1))
[ "$RC" = 0 ] || fail "the client failed: $ERR"
check "catalogue read" 'grep -q "^catalogue: [1-9][0-9]* types" <<<"$OUT"'
check "created and running" 'grep -q "^created: sp[0-9]\{12\} PROVISIONING" <<<"$OUT" && grep -q "^running: cost [0-9.]*[1-9]" <<<"$OUT"'
check "stopped at no cost, and started" 'grep -q "^stopped: cost 0 actions start,terminate" <<<"$OUT" && grep -q "^started" <<<"$OUT"'
check "billed and deleted" 'grep -q "^billing: " <<<"$OUT" && grep -q "^deleted: sp" <<<"$OUT"'
check "errors as problem+json" 'grep -q "^errors: problem+json by status" <<<"$OUT"'
use_provider runpod client-key
expect_ok g --provider runpod -o json ls
check "the client's pod is gone for gpurent too" \
	'[ "$(jq "[.[] | select(.label == \"v2-client\")] | length" <<<"$OUT")" = 0 ]'
pass
