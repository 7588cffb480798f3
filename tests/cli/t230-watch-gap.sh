#!/bin/bash
# Unobserved time is not idle time: idle accrues only between samples no further apart than
# three intervals. Two passes of `watch --once` 31 minutes apart (no pass between), or a
# foreground watcher across a 15-minute jump of the clock (as across a laptop's sleep), see
# a gap: the idle spell begins again at the sample after it, and the journal says so (gap).
# Passes close enough together then stop it idle.after after that sample.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

mapfile -t offers < <(ids_of 3)
idle=$(g launch "${offers[0]}" --env SIM_WORKLOAD=idle --label sleeper) || fail "launch"
expect_ok g config set idle.after 30m
expect_ok g sim advance 2m	# booted

expect_ok g watch --once --interval 1m
check "the first idle sample: nothing yet: $OUT" '[[ $OUT != *"$idle"* ]]'
expect_ok g sim advance 31m
expect_ok g watch --once --interval 1m
check "31 minutes between two samples is no idle spell: $OUT" '[[ $OUT != *ordered* ]]'
check "the gap is said: $OUT" \
	'[[ $OUT == *"info gap $idle: no sample for 31m00s (over 3m00s): idle time counts again from this sample"* ]]'
check "still running" '[ "$(state_of "$idle")" = running ]'
events_json
check "the journal has the gap, with the utilisation" \
	'jq -e --arg i "$idle" "[.[] | select(.instance_id == \$i)] | length == 1 and .[0].kind == \"gap\" and .[0].level == \"info\" and .[0].util_pct <= 5" <<<"$EV" >/dev/null'

# Passes every 10 minutes (--interval 10m: samples up to 30 minutes apart are evidence):
# idle.after counts from the sample after the gap, 30 minutes, not 61.
for ((i = 0; i < 2; i++)); do
	expect_ok g sim advance 10m
	expect_ok g watch --once --interval 10m
	check "not yet at $(((i + 1) * 10)) minutes: $OUT" '[[ $OUT != *"$idle"* ]]'
done
expect_ok g sim advance 10m
expect_ok g watch --once --interval 10m
check "stopped 30 minutes after the gap's sample: $OUT" \
	'[[ $OUT == *"info idle $idle: GPU utilisation"*"for 30m00s (idle.after 30m00s)"* ]] && [[ $OUT == *"stop-ordered $idle"* ]]'
check "one gap in all" '[ "$(count_events gap)" -eq 1 ]'

# A foreground watcher, one pass a second on a clock that stands still but for `sim
# advance`: its first pass sees the idle GPU, then the clock jumps 15 minutes at once.
late=$(g launch "${offers[1]}" --env SIM_WORKLOAD=idle --label lid-closed) || fail "launch"
expect_ok g config set idle.after 10m
expect_ok g sim advance 2m
"$GPURENT" -v watch --interval 1s >"$TMP/w.out" 2>"$TMP/w.err" &
w=$!
CLEANUP_HOOKS+=("kill $w 2>/dev/null; wait $w 2>/dev/null")
wait_until 300 '[ "$(grep -c " instances, " "$TMP/w.err")" -ge 1 ]' ||
	fail "the watcher made no pass: $(cat "$TMP/w.err")"
expect_ok g sim advance 15m
passes=$(grep -c " instances, " "$TMP/w.err")
# Two passes after the jump: the first saw the jump, whatever it made of it.
wait_until 300 '[ "$(grep -c " instances, " "$TMP/w.err")" -ge $((passes + 2)) ]' ||
	fail "the watcher made no pass after the jump: $(cat "$TMP/w.err")"
kill "$w"
wait "$w"
OUT=$(cat "$TMP/w.out")
check "the jump is a gap: $OUT" '[[ $OUT == *"info gap $late: no sample for 15m00s (over 3s): idle time counts again from this sample"* ]]'
check "not idle for 15 minutes: $OUT" '[[ $OUT != *"ordered $late"* ]] && [ "$(state_of "$late")" = running ]'

# A gap shorter than idle.after is a gap all the same: 20 minutes unseen of an hour's
# idle.after, then passes every 20 minutes (--interval 20m): an hour after the gap's
# sample, not an hour after the first.
expect_ok g config set idle.after 1h
third=$(g launch "${offers[2]}" --env SIM_WORKLOAD=idle --label short-gap) || fail "launch"
expect_ok g sim advance 2m
expect_ok g watch --once --interval 1m
expect_ok g sim advance 20m
expect_ok g watch --once --interval 1m
check "20 minutes unseen: a gap: $OUT" '[[ $OUT == *"info gap $third: no sample for 20m00s (over 3m00s)"* ]]'
for ((i = 0; i < 2; i++)); do
	expect_ok g sim advance 20m
	expect_ok g watch --once --interval 20m
	check "not an hour after the first sample: $OUT" '[[ $OUT != *"ordered $third"* ]]'
done
expect_ok g sim advance 20m
expect_ok g watch --once --interval 20m
check "an hour after the gap's sample: $OUT" '[[ $OUT == *"stop-ordered $third"* ]]'
pass
