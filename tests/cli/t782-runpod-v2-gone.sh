#!/bin/bash
# runpod.api = auto when RunPod retires REST v2's pods (sim serve --gone /v2/pods answers 410):
# the pod's life falls back to GraphQL, said once per process with -v and not at all without;
# the catalogue, still there, stays on v2. runpod.api = v2 is not moved: the 410 is an error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve runpod --api-key k --gone /v2/pods
use_provider runpod k
note='REST v2 answers 410 for pods; using GraphQL for them'

expect_ok g -v --provider runpod -o json offers gpu=h100 gpus=2
check "offers from v2's catalogue, no fallback said" '[[ $ERR != *"REST v2"* ]]'
offer=$(jq -r '.[0].id' <<<"$OUT")
check "an offer ($offer)" '[[ $offer == runpod:[sc]2-* ]]'
expect_ok g -v launch "$offer" --label t782
id=$OUT
check "launched through GraphQL ($id)" '[[ $id == runpod:* ]]'
check "the fallback said once in the launch (list, then create): $ERR" \
	'[ "$(grep -c "$note" <<<"$ERR")" = 1 ]'
expect_ok serve_g runpod sim advance 10m
expect_ok g -v --provider runpod -o json ls
check "listed" '[ "$(jq -r ".[] | select(.id == \"$id\") | .label" <<<"$OUT")" = t782 ]'
check "said once by ls" '[ "$(grep -c "$note" <<<"$ERR")" = 1 ]'
expect_ok g --provider runpod -o json ls
check "not said without -v" '[[ $ERR != *"REST v2"* ]]'
expect_ok g -v stop --no-wait "$id"
check "stop said it once" '[ "$(grep -c "$note" <<<"$ERR")" = 1 ]'
expect_ok serve_g runpod sim advance 5m
expect_ok g -o json show "$id"
check "stopped through GraphQL" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_rc 3 g show runpod:nosuchpod
check "an unknown pod is still not found" '[[ $ERR == *runpod:nosuchpod* ]]'

# v2 mode keeps to v2: the retired API is an error, not a silent change of course.
g config set runpod.api v2 >/dev/null || fail "config set runpod.api v2"
expect_rc 3 g -v --provider runpod ls
check "v2 mode names the retirement: $ERR" '[[ $ERR == *"retired"*"410"* && $ERR != *"$note"* ]]'
g config set runpod.api graphql >/dev/null || fail "config set runpod.api graphql"
expect_ok g -v --provider runpod -o json ls
check "graphql mode: listed, nothing said" \
	'[ "$(jq -r ".[] | select(.id == \"$id\") | .state" <<<"$OUT")" = stopped ] && [[ $ERR != *"REST v2"* ]]'
expect_ok g destroy --yes "$id"
expect_rc 2 g config set runpod.api rest
check "runpod.api takes only v2, graphql or auto" '[[ $ERR == *"v2, graphql or auto"* ]]'
pass
