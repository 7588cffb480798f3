#!/bin/bash
# The instance guard's decisions, read from its journal by the watcher, are events with the
# instance's label, as the watcher's own events of that instance are.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guard.sh"

guard_vast_busy
g config set guard.agent true >/dev/null
guard_vast_instance t736

expect_ok g watch --once
check "installed" '[ -s "$dir/pid" ] && kill -0 "$(cat "$dir/pid")"'
wait_until 100 'grep -q " start " "$dir/log" 2>/dev/null' || fail "the agent logged no start"
expect_ok g watch --once
expect_ok g -o json events
check "the agent's start is an event with the label ($OUT)" \
	'[ "$(jq "[.[] | select(.kind == \"guard-start\" and .instance_id == \"$id\" and .label == \"t736\")] | length" <<<"$OUT")" = 1 ]'
expect_ok g guard remove "$id"
pass
