#!/bin/bash
# budget.day enforced on running instances: a warning at budget.warn percent, then, once
# the day's spend reaches the budget, every running instance is stopped, newest first, and
# each stop verified; a new launch is refused (status 9), as it was before the watcher.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

mapfile -t offers < <(ids_of 4)
a=$(g launch "${offers[0]}" --env SIM_WORKLOAD=training --label a) || fail "launch"
expect_ok g sim advance 1m
b=$(g launch "${offers[1]}" --env SIM_WORKLOAD=training --label b) || fail "launch"
expect_ok g sim advance 1m
c=$(g launch "${offers[2]}" --env SIM_WORKLOAD=training --label c) || fail "launch"
expect_ok g sim advance 2m
expect_ok g -o json ls
burn=$(jq '[.[] | .price_hour] | add' <<<"$OUT")
check "a burn rate ($burn)" '[ -n "$burn" ] && [ "$burn" != null ]'
# A day's budget of one hour of all three.
expect_ok g config set budget.day "$(awk "BEGIN { printf \"%.6f\", $burn }")"

expect_ok g sim advance 30m
expect_ok g watch --once --interval 1m
check "half spent: nothing to say: $OUT" '[ -z "$OUT" ]'
expect_ok g sim advance 22m
expect_ok g watch --once --interval 1m
check "warned at 80%: $OUT" '[[ $OUT == *"warn budget-warn: "*"spent (80% or more of budget.day)"* ]]'
check "nothing stopped yet" '[[ $OUT != *ordered* ]]'
expect_ok g sim advance 5m
expect_ok g watch --once --interval 1m
check "the warning is said once a day: $OUT" '[[ $OUT != *budget-warn* ]]'

expect_ok g sim advance 15m
expect_ok g watch --once --interval 1m
check "budget spent: $OUT" '[[ $OUT == *"warn budget-exceeded: "*"budget.day is used up; stopping the running instances, newest first"* ]]'
order=$(grep -o "stop-ordered sim:i-[0-9]*" <<<"$OUT" | awk '{print $2}' | tr '\n' ' ')
check "all three, newest first: $order" '[ "$order" = "$c $b $a " ]'
run g launch "${offers[3]}"
check "a new launch is refused with status 9: $ERR" '[ "$RC" -eq 9 ] && [[ $ERR == *budget.day* ]]'

expect_ok g sim advance 1m
expect_ok g watch --once --interval 1m
check "each stop verified" '[ "$(grep -c stop-verified <<<"$OUT")" -eq 3 ]'
for i in "$a" "$b" "$c"; do
	check "$i stopped" '[ "$(state_of "$i")" = stopped ]'
done
events_json
check "the orders carry the budget as their policy" \
	'jq -e "[.[] | select(.kind == \"stop-ordered\") | .policy] == [\"budget.day\", \"budget.day\", \"budget.day\"]" <<<"$EV" >/dev/null'

# Started again by hand past the budget (start --force is the user's call; a plain start is
# refused as a launch is): the next pass stops it again; budget.action = notify only reports.
expect_rc 9 g start "$a"
expect_ok g start --force "$a"
expect_ok g config set budget.action notify
expect_ok g sim advance 2m
expect_ok g watch --once --interval 1m
check "notify only: reported, not stopped: $OUT" \
	'[[ $OUT == *"warn budget.day $a: "*"(notify only)"* && $OUT != *ordered* ]]'
check "still running" '[ "$(state_of "$a")" = running ]'
pass
