#!/bin/bash
# The cooldown: a group whose load stays high decides at most once per cooldown. Passes
# every two hours from 08:00 UTC with a 3 h cooldown: the first member at 08:00 (below
# min), held at 10:00 (2 h since, the hold told with its numbers), out at 12:00 (4 h
# since), held at 14:00, out at 16:00.
# The floor is not held by it: a member lost below min is replaced at once.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

export GPURENT_SIM_TIME=1767254400	# 2026-01-01T08:00:00Z
expect_ok g group create api --gpu A100 --min 1 --max 5 --target-util 50 --cooldown 3h \
	--window 2h --env SIM_WORKLOAD=tidal
expect_ok g watch --once --interval 2h	# 08:00: below min, launches the first
for t in 10 12 14 16; do
	expect_ok g sim advance 2h
	expect_ok g watch --once --interval 2h
	echo "$t $(g -o json ls --group api | jq length)" >>"$TMP/sizes"
done
check "members at 10, 12, 14, 16: $(tr '\n' ' ' <"$TMP/sizes")" \
	'[ "$(tr "\n" " " <"$TMP/sizes")" = "10 1 12 2 14 2 16 3 " ]'
events_json
jq -r '.[] | select(.label == "group:api" and (.kind | startswith("group-"))) |
	(.at[11:16]) + " " + .kind' <<<"$EV" >"$TMP/got"
cat >"$TMP/want" <<'WANT'
08:00 group-out
08:00 group-launched
10:00 group-hold
12:00 group-out
12:00 group-launched
14:00 group-hold
16:00 group-out
16:00 group-launched
WANT
check "decisions: $(tr '\n' ',' <"$TMP/got")" 'diff -q "$TMP/want" "$TMP/got" >/dev/null'
check "the hold says the cooldown and how long since the last decision" \
	'jq -e "[.[] | select(.kind == \"group-hold\")][0].message |
	test(\"holds \\\\(cooldown\\\\): .*last scaled 7200s ago, cooldown 10800s\")" <<<"$EV" >/dev/null'
check "group show has the last decision at 16:00" \
	'[ "$(g -o json group show api | jq -r ".[0].last_scale_at")" = 2026-01-01T16:00:00Z ]'

# A member destroyed by hand below min is replaced within the cooldown.
# shellcheck disable=SC2046
expect_ok g destroy --yes $(g -o ids ls --group api)
expect_ok g sim advance 10m
expect_ok g watch --once --interval 2h
check "below min within the cooldown: replaced at once" \
	'[ "$(g -o json ls --group api | jq "[.[] | select(.state != \"destroyed\")] | length")" = 1 ] &&
	[ "$(count_events group-launched)" = 4 ]'
pass
