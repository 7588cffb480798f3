#!/bin/bash
# `gpurent sim serve --latency` stops on SIGTERM (and SIGINT) while a request is held by the
# latency: the held request is dropped, the server exits 0 promptly, not when the latency
# (here 10 minutes) is over. The bounds below are generous; nothing is timed finer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

for sig in TERM INT; do
	log=$TMP/requests-$sig.jsonl
	start_serve vast --api-key k --latency 600000 --log-requests "$log"
	use_provider vast k
	# The request is logged as it comes in, before the latency: once it is there, it is held.
	g --provider vast offers >"$TMP/client-$sig.out" 2>&1 &
	client=$!
	CLEANUP_HOOKS+=("kill $client 2>/dev/null")
	wait_until 300 '[ -s "$log" ]' || fail "the request never reached the server"
	check "SIG$sig held one request in the latency" '[ "$(wc -l <"$log")" = 1 ]'
	kill -s "$sig" "$SERVE_PID"
	if ! wait_until 300 '! kill -0 "$SERVE_PID" 2>/dev/null'; then
		kill -KILL "$SERVE_PID"
		fail "sim serve still runs 30 s after SIG$sig with a request in its latency"
	fi
	wait "$SERVE_PID"
	RC=$?
	ERR=$(cat "$TMP/serve-vast-"*.err)
	check "sim serve exits 0 on SIG$sig (got $RC)" '[ "$RC" = 0 ]'
	wait_until 300 '! kill -0 "$client" 2>/dev/null' || fail "the held client never returned"
	wait "$client"
	RC=$?
	OUT=$(cat "$TMP/client-$sig.out")
	check "the held request got no reply: the client failed (status $RC)" '[ "$RC" != 0 ]'
done
pass
