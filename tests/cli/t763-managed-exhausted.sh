#!/usr/bin/env bash
# run --managed when no candidate can be rented: --max-price and the budgets bind every
# attempt, and --on-exhausted fail ends the job while wait keeps it renting, each with one
# clear event (managed-exhausted).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=100
start_sshd
instances() { sqlite3 "$DB" "SELECT count(*) FROM sim_instances"; }
exhausted_events() { g events -o json | jq -c "[.[] | select(.kind == \"managed-exhausted\" and .label == \"$1\")]"; }

# No H100 is offered at 50 cents an hour: fail at once, renting nothing.
expect_rc 1 g run --managed --gpu h100 --max-price 0.5 --on-exhausted fail --checkpoint-dir c -- true
check "the job id first" '[ "$OUT" = m1 ]'
check "the exhaustion is said" '[[ $ERR == *"no candidate for attempt 1: no h100 on-demand offer of 1 GPU at the price asked; failed (--on-exhausted fail)"* ]]'
expect_ok g jobs m1 -o json
check "m1 failed, saying why" \
	'[ "$(jq -r ".[0] | [.state, .why] | @tsv" <<<"$OUT")" = "failed	no h100 on-demand offer of 1 GPU at the price asked" ]'
check "one alert event" '[ "$(exhausted_events m1 | jq -r "[length, .[0].level] | @tsv")" = "1	alert" ]'
check "nothing rented" '[ "$(instances)" = 0 ]'

# --on-exhausted wait (the default): the job waits, renting, told once however many rounds.
expect_ok g run --managed --gpu h100 --max-price 0.5 --checkpoint-dir c --detach -- true
check "--detach prints the id" '[ "$OUT" = m2 ]'
expect_ok g watch --once
expect_ok g watch --once
expect_ok g jobs m2 -o json
check "m2 still renting" '[ "$(jq -r ".[0].state" <<<"$OUT")" = renting ]'
check "one warning, however many rounds" \
	'[ "$(exhausted_events m2 | jq -r "[length, .[0].level] | @tsv")" = "1	warn" ] &&
	exhausted_events m2 | jq -e ".[0].message | contains(\"waiting for one (--on-exhausted wait)\")" >/dev/null'
check "nothing rented" '[ "$(instances)" = 0 ]'

# The budget binds every attempt: the first machine is admitted, and once the budget is
# spent the recovery's rental is refused by it. The watcher drives the detached job; each
# `watch --once` reads the budget anew.
job='echo "attempt $GPURENT_ATTEMPT of $GPURENT_JOB"; n=0; while [ ! -e "$HOME/stop" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done'
expect_ok g run --managed --gpu h100 --max-price 5 --on-exhausted fail --checkpoint-dir c \
	--every 1s --detach -- "$job"
CLEANUP_HOOKS+=("touch '$HOME/stop'" "close_masters")
wait_until 400 '"$GPURENT" watch --once >>"$TMP/watch.out" 2>&1; [ "$(g jobs m3 -o json | jq -r ".[0].state")" = running ]' ||
	fail "m3 did not start: $(cat "$TMP/watch.out")"
expect_ok g jobs show m3 -o json
first=$(jq -r '.[0].instance' <<<"$OUT")
check "attempt 1 within --max-price" 'jq -e ".[0].price_hour <= 5" <<<"$OUT" >/dev/null'
expect_ok g logs m3
check "logs of a managed job: its current attempt's run" '[ "$OUT" = "attempt 1 of m3" ]'
g config set budget.day 0.000001 >/dev/null
expect_ok g destroy "$first" --yes
wait_until 100 '"$GPURENT" watch --once >>"$TMP/watch.out" 2>&1; [ "$(g jobs m3 -o json | jq -r ".[0].state")" = failed ]' ||
	fail "m3 did not fail: $(cat "$TMP/watch.out")"
touch "$HOME/stop"
check "refused by the budget on attempt 2" \
	'grep -q "no candidate for attempt 2: refused by budget.day" "$TMP/watch.out"'
check "one machine in all" '[ "$(instances)" = 1 ]'
expect_ok g jobs m3 -o json
check "m3 failed after one recovery" \
	'[ "$(jq -r ".[0] | [.state, .attempt, .recoveries] | @tsv" <<<"$OUT")" = "failed	2	1" ]'
pass
