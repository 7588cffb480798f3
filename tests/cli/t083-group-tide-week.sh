#!/bin/bash
# An elastic group over a simulated tidal week: every two hours the simulator's clock moves
# and the watcher makes one pass. Each member runs the tide (SIM_WORKLOAD=tidal: 91 % x
# tide(t), busiest 14:00 UTC, quietest 02:00, peak over trough 7), so the group's mean
# utilisation at the even hours is, by hand from workload.c's cosine (noise +-2):
#   00:00 18  02:00 13  04:00 18  06:00 32.5  08:00 52  10:00 71.5  12:00 85.8  14:00 91
#   16:00 85.8  18:00 71.5  20:00 52  22:00 32.5
# With target 50 (out above 60, in below 40), min 1, max 3, a 1 h cooldown (each pass may
# act) and a 2 h window (each pass sees its own reading), the decisions are the fixture
# below: the group stays within min and max, grows into the afternoon and shrinks at night,
# each decision rents exactly one instance, and the week's spend stays within budget.month.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

export GPURENT_SIM_TIME=1767225600	# 2026-01-01T00:00:00Z, a Thursday
expect_ok g config set budget.month 2000
expect_ok g group create web --gpu A100 --min 1 --max 3 --target-util 50 --cooldown 1h \
	--window 2h --env SIM_WORKLOAD=tidal

# live: members running, provisioning or starting (not those being destroyed).
live() {
	g -o json ls --group web | jq '[.[] | select(.state == "running" or
		.state == "provisioning" or .state == "starting")] | length'
}

expect_ok g watch --once --interval 2h
for ((i = 0; i < 84; i++)); do
	expect_ok g sim advance 2h
	expect_ok g watch --once --interval 2h
	n=$(live)
	check "pass $i: $n live members, within min 1 and max 3" '[ "$n" -ge 1 ] && [ "$n" -le 3 ]'
done

# The decisions, as day (1-8), time of day, event and reason.
{
	echo "1 00:00 group-out below-min"
	echo "1 02:00 group-hold at-min"
	echo "1 10:00 group-out load-high"
	echo "1 12:00 group-out load-high"
	echo "1 14:00 group-hold at-max"
	echo "1 22:00 group-in load-low"
	for day in 2 3 4 5 6 7; do
		echo "$day 00:00 group-in load-low"
		echo "$day 02:00 group-hold at-min"
		echo "$day 10:00 group-out load-high"
		echo "$day 12:00 group-out load-high"
		echo "$day 14:00 group-hold at-max"
		echo "$day 22:00 group-in load-low"
	done
	echo "8 00:00 group-in load-low"
} >"$TMP/want"
events_json
jq -r '.[] | select(.label == "group:web" and (.kind == "group-out" or .kind == "group-in" or
	.kind == "group-hold")) | [(((.at | fromdateiso8601) - 1767225600) / 86400 | floor) + 1,
	(.at[11:16]), .kind, (.message | capture("\\((?<r>[a-z-]+)[;)]").r)] | map(tostring) |
	join(" ")' <<<"$EV" >"$TMP/got"
check "the decisions follow the tide as computed by hand: $(diff "$TMP/want" "$TMP/got" | head -5)" \
	'diff -q "$TMP/want" "$TMP/got" >/dev/null'

# Every decision carries its numbers.
check "a scale-out says the mean, the window, the target and the bounds" \
	'jq -e "[.[] | select(.kind == \"group-out\" and (.message | test(\"load-high\")))][0].message |
	test(\"mean GPU utilisation [0-9.]+% over 7200s .*target 50% \\\\(out above 60.0%, in below 40.0%\\\\); [0-9] live \\\\(min 1, max 3\\\\)\")" <<<"$EV" >/dev/null'
check "a scale-in names the least used member and its utilisation" \
	'jq -e "[.[] | select(.kind == \"group-in\")][0] | (.instance_id | startswith(\"sim:i-\")) and
	(.message | test(\"the least used member is sim:i-[0-9]+ at [0-9]+%\"))" <<<"$EV" >/dev/null'

# One instance per launch decision: 1 + 7 x 2 scale-outs, 15 instances, no more.
outs=$(jq '[.[] | select(.kind == "group-out")] | length' <<<"$EV")
launched=$(jq '[.[] | select(.kind == "group-launched")] | length' <<<"$EV")
rented=$(g -o json costs --by instance | jq '[.rows[] | select(.key | startswith("sim:i-"))] |
	length')
check "$outs scale-outs, $launched launched, $rented instances ever rented: all 15" \
	'[ "$outs" = 15 ] && [ "$launched" = 15 ] && [ "$rented" = 15 ]'
check "every member was labelled group:web" \
	'[ "$(jq "[.[] | select(.kind == \"group-launched\" and .label != \"group:web\")] | length" <<<"$EV")" = 0 ]'
# 14 scale-ins (1 + 6 x 2 + 1): each destroy ordered, and verified by the next pass (all
# but the last).
check "the scaled-in members were destroyed, and verified" \
	'[ "$(jq "[.[] | select(.kind == \"destroy-ordered\" and .policy == \"group\")] | length" <<<"$EV")" = 14 ] &&
	[ "$(jq "[.[] | select(.kind == \"destroy-verified\" and .policy == \"group\")] | length" <<<"$EV")" = 13 ]'

spent=$(g -o json costs | jq .spent_month)
check "the week cost \$$spent, within budget.month \$2000" \
	'awk -v s="$spent" "BEGIN { exit !(s > 50 && s <= 2000) }"'
check "no budget event" '[ "$(count_events budget-exceeded)" = 0 ] && [ "$(count_events group-budget)" = 0 ]'
pass
