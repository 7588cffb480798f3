#!/bin/bash
# idle.threshold is "at or below" for both readers of it: a GPU at exactly the threshold is
# idle to the watcher (which stops it) and in audit's idle time, and one a percent above it
# is neither. The simulator's idle workload reports 0, 1 or 2 % (steady for 10 s at a time,
# the clock stands still), so the test finds a moment at 2 % and sets the threshold to 2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"
export GPURENT_SIM_TIME=1790000000	# a whole 10 s: advances of 10 s keep to the workload's steps

id=$(launch_fresh gpus=1 type=on-demand -- --env SIM_WORKLOAD=idle) || fail "launch"
expect_ok g sim advance 2m	# booted
util() {
	g metrics "$id" -o json | jq -r '.[0].util_pct'
}
# Sample (into the history) every 10 s until the GPU is at 2 %: at most 10 minutes of the
# simulator's time.
for ((i = 0; i < 60; i++)); do
	u=$(util) || fail "metrics"
	[ "$u" = 2 ] && break
	expect_ok g sim advance 10
done
check "the idle workload reached 2 % ($u)" '[ "$u" = 2 ]'

# The watcher, one percent under: 2 % is not idle, nothing ordered in 9 s.
expect_ok g config set idle.after 3s
expect_ok g config set idle.threshold 1
expect_ok g watch --once --interval 1m
expect_ok g sim advance 5
check "still at 2 %" '[ "$(util)" = 2 ]'
expect_ok g watch --once --interval 1m
check "2 % is not idle at idle.threshold 1: $OUT" '[[ $OUT != *ordered* ]]'
check "running" '[ "$(state_of "$id")" = running ]'

# At the threshold: 2 % is idle; 3 s later (idle.after) the watcher stops it.
expect_ok g config set idle.threshold 2
expect_ok g watch --once --interval 1m
check "the first idle sample orders nothing yet: $OUT" '[[ $OUT != *ordered* ]]'
expect_ok g sim advance 4
check "still at 2 %" '[ "$(util)" = 2 ]'
expect_ok g watch --once --interval 1m
check "2 % is idle at idle.threshold 2: stop ordered: $OUT" '[[ $OUT == *"stop-ordered $id"* ]]'
check "the observation says at or below" '[[ $OUT == *"GPU utilisation 2% <= 2% for 4s"* ]]'

# audit reads the same history with the same rule: every sample was at or below 2 %, at
# least one at exactly 2 %, so the idle time at 2 is that at 3 and more than that at 1.
idle_share() {
	g config set idle.threshold "$1" >/dev/null || fail "config set idle.threshold $1"
	g audit -o json | jq -r --arg i "$id" '.rows[] | select(.key == $i) | .idle_pct'
}
at1=$(idle_share 1) at2=$(idle_share 2) at3=$(idle_share 3)
check "audit: samples at the threshold are idle (idle % at 1: $at1, at 2: $at2, at 3: $at3)" \
	'[ -n "$at2" ] && [ "$at2" = "$at3" ]'
check "audit: samples one percent above are not" \
	'jq -en --argjson a "$at1" --argjson b "$at2" "\$a < \$b" >/dev/null'
pass
