#!/usr/bin/env bash
# Messages that say what happened (issue 24 item 16): an address the exporter or `sim serve`
# cannot listen on is named with the reason, as a local failure (status 1, not 5: no
# provider is involved), before libmicrohttpd says anything of its own; group create says
# which of --max and --target-util is missing.
. "$(dirname "$0")/lib.sh"

# 192.0.2.1 is TEST-NET-1 (RFC 5737): no machine has it, and nothing is sent to it.
expect_rc 1 g exporter --listen 192.0.2.1:9400
check "the exporter names the address and why" \
	'[[ $ERR == *"cannot listen on 192.0.2.1:9400: no interface of this machine has that address"* ]]'
check "and nothing of libmicrohttpd's" '[[ $ERR != *"Failed to bind"* ]]'
expect_rc 1 g sim serve --dialect vast --bind 192.0.2.1 --port 8080
check "sim serve too" '[[ $ERR == *"cannot listen on 192.0.2.1:8080: no interface of this machine has that address"* && $ERR != *"Failed to bind"* ]]'

# A port in use: the serve that holds it is started on a free port, then asked for again.
"$GPURENT" sim serve --dialect vast >"$TMP/serve.out" 2>"$TMP/serve.err" &
serve_pid=$!
CLEANUP_HOOKS+=("kill $serve_pid 2>/dev/null; wait $serve_pid 2>/dev/null")
wait_until 300 'grep -q "listening on" "$TMP/serve.out"' || fail "sim serve did not start: $(cat "$TMP/serve.err")"
port=$(sed -n 's/^listening on http:\/\/127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$TMP/serve.out")
check "a port in use ($port)" '[ -n "$port" ]'
expect_rc 1 g exporter --listen "127.0.0.1:$port"
check "a port in use is said as such" '[[ $ERR == *"cannot listen on 127.0.0.1:$port: Address already in use"* ]]'

expect_rc 2 g group create g1 --gpu h100 --max 2
check "only --target-util missing" '[[ $ERR == *"create needs --target-util too"* && $ERR != *"--max and"* ]]'
expect_rc 2 g group create g1 --gpu h100 --target-util 50
check "only --max missing" '[[ $ERR == *"create needs --max too"* && $ERR != *"--target-util"* ]]'
expect_rc 2 g group create g1 --gpu h100
check "both missing" '[[ $ERR == *"create needs --max and --target-util"* ]]'
pass
