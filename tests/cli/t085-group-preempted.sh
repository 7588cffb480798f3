#!/bin/bash
# Members lost to preemption are replaced: a group of two interruptible members (base 0,
# burst interruptible) bid at the market price (spot.bid_margin 0), so the market's first
# rise takes one back; the pass that sees it launches a replacement (interruptible, by
# requirement) and destroys the lost member, so the group is two again, never three.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

export GPURENT_SIM_TIME=1767225600	# 2026-01-01T00:00:00Z
expect_ok g config set spot.bid_margin 0
gpu=$(g -o json offers gpus=1 type=interruptible | jq -r '.[0].gpu')
check "an interruptible GPU on the market ($gpu)" '[ -n "$gpu" ] && [ "$gpu" != null ]'
expect_ok g group create spot --gpu "$gpu" --min 2 --max 2 --target-util 50 --base 0 \
	--burst interruptible --env SIM_WORKLOAD=tidal
expect_ok g watch --once --interval 1h
check "two members launched, interruptible: $OUT" \
	'[ "$(g -o json ls --group spot | jq "[.[] | select(.type == \"interruptible\")] | length")" = 2 ]'

# Hour by hour until the market takes one back (a bounded wait on the simulated clock).
lost=""
for ((i = 0; i < 96; i++)); do
	[ -z "$lost" ] || break
	expect_ok g sim advance 1h
	expect_ok g watch --once --interval 1h
	events_json
	lost=$(jq -r '[.[] | select(.kind == "preempted" and .label == "group:spot")][0].instance_id // ""' <<<"$EV")
	n=$(g -o json ls --group spot | jq '[.[] | select(.state == "running" or .state == "provisioning")] | length')
	check "hour $i: $n live members, never more than max 2" '[ "$n" -le 2 ]'
done
check "the market took a member back within four days" '[ -n "$lost" ]'
check "the same pass replaced it: $OUT" \
	'[[ $OUT == *"group-out: group spot scales out by 1 (replace; 0 on-demand, 1 interruptible)"*"1 lost to preemption"* ]]'
check "and destroyed the lost member" \
	'[ "$(jq --arg id "$lost" "[.[] | select(.kind == \"destroy-ordered\" and .instance_id == \$id and .policy == \"group\")] | length" <<<"$EV")" = 1 ]'
replacement=$(jq -r '[.[] | select(.kind == "group-launched")][-1].instance_id' <<<"$EV")
check "a new member ($replacement), not the lost one" '[ "$replacement" != "$lost" ] && [ "$(count_events group-launched)" = 3 ]'
expect_ok g sim advance 1m
expect_ok g watch --once --interval 1h
live=$(g -o json ls --group spot | jq -c '[.[] | select(.state == "running" or .state == "provisioning") | .id] | sort')
check "two live members again, the replacement among them: $live" \
	'[ "$(jq length <<<"$live")" = 2 ] && jq -e --arg r "$replacement" "index(\$r) != null" <<<"$live" >/dev/null'
check "the lost member is gone: $(state_of "$lost" 2>&1)" \
	'g -o json ls | jq -e --arg id "$lost" "any(.[]; .id == \$id and .state != \"destroyed\") | not" >/dev/null'
pass
