#!/bin/bash
# The simulator's Lambda dialect is faithful enough for a third-party client, used unmodified:
# lambda-cloud-node-api (scripts/install-deps installs it into tests/clients/node_modules).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

CLIENTS=$SRCDIR/tests/clients
if ! command -v node >/dev/null || [ ! -d "$CLIENTS/node_modules/lambda-cloud-node-api" ]; then
	echo "# SKIP $TEST_NAME: node or lambda-cloud-node-api not installed (scripts/install-deps installs them)"
	exit 77
fi
start_serve lambda --api-key client-key
export GPURENT_SIM_SPEED=200
run node "$CLIENTS/lambda-node.js" "$SERVE_URL" client-key
CHECKS=$((CHECKS + 1))
[ "$RC" = 0 ] || fail "the client failed"
check "instance types listed" 'grep -q "^types: [1-9]" <<<"$OUT"'
check "launched" 'grep -q "^launched: {\"instance_ids\":\[\"[0-9a-f]\{32\}\"\]}" <<<"$OUT"'
check "listed and fetched" 'grep -q "^running: 1 " <<<"$OUT" && grep -q "^get: [0-9a-f]\{32\} " <<<"$OUT"'
check "terminated" 'grep -q "^terminated: .*:terminating" <<<"$OUT"'
check "a bad key gets Lambda's own error body" 'grep -q "bad key rejected: .*global/invalid-api-key" <<<"$OUT"'
# What the client did is what gpurent sees.
use_provider lambda client-key
expect_ok g --provider lambda -o json ls
check "the client's instance is terminated for gpurent too" \
	'[ "$(jq "[.[] | select(.label == \"node-client\" and .state != \"destroying\" and .state != \"destroyed\")] | length" <<<"$OUT")" = 0 ]'
pass
