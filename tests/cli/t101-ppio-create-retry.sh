#!/bin/bash
# A PPIO create is never sent twice blindly: when the create was acted on and its answer
# lost (a 500 after acting), the backend finds the instance by its name and reports it, and
# the provider has exactly one. When the create was not acted on, it is sent again once the
# list says there is none.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

export GPURENT_SIM_TIME=1780000000
start_serve ppio --api-key k --fail-first-acted 1 --fail-match product_id \
    --log-requests "$TMP/requests.jsonl"
use_provider ppio k

# An offer the simulator has a machine for: its cheapest free 1-GPU machine, in the PPIO
# region the dialect names its region by (dialect_ppio.c), so that the create is the one
# the fault hits.
sim=$(g --provider sim -o json offers gpus=1 type=on-demand 2>/dev/null |
    jq -c '[.[] | select(.available > 0)][0]')
case $(jq -r .region <<<"$sim") in
na-east) region=cn-east-1 ;; na-central) region=cn-central-1 ;; na-west) region=cn-south-1 ;;
eu-west) region=cn-north-1 ;; eu-central) region=cn-north-2 ;; eu-north) region=cn-northwest-1 ;;
as-east) region=cn-east-2 ;; as-south) region=cn-south-2 ;; oc-east) region=cn-southwest-1 ;;
*) region=cn-southwest-2 ;;
esac
off="ppio:prod-$(jq -r '.gpu | ascii_downcase' <<<"$sim")@$region:1"
expect_ok g launch "$off" --image img --label t101-acted
id=$OUT
creates=$(jq -s '[.[] | select(.method == "POST" and .path == "/gpus/v2/instances")] | length' \
    "$TMP/requests.jsonl")
check "one create sent, not two ($creates)" '[ "$creates" = 1 ]'
check "looked up by name after the 500" \
    'jq -s -e "[.[] | select(.method == \"GET\" and .path == \"/gpus/v2/instances\" and
      (.query | map(select(.[0] == \"name\" and .[1] == \"t101-acted\")) | length > 0))] | length > 0" \
      "$TMP/requests.jsonl" >/dev/null'
expect_ok g --provider ppio -o json ls
check "exactly one instance named t101-acted" \
    '[ "$(jq "[.[] | select(.label == \"t101-acted\")] | length" <<<"$OUT")" = 1 ]'
check "and it is the one reported" \
    '[ "$(jq -r ".[] | select(.label == \"t101-acted\") | .id" <<<"$OUT")" = "$id" ]'
pass
