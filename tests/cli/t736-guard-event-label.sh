#!/bin/bash
# The instance guard's decisions, read from its journal by the watcher, are events with the
# instance's label, as the watcher's own events of that instance are.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/serve.sh"

start_sshd
nvidia_double old-driver-440.txt	# 86%: busy, the agent stops nothing
start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
g config set providers vast >/dev/null
g config set guard.interval 1s >/dev/null
g config set guard.agent true >/dev/null
launch_fresh gpus=1 -- --label t736 >"$TMP/id" || fail "launch"
id=$(cat "$TMP/id")
n=${id#vast:}
expect_ok serve_g vast sim advance 10m
export GPURENT_GUARD_ENVIRON="$SERVE_HOME/instance-env/$n"
dir="$HOME/.gpurent-guard/vast-$n"
CLEANUP_HOOKS+=("kill \$(cat '$dir/pid' 2>/dev/null) 2>/dev/null")

expect_ok g watch --once
check "installed" '[ -s "$dir/pid" ] && kill -0 "$(cat "$dir/pid")"'
wait_until 100 'grep -q " start " "$dir/log" 2>/dev/null' || fail "the agent logged no start"
expect_ok g watch --once
expect_ok g -o json events
check "the agent's start is an event with the label ($OUT)" \
	'[ "$(jq "[.[] | select(.kind == \"guard-start\" and .instance_id == \"$id\" and .label == \"t736\")] | length" <<<"$OUT")" = 1 ]'
expect_ok g guard remove "$id"
pass
