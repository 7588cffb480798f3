#!/usr/bin/env bash
# sim serve --preempt-after: every instance launched through the server is taken away that
# long after its launch (outbid when interruptible, else a host failure, or the way
# --preempt-reason names), and with --preempt-seed at a moment and in a way drawn from the
# seed, between half and one and a half times the duration; instances made before or beside
# it are left alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
export GPURENT_SIM_TIME=1790000000

state() { g show "$1" -o json | jq -r .state; }

# The options are checked before anything is served.
for bad in "--preempt-after 0" "--preempt-after 367d" "--preempt-seed 3" \
	"--preempt-reason outbid" "--preempt-after 1h --preempt-reason flood" \
	"--preempt-after 1h --preempt-seed x"; do
	# shellcheck disable=SC2086
	expect_rc 2 g sim serve --dialect runpod $bad
	check "'$bad' is refused with the usage" '[[ $ERR == *--preempt-after* ]]'
done

start_serve runpod --api-key k --preempt-after 30m
use_provider runpod k
expect_ok g config set providers runpod
od=$(launch_fresh type=on-demand -- -o ids) || fail "on-demand launch"
spot=$(launch_fresh type=interruptible -- -o ids) || fail "interruptible launch"
expect_ok serve_g runpod sim advance 29m
check "at 29m both run" '[ "$(state "$od")" = running ] && [ "$(state "$spot")" = running ]'
expect_ok serve_g runpod sim advance 1m
expect_ok g show "$od" -o json
check "at 30m the on-demand one's host failed ($OUT)" \
	'jq -e ".state == \"failed\" and (.status | startswith(\"host failure\"))" <<<"$OUT" >/dev/null'
expect_ok g show "$spot" -o json
check "at 30m the interruptible one is outbid ($OUT)" \
	'jq -e ".state == \"stopped\" and (.status | startswith(\"outbid\"))" <<<"$OUT" >/dev/null'

# The same world served without the option: what it launches is left alone, and what the
# first server launched keeps its fate.
stop_serve
start_serve runpod --api-key k
use_provider runpod k
kept=$(launch_fresh type=on-demand -- -o ids) || fail "launch without --preempt-after"
expect_ok serve_g runpod sim advance 2h
check "no preemption without the option" '[ "$(state "$kept")" = running ]'
stop_serve

# --preempt-reason unreachable: the ssh port refuses after the time, then it fails.
start_serve runpod --api-key k --preempt-after 1h --preempt-reason unreachable
use_provider runpod k
quiet=$(launch_fresh type=on-demand -- -o ids) || fail "launch with --preempt-reason"
expect_ok serve_g runpod sim advance 61m
expect_ok g show "$quiet" -o json
check "unreachable after 1h: running on port 1 ($OUT)" \
	'jq -e ".state == \"running\" and .ssh_port == 1" <<<"$OUT" >/dev/null'
expect_ok serve_g runpod sim advance 10m
check "and failed 10m later" '[ "$(state "$quiet")" = failed ]'
stop_serve

# --preempt-seed: each instance goes between 30m and 90m of a 1h plan, in a way that fits
# it; the same seed over the same launches takes them at the same moments.
taken_at() {
	local m
	for m in $(seq 5 5 95); do
		serve_g runpod sim advance 5m >/dev/null
		g show "$1" -o json | jq -e '.state != "running" or .ssh_port == 1' >/dev/null &&
			{ echo "$m"; return; }
	done
	echo never
}
# Each in a new world, where the launch is its first instance.
rm -rf "$(serve_home runpod)"
start_serve runpod --api-key k --preempt-after 1h --preempt-seed 9
use_provider runpod k
id=$(launch_fresh type=on-demand -- -o ids) || fail "launch with --preempt-seed"
t1=$(taken_at "$id")
check "a seeded loss comes between 30m and 90m (at $t1 min)" '[ "$t1" != never ] && [ "$t1" -ge 30 ] && [ "$t1" -le 90 ]'
expect_ok serve_g runpod sim advance 10m
expect_ok g show "$id" -o json
check "an on-demand instance fails by seed, never outbid ($OUT)" \
	'jq -e ".state == \"failed\" and (.status | startswith(\"outbid\") | not)" <<<"$OUT" >/dev/null'
stop_serve
rm -rf "$(serve_home runpod)"
start_serve runpod --api-key k --preempt-after 1h --preempt-seed 9
use_provider runpod k
id=$(launch_fresh type=on-demand -- -o ids) || fail "launch with --preempt-seed again"
check "the same seed takes it at the same moment" '[ "$(taken_at "$id")" = "$t1" ]'
stop_serve
pass
