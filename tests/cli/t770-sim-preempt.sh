#!/usr/bin/env bash
# gpurent sim preempt: the simulator takes an instance away, now or at a simulated time, in
# each of its three ways (outbid, host-failure, unreachable); ls/show say it, the ledger stops
# billing a dead machine, a stop before the time cancels it, and the watcher's "preempted"
# event carries the provider's words and the label.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

state() { g show "$1" -o json | jq -r .state; }

expect_ok g offers type=on-demand -o json
od=$(jq -r '[.[] | select(.available >= 4)][0].id' <<<"$OUT")
expect_ok g offers type=interruptible -o json
spot=$(jq -r '[.[] | select(.available >= 1)][0].id' <<<"$OUT")
check "an on-demand offer with four machines and an interruptible one ($od, $spot)" \
	'[[ $od == sim:o-* && $spot == sim:o-*i ]]'
expect_ok g launch "$od" --label lab-a
a=$OUT
expect_ok g launch "$spot" --label lab-s
s=$OUT
expect_ok g launch "$od" --label lab-c
c=$OUT
expect_ok g launch "$od" --label lab-d
d=$OUT
expect_ok g sim advance 5m
check "all four run" '[ "$(g ls -o json | jq "[.[] | select(.state == \"running\")] | length")" = 4 ]'
# The watcher sees them running first: a loss is what it sees next.
expect_ok g watch --once

# What is refused, and how.
expect_rc 2 g sim preempt "$a" --reason outbid
check "an on-demand instance is not outbid" '[[ $ERR == *on-demand* && $ERR == *host-failure* ]]'
expect_rc 2 g sim preempt "$a" --reason flood
check "an unknown reason names the three" '[[ $ERR == *outbid*host-failure*unreachable* ]]'
expect_rc 2 g sim preempt "$a" --at 2020-01-01T00:00:00Z
check "a time already past is refused" '[[ $ERR == *--at* ]]'
expect_rc 2 g sim preempt "$a" --at soon
expect_rc 2 g sim advance 1h --reason outbid
check "--reason belongs to preempt" '[[ $ERR == *"sim preempt ID"* ]]'
expect_rc 3 g sim preempt sim:i-999999
check "nothing was taken by the refusals" '[ "$(state "$a")" = running ]'

# outbid: the interruptible instance is stopped at once, its disk kept.
expect_ok g sim preempt "$s" --reason outbid
check "outbid is said on stderr" '[[ $ERR == *"$s: outbid at "* ]]'
expect_ok g show "$s" -o json
check "outbid: stopped, with the provider's words ($OUT)" \
	'jq -e ".state == \"stopped\" and (.status | startswith(\"outbid:\"))" <<<"$OUT" >/dev/null'

# host-failure (the default) at a time to come: not before it, and then failed for good.
expect_ok g sim preempt "$a" --at 30m
expect_ok g sim advance 29m
check "a host failure 30m ahead has not come at 29m" '[ "$(state "$a")" = running ]'
expect_ok g sim advance 1m
expect_ok g show "$a" -o json
check "at 30m the machine is dead ($OUT)" \
	'jq -e ".state == \"failed\" and .status == \"host failure: the machine went down\"" <<<"$OUT" >/dev/null'
cost_a=$(jq -r .cost_so_far <<<"$OUT")
expect_ok g sim advance 1h
check "a failed machine bills no more ($cost_a)" '[ "$(g show "$a" -o json | jq -r .cost_so_far)" = "$cost_a" ]'

# unreachable: the provider still runs and bills it, its ssh port refuses, it reports no
# metrics, and ten minutes later it is failed.
expect_ok g sim preempt "$c" --reason unreachable
expect_ok g show "$c" -o json
check "unreachable: still running, ssh on the dead port 1, no utilisation ($OUT)" \
	'jq -e ".state == \"running\" and .ssh_port == 1 and .util_pct == null and .status == null" <<<"$OUT" >/dev/null'
expect_ok g show "$d" -o json
check "the others keep their ssh port" 'jq -e ".ssh_port != 1 and .state == \"running\"" <<<"$OUT" >/dev/null'
expect_rc 5 g metrics "$c"
expect_ok g sim advance 9m
check "an unreachable machine still runs at 9m" '[ "$(state "$c")" = running ]'
expect_ok g sim advance 1m
expect_ok g show "$c" -o json
check "after 10m unreachable it is failed ($OUT)" \
	'jq -e ".state == \"failed\" and (.status | startswith(\"unreachable:\"))" <<<"$OUT" >/dev/null'

# A stop before the time cancels the fault: the instance runs on after it.
expect_ok g sim preempt "$d" --at 1h --reason host-failure
expect_ok g stop "$d" --no-wait
expect_ok g sim advance 1m
expect_ok g start "$d"
expect_ok g sim advance 2h
check "a stop before its time cancelled the host failure" '[ "$(state "$d")" = running ]'

# The watcher reports each loss as preempted, with the provider's words and the label.
expect_ok g watch --once
expect_ok g events -o json
ev=$OUT
ids=("$s" "$a" "$c")
words=("outbid:" "host failure:" "unreachable:")
for i in 0 1 2; do
	check "a preempted event for ${ids[i]} saying '${words[i]}', with its label" \
		'jq -e --arg id "${ids[i]}" --arg w "${words[i]}" "[.[] | select(.kind == \"preempted\" and .instance_id == \$id and (.message | contains(\$w)) and (.label | startswith(\"lab-\")))] | length == 1" <<<"$ev" >/dev/null'
done
check "no preempted event for the one that still runs" \
	'jq -e --arg id "$d" "[.[] | select(.kind == \"preempted\" and .instance_id == \$id)] | length == 0" <<<"$ev" >/dev/null'

# A world made before sim preempt (no fault columns) gains them and works on.
expect_ok g launch "$od" --label old
old=$OUT
sqlite3 "$DB" "ALTER TABLE sim_instances DROP COLUMN fault; ALTER TABLE sim_instances DROP COLUMN fault_at" ||
	fail "could not make an old world"
expect_ok g sim preempt "$old"
check "an old world's instance is taken away too" '[ "$(state "$old")" = failed ]'
pass
