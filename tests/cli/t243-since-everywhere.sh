#!/usr/bin/env bash
# --since (and metrics' --until) take the same points in time in every command (issue 24
# item 10): a duration back from now, a UTC date or time, RFC 3339 with Z or an offset,
# through one parser, with one message when it is none of those. The simulated clock is
# fixed, so each expected second is worked out by hand:
#   2026-12-02T00:00:00Z = 1796169600 (the start), 2026-12-01T00:00:00Z = 1796083200.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1796169600

id=$(g launch "$(g offers type=on-demand gpus=1 -o ids -n 1)") || fail "launch"
expect_ok g config set runtime.max 1h
expect_ok g config set runtime.action notify
expect_ok g sim advance 2h
expect_ok g watch --once --interval 1m
expect_ok g -o json events
check "one event at 02:00Z: $OUT" '[ "$(jq "[.[] | select(.kind == \"runtime\")] | length" <<<"$OUT")" = 1 ]'

# events: durations as before, and now dates and times in every form.
kinds() { g -o json events --since "$1" | jq -c '[.[] | select(.kind == "runtime") | .kind]'; }
check "events --since 3h (23:00Z)" '[ "$(kinds 3h)" = "[\"runtime\"]" ]'
check "events --since 2026-12-02 (00:00Z)" '[ "$(kinds 2026-12-02)" = "[\"runtime\"]" ]'
check "events --since 01:00Z" '[ "$(kinds 2026-12-02T01:00:00Z)" = "[\"runtime\"]" ]'
check "events --since 09:00+08:00 (01:00Z)" '[ "$(kinds 2026-12-02T09:00:00+08:00)" = "[\"runtime\"]" ]'
check "events --since 03:00Z leaves it out" '[ "$(kinds 2026-12-02T03:00Z)" = "[]" ]'
check "events --since 10:30+08:00 (02:30Z) leaves it out" '[ "$(kinds 2026-12-02T10:30:00+08:00)" = "[]" ]'
check "events --since 2026-12-01T21:30:00-03:30 (01:00Z)" '[ "$(kinds 2026-12-01T21:30:00-03:30)" = "[\"runtime\"]" ]'

expect_ok g sim advance 2h	# now 04:00Z = 1796184000
check "events --since 1h (03:00Z) leaves it out" '[ "$(kinds 1h)" = "[]" ]'

# audit: the window from a date or time (since_s = now - then).
expect_ok g -o json audit --offline --since 2026-12-01
check "audit --since a date: 1796184000 - 1796083200" '[ "$(jq .since_s <<<"$OUT")" = 100800 ]'
expect_ok g -o json audit --offline --since 2026-12-01T10:00:00+08:00
check "audit --since RFC 3339 with an offset: 1796184000 - 1796090400" '[ "$(jq .since_s <<<"$OUT")" = 93600 ]'
expect_ok g -o json audit --offline --since 36h
check "audit --since a duration as before" '[ "$(jq .since_s <<<"$OUT")" = 129600 ]'
expect_rc 2 g audit --offline --since 2026-12-02T05:00:00Z
check "audit from the future is refused" '[[ $ERR == *"is not in the past"* ]]'

# costs: durations too.
expect_ok g -o json costs --since 7d
check "costs --since 7d: 1796184000 - 604800" '[ "$(jq -r .since <<<"$OUT")" = 2026-11-25T04:00:00Z ]'
expect_ok g -o json costs --since 2026-12-01T10:00:00+08:00
check "costs --since RFC 3339 with an offset" '[ "$(jq -r .since <<<"$OUT")" = 2026-12-01T02:00:00Z ]'
expect_ok g -o json costs --since 2026-12-01T10:00:00.250Z
check "costs --since with a fraction of a second" '[ "$(jq -r .since <<<"$OUT")" = 2026-12-01T10:00:00Z ]'

# metrics: offsets too.
expect_ok g metrics "$id" --since 2026-12-02T09:00:00+08:00 --until 2026-12-02T03:00:00+01:00
expect_rc 2 g metrics "$id" --since 2026-12-02T03:00:00Z --until 2026-12-02T09:00:00+08:00
check "an --until before --since, across offsets" '[[ $ERR == *"--until must be later"* ]]'

# One message for what is none of those, in every command.
for cmd in "costs" "audit --offline" "events" "metrics $id"; do
	# shellcheck disable=SC2086
	expect_rc 2 g $cmd --since yesterday
	check "$cmd says what --since takes" \
		'[[ $ERR == *"--since needs a duration back from now (7d, 36h) or a UTC date or time"*"not '"'yesterday'"'"* ]]'
	# shellcheck disable=SC2086
	expect_rc 2 g $cmd --since 2026-02-30
done
pass
