#!/bin/bash
# guard.agent = on: gpurent watch installs the instance guard on a running vast instance,
# and starts it again, once, after a kill -9 (the agent gone), from the script it was
# installed with; each is an event.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guard.sh"

guard_vast_busy
guard_vast_instance t732

# Off (the default): the watcher puts nothing on the instance.
expect_ok g watch --once
check "no agent while guard.agent is false" '[ ! -e "$dir" ]'

g config set guard.agent true >/dev/null
expect_ok g watch --once
check "installed" '[ -s "$dir/pid" ] && kill -0 "$(cat "$dir/pid")"'
first=$(cat "$dir/pid")
expect_ok g -o json events
check "the install is an event" '[ "$(jq "[.[] | select(.kind == \"guard-installed\" and .instance_id == \"$id\")] | length" <<<"$OUT")" = 1 ]'
wait_until 100 '[ "$(sed -n "s/^verdict=//p" "$dir/state" 2>/dev/null)" = busy ]' || fail "no busy verdict"
# A live agent is left alone.
expect_ok g watch --once
check "a live agent is kept" '[ "$(cat "$dir/pid")" = "$first" ] && kill -0 "$first"'

kill -9 "$first"
wait_until 100 '! kill -0 "$first" 2>/dev/null'
expect_ok g watch --once
second=$(cat "$dir/pid")
check "started again" '[ "$second" != "$first" ] && kill -0 "$second"'
expect_ok g -o json events
check "the restart is an event" '[ "$(jq "[.[] | select(.kind == \"guard-restarted\" and .instance_id == \"$id\")] | length" <<<"$OUT")" = 1 ]'
check "it says the agent was gone" '[ "$(jq -r "[.[] | select(.kind == \"guard-restarted\")][0].message" <<<"$OUT" | grep -c "was gone")" = 1 ]'
expect_ok g guard remove "$id"
pass
