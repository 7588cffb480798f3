#!/usr/bin/env bash
# sim preempt on a served world: each dialect reports the loss as its provider does (vast: an
# outbid contract stopped while still intended running, a dead host offline, a quiet one
# unknown; RunPod: a spot pod EXITED, a dead one DEAD; Lambda: preempted; PPIO: exited, with
# an error when it failed), and gpurent's backend for it shows the state and the provider's
# words; an unreachable instance keeps running at its provider on a port that refuses. The
# interruptible ones are launched by id (the launch door finds them among the interruptible
# offers).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
export GPURENT_SIM_TIME=1790000000

# The served world's id of the Nth instance launched in it (the simulator numbers them).
sim_id() { printf 'sim:i-%06d\n' "$1"; }
# One field of the dialect's own JSON for the client's instance id, by the provider's path.
raw() {
	curl -sf -H "Authorization: Bearer k" "$SERVE_URL$1" | jq -c "$2"
}

# Launch the first of a type's offers that can be had (PPIO's stock is advisory: some are sold
# out), printing the instance's id.
launch_any() {
	local off
	for off in $(g offers gpus=1 "type=$1" -o ids -n 12); do
		g launch "$off" -o ids 2>/dev/null && return 0
	done
	return 1
}

for d in vast runpod lambda ppio; do
	start_serve "$d" --api-key k
	use_provider "$d" k
	expect_ok g config set providers "$d"
	[ "$d" = ppio ] && expect_ok g config set ppio.image pytorch/pytorch
	od=$(launch_any on-demand) || fail "$d: on-demand launch"
	n=1
	if [ "$d" != lambda ]; then
		spot=$(launch_any interruptible) || fail "$d: interruptible launch"
		n=2
	fi
	quiet=$(launch_any on-demand) || fail "$d: second on-demand launch"
	expect_ok serve_g "$d" sim advance 5m
	check "$d: every instance runs" \
		'[ "$(g ls -o json | jq "[.[] | select(.state == \"running\")] | length")" = $((n + 1)) ]'
	expect_ok g watch --once

	# A host failure of the first on-demand instance.
	expect_ok serve_g "$d" sim preempt "$(sim_id 1)" --reason host-failure
	expect_ok g show "$od" -o json
	case $d in
	lambda) words=preempted ;;
	ppio) words="instance failed" ;;
	*) words="host failure" ;;
	esac
	check "$d: the dead host is failed, in the provider's words '$words' ($OUT)" \
		'jq -e --arg w "$words" ".state == \"failed\" and (.status | contains(\$w))" <<<"$OUT" >/dev/null'

	# An interruptible one outbid: stopped, with the provider's word for it.
	if [ -n "${spot:-}" ] && [ "$d" != lambda ]; then
		expect_ok serve_g "$d" sim preempt "$(sim_id 2)" --reason outbid
		expect_ok g show "$spot" -o json
		check "$d: the outbid instance is stopped, saying outbid ($OUT)" \
			'jq -e ".state == \"stopped\" and (.status | contains(\"outbid\"))" <<<"$OUT" >/dev/null'
	fi

	# Unreachable: its provider runs it on, its ssh port refuses (Lambda's is always 22).
	expect_ok serve_g "$d" sim preempt "$(sim_id $((n + 1)))" --reason unreachable
	expect_ok g show "$quiet" -o json
	if [ "$d" = lambda ]; then
		check "$d: the quiet one still runs ($OUT)" 'jq -e ".state == \"running\"" <<<"$OUT" >/dev/null'
	else
		check "$d: the quiet one still runs, ssh on port 1 ($OUT)" \
			'jq -e ".state == \"running\" and .ssh_port == 1" <<<"$OUT" >/dev/null'
	fi
	expect_ok serve_g "$d" sim advance 10m
	expect_ok g show "$quiet" -o json
	check "$d: 10m later the quiet one is failed ($OUT)" 'jq -e ".state == \"failed\"" <<<"$OUT" >/dev/null'

	# The watcher reports every loss as preempted.
	expect_ok g watch --once
	expect_ok g events -o json
	check "$d: a preempted event for each loss" \
		'[ "$(jq --arg p "$d:" "[.[] | select(.kind == \"preempted\" and (.instance_id | startswith(\$p)))] | length" <<<"$OUT")" = $((n + 1)) ]'

	# The dialect's own words, as the provider's API gives them.
	case $d in
	vast)
		check "vast: the dead host is offline, still intended running" \
			'[ "$(raw "/api/v0/instances/${od#vast:}/" ".instances | [.actual_status, .intended_status]")" = "[\"offline\",\"running\"]" ]'
		check "vast: outbid, the contract is stopped and still intended running" \
			'[ "$(raw "/api/v0/instances/${spot#vast:}/" ".instances | [.actual_status, .intended_status, .cur_state]")" = "[\"stopped\",\"running\",\"stopped\"]" ]'
		check "vast: the quiet one has no heartbeat (unknown)" \
			'[ "$(raw "/api/v0/instances/${quiet#vast:}/" ".instances.actual_status")" = "\"unknown\"" ]'
		;;
	runpod)
		check "runpod: the spot pod is EXITED, the dead ones DEAD" \
			'[ "$(curl -sf -H "Authorization: Bearer k" -H "Content-Type: application/json" -d "{\"query\":\"query { myself { pods { id desiredStatus } } }\"}" "$SERVE_URL/graphql" | jq -c "[.data.myself.pods[] | .desiredStatus] | sort")" = "[\"DEAD\",\"DEAD\",\"EXITED\"]" ]'
		;;
	lambda)
		check "lambda: both are preempted" \
			'[ "$(raw /api/v1/instances "[.data[] | .status] | unique")" = "[\"preempted\"]" ]'
		;;
	ppio)
		check "ppio: the spot one exited without an error" \
			'[ "$(raw "/gpus/v2/instances/${spot#ppio:}" "[.status.status, .status.error]")" = "[\"exited\",\"\"]" ]'
		;;
	esac
	unset spot
	stop_serve
	expect_ok g config set providers sim
done
pass
