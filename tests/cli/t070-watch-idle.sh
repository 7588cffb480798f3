#!/bin/bash
# The idle policy on the simulator's clock: an idle instance is stopped idle.after after its
# first idle sample and not a second earlier, and the stop is verified with the provider;
# a busy one is never stopped; a training job that ends is stopped idle.after after the
# watcher first saw it idle; a label's own idle.after wins over the global one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

mapfile -t offers < <(ids_of 4)
[ "${#offers[@]}" -eq 4 ] || fail "fewer than 4 offers"
idle=$(g launch "${offers[0]}" --env SIM_WORKLOAD=idle --label idle-box) || fail "launch"
busy=$(g launch "${offers[1]}" --env SIM_WORKLOAD=training --label busy-box) || fail "launch"
job=$(g launch "${offers[2]}" --env SIM_WORKLOAD=job:30m --label job-box) || fail "launch"
keep=$(g launch "${offers[3]}" --env SIM_WORKLOAD=idle --label keep-me) || fail "launch"
expect_ok g config set idle.after 10m
expect_ok g config set label.keep-*.idle.after 1d
expect_ok g sim advance 2m	# every one has booted (boot takes 20 to 90 s)

# First pass: the idle instance's first idle sample; nothing is done.
expect_ok g watch --once --interval 5m
check "no order on the first idle sample" '[[ $OUT != *ordered* ]]'

# 599 s later: one second short of idle.after.
expect_ok g sim advance 599
expect_ok g watch --once --interval 5m
check "nothing ordered a second before idle.after: $OUT" '[[ $OUT != *ordered* ]]'
check "still running" '[ "$(state_of "$idle")" = running ]'

# The second it is due: the observation and the order, for the idle one only.
expect_ok g sim advance 1
expect_ok g watch --once --interval 5m
check "stop ordered at idle.after: $OUT" '[[ $OUT == *"stop-ordered $idle"* ]]'
check "only the idle one: $OUT" '[ "$(grep -c ordered <<<"$OUT")" -eq 1 ]'
check "the observation says why" \
	'[[ $OUT == *"idle $idle: GPU utilisation"*"for 10m00s (idle.after 10m00s)"* ]]'
check "the provider is stopping it" '[ "$(state_of "$idle")" = stopping ]'
check "not reported done before the provider says so" '[ "$(count_events stop-verified)" -eq 0 ]'

# A pass after the provider finished: verified.
expect_ok g sim advance 30
expect_ok g watch --once --interval 5m
check "stop verified: $OUT" '[[ $OUT == *"stop-verified $idle: the provider reports it stopped"* ]]'
check "stopped" '[ "$(state_of "$idle")" = stopped ]'
events_json
check "journal: idle, ordered, verified, with the utilisation" \
	'jq -e --arg i "$idle" "[.[] | select(.instance_id == \$i) | .kind] == [\"idle\", \"stop-ordered\", \"stop-verified\"] and ([.[] | select(.kind == \"idle\")][0].util_pct <= 5)" <<<"$EV" >/dev/null'

# The job ends 30 minutes after it began; passes every 5 minutes for the next hour.
for ((i = 0; i < 12; i++)); do
	expect_ok g sim advance 5m
	expect_ok g watch --once --interval 5m
done
check "the finished job's instance was stopped" '[ "$(count_events stop-verified "$job")" -eq 1 ]'
events_json
first_idle=$(jq -r --arg i "$job" '[.[] | select(.instance_id == $i and .kind == "idle")][0].message' <<<"$EV")
check "stopped 10 minutes after it was first seen idle: $first_idle" \
	'[[ $first_idle == *"for 10m00s (idle.after 10m00s)"* ]]'
check "the busy instance still runs" '[ "$(state_of "$busy")" = running ]'
check "the label's idle.after (1d) kept keep-me" '[ "$(state_of "$keep")" = running ]'
check "no order for busy or keep-me" \
	'[ "$(count_events stop-ordered "$busy")" -eq 0 ] && [ "$(count_events stop-ordered "$keep")" -eq 0 ]'
pass
