#!/usr/bin/env bash
# Exit statuses and input validation: an offer lost to another launch is status 7, and
# values that cannot mean anything (unknown providers, impossible dates, empty names, bad
# simulator settings, a state ls can never list) are refused with a message, not accepted.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

# An offer with one machine: the first launch gets it, the second finds it gone (7).
offer=$(g offers type=on-demand -o json | jq -r '[.[] | select(.available == 1)][0].id')
check "an offer with one machine ($offer)" '[[ $offer == sim:o-* ]]'
expect_ok g launch "$offer" --label first
expect_rc 7 g launch "$offer" --label second
check "the loser is told the offer is gone" '[[ $ERR == *"$offer"* && $ERR == *"not on the market"* ]]'
# Losing the race, not just arriving late: four launches of one machine at once.
offer=$(g offers type=on-demand -o json | jq -r '[.[] | select(.available == 1)][0].id')
pids=()
for i in 1 2 3 4; do
	(g launch "$offer" --label "race$i" >/dev/null 2>&1; echo $? >"$TMP/race$i") &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
codes=$(cat "$TMP"/race? | sort | tr '\n' ' ')
check "one winner, three exit 7 ($codes)" '[ "$codes" = "0 7 7 7 " ]'

# A providers list naming a provider that does not exist is refused before it is saved.
expect_rc 2 g config set providers sim,foo
check "unknown provider named" '[[ $ERR == *"unknown provider '"'"'foo'"'"'"* && $ERR == *vast* ]]'
expect_rc 2 g config set providers ' , '
expect_ok g offers -n 1 -o ids
check "commands still work after the refused set" '[[ $OUT == sim:o-* ]]'
expect_ok g config set providers sim
expect_ok g config set --in work providers sim,vast
expect_rc 2 g config set --in work providers vast,nope

# An empty --provider is not "whatever is configured".
expect_rc 2 g -p '' offers -n 1
check "-p '' refused" '[[ $ERR == *"--provider needs a provider name"* ]]'
expect_rc 2 g --provider=, ls

# Dates that do not exist are refused, not rolled into the next month.
expect_rc 2 g costs --since 2026-02-30
check "impossible date named" '[[ $ERR == *2026-02-30* ]]'
expect_rc 2 g costs --since 2025-02-29
expect_rc 2 g costs --since 2026-04-31
expect_rc 2 g costs --since 2026-01-01T24:00:00
expect_rc 2 g costs --since 2026-01-01junk
expect_ok g costs --since 2024-02-29
expect_ok g costs --since 2026-01-31T23:59:59

# The simulated clock moves by sensible steps only.
expect_rc 2 g sim advance 99999d
check "advance limit explained" '[[ $ERR == *366d* ]]'
expect_ok g sim advance 366d

# Simulator settings that are not numbers in range are refused, never silently defaulted.
for v in GPURENT_SIM_SEED=abc GPURENT_SIM_SEED=-1 GPURENT_SIM_SPEED=fast \
	GPURENT_SIM_SPEED=0 GPURENT_SIM_TIME=yesterday GPURENT_SIM_TIME=1e9 \
	GPURENT_SIM_OFFERS=0 GPURENT_SIM_SSH_PORT=70000; do
	expect_rc 2 env "$v" "$GPURENT" offers -n 1
	check "$v named in the message" '[[ $ERR == *"${v%%=*}="* ]]'
done
expect_ok env GPURENT_SIM_SEED= "$GPURENT" offers -n 1 -o ids

# ls never lists destroyed instances, so asking for them is refused with a pointer.
expect_rc 2 g ls --state destroyed
check "ls --state destroyed says where to look" '[[ $ERR == *"costs --by instance"* ]]'
expect_rc 2 g ls --state running,destroyed
expect_ok g ls --state running -o ids
pass
