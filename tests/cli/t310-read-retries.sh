#!/bin/bash
# Reads are retried like a GET, a 500 included: RunPod's GraphQL queries go through a
# server whose first answers are 500s. Mutations are not repeated blindly: a launch whose
# reply was a 500 after the pod was made is looked up, not sent again; a stop answered 500
# is reported, not resent. In the API mode RUNPOD_API names (runpod.api; unset: graphql);
# t783 runs it with v2, where the same requests are v2's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
# The market holds still: its one offer is launched three times, whatever the wall clock.
export GPURENT_SIM_TIME=1790000000

mode=${RUNPOD_API:-graphql}
# What the faults match and what the trace shows leaving, in each mode. ('desiredStatus' is
# in the deploy mutation and in the pod queries, not in the offers query; v2's pods are all
# under /v2/pods.)
if [ "$mode" = v2 ]; then
	m_offers=/v2/catalog/gpus m_pods=/v2/pods m_pod=/v2/pods m_create='"startSsh":true'
	m_all_pods=/v2/pods m_stop='"action":"stop"'
	t_list='^runpod: > GET /v2/pods ' t_stop='^runpod: >> .*"action":"stop"'
else
	m_offers='query GpuTypes' m_pods='query Pods' m_pod='query Pod(' m_create='mutation Deploy'
	m_all_pods=desiredStatus m_stop='mutation Stop'
	t_list='^runpod: >> .*query Pods' t_stop='^runpod: >> .*mutation Stop'
fi
t_deploy='^runpod: >> .*"startSsh":true'

# deploys FILE: how many launch requests a --debug trace shows leaving.
deploys() {
	grep -c "$t_deploy" "$1"
}

# lists_and_deploys FILE: the order of pod lists and launches in a trace ("list,deploy,...").
lists_and_deploys() {
	grep -E "$t_list|$t_deploy" "$1" | sed -E "s|$t_deploy.*|deploy|; s|$t_list.*|list|" |
	    uniq | tr '\n' ,
}

# Three 500s on the offers query: retried with backoff, then the answer.
start_serve runpod --api-key k --fail-first 3 --fail-match "$m_offers"
use_provider runpod k
g config set runpod.api "$mode" >/dev/null || fail "config set runpod.api $mode"
run g --debug --provider runpod -o json offers gpu=h100 gpus=2
check "offers succeeded through three 500s (status $RC)" '[ "$RC" = 0 ]'
check "every 500 retried" '[ "$(grep -c "retry [0-9]* in" <<<"$ERR")" = 3 ]'
offer=$(jq -r '.[0].id' <<<"$OUT")
check "an offer ($offer)" '[[ $offer == runpod:* ]]'

# The pod list and one pod's details are reads too.
start_serve runpod --api-key k --fail-first 2 --fail-match "$m_pods"
use_provider runpod k
expect_ok g --provider runpod -o json ls
start_serve runpod --api-key k --fail-first 2 --fail-match "$m_pod"
use_provider runpod k
expect_ok g --provider runpod -o json ls

# A launch answered 500 after the pod was made: looked up by its name, never sent again.
start_serve runpod --api-key k --fail-first-acted 1 --fail-match "$m_create"
use_provider runpod k
"$GPURENT" --debug launch "$offer" --label t308 >"$TMP/launch.out" 2>"$TMP/launch.err"
rc=$?
check "the launch was found after the 500 (status $rc)" '[ $rc = 0 ]'
check "one deploy mutation sent ($(deploys "$TMP/launch.err"))" '[ "$(deploys "$TMP/launch.err")" = 1 ]'
id=$(cat "$TMP/launch.out")
expect_ok g --provider runpod -o json ls
check "exactly one pod labelled t308" '[ "$(jq "[.[] | select(.label == \"t308\")] | length" <<<"$OUT")" = 1 ]'
check "and it is the one reported" '[ "$(jq -r ".[] | select(.label == \"t308\") | .id" <<<"$OUT")" = "$id" ]'

# A launch answered 500 before anything was made: looked up (absent), then sent again.
start_serve runpod --api-key k --fail-first 1 --fail-match "$m_create"
use_provider runpod k
"$GPURENT" --debug launch "$offer" --label t308b >"$TMP/launch.out" 2>"$TMP/launch.err"
rc=$?
check "the second launch succeeded (status $rc)" '[ $rc = 0 ]'
# (The first look, before the first send, notes the pods that already wore the label.)
check "sent twice, with a look at the pods between" \
	'[ "$(lists_and_deploys "$TMP/launch.err")" = "list,deploy,list,deploy," ]'
expect_ok g --provider runpod -o json ls
check "one pod labelled t308b" '[ "$(jq "[.[] | select(.label == \"t308b\")] | length" <<<"$OUT")" = 1 ]'

# A launch answered 500 after the pod was made, and then every look at the pods failing too:
# the outcome cannot be confirmed, so it is reported unknown (5), never sent again blindly.
# ('desiredStatus' is in the deploy mutation and in the pod queries, not in the offers query.)
start_serve runpod --api-key k --fail-first-acted 100 --fail-match "$m_all_pods"
use_provider runpod k
"$GPURENT" --debug launch "$offer" --label t308c >"$TMP/launch.out" 2>"$TMP/launch.err"
rc=$?
check "the launch's outcome is unknown (status $rc)" \
	'[ $rc = 5 ] && grep -q "outcome unknown" "$TMP/launch.err"'
check "one deploy mutation sent ($(deploys "$TMP/launch.err"))" '[ "$(deploys "$TMP/launch.err")" = 1 ]'
start_serve runpod --api-key k
use_provider runpod k
expect_ok g --provider runpod -o json ls
check "one pod labelled t308c, the one the first deploy made" \
	'[ "$(jq "[.[] | select(.label == \"t308c\")] | length" <<<"$OUT")" = 1 ]'

# A stop answered 500 is not repeated: the provider may have acted half way.
expect_ok serve_g runpod sim advance 10m
start_serve runpod --api-key k --fail-first 1 --fail-match "$m_stop"
use_provider runpod k
"$GPURENT" --debug stop "$id" >"$TMP/stop.out" 2>"$TMP/stop.err"
rc=$?
check "the stop failed as unavailable (status $rc)" '[ $rc = 5 ]'
check "one stop sent" '[ "$(grep -c "$t_stop" "$TMP/stop.err")" = 1 ]'
pass
