# lib.sh - replay a recorded client session against `gpurent sim serve` and check every answer.
# Source after ../cli/lib.sh and ../cli/serve.sh.
#
# A recording (tests/data/*-cli/requests.jsonl) has one JSON object a line, as
# `sim serve --log-requests` writes them ({"method","path","query","body","key"}), plus the
# lines the recording script added between the client's commands:
#   {"command": "show instances"}   the client command whose requests follow
#   {"advance": "10m"}              the simulated clock moved (`gpurent sim advance`, run
#                                   on the world of the last server started, $SERVE_HOME)
#
#   replay_recording FILE   replay every request in order against $SERVE_URL; for each one
#                           set METHOD, RPATH, COMMAND, STATUS, CTYPE, RETRY_AFTER and the
#                           body in $TMP/reply, then call the test's check_reply, which must
#                           say what it checked (every request needs a check: a recording
#                           with a call nobody checks fails)
#   want_status N / want_ctype TYPE / want_jq DESC FILTER / want_no_retry_after
#                           the assertions check_reply uses (jq -e FILTER on the body)
REPLAYED=0

want_status() {
	local want=$1
	check "$COMMAND: $METHOD $RPATH answers $want (got $STATUS)" '[ "$STATUS" = "$want" ]'
}

want_ctype() {
	local want=$1
	check "$COMMAND: $METHOD $RPATH has Content-Type exactly '$want' (got '$CTYPE')" \
	    '[ "$CTYPE" = "$want" ]'
}

want_jq() {
	local desc=$1 filter=$2
	check "$COMMAND: $METHOD $RPATH: $desc" 'jq -e "$filter" "$TMP/reply" >/dev/null 2>&1'
}

want_no_retry_after() {
	check "$COMMAND: $METHOD $RPATH has no Retry-After" '[ -z "$RETRY_AFTER" ]'
}

# The query string of a recorded request, each name and value percent-encoded again.
recorded_query() {
	jq -r '[.query[] | (.[0] | @uri) + "=" + (.[1] // "" | @uri)] | join("&")' <<<"$1"
}

replay_recording() {
	local file=$1 line q url n=0
	local -a auth
	COMMAND="(none)"
	[ -s "$file" ] || fail "no recording at $file"
	while IFS= read -r line; do
		n=$((n + 1))
		[ $n -le 10000 ] || fail "recording longer than 10000 lines"
		if jq -e 'has("command")' <<<"$line" >/dev/null; then
			COMMAND=$(jq -r .command <<<"$line")
			continue
		fi
		if jq -e 'has("advance")' <<<"$line" >/dev/null; then
			GPURENT_HOME=$SERVE_HOME "$GPURENT" sim advance "$(jq -r .advance <<<"$line")" \
			    >/dev/null ||
			    fail "sim advance failed"
			continue
		fi
		METHOD=$(jq -r .method <<<"$line")
		RPATH=$(jq -r .path <<<"$line")
		q=$(recorded_query "$line")
		url="$SERVE_URL$RPATH${q:+?$q}"
		auth=()
		if [ "$(jq -r .key <<<"$line")" = true ]; then
			auth=(-H "Authorization: Bearer $REPLAY_KEY")
		fi
		jq -j .body <<<"$line" >"$TMP/request"
		if [ -s "$TMP/request" ]; then
			STATUS=$(curl -s -m 20 -X "$METHOD" "${auth[@]+"${auth[@]}"}" \
			    -H 'Content-Type: application/json' --data-binary @"$TMP/request" \
			    -D "$TMP/headers" -o "$TMP/reply" -w '%{http_code}' "$url")
		else
			STATUS=$(curl -s -m 20 -X "$METHOD" "${auth[@]+"${auth[@]}"}" \
			    -D "$TMP/headers" -o "$TMP/reply" -w '%{http_code}' "$url")
		fi
		CTYPE=$(sed -n 's/^[Cc]ontent-[Tt]ype: *\([^\r]*\)\r\{0,1\}$/\1/p' "$TMP/headers")
		RETRY_AFTER=$(sed -n 's/^[Rr]etry-[Aa]fter: *\([^\r]*\)\r\{0,1\}$/\1/p' "$TMP/headers")
		REPLAYED=$((REPLAYED + 1))
		local before=$CHECKS
		check_reply
		[ "$CHECKS" -gt "$before" ] || fail "$COMMAND: no check for $METHOD $RPATH"
	done <"$file"
	[ "$REPLAYED" -gt 0 ] || fail "the recording $file holds no requests"
}
