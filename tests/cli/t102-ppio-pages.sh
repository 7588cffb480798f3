#!/bin/bash
# The PPIO instance list follows next_cursor to the last page: twelve instances on pages of
# five (the simulator's page size) are all listed, in three requests, each after the first
# carrying the cursor the previous page gave.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

export GPURENT_SIM_TIME=1780000000
start_serve ppio --api-key k --log-requests "$TMP/requests.jsonl"
use_provider ppio k

n=0
for off in $(g --provider ppio -o json offers gpus=1 2>/dev/null | jq -r '.[].id'); do
	[ $n -lt 12 ] || break
	body=$(jq -nc --arg p "$(sed 's/^ppio://; s/@.*//' <<<"$off")" --arg n "t102-$n" \
	    '{name: $n, product_id: $p, image: "img", billing: {mode: "postpaid"},
	      resource: {gpu_num: 1}}')
	code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer k' \
	    -H 'Content-Type: application/json' -d "$body" "$SERVE_URL/gpus/v2/instances")
	[ "$code" = 200 ] && n=$((n + 1))
done
check "twelve instances made ($n)" '[ $n = 12 ]'
: >"$TMP/requests.jsonl"
expect_ok g --provider ppio -o json ls
check "all twelve listed" '[ "$(jq "[.[] | select(.label | startswith(\"t102-\"))] | length" <<<"$OUT")" = 12 ]'
check "no duplicates" '[ "$(jq "[.[].id] | unique | length" <<<"$OUT")" = 12 ]'
lists=$(jq -s '[.[] | select(.method == "GET" and .path == "/gpus/v2/instances")]' "$TMP/requests.jsonl")
check "three pages asked for" '[ "$(jq length <<<"$lists")" = 3 ]'
check "the first without a cursor, the others with one" \
    'jq -e "(.[0].query | map(.[0]) | index(\"cursor\") == null) and
      all(.[1:][]; .query | map(select(.[0] == \"cursor\" and (.[1] | length > 0))) | length == 1)" \
      <<<"$lists" >/dev/null'
pass
