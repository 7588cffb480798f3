#!/bin/bash
# idle.action other than stop, per label: destroy orders a destroy at idle.after and verifies
# it (the instance and its disk are gone); notify only says so, once a spell, as a warning,
# and leaves the instance running and billing however long it stays idle.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

mapfile -t offers < <(ids_of 2)
[ "${#offers[@]}" -eq 2 ] || fail "fewer than 2 offers"
gone=$(g launch "${offers[0]}" --env SIM_WORKLOAD=idle --label scratch-1) || fail "launch"
told=$(g launch "${offers[1]}" --env SIM_WORKLOAD=idle --label dev-1) || fail "launch"
expect_ok g config set idle.after 10m
expect_ok g config set label.scratch-*.idle.action destroy
expect_ok g config set label.dev-*.idle.action notify
expect_ok g sim advance 2m	# both have booted
expect_ok g watch --once --interval 5m
check "nothing ordered on the first idle sample" '[[ $OUT != *ordered* ]]'

expect_ok g sim advance 10m
expect_ok g watch --once --interval 5m
check "destroy ordered for the destroy label: $OUT" '[[ $OUT == *"action destroy-ordered $gone:"* ]]'
check "no stop for it: $OUT" '[[ $OUT != *"stop-ordered $gone"* ]]'
check "notify only for the notify label: $OUT" \
	'[[ $OUT == *"warn idle $told: GPU utilisation"*"(idle.after 10m00s) (notify only)"* ]]'
check "nothing ordered for it: $OUT" '[[ $OUT != *"ordered $told"* ]]'

expect_ok g sim advance 30
expect_ok g watch --once --interval 5m
check "the destroy verified: $OUT" '[[ $OUT == *"action destroy-verified $gone: the provider reports it"* ]]'
check "it is destroyed, not stopped" '[ "$(state_of "$gone")" = destroyed ]'

# The notify-only instance idles on: told once for the spell, never ordered.
for ((i = 0; i < 6; i++)); do
	expect_ok g sim advance 10m
	expect_ok g watch --once --interval 5m
done
check "the notify-only instance still runs" '[ "$(state_of "$told")" = running ]'
events_json
check "told once, as a warning" \
	'[ "$(count_events idle "$told")" -eq 1 ] && jq -e --arg i "$told" "[.[] | select(.instance_id == \$i and .kind == \"idle\")][0].level == \"warn\"" <<<"$EV" >/dev/null'
check "no order for it at all" \
	'[ "$(count_events stop-ordered "$told")" -eq 0 ] && [ "$(count_events destroy-ordered "$told")" -eq 0 ]'
check "one destroy for the other, no second" '[ "$(count_events destroy-ordered "$gone")" -eq 1 ]'
pass
